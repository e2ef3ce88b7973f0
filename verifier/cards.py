"""The card game's checks (rulebook 001): z3 proofs about the rules and the engine check.

  card-deal          every player count's deal uses exactly the cards the deck holds after the
                     layout (z3, over the rule file's `deal`, `layout` and `card` statements),
                     and the `example`s with `players = P  expect = N` hold
  card-conservation  every card lies in exactly one of deck, a row, a hand, a claimed pile, a
                     chest, removed: an inductive z3 proof over the moves of the engine (layout,
                     deal, play, claim resolution with its misplaced cards, the end), from the
                     start where the deck holds the cards in play and the box the ones aside
  card-scores        no scoring is ever negative, so scores never decrease (z3, each `score`,
                     `misplaced`, over every take the rules allow: a refutation shows the take)
  card-examples      the rulebook's worked examples (`example ... { score = NAME ... points = N }`)
                     hold for the rule file's expression, by z3 and by the compiled engine
  card-engine        random games of the compiled engine; after every move the engine's card
                     locations are recounted from its containers and compared, every round's
                     claims are worked out anew from the rows and compared with what each player
                     got, and the 140 cards are each found once
"""
from __future__ import annotations

import random

import z3

from ..dsl import ast as A
from ..dsl.cards import CONTEXTS, KIND_FUNCTIONS
from ..dsl.family import CARDS as FAMILY
from ..dsl.model import RuleSet
from ..compiler.pyexpr import free_names

from .checks import register
from .encode import encode
from .solver import Fact, prove
from .source import where

CARDS = lambda rs: rs.family is FAMILY  # noqa: E731  (the checks apply to a card game only)
ENGINE_GAMES = 40


class _CardEnv:
    """What a card expression's names stand for, for the one z3 encoder (verifier/encode.py): a quantity
    or a kind function's read (`taken(people)`) is its symbol; a table `t(n)` is its entries."""

    def __init__(self, env: dict, tables: dict):
        self.names, self.tables = env, tables

    def name(self, n: str) -> z3.ExprRef:
        return self.names[n]

    def call(self, fn: str, args) -> z3.ExprRef:
        if fn in self.tables:
            n = encode(args[0], self)
            vals = self.tables[fn]
            out = z3.IntVal(vals[-1])
            for i in range(len(vals) - 2, -1, -1):
                out = z3.If(n <= i, vals[i], out)  # below 0: the first entry
            return out
        return self.names[f"{fn}({args[0].name})"]


def _encode(e: A.Expr, env: dict, tables: dict) -> z3.ExprRef:
    return encode(e, _CardEnv(env, tables))


def _domain(rs: RuleSet, ctx: str) -> tuple[dict, list[Fact]]:
    """Symbols for every quantity a card expression may read in `ctx`, and the facts that bound
    them: what any take, chest or game state of these rules can show."""
    cg = rs.cards
    fns, names = CONTEXTS[ctx]
    env: dict = {}
    facts: list[Fact] = []
    lo, hi = rs.player_range()
    env["players"] = z3.Int("players")
    facts.append(Fact(z3.And(env["players"] >= lo, env["players"] <= hi), "players", f"{lo} to {hi} players"))
    env["round"] = z3.Int("round")
    facts.append(Fact(env["round"] >= 1, "builtin", "rounds count from 1"))
    env["best"] = z3.Int("best")
    facts.append(Fact(env["best"] >= 0, "builtin", "scores start at 0 and never decrease"))
    ncol = len(cg.colours)
    for k in cg.kinds():
        types = [t for t in cg.types() if t.kind == k]
        copies = sum(t.count for t in types)
        vmin, vmax = min(t.value for t in types), max(t.value for t in types)
        tk, vk, hk, ck, ok = (z3.Int(f"{f}({k})") for f in KIND_FUNCTIONS)
        env.update({f"taken({k})": tk, f"values({k})": vk, f"held({k})": hk, f"chest({k})": ck, f"colours({k})": ok})
        coloured = types[0].colour is not None
        facts.append(Fact(z3.And(tk >= 0, tk <= copies, hk >= 0, hk <= copies, ck >= 0, ck <= hk,
                                 ok >= 0, ok <= hk, ok <= (ncol if coloured else 0), z3.Implies(hk > 0, ok >= (1 if coloured else 0)),
                                 vk >= vmin * tk, vk <= vmax * tk),
                          "builtin", f"{k}: {copies} cards, values {vmin} to {vmax}, {ncol} colours"))
        if ctx == "take":  # what was just taken is held (unless it went to the discard)
            if cg.destination(k) != "removed":
                facts.append(Fact(hk >= tk, "builtin", f"taken {k} cards are held after the take"))
    return env, facts


