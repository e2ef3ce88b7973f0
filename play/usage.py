"""Rule usage: which rule of a rule set fired, how often, in the games `tessera simulate` played.

Every event the engine records names the clause of the rule that made it (docs/engine.md).
A worker counts each game's events by `event_key` (what happened and the clause: a scoring of
a feature at a moment, an award, a capture, a ransom, an exchange, a figure put on an outpost,
a catapult, an attack, a counterattack, a discard, a prisoner released at a round's end, a state an `on place` or
`on complete` rule set, the card game's deal); `catalogue(rs)` lists the statements of the
rule set that make such events, each with its clause and rule-file line, and says which key
each event counts under.  A statement fires once per event it makes: a scoring once per
feature scored (per clause), an `on overflow` once per attack (its points and removals are
part of that firing), an `on put ... may put` once per figure a player chose to send.

Every statement that changes the state or the figures fires an event (an `on` rule that sets a
state: its `state` event, once per time it applies; the deal: once per round), so a rule that only
changes state is counted too, and reported when it never fired.  Statements that change neither
(placement rules, `require`, `complete` conditions) are not listed: their effect shows in the
measures instead.  A statement an `override` replaced is not in the rule set: the override is
listed, once, in its place; the paired comparison (`per_game`) names a rule by its clause and what
it does, not its line, so an override and the rule it replaces are one row.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import ast as A

from ..compiler.runtime import events as E

# decisions a player takes or leaves: a rule of these kinds that never fired was never chosen
CHOSEN = ("capture", "ransom", "outpost", "recall")


def event_key(ev: dict, family: str = E.TILES) -> str | None:
    """The usage key of one engine event, or None for an event that is part of another firing
    (an outpost rule's points and removals, the card game's end): each event kind declares its
    `usage` (compiler/runtime/events.py)."""
    return E.usage_key(ev, family)


def count_events(events, family: str = E.TILES) -> dict[str, int]:
    """{usage key: times} over one game's events, keys sorted."""
    out: dict[str, int] = {}
    for ev in events:
        k = event_key(ev, family)
        if k is not None:
            out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class Rule:
    """A statement that fires: what it does, its clause, its rule-file line (`file:line`)."""

    what: str
    clause: str
    where: str
    chosen: bool  # a player's decision: "no player chose it" when it never fired
    category: str
    subject: str
    cites: tuple[str, ...]

    @property
    def label(self) -> str:
        """`CLAUSE (file:line)`, or `CLAUSE what` for an event no listed statement claims."""
        return f"{self.clause or '-'} ({self.where})" if self.where else f"{self.clause or '-'} {self.what}"


def _cites(decl) -> tuple[str, ...]:
    """Every clause a statement cites (its own list and those of its parts), first cite first."""
    out: list[str] = []
    for name in ("cites", "after_cites", "figures_cites", "within_cites"):
        for c in getattr(decl, name, ()) or ():
            if c.clause not in out:
                out.append(c.clause)
    return tuple(out)


def _where(span) -> str:
    from ..compiler.lower import where

    return where(span)


