"""The rules' invariants, proved rule by rule as induction steps with z3.

A symbolic game state holds, for every seat, each figure's supply and count on
the board, the score, and every `state` variable.  Each rule of a RuleSet is a
*step* from one state to the next, encoded from its AST (`tessera.verifier.encode`):

- `figure F … when C`       a seat places one F from its supply (C holds on the feature);
- `score K complete = E`    a feature of kind K completes (its `complete` condition holds):
                            its owners (`owners most|all`) score E, figures with
                            `return F when scored` go back to supply;
- `score K end = E`         final scoring of an incomplete feature;
- `recall F = E`            a seat takes its F back from an incomplete feature and scores E;
- `award S at end = E`      the seat held in state S scores E;
- `on place|complete …`     the `where` guard, the `require`s (an illegal placement
                            never happens) and the simultaneous `set`s.

Invariants (built in, or `invariant NAME: EXPR [CLAUSE]` in a rule file) are
checked as induction steps: all invariants before a step ∧ the step's facts ⇒
each invariant after it; the initial state is the base case.  Formula
properties (monotone in tiles and shields) are checked on each formula.

Every fact of a step carries its rule-file line, so a proof reports the lines
it used (an unsat core) and a counterexample the lines involved.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from ..dsl import ast as A
from ..dsl.fmt import format_expr
from ..dsl.model import RuleSet

from ..dsl.diagnostics import Diagnostic

from .checks import register
from .domain import Domain
from .encode import Env, EncodeError, encode, encode_on, describe_on, seat_key
from .solver import Fact, Result, Verdict, _symbols, prove, prove_all
from .source import cites, line_text, where

SIZE_QUANTITIES = ("tiles", "shields", "neighbours", "completed_cities")


# --------------------------------------------------------------------- state
@dataclass
class State:
    supply: dict[tuple[int, str], z3.ArithRef]
    board: dict[tuple[int, str], z3.ArithRef]
    score: list[z3.ArithRef]
    st: dict[str, z3.ArithRef]
    # (owner, figure): how many of the owner's figures other players hold as prisoners (the Tower);
    # the constant 0 in rules without captures
    held: dict[tuple[int, str], z3.ArithRef] = field(default_factory=dict)
    # (owner, figure): how many of the owner's figures stand on outposts (Siege and Defense), all
    # outposts together; the constant 0 in rules without tracks
    outpost: dict[tuple[int, str], z3.ArithRef] = field(default_factory=dict)
    # kind: completed(KIND), the features of that kind completed so far (Domain.completed_start/step)
    done: dict[str, z3.ArithRef] = field(default_factory=dict)

    def copy(self) -> "State":
        return State(dict(self.supply), dict(self.board), list(self.score), dict(self.st), dict(self.held),
                     dict(self.outpost), dict(self.done))


@dataclass
class SymGame:
    """The symbolic frame shared by a step: seats, the acting seat, the state before."""

    rs: RuleSet
    seats: int
    players: z3.ArithRef
    current: z3.ArithRef
    before: State
    facts: list[Fact]
    domain: Domain = field(default_factory=lambda: Domain(None))
    sink: list[Fact] = field(default_factory=list)  # facts of game quantities any encoding created
    game_vars: dict[str, z3.ExprRef] = field(default_factory=dict)  # their variables (completed(city), …)
    # per-feature lemmas the verifier proved (verifier/lemmas.py), by kind: assumed of a feature scored
    lemmas: dict[str, list] = field(default_factory=dict)

    @classmethod
    def make(cls, rs: RuleSet, seats: int | None = None) -> "SymGame":
        """The frame for every number of players of the rule set; `seats`: only that many seats (the
        conformance check, which follows games of a known number of players)."""
        dom = Domain(rs)
        _, most, _, _ = dom.players_range()
        seats = most if seats is None else min(seats, most)
        n = z3.Int("players")
        c = z3.Int("current")
        facts = dom.players(n) + dom.current(c, n)
        figs = list(rs.figures)
        before = State(
            {(p, f): z3.Int(f"supply[{p}].{f}") for p in range(seats) for f in figs},
            {(p, f): z3.Int(f"board[{p}].{f}") for p in range(seats) for f in figs},
            [z3.Int(f"score[{p}]") for p in range(seats)],
            {k: z3.Int(k) for s, sd in rs.states.items()
             for k in ([seat_key(s, p) for p in range(seats)] if sd.each else [s])},
            # only a figure some `capture` names is ever a prisoner (Domain.capturable: never a floor)
            {(p, f): (z3.Int(f"held[{p}].{f}") if rs.captures and dom.capturable(f)[0] else z3.IntVal(0))
             for p in range(seats) for f in figs},
            {(p, f): (z3.Int(f"outpost[{p}].{f}") if rs.tracks else z3.IntVal(0)) for p in range(seats) for f in figs},
            {k: z3.Int(f"completed({k})") for k in rs.features},
        )
        for k, v in before.done.items():
            facts += dom.function("completed", f"completed({k})", v)
        return cls(rs, seats, n, c, before, facts, dom)

    def env(self, tag: str, state: State | None = None, kind: str | None = None) -> Env:
        st = state or self.before
        env = Env(tag=tag, domain=self.domain, kind=kind, sink=self.sink, game_vars=self.game_vars)
        env.names.update(st.st)
        env.names.update({f"completed({k})": v for k, v in st.done.items()})  # part of the state
        env.names["players"] = self.players
        env.names["current"] = self.current
        return env


@dataclass
class RuleStep:
    """One rule as a transition."""

    rule: str  # "score city complete"
    where: str
    text: str
    clauses: tuple[str, ...]
    facts: list[Fact]
    after: State
    claims: dict[str, z3.BoolRef] = field(default_factory=dict)  # feature-level properties of this step
    show: dict[str, z3.ExprRef] = field(default_factory=dict)
    inputs: list[z3.ArithRef] = field(default_factory=list)
    span: A.Span | None = None
    transfer: bool = False  # moves points between players (a ransom): exempt from "scores never decrease"
    # a completion (completion_steps): the rules it chains, each (rule, where, text, span, the
    # state variables it writes); a check is reported at the last one writing what the claim reads
    members: list[tuple[str, str, str, A.Span | None, set[str]]] = field(default_factory=list)


# ---------------------------------------------------------------- invariants
@dataclass
class Invariant:
    id: str
    title: str
    clauses: tuple[str, ...]
    where: str
    kind: str  # "state" | "step" | "feature" | "formula"
    pred: Callable[..., z3.BoolRef] | None = None
    span: A.Span | None = None


@dataclass
class InvariantCheck:
    invariant: Invariant
    rule: str
    where: str
    text: str
    result: Result
    span: A.Span | None = None
    step: str = ""  # the step the check is about (its RuleStep.rule): a model error there voids it


MODEL_DISAGREES = "the model disagrees with the engine at"


def figure_count(g: SymGame, name: str) -> z3.ArithRef:
    """How many of figure `name` each player has: its number, or its count expression over
    `players` (TOWER-COMP-1) read for the symbolic number of players."""
    fig = g.rs.figures[name]
    if fig.count_expr is None:
        return z3.IntVal(fig.count)
    return encode(fig.count_expr, g.env(""))


def builtin_invariants(rs: RuleSet, game: SymGame) -> list[Invariant]:
    out: list[Invariant] = []
    n = game.players
    seats = range(game.seats)
    for name, fig in rs.figures.items():
        def conserved(g: SymGame, s: State, name=name):
            count = figure_count(g, name)
            return z3.And([z3.Implies(p < g.players, s.supply[(p, name)] + s.board[(p, name)] + s.held[(p, name)]
                                      + s.outpost[(p, name)] == count)
                           for p in seats])
        shown = fig.count if fig.count_expr is None else f"({format_expr(fig.count_expr)})"
        if rs.captures or rs.tracks:
            parts = ["supply", "board"] + (["outposts"] if rs.tracks else []) + (["held as prisoners"] if rs.captures else [])
            title = f"each player's {name}s are conserved: {' + '.join(parts)} == {shown}"
            clauses = (cites(fig) or ("BASE-COMP-2",))
            if rs.captures:
                clauses += tuple(c.clause for c in rs.captures[next(iter(rs.captures))].cites)
            if rs.tracks:
                clauses += tuple(dict.fromkeys(c.clause for t in rs.tracks.values() for c in t.cites))
        else:
            title = f"each player's {name}s are conserved: supply + board == {shown} (no prisoners or outposts in these rules)"
            clauses = cites(fig) or ("BASE-COMP-2",)
        out.append(Invariant(f"conserved-{name}", title, clauses, where(fig.span), "state", conserved, fig.span))

    def nonneg_figs(g: SymGame, s: State):
        return z3.And([z3.Implies(p < g.players, z3.And(s.supply[(p, f)] >= 0, s.board[(p, f)] >= 0, s.held[(p, f)] >= 0,
                                                         s.outpost[(p, f)] >= 0))
                       for p in seats for f in rs.figures])
    out.append(Invariant("supply-nonnegative", "no supply goes negative (nor a count of figures on the board)",
                         ("BASE-FOLLOW-3",), "builtin", "state", nonneg_figs))

    def nonneg_score(g: SymGame, s: State):
        return z3.And([z3.Implies(p < g.players, s.score[p] >= 0) for p in seats])
    out.append(Invariant("score-nonnegative", "no score goes below 0", ("BASE-SCORE-3",), "builtin", "state", nonneg_score))

    def monotone(g: SymGame, s: State, t: State):
        return z3.And([z3.Implies(p < g.players, t.score[p] >= s.score[p]) for p in seats])
    if rs.ransom is not None:  # a ransom moves points between players: every other rule only adds
        out.append(Invariant("score-never-decreases", "only a ransom lowers a score (every other rule only adds points)",
                             ("BASE-SCORE-3",) + cites(rs.ransom), "builtin", "step", monotone))
    else:
        out.append(Invariant("score-never-decreases", "scores never decrease (no rule here states a transfer)",
                             ("BASE-SCORE-3",), "builtin", "step", monotone))

    for sname, aw in rs.awards.items():
        if aw.most:
            continue  # it names no seat: every seat with the most scores (award_most_step)

        def seat(g: SymGame, s: State, sname=sname):
            return z3.And(s.st[sname] >= -1, s.st[sname] < g.players)
        out.append(Invariant(f"award-seat-{sname}", f"`{sname}` holds a seat of the game or -1 (nobody)",
                             cites(aw), where(aw.span), "state", seat, aw.span))
    for name in rs.corner_figures():
        fig = rs.figures[name]

        def stays(g: SymGame, s: State, t: State, name=name):
            return z3.And([z3.Implies(p < g.players, t.board[(p, name)] >= s.board[(p, name)]) for p in seats])
        out.append(Invariant(f"stays-{name}", f"a {name} once put stays on the board to the end (never returned)",
                             cites(fig), where(fig.span), "step", stays, fig.span))
    out.append(Invariant("tie-rule", "every tied leader of a scored feature gets the same, full points",
                         ("BASE-SCORE-1",), "builtin", "feature"))
    out.append(Invariant("returned-when-scored", "no figure stays on a completed, scored feature",
                         ("BASE-SCORE-2",), "builtin", "feature"))
    out.append(Invariant("formula-monotone", "scoring formulas never give less for more tiles, shields, neighbours "
                         "or completed cities", ("BASE-CITY-2", "BASE-END-2"), "builtin", "formula"))
    return out


def declared_invariants(rs: RuleSet) -> list[Invariant]:
    out = []
    for inv in rs.invariants:
        def pred(g: SymGame, s: State, inv=inv):
            return encode(inv.test, g.env("", s))
        out.append(Invariant(inv.name, line_text(inv.span) or inv.name, cites(inv), where(inv.span), "state", pred, inv.span))
    return out


# --------------------------------------------------------------------- steps
def _feature_env(g: SymGame, kind: str, tag: str, facts: list[Fact], completing: bool = False,
                 lemmas: bool = True) -> tuple[Env, dict]:
    """An env for one feature of `kind` (that has just completed, if `completing`), with the figures of each seat on it
    (and the per-feature lemmas of g.lemmas about them, unless `lemmas` is False: in the middle of a put or join
    scoring, where a figure was just put or two features joined and the returns are still to come)."""
    env = g.env(tag, kind=kind)
    env.completing = completing
    rs = g.rs
    f: dict[tuple[int, str], z3.ArithRef] = {}
    for name, fig in rs.figures.items():
        if kind not in rs.may_stand(name):
            continue
        for p in range(g.seats):
            v = z3.Int(f"on_feature[{p}].{name}")
            f[(p, name)] = v
            facts.append(Fact(z3.And(v >= 0, v <= g.before.board[(p, name)],
                                     z3.Implies(p >= g.players, v == 0)),
                              "builtin", f"seat {p}'s {name}s on the {kind} are among its {name}s on the board"))
    if lemmas and g.lemmas.get(kind):
        per = {name: z3.Sum([v for (p, n), v in f.items() if n == name] or [z3.IntVal(0)]) for name in rs.figures}
        for lem in g.lemmas[kind]:
            facts.append(Fact(lem.pred(per), "lemma", lem.describe() + "   (a lemma the verifier found and proved)"))
    _reads_figures(env, f, set(rs.corner_figures()))
    return env, f


def _reads_figures(env: Env, f: dict[tuple[int, str], z3.ArithRef], corner: set[str]) -> None:
    """What a feature's `figures` and `count(F)` read, from its figures by (seat, figure): `figures` counts
    those toward ownership (a barn on a corner does not)."""
    owning = [v for (p, name), v in f.items() if name not in corner]
    env.names["figures"] = z3.Sum(owning) if owning else z3.IntVal(0)

    def count(args):
        name = args[0].name if isinstance(args[0], A.Var) else ""
        vs = [v for (p, n), v in f.items() if n == name]
        return z3.Sum(vs) if vs else z3.IntVal(0)
    env.calls["count"] = count


def _domain(rs: RuleSet, kind: str | None, env: Env, facts: list[Fact]) -> None:
    """The domain facts (tessera.verifier.domain) of the quantities an encoding read."""
    facts.extend(env.facts)
    env.facts = []


def _complete_fact(rs: RuleSet, kind: str, env: Env, done: bool) -> Fact | None:
    cd = rs.complete.get(kind)
    if cd is None:
        return None
    cond = encode(cd.when, env)
    return Fact(cond if done else z3.Not(cond), where(cd.span),
                line_text(cd.span) + ("" if done else "   (does not hold: the feature is incomplete)"))


def _display(g: SymGame, after: State, created: dict | None = None, points=None) -> tuple[dict, list]:
    """What a counterexample shows of a step (state before and after, the rule's inputs, its points),
    and the numbers minimized to make it small."""
    show: dict[str, z3.ExprRef] = {}
    inputs: list[z3.ArithRef] = []
    _show_state(g, g.before, after, show, inputs)
    for name, v in (created or {}).items():
        show[name] = v
        inputs.append(v)
    if points is not None:
        show["points"] = points
    return show, inputs


def _show_state(g: SymGame, s: State, t: State, show: dict, inputs: list) -> None:
    show["players"] = g.players
    show["current"] = g.current
    inputs += [g.players, g.current]
    for p in range(g.seats):
        show[f"score[{p}]"] = s.score[p]
        show[f"score'[{p}]"] = t.score[p]
        inputs.append(s.score[p])
        for fig in g.rs.figures:
            show[f"supply[{p}].{fig}"] = s.supply[(p, fig)]
            show[f"supply'[{p}].{fig}"] = t.supply[(p, fig)]
            show[f"board[{p}].{fig}"] = s.board[(p, fig)]
            show[f"board'[{p}].{fig}"] = t.board[(p, fig)]
            inputs += [s.supply[(p, fig)], s.board[(p, fig)]]
            if g.rs.captures and not z3.is_int_value(s.held[(p, fig)]):  # a floor is never a prisoner
                show[f"held[{p}].{fig}"] = s.held[(p, fig)]
                show[f"held'[{p}].{fig}"] = t.held[(p, fig)]
                inputs.append(s.held[(p, fig)])
            if g.rs.tracks:
                show[f"outpost[{p}].{fig}"] = s.outpost[(p, fig)]
                show[f"outpost'[{p}].{fig}"] = t.outpost[(p, fig)]
                inputs.append(s.outpost[(p, fig)])
    for k, v in s.st.items():
        show[k] = v
        show[k + "'"] = t.st[k]
        inputs.append(v)
    for k in _read_kinds(g.rs):
        show[f"completed({k})"] = s.done[k]
        show[f"completed({k})'"] = t.done[k]
        inputs.append(s.done[k])


_READ_KINDS: dict[int, tuple] = {}


def _read_kinds(rs: RuleSet) -> list[str]:
    """The kinds K some rule or invariant reads `completed(K)` of: those a counterexample shows."""
    hit = _READ_KINDS.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    found: set[str] = set()
    seen: set[int] = set()

    def walk(x):
        if id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, A.Call) and x.fn == "completed" and x.args and isinstance(x.args[0], A.Var):
            found.add(x.args[0].name)
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif hasattr(x, "__dataclass_fields__") and not isinstance(x, A.Span):
            for name in x.__dataclass_fields__:
                walk(getattr(x, name, None))
    walk(list(rs.modules))
    out = [k for k in rs.features if k in found]
    _READ_KINDS.clear()
    _READ_KINDS[id(rs)] = (rs, out)
    return out


def _fresh_scores(g: SymGame, after: State, gains: list[z3.ArithRef], why: str, text: str, facts: list[Fact]) -> None:
    for p in range(g.seats):
        v = z3.Int(f"score'[{p}]")
        facts.append(Fact(v == g.before.score[p] + gains[p], why, text))
        after.score[p] = v


def by_rules(rs: RuleSet, kind: str, when: str) -> list[A.ScoreDecl]:
    """The `score KIND WHEN by F` rules of figures F that count toward ownership (not on a corner):
    the engine scores them in the same event as the plain `score KIND WHEN` (runtime/scoring.py
    `_award`: an owner with an F there scores by F's rule instead of the plain one)."""
    corner = set(rs.corner_figures())
    return [d for (k, w, f), d in rs.figure_scores.items() if k == kind and w == when and f not in corner]


def score_step(g: SymGame, decl: A.ScoreDecl | None, bys: list[A.ScoreDecl] | tuple = ()) -> RuleStep | None:
    """One scoring event of a feature: `decl` (the plain `score K WHEN`, or a corner figure's `by`
    rule, or a put/join scoring) and, with it, `bys`: the non-corner `score K WHEN by F` rules.
    Each owner scores by the rule of an F it has there (the engine takes the first such figure of
    the owner's on the feature: any of them, here), else by the plain rule (none: 0)."""
    rs = g.rs
    if decl is None:
        if not bys:
            return None
        decl, plain = bys[0], None
    else:
        plain = decl if decl.by is None else None
    kind = decl.kind
    facts = list(g.facts)
    if decl.when == "complete" and kind not in rs.complete:
        return None  # never completes: the rule cannot fire
    env, on = _feature_env(g, kind, "", facts, decl.when == "complete", lemmas=decl.when not in ("put", "join"))
    pts = z3.Int("points")
    if plain is not None or decl.by is not None and not bys:
        facts.append(Fact(pts == encode(decl.value, env), where(decl.span), line_text(decl.span)))
    else:
        facts.append(Fact(pts == 0, "engine", f"no plain `score {kind} {decl.when}`: an owner with no figure a `by` "
                                              f"rule names scores nothing"))
    by_pts: list[tuple[A.ScoreDecl, z3.ArithRef]] = []
    for d in bys:
        v = z3.Int(f"points.by.{d.by}")
        facts.append(Fact(v == encode(d.value, env), where(d.span), line_text(d.span)))
        by_pts.append((d, v))
    if decl.when in ("complete", "end"):
        cf = _complete_fact(rs, kind, env, decl.when == "complete")
        if cf is not None:
            facts.append(cf)
    corner = set(rs.corner_figures())
    trig = decl.figure
    if trig is not None:
        # put: a `trig` was just put on the feature; join: the joined feature holds a `trig`
        n_trig = z3.Sum([v for (p, f), v in on.items() if f == trig]) if any(f == trig for _, f in on) else z3.IntVal(0)
        facts.append(Fact(n_trig >= 1, where(decl.span),
                          f"the {kind} holds a {trig} ({'it was just put there' if decl.when == 'put' else 'a tile joined it'})"))
    _domain(rs, kind, env, facts)
    mode = rs.owners.mode if rs.owners else "all"
    ow = where(rs.owners.span) if rs.owners else "builtin"
    cnt = [z3.Sum([on[(p, f)] for f in rs.figures if (p, f) in on and f not in corner]) if on else z3.IntVal(0)
           for p in range(g.seats)]
    cnt = [c if not isinstance(c, int) else z3.IntVal(c) for c in cnt]
    leader = [z3.And(cnt[p] > 0, *[cnt[p] >= cnt[q] for q in range(g.seats) if q != p]) for p in range(g.seats)]
    owner = [z3.Bool(f"owner[{p}]") for p in range(g.seats)]
    if decl.by is not None and decl.by in corner:
        # `score K WHEN by F` for a corner figure: every player with an F there scores in full
        for p in range(g.seats):
            has = on.get((p, decl.by), z3.IntVal(0)) > 0
            facts.append(Fact(owner[p] == has, where(decl.span), f"every {decl.by} owner on the {kind} scores in full"))
        leader = [on.get((p, decl.by), z3.IntVal(0)) > 0 for p in range(g.seats)]
    else:
        for p in range(g.seats):
            rule = leader[p] if mode == "most" else cnt[p] > 0
            facts.append(Fact(owner[p] == rule, ow, line_text(rs.owners.span) if rs.owners else "owners all"))
    # the points each seat's rule gives it: a `by F` rule for an owner with an F there, else the plain one
    mine = [pts for _ in range(g.seats)]
    if by_pts:
        for p in range(g.seats):
            sel = z3.Int(f"rule[{p}]")  # 0: the plain rule; i: the i-th `by` rule
            has = [on.get((p, d.by), z3.IntVal(0)) > 0 for d, _ in by_pts]
            facts.append(Fact(z3.And(sel >= 0, sel <= len(by_pts), (sel == 0) == z3.Not(z3.Or(has)),
                                     *[z3.Implies(sel == i + 1, h) for i, h in enumerate(has)]),
                              "engine", f"an owner with a figure a `score {kind} {decl.when} by F` rule names there "
                                        f"scores by that rule, any other by the plain one (runtime/scoring.py)"))
            val = pts
            for i, (_, v) in reversed(list(enumerate(by_pts))):
                val = z3.If(sel == i + 1, v, val)
            mine[p] = val
    gains = [z3.If(owner[p], mine[p], 0) for p in range(g.seats)]
    after = g.before.copy()
    _fresh_scores(g, after, gains, "engine", "each owner of the feature scores its points (BASE-SCORE-1)", facts)
    claims: dict[str, z3.BoolRef] = {}
    tie = []
    for p in range(g.seats):
        tie.append(z3.Implies(leader[p], after.score[p] - g.before.score[p] == mine[p]))
        for q in range(p + 1, g.seats):
            tie.append(z3.Implies(z3.And(leader[p], leader[q]),
                                  after.score[p] - g.before.score[p] == after.score[q] - g.before.score[q]))
    claims["tie-rule"] = z3.And(tie)
    if decl.when in ("complete", "put", "join"):
        left = []
        for (p, f), v in on.items():
            rt = rs.returns.get(f)
            back = z3.Int(f"returned[{p}].{f}")
            facts.append(Fact(back == (v if rt is not None else 0), where(rt.span) if rt else "engine",
                              line_text(rt.span) if rt else f"no `return {f} when scored`: the {f}s stay"))
            after.board[(p, f)] = z3.Int(f"board'[{p}].{f}")
            after.supply[(p, f)] = z3.Int(f"supply'[{p}].{f}")
            facts.append(Fact(z3.And(after.board[(p, f)] == g.before.board[(p, f)] - back,
                                     after.supply[(p, f)] == g.before.supply[(p, f)] + back),
                              "engine", "returned figures go from the board to their owner's supply"))
            if decl.when == "complete" or f not in corner:  # put/join: the farmers leave; the barn stays
                left.append(v - back == 0)
        claims["returned-when-scored"] = z3.And(left) if left else z3.BoolVal(True)
    show, inputs = _display(g, after, env.created, pts)
    for d, v in by_pts:
        show[f"points by {d.by}"] = v
    for (p, f), v in on.items():
        show[f"on_feature[{p}].{f}"] = v
        inputs.append(v)
    label = f"score {kind} {decl.when}" + (f" {trig}" if trig else "")
    # reported at the last of its rules in the rule files (a house rule's `by` rule after base's plain one)
    at = max([decl, *bys], key=lambda d: (d.span.file != (decl.span.file), d.span.line)) if bys else decl
    clauses = tuple(dict.fromkeys(c for d in [decl, *bys] for c in cites(d)))
    return RuleStep(label, where(at.span), line_text(at.span), clauses,
                facts, after, claims, show, inputs, at.span)


def place_step(g: SymGame, name: str, fig: A.FigureDecl, allow: A.PermitDecl | None = None) -> RuleStep:
    facts = list(g.facts)
    env = g.env("")
    env.names["figures"] = env.var("figures", 0, None, "builtin", "figures on the feature >= 0")
    counts: dict[str, z3.ArithRef] = {}

    def count(args):
        n = args[0].name if isinstance(args[0], A.Var) else "?"
        if n not in counts:
            counts[n] = env.var(f"count({n})", 0, None, "builtin", f"{n}s on the feature >= 0")
        return counts[n]
    env.calls["count"] = count
    c = g.current
    facts.append(Fact(z3.Or([z3.And(c == p, g.before.supply[(p, name)] >= 1) for p in range(g.seats)]),
                      "engine", f"a {name} is placed from its owner's supply (BASE-FOLLOW-3)"))
    decl = allow or fig
    if decl.when is not None:
        facts.append(Fact(encode(decl.when, env), where(decl.span), line_text(decl.span)))
    # a `forbid` of this figure on the kinds it would stand on does not hold
    kinds = set(decl.on)
    for pm in g.rs.permits:
        if pm.mode == "forbid" and pm.figure == name and kinds <= set(pm.on) and pm.when is not None:
            facts.append(Fact(z3.Not(encode(pm.when, env)), where(pm.span), line_text(pm.span) + "   (does not hold)"))
    _domain(g.rs, None, env, facts)
    after = g.before.copy()
    for p in range(g.seats):
        s2, b2 = z3.Int(f"supply'[{p}].{name}"), z3.Int(f"board'[{p}].{name}")
        one = z3.If(c == p, 1, 0)
        facts.append(Fact(z3.And(s2 == g.before.supply[(p, name)] - one, b2 == g.before.board[(p, name)] + one),
                          "engine", f"placing moves one {name} from supply to the board (BASE-TURN-1)"))
        after.supply[(p, name)], after.board[(p, name)] = s2, b2
    show, inputs = _display(g, after, env.created)
    label = f"place a {name}" + (f" on {', '.join(allow.on)} (allow)" if allow else "")
    return RuleStep(label, where(decl.span), line_text(decl.span), cites(decl), facts, after, {}, show, inputs, decl.span)


def recall_steps(g: SymGame, name: str, rc: A.RecallDecl) -> list[RuleStep]:
    rs = g.rs
    out = []
    fig = rs.figures.get(name)
    for kind in (fig.on if fig else ()):
        facts = list(g.facts)
        env, _ = _feature_env(g, kind, "", facts)
        pts = z3.Int("points")
        facts.append(Fact(pts == encode(rc.value, env), where(rc.span), line_text(rc.span)))
        cf = _complete_fact(rs, kind, env, False)
        if cf is not None:
            facts.append(cf)
        _domain(rs, kind, env, facts)
        c = g.current
        facts.append(Fact(z3.Or([z3.And(c == p, g.before.board[(p, name)] >= 1) for p in range(g.seats)]),
                          "engine", f"the acting seat has a {name} standing on the {kind} (ABBOT-RECALL-1)"))
        after = g.before.copy()
        _fresh_scores(g, after, [z3.If(c == p, pts, 0) for p in range(g.seats)], where(rc.span),
                      f"the seat recalling its {name} scores the points", facts)
        for p in range(g.seats):
            s2, b2 = z3.Int(f"supply'[{p}].{name}"), z3.Int(f"board'[{p}].{name}")
            one = z3.If(c == p, 1, 0)
            facts.append(Fact(z3.And(s2 == g.before.supply[(p, name)] + one, b2 == g.before.board[(p, name)] - one),
                              where(rc.span), f"the recalled {name} goes back to supply"))
            after.supply[(p, name)], after.board[(p, name)] = s2, b2
        show, inputs = _display(g, after, env.created, pts)
        out.append(RuleStep(f"recall {name} from a {kind}", where(rc.span), line_text(rc.span), cites(rc),
                        facts, after, {}, show, inputs, rc.span))
    return out


def award_step(g: SymGame, sname: str, aw: A.AwardDecl) -> RuleStep:
    facts = list(g.facts)
    env = g.env("")
    pts = z3.Int("points")
    facts.append(Fact(pts == encode(aw.value, env), where(aw.span), line_text(aw.span)))
    _domain(g.rs, None, env, facts)
    h = g.before.st[sname]
    after = g.before.copy()
    _fresh_scores(g, after, [z3.If(z3.And(h == p, p < g.players), pts, 0) for p in range(g.seats)], "engine",
                  f"the seat held in `{sname}` (if it is a seat) scores the points", facts)
    show, inputs = _display(g, after, env.created, pts)
    return RuleStep(f"award {sname} at end", where(aw.span), line_text(aw.span), cites(aw), facts, after, {}, show, inputs, aw.span)


def award_most_step(g: SymGame, sname: str, aw: A.AwardDecl) -> RuleStep:
    """`award most S at end = E`: every seat in the game whose value of S is the highest,
    when that is above 0, scores E (a tie: each of them)."""
    facts = list(g.facts)
    env = g.env("")
    pts = z3.Int("points")
    facts.append(Fact(pts == encode(aw.value, env), where(aw.span), line_text(aw.span)))
    _domain(g.rs, None, env, facts)
    vals = [g.before.st[seat_key(sname, p)] for p in range(g.seats)]
    top = z3.Int(f"most({sname})")
    n = g.players
    facts.append(Fact(z3.And(*[z3.Implies(p < n, top >= v) for p, v in enumerate(vals)],
                             z3.Or([z3.And(p < n, top == v) for p, v in enumerate(vals)])),
                      "engine", f"most({sname}) is the highest value of `{sname}` among the seats"))
    after = g.before.copy()
    _fresh_scores(g, after, [z3.If(z3.And(p < n, v == top, top > 0), pts, 0) for p, v in enumerate(vals)], "engine",
                  f"every seat with the most `{sname}` (above 0) scores the points", facts)
    show, inputs = _display(g, after, env.created, pts)
    show[f"most({sname})"] = top
    return RuleStep(f"award most {sname} at end", where(aw.span), line_text(aw.span), cites(aw), facts, after, {}, show,
                inputs, aw.span)


def on_step(g: SymGame, on: A.OnDecl, suffix: str = "") -> RuleStep:
    facts = list(g.facts)
    if on.event == "complete" and on.of is not None:
        env, f = _feature_env(g, on.of, "", facts, completing=True)
        # an `on complete` rule runs after the feature was scored and its figures with a `return ... when
        # scored` rule went home (language.md 2.16; runtime/scoring.py `_score_completed`): its `count(F)`
        # and `figures` read what stays there, none of the returning figures (the conformance check found
        # the model counting an abbot the engine had sent home)
        gone = set(g.rs.returns)
        _reads_figures(env, {k: v for k, v in f.items() if k[1] not in gone}, set(g.rs.corner_figures()))
    else:
        env = g.env("")
    step = encode_on(on, env, dict(g.before.st))
    if on.event == "complete" and on.of is not None:
        cf = _complete_fact(g.rs, on.of, env, True)  # the rule fires when the feature completes
        if cf is not None:
            facts.append(cf)
    _domain(g.rs, on.of if on.event == "complete" else None, env, facts)
    w, text = where(on.span), line_text(on.span)
    facts.append(Fact(step.legal, w, text + "   (its `require`s hold: an illegal placement never happens)"))
    after = g.before.copy()
    for k, v in step.after.items():
        if v is not g.before.st[k]:
            nv = z3.Int(k + "'" + suffix)
            facts.append(Fact(nv == v, w, f"{text}   (sets `{k}`)"))
            after.st[k] = nv
    show, inputs = _display(g, after, env.created)
    return RuleStep(describe_on(on), w, text, cites(on), facts, after, {}, show, inputs, on.span)


def initial_step(g: SymGame) -> RuleStep:
    rs = g.rs
    facts = list(g.facts)
    env = g.env("")
    s = g.before
    for name, fig in rs.figures.items():
        for p in range(g.seats):
            facts.append(Fact(z3.And(s.supply[(p, name)] == figure_count(g, name), s.board[(p, name)] == 0,
                                     s.held[(p, name)] == 0, s.outpost[(p, name)] == 0), where(fig.span),
                              f"{line_text(fig.span)}   (all in supply at the start)"))
    for p in range(g.seats):
        facts.append(Fact(s.score[p] == 0, "builtin", "every score starts at 0"))
    for k, v in s.done.items():
        facts.append(g.domain.completed_start(v, k))
    for k, sd in rs.states.items():
        init = encode(sd.init, env)
        for key in ([seat_key(k, p) for p in range(g.seats)] if sd.each else [k]):
            facts.append(Fact(s.st[key] == init, where(sd.span), line_text(sd.span)))
    _domain(rs, None, env, facts)
    show: dict[str, z3.ExprRef] = {}
    inputs: list[z3.ArithRef] = []
    _show_state(g, s, s, show, inputs)
    return RuleStep("initial state", "builtin", "", (), facts, s, {}, show, inputs)


def all_steps(g: SymGame) -> list[RuleStep]:
    rs = g.rs
    out: list[RuleStep] = []
    for name, fig in rs.figures.items():
        out.append(place_step(g, name, fig))
    for pm in rs.permits:
        if pm.mode == "allow" and pm.figure in rs.figures:
            out.append(place_step(g, pm.figure, rs.figures[pm.figure], pm))
    corner = set(rs.corner_figures())
    # one step per scoring event: the plain rule with the non-corner `by` rules of the same kind and moment
    # (a completion's is part of its completion step, completion_steps; the engine scores a completion's
    # `by` rules only where a plain `score K complete` exists)
    done: set[tuple[str, str]] = set()
    for decl in rs.all_scores():
        if decl.figure is not None or decl.by in corner:
            st = score_step(g, decl)
        else:
            key = (decl.kind, decl.when)
            if key in done or (decl.when == "complete" and decl.kind in rs.complete):
                continue
            done.add(key)
            st = score_step(g, rs.scores.get(key), by_rules(rs, *key))
        if st is not None:
            out.append(st)
    for name, rc in rs.recalls.items():
        out.extend(recall_steps(g, name, rc))
    for sname, aw in rs.awards.items():
        if sname in rs.states:
            out.append(award_most_step(g, sname, aw) if aw.most else award_step(g, sname, aw))
    for on in rs.ons:
        if on.event == "complete" and (on.of is None or on.of in rs.complete):
            continue  # part of a completion (completion_steps)
        out.append(on_step(g, on))
    out.extend(completion_steps(g))
    out.extend(capture_steps(g))
    if rs.ransom is not None:
        out.extend(ransom_steps(g))
    out.extend(outpost_steps(g))
    out.extend(draw_steps(g))
    out.extend(round_steps(g))
    return out


def round_label(on: A.OnRoundDecl) -> str:
    """The step's name: `on round end [CLAUSES]` (the conformance check finds it by its clause)."""
    cl = ", ".join(c.clause for c in on.cites)
    return "on round end" + (f" [{cl}]" if cl else "")


def round_steps(g: SymGame) -> list[RuleStep]:
    """`on round end [where C] { release FIGS }` (runtime/rounds.py): when C holds (the game context,
    `current` the seat whose turn ended the round), every seat's prisoners of FIGS go back to its
    supply: held'[p].F == 0, supply'[p].F == supply[p].F + held[p].F.  Where C does not hold nothing
    changes, which no invariant can break.  No point moves."""
    rs = g.rs
    out: list[RuleStep] = []
    for on in rs.all(A.OnRoundDecl):
        text, at = line_text(on.span), where(on.span)
        facts = list(g.facts)
        env = g.env("")
        if on.where is not None:
            facts.append(Fact(encode(on.where, env), at, f"{text}   (its condition holds)"))
        _domain(rs, None, env, facts)
        changes: dict = {}
        names = []
        for act in on.actions:
            if not isinstance(act, A.Release):
                continue
            for f in act.figures:
                if f not in rs.figures or f in names:
                    continue
                names.append(f)
                for p in range(g.seats):
                    h = g.before.held[(p, f)]
                    if z3.is_int_value(h):
                        continue  # never a prisoner (no `capture` takes it): nothing to release
                    changes = _sum_changes(changes, {("held", p, f): -h, ("supply", p, f): h})
        after = g.before.copy()
        _moves(g, after, "release", changes, at,
               f"{text}   (every prisoner of {', '.join(names) or 'these figures'} goes back to its owner's supply)", facts)
        show, inputs = _display(g, after, env.created)
        out.append(RuleStep(round_label(on), at, text, cites(on), facts, after, {}, show, inputs, on.span))
    return out


def draw_steps(g: SymGame) -> list[RuleStep]:
    """`on draw [of KINDS] { put catapult on symbols }`: a drawn tile with siege symbols puts their
    catapults on the outposts -- only a tile showing a feature of one of KINDS, with `of`.  The
    model holds no catapults (an attack, the catapult that overflows a slot, is the `on overflow`
    step), so the step moves no figure and no point; its fact is the tile set's answer to whether
    any tile can bring a catapult under the rule, so a rule no tile satisfies is a step that can
    never be taken (and a catapult the engine brings under it a model error)."""
    rs = g.rs
    out: list[RuleStep] = []
    for on in rs.track_ons:
        if on.event != "draw":
            continue
        text, at = line_text(on.span), where(on.span)
        bringers = sorted({t.name for t in rs.tiles if t.symbols and t.count > 0 and
                           (not on.shows or any(f.kind in on.shows for f in t.features))})
        what = (f"a drawn tile with siege symbols" + (f" that shows {' or '.join(on.shows)}" if on.shows else ""))
        facts = list(g.facts) + [Fact(z3.BoolVal(bool(bringers)), at,
                                      f"{text}   ({what}: " + (f"{len(bringers)} tile types, {', '.join(bringers[:4])}"
                                                              f"{', ...' if len(bringers) > 4 else ''})" if bringers
                                                              else "no tile of the rule set is one)"))]
        after = g.before.copy()
        show, inputs = _display(g, after)
        shows = f" of {', '.join(on.shows)}" if on.shows else ""
        out.append(RuleStep(f"on draw{shows}", at, text, cites(on), facts, after, {}, show, inputs, on.span))
    return out


def _name(v: z3.ExprRef) -> str:
    """A variable's name, as solver._symbols gives it (without z3's printer)."""
    return v.decl().name() if z3.is_const(v) and not z3.is_int_value(v) else str(v)


def _is_var(v) -> bool:
    return z3.is_const(v) and v.decl().kind() == z3.Z3_OP_UNINTERPRETED


def _state_terms(s: State) -> list:
    return [*s.supply.values(), *s.board.values(), *s.held.values(), *s.outpost.values(), *s.done.values(),
            *s.st.values(), *s.score]


def _written(before: State, after: State) -> list[tuple[z3.ExprRef, z3.ExprRef]] | None:
    """(variable, value written) for each state variable `after` changed; None when one of them is not a
    variable in `before` (a constant: a formula over `before` cannot be rewritten into one over `after`)."""
    pairs = []
    for part in ("supply", "board", "held", "outpost", "done", "st"):
        b, a = getattr(before, part), getattr(after, part)
        if a.keys() != b.keys():
            return None
        for k, v in b.items():
            w = a[k]
            if w is not v and not z3.eq(w, v):
                if not _is_var(v) or not z3.is_expr(w):
                    return None
                pairs.append((v, w))
    if len(before.score) != len(after.score):
        return None
    for v, w in zip(before.score, after.score):
        if w is not v and not z3.eq(w, v):
            if not _is_var(v) or not z3.is_expr(w):
                return None
            pairs.append((v, w))
    return pairs


def _substitution(pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> tuple:
    """z3's arrays of a substitution (what z3.substitute builds from its pairs, and checks: every pair is
    a variable and a term of its sort, as _written makes them), built once for all a step's invariants."""
    n = len(pairs)
    src, dst = (z3.z3.Ast * n)(), (z3.z3.Ast * n)()
    for i, (v, w) in enumerate(pairs):
        if not v.sort().eq(w.sort()):
            raise z3.Z3Exception('Z3 invalid substitution, mismatching "from" and "to" sorts.')
        src[i], dst[i] = v.as_ast(), w.as_ast()
    return n, src, dst, pairs  # the pairs kept alive with their arrays


def _substitute(t: z3.ExprRef, arrays: tuple) -> z3.ExprRef:
    """z3.substitute(t, *pairs) with the arrays of _substitution(pairs)."""
    n, src, dst, _ = arrays
    return z3.z3._to_expr_ref(z3.Z3_substitute(t.ctx.ref(), t.as_ast(), n, src, dst), t.ctx)


def _writes(before: State, after: State) -> set[str]:
    """The names of the state variables `after` changed."""
    out: set[str] = set()
    for part in ("supply", "board", "held", "outpost", "done", "st"):
        b, a = getattr(before, part), getattr(after, part)
        for k, v in b.items():
            if a[k] is not v:
                out.add(_name(v))
    out.update(_name(v) for v, w in zip(before.score, after.score) if v is not w)
    return out


def completion_steps(g: SymGame) -> list[RuleStep]:
    """A feature of kind K completes: one step chaining what the engine does then
    (runtime/scoring.py `_score_completed`), in its order: completed(K) counts it, its owners
    score `score K complete`, figures with `return ... when scored` go home, and every
    `on complete of K` rule runs in file order, each reading the state the one before left.
    Only the state after the whole chain need satisfy the invariants (in the middle the count
    is ahead of what an `on complete` rule keeps of it, for instance)."""
    from dataclasses import replace

    rs = g.rs
    out: list[RuleStep] = []
    for kind in rs.complete:
        counted = g.before.copy()
        v = z3.Int(f"completed({kind})'")
        counted.done[kind] = v
        facts = list(g.facts) + [g.domain.completed_step(g.before.done[kind], v, kind, True)]
        base_ids = {id(f) for f in g.facts}
        members: list[tuple[str, str, str, A.Span | None, set[str]]] = [
            (f"a {kind} completes", "engine", f"completed({kind}) counts it", None, {str(g.before.done[kind])})]
        show: dict[str, z3.ExprRef] = {}
        inputs: list[z3.ArithRef] = []
        claims: dict[str, z3.BoolRef] = {}
        cites_: list = []
        state = counted
        decl = rs.scores.get((kind, "complete"))
        if decl is not None:
            st = score_step(replace(g, before=state), decl, by_rules(rs, kind, "complete"))
            if st is not None:
                facts += [f for f in st.facts if id(f) not in base_ids]
                members.append((st.rule, st.where, st.text, st.span, _writes(state, st.after)))
                show.update(st.show)
                inputs += st.inputs
                claims.update(st.claims)
                cites_ += list(st.clauses)
                state = st.after
        ons = [on for on in rs.ons if on.event == "complete" and on.of in (kind, None)]
        for i, on in enumerate(ons):
            st = on_step(replace(g, before=state), on, f"#{i + 1}" if i + 1 < len(ons) else "")
            # the feature's figures were bounded by the board before its scoring sent them home; bounding
            # the same variables again by the board after it made the step impossible whenever a figure
            # went home (found by the conformance check, verifier/conformance.py)
            bounded = {f.text for f in facts if f.where == "builtin" and " on the " in f.text and " are among its " in f.text}
            facts += [f for f in st.facts if id(f) not in base_ids and not (f.where == "builtin" and f.text in bounded)]
            members.append((st.rule, st.where, st.text, st.span, _writes(state, st.after)))
            show.update(st.show)
            inputs += st.inputs
            cites_ += list(st.clauses)
            state = st.after
        _show_state(g, g.before, state, show, inputs)
        last = members[-1]
        out.append(RuleStep(last[0] if len(members) == 2 else (f"a {kind} completes" if len(members) == 1 else last[0]),
                        last[1], last[2], tuple(dict.fromkeys(cites_)), facts, state, claims, show,
                        list({t.get_id(): t for t in inputs}.values()), last[3], members=members))
    return out


def outpost_steps(g: SymGame) -> list[RuleStep]:
    """The outposts (Siege and Defense).  `on put ... { may put F on row|pool }`: the current seat
    moves one F from supply to an outpost.  `on full|overflow|end of T { ... }`: one step per
    rule and outpost, its actions in order -- `score each E` (every seat scores E, `own` being its
    figures on the outpost), `remove 1 of FIGS where C` (a seat for which C holds may take one of
    its FIGS off the board, back to supply), `return FIGS from outpost` (back to supply)."""
    rs = g.rs
    out: list[RuleStep] = []
    c, seats = g.current, range(g.seats)
    for op in rs.outpost_puts:
        if op.figure not in rs.figures:
            continue
        text, at = line_text(op.span), where(op.span)
        facts = list(g.facts) + [Fact(z3.Or([z3.And(c == p, g.before.supply[(p, op.figure)] >= 1) for p in seats]),
                                      "engine", f"the {op.figure} comes from the acting seat's supply")]
        after = g.before.copy()
        changes = {}
        for p in seats:
            changes[("supply", p, op.figure)] = z3.If(c == p, -1, 0)
            changes[("outpost", p, op.figure)] = z3.If(c == p, 1, 0)
        _moves(g, after, "outpost", changes, at, f"{text}   (one {op.figure} from supply to the outpost's {op.slot})",
               facts)
        show, inputs = _display(g, after)
        out.append(RuleStep(f"put {_a(op.figure)} on an outpost's {op.slot}", at, text, cites(op), facts, after, {}, show,
                        inputs, op.span))
    for on in rs.track_ons:
        if on.event == "draw" or not on.tracks:
            continue  # a catapult moves no figure and no point
        text, at = line_text(on.span), where(on.span)
        facts = list(g.facts)
        # x[(p, f)]: seat p's f figures on this outpost, among its figures on all outposts
        x = {}
        for p in seats:
            for f in rs.figures:
                v = z3.Int(f"on_outpost[{p}].{f}")
                x[(p, f)] = v
                facts.append(Fact(z3.And(v >= 0, v <= g.before.outpost[(p, f)], z3.Implies(p >= g.players, v == 0)),
                                  "builtin", f"seat {p}'s {f}s on this outpost are among its {f}s on outposts"))
        own = [z3.Sum([x[(p, f)] for f in rs.figures]) if rs.figures else z3.IntVal(0) for p in seats]
        if on.event == "full":  # the row has just filled: the outpost holds the figures that filled it
            env = g.env("")
            facts.extend(g.domain.full_row(on.tracks, z3.Sum(own) if own else z3.IntVal(0),
                                           lambda tr: encode(tr.row_expr, env) if tr.row_expr is not None
                                           else z3.IntVal(tr.row)))
        for p in seats:
            facts.extend(g.domain.quantity("own", own[p], None, None))  # the domain's facts of `own`
        after = g.before.copy()
        gains = [z3.IntVal(0) for _ in seats]
        changes: dict = {}
        created: dict = {}
        # what is still on this outpost as the actions run: a `return` takes the figures that are there,
        # so a second `return` of the same figures finds none (as the engine does; issue 22 item 3), and
        # `own` after it counts what is left
        left = dict(x)
        for k, act in enumerate(on.actions):
            own = [z3.Sum([left[(p, f)] for f in rs.figures]) if rs.figures else z3.IntVal(0) for p in seats]
            if isinstance(act, A.ScoreEach):
                for p in seats:
                    env = g.env(f".{p}")
                    env.names["own"] = own[p]
                    pts = z3.Int(f"points[{p}]#{k}")
                    facts.append(Fact(pts == encode(act.value, env), at, f"{line_text(act.span)}   (seat {p})", seat=p))
                    _domain(rs, None, env, facts)
                    created[f"points[{p}]"] = pts
                    gains[p] = gains[p] + z3.If(p < g.players, pts, 0)
            elif isinstance(act, A.RemoveFigures):
                for p in seats:
                    env = g.env(f".{p}")
                    env.names["own"] = own[p]
                    cond = encode(act.where, env) if act.where is not None else z3.BoolVal(True)
                    _domain(rs, None, env, facts)
                    rm = []
                    for f in act.figures:
                        if f not in rs.figures:
                            continue
                        r = z3.Int(f"removed[{p}].{f}#{k}")
                        rm.append(r)
                        facts.append(Fact(z3.And(r >= 0, r <= g.before.board[(p, f)] + changes.get(("board", p, f), 0)),
                                          "engine", f"seat {p} removes only {f}s it has on the board"))
                        changes = _sum_changes(changes, {("board", p, f): -r, ("supply", p, f): r})
                    if rm:
                        facts.append(Fact(z3.Sum(rm) <= z3.If(z3.And(cond, p < g.players), act.count, 0), at,
                                          f"{line_text(act.span)}   (seat {p}: at most {act.count}, only where it holds)",
                                          seat=p))
            elif isinstance(act, A.ReturnFrom):
                for p in seats:
                    for f in act.figures:
                        if f in rs.figures:
                            changes = _sum_changes(changes, {("outpost", p, f): -left[(p, f)],
                                                             ("supply", p, f): left[(p, f)]})
                            left[(p, f)] = z3.IntVal(0)
        _fresh_scores(g, after, gains, at, f"{text}   (every seat scores)", facts)
        _moves(g, after, on.event, changes, at, f"{text}   (figures move)", facts)
        # the outposts a rule names differ only in their names here: one step stands for them all
        show, inputs = _display(g, after, created)
        for (p, f), v in x.items():
            show[f"on_outpost[{p}].{f}"] = v
            inputs.append(v)
        out.append(RuleStep(f"on {on.event} of {', '.join(on.tracks)}", at, text, cites(on), facts, after, {}, show, inputs,
                        on.span))
    return out


def _moves(g: SymGame, after: State, label: str, changes: dict, why: str, text: str, facts: list[Fact]) -> None:
    """Fresh after-variables for the (part, seat, figure) entries changed by `changes`: part is
    supply | board | held, each change a z3 term added to the before-value."""
    for (part, p, name), delta in changes.items():
        before = getattr(g.before, part)[(p, name)]
        v = z3.Int(f"{part}'[{p}].{name}")
        facts.append(Fact(v == before + delta, why, text))
        getattr(after, part)[(p, name)] = v


def capture_steps(g: SymGame) -> list[RuleStep]:
    """A capture (TOWER-CAPTURE-1): the current player takes a figure of seat v off the board.  Own:
    back to supply.  Another's: held as a prisoner, or, with `exchange prisoners`, swapped at once
    for one of the capturer's that v holds (TOWER-SWAP-1)."""
    rs = g.rs
    out: list[RuleStep] = []
    c, seats = g.current, range(g.seats)
    for cap in rs.captures.values():
        text, at = line_text(cap.span), where(cap.span)
        names = [f for f in cap.figures if f in rs.figures]
        for name in names:
            v = z3.Int("victim")
            base = list(g.facts) + [Fact(z3.And(v >= 0, v < g.players), "engine", "the victim is a seat of the game"),
                                    Fact(z3.Or([z3.And(v == p, g.before.board[(p, name)] >= 1) for p in seats]),
                                         "engine", f"{_a(name)} of the victim stands on the board in range")]
            outcomes = [("own", [Fact(v == c, at, f"{text}   (one's own {name} goes back to supply)")],
                         lambda p: {("board", p, name): z3.If(v == p, -1, 0), ("supply", p, name): z3.If(v == p, 1, 0)}),
                        ("prisoner", [Fact(v != c, at, f"{text}   (an opponent's {name} is held by the capturer)")],
                         lambda p: {("board", p, name): z3.If(v == p, -1, 0), ("held", p, name): z3.If(v == p, 1, 0)})]
            if rs.exchange is not None:
                for back in names:
                    outcomes.append((f"exchange for {_a(back)}", [
                        Fact(v != c, at, text),
                        Fact(z3.Or([z3.And(c == p, g.before.held[(p, back)] >= 1) for p in seats]), where(rs.exchange.span),
                             f"{line_text(rs.exchange.span)}   (the victim holds {_a(back)} of the capturer's)")],
                        lambda p, back=back: _sum_changes(
                            {("board", p, name): z3.If(v == p, -1, 0), ("supply", p, name): z3.If(v == p, 1, 0)},
                            {("held", p, back): z3.If(c == p, -1, 0), ("supply", p, back): z3.If(c == p, 1, 0)})))
            for label, extra, change in outcomes:
                facts = base + extra
                after = g.before.copy()
                changes: dict = {}
                for p in seats:
                    changes = _sum_changes(changes, change(p))
                _moves(g, after, label, changes, "engine", f"capture ({label})", facts)
                show, inputs = _display(g, after)
                show["victim"] = v
                out.append(RuleStep(f"capture {_a(name)} ({label})", at, text, cites(cap), facts, after, {}, show, inputs, cap.span))
    return out


def _a(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _sum_changes(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, d in b.items():
        out[k] = out[k] + d if k in out else d
    return out


def ransom_steps(g: SymGame) -> list[RuleStep]:
    """A ransom (TOWER-RANSOM-1): the current player pays seat h the price and takes back an own
    figure h holds, if the rule's condition holds (`points`: the payer's score)."""
    rs = g.rs
    rn = rs.ransom
    out: list[RuleStep] = []
    c, seats = g.current, range(g.seats)
    text, at = line_text(rn.span), where(rn.span)
    for name in [f for f in rn.figures if f in rs.figures]:
        facts = list(g.facts)
        env = g.env("")
        env.names["points"] = z3.Sum([z3.If(c == p, g.before.score[p], 0) for p in seats])
        h = z3.Int("holder")
        price = z3.Int("price")
        facts.append(Fact(z3.And(h >= 0, h < g.players, h != c), "engine", "the holder is another seat of the game"))
        facts.append(Fact(z3.Or([z3.And(c == p, g.before.held[(p, name)] >= 1) for p in seats]), "engine",
                          f"another player holds {_a(name)} of the payer's"))
        facts.append(Fact(price == encode(rn.price, env), at, text))
        if rn.when is not None:
            facts.append(Fact(encode(rn.when, env), at, text))
        _domain(rs, None, env, facts)
        after = g.before.copy()
        changes = {}
        for p in seats:
            changes[("held", p, name)] = z3.If(c == p, -1, 0)
            changes[("supply", p, name)] = z3.If(c == p, 1, 0)
        _moves(g, after, "ransom", changes, "engine", f"the ransomed {name} goes back to its owner's supply", facts)
        _fresh_scores(g, after, [z3.If(c == p, -price, 0) + z3.If(h == p, price, 0) for p in seats], at,
                      f"{text}   (the payer pays the holder)", facts)
        show, inputs = _display(g, after, env.created)
        show["points"] = env.names["points"]  # `points` is the payer's score (docs/verifier.md), not the price
        show["price"] = price
        show["holder"] = h
        out.append(RuleStep(f"ransom {_a(name)}", at, text, cites(rn), facts, after, {}, show, inputs, rn.span, transfer=True))
    return out


# ------------------------------------------------------------------- checks
def _formula_checks(rs: RuleSet, inv: Invariant) -> list[InvariantCheck]:
    """Each scoring formula is monotone in every size quantity it reads."""
    out: list[InvariantCheck] = []
    formulas: list[tuple[str, A.Expr, object, str | None, bool]] = []
    for d in rs.all_scores():
        formulas.append((f"score {d.kind} {d.when}" + (f" by {d.by}" if d.by else ""), d.value, d, d.kind, d.when == "complete"))
    for name, rc in rs.recalls.items():
        formulas.append((f"recall {name}", rc.value, rc, None, False))
    for name, aw in rs.awards.items():
        formulas.append((f"award {name} at end", aw.value, aw, None, False))
    dom = Domain(rs)  # one for all: what it knows of the tile set is worked out once
    for label, expr, decl, kind, complete in formulas:
        for q in SIZE_QUANTITIES + tuple(f"completed({k})" for k in rs.features):
            env1 = Env(tag="", domain=dom, kind=kind)
            facts: list[Fact] = []
            try:
                v1 = encode(expr, env1)
            except EncodeError:
                continue
            if q not in env1.names:
                continue
            base_names = dict(env1.names)
            d = z3.Int("more")
            q2 = z3.Int(f"{q}'")
            env2 = Env(tag="'")
            env2.names.update(base_names)
            env2.names[q] = q2
            v2 = encode(expr, env2)
            facts += env1.facts
            lo_hi = [f for f in env1.facts if _printed(env1.names[q]) in _printed(f.term)]
            for f in lo_hi:
                facts.append(Fact(z3.substitute(f.term, (env1.names[q], q2)), f.where, f.text + " (after)"))
            facts.append(Fact(z3.And(d >= 0, q2 == env1.names[q] + d), "builtin", f"{q} grows by `more` >= 0"))
            if kind is not None:
                if complete and kind in rs.complete:
                    for e in (env1, env2):
                        try:
                            facts.append(Fact(encode(rs.complete[kind].when, e), where(rs.complete[kind].span),
                                              line_text(rs.complete[kind].span)))
                        except EncodeError:
                            pass
            pts1, pts2 = z3.Int("points"), z3.Int("points'")
            facts.append(Fact(z3.And(pts1 == v1, pts2 == v2), where(decl.span), line_text(decl.span)))
            show = {n: t for n, t in env1.names.items() if z3.is_int(t)}
            show[f"{q}'"] = q2
            show["points"], show["points'"] = pts1, pts2
            res = prove(pts2 >= pts1, facts, show, minimize=[t for t in show.values() if z3.is_int_value(t) is False])
            out.append(InvariantCheck(inv, f"{label}: more {q}", where(decl.span), line_text(decl.span), res, decl.span))
    return out


_PRINTED: dict[int, tuple[str, z3.ExprRef]] = {}  # a term's id -> (z3's print of it, the term kept alive)


def _printed(t: z3.ExprRef) -> str:
    """str(t), printed once per term: the formula checks ask it of the same domain facts for every
    quantity of every formula (z3's printer is Python, and costs more than the checks' proofs)."""
    hit = _PRINTED.get(t.get_id())
    if hit is None:
        if len(_PRINTED) > 4096:
            _PRINTED.clear()
        hit = _PRINTED[t.get_id()] = (str(t), t)
    return hit[0]


def _reported_at(g: SymGame, step: RuleStep, inv: Invariant, reads_of: dict | None = None
                 ) -> tuple[str, str, str, A.Span | None]:
    """Where a check of `step` is reported: the step's rule; for a completion (several rules
    chained), the last of its rules that writes a variable the invariant reads (the score rule
    for a feature claim), or its last rule.  `reads_of`: what each invariant reads, by id, worked
    out once for all the steps (it depends on the invariant alone)."""
    if not step.members:
        return step.rule, step.where, step.text, step.span
    if inv.kind == "feature":
        hit = [m for m in step.members if m[0].startswith("score ")]
    else:
        reads = None if reads_of is None else reads_of.get(inv.id)
        if reads is None:
            b = g.before
            reads = _symbols(inv.pred(g, b) if inv.kind == "state" else inv.pred(g, b, b)) if inv.pred else set()
            if reads_of is not None:
                reads_of[inv.id] = reads
        hit = [m for m in step.members if m[4] & reads]
    m = (hit or step.members)[-1]
    return m[0], m[1], m[2], m[3]


def check_invariants(rs: RuleSet, feature_lemmas: list | None = None, extra: list[Invariant] = (),
                     minimize: bool = True, only: set | None = None) -> list[InvariantCheck]:
    """Every invariant's induction steps and formula checks; with `feature_lemmas` assumed of every feature
    scored, and `extra` (candidate state lemmas) proved as invariants beside the others.  `minimize`: a
    counterexample is the smallest one (a costly optimization: left out while lemmas are searched);
    `only`: check just these (invariant id, step) pairs (the formula checks too when it holds "formula")."""
    g = SymGame.make(rs)
    for lem in feature_lemmas or ():
        g.lemmas.setdefault(lem.kind, []).append(lem)
    invs = builtin_invariants(rs, g) + declared_invariants(rs) + list(extra)
    state_invs = [i for i in invs if i.kind == "state"]
    pre = [Fact(i.pred(g, g.before), i.where, f"before the step: {i.title}", assumed=True) for i in state_invs]
    out: list[InvariantCheck] = []
    before_pred = {i.id: f.term for i, f in zip(state_invs, pre)}
    simplified: dict[str, z3.ExprRef] = {}

    def simple_before(iid: str) -> z3.ExprRef:
        if iid not in simplified:
            simplified[iid] = z3.simplify(before_pred[iid])
        return simplified[iid]

    state_vars = {v.decl().name() for v in [*_state_terms(g.before), g.players, g.current] if _is_var(v)}
    reads_of: dict[str, set[str]] = {iid: _symbols(t) for iid, t in before_pred.items()}  # what each reads
    rewritable = {iid: reads_of[iid] <= state_vars for iid in before_pred}

    def after_pred(inv: Invariant, after: State, written: list) -> z3.BoolRef | None:
        """The invariant on the state after a step: its formula on the state before with each variable the
        step wrote replaced by the value it wrote (one z3 call instead of the formula built again, for
        every invariant and step).  Built again where that is not the same: a formula that names more than
        the state's variables (a quantity its encoding made of the state before), or a state before that
        holds a value where the step writes.  `written`: the step's substitution, worked out on first use
        ([] before; then [pairs or None, and z3's arrays of them])."""
        if not rewritable[inv.id]:
            return inv.pred(g, after)
        if not written:
            pairs = _written(g.before, after)
            written += [pairs, _substitution(pairs) if pairs else None]
        pairs, arrays = written
        if pairs is None:
            return inv.pred(g, after)
        return _substitute(before_pred[inv.id], arrays) if pairs else None

    init = initial_step(g)
    for inv in state_invs:
        if only is not None and (inv.id, "initial state") not in only and (inv.id, "*") not in only:
            continue
        claim = inv.pred(g, init.after)
        res = prove(claim, init.facts + g.sink, {**init.show, **g.game_vars},
                    init.inputs + list(g.game_vars.values()) if minimize else ())
        out.append(InvariantCheck(inv, "initial state", "builtin", "", res, step="initial state"))
    for step in all_steps(g):
        facts = step.facts + pre
        claims: dict[str, z3.BoolRef] = {}
        written: list = []
        for inv in invs:
            if only is not None and (inv.id, step.rule) not in only and (inv.id, "*") not in only:
                continue
            if inv.kind == "state":
                claim = after_pred(inv, step.after, written)
                if claim is None:  # the step writes none of the invariant's variables
                    claim = before_pred[inv.id]
                if z3.eq(z3.simplify(claim), simple_before(inv.id)):
                    # the step leaves every variable of the invariant alone: it holds after as before
                    res = Result(Verdict.PROVED, used=[f for f in pre if f.where == inv.where and f.text.endswith(inv.title)])
                    rule, at, text, span = _reported_at(g, step, inv, reads_of)
                    out.append(InvariantCheck(inv, rule, at, text, res, span, step=step.rule))
                    continue
            elif inv.kind == "step":
                if step.transfer and inv.id == "score-never-decreases":
                    continue  # the one kind of rule allowed to lower a score; "no score below 0" still holds it
                claim = inv.pred(g, g.before, step.after)
            elif inv.kind == "feature" and inv.id in step.claims:
                claim = step.claims[inv.id]
            else:
                continue
            claims[inv.id] = claim
        if not claims:
            continue
        results = prove_all(claims, facts + g.sink, {**step.show, **g.game_vars},
                            step.inputs + list(g.game_vars.values()) if minimize else ())
        byid = {i.id: i for i in invs}
        for iid, res in results.items():
            rule, at, text, span = _reported_at(g, step, byid[iid], reads_of)
            out.append(InvariantCheck(byid[iid], rule, at, text, res, span, step=step.rule))
    for inv in invs:
        if inv.kind == "formula" and (only is None or "formula" in only):
            out.extend(_formula_checks(rs, inv))
    return out


# ------------------------------------------------------------------ reports
def format_model(model: dict[str, int | bool]) -> list[str]:
    """A counterexample, readably: the quantities, then each seat whose numbers matter."""
    if not model:
        return []
    n = int(model.get("players", 0) or 0)
    head = []
    if "players" in model:
        head += [f"players={n}", f"current=seat {model.get('current')}"]
    for k, v in model.items():
        if "[" in k or k in ("players", "current") or k.endswith("'") and k[:-1] in model:
            continue
        after = model.get(k + "'")
        if after is None or after == v:  # every input is shown, changed or not
            head.append(f"{k}={v}")
        else:
            head.append(f"{k} {v} -> {after}")
    lines = [", ".join(head)] if head else []
    for p in range(max(n, 0)):
        parts = []
        for k, v in model.items():
            if f"[{p}]" not in k or f"'[{p}]" in k:
                continue
            base = k.replace(f"[{p}]", "")
            after = model.get(k.replace(f"[{p}]", f"'[{p}]"))
            if after is not None and after != v:
                parts.append(f"{base} {v} -> {after}")
            elif base.startswith("on_feature"):
                if v:
                    parts.append(f"{base.replace('on_feature.', '')}s on the feature: {v}")
            elif not base.startswith("returned"):
                parts.append(f"{base} {v}")
        if parts:
            lines.append(f"seat {p}: " + ", ".join(parts))
    return lines


def summarize(checks: list[InvariantCheck], searches: dict | None = None) -> dict[str, int]:
    """Counts of the three verdicts (and inconclusive): a z3 refutation is *refuted* only with a
    witness game in `searches` (when a search ran), *not proved* otherwise."""
    out = {"proved": 0, "refuted": 0, "not proved": 0, "inconclusive": 0}
    for c in checks:
        if c.result.refuted and searches is not None and not _witnessed(c, searches):
            out["not proved"] += 1
        else:
            out[str(c.result.verdict)] += 1
    return out


def _witnessed(c: InvariantCheck, searches: dict | None) -> bool:
    """A z3 refutation stands as *refuted* when a game breaks it (or when no search was asked for)."""
    if not c.result.refuted:
        return False
    if searches is None:
        return True
    found = searches.get(id(c))
    return found is not None and found.witness is not None


def _not_reached(found) -> str:
    if found.note:
        return f"not reached by any game tried: {found.note}; z3's state below breaks the induction step"
    return (f"not reached by any game tried: {found.games} games of the compiled engine (half of them with "
            f"{found.players} players, steered toward this rule; `tessera verify --witness-games N` plays more) "
            f"never broke it")


_STATE_NAMES: dict = {}  # "names": the state variables of the rule set being reported (what an invariant may read)


def _hint(c: InvariantCheck) -> str:
    """An invariant that would exclude z3's state: the values the state shows, stated as a claim to add."""
    m = c.result.model
    if c.invariant.kind == "formula":
        return ("hint: the formula gives less for more of a quantity; if that is meant, no invariant is broken "
                "by it alone, but the scores it gives are, if a game reaches them")
    # only what an `invariant` may read (a state, completed(KIND)): a feature's quantities (neighbours,
    # count(floor)) have no meaning there, so a hint naming them would be one the language refuses
    states = _STATE_NAMES.get("names", set())
    before = [(k, v) for k, v in m.items() if isinstance(v, int) and not k.endswith("'")
              and (k in states or k.startswith("completed("))]
    if before:
        k, v = before[0]
        return (f"hint: no lemma the verifier tried excludes this state; if no game reaches it, state why as an "
                f"invariant that excludes it (for instance one about `{k}`, here {v}), and verify again")
    return ""


# --------------------------------------------------------------- registry
def _detail(c: InvariantCheck) -> list[str]:
    r = c.result
    if r.refuted:
        out = ["counterexample: " + "; ".join(format_model(r.model))]
        seen = []
        players = r.model.get("players")
        for f in r.used:
            d = f"{f.where}: {f.text}"
            if f.seat is not None and isinstance(players, int) and f.seat >= players:
                continue  # a seat nobody sits in, in this counterexample
            if f.where != "builtin" and d not in seen:
                seen.append(d)
        return out + [f"involves {d}" for d in seen]
    if _voided(c):
        return [f"unknown: {r.reason}; a proof about the model would not be about the engine's game"]
    return [f"inconclusive, not a pass: {r.reason}"]


def diagnostics(rs: RuleSet, checks: list[InvariantCheck], seconds: float, searches: dict | None = None) -> list[Diagnostic]:
    """One error per check not proved: *refuted* only with a game that breaks it (`searches`, by
    id(check): tessera.verifier.witness.Search), *not proved* when z3 breaks the induction step but no game
    tried reaches that state, *inconclusive* when z3 gave up."""
    out: list[Diagnostic] = []
    for c in checks:
        if c.result.proved:
            continue
        span = c.span or c.invariant.span or (rs.modules[0].span if rs.modules else A.Span())
        found = searches.get(id(c)) if searches is not None else None
        extra: list[str] = []
        if _witnessed(c, searches):
            verdict = "is refuted"
            if found is not None:
                extra = found.witness.lines()
        elif c.result.refuted:
            verdict = "is not proved"
            _STATE_NAMES["names"] = set(rs.states)
            extra = [x for x in (_not_reached(found), _hint(c)) if x] if found is not None else []
        elif _voided(c):
            verdict = "is unknown"
        else:
            verdict = "is inconclusive"
        head = (f"invariant `{c.invariant.id}` [{', '.join(c.invariant.clauses)}] {verdict} for {c.rule}: "
                f"{c.invariant.title}")
        det = _detail(c)
        if c.result.refuted and found is not None and found.witness is None:
            det[0] = det[0].replace("counterexample: ", "z3's state that breaks the induction step: ", 1)
        out.append(Diagnostic(span, "\n    ".join([head] + extra + det), "invariant"))
    n = summarize(checks, searches)
    order: dict[str, list[InvariantCheck]] = {}
    for c in checks:
        order.setdefault(c.invariant.id, []).append(c)
    voided = sum(1 for c in checks if _voided(c))
    lines = [f"{len(order)} invariants, {len(checks)} induction steps and formula checks: {n['proved']} proved, "
             f"{n['refuted']} refuted (a game breaks it), {n['not proved']} not proved (no game tried breaks it), "
             f"{n['inconclusive'] - voided} inconclusive" + (f", {voided} unknown (the model disagrees with the engine)"
                                                             if voided else "")]
    for iid, cs in order.items():
        inv = cs[0].invariant
        ok = sum(1 for c in cs if c.result.proved)
        tag = "proved" if ok == len(cs) else ("REFUTED" if any(_witnessed(c, searches) for c in cs) else
                                              "UNKNOWN" if any(_voided(c) for c in cs) else
                                              "NOT PROVED" if any(c.result.refuted for c in cs) else "INCONCLUSIVE")
        lines.append(f"{tag:<12} {iid} [{', '.join(inv.clauses)}]: {ok} of {len(cs)} rules")
    hit = LEMMAS_USED.get(id(rs))
    lemmas = hit[1] if hit is not None and hit[0] is rs else []
    if lemmas:
        lines.append("proved with lemmas the verifier found (inductive together with the invariants): " +
                     "; ".join(lemmas))
    if rs.modules:
        out.append(Diagnostic(rs.modules[0].span, "\n    ".join(lines), "invariant", "note"))
    return out


def _clauses(rs: RuleSet) -> list[str]:
    out = ["BASE-COMP-2", "BASE-FOLLOW-3", "BASE-SCORE-1", "BASE-SCORE-2", "BASE-SCORE-3"]
    for inv in rs.invariants:
        out += [c.clause for c in inv.cites]
    for aw in rs.awards.values():
        out += [c.clause for c in aw.cites]
    for name in rs.corner_figures():
        out += [c.clause for c in rs.figures[name].cites[:1]]
    for s in rs.trigger_scores.values():
        out += [c.clause for c in s.cites[:1]]
    return list(dict.fromkeys(out))


LEMMA = "lemma"  # Invariant.where of a candidate state lemma, Fact.where of a per-feature lemma
HOUDINI_ROUNDS = 4


def _failing(c: InvariantCheck) -> bool:
    return c.result.refuted and c.invariant.kind in ("state", "step", "feature")


def strengthen(rs: RuleSet, checks: list[InvariantCheck]) -> tuple[list[InvariantCheck], list[str]]:
    """Induction broken on a state that may be unreachable: strengthen it with lemmas the verifier finds
    (verifier/lemmas.py, Houdini) and check again.  Returns the checks (a check proved before stays as it
    was; one broken before takes its new result) and the lemmas the new proofs used, in words."""
    from .lemmas import feature_lemmas, state_candidates

    if not any(_failing(c) for c in checks):
        return checks, []
    failing = {(c.invariant.id, c.step) for c in checks if _failing(c)}

    def minimized(out: list[InvariantCheck], fl=(), cands=()) -> list[InvariantCheck]:
        """The checks still broken, again with their smallest counterexample (the search went without)."""
        again = {(c.invariant.id, c.step) for c in out if _failing(c)}
        if not again:
            return out
        redo = {(c.invariant.id, c.step, c.rule): c for c in check_invariants(rs, list(fl), list(cands), only=again)}
        return [redo.get((c.invariant.id, c.step, c.rule), c) if _failing(c) else c for c in out]
    fl = feature_lemmas(rs)
    cands = []
    for text, expr in state_candidates(rs):
        def pred(g: SymGame, s: State, expr=expr):
            return encode(expr, g.env("", s))
        cands.append(Invariant(f"lemma {text}", text, (), LEMMA, "state", pred))
    if not fl and not cands:
        return minimized(checks), []
    res: list[InvariantCheck] = []
    for _ in range(HOUDINI_ROUNDS):
        # a check proved before stays proved with more assumed: only the broken ones and the candidates are asked
        res = check_invariants(rs, fl, cands, minimize=False, only=failing | {(i.id, "*") for i in cands})
        bad = {c.invariant.id for c in res if c.invariant.where == LEMMA and not c.result.proved}
        if not bad:
            break
        cands = [i for i in cands if i.id not in bad]
    else:
        return minimized(checks), []  # no subset found inductive within the rounds: the checks stay as they were
    new = {(c.invariant.id, c.step, c.rule): c for c in res if c.invariant.where != LEMMA}
    out, used = [], []
    for c in checks:
        n = new.get((c.invariant.id, c.step, c.rule))
        if c.result.proved or n is None or not n.result.proved:
            out.append(c)
            continue
        out.append(n)
        for f in n.result.used:
            if f.where == LEMMA:
                t = f.text.split("   (")[0]
                used.append(t[len("before the step: "):] if t.startswith("before the step: ") else t)
    return minimized(out, fl, cands), list(dict.fromkeys(used))


def same_step(step: str, label: str) -> bool:
    """Is the model's step `step` (RuleStep.rule) the rule a conformance label names (`place a
    follower` names `place a follower on tower (allow)` too; `capture`, every capture step)?"""
    return bool(label) and (step == label or step.startswith(label + " ") or step.startswith(label + "("))


def void_by_model(checks: list[InvariantCheck], errors, searches: dict | None = None) -> int:
    """A model error (the engine made a move the model calls impossible, verifier/conformance.py)
    voids every verdict that used an erring step: proved or not, it is *unknown* -- a proof about
    another game than the engine's proves nothing.  A refutation with a game stays: the game is the
    engine's.  `errors`: (the labels of the rules that fired, the error's text).  Returns how many."""
    n = 0
    for c in checks:
        if not c.step or _witnessed(c, searches):
            continue
        for labels, text in errors:
            hit = next((lab for lab in labels if same_step(c.step, lab)), None)
            if hit is not None:
                c.result = Result(Verdict.INCONCLUSIVE, reason=f"{MODEL_DISAGREES} {hit} ({text})")
                n += 1
                break
    return n


def _voided(c: InvariantCheck) -> bool:
    return c.result.verdict is Verdict.INCONCLUSIVE and c.result.reason.startswith(MODEL_DISAGREES)


# Games of the rule set's engine held against the model while the invariants are checked: fn(rs) -> the
# model errors found, as (rules that fired, text).  The engine check registers its few games of a house
# rule under --no-engine (verifier/engine_check.py); nothing here plays a game.
MODEL_SAMPLES: list = []


def model_sample(fn):
    """Register fn(rs) -> [(rules that fired, text)]: model errors of games held against the model, asked
    by the invariants check before it words its verdicts (a model error voids those of its step)."""
    MODEL_SAMPLES.append(fn)
    return fn


LEMMAS_USED: dict = {}  # id(rule set) -> the lemmas its proofs used (the summary prints them)
LAST: dict = {}  # id(rule set) -> (rule set, checks, searches, seconds): the engine check's model errors void them


@register("invariants", _clauses, applies=lambda rs: bool(rs.figures or rs.scores or rs.invariants))
def invariants(rs: RuleSet) -> list[Diagnostic]:
    """Invariants hold rule by rule (z3 induction): figures conserved, no negative supply or score, fair ties."""
    import time

    from .witness import search_all

    t0 = time.perf_counter()
    # a broken step: lemmas found, and checked again (its smallest counterexample worked out only if still broken)
    checks, lemmas = strengthen(rs, check_invariants(rs, minimize=False))
    LEMMAS_USED.clear()
    LEMMAS_USED[id(rs)] = (rs, lemmas)
    searches = search_all(rs, checks)  # refuted only with a game that breaks it (verifier/witness.py)
    for sample in MODEL_SAMPLES:  # --no-engine: a house rule's few games held against the model
        errors = sample(rs)
        if errors:
            void_by_model(checks, errors, searches)
    LAST.clear()
    LAST[id(rs)] = (rs, checks, searches, time.perf_counter() - t0)
    return degenerate(rs) + diagnostics(rs, checks, time.perf_counter() - t0, searches)


def void_result(rs: RuleSet, results: list, errors) -> None:
    """After every check of the rule set (engine_check.py's `after_engine`): model errors of the engine
    check, as (rules that fired, text), void the verdicts of the invariants check's last run on `rs` that
    used the erring steps, and its result in `results` is rewritten."""
    hit = LAST.get(id(rs))
    if not errors or hit is None or hit[0] is not rs:
        return
    _, checks, searches, seconds = hit
    if not void_by_model(checks, errors, searches):
        return
    for r in results:
        if r.name == "invariants":
            r.diagnostics = [d for d in r.diagnostics if d.code == "degenerate"] + diagnostics(rs, checks, seconds, searches)
            r.passed = False


def degenerate(rs: RuleSet) -> list[Diagnostic]:
    """Warnings for rule sets where the proofs hold only because nothing can happen."""
    out = []
    for name, fig in rs.figures.items():
        if not any(rs.figure_counts(name).values()):  # a count over `players` (TOWER-COMP-1) too
            out.append(Diagnostic(fig.span, f"no player ever has a {name} (0 per player): none is ever placed, "
                                            f"so the features it stands on are never scored by it; the invariants "
                                            f"about {name}s hold only because nothing happens", "degenerate", "warning"))
    return out
