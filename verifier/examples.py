"""The rulebooks' worked examples, checked against the rules with z3.

A rule file carries `example NAME [CLAUSE] { key = value … }` blocks.  Keys:

  feature = KIND          the feature scored (city, road, cloister, field, garden …)
  when = complete|end|recall|place
                          the rule that scores it: `score KIND complete`, `score KIND end`,
                          `recall FIGURE` (with `figure = abbot`), or, for `place`,
                          the `on place of KIND` rules (see `turns` / `legal`)
  tiles, shields, neighbours, completed_cities, open
                          the feature's quantities (tessera.dsl.builtins); a quantity the
                          scoring formula reads must be given or listed in `unknown`
  followers = {red: 1, yellow: 2}
                          figures of each player on the feature (`figure = F` names
                          their kind; follower by default); owners follow `owners`
  points = {red: 8, black: 0}
                          the points the rulebook prints, per player (an int for one value)
  unknown = "tiles shields"
                          inputs lost with the pictures: z3 looks for values that give
                          the printed points and reports them (status "inferred")
  conflict = "CLAUSE"     a known misprint (CONFLICT in CLAUSES.md): the example is
                          expected to disagree with the rules; it is reported with the
                          nearest inputs that would make it agree, and does not fail
  formula = "3 * followers"
                          for rulebooks the language cannot state yet (Siege, Tower,
                          the card game): the rulebook's own formula, in the rules
                          language, over the example's other keys (`followers` is each
                          player's count); checked against `points` or `expect`
  expect = 5 | true       the value of `formula` when it is not points
  turns = "left straight left", legal = true|false
                          (when = place) a sequence of river tiles and whether the
                          placement rules allow it
  outpost = monks, when = full|overflow|end
                          an outpost's scoring (Siege and Defense): the `score each` actions of
                          the `on full|overflow|end of …` rules naming that outpost, read for
                          each player with `own` = their `followers` there (z3), then asked of
                          the compiled engine (those followers in the outpost's pool, the event
                          fired), which must give the same points
  capture = FIGURE, height = N, expect = TILES | true|false, target = "dx dy", gaps = "dx dy, ..."
                          a capture's range, played by the compiled engine: a tower of
                          N FIGUREs (the figure a `capture` rule follows) on an all-field
                          board, another player's capturable figure on every other tile
                          up to N + 1 away (or only at `target`), the cells in `gaps`
                          left empty; expect is how many tiles hold a figure the capture
                          may take (or whether the one at `target` may be taken)
  skip = "why"            cannot be checked (e.g. the table it needs is lost)
  ref, source             the example's ID in docs/rulebook-examples.md and its page

Statuses: ok, inferred, conflict (a marked misprint, reported as expected),
inconsistent (an unmarked disagreement: an error), conflict-missing (marked but
the rules agree: an error), changed (the rule the example checks is replaced by
a house rule's `override`, which gives other points: a note that says so, not a
failure), skipped, invalid (the example is malformed: an error), inconclusive
(z3 gave up: an error, never a pass).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module

import z3

from ..dsl import ast as A
from ..dsl.builtins import QUANTITIES
from ..dsl.diagnostics import Diagnostic
from ..dsl.model import RuleSet
from ..dsl.parser import ParseFailure, parse

from .checks import register
from .encode import EncodeError, Env, encode
from .domain import Domain
from .engines import engine_of
from .solver import find, nearest, prove
from .source import where

RESERVED = {"feature", "when", "figure", "followers", "points", "unknown", "conflict", "formula", "expect", "marks",
            "turns", "legal", "skip", "ref", "source", "capture", "height", "target", "gaps", "outpost"}
TURNS = {"left": -1, "straight": 0, "right": 1}
FAILING = {"inconsistent", "conflict-missing", "invalid", "inconclusive"}


def _runtime(g, module: str):
    """Module `module` of game g's own runtime package (a compiled engine carries a copy of the
    runtime): the functions of a component of the game (runtime/outposts.py, runtime/prisoners.py)."""
    return import_module(type(g).__module__.rpartition(".")[0] + "." + module)



@dataclass
class ExampleResult:
    example: A.ExampleDecl
    status: str
    message: str
    details: list[str] = field(default_factory=list)
    printed: str = ""  # the points the rulebook prints, in words
    gives: str = ""  # the points the rules give, in words (when they disagree)
    at: A.Span | None = None  # where it is reported, if not at the example: a house rule that changes it

    @property
    def ok(self) -> bool:
        return self.status not in FAILING

    @property
    def ref(self) -> str:
        return str(self.example.get("ref", self.example.name))

    def lines(self) -> list[str]:
        cl = ", ".join(c.clause for c in self.example.cites)
        head = f"{self.status:<12} {self.ref} [{cl}] ({where(self.example.span)}): {self.message}"
        return [head] + ["    " + d for d in self.details]


# ------------------------------------------------------------------ helpers
def _mapping(v: object) -> dict[str, int] | None:
    if isinstance(v, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return {str(k): int(n) for k, n in v}
    return None


def _words(v: object) -> list[str]:
    return str(v or "").replace(",", " ").split()


def _fmt(model: dict[str, int | bool], names: list[str]) -> str:
    return " ".join(f"{n}={model[n]}" for n in names if n in model)


def _pts(d: dict[str, int | bool]) -> str:
    return ", ".join(f"{p} {str(v).lower() if isinstance(v, bool) else v}" for p, v in d.items())


@dataclass
class Problem:
    """One example as a z3 question: inputs (given values), unknowns, and the points."""

    inputs: dict[str, tuple[z3.ArithRef, int]] = field(default_factory=dict)
    unknowns: dict[str, z3.ArithRef] = field(default_factory=dict)
    domain: list[z3.BoolRef] = field(default_factory=list)
    computed: dict[str, z3.ExprRef] = field(default_factory=dict)  # player -> points the rules give
    printed: dict[str, int | bool] = field(default_factory=dict)

    def fixed(self) -> list[z3.BoolRef]:
        return [v == val for v, val in self.inputs.values()]

    def agrees(self) -> list[z3.BoolRef]:
        return [self.computed[p] == (z3.BoolVal(v) if isinstance(v, bool) else v) for p, v in self.printed.items()]

    def show(self) -> dict[str, z3.ExprRef]:
        out: dict[str, z3.ExprRef] = {k: v for k, (v, _) in self.inputs.items()}
        out.update(self.unknowns)
        out.update({f"points.{p}": t for p, t in self.computed.items()})
        return out


def solve(ex: A.ExampleDecl, prob: Problem) -> ExampleResult:
    conflict = ex.get("conflict")
    printed = {p: v for p, v in prob.printed.items()}
    found = find(prob.domain + prob.fixed() + prob.agrees(), prob.show())
    if found.status == "unknown":
        return ExampleResult(ex, "inconclusive", f"not a pass: {found.reason}")
    if found.status == "sat":
        if conflict:
            return ExampleResult(ex, "conflict-missing",
                                 f"marked as the known misprint of {conflict}, but the rules give the printed "
                                 f"points ({_pts(printed)}): the misprint is no longer detected")
        if prob.unknowns:
            names = list(prob.unknowns)
            sols = _all_solutions(prob)
            if sols is None:
                return ExampleResult(ex, "inconclusive", "not a pass: z3 gave up listing the values that agree "
                                                         "(raise `tessera verify --rlimit`)")
            alts = " | ".join(_fmt(s, names) for s in sols)
            return ExampleResult(ex, "inferred", f"agrees ({_pts(printed)}) if {alts}"
                                 + ("" if len(sols) > 1 else " (the only values that do)"))
        return ExampleResult(ex, "ok", f"agrees: {_pts(printed)}")
    # inconsistent: what the rules give, and the nearest inputs that would agree
    gives = find(prob.domain + prob.fixed(), prob.show())
    got = given_pts = ""
    if gives.status == "sat":
        given_pts = ", ".join(f"{p} {gives.model[f'points.{p}']}" for p in printed)
        got = "; the rules give " + given_pts
    status, dist, sols = nearest(prob.domain + prob.agrees(), prob.inputs, prob.show())
    details = []
    given = " ".join(f"{k}={v}" for k, (_, v) in prob.inputs.items())
    if status == "sat":
        def change(sol: dict[str, int | bool]) -> str:
            moved = [f"{k} {v} -> {sol[k]}" for k, (_, v) in prob.inputs.items() if sol.get(k) != v]
            return ", ".join(moved + [f"{k}={sol[k]}" for k in prob.unknowns if k in sol]) or "as given"
        details.append(f"nearest consistent inputs (distance {dist} from {given}): "
                       + " | ".join(change(s) for s in sols))
    elif status == "unsat":
        details.append("no inputs at all give the printed points under these rules")
    else:
        details.append("z3 gave up looking for the nearest consistent inputs")
    msg = f"the rulebook prints {_pts(printed)}{got}"
    if conflict:
        return ExampleResult(ex, "conflict", msg + f" — the known misprint of {conflict} (the example's status: conflict)", details,
                             _pts(printed), given_pts)
    return ExampleResult(ex, "inconsistent", msg, details, _pts(printed), given_pts)


def _all_solutions(prob: Problem, limit: int = 6) -> list[dict[str, int | bool]] | None:
    cons = prob.domain + prob.fixed() + prob.agrees()
    out: list[dict[str, int | bool]] = []
    keys = list(prob.unknowns.values())
    for _ in range(limit):
        block = [z3.Or([k != s[n] for n, k in prob.unknowns.items()]) for s in out]
        r = find(cons + block, prob.show())
        if r.status == "unknown":
            return None
        if r.status != "sat":
            break
        out.append(r.model)
        if not keys:
            break
    # in a fixed order: z3's enumeration order depends on what the process asked it before
    return sorted(out, key=lambda sol: [(k, repr(v)) for k, v in sorted(sol.items())])


# ------------------------------------------------------------ example kinds
def _rule_problem(rs: RuleSet, ex: A.ExampleDecl) -> Problem | str:
    kind = str(ex.get("feature", ""))
    when = str(ex.get("when", ""))
    if kind not in rs.features:
        return f"`feature = {kind}` is not a feature kind of these rules"
    if when in ("complete", "end"):
        decl = rs.figure_scores.get((kind, when, str(ex.get("figure", "")))) or rs.scores.get((kind, when))
        if decl is None:
            return f"these rules have no `score {kind} {when}`"
        expr = decl.value
    elif when == "recall":
        fig = str(ex.get("figure", ""))
        rc = rs.recalls.get(fig)
        if rc is None:
            return f"these rules have no `recall {fig}` (give `figure = …`)"
        expr = rc.value
    else:
        return f"`when = {when}`: expected complete, end, recall or place"
    followers = _mapping(ex.get("followers", ()))
    printed = _mapping(ex.get("points"))
    if not followers:
        return "give `followers = {player: count, …}`"
    if printed is None:
        return "give `points = {player: points, …}`"
    unknown = set(_words(ex.get("unknown")))
    prob = Problem(printed=dict(printed))
    counts = {}
    for p, n in followers.items():
        v = z3.Int(f"followers.{p}")
        prob.inputs[f"followers.{p}"] = (v, n)
        prob.domain.append(v >= 0)
        counts[p] = v
    dom = Domain(rs)
    env = Env(tag="", domain=dom, kind=kind)
    env.names["figures"] = z3.Sum(list(counts.values()))
    try:
        value = encode(expr, env)
        read = set(env.names) - {"figures"}
        cd = rs.complete.get(kind)
        if cd is not None:
            cond = encode(cd.when, env)
            prob.domain.append(cond if when == "complete" else z3.Not(cond))
    except EncodeError as err:
        return str(err)
    prob.domain += [f.term for f in env.facts]
    # `marks = {inn: 1}`: the marks printed on the feature (REF-SCORE-1); a mark not listed is not printed
    marks = _mapping(ex.get("marks", ())) or {}
    for q, t in env.names.items():
        if q == "figures":
            continue
        val = ex.get(q)
        if q.startswith("marks(") and q.endswith(")") and q not in unknown:
            val = marks.get(q[len("marks("):-1], 0)
        if isinstance(val, int):
            prob.inputs[q] = (t, val)  # type: ignore[assignment]
        elif q in unknown:
            prob.unknowns[q] = t  # type: ignore[assignment]
        elif dom.pinned(q, kind) is not None:
            pass  # the tile set fixes it (a field has no shields): its domain fact, in prob.domain, gives it
        elif q in read and q in QUANTITIES and _reads(expr, q):
            return f"the rule reads `{q}`, which the example neither gives nor lists in `unknown`"
    for q in unknown:
        if q not in env.names:
            return f"`unknown` names `{q}`, which the rule does not read"
    # owners
    if when == "recall":
        if len(followers) != 1:
            return "a recall example names exactly one player in `followers`"
        owners = {p: z3.BoolVal(True) for p in followers}
    else:
        mode = rs.owners.mode if rs.owners else "all"
        owners = {}
        for p, c in counts.items():
            if mode == "most":
                owners[p] = z3.And(c > 0, *[c >= d for q, d in counts.items() if q != p])
            else:
                owners[p] = c > 0
    for p in printed:
        prob.computed[p] = z3.If(owners[p], value, 0) if p in owners else z3.IntVal(0)
    return prob


def _outpost_problem(rs: RuleSet, ex: A.ExampleDecl) -> Problem | str:
    """An outpost's scoring: each player scores the rules' `score each` for `own` = their followers there."""
    name, when = str(ex.get("outpost")), str(ex.get("when", ""))
    if name not in rs.tracks:
        return f"`outpost = {name}` is not a track of these rules"
    exprs = [a.value for on in rs.track_ons if on.event == when and name in on.tracks
             for a in on.actions if isinstance(a, A.ScoreEach)]
    if not exprs:
        return f"these rules have no `on {when} of {name} {{ score each … }}`"
    followers = _mapping(ex.get("followers", ()))
    printed = _mapping(ex.get("points"))
    if not followers or printed is None:
        return "give `followers = {player: count, …}` and `points = {player: points, …}`"
    prob = Problem(printed=dict(printed))
    for p in printed:
        v = z3.Int(f"followers.{p}")
        prob.inputs[f"followers.{p}"] = (v, followers.get(p, 0))
        prob.domain += [f.term for f in Domain(rs).quantity("own", v, None, None)]  # own >= 0
        env = Env(tag=f".{p}", domain=Domain(rs))
        env.names["own"] = v
        try:
            prob.computed[p] = z3.Sum([encode(e, env) for e in exprs]) if len(exprs) > 1 else encode(exprs[0], env)
        except EncodeError as err:
            return str(err)
        prob.domain += [f.term for f in env.facts]
        for q, t in env.names.items():
            if q != "own" and isinstance(ex.get(q), int):
                prob.inputs[f"{q}.{p}"] = (t, ex.get(q))  # type: ignore[assignment]
    return prob


def _outpost_engine(rs: RuleSet, ex: A.ExampleDecl) -> dict[str, int] | str:
    """The same outpost example asked of the compiled engine (runtime/outposts.py): a game with one
    seat per player the example names, their followers in the outpost's pool, then the rules of
    `when` on that outpost (for `overflow`: a catapult comes to its full slot).  The points each
    seat scored, by the example's names."""
    name, when = str(ex.get("outpost")), str(ex.get("when", ""))
    followers = _mapping(ex.get("followers", ())) or {}
    names = list(_mapping(ex.get("points")) or {})
    lo, hi = rs.player_range()
    if not lo <= len(names) <= hi:
        return f"the engine plays {lo} to {hi} players, and the example names {len(names)}"
    g = engine_of(rs).new_game(players=len(names), seed=0, names=names)
    t = g.track_index(name)
    fig = g.figure_index("follower")
    if t is None or fig is None:
        return f"the engine has no outpost `{name}` or no follower"
    for p, who in enumerate(names):
        g.supply.left[p][fig] += followers.get(who, 0)
        g.outposts.pools[t].extend([(p, fig)] * followers.get(who, 0))
    before = list(g.scores)
    outposts = _runtime(g, "outposts")
    if when == "overflow":
        g.outposts.catapults[t] = g.R.TRACKS[t][4]
        g.outposts.queue = [("sym", t, "")]
        outposts.srun(g)
    else:
        outposts.run_rules(g, when, t)
    return {who: g.scores[p] - before[p] for p, who in enumerate(names)}