def _tables(rs: RuleSet) -> dict:
    return {n: t.values for n, t in rs.cards.tables.items()}


@register("card-deal", ["CARD-DEAL-1", "CARD-END-1"], applies=CARDS)
def card_deal(rs: RuleSet):
    """Each player count's deal uses exactly the cards the deck holds after the layout."""
    cg = rs.cards
    out = []
    deck = cg.in_play() - (cg.layout.count if cg.layout else 0)
    p = z3.Int("players")
    lo, hi = rs.player_range()
    dealt = z3.IntVal(0)
    for r in cg.deal.rows:
        dealt = z3.If(p == r.players, r.players * r.cards * r.rounds, dealt)
    facts = [Fact(z3.And(p >= lo, p <= hi), where(rs.players.span) if rs.players else "builtin", f"{lo} to {hi} players"),
             Fact(z3.BoolVal(True), where(cg.deal.span), "the deal table")]
    res = prove(dealt == deck, facts, show={"players": p, "dealt": dealt})
    if res.refuted:
        z3_says = (f"with {res.model['players']} players the deal uses {res.model['dealt']} cards, "
                   f"but the deck holds {deck} after the layout ({where(cg.deal.span)})")
        # refuted only with a game of the compiled engine at that player count (verifier/witness.py)
        from .witness import card_deal_search

        try:
            found = card_deal_search(rs, res.model["players"])
        except Exception as exc:  # rules the engine cannot play: said, never a refutation
            from .witness import Search

            found = Search(None, 0, 0, note=f"the engine failed ({type(exc).__name__}: {exc})")
        if found.witness is not None:
            out.append("\n    ".join([f"  refuted: {z3_says} [CARD-DEAL-1]"] + found.witness.lines()))
        else:
            out.append(f"  not proved: the deal table does not use the deck exactly: {z3_says}; no game of the compiled "
                       f"engine shows it ({found.note}) [CARD-DEAL-1]")
    elif not res.proved:
        out.append(f"  not proved (z3: {res.reason}): the deal uses the deck exactly")
    for ex in rs.examples:
        if ex.get("score") is None and ex.get("players") is not None:
            n, want = ex.get("players"), ex.get("expect")
            row = cg.deal_for(n) if isinstance(n, int) else None
            if row is None or not isinstance(want, int):
                out.append(f"  {where(ex.span)}: example `{ex.name}`: no deal for players = {n}, or no `expect` number")
                continue
            got = prove(z3.IntVal(row.players * row.cards * row.rounds) == want, [])
            house = rs.overrides.get(("deal",))
            if not got.proved and house is not None and house.file != ex.span.file:
                # a house rule's deal changes what the rulebook's example says: a note at the house rule, as
                # the worked examples and the records say it (issue 35 item 7)
                from ..dsl.diagnostics import Diagnostic

                out.append(Diagnostic(house, f"example `{ex.name}`: changed: this house rule's deal gives {n} players "
                                             f"{row.players * row.cards * row.rounds} cards, the rulebook's example "
                                             f"{want} (the example: {where(ex.span)})", "example-changed", "note"))
                continue
            if not got.proved:
                out.append(f"  {where(ex.span)}: example `{ex.name}`: {n} players are dealt "
                           f"{row.players * row.cards * row.rounds} cards, not {want} [CARD-DEAL-1]")
    return out


