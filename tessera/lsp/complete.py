"""Completion that knows where it is: the parser says what may come next (Lark's interactive
LALR parser, fed the text up to the cursor), the words before the cursor say what it names."""
from __future__ import annotations

import re

from lark import Token, Tree
from lark.exceptions import LarkError
from lsprotocol import types as T

from ..dsl import ast as A
from ..dsl.builtins import FUNCTIONS, QUANTITIES
from ..dsl.clauses import CLAUSES
from ..dsl.family import CARDS, TILES, Family
from ..dsl.parser import _parser, keywords

from . import langdoc
from .analysis import Analysis, statement_head

STATEMENTS = {"module", "requires", "extends", "total", "composition", "players", "edge", "feature", "figure",
              "tile", "start", "deck", "box", "placement", "complete", "score", "owners", "return", "state", "on",
              "award", "recall", "capture", "exchange", "ransom", "track", "allow", "forbid", "invariant",
              "example", "clause", "assume", "override", "with", "without",
              # the card game (language.md 7.2)
              "colour", "card", "cards", "layout", "deal", "facedown", "dealer", "feudal", "take", "misplaced", "table",
              "tie"}
# the statements of one family only (dsl/family.py: each family's `heads`)
CARD_ONLY, TILE_ONLY = CARDS.heads, TILES.heads
_FAMILY_CACHE: dict[tuple, str] = {}


def family(a: Analysis) -> str | None:
    """The document's family: "card" when its rule set has card-game statements, "tile" when it has
    tiles or feature kinds, None while it has neither (a new file: everything is offered)."""
    mods = list(a.workspace.modules.values())
    if a.module is not None and a.module not in mods:
        mods.append(a.module)
    card = tile = False
    for m in mods:
        for it in m.items:
            d = it.decl if isinstance(it, A.Override) else it
            card = card or isinstance(d, A.CARD_STATEMENTS)
            tile = tile or isinstance(d, (A.TileDecl, A.FeatureDecl, A.EdgeDecl))
    if not (card or tile):  # the document does not parse yet: what it builds on and its statements' heads
        for name in re.findall(r"^(?:extends|requires)\s+([A-Za-z_]\w*)", a.text, re.M):
            fam = _module_family(a, name)
            card, tile = card or fam == "card", tile or fam == "tile"
        fam = Family.of_text(a.text)
        card, tile = card or fam is CARDS, tile or fam is TILES
    return "card" if card and not tile else "tile" if tile and not card else None


def own_module(a: Analysis) -> str | None:
    """The document's own module name (from its first line while it does not parse)."""
    if a.module is not None:
        return a.module.name
    m = re.match(r"\s*(?:#[^\n]*\n\s*)*module\s+([A-Za-z_]\w*)", a.text)
    return m.group(1) if m else None


def _module_family(a: Analysis, name: str) -> str | None:
    """A module's family from its file (card-game statements at a line's start), without checking it."""
    from pathlib import Path

    from ..dsl.model import BUNDLED_RULES
    from ..dsl.untrusted import FileReadError, read_text

    mod = a.module_of(name)
    if mod is not None:
        return "card" if any(isinstance(it.decl if isinstance(it, A.Override) else it, A.CARD_STATEMENTS)
                             for it in mod.items) else "tile"
    for folder in [BUNDLED_RULES, *a.workspace.search]:
        for cand in (Path(folder) / f"{name}.tess", Path(folder) / "variants" / f"{name}.tess"):
            try:
                st = cand.stat()
                key = (str(cand), st.st_mtime_ns, st.st_size)
                if key not in _FAMILY_CACHE:
                    _FAMILY_CACHE[key] = "card" if Family.of_text(read_text(cand, 1 << 20)) is CARDS else "tile"
                return _FAMILY_CACHE[key]
            except (FileReadError, OSError):
                continue
    return None


_FLAT = {"with_mode", "permit_mode", "score_when", "score_trigger", "event", "track_event", "feature_at",
         "figure_at", "anywhere", "placement_kind", "owners_kind", "put_slot", "award_most", "track_pool",
         "state_each"}
_NEW_NAME = {"module", "feature", "figure", "tile", "state", "deck", "track", "invariant", "example", "assume",
             "variant", "clause", "colour", "card", "table", "feudal"}
_FIGURE_AFTER = {"by", "put", "join", "return", "recall", "ransom", "allow", "forbid", "release"}


