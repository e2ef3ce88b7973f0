"""Simulate many random games with a compiled engine and summarise what the rules do."""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass
class Summary:
    games: int
    players: int
    seed: int
    rules: list[str]
    mean_score: list[float] = field(default_factory=list)
    win_rate: list[float] = field(default_factory=list)
    points_by_kind: dict[str, float] = field(default_factory=dict)  # mean points per game
    mean_turns: float = 0.0
    mean_discards: float = 0.0
    max_score: int = 0
    seconds: float = 0.0
    scores: list[list[int]] = field(default_factory=list, repr=False)  # per seat, each game's score (for plots)
    interrupted: bool = False  # Ctrl-C: the summary covers the `games` finished before it

    def to_dict(self) -> dict:
        return {
            "games": self.games, "players": self.players, "seed": self.seed, "rules": self.rules,
            "mean_score_by_seat": [round(x, 3) for x in self.mean_score],
            "win_rate_by_seat": [round(x, 4) for x in self.win_rate],
            "mean_points_by_feature": {k: round(v, 3) for k, v in sorted(self.points_by_kind.items())},
            "mean_turns": round(self.mean_turns, 3),
            "mean_discards": round(self.mean_discards, 3),
            "max_score": self.max_score,
            "seconds": round(self.seconds, 3),
            **({"interrupted": True} if self.interrupted else {}),
        }


def play_one(eng, players: int, seed: int):
    """One game of uniformly random legal moves; the game seed also seeds the move choice."""
    from .runtime.game import random_moves

    turns = []
    g = random_moves(eng.new_game(players, seed), seed, before=lambda g, a: turns.append(record_turn(g, a)))
    return g, turns


def record_turn(g, a) -> dict:
    name = g.tile_name()
    if a[0] == "discard":
        return {"tile": name, "discard": True}
    cell, rot, fig = a
    t = {"tile": name, "at": [cell[0], cell[1]], "rotation": rot}
    if fig is not None:
        if fig[0] == "recall":
            t["recall"] = {"figure": g.figure_name(fig[1]), "at": [fig[2][0], fig[2][1]]}
        else:
            gi, fi = fig[:2]
            if len(fig) > 2:  # a figure on a corner (the barn)
                t["place"] = {"figure": g.figure_name(gi), "corner": fig[2]}
            else:
                t["place"] = {"figure": g.figure_name(gi), "on": g.orientation(rot).places[fi][0]}
    return t


@contextmanager
def _sigint_deferred():
    """Ctrl-C inside the block is held until its end (then KeyboardInterrupt), so a game's
    statistics and record are never half done."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = signal.signal(signal.SIGINT, lambda *_: got.append(1))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if got:
        raise KeyboardInterrupt


def simulate(eng, games: int, players: int, seed: int, rules: list[str], record_dir: Path | None = None,
             progress: Callable[[int], None] | None = None, record_rules: list[str] | None = None) -> Summary:
    """Play `games` games; Ctrl-C stops after the games finished so far (`interrupted`).

    Each record is written whole or not at all (compiler.records.write_record), and names
    its rules as `record_rules` (rule files relative to `record_dir`: see rule_paths_for).
    """
    import time

    from .records import write_record

    t0 = time.perf_counter()
    totals = [0] * players
    wins = [0.0] * players
    by_kind: dict[str, int] = {}
    turns = 0
    discards = 0
    best = 0
    names = [f"p{i + 1}" for i in range(players)]
    per_seat: list[list[int]] = [[] for _ in range(players)]

    def _tally(g, rec) -> None:
        nonlocal turns, discards, best
        for p in range(players):
            totals[p] += g.scores[p]
            per_seat[p].append(g.scores[p])
        top = max(g.scores)
        best = max(best, top)
        leaders = [p for p in range(players) if g.scores[p] == top]
        for p in leaders:
            wins[p] += 1 / len(leaders)
        for ev in g.events:
            if ev["kind"] in ("score", "award"):
                key = ev.get("feature") or ev.get("award")
                by_kind[key] = by_kind.get(key, 0) + sum(ev["points"].values())
        turns += sum(1 for t in rec if not t.get("discard"))
        discards += g.discards
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            doc = {"format": "tessera-game/1", "rules": record_rules or rules,
                   "players": [g.names[p] for p in range(players)], "seed": g.seed, "turns": rec, "end": "final"}
            write_record(record_dir / f"game-{g.seed:06d}.json", doc)

    done = 0
    interrupted = False
    for i in range(games):
        gseed = seed + i
        try:
            g, rec = play_one(eng, players, gseed)
        except KeyboardInterrupt:
            interrupted = True
            break
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            from .replay import raise_rule_failure
            raise_rule_failure(exc, f"in game seed {gseed}")
        try:
            with _sigint_deferred():  # a game is counted and recorded whole, or not at all
                _tally(g, rec)
        except KeyboardInterrupt:
            interrupted = True
        done = i + 1
        if interrupted:
            break
        if progress is not None:
            progress(i + 1)
    n = max(done, 1)
    return Summary(done, players, seed, rules, [t / n for t in totals], [w / n for w in wins],
                   {k: v / n for k, v in by_kind.items()}, turns / n, discards / n, best, time.perf_counter() - t0,
                   scores=per_seat, interrupted=interrupted)
