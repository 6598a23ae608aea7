"""The media type of an error Status after a failed negotiation (fakekube/server/negotiation.py
``status_media_type``): apiserver v0.37.2 responsewriters.ErrorNegotiated with DefaultEndpointRestrictions,
observed on kube-apiserver v1.37.2 (a watch's 406 for YAML is YAML, a custom resource's for protobuf is
protobuf, a Table in protobuf falls back to raw JSON)."""

from __future__ import annotations

import pytest

from fakekube.server.negotiation import JSON, PROTOBUF, YAML, status_media_type

ALL = (JSON, YAML, PROTOBUF)


@pytest.mark.parametrize(("accept", "expected"), [
    (None, JSON),
    ("application/yaml", YAML),
    (PROTOBUF, PROTOBUF),
    (f"{PROTOBUF};as=Table;g=meta.k8s.io;v=v1", None),
    ("application/json;as=Table;g=meta.k8s.io;v=v9, application/yaml;q=0.5", YAML),
    ("application/yaml;stream=watch, application/json;stream=watch;q=0.5", JSON),
    ("text/html", None),
    ("*/*", JSON),
])
def test_the_status_takes_the_first_clause_without_a_transform(accept, expected):
    assert status_media_type(accept, ALL) == expected
