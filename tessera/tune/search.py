"""The search of `tessera tune`: race the candidate values of one or more parameters on common seeds.

Candidates.  Every combination of the parameters' values (each parameter's proved values, from
tessera/verifier/params.py, unless `verify=False`; or a sub-range the designer names).  Each
candidate is its own compiled engine (the rules loaded with `--set NAME=V`).

Common seeds.  Every candidate plays the same games: game i of the run with seed S has the bag
seed `simulate.game_seed(S, i)` and the same players' seeds (play/simulate.py), so two
candidates differ only by what the parameter changes.  Rows are played in chunks of game indices
by `simulate.play_chunk`, in this process or in `jobs` worker processes (`simulate._run_pool`);
a candidate's rows are kept by game index, so the result is the same whatever `jobs`.

Measures.  Each target names a measure of `simulate.Summary` with its 95% interval from
play/stats.py (`MEASURES`): a mean (Student's t), a rate (Wilson), or a standard deviation.

Racing (a sequential test over rounds that double the games per candidate, with successive halving).
After each round:
a candidate is *consistent* with a target when its interval does not exclude the target (for
`=`, the interval contains the value; for `<=`, its low end is at most the bound; ...).  When some
candidate is consistent with every target, every candidate that is not is dropped; when none is,
a candidate is dropped when another is surely nearer on every target (the other's farthest
distance from the target below this one's nearest).  Then (successive halving, unless `halving=False`)
only the nearer half of the others by their estimates goes on: they played the same games, so their
estimates differ only by what the parameter changes, and the games left go to fewer candidates.  The race ends when one candidate is left,
or the budget cannot pay for another round.  The survivors that are consistent with every
target meet it; among them (or, if none, among all survivors) the chosen value is the one
nearest the targets by its estimates, and the survivors no other survivor beats on every target
are the Pareto front (several targets may conflict).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from ..play import stats

OPS = ("<=", ">=", "==", "=", "<", ">")


# measure -> (what it is, how to read it from a Summary: (estimate, low, high))
def _mean(xs) -> tuple:
    m = stats.mean_ci(xs)
    return m["mean"], m["low"], m["high"]


def _rate(k: int, n: int) -> tuple:
    r = stats.rate_ci(k, n)
    return r["rate"], r["low"], r["high"]


def _decided(s) -> tuple:
    xs = [x for x in s.decided() if x is not None]
    return stats.bounded_mean_ci(xs, 0.0, 1.0)


MEASURES = {
    "seat_advantage": ("seat 1's score minus the others' mean (points)", lambda s: _mean(s.seat_edge(0))),
    "seat1_wins": ("seat 1's rate of games won alone on top", lambda s: _rate(sum(s.won(0)), s.games)),
    "tie_rate": ("rate of games whose top score is shared", lambda s: _rate(sum(s.top_shared()), s.games)),
    "decided_at": ("share of the game before the winner led for good", _decided),
    "lead_changes": ("lead changes per game", lambda s: stats.count_ci(s.counts("lead_changes"))),
    "score_spread": ("top score minus bottom score (points)", lambda s: _mean(s.spread())),
    "lowest_score": ("the lowest score of a game (points)", lambda s: _mean(s.lowest())),
    "mean_score": ("the mean score of all seats (points)", lambda s: _mean(s.all_seats())),
    "turns": ("game length (turns)", lambda s: _mean([r["turns"] for r in s.rows])),
    "captures": ("captures per game (the Tower)", lambda s: stats.count_ci(s.counts("captures"))),
    "ransoms": ("ransoms per game (the Tower)", lambda s: stats.count_ci(s.counts("ransoms"))),
    "attacks": ("attacks on outposts per game", lambda s: stats.count_ci(s.counts("attacks"))),
    "edge_wins": ("the stronger player's rate of games won alone", lambda s: _rate(sum(s.edge_won()), s.games)),
}


class TargetError(ValueError):
    pass


@dataclass(frozen=True)
class Target:
    measure: str
    op: str  # = <= >= < >
    value: float

    @property
    def text(self) -> str:
        return f"{self.measure}{self.op}{self.value:g}"

    def consistent(self, est: float | None, low: float | None, high: float | None) -> bool:
        """The interval does not exclude the target (no interval: the estimate alone)."""
        if est is None:
            return False
        lo = est if low is None else low
        hi = est if high is None else high
        v = self.value
        return {"=": lo <= v <= hi, "<=": lo <= v, "<": lo < v, ">=": hi >= v, ">": hi > v}[self.op]

    def met(self, est, low, high) -> bool:
        """The whole interval meets the target (for `=`: contains it)."""
        if est is None:
            return False
        lo = est if low is None else low
        hi = est if high is None else high
        v = self.value
        return {"=": lo <= v <= hi, "<=": hi <= v, "<": hi < v, ">=": lo >= v, ">": lo > v}[self.op]

    def distance(self, x: float) -> float:
        """How far a value is from meeting the target (0 when it meets it)."""
        v = self.value
        if self.op == "=":
            return abs(x - v)
        if self.op in ("<=", "<"):
            return max(0.0, x - v)
        return max(0.0, v - x)

    def distance_range(self, est, low, high) -> tuple[float, float]:
        """The nearest and farthest distance over the interval."""
        lo = est if low is None else low
        hi = est if high is None else high
        ds = [self.distance(lo), self.distance(hi)]
        near = 0.0 if self.consistent(est, low, high) and self.op == "=" else min(ds)
        return near, max(ds)


def parse_target(text: str) -> Target:
    m = re.fullmatch(r"\s*([a-z_0-9]+)\s*(<=|>=|==|=|<|>)\s*(-?[0-9]+(?:\.[0-9]*)?)(%?)\s*", text)
    if not m:
        raise TargetError(f"--target {text!r}: write MEASURE=VALUE, MEASURE<=VALUE or MEASURE>=VALUE, "
                          f"as in --target seat_advantage=0 or --target tie_rate<=0.05")
    name, op, value, pct = m.groups()
    if name not in MEASURES:
        import difflib

        close = difflib.get_close_matches(name, MEASURES, n=1)
        raise TargetError(f"--target {text!r}: no measure `{name}`"
                          f"{f'; did you mean `{close[0]}`?' if close else ''} (measures: {', '.join(MEASURES)})")
    return Target(name, "=" if op == "==" else op, float(value) / (100 if pct else 1))


@dataclass
class Candidate:
    values: dict[str, int]
    task: dict
    engine: object = None
    rows: dict[int, dict] = field(default_factory=dict)  # game index -> row
    dropped: int | None = None  # the round it was dropped after
    why: str = ""
    measures: dict[str, tuple] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())

    @property
    def games(self) -> int:
        return len(self.rows)


@dataclass
class Result:
    rules: list[str]
    params: dict[str, list[int]]  # the candidates' values of each parameter
    unproved: dict[str, list[int]]  # values left out because the verifier did not prove them
    targets: list[Target]
    agents: list[str]
    players: int
    seed: int
    budget: int
    candidates: list[Candidate]
    rounds: list[dict]
    spent: int
    chosen: Candidate | None
    met: bool
    front: list[Candidate]
    verified: bool
    catalogue: object = None

    def to_dict(self) -> dict:
        def cand(c: Candidate) -> dict:
            return {"values": c.values, "games": c.games, "dropped_after_round": c.dropped, "why": c.why,
                    "measures": {t.measure: {"estimate": c.measures[t.measure][0], "low": c.measures[t.measure][1],
                                             "high": c.measures[t.measure][2],
                                             "consistent": t.consistent(*c.measures[t.measure]),
                                             "met": t.met(*c.measures[t.measure])}
                                 for t in self.targets if t.measure in c.measures}}

        return {"rules": self.rules, "params": self.params, "unproved": self.unproved, "verified": self.verified,
                "targets": [t.text for t in self.targets], "agents": self.agents, "players": self.players,
                "seed": self.seed, "budget": self.budget, "games_spent": self.spent, "rounds": self.rounds,
                "candidates": [cand(c) for c in self.candidates],
                "chosen": cand(self.chosen) if self.chosen is not None else None, "met": self.met,
                "pareto_front": [c.values for c in self.front]}


def candidates_grid(values: dict[str, list[int]], limit: int = 64) -> list[dict[str, int]]:
    names = list(values)
    grid = [dict(zip(names, combo)) for combo in itertools.product(*(values[n] for n in names))]
    if len(grid) > limit:
        raise TargetError(f"{len(grid)} candidates (the product of the ranges): at most {limit}; narrow a range "
                          f"with --param NAME=LO..HI")
    return grid


def summary_of(c: Candidate, rules, players, seed, agents, catalogue=None):
    from ..play.simulate import Summary

    return Summary(list(rules), players, seed, agents, [c.rows[i] for i in sorted(c.rows)], catalogue)


def measure_all(c: Candidate, targets: list[Target], rules, players, seed, agents) -> None:
    s = summary_of(c, rules, players, seed, agents)
    c.measures = {t.measure: tuple(MEASURES[t.measure][1](s)) for t in targets}


def play(cands: list[Candidate], upto: int, jobs: int) -> int:
    """Play each candidate's games up to index `upto` (the same indices for all: common seeds); the games
    played."""
    from ..play.simulate import _run_pool, chunks, play_chunk

    work = []
    for k, c in enumerate(cands):
        start = c.games
        todo = list(range(start, upto))
        if not todo:
            continue
        size = max(1, -(-len(todo) // max(jobs * 2, 1))) if jobs > 1 else len(todo)
        for s in range(0, len(todo), size):
            work.append((k, todo[s:s + size]))
    played = 0

    def take(k: int, rows: list[dict]) -> None:
        nonlocal played
        for r in rows:
            cands[k].rows[r["game"]] = r
        played += len(rows)

    if jobs <= 1:
        for k, idx in work:
            take(k, play_chunk(cands[k].task, idx, cands[k].engine))
    else:
        _run_pool([c.task for c in cands], iter(work), jobs, take)
    del chunks
    return played


def _nearness(c: Candidate, targets: list[Target], pool: list[Candidate]) -> float:
    """The sum over the targets of the estimate's distance, each scaled by the widest interval in `pool`."""
    total = 0.0
    for t in targets:
        w = max((abs((b.measures[t.measure][2] or 0) - (b.measures[t.measure][1] or 0)) for b in pool), default=0)
        total += t.distance(c.measures[t.measure][0]) / (w or 1.0)
    return total


