"""A step of a game in words: what the player did (read from the engine's typed moves) and every
event it caused, each with the clause that caused it.

`moves_of(g, history)` reads the moves a step made (`Game.history`, the types of
compiler/runtime/moves.py, told apart by `KIND` since a compiled engine has its own copy of
them) into plain dicts with names instead of indices: where a tile went, what figure went on
which feature of which tile, which outpost a "?" catapult went to.  `step_label` and
`event_text` put a step and its events into words:

    Turn 5: red lays tower.C at [2,-1] (rotation 90), puts a floor on the tower at [0,1]
    (height 3), captures blue's follower at [0,3] [TOWER-CAPTURE-1].

Nothing here knows an expansion by name: feature kinds, figures, outposts and clauses are
the rule set's own words, read from the game and its events.
"""
from __future__ import annotations


def _at(cell) -> str:
    return f"[{cell[0]},{cell[1]}]"


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _feature_of(g, seg: int) -> tuple[str, tuple[int, int], str]:
    """(feature kind, cell, place in the board frame) of a placed segment."""
    return g.R.KINDS[g.seg_kind[seg]].name, tuple(g.seg_cell[seg]), g._seg_place(seg)


def _height(g, cell, place: str, stacked: set[str]) -> int:
    """How many stacked figures (floors) stand on the feature at `place` of `cell` now."""
    for f in g.features(cells=[cell]):
        if (cell, place) in f["places"] or any(c == cell and p == place for c, p in f["places"]):
            return sum(1 for _, fig, c, _p in f["figure_places"] if fig in stacked)
    return 0


def moves_of(g, history: list, stacked: set[str]) -> list[dict]:
    """The moves of one step as dicts (g: the game after the step; history: its typed moves).
    `stacked`: the figures drawn as floors (their height is given where one is put)."""
    out = []
    for tid, a in history:
        k = a.KIND
        if k == "discard":
            out.append({"kind": "discard", "tile": g.R.TILES[tid].name if tid is not None else "?"})
        elif k == "place":
            m = {"kind": "place", "tile": g.R.TILES[tid].name if tid is not None else "?", "at": list(a.cell),
                 "rotation": a.rotation}
            fig = a.figure
            if fig is not None:
                m["figure"] = g.figure_name(fig.figure)
                if fig.KIND in ("put", "corner"):
                    o, base = g.board[tuple(a.cell)]
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
            out.append(m)
        elif k == "catapult":
            out.append({"kind": "catapult", "outpost": g.R.TRACKS[a.track][0]})
        elif k == "outpost":
            out.append({"kind": "outpost", "outpost": g.R.TRACKS[a.track][0], "slot": a.slot})
        # captures, ransoms and removals are told by their events (who did it, to whom, the clause)
    return out


def _placement(m: dict) -> str:
    if m["kind"] == "discard":
        return f"draws {m['tile']}; it fits nowhere and is discarded"
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


def _fig_of(owner: str, who: str, figure: str) -> str:
    return f"their own {figure}" if owner == who else f"{owner}'s {figure}"


def event_text(ev: dict) -> str:
    """One event in words (its clause is shown beside it)."""
    k = ev["kind"]
    if k == "discard":
        return f"{ev.get('player', '?')} discards {ev.get('tile', '?')}"
    if k == "capture":
        what = _fig_of(ev["victim"], ev["player"], ev["figure"])
        to = {"prisoner": f", who becomes {ev['player']}'s prisoner", "supply": ", back to their supply",
              "exchange": ", exchanged"}.get(ev.get("to"), "")
        return f"{ev['player']} captures {what} on {ev['on']} of {_at(ev['at'])}{to}"
    if k == "exchange":
        return f"prisoners exchanged: {ev['victim']}'s {ev['figure']} goes home, {ev['player']}'s {ev['back']} comes back"
    if k == "release":  # `on round end { release FIGURE }`: a prisoner goes home, nobody pays
        return f"{ev['holder']} releases {ev['player']}'s {ev['figure']} at the round's end: back to {ev['player']}'s supply"
    if k == "ransom":
        pts = ev.get("points", {})
        return (f"{ev['player']} buys back their {ev['figure']} from {ev['holder']} for "
                f"{-pts.get(ev['player'], 0)} point{'s' if pts.get(ev['player'], 0) != -1 else ''}")
    if k == "outpost":
        return f"{ev['player']} puts {_a(ev['figure'])} on the {ev['outpost']} outpost's {ev['slot']}"
    if k == "catapult":
        return f"a catapult comes to the {ev['outpost']} outpost"
    if k == "attack":
        return f"the {ev['outpost']} outpost is attacked: its catapult slot is taken"
    if k == "counterattack":
        why = {"full": "its row is full", "end": "the game ends"}.get(ev.get("when"), ev.get("when", ""))
        return f"the {ev['outpost']} outpost counterattacks ({why})"
    if k == "remove":
        return (f"{ev['player']} removes their {ev['figure']} from {ev['on']} of {_at(ev['at'])} "
                f"(the {ev['outpost']} outpost is attacked)")
    pts = ", ".join(f"{p} {v:+d}" for p, v in ev.get("points", {}).items()) or "nobody scores"
    size = f" ({ev['tiles']} tile{'s' if ev['tiles'] != 1 else ''})" if "tiles" in ev else ""
    if ev.get("outpost"):
        why = OUTPOST_WHEN.get(ev.get("when"), ev.get("when", ""))
        return f"the {ev['outpost']} outpost scores at {why}: {pts}"
    return f"{ev.get('feature', '?')} {ev.get('when', '')}{size}: {pts}"


