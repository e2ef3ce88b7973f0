"""Train a small pointer-style policy on CPU with NumPy only, against a random player
(docs/engine.md, section 6, "Factored actions and candidates").

    .venv/bin/python docs/examples/train_candidates.py --games 300 --every 50 [--plot curve.png]

The policy scores each legal move of a turn by a linear function of its feature vector
(`tessera.adapters.factored.candidates`: kind, cell, rotation, figure, place) plus one
feature read from the game: how the mover's lead over the other player would change were
the game to end right after the move (final scoring on a clone), in tens of points.  It
picks by softmax and learns by REINFORCE (the game's result, +1 win / -1 loss / 0 tie,
less a running mean).  Every `--every` games it plays `--eval` games greedily against the
random player (the best-scored move, ties broken at random: before training every move
ties, so the policy plays as the random player does) and prints the share it won;
`--plot` draws that curve (matplotlib).
The game is the base game at the compact window (radius 8), 2 players.
"""
from __future__ import annotations

import argparse
import random

import numpy as np

# the installed package (pip install tessera-rules, or -e . in a checkout): no path of the checkout
# goes on sys.path, which would shadow it
from tessera.adapters.factored import candidate_features, candidates
from tessera.replay.actions import ActionCodec
from tessera.replay.tiles import engine_for


def lead(g, p: int) -> float:
    h = g.clone()
    h.finish()
    s = h.scores
    return s[p] - max(s[q] for q in range(len(s)) if q != p)


def features(codec, g, legal: dict) -> np.ndarray:
    numbers = list(legal)
    x = candidates(codec, numbers)
    p = g.current_player()
    before = lead(g, p)
    gain = np.empty((len(numbers), 1), np.float32)
    for i, n in enumerate(numbers):
        h = g.clone()
        h.apply_action(legal[n])
        gain[i, 0] = (lead(h, p) - before) / 10.0
    return np.hstack([x, gain])


def play(engine, codec, w, seed, learner: int, rng, greedy: bool):
    """One game; the learner's (features, chosen index) per decision and the learner's result."""
    g = engine.new_game(2, seed)
    trace = []
    while not g.is_terminal() and (legal := codec.legal(g)):
        numbers = list(legal)
        if g.current_player() == learner:
            x = features(codec, g, legal)
            z = x @ w
            if greedy:  # the best move, ties broken at random (untrained: a random player)
                i = int(rng.choice(np.flatnonzero(z == z.max())))
            else:
                p = np.exp(z - z.max())
                p /= p.sum()
                i = int(rng.choice(len(numbers), p=p))
                trace.append((x, i, p))
        else:
            i = int(rng.integers(len(numbers)))
        g.apply_action(legal[numbers[i]])
    s = g.scores
    other = s[1 - learner]
    return trace, (1.0 if s[learner] > other else -1.0 if s[learner] < other else 0.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="training games")
    ap.add_argument("--every", type=int, default=50, help="evaluate every N training games")
    ap.add_argument("--eval", type=int, default=40, help="evaluation games against random")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", help="write the learning curve to this PNG")
    args = ap.parse_args(argv)
    engine = engine_for(["base"], [])
    codec = ActionCodec(engine, 8)
    w = np.zeros(len(candidate_features(codec)) + 1, np.float64)
    rng = np.random.default_rng(args.seed)
    seeds = random.Random(args.seed)
    baseline = 0.0
    curve = []

    def evaluate(after: int):
        wins = sum(play(engine, codec, w, 10_000_000 + k, k % 2, rng, True)[1] > 0 for k in range(args.eval))
        curve.append((after, wins / args.eval))
        print(f"after {after:4d} training games: won {wins}/{args.eval} greedy games against random "
              f"({100 * wins / args.eval:.0f}%)", flush=True)

    evaluate(0)
    for k in range(1, args.games + 1):
        trace, result = play(engine, codec, w, seeds.randrange(2 ** 31), k % 2, rng, False)
        adv = result - baseline
        baseline += 0.05 * (result - baseline)
        for x, i, p in trace:  # d log softmax / dw = x_i - E_p[x]
            w += args.lr * adv * (x[i] - p @ x)
        if k % args.every == 0:
            evaluate(k)
    names = candidate_features(codec) + ["lead gain / 10"]
    top = sorted(zip(w, names), key=lambda t: -abs(t[0]))[:5]
    print("largest weights: " + ", ".join(f"{n} {v:+.2f}" for v, n in top))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        xs, ys = zip(*curve)
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.plot(xs, ys, marker="o", label="learned policy (greedy)")
        ax.axhline(0.5, color="grey", linestyle="--", label="even with random")
        ax.set_xlabel("training games")
        ax.set_ylabel(f"share won of {args.eval} vs random")
        ax.set_ylim(0, 1)
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
