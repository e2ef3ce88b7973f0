"""The conformance check: the verifier's model held against the engine it claims to verify.

The invariants are proved about the z3 model of the rules (verifier/invariants.py: one *step*
per rule).  The engine check (verifier/engine_check.py) plays games with the compiled engine;
during those games every transition -- from one moment where no player's decision is pending to
the next: a turn with its figure, captures, outpost, the scorings it caused, or a ransom, or the
end of the game -- is also checked against the model:

- the *rules that fired* are read off the engine: the action (a figure put: `place a F`; a
  recall, a capture, a ransom), the events (each scoring event: the `score K WHEN` steps of its
  kind; an award; a counterattack or an attack: the outpost's `on full|end|overflow` step; a
  figure put on an outpost), and, as steps that may or may not have fired, the `on place`
  rules, and per feature completed without a scoring event the `score K complete` and `on
  complete of K` steps;
- the before and after values of every quantity the model tracks (verifier/concrete.py: each
  seat's score, and each figure's supply, board count, outposts and prisoners, every `state`)
  are read off the engine;
- z3 is asked whether the model's steps for those rules, one after another, can lead from the
  before values to the after values (the steps' own formulas, each step's variables renamed
  apart; players and the acting seat fixed to the game's).  At the end of the game each final
  scoring (`score K end`, an award) is checked on its own, from the scores its event shows.

No such sequence of steps: a **model error** -- the model says the engine's move is impossible,
so the proofs are about another game than the one the engine plays.  The message names the
rules that fired and the quantities that changed.

Cost: the same transition (the same rules fired, the same changes) is asked once per process,
with the values of its first occurrence; every later one is matched against that answer.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from ..dsl.model import RuleSet

from .concrete import snapshot
from . import solver
from .solver import configure

SLOT_RLIMIT = 5_000_000  # z3's resource count per transition asked (the same on every machine)


@dataclass
class ModelError:
    seed: int
    turn: int
    message: str
    rules: tuple = ()  # the labels of the rules that fired (the model's steps involved)

    def __str__(self) -> str:
        return f"model error: game seed {self.seed}, turn {self.turn}: {self.message}"


def _a(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _consts(terms) -> dict:
    """The uninterpreted constants of z3 terms, by name (read through z3's C API: solver._constants)."""
    ctx = z3.main_ctx()
    return {name: z3.z3._to_expr_ref(a, ctx) for name, a in solver._constants(list(terms)).items()}


class Model:
    """The z3 model of one rule set, its steps prepared to be chained (built once per process)."""

    def __init__(self, rs: RuleSet, players: int, build_steps=None):
        # imported here, not at the top: load_checks imports this module before invariants.py, whose
        # check would then be registered (and run) before the examples'
        from .invariants import SymGame, all_steps

        configure()
        self.rs = rs
        self.players = players
        g = SymGame.make(rs, seats=players)  # the seats of the games followed: fewer variables for z3
        self.g = g
        self.steps = (build_steps or all_steps)(g)
        b = g.before
        self.vars: dict[str, z3.ArithRef] = {}  # quantity name -> the model's before variable
        for p in range(g.seats):
            self.vars[f"score[{p}]"] = b.score[p]
            for f in rs.figures:
                for part in ("supply", "board", "held", "outpost"):
                    v = getattr(b, part)[(p, f)]
                    if not z3.is_int_value(v):
                        self.vars[f"{part}[{p}].{f}"] = v
        for k, v in b.st.items():
            self.vars[k] = v
        for k, v in getattr(b, "done", {}).items():  # completed(K): part of the state
            self.vars[f"completed({k})"] = v
        self.names = list(self.vars)
        self.shared = {"players", "current"}
        self._inst: dict = {}
        self._afters: dict = {}
        self._changes: dict = {}
        self._states: dict = {}
        self._cands: dict = {}
        self._ident: dict = {}
        self._solver = None
        self._eqs: dict = {}
        self._chains: dict = {}
        self._reads: dict = {}
        self.cache: dict = {}  # transition key -> None (possible) or the reason it is not

    def state(self, i: int) -> dict:
        if i not in self._states:
            self._states[i] = {n: z3.Int(f"S{i}|{n}") for n in self.names}
        return self._states[i]

    def completions(self, kind: str) -> list[int]:
        """The step of a feature of `kind` completing (its first member: `a KIND completes`)."""
        key = ("complete", kind)
        if key not in self._cands:
            self._cands[key] = [k for k, st in enumerate(self.steps)
                                if getattr(st, "members", None) and st.members[0][0] == f"a {kind} completes"]
        return self._cands[key]

    def candidates(self, pred, key=None) -> list[int]:
        if key is not None and key in self._cands:
            return self._cands[key]
        out = [k for k, st in enumerate(self.steps) if pred(st.rule)]
        if key is not None:
            self._cands[key] = out
        return out

    def instance(self, k: int, i: int) -> z3.BoolRef:
        """Step k as slot i of a chain: from state i-1 to state i, its other variables renamed apart."""
        key = (k, i)
        if key in self._inst:
            return self._inst[key]
        st = self.steps[k]
        after = self._after_terms(k)
        terms = [f.term for f in st.facts] + list(after.values()) + [f.term for f in self.g.sink]
        cs = _consts(terms)
        prev = self.state(i - 1)
        pairs = []
        for name, c in cs.items():
            if name == "players":  # the games followed have this many players
                pairs.append((c, z3.IntVal(self.players)))
                continue
            if name in self.shared:
                continue
            if name in self.vars and self.vars[name].eq(c):
                pairs.append((c, prev[name]))
            else:
                pairs.append((c, z3.Const(f"{name}@{i}", c.sort())))
        cur = self.state(i)
        body = [f.term for f in st.facts] + [cur[n] == t for n, t in after.items()]
        out = solver.substitute(z3.And(body), pairs) if pairs else z3.And(body)
        self._inst[key] = out
        return out

    def _after_terms(self, k: int) -> dict:
        if k not in self._afters:
            a = self.steps[k].after
            out = {}
            for p in range(self.g.seats):
                out[f"score[{p}]"] = a.score[p]
                for f in self.rs.figures:
                    for part in ("supply", "board", "held", "outpost"):
                        n = f"{part}[{p}].{f}"
                        if n in self.vars:
                            out[n] = getattr(a, part)[(p, f)]
            for key, v in a.st.items():
                out[key] = v
            for key, v in getattr(a, "done", {}).items():
                out[f"completed({key})"] = v
            self._afters[k] = out
        return self._afters[k]

    def identity(self, i: int) -> z3.BoolRef:
        """Slot i leaves everything as it was (a step that did not fire)."""
        if i not in self._ident:
            prev, cur = self.state(i - 1), self.state(i)
            self._ident[i] = z3.And([cur[n] == prev[n] for n in self.names])
        return self._ident[i]

    def _eq(self, i: int, name: str, value: int) -> z3.BoolRef:
        """`state i's name == value` (i = -1: the acting seat), built once: the same few numbers come back."""
        key = (i, name, value)
        t = self._eqs.get(key)
        if t is None:
            v = z3.Int("current") if i < 0 else self.state(i)[name]
            t = self._eqs[key] = v == value
        return t

    def reads(self, k: int) -> frozenset:
        """The quantities step k reads or changes."""
        if k not in self._reads:
            cs = _consts([f.term for f in self.steps[k].facts])
            self._reads[k] = frozenset(n for n, v in self.vars.items() if n in cs and cs[n].eq(v)) | self.changes(k)
        return self._reads[k]

    def changes(self, k: int) -> frozenset:
        """The quantities step k can change (its after-term is not its before-variable)."""
        if k not in self._changes:
            after = self._after_terms(k)
            self._changes[k] = frozenset(n for n, t in after.items() if not t.eq(self.vars[n]))
        return self._changes[k]

    def possible(self, slots: list, before: dict, after: dict, players: int, current: int) -> bool | None:
        """Can the steps of `slots` (each: (candidate step indices, optional)) lead from `before` to `after`?
        True, False, or None when z3 could not tell within SLOT_RLIMIT."""
        if self._solver is None:  # one solver, a push and a pop per question: cheaper than a new one each time
            self._solver = z3.Solver()
            self._solver.set("random_seed", 0)
        # the quantities the steps read or change; any other one is left alone by every step, so it must
        # not have changed (no question to z3), and its value is asked of none of them
        used: set = set()
        for cands, _ in slots:
            for k in cands:
                used |= self.reads(k)
        for n in self.names:
            if n not in used and before.get(n, 0) != after.get(n, 0):
                return False
        formula, last = self.chain(tuple((tuple(c), bool(o)) for c, o in slots))
        s = self._solver
        s.set("rlimit", SLOT_RLIMIT)  # per question: the count starts again at each check
        s.push()
        try:
            # Solver.add's own C call for each (it casts each to a condition first, which they all are)
            ctx, ref, add = s.ctx.ref(), s.solver, z3.Z3_solver_assert
            for t in [formula, self._eq(-1, "current", current)] + \
                    [self._eq(0, n, before.get(n, 0)) for n in self.names if n in used] + \
                    [self._eq(last[n], n, after.get(n, 0)) for n in self.names if n in used]:
                add(ctx, ref, t.as_ast())
            r = s.check()
            solver.count_work(s)  # the process's z3 work, as the rule sets' budgets read it (verifier/solver.py)
        finally:
            s.pop()
        return True if r == z3.sat else False if r == z3.unsat else None

    def chain(self, shape: tuple) -> tuple[z3.BoolRef, dict]:
        """The steps of a transition's slots one after another, as one formula (built once per shape).
        A quantity no step of a slot can change keeps its variable through that slot (no new variable,
        no equality for z3 to solve); returns the formula and, per quantity, the state whose variable
        holds its final value."""
        if shape in self._chains:
            return self._chains[shape]
        ver = {n: 0 for n in self.names}  # the state whose variable holds each quantity now
        parts, pairs = [], []
        for i, (cands, optional) in enumerate(shape, start=1):
            alts = [self.instance(k, i) for k in cands]
            if optional or not alts:
                alts.append(self.identity(i))
            parts.append(z3.Or(alts))
            moved = set()
            for k in cands:
                moved |= self.changes(k)
            cur = self.state(i)
            for n in self.names:
                if n in moved:
                    ver[n] = i
                else:  # no step of this slot changes n: state i's n is state ver[n]'s
                    pairs.append((cur[n], self.state(ver[n])[n]))
        formula = z3.And(parts)
        if pairs:
            formula = solver.substitute(formula, pairs)
        self._chains[shape] = (formula, dict(ver))
        return self._chains[shape]


class Watcher:
    """Follows one game of the engine check and checks each transition against the model."""

    def __init__(self, model: Model, seed: int):
        self.m, self.seed = model, seed
        self.errors: list[ModelError] = []
        self.unknown = 0
        self.checked = 0
        self.snap = None
        self.ev0 = 0
        self.actions: list = []  # (action, events before it, completions before it, acting seat)

    def start(self, g) -> None:
        self.snap = snapshot(self.m.rs, g).values
        self.ev0 = len(g.events)
        self.c0 = list(g.board.completed_count)
        self.actions = []

    def before(self, g, a) -> None:
        if self.snap is None:
            self.start(g)
        self.actions.append([a, len(g.events), list(g.board.completed_count), g.current_player(), None, None])

    def applied(self, g) -> None:
        """After each action (a decision pending or not): where its events end."""
        if self.actions and self.actions[-1][4] is None:
            self.actions[-1][4], self.actions[-1][5] = len(g.events), list(g.board.completed_count)

    def quiet(self, g) -> None:
        """A moment with no decision pending: check the transition since the last one."""
        if self.snap is None:
            self.start(g)
            return
        if not self.actions and len(g.events) == self.ev0 and not g.ended:
            return
        after = snapshot(self.m.rs, g).values
        slots, finals = self._slots(g)
        # final scorings (they change scores only): each on its own, from the scores its event shows
        end_scores = dict(after)
        tail = []
        for ev, cands in reversed(finals):
            prev = dict(end_scores)
            for who, n in ev["points"].items():
                p = g.names.index(who)
                prev[f"score[{p}]"] = prev.get(f"score[{p}]", 0) - n
            tail.append((ev, cands, prev, end_scores))
            end_scores = prev
        acting = self.actions[-1][3] if self.actions else g.current
        self._ask(g, slots, self.snap, end_scores, acting)
        for ev, cands, b, a in reversed(tail):
            self._ask(g, [(self._label(ev), cands, False)], b, a, g.current)
        self.snap = after
        self.ev0 = len(g.events)
        self.c0 = list(g.board.completed_count)
        self.actions = []

    # ---------------------------------------------------------------- which rules fired
    def _slots(self, g):
        m, R = self.m, g.R
        steps = m.steps
        slots: list = []
        finals: list = []
        figs = [f.name for f in R.FIGURES]
        kinds = [k[0] for k in R.KINDS]
        # per action: the events before it (an attack at the draw, while its options were listed), then
        # the action, then its events; a game that ends with no move left: its last events, no action
        marks = []
        e_prev, c_prev = self.ev0, self.c0
        for a, e0, c0, _, e1, c1 in self.actions:
            e1 = len(g.events) if e1 is None else e1
            c1 = list(g.board.completed_count) if c1 is None else c1
            marks.append((None, e_prev, e0, c_prev, c0))
            marks.append((a, e0, e1, c0, c1))
            e_prev, c_prev = e1, c1
        marks.append((None, e_prev, len(g.events), c_prev, list(g.board.completed_count)))
        put_steps = {f: m.candidates(lambda r, f=f: r.startswith("score ") and r.endswith(f" put {f}"), ("put", f))
                     for f in figs}
        joins = m.candidates(lambda r: r.startswith("score ") and " join " in r, "join")
        on_place = m.candidates(lambda r: r.startswith("on place"), "on place")
        for a, e0, e1, c0, c1 in marks:
            released: set = set()  # the `on round end` rules whose releases this stretch's events show
            if a is None:
                pass
            elif a.KIND == "ransom":  # typed moves (runtime/moves.py): read by kind and field
                slots.append(("ransom", m.candidates(lambda r, f=figs[a.figure]: r == f"ransom {_a(f)}", ("ransom", a.figure)),
                              False))
            elif a.KIND == "capture":
                f = figs[a.figure]
                slots.append(("capture", m.candidates(lambda r, f=f: r.startswith(f"capture {_a(f)} ("), ("capture", f)), False))
            elif a.KIND == "place":
                fig = a.figure
                if fig is not None:
                    if fig.KIND == "recall":
                        f = figs[fig.figure]
                        slots.append((f"recall {f}", m.candidates(lambda r, f=f: r.startswith(f"recall {f} from"), ("recall", f)), False))
                    else:
                        f = figs[fig.figure]
                        # invariants.place_step names it `place a F` (whatever F's first letter)
                        slots.append((f"place {_a(f)}", m.candidates(lambda r, f=f: r == f"place a {f}" or
                                                                      r.startswith(f"place a {f} on "), ("place", f)), False))
                        if put_steps.get(f):  # `score K put F`: scores nothing (no event) when nobody is there
                            slots.append(("", put_steps[f], True))
                for k in on_place:
                    slots.append(("on place", [k], True))
                if joins:  # `score K join F`: a tile that joins features, scoring nothing, has no event
                    slots.append(("", joins, True))
            for ev in g.events[e0:e1]:
                kind = ev.get("kind")
                if kind == "score" and ev.get("feature") != "outpost":
                    w, fk = ev.get("when"), ev.get("feature")
                    if w == "recall":
                        continue  # the recall step scores it
                    cands = m.candidates(lambda r, fk=fk, w=w: r == f"score {fk} {w}" or r.startswith(f"score {fk} {w} "),
                                         ("score", fk, w))
                    if w == "end":
                        finals.append((ev, cands))
                        continue
                    if w == "complete":
                        continue  # part of its feature's completion step (below)
                    slots.append((f"score {fk} {w}", cands, False))
                elif kind == "award":
                    name = ev.get("award")
                    finals.append((ev, m.candidates(lambda r, n=name: r in (f"award {n} at end", f"award most {n} at end"),
                                                    ("award", name))))
                elif kind in ("counterattack", "attack"):
                    w = "overflow" if kind == "attack" else ev.get("when")
                    t = ev.get("outpost", "")
                    slots.append((f"on {w} of {t}", m.candidates(
                        lambda r, w=w, t=t: r.startswith(f"on {w} of ") and t in r[len(f"on {w} of "):].split(", "),
                        ("track", w, t)), False))
                elif kind == "release":  # a round's end: one step per `on round end` rule, however many go home
                    cl = ev.get("clause", "")
                    if ("release", cl) in released:
                        continue
                    released.add(("release", cl))
                    slots.append((f"on round end [{cl}]", m.candidates(
                        lambda r, cl=cl: r.startswith("on round end") and (not cl or cl in r), ("round", cl)), False))
                elif kind == "catapult":  # a draw's catapult: the `on draw` step (it moves nothing the model holds)
                    slots.append(("on draw", m.candidates(lambda r: r.startswith("on draw"), "draw"), False))
                elif kind == "outpost":
                    f = ev.get("figure", "")
                    slots.append((f"put {_a(f)} on an outpost", m.candidates(
                        lambda r, f=f: r.startswith(f"put {_a(f)} on an outpost"), ("outpost", f)), False))
            for ki, (x0, x1) in enumerate(zip(c0, c1)):
                k = kinds[ki]
                # each feature completed: its kind's completion step (counted, scored, figures home, the
                # `on complete` rules: invariants.completion_steps)
                cands = m.completions(k)
                for _ in range(x1 - x0):
                    slots.append((m.steps[cands[0]].rule if cands else f"a {k} completes", cands, False))
        return slots, finals

    @staticmethod
    def _label(ev) -> str:
        if ev.get("kind") == "award":
            return f"award {ev.get('award')} at end"
        return f"score {ev.get('feature')} {ev.get('when')}"

    # ---------------------------------------------------------------- asking z3
    def _ask(self, g, slots, before: dict, after: dict, acting: int) -> None:
        names = self.m.names
        delta = tuple(after.get(n, 0) - before.get(n, 0) for n in names)
        # a step that may or may not have fired (an `on place` rule, a put scoring nobody) and changes
        # nothing that changed in this transition is left out: it can only have left things as they were
        moved = {n for n, d in zip(names, delta) if d}
        # ... nor what a step that must have fired changes: a step may undo another's change (a barn
        # join sends a farmer home, then the turn's figure leaves the supply again: no net change)
        for _, cands, opt in slots:
            if not opt:
                for k in cands:
                    moved |= self.m.changes(k)
        kept = []
        for lab, cands, opt in slots:
            if opt:
                cands = [k for k in cands if self.m.changes(k) & moved]
                if not cands:
                    continue
            kept.append((lab, cands, opt))
        slots = kept
        labels = tuple((lab, opt) for lab, _, opt in slots)
        if not any(delta) and all(opt for _, opt in labels):
            return  # nothing changed, nothing had to fire
        key = (labels, delta)
        m = self.m
        if key not in m.cache:
            self.checked += 1
            m.cache[key] = m.possible([(c, opt) for _, c, opt in slots], before, after, g.nplayers, acting)
        ok = m.cache[key]
        if ok is True:
            return
        changed = [f"{n} {before.get(n, 0)} -> {after.get(n, 0)}" for n, d in zip(names, delta) if d]
        fired = ", ".join(dict.fromkeys(lab for lab, _, _ in slots if lab)) or "no rule"
        if ok is None:  # never a pass: said, and the check fails
            self.unknown += 1
            head = (f"inconclusive, not a pass: z3 could not tell within {SLOT_RLIMIT:,} of its resource count "
                    f"whether the verifier's model can make the engine's move")
        else:
            head = "the engine's move is impossible in the verifier's model"
        self.errors.append(ModelError(self.seed, g.turn, (
            f"{head}: rules that fired: {fired}; changes: {', '.join(changed) or 'none'} ({g.nplayers} players)"),
            tuple(dict.fromkeys(lab for lab, _, _ in slots if lab))))


_MODELS: dict = {}


def model_for(rs: RuleSet, players: int) -> Model:
    """One prepared model per rule set, number of players and process (the engine check's workers each
    build their own)."""
    key = (id(rs), players)
    if key not in _MODELS or _MODELS[key].rs is not rs:  # an id can be reused once a rule set is freed
        _MODELS.clear()
        _MODELS[key] = Model(rs, players)
    return _MODELS[key]
