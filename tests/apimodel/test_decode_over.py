"""The typed decode with some top-level fields taken as given (fakekube/apimodel/decode_over.py): the same
answer as a whole decode, and the fields it always decodes."""

from __future__ import annotations

import json

import pytest

from fakekube.apimodel.decode_over import copy_over, flat_fields
from fakekube.apimodel.decoder import DecodeError, decoder
from fakekube.apimodel.versions import kubernetes_version

POD = "io.k8s.api.core.v1.Pod"
CONFIG_MAP = "io.k8s.api.core.v1.ConfigMap"
VERSION = kubernetes_version()


def test_the_flat_fields_are_the_top_level_scalars_and_maps_of_scalars_with_no_other_check() -> None:
    assert flat_fields(decoder(VERSION, CONFIG_MAP)) == {"apiVersion", "kind", "data", "immutable"}
    assert flat_fields(decoder(VERSION, POD)) == {"apiVersion", "kind"}


@pytest.mark.parametrize("body", [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "bogus": 1},
     "spec": {"containers": [{"name": "c", "bogus": 2}]}, "zz": 3},
    {"kind": "Pod", "metadata": {"name": 5}, "spec": {"containers": "x"}},  # the first error is metadata's
    {"spec": {"containers": [{"name": 1}]}, "metadata": {"name": 5}},  # ... in document order
    {"metadata": {"labels": {"a": 1}}, "spec": {}, "status": {"phase": 1}},
    {"apiVersion": 1, "spec": {"containers": [{"name": "c"}]}},
])
def test_copy_over_with_nothing_kept_is_copy(body: dict) -> None:
    dec = decoder(VERSION, POD)
    asked: list[str] = []

    def kept(key: str, value: object) -> None:
        asked.append(key)

    try:
        expected = dec.copy(body)
    except DecodeError as exc:
        with pytest.raises(DecodeError) as info:
            copy_over(dec, body, kept)
        assert str(info.value) == str(exc)
        return
    got = copy_over(dec, body, kept)
    assert (json.dumps(got.value), got.unknown) == (json.dumps(expected.value), expected.unknown)
    assert "apiVersion" not in asked and "zz" not in asked  # scalars and unknown fields are never offered


def test_copy_over_takes_what_kept_gives_in_place_and_walks_the_rest() -> None:
    dec = decoder(VERSION, POD)
    body = {"apiVersion": "v1", "metadata": {"name": "p", "bogus": 1}, "spec": {"containers": "not walked"},
            "status": {"phase": "Running", "bogus": 2}}
    got = copy_over(dec, body, lambda key, value: {"kept": key} if key == "spec" else None)
    assert list(got.value) == ["apiVersion", "metadata", "spec", "status"]
    assert got.value["spec"] == {"kept": "spec"}
    assert got.unknown == ["metadata.bogus", "status.bogus"]
    assert got.value["metadata"] is not body["metadata"]