def _reads(e: A.Expr, name: str) -> bool:
    from ..compiler.pyexpr import free_names
    return name in free_names(e)


def _formula_problem(ex: A.ExampleDecl) -> Problem | str:
    text = str(ex.get("formula"))
    try:
        mod = parse(f"module formula\nstate value = {text}\n", "<formula>")
        expr = mod.items[0].init  # type: ignore[union-attr]
    except ParseFailure as err:
        return f"`formula` does not parse: {err}"
    from ..dsl.limits import check_module

    over = check_module(mod)  # the limits of every rule file hold in a formula too (no 10**18 literal)
    if over:
        return f"`formula`: {over[0].message}"
    followers = _mapping(ex.get("followers"))
    printed_map = _mapping(ex.get("points"))
    single = ex.get("points") if printed_map is None else None
    if single is None:
        single = ex.get("expect")
    unknown = set(_words(ex.get("unknown")))
    prob = Problem()
    base = Env(tag="", auto=False)
    for k, v in ex.fields:
        if k in RESERVED:
            continue
        if isinstance(v, int):
            t = z3.Int(k)
            prob.inputs[k] = (t, v)
            base.names[k] = t
    for k in unknown:
        t = z3.Int(k)
        prob.unknowns[k] = t
        base.names[k] = t
    try:
        if followers is not None and printed_map is not None:
            for p, n in followers.items():
                c = z3.Int(f"followers.{p}")
                prob.inputs[f"followers.{p}"] = (c, n)
                prob.domain.append(c >= 0)
                env = Env(tag="", auto=False, names=dict(base.names))
                env.names["followers"] = c
                prob.computed[p] = encode(expr, env)
            prob.printed = {p: printed_map.get(p, 0) for p in followers}
        elif single is not None:
            prob.computed["value"] = encode(expr, base)
            prob.printed = {"value": single if isinstance(single, int) else str(single) == "true"}
        else:
            return "a `formula` example needs `points` (with `followers`) or `expect`"
    except EncodeError as err:
        return f"`formula`: {err} (give it as a key of the example)"
    except (z3.Z3Exception, ValueError, TypeError, IndexError) as err:  # wrong type or arity in the formula
        return (f"`formula` `{text[:80]}` cannot be evaluated: a function with the wrong number of arguments, "
                f"or a number where a condition belongs (or the reverse) ({str(err)[:120]})")
    for p, v in prob.printed.items():  # a condition's example says true/false, a number's a number
        is_cond = z3.is_bool(prob.computed[p])
        if is_cond != isinstance(v, bool):
            return (f"`formula` `{text[:80]}` is {'a condition (true or false)' if is_cond else 'a number'}, "
                    f"but the example gives {'the number ' + str(v) if is_cond else str(v).lower()}")
    return prob


