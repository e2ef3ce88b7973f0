"""The card game (rulebook 001) as an OpenSpiel imperfect-information game; needs the `rl` extra.

    import pyspiel
    import tessera.adapters.openspiel_cards  # registers the game "tessera_cards"
    game = pyspiel.load_game("tessera_cards", {"rules": "card", "players": 3})

- the shuffle is chance: the game opens with one chance node per card of the deck, each
  drawing the next card with the odds of the cards left (copies / cards left); then the
  engine lays out, deals and plays from that deck;
- actions are `tessera.adapters.cardgame.CardCodec`'s stable numbers;
- information state (string and tensor) of a player: what that player has seen and only
  that: their own hands, the open rows, piles and scores, the sizes of the other hands and of
  every chest, the face-down cards as "?" except those the player laid; the string is the
  whole history so seen (perfect recall), the tensor the present (CardObserver with the
  player's own face-down cards); the observation is the present without that memory.
  `information_state_string()` and `observation_string()` without a player are the current
  player's (OpenSpiel's convention, which `ISMCTSBot` uses);
- `resample_from_infostate(player, sampler)`: a state the player cannot tell from this one
  (the same information state), the cards they have not seen dealt anew: the deck's rest,
  the other hands and the other players' cards still face down in the rows (a face-down card
  once taken has been turned up, CARD-ROUND-1, and stays what it was).  The new state's
  history (the cards drawn, the moves) is rewritten to match, so it replays and pickles like
  any other;
- returns at the end (zero-sum): the winners (the tie rule applied) share `players -
  winners`, every other player gets -1;
- serialization: the cards drawn and the moves made, replayed (OpenSpiel pickles a state's
  attributes).
"""
from __future__ import annotations

import random

import pyspiel

from ..replay.tiles import engine_for
from ..dsl.family import CARDS, Family
from .cardgame import CardCodec, CardObserver
from .spiel import rules_of, win_shares

SHORT_NAME = "tessera_cards"
DEFAULTS = {"rules": "card", "players": 2}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="tessera: the Carcassonne card game compiled from rule files",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class CardGame(pyspiel.Game):
    def __init__(self, params=None):
        p = {**DEFAULTS, **(params or {})}
        self.rules_spec = str(p["rules"])
        self.engine = engine_for(rules_of(self.rules_spec), [])
        R = self.engine.rules
        if Family.of_rules(R) is not CARDS:
            raise ValueError(f"{self.rules_spec} is not a card game: use the game `tessera`")
        self.players = int(p["players"])
        lo, hi = R.PLAYERS
        if not lo <= self.players <= hi:
            raise ValueError(f"these rules are for {lo} to {hi} players, not {self.players}")
        self.codec = CardCodec(self.engine)
        self.deck_size = sum(spec[3] for _, spec in R.CARDS if not spec[5])
        n = self.players
        super().__init__(GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=self.codec.size,
            max_chance_outcomes=self.codec.T,
            num_players=n,
            min_utility=-1.0,
            max_utility=float(n - 1),
            utility_sum=0.0,
            # the shuffle, the layout's jokers, every card played, the feudals, every keep decision
            max_game_length=3 * self.deck_size + n * max(r for _, r in R.DEAL.values()) * R.FEUDALS,
        ), p)

    def new_initial_state(self):
        return CardState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return CardGameObserver(self, recall)


class _Played:
    """The drawn cards and the moves: pickled as such and replayed (the engine's Game holds its
    rules module, which does not pickle)."""

    def __init__(self, spec: str, players: int):
        self.spec, self.players = spec, players
        self.drawn: list[str] = []
        self.moves: list[int] = []
        self.g = None

    def __deepcopy__(self, memo):
        c = _Played(self.spec, self.players)
        c.drawn, c.moves = list(self.drawn), list(self.moves)
        c.g = self.g.clone() if self.g is not None else None
        return c

    def __reduce__(self):
        return (_replay, (self.spec, self.players, list(self.drawn), list(self.moves)))


