"""`tessera verify --param NAME`: the invariants over a parameter's range (tessera/verifier/params.py)."""
from __future__ import annotations

import json
from pathlib import Path


def verify_range_cmd(targets: list[list[str]], names: list[str], sets: dict[str, int], as_json: bool = False,
                     record: Path | None = None) -> int:
    """Exit 0 when every value of every range is proved, 1 when some value is not, 2 when a parameter or the
    rules are wrong (said on stderr)."""
    from ..dsl.untrusted import printable
    from ..verifier.checks import load_checks
    from ..verifier.params import describe, verify_range

    from ..console import err, out

    load_checks()
    code = 0
    docs = []
    for specs in targets:
        for name in names:
            try:
                res = verify_range(specs, name, sets, record)
            except ValueError as exc:
                err.print(printable(f"tessera verify: {' + '.join(specs)}: --param {name}: {exc}"), markup=False)
                return 2
            docs.append(res.to_dict())
            if not as_json:
                for ln in describe(res):
                    out.print(printable(ln), markup=False)
            if len(res.proved()) != res.high - res.low + 1:
                code = 1
    if as_json:
        out.print(json.dumps(docs, sort_keys=True), markup=False, soft_wrap=True)
    return code
