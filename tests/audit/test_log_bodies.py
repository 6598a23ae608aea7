"""Bodies kept on entries (AuditLog.keep_bodies) and an object's version history (AuditLog.history)."""

from __future__ import annotations

import pytest

from fakekube.store import Store


def test_history_is_each_new_version_in_order(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"n": "1"}}, "default")
    kube.patch("configmaps", "c", {"data": {"n": "2"}}, "default")
    kube.patch("configmaps", "c", {"data": {"n": "2"}}, "default")  # a no-op: no new version
    kube.patch("configmaps", "c", {"data": {"n": "3"}}, "default", dry_run=True)
    kube.create("configmaps", {"metadata": {"name": "other"}}, "default")
    kube.delete("configmaps", "c", "default")
    assert [v["data"]["n"] for v in kube.audit.history("configmaps", "c", "default")] == ["1", "2"]
    sent = [e.request_object for e in kube.audit.filter(verb="patch", name="c")]
    assert sent == [{"data": {"n": "2"}}, {"data": {"n": "2"}}, {"data": {"n": "3"}}]


def test_without_bodies_history_says_what_to_do() -> None:
    store = Store()
    store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    with pytest.raises(ValueError, match=r"kept no body: call audit.keep_bodies\(\)"):
        store.audit.history("configmaps", "c")
    store.audit.keep_bodies()
    store.patch("configmaps", "c", {"data": {"k": "v"}}, "default")
    assert store.audit.filter(verb="patch")[0].response_object["data"] == {"k": "v"}
    store.audit.keep_bodies(False)
    store.patch("configmaps", "c", {"data": {"k": "w"}}, "default")
    assert store.audit.filter(verb="patch")[1].response_object is None


def test_an_event_writer_and_kept_bodies_live_together(tmp_path) -> None:
    store = Store()
    store.audit.keep_bodies()
    store.audit.write_events(tmp_path / "audit.log", level="Metadata")
    store.create("configmaps", {"metadata": {"name": "c"}}, "default")
    store.audit.close_writers()
    assert store.audit.filter(verb="create")[0].request_object["metadata"]["name"] == "c"
    assert '"requestObject"' not in (tmp_path / "audit.log").read_text()  # the writer logs at its own level
    store.patch("configmaps", "c", {"data": {"k": "v"}}, "default")
    assert store.audit.history("configmaps", "c")[-1]["data"] == {"k": "v"}
