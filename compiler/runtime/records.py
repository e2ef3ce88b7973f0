"""tessera-state/1: a game as its seed, seats and the moves that led to it."""
from __future__ import annotations

import json

from .moves import SIEGE, Discard, Draw, as_move

STATE_FORMAT = "tessera-state/1"

# functions of the game (Game binds them as its methods to_json and from_json)
def to_json(g):
    """A state as JSON: its seed, seats and the moves that led to it (replayed by from_json)."""
    hist = []
    for i, (tid, a) in enumerate(g.history):
        if type(a) is Draw:  # chance's move: its tile is the `id` of the move that places it (a deal that no
            continue  # move follows yet is not written: the OpenSpiel adapter keeps the drawn tile beside it)
        if tid is None:  # a capture, a pass or a ransom: no tile drawn for it
            h = {"act": list(a)}
            if type(a) in SIEGE and type(a).KIND != "outpost":
                # decided for the drawn tile before it is placed (its siege symbols): name it, so a
                # game whose tiles were dealt (chance's Draw: a replay, OpenSpiel's chance nodes) replays too
                drawn = next((t for t, _ in g.history[i + 1:] if t is not None), g.bag.drawn)
                if drawn is not None:
                    h["id"] = drawn
            hist.append(h)
            continue
        name = g.R.TILES[tid].name
        if type(a) is Discard:
            hist.append({"tile": name, "id": tid, "discard": True})
        else:
            (x, y), rot, fig = a
            h = {"tile": name, "id": tid, "at": [x, y], "rotation": rot}
            if fig is not None:
                h["figure"] = json.loads(json.dumps(fig))  # its written form, as lists
            hist.append(h)
    doc = {"format": STATE_FORMAT, "rules": list(g.R.MODULES), "players": g.names,
           "seed": g.seed, "history": hist, "scores": g.scores}
    if g.open_decisions:  # every decision was put to the caller (a replay): its passes are in the history
        doc["open_decisions"] = True
    return json.dumps(doc, sort_keys=True)


def from_json(cls, rules, text):
    """The game a tessera-state/1 document describes (Game.from_json, a classmethod)."""
    data = json.loads(text)
    g = cls(rules, len(data["players"]), data["seed"], data["players"])
    g.open_decisions = data.get("open_decisions") is True
    for h in data["history"]:
        if "act" in h:
            if "id" in h:  # the tile whose siege symbols this decision answers, dealt first
                g.apply_action(Draw(h["id"]))
            g.apply_action(as_move(h["act"]))
            continue
        g.apply_action(Draw(h["id"]))  # the tile the move places, dealt (no change if the bag drew it)
        if h.get("discard"):
            g.apply_action(Discard())
            continue
        g.apply_action(as_move((h["at"], h["rotation"], h.get("figure"))))
    return g
