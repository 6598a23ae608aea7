#!/usr/bin/env python3
"""Generate fakekube's protobuf schema table (fakekube/server/protobuf/schema.json) from upstream sources.

Three local inputs, each read for one kind of fact:

- ``--proto DIR``: the upstream ``generated.proto`` files (``k8s.io/api/<group>/v1/...`` and
  ``k8s.io/apimachinery/pkg/...``; /work/shared/reference/protobuf). Field numbers, names and wire types.
- ``--discovery DIR``: the upstream discovery documents (/work/shared/reference/discovery). Which messages are
  top-level kinds: a message with the same name as a Kind served in that group/version (subresource kinds such
  as autoscaling/v1 Scale included), plus its ``<Kind>List``.
- ``--go-api DIR`` and ``--go-apimachinery DIR``: checkouts of kubernetes/api and kubernetes/apimachinery at the
  tag the protos come from. Only the JSON facts the protos cannot tell are read from the Go structs' tags:
  ``omitempty``, pointer (nullable) fields, and ``inline`` embedded structs. The wire format carries every
  non-pointer scalar even when it is zero, so whether the JSON the server stores shows it depends on these.

    python scripts/generate_protobuf_schema.py --proto ../shared/reference/protobuf \\
        --discovery ../shared/reference/discovery --go-api /tmp/k8s-src/api \\
        --go-apimachinery /tmp/k8s-src/apimachinery [--check]

The table is compact JSON: ``messages`` maps a short message name (``core.v1.Pod``,
``apis.meta.v1.ObjectMeta``) to its fields ``[number, json name, type, cardinality, flags]`` where type is a
scalar (``string``, ``int32``, ``int64``, ``bool``, ``bytes``, ``double``...) or a message name, cardinality is
``""`` (optional), ``"r"`` (repeated) or ``"m:<key type>"`` (map), and flags hold ``o`` (omitempty), ``p``
(a Go pointer: JSON shows it whenever it is set, zero included) and ``i`` (inlined into the parent's JSON).
``kinds`` maps apiVersion → Kind → message; ``lists`` names the messages that are Go named slices wrapped in
an ``items`` message (``ExtraValue``, ``Verbs``), which JSON shows as plain arrays.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

PREFIXES = ("k8s.io.api.", "k8s.io.apimachinery.pkg.")
SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
           "fixed64", "sfixed32", "sfixed64", "double", "float"}
_FIELD = re.compile(r"^\s*(optional|repeated|required)\s+(\S+)\s+(\w+)\s*=\s*(\d+)\s*;")
_MAP = re.compile(r"^\s*map<\s*(\w+)\s*,\s*(\S+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")
_GO_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.S | re.M)
_GO_SLICE = re.compile(r"^type (\w+) \[\](\S+)\s*$", re.M)
_GO_FIELD = re.compile(r"^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`", re.M)


def short(name: str) -> str:
    name = name.lstrip(".")
    for prefix in PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


# -- protos -----------------------------------------------------------------------------------------------


def parse_proto(text: str) -> tuple[str, dict[str, list[tuple[int, str, str, str]]]]:
    """(package, {message: [(number, name, type, cardinality)]}); types are resolved later."""
    package = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
    if package is None:
        raise ValueError("no package statement")
    messages: dict[str, list[tuple[int, str, str, str]]] = {}
    current: list[tuple[int, str, str, str]] | None = None
    for line in text.splitlines():
        stripped = line.split("//", 1)[0].rstrip()
        if not stripped.strip():
            continue
        opened = re.match(r"^message\s+(\w+)\s*\{", stripped)
        if opened:
            current = messages.setdefault(opened.group(1), [])
            continue
        if stripped.startswith("}"):
            current = None
            continue
        if current is None:
            continue
        field = _FIELD.match(stripped)
        if field:
            label, typ, name, number = field.groups()
            current.append((int(number), name, typ, "r" if label == "repeated" else ""))
            continue
        mapped = _MAP.match(stripped)
        if mapped:
            key, value, name, number = mapped.groups()
            current.append((int(number), name, value, f"m:{key}"))
            continue
        raise ValueError(f"unparsed line in message: {line.strip()!r}")
    return package.group(1), messages


# Group versions beyond the GA ones of the reference protos: served (autoscaling/v2, storagemigration v1) or
# referred to by a GA type (batch/v1 JobSchedulingConfiguration uses scheduling/v1alpha3 types since v0.37).
EXTRA_GROUP_VERSIONS = ("autoscaling/v2", "storagemigration/v1", "scheduling/v1alpha3")


def module_proto_root(reference: Path, go_api: Path, go_apimachinery: Path, out: Path) -> Path:
    """A proto root (under ``out``, made of symbolic links) holding the reference's generated.proto files as
    the Go sources ``go_api`` and ``go_apimachinery`` have them (another tag), plus EXTRA_GROUP_VERSIONS."""
    paths = [path.relative_to(reference) for path in sorted(reference.rglob("generated.proto"))]
    paths += [Path("k8s.io/api", gv, "generated.proto") for gv in EXTRA_GROUP_VERSIONS]
    for rel in paths:
        parts = rel.parts
        source = (go_api.joinpath(*parts[2:]) if parts[1] == "api" else go_apimachinery.joinpath(*parts[2:]))
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(source)
    return out


def read_protos(root: Path) -> dict[str, dict[str, Any]]:
    """Every message of every generated.proto under root: {short name: {"package": pkg, "fields": [...]}}."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(root.rglob("generated.proto")):
        package, messages = parse_proto(path.read_text())
        for name, fields in messages.items():
            out[short(f"{package}.{name}")] = {"package": package, "name": name, "fields": fields,
                                               "file": path.relative_to(root).as_posix()}
    return out


