"""Every name in a rule file, where it is and what it names (for the editor: references,
rename, semantic tokens).

The parser's tree (before the AST) keeps each token with its position; the grammar rule a
token sits in says what it names: the NAME of `feature_decl` declares a feature kind, the
names after `figure ... on` are feature kinds, a `cites` holds clause IDs, and so on (the
table `_ROLES`, read beside dsl/grammar.lark).  A bare name in an expression (`var`) is
resolved against the declarations the rule set can see: a figure (`count(abbot)`), a feature
kind (`completed(city)`), a state or a built-in quantity.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Tree
from lark.exceptions import LarkError

from . import ast as A
from .builtins import FUNCTIONS, QUANTITIES
from .cards import KIND_FUNCTIONS as CARD_FUNCTIONS

# what a name may name
ROLES = ("module", "tile", "edge", "kind", "figure", "state", "deck", "track", "invariant", "example",
         "assumption", "clause", "variant", "mark", "symbol", "field", "function", "quantity", "place", "name",
         "colour", "card", "table", "scoring")  # the last four: the card game (dsl/cards.py)


@dataclass(frozen=True)
class Occurrence:
    name: str
    role: str  # one of ROLES
    decl: bool  # this is the declaration
    line: int  # 1-based, as the parser counts
    column: int  # 1-based
    end_column: int  # 1-based, exclusive


# rule -> the role of each name child in order (a name_list / tile_list counts as one child,
# its names all of that role); `*role` declares it.  Rules absent here hold no name tokens.
_ROLES: dict[str, tuple[str, ...]] = {
    "module_decl": ("*module",),
    "with_decl": ("module",),
    "requires": ("module",),
    "extends": ("module",),
    "composition_count": ("tile",),
    "edge_decl": ("*edge", "kind", "kind", "kind"),
    "feature_decl": ("*kind",),
    "figure_decl": ("*figure", "kind"),
    "permit_decl": ("figure", "kind"),
    "tile_decl": ("*tile",),
    "tile_variant": ("*variant",),
    "tile_symbols": ("symbol",) * 64,
    "tile_edges": ("edge",) * 4,
    "side_codes": ("edge",) * 64,
    "tile_feature": ("kind",),
    "marks": ("mark",),
    "start_place": ("tile",),
    "deck_decl": ("*deck", "deck"),  # NAME [last TILE_NAME] [before NAME]: the tile told apart by its type
    "deck_tiles": ("tile",),
    "box_decl": ("tile",),
    "placement_decl": ("kind",),
    "complete_decl": ("kind",),
    "score_decl": ("kind", "figure"),
    "score_trigger_decl": ("kind", "figure"),
    "return_decl": ("figure",),
    "state_decl": ("*state",),
    "param_decl": ("*state",),  # a parameter is named and read as a state is (hover, rename, completion)
    "on_decl": ("kind",),
    "set_action": ("state",),
    "award_decl": ("state",),
    "capture_decl": ("figure", "figure"),
    "ransom_decl": ("figure",),
    "recall_decl": ("figure",),
    "track_decl": ("*track", "kind"),
    "on_put_decl": ("figure", "kind"),
    "may_put": ("figure",),
    "on_track_decl": ("track",),
    "on_draw_decl": ("kind",),
    "return_from": ("figure",),
    "remove_figures": ("figure",),
    "invariant_decl": ("*invariant",),
    "clause_decl": ("*clause",),
    "assume_decl": ("*assumption",),
    "example_decl": ("*example",),
    "example_field": ("field", "name"),
    "mapping": ("name",) * 64,
    "cites": ("clause",) * 64,
    "state_of": ("state",),
    "call": ("function",),
    "var": ("name",),
    # the card game (dsl/cards.py, language.md 7.2)
    "colour_decl": ("*colour",),
    "card_decl": ("*card",),
    "facedown_decl": ("name",),  # `first` or `none`
    "dealer_decl": ("name",),  # `last_feudal`, `first_feudal` or `left`
    "feudal_decl": ("*figure",),
    "take_decl": ("card", "name"),  # the kinds, then pile | chest | removed
    "misplaced_decl": ("card",),
    "table_decl": ("*table",),
    "card_score_decl": ("*scoring",),
    "card_end_score_decl": ("*scoring",),
}
_ROLES.update({rule: cls.roles for rule, cls in A.DECLARED.items() if cls.roles})  # declared in dsl/ast.py
_NAME_TOKENS = {"NAME", "TILE_NAME", "CLAUSE"}


def raw_tree(text: str) -> Tree | None:
    """The parser's tree of a rule file, or None when it does not parse."""
    from .parser import _parser

    try:
        return _parser().parse(text)
    except (LarkError, RecursionError):
        return None


def _occ(tok: Token, role: str, decl: bool) -> Occurrence:
    end = tok.end_column if tok.end_line == tok.line and tok.end_column else tok.column + len(str(tok))
    return Occurrence(str(tok), role, decl, tok.line, tok.column, end)


def occurrences(tree: Tree) -> list[Occurrence]:
    """Every name token of the tree with its role (`var` names still "name": see `resolve`)."""
    out: list[Occurrence] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        roles = _ROLES.get(node.data if isinstance(node.data, str) else str(node.data), ())
        i = 0
        for child in node.children:
            if isinstance(child, Tree):
                if child.data in ("name_list", "tile_list"):
                    role = roles[i] if i < len(roles) else "name"
                    i += 1
                    out.extend(_occ(t, role.lstrip("*"), False) for t in child.children if isinstance(t, Token))
                else:
                    stack.append(child)
            elif isinstance(child, Token):
                if child.type == "PLACE":
                    out.append(_occ(child, "place", False))
                    continue
                if child.type not in _NAME_TOKENS:
                    continue
                if node.data == "deck_decl" and child.type == "TILE_NAME":
                    role = "tile"  # `last TILE`
                elif node.data == "deck_decl":
                    role = "*deck" if i == 0 else "deck"  # the deck's own name, then `before DECK`
                    i += 1
                else:
                    role = roles[i] if i < len(roles) else "name"
                    i += 1
                out.append(_occ(child, role.lstrip("*"), role.startswith("*")))
    out.sort(key=lambda o: (o.line, o.column))
    return out


def resolve(occs: list[Occurrence], declared: dict[str, set[str]]) -> list[Occurrence]:
    """Give each bare name (`var`, a mapping key) its role from what is declared (`declared`:
    role -> names the rule set declares): a figure, a feature kind, a state, a mark or a
    built-in quantity; an unknown name stays "name"."""
    out = []
    for o in occs:
        if o.role == "name":
            for role in ("state", "figure", "kind", "mark", "track", "card", "colour"):
                if o.name in declared.get(role, ()):
                    o = Occurrence(o.name, role, False, o.line, o.column, o.end_column)
                    break
            else:
                if o.name in QUANTITIES:
                    o = Occurrence(o.name, "quantity", False, o.line, o.column, o.end_column)
        elif o.role == "function" and o.name not in FUNCTIONS:
            role = "table" if o.name in declared.get("table", ()) else "function" if o.name in CARD_FUNCTIONS else "name"
            o = Occurrence(o.name, role, False, o.line, o.column, o.end_column)
        out.append(o)
    return out


def declared(occs_by_file: list[list[Occurrence]]) -> dict[str, set[str]]:
    """role -> the names declared with that role (marks: those tiles print)."""
    out: dict[str, set[str]] = {}
    for occs in occs_by_file:
        for o in occs:
            if o.decl or o.role == "mark":
                out.setdefault(o.role, set()).add(o.name)
    return out
