"""CEL environments: the variables a rule sees, the extensions and the Kubernetes library.

The base environment of k8s.io/apiserver ``pkg/cel/environment/base.go`` (v0.37.2) for what cel-cpp has:
strings (version 2), optional types, ``cel.bind``, and fakekube.cel.library. Environments are cached by
their variables' types: a CRD's rules share one per schema node type.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from fakekube.cel import formatlib, k8slib, library


@lru_cache(maxsize=256)
def _env(variables: tuple[tuple[str, str], ...]) -> Any:
    types = {name: _TYPES[sig] for name, sig in variables}
    return cel.NewEnv(variables=types, functions=library.functions() + k8slib.functions() + formatlib.functions(), extensions=[ext_strings.ExtStrings(2), ext_optional.ExtOptional(),
                                                   ext_bindings.ExtBindings(), library.extension(),
                                                   k8slib.extension()])


_TYPES: dict[str, Any] = {}


def environment(variables: dict[str, Any]) -> Any:
    """The environment in which ``variables`` (name to ``cel.Type``) are declared."""
    key = []
    for name, t in sorted(variables.items()):
        sig = t.name()
        _TYPES.setdefault(sig, t)
        key.append((name, sig))
    return _env(tuple(key))
