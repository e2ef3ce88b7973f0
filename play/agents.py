"""Players for simulated games: `random`, `greedy`, `mcts:N` and the skill ladder `ladder:K`.

Every agent is written against the engine's public game API only --
`legal_actions()`, `apply_action(a)`, `clone()`, `current_player()`,
`is_terminal()`, `returns()`, `finish()`, `shuffle_bag(rng)` and
`score_classes(actions)` -- so it plays
any compiled rule set, expansions and house rules included, and works the same
with an engine package written by `tessera compile` (see docs/engine.md).

An agent is an object with a `name` and `choose(game, actions) -> action`,
where `actions` is `game.legal_actions()` (never empty) and the game is not
changed by the call.  `make_agent(spec, seed)` builds one from its command-line
name; every random choice an agent makes comes from that seed, so a game is
the same on every run and in every process.

    random   a uniformly random legal action (the default)
    greedy   the action with the best immediate change of its own value minus
             the best opponent's change: the score plus what stands by the rules
             (`standing_points()`: figures on outposts, prisoners held), or
             `projected_returns()` where the engine offers it (the card game's
             scores as if the round ended now); a move after which the same
             player decides again is worth its best follow-up; ties: an action
             that puts a figure on the board first (a figure standing on a
             feature is points to come), then the engine's order of legal actions
    mcts:N   Monte Carlo search with N simulations per move (play/mcts.py):
             information-set sampling of the bag's hidden order, a UCB1 bandit
             widened in the order of a one-move prior, each simulation two
             rounds of greedy play (four from N = 64 on) then the rules' value of the position (the
             scores were the game to end now, plus `standing_points()`), rewarded by how much the
             mover's lead changed; the move of best mean reward is played
    ladder:K the K-th rung of the skill ladder measured on base (docs/simulate.md):
             `LADDER[K]`, each rung measured against the one below
"""
from __future__ import annotations

import random

from .mcts import MCTSAgent

NAMES = ("random", "greedy", "mcts", "ladder")
MCTS_MAX_PLAYOUTS = 100_000
# the skill ladder (issue 27): random < greedy < mcts:N < mcts:4N on base, measured by bench/ladder.py
# (docs/simulate.md: 100%, 86.0% and 60.8% [55.9%, 65.4%] of the games won against the rung below; the top
# step's 60% is not established at 95%)
LADDER = ("random", "greedy", "mcts:16", "mcts:64")


class AgentSpecError(ValueError):
    """A player name on the command line that is not an agent."""


def canonical(spec: str) -> str:
    """A player's name as it plays: `ladder:K` is the ladder's K-th rung (`ladder:2` -> `mcts:16`);
    every other name is itself."""
    name, _, arg = spec.strip().partition(":")
    if name != "ladder":
        return spec.strip()
    if not arg.isdigit() or not 0 <= int(arg) < len(LADDER):
        raise AgentSpecError(f"the skill ladder has rungs 0 to {len(LADDER) - 1} ({', '.join(LADDER)}), "
                             f"as in ladder:2 (got {spec!r})")
    return LADDER[int(arg)]


def parse_spec(spec: str) -> tuple[str, int]:
    """`random`, `greedy`, `mcts:200`, `ladder:2` -> (name, budget); budget 0 where there is none."""
    spec = canonical(spec)
    name, _, arg = spec.partition(":")
    if name not in NAMES:
        raise AgentSpecError(f"unknown player {spec!r}: use random, greedy, mcts:N or ladder:0 to ladder:{len(LADDER) - 1}")
    if name != "mcts":
        if arg:
            raise AgentSpecError(f"player {name!r} takes no budget (got {spec!r})")
        return name, 0
    if not arg.isdigit() or not 1 <= int(arg) <= MCTS_MAX_PLAYOUTS:
        raise AgentSpecError(f"mcts needs a number of simulations per move from 1 to {MCTS_MAX_PLAYOUTS}, as in mcts:200 (got {spec!r})")
    return name, int(arg)


