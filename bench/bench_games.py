"""Benchmark: complete random 2-player base games with farmers, games per second.

Every turn lists all legal actions (tile placements x figure options, or the
discard), picks one uniformly, and applies it with all scoring; final scoring
at the end.  The engine is compiled to a package in a temporary folder and
imported from there, exactly as a designer would ship it.

    python bench/bench_games.py [--games 500 | --turns 30000] [--rules base] [--players 2] [--profile] [--memory]
                                [--agent random|greedy] [--kernel python|native]

`--kernel native` runs the package `tessera compile --native` writes (the hot runtime modules compiled with
Cython; the first run builds them, two or three minutes, then they are cached: compiler/native.py).

`--turns N` plays games until N turns are played in all (the last game is played to its end): two
rule sets with games of different lengths then do the same number of turns, so the ratio of two
such processes' CPU times (`--rules base` and `--rules base,tower`, timed in turn) is the ratio of
their costs per turn.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.play.agents import make_agent  # noqa: E402
from shipped import shipped_engine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--turns", type=int, default=0, help="play games until this many turns in all (instead of --games)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rules", default="base")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--memory", action="store_true", help="also report peak memory of one game (tracemalloc)")
    ap.add_argument("--agent", default="random", help="who plays every seat: random (the default) or a "
                                                      "`simulate --agents` name such as greedy (clone-heavy)")
    ap.add_argument("--kernel", choices=("python", "native"), default="python",
                    help="the engine package as `tessera compile` writes it, or with --native (compiled runtime modules)")
    args = ap.parse_args()
    with shipped_engine(args.rules, "bench_engine", args.kernel) as eng:
        eng.play_random(args.players, 0)  # warm caches of edge-pattern fits

        def run() -> tuple[int, int, int]:
            actions = 0
            turns = 0
            i = 0
            while (turns < args.turns) if args.turns else (i < args.games):
                i += 1
                g = eng.new_game(args.players, args.seed + i - 1)
                import random
                rng = random.Random(args.seed + i - 1)
                agent = None if args.agent == "random" else make_agent(args.agent, args.seed + i - 1)
                while not g.is_terminal():
                    acts = g.legal_actions()
                    if not acts:
                        g.finish()
                        break
                    actions += len(acts)
                    turns += 1
                    g.apply_action(acts[rng.randrange(len(acts))] if agent is None else agent.choose(g, acts))
            return actions, turns, i

        if args.profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
            run()
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
            return
        if args.memory:
            import tracemalloc
            tracemalloc.start()
            g = eng.play_random(args.players, args.seed)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(f"peak memory of one complete game: {peak / 1024:.0f} KiB "
                  f"({len(g.board.tiles)} tiles, {len(g.board.parent)} feature segments)")
        t0 = time.perf_counter()
        c0 = time.process_time()
        actions, turns, games = run()
        cpu = time.process_time() - c0
        dt = time.perf_counter() - t0
        print(f"rules {args.rules}, {args.players} players, {args.agent}, {eng.bench_kernel} kernel: {games} games in {dt:.2f} s = "
              f"{games / dt:.1f} games/s, {dt / turns * 1e6:.1f} us/turn ({turns / games:.1f} turns/game, "
              f"{actions / turns:.1f} legal actions/turn listed); CPU {cpu:.2f} s = {games / cpu:.1f} games/s "
              f"of CPU, start-up excluded")


if __name__ == "__main__":
    main()
