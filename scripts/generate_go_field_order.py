#!/usr/bin/env python3
"""Generate fakekube/patch/go_field_order.json: the JSON names of every API struct's fields in Go declaration
order, which is the order Go's encoder writes them in (the text a failed patch's 422 quotes).

Read from the Go types of the release fakekube emulates, in the module cache (no code is copied, only the
order of the fields' json names): k8s.io/api, apimachinery's meta/v1, apiextensions-apiserver's v1 and
kube-aggregator's apiregistration v1. An embedded ``json:",inline"`` struct contributes its own fields where it
is embedded (as does an embedded one tagged ``json:""``); a field tagged ``json:"-"`` is left out.

    python scripts/generate_go_field_order.py [--modules /root/go/pkg/mod/k8s.io] [--check]

The table maps a struct's short name (``ServiceSpec``) to a list of field orders, one per distinct order
found under that name in the packages read (``Subject`` exists in rbac and flowcontrol): fakekube picks the
one that declares every key of the object it writes.

It also writes fakekube/apimodel/go_field_types.json: the Go type of every struct field whose type is (or holds)
a named non-struct type (``types.UID``, ``v1.ServiceType``, ``[]v1.Capability``, ``v1.ResourceList``), as
encoding/json's ``UnmarshalTypeError`` prints it (package name, pointers dropped), keyed by OpenAPI definition
name; the underlying type of the named slice and map types (the OpenAPI definitions only say ``string``); and
the Go names of the inline embedded structs a field is reached through (``ProbeHandler``), which encoding/json
puts in the field path of its errors.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

VERSION = "v0.37.2"
OUT = Path(__file__).resolve().parent.parent / "fakekube" / "patch" / "go_field_order.json"
TYPES_OUT = Path(__file__).resolve().parent.parent / "fakekube" / "apimodel" / "go_field_types.json"
_GO_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.S | re.M)
_GO_FIELD = re.compile(r"^\t(?!//)(?:(\w+)\s+)?(\S+)\s+`([^`]*)`", re.M)
_VERSION_DIR = re.compile(r"^v\d+((alpha|beta)\d+)?$")


def package_dirs(modules: Path) -> list[Path]:
    api = modules / f"api@{VERSION}"
    dirs = [d for d in sorted(api.glob("*/*")) if d.is_dir() and _VERSION_DIR.match(d.name)
            and "alpha" not in d.name and "beta" not in d.name]
    dirs += [
        modules / f"apimachinery@{VERSION}" / "pkg" / "apis" / "meta" / "v1",
        modules / f"apiextensions-apiserver@{VERSION}" / "pkg" / "apis" / "apiextensions" / "v1",
        modules / f"kube-aggregator@{VERSION}" / "pkg" / "apis" / "apiregistration" / "v1",
    ]
    return dirs


def read_structs(directory: Path) -> dict[str, list[tuple[str, str, bool]]]:
    """{struct: [(json name, Go type, inline)]} of one package."""
    structs: dict[str, list[tuple[str, str, bool]]] = {}
    for path in sorted(directory.glob("*.go")):
        if path.name.endswith("_test.go") or path.name.startswith(("zz_generated", "generated.pb")):
            continue
        for struct in _GO_STRUCT.finditer(path.read_text()):
            fields = []
            for field in _GO_FIELD.finditer(struct.group(2)):
                field_name, go_type, tags = field.groups()
                json_tag = re.search(r'json:"([^"]*)"', tags)
                if json_tag is None:
                    continue
                name, *options = json_tag.group(1).split(",")
                if name == "-":
                    continue
                # Go inlines an embedded struct whose tag gives no name (``json:",inline"``, ``json:""``).
                fields.append((name, go_type, name == "" and (field_name is None or "inline" in options)))
            structs[struct.group(1)] = fields
    return structs


def build(modules: Path) -> dict[str, list[list[str]]]:
    packages = [read_structs(d) for d in package_dirs(modules)]
    meta = packages[-3]

    table: dict[str, list[list[str]]] = {}
    for package in packages:
        for name in sorted(package):
            order = _expand(package, meta, name)
            if not order:
                continue
            known = table.setdefault(name, [])
            if order not in known:
                known.append(order)
    return dict(sorted(table.items()))


def build_qualified(modules: Path, table: dict[str, list[list[str]]]) -> dict[str, list[str]]:
    """The order of each struct whose short name has several, keyed by its OpenAPI definition name
    (``io.k8s.api.discovery.v1.EndpointPort``): the choice by keys cannot tell two orders of one field set."""
    dirs = package_dirs(modules)
    packages = [read_structs(d) for d in dirs]
    meta = packages[-3]
    out: dict[str, list[str]] = {}
    for directory, package in zip(dirs, packages, strict=True):
        for name in sorted(package):
            if len(table.get(name, ())) < 2:
                continue
            order = _expand(package, meta, name)
            if order:
                out[_definition_prefix(modules, directory) + name] = order
    return dict(sorted(out.items()))


def _expand(struct: dict[str, list[tuple[str, str, bool]]], meta: dict[str, list[tuple[str, str, bool]]],
            name: str) -> list[str]:
    names: list[str] = []
    for json_name, go_type, inline in struct[name]:
        if not inline:
            names.append(json_name)
            continue
        embedded = go_type.lstrip("*").rsplit(".", 1)[-1]
        home = struct if embedded in struct else meta
        names += _expand(home, meta, embedded) if embedded in home else []
    return names


_GO_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"', re.M)
_GO_NAMED = re.compile(r"^type (\w+) (=\s*)?(?!struct\b|interface\b)(\S+)\s*$", re.M)
_BUILTIN = frozenset(("string", "bool", "byte", "int", "int8", "int16", "int32", "int64", "uint", "uint8",
                      "uint16", "uint32", "uint64", "float32", "float64", "interface{}", "any"))
# struct types with their own UnmarshalJSON or an OpenAPI definition of their own: printed right already
_OWN_DEFINITION = frozenset(("resource.Quantity", "intstr.IntOrString", "runtime.RawExtension", "v1.Time",
                             "v1.MicroTime", "v1.Duration", "v1.FieldsV1", "runtime.Object"))


def _definition_prefix(modules: Path, directory: Path) -> str:
    """The OpenAPI definition prefix of a Go package (``io.k8s.api.core.v1.``)."""
    rel = directory.relative_to(modules)
    module, _, rest = rel.parts[0].partition("@")
    return ".".join(("io.k8s", module, *rel.parts[1:])) + "."


def _package_types(directory: Path) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """(import alias -> package name, named non-struct type -> its Go expression, struct names) of a package."""
    imports: dict[str, str] = {}
    named: dict[str, str] = {}
    structs: set[str] = set()
    for path in sorted(directory.glob("*.go")):
        if path.name.endswith("_test.go") or path.name.startswith(("zz_generated", "generated.pb")):
            continue
        text = path.read_text()
        block = re.search(r"^import \((.*?)^\)", text, re.S | re.M)
        lines = block.group(1) if block else "\n".join(re.findall(r"^import (.*)$", text, re.M))
        for alias, target in _GO_IMPORT.findall(lines):
            imports[alias or target.rsplit("/", 1)[-1]] = target.rsplit("/", 1)[-1]
        structs.update(re.findall(r"^type (\w+) struct\b", text, re.M))
        for name, _alias, expr in _GO_NAMED.findall(text):
            named[name] = expr
    return imports, named, structs


def _render(expr: str, package: str, imports: dict[str, str]) -> str:
    """A Go type expression as reflect prints it: package names, not import aliases; an alias resolved."""
    expr = expr.lstrip("*")
    if expr.startswith("[]"):
        return "[]" + _render(expr[2:], package, imports)
    if expr.startswith("map["):
        depth, i = 0, 3
        for i in range(3, len(expr)):
            depth += {"[": 1, "]": -1}.get(expr[i], 0)
            if depth == 0:
                break
        key, value = expr[4:i], expr[i + 1:]
        return f"map[{_render(key, package, imports)}]{_render(value, package, imports)}"
    if expr in _BUILTIN:
        return expr
    if "." in expr:
        alias, name = expr.split(".", 1)
        return f"{imports.get(alias, alias)}.{name}"
    return f"{package}.{expr}"


def build_types(modules: Path) -> dict[str, object]:
    """{"fields": {definition: {json name: Go type}}, "named": {named slice/map type: its underlying type}}."""
    api = modules / f"api@{VERSION}"
    dirs = [d for d in sorted(api.glob("*/*")) if d.is_dir() and _VERSION_DIR.match(d.name)]
    dirs += package_dirs(modules)[-3:]
    packages = [(directory, *_package_types(directory)) for directory in dirs]
    meta = read_structs(package_dirs(modules)[-3])
    every_struct = {f"{directory.name}.{name}" for directory, _, _, names in packages for name in names}
    fields: dict[str, dict[str, str]] = {}
    embedded: dict[str, dict[str, str]] = {}
    named_collections: dict[str, str] = {}
    for directory, imports, named, _ in packages:
        package = directory.name
        aliases = _aliases(directory)
        for name, expr in named.items():
            shown = _render(expr, package, imports)
            if shown.startswith(("[]", "map[")):
                named_collections[f"{package}.{name}"] = shown
        prefix = _definition_prefix(modules, directory)
        structs = read_structs(directory)
        for struct in structs:
            through = _embedded_fields(structs, meta, struct)
            if through:
                embedded[prefix + struct] = through
        for struct, members in structs.items():
            entry: dict[str, str] = {}
            for json_name, go_type, inline in members:
                if inline or not json_name:
                    continue
                bare = go_type.lstrip("*")
                while bare in aliases:  # a type alias (type A = B) prints as B
                    bare = named[bare]
                shown = _render(bare, package, imports)
                idents = re.findall(r"\w+\.\w+", shown)
                if any(ident not in _OWN_DEFINITION and ident not in every_struct for ident in idents):
                    entry[json_name] = shown
            if entry:
                fields[prefix + struct] = entry
    return {"fields": dict(sorted(fields.items())), "named": dict(sorted(named_collections.items())),
            "embedded": dict(sorted(embedded.items()))}


def _embedded_fields(structs: dict[str, list[tuple[str, str, bool]]], meta: dict[str, list[tuple[str, str, bool]]],
                     name: str) -> dict[str, str]:
    """{json name: the Go names of the embedded structs it is reached through} of a struct's fields that come
    from an inline embedded struct: encoding/json puts those names in its error's field path
    (``livenessProbe.ProbeHandler.httpGet``)."""
    found: dict[str, str] = {}
    for _json_name, go_type, inline in structs.get(name, ()):
        if not inline:
            continue
        embedded = go_type.lstrip("*").rsplit(".", 1)[-1]
        home = structs if embedded in structs else meta
        for member, _sub_type, sub_inline in home.get(embedded, ()):
            if not sub_inline:
                found.setdefault(member, embedded)
        for member, via in _embedded_fields(home, meta, embedded).items():
            found.setdefault(member, f"{embedded}.{via}")
    return found


def _aliases(directory: Path) -> frozenset[str]:
    """The names a package declares as type aliases (``type A = B``)."""
    found: set[str] = set()
    for path in directory.glob("*.go"):
        if not path.name.endswith("_test.go"):
            found.update(re.findall(r"^type (\w+) =", path.read_text(), re.M))
    return frozenset(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", type=Path, default=Path("/root/go/pkg/mod/k8s.io"))
    parser.add_argument("--check", action="store_true", help="fail unless the committed table is current")
    args = parser.parse_args()
    structs = build(args.modules)
    table = {"comment": f"generated by scripts/generate_go_field_order.py from k8s.io modules {VERSION}; do not edit",
             "structs": structs, "qualified": build_qualified(args.modules, structs)}
    types = {"comment": f"generated by scripts/generate_go_field_order.py from k8s.io modules {VERSION}; do not edit",
             **build_types(args.modules)}
    outputs = {OUT: json.dumps(table, separators=(",", ":")) + "\n",
               TYPES_OUT: json.dumps(types, indent=0, separators=(",", ":")) + "\n"}
    if args.check:
        stale = [path for path, text in outputs.items() if not path.exists() or path.read_text() != text]
        for path in stale:
            print(f"{path} is stale: regenerate it", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