def resolve(typ: str, package: str, known: set[str]) -> str:
    if typ in SCALARS:
        return typ
    if typ.startswith("."):
        return short(typ)
    candidate = short(f"{package}.{typ}")
    if candidate in known:
        return candidate
    raise ValueError(f"cannot resolve type {typ!r} in {package}")


# -- Go structs -------------------------------------------------------------------------------------------


def go_package_dir(package: str, go_api: Path, go_apimachinery: Path) -> Path:
    if package.startswith("k8s.io.api."):
        return go_api.joinpath(*package[len("k8s.io.api."):].split("."))
    return go_apimachinery.joinpath(*package[len("k8s.io.apimachinery."):].split("."))


def read_go_package(directory: Path) -> tuple[dict[str, dict[int, dict[str, Any]]], set[str]]:
    """{struct: {protobuf field number: {"json", "omitempty", "pointer", "inline"}}} and the named slice types."""
    structs: dict[str, dict[int, dict[str, Any]]] = {}
    slices: set[str] = set()
    for path in sorted(directory.glob("*.go")):
        if path.name.endswith("_test.go") or path.name.startswith(("zz_generated", "generated.pb")):
            continue
        text = path.read_text()
        slices.update(m.group(1) for m in _GO_SLICE.finditer(text))
        for struct in _GO_STRUCT.finditer(text):
            fields: dict[int, dict[str, Any]] = {}
            for field in _GO_FIELD.finditer(struct.group(2)):
                field_name, go_type, tags = field.groups()
                proto_tag = re.search(r'protobuf:"([^"]*)"', tags)
                json_tag = re.search(r'json:"([^"]*)"', tags)
                if proto_tag is None or json_tag is None:
                    continue
                parts = proto_tag.group(1).split(",")
                json_parts = json_tag.group(1).split(",")
                fields[int(parts[1])] = {
                    "json": json_parts[0],
                    "omitempty": "omitempty" in json_parts[1:],
                    "pointer": go_type.startswith("*"),
                    # an embedded struct is inlined: tagged ``json:",inline"`` up to v0.36, ``json:""`` since
                    "inline": json_parts[0] == "" and ("inline" in json_parts[1:] or field_name is None),
                }
            structs[struct.group(1)] = fields
    return structs, slices


# -- kinds ------------------------------------------------------------------------------------------------


def read_kinds(discovery: Path) -> dict[str, set[str]]:
    """apiVersion → Kinds served there, from the per-group-version discovery documents."""
    kinds: dict[str, set[str]] = {}
    for path in sorted(discovery.glob("api*__*.json")):
        doc = json.loads(path.read_text())
        if doc.get("kind") != "APIResourceList":
            continue
        default = doc["groupVersion"]
        for resource in doc.get("resources", []):
            group, version = resource.get("group"), resource.get("version")
            api_version = default if version is None else (f"{group}/{version}" if group else version)
            kinds.setdefault(api_version, set()).add(resource["kind"])
    return kinds


