"""Hypothesis strategies that draw whole cases: a valid object of a common kind, then one request against it
that is valid or malformed in a way clients actually get wrong — a field of the wrong JSON type anywhere in
the object, an unknown field, a bad name or label, a query parameter with a bad value, a patch of another
type. The case has the corpus's shape (tests/differential/README.md), so a drawn case that finds a divergence
can be written into the corpus as it is (scripts/fuzz-oracle does).

Kept away from what the real server answers by timing rather than by rule: no watches, no resourceVersions
from the future (a LIST waits for them), no waits.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from hypothesis import strategies as st

NAME = "fz"

# A minimal valid object per kind, and where it lives; {ns} is the case's namespace.
KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "configmaps": ("/api/v1/namespaces/{ns}/configmaps",
                   {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME}, "data": {"a": "1"}}),
    "secrets": ("/api/v1/namespaces/{ns}/secrets",
                {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": NAME}, "type": "Opaque",
                 "stringData": {"a": "1"}}),
    "services": ("/api/v1/namespaces/{ns}/services",
                 {"apiVersion": "v1", "kind": "Service", "metadata": {"name": NAME},
                  "spec": {"selector": {"app": "fz"}, "ports": [{"name": "http", "port": 80}]}}),
    "pods": ("/api/v1/namespaces/{ns}/pods",
             {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": NAME, "labels": {"app": "fz"}},
              "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}),
    "deployments": ("/apis/apps/v1/namespaces/{ns}/deployments",
                    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": NAME},
                     "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "fz"}},
                              "template": {"metadata": {"labels": {"app": "fz"}},
                                           "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}}),
    "roles": ("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
              {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": NAME},
               "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
}

# Values of every JSON type, small, with the edges decoders trip on.
SCALARS = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 0.5, 1e300, -0.0]),
    st.sampled_from(["", "x", "1", "true", "null", "Fz", "a" * 64, "a/b", "ü", "\u0000", "10Mi", "2024-01-31"]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["a", "b", "name", "x-y"]), inner, max_size=2)),
    max_leaves=4)
LABEL_KEYS = st.sampled_from(["app", "a/b", "example.com/x", "-bad", "a" * 64, "", "x/", "UPPER", "a.b/c_d"])
LABEL_VALUES = st.sampled_from(["", "v", "a" * 63, "a" * 64, "-v", "v-", "a b", "ü", "1.0"])
NAMES = st.sampled_from([NAME, "Fz", "fz.dot", "fz_under", "a" * 64, "a" * 254, "-fz", "fz-", "", "f z", "..",
                         "fz%2F"])
QUERY = {
    "limit": st.sampled_from(["1", "0", "-5", "abc", "99999999999999999999", ""]),
    "resourceVersion": st.sampled_from(["0", "", "abc", "-1", "1" * 40]),
    "resourceVersionMatch": st.sampled_from(["NotOlderThan", "Exact", "Bad", ""]),
    "labelSelector": st.sampled_from(["app=fz", "app in (fz,x)", "!app", "app=", "a==b==c", "app notin ()",
                                      "-bad=1", "app=fz,", "app in fz"]),
    "fieldSelector": st.sampled_from(["metadata.name=fz", "metadata.name!=fz", "spec.x=1", "metadata.name",
                                      "status.phase=Running", "type=Opaque", "=fz"]),
    "dryRun": st.sampled_from(["All", "all", "Bad", ""]),
    "fieldValidation": st.sampled_from(["Strict", "Warn", "Ignore", "strict", "Bad"]),
    "fieldManager": st.sampled_from(["fz", "", "a" * 129, "ü"]),
    "propagationPolicy": st.sampled_from(["Background", "Foreground", "Orphan", "Bad"]),
    "gracePeriodSeconds": st.sampled_from(["0", "-1", "30", "abc"]),
    "timeoutSeconds": st.sampled_from(["1", "-1", "abc", "0"]),
    "pretty": st.sampled_from(["true", "false", "bad"]),
}
VERB_QUERY = {
    "get": ("resourceVersion", "pretty"),
    "list": ("limit", "resourceVersion", "resourceVersionMatch", "labelSelector", "fieldSelector", "pretty",
             "timeoutSeconds"),
    "create": ("dryRun", "fieldValidation", "fieldManager", "pretty"),
    "update": ("dryRun", "fieldValidation", "fieldManager"),
    "merge": ("dryRun", "fieldValidation", "fieldManager"),
    "strategic": ("dryRun", "fieldValidation", "fieldManager"),
    "json": ("dryRun", "fieldValidation", "fieldManager"),
    "apply": ("dryRun", "fieldValidation", "fieldManager"),
    "delete": ("dryRun", "propagationPolicy", "gracePeriodSeconds"),
}


def _paths(value: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every path to a field of a map in ``value`` (list items are reached through their map fields)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(p for p in _paths(item, (*prefix, str(index))) if len(p) > len(prefix) + 1)
    return found


def _set(target: Any, path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
        if not isinstance(target, dict | list):
            return
    if isinstance(target, list):
        target[int(path[-1])] = value
    elif isinstance(target, dict):
        target[path[-1]] = value


@st.composite
def mutated(draw: st.DrawFn, obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with up to two changes: a value of any type at an existing or a new path, labels, a name."""
    result = copy.deepcopy(obj)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["value", "new-field", "label", "annotation", "name", "remove"]))
        paths = _paths(result)
        if kind == "value" and paths:
            _set(result, draw(st.sampled_from(paths)), draw(VALUES))
        elif kind == "new-field":
            parent = draw(st.sampled_from([p for p in paths if isinstance(_get(result, p), dict)] or [()]))
            _set(result, (*parent, draw(st.sampled_from(["unknownField", "x", "spec", "status", "metadata"]))),
                 draw(VALUES))
        elif kind == "label" and isinstance(result.get("metadata"), dict):  # an earlier change may have replaced it
            result["metadata"].setdefault("labels", {})[draw(LABEL_KEYS)] = draw(LABEL_VALUES)
        elif kind == "annotation" and isinstance(result.get("metadata"), dict):
            result["metadata"]["annotations"] = {draw(LABEL_KEYS): draw(st.sampled_from(["", "v", "x" * 300]))}
        elif kind == "remove" and paths:
            path = draw(st.sampled_from(paths))
            parent = _get(result, path[:-1])
            if isinstance(parent, dict) and path != ("metadata", "name"):
                parent.pop(path[-1], None)
    return result


