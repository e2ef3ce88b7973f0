"""Invariants the verifier finds itself (issue 35): Houdini over candidate lemmas.

An invariant that holds in every game may still fail its induction step, on a state no game
reaches (a tower with a follower on top but no floor, the Robber held with no completed road).
`tessera verify` then strengthens the induction automatically: it proposes candidate lemmas from
templates over the rules' own quantities and keeps the largest subset that is inductive together
(Houdini: drop every candidate some step breaks, and repeat until none is broken).

Two kinds of lemma:

- **per-feature lemmas** (`feature_lemmas`), about the figures on one feature of a kind: "a tower
  with a follower on it has a floor" (`count(follower) >= 1 => count(floor) >= 1`), "a field with
  a barn has no follower" (`count(barn) >= 1 => count(follower) == 0`).  They are proved over a
  small transition system of one feature, built from the same rule ASTs as the model
  (verifier/encode.py): a figure put on it (its `figure`/`allow` condition holds, no `forbid`
  does; a `score K put F` sends the figures with `return … when scored` home), two features
  joined (their figures added; a `score K join F` sends them home), a figure taken off it (a
  capture, a recall, an outpost's removal), its scoring (figures with `return … when scored` go
  home).  A lemma then holds of every feature a scoring, a recall or an `on complete` rule reads
  (invariants._feature_env); not in the middle of a put or join scoring, where it is not assumed.
- **state lemmas** (`state_candidates`), about the game state: `s == START or completed(K) >= 1`
  (the Robber is held only once a road was completed), `s >= START`, and between two states
  `s1 == START1 or s2 != START2`.  They join the invariants' induction as invariants of their own
  (invariants.check_invariants), so each is proved like a declared one, together with the rest.

A proof that used a lemma lists it (the summary's "lemmas" line).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from ..dsl import ast as A
from ..dsl.fmt import format_expr
from ..dsl.model import RuleSet

from .domain import Domain
from .encode import Env, EncodeError, encode
from .solver import Fact, prove_all


@dataclass(frozen=True)
class FeatureLemma:
    kind: str
    text: str  # "count(follower) >= 1 => count(floor) >= 1", in the language's words
    pred: Callable[[dict], z3.BoolRef]  # counts by figure -> the claim

    def describe(self) -> str:
        return f"for every {self.kind}: {self.text}"


def _figures_on(rs: RuleSet, kind: str) -> list[str]:
    return [f for f in rs.figures if kind in rs.may_stand(f)]


def _env(rs: RuleSet, dom: Domain, kind: str, c: dict, tag: str) -> Env:
    env = Env(tag=tag, domain=dom, kind=kind)
    corner = set(rs.corner_figures())
    owning = [v for f, v in c.items() if f not in corner]
    env.names["figures"] = z3.Sum(owning) if owning else z3.IntVal(0)
    for s, sd in rs.states.items():  # any value: a lemma about the feature may not rest on the game's state
        env.names[s] = z3.Int(f"{s}{tag}")

    def count(args, c=c):
        n = args[0].name if isinstance(args[0], A.Var) else ""
        return c.get(n, z3.IntVal(0))
    env.calls["count"] = count
    return env


def _cond(e: A.Expr | None, env: Env) -> z3.BoolRef:
    if e is None:
        return z3.BoolVal(True)
    try:
        return encode(e, env)
    except EncodeError:  # a name this feature-level view does not know: any value (no constraint)
        return z3.BoolVal(True)


def feature_lemmas(rs: RuleSet) -> list[FeatureLemma]:
    """The candidate per-feature lemmas that are inductive together, per kind (Houdini)."""
    dom = Domain(rs)
    out: list[FeatureLemma] = []
    for kind in rs.features:
        figs = _figures_on(rs, kind)
        if len(figs) < 2:
            continue
        cands: list[FeatureLemma] = []
        for g_ in figs:
            for f in figs:
                if f == g_:
                    continue
                cands.append(FeatureLemma(kind, f"count({g_}) >= 1 => count({f}) >= 1",
                                          lambda c, g_=g_, f=f: z3.Implies(c[g_] >= 1, c[f] >= 1)))
                cands.append(FeatureLemma(kind, f"count({g_}) >= 1 => count({f}) == 0",
                                          lambda c, g_=g_, f=f: z3.Implies(c[g_] >= 1, c[f] == 0)))
        out += _houdini_feature(rs, dom, kind, figs, cands)
    return out


def _transitions(rs: RuleSet, dom: Domain, kind: str, figs: list[str]):
    """Each way the figures on one feature of `kind` change: (name, pre-states, facts, post-state)."""
    corner = set(rs.corner_figures())
    returning = [f for f in figs if f in rs.returns]

    def counts(tag: str) -> dict:
        return {f: z3.Int(f"c{tag}.{f}") for f in figs}

    def nonneg(c: dict) -> list:
        return [v >= 0 for v in c.values()]

    def sent_home(c: dict) -> dict:
        return {f: (z3.IntVal(0) if f in returning else v) for f, v in c.items()}

    out = []
    # a figure put on it
    for f in figs:
        decls: list = []
        fig = rs.figures[f]
        if kind in fig.on:
            decls.append(fig.when)
        decls += [pm.when for pm in rs.permits if pm.mode == "allow" and pm.figure == f and kind in pm.on]
        forbids = [pm.when for pm in rs.permits if pm.mode == "forbid" and pm.figure == f and kind in pm.on]
        if not decls:
            continue
        c = counts("")
        env = _env(rs, dom, kind, c, "")
        ok = z3.Or([_cond(w, env) for w in decls])
        facts = nonneg(c) + [ok] + [z3.Not(_cond(w, env)) for w in forbids if w is not None] + env.facts
        if any(w is None for w in forbids):
            continue  # always forbidden
        post = dict(c)
        post[f] = c[f] + 1
        if (kind, "put", f) in {(d.kind, d.when, d.figure) for d in rs.trigger_scores.values()}:
            post = sent_home(post)  # `score K put F`: the owners score, returning figures go home
        out.append((f"put {f}", [c], facts, post))
    # a figure taken off it: a capture, a recall, an outpost's removal
    taken = set()
    for cap in rs.captures.values():
        taken |= set(cap.figures)
    taken |= set(rs.recalls)
    for on in rs.track_ons:
        for act in on.actions:
            if isinstance(act, A.RemoveFigures):
                taken |= set(act.figures)
    for f in figs:
        if f in taken:
            c = counts("")
            post = dict(c)
            post[f] = c[f] - 1
            out.append((f"take {f} off", [c], nonneg(c) + [c[f] >= 1], post))
    # scored (completed, at a put or a join, or at the end): figures with `return ... when scored` go home
    if returning:
        c = counts("")
        out.append(("scored", [c], nonneg(c), sent_home(c)))
    # two features joined by a tile (a kind on one tile never is, but the join is harmless to allow)
    a, b = counts("a"), counts("b")
    post = {f: a[f] + b[f] for f in figs}
    facts = nonneg(a) + nonneg(b)
    joins = [d for d in rs.trigger_scores.values() if d.kind == kind and d.when == "join"]
    if joins:
        owning = lambda c: z3.Sum([c[f] for f in figs if f not in corner] or [z3.IntVal(0)])  # noqa: E731
        fires = z3.Or([z3.Or(z3.And(a.get(d.figure, z3.IntVal(0)) >= 1, owning(b) >= 1),
                             z3.And(b.get(d.figure, z3.IntVal(0)) >= 1, owning(a) >= 1)) for d in joins])
        home = sent_home(post)
        post = {f: z3.If(fires, home[f], post[f]) for f in figs}
    out.append(("join", [a, b], facts, post))
    return out


def _houdini_feature(rs: RuleSet, dom: Domain, kind: str, figs: list[str], cands: list[FeatureLemma]) -> list[FeatureLemma]:
    trans = _transitions(rs, dom, kind, figs)
    keep = list(cands)
    changed = True
    while changed and keep:
        changed = False
        for name, pres, facts, post in trans:
            hyp = [Fact(z3.And(facts) if facts else z3.BoolVal(True), "step", name)]
            for pre in pres:
                hyp += [Fact(l.pred(pre), "lemma", l.text) for l in keep]
            res = prove_all({str(i): l.pred(post) for i, l in enumerate(keep)}, hyp, minimal_core=False)
            broken = {int(k) for k, r in res.items() if not r.proved}
            if broken:
                keep = [l for i, l in enumerate(keep) if i not in broken]
                changed = True
                break
    # the start: a feature holds no figure, so every lemma `count(G) >= 1 => ...` holds there
    return keep


# ---------------------------------------------------------------- state lemmas
def _literal(e: A.Expr) -> int | None:
    if isinstance(e, A.IntLit):
        return int(e.value)
    if isinstance(e, A.Neg) and isinstance(e.operand, A.IntLit):
        return -int(e.operand.value)
    return None


def state_candidates(rs: RuleSet) -> list[tuple[str, A.Expr]]:
    """Candidate state lemmas, as expressions of the language (what a designer could write as an
    `invariant`): for each state with a number as its start value, `s >= START`, `s == START or
    completed(K) >= 1` for each kind that completes, and between two such states
    `s1 == START1 or s2 != START2`."""
    sp = A.Span()
    states = [(n, v) for n, sd in rs.states.items() if not sd.each for v in [_literal(sd.init)] if v is not None]
    out: list[tuple[str, A.Expr]] = []

    def lit(v: int) -> A.Expr:
        return A.IntLit(v, sp) if v >= 0 else A.Neg(A.IntLit(-v, sp), sp)

    for n, v in states:
        s = A.Var(n, sp)
        out.append((f"{n} >= {v}", A.BinOp(">=", s, lit(v), sp)))
        for k in rs.complete:
            done = A.Call("completed", (A.Var(k, sp),), sp)
            out.append((f"{n} == {v} or completed({k}) >= 1",
                        A.BinOp("or", A.BinOp("==", s, lit(v), sp), A.BinOp(">=", done, A.IntLit(1, sp), sp), sp)))
    for n1, v1 in states:
        for n2, v2 in states:
            if n1 != n2:
                out.append((f"{n1} == {v1} or {n2} != {v2}",
                            A.BinOp("or", A.BinOp("==", A.Var(n1, sp), lit(v1), sp),
                                    A.BinOp("!=", A.Var(n2, sp), lit(v2), sp), sp)))
    return out[:60]


def show(e: A.Expr) -> str:
    return format_expr(e)