def _place_example(rs: RuleSet, ex: A.ExampleDecl) -> ExampleResult:
    from .river import _env, river_deck, rule_step

    deck = river_deck(rs)
    kind = str(ex.get("feature", ""))
    if deck is None or deck.kind != kind:
        return ExampleResult(ex, "invalid", f"these rules have no river of kind `{kind}` to place")
    # the rules of the example's clauses: another module's rule for the same tiles (Siege's first
    # river curve, SIEGE-SETUP-1) is not what a River example pins down
    mine = {c.clause for c in ex.cites}
    own = [r for r in deck.rules if mine & {c.clause for c in r.cites}]
    if own:
        from dataclasses import replace

        deck = replace(deck, rules=own)
    words = _words(ex.get("turns"))
    if any(w not in TURNS for w in words):
        return ExampleResult(ex, "invalid", "`turns` is a list of left, straight, right")
    want = str(ex.get("legal", "")) == "true"
    init = _env(deck, "@0")
    state = {k: encode(sd.init, init) for k, sd in deck.states.items()}
    facts = deck.domain.players(deck.players) + init.facts
    legal_all = []
    first_bad = None
    for i, w in enumerate(words, 1):
        ok, state, step_facts = rule_step(deck, state, z3.IntVal(TURNS[w]), f"@{i}")
        facts += step_facts
        ok_v = prove(ok, facts, minimal_core=False).proved  # legal in every game these rules allow
        legal_all.append(ok_v)
        if not ok_v and first_bad is None:
            first_bad = i
    got = all(legal_all)
    desc = " ".join(words)
    why = "" if got else f" (tile {first_bad}, {words[first_bad - 1]}, breaks the rule)"
    if got == want:
        return ExampleResult(ex, "ok", f"{desc}: {'legal' if got else 'illegal'}{why}, as stated")
    status = "conflict" if ex.get("conflict") else "inconsistent"
    return ExampleResult(ex, status, f"{desc}: the example says {'legal' if want else 'illegal'}, "
                                     f"the rules make it {'legal' if got else 'illegal'}{why}")