@register("card-conservation", ["CARD-COMP-1", "CARD-DEAL-1", "CARD-TURN-1", "CARD-ROUND-1", "CARD-END-1"], applies=CARDS)
def card_conservation(rs: RuleSet):
    """Every card lies in exactly one location, the printed number in all, through every move."""
    cg = rs.cards
    locs = ("deck", "rows", "hands", "piles", "chests", "removed")
    s = {k: z3.Int(k) for k in locs}
    t = {k: z3.Int(k + "'") for k in locs}
    total = cg.count()

    def inv(v):
        return z3.And(*(v[k] >= 0 for k in locs), z3.Sum(*(v[k] for k in locs)) == total)

    def same(*keep):
        return [t[k] == s[k] for k in locs if k not in keep]

    n = z3.Int("moved")
    a, b, c, d = z3.Ints("to_pile to_chest to_removed misplaced")
    layout = cg.layout.count if cg.layout else 0
    p, h = z3.Ints("players hand")
    deals = z3.Or(*(z3.And(p == r.players, h == r.cards) for r in cg.deal.rows))
    moves = {
        "layout": z3.And(s["deck"] >= layout, t["deck"] == s["deck"] - layout, t["rows"] == s["rows"] + layout,
                         *same("deck", "rows")),
        "deal": z3.And(deals, s["deck"] >= p * h, t["deck"] == s["deck"] - p * h, t["hands"] == s["hands"] + p * h,
                       *same("deck", "hands")),
        "play": z3.And(s["hands"] >= 1, t["hands"] == s["hands"] - 1, t["rows"] == s["rows"] + 1, *same("hands", "rows")),
        "claims": z3.And(a >= 0, b >= 0, c >= 0, d >= 0, a + b + c + d <= s["rows"],
                         t["rows"] == s["rows"] - (a + b + c + d), t["piles"] == s["piles"] + a,
                         t["chests"] == s["chests"] + b, t["removed"] == s["removed"] + c + d, *same("rows", "piles", "chests", "removed")),
        "end": z3.And(t["rows"] == 0, t["hands"] == 0, t["removed"] == s["removed"] + s["rows"] + s["hands"],
                      *same("rows", "hands", "removed")),
    }
    out = []
    init = {k: 0 for k in locs}
    init.update(deck=cg.in_play(), removed=cg.count() - cg.in_play())
    bad = []  # (the step, what z3 says): refuted only with a game of the compiled engine that loses a card
    if sum(init.values()) != total or any(v < 0 for v in init.values()):
        bad.append(("start", f"the start holds {init}, not the {total} printed cards each in one location", {}))
    for name, step in moves.items():
        res = prove(inv(t), [Fact(inv(s), "builtin", "every card in one location before the move", assumed=True),
                             Fact(step, "builtin", f"the engine's {name} move")])
        if res.refuted:
            bad.append((name, f"the {name} move loses or makes cards: {res.model}", res.model))
        elif not res.proved:
            out.append(f"  not proved (z3: {res.reason}): the {name} move keeps every card")
    eng = None
    for name, z3_says, model in bad:
        from .witness import Search, card_conservation_search

        try:
            if eng is None:
                from ..compiler.build import load_engine

                eng = load_engine(rs)
            found = card_conservation_search(rs, name, model.get("players"), eng=eng)
        except Exception as exc:  # rules the engine cannot play: said, never a refutation
            found = Search(None, 0, 0, note=f"the engine failed ({type(exc).__name__}: {exc})")
        if found.witness is not None:
            out.append("\n    ".join([f"  refuted: {z3_says} [CARD-COMP-1]"] + found.witness.lines()))
        else:
            out.append(f"  not proved: z3: {z3_says}; not reached by any game tried: {found.note} [CARD-COMP-1]")
    return out


