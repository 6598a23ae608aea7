"""Name binding: the names in a pasted table stand for whatever the actual run called the same objects.

A table from another cluster says ``agent-claim-4`` and ``warmpool-0-6qkhx``; the simulation says
``sandboxclaim-0`` and ``cluster-loader-warmpool-hld9g``. Matching binds each name of the expected table to
the first actual name it aligns with, and keeps it bound: a name stands for one object and two names never
stand for the same one. A name that the actual run also has binds only to itself, so a table written with the
run's own names still means exactly those objects.

Names are related the way Kubernetes derives them, and bindings keep the relation:

- ``<name>-<suffix>`` — a generateName suffix (5 characters of ``bcdfghjklmnpqrstvwxz2456789``, apiserver
  ``pkg/storage/names/generate.go`` with apimachinery ``pkg/util/rand``), a ReplicaSet's pod-template-hash, or
  a literal such as ``-network-policy``;
- ``<name>.<hex>`` — an Event (client-go ``tools/record/event.go`` names it ``<object>.<UnixNano in hex>``).

If ``warmpool-0`` and ``warmpool-0-6qkhx`` are both in the table, binding one fixes the other:
``cluster-loader-warmpool-hld9g`` for the sandbox means ``cluster-loader-warmpool`` for the pool. Literal
parts must be equal (``agent-claim-4-network-policy`` → ``sandboxclaim-0-network-policy``); generated parts
(all generateName characters, or all hex digits) match any generated part after the same separator. A name
given as a prefix (``events/agent-claim-4...``) binds nothing itself but follows the name it starts with;
a prefix whose own stem is not in the table binds the part before its last ``.`` when what follows is
generated (``agent-claim-4.18a...``: an Event of ``agent-claim-4``), and is a literal prefix otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

from fakekube.namerules import GENERATE_NAME_ALPHABET

SEPARATORS = "-."
_GENERATED = frozenset(GENERATE_NAME_ALPHABET)
_HEX = frozenset("0123456789abcdef")


def generated(token: str) -> bool:
    """A name part that a generator made: generateName characters only, or hex digits only."""
    chars = set(token)
    return bool(token) and (chars <= _GENERATED or chars <= _HEX)


def _tokens(rest: str) -> list[tuple[str, str]]:
    """``-network-policy`` → ``[("-", "network"), ("-", "policy")]`` (``rest`` starts with a separator)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(rest):
        j = i + 1
        while j < len(rest) and rest[j] not in SEPARATORS:
            j += 1
        out.append((rest[i], rest[i + 1:j]))
        i = j
    return out


def rest_matches(expected: str, actual: str, *, prefix: bool = False) -> bool:
    """Whether ``actual`` (what follows a bound stem) corresponds to ``expected`` part by part; with
    ``prefix`` the expected parts are only the beginning and the last may be cut short."""
    exp, act = _tokens(expected), _tokens(actual)
    if len(exp) > len(act) or (not prefix and len(exp) != len(act)):
        return False
    for i, ((esep, etok), (asep, atok)) in enumerate(zip(exp, act, strict=False)):
        if esep != asep:
            return False
        partial = prefix and i == len(exp) - 1
        if etok == atok or (partial and atok.startswith(etok)):
            continue
        if generated(atok) and (generated(etok) or (partial and not etok)):
            continue
        return False
    return True


class NameBinding:
    """Bindings of expected names to actual ones, built up row by row (see the module docstring).

    ``names``: the expected table's full names; ``prefixes``: its name prefixes; ``actual_names``: every
    name of the actual timeline (those bind only to themselves).
    """

    def __init__(self, names: Iterable[str], prefixes: Iterable[str] = (), actual_names: Iterable[str] = ()
                 ) -> None:
        self.variables: set[str] = set(names)
        for prefix in prefixes:
            if self._stem(prefix, prefix=True) is None:
                head, sep, tail = prefix.rpartition(".")
                if sep and head and (not tail or generated(tail)):
                    self.variables.add(head)
        self.fixed = self.variables & set(actual_names)
        self.bound: dict[str, str] = {}
        self._taken: set[str] = set()

    def _stem(self, name: str, *, prefix: bool) -> str | None:
        """The longest other expected name that ``name`` is built on (``name`` itself counts for a prefix)."""
        best = None
        for var in self.variables:
            if not name.startswith(var) or (best is not None and len(var) <= len(best)):
                continue
            if len(var) < len(name) and name[len(var)] in SEPARATORS or (prefix and var == name):
                best = var
        return best

    def trial(self, name: str, actual: str | None, *, prefix: bool = False) -> dict[str, str] | None:
        """The new bindings that matching ``name`` (or a prefix) to ``actual`` needs, or None if it cannot."""
        if actual is None:
            return None
        new: dict[str, str] = {}
        if prefix and self._stem(name, prefix=True) is None:
            return new if actual.startswith(name) else None
        return new if self._unify(name, actual, prefix, new) else None

    def loose(self, name: str, actual: str | None, *, prefix: bool = False) -> dict[str, str] | None:
        """Like `trial`, but a name whose binding is not settled yet may stand for any actual name (an
        alignment's first round); returns {} or None, binding nothing."""
        if actual is None:
            return None
        if prefix:
            stem = self._stem(name, prefix=True)
            bound = self.bound.get(stem) if stem is not None else None
            return self.trial(name, actual, prefix=True) if bound is not None or stem is None else {}
        if name in self.bound or name in self.fixed:
            return {} if self.bound.get(name, name) == actual else None
        return None if actual in self._taken or actual in self.fixed else {}

    def commit(self, new: dict[str, str]) -> None:
        self.bound.update(new)
        self._taken.update(new.values())

    def _lookup(self, name: str, new: dict[str, str]) -> str | None:
        return new.get(name, self.bound.get(name))

    def _taken_by_other(self, actual: str, name: str, new: dict[str, str]) -> bool:
        if actual in self.fixed and actual != name:
            return True
        return actual in self._taken or actual in new.values()

    def _unify(self, name: str, actual: str, prefix: bool, new: dict[str, str]) -> bool:
        if not prefix:
            current = self._lookup(name, new)
            if current is not None:
                return current == actual
            if name in self.fixed and actual != name:
                return False
            if self._taken_by_other(actual, name, new):
                return False
        stem = self._stem(name, prefix=prefix)
        if stem is not None:
            rest = name[len(stem):]
            if not self._unify_stem(stem, rest, actual, prefix, new):
                return False
        if not prefix:
            new[name] = actual
        return True

    def _unify_stem(self, stem: str, rest: str, actual: str, prefix: bool, new: dict[str, str]) -> bool:
        bound = self._lookup(stem, new)
        if bound is not None:
            tail = actual[len(bound):]
            return (actual.startswith(bound) and (not tail or tail[0] in SEPARATORS)
                    and rest_matches(rest, tail, prefix=prefix))
        if prefix and not rest:
            # ``agent-claim-4...`` before ``agent-claim-4`` is bound says nothing about where the name ends.
            return actual.startswith(stem)
        # Split the actual name where its tail corresponds to ``rest``, trying the shortest tail first.
        for cut in (i for i in range(len(actual) - 1, 0, -1) if actual[i] in SEPARATORS):
            if not rest_matches(rest, actual[cut:], prefix=prefix):
                continue
            attempt = dict(new)
            if self._unify(stem, actual[:cut], False, attempt):
                new.update(attempt)
                return True
        return False