def _offsets(v: object) -> list[tuple[int, int]] | None:
    """"dx dy, dx dy" -> [(dx, dy), ...], or None if malformed."""
    out = []
    for part in str(v or "").split(","):
        xy = part.split()
        if not xy:
            continue
        try:
            dx, dy = (int(n) for n in xy)
        except ValueError:
            return None
        out.append((dx, dy))
    return out


MAX_REACH = 40  # the widest test board a capture example builds, in tiles each way from the tower


def _capture_example(rs: RuleSet, ex: A.ExampleDecl) -> ExampleResult:
    """A capture's range, asked of the compiled engine (runtime/prisoners.py) on a board built
    for the example: the rules' own range function and in-line test, no formula of ours."""
    after = str(ex.get("capture"))
    cap = rs.captures.get(after)
    if cap is None:
        return ExampleResult(ex, "invalid", f"these rules have no `capture ... after put {after}`")
    height, expect = ex.get("height"), ex.get("expect")
    target = _offsets(ex.get("target")) if ex.get("target") is not None else None
    gaps = _offsets(ex.get("gaps"))
    if not isinstance(height, int) or not 1 <= height <= 20 or expect is None or gaps is None or \
            (target is not None and len(target) != 1):
        return ExampleResult(ex, "invalid", "a capture example needs `height` (1..20), `expect`, and `target` "
                                            "and `gaps` as \"dx dy\" offsets")
    eng = engine_of(rs)
    R = eng.rules
    g = eng.new_game(players=2, seed=0)
    agi = g.figure_index(after)
    victims = [gi for gi in (g.figure_index(f) for f in cap.figures) if gi is not None]
    code = lambda t: len(set(t.edges)) == 1  # noqa: E731  one edge code all round: any two such tiles fit

    def tile_with(kinds, edge=None):
        for tid, t in enumerate(R.TILES):
            if code(t) and (edge is None or t.edges[0] == edge):
                o = R.ORIENT[tid][0]
                fi = next((i for i, f in enumerate(o.feats) if f.kind in kinds), None)
                if fi is not None:
                    return o, fi
        return None

    tower = tile_with(R.FIG_KINDS[agi])
    if tower is None:
        return ExampleResult(ex, "invalid", f"no tile with the same edge all round carries a feature a {after} stands on")
    target_tile, vgi = None, None
    for gi in victims:
        target_tile = tile_with(R.FIG_KINDS[gi], tower[0].edges[0])
        if target_tile is not None:
            vgi = gi
            break
    if target_tile is None:
        return ExampleResult(ex, "invalid", "no tile like the tower's carries a feature a capturable figure stands on")
    ox, oy = 1000, 1000  # far from the start landscape

    def build(reach: int):
        """The test board: the tower, every cell up to `reach` away (but the gaps) laid, the figures put,
        the capture pending.  Returns (game, None) or (None, why the example cannot be built)."""
        g = eng.new_game(players=2, seed=0)
        cells = [(dx, dy) for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1) if (dx, dy) != (0, 0)]
        figures_at = set(target) if target is not None else set(cells)
        g.board.place(tower[0], (ox, oy))
        seg = g.board.tiles[(ox, oy)][1] + tower[1]
        for dx, dy in cells:
            if (dx, dy) in gaps:
                continue
            g.board.place(target_tile[0], (ox + dx, oy + dy))
        g.supply.left[0][agi] = g.supply.left[1][vgi] = 10 ** 6
        if target is None or target[0] == (0, 0):  # the tower's own tile: a figure beside the tower
            fi = next((i for i, f in enumerate(tower[0].feats) if i != tower[1] and f.kind in R.FIG_KINDS[vgi]), None)
            if fi is None:
                return None, f"the tower's tile has no feature a {R.FIGURES[vgi].name} stands on"
            _runtime(g, "figures").put_figure(g, 1, vgi, g.board.tiles[(ox, oy)][1] + fi)
        for dx, dy in sorted(figures_at):
            if (dx, dy) not in gaps and (ox + dx, oy + dy) in g.board.tiles and (dx, dy) != (0, 0):
                _runtime(g, "figures").put_figure(g, 1, vgi, g.board.tiles[(ox + dx, oy + dy)][1] + target_tile[1])
        for _ in range(height):
            _runtime(g, "figures").put_figure(g, 0, agi, seg)
        g.open_decisions = True  # the decision stays open even with nothing in range
        _runtime(g, "prisoners").capture_pending(g, 0, agi, seg, (ox, oy), [])
        return g, None

    # the board reaches one tile beyond the capture's own range (the rule's range function, read by the
    # engine on this tower): a house rule's longer reach is measured, not cut off at the board's edge
    far = [max(abs(dx), abs(dy)) for dx, dy in (target or []) + gaps]
    reach, g = max([height + 1] + far), None
    for _ in range(4):
        g, why = build(reach)
        if g is None:
            return ExampleResult(ex, "invalid", why)
        rng = g.prisoners.pending.reach if g.prisoners.pending is not None else 0
        if not isinstance(rng, int) or rng < reach:
            break
        if rng + 1 > MAX_REACH:
            return ExampleResult(ex, "invalid", f"the capture's range is {rng} tiles at height {height}: a test board "
                                                f"wider than {MAX_REACH} tiles each way is not built")
        reach = rng + 1
    reached = {g.board.seg_cell[a.segment] for a in g.capture_options()}
    if target is not None:
        got: int | bool = (ox + target[0][0], oy + target[0][1]) in reached
        what = f"a {R.FIGURES[vgi].name} at {target[0][0]:+d} {target[0][1]:+d} from the tower" + \
            (f" with {len(gaps)} empty cell(s) between" if gaps else "")
        desc = f"{what}: {'in range' if got else 'out of range'}"
    else:
        got = len(reached)
        desc = f"{got} tiles in range"
    desc = f"a tower of {height} {after}(s): {desc} (the compiled engine's capture options)"
    if str(got).lower() == str(expect).lower():
        return ExampleResult(ex, "ok", desc + ", as the rulebook says")
    status = "conflict" if ex.get("conflict") else "inconsistent"
    return ExampleResult(ex, status, f"{desc}; the rulebook says {str(expect).lower()}")


