"""A step of a game in words: what the player did (read from the engine's typed moves) and every
event it caused, each with the clause that caused it.

`moves_of(g, history)` reads the moves a step made (`Game.history`, the types of
compiler/runtime/moves.py) into plain dicts with names instead of indices, each as its type's
`STEP` declares (a compiled engine has its own copy of the types, so no type is named here):
where a tile went, what figure went on which feature of which tile, which outpost a "?" catapult
went to.  A move whose type declares no STEP is told by the events it makes.  `step_label` and
`event_text` put a step and its events into words:

    Turn 5: red lays tower.C at [2,-1] (rotation 90), puts a floor on the tower at [0,1]
    (height 3), captures blue's follower at [0,3] [TOWER-CAPTURE-1].

Nothing here knows an expansion by name: feature kinds, figures, outposts and clauses are
the rule set's own words, read from the game and its events.
"""
from __future__ import annotations

from ..compiler.runtime import events as E


def _at(cell) -> str:
    return f"[{cell[0]},{cell[1]}]"


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _feature_of(g, seg: int) -> tuple[str, tuple[int, int], str]:
    """(feature kind, cell, place in the board frame) of a placed segment."""
    return g.R.KINDS[g.board.seg_kind[seg]].name, tuple(g.board.seg_cell[seg]), g.board.seg_place(seg)


def _height(g, cell, place: str, stacked: set[str]) -> int:
    """How many stacked figures (floors) stand on the feature at `place` of `cell` now."""
    for f in g.features(cells=[cell]):
        if (cell, place) in f["places"] or any(c == cell and p == place for c, p in f["places"]):
            return sum(1 for _, fig, c, _p in f["figure_places"] if fig in stacked)
    return 0


def _tile(g, tid) -> str:
    return g.R.TILES[tid].name if tid is not None else "?"


def _laid(g, tid, a, stacked: set[str]) -> dict:
    """A placement of the drawn tile (its STEP "laid"), with the figure that went with it."""
    m = {"tile": _tile(g, tid), "at": list(a.cell), "rotation": a.rotation}
    fig = a.figure
    if fig is not None:
        m["figure"] = g.figure_name(fig.figure)
        if fig.KIND in ("put", "corner"):
            o, base = g.board.tiles[tuple(a.cell)]
            kind, cell, place = _feature_of(g, base + fig.feature)
            m.update(feature=kind, on=fig.corner if fig.KIND == "corner" else place, figure_at=list(cell))
            if fig.KIND == "corner":
                m["corner"] = True
        elif fig.KIND in ("at", "recall"):
            kind, cell, place = _feature_of(g, fig.segment)
            m.update(feature=kind, on=place, figure_at=list(cell))
            if fig.KIND == "recall":
                m["recall"] = True
        if m["figure"] in stacked and not m.get("recall"):
            m["height"] = _height(g, tuple(m["figure_at"]), m["on"], stacked)
        elif stacked and not m.get("recall") and _height(g, tuple(m["figure_at"]), m["on"], stacked):
            m["on_top"] = _height(g, tuple(m["figure_at"]), m["on"], stacked)
    m["said"] = _placement(m)
    return m


def _discarded(g, tid, a, stacked: set[str]) -> dict:
    """The drawn tile discarded (its STEP "discarded"): it fits nowhere."""
    name = _tile(g, tid)
    return {"tile": name, "said": f"draws {name}; it fits nowhere and is discarded"}


def _catapult(g, tid, a, stacked: set[str]) -> dict:
    """The outpost a drawn "?" sent its catapult to (STEP "catapult")."""
    return {"chosen": g.R.TRACKS[a.track][0]}


def _outpost(g, tid, a, stacked: set[str]) -> dict:
    """The extra figure's outpost and slot (STEP "outpost"; its event says it in the step)."""
    return {"outpost": g.R.TRACKS[a.track][0], "slot": a.slot}