def _scores(rs: RuleSet):
    cg = rs.cards
    for (name, when), s in cg.scores.items():
        yield f"score {name} {'on take' if when == 'take' else 'at end'}", s.value, ("take" if when == "take" else "end"), s
    if cg.misplaced is not None:
        yield "misplaced", cg.misplaced.value, "misplaced", cg.misplaced


@register("card-scores", ["CARD-SCORE-1"], applies=CARDS)
def card_scores(rs: RuleSet):
    """No scoring is ever negative, so no score ever decreases."""
    from .witness import card_search

    out = []
    tables = _tables(rs)
    eng = None
    for label, expr, ctx, decl in _scores(rs):
        env, facts = _domain(rs, ctx)
        v = _encode(expr, env, tables)
        show = {k: x for k, x in env.items() if k in _reads(expr)}
        res = prove(v >= 0, facts, show={**show, "points": v})
        if res.refuted:
            inputs = ", ".join(f"{k} = {x}" for k, x in sorted(res.model.items()) if k != "points")
            clause = rs.cards.clause_of(decl, 'CARD-SCORE-1')
            # refuted only with a game of the compiled engine whose scoring goes below 0 (verifier/witness.py)
            feature, when = ("misplaced", "take") if label == "misplaced" else (label.split()[1], ctx)
            try:
                if eng is None:
                    from ..compiler.build import load_engine

                    eng = load_engine(rs)
                found = card_search(rs, feature, when, res.model.get("players"), label, eng=eng)
                note = found.note
            except Exception as exc:  # rules the engine cannot play: said, never a refutation
                found, note = None, f"the engine failed ({type(exc).__name__}: {exc})"
            z3_says = f"`{label}` gives {res.model.get('points')} points when {inputs or 'it is read'}"
            if found is not None and found.witness is not None:
                out.append("\n    ".join([f"  {where(decl.span)}: refuted: {z3_says}: a score decreases [{clause}]"]
                                         + found.witness.lines()))
            else:
                tried = note or (f"{found.games} games of the compiled engine ({found.players} players first, then "
                                 f"the others) never scored it below 0")
                out.append(f"  {where(decl.span)}: not proved: z3's take: {z3_says}; not reached by any game tried: "
                           f"{tried} [{clause}]")
        elif not res.proved:
            out.append(f"  {where(decl.span)}: not proved (z3: {res.reason}): `{label}` is never negative")
    return out


def _reads(e) -> set[str]:
    """The quantities a card expression reads: a name, or a kind function's read as one (`taken(people)`)."""
    return free_names(e, whole=KIND_FUNCTIONS.__contains__)


def example_inputs(rs: RuleSet, ex: A.ExampleDecl) -> dict[str, int]:
    """An example's quantities: `taken = {people: 3}`, `values = {...}`, `held`, `chest`, `colours`;
    anything not given is 0, and `held` defaults to `taken`."""
    got: dict[str, int] = {}
    for fn in KIND_FUNCTIONS:
        m = ex.get(fn)
        for k, v in (m if isinstance(m, tuple) else ()):
            got[f"{fn}({k})"] = v
    for k in rs.cards.kinds():
        got.setdefault(f"held({k})", got.get(f"taken({k})", 0))
        for fn in KIND_FUNCTIONS:
            got.setdefault(f"{fn}({k})", 0)
    lo, _ = rs.player_range()
    got.update(players=ex.get("players", lo) if isinstance(ex.get("players", lo), int) else lo, round=1, best=0)
    return got


