"""What the API server's codec makes of an object's ``apiVersion`` and ``kind``: in a create or update body,
and in the result of a JSON or merge patch (which is decoded again, apiVersion and kind included).

kube-apiserver reads TypeMeta first (apimachinery ``pkg/runtime/serializer/json/meta.go``
``SimpleMetaFactory.Interpret``: a JSON value of the wrong type there is ``couldn't get version/kind; json
parse error: json: cannot unmarshal number into Go struct field .kind of type string``, and ``a/b/c`` is
``unexpected GroupVersion string: a/b/c``), then picks the Go type the scheme registers for that group,
version and kind and converts it to the endpoint's internal type (``pkg/runtime/serializer/versioning``):

- a built-in endpoint takes a body without ``kind`` or ``apiVersion`` as its own kind and version; a kind the
  scheme does not know in that version is ``no kind "Foo" is registered for version "v1" in scheme
  "pkg/runtime/scheme.go:111"``; a kind it knows but cannot convert (a ``Secret`` sent to ``configmaps``) is
  decoded as that kind first (its own type errors come first) and then ``converting (v1.Secret) to
  (core.ConfigMap): unknown conversion``; the endpoint's own kind in another version is ``the API version in
  the data (autoscaling/v2) does not match the expected API version (autoscaling/v1)`` (handlers
  ``create.go``/``update.go``);
- a patch's result is decoded without those defaults: no ``apiVersion`` leaves the internal object empty,
  so its name is missing (``the name of the object (x based on URL) was undeterminable: name must be
  provided``, handlers ``rest.go`` ``checkName``); a strategic merge patch's result is converted field by
  field, so apiVersion and kind in it change nothing;
- a custom resource (an unstructured object) needs a ``kind`` (``Object 'Kind' is missing in '...'``), is
  refused in another group version, and is validated for the rest (apiextensions-apiserver
  ``pkg/registry/customresource/validator.go`` ``ValidateTypeMeta``: ``kind: Invalid value: "Gadget": must
  be Widget``).

Observed on kube-apiserver v1.37.2 (docs/malformed-input.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fakekube.patch.jsonutil import go_json_kind

if TYPE_CHECKING:
    from fakekube.resources import Registry, ResourceType

TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
SCHEME = "pkg/runtime/scheme.go:111"

# Registered in every group version by metav1.AddToGroupVersion, and unversioned (any version).
_META_KINDS = frozenset(("WatchEvent", "ListOptions", "GetOptions", "DeleteOptions", "CreateOptions",
                         "UpdateOptions", "PatchOptions"))
_UNVERSIONED_KINDS = frozenset(("Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"))
# core/v1 registers more than its resources (pkg/apis/core/v1 register.go); PodStatusResult is not among them.
_CORE_V1_EXTRA = frozenset(("List", "Binding", "RangeAllocation", "SerializedReference", "PodLogOptions",
                            "PodAttachOptions", "PodExecOptions", "PodPortForwardOptions", "PodProxyOptions",
                            "NodeProxyOptions", "ServiceProxyOptions"))
# Versions the scheme still registers though nothing serves them: their kinds decode (and are then refused
# as another API version).
_UNSERVED_VERSIONS = {
    ("apps", "v1beta1"): ("apps", ()), ("apps", "v1beta2"): ("apps", ()),
    ("extensions", "v1beta1"): ("", ("Deployment", "DaemonSet", "ReplicaSet", "Ingress", "NetworkPolicy")),
}
# Groups served by an apiserver with a scheme of its own, which registers that group's kinds, the unversioned ones
# and metav1's in v1, not kube-apiserver's others (apiextensions-apiserver pkg/apiserver/apiserver.go init,
# kube-aggregator pkg/apiserver/scheme/scheme.go, v0.37.2; observed on kube-apiserver v1.37.2).
_OWN_SCHEMES = frozenset(("apiextensions.k8s.io", "apiregistration.k8s.io"))
# The Go package of each group's internal types, where it is not the group's first label.
_INTERNAL_PACKAGES = {"": "core", "events.k8s.io": "core", "internal.apiserver.k8s.io": "apiserverinternal"}


class TypeMetaError(Exception):
    """The codec refused a document's TypeMeta; ``str(exc)`` is its message."""


def internal_package(group: str) -> str:
    return _INTERNAL_PACKAGES.get(group, group.split(".", 1)[0])


def _internal_group(group: str, kind: str) -> str:
    """The internal package a kind of ``group`` converts into (extensions/v1beta1's kinds live on elsewhere)."""
    if group == "extensions":
        return "networking" if kind in ("Ingress", "NetworkPolicy") else "apps"
    return internal_package(group)


