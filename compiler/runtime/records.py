"""tessera-state/1: a game as its seed, seats and the moves that led to it."""
from __future__ import annotations

import json

STATE_FORMAT = "tessera-state/1"


class Records:
    """Mixin of Game: writing and reading tessera-state/1."""

    def to_json(self):
        """A state as JSON: its seed, seats and the moves that led to it (replayed by from_json)."""
        hist = []
        for i, (tid, a) in enumerate(self.history):
            if tid is None:  # a capture, a pass or a ransom: no tile drawn for it
                h = {"act": list(a)}
                if a[0] in ("catapult", "remove"):
                    # decided for the drawn tile before it is placed (its siege symbols): name it, so a
                    # game whose tiles were chosen (force_tile, OpenSpiel's chance nodes) replays too
                    drawn = next((t for t, _ in self.history[i + 1:] if t is not None), self.drawn)
                    if drawn is not None:
                        h["id"] = drawn
                hist.append(h)
                continue
            name = self.R.TILES[tid].name
            if a[0] == "discard":
                hist.append({"tile": name, "id": tid, "discard": True})
            else:
                (x, y), rot, fig = a
                h = {"tile": name, "id": tid, "at": [x, y], "rotation": rot}
                if fig is not None:
                    h["figure"] = list(fig) if fig[0] not in ("recall", "at") else [fig[0], fig[1], list(fig[2]), fig[3]]
                hist.append(h)
        return json.dumps({"format": STATE_FORMAT, "rules": list(self.R.MODULES), "players": self.names,
                           "seed": self.seed, "history": hist, "scores": self.scores}, sort_keys=True)

    @classmethod
    def from_json(cls, rules, text):
        data = json.loads(text)
        g = cls(rules, len(data["players"]), data["seed"], data["players"])
        for h in data["history"]:
            if "act" in h:
                if "id" in h:  # the tile whose siege symbols this decision answers
                    g.force_tile_id(h["id"])
                g.apply_action(tuple(h["act"]))
                continue
            g.force_tile_id(h["id"])
            if h.get("discard"):
                g.apply_action(("discard",))
                continue
            fig = h.get("figure")
            if fig is not None:
                fig = (fig[0], fig[1], tuple(fig[2]), fig[3]) if fig[0] in ("recall", "at") else tuple(fig)
            g.apply_action((tuple(h["at"]), h["rotation"], fig))
        return g
