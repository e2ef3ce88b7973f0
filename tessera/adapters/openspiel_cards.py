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
  player's own face-down cards); the observation is the present without that memory;
- returns at the end (zero-sum): the winners (the tie rule applied) share `players -
  winners`, every other player gets -1;
- serialization: the cards drawn and the moves made, replayed (OpenSpiel pickles a state's
  attributes).
"""
from __future__ import annotations

import pyspiel

from tessera.compiler.replay import engine_for
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
        if getattr(R, "FAMILY", "tiles") != "cards":
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
        self._public: list[str] = []  # every move as all players saw it
        self._private: list[list[str]] = [[] for _ in range(game.players)]  # ... and as each player saw it

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
                self._deal_seen(0)
            return
        g = self._e.g
        legal = codec.legal(g)
        a = legal.get(int(action))
        if a is None:
            raise ValueError(f"action {action} is not legal now ({codec.describe(int(action))})")
        mover, rnd = g.current, g.round
        g.apply_action(a)
        self._e.moves.append(int(action))
        said = f"{g.names[mover]}: {' '.join(str(x) for x in a)}"
        if a.KIND == "play" and g.rows[a.row] and g.rows[a.row][-1][1]:  # laid face down: its face is the mover's
            hidden = f"{g.names[mover]}: play ? {a.row}"
            for p in range(game.players):
                self._private[p].append(said if p == mover else hidden)
            self._public.append(hidden)
        else:
            for p in range(game.players):
                self._private[p].append(said)
            self._public.append(said)
        if g.round != rnd:
            self._deal_seen(rnd)

    def _deal_seen(self, before_round: int):
        g = self._e.g
        for p in range(self._game().players):
            self._private[p].append(f"round {g.round}: {g.names[p]} is dealt {' '.join(sorted(g.hands[p]))}")

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

    def information_state_string(self, player):
        return _info_string(self, player)

    def observation_string(self, player):
        return _obs_string(self, player)

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
    return "\n".join([f"player {player}", *state._private[player], _obs_string(state, player)])


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