def parse_agents(text: str | None, players: int) -> list[str]:
    """`--agents greedy,random` -> one canonical spec per seat.  One name plays every seat."""
    if not text:
        return ["random"] * players
    specs = [canonical(s) for s in text.split(",")]
    for s in specs:
        parse_spec(s)
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise AgentSpecError(f"{len(specs)} players named in --agents for {players} seats: name one per seat, or one for all")
    return specs


def strength(spec: str) -> tuple[int, int]:
    """Where a player stands on the skill ladder: random < greedy < mcts:N < mcts:M for N < M (measured on
    base for the ladder's rungs, docs/simulate.md; another budget is placed by its count of simulations)."""
    name, budget = parse_spec(spec)
    return {"random": 0, "greedy": 1, "mcts": 2}[name], budget


def stronger(specs: list[str]) -> str | None:
    """The strongest player of a game's seats when exactly one seat plays it and every other seat is a
    weaker player (`strength`), else None (all alike, or the strongest in several seats)."""
    if len(specs) < 2:
        return None
    top = max(specs, key=strength)
    if sum(strength(s) == strength(top) for s in specs) != 1:
        return None
    return top


def make_agent(spec: str, seed: int):
    name, budget = parse_spec(spec)
    if name == "random":
        return RandomAgent(seed)
    if name == "greedy":
        return GreedyAgent()
    return MCTSAgent(seed, budget, GreedyAgent())


class RandomAgent:
    name = "random"

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, game, actions):
        return actions[self.rng.randrange(len(actions))]


def _decides(g, me) -> bool:
    """Whether player `me` decides again within its own turn, asked without looking at what the
    next turn's hidden tile brings (the tile game's `decides`; the card game has nothing hidden
    to play when it is asked)."""
    decides = getattr(g, "decides", None)
    return decides(me) if decides is not None else g.current_player() == me


def _places_figure(action) -> bool:
    """Whether the move puts a figure with its tile (not a recall)."""
    return action.KIND == "place" and action.figure is not None and action.figure.KIND != "recall"


def _pays_for_nothing(game, actions, paid, after, value):
    """Whether a ransom paid before the tile (`paid`: the game after it, `after`: what its payer may do
    then) opens no move the payer could not make without it -- the freed figure's kind is still in
    supply -- and changes no player's value (its price moves from payer to holder what the prisoner
    stood for: TOWER-RANSOM-1).  Paying it then changes nothing greedy values; it is never better
    than not paying, so greedy does not look at the placements after it (issue 27: that look was a
    whole decision again, and at one decision less deep it could only find what this decision finds)."""
    if not any(x.KIND == "place" for x in actions):
        return False  # a ransom before a capture, or after the turn's scoring: the look is short
    if value(paid) != value(game):
        return False
    return [x for x in after if x.KIND != "ransom"] == [x for x in actions if x.KIND != "ransom"]


