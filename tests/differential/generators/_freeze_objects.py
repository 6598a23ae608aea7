"""Write ``_objects.json``: the minimal valid object of every GA kind the corpus uses, frozen.

    python tests/differential/generators/_freeze_objects.py            # (--print: to stdout instead)

The objects come from tests/builtin_objects.py (test data built from the OpenAPI schemas plus a hand table, each
checked against the real server). They are frozen into a file so the corpus, and so its recordings, do not
change when fakekube's model does: a recording is keyed by the requests it answered.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


def main() -> None:
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(HERE))
    from _kinds import object_kinds  # noqa: PLC0415 - the generators' own module, found by path

    from fakekube.apimodel.table import resources_in
    from tests.builtin_objects import minimal_object

    version = "1.37"  # the release the oracle runs and the discovery documents describe
    table = {(r.group, r.version, r.plural): r for r in resources_in(version)}
    objects = {}
    for kind in object_kinds():
        resource = table.get((kind.group, kind.version, kind.plural))
        if resource is None:
            raise SystemExit(f"tests/builtin_objects has no object for {kind.api_version} {kind.plural}")
        objects[f"{kind.api_version}/{kind.plural}"] = minimal_object(resource, version)
    text = json.dumps(objects, indent=1, sort_keys=True) + "\n"
    if "--print" in sys.argv:
        sys.stdout.write(text)
        return
    (HERE / "_objects.json").write_text(text)
    print(f"{len(objects)} objects written to {HERE / '_objects.json'}")


if __name__ == "__main__":
    main()