def _feed(text: str):
    """(value stack, accepted terminals) after parsing `text`, or None when it does not parse."""
    ip = _parser().parse_interactive(text)
    try:
        for _ in ip.iter_parse():
            pass
        return list(ip.parser_state.value_stack), set(ip.accepts())
    except (LarkError, RecursionError):
        return None


def _segment(stack) -> list:
    """The current statement's parts: what follows the last whole statement on the parser's stack,
    the small keyword rules (`with`, `complete`, ...) flattened into their words."""
    start = 0
    for i, v in enumerate(stack):
        if isinstance(v, Tree) and (v.data in STATEMENTS_RULES or v.data == "module_decl"):
            start = i + 1
        elif isinstance(v, Token) and v.type == "LBRACE" and i > 0 and isinstance(stack[i - 1], Token) \
                and stack[i - 1].type == "NAME" and i > 1 and isinstance(stack[i - 2], Tree) and stack[i - 2].data == "with_mode":
            start = i + 1  # inside a `with MODULE { ... }` block
    out = []
    for v in stack[start:]:
        if isinstance(v, Tree) and v.data in _FLAT:
            out.extend(c for c in v.children if isinstance(c, Token))
        else:
            out.append(v)
    return out


STATEMENTS_RULES = {"requires", "extends", "total", "composition_decl", "edge_decl", "feature_decl", "figure_decl",
                    "tile_decl", "start_decl", "deck_decl", "box_decl", "placement_decl", "complete_decl",
                    "score_decl", "score_trigger_decl", "owners_decl", "return_decl", "state_decl", "on_decl",
                    "award_decl", "recall_decl", "capture_decl", "exchange_decl", "ransom_decl", "track_decl",
                    "on_put_decl", "on_track_decl", "on_draw_decl", "permit_decl", "players_decl", "invariant_decl",
                    "example_decl", "clause_decl", "assume_decl", "override", "with_decl",
                    "colour_decl", "card_decl", "cards_total", "layout_decl", "deal_decl", "facedown_decl",
                    "dealer_decl", "feudal_decl", "take_decl", "misplaced_decl", "table_decl", "card_score_decl",
                    "card_end_score_decl", "end_decl", "tie_decl"} | {
                       rule for rule, cls in A.DECLARED.items() if cls.collect}  # declared in one place (dsl/ast.py)


def _is_kw(v) -> bool:
    return isinstance(v, Token) and str(v) in keywords() and v.type not in ("NAME", "TILE_NAME")


def roles_here(seg: list, accepts: set[str]) -> list[str]:
    """What the name at the cursor names: module, kind, figure, tile, edge, state, deck, track,
    mark, clause, or `expr` (quantities, states, functions); [] where a new name is written."""
    words = [str(v) for v in seg if _is_kw(v)]
    head = next((w for w in words if w in STATEMENTS and w != "override"), None)
    kw = words[-1] if words else None
    last = seg[-1] if seg else None
    last_s = str(last) if isinstance(last, Token) else None
    if "CLAUSE" in accepts:
        return [] if kw == "clause" and last_s == "clause" else ["clause"]
    if not accepts & {"NAME", "TILE_NAME"}:
        return []
    if kw in _NEW_NAME and last_s == kw:
        return []
    if kw in ("extends", "requires", "with", "without"):
        return ["module"]
    if kw in ("take", "keep"):
        return ["card"]
    if kw == "to" and head == "take":
        return ["destination"]
    if kw in ("facedown", "dealer"):
        return [kw]
    if kw == "of":
        i = max(i for i, v in enumerate(seg) if _is_kw(v) and str(v) == "of")
        before = [str(v) for v in seg[:i] if isinstance(v, Token)]
        if before[-2:-1] and before[-2] in ("capture", "remove"):
            return ["figure"]
        if head == "on" and len(before) >= 2 and before[1] in ("full", "overflow", "end"):
            return ["track"]
        if head == "on" and len(before) >= 2 and before[1] in ("place", "complete", "put"):
            return ["kind"]
        return ["expr"]
    if "INT" in accepts or "LPAR" in accepts:
        # an expression: an argument of a function that takes a kind, a figure or a mark?
        if isinstance(last, Token) and last.type == "LPAR" and len(seg) > 1 and isinstance(seg[-2], Token) \
                and str(seg[-2]) in FUNCTIONS:
            arg = FUNCTIONS[str(seg[-2])].args[0]
            return {"kind": ["kind"], "figure": ["figure"], "mark": ["mark"]}.get(arg, ["expr"])
        return ["expr"]
    if kw == "on" and head in ("figure", "allow", "forbid"):
        return ["kind"]
    if kw == "put" and head == "on":
        return ["figure"]
    if kw in ("complete", "score", "continues", "for") and head in ("complete", "score", "placement", "track"):
        return ["kind"]
    if kw in _FIGURE_AFTER or (kw == "put" and head in ("score", "capture")):
        return ["figure"]
    if kw in ("award", "most", "set"):
        return ["state"]
    if kw == "marks":
        return ["mark"]
    if kw == "symbols":
        return ["symbol"]
    if kw in ("box", "start", "last", "tiles") or (head == "composition" and kw == "composition"):
        return ["tile"]
    if kw == "before":
        return ["deck"]
    if head == "edge":
        return ["kind"] if any(isinstance(v, Token) and v.type == "EQUAL" for v in seg) else []
    if head == "tile":
        if kw == "edges":
            after = seg[max(i for i, v in enumerate(seg) if _is_kw(v) and str(v) == "edges") + 1:]
            codes = [v for v in after if isinstance(v, Token) and v.type == "NAME"]
            groups = [v for v in after if isinstance(v, Tree) and v.data == "side_codes"]
            if len(codes) >= 4 or len(groups) >= 4:
                return ["kind"]
            return ["edge"]
        if "RBRACE" in accepts:
            return ["kind"]
    return []


