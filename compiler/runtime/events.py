"""Events: one declared type per kind of event, the engine's whole story vocabulary.

The engine records what happened as plain dicts in `Game.events` (`{"turn", "kind", ...,
"clause"}`: JSON as it is, so records, `replay --json` and the viewer write them unchanged).
What every other layer does with an event is declared here, once per kind, the way
`moves.py` declares each move:

- `fields`: the keys the engine writes (in order; `optional` ones only sometimes) and `clause`,
  the rules constant (or table) its `clause` comes from;
- `answer`: how it goes into `tessera replay --json`'s answer (None: not at all; True: as it is;
  a tuple of keys: those keys, in that order; a function: its own form);
- `shown`: how the viewer lists it (the same choices; `pictures/board.py` reads it);
- `usage`: its key in rule usage (`compiler/usage.py`): a function of the event, None when the
  event is part of another firing (it is not counted on its own);
- `points`: the name of its field of points moved ({player: n}), and `source`, a function
  `(event, figures) -> [(label, n)]` giving the points by source beyond a feature's own scoring
  (simulate's `sources`); `feature`, a function giving the `points` table's key (per feature);
- `sentence`: the event in words (the viewer's list of events), and `step`: its part in the
  step's sentence (`pictures/steps.py`'s `step_label`): the phase it belongs to ("drawn": what
  the drawn tile brought; "before": before the tile is laid; "after": what the player's moves
  caused; "round": the round's end) and a function `(event, ctx) -> str`;
- `tally`: the column of simulate's per-game row that counts it, and which of them count;
- `mark`: for an event that takes a figure off the board, how the board marks where it stood
  (mark class, colour, the field naming the figure's owner, the mark's title);
  `at_outpost`: the outposts' panel names it beside the outpost it came to this step;
  `ledger`: its name in `tessera replay`'s table of points (None: not a row of that table).

Nothing else in the tree tests an event's `kind`: a layer asks this registry (`answer_event`,
`shown_event`, `usage_key`, `point_sources`, `sentence`, `tally`, `of_kind`).  A kind the
engine emits and this registry does not know raises `KeyError` where it is read, so a new event
is not silently dropped (tests/test_events.py plays every module and the card game and checks
that every kind emitted is registered and shown).  Standard library only: this module is copied
into every compiled engine with the rest of the runtime.

A new event: one `_event(...)` here (docs/architecture.md, "The path of a new event", has a
worked example), and the runtime line that appends it.
"""
from __future__ import annotations

TILES, CARDS = "tiles", "cards"


class Event:
    """One kind of event and what each layer does with it (see the module docstring)."""

    __slots__ = ("kind", "family", "fields", "optional", "clause", "doc", "answer", "shown", "usage", "points",
                 "source", "feature", "sentence", "step", "tally", "mark", "at_outpost", "ledger")

    def __init__(self, kind, family, fields, clause, doc, *, optional=(), answer=None, shown=None, usage=None,
                 points=None, source=None, feature=None, sentence=None, step=None, tally=None, mark=None,
                 at_outpost=False, ledger=None):
        self.kind, self.family, self.fields, self.optional = kind, family, tuple(fields), tuple(optional)
        self.clause, self.doc = clause, doc
        self.answer, self.shown, self.usage = answer, shown, usage
        self.points, self.source, self.feature = points, source, feature
        self.sentence, self.step, self.tally = sentence, step, tally
        self.mark, self.at_outpost, self.ledger = mark, at_outpost, ledger

    def __repr__(self):
        return f"Event({self.kind!r}, {self.family!r})"


# family -> kind -> Event
REGISTRY: dict[str, dict[str, Event]] = {TILES: {}, CARDS: {}}


def _event(kind, fields, clause, doc, family=TILES, **how):
    ev = Event(kind, family, fields, clause, doc, **how)
    REGISTRY[family][kind] = ev
    return ev


def _form(how, ev):
    if how is None:
        return None
    if how is True:
        return dict(ev)
    if isinstance(how, tuple):
        return {k: ev[k] for k in how if k in ev}
    return how(ev)


def _at(cell) -> str:
    return f"[{cell[0]},{cell[1]}]"


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


