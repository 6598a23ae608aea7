"""kubectl's move from client-side to server-side apply (apimachinery ``pkg/util/managedfields/internal/
lastappliedmanager.go`` and ``lastappliedupdater.go``), for the field manager ``kubectl`` only:

- an apply whose conflicts are all fields the ``kubectl.kubernetes.io/last-applied-configuration``
  annotation set to the value they still have is forced (the client-side applier owned them); otherwise it
  fails with the conflicts that are left;
- a successful apply rewrites that annotation, when the object has it, to the applied configuration
  (without the annotation), as ``runtime.Encode(unstructured.UnstructuredJSONScheme, …)`` writes it: keys
  sorted, compact, Go's HTML escapes, a trailing newline.
"""

from __future__ import annotations

import json
from typing import Any

from fakekube.patch import typed
from fakekube.patch.fieldpath import Path
from fakekube.patch.schema import PatchSchema

KUBECTL = "kubectl"
ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"
_GO_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def _annotation(obj: Any) -> str | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    value = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    return value if isinstance(value, str) and value else None


def allowed_conflicts(live: dict, schema: PatchSchema, api_version: str) -> set[Path] | None:
    """``allowedConflictsFromLastApplied``: the fields the annotation sets to the value they have in ``live``
    (managedFields left out); None when there is no usable annotation (no conflict is then allowed)."""
    text = _annotation(live)
    if text is None:
        return None
    try:
        last = json.loads(text)
    except ValueError:
        return None
    if not isinstance(last, dict) or last.get("apiVersion") != api_version:
        return None
    applied = typed.applied_fields(last, schema)
    cmp = typed.compare(last, live, schema)
    return applied - cmp.modified - cmp.added - cmp.removed


def sync_annotation(result: dict, config: dict) -> None:
    """``lastAppliedUpdater``: the annotation of ``result`` (when it has one) becomes ``config`` encoded."""
    if _annotation(result) is None:
        return
    applied = dict(config)
    meta = applied.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        annotations = {k: v for k, v in meta["annotations"].items() if k != ANNOTATION}
        meta = {k: v for k, v in meta.items() if k != "annotations"}
        if annotations:
            meta["annotations"] = annotations
        applied["metadata"] = meta
    text = json.dumps(applied, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    for raw, escaped in _GO_ESCAPES:
        text = text.replace(raw, escaped)
    result_meta = result["metadata"]
    result_meta["annotations"] = {**result_meta["annotations"], ANNOTATION: text}