def _items_for(role: str, a: Analysis, declared: dict[str, set[str]]) -> list[T.CompletionItem]:
    kinds = {"module": T.CompletionItemKind.Module, "kind": T.CompletionItemKind.Enum,
             "figure": T.CompletionItemKind.Struct, "tile": T.CompletionItemKind.Class,
             "edge": T.CompletionItemKind.EnumMember, "state": T.CompletionItemKind.Variable,
             "deck": T.CompletionItemKind.Value, "track": T.CompletionItemKind.Interface,
             "mark": T.CompletionItemKind.Constant, "symbol": T.CompletionItemKind.Constant}
    out = []
    if role in ("destination", "facedown", "dealer"):
        from ..dsl.cards import DEALER, DESTINATIONS, FACEDOWN

        words = {"destination": DESTINATIONS, "facedown": FACEDOWN, "dealer": DEALER}[role]
        doc = langdoc.keyword("take" if role == "destination" else role, None)
        return [T.CompletionItem(w, kind=T.CompletionItemKind.EnumMember, detail=role,
                                 documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None)
                for w in words]
    if role == "module":
        own = own_module(a)
        fam = family(a)
        for name in a.workspace.known_module_names():
            if name == own:  # a module never builds on itself
                continue
            if fam is not None and _module_family(a, name) not in (None, fam):  # a card module in a tile rule set
                continue
            mod = a.module_of(name)
            title = mod.title if mod is not None and mod.title else _module_title(a, name)
            out.append(T.CompletionItem(name, kind=kinds["module"], detail="module", documentation=title or None))
        return out
    if role == "clause":
        own = {d.name: d for ds in a.decls.values() for d in ds if d.kind == "clause"}
        for c in own:
            out.append(T.CompletionItem(c, kind=T.CompletionItemKind.Constant, detail="house rule clause"))
        out += [T.CompletionItem(c, kind=T.CompletionItemKind.Constant, detail="clause", documentation=t)
                for c, t in CLAUSES.items()]
        return out
    if role == "expr":
        docs = langdoc.builtins()
        out += [T.CompletionItem(q, kind=T.CompletionItemKind.Variable, detail="quantity",
                                 documentation=T.MarkupContent(T.MarkupKind.Markdown, docs.get(q, QUANTITIES[q].doc)))
                for q in QUANTITIES]
        out += [T.CompletionItem(f, kind=T.CompletionItemKind.Function, detail="function",
                                 documentation=T.MarkupContent(T.MarkupKind.Markdown, docs.get(f, FUNCTIONS[f].doc)))
                for f in FUNCTIONS]
        out += _items_for("state", a, declared)
        if declared.get("card"):  # the card game's names (language.md 7.3) and its score tables
            cards = langdoc.card_names()
            out += [T.CompletionItem(n, kind=T.CompletionItemKind.Function, detail="card game",
                                     documentation=T.MarkupContent(T.MarkupKind.Markdown, d))
                    for n, d in cards.items() if n not in QUANTITIES]
            out += [T.CompletionItem(n, kind=T.CompletionItemKind.Function, detail="score table")
                    for n in sorted(declared.get("table", ()))]
        return out
    names = sorted(set(declared.get(role, ())) | ({"any"} if role == "symbol" else set()))
    if role == "symbol":
        names = sorted(set(names) | declared.get("track", set()))
    for name in names:
        doc = None
        for d in a.decls.get(name, []):
            line = a.workspace.sources.line(d.span.file, d.span.line) or ""
            doc = f"`{line.strip()}`  \n{d.span.file.rsplit('/', 1)[-1]}:{d.span.line}"
            break
        out.append(T.CompletionItem(name, kind=kinds.get(role, T.CompletionItemKind.Reference), detail=role,
                                    documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None))
    return out


