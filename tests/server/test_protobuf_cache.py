"""The server's cache of encoded stored objects: the same bytes as encoding afresh, a new encoding for every
resourceVersion, one cache per store, bounded in size, and served reads that follow every write."""

from __future__ import annotations

from fakekube.server.protobuf import MEDIA_TYPE, EncodedObjects, default_codec
from fakekube.server.protobuf.cache import identity
from fakekube.server.replies import encoded_objects
from fakekube.store import Store

CODEC = default_codec()
CMS = "/api/v1/namespaces/default/configmaps"


def _store(seed: int = 1, n: int = 5, value: str = "v") -> Store:
    store = Store(audit=False, seed=seed)
    for i in range(n):
        store.create("configmaps", {"metadata": {"name": f"c{i}", "labels": {"set": "a"}},
                                    "data": {"k": f"{value}{i}"}}, "default")
    return store


def test_cached_bytes_are_the_bytes_of_encoding_afresh():
    store = _store()
    pod = store.create("pods", {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
                       "default")
    cache = EncodedObjects()
    listing = store.list("configmaps", "default")
    fresh = CODEC.encode(listing)
    assert CODEC.encode(listing, cache) == fresh  # cold: every item encoded and kept
    assert len(cache) == 5
    assert CODEC.encode(store.list("configmaps", "default"), cache) == fresh  # warm: every item from the cache
    assert CODEC.encode(pod, cache) == CODEC.encode(pod) == CODEC.encode(pod, cache)
    assert CODEC.decode(CODEC.encode(listing, cache)) == CODEC.decode(fresh)


def test_a_changed_object_is_encoded_again_and_each_resource_version_has_its_own_bytes():
    store = _store()
    cache = EncodedObjects()
    before = store.get("configmaps", "c1", "default")
    old = CODEC.encode(before, cache)
    after = store.update("configmaps", {**before, "data": {"k": "changed"}}, "default")
    new = CODEC.encode(after, cache)
    assert new == CODEC.encode(after) and new != old
    assert CODEC.decode(new)["data"] == {"k": "changed"}
    old_key, new_key = identity(CODEC.message_for("v1", "ConfigMap").name, before), identity(
        CODEC.message_for("v1", "ConfigMap").name, after)
    assert old_key != new_key and cache.get(old_key) != cache.get(new_key)
    listed = CODEC.decode(CODEC.encode(store.list("configmaps", "default"), cache))
    assert [i["data"]["k"] for i in listed["items"]] == ["v0", "changed", "v2", "v3", "v4"]


def test_objects_without_a_uid_or_resource_version_are_not_cached():
    cache = EncodedObjects()
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": "b"}}
    assert CODEC.encode(obj, cache) == CODEC.encode(obj) and len(cache) == 0


def test_the_cache_is_bounded_by_the_bytes_it_holds():
    store = _store(n=20)
    cache = EncodedObjects(max_bytes=1000)
    listing = store.list("configmaps", "default")
    assert CODEC.encode(listing, cache) == CODEC.encode(listing)
    assert 0 < cache.size <= 1000 and 0 < len(cache) < 20
    assert CODEC.encode(listing, cache) == CODEC.encode(listing)  # evicted items are simply encoded again


def test_each_store_has_its_own_cache():
    # The same seed gives the same uids and resourceVersions, with other data.
    first, second = _store(seed=7, value="first"), _store(seed=7, value="second")
    a, b = first.get("configmaps", "c0", "default"), second.get("configmaps", "c0", "default")
    assert a["metadata"]["uid"] == b["metadata"]["uid"]
    assert a["metadata"]["resourceVersion"] == b["metadata"]["resourceVersion"]
    assert encoded_objects(first) is encoded_objects(first) is not encoded_objects(second)
    assert CODEC.decode(CODEC.encode(a, encoded_objects(first)))["data"] == {"k": "first0"}
    assert CODEC.decode(CODEC.encode(b, encoded_objects(second)))["data"] == {"k": "second0"}


def test_protobuf_reads_follow_every_write(api, kube_server):
    store = kube_server.store
    store.create("configmaps", {"metadata": {"name": "c"}, "data": {"n": "0"}}, "default")
    for n in range(1, 4):
        listing = CODEC.decode(api("GET", CMS, None, {"Accept": MEDIA_TYPE}).body)
        got = CODEC.decode(api("GET", f"{CMS}/c", None, {"Accept": MEDIA_TYPE}).body)
        assert listing["items"][0]["data"] == got["data"] == {"n": str(n - 1)}
        live = store.get("configmaps", "c", "default")
        assert {"apiVersion": "v1", "kind": "ConfigMap", **listing["items"][0]} == got == live
        store.update("configmaps", {**live, "data": {"n": str(n)}}, "default")
    assert len(encoded_objects(store)) == 3  # one message per resourceVersion read