class Catalogue:
    """The firing statements of one rule set, and which of them each usage key counts under."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self._by: dict[tuple[str, str, str], int] = {}
        for i, r in enumerate(rules):
            for c in r.cites or ("",):
                self._by.setdefault((r.category, r.subject, c), i)

    def rule_of(self, key: str) -> Rule:
        """The statement a usage key counts under; one made up from the key when none is listed."""
        category, subject, clause = key.split("|", 2)
        i = self._by.get((category, subject, clause))
        if i is not None:
            return self.rules[i]
        return Rule(f"{category} {subject}".strip(), clause, "", category in CHOSEN, category, subject, (clause,))


def catalogue(rs) -> Catalogue:
    """The statements of RuleSet `rs` that fire (make events), in rule-file order."""
    rules: list[Rule] = []

    def add(decl, what, category, subject, chosen=False):
        rules.append(Rule(what, (_cites(decl) or ("",))[0], _where(decl.span), chosen, category, subject, _cites(decl)))

    if getattr(rs, "cards", None) is not None:  # the card game (rulebook 001)
        for (name, when), s in rs.cards.scores.items():
            add(s, f"score {name} {'on take' if when == 'take' else 'at end'}", "score", f"{name} {when}")
        deal = getattr(rs.cards, "deal", None)
        if deal is not None and getattr(deal, "span", None) is not None:
            add(deal, "deal the cards (each round)", "deal", "")
        mis = getattr(rs.cards, "misplaced", None)
        if mis is not None and getattr(mis, "span", None) is not None:
            add(mis, "score misplaced on take", "score", "misplaced take")
        rules.sort(key=lambda r: _order(r.where))
        return Catalogue(rules)
    for (kind, when), s in rs.scores.items():
        add(s, f"score {kind} {when}", "score", f"{kind} {when}")
    for (kind, when, fig), s in rs.figure_scores.items():
        add(s, f"score {kind} {when} by {fig}", "score", f"{kind} {when}")
    for (kind, when, fig), s in rs.trigger_scores.items():
        add(s, f"score {kind} {when} {fig}", "score", f"{kind} {when}")
    for fig, rc in rs.recalls.items():
        add(rc, f"recall {fig}", "recall", "", chosen=True)
    for name, a in rs.awards.items():
        add(a, f"award {'most ' if a.most else ''}{name}", "award", name)
    for fig, cap in rs.captures.items():
        add(cap, f"capture after {fig}", "capture", "", chosen=True)
    if rs.exchange is not None:
        add(rs.exchange, "exchange prisoners", "exchange", "")
    if rs.ransom is not None:
        add(rs.ransom, f"ransom {', '.join(rs.ransom.figures)}", "ransom", "", chosen=True)
    for op in rs.outpost_puts:
        add(op, f"on put {', '.join(op.figures)}{' of ' + ', '.join(op.kinds) if op.kinds else ''}: "
                f"may put {op.figure} on {op.slot}", "outpost", op.slot, chosen=True)
    for on in rs.track_ons:
        tracks = f" of {', '.join(on.tracks)}" if on.tracks else ""
        if on.event == "draw":
            shows = f" of {', '.join(on.shows)}" if on.shows else ""
            add(on, f"on draw{shows} (a catapult)", "catapult", "")
        elif on.event == "overflow":
            add(on, f"on overflow{tracks} (an attack)", "attack", "")
        else:
            add(on, f"on {on.event}{tracks} (a counterattack)", "counterattack", on.event)
    for on in rs.all(A.OnRoundDecl):
        figs = ", ".join(f for a in on.actions if isinstance(a, A.Release) for f in a.figures)
        add(on, f"on round end: release {figs} (a prisoner home)", "release", "")
    for on in rs.ons:  # `on place` / `on complete` rules that set a state: a `state` event each time
        sets = [a.name for a in on.actions if isinstance(a, A.SetAction)]
        if sets:
            add(on, f"on {on.event}{' of ' + on.of if on.of else ''}: set {', '.join(dict.fromkeys(sets))}",
                "state", "")
    pm = rs.placement.get("discard")
    if pm is not None:
        add(pm, "discard", "discard", "")
    rules.sort(key=lambda r: _order(r.where))
    return Catalogue(rules)


def _order(where: str):
    file, _, line = where.rpartition(":")
    return (file, int(line) if line.isdigit() else 0)


def usage(cat: Catalogue, rows: list[dict]) -> list[dict]:
    """Per firing statement of `cat` (and per key no statement claims): in how many of the games
    it fired (a rate with its Wilson interval) and how often per game (a mean with its t
    interval), from each row's `fired` counts."""
    from . import stats

    n = len(rows)
    keys = sorted({k for r in rows for k in r.get("fired", {})})
    extra: dict[str, Rule] = {}
    index = {id(r): i for i, r in enumerate(cat.rules)}
    per: dict[int, list[int]] = {i: [0] * n for i in range(len(cat.rules))}
    for k in keys:
        rule = cat.rule_of(k)
        i = index.get(id(rule))
        if i is None:
            extra[k] = rule
            i = len(cat.rules) + len(extra) - 1
            per[i] = [0] * n
        for g, r in enumerate(rows):
            per[i][g] += r.get("fired", {}).get(k, 0)
    all_rules = list(cat.rules) + list(extra.values())
    out = []
    for i, rule in enumerate(all_rules):
        xs = per[i]
        out.append({"clause": rule.clause, "where": rule.where, "what": rule.what, "chosen": rule.chosen,
                    "games": stats.rate_ci(sum(1 for x in xs if x), n), "per_game": stats.count_mean_ci(xs),
                    "total": sum(xs)})
    return out


def per_game(cat: Catalogue, rows: list[dict]) -> dict[str, list[int]]:
    """{rule: times it fired in each game}, for the paired comparison of `--against`: a rule is named by its
    clause and what it does (`BASE-CITY-2 score city complete`), not its rule-file line, so that a house
    rule's override and the rule it replaces are one rule, counted once."""
    out: dict[str, list[int]] = {}
    for g, r in enumerate(rows):
        for k, v in r.get("fired", {}).items():
            label = compared_label(cat.rule_of(k))
            out.setdefault(label, [0] * len(rows))[g] += v
    for rule in cat.rules:
        out.setdefault(compared_label(rule), [0] * len(rows))
    return out


def compared_label(rule: Rule) -> str:
    return f"{rule.clause or '-'} {rule.what}"


def never_fired(cat: Catalogue, rows: list[dict]) -> list[str]:
    """A warning per firing statement that fired in none of the games."""
    fired = {id(cat.rule_of(k)) for r in rows for k in r.get("fired", {})}
    n = len(rows)
    out = []
    for rule in cat.rules:
        if id(rule) not in fired:
            why = "no player chose it" if rule.chosen else "it never came into play"
            out.append(f"{rule.where}: {rule.clause or rule.what} never fired in {n} game{'s' if n != 1 else ''}: "
                       f"{why} ({rule.what})")
    return out