def overridden_by(rs: RuleSet, ex: A.ExampleDecl) -> A.Span | None:
    """The house rule's `override` of a rule this example checks (its score, recall, owners or
    complete rule, or the `on place` rules of a river example), if a later module replaced it."""
    kind, when = str(ex.get("feature", "")), str(ex.get("when", ""))
    if ex.get("formula") is not None:
        return None
    if ex.get("capture") is not None:  # a capture's range: the `capture ... after put F` rule
        return rs.overrides.get(("capture", str(ex.get("capture"))))
    if ex.get("outpost") is not None:
        spans = [sp for k, sp in rs.overrides.items() if k[:2] == ("on", when) and str(ex.get("outpost")) in k[2]]
        return spans[0] if spans else None
    if when == "place":
        keys = [k for k in rs.overrides if k[:3] == ("on", "place", kind)]
        # a state those rules read, given another start value (`override state river_turn = -1`): the house
        # rule changes what the example's sequence does, as it changes the records (a note, issue 35)
        keys += [("state", n) for n in _states_read(rs, kind)]
    elif when == "recall":
        keys = [("recall", str(ex.get("figure", "")))]
    else:
        fig = str(ex.get("figure", ""))
        keys = [("score", kind, when, fig) if (kind, when, fig) in rs.figure_scores else ("score", kind, when)]
    keys += [("owners",), ("complete", kind)] if when != "place" else []
    spans = [rs.overrides[k] for k in keys if k in rs.overrides]
    return spans[0] if spans else None


