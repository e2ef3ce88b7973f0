"""Document symbols (the outline) and semantic tokens."""
from __future__ import annotations

from lsprotocol import types as T

from ..dsl import ast as A
from ..dsl.diagnostics import SourceCache, narrow

from .analysis import Analysis, span_range

_KIND = {A.TileDecl: T.SymbolKind.Class, A.FeatureDecl: T.SymbolKind.Enum, A.FigureDecl: T.SymbolKind.Struct,
         A.StateDecl: T.SymbolKind.Variable, A.EdgeDecl: T.SymbolKind.EnumMember, A.DeckDecl: T.SymbolKind.Array,
         A.TrackDecl: T.SymbolKind.Interface, A.InvariantDecl: T.SymbolKind.Boolean,
         A.ExampleDecl: T.SymbolKind.Object, A.ClauseDecl: T.SymbolKind.Constant, A.AssumeDecl: T.SymbolKind.String,
         A.WithDecl: T.SymbolKind.Namespace, A.Requires: T.SymbolKind.Package, A.Extends: T.SymbolKind.Package}
_NAMED = {A.TileDecl: "name", A.FeatureDecl: "kind", A.FigureDecl: "name", A.StateDecl: "name", A.EdgeDecl: "code",
          A.DeckDecl: "name", A.TrackDecl: "name", A.InvariantDecl: "name", A.ExampleDecl: "name",
          A.ClauseDecl: "clause", A.AssumeDecl: "name", A.WithDecl: "module"}
_WHAT = {A.TileDecl: "tile", A.FeatureDecl: "feature", A.FigureDecl: "figure", A.StateDecl: "state",
         A.EdgeDecl: "edge", A.DeckDecl: "deck", A.TrackDecl: "track", A.InvariantDecl: "invariant",
         A.ExampleDecl: "example", A.ClauseDecl: "clause", A.AssumeDecl: "assume"}


def _first_line(sources: SourceCache, span: A.Span, limit: int = 60) -> str:
    text = " ".join((sources.line(span.file, span.line) or "").split())
    text = text.split("#", 1)[0].split(" [", 1)[0].split(" {", 1)[0].strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _symbol(item, sources: SourceCache, override: bool = False) -> T.DocumentSymbol | None:
    if isinstance(item, A.Override):
        return _symbol(item.decl, sources, True)
    span = getattr(item, "span", None)
    if span is None or span.line <= 0:
        return None
    cls = type(item)
    rng = span_range(span)
    attr = _NAMED.get(cls)
    if attr is not None:
        name = getattr(item, attr)
        sel = span_range(narrow(span, name, sources))
        label = f"{'without' if getattr(item, 'without', False) else 'with'} {name}" if cls is A.WithDecl else name
        children = []
        if cls is A.WithDecl:
            children = [s for s in (_symbol(i, sources) for i in item.items) if s is not None]
        detail = ("override " if override else "") + _WHAT.get(cls, "")
        return T.DocumentSymbol(label, _KIND[cls], rng, sel, detail=detail or None, children=children or None)
    text = _first_line(sources, span)
    if not text:
        return None
    kind = _KIND.get(cls, T.SymbolKind.Event)
    return T.DocumentSymbol(text, kind, rng, rng, detail="rule" if kind == T.SymbolKind.Event else None)


def document_symbols(a: Analysis) -> list[T.DocumentSymbol]:
    """Tiles, features, figures, states, rules, examples, ...: one entry per statement, `with`
    blocks holding theirs."""
    mod = a.module
    if mod is None:
        return []
    out = []
    for item in mod.items:
        s = _symbol(item, a.workspace.sources)
        if s is not None:
            out.append(s)
    return out


# semantic tokens: the role of each name (dsl/names.py) as a standard token type
TOKEN_TYPES = ["namespace", "class", "type", "struct", "variable", "enum", "interface", "enumMember", "macro",
               "function", "property", "decorator", "event", "parameter"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary"]
_TYPE_OF_ROLE = {"module": "namespace", "tile": "class", "kind": "type", "figure": "struct", "state": "variable",
                 "deck": "enum", "track": "interface", "edge": "enumMember", "clause": "macro",
                 "function": "function", "quantity": "variable", "place": "property", "mark": "decorator",
                 "symbol": "decorator", "invariant": "event", "example": "event", "assumption": "event",
                 "variant": "enumMember", "field": "parameter", "colour": "enum", "card": "class",
                 "table": "function", "scoring": "event"}
LEGEND = T.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)


def semantic_tokens(a: Analysis, units=None) -> list[int]:
    """The names as LSP's relative token data; `units(line, col)`: a code-point column in the
    client's units (identity by default)."""
    units = units or (lambda line, col: col)
    data: list[int] = []
    prev_line, prev_col = 0, 0
    for o in a.names():
        ttype = _TYPE_OF_ROLE.get(o.role)
        if ttype is None:
            continue
        mods = (1 if o.decl else 0) | (6 if o.role in ("quantity", "function") else 0)
        line = o.line - 1
        col, end = units(line, o.column - 1), units(line, o.end_column - 1)
        data += [line - prev_line, col - prev_col if line == prev_line else col, end - col,
                 TOKEN_TYPES.index(ttype), mods]
        prev_line, prev_col = line, col
    return data