_TITLE = re.compile(r'^module\s+[A-Za-z_][A-Za-z0-9_]*\s+"((?:[^"\\\n]|\\.)*)"', re.M)


def _module_title(a: Analysis, name: str) -> str:
    """The title a module's file gives it (read from the file's head, not checked)."""
    from pathlib import Path

    from ..dsl.model import BUNDLED_RULES
    from ..dsl.untrusted import FileReadError, read_text

    for folder in [BUNDLED_RULES, *a.workspace.search]:
        for cand in (Path(folder) / f"{name}.tess", Path(folder) / "variants" / f"{name}.tess"):
            try:
                m = _TITLE.search(read_text(cand, 1 << 20)[:8192])
            except (FileReadError, OSError):
                continue
            return m.group(1) if m else ""
    return ""


def _typed(line: str) -> str:
    m = re.search(r"\[[^\]]*?([A-Za-z0-9_\-]*)$", line)
    if m:
        return m.group(1)
    return re.search(r"[A-Za-z0-9_.]*$", line).group(0)


def complete(a: Analysis, text: str, pos: T.Position) -> list[T.CompletionItem]:
    lines = text.split("\n")
    line = min(max(pos.line, 0), max(len(lines) - 1, 0))
    cur = lines[line] if lines else ""
    char = min(max(pos.character, 0), len(cur))
    typed = _typed(cur[:char])
    before_cursor = cur[:char - len(typed)]
    prefix = "\n".join(lines[:line] + [before_cursor])
    fed = _feed(prefix)
    if fed is None:  # an earlier mistake: read the current statement alone
        start = line
        while start > 0 and not (lines[start][:1] and not lines[start][:1].isspace()
                                 and not lines[start].startswith(("#", "}"))):
            start -= 1
        body = "\n".join(lines[start:line] + [before_cursor])
        fed = _feed("module m\n" + body) if not body.startswith("module") else _feed(body)
    edit_range = T.Range(T.Position(line, char - len(typed)), T.Position(line, char))
    declared = a.declared()
    items: list[T.CompletionItem] = []
    if fed is None:
        roles, accepts = [], set()
        kw_words = sorted(STATEMENTS)
    else:
        stack, accepts = fed
        roles = roles_here(_segment(stack), accepts)
        kw_words = sorted(w for w in (_keyword(t) for t in accepts) if w)
    fam = family(a)
    if fam is not None:  # the other family's statements are not offered (no `card` in a tile rule set)
        other = CARD_ONLY - TILE_ONLY if fam == "tile" else TILE_ONLY - CARD_ONLY
        kw_words = [w for w in kw_words if w not in other]
    for rank, role in enumerate(roles):
        for it in _items_for(role, a, declared):
            it.sort_text = f"0{rank}{it.label}"
            items.append(it)
    head = statement_head(lines, line)
    for w in kw_words:
        doc = langdoc.keyword(w, head, fam)
        items.append(T.CompletionItem(w, kind=T.CompletionItemKind.Keyword, sort_text=f"1{w}",
                                      documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None))
    seen = set()
    out = []
    for it in items:
        if it.label in seen or (typed and not it.label.startswith(typed) and not it.label.lower().startswith(typed.lower())):
            continue
        seen.add(it.label)
        it.text_edit = T.TextEdit(edit_range, it.label)
        out.append(it)
    return out


def _keyword(term: str) -> str | None:
    try:
        pat = _parser().get_terminal(term).pattern
    except Exception:
        return None
    return pat.value if pat.type == "str" and re.fullmatch(r"[a-z_]+", pat.value) else None