def _replay(spec, players, drawn, moves):
    e = _Played(spec, players)
    e.drawn = list(drawn)
    engine = engine_for(rules_of(spec), [])
    if e.drawn and len(e.drawn) == sum(s[3] for _, s in engine.rules.CARDS if not s[5]):
        e.g = engine.new_game(players, 0, None, e.drawn)
        codec = CardCodec(engine)
        for m in moves:
            e.g.apply_action(codec.decode(m))
            e.moves.append(m)
    return e


class CardState(pyspiel.State):
    def __init__(self, game: CardGame):
        super().__init__(game)
        self._e = _Played(game.rules_spec, game.players)
        # what happened, as each player may see it (`_seen`): ["deal", round, [each seat's hand, sorted],
        # first card's place in the deck, first seat, cards each] or ["move", mover, written move,
        # face down, round, index in _e.moves]
        self._log: list[list] = []

    def engine_game(self):
        return self._e.g

    def _game(self) -> CardGame:
        return self.get_game()

    def current_player(self):
        g = self._e.g
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if g.ended:
            return pyspiel.PlayerId.TERMINAL
        return g.current

    def _left(self) -> dict[int, int]:
        game = self._game()
        left = {i: spec[3] for i, (_, spec) in enumerate(game.engine.rules.CARDS) if not spec[5]}
        for c in self._e.drawn:
            left[game.codec.index[c]] -= 1
        return {i: k for i, k in left.items() if k > 0}

    def chance_outcomes(self):
        left = self._left()
        total = sum(left.values())
        return [(i, k / total) for i, k in sorted(left.items())]

    def _legal_actions(self, player):
        g = self._e.g
        if g is None or g.ended or player != g.current:
            return []
        return sorted(self._game().codec.legal(g))

    def _apply_action(self, action):
        game = self._game()
        codec = game.codec
        if self._e.g is None:
            card = codec.types[int(action)]
            if int(action) not in self._left():
                raise ValueError(f"no {card} is left to draw")
            self._e.drawn.append(card)
            if len(self._e.drawn) == game.deck_size:
                self._e.g = game.engine.new_game(game.players, 0, None, self._e.drawn)
                if self._e.g.round:  # no joker in the layout: the first round is dealt at once
                    self._deal_seen()
            return
        g = self._e.g
        legal = codec.legal(g)
        a = legal.get(int(action))
        if a is None:
            raise ValueError(f"action {action} is not legal now ({codec.describe(int(action))})")
        mover, rnd = g.current, g.round
        down = a.KIND == "play" and g._face_down_next(a.row)  # laid face down: its face is the mover's
        g.apply_action(a)
        self._e.moves.append(int(action))
        self._log.append(["move", mover, tuple(a), down, rnd, len(self._e.moves) - 1])
        if g.round != rnd and not g.ended:
            self._deal_seen()

    def _deal_seen(self):
        g = self._e.g
        n, k = self._game().players, g.R.DEAL[g.n][0]
        start = len(self._e.drawn) - len(g.deck) - n * k
        self._log.append(["deal", g.round, [sorted(h) for h in g.hands], start, (g.dealer + 1) % n, k])

    def _seen(self, player: int) -> list[str]:
        """The history as `player` saw it: their own hands, every move, another's face-down card as "?"."""
        names = self._e.g.names if self._e.g is not None else []
        out = []
        for e in self._log:
            if e[0] == "deal":
                out.append(f"round {e[1]}: {names[player]} is dealt {' '.join(e[2][player])}")
            elif e[3] and e[1] != player:
                out.append(f"{names[e[1]]}: play ? {e[2][2]}")
            else:
                out.append(f"{names[e[1]]}: {' '.join(str(x) for x in e[2])}")
        return out

    def resample_from_infostate(self, player_id, probability_sampler=None):
        """A state `player_id` cannot tell from this one: what they have not seen, dealt anew (see
        the module's docstring).  `probability_sampler` (OpenSpiel's, a callable giving a number in
        [0, 1)) seeds the shuffle; without one, the system's randomness."""
        st = self.clone()
        g = st._e.g
        if g is None or g.ended:
            return st
        seed = int(probability_sampler() * 2 ** 53) if callable(probability_sampler) else None
        st._deal_unseen(int(player_id), random.Random(seed))
        return st

    def _deal_unseen(self, p: int, rng: random.Random) -> None:
        g, codec = self._e.g, self._game().codec
        n = g.n
        others = [q for q in range(n) if q != p]
        hidden_rows = [e for entries in g.rows.values() for e in entries
                       if isinstance(e, list) and e[1] and e[2] is not None and e[2] != p]
        pool = list(g.deck) + [c for q in others for c in g.hands[q]] + [e[0] for e in hidden_rows]
        rng.shuffle(pool)
        it = iter(pool)
        new_deck = [next(it) for _ in g.deck]
        old_hands = {q: list(g.hands[q]) for q in others}
        new_hands = {q: [next(it) for _ in g.hands[q]] for q in others}
        old_down: dict = {}  # (seat, round) -> its cards still face down, before and after
        new_down: dict = {}
        moves = {(e[4], e[2][2]): e for e in self._log if e[0] == "move" and e[3]}  # (round, row) -> the play
        for row, entries in g.rows.items():
            for e in entries:
                if isinstance(e, list) and e[1] and e[2] is not None and e[2] != p:
                    card = next(it)
                    old_down.setdefault((e[2], e[3]), []).append(e[0])
                    new_down.setdefault((e[2], e[3]), []).append(card)
                    m = moves[(e[3], row)]
                    m[2] = ("play", card, row)
                    self._e.moves[m[5]] = codec.encode(codec.mv.Play(card, row))
                    e[0] = card
        drawn = self._e.drawn
        at = len(drawn) - len(g.deck)
        drawn[at:] = new_deck[::-1]  # the deck's top is its last card
        for e in self._log:
            if e[0] != "deal":
                continue
            _, rnd, hands, start, first, k = e
            for q in others:
                i = start + ((q - first) % n) * k
                block = drawn[i:i + k]
                old = old_down.get((q, rnd), []) + (old_hands[q] if rnd == g.round else [])
                new = new_down.get((q, rnd), []) + (new_hands[q] if rnd == g.round else [])
                for c in old:
                    block.remove(c)
                drawn[i:i + k] = block + new
                hands[q] = sorted(block + new)
        g.deck = new_deck
        g.drawn = list(drawn)
        for q in others:
            g.hands[q] = new_hands[q]

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {self._game().codec.types[action]}"
        return self._game().codec.describe(action)

    def is_terminal(self):
        return self._e.g is not None and self._e.g.ended

    def returns(self):
        n = self._game().players
        if not self.is_terminal():
            return [0.0] * n
        return win_shares(n, self._e.g.winners)

    def information_state_string(self, player=None):
        return _info_string(self, self.current_player() if player is None else player)

    def observation_string(self, player=None):
        return _obs_string(self, self.current_player() if player is None else player)

    def __str__(self):
        g = self._e.g
        if g is None:
            return f"shuffling: {len(self._e.drawn)} cards drawn"
        import json

        return json.dumps(g.view(None), sort_keys=True)


