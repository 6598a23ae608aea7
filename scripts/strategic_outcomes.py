#!/usr/bin/env python3
"""Record what ``k8s.io/apimachinery/pkg/util/strategicpatch`` (v0.37.2, kube-apiserver v1.37.2's strategic
merge patch) does with generated patches of merging lists, for ``tests/patch/test_strategic_outcomes.py``;
optionally compare fakekube's engine (``fakekube.patch.strategic``) with it on many more.

    python scripts/strategic_outcomes.py --record             # rewrites tests/patch/strategic_v1_37_cases.json
    python scripts/strategic_outcomes.py --fuzz 20000 --seed 7

The library is run as ``strategicPatchObject`` (``k8s.io/apiserver/pkg/endpoints/handlers/patch.go``) runs it:
the stored object through the unstructured converter, the patch decoded preserving integers, the patch
metadata of the Go type. The generated patches go for what the engine must get exactly right besides plain
merges: merge keys of other types (``80.0``, ``"80"``, maps and lists, which make Go's ``==`` and map keys
panic: the server then closes the connection unanswered), ``$patch`` directives, ``$setElementOrder``,
``$deleteFromPrimitiveList`` and ``$retainKeys`` lists with odd elements. Go iterates maps in random order, so
a case whose runs disagree is left out. Needs a Go toolchain with the modules in its cache (or a proxy).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fakekube import errors  # noqa: E402
from fakekube.apimodel.patch_schemas import builtin_patch_schema  # noqa: E402
from fakekube.patch import STRATEGIC_MERGE_PATCH, apply_patch  # noqa: E402

CASES = ROOT / "tests" / "patch" / "strategic_v1_37_cases.json"

GO_MAIN = r'''
package main

// Lines {"kind": "...", "original": {...}, "patch": <raw>} → the outcome of the strategic merge patch as
// kube-apiserver's strategicPatchObject applies it (patch decoded with kjson preserving ints).
import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	kjson "sigs.k8s.io/json"
)

type in struct {
	Kind     string          `json:"kind"`
	Original json.RawMessage `json:"original"`
	Patch    json.RawMessage `json:"patch"`
}

func run(v in) (out map[string]interface{}) {
	var origText0 []byte
	defer func() {
		if r := recover(); r != nil {
			out = map[string]interface{}{"outcome": "panic", "error": fmt.Sprint(r), "original": json.RawMessage(origText0)}
		}
	}()
	var obj interface{}
	var typed interface{}
	switch v.Kind {
	case "Service":
		obj = corev1.Service{}
		typed = &corev1.Service{}
	case "Pod":
		obj = corev1.Pod{}
		typed = &corev1.Pod{}
	case "ConfigMap":
		obj = corev1.ConfigMap{}
		typed = &corev1.ConfigMap{}
	case "Deployment":
		obj = appsv1.Deployment{}
		typed = &appsv1.Deployment{}
	}
	// as strategicPatchObject has it: the typed object through the unstructured converter
	if err := json.Unmarshal(v.Original, typed); err != nil {
		return map[string]interface{}{"outcome": "bad original", "error": err.Error()}
	}
	original, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return map[string]interface{}{"outcome": "bad original", "error": err.Error()}
	}
	origText0, _ = json.Marshal(original)
	patch := map[string]interface{}{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(v.Patch, &patch); err != nil {
		return map[string]interface{}{"outcome": "decode", "error": err.Error()}
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(obj)
	if err != nil {
		return map[string]interface{}{"outcome": "meta", "error": err.Error()}
	}
	origText, _ := json.Marshal(original)
	res, err := strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(original, patch, meta)
	if err != nil {
		return map[string]interface{}{"outcome": "error", "error": err.Error(), "original": json.RawMessage(origText)}
	}
	return map[string]interface{}{"outcome": "ok", "doc": res, "original": json.RawMessage(origText)}
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<20), 64<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		var v in
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			fmt.Fprintln(w, `{"outcome":"bad input"}`)
			continue
		}
		b, err := json.Marshal(run(v))
		if err != nil {
			b, _ = json.Marshal(map[string]interface{}{"outcome": "marshal", "error": err.Error()})
		}
		w.Write(b)
		w.WriteString("\n")
	}
}
'''

GO_MOD = """module strategicoutcomes

go 1.21