# ------------------------------------------------------------------ the tile game's events
# The score event's keys in the replay answer, and (with the tile and player a discard has) in the viewer
_SCORE_ANSWER = ("turn", "kind", "feature", "outpost", "when", "tiles", "points", "clause")
_SCORE_SHOWN = _SCORE_ANSWER + ("tile", "player")
# When an outpost scores (the `on full|overflow|end` of its rules), in words
OUTPOST_WHEN = {"overflow": "the attack", "full": "the counterattack (its row is full)",
                "end": "the game's end (a final counterattack)"}


def _score_usage(ev):
    when, clause = ev.get("when", ""), ev.get("clause", "")
    if ev.get("feature") == "outpost" and "outpost" in ev:
        return None  # the points of an `on full|overflow|end` rule: counted as its firing
    if when == "recall":
        return f"recall||{clause}"
    return f"score|{ev.get('feature', '')} {when}|{clause}"


def _score_source(ev, figures):
    pts = ev["points"]
    if ev.get("feature") == "outpost" and "outpost" in ev:
        return [(f"outpost: {ev['outpost']}", sum(pts.values()))]
    key = (ev.get("feature"), ev.get("when"), ev.get("clause"))
    fig = figures.get(key) or figures.get(("*", key[1], key[2]))
    return [(f"{key[0]}: {fig}", sum(pts.values()))] if fig is not None else []


def _score_sentence(ev):
    pts = ", ".join(f"{p} {v:+d}" for p, v in ev.get("points", {}).items()) or "nobody scores"
    size = f" ({ev['tiles']} tile{'s' if ev['tiles'] != 1 else ''})" if "tiles" in ev else ""
    if ev.get("outpost"):
        why = OUTPOST_WHEN.get(ev.get("when"), ev.get("when", ""))
        return f"the {ev['outpost']} outpost scores at {why}: {pts}"
    return f"{ev.get('feature', '?')} {ev.get('when', '')}{size}: {pts}"


SCORE = _event("score", ("turn", "kind", "feature", "when", "points", "clause"),
               "SCORE_* / TRACK_RULES", "a feature (or an outpost) scored: points to players",
               optional=("outpost", "tiles"), answer=_SCORE_ANSWER, shown=_SCORE_SHOWN, usage=_score_usage,
               points="points", source=_score_source, feature=lambda ev: ev.get("feature"),
               sentence=_score_sentence,
               ledger=lambda ev: ev["feature"] if ev["feature"] != "outpost" else f"outpost {ev.get('outpost', '')}")


def _award_form(ev):  # an award is said as a score at the end
    return {"turn": ev["turn"], "kind": "score", "feature": ev["award"], "when": "end", "points": ev["points"],
            "clause": ev["clause"]}


AWARD = _event("award", ("turn", "kind", "award", "when", "points", "clause"), "AWARDS / AWARDS_MOST",
               "an award at the game's end (answered and shown as a score at the end)",
               answer=_award_form, shown=_award_form, usage=lambda ev: f"award|{ev.get('award', '')}|{ev.get('clause', '')}",
               points="points", feature=lambda ev: ev.get("award"))


def _plain_usage(ev):
    return f"{ev.get('kind')}||{ev.get('clause', '')}"


DISCARD = _event("discard", ("turn", "kind", "tile", "player", "clause"), "CLAUSE_DISCARD",
                 "a drawn tile that fits nowhere is discarded", shown=_SCORE_SHOWN, usage=_plain_usage,
                 sentence=lambda ev: f"{ev.get('player', '?')} discards {ev.get('tile', '?')}")
STATE = _event("state", ("turn", "kind", "set", "clause"), "ON_RULES",
               "an `on place` / `on complete` rule set a state", usage=_plain_usage)


def _fig_of(owner: str, who: str, figure: str) -> str:
    return f"their own {figure}" if owner == who else f"{owner}'s {figure}"


def _capture_sentence(ev):
    what = _fig_of(ev["victim"], ev["player"], ev["figure"])
    to = {"prisoner": f", who becomes {ev['player']}'s prisoner", "supply": ", back to their supply",
          "exchange": ", exchanged"}.get(ev.get("to"), "")
    return f"{ev['player']} captures {what} on {ev['on']} of {_at(ev['at'])}{to}"


