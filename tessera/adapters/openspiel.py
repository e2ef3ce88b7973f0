"""Any rule set as an OpenSpiel game (docs/engine.md, "OpenSpiel"); needs the `rl` extra.

    import pyspiel
    import tessera.adapters.openspiel  # registers the game "tessera"
    game = pyspiel.load_game("tessera", {"rules": "base+river+abbot", "players": 3})

- players move in turn (`current_player()`); before each move a chance node draws
  the tile: its outcomes are tile numbers (`engine.rules.TILES` order) with the odds
  of the bag as it is (a deck's `last` tiles only when nothing else is left in it);
  the catapults a Siege tile brings follow from the tile, not from chance, and
  during an attack the current player is whoever must remove a figure, clockwise
  from the active player (the engine's `current_player()`);
- actions are the stable numbers of `tessera.replay.actions.ActionCodec`; legal-action
  masks follow from them (`num_distinct_actions() == codec.size`);
- the observation tensor is `tessera.adapters.observation.Observer`'s as planes (C, H, W);
  the observation string is the board as text (`board_text`);
- returns at the end (zero-sum): the winners share `players - winners` points
  and every other player gets -1 (two players: +1 / -1, a tie 0 / 0); the scores
  themselves are in the observation and in `state.engine_game().scores`;
- clone is the engine's `clone()`; serialization is the engine's `to_json()`
  plus the drawn tile (OpenSpiel pickles the state's attributes).

`python -m tessera.adapters.openspiel --games 100` plays OpenSpiel's MCTS bot
against a random player on the base game and prints the result.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from ..replay.actions import ActionCodec, WindowExceeded
from ..replay.tiles import engine_for
from ..replay.turns import deal
from .observation import Observer, board_text
from .spiel import rules_of, win_shares

SHORT_NAME = "tessera"
DEFAULTS = {"rules": "base", "players": 2, "radius": 0, "view": 0}  # 0: the window that fits the rules (docs/engine.md)
MAX_PLAYERS = 6

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="tessera: Carcassonne compiled from rule files",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


class TesseraGame(pyspiel.Game):
    def __init__(self, params=None):
        p = {**DEFAULTS, **(params or {})}
        self.rules_spec = str(p["rules"])
        self.engine = engine_for(rules_of(self.rules_spec), [])
        self.players = int(p["players"])
        lo, hi = self.engine.rules.PLAYERS
        if not lo <= self.players <= min(hi, MAX_PLAYERS):
            raise ValueError(f"these rules are for {lo} to {hi} players, not {self.players}")
        # a window that follows the board (docs/engine.md, section 6): a board that outgrows it is refused
        # (WindowExceeded), never ended as a terminal state
        self.codec = ActionCodec(self.engine, int(p["radius"]) or None, follow=True)
        self.view = int(p["view"]) or None
        n = self.players
        super().__init__(GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=self.codec.size,
            max_chance_outcomes=len(self.engine.rules.TILES),
            num_players=n,
            min_utility=-1.0,
            max_utility=float(n - 1),
            utility_sum=0.0,
            max_game_length=self.codec.max_moves,  # each tile placed or discarded once, captures and ransoms
        ), p)

    def new_initial_state(self):
        return TesseraState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """OpenSpiel's observer (`open_spiel.python.observation.make_observation(game, params=...)`):
        `.tensor` the planes (C, H, W) flattened; `.dict` {"observation": the planes} by default (what
        `observation_tensor_shape()` reads), or with `params={"views": "named"}` the named views into the
        same numbers: board, tile, supply, scores, turn, bag (and prisoners, outposts, catapults)."""
        params = dict(params or {})
        views = params.pop("views", "planes")
        if params or views not in ("planes", "named"):
            raise ValueError(f"observation parameters {dict(params or {}, views=views)}: only "
                             f"views='planes' (the default) or views='named'")
        return TesseraObserver(self, named=views == "named")


class _Engine:
    """Holds the engine's game inside a state: deep-copied by `clone()`, pickled as
    `to_json()` plus the drawn tile (both as OpenSpiel copies and serializes states)."""

    def __init__(self, game, spec: str, players: int):
        self.g = game
        self.spec = spec
        self.players = players
        self.legal = None  # {number: action}, cached for the current decision

    def __deepcopy__(self, memo):
        copy = _Engine(self.g.clone(), self.spec, self.players)
        copy.legal = self.legal  # never changed in place: a move replaces it
        return copy

    def __reduce__(self):
        drawn = self.g.bag.drawn if not self.g.is_terminal() else None
        return (_restore, (self.spec, self.g.to_json(), drawn))


def _restore(spec: str, text: str, drawn):
    engine = engine_for(rules_of(spec), [])
    g = engine.Game.from_json(engine.rules, text)
    if drawn is not None and not g.is_terminal() and g.bag.drawn != drawn:  # a deal the state's history does not hold
        deal(g, drawn)
    return _Engine(g, spec, len(g.names))


def draw_odds(g) -> list[tuple[int, float]]:
    """The tiles the next draw can give and their odds: the drawn tile back in its deck,
    then the first deck with tiles left, its `last` tiles only when nothing else is left."""
    R = g.R
    decks = [list(d) for d in g.bag.decks]
    if g.bag.drawn is not None:
        home = g.deck_of(g.bag.drawn)
        decks[next(i for i, d in enumerate(g.bag.decks) if d is home)].append(g.bag.drawn)
    for di, deck in enumerate(decks):
        if deck:
            body = [t for t in deck if t not in R.DECK_LAST[di]] or deck
            counts: dict[int, int] = {}
            for t in body:
                counts[t] = counts.get(t, 0) + 1
            return [(t, c / len(body)) for t, c in sorted(counts.items())]
    return []


class TesseraState(pyspiel.State):
    def __init__(self, game: TesseraGame):
        super().__init__(game)
        self._e = _Engine(game.engine.new_game(game.players, 0), game.rules_spec, game.players)
        self._chance = True  # the first tile is drawn by a chance node

    # -- what the adapters and tests may read
    def engine_game(self):
        """The engine's Game (docs/engine.md): scores, events, features, to_json."""
        return self._e.g

    def _codec(self) -> ActionCodec:
        return self.get_game().codec

    def _legal(self) -> dict:
        if self._e.legal is None:
            try:
                self._e.legal = self._codec().legal(self._e.g)
            except WindowExceeded as e:  # not a terminal state: the game did not end, the window did
                game = self.get_game()
                raise WindowExceeded(f"tessera(rules={game.rules_spec},radius={self._codec().radius}): {e.reason}") from None
        return self._e.legal

    # -- OpenSpiel API
    def current_player(self):
        g = self._e.g
        if g.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self._chance:
            return pyspiel.PlayerId.CHANCE
        if not self._legal():  # a tile that cannot be placed without a discard rule ended the game
            return pyspiel.PlayerId.TERMINAL
        return g.current_player()

    def _legal_actions(self, player):
        if player != self.current_player() or player < 0:
            return []
        return list(self._legal())

    def chance_outcomes(self):
        return draw_odds(self._e.g)

    def _apply_action(self, action):
        g = self._e.g
        self._e.legal = None
        if self._chance:
            tiles = dict(draw_odds(g))
            if int(action) not in tiles:
                raise ValueError(f"chance outcome {action} is not a tile the bag can give now "
                                 f"(outcomes: {sorted(tiles)})")
            deal(g, int(action))  # chance's move: the tile dealt
            self._chance = False
            return
        legal = self._legal()
        a = legal.get(int(action))
        if a is None:
            raise ValueError(f"action {action} is not legal now ({self._codec().describe(action)})")
        turn = g.turn
        g.apply_action(a)
        self._e.legal = None
        # a new tile is drawn only when the turn passes on: not after a ransom, nor while the same
        # player still chooses a capture (the Tower), nor after a "?" catapult, a removal or the
        # extra figure on an outpost (Siege)
        self._chance = not g.is_terminal() and g.turn != turn

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {self._e.g.tile_name(action)} (tile #{action})"
        return self._codec().describe(action)

    def is_terminal(self):
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def returns(self):
        n = self._e.players
        if not self.is_terminal():
            return [0.0] * n
        scores = self._e.g.scores
        top = max(scores)
        return win_shares(n, {p for p, s in enumerate(scores) if s == top})

    def __str__(self):
        g = self._e.g
        head = "chance" if self._chance and not g.is_terminal() else (
            "over" if self.is_terminal() else f"tile {g.tile_name()} (#{g.bag.drawn})")
        return f"{head}\n{g.to_json()}"


class TesseraObserver:
    """OpenSpiel's PyObserver interface over tessera.adapters.observation.Observer: the tensor
    is the observation as planes (C, H, W) (`Observer.set_planes`), so that
    `observation_tensor_shape()` is [C, H, W]; the string is the board as text."""

    def __init__(self, game: TesseraGame, named: bool = False):
        self._obs = Observer(game.codec, game.players, game.view)
        shape = self._obs.planes_shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        planes = self._planes = self.tensor.reshape(shape)
        # the planes whole (one entry: OpenSpiel reads its shape), or the named views into them
        self.dict = self._obs.plane_views(planes) if named else {"observation": planes}

    def set_from(self, state: TesseraState, player: int):
        self._obs.set_planes(state.engine_game(), player, drawn=not state.is_chance_node(),
                             out=self._planes)

    def string_from(self, state: TesseraState, player: int) -> str:
        g = state.engine_game()
        return f"player {player}: {status_text(g, state.is_chance_node())}\n" + board_text(
            g, self._obs.codec.window_centre(g), self._obs.view)


def status_text(g, chance: bool = False) -> str:
    """One line: whose turn, the drawn tile, the scores (the head of the observation string)."""
    scores = ", ".join(f"{n} {s}" for n, s in zip(g.names, g.scores))
    if g.is_terminal():
        return f"game over: {scores}"
    if chance:
        return f"{g.tiles_left()} tiles left, a tile is drawn next: {scores}"
    return f"{g.names[g.current_player()]} to play tile {g.tile_name()} ({g.tiles_left()} left): {scores}"


pyspiel.register_game(GAME_TYPE, TesseraGame)


def load(rules="base", players: int = 2, **params):
    """`pyspiel.load_game("tessera", ...)` with rules as a list or a `+`-joined string."""
    spec = rules if isinstance(rules, str) else "+".join(rules)
    return pyspiel.load_game(SHORT_NAME, {"rules": spec, "players": players, **params})


def score_evaluator():
    """An MCTS evaluator that ends the game where it stands (final scoring on a clone)
    and values each player's lead over the mean of the others (20 points = 1)."""
    from open_spiel.python.algorithms import mcts

    class EndNow(mcts.Evaluator):
        def evaluate(self, state):
            h = state.engine_game().clone()
            h.finish()
            s = np.array(h.scores, dtype=float)
            n = len(s)
            lead = s - (s.sum() - s) / (n - 1)
            return np.clip(lead / 20.0, -1.0, 1.0)

        def prior(self, state):
            if state.is_chance_node():
                return state.chance_outcomes()
            legal = state.legal_actions(state.current_player())
            return [(a, 1.0 / len(legal)) for a in legal]

    return EndNow()


def random_step(state, rng: np.random.RandomState) -> bool:
    """Apply one action to a state not yet ended: at a chance node a tile drawn by its odds, else
    a legal action picked uniformly.  True if it was a player's move (not a draw)."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
        return False
    state.apply_action(int(rng.choice(state.legal_actions())))
    return True


def mcts_vs_random(game, games: int, simulations: int = 20, seed: int = 0, evaluator: str = "score"):
    """Play `games` games, OpenSpiel's MCTS bot against uniform random players, the
    bot's seat rotating; answer the bot's wins/ties/losses and mean scores.  The bot
    values a leaf by `score_evaluator()` ("score") or by OpenSpiel's random rollout
    to the end of the game ("rollout": much slower)."""
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(seed)
    ev = score_evaluator() if evaluator == "score" else mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=ev, random_state=rng)
    n = game.num_players()
    tally = {"wins": 0, "ties": 0, "losses": 0}
    bot_points = other_points = 0
    for i in range(games):
        seat = i % n
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node() and state.current_player() == seat:
                state.apply_action(bot.step(state))
            else:
                random_step(state, rng)
        scores = state.engine_game().scores
        bot_points += scores[seat]
        other_points += sum(s for p, s in enumerate(scores) if p != seat) / (n - 1)
        top = max(scores)
        if scores[seat] < top:
            tally["losses"] += 1
        else:
            tally["wins" if scores.count(top) == 1 else "ties"] += 1
    return {**tally, "games": games, "mcts_mean_score": bot_points / max(games, 1),
            "random_mean_score": other_points / max(games, 1)}


def main(argv=None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m tessera.adapters.openspiel",
                                 description="OpenSpiel's MCTS bot against random players on a rule set")
    ap.add_argument("--rules", default="base", help="modules or .tess files joined by + (default: base)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--simulations", type=int, default=20, help="MCTS simulations per move")
    ap.add_argument("--evaluator", choices=["score", "rollout"], default="score",
                    help="how the bot values a leaf: the score were the game to end there (default), "
                         "or a random rollout to the end (slow)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    result = mcts_vs_random(load(args.rules, args.players), args.games, args.simulations, args.seed, args.evaluator)
    print(json.dumps({"rules": args.rules, "players": args.players, "simulations": args.simulations,
                      "evaluator": args.evaluator, **result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