def _obs_string(state: CardState, player: int) -> str:
    import json

    g = state.engine_game()
    if g is None:
        return f"player {player}: the cards are being shuffled"
    return f"player {player}: " + json.dumps(g.view(player), sort_keys=True)


def _info_string(state: CardState, player: int) -> str:
    return "\n".join([f"player {player}", *state._seen(player), _obs_string(state, player)])


class CardGameObserver:
    """OpenSpiel's PyObserver: the information state (perfect recall) or the observation."""

    def __init__(self, game: CardGame, recall: bool):
        self.recall = recall
        self._obs = CardObserver(game.codec, game.players, private=True)  # the memory part is 0 without recall
        self.tensor = self._obs.tensor
        self.dict = self._obs.dict

    def set_from(self, state: CardState, player: int):
        g = state.engine_game()
        if g is None:
            self.tensor[:] = 0.0
            return
        self._obs.set_from(g, player)
        if not self.recall:
            self.dict["my_face_down"][:] = 0.0

    def string_from(self, state: CardState, player: int) -> str:
        return _info_string(state, player) if self.recall else _obs_string(state, player)


pyspiel.register_game(GAME_TYPE, CardGame)


def load(rules="card", players: int = 2):
    return pyspiel.load_game(SHORT_NAME, {"rules": rules, "players": players})
