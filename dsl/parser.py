"""Parse rule files into the AST (Lark LALR, positions propagated)."""
from __future__ import annotations

import ast as pyast
import difflib
import hashlib
import re
import warnings
from dataclasses import fields, is_dataclass
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, Tree, v_args
from lark.lark import PostLex
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from .diagnostics import Diagnostic

GRAMMAR = Path(__file__).with_name("grammar.lark")


class _WholeWords(PostLex):
    """Keywords are whole words.

    The contextual lexer only tries the terminals the parser can take next, so
    where a keyword may come but a name may not, `tileX` was read as `tile X`
    and `placement adjacentmatching` as `placement adjacent matching`.  Letting
    every state read a NAME makes such a glued word one unexpected token (a
    NAME equal to a keyword is still that keyword).
    """

    always_accept = ("NAME",)

    def process(self, stream):
        return stream


TABLES = Path(__file__).with_name("parser_tables.json")
# what may differ between the built parser and the one loaded from its tables (given again when loading)
_GIVEN = ("postlex", "lexer_callbacks", "transformer", "_plugins", "tree_class", "debug", "use_bytes", "regex", "g_regex_flags")
_ITEMS, _TUPLE = "\0items", "\0tuple"  # JSON has neither int keys nor tuples


def _digest(grammar: str) -> str:
    import lark

    return hashlib.sha256(f"{grammar}\0{lark.__version__}".encode("utf-8")).hexdigest()


def _build(grammar: str, **options) -> Lark:
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        postlex=_WholeWords(),
        propagate_positions=True,
        maybe_placeholders=True,
        **options,
    )