def _capture_step(ev, ctx):
    what = "their own " + ev["figure"] if ev["victim"] == ev["player"] else f"{ev['victim']}'s {ev['figure']}"
    return f"captures {what} at {_at(ev['at'])} [{ev['clause']}]"


CAPTURE = _event("capture", ("turn", "kind", "player", "victim", "figure", "at", "on", "clause", "to"), "CAPTURES",
                 "a figure captured right after a floor (to a prisoner, back to supply, or exchanged)",
                 answer=True, shown=True, usage=_plain_usage, sentence=_capture_sentence,
                 step=("after", _capture_step), tally=("captures", None),
                 mark=("mark-capture", "#6a1b9a", "victim",
                       lambda ev, owner: f"{owner}'s {ev['figure']} captured by {ev['player']}"))
EXCHANGE = _event("exchange", ("turn", "kind", "player", "victim", "figure", "back", "clause"), "EXCHANGE_CLAUSE",
                  "prisoners exchanged: the captured figure goes home, the capturer's comes back",
                  answer=True, shown=True, usage=_plain_usage,
                  sentence=lambda ev: (f"prisoners exchanged: {ev['victim']}'s {ev['figure']} goes home, "
                                       f"{ev['player']}'s {ev['back']} comes back"))
RELEASE = _event("release", ("turn", "kind", "player", "holder", "figure", "clause"), "ROUND_RULES",
                 "`on round end { release FIGURE }`: a prisoner goes home, nobody pays",
                 answer=True, shown=True, usage=_plain_usage,
                 sentence=lambda ev: (f"{ev['holder']} releases {ev['player']}'s {ev['figure']} at the round's end: "
                                      f"back to {ev['player']}'s supply"),
                 step=("round", lambda ev, ctx: f"{ev['player']}'s {ev['figure']} from {ev['holder']}"))


def _ransom_source(ev, figures):
    pts = ev["points"]
    return [("ransoms received", sum(v for v in pts.values() if v > 0)),
            ("ransoms paid", sum(v for v in pts.values() if v < 0))]


def _ransom_sentence(ev):
    pts = ev.get("points", {})
    return (f"{ev['player']} buys back their {ev['figure']} from {ev['holder']} for "
            f"{-pts.get(ev['player'], 0)} point{'s' if pts.get(ev['player'], 0) != -1 else ''}")


def _ransom_step(ev, ctx):
    return f"buys back their {ev['figure']} from {ev['holder']} [{ev['clause']}]"


RANSOM = _event("ransom", ("turn", "kind", "player", "holder", "figure", "points", "clause"), "RANSOM",
                "a prisoner bought back from its holder (points move between them)",
                answer=True, shown=True, usage=_plain_usage, points="points", source=_ransom_source,
                sentence=_ransom_sentence,
                # a ransom paid before the tile is laid comes first in the step's sentence
                step=(lambda ev: "before" if ev.get("when") in (None, "before tile") else "after", _ransom_step),
                tally=("ransoms", None), ledger=lambda ev: f"{ev['kind']} of a {ev.get('figure', '')}".rstrip())
OUTPOST = _event("outpost", ("turn", "kind", "player", "figure", "outpost", "slot", "clause"), "OUTPOST_PUTS",
                 "one more follower put on an outpost's row or pool", answer=True, shown=True,
                 usage=lambda ev: f"outpost|{ev.get('slot', '')}|{ev.get('clause', '')}",
                 sentence=lambda ev: f"{ev['player']} puts {_a(ev['figure'])} on the {ev['outpost']} outpost's {ev['slot']}",
                 step=("after", lambda ev, ctx: (f"puts {_a(ev['figure'])} on the {ev['outpost']} outpost's "
                                                 f"{ev['slot']} [{ev['clause']}]")))


def _chosen(ev, ctx) -> str:
    """' (chosen by WHO)' where the step's player sent a "?"'s catapult to this outpost."""
    if ev["outpost"] in ctx["chosen"]:
        ctx["chosen"].remove(ev["outpost"])
        return f" (chosen by {ctx['who']})"
    return ""