def race(cands: list[Candidate], targets: list[Target], budget: int, rules, players, seed, agents, jobs: int = 1,
         first: int | None = None, progress=None, halving: bool = True) -> tuple[int, list[dict]]:
    """Race the candidates (see the module's docstring); returns the games spent and each round's record."""
    alive = list(cands)
    n = first or max(16, min(200, budget // (4 * max(len(cands), 1))))
    spent = 0
    rounds: list[dict] = []
    r = 0
    while True:
        need = sum(max(0, n - c.games) for c in alive)
        if need == 0 or spent + need > budget:
            # the last round: as many games as the budget left pays for, evenly
            left = budget - spent
            per = left // max(len(alive), 1)
            top = min(c.games for c in alive) + per
            if per <= 0 or top <= max(c.games for c in alive) or not rounds:
                if not rounds and per > 0:
                    n = top
                else:
                    break
            else:
                n = top
        r += 1
        spent += play(alive, n, jobs)
        for c in alive:
            measure_all(c, targets, rules, players, seed, agents)
        consistent = [c for c in alive if all(t.consistent(*c.measures[t.measure]) for t in targets)]
        dropped = []
        if consistent:
            for c in alive:
                if c not in consistent:
                    missed = [t.text for t in targets if not t.consistent(*c.measures[t.measure])]
                    c.dropped, c.why = r, f"its interval excludes {', '.join(missed)} while another's does not"
                    dropped.append(c)
        else:
            for c in alive:
                for b in alive:
                    if b is c:
                        continue
                    if all(t.distance_range(*b.measures[t.measure])[1] < t.distance_range(*c.measures[t.measure])[0]
                           for t in targets):
                        c.dropped, c.why = r, f"{b.label} is surely nearer every target"
                        dropped.append(c)
                        break
        alive = [c for c in alive if c not in dropped]
        if halving and len(alive) > 1:  # successive halving: the nearer half by estimates goes on (common seeds
            ranked = sorted(alive, key=lambda c: (_nearness(c, targets, alive), list(c.values.values())))
            keep = ranked[:max(1, -(-len(alive) // 2))]  # make the ranking of close values reliable)
            for c in alive:
                if c not in keep:
                    c.dropped, c.why = r, "halving: the farther half by its estimates (its interval did not exclude the targets)"
                    dropped.append(c)
            alive = keep
        rounds.append({"round": r, "games_per_candidate": n, "alive": [c.label for c in alive],
                       "dropped": [c.label for c in dropped], "games_spent": spent})
        if progress is not None:
            progress(rounds[-1])
        if len(alive) <= 1:
            break
        n *= 2
    return spent, rounds


def pareto(cands: list[Candidate], targets: list[Target]) -> list[Candidate]:
    """The candidates no other beats on every target by its estimates (no worse anywhere, better somewhere)."""
    def d(c):
        return [t.distance(c.measures[t.measure][0]) for t in targets]

    out = []
    for c in cands:
        dc = d(c)
        if not any(all(x <= y for x, y in zip(d(b), dc)) and any(x < y for x, y in zip(d(b), dc))
                   for b in cands if b is not c):
            out.append(c)
    return out


def choose(alive: list[Candidate], targets: list[Target]) -> tuple[Candidate | None, bool]:
    """The chosen candidate and whether it is consistent with every target: among those consistent (if any),
    the nearest by its estimates (each target's distance scaled by the spread of its estimates)."""
    if not alive:
        return None, False
    scale = {}
    for t in targets:
        ests = [c.measures[t.measure][0] for c in alive]
        widths = [abs((c.measures[t.measure][2] or 0) - (c.measures[t.measure][1] or 0)) for c in alive]
        scale[t.measure] = max(max(widths, default=0), max(ests) - min(ests), 1e-9)
    ok = [c for c in alive if all(t.consistent(*c.measures[t.measure]) for t in targets)]
    pool = ok or alive
    best = min(pool, key=lambda c: (sum(t.distance(c.measures[t.measure][0]) / scale[t.measure] for t in targets),
                                    list(c.values.values())))
    return best, bool(ok)