class GreedyAgent:
    """The best immediate change of own value minus the best opponent's change, where a player's
    value is its score plus what stands for it by the rules' own terms (`standing_points()`: a
    figure on an outpost, a prisoner held; runtime/lookahead.py).

    A move after which the same player decides again within the turn (the extra figure an
    outpost rule offers, a capture after a floor, a placement after a ransom) is worth the best
    of those decisions, looked at `FOLLOW` decisions deep: so a follower put that may send
    another to an outpost, a floor that captures, a ransom whose freed follower scores at once
    show what they set up.

    An action is tried on a clone of the game only when it may change a value, and only once
    for all the actions that change the values alike: the engine's `score_classes(actions)`
    (runtime/lookahead.py) gives each action None when it certainly leaves every score and what
    stands as it is -- a tile placement with no figure near and none put, or one that completes
    nothing and opens no decision -- and otherwise a key shared by actions whose changes are
    equal.  Neither shortcut changes the choice."""

    name = "greedy"
    FOLLOW = 2  # decisions of the same player looked at after a move, within its turn

    def choose(self, game, actions):
        if len(actions) == 1:
            return actions[0]
        me = game.current_player()
        # a game that scores later than its moves (the card game scores claims at the round's end)
        # offers `projected_returns()`: the scores as if its pending scoring happened now
        if hasattr(game, "projected_returns"):
            value = type(game).projected_returns
        elif hasattr(game, "standing_points"):
            def value(g):
                return [a + b for a, b in zip(g.returns(), g.standing_points())]
        else:
            value = type(game).returns
        return self._best(game, actions, me, value, value(game), self.FOLLOW)[0]

    def _best(self, game, actions, me, value, before, depth):
        """(the best action, its gain) among `actions` of player `me` in `game`: the largest (gain,
        puts a figure), the first of equals."""
        # `actions` may be a listing that builds a move only when it is read (the tile game's `Moves`):
        # score_classes reads it whole, and only the moves read here are built (the moves that change
        # nothing only when one of them may be chosen)
        others = [p for p in range(len(before)) if p != me]
        tried = {}  # key -> gain
        quiet = []  # the actions that change no value, in order
        here = None  # the gain of this position itself (0 at the top; after other moves of the turn, theirs)
        best, best_key = None, None
        for i, key in enumerate(game.score_classes(actions)):
            if key is None:  # it changes no value: only the first of each (gain, figure) can be chosen
                quiet.append(i)
                continue
            gain = tried.get(key)
            if gain is not None and best_key is not None and gain < best_key[0]:
                continue  # worse than the best whatever it puts: its move is not even built
            a = actions[i]
            if gain is None:
                if type(key) is tuple and key and key[0] == "sum":
                    # the change is the tile's alone (key[1], its placement key[2]) plus what follows the
                    # figure's putting (key[3]): with two players the gain is their sum too (each part's
                    # gain, as tried from here, holds this position's own gain once: counted once)
                    _, tile_key, tile_move, more_key = key
                    if others and len(others) == 1:
                        if here is None:
                            here = self._here(game, me, value, before, others)
                        tile_gain = tried.get(tile_key)
                        if tile_gain is None:
                            tile_gain = tried[tile_key] = self._try(game, actions, tile_move, me, value, before, depth, others)
                        more = tried.get(more_key)
                        if more is None:
                            gain = self._try(game, actions, a, me, value, before, depth, others)
                            if gain is None:
                                continue
                            tried[more_key] = gain - tile_gain + here
                        else:
                            gain = tile_gain + more - here
                if gain is None:
                    gain = self._try(game, actions, a, me, value, before, depth, others)
                    if gain is None:
                        continue
                tried[key] = gain
            k = (gain, _places_figure(a))
            if best_key is None or k > best_key:  # strictly better: the first of equals wins
                best, best_key = i, k
        if best is None and not quiet:  # every action was left out (ransoms that pay for nothing)
            return actions[0], self._try(game, [], actions[0], me, value, before, depth, others)
        if quiet:  # a move that changes no value leaves the values as they are here: (here, puts a figure)
            if here is None:
                here = self._here(game, me, value, before, others)
            k = (here, True)
            if best_key is None or k >= best_key:  # the first of them that puts a figure may be chosen
                for i in quiet:
                    if k == best_key and i > best:
                        break  # an equal earlier move is chosen, and one without a figure is worth less
                    if _places_figure(actions[i]):
                        best, best_key = i, k
                        break
                else:  # none puts a figure: the first of them, worth (here, False)
                    i = quiet[0]
                    k = (here, False)
                    if best_key is None or k > best_key or (k == best_key and i < best):
                        best, best_key = i, k
        return actions[best], best_key[0]

    @staticmethod
    def _here(game, me, value, before, others):
        """The gain of the position `game` itself, after the moves of the turn that led to it."""
        now = value(game)
        return now[me] - before[me] - (max(now[p] - before[p] for p in others) if others else 0)

    def _try(self, game, actions, a, me, value, before, depth, others):
        """The gain of action `a` among `actions`, tried on a clone (a decision of the same player that
        follows it: its best, `depth` deep); None for a ransom that pays for nothing."""
        g = game.clone()
        g.apply_action(a)
        if depth > 0 and not g.is_terminal() and _decides(g, me):  # the same player decides again
            nxt = g.legal_actions()
            if a.KIND == "ransom" and _pays_for_nothing(game, actions, g, nxt, value):
                return None
            if nxt:
                return self._best(g, nxt, me, value, before, depth - 1)[1]
        after = value(g)
        gain = after[me] - before[me]
        if others:
            gain -= max(after[p] - before[p] for p in others)
        return gain