CATAPULT = _event("catapult", ("turn", "kind", "player", "outpost", "clause"), "TRACKS",
                  "a drawn tile's catapult comes to an outpost", answer=True, shown=True, usage=_plain_usage,
                  at_outpost=True,
                  sentence=lambda ev: f"a catapult comes to the {ev['outpost']} outpost",
                  step=("drawn", lambda ev, ctx: (f"a catapult comes to the {ev['outpost']} outpost{_chosen(ev, ctx)} "
                                                  f"[{ev['clause']}]")))
ATTACK = _event("attack", ("turn", "kind", "player", "outpost", "clause"), "TRACK_RULES",
                "a catapult comes to a full catapult slot: an attack", answer=True, shown=True, usage=_plain_usage,
                at_outpost=True,
                sentence=lambda ev: f"the {ev['outpost']} outpost is attacked: its catapult slot is taken",
                step=("drawn", lambda ev, ctx: (f"a catapult comes to the full catapult slot of the {ev['outpost']} "
                                                f"outpost{_chosen(ev, ctx)}: an attack [{ev['clause']}]")),
                tally=("attacks", None))


def _counterattack_sentence(ev):
    why = {"full": "its row is full", "end": "the game ends"}.get(ev.get("when"), ev.get("when", ""))
    return f"the {ev['outpost']} outpost counterattacks ({why})"


COUNTERATTACK = _event("counterattack", ("turn", "kind", "outpost", "when", "clause"), "TRACK_RULES",
                       "an outpost counterattacks (its row full, or the game's end)", answer=True, shown=True,
                       usage=lambda ev: f"counterattack|{ev.get('when', '')}|{ev.get('clause', '')}",
                       sentence=_counterattack_sentence, at_outpost=True,
                       tally=("counterattacks", lambda ev: ev["when"] == "full"))  # rows filled in play
REMOVE = _event("remove", ("turn", "kind", "player", "figure", "at", "on", "outpost", "clause"), "TRACK_RULES",
                "an attack's removal: a player takes their figure off the board",
                answer=True, shown=True,
                sentence=lambda ev: (f"{ev['player']} removes their {ev['figure']} from {ev['on']} of "
                                     f"{_at(ev['at'])} (the {ev['outpost']} outpost is attacked)"),
                step=("drawn", lambda ev, ctx: (f"{ev['player']} removes their {ev['figure']} from {ev['on']} of "
                                                f"{_at(ev['at'])} [{ev['clause']}]")),
                tally=("removals", None),
                mark=("mark-remove", "#c62828", "player",
                      lambda ev, owner: f"{owner}'s {ev['figure']} removed (the {ev.get('outpost', '?')} outpost attacked)"))


# ------------------------------------------------------------------ the card game's events (rulebook 001)
_event("score", ("kind", "feature", "when", "turn", "round", "points", "clause"), "SCORES_TAKE / SCORES_END",
       "a scoring of the card game (when cards are taken, or at the end)", family=CARDS, optional=("cards",),
       answer=True, shown=True, usage=_score_usage, points="points", feature=lambda ev: ev.get("feature"),
       sentence=_score_sentence)
_event("deal", ("kind", "round", "dealer", "cards", "clause"), "CLAUSE_DEAL", "a round's deal", family=CARDS,
       usage=_plain_usage)
_event("end", ("kind", "round", "why", "clause"), "the end rule", "the game ends (the deck's end, a score)",
       family=CARDS)


# ------------------------------------------------------------------ what the layers ask
def is_kind(ev: dict, kind: str, family: str = TILES) -> bool:
    """Whether `ev` is of the declared kind `kind` (which must be declared)."""
    REGISTRY[family][kind]
    return ev.get("kind") == kind


def of_kind(events, kind: str, family: str = TILES) -> list[dict]:
    """The events of one declared kind, in order."""
    REGISTRY[family][kind]
    return [e for e in events if e["kind"] == kind]


def answer_event(ev: dict, family: str = TILES) -> dict | None:
    """The event as `tessera replay --json` answers it, or None where the answer leaves it out."""
    return _form(REGISTRY[family][ev["kind"]].answer, ev)


def answer_events(events, family: str = TILES) -> list[dict]:
    return [a for a in (answer_event(ev, family) for ev in events) if a is not None]