def _states_read(rs: RuleSet, kind: str) -> list[str]:
    """The `state`s the `on place of KIND` rules read or set."""
    from ..compiler.pyexpr import free_names

    out: list[str] = []
    for on in rs.ons:
        if on.event != "place" or on.of != kind:
            continue
        exprs = ([on.where] if on.where is not None else []) + \
            [a.test if isinstance(a, A.Require) else a.value for a in on.actions]
        out += [n for e in exprs for n in free_names(e) if n in rs.states]
        out += [a.name for a in on.actions if not isinstance(a, A.Require) and getattr(a, "name", None) in rs.states]
    return list(dict.fromkeys(out))


def check_example(rs: RuleSet, ex: A.ExampleDecl) -> ExampleResult:
    res = _check_example(rs, ex)
    # the rule an example checks, replaced by a house rule: it now disagrees, or the rule it needs is
    # gone ("these rules have no ..."): a note at the house rule's line, not a failure
    gone = res.status == "invalid" and res.message.startswith("these rules have no")
    house = overridden_by(rs, ex) if gone or res.status in ("inconsistent", "conflict", "conflict-missing") else None
    if house is None or house.file == ex.span.file:  # the house rule's own example states what it gives
        return res
    ref = res.ref
    if res.status == "conflict-missing":
        msg = (f"this house rule ({where(house)}) changes {ref}: the rules now give the printed points "
               f"({res.message.split('printed points (')[-1].split(')')[0]})")
    elif res.gives:
        msg = f"this house rule ({where(house)}) changes {ref}: the rulebook prints {res.printed}, the house rule gives {res.gives}"
    else:
        msg = f"this house rule ({where(house)}) changes {ref}: {res.message.replace('these rules have no', 'the rules now have no')}"
    msg += f" (the example: {where(ex.span)})"
    return ExampleResult(ex, "changed", msg, [], res.printed, res.gives, house)


