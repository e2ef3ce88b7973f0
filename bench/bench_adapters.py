"""Benchmark: random 2-player games played through each layer a researcher may use.

    python bench/bench_adapters.py --via engine|codec|pettingzoo|openspiel [--games 20] [--rules base]
                                   [--radius N] [--view N]

engine: `legal_actions()` + `apply_action()`; codec: the same through the stable
numbers (`ActionCodec.legal`); pettingzoo: the AEC environment, observation and
action mask every step; openspiel: the pyspiel game, chance nodes included.
Every layer picks uniformly among the legal moves.  `--rules base+siege` plays Siege and
Defense (catapults, attacks and their removals by other players, the extra figure);
`--radius` and `--view` shrink the action numbering and the board window of the
adapters (0, the default: the full ones of docs/engine.md).  Compare two by timing them in turn,
several runs each (e.g. `/usr/bin/time -v python bench/bench_adapters.py --via codec`), and
quote the median ratio of the paired runs.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--via", choices=["engine", "codec", "pettingzoo", "openspiel"], default="engine")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--rules", default="base", help="modules joined by +")
    ap.add_argument("--radius", type=int, default=0, help="the window's radius (0: the codec's full fixed window; the adapters' default, following the board)")
    ap.add_argument("--view", type=int, default=0, help="the observation's board window (0: the radius)")
    args = ap.parse_args()
    rules = args.rules.split("+")
    t0 = time.perf_counter()
    moves = 0
    window = [0, 0]  # games in which a move beyond the radius was masked out; games ended by the window
    outgrown = 0  # the adapters' following window: games the board outgrew (truncated, or refused by OpenSpiel)
    codec = None

    def count(c, before):  # after a game: did the window mask a move, did it end the game?
        window[0] += c.masked > before[0]
        window[1] += c.ended_by_window > before[1]
    if args.via in ("engine", "codec"):
        from tessera.replay.actions import ActionCodec
        from tessera.replay.tiles import engine_for

        eng = engine_for(rules, [])
        codec = ActionCodec(eng, args.radius or None)
        for seed in range(args.games):
            g, rng = eng.new_game(2, seed), random.Random(seed)
            before = (codec.masked, codec.ended_by_window)
            while not g.is_terminal():
                acts = list(codec.legal(g).values()) if args.via == "codec" else g.legal_actions()
                if not acts:
                    g.finish()
                    break
                g.apply_action(acts[rng.randrange(len(acts))])
                moves += 1
            count(codec, before)
    elif args.via == "pettingzoo":
        import numpy as np

        from tessera.adapters.pettingzoo import env

        e, rng = env(rules=rules, radius=args.radius or None, view=args.view or None), np.random.default_rng(0)
        codec = e.codec
        for seed in range(args.games):
            before = (codec.masked, codec.ended_by_window)
            e.reset(seed=seed)
            for agent in e.agent_iter():
                obs, _, terminated, truncated, info = e.last()
                e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(info["action_mask"]))))
                moves += 1
            outgrown += e.truncated_by is not None
            count(codec, before)
    else:
        import numpy as np

        from tessera.adapters import openspiel as O
        from tessera.replay.actions import WindowExceeded

        game, rng = O.load(args.rules, radius=args.radius, view=args.view), np.random.RandomState(0)
        codec = game.codec
        for _ in range(args.games):
            before = (codec.masked, codec.ended_by_window)
            s = game.new_initial_state()
            try:
                while not s.is_terminal():
                    moves += O.random_step(s, rng)
            except WindowExceeded:  # the board outgrew the window: OpenSpiel refuses to go on
                outgrown += 1
            count(codec, before)
    dt = time.perf_counter() - t0
    print(f"{args.via}: {args.games} games, {moves} steps in {dt:.2f} s: {args.games / dt:.1f} games/s")
    if args.via in ("pettingzoo", "openspiel"):  # the adapters' window follows the board
        print(f"window radius {codec.radius} (a square following the board): {outgrown} of {args.games} games "
              f"outgrew it ({100 * outgrown / args.games:.1f}%)")
    elif args.via != "engine":  # the engine's own moves have no window
        print(f"window radius {codec.radius} (|dx| + |dy|): moves beyond it masked out in {window[0]} of "
              f"{args.games} games ({100 * window[0] / args.games:.1f}%), {window[1]} games ended because the "
              f"drawn tile fitted nowhere within it ({100 * window[1] / args.games:.1f}%)")


if __name__ == "__main__":
    main()