def api_version_of(package: str) -> str | None:
    """``k8s.io.api.apps.v1`` → ``apps/v1``; ``k8s.io.api.core.v1`` → ``v1`` (group names come from discovery)."""
    if not package.startswith("k8s.io.api."):
        return None
    group, version = package[len("k8s.io.api."):].rsplit(".", 1)
    return version if group == "core" else f"{group}/{version}"


# -- the table --------------------------------------------------------------------------------------------


def build(proto_root: Path, discovery: Path, go_api: Path, go_apimachinery: Path) -> dict[str, Any]:
    protos = read_protos(proto_root)
    known = set(protos)
    go_cache: dict[str, tuple[dict[str, dict[int, dict[str, Any]]], set[str]]] = {}
    messages: dict[str, list[list[Any]]] = {}
    lists: list[str] = []
    missing_go: list[str] = []
    for name in sorted(protos):
        info = protos[name]
        package = info["package"]
        if package not in go_cache:
            directory = go_package_dir(package, go_api, go_apimachinery)
            go_cache[package] = read_go_package(directory) if directory.is_dir() else ({}, set())
        structs, slices = go_cache[package]
        go_fields = structs.get(info["name"])
        if info["name"] in slices:
            lists.append(name)
        elif go_fields is None:
            missing_go.append(name)
        rows = []
        for number, field_name, typ, card in sorted(info["fields"]):
            go = (go_fields or {}).get(number)
            flags = ""
            json_name = field_name
            if go is not None:
                flags = ("o" if go["omitempty"] else "") + ("p" if go["pointer"] else "") + ("i" if go["inline"] else "")
                if go["json"] and go["json"] != field_name:
                    json_name = go["json"]
            rows.append([number, json_name, resolve(typ, package, known), card, flags])
        messages[name] = rows
    kinds: dict[str, dict[str, str]] = {}
    served = read_kinds(discovery)
    by_version: dict[str, dict[str, str]] = {}
    for name, info in protos.items():
        api_version = api_version_of(info["package"])
        if api_version is not None:
            by_version.setdefault(api_version, {})[info["name"]] = name
    # discovery names groups (apps, rbac.authorization.k8s.io): match the proto package's short group to them.
    for api_version, kind_names in sorted(served.items()):
        group, _, version = api_version.rpartition("/")
        # the proto package is the group's first label: rbac.authorization.k8s.io → k8s.io.api.rbac.v1
        candidates = by_version.get(f"{group.split('.')[0]}/{version}" if group else version, {})
        for kind in sorted(kind_names):
            for name in (kind, f"{kind}List"):
                if name in candidates:
                    kinds.setdefault(api_version, {})[name] = candidates[name]
    return {
        "comment": "generated by scripts/generate_protobuf_schema.py; do not edit",
        "messages": messages,
        "kinds": kinds,
        "lists": sorted(lists),
        "without_go_struct": sorted(missing_go),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proto", type=Path, required=True)
    parser.add_argument("--protos-from-go", action="store_true",
                        help="take the --proto tree's files (and EXTRA_GROUP_VERSIONS) from the Go sources instead")
    parser.add_argument("--discovery", type=Path, required=True)
    parser.add_argument("--go-api", type=Path, required=True)
    parser.add_argument("--go-apimachinery", type=Path, required=True)
    parser.add_argument("--sources", default="", help="free text recorded in the table (tags, commits)")
    parser.add_argument("-o", "--output", type=Path,
                        default=Path(__file__).resolve().parent.parent / "fakekube/server/protobuf/schema.json")
    parser.add_argument("--check", action="store_true", help="exit 1 when the output file differs")
    args = parser.parse_args(argv)
    proto = args.proto
    if args.protos_from_go:
        import tempfile

        proto = module_proto_root(args.proto, args.go_api, args.go_apimachinery, Path(tempfile.mkdtemp()))
    table = build(proto, args.discovery, args.go_api, args.go_apimachinery)
    if args.sources:
        table["sources"] = args.sources
    text = json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n"
    if args.check:
        same = args.output.exists() and args.output.read_text() == text
        print("up to date" if same else f"{args.output} is out of date", file=sys.stderr)
        return 0 if same else 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(f"wrote {args.output}: {len(table['messages'])} messages, "
          f"{sum(len(k) for k in table['kinds'].values())} kinds", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
