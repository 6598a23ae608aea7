#!/usr/bin/env python3
"""Record what ``gopkg.in/evanphx/json-patch.v4`` (v4.13.0, the JSON patch library of kube-apiserver v1.37.2)
does with generated patches, for ``tests/patch/test_evanphx.py``; optionally compare fakekube's port
(``fakekube.patch.evanphx``) with it on many more.

    python scripts/evanphx_outcomes.py --record              # rewrites tests/patch/evanphx_v4_cases.json
    python scripts/evanphx_outcomes.py --fuzz 20000 --seed 7  # port vs library, differences printed
    python scripts/evanphx_outcomes.py --vectors             # the library's outcome of each RFC 6902 vector
                                                             # (json-patch-tests, from the shared conformance
                                                             # folder): tests/patch/evanphx_v4_vectors.json

Needs a Go toolchain and the module in the Go module cache (``GOFLAGS=-mod=mod GOPROXY=off`` is tried first,
then the proxy). The library is run as kube-apiserver configures it: negative indices on, a 3 MiB copy limit
(``k8s.io/apiserver/pkg/server/config.go``). Each case is run several times and kept only when every run agrees:
where Go's random map order decides between a failed ``test`` and a panic, there is no one answer. The
recorded cases are every one that succeeds or panics and as many that fail.
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

from fakekube import errors, gojson  # noqa: E402
from fakekube.patch import evanphx  # noqa: E402

CASES = ROOT / "tests" / "patch" / "evanphx_v4_cases.json"
VECTORS = ROOT / "tests" / "patch" / "evanphx_v4_vectors.json"

GO_MAIN = r'''
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

type in struct {
	Doc   json.RawMessage `json:"doc"`
	Patch json.RawMessage `json:"patch"`
}

func run(doc, patch []byte) (out map[string]interface{}) {
	defer func() {
		if r := recover(); r != nil {
			out = map[string]interface{}{"outcome": "panic"}
		}
	}()
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return map[string]interface{}{"outcome": "decode"}
	}
	res, err := p.Apply(doc)
	if err != nil {
		return map[string]interface{}{"outcome": "error"}
	}
	return map[string]interface{}{"outcome": "ok", "doc": json.RawMessage(res)}
}

func main() {
	jsonpatch.AccumulatedCopySizeLimit = 3 * 1024 * 1024
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
		b, _ := json.Marshal(run(v.Doc, v.Patch))
		w.Write(b)
		w.WriteString("\n")
	}
}
'''

GO_MOD = "module evanphxoutcomes\n\ngo 1.21\n\nrequire gopkg.in/evanphx/json-patch.v4 v4.13.0\n"


def build(workdir: Path) -> Path:
    (workdir / "main.go").write_text(GO_MAIN)
    (workdir / "go.mod").write_text(GO_MOD)
    binary = workdir / "evanphx"
    for env in ({"GOFLAGS": "-mod=mod", "GOPROXY": "off"}, {"GOFLAGS": "-mod=mod"}):
        done = subprocess.run(["go", "build", "-o", str(binary), "."], cwd=workdir, env={**os.environ, **env},
                              capture_output=True, text=True)
        if done.returncode == 0:
            return binary
    sys.exit(f"go build failed:\n{done.stderr}")


def go_outcomes(binary: Path, cases: list[tuple[dict, str]], runs: int = 5) -> list[dict | None]:
    """The library's outcome of each case, or None when runs disagree (Go's random map order decided)."""
    lines = "\n".join('{"doc":' + evanphx.marshal(doc).decode() + ',"patch":' + body + "}" for doc, body in cases)
    results = []
    for _ in range(runs):
        out = subprocess.run([str(binary)], input=lines.encode(), capture_output=True, check=True).stdout
        results.append([json.loads(line) for line in out.decode().splitlines()])
    agreed: list[dict | None] = []
    for i in range(len(cases)):
        seen = {json.dumps(r[i], sort_keys=True) for r in results}
        agreed.append(results[0][i] if len(seen) == 1 else None)
    return agreed


# -- generated patches ---------------------------------------------------------------------------------------

KEYS = ["a", "b", "c", "x/y", "t~", "", "0", "-", "<"]


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def scalar(self) -> Any:
        return self.rng.choice([1, 2, 0, -1, 1.5, 2.25, "A", "<", "s", "", True, False, None, 1e-07])

    def value(self, depth: int = 0) -> Any:
        r = self.rng.random()
        if depth > 3 or r < 0.5:
            return self.scalar()
        if r < 0.75:
            return {self.rng.choice(KEYS): self.value(depth + 1) for _ in range(self.rng.randint(0, 3))}
        return [self.value(depth + 1) for _ in range(self.rng.randint(0, 3))]

    def paths(self, doc: Any, prefix: str = "") -> list[str]:
        out = [prefix]
        if isinstance(doc, dict):
            for k, v in doc.items():
                out += self.paths(v, prefix + "/" + k.replace("~", "~0").replace("/", "~1"))
        elif isinstance(doc, list):
            for i, v in enumerate(doc):
                out += self.paths(v, f"{prefix}/{i}")
        return out

    def mutate(self, path: str) -> str | None:
        rng = self.rng
        r = rng.random()
        parts = path.split("/")
        if r < 0.4:
            return path
        if r < 0.5:
            return path + "/" + rng.choice(KEYS + ["-", "-1", "01", "+0", "5", "-9"])
        if r < 0.6 and len(parts) > 1:
            parts[-1] = rng.choice(["-", "-1", "-2", "01", "+1", "9", "zz", "~2", "~", "~01", "1_0", " 1"])
            return "/".join(parts)
        if r < 0.65:
            return path.lstrip("/")
        if r < 0.7:
            return ""
        if r < 0.75:
            return None
        if r < 0.8:
            return path + "/"
        return rng.choice(["/a", "/b/c", "/a/0", "/a/-", "a/b", "/"])

    def text(self, v: Any) -> str:
        """JSON text, spelled in one of several ways (``1.0`` for 1, ``\\u0041`` for A...)."""
        rng = self.rng
        if isinstance(v, bool) or v is None:
            return json.dumps(v)
        if isinstance(v, int):
            return rng.choice([str(v), str(v), str(v) + ".0", str(v) + "e0"])
        if isinstance(v, float):
            return rng.choice([repr(v), repr(v) + ("0" if "e" not in repr(v) else "")])
        if isinstance(v, str):
            s = json.dumps(v, ensure_ascii=False)
            if rng.random() < 0.2:
                s = s.replace("A", "\\u0041")
            if rng.random() < 0.1:
                s = s.replace("<", "\\u003c")
            return s
        if isinstance(v, dict):
            sp = rng.choice(["", " "])
            return "{" + ("," + sp).join(json.dumps(k) + ":" + sp + self.text(x) for k, x in v.items()) + "}"
        return "[" + ",".join(self.text(x) for x in v) + "]"

    def op(self, doc: dict) -> str:
        rng = self.rng
        kind = rng.choice(["add", "remove", "replace", "move", "copy", "test", "test", "test", "bogus", None]
                          if rng.random() < 0.3 else ["add", "remove", "replace", "move", "copy", "test"])
        paths = self.paths(doc)
        op: dict[str, Any] = {}
        if kind is not None:
            op["op"] = kind
        path = self.mutate(rng.choice(paths))
        if path is not None or rng.random() < 0.5:
            op["path"] = path
        if kind in ("move", "copy") or rng.random() < 0.05:
            source = self.mutate(rng.choice(paths))
            if source is not None:
                op["from"] = source
        if (kind in ("add", "replace", "test") and rng.random() < 0.9) or rng.random() < 0.05:
            value = self.value()
            if kind == "test" and rng.random() < 0.6:
                value = _at(doc, op.get("path"), value)
            op["value"] = value
        return "{" + ",".join(json.dumps(k) + ":" + (self.text(v) if k == "value" else json.dumps(v))
                              for k, v in op.items()) + "}"

    def case(self) -> tuple[dict, str]:
        doc = {k: self.value(1) for k in self.rng.sample(KEYS, self.rng.randint(1, 4))}
        return doc, "[" + ",".join(self.op(doc) for _ in range(self.rng.randint(1, 3))) + "]"


def _at(doc: Any, path: str | None, default: Any) -> Any:
    try:
        node = doc
        for part in (path or "").split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node
    except (KeyError, IndexError, ValueError, TypeError):
        return default


# -- the port ------------------------------------------------------------------------------------------------


def port_outcome(doc: dict, body: str) -> dict:
    try:
        result = evanphx.apply(doc, gojson.loads(body), body)
    except errors.HandlerPanic:
        return {"outcome": "panic"}
    except errors.ApiError:
        return {"outcome": "error"}
    return {"outcome": "ok", "doc": result}


def same(port: dict, go: dict) -> bool:
    if port["outcome"] != go["outcome"]:
        return False
    if go["outcome"] != "ok":
        return True
    norm = lambda v: json.dumps(json.loads(json.dumps(v), parse_int=float), sort_keys=True)  # noqa: E731
    return norm(port["doc"]) == norm(go["doc"])


def vector_key(record: dict) -> str:
    """A vector's identity in the outcomes file: a hash of its document and patch (the vectors themselves
    stay in the shared folder)."""
    import hashlib

    text = json.dumps([record["doc"], record["patch"]], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def result_key(doc: Any) -> str:
    import hashlib

    return hashlib.sha256(json.dumps(json.loads(json.dumps(doc), parse_int=float), sort_keys=True,
                                     ensure_ascii=False).encode()).hexdigest()[:16]


def record_vectors(binary: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "patch"))
    from conformance_support import conformance_dir

    base = conformance_dir()
    if base is None:
        sys.exit("no shared conformance folder (FAKEKUBE_CONFORMANCE_DIR)")
    records = []
    for name in ("tests.json", "spec_tests.json"):
        records += [r for r in json.loads((base / "json-patch-rfc6902" / name).read_text(encoding="utf-8"))
                    if isinstance(r.get("doc"), dict) and not r.get("disabled")]
    cases = [(r["doc"], json.dumps(r["patch"], ensure_ascii=False)) for r in records]
    out = {}
    for record, go in zip(records, go_outcomes(binary, cases), strict=True):
        if go is None:
            continue
        entry = {"outcome": go["outcome"]}
        if go["outcome"] == "ok":
            entry["result"] = result_key(go["doc"])
        out[vector_key(record)] = entry
    header = ("outcomes of gopkg.in/evanphx/json-patch.v4 v4.13.0 on the json-patch-tests vectors whose document "
              "is an object, keyed by a hash of doc and patch (results as hashes); written by "
              "scripts/evanphx_outcomes.py --vectors")
    VECTORS.write_text(json.dumps({"about": header, "outcomes": out}, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(out)} vector outcomes in {VECTORS.relative_to(ROOT)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help=f"rewrite {CASES.relative_to(ROOT)}")
    parser.add_argument("--count", type=int, default=400, help="cases to record (default 400)")
    parser.add_argument("--fuzz", type=int, default=0, help="compare the port with the library on N cases")
    parser.add_argument("--vectors", action="store_true", help=f"rewrite {VECTORS.relative_to(ROOT)}")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(Path(tmp))
        if args.vectors:
            record_vectors(binary)
        if args.record:
            gen = Generator(args.seed)
            cases = [gen.case() for _ in range(args.count * 6)]
            kept: dict[str, list[dict]] = {"ok": [], "panic": [], "error": []}
            for (doc, body), go in zip(cases, go_outcomes(binary, cases, runs=25), strict=True):
                if go is not None and go["outcome"] in kept:
                    entry = {"doc": doc, "patch": body, "outcome": go["outcome"]}
                    if "doc" in go:
                        entry["result"] = go["doc"]
                    kept[go["outcome"]].append(entry)
            succeeded = kept["ok"][: args.count // 2]
            out = succeeded + kept["panic"][:20] + kept["error"][: args.count - len(succeeded)]
            header = ("outcomes of gopkg.in/evanphx/json-patch.v4 v4.13.0 (kube-apiserver v1.37.2's JSON patch "
                      "library) on generated patches; written by scripts/evanphx_outcomes.py --record")
            CASES.write_text(json.dumps({"about": header, "cases": out}, indent=1, ensure_ascii=False) + "\n")
            print(f"recorded {len(out)} cases in {CASES.relative_to(ROOT)}")
        if args.fuzz:
            gen = Generator(args.seed + 1000)
            cases = [gen.case() for _ in range(args.fuzz)]
            differ = 0
            for (doc, body), go in zip(cases, go_outcomes(binary, cases), strict=True):
                if go is None or go["outcome"] == "decode":
                    continue
                port = port_outcome(doc, body)
                if not same(port, go):
                    differ += 1
                    if differ <= 10:
                        print(f"doc   {json.dumps(doc)}\npatch {body}\n  go:   {json.dumps(go)[:300]}\n"
                              f"  port: {json.dumps(port)[:300]}")
            print(f"{len(cases)} cases, {differ} differ")


if __name__ == "__main__":
    main()
