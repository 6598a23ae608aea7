"""Names the kinds' name rules refuse (or accept at their limit), on kinds with each rule: a DNS-1123
subdomain (ConfigMap, Pod, Deployment, a custom resource), a DNS-1035 label (Service), a DNS-1123 label
(Namespace), a path segment (ClusterRole); and bad names in the URL of a read. (Not here: an invalid
generateName, or one that is truncated: the server's answer carries the random name it drew, which no
recording reproduces.)"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profile  # noqa: E402
from _steps import delete, get, kind_case, post  # noqa: E402

KINDS = (("", "ConfigMap"), ("", "Pod"), ("apps", "Deployment"), ("", "Service"), ("", "Namespace"),
         ("rbac.authorization.k8s.io", "ClusterRole"), ("diff.example.com", "Widget"))

# (variant, name); names of cluster-scoped kinds get the case's namespace in front so cases never collide,
# except the ones of a given length (the namespace's length is the harness's choice): each length is one case
# of one kind, so those names are unique as they are.
NAMES = [
    ("uppercase", "Demo"), ("underscore", "de_mo"), ("dot", "de.mo"), ("dots-in-a-row", "de..mo"),
    ("leading-dash", "-demo"), ("trailing-dash", "demo-"), ("leading-dot", ".demo"), ("trailing-dot", "demo."),
    ("leading-digit", "1demo"), ("only-dot", "."), ("only-dots", ".."), ("space", "de mo"), ("unicode", "démo"),
    ("colon", "de:mo"), ("percent", "de%mo"), ("slash", "de/mo"), ("tab", "de\tmo"), ("at-sign", "de@mo"),
]


def _long(length: int) -> str:
    return "a" * length


def for_kind(p: Profile) -> list[dict]:
    k = p.kind
    prefix = "" if k.namespaced else "{ns}-"
    sized = [("length-63", _long(63)), ("length-64", _long(64)), ("length-253", _long(253)),
             ("length-254", _long(254)), ("long-labels", ".".join([_long(63)] * 3))]
    out = []
    for variant, full in [*((v, prefix + n) for v, n in NAMES), *sized]:
        out.append(kind_case(p, "names", variant, "names", [post(k.collection(), p.body(full)), get(k.collection(), query={
            "fieldSelector": f"metadata.name={full}"})]))
    # A read names an object that cannot exist: the real server looks it up all the same.
    for variant, name in (("get-uppercase", "Demo"), ("get-encoded-space", "de%20mo"), ("get-long", _long(300)),
                          ("get-dot", "de.mo")):
        out.append(kind_case(p, "names", variant, "names", [get(k.item(name))]))
    out.append(kind_case(p, "names", "delete-uppercase", "names", [delete(k.item("Demo"))]))
    return out


def cases() -> list[dict]:
    return [c for group, kind in KINDS for c in for_kind(profile(kind, group))]