def is_shown(ev: dict, family: str = TILES) -> bool:
    """Whether the viewer lists the event (every event a player should see: a test keeps it so)."""
    t = REGISTRY[family].get(ev.get("kind"))
    return t is not None and t.shown is not None


def shown_event(ev: dict, family: str = TILES) -> dict:
    """The event as the viewer lists it (an award as a score at the end)."""
    return _form(REGISTRY[family][ev["kind"]].shown, ev)


def usage_key(ev: dict, family: str = TILES) -> str | None:
    """The rule-usage key of an event, or None for one that is part of another firing."""
    t = REGISTRY[family].get(ev.get("kind"))
    return t.usage(ev) if t is not None and t.usage is not None else None


def points_by_feature(events, family: str = TILES) -> dict[str, int]:
    """{feature or award: points} over the events that score a feature (simulate's `points`)."""
    out: dict[str, int] = {}
    for ev in events:
        t = REGISTRY[family][ev["kind"]]
        if t.feature is not None:
            key = t.feature(ev)
            out[key] = out.get(key, 0) + sum(ev[t.points].values())
    return out


def point_sources(events, figures, family: str = TILES) -> dict[str, int]:
    """Points by source beyond a feature's own scoring (simulate's `sources`), sorted by label."""
    out: dict[str, int] = {}
    for ev in events:
        t = REGISTRY[family].get(ev.get("kind"))
        if t is None or t.source is None or not isinstance(ev.get(t.points), dict):
            continue
        for label, n in t.source(ev, figures):
            if n:
                out[label] = out.get(label, 0) + n
    return dict(sorted(out.items()))


def tallies(events, family: str = TILES, columns=None) -> dict[str, int]:
    """{column: how many events it counts} for the kinds that declare a `tally` (only `columns`, if given)."""
    counted = [(t.tally[0], t.kind, t.tally[1]) for t in REGISTRY[family].values() if t.tally is not None
               and (columns is None or t.tally[0] in columns)]
    out = {}
    for column, kind, pred in counted:
        out[column] = sum(ev["kind"] == kind and (pred is None or pred(ev)) for ev in events)
    return out if columns is None else {c: out[c] for c in columns}


def sentence(ev: dict, family: str = TILES) -> str:
    """The event in words, as the viewer's list of events says it."""
    t = REGISTRY[family][ev["kind"]]
    return (t.sentence or _score_sentence)(ev)


def step_phase(ev: dict, family: str = TILES) -> str | None:
    """The part of the step's sentence the event belongs to ("drawn", "before", "after", "round"), or None."""
    step = REGISTRY[family][ev["kind"]].step
    if step is None:
        return None
    return step[0](ev) if callable(step[0]) else step[0]


def marks() -> dict[str, tuple]:
    """{kind: (mark class, colour, owner field, title)} of the events that take a figure off the board."""
    return {k: t.mark for k, t in REGISTRY[TILES].items() if t.mark is not None}


def mark_of(ev: dict):
    """The board's mark of an event that took a figure off the board, or None."""
    t = REGISTRY[TILES].get(ev.get("kind"))
    return t.mark if t is not None else None


def at_outpost(ev: dict, name: str) -> bool:
    """Whether the outposts' panel names the event beside outpost `name` (what came to it this step)."""
    t = REGISTRY[TILES].get(ev.get("kind"))
    return t is not None and t.at_outpost and ev.get("outpost") == name


def ledger(ev: dict) -> str | None:
    """The event's name in `tessera replay`'s table of points, or None when it is not a row there
    (an event of the answer that carries points and declares no name is named by its kind and figure)."""
    t = REGISTRY[TILES].get(ev.get("kind"))
    if t is not None and t.ledger is not None:
        return t.ledger(ev)
    if "points" in ev:
        return f"{ev['kind']} of a {ev.get('figure', '')}".rstrip()
    return None


def step_words(ev: dict, ctx: dict, family: str = TILES) -> str:
    """The event's words in the step's sentence (ctx: the step's player `who` and the outposts it `chosen`)."""
    return REGISTRY[family][ev["kind"]].step[1](ev, ctx)
