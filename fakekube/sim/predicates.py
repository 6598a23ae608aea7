"""Event predicates, as in controller-runtime ``pkg/predicate``: filter events before they enqueue a key.

A predicate has ``create(obj)``, ``update(old, new)``, ``delete(obj)``. Objects passed to predicates are the
cache's shared objects: read them, never mutate them. A plain callable ``f(obj) -> bool`` is accepted where a
predicate is expected and is applied to the (new) object of every event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fakekube.selectors import LabelSelector

Obj = dict[str, Any]


class Predicate:
    """Accepts everything; subclass and override what you filter."""

    def create(self, obj: Obj) -> bool:
        return True

    def update(self, old: Obj, new: Obj) -> bool:
        return True

    def delete(self, obj: Obj) -> bool:
        return True


class Funcs(Predicate):
    """predicate.Funcs: any of the three may be given; a missing one accepts."""

    def __init__(self, create: Callable[[Obj], bool] | None = None,
                 update: Callable[[Obj, Obj], bool] | None = None,
                 delete: Callable[[Obj], bool] | None = None) -> None:
        self._create, self._update, self._delete = create, update, delete

    def create(self, obj: Obj) -> bool:
        return self._create(obj) if self._create else True

    def update(self, old: Obj, new: Obj) -> bool:
        return self._update(old, new) if self._update else True

    def delete(self, obj: Obj) -> bool:
        return self._delete(obj) if self._delete else True


class NewObject(Predicate):
    """predicate.NewPredicateFuncs: one filter applied to the (new) object of every event."""

    def __init__(self, func: Callable[[Obj], bool]) -> None:
        self.func = func

    def create(self, obj: Obj) -> bool:
        return self.func(obj)

    def update(self, old: Obj, new: Obj) -> bool:
        return self.func(new)

    def delete(self, obj: Obj) -> bool:
        return self.func(obj)


class GenerationChanged(Predicate):
    """predicate.GenerationChangedPredicate: updates pass only when metadata.generation changed."""

    def update(self, old: Obj, new: Obj) -> bool:
        return old["metadata"].get("generation") != new["metadata"].get("generation")


class ResourceVersionChanged(Predicate):
    """predicate.ResourceVersionChangedPredicate: updates pass when resourceVersion changed (drops resyncs)."""

    def update(self, old: Obj, new: Obj) -> bool:
        return old["metadata"].get("resourceVersion") != new["metadata"].get("resourceVersion")


class LabelChanged(Predicate):
    def update(self, old: Obj, new: Obj) -> bool:
        return old["metadata"].get("labels") != new["metadata"].get("labels")


class AnnotationChanged(Predicate):
    def update(self, old: Obj, new: Obj) -> bool:
        return old["metadata"].get("annotations") != new["metadata"].get("annotations")


def label_selector(selector: dict[str, str] | str | LabelSelector) -> Predicate:
    """predicate.LabelSelectorPredicate: events of objects whose labels match (matchLabels dict or string)."""
    if isinstance(selector, LabelSelector):
        parsed = selector
    elif isinstance(selector, dict):
        parsed = LabelSelector.from_dict({"matchLabels": selector})
    else:
        parsed = LabelSelector.parse(selector)
    return NewObject(lambda obj: parsed.matches(obj["metadata"].get("labels") or {}))


def has_label(key: str) -> Predicate:
    return NewObject(lambda obj: key in (obj["metadata"].get("labels") or {}))


class And(Predicate):
    def __init__(self, *preds: Predicate | Callable[[Obj], bool]) -> None:
        self.preds = [coerce(p) for p in preds]

    def create(self, obj: Obj) -> bool:
        return all(p.create(obj) for p in self.preds)

    def update(self, old: Obj, new: Obj) -> bool:
        return all(p.update(old, new) for p in self.preds)

    def delete(self, obj: Obj) -> bool:
        return all(p.delete(obj) for p in self.preds)


class Or(Predicate):
    def __init__(self, *preds: Predicate | Callable[[Obj], bool]) -> None:
        self.preds = [coerce(p) for p in preds]

    def create(self, obj: Obj) -> bool:
        return any(p.create(obj) for p in self.preds)

    def update(self, old: Obj, new: Obj) -> bool:
        return any(p.update(old, new) for p in self.preds)

    def delete(self, obj: Obj) -> bool:
        return any(p.delete(obj) for p in self.preds)


class Not(Predicate):
    def __init__(self, pred: Predicate | Callable[[Obj], bool]) -> None:
        self.pred = coerce(pred)

    def create(self, obj: Obj) -> bool:
        return not self.pred.create(obj)

    def update(self, old: Obj, new: Obj) -> bool:
        return not self.pred.update(old, new)

    def delete(self, obj: Obj) -> bool:
        return not self.pred.delete(obj)


def coerce(pred: Predicate | Callable[[Obj], bool]) -> Predicate:
    if isinstance(pred, Predicate):
        return pred
    if callable(pred):
        return NewObject(pred)
    raise TypeError(f"not a predicate: {pred!r}")


def coerce_all(preds: Iterable[Predicate | Callable[[Obj], bool]] | None) -> list[Predicate]:
    return [coerce(p) for p in preds or ()]


# Short aliases matching controller-runtime's names.
GenerationChangedPredicate = GenerationChanged
ResourceVersionChangedPredicate = ResourceVersionChanged
LabelChangedPredicate = LabelChanged
AnnotationChangedPredicate = AnnotationChanged
LabelSelectorPredicate = label_selector
