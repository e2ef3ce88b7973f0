"""The parse tree -> the AST: one method per rule of dsl/grammar.lark, each building the frozen
dataclass of dsl/ast.py with its Span (dsl/parser.py `parse` runs it)."""
from __future__ import annotations

import ast as pyast
import warnings

from lark import Token, Transformer, Tree, v_args

from . import ast as A


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

    def __default__(self, data, children, meta):
        """A rule with no method here: a statement declared in one place (dsl/ast.py `Declared`)
        builds itself; any other rule stays a tree for its parent's method."""
        cls = A.DECLARED.get(data)
        if cls is not None:
            return cls.build(children, self._span(meta))
        return super().__default__(data, children, meta)

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
    def param_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.ParamDecl(str(rest[0]), rest[1], rest[2], rest[3], cites, self._span(meta))

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
    def dealer_decl(self, meta, children):
        rest, cites = self._split(children)
        return A.DealerDecl(str(rest[0]), cites, self._span(meta))

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
