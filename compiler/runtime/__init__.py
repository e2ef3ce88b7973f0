"""tessera engine runtime: the small kernel every compiled engine leans on.

This package is copied verbatim into each compiled engine package (like Lark's
standalone parser), so it uses the Python standard library only and knows
nothing of any particular rulebook.  Every number and condition of the rules
lives in the generated `rules.py`, which imports what it uses from here by name.

One job per module (docs/engine.md lists the public names):

    moves      the move vocabulary: one typed move per kind, the one decoder of a written move
    geometry   sides, rotations, a tile type at one rotation, edge-pattern fits
    tables     the named records the generated rule tables are made of
    board      a component (Game.board): placed tiles, the frontier, union-find over features as flat lists, quantities
    placement  where a tile may go (edge matching and the rules' placement checks)
    bag        a component (Game.bag): decks, draws, chance's move that deals a named tile (Draw), the box
    figures    a component (Game.supply): supply, the one figure-legality predicate, figures anywhere, recalls, refusals
    corners    figures on corners (the barn; their state is the board's), put and join scorings
    prisoners  a component (Game.prisoners): captures after a figure is put, the exchange, the ransom (the Tower)
    outposts   a component (Game.outposts): the Siege's outposts, rows, pools, catapults at the draw, attacks, removals
    outpost_moves  the outposts' decisions as moves: the extra figure, a "?"'s catapult, an attack's removals
    rounds     a component (Game.rounds; its class, like the bag's, the supply's and the prisoners', in core): the rounds' count, and what a round's end does
    scoring    completion, owners, awards, returns, final scoring
    lookahead  what a tile placement would do to the scores, without making it (for players that try moves)
    classes    which listed moves change the values alike, read from the board (the lookahead's `score_classes`)
    placekeys  score_classes' common case, a tile turn's placements, read from the listing's blocks (compiled)
    records    tessera-state/1 (to_json / from_json)
    view       TurnView: what a record's translation (compiler/turns.py) may read of a game, read-only
    tagged     the builder of move types with a word first (both families' moves)
    listing    a turn's tile moves, kept as blocks and built only when read (legal_actions)
    moments    the moments of a turn (the tile, an outpost's decision, a capture, after the scoring): which
               is now, what each offers and applies (from the move types' WHEN), how each refuses another move
    game       the Game: turn loop, legal actions, applying an action, events
    core       the Game's own fields (GameCore): what every turn reads of the game, and the classes of its components bag, supply, prisoners, rounds; C fields when compiled
    play       random play: the one random player (simulate, play_random, the engine check)
    ops        arithmetic the generated expressions call (division by zero is 0)
    errors     IllegalAction (a refusal and its clause); RuleFailure (a rule that crashed, and its line)
"""
from .errors import IllegalAction, RuleFailure, rule_failure, rule_location
from .game import Game
from .play import play_random

__all__ = ["Game", "IllegalAction", "RuleFailure", "play_random", "rule_failure", "rule_location"]
