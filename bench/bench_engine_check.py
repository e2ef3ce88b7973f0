"""Benchmark: the engine check (`tessera verify`'s engine-features) in one process, games per second.

Random games of the compiled engine, its features compared with the networkx
rebuild at every completion and scoring, one move in `--sample` and the whole
board at each game's end -- what `tessera verify` runs on every core, without
the worker processes, so the oracle's own cost shows (`--profile`: where it goes).

    python bench/bench_engine_check.py [--rules base] [--games 100] [--sample 8] [--profile]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.dsl.loader import RuleSetError, require_rule_set  # noqa: E402
from tessera.verifier.engine_check import SAMPLE, check_engine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="base")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--sample", type=int, default=SAMPLE, help="between the moments that matter, one move in N")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    try:
        rs = require_rule_set(args.rules.split(","))
    except RuleSetError as exc:
        sys.exit(str(exc))
    check_engine(rs, 1, args.players, seed=10**6, sample=args.sample)  # compile the engine, warm its caches
    if args.profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        check_engine(rs, args.games, args.players, sample=args.sample)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        return
    t0, c0 = time.perf_counter(), time.process_time()
    mismatches, checked = check_engine(rs, args.games, args.players, sample=args.sample)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{args.games} games of {'+'.join(rs.names)}, {checked} comparisons, {len(mismatches)} mismatches: "
          f"{args.games / cpu:.1f} games/s of CPU time ({cpu:.2f} s CPU, {wall:.2f} s wall)")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
