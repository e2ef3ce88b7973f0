"""`tessera lsp`: a language server for rule files (pygls, LSP over stdio).

- diagnostics as you type: the very checks of `tessera check`, with its codes and ranges;
- hover: a clause ID shows the clause, a declared name shows its declaration;
- go to definition: tiles, features, figures, states, edges, decks and modules,
  across the rule files a module requires (bundled ones included);
- formatting: `tessera fmt` (left alone when the text does not parse);
- completion: keywords of the language, declared names, clause IDs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

from dsl import ast as A
from dsl.clauses import CLAUSES
from dsl.diagnostics import Diagnostic
from dsl.loader import Workspace, check_text
from dsl.untrusted import MAX_RULE_FILE, FileReadError, read_text

WORD = re.compile(r"[A-Za-z0-9_.\-]+")
GRAMMAR = Path(__file__).resolve().parent.parent / "dsl" / "grammar.lark"
KEYWORDS = sorted(set(re.findall(r'"([a-z_]+)"', GRAMMAR.read_text(encoding="utf-8"))))
SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "note": T.DiagnosticSeverity.Information}


@dataclass(frozen=True)
class Decl:
    name: str
    kind: str  # tile | feature | figure | state | edge | deck | module | invariant | example
    span: A.Span


def _declarations(mod: A.Module) -> list[Decl]:
    out = [Decl(mod.name, "module", mod.span)]
    for item in mod.items:
        s = item.decl if isinstance(item, A.Override) else item
        for cls, kind, attr in ((A.TileDecl, "tile", "name"), (A.FeatureDecl, "feature", "kind"),
                                (A.FigureDecl, "figure", "name"), (A.StateDecl, "state", "name"),
                                (A.EdgeDecl, "edge", "code"), (A.DeckDecl, "deck", "name"),
                                (A.InvariantDecl, "invariant", "name"), (A.ExampleDecl, "example", "name")):
            if isinstance(s, cls):
                out.append(Decl(getattr(s, attr), kind, s.span))
        if isinstance(s, A.ClauseDecl):  # a house rule's own clause
            out.append(Decl(s.clause, "clause", s.span))
    return out


class Analysis:
    """One check of a document's text: its diagnostics and every declaration it can see
    (`text` None: a document the server may not read, which has neither)."""

    def __init__(self, text: str | None, path: str):
        if text is None or _too_big(text):
            self.workspace = Workspace()
            self.decls: dict[str, list[Decl]] = {}
            self.diagnostics = [] if text is None else [Diagnostic(
                A.Span(path, 1, 1), f"this document is larger than {MAX_RULE_FILE // (1 << 20)} MiB, the limit of a "
                                    f"rule file (`tessera check` refuses it too), so it is not checked", "io")]
            return
        diags, ws = check_text(text, path)
        self.diagnostics = [d for d in diags if d.span.file == path]  # a required file's own problems show there
        self.workspace = ws
        self.decls: dict[str, list[Decl]] = {}
        for m in ws.modules.values():
            for d in _declarations(m):
                self.decls.setdefault(d.name, []).append(d)


def _range(span: A.Span) -> T.Range:
    line, col = max(span.line - 1, 0), max(span.column - 1, 0)
    if span.end_line >= span.line and span.end_line > 0 and (span.end_line > span.line or span.end_column > span.column):
        end = T.Position(span.end_line - 1, max(span.end_column - 1, 0))
    else:
        end = T.Position(line, col + 1)
    return T.Range(T.Position(line, col), end)


def _name_range(d: Decl, ws: Workspace) -> T.Range:
    """The declared name itself on the declaration's first line (or the statement's start)."""
    text = ws.sources.line(d.span.file, d.span.line) or ""
    for m in re.finditer(rf"(?<![\w.\-]){re.escape(d.name)}(?![\w.\-])", text):
        if m.start() >= d.span.column - 1:
            return T.Range(T.Position(d.span.line - 1, m.start()), T.Position(d.span.line - 1, m.end()))
    return _range(d.span)


def _word_at(text: str, pos: T.Position) -> str | None:
    lines = text.splitlines()
    if pos.line >= len(lines):
        return None
    for m in WORD.finditer(lines[pos.line]):
        if m.start() <= pos.character <= m.end():
            return m.group(0).strip(".-")
    return None


def _too_big(text: str) -> bool:
    return len(text) > MAX_RULE_FILE or len(text.encode("utf-8", "surrogatepass")) > MAX_RULE_FILE


class _AnswerEveryRequest(LanguageServerProtocol):
    """A request whose parameters do not fit the protocol (a negative position) gets an error
    reply; pygls only logged it, and the editor waited for ever."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class TesseraServer(LanguageServer):
    """Reads only what it is given: the text of documents the editor opened (at most the size
    of a rule file), and the rule files their analyses read through the loader's checks
    (regular files of at most 1 MiB, found as `tessera check` finds them).  A request about any
    other document (`file:///dev/zero`) gets an empty answer, never a read."""

    def __init__(self) -> None:
        from . import __version__

        super().__init__("tessera", __version__, protocol_cls=_AnswerEveryRequest)
        self.analyses: dict[str, Analysis] = {}

    def text(self, uri: str) -> str | None:
        """An opened document's text, or a rule file an analysis read; None for anything else."""
        doc = self.workspace.text_documents.get(unquote(uri))  # pygls keys documents by the unquoted URI
        if doc is not None:
            return doc.source  # the editor's text: pygls keeps it, nothing is read
        path = to_fs_path(uri)
        if not path:
            return None
        for a in list(self.analyses.values()):
            known = a.workspace.sources.text(path)
            if known is not None:
                return known
            if any(m.file == path for m in a.workspace.modules.values()):  # a (bundled) module it used
                try:
                    return read_text(Path(path), MAX_RULE_FILE)  # a regular file of at most 1 MiB, as check reads
                except FileReadError:
                    return None
        return None

    def analyse(self, uri: str) -> Analysis:
        a = Analysis(self.text(uri), to_fs_path(uri) or uri)
        if unquote(uri) in self.workspace.text_documents:  # only opened documents are kept
            self.analyses[uri] = a
        return a

    def publish(self, uri: str) -> None:
        a = self.analyse(uri)
        diags = [T.Diagnostic(range=_range(d.span), message=d.message, severity=SEVERITY.get(d.severity),
                              code=d.code, source="tessera") for d in a.diagnostics]
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags))

    def lookup(self, uri: str, pos: T.Position) -> tuple[str | None, list[Decl], Analysis]:
        a = self.analyses.get(uri) or self.analyse(uri)
        text = self.text(uri)
        if text is None or _too_big(text):
            return None, [], a
        word = _word_at(text, pos)
        decls = a.decls.get(word, []) if word else []
        # a module and a figure may share a name (abbot): `requires`/`extends`/`module` lines name modules
        lines = text.splitlines()
        head = lines[pos.line].split(None, 1)[0] if pos.line < len(lines) and lines[pos.line].strip() else ""
        modules = [d for d in decls if d.kind == "module"]
        if head in ("requires", "extends", "module"):
            decls = modules or decls
        elif len(modules) < len(decls):
            decls = [d for d in decls if d.kind != "module"]
        return word, decls, a