# When an outpost scores (the `on full|overflow|end` of its rules), in words
OUTPOST_WHEN = {"overflow": "the attack", "full": "the counterattack (its row is full)",
                "end": "the game's end (a final counterattack)"}


def step_label(index: int, player: str | None, moves: list[dict], events: list[dict], final: bool) -> str:
    """The step's sentences: what the drawn tile brought (catapults, an attack and the removals it
    forced), then the player's moves with the captures and ransoms they made; the clause of each
    event in brackets."""
    if index == 0:
        return "Start: the start landscape is laid."
    who = player or "?"
    tile = next((m["tile"] for m in moves if m["kind"] in ("place", "discard")), None)
    sentences = []
    drawn = []
    chosen = [m["outpost"] for m in moves if m["kind"] == "catapult"]  # where the player sent a "?"'s catapult
    for ev in events:  # a tile's siege symbols come before it is laid
        if ev["kind"] in ("catapult", "attack"):
            by = ""
            if ev["outpost"] in chosen:
                chosen.remove(ev["outpost"])
                by = f" (chosen by {who})"
            if ev["kind"] == "catapult":
                drawn.append(f"a catapult comes to the {ev['outpost']} outpost{by} [{ev['clause']}]")
            else:
                drawn.append(f"a catapult comes to the full catapult slot of the {ev['outpost']} outpost{by}: an "
                             f"attack [{ev['clause']}]")
        elif ev["kind"] == "remove":
            drawn.append(f"{ev['player']} removes their {ev['figure']} from {ev['on']} of {_at(ev['at'])} "
                         f"[{ev['clause']}]")
    if drawn:
        sentences.append(f"{who} draws {tile or 'a tile'}: " + "; ".join(drawn))
    parts = []
    for ev in events:
        if ev["kind"] == "ransom" and ev.get("when") in (None, "before tile"):
            parts.append(f"buys back their {ev['figure']} from {ev['holder']} [{ev['clause']}]")
    for m in moves:
        if m["kind"] in ("place", "discard"):
            parts.append(_placement(m))
    for ev in events:
        if ev["kind"] == "outpost":
            parts.append(f"puts {_a(ev['figure'])} on the {ev['outpost']} outpost's {ev['slot']} [{ev['clause']}]")
        elif ev["kind"] == "capture":
            what = "their own " + ev["figure"] if ev["victim"] == ev["player"] else f"{ev['victim']}'s {ev['figure']}"
            parts.append(f"captures {what} at {_at(ev['at'])} [{ev['clause']}]")
        elif ev["kind"] == "ransom" and ev.get("when") not in (None, "before tile"):
            parts.append(f"buys back their {ev['figure']} from {ev['holder']} [{ev['clause']}]")
    if parts:
        sentences.append(f"{who} " + ", ".join(parts))
    freed = [f"{ev['player']}'s {ev['figure']} from {ev['holder']}" for ev in events if ev["kind"] == "release"]
    if freed:  # after the turn: the round ends and its rule sends prisoners home
        clauses = sorted({ev["clause"] for ev in events if ev["kind"] == "release"})
        sentences.append("The round ends: " + ", ".join(freed) + " go" + ("es" if len(freed) == 1 else "")
                         + " home [" + ", ".join(clauses) + "]")
    text = f"Turn {index}: " + (". ".join(sentences) if sentences else f"{who} plays")
    if final:
        text += "; the game ends and final scoring follows"
    return text + "."
