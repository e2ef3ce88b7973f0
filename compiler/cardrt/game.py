"""The card game's turn loop: set-up, the deal, plays and claims, the round's end, scoring, the end.

Every number and condition comes from the generated `rules` module (`R`): the cards, the
layout, the deal table, `FACEDOWN`, `FEUDALS`, where taken cards go (`TAKE`), the
scorings (`SCORES_TAKE`, `SCORES_END`, `MISPLACED`), `END_WHEN` and `TIE`.  This module
knows only the shape of the game of rulebook 001: coloured rows, hands, claims to the
left of a figure, rounds.

Moves (typed tuples of `moves.py`, `legal_actions()`; a written tuple is accepted too):

    ("lay", row)           the dealer puts the set-up joker just drawn at the end of `row` (the layout is
                           drawn one card at a time: a joker is laid as it is drawn, CARD-DEAL-1)
    ("play", card, row)    the current player plays `card` from their hand to the end of `row`
    ("claim", row)         the current player puts a feudal at the end of `row`
    ("keep", card)         a misplaced card its taker may keep (`misplaced ... keep KINDS`): kept
    ("discard", card)      ... or scored as misplaced and removed

Row entries are `[card, face_down, seat that played it (None: the layout), round played]` or a
feudal `("F", seat)`.  The decisions on misplaced cards come in a fixed order (`pending`: seats
from the dealer's left, each seat's cards in the order of its claims), but they do not
interact (a discard scores `misplaced`, which reads only `players`; kept cards are scored
after the last decision), so `decide_first(seat, card)` may bring any open one forward
(a record's decisions in any order).

Card locations: the deck, a row, a hand, a player's pile, a player's chest, removed (the
box and the discard).  `locations()` counts them; their sum is always the cards printed.
"""
from __future__ import annotations

import random

from .errors import IllegalAction
from .moves import Claim, Discard, Keep, Lay, Play, as_move

NAMES = ("red", "blue", "green", "yellow", "black")


class Quantities:
    """What a card expression reads for one player (docs/language.md section 7)."""

    __slots__ = ("R", "players", "round", "best", "_taken", "_owned", "_chest")

    def __init__(self, R, players, rnd, best, taken, owned, chest):
        self.R = R
        self.players = players
        self.round = rnd
        self.best = best
        self._taken = taken
        self._owned = owned
        self._chest = chest

    def taken(self, kind):
        return sum(1 for c in self._taken if self.R.CARD[c][0] == kind)

    def values(self, kind):
        return sum(self.R.CARD[c][2] for c in self._taken if self.R.CARD[c][0] == kind)

    def held(self, kind):
        return sum(1 for c in self._owned if self.R.CARD[c][0] == kind)

    def chest(self, kind):
        return sum(1 for c in self._chest if self.R.CARD[c][0] == kind)

    def colours(self, kind):
        return len({self.R.CARD[c][1] for c in self._owned if self.R.CARD[c][0] == kind and self.R.CARD[c][1]})


def full_deck(R):
    """Every card in play, in the order the rules print them (one name per copy)."""
    return [name for name, (kind, colour, value, count, joker, aside) in R.CARDS for _ in range(count) if not aside]


def aside_cards(R):
    return [name for name, (kind, colour, value, count, joker, aside) in R.CARDS for _ in range(count) if aside]