server = TesseraServer()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: TesseraServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: TesseraServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: TesseraServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_HOVER)
def _hover(ls: TesseraServer, params: T.HoverParams) -> T.Hover | None:
    word, decls, a = ls.lookup(params.text_document.uri, params.position)
    if word in CLAUSES:
        return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, f"**{word}**: {CLAUSES[word]}"))
    if not decls:
        return None
    parts = []
    for d in decls:
        lines = [a.workspace.sources.line(d.span.file, n) or "" for n in range(d.span.line, max(d.span.line, d.span.end_line) + 1)]
        shown = "\n".join(lines[:8]) + ("\n..." if len(lines) > 8 else "")
        parts.append(f"{d.kind} `{d.name}`, {Path(d.span.file).name}:{d.span.line}\n```tessera\n{shown}\n```")
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, "\n\n".join(parts)))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: TesseraServer, params: T.DefinitionParams) -> list[T.Location] | None:
    _, decls, a = ls.lookup(params.text_document.uri, params.position)
    return [T.Location(from_fs_path(str(Path(d.span.file).resolve())), _name_range(d, a.workspace)) for d in decls] or None


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def _formatting(ls: TesseraServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
    from dsl.fmt import comments, format_module
    from dsl.parser import ParseFailure, parse

    old = ls.text(params.text_document.uri)
    if old is None or _too_big(old):
        return None
    try:
        mod = parse(old)
        new = format_module(mod, old)
        if parse(new) != mod or comments(new) != comments(old):
            return None  # as `tessera fmt`: never a change of meaning or a lost comment
    except ParseFailure:
        return None  # the diagnostics say why
    if new == old:
        return []
    end = T.Position(len(old.splitlines()) + 1, 0)
    return [T.TextEdit(T.Range(T.Position(0, 0), end), new)]


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["["]))
def _completion(ls: TesseraServer, params: T.CompletionParams) -> T.CompletionList:
    a = ls.analyses.get(params.text_document.uri) or ls.analyse(params.text_document.uri)
    items = [T.CompletionItem(k, kind=T.CompletionItemKind.Keyword) for k in KEYWORDS]
    for name, decls in sorted(a.decls.items()):
        items.append(T.CompletionItem(name, kind=T.CompletionItemKind.Reference, detail=decls[0].kind))
    items += [T.CompletionItem(c, kind=T.CompletionItemKind.Constant, detail=t) for c, t in CLAUSES.items()]
    return T.CompletionList(is_incomplete=False, items=items)


def main() -> None:
    server.start_io()
