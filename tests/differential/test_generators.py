"""The generated corpus (tests/differential/generators/): its data is current and it covers what issue 24 asks
— every GA kind of the release in every per-kind family, every area — with names that say what a case is."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.differential.harness import corpus

GENERATORS = Path(__file__).resolve().parent / "generators"
sys.path.insert(0, str(GENERATORS))

from _kinds import key, object_kinds, review_kinds  # noqa: E402
from _profiles import profiles  # noqa: E402

GENERATED = [c for path in sorted(GENERATORS.glob("*.py")) if not path.name.startswith("_")
             for c in corpus.load_generator(path)]
BY_KIND = Counter(c.name.split("/", 1)[0] for c in GENERATED)
# Families every object kind has (the per-kind generators); the rest run on the representative kinds.
EVERY_KIND = ("create/basic", "get/basic", "get/missing", "list/basic", "update/basic", "update/stale-rv",
              "delete/basic", "delete/precondition-uid", "delete/precondition-rv", "patch/merge", "patch/strategic",
              "patch/json-add", "patch/json-test-fails", "apply/create-reapply", "apply/conflict-force",
              "dryrun/create", "dryrun/update", "dryrun/delete", "fieldvalidation/strict-unknown-top",
              "fieldvalidation/warn-duplicate", "generation/metadata-change", "selectors/label-equality",
              "selectors/field-name", "paging/limit-continue", "watch/after-create", "create/invalid-name",
              "create/wrong-kind", "create/wrong-apiversion")


def test_the_frozen_objects_are_those_of_tests_builtin_objects() -> None:
    """_objects.json is made by _freeze_objects.py: a change to tests/builtin_objects.py must be frozen (and
    the corpus re-recorded), or the corpus silently keeps testing the old objects."""
    frozen = (GENERATORS / "_objects.json").read_text()
    fresh = subprocess.run([sys.executable, str(GENERATORS / "_freeze_objects.py"), "--print"],
                           check=True, capture_output=True, text=True).stdout
    assert json.loads(fresh) == json.loads(frozen), "run python tests/differential/generators/_freeze_objects.py"


@pytest.mark.parametrize("family", EVERY_KIND)
def test_every_object_kind_has_the_family(family: str) -> None:
    names = {c.name for c in GENERATED}
    missing = [p.key for p in profiles() if f"{p.key}/{family}" not in names]
    assert not missing, f"kinds without {family}: {missing}"


def test_every_ga_kind_of_the_discovery_documents_is_in_the_corpus() -> None:
    keys = {p.key for p in profiles()}
    assert len(object_kinds()) >= 60 and len(keys) == len(object_kinds()) + 2  # and the two custom resources
    thin = {p.key: BY_KIND[p.key] for p in profiles() if BY_KIND[p.key] < 40}
    assert not thin, f"kinds with fewer than 40 cases: {thin}"
    assert all(BY_KIND[key(k)] >= 5 for k in review_kinds()), {key(k): BY_KIND[key(k)] for k in review_kinds()}


def test_the_generated_corpus_spans_the_areas() -> None:
    areas = Counter(c.area for c in GENERATED)
    expected = {"verbs", "patch", "apply", "subresources", "generation", "finalizers", "watch", "paging",
                "selectors", "dryrun", "fieldvalidation", "defaults", "validation", "crd", "malformed", "query",
                "names", "discovery"}
    assert expected <= set(areas), expected - set(areas)
    assert len(GENERATED) > 2000


def test_case_names_say_kind_family_and_variant() -> None:
    bad = [c.name for c in GENERATED if c.name.count("/") < 1 or any(ch.isspace() for ch in c.name)]
    assert not bad, bad[:10]