@register("card-examples", ["CARD-SCORE-1"], applies=CARDS)
def card_examples(rs: RuleSet):
    """The rulebook's worked examples hold: by z3 and by the compiled engine."""
    from ..compiler.build import load_engine

    cg = rs.cards
    out = []
    eng = None
    tables = _tables(rs)
    for ex in rs.examples:
        name = ex.get("score")
        if name is None:
            continue
        decl = cg.scores.get((name, "take")) or cg.scores.get((name, "end"))
        want = ex.get("points")
        if decl is None or not isinstance(want, int):
            out.append(f"  {where(ex.span)}: example `{ex.name}`: no `score {name}` in these rules, or no `points` number")
            continue
        inputs = example_inputs(rs, ex)
        env = {k: z3.IntVal(v) for k, v in inputs.items()}
        res = prove(_encode(decl.value, env, tables) == want, [])
        changed = any(key[0] == "card score" and key[1] == name for key in rs.overrides)
        if not res.proved:
            got = z3.simplify(_encode(decl.value, env, tables))
            msg = (f"  {where(ex.span)}: example `{ex.name}` ({ex.get('ref', '') or ex.get('source', '')}): "
                   f"`score {name}` gives {got}, the rulebook prints {want}")
            if changed:  # a house rule replaced the scoring: the rulebook's example is not its (a note, not a failure)
                from ..dsl.diagnostics import Diagnostic

                out.append(Diagnostic(ex.span, f"example `{ex.name}`: the house rule's `score {name}` gives {got}, "
                                               f"the rulebook prints {want}", "example-changed", "note"))
                continue
            out.append(msg + f" [{cg.clause_of(decl, 'CARD-SCORE-1')}]")
            continue
        if eng is None:
            eng = load_engine(rs)
        fn = dict((n, f) for n, _, f in (*eng.rules.SCORES_TAKE, *eng.rules.SCORES_END))[name]
        got = fn(_Probe(inputs))
        if got != want:
            out.append(f"  {where(ex.span)}: example `{ex.name}`: the compiled engine gives {got}, z3 and the "
                       f"rulebook {want}")
    return out


class _Probe:
    """The engine's quantities object, answering from an example's inputs."""

    def __init__(self, inputs: dict[str, int]):
        self._in = inputs
        self.players, self.round, self.best = inputs["players"], inputs["round"], inputs["best"]

    def __getattr__(self, fn):
        if fn in KIND_FUNCTIONS:
            return lambda kind: self._in.get(f"{fn}({kind})", 0)
        raise AttributeError(fn)


# ------------------------------------------------------------------ the engine check
def card_move_cost(cards: int) -> int:
    """A move's charge to the rule set's budget (verifier/budget.py): the move, its listing and the
    recount, which sorts every printed card.  Measured (CPU, `card_engine` alone): 0.12 ms a move with
    the 140 printed cards, 0.50 ms with 2,000 (a rule file's most); at budget.UNITS_PER_SECOND that is
    about a quarter of MOVE_UNITS plus one unit per card."""
    from .budget import MOVE_UNITS

    return MOVE_UNITS // 4 + cards