# what a step reads of a move, by the part its type declares (runtime/moves.py's STEP); a move whose type
# declares none (a capture, a ransom, a removal, a pass, a draw) is told by the events it makes
READ = {"laid": _laid, "discarded": _discarded, "catapult": _catapult, "outpost": _outpost}


def moves_of(g, history: list, stacked: set[str]) -> list[dict]:
    """The moves of one step as dicts (g: the game after the step; history: its typed moves), each read
    as its type's STEP declares: a tile move's `tile` and its words (`said`), a "?"'s `chosen` outpost.
    `stacked`: the figures drawn as floors (their height is given where one is put)."""
    out = []
    for tid, a in history:
        read = READ.get(getattr(a, "STEP", None))
        if read is not None:
            out.append(read(g, tid, a, stacked))
    return out


def _placement(m: dict) -> str:
    text = f"lays {m['tile']} at {_at(m['at'])} (rotation {m['rotation']})"
    fig = m.get("figure")
    if fig is None:
        return text
    where = f"on the {m['feature']}"
    if m.get("corner"):
        where += f" at the {m['on']} corner"
    detail = [] if m.get("corner") or m.get("figure_at") != m["at"] else [m["on"]]
    if m.get("figure_at") != m["at"]:
        where += f" at {_at(m['figure_at'])}"
    if m.get("recall"):
        return text + f", takes back {_a(fig)} from the {m['feature']} at {_at(m['figure_at'])}"
    if "on_top" in m:
        where = f"on top of the {m['feature']}" + (f" at {_at(m['figure_at'])}" if m.get("figure_at") != m["at"] else "")
        detail.append(f"height {m['on_top']}")
    elif "height" in m:
        detail.append(f"height {m['height']}")
    return text + f", puts {_a(fig)} {where}" + (f" ({', '.join(detail)})" if detail else "")


def event_text(ev: dict) -> str:
    """One event in words (its clause is shown beside it): the `sentence` its kind declares
    (compiler/runtime/events.py)."""
    return E.sentence(ev)


def step_label(index: int, player: str | None, moves: list[dict], events: list[dict], final: bool) -> str:
    """The step's sentences: what the drawn tile brought (catapults, an attack and the removals it
    forced), then the player's moves with the captures and ransoms they made; the clause of each
    event in brackets."""
    if index == 0:
        return "Start: the start landscape is laid."
    who = player or "?"
    tile = next((m["tile"] for m in moves if "tile" in m), None)
    sentences = []
    # where the player sent a "?"'s catapult (a move, read from the step's moves)
    ctx = {"who": who, "chosen": [m["chosen"] for m in moves if "chosen" in m]}
    phase = {}  # the events of each part of the sentence, in order (each kind declares its `step`)
    for ev in events:
        phase.setdefault(E.step_phase(ev), []).append(ev)
    drawn = [E.step_words(ev, ctx) for ev in phase.get("drawn", [])]  # a tile's siege symbols come before it is laid
    if drawn:
        sentences.append(f"{who} draws {tile or 'a tile'}: " + "; ".join(drawn))
    parts = [E.step_words(ev, ctx) for ev in phase.get("before", [])]
    parts += [m["said"] for m in moves if "said" in m]  # the drawn tile laid (and its figure) or discarded
    parts += [E.step_words(ev, ctx) for ev in phase.get("after", [])]
    if parts:
        sentences.append(f"{who} " + ", ".join(parts))
    freed = [E.step_words(ev, ctx) for ev in phase.get("round", [])]
    if freed:  # after the turn: the round ends and its rule sends prisoners home
        clauses = sorted({ev["clause"] for ev in phase["round"]})
        sentences.append("The round ends: " + ", ".join(freed) + " go" + ("es" if len(freed) == 1 else "")
                         + " home [" + ", ".join(clauses) + "]")
    text = f"Turn {index}: " + (". ".join(sentences) if sentences else f"{who} plays")
    if final:
        text += "; the game ends and final scoring follows"
    return text + "."