def _encode(x):
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _encode(v) for k, v in x.items()}
        return {_ITEMS: [[k, _encode(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {_TUPLE: [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    return x


def _decode(d: dict):
    if len(d) == 1:
        if _ITEMS in d:
            return {k: v for k, v in d[_ITEMS]}
        if _TUPLE in d:
            return tuple(d[_TUPLE])
    return d


def _tables(grammar: str):
    """(DATA, MEMO) of Lark's serialized parser from dsl/parser_tables.json, if they are this grammar's."""
    import json

    try:
        doc = json.loads(TABLES.read_text(encoding="utf-8"), object_hook=_decode)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("grammar_sha256") != _digest(grammar):
        return None
    return doc["data"], doc["memo"]


def make_parser(**options) -> Lark:
    """A Lark parser for the rules language; `options` are extra Lark options
    (`tessera fmt` passes `lexer_callbacks` to collect the comments).

    Building the LALR tables takes most of `tessera check`'s time, so they are
    kept, as Lark's standalone generator keeps them, in `dsl/parser_tables.json`
    (installed with the package: nothing is read from a cache folder, nothing
    is unpickled).  They are used only when their recorded SHA-256 of
    grammar.lark (and Lark's version) is that of the grammar read now;
    otherwise the parser is built from the grammar.
    `python -m dsl.parser --write-tables` writes them anew."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    if set(options) <= set(_GIVEN):
        tables = _tables(grammar)
        if tables is not None:
            return Lark._load_from_dict(*tables, postlex=_WholeWords(), **options)
    return _build(grammar, **options)


def tables_text() -> str:
    """The text of dsl/parser_tables.json for the grammar as it is now."""
    import json

    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    grammar = GRAMMAR.read_text(encoding="utf-8")
    data, memo = _build(grammar).memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k not in _GIVEN}
    doc = {"about": "LALR tables of dsl/grammar.lark for Lark; written by `python -m dsl.parser --write-tables`",
           "grammar_sha256": _digest(grammar), "data": _encode(data), "memo": _encode(memo)}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=True) + "\n"


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The words of the grammar (`module`, `score`, `end`, `if`, …): reserved, never a name."""
    return frozenset(re.findall(r'"([a-z][a-z_]*)"', GRAMMAR.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return make_parser()


class ParseFailure(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def _tok_span(file: str, tok: Token) -> A.Span:
    return A.Span(file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)


class _Build(Transformer):
    """Lark tree -> frozen dataclass AST."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _span(self, meta) -> A.Span:
        if getattr(meta, "empty", True):
            return A.Span(self.file)
        return A.Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    # -- helpers --------------------------------------------------------
    @staticmethod
    def _split(children):
        cites: tuple = ()
        rest = []
        for c in children:
            if isinstance(c, tuple) and c and all(isinstance(x, A.Cite) for x in c):
                cites = c
            elif c is None:
                rest.append(None)
            else:
                rest.append(c)
        return rest, cites

    # -- leaves ---------------------------------------------------------
    def cites(self, children):
        return tuple(A.Cite(str(t), _tok_span(self.file, t)) for t in children)

    def name_list(self, children):
        return tuple(str(t) for t in children)

    def tile_list(self, children):
        return tuple(str(t) for t in children)

    def signed_int(self, children):
        return int(children[0])

    def STRING(self, tok):
        try:
            with warnings.catch_warnings():  # `"\q"` is kept as written, without a warning
                warnings.simplefilter("ignore")
                value = pyast.literal_eval(str(tok))
        except (SyntaxError, ValueError) as exc:
            reason = str(getattr(exc, "msg", None) or exc).removeprefix("(unicode error) ")
            raise ValueError(f"a string with a bad escape or character ({reason})") from None
        return Token("STRING", value, tok.start_pos, tok.line, tok.column, tok.end_line, tok.end_column, tok.end_pos)

    # -- module ---------------------------------------------------------
    @v_args(meta=True)
    def start(self, meta, children):
        head, *items = children
        name, title, cites, span = head
        return A.Module(name, title, tuple(items), cites, span, self.file)

    @v_args(meta=True)
    def module_decl(self, meta, children):
        rest, cites = self._split(children)
        name = str(rest[0])
        title = str(rest[1]) if len(rest) > 1 and rest[1] is not None else None
        return (name, title, cites, self._span(meta))

    @v_args(meta=True)
    def requires(self, meta, children):
        rest, cites = self._split(children)
        return A.Requires(rest[0], cites, self._span(meta))

    @v_args(meta=True)
    def extends(self, meta, children):
        rest, cites = self._split(children)
        return A.Extends(rest[0], cites, self._span(meta))

    @v_args(meta=True)
    def total(self, meta, children):
        rest, cites = self._split(children)
        return A.Total(int(rest[0]), cites, self._span(meta))

    @v_args(meta=True)
    def composition_count(self, meta, children):
        return A.CompositionCount(str(children[0]), int(str(children[1])[1:]), self._span(meta))

    def composition_list(self, children):
        return tuple(children)

    @v_args(meta=True)
    def composition_decl(self, meta, children):
        rest, cites = self._split(children)
        total = int(rest[0]) if rest[0] is not None else None
        return A.CompositionDecl(total, rest[1] or (), cites, self._span(meta))

    @v_args(meta=True)
    def players_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.Players(int(rest[0]), int(rest[1]), cites, self._span(meta))

    @v_args(meta=True)
    def edge_decl(self, meta, children):
        rest, cites = self._split(children)
        code = str(rest[0])
        parts = tuple(str(p) for p in rest[1:4] if p is not None)
        if len(parts) == 2:  # `edge X = a b` is not a cross-section
            parts = parts[:1]
        title = str(rest[4]) if len(rest) > 4 and rest[4] is not None else None
        return A.EdgeDecl(code, parts, title, cites, self._span(meta))

    def feature_at(self, children):
        return str(children[0])

    def anywhere(self, children):
        return "anywhere"

    @v_args(meta=True)
    def feature_decl(self, meta, children):
        rest, cites = self._split(children)
        kind = str(rest[0])
        centre = rest[1] == "centre"
        halves = rest[1] == "halves"
        title = str(rest[2]) if len(rest) > 2 and rest[2] is not None else None
        return A.FeatureDecl(kind, centre, title, cites, self._span(meta), halves)

    @v_args(meta=True)
    def figure_decl(self, meta, children):
        rest, cites = self._split(children)
        # children: NAME COUNT [cites] [at corner] name_list [anywhere] [cites] [expr [cites]] (None where absent)
        name, count, supply, at, on, anywhere, on_c, when, when_c = (list(children) + [None] * 9)[:9]
        supply, on_c, when_c = supply or (), on_c or (), when_c or ()
        count_expr = None if isinstance(count, Token) else count
        return A.FigureDecl(str(name), 0 if count_expr is not None else int(count), on, when,
                            tuple(supply) + tuple(on_c) + tuple(when_c),
                            self._span(meta), tuple(supply), tuple(on_c), tuple(when_c),
                            count_expr=count_expr, anywhere=anywhere is not None, at=at)

    def figure_at(self, children):
        return str(children[1])

    def permit_mode(self, children):
        return str(children[0])

    @v_args(meta=True)
    def permit_decl(self, meta, children):
        # children: MODE NAME name_list [anywhere] [cites] [expr [cites]] (None where absent)
        mode, fig, on, anywhere, on_c, when, when_c = (list(children) + [None] * 7)[:7]
        on_c, when_c = tuple(on_c or ()), tuple(when_c or ())
        return A.PermitDecl(mode, str(fig), on, when, on_c + when_c, self._span(meta),
                            anywhere=anywhere is not None, on_cites=on_c, when_cites=when_c)

    # -- tiles ----------------------------------------------------------
    @v_args(meta=True)
    def tile_variant(self, meta, children):
        rest, cites = self._split(children)
        feats = tuple(c for c in rest[2:] if c is not None)
        return A.TileVariant(str(rest[0]), int(str(rest[1])[1:]), feats, cites, self._span(meta))

    @v_args(meta=True)
    def tile_edges(self, meta, children):
        return ("edges", tuple(str(c) for c in children), self._span(meta))

    def shields(self, children):
        return ("shields", int(children[0]))

    def marks(self, children):
        return ("marks", str(children[0]), 1 if children[1] is None else int(children[1]))

    @v_args(meta=True)
    def tile_symbols(self, meta, children):
        return ("symbols", tuple(str(c) for c in children), self._span(meta))

    def borders(self, children):
        return ("borders", tuple(str(c) for c in children))

    def crosses(self, children):
        return ("crosses", str(children[0]))

    @v_args(meta=True)
    def tile_feature(self, meta, children):
        kind = str(children[0])
        places = []
        shields, borders, crosses = 0, (), None
        marks = []
        for c in children[1:]:
            if c is None:
                continue
            if isinstance(c, Token):
                places.append(str(c))
            elif c[0] == "shields":
                shields = c[1]
            elif c[0] == "marks":
                marks.append((c[1], c[2]))
            elif c[0] == "borders":
                borders = c[1]
            elif c[0] == "crosses":
                crosses = c[1]
        return A.TileFeature(kind, tuple(places), shields, borders, crosses, self._span(meta), tuple(marks))

    @v_args(meta=True)
    def tile_decl(self, meta, children):
        rest, cites = self._split(children)
        name = str(rest[0])
        count = 1
        variants = []
        edges: tuple = ()
        edges_span = A.Span(self.file)
        feats = []
        symbols: tuple = ()
        symbols_span = A.Span(self.file)
        cells = None
        for c in rest[1:]:
            if c is None:
                continue
            if isinstance(c, Token) and c.type == "COUNT":
                count = int(str(c)[1:])
            elif isinstance(c, A.TileVariant):
                variants.append(c)
            elif isinstance(c, tuple) and c[0] == "edges":
                edges, edges_span = c[1], c[2]
            elif isinstance(c, tuple) and c[0] == "symbols":
                symbols, symbols_span = c[1], c[2]
            elif isinstance(c, tuple) and c[0] == "cells":
                cells = c[1]
            elif isinstance(c, A.TileFeature):
                feats.append(c)
        return A.TileDecl(name, count, edges, tuple(feats), tuple(variants), cites, self._span(meta), edges_span,
                          symbols, symbols_span, cells)

    @v_args(meta=True)
    def start_place(self, meta, children):
        rot = int(children[3]) if len(children) > 3 and children[3] is not None else 0
        return A.StartPlace(str(children[0]), children[1], children[2], rot, self._span(meta))

    @v_args(meta=True)
    def start_decl(self, meta, children):
        rest, cites = self._split(children)
        first, *more = [c for c in rest if c is not None]
        return A.StartDecl(first.tile, first.x, first.y, first.rotation, cites, self._span(meta), tuple(more))

    @v_args(meta=True)
    def with_decl(self, meta, children):
        rest, cites = self._split(children)
        mode = str(rest[0].children[0]) if isinstance(rest[0], Tree) else str(rest[0])
        return A.WithDecl(str(rest[1]), tuple(c for c in rest[2:] if c is not None), cites, self._span(meta),
                          mode == "without")

    def tile_cells(self, children):
        w, h = str(children[0]).split("x")
        return ("cells", (int(w), int(h)))

    def side_codes(self, children):
        return tuple(str(c) for c in children)

    @v_args(meta=True)
    def tile_edge_groups(self, meta, children):
        return ("edges", tuple(children), self._span(meta))

    def deck_rest(self, children):
        return ("tiles", ())

    def deck_tiles(self, children):
        return ("tiles", children[0])

    @v_args(meta=True)
    def deck_decl(self, meta, children):
        # children: NAME deck_source [cites] [TILE_NAME [cites]] [NAME [cites]] (None where absent)
        name, src, src_c, last, last_c, before, before_c = (list(children) + [None] * 7)[:7]
        src_c, last_c, before_c = tuple(src_c or ()), tuple(last_c or ()), tuple(before_c or ())
        return A.DeckDecl(str(name), src[1], str(last) if last is not None else None,
                          str(before) if before is not None else None, src_c + last_c + before_c,
                          self._span(meta), last_c, before_c)

    @v_args(meta=True)
    def box_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.BoxDecl(str(rest[0]), cites, self._span(meta))

    # -- rules ----------------------------------------------------------
    def placement_kind(self, children):
        return str(children[0])

    def score_when(self, children):
        return str(children[0])

    def score_trigger(self, children):
        return str(children[0])

    @v_args(meta=True)
    def score_trigger_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.ScoreDecl(str(rest[0]), rest[1], rest[3], cites, self._span(meta), None, str(rest[2]))

    def owners_kind(self, children):
        return str(children[0])

    def event(self, children):
        return str(children[0])

    @v_args(meta=True)
    def placement_decl(self, meta, children):
        rest, cites = self._split(children)
        arg = str(rest[1]) if len(rest) > 1 and rest[1] is not None else None
        return A.PlacementDecl(rest[0], arg, cites, self._span(meta))

    @v_args(meta=True)
    def complete_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.CompleteDecl(str(rest[0]), rest[1], cites, self._span(meta))

    @v_args(meta=True)
    def score_decl(self, meta, children):
        rest, cites = self._split(children)
        by = str(rest[2]) if rest[2] is not None else None
        return A.ScoreDecl(str(rest[0]), rest[1], rest[3], cites, self._span(meta), by)

    @v_args(meta=True)
    def owners_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.OwnersDecl(rest[0], cites, self._span(meta))

    @v_args(meta=True)
    def return_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.ReturnDecl(str(rest[0]), cites, self._span(meta))

    @v_args(meta=True)
    def state_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.StateDecl(str(rest[0]), rest[2], cites, self._span(meta), rest[1] is not None)

    @v_args(meta=True)
    def require(self, meta, children):
        msg = str(children[1]) if len(children) > 1 and children[1] is not None else None
        return A.Require(children[0], msg, self._span(meta))

    @v_args(meta=True)
    def capture_decl(self, meta, children):
        n, figs, figs_c, within, within_c, after, after_c = (list(children) + [None] * 7)[:7]
        figs_c, within_c, after_c = tuple(figs_c or ()), tuple(within_c or ()), tuple(after_c or ())
        return A.CaptureDecl(int(n), figs, within, str(after), after_c + figs_c + within_c, self._span(meta),
                             figs_c, within_c, after_c)

    @v_args(meta=True)
    def exchange_decl(self, meta, children):
        _, cites = self._split(children)
        return A.ExchangeDecl(cites, self._span(meta))

    @v_args(meta=True)
    def ransom_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.RansomDecl(rest[0], rest[1], rest[2] if len(rest) > 2 else None, cites, self._span(meta))

    # -- outposts (Siege and Defense) --------------------------------------
    def track_pool(self, children):
        return True

    def put_slot(self, children):
        return str(children[0])

    def track_event(self, children):
        return str(children[0])

    @v_args(meta=True)
    def track_decl(self, meta, children):
        # children: NAME name_list COUNT [cites] [pool] INT [cites]
        name, kinds, count, row_c, pool, cap, cap_c = (list(children) + [None] * 7)[:7]
        row_c, cap_c = tuple(row_c or ()), tuple(cap_c or ())
        row_expr = None if isinstance(count, Token) else count
        return A.TrackDecl(str(name), kinds, 0 if row_expr is not None else int(count), row_expr, bool(pool),
                           int(cap), row_c + cap_c, self._span(meta), row_c, cap_c)

    @v_args(meta=True)
    def may_put(self, meta, children):
        return (str(children[0]), children[1], self._span(meta))

    @v_args(meta=True)
    def put_catapult(self, meta, children):
        return A.PutCatapult(self._span(meta))

    @v_args(meta=True)
    def on_put_decl(self, meta, children):
        figs, kinds, *rest = children
        fig, slot, aspan = rest[-1]
        cites = rest[0] if len(rest) > 1 else None
        return A.OnPutDecl(figs, kinds or (), fig, slot, cites or (), self._span(meta), aspan)

    @v_args(meta=True)
    def on_track_decl(self, meta, children):
        event, tracks, *rest = children
        cites = rest.pop(0) if rest and isinstance(rest[0], tuple) else ()
        return A.OnTrackDecl(event, tracks, tuple(a for a in rest if a is not None), cites or (), self._span(meta))

    @v_args(meta=True)
    def on_draw_decl(self, meta, children):
        shows = children[0] or ()
        cites = children[1] if isinstance(children[1], tuple) else ()
        return A.OnTrackDecl("draw", (), (children[-1],), cites, self._span(meta), tuple(shows))

    @v_args(meta=True)
    def release(self, meta, children):
        return A.Release(children[0], self._span(meta))

    @v_args(meta=True)
    def on_round_decl(self, meta, children):
        where, *rest = children
        cites = rest.pop(0) if rest and (rest[0] is None or isinstance(rest[0], tuple)) else ()
        return A.OnRoundDecl(where, tuple(a for a in rest if a is not None), cites or (), self._span(meta))

    @v_args(meta=True)
    def score_each(self, meta, children):
        return A.ScoreEach(children[0], self._span(meta))

    @v_args(meta=True)
    def return_from(self, meta, children):
        return A.ReturnFrom(children[0], self._span(meta))

    @v_args(meta=True)
    def remove_catapult(self, meta, children):
        return A.RemoveCatapult(self._span(meta))

    @v_args(meta=True)
    def remove_figures(self, meta, children):
        n, figs, where = (list(children) + [None] * 3)[:3]
        return A.RemoveFigures(int(n), figs, where, self._span(meta))

    @v_args(meta=True)
    def set_action(self, meta, children):
        return A.SetAction(str(children[0]), children[2], self._span(meta), children[1])

    @v_args(meta=True)
    def on_decl(self, meta, children):
        event = children[0]
        of = str(children[1]) if children[1] is not None else None
        where = children[2]
        cites: tuple = ()
        actions = []
        for c in children[3:]:
            if c is None:
                continue
            if isinstance(c, tuple):
                cites = c
            else:
                actions.append(c)
        return A.OnDecl(event, of, where, tuple(actions), cites, self._span(meta))

    @v_args(meta=True)
    def award_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.AwardDecl(str(rest[1]), rest[2], cites, self._span(meta), rest[0] is not None)

    @v_args(meta=True)
    def recall_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.RecallDecl(str(rest[0]), rest[1], cites, self._span(meta))

    @v_args(meta=True)
    def invariant_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.InvariantDecl(str(rest[0]), rest[1], cites, self._span(meta))

    @v_args(meta=True)
    def assume_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.AssumeDecl(str(rest[0]), str(rest[1]), cites, self._span(meta))

    @v_args(meta=True)
    def clause_decl(self, meta, children):
        return A.ClauseDecl(str(children[0]), str(children[1]), self._span(meta))

    def mapping(self, children):
        items = [(str(children[i]), children[i + 1]) for i in range(0, len(children), 2)]
        return tuple(sorted(items))

    def example_field(self, children):
        key = str(children[0])
        val = children[1]
        if isinstance(val, Token):
            val = str(val)
        return (key, val)

    @v_args(meta=True)
    def example_decl(self, meta, children):
        rest, cites = self._split(children)
        fields = tuple(c for c in rest[1:] if c is not None)
        return A.ExampleDecl(str(rest[0]), fields, cites, self._span(meta))

    @v_args(meta=True)
    def override(self, meta, children):
        return A.Override(children[0], self._span(meta))

    # -- the card game (rulebook 001) ---------------------------------------
    @v_args(meta=True)
    def colour_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.ColourDecl(str(rest[0]), str(rest[1]) if rest[1] is not None else None, cites, self._span(meta))

    def card_per(self, children):
        return True

    def card_flag(self, children):
        return str(children[0])

    @v_args(meta=True)
    def card_decl(self, meta, children):
        rest, cites = self._split(children)
        kind, count, per, value, flag = (rest + [None] * 5)[:5]
        return A.CardDecl(str(kind), int(str(count)[1:]), bool(per), int(value) if value is not None else None,
                          flag, cites, self._span(meta))

    @v_args(meta=True)
    def cards_total(self, meta, children):
        rest, cites = self._split(children)
        return A.CardsTotal(int(rest[0]), cites, self._span(meta))

    @v_args(meta=True)
    def layout_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.LayoutDecl(int(rest[0]), cites, self._span(meta))

    @v_args(meta=True)
    def deal_row(self, meta, children):
        return A.DealRow(int(children[0]), int(children[1]), int(children[2]), self._span(meta))

    @v_args(meta=True)
    def deal_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.DealDecl(tuple(r for r in rest if r is not None), cites, self._span(meta))

    @v_args(meta=True)
    def facedown_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.FacedownDecl(str(rest[0]), cites, self._span(meta))

    @v_args(meta=True)
    def feudal_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.FeudalDecl(str(rest[0]), int(rest[1]), cites, self._span(meta))

    @v_args(meta=True)
    def take_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.TakeDecl(rest[0], str(rest[1]), cites, self._span(meta))

    @v_args(meta=True)
    def misplaced_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.MisplacedDecl(rest[0], tuple(rest[1] or ()), cites, self._span(meta))

    @v_args(meta=True)
    def table_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.TableDecl(str(rest[0]), tuple(int(v) for v in rest[1:] if v is not None), cites, self._span(meta))

    @v_args(meta=True)
    def card_score_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.CardScoreDecl(str(rest[0]), "take", rest[1], cites, self._span(meta))

    @v_args(meta=True)
    def card_end_score_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.CardScoreDecl(str(rest[0]), "end", rest[1], cites, self._span(meta))

    @v_args(meta=True)
    def end_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.EndDecl(rest[0], cites, self._span(meta))

    @v_args(meta=True)
    def tie_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.TieDecl(rest[0], cites, self._span(meta))

    # -- expressions ------------------------------------------------------
    @v_args(meta=True)
    def int_lit(self, meta, children):
        return A.IntLit(int(children[0]), self._span(meta))

    @v_args(meta=True)
    def true_lit(self, meta, children):
        return A.BoolLit(True, self._span(meta))

    @v_args(meta=True)
    def false_lit(self, meta, children):
        return A.BoolLit(False, self._span(meta))

    @v_args(meta=True)
    def var(self, meta, children):
        return A.Var(str(children[0]), self._span(meta))

    @v_args(meta=True)
    def state_of(self, meta, children):
        return A.StateOf(str(children[0]), children[1], self._span(meta))

    @v_args(meta=True)
    def call(self, meta, children):
        args = tuple(c for c in children[1:] if c is not None)
        return A.Call(str(children[0]), args, self._span(meta))

    @v_args(meta=True)
    def cond(self, meta, children):
        return A.Cond(children[0], children[1], children[2], self._span(meta))

    @v_args(meta=True)
    def not_(self, meta, children):
        return A.Not(children[0], self._span(meta))

    @v_args(meta=True)
    def neg(self, meta, children):
        return A.Neg(children[0], self._span(meta))

    def _chain(self, meta, op, children):
        node = children[0]
        for c in children[1:]:
            node = A.BinOp(op, node, c, self._span(meta))
        return node

    @v_args(meta=True)
    def or_(self, meta, children):
        return self._chain(meta, "or", children)

    @v_args(meta=True)
    def and_(self, meta, children):
        return self._chain(meta, "and", children)

    @v_args(meta=True)
    def comparison(self, meta, children):
        return A.BinOp(str(children[1]), children[0], children[2], self._span(meta))

    @v_args(meta=True)
    def sum(self, meta, children):
        return self._ops(meta, children)

    @v_args(meta=True)
    def product(self, meta, children):
        return self._ops(meta, children)

    def _ops(self, meta, children):
        node = children[0]
        i = 1
        while i < len(children):
            node = A.BinOp(str(children[i]), node, children[i + 1], self._span(meta))
            i += 2
        return node


# Common mistakes, recognised by the parser state they leave it in
# (Lark's `match_examples`).  Each label becomes the diagnostic's message.
_EXAMPLES: dict[str, list[str]] = {
    "a rule file must begin with `module NAME`": [
        "tile A x1 { edges F F F F }",
        "edge C = city",
    ],
    "a tile needs `edges N E S W` (four edge codes) before its features": [
        "module m tile A x1 { city N }",
        "module m tile A { road W E }",
    ],
    "`edges` takes exactly four edge codes, in the order N E S W": [
        "module m tile A x1 { edges C C C }",
    ],
    "a tile count is written `x` and a number, as in `tile D x4`": [
        "module m tile A 2 { edges F F F F }",
        "module m tile A count 2 { edges F F F F }",
    ],
    "clause citations are written in brackets, as in `[BASE-CITY-2]`": [
        "module m total 72 BASE-COMP-1",
        "module m score city complete = tiles BASE-CITY-2",
    ],
    "a score is written `score KIND complete = EXPR` or `score KIND end = EXPR`": [
        "module m score city = tiles",
        "module m score city complete tiles",
        "module m score city when complete = tiles",
    ],
    "an expression is missing or incomplete here": [
        "module m score city complete = ",
        "module m score city complete = 2 *",
        "module m complete city when",
        "module m score city complete = (tiles",
    ],
    "unclosed `{`: a block must end with `}`": [
        "module m tile A x1 { edges F F F F field Nw Ne",
    ],
    "shields are written `shields` and a number after the places, as in `city N W shields 1`": [
        "module m tile A x1 { edges C C C C city N E S W shield 1 }",
        "module m tile A x1 { edges C C C C city 1 }",
    ],
    "marks are written `marks NAME` or `marks NAME N` after the places, as in `road W E marks inn`": [
        "module m tile A x1 { edges F F F F field Nw marks }",
        "module m tile A x1 { edges F F F F field Nw marks 2 }",
    ],
    "a variant's count is written `x` and a number, as in `variant garden x1 { garden C }`": [
        "module m tile A x1 { edges F F F F variant garden 1 { garden C } }",
    ],
    "a figure is written `figure NAME COUNT per player on KIND, KIND`": [
        "module m figure follower 7 on city",
        "module m figure follower on city",
    ],
    "a start position is two numbers, as in `start D at 0 0`": [
        "module m start D at 0, 0",
        "module m start D at [0, 0]",
    ],
    "the player count is a range, as in `players 2..5`": [
        "module m players 2-5",
        "module m players 2 5",
        "module m players 2 to 5",
    ],
    "a comparison is written `==`, not `=`": [
        "module m complete city when open = 0",
    ],
    "clause IDs are written in capitals, as in `[BASE-CITY-2]`": [
        "module m feature city [base-city-1]",
    ],
    "clause IDs in brackets are separated by commas, as in `[BASE-COMP-1, BASE-COMP-2]`": [
        "module m total 72 [BASE-COMP-1 BASE-COMP-2]",
    ],
    "a mapping is written `{red: 8, blue: 4}`": [
        "module m example e { points = {red = 8} }",
    ],
    "example fields follow one another without commas, as in `example e { tiles = 3 points = 8 }`": [
        "module m example e { tiles = 3, points = 8 }",
    ],
}


def _signature(err: UnexpectedInput) -> tuple:
    """What the parser was doing when it failed: its LALR state, what it accepted, what it found.

    Lark's own `match_examples` also compares the depth of the parser's stack,
    so an example only matched a mistake in a file's first statement; the top
    state alone names the mistake wherever it happens.  The found token's type
    must agree too, or `when open = 0` would match an example about `[`.
    """
    state = getattr(err, "state", None)
    position = getattr(state, "position", state)
    accepts = frozenset(getattr(err, "accepts", None) or getattr(err, "expected", None) or ())
    tok = getattr(err, "token", None)
    return (type(err).__name__, position, accepts, getattr(tok, "type", None))


@lru_cache(maxsize=1)
def _example_signatures() -> tuple[tuple[tuple, str, str], ...]:
    out = []
    for label, texts in _EXAMPLES.items():
        for text in texts:
            try:
                _parser().parse(text)
            except UnexpectedInput as ut:
                tok = getattr(ut, "token", None)
                out.append((_signature(ut), str(tok) if tok is not None else "", label))
    return tuple(out)


def _match_example(err: UnexpectedInput) -> str | None:
    """The label of the example that fails like `err` (the same found token first)."""
    sig = _signature(err)
    tok = getattr(err, "token", None)
    found = str(tok) if tok is not None else ""
    candidates = [(t, label) for s, t, label in _example_signatures() if s == sig]
    for t, label in candidates:
        if t == found:
            return label
    return candidates[0][1] if candidates else None


def _keyword_of(term: str) -> str | None:
    try:
        pat = _parser().get_terminal(term).pattern
    except Exception:
        return None
    return pat.value if pat.type == "str" and pat.value.isalpha() else None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _unclosed_brace(text: str) -> int | None:
    """The offset of the last `{` that no `}` closes (strings and comments skipped)."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif ch == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            i = j
        elif ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            opened.pop()
        i += 1
    return opened[-1] if opened else None


_CHAIN = re.compile(r"([\w()]+)\s*(==|!=|<=|>=|<|>)\s*(\w+)\s*$")


def _special(file: str, text: str, err: UnexpectedInput) -> Diagnostic | None:
    """Mistakes a designer makes often, in words (before the generic message)."""
    from .model import BUNDLED_RULES

    def at(pos: int, msg: str) -> Diagnostic:
        line, col = _line_col(text, pos)
        tok = getattr(err, "token", None)
        width = 1
        if tok is not None and tok.type == "NAME" and tok.start_pos == pos and "\n" not in str(tok):
            width = max(len(str(tok)), 1)  # the misspelt word whole
        return Diagnostic(A.Span(file, line, col, line, col + width), msg, "syntax")

    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream
        ch = text[pos] if 0 <= pos < len(text) else ""
        if ch == '"' and not re.match(r'"([^"\\\n]|\\.)*"', text[pos:]):
            return at(pos, "unterminated string: a string ends with `\"` on the same line it starts")
        if ch == "/":
            return at(pos, "unexpected character '/': division is written `//` (it rounds down), as in `tiles // 2`")
        return None
    tok = getattr(err, "token", None)
    if tok is None:
        return None
    expected = set(getattr(err, "expected", ()) or ())
    if tok.type == "$END" or isinstance(err, UnexpectedEOF):
        brace = _unclosed_brace(text)
        if brace is not None and "RBRACE" in expected:
            return at(brace, "unclosed `{`: a block must end with `}` (found end of file, and this `{` is still open)")
        return None
    pos = tok.start_pos or 0
    before = text[:pos]
    if tok.type == "COMP_OP":
        m = _CHAIN.search(before)
        after = re.match(r"\s*(\w+)", text[tok.end_pos or pos:])
        if m and after:
            a, op, b = m.groups()
            return at(pos, f"comparisons do not chain: write `{a} {op} {b} and {b} {tok} {after.group(1)}`")
        return at(pos, "comparisons do not chain: join two comparisons with `and`")
    if re.search(r"(^|[^\w])if\s*$", before):
        start = before.rstrip().rfind("if")
        return at(start, "`if … then … else …` inside a sum, product or comparison needs parentheses, "
                         "as in `1 + (if tiles > 2 then 1 else 0)`")
    if tok.type == "SIGNED_INT" and str(tok).startswith("-") and "INT" in expected and "SIGNED_INT" not in expected:
        return at(pos, f"a count here is a whole number, 0 or more, not `{tok}`")
    if tok.type == "NAME":
        words = sorted(w for w in (_keyword_of(e) for e in expected) if w)
        close = difflib.get_close_matches(str(tok), words, n=1, cutoff=0.7)
        if close:
            return at(pos, f"unexpected `{tok}`; did you mean `{close[0]}`?")
        if "EXTENDS" in expected and ((BUNDLED_RULES / f"{tok}.tess").is_file()
                                      or (BUNDLED_RULES / "variants" / f"{tok}.tess").is_file()):
            return at(pos, f"`{tok}` alone is not a statement: to build on the module `{tok}`, write "
                           f"`extends {tok}` (or `requires {tok}`)")
    return None


def _syntax_diag(file: str, text: str, err: UnexpectedInput) -> Diagnostic:
    try:
        special = _special(file, text, err)
    except Exception:  # a hint must never crash the checker
        special = None
    if special is not None:
        return special
    label = None
    try:
        label = _match_example(err)
    except Exception:  # matching must never crash the checker
        label = None
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF) or line <= 0:
        lines = (text[:-1] if text.endswith("\n") else text).split("\n")  # lines as Lark counts them
        line, col = len(lines), len(lines[-1]) + 1
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        msg = f"unexpected character {ch!r}"
        code = "syntax"
    elif isinstance(err, UnexpectedToken):
        tok = err.token
        what = "end of file" if tok.type == "$END" else f"`{tok}`"
        expected = sorted(_pretty(e) for e in err.expected if not e.startswith("__"))[:8]
        msg = f"unexpected {what}"
        if expected:
            msg += "; expected " + ", ".join(expected)
        code = "syntax"
    else:
        msg = "unexpected end of file"
        code = "syntax"
    if label:
        msg = f"{label} (found {msg.removeprefix('unexpected ').split(';')[0]})"
    if code == "syntax" and _in_override(text, err):
        msg += ("; an `override` restates the whole statement, every part of it, as the module it "
                "replaces writes it (not only the part that changes)")
    end = col + 1
    tok = getattr(err, "token", None)
    if (isinstance(err, UnexpectedToken) and tok is not None and tok.type != "$END"
            and tok.line == line and tok.column == col and tok.end_line == line and (tok.end_column or 0) > col):
        end = tok.end_column  # the whole unexpected word is underlined, not its first letter
    return Diagnostic(A.Span(file, line, col, line, end), msg, code)


def _in_override(text: str, err) -> bool:
    """Whether the syntax error lies inside a statement that starts with `override` (the statement
    begins at the last line before the error that starts at column 1)."""
    pos = getattr(err, "pos_in_stream", None)
    tok = getattr(err, "token", None)
    if pos is None and tok is not None and tok.type != "$END":
        pos = tok.start_pos
    if pos is None:
        pos = len(text)
    for line in reversed(text[:pos].split("\n")):
        if line[:1] not in ("", " ", "\t", "#"):
            return line.startswith("override ")
    return False


_PRETTY = {
    "NAME": "a name", "TILE_NAME": "a tile name", "INT": "a number", "SIGNED_INT": "a number",
    "STRING": "a string", "CLAUSE": "a clause ID", "PLACE": "a place", "COUNT": "a count like x4",
    "LBRACE": "`{`", "RBRACE": "`}`", "LSQB": "`[`", "RSQB": "`]`", "LPAR": "`(`", "RPAR": "`)`",
    "EQUAL": "`=`", "COMMA": "`,`", "COLON": "`:`", "$END": "end of file", "COMP_OP": "a comparison",
    "ADD_OP": "`+`/`-`", "MUL_OP": "`*`/`//`/`%`",
}


def _pretty(term: str) -> str:
    if term in _PRETTY:
        return _PRETTY[term]
    try:
        pat = _parser().get_terminal(term).pattern
        if pat.type == "str":
            return f"`{pat.value}`"
    except Exception:
        pass
    return term.lower()


# Deeper expressions would overflow Python's stack in the tree walks that follow
# (the transformer here, the checker, the formatter, the compilers).
MAX_DEPTH = 100  # operators nested in one expression
_MAX_TREE_DEPTH = 2 * MAX_DEPTH  # parse-tree levels (a pair of parentheses costs two)


def _too_deep(file: str, line: int, column: int) -> ParseFailure:
    return ParseFailure([Diagnostic(
        A.Span(file, max(line, 1), max(column, 1)),
        f"this expression is nested more than {MAX_DEPTH} levels deep; split it up", "syntax")])


def _check_tree_depth(file: str, tree) -> None:
    stack = [(tree, 1, (1, 1))]
    while stack:
        node, depth, where = stack.pop()
        if not isinstance(node, Tree):
            continue
        meta = node.meta
        if not getattr(meta, "empty", True):
            where = (meta.line, meta.column)
        if depth > _MAX_TREE_DEPTH:
            raise _too_deep(file, *where)
        stack.extend((c, depth + 1, where) for c in node.children)


_CHAINS = ({"+", "-"}, {"*", "//", "%"}, {"and"}, {"or"})
MAX_LEVELS = 250  # levels of an expression tree, a flat chain `a + b + ... + z` included (each is a level of the tree walks)


def _check_expr_depth(file: str, module: A.Module) -> None:
    """Real nesting (parentheses, calls, `if`, `not`) is bounded by MAX_DEPTH; a flat chain
    `a + b + c ...` is not nesting, but its length still bounds the tree walks: MAX_LEVELS."""
    expr_types = (A.IntLit, A.BoolLit, A.Var, A.Call, A.BinOp, A.Not, A.Neg, A.Cond)
    stack: list[tuple[object, int, int, object]] = [(module, 0, 0, None)]  # node, nesting, tree depth, parent op
    while stack:
        node, depth, levels, parent_op = stack.pop()
        if isinstance(node, tuple):
            stack.extend((c, depth, levels, None) for c in node)
            continue
        if not is_dataclass(node) or isinstance(node, A.Span):
            continue
        if isinstance(node, expr_types):
            levels += 1
            same_chain = isinstance(node, A.BinOp) and parent_op is not None and any(
                node.op in c and parent_op in c for c in _CHAINS)
            if not same_chain:
                depth += 1
            span = node.span  # type: ignore[attr-defined]
            if depth > MAX_DEPTH:
                raise _too_deep(file, span.line, span.column)
            if levels > MAX_LEVELS:
                raise ParseFailure([Diagnostic(
                    A.Span(file, max(span.line, 1), max(span.column, 1)),
                    f"this expression is more than {MAX_LEVELS} operators long; split it up (a `state` can hold a part)",
                    "syntax")])
        if isinstance(node, A.BinOp):  # the left operand continues a chain, the right one starts a level
            stack.append((node.left, depth, levels, node.op))
            stack.append((node.right, depth, levels, None))
            continue
        stack.extend((getattr(node, f.name), depth, levels, None) for f in fields(node) if f.name != "span")


def parse(text: str, file: str = "<input>") -> A.Module:
    """Parse one rule file; raises ParseFailure with diagnostics on a syntax error."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise ParseFailure([_syntax_diag(file, text, err)]) from None
    except RecursionError:  # not expected (the LALR parser is iterative), but never a traceback
        raise _too_deep(file, 1, 1) from None
    _check_tree_depth(file, tree)
    try:
        module = _Build(file).transform(tree)
    except VisitError as err:  # a literal out of range, a bad escape in a string and the like
        obj = err.obj
        meta = obj if isinstance(obj, Token) else getattr(obj, "meta", None)
        line = getattr(meta, "line", None) or 1
        col = getattr(meta, "column", None) or 1
        end_line = getattr(meta, "end_line", None) or 0
        end_col = getattr(meta, "end_column", None) or 0
        raise ParseFailure([Diagnostic(A.Span(file, line, col, end_line, end_col),
                                       f"cannot read this: {err.orig_exc}", "syntax")]) from None
    except RecursionError:
        raise _too_deep(file, 1, 1) from None
    _check_expr_depth(file, module)
    return module


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write-tables"]:
        sys.exit("usage: python -m dsl.parser --write-tables")
    TABLES.write_text(tables_text(), encoding="utf-8")
    print(f"wrote {TABLES}")
