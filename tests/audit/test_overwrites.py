"""Stale overwrites judged from an audit log alone (fakekube.audit.overwrites): hand-made logs whose answer is known,
written as kube-apiserver writes them (audit.k8s.io/v1 Events at RequestResponse)."""

from __future__ import annotations

import json
from typing import Any

from fakekube.audit.event import decode
from fakekube.audit.overwrites import fits, judge
from fakekube.cli import main


def event(seq: int, verb: str, status: dict[str, Any], rv: int, body: Any, *, sub: str | None = "status",
          level: str = "RequestResponse", user: str = "controller") -> dict[str, Any]:
    obj = {"apiVersion": "x/v1", "kind": "Claim",
           "metadata": {"name": "c", "namespace": "default", "uid": "u1", "resourceVersion": str(rv)}, "status": status}
    ev: dict[str, Any] = {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": level, "auditID": f"id{seq}", "stage":
        "ResponseComplete", "verb": verb, "user": {"username": user},
        "objectRef": {"resource": "claims", "namespace": "default", "name": "c", "apiGroup": "x",
                      "apiVersion": "v1", **({"subresource": sub} if sub else {})},
        "responseStatus": {"code": 201 if verb == "create" else 200},
        "stageTimestamp": f"2026-12-06T00:00:{seq:02d}.000000Z"}
    if level == "RequestResponse":
        ev["requestObject"] = body
        ev["responseObject"] = obj
    return ev


def entries(*events: dict[str, Any]):
    return [decode(e, seq=i) for i, e in enumerate(events, 1)]


def test_a_merge_patch_fits_the_versions_it_differs_from_in_every_leaf():
    assert fits({"status": {"a": 1}}, {"status": {"a": 0}})
    assert fits({"status": {"a": 1}}, {"status": {}})
    assert not fits({"status": {"a": 1}}, {"status": {"a": 1}})
    # a null removes a key the writer's copy had
    assert fits({"status": {"a": None}}, {"status": {"a": 1}})
    assert not fits({"status": {"a": None}}, {"status": {}})
    # lists are one value
    assert not fits({"status": {"l": [1, 2]}}, {"status": {"l": [1, 2]}})
    assert fits({"status": {"l": [1, 2]}}, {"status": {"l": [1]}})
    # the bookkeeping is not the writer's
    assert fits({"metadata": {"resourceVersion": "3"}, "status": {"a": 1}}, {"metadata": {"resourceVersion": "3"}})


LOG = (
    event(1, "create", {}, 1, {"metadata": {"name": "c"}}, sub=None),
    event(2, "patch", {"name": "a"}, 2, {"status": {"name": "a"}}),
    event(3, "patch", {"name": "a", "ip": "1"}, 3, {"status": {"ip": "1"}}, user="other"),
    # computed from rv 1 (name differs only there): puts ip back over rv 3's, which it cannot have seen
    event(4, "patch", {"name": "a", "ip": "2"}, 4, {"status": {"name": "a", "ip": "2"}}),
)


def test_a_blind_patch_whose_body_fits_only_versions_before_the_write_it_replaced_is_stale():
    report = judge(entries(*LOG))
    assert report.verdicts["stale"] == 1
    [o] = report.overwrites
    assert (o.seq, o.paths, o.other_actor, o.other_rv, o.bases, o.rv_before) == (4, ["status.ip"], "other", "3",
                                                                                ["1"], "3")
    # the first two patches set paths nobody had set: fresh
    assert report.verdicts["fresh"] == 2


def test_a_body_that_fits_versions_on_both_sides_is_undecided():
    log = entries(
        event(1, "create", {}, 1, {}, sub=None),
        event(2, "patch", {"x": 1}, 2, {"status": {"x": 1}}, user="other"),
        event(3, "patch", {"x": 1, "y": 1}, 3, {"status": {"y": 1}}),
        event(4, "patch", {"x": 2, "y": 1}, 4, {"status": {"x": 2}}),  # fits rv 1, 2 and 3
    )
    report = judge(log)
    assert report.verdicts["undecided"] == 1 and report.overwrites == []


def test_a_write_naming_its_version_is_judged_on_it():
    locked = entries(
        event(1, "create", {}, 1, {}, sub=None),
        event(2, "patch", {"x": 1}, 2, {"status": {"x": 1}}, user="other"),
        event(3, "patch", {"x": 2}, 3, {"metadata": {"resourceVersion": "2"}, "status": {"x": 2}}),
        event(4, "update", {"x": 3}, 4, {"metadata": {"resourceVersion": "3"}, "status": {"x": 3}}),
    )
    report = judge(locked)
    assert report.verdicts["fresh"] == 3 and report.verdicts["stale"] == 0


def test_a_write_logged_without_its_body_leaves_what_follows_unjudged():
    log = entries(LOG[0], LOG[1], event(3, "patch", {}, 3, None, level="Metadata"), LOG[3])
    report = judge(log, ["claims"])
    assert report.overwrites == []
    assert report.verdicts["unjudged"] == 2 and report.verdicts["fresh"] == 1


def test_a_write_with_no_change_overwrites_nothing():
    log = entries(LOG[0], LOG[1], event(3, "patch", {"name": "a"}, 3, {"status": {"name": "a"}}))
    assert judge(log).verdicts["no-change"] == 1


def test_the_command_prints_the_verdicts(tmp_path, capsys):
    path = tmp_path / "audit.log"
    path.write_text("".join(json.dumps(e) + "\n" for e in LOG))
    assert main(["audit", "stale", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["stale"]
    assert out["verdicts"]["stale"] == 1
    assert out["by_write"] == {"claims/status patch": {"fresh": 2, "stale": 1}}
    assert main(["audit", "stale", str(path)]) == 0
    assert "stale overwrite: status.ip (after other@rv 3; computed from rv 1)" in capsys.readouterr().out


def test_a_rewrite_of_the_same_values_from_a_stale_view_changes_nothing_but_is_counted():
    # kube-apiserver answers a patch that changes nothing with the same resourceVersion (no new version)
    again = event(5, "patch", {"name": "a", "ip": "2"}, 4, {"status": {"name": "a", "ip": "2"}})
    report = judge(entries(*LOG, again))
    assert report.verdicts["no-change"] == 1
    assert report.stale_base == {"claims/status patch": 2}  # this one and seq 4
