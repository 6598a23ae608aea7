"""Selectors the API server would have generated, read with a fallback while the kind does not generate them."""

from __future__ import annotations

from typing import Any

from fakekube.selectors import LabelSelector

from .objects import selector_of

CONTROLLER_UID = "batch.kubernetes.io/controller-uid"


def job_selector(job: dict[str, Any]) -> LabelSelector:
    """A Job's ``spec.selector``; the job strategy generates ``batch.kubernetes.io/controller-uid=<uid>``
    (``pkg/registry/batch/job/strategy.go`` ``generateSelector``) — used here when the store did not."""
    if (job.get("spec") or {}).get("selector") is not None:
        return selector_of(job)
    return LabelSelector.from_dict({"matchLabels": {CONTROLLER_UID: job["metadata"]["uid"]}})
