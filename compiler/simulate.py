"""Simulate many random games with a compiled engine and summarise what the rules do."""
from __future__ import annotations

import json
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
    mean_captures: float = 0.0  # the Tower's captures (own figures and exchanges included)
    mean_ransoms: float = 0.0
    max_score: int = 0
    seconds: float = 0.0
    scores: list[list[int]] = field(default_factory=list, repr=False)  # per seat, each game's score (for plots)

    def to_dict(self) -> dict:
        return {
            "games": self.games, "players": self.players, "seed": self.seed, "rules": self.rules,
            "mean_score_by_seat": [round(x, 3) for x in self.mean_score],
            "win_rate_by_seat": [round(x, 4) for x in self.win_rate],
            "mean_points_by_feature": {k: round(v, 3) for k, v in sorted(self.points_by_kind.items())},
            "mean_turns": round(self.mean_turns, 3),
            "mean_discards": round(self.mean_discards, 3),
            "mean_captures": round(self.mean_captures, 3),
            "mean_ransoms": round(self.mean_ransoms, 3),
            "max_score": self.max_score,
            "seconds": round(self.seconds, 3),
        }


def play_one(eng, players: int, seed: int):
    """One game of uniformly random legal moves; the game seed also seeds the move choice."""
    from .runtime.game import random_moves

    turns = []
    ransoms = []  # ransoms paid before the next tile, written into that turn

    def before(g, a):
        nonlocal ransoms
        if a[0] == "ransom":
            ransoms.append({"figure": g.figure_name(a[2]), "from": g.names[a[1]]})
        elif a[0] == "capture":
            turns[-1]["capture"] = capture_record(g, a)
        elif a[0] != "pass":  # a pass is the absence of a capture
            t = record_turn(g, a)
            if ransoms:
                t["ransom"], ransoms = ransoms, []
            turns.append(t)

    g = random_moves(eng.new_game(players, seed), seed, before=before)
    return g, turns


def capture_record(g, a) -> dict:
    """The record's `capture` key for action a (docs/records.md)."""
    _, q, gi, seg, back = a
    x, y = g.seg_cell[seg]
    out = {"figure": g.figure_name(gi), "of": g.names[q], "at": [x, y], "on": g._seg_place(seg)}
    if back is not None:
        out["back"] = g.figure_name(back)
    return out


def record_turn(g, a) -> dict:
    name = g.tile_name()
    if a[0] == "discard":
        return {"tile": name, "discard": True}
    cell, rot, fig = a
    t = {"tile": name, "at": [cell[0], cell[1]], "rotation": rot}
    if fig is not None:
        if fig[0] == "recall":
            t["recall"] = {"figure": g.figure_name(fig[1]), "at": [fig[2][0], fig[2][1]]}
        elif fig[0] == "at":  # on a feature of another placed tile (`anywhere`)
            t["place"] = {"figure": g.figure_name(fig[1]), "on": g._seg_place(fig[3]), "at": [fig[2][0], fig[2][1]]}
        else:
            gi, fi = fig[:2]
            if len(fig) > 2:  # a figure on a corner (the barn)
                t["place"] = {"figure": g.figure_name(gi), "corner": fig[2]}
            else:
                t["place"] = {"figure": g.figure_name(gi), "on": g.orientation(rot).places[fi][0]}
    return t


def simulate(eng, games: int, players: int, seed: int, rules: list[str], record_dir: Path | None = None,
             progress: Callable[[int], None] | None = None) -> Summary:
    import time

    t0 = time.perf_counter()
    totals = [0] * players
    wins = [0.0] * players
    by_kind: dict[str, int] = {}
    turns = 0
    discards = 0
    captures = ransoms = 0
    best = 0
    names = [f"p{i + 1}" for i in range(players)]
    per_seat: list[list[int]] = [[] for _ in range(players)]
    for i in range(games):
        gseed = seed + i
        try:
            g, rec = play_one(eng, players, gseed)
        except Exception as exc:  # a rule that crashes is reported at its rule-file line
            from .replay import raise_rule_failure
            raise_rule_failure(exc, f"in game seed {gseed}")
        for p in range(players):
            totals[p] += g.scores[p]
            per_seat[p].append(g.scores[p])
        top = max(g.scores)
        best = max(best, top)
        leaders = [p for p in range(players) if g.scores[p] == top]
        for p in leaders:
            wins[p] += 1 / len(leaders)
        for ev in g.events:
            captures += ev["kind"] == "capture"
            ransoms += ev["kind"] == "ransom"
            if ev["kind"] in ("score", "award"):
                key = ev.get("feature") or ev.get("award")
                by_kind[key] = by_kind.get(key, 0) + sum(ev["points"].values())
        turns += sum(1 for t in rec if not t.get("discard"))
        discards += g.discards
        if record_dir is not None:
            record_dir.mkdir(parents=True, exist_ok=True)
            doc = {"format": "tessera-game/1", "rules": rules, "players": [g.names[p] for p in range(players)],
                   "seed": gseed, "turns": rec, "end": "final"}
            (record_dir / f"game-{gseed:06d}.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        if progress is not None:
            progress(i + 1)
    n = max(games, 1)
    return Summary(games, players, seed, rules, [t / n for t in totals], [w / n for w in wins],
                   {k: v / n for k, v in by_kind.items()}, turns / n, discards / n, captures / n, ransoms / n,
                   best, time.perf_counter() - t0, scores=per_seat)
