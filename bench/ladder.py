"""The skill ladder (issue 27): each rung against the one below, over seat-swapped games.

    python bench/ladder.py --games 100                # every adjacent pair of LADDER, base, 2 players
    python bench/ladder.py --games 100 --pair 3       # ladder:3 against ladder:2 only
    python bench/ladder.py --games 40 --rules base,river --vs mcts:32,mcts:16

A pair plays `--games` games: half with the stronger player in the first seat, half in the second,
on the same bag seeds (game i of run `--seed` in both seat orders, so the tiles' luck is shared).
Printed per pair: the stronger player's wins, ties and losses, its win rate (ties are not wins)
with the Wilson score 95% interval (`scipy.stats.binomtest`, compiler/stats.py), and the CPU
seconds a game took.  `--json` prints the same as one JSON document.  The games are those
`tessera simulate --agents A,B --seed S --games N/2` plays, then `--agents B,A`.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout first

from tessera.compiler import stats  # noqa: E402
from tessera.compiler.agents import LADDER, parse_agents  # noqa: E402
from tessera.compiler.replay import engine_for  # noqa: E402
from tessera.compiler.simulate import simulate  # noqa: E402


def play_pair(eng, rules: list[str], strong: str, weak: str, games: int, seed: int) -> dict:
    """`games` games of `strong` against `weak` (2 players), half in each seat order on the same seeds."""
    half = games // 2
    t0 = time.process_time()
    first = simulate(eng, games - half, 2, seed, rules, agents=[strong, weak])
    second = simulate(eng, half, 2, seed, rules, agents=[weak, strong])
    cpu = time.process_time() - t0
    won = first.won(0) + second.won(1)
    lost = first.won(1) + second.won(0)
    tied = first.tied(0) + second.tied(1)
    margin = [a - b for a, b in zip(first.scores(0) + second.scores(1), first.scores(1) + second.scores(0))]
    return {"strong": strong, "weak": weak, "games": games, "seed": seed, "wins": sum(won), "ties": sum(tied),
            "losses": sum(lost), "win_rate": stats.rate_ci(sum(won), games), "margin": stats.mean_ci(margin),
            "cpu_per_game": round(cpu / games, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per pair, half in each seat order (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="base", help="comma-separated rule modules or files (default base)")
    ap.add_argument("--pair", type=int, action="append", help="rung K against rung K-1 only (repeatable)")
    ap.add_argument("--vs", help="one pair STRONG,WEAK of any player names instead of the ladder")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.games < 2:
        ap.error("--games must be at least 2 (one game in each seat order)")
    if a.vs:
        pairs = [tuple(parse_agents(a.vs, 2))]
    else:
        ks = a.pair or list(range(1, len(LADDER)))
        if any(not 1 <= k < len(LADDER) for k in ks):
            ap.error(f"--pair takes 1 to {len(LADDER) - 1}")
        pairs = [(LADDER[k], LADDER[k - 1]) for k in ks]
    rules = [r.strip() for r in a.rules.split(",")]
    eng = engine_for(rules, [])
    out = []
    if not a.json:
        print(f"rules {'+'.join(rules)}, 2 players, {a.games} games a pair (half in each seat order), seed {a.seed}")
        print("| stronger | weaker | games | wins | ties | losses | win rate [95% Wilson] | mean lead [95%] | CPU s/game |")
        print("|---|---|---|---|---|---|---|---|---|")
    for strong, weak in pairs:
        r = play_pair(eng, rules, strong, weak, a.games, a.seed)
        out.append(r)
        if not a.json:
            w, m = r["win_rate"], r["margin"]
            print(f"| {strong} | {weak} | {r['games']} | {r['wins']} | {r['ties']} | {r['losses']} | "
                  f"{100 * w['rate']:.1f}% [{100 * w['low']:.1f}%, {100 * w['high']:.1f}%] | "
                  f"{m['mean']:+.1f} [{m['low']:+.1f}, {m['high']:+.1f}] | {r['cpu_per_game']} |", flush=True)
    if a.json:
        print(json.dumps({"rules": rules, "ladder": list(LADDER), "pairs": out}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