require (
\tk8s.io/api v0.37.2
\tk8s.io/apimachinery v0.37.2
\tsigs.k8s.io/json v0.0.0-20250730193827-2d320260d730
)
"""


def build(workdir: Path) -> Path:
    (workdir / "main.go").write_text(GO_MAIN)
    (workdir / "go.mod").write_text(GO_MOD)
    binary = workdir / "strategic"
    for env in ({"GOFLAGS": "-mod=mod", "GOPROXY": "off"}, {"GOFLAGS": "-mod=mod"}):
        done = subprocess.run(["go", "build", "-o", str(binary), "."], cwd=workdir, env={**os.environ, **env},
                              capture_output=True, text=True)
        if done.returncode == 0:
            return binary
    sys.exit(f"go build failed:\n{done.stderr}")


def go_outcomes(binary: Path, cases: list[tuple[str, dict]], runs: int = 6) -> list[dict | None]:
    """The library's outcome of each case (with the original as the converter gives it), or None when runs
    disagree."""
    lines = "\n".join(json.dumps({"kind": k, "original": ORIG[k][1], "patch": p}) for k, p in cases)
    results = [subprocess.run([str(binary)], input=lines.encode(), capture_output=True, check=True)
               .stdout.decode().splitlines() for _ in range(runs)]
    agreed: list[dict | None] = []
    for i in range(len(cases)):
        seen = {line[i] for line in results}
        agreed.append(json.loads(results[0][i]) if len(seen) == 1 else None)
    return agreed


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)


    def keyval(self, good: list[Any]) -> Any:
        return self.rng.choice(good) if self.rng.random() < 0.55 else self.rng.choice(WEIRD)

    def element(self, key: str, good: list[Any]) -> dict[str, Any]:
        rng = self.rng
        e: dict[str, Any] = {}
        if rng.random() < 0.93:
            e[key] = self.keyval(good)
        r = rng.random()
        if r < 0.12:
            e["$patch"] = rng.choice(["delete", "replace", "merge", "bogus", {}])
        elif r < 0.5:
            e[rng.choice(["image", "protocol", "x"])] = rng.choice(["v", 1])
        return e

    def patch(self, kind: str) -> dict[str, Any]:
        rng = self.rng
        patch: dict[str, Any] = {}
        for _ in range(rng.randint(1, 2)):
            path, key, good = rng.choice(LISTS[kind])
            parent, name = path[:-1], path[-1]
            r = rng.random()
            part: dict[str, Any] = {}
            if key is None:
                if r < 0.5:
                    part[name] = [rng.choice(good + WEIRD) for _ in range(rng.randint(0, 3))]
                elif r < 0.75:
                    part["$deleteFromPrimitiveList/" + name] = [rng.choice(good + WEIRD)
                                                                for _ in range(rng.randint(0, 3))]
                else:
                    part["$setElementOrder/" + name] = [rng.choice(good + WEIRD) for _ in range(rng.randint(0, 3))]
                    if rng.random() < 0.6:
                        part[name] = [rng.choice(good) for _ in range(rng.randint(0, 2))]
            else:
                if r < 0.7:
                    part[name] = [self.element(key, good) for _ in range(rng.randint(1, 3))]
                if r >= 0.5 or rng.random() < 0.2:
                    part["$setElementOrder/" + name] = [
                        {key: self.keyval(good)} if rng.random() < 0.85 else rng.choice(WEIRD)
                        for _ in range(rng.randint(0, 3))]
                if rng.random() < 0.1:
                    part["$retainKeys"] = [rng.choice(["ports", "selector", {}, [1], "type"])]
            _merge(patch, _nest(parent, part))
        if rng.random() < 0.05:
            _merge(patch, {"spec": {"$retainKeys": [rng.choice(["type", {}, []])], "type": "Recreate"}})
        return patch

    def case(self) -> tuple[str, dict[str, Any]]:
        kind = self.rng.choice(list(ORIG))
        return kind, self.patch(kind)


ORIG: dict[str, tuple[str, dict[str, Any]]] = {
    "Service": ("", {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "finalizers": ["a/x", "b/y"]},
                     "spec": {"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80},
                                        {"port": 81, "protocol": "TCP", "targetPort": 81}],
                              "selector": {"app": "a"}}}),
    "Pod": ("", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                 "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
                                          "env": [{"name": "A", "value": "1"}]}, {"name": "d", "image": "j"}],
                          "volumes": [{"name": "v", "emptyDir": {}}]}}),
    "Deployment": ("apps", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                            "spec": {"selector": {"matchLabels": {"a": "b"}},
                                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                                     "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}),
}
LISTS: dict[str, list[tuple[tuple[str, ...], str | None, list[Any]]]] = {
    "Service": [(("spec", "ports"), "port", [80, 81, 82]), (("metadata", "finalizers"), None, ["a/x", "b/y", "c/z"])],
    "Pod": [(("spec", "containers"), "name", ["c", "d", "e"]), (("spec", "volumes"), "name", ["v", "w"]),
            (("metadata", "finalizers"), None, ["a/x"])],
    "Deployment": [(("spec", "template", "spec", "containers"), "name", ["c", "e"])],
}
WEIRD: list[Any] = [{}, {"a": 1}, [], [1], None, True, 1.0, "80", 80.0]


def _nest(path: tuple[str, ...], value: Any) -> Any:
    for p in reversed(path):
        value = {p: value}
    return value


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    for k, v in b.items():
        if k in a and isinstance(a[k], dict) and isinstance(v, dict):
            _merge(a[k], v)
        else:
            a[k] = v
    return a


def engine_outcome(kind: str, original: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """fakekube's answer: ok with the document, error with the library's words, or panic."""
    group = ORIG[kind][0]
    try:
        out = apply_patch(original, json.dumps(patch), STRATEGIC_MERGE_PATCH,
                          schema=builtin_patch_schema(group, kind))
    except errors.HandlerPanic:
        return {"outcome": "panic"}
    except errors.ApiError as exc:
        return {"outcome": "error", "error": getattr(exc, "detail", None) or exc.message}
    return {"outcome": "ok", "doc": out}


def same(mine: dict[str, Any], go: dict[str, Any]) -> bool:
    if mine["outcome"] != go["outcome"]:
        return False
    if go["outcome"] == "error":
        return mine["error"] == go["error"]
    if go["outcome"] == "ok":
        norm = lambda v: json.dumps(json.loads(json.dumps(v), parse_int=float), sort_keys=True)  # noqa: E731
        return norm(mine["doc"]) == norm(go["doc"])
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help=f"rewrite {CASES.relative_to(ROOT)}")
    parser.add_argument("--count", type=int, default=300, help="cases to record (default 300)")
    parser.add_argument("--fuzz", type=int, default=0, help="compare the engine with the library on N cases")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(Path(tmp))
        if args.record:
            gen = Generator(args.seed)
            cases = [gen.case() for _ in range(args.count * 3)]
            kept: dict[str, list[dict[str, Any]]] = {"ok": [], "error": [], "panic": []}
            for (kind, patch), go in zip(cases, go_outcomes(binary, cases), strict=True):
                if go is None or go["outcome"] not in kept:
                    continue
                entry = {"kind": kind, "original": go["original"], "patch": patch, "outcome": go["outcome"]}
                if go["outcome"] == "ok":
                    entry["result"] = go["doc"]
                elif go["outcome"] == "error":
                    entry["error"] = go["error"]
                kept[go["outcome"]].append(entry)
            third = args.count // 3
            out = kept["ok"][:third] + kept["panic"][:third] + kept["error"][:args.count - 2 * third]
            header = ("outcomes of k8s.io/apimachinery/pkg/util/strategicpatch v0.37.2 (kube-apiserver v1.37.2) on "
                      "generated strategic merge patches; written by scripts/strategic_outcomes.py --record")
            CASES.write_text(json.dumps({"about": header, "cases": out}, indent=1, ensure_ascii=False) + "\n")
            print(f"recorded {len(out)} cases in {CASES.relative_to(ROOT)}")
        if args.fuzz:
            gen = Generator(args.seed + 1000)
            cases = [gen.case() for _ in range(args.fuzz)]
            differ = 0
            for (kind, patch), go in zip(cases, go_outcomes(binary, cases), strict=True):
                if go is None or go["outcome"] not in ("ok", "error", "panic"):
                    continue
                mine = engine_outcome(kind, go["original"], patch)
                if not same(mine, go):
                    differ += 1
                    if differ <= 10:
                        print(f"{kind} {json.dumps(patch)}\n  go:     {json.dumps(go)[:300]}\n"
                              f"  engine: {json.dumps(mine)[:300]}")
            print(f"{len(cases)} cases, {differ} differ")


if __name__ == "__main__":
    main()