def parse_group_version(api_version: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion``."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, _, version = api_version.partition("/")
        return group, version
    raise TypeMetaError(f"unexpected GroupVersion string: {api_version}")


def interpret(doc: Any) -> tuple[str, str, str]:
    """``SimpleMetaFactory.Interpret``: (group, version, kind) of a decoded document, ``""`` when absent."""
    if doc is None:
        return "", "", ""
    if not isinstance(doc, dict):
        raise TypeMetaError(f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                            f"{go_json_kind(doc)} into Go value of type {TYPE_META_STRUCT}")
    for key in doc:  # the first wrong value in document order is the one reported
        if key in ("apiVersion", "kind"):
            value = doc[key]
            if value is not None and not isinstance(value, str):
                raise TypeMetaError(f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                                    f"{go_json_kind(value)} into Go struct field .{key} of type string")
    group, version = parse_group_version(doc.get("apiVersion") or "")
    return group, version, doc.get("kind") or ""


def group_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


class Verdict:
    """What decoding a TypeMeta into the endpoint's type came to: ``ok``, or one of the refusals."""

    OK = "ok"
    OTHER_VERSION = "other-version"  # the endpoint's kind in another registered version
    NOT_REGISTERED = "not-registered"
    UNCONVERTIBLE = "unconvertible"  # another registered kind; ``other`` is its served type, if any
    NO_VERSION = "no-version"

    def __init__(self, outcome: str, other: ResourceType | None = None) -> None:
        self.outcome = outcome
        self.other = other


def _registered(registry: Registry, group: str, version: str, kind: str) -> tuple[bool, ResourceType | None]:
    """Whether the scheme knows ``kind`` in ``group/version`` (and the served type of it, if any)."""
    if kind in _UNVERSIONED_KINDS:
        return True, None
    served = False
    for rt in registry:
        if rt.custom:
            continue
        for sub in rt.discovery_subresources:  # Scale, Eviction, Binding, TokenRequest...
            if sub.kind == kind and (sub.group or rt.group) == group and (sub.version or rt.version) == version:
                return True, None
        if rt.group != group:
            continue
        if rt.version == version:
            served = True
            if rt.kind == kind:
                return True, rt
            if rt.list_kind == kind:
                return True, None
    if (group, version) == ("", "v1") and kind in _CORE_V1_EXTRA:
        return True, None
    unserved = _UNSERVED_VERSIONS.get((group, version))
    if unserved is not None:
        same_group_kinds = {rt.kind for rt in registry if not rt.custom and rt.group == group}
        if kind in unserved[1] or kind in same_group_kinds or kind in _META_KINDS:
            return True, None
        return False, None
    if served and kind in _META_KINDS:
        return True, None
    return False, None


def judge(registry: Registry, rt: ResourceType, group: str, version: str, kind: str) -> Verdict:
    """Where a built-in endpoint's codec takes (group, version, kind), defaults already applied."""
    if not version:
        return Verdict(Verdict.NO_VERSION)
    if (group, version, kind) == (rt.group, rt.version, rt.kind):
        return Verdict(Verdict.OK)
    known, other = _registered(registry, group, version, kind)
    if rt.group in _OWN_SCHEMES and group != rt.group and kind not in _UNVERSIONED_KINDS and not (
            (group, version) == ("", "v1") and kind in _META_KINDS):
        known = False  # a kind kube-apiserver knows is still foreign to this server's scheme
    if not known:
        return Verdict(Verdict.NOT_REGISTERED)
    if kind == rt.kind and _internal_group(group, kind) == internal_package(rt.group):
        return Verdict(Verdict.OTHER_VERSION)
    return Verdict(Verdict.UNCONVERTIBLE, other)


def body_defaults(rt: ResourceType, group: str, version: str, kind: str) -> tuple[str, str, str]:
    """``gvkWithDefaults``: what a create or update body leaves out is the endpoint's."""
    kind = kind or rt.kind
    if not group and not version:
        group, version = rt.group, rt.version
    elif not version and group == rt.group:
        version = rt.version
    return group, version, kind


def refusal(rt: ResourceType, verdict: Verdict, group: str, version: str, kind: str, raw: str) -> str | None:
    """The codec's error for a refused verdict (None for OK or another version, which callers word)."""
    if verdict.outcome == Verdict.NO_VERSION:
        return f"Object 'apiVersion' is missing in '{raw}'"
    if verdict.outcome == Verdict.NOT_REGISTERED:
        return f'no kind "{kind}" is registered for version "{group_version(group, version)}" in scheme "{SCHEME}"'
    if verdict.outcome == Verdict.UNCONVERTIBLE:
        package = "v1" if kind in _META_KINDS | _UNVERSIONED_KINDS else version
        return f"converting ({package}.{kind}) to ({internal_package(rt.group)}.{rt.kind}): unknown conversion"
    return None
