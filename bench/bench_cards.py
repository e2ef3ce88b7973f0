"""Benchmark: complete card games (rulebook 001), games per second, for each player count.

Every move lists all legal actions, picks one (uniformly, or by a `simulate --agents` player
such as greedy), and applies it with all scoring; final scoring at the end.  The engine is
compiled to a package in a temporary folder and imported from there, as a designer would ship it.

    python bench/bench_cards.py [--games 1000] [--players 2,3,4,5] [--agent random|greedy] [--rules card] [--kernel python|native]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tessera.play.agents import make_agent  # noqa: E402
from shipped import shipped_engine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", default="2,3,4,5")
    ap.add_argument("--rules", default="card")
    ap.add_argument("--agent", default="random")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernel", choices=("python", "native"), default="python",
                    help="the engine package as `tessera compile` writes it, or with --native (compiled runtime modules)")
    args = ap.parse_args()
    with shipped_engine(args.rules, "bench_cards_engine", args.kernel) as eng:
        for players in (int(p) for p in args.players.split(",")):
            moves = 0
            t0 = time.perf_counter()
            for i in range(args.games):
                g = eng.new_game(players, args.seed + i)
                agents = [make_agent(args.agent, i * 10 + p) for p in range(players)]
                rng = random.Random(i)
                while not g.ended:
                    acts = g.legal_actions()
                    a = acts[rng.randrange(len(acts))] if args.agent == "random" else agents[g.current].choose(g, acts)
                    g.apply_action(a)
                    moves += 1
            dt = time.perf_counter() - t0
            print(f"{args.rules}, {players} players, {args.agent}, {eng.bench_kernel} kernel: {args.games} games in {dt:.2f} s: "
                  f"{args.games / dt:.0f} games/s, {moves / args.games:.1f} moves a game")


if __name__ == "__main__":
    main()
