"""YAML manifests: libyaml's parser gives the documents PyYAML's pure-Python one gives, errors are the pure
parser's, and a file is parsed once per process but every caller gets its own copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from fakekube import errors, yamldocs
from fakekube.agentsandbox import crd_paths
from fakekube.resources import load_manifests


@pytest.mark.parametrize("path", crd_paths(), ids=lambda p: p.name)
def test_the_c_parser_reads_the_crds_as_the_python_parser_does(path: Path) -> None:
    text = path.read_text()
    assert yamldocs.load_all(text) == list(yaml.safe_load_all(text))


def test_odd_documents_read_alike() -> None:
    text = "a: 2026-01-01\nb: !!binary aGk=\nc: [1, 1.5, .inf, ~, yes, 0x1f]\n1: int key\n---\n---\nx: 'y'\n"
    assert yamldocs.load_all(text) == list(yaml.safe_load_all(text))


def test_a_bad_document_is_reported_by_the_python_parser() -> None:
    text = "a: [1, 2\nb: c\n"
    with pytest.raises(yaml.YAMLError) as expected:
        list(yaml.safe_load_all(text))
    with pytest.raises(errors.BadRequest) as got:
        load_manifests(text)
    assert str(expected.value) in got.value.message


def test_a_file_is_parsed_once_and_copied_for_every_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n")
    calls: list[str] = []
    real = yamldocs.load_all
    monkeypatch.setattr(yamldocs, "load_all", lambda text: calls.append(text) or real(text))
    first = load_manifests(path)
    first[0]["data"]["k"] = "changed"
    second = load_manifests(str(path))
    assert second[0]["data"] == {"k": "v"} and len(calls) == 1
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    os.utime(path, ns=(1, 1))  # a new size and modification time: parsed again
    assert load_manifests(path)[0]["metadata"]["name"] == "b" and len(calls) == 2