def _check_example(rs: RuleSet, ex: A.ExampleDecl) -> ExampleResult:
    if ex.get("skip") is not None:
        return ExampleResult(ex, "skipped", str(ex.get("skip")))
    if ex.get("when") == "place":
        return _place_example(rs, ex)
    if ex.get("capture") is not None:
        return _capture_example(rs, ex)
    if ex.get("formula") is not None:
        prob = _formula_problem(ex)
    elif ex.get("outpost") is not None:
        prob = _outpost_problem(rs, ex)
    else:
        prob = _rule_problem(rs, ex)
    if isinstance(prob, str):
        return ExampleResult(ex, "invalid", prob)
    res = solve(ex, prob)
    if ex.get("outpost") is not None and res.status == "ok":
        got = _outpost_engine(rs, ex)
        printed = _mapping(ex.get("points")) or {}
        if isinstance(got, str):
            return ExampleResult(ex, "invalid", got)
        if got != printed:
            return ExampleResult(ex, "inconsistent", f"the rules agree, but the compiled engine gives {_pts(got)}, "
                                                     f"not {_pts(printed)}", [], _pts(printed), _pts(got))
        res.message += " (and the compiled engine gives the same)"
    if ex.get("formula") is not None and res.status in ("ok", "inferred"):
        res.message += f" (the rulebook's formula `{ex.get('formula')}`; the language has no rule for it yet)"
    return res


def check_examples(rs: RuleSet) -> list[ExampleResult]:
    return [check_example(rs, ex) for ex in rs.examples]


# --------------------------------------------------------------- registry
def _clauses(rs: RuleSet) -> list[str]:
    return sorted({c.clause for e in rs.examples for c in e.cites})


@register("examples", _clauses, applies=lambda rs: bool(rs.examples))
def examples(rs: RuleSet) -> list[Diagnostic]:
    """The rulebooks' worked examples agree with the rules (z3); known misprints are reported."""
    out: list[Diagnostic] = []
    results = check_examples(rs)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
        msg = "\n    ".join([f"example {r.ref}: {r.status}: {r.message}"] + r.details)
        if not r.ok:
            out.append(Diagnostic(r.example.span, msg, "example"))
        elif r.status in ("conflict", "inferred", "skipped", "changed"):
            out.append(Diagnostic(r.at or r.example.span, msg, "example", "note"))
    if results:
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        out.append(Diagnostic(results[0].example.span, f"{len(results)} worked examples: {summary}", "example", "note"))
    return out