def _get(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if isinstance(value, list):
            value = value[int(key)] if key.isdigit() and int(key) < len(value) else None
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


@st.composite
def drawn_case(draw: st.DrawFn) -> dict[str, Any]:
    """One case: the object of a drawn kind created in setup (unless the verb creates it), then one request."""
    resource = draw(st.sampled_from(sorted(KINDS)))
    collection, valid = KINDS[resource]
    verb = draw(st.sampled_from(sorted(VERB_QUERY)))
    query = {key: draw(QUERY[key]) for key in VERB_QUERY[verb] if draw(st.booleans())}
    if verb in ("apply",):
        query.setdefault("fieldManager", "fz")
    item = f"{collection}/{NAME}"
    setup = [] if verb in ("create", "list") else [{"method": "POST", "path": collection, "body": valid}]
    body = draw(mutated(valid))
    if verb == "create":
        if draw(st.booleans()) and isinstance(body.get("metadata"), dict):
            body["metadata"]["name"] = draw(NAMES)
        step = {"method": "POST", "path": collection, "body": body}
    elif verb == "update":
        step = {"method": "PUT", "path": item, "body": body}
    elif verb in ("merge", "strategic"):
        patch = {key: value for key, value in body.items() if value != valid.get(key)} or {"metadata": {}}
        content = "application/merge-patch+json" if verb == "merge" else "application/strategic-merge-patch+json"
        step = {"method": "PATCH", "path": item, "contentType": content, "body": patch}
    elif verb == "json":
        ops = draw(st.lists(st.fixed_dictionaries({
            "op": st.sampled_from(["add", "replace", "remove", "test", "move", "copy", "bad"]),
            "path": st.sampled_from(["/metadata/labels", "/metadata/labels/a", "/data/a", "/spec", "/kind",
                                     "/metadata/name", "/x/y", "", "/metadata/finalizers/-"]),
            "value": VALUES}), min_size=1, max_size=2))
        step = {"method": "PATCH", "path": item, "contentType": "application/json-patch+json", "body": ops}
    elif verb == "apply":
        step = {"method": "PATCH", "path": item, "contentType": "application/apply-patch+yaml", "body": body}
    elif verb == "delete":
        step = {"method": "DELETE", "path": item}
        if draw(st.booleans()):
            step["body"] = {"kind": "DeleteOptions", "apiVersion": "v1",
                            "preconditions": {"uid": draw(st.sampled_from(["", "x"]))}}
    elif verb == "get":
        step = {"method": "GET", "path": item}
    else:
        step = {"method": "GET", "path": collection}
    if query:
        step["query"] = query
    case = {"area": "fuzz", "setup": setup, "steps": [step]}
    digest = hashlib.sha256(json.dumps(case, sort_keys=True).encode()).hexdigest()[:12]
    return {"name": f"fuzz/{resource}/{verb}/{digest}", **case}
