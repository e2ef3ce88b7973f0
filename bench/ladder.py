"""The skill ladder (issue 27): each rung against the one below, over seat-swapped games.

    python bench/ladder.py --games 100                # every adjacent pair of LADDER, base, 2 players
    python bench/ladder.py --games 100 --pair 3       # ladder:3 against ladder:2 only
    python bench/ladder.py --games 40 --rules base,river --vs mcts:32,mcts:16
    python bench/ladder.py --games 400 --seed 1000 --pair 3 --jobs 2   # the two seat orders in two processes

A pair plays `--games` games: half with the stronger player in the first seat, half in the second,
on the same bag seeds (game i of run `--seed` in both seat orders, so the tiles' luck is shared).
Printed per pair: the stronger player's wins, ties and losses, its win rate (ties are not wins)
with the Wilson score 95% interval (`scipy.stats.binomtest`, play/stats.py), and the CPU
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

from tessera.play import stats  # noqa: E402
from tessera.play.agents import LADDER, parse_agents  # noqa: E402
from tessera.replay.tiles import engine_for  # noqa: E402
from tessera.play.simulate import simulate  # noqa: E402


def seat_order(eng, rules: list[str], strong: str, weak: str, games: int, seed: int, order: int) -> dict:
    """One seat order's games of a pair (order 0: `strong` first, `games` - `games` // 2 games; order 1:
    `strong` second, `games` // 2 games): per game, whether `strong` won, tied, and its score minus the
    other's; with the CPU seconds they took."""
    eng = eng or engine_for(rules, [])
    t0 = time.process_time()
    if order == 0:
        r, s, w = simulate(eng, games - games // 2, 2, seed, rules, agents=[strong, weak]), 0, 1
    else:
        r, s, w = simulate(eng, games // 2, 2, seed, rules, agents=[weak, strong]), 1, 0
    return {"won": r.won(s), "lost": r.won(w), "tied": r.tied(s),
            "margin": [a - b for a, b in zip(r.scores(s), r.scores(w))], "cpu": time.process_time() - t0}


def play_pair(eng, rules: list[str], strong: str, weak: str, games: int, seed: int, jobs: int = 1) -> dict:
    """`games` games of `strong` against `weak` (2 players), half in each seat order on the same seeds
    (`jobs` 2: the two seat orders in two processes, the same games; CPU seconds are both processes')."""
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(2) as ex:
            parts = list(ex.map(seat_order, [None] * 2, [rules] * 2, [strong] * 2, [weak] * 2, [games] * 2,
                                [seed] * 2, [0, 1]))
    else:
        parts = [seat_order(eng, rules, strong, weak, games, seed, k) for k in (0, 1)]
    won = parts[0]["won"] + parts[1]["won"]
    lost = parts[0]["lost"] + parts[1]["lost"]
    tied = parts[0]["tied"] + parts[1]["tied"]
    margin = parts[0]["margin"] + parts[1]["margin"]
    cpu = parts[0]["cpu"] + parts[1]["cpu"]
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
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2),
                    help="2: each pair's two seat orders in two processes (the same games; default 1)")
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
    eng = engine_for(rules, []) if a.jobs == 1 else None
    out = []
    if not a.json:
        print(f"rules {'+'.join(rules)}, 2 players, {a.games} games a pair (half in each seat order), seed {a.seed}")
        print("| stronger | weaker | games | wins | ties | losses | win rate [95% Wilson] | mean lead [95%] | CPU s/game |")
        print("|---|---|---|---|---|---|---|---|---|")
    for strong, weak in pairs:
        r = play_pair(eng, rules, strong, weak, a.games, a.seed, a.jobs)
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
