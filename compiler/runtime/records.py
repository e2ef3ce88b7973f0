"""tessera-state/1: a game as its seed, seats and the moves that led to it."""
from __future__ import annotations

import json

STATE_FORMAT = "tessera-state/1"


class Records:
    """Mixin of Game: writing and reading tessera-state/1."""

    def to_json(self):
        """A state as JSON: its seed, seats and the moves that led to it (replayed by from_json)."""
        hist = []
        for tid, a in self.history:
            name = self.R.TILES[tid].name
            if a[0] == "discard":
                hist.append({"tile": name, "id": tid, "discard": True})
            else:
                (x, y), rot, fig = a
                h = {"tile": name, "id": tid, "at": [x, y], "rotation": rot}
                if fig is not None:
                    h["figure"] = list(fig) if fig[0] != "recall" else ["recall", fig[1], list(fig[2]), fig[3]]
                hist.append(h)
        return json.dumps({"format": STATE_FORMAT, "rules": list(self.R.MODULES), "players": self.names,
                           "seed": self.seed, "history": hist, "scores": self.scores}, sort_keys=True)

    @classmethod
    def from_json(cls, rules, text):
        data = json.loads(text)
        g = cls(rules, len(data["players"]), data["seed"], data["players"])
        for h in data["history"]:
            g.force_tile_id(h["id"])
            if h.get("discard"):
                g.apply_action(("discard",))
                continue
            fig = h.get("figure")
            if fig is not None:
                fig = ("recall", fig[1], tuple(fig[2]), fig[3]) if fig[0] == "recall" else tuple(fig)
            g.apply_action((tuple(h["at"]), h["rotation"], fig))
        return g
