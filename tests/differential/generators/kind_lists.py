"""LIST on every kind: label selectors (equality and set forms), field selectors (metadata.name, the
namespace, every kind-specific selectable field, an unsupported field), paging with limit and continue,
and resourceVersion with resourceVersionMatch. Cluster-scoped objects carry a ``case={ns}`` label that
every list of them selects, so other cases' objects never show up."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import created, get, kind_case  # noqa: E402


class _Three:
    """Three objects of the kind (tier=a, tier=b, no tier) and the index of each one's settled answer."""

    def __init__(self, p: Profile) -> None:
        self.p = p
        self.names = [p.name(i) for i in range(3)]
        self.steps: list[dict] = []
        self.rv_steps: list[int] = []
        for name, tier in zip(self.names, ("a", "b", None), strict=True):
            labels = {} if p.kind.namespaced else {"case": "{ns}"}
            if tier:
                labels["tier"] = tier
            self.steps += created(p, p.body(name, labels))
            self.rv_steps.append(len(self.steps) - 1)

    def list(self, label: str | None = None, **query: str) -> dict:
        selectors = [] if self.p.kind.namespaced else ["case={ns}"]
        if label:
            selectors.append(label)
        if selectors:
            query["labelSelector"] = ",".join(selectors)
        return get(self.p.kind.collection(), query=query)


def selectors(p: Profile) -> list[dict]:
    three = _Three(p)
    first = three.names[0]
    out = [
        kind_case(p, "selectors", "label-equality", "selectors", [
            *three.steps, three.list("tier=a"), three.list("tier==b"), three.list("tier!=a")]),
        kind_case(p, "selectors", "label-set", "selectors", [
            *three.steps, three.list("tier in (a,b)"), three.list("tier notin (a)"), three.list("tier"),
            three.list("!tier")]),
        kind_case(p, "selectors", "field-name", "selectors", [
            *three.steps, three.list(fieldSelector=f"metadata.name={first}"),
            three.list(fieldSelector=f"metadata.name!={first}")]),
        kind_case(p, "selectors", "field-unsupported", "selectors", [
            get(p.kind.collection(), query={"fieldSelector": "spec.nope=x"})]),
    ]
    if p.kind.namespaced:
        out.append(kind_case(p, "selectors", "field-namespace", "selectors", [
            *three.steps, three.list(fieldSelector="metadata.namespace={ns}"),
            three.list(fieldSelector="metadata.namespace=other")]))
    selectable = p.selectable
    if selectable:
        made = created(p, p.body(first, {} if p.kind.namespaced else {"case": "{ns}"}))
        lists = [three.list(fieldSelector=f"{field}={value}") for field, value in sorted(selectable.items())]
        out.append(kind_case(p, "selectors", "field-specific", "selectors", [*made, *lists]))
    return out


def paging(p: Profile) -> list[dict]:
    three = _Three(p)
    pages = len(three.steps)
    first, last = three.rv_steps[0], three.rv_steps[-1]
    out = [
        kind_case(p, "paging", "limit-continue", "paging", [
            *three.steps, three.list(limit="2"), three.list(limit="2", **{"continue": f"{{continue:{pages}}}"})]),
        kind_case(p, "paging", "rv-match", "paging", [
            *three.steps,
            three.list(resourceVersion=f"{{rv:{first}}}", resourceVersionMatch="Exact"),
            three.list(resourceVersion=f"{{rv:{last}}}", resourceVersionMatch="NotOlderThan")]),
    ]
    if p.representative:
        out += [
            kind_case(p, "paging", "limit-one", "paging", [
                *three.steps, three.list(limit="1"), three.list(limit="1", **{"continue": f"{{continue:{pages}}}"}),
                three.list(limit="1", **{"continue": f"{{continue:{pages + 1}}}"})]),
            kind_case(p, "paging", "continue-with-selector-change", "paging", [
                *three.steps, three.list(limit="1"),
                three.list("tier=b", limit="1", **{"continue": f"{{continue:{pages}}}"})]),
            kind_case(p, "paging", "exact-paged", "paging", [
                *three.steps, three.list(limit="1", resourceVersion=f"{{rv:{last}}}", resourceVersionMatch="Exact"),
                three.list(limit="1", **{"continue": f"{{continue:{pages}}}"})]),
            kind_case(p, "paging", "exact-without-rv", "paging", [three.list(resourceVersionMatch="Exact")]),
            kind_case(p, "paging", "continue-and-rv", "paging", [
                *three.steps, three.list(limit="1"),
                three.list(limit="1", resourceVersion=f"{{rv:{last}}}", **{"continue": f"{{continue:{pages}}}"})]),
            kind_case(p, "paging", "limit-zero", "paging", [*three.steps, three.list(limit="0")]),
        ]
    return out


def cases() -> list[dict]:
    return [c for p in profiles() for family in (selectors, paging) for c in family(p)]
