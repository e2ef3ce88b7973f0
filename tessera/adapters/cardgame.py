"""The card game (rulebook 001) for the RL adapters: stable action numbers, and what each
player may see (hidden information: the other hands, face-down cards, the chests).

No OpenSpiel or PettingZoo import here (openspiel_cards.py, pettingzoo_cards.py use it).

Action numbers, for T card names (`rules.CARDS` order) and K rows (`rules.COLOURS` order):
`Play(card, row)` is `card * K + row`; then `Claim(row)`, `Lay(row)`, `Keep(card)`,
`Discard(card)`, each block in that order.

The observation of player p (a float32 vector, every entry in [0, 1]):
p's hand (copies of each card), each row's face-up cards (copies of each), its face-down
cards (how many: their faces are hidden, even from the player who played them, who knows them
only from memory: the information state), each row's feudals by player, every pile by
player (taken cards lie open), every chest's size (its cards lie face down) and p's own
chest, the scores, the cards left in the deck, the round, whose move it is, p's seat, the
phase (layout, play, keep) and the card waiting for a keep decision.  Counts are divided by
their largest possible value.
"""
from __future__ import annotations

import numpy as np

PHASES = ("layout", "play", "keep")


class CardCodec:
    def __init__(self, engine):
        R = engine.rules
        self.R = R
        self.types = [name for name, _ in R.CARDS]
        self.index = {n: i for i, n in enumerate(self.types)}
        self.rows = list(R.COLOURS)
        self.row_index = {r: i for i, r in enumerate(self.rows)}
        self.moves = engine.runtime.game  # the engine's own move types
        from importlib import import_module

        self.mv = import_module(engine.runtime.__name__ + ".moves")
        T, K = len(self.types), len(self.rows)
        self.T, self.K = T, K
        self.claim0 = T * K
        self.lay0 = self.claim0 + K
        self.keep0 = self.lay0 + K
        self.discard0 = self.keep0 + T
        self.size = self.discard0 + T

    def encode(self, a) -> int:
        k = a.KIND
        if k == "play":
            return self.index[a.card] * self.K + self.row_index[a.row]
        if k == "claim":
            return self.claim0 + self.row_index[a.row]
        if k == "lay":
            return self.lay0 + self.row_index[a.row]
        if k == "keep":
            return self.keep0 + self.index[a.card]
        return self.discard0 + self.index[a.card]

    def decode(self, n: int):
        mv = self.mv
        if not 0 <= n < self.size:
            raise ValueError(f"no action {n}")
        if n < self.claim0:
            return mv.Play(self.types[n // self.K], self.rows[n % self.K])
        if n < self.lay0:
            return mv.Claim(self.rows[n - self.claim0])
        if n < self.keep0:
            return mv.Lay(self.rows[n - self.lay0])
        if n < self.discard0:
            return mv.Keep(self.types[n - self.keep0])
        return mv.Discard(self.types[n - self.discard0])

    def legal(self, g) -> dict:
        return {self.encode(a): a for a in g.legal_actions()}

    def describe(self, n: int) -> str:
        a = self.decode(n)
        return " ".join(str(x) for x in a)


class CardObserver:
    """The observation vector of one player (see the module's docstring); with `private=True` (the
    information state) also the face-down cards the player laid themself, by row."""

    def __init__(self, codec: CardCodec, players: int, private: bool = False):
        self.c = codec
        self.n = players
        self.private = private
        T, K, n = codec.T, codec.K, players
        parts = [("hand", T), ("rows", K * T), ("face_down", K), ("feudals", K * n), ("piles", n * T),
                 ("chests", n), ("my_chest", T), ("scores", n), ("deck", 1), ("round", 1), ("to_move", n),
                 ("me", n), ("phase", len(PHASES)), ("waiting", T)]
        if private:
            parts.append(("my_face_down", K * T))
        self.parts = parts
        self.size = sum(s for _, s in parts)
        self.tensor = np.zeros(self.size, np.float32)
        self.dict = {}
        at = 0
        for name, s in parts:
            self.dict[name] = self.tensor[at:at + s]
            at += s
        R = codec.R
        self.copies = np.array([spec[3] for _, spec in R.CARDS], np.float32)
        self.total = float(sum(self.copies))
        self.max_score = 1000.0

    def set_from(self, g, p: int):
        """Fill the vector for player p of game g (and return it)."""
        c, d = self.c, self.dict
        self.tensor[:] = 0.0
        for card in g.hands[p]:
            d["hand"][c.index[card]] += 1
        for r, entries in g.rows.items():
            k = c.row_index[r]
            for e in entries:
                if isinstance(e, tuple):
                    d["feudals"][k * self.n + e[1]] = 1.0
                elif e[1]:
                    d["face_down"][k] += 1
                else:
                    d["rows"][k * c.T + c.index[e[0]]] += 1
        for q in range(self.n):
            for card in g.piles[q]:
                d["piles"][q * c.T + c.index[card]] += 1
            d["chests"][q] = len(g.chests[q]) / self.total
            d["scores"][q] = min(max(g.scores[q], 0), self.max_score) / self.max_score
        for card in g.chests[p]:
            d["my_chest"][c.index[card]] += 1
        d["deck"][0] = len(g.deck) / self.total
        d["round"][0] = min(g.round, 100) / 100.0
        if not g.ended:
            d["to_move"][g.current] = 1.0
        d["me"][p] = 1.0
        if g.phase in PHASES:
            d["phase"][PHASES.index(g.phase)] = 1.0
        if g.phase == "keep" and g.pending:
            d["waiting"][c.index[g.pending[0][1]]] = 1.0
        if self.private:
            for row, card in my_face_down(g, p):
                d["my_face_down"][c.row_index[row] * c.T + c.index[card]] += 1
        # counts as shares of their largest possible value
        for name in ("hand", "my_chest", "waiting"):
            d[name] /= self.copies
        d["rows"] /= np.tile(self.copies, c.K)
        d["piles"] /= np.tile(self.copies, self.n)
        d["face_down"] /= self.total
        if self.private:
            d["my_face_down"] /= np.tile(self.copies, c.K)
        np.clip(self.tensor, 0.0, 1.0, out=self.tensor)
        return self.tensor


def my_face_down(g, p: int) -> list:
    """(row, card) of the face-down cards player p laid that still lie face down in the rows:
    what p remembers and no one else knows."""
    return [(row, e[0]) for row, entries in g.rows.items() for e in entries
            if isinstance(e, list) and e[1] and e[2] == p]
