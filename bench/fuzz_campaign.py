"""A long fuzzing campaign over untrusted input (issue 17); not run by the test suite.

    python bench/fuzz_campaign.py --minutes 600        # hours, overnight
    python bench/fuzz_campaign.py --minutes 10 --seed 3

Runs the same pipelines as tests/test_fuzz_untrusted.py (hostile rule files through
parse -> check -> fmt -> compile -> import -> a whole game, arithmetic on states and long
games among them; hostile records, long and deeply nested ones among them, through `tessera
replay --json`) on fresh random inputs until the time is up, each under a 1 GiB address-space
cap, and prints how many inputs were tried, how far they got (`stopped at a value bound`: a
state or points past dsl/limits.py MAX_VALUE stopped the game at its rule's line), and every
failure (an internal error, a hang, a MemoryError, a file touched outside the output folder)
with the input that caused it, saved under --failures.
"""
from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from hypothesis import strategies as st  # noqa: E402

from fuzz_untrusted import (RULE_FILES, memory_cap, record_pipeline, records, rule_file_pipeline,  # noqa: E402
                            snapshot, time_limit)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0, help="seeds the choice between rule files and records")
    ap.add_argument("--failures", type=Path, default=Path("fuzz-failures"), help="folder for failing inputs")
    args = ap.parse_args()
    import random

    rng = random.Random(args.seed)
    end = time.monotonic() + args.minutes * 60
    outcomes: collections.Counter = collections.Counter()
    failures: list[tuple[str, str, str]] = []
    tried = 0
    watched = [REPO / "rules", REPO / "compiler", REPO / "dsl"]
    before = snapshot(*watched)
    while time.monotonic() < end:
        kind = "rules" if rng.random() < 0.5 else "record"
        strategy = RULE_FILES if kind == "rules" else records()
        text = _draw(strategy, rng)
        work = Path(tempfile.mkdtemp(prefix="tessera-fuzz-"))
        try:
            with time_limit(120), memory_cap():
                if kind == "rules":
                    got = rule_file_pipeline(text, work)
                else:
                    got = f"{_record_shape(text)} record, replay exit {record_pipeline(text, work)}"
            expected = {"fz.tess", "out"} if kind == "rules" else {"game.json"}
            stray = {p.name for p in work.iterdir()} - expected
            if stray:
                raise AssertionError(f"files left beside the input: {sorted(stray)}")
            outcomes[f"{kind}: {got}"] += 1
        except BaseException as exc:  # noqa: BLE001 - every failure is reported, none stops the campaign
            if isinstance(exc, KeyboardInterrupt):
                break
            outcomes[f"{kind}: FAILED"] += 1
            failures.append((kind, text, "".join(traceback.format_exception(exc))[-2000:]))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        tried += 1
    if snapshot(*watched) != before:
        failures.append(("tree", "", "files of the checkout changed during the campaign"))
    print(f"{tried} inputs in {args.minutes:g} min (seed {args.seed}); {len(failures)} failure(s)")
    for k, v in sorted(outcomes.items()):
        print(f"  {v:6d}  {k}")
    if failures:
        args.failures.mkdir(parents=True, exist_ok=True)
        for i, (kind, text, tb) in enumerate(failures):
            (args.failures / f"{i:04d}-{kind}.txt").write_text(text, encoding="utf-8", errors="surrogateescape")
            (args.failures / f"{i:04d}-{kind}.error").write_text(tb, encoding="utf-8")
        print(f"failing inputs and their errors: {args.failures}/")
        print(json.dumps(failures[0][2].splitlines()[-3:]))
    return 1 if failures else 0


def _record_shape(text: str) -> str:
    """deep (nested past any record), long (more than 1,000 turns) or plain."""
    from tessera.replay.records import _shape

    if _shape(text)[1] > 8:
        return "deep"
    return "long" if text.count('"tile"') > 1000 else "plain"


def _draw(strategy, rng):
    """One value of a hypothesis strategy (its public `example()`; the failing inputs are saved,
    so a run need not be replayable from its seed)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return strategy.example()


if __name__ == "__main__":
    sys.exit(main())