class Game:
    def __init__(self, rules, players=2, seed=0, names=None, deck=None):
        R = self.R = rules
        lo, hi = R.PLAYERS
        if not lo <= players <= hi or players not in R.DEAL:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {players}")
        self.n = players
        self.names = list(names) if names else list(NAMES[:players]) + [f"p{i}" for i in range(len(NAMES), players)]
        self.seed = seed
        cards = full_deck(R)
        if deck is None:
            random.Random(seed).shuffle(cards)
            order = cards
        else:  # a record's deck: its cards first, in the order drawn, then the others in printed order
            order = list(deck)
            rest = list(cards)
            for c in order:
                if c not in R.CARD or R.CARD[c][5]:
                    raise IllegalAction(f"the deck names {c!r}, which is not a card of these rules", R.CLAUSE_COMP)
                try:
                    rest.remove(c)
                except ValueError:
                    raise IllegalAction(f"the deck names more {c} cards than the rules print "
                                        f"({R.CARD[c][3]})", R.CLAUSE_COMP) from None
            order += rest
        self.deck = order[::-1]  # the top card last: drawn by pop()
        self.drawn = list(order)  # the deck as dealt, top first (a record's "deck")
        self.rows = {c: [] for c in R.COLOURS}  # entries: [card, face_down, who played it] or ("F", seat)
        self.hands = [[] for _ in range(players)]
        self.piles = [[] for _ in range(players)]
        self.chests = [[] for _ in range(players)]
        self.removed = aside_cards(R)
        self.scores = [0] * players
        self.round = 0
        self.dealer = players - 1  # the first seat begins (assume first_dealer)
        self.current = self.dealer
        self.events = []
        self.turn = 0
        self.discards = 0
        self.phase = "layout"
        self.pending = []  # layout jokers waiting for a row, or (seat, card) misplaced cards to keep or not
        self.feudals = [0] * players  # feudals put this round
        self.last_feudal = None
        self.first_feudal = None  # the first to put a feudal this round (`dealer first_feudal`)
        self.started = set()  # rows that received a card this round
        self.laid = 0  # layout cards drawn so far
        self.moved = 0  # moves made in this round (a record's `deal` entry comes before the first)
        self.why = None  # (why the game ended, its clause)
        self.takes = {}  # seat -> cards taken this round (after the keep decisions)
        self.winners = []
        self.ended = False
        self._lay_out()

    def _lay_out(self):
        """Draw the layout one card at a time, each to its colour's row; stop at a joker, which the
        dealer lays into a row of their choice before the next card is drawn (CARD-DEAL-1: «по
        очереди берет 10 карт ... Если раздающий вытянет из колоды Джокера, то он может положить
        его в любой цветовой ряд»)."""
        R = self.R
        while self.laid < R.LAYOUT and self.deck:
            c = self.deck.pop()
            self.laid += 1
            colour = R.CARD[c][1]
            if colour is None:
                self.pending = [c]
                self.phase = "layout"
                self.current = self.dealer
                return
            self.rows[colour].append([c, False, None, 0])
        self.pending = []
        self._start_round()

    # -- the public game API (play/agents.py) -------------------------
    def current_player(self):
        return self.current

    def is_terminal(self):
        return self.ended

    def returns(self):
        return list(self.scores)

    def hand_size(self):
        return self.R.DEAL[self.n][0]

    def clone(self):
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.deck = list(self.deck)
        g.rows = {k: [list(e) if isinstance(e, list) else e for e in v] for k, v in self.rows.items()}
        g.hands = [list(h) for h in self.hands]
        g.piles = [list(h) for h in self.piles]
        g.chests = [list(h) for h in self.chests]
        g.removed = list(self.removed)
        g.scores = list(self.scores)
        g.events = list(self.events)
        g.pending = list(self.pending)
        g.feudals = list(self.feudals)
        g.started = set(self.started)
        g.takes = {k: list(v) for k, v in self.takes.items()}
        g.winners = list(self.winners)
        return g

    def shuffle_bag(self, rng):
        """Deal the cards the current player cannot see anew (the deck and the other hands), for a
        player that samples what it does not know (MCTS determinization)."""
        me = self.current
        pool = list(self.deck)
        for p in range(self.n):
            if p != me:
                pool += self.hands[p]
        rng.shuffle(pool)
        for p in range(self.n):
            if p != me:
                k = len(self.hands[p])
                self.hands[p], pool = pool[:k], pool[k:]
        self.deck = pool

    def decide_first(self, seat, card):
        """Bring the open decision on `card` of `seat` (any seat if None) forward; False if none is open.
        The decisions do not interact (see the module's docstring), so their order is free."""
        for i, x in enumerate(self.pending if self.phase == "keep" else ()):
            if x[1] == card and seat in (None, x[0]):
                self.pending.insert(0, self.pending.pop(i))
                self.current = x[0]
                return True
        return False

    def score_classes(self, actions):
        """A key per action, None for one that certainly leaves every `projected_returns()` as it is
        (play/agents.py tries only the others): a card played that does not end the round (it goes to
        the end of its row, right of every feudal, so no claim takes it before another feudal comes)
        and a set-up joker laid.  Every other action is a class of its own."""
        p = self.current
        if self.phase == "layout":
            return [None] * len(actions)
        # after a play by p the round goes on if anyone may still act (`_advance`)
        goes_on = (len(self.hands[p]) > 1 or self.feudals[p] < self.R.FEUDALS
                   or any(self._can_act(q) for q in range(self.n) if q != p))
        return [None if goes_on and a.KIND == "play" else i for i, a in enumerate(actions)]

    def projected_returns(self):
        """The scores as if the round ended now: what each placed feudal claims, scored (misplaced
        cards that may be kept, kept).  A greedy player's measure of a move."""
        claims = self._claims()[0]
        out = list(self.scores)
        for seat, cards in claims.items():
            taken = [c for c, row, _ in cards if not self._misplaced(c, row) or self.R.CARD[c][0] in self.R.MISPLACED_KEEP]
            wrong = len(cards) - len(taken)
            out[seat] += wrong * self.R.MISPLACED(self._q(seat, [], None)) + self._take_points(seat, taken, dry=True)
        return out

    # -- moves ------------------------------------------------------------
    def legal_actions(self):
        R = self.R
        if self.ended:
            return []
        if self.phase == "layout":
            return [Lay(row) for row in R.COLOURS]
        if self.phase == "keep":
            _, card = self.pending[0]
            return [Keep(card), Discard(card)]
        p = self.current
        acts = []
        for card in sorted(set(self.hands[p]), key=self.hands[p].index):
            for row in R.COLOURS:
                if self._may_play(card, row):
                    acts.append(Play(card, row))
        if self.feudals[p] < R.FEUDALS:
            acts.extend(Claim(row) for row in R.COLOURS)
        return acts

    def _face_down_next(self, row):
        return self.R.FACEDOWN == "first" and row not in self.started

    def _may_play(self, card, row):
        return self._face_down_next(row) or self.R.CARD[card][4] or self.R.CARD[card][1] == row

    def apply_action(self, a):
        R = self.R
        if self.ended:
            raise IllegalAction(*self.over())
        move = as_move(a)
        if move is None:
            raise IllegalAction(f"not a move of the card game: {a!r}", R.CLAUSE_TURN)
        a, kind = move, move.KIND
        if self.phase == "layout":
            if kind != "lay" or a[1] not in self.rows:
                raise IllegalAction(f"the set-up joker {self.pending[0]} (layout card {self.laid} of {R.LAYOUT}) "
                                    f"waits for the dealer, {self.names[self.dealer]}, to lay it into a row",
                                    R.CLAUSE_LAYOUT)
            self.rows[a[1]].append([self.pending.pop(0), False, None, 0])
            self.turn += 1
            self._lay_out()
            return
        if kind == "lay":
            raise IllegalAction("no set-up joker waits to be laid: the layout is over", R.CLAUSE_LAYOUT)
        if kind in ("keep", "discard") and self.phase != "keep":
            raise IllegalAction(f"no misplaced card waits for a decision to keep or discard it, so `{kind} "
                                f"{a[1]}` is no move now (a misplaced card is decided on when the round ends "
                                f"and its taker may keep it)", R.CLAUSE_MISPLACED)
        if self.phase == "keep":
            seat, card = self.pending[0]
            if kind not in ("keep", "discard") or a[1] != card:
                raise IllegalAction(f"{self.names[seat]} first decides whether to keep the misplaced {card}",
                                    R.CLAUSE_MISPLACED)
            self.pending.pop(0)
            if kind == "keep":
                self.takes.setdefault(seat, []).append(card)
            else:
                self._misplaced_score(seat, card)
            self.turn += 1
            self._next_keep()
            return
        p = self.current
        if kind == "play":
            card, row = a[1], a[2]
            if row not in self.rows:
                raise IllegalAction(f"there is no {row} row", R.CLAUSE_TURN)
            if not self.hands[p]:
                raise IllegalAction(f"{self.names[p]}'s hand is empty: the only move left to {self.names[p]} "
                                    f"this round is to put the {R.FEUDAL} at the end of a row", R.CLAUSE_FEUDAL)
            if card not in self.hands[p]:
                raise IllegalAction(f"{self.names[p]} holds no {card}", R.CLAUSE_TURN)
            if not self._may_play(card, row):
                raise IllegalAction(f"{card} is {R.CARD[card][1]}: face up it goes only into the {R.CARD[card][1]} "
                                    f"row, not the {row} row", R.CLAUSE_TURN)
            face_down = self._face_down_next(row)
            self.hands[p].remove(card)
            self.rows[row].append([card, face_down, p, self.round])
            self.started.add(row)
        elif kind == "claim":
            row = a[1]
            if row not in self.rows:
                raise IllegalAction(f"there is no {row} row", R.CLAUSE_TURN)
            if self.feudals[p] >= R.FEUDALS:
                raise IllegalAction(f"{self.names[p]} has put {R.FEUDALS} {R.FEUDAL} this round already; it stays "
                                    f"where it stands until the round ends", R.CLAUSE_FEUDAL)
            self.feudals[p] += 1
            self.rows[row].append(("F", p))
            if self.first_feudal is None:
                self.first_feudal = p
            self.last_feudal = p
        else:
            raise IllegalAction(f"not a move of the card game: {a!r}", R.CLAUSE_TURN)
        self.turn += 1
        self.moved += 1
        self._advance()

    def _can_act(self, p):
        return bool(self.hands[p]) or self.feudals[p] < self.R.FEUDALS

    def _advance(self):
        for step in range(1, self.n + 1):
            q = (self.current + step) % self.n
            if self._can_act(q):
                self.current = q
                return
        self._end_round()

    # -- rounds -----------------------------------------------------------
    def _start_round(self):
        R = self.R
        k = R.DEAL[self.n][0]
        self.round += 1
        self.moved = 0
        self.first_feudal = None
        self.phase = "play"
        self.feudals = [0] * self.n
        self.started = set()
        self.takes = {}
        first = (self.dealer + 1) % self.n
        for i in range(self.n):
            seat = (first + i) % self.n
            for _ in range(k):
                self.hands[seat].append(self.deck.pop())
        self.events.append({"kind": "deal", "round": self.round, "dealer": self.names[self.dealer],
                            "cards": k, "clause": R.CLAUSE_DEAL})
        self.current = first
        if not self._can_act(first):
            self._advance()

    def _misplaced(self, card, row):
        colour = self.R.CARD[card][1]
        return colour is not None and colour != row

    def _claims(self):
        """(seat -> [(card, row, face_down)], the rows without what is claimed): each feudal takes
        the cards to its left, up to the field or the previous feudal."""
        claims = {}
        rest = {}
        for row, entries in self.rows.items():
            seg = []
            for e in entries:
                if isinstance(e, tuple):
                    claims.setdefault(e[1], []).extend((e2[0], row, e2[1]) for e2 in seg)
                    seg = []
                else:
                    seg.append(e)
            rest[row] = seg
        return claims, rest

    def _end_round(self):
        R = self.R
        claims, rest = self._claims()
        self.rows = {row: [list(e) for e in seg] for row, seg in rest.items()}
        self.pending = []
        first = (self.dealer + 1) % self.n
        self.takes = {}
        for i in range(self.n):
            seat = (first + i) % self.n
            if seat not in claims:
                continue
            self.takes[seat] = []
            for card, row, _ in claims[seat]:
                if self._misplaced(card, row):
                    if R.CARD[card][0] in R.MISPLACED_KEEP:
                        self.pending.append((seat, card))
                    else:
                        self._misplaced_score(seat, card)
                else:
                    self.takes[seat].append(card)
        mode = getattr(R, "DEALER", "last_feudal")
        if mode == "left":  # `dealer left`: the deal passes clockwise
            self.dealer = (self.dealer + 1) % self.n
        elif mode == "first_feudal" and self.first_feudal is not None:
            self.dealer = self.first_feudal
        elif mode == "last_feudal" and self.last_feudal is not None:
            self.dealer = self.last_feudal  # the last to put a feudal deals the next round (CARD-ROUND-1)
        self._next_keep()

    def _next_keep(self):
        if self.pending:
            self.phase = "keep"
            self.current = self.pending[0][0]
            return
        first = (self.dealer + 1) % self.n
        for seat in sorted(self.takes, key=lambda s: (s - first) % self.n):
            self._take(seat, self.takes[seat])
        self.takes = {}
        self._after_round()

    def _misplaced_score(self, seat, card):
        R = self.R
        pts = R.MISPLACED(self._q(seat, [], None))
        self.removed.append(card)
        self.scores[seat] += pts
        self.events.append({"kind": "score", "feature": "misplaced", "when": "take", "turn": self.turn, "round": self.round,
                            "cards": [card], "points": {self.names[seat]: pts}, "clause": R.CLAUSE_MISPLACED})

    def _q(self, seat, taken, owned_extra):
        owned = self.piles[seat] + self.chests[seat] + (owned_extra or [])
        return Quantities(self.R, self.n, self.round, max(self.scores), taken, owned, self.chests[seat])

    def _take_points(self, seat, taken, dry=False):
        """Points of a take (the cards already moved unless `dry`)."""
        if dry:
            q = self._q(seat, taken, taken)
            extra_chest = [c for c in taken if self.R.TAKE.get(self.R.CARD[c][0]) == "chest"]
            q._chest = self.chests[seat] + extra_chest
        else:
            q = self._q(seat, taken, None)
        return sum(fn(q) for _, _, fn in self.R.SCORES_TAKE)

    def _take(self, seat, taken):
        R = self.R
        for c in taken:
            where = R.TAKE.get(R.CARD[c][0], "pile")
            (self.chests[seat] if where == "chest" else self.removed if where == "removed" else self.piles[seat]).append(c)
        q = self._q(seat, taken, None)
        for name, clause, fn in R.SCORES_TAKE:
            pts = fn(q)
            if pts:
                self.scores[seat] += pts
                self.events.append({"kind": "score", "feature": name, "when": "take", "turn": self.turn, "round": self.round,
                                    "cards": list(taken), "points": {self.names[seat]: pts}, "clause": clause})

    def _after_round(self):
        R = self.R
        k = R.DEAL[self.n][0]
        q = Quantities(R, self.n, self.round, max(self.scores), [], [], [])
        if len(self.deck) < k * self.n:
            self._final(f"the deck's end: {len(self.deck)} cards are left and a round of {self.n} players needs "
                        f"{k * self.n}, so the dealer cannot deal again", R.CLAUSE_DEAL_END)
        elif R.END_WHEN(q):
            self._final(f"the end condition `end when {R.END_TEXT}` held after round {self.round} (best score "
                        f"{max(self.scores)}; {len(self.deck)} cards were left in the deck)", R.CLAUSE_END)
        else:
            self._start_round()

    def over(self):
        """(message, clause) for a move after the end: which end condition fired."""
        why, clause = self.why or ("the game is over", self.R.CLAUSE_END)
        return f"the game is over after round {self.round}: {why}", clause

    def finish(self):
        """End the game now, with final scoring (a record's `"end": "final"`)."""
        if not self.ended:
            self._final("the record ends here (`\"end\": \"final\"`)", self.R.CLAUSE_END)

    def _final(self, why, clause):
        R = self.R
        for row in self.rows:  # every card of the rows goes to the discard
            self.removed.extend(e[0] for e in self.rows[row] if isinstance(e, list))
            self.rows[row] = []
        for p in range(self.n):
            self.removed.extend(self.hands[p])
            self.hands[p] = []
        self.pending = []
        self.why = (why, clause)
        self.events.append({"kind": "end", "round": self.round, "why": why, "clause": clause})
        for p in range(self.n):
            q = self._q(p, [], None)
            for name, sclause, fn in R.SCORES_END:
                pts = fn(q)
                if pts:
                    self.scores[p] += pts
                    self.events.append({"kind": "score", "feature": name, "when": "end", "turn": self.turn, "round": self.round,
                                        "points": {self.names[p]: pts}, "clause": sclause})
        top = max(self.scores)
        best = [p for p in range(self.n) if self.scores[p] == top]
        if len(best) > 1:
            ties = {p: R.TIE(self._q(p, [], None)) for p in best}
            most = max(ties.values())
            best = [p for p in best if ties[p] == most]
        self.winners = best
        self.phase = "over"
        self.ended = True

    # -- what is where ----------------------------------------------------
    def _claimed(self, p):
        """Cards seat p has taken this round and not yet sorted (while misplaced cards wait for a
        decision), with its pile: the claimed pile."""
        return (self.piles[p] + self.takes.get(p, [])
                + [c for x in self.pending if isinstance(x, tuple) and x[0] == p for c in [x[1]]])

    def locations(self):
        """How many cards lie where: deck (set-up jokers not yet laid included), rows, hands,
        claimed piles, chests, removed; their sum is always the cards printed."""
        cards = self.all_cards()
        return {"deck": len(cards["deck"]),
                "rows": {r: len(cards[f"row:{r}"]) for r in self.rows},
                "hands": {self.names[p]: len(self.hands[p]) for p in range(self.n)},
                "piles": {self.names[p]: len(cards[f"pile:{p}"]) for p in range(self.n)},
                "chests": {self.names[p]: len(self.chests[p]) for p in range(self.n)},
                "removed": len(self.removed)}

    def all_cards(self):
        """Every card, by location (the verifier's recount compares these with its own)."""
        out = {"deck": list(self.deck) + [c for c in self.pending if isinstance(c, str)], "removed": list(self.removed)}
        for r, v in self.rows.items():
            out[f"row:{r}"] = [e[0] for e in v if isinstance(e, list)]
        for p in range(self.n):
            out[f"hand:{p}"] = list(self.hands[p])
            out[f"pile:{p}"] = self._claimed(p)
            out[f"chest:{p}"] = list(self.chests[p])
        return out

    # -- records ----------------------------------------------------------
    def record_of(self, a):
        """The record's entry for move `a` (docs/records.md, tessera-cards/1)."""
        if a[0] == "lay":
            return {"lay": self.pending[0], "row": a[1], "draw": self.laid}  # the moment: layout card `draw`
        if a[0] == "play":
            return {"play": a[1], "row": a[2], "face": "down" if self._face_down_next(a[2]) else "up"}
        if a[0] == "claim":
            return {"claim": a[1]}
        return {a[0]: a[1], "player": self.names[self.current]}  # whose decision: they come in any order

    def view(self, seat=None):
        """What a player sees (seat None: everything; a seat no player has, such as -1: what every
        player sees, no hand): the rows with their feudals (a face-down card is "?", except to the
        player who laid it), the scores, each pile, each chest's size (its cards lie face down), the
        player's own hand and only the size of the others'; the phase, the card waiting for the
        dealer or for a decision, and once the game is over why it ended and who won."""
        rows = {}
        for r, v in self.rows.items():
            rows[r] = [("feudal:" + self.names[e[1]]) if isinstance(e, tuple) else
                       ("?" if e[1] and seat is not None and e[2] != seat else e[0] + (" (face down)" if e[1] else ""))
                       for e in v]
        out = {"round": self.round, "dealer": self.names[self.dealer], "to_move": self.names[self.current],
               "rows": rows, "scores": {self.names[p]: self.scores[p] for p in range(self.n)},
               "chests": {self.names[p]: len(self.chests[p]) for p in range(self.n)},
               "piles": {self.names[p]: sorted(self.piles[p]) for p in range(self.n)},
               "hands": {self.names[p]: (sorted(self.hands[p]) if seat in (None, p) else len(self.hands[p]))
                         for p in range(self.n)},
               "deck": len(self.deck), "phase": self.phase,
               "waiting": (self.pending[0] if self.phase == "layout" else self.pending[0][1]
                           if self.phase == "keep" else None)}
        if self.ended:
            out["over"] = self.why[0] if self.why else "the game is over"
            out["winners"] = [self.names[p] for p in self.winners]
        return out


def random_moves(g, seed, before=None):
    """Play game `g` to the end with uniformly random legal moves drawn from `seed`."""
    rng = random.Random(seed ^ 0x63617264)  # "card": apart from the deck's shuffle
    while not g.ended:
        acts = g.legal_actions()
        a = acts[rng.randrange(len(acts))]
        if before is not None:
            before(g, a)
        g.apply_action(a)
    return g


def play_random(rules, players=2, seed=0, names=None):
    return random_moves(Game(rules, players, seed, names), seed)
