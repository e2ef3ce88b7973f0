"""The quantities the z3 model tracks, read off a game of the compiled engine.

The invariants (verifier/invariants.py) speak of a state: per seat, each figure's supply, its
count on the board, on the outposts and held as prisoners by other players, the score, and every
`state` variable.  `snapshot` reads the same numbers from an engine `Game`, so that the witness
search (verifier/witness.py) can tell whether a game breaks an invariant and the conformance
check (verifier/conformance.py) can hold every move against the model's steps.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..compiler.pyexpr import Scope, emit
from ..dsl.model import RuleSet

from .encode import seat_key


@dataclass(frozen=True)
class Snap:
    """One state: `values` maps the model's variable names (`score[0]`, `supply[1].follower`,
    `board[0].barn`, `held[0].follower`, `outpost[1].follower`, `king`, `seen.1`, …) to numbers."""

    values: dict

    def get(self, name: str, default=0):
        return self.values.get(name, default)


def board_counts(g) -> dict:
    """(player, figure index) -> how many such figures stand on the board (features and corners)."""
    out: dict = {}
    figs = g.board.figs
    parent = g.board.parent
    for r, fs in enumerate(figs):
        if fs and parent[r] == r:
            for p, gi, _ in fs:
                out[(p, gi)] = out.get((p, gi), 0) + 1
    return out


def snapshot(rs: RuleSet, g) -> Snap:
    """The model's quantities in game `g`, for its seats (seats beyond the game's players are absent)."""
    v: dict = {}
    on_board = board_counts(g)
    names = [f.name for f in g.R.FIGURES]
    for p in range(g.nplayers):
        v[f"score[{p}]"] = g.scores[p]
        for gi, f in enumerate(names):
            v[f"supply[{p}].{f}"] = g.supply.left[p][gi]
            v[f"board[{p}].{f}"] = on_board.get((p, gi), 0)
            if rs.captures:
                v[f"held[{p}].{f}"] = g.held_count(p, gi)
            if rs.tracks:
                v[f"outpost[{p}].{f}"] = g.on_outposts(p, gi)
    for i, k in enumerate(g.R.KINDS):  # completed(K): how many features of kind K have completed
        v[f"completed({k[0]})"] = g.board.completed_count[i]
    for i, (name, sd) in enumerate(rs.states.items()):
        val = g.st[i]
        if sd.each:
            for p in range(g.nplayers):
                v[seat_key(name, p)] = val[p] if isinstance(val, tuple) and p < len(val) else 0
        else:
            v[name] = val
    return Snap(v)


def state_evaluator(rs: RuleSet, expr):
    """A rule-file expression over the game's state (`players`, `current`, `state`s, `completed(K)`),
    compiled with the compiler's own Python backend (compiler/pyexpr.py), as a function of a Game."""
    scope = Scope(names={"players": "g.nplayers", "current": "g.current"})
    for i, (name, sd) in enumerate(rs.states.items()):
        scope.names[name] = f"g.st[{i}]"
    kinds = {k: i for i, k in enumerate(rs.features)}

    def completed(args, sc):
        return f"g.board.completed_count[_kind({args[0].name!r})]"
    scope.calls["completed"] = completed
    src = emit(expr, scope)

    def kind_index(g, name):
        for i, k in enumerate(g.R.KINDS):
            if k[0] == name:
                return i
        return kinds.get(name, 0)
    env = {"_of": lambda vs, p: vs[p] if 0 <= p < len(vs) else 0,
           "_div": lambda a, b: a // b if b else 0,
           "_mod": lambda a, b: a % b if b else 0}
    fn = eval("lambda g, _kind: " + src, env)  # the compiler's own expression text, from an AST
    cache: dict = {}

    def run(g):
        def _kind(name):
            if name not in cache:
                cache[name] = kind_index(g, name)
            return cache[name]
        return fn(g, _kind)
    return run