@register("card-engine", ["CARD-COMP-1", "CARD-TURN-1", "CARD-ROUND-1"], applies=CARDS)
def card_engine(rs: RuleSet):
    """Random games: the engine's card locations match an independent recount after every move.
    The games draw on the rule set's budget (`tessera verify --budget`): once it is spent they stop,
    and the check is inconclusive, never a pass on games it did not play."""
    from ..compiler.build import load_engine

    from .budget import current
    from .witness import card_recount

    eng = load_engine(rs)
    R = eng.rules
    printed = sorted(n for n, spec in R.CARDS for _ in range(spec[3]))
    cost = card_move_cost(len(printed))
    budget = current()
    finished = 0
    lo, hi = rs.player_range()
    out: list[str] = []
    for i in range(ENGINE_GAMES):
        if budget.exhausted:
            break
        players = lo + i % (hi - lo + 1)
        g = eng.new_game(players, i)
        rng = random.Random(1000 + i)
        moves = 0
        claims = None  # the round's claims, recounted when the round's last play or claim was made
        kept: list = []
        turns: list = []  # the game as a record's moves: a failure is written as a tessera-cards/1 record
        owned = [[] for _ in range(players)]
        while not g.ended and not out:
            if not budget.spend(cost):
                break  # the budget is spent: this game stops here, unfinished
            a = rng.choice(g.legal_actions())
            mover, rnd = g.current, g.round
            rows = {r: [list(e) if isinstance(e, list) else e for e in v] for r, v in g.rows.items()}
            if claims is None:
                owned = [sorted(g.piles[p] + g.chests[p]) for p in range(players)]
            turns.append(g.record_of(a))
            g.apply_action(a)
            moves += 1
            here = f"game {i} (seed {i}, {players} players), move {moves} {a!r}"
            found, mine = card_recount(g)
            if found != printed:
                out.append(f"  {here}: the cards found are not the {len(printed)} printed ones, each once [CARD-COMP-1]")
            if g.locations() != mine:
                out.append(f"  {here}: the engine counts {g.locations()}, the recount {mine} [CARD-COMP-1]")
            if a[0] in ("play", "claim") and (g.round != rnd or g.ended or g.phase == "keep"):
                if a[0] == "play":  # the rows as this move left them, before the round was resolved
                    rows[a[2]].append([a[1], False, mover])
                else:
                    rows[a[1]].append(("F", mover))
                claims, kept = recount_claims(rows), []
            elif a[0] == "keep":
                kept.append((mover, a[1]))
            if claims is not None and g.phase != "keep":  # the round is resolved: compare what each took
                for p in range(players):
                    want = sorted([c for c, row in claims.get(p, [])
                                   if not (R.CARD[c][1] and R.CARD[c][1] != row)
                                   and R.TAKE.get(R.CARD[c][0]) != "removed"]
                                  + [c for q, c in kept if q == p and R.TAKE.get(R.CARD[c][0]) != "removed"])
                    gained = _minus(sorted(g.piles[p] + g.chests[p]), owned[p])
                    if gained != want:
                        out.append(f"  {here}: player {p} took {gained}, the recount of the claims says {want} "
                                   f"[CARD-ROUND-1]")
                claims = None
        if out:
            out.extend(_engine_witness(rs, g, turns, i))
            break
        finished += g.ended
    if budget.exhausted and finished < ENGINE_GAMES and not out:
        out.append(f"inconclusive, not a pass: {finished} of {ENGINE_GAMES} games played to their end "
                   f"before the {budget.reason()}")
    return out


def _engine_witness(rs: RuleSet, g, turns: list, game: int) -> list[str]:
    """The failed game as a tessera-cards/1 record (the deck as dealt and every move to the failing one),
    replayed at once to the same scores and the same cards in each container (`tessera replay` shows the
    scores and the engine's own count of each location), so a refutation is a game a person can step
    through, not a seed of the check's loop."""
    from .witness import _card_replayed, _write_card, card_recount

    try:
        path = _write_card(rs, None, f"card-engine--game-{game}", g, turns)
        replayed = _card_replayed(path)
    except Exception as exc:  # the record cannot be written or is refused: said, the failure stands
        return [f"    (no record: {type(exc).__name__}: {exc})"]
    same = list(replayed.scores) == list(g.scores) and card_recount(replayed) == card_recount(g)
    said = "" if same else " (it does not replay to the same scores and cards: the engine is not deterministic)"
    return [f"    replay it: tessera replay {path}{said}",
            f"    see it:    tessera view {path} -o {path.with_suffix('.html')}"]


def recount_claims(rows: dict) -> dict:
    """Independent of the engine: who takes which cards from these rows.  Each feudal, left to
    right in its row, takes the cards since the field or the previous feudal (CARD-TURN-1)."""
    got: dict = {}
    for row, entries in rows.items():
        since = []
        for e in entries:
            if isinstance(e, tuple):
                got.setdefault(e[1], []).extend((c, row) for c in since)
                since = []
            else:
                since.append(e[0])
    return got


def _minus(after: list, before: list) -> list:
    out = list(after)
    for c in before:
        out.remove(c)
    return sorted(out)
