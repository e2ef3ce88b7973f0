"""`tessera lsp`: a language server for rule files (pygls, LSP over stdio).

- diagnostics as you type: the very checks of `tessera check`, each on the word it is about;
- hover: keywords, quantities, functions and operators (docs/language.md), clause IDs, and
  declared names (the declaration and its file);
- completion of what may stand at the cursor (the parser's own next tokens), documented;
- go to definition, references, rename across the files of a rule set;
- the outline (document symbols), semantic tokens, formatting (`tessera fmt`);
- code actions: the diagnostics' "did you mean" as quick fixes, "declare this clause".

No answer ever edits tessera's installed rule files (rules/): a rename that would is refused with
the reason, a quick fix there is shown disabled with the reason (or left out), formatting is none.

Only documents the editor opened, and the rule files their rule sets read, are answered,
each of at most 1 MiB (the size limit of a rule file): a request about anything else, or
at a position outside the text, gets an empty answer; one whose parameters do not fit the
protocol (a negative position) an Invalid Params error, never silence.
"""
from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types as T
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from ..dsl.clauses import CLAUSES
from ..dsl.untrusted import MAX_RULE_FILE, FileReadError, read_text

from . import actions, complete, langdoc, navigate, outline
from .analysis import Analysis, Codec, Decl, name_range, occurrence_at, span_range, statement_head, word_at
from ..dsl.parser import keywords
from ..dsl.builtins import FUNCTIONS, QUANTITIES

SEVERITY = {"error": T.DiagnosticSeverity.Error, "warning": T.DiagnosticSeverity.Warning,
            "note": T.DiagnosticSeverity.Information}


class _Protocol(LanguageServerProtocol):
    """A request whose parameters do not fit the protocol (a negative position, a line past
    2**31) gets an error reply (Invalid Params); pygls only logged it, and the editor waited
    for ever."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class TesseraServer(LanguageServer):
    def __init__(self) -> None:
        from .. import __version__

        super().__init__("tessera", __version__, protocol_cls=_Protocol)
        self.analyses: dict[str, tuple[str, Analysis]] = {}

    def text(self, uri: str) -> str | None:
        """The text of an opened document, or of a rule file an opened document's rule set
        reads; None for anything else (nothing else is read) and for a text over 1 MiB."""
        doc = self.workspace.text_documents.get(unquote(uri))  # pygls keys documents by the unquoted URI
        if doc is not None:
            return None if _too_big(doc.source) else doc.source
        path = to_fs_path(uri)
        if not path:
            return None
        for _, a in list(self.analyses.values()):
            if any(m.file == path for m in a.workspace.modules.values()):  # a (bundled) module it read
                try:
                    return read_text(Path(path), MAX_RULE_FILE)  # a regular file of at most 1 MiB, as check reads
                except FileReadError:
                    return None
        return None

    def analysis(self, uri: str) -> Analysis | None:
        text = self.text(uri)
        if text is None:
            return None
        got = self.analyses.get(uri)
        if got is not None and got[0] == text:
            return got[1]
        a = Analysis(text, to_fs_path(uri) or uri)
        self.analyses[uri] = (text, a)
        return a

    def open_texts(self) -> dict[str, str]:
        out = {}
        for uri in list(self.workspace.text_documents):
            doc = self.workspace.text_documents[uri]
            text = None if _too_big(doc.source) else doc.source
            path = to_fs_path(uri)
            if text is not None and path:
                out[path] = text
        return out

    def codec(self, a: Analysis | None = None) -> Codec:
        """Column conversion for the encoding agreed with the client; the open documents'
        texts (and the analysed one) are the lines it counts on."""
        texts = self.open_texts()
        if a is not None:
            texts[a.path] = a.text
        return Codec(self.workspace.position_encoding, texts)

    def publish(self, uri: str) -> None:
        doc = self.workspace.text_documents.get(unquote(uri))
        if doc is None:
            return
        try:
            a = self.analysis(uri)
        except Exception as exc:  # noqa: BLE001 - a check that fails must still answer the editor
            # a defect of tessera, not of the document: said so, where the editor shows it, instead of
            # silence (the editor would wait for diagnostics that never come)
            self.analyses.pop(uri, None)
            self.window_log_message(T.LogMessageParams(
                T.MessageType.Error, f"tessera lsp: checking {uri} failed: {type(exc).__name__}"))
            diags = [T.Diagnostic(T.Range(T.Position(0, 0), T.Position(0, 1)),
                                  f"tessera could not check this document (internal error {type(exc).__name__}); "
                                  "please report it with the document", severity=T.DiagnosticSeverity.Error,
                                  code="internal", source="tessera")]
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                              version=doc.version))
            return
        if a is None:
            diags = [T.Diagnostic(T.Range(T.Position(0, 0), T.Position(0, 1)),
                                  f"this document is larger than {MAX_RULE_FILE // (1 << 20)} MiB, the limit of a "
                                  "rule file (`tessera check` refuses it too), so it is not checked",
                                  severity=T.DiagnosticSeverity.Error, code="io", source="tessera")]
        else:
            c = self.codec(a)
            diags = [T.Diagnostic(range=c.range_out(a.path, span_range(d.span)), message=d.message,
                                  severity=SEVERITY.get(d.severity), code=d.code, source="tessera",
                                  related_information=[T.DiagnosticRelatedInformation(
                                      T.Location(navigate.uri_of(r.file), c.range_out(r.file, span_range(r))),
                                      "the same name here") for r in d.related] or None) for d in a.diagnostics]
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=doc.version))

    def lookup(self, a: Analysis, pos: T.Position) -> tuple[str | None, list[Decl]]:
        word = word_at(a.text, pos)
        decls = a.decls.get(word, []) if word else []
        o = occurrence_at(a.names(), pos)
        if o is not None and o.role != "name":  # the parser says what the word names (module and figure `abbot`, tile and place `C`)
            want = {"kind": "feature"}.get(o.role, o.role)
            decls = [d for d in decls if d.kind == want]
        else:
            modules = [d for d in decls if d.kind == "module"]
            if len(modules) < len(decls):
                decls = [d for d in decls if d.kind != "module"]
        return word, decls


def _too_big(text: str) -> bool:
    return len(text) > MAX_RULE_FILE or len(text.encode("utf-8", "surrogatepass")) > MAX_RULE_FILE


server = TesseraServer()
_REQUEST_FAILED = -32803  # LSP's RequestFailed: "the server cannot fulfil a correct request"


def _safe(default):
    """A handler that never fails a request: a bad position or an unexpected state answers `default`."""
    def wrap(fn):
        @functools.wraps(fn)
        def inner(ls, params):
            pos = getattr(params, "position", None)
            if pos is not None and (pos.line < 0 or pos.character < 0):
                return default
            try:
                return fn(ls, params)
            except Exception:  # noqa: BLE001 - an editor must get an answer, not a crashed request
                ls.window_log_message(T.LogMessageParams(T.MessageType.Error, f"tessera lsp: {fn.__name__} failed"))
                return default
        return inner
    return wrap


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: TesseraServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: TesseraServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: TesseraServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: TesseraServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.analyses.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _md(text: str) -> T.Hover:
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, text))


@server.feature(T.TEXT_DOCUMENT_HOVER)
@_safe(None)
def _hover(ls: TesseraServer, params: T.HoverParams) -> T.Hover | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    pos = ls.codec(a).pos_in(a.path, params.position)
    word, decls = ls.lookup(a, pos)
    if not word:
        return None
    if word in CLAUSES:
        return _md(f"**{word}**: {CLAUSES[word]}")
    o = occurrence_at(a.names(), pos)
    if decls:
        parts = []
        for d in decls:
            lines = [a.workspace.sources.line(d.span.file, n) or "" for n in range(d.span.line, max(d.span.line, d.span.end_line) + 1)]
            shown = "\n".join(lines[:8]) + ("\n..." if len(lines) > 8 else "")
            parts.append(f"{d.kind} `{d.name}`, {Path(d.span.file).name}:{d.span.line}\n```tessera\n{shown}\n```")
        return _md("\n\n".join(parts))
    if (o is None or o.role in ("quantity", "function", "name")) and word in langdoc.builtins() \
            and (word in QUANTITIES or word in FUNCTIONS):
        return _md(langdoc.builtins()[word])
    if (o is None or o.role in ("function", "name", "quantity")) and word in langdoc.card_names() \
            and "card" in a.declared():
        return _md(langdoc.card_names()[word])
    if o is not None and o.role == "place" and word in langdoc.places():
        return _md(langdoc.places()[word])
    if o is None and word in keywords():
        doc = langdoc.keyword(word, statement_head(a.text.split("\n"), pos.line), complete.family(a))
        return _md(doc) if doc else None
    return None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
@_safe(None)
def _definition(ls: TesseraServer, params: T.DefinitionParams) -> list[T.Location] | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    c = ls.codec(a)
    _, decls = ls.lookup(a, c.pos_in(a.path, params.position))
    return [T.Location(navigate.uri_of(d.span.file), c.range_out(d.span.file, name_range(d, a.workspace)))
            for d in decls] or None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
@_safe(None)
def _references(ls: TesseraServer, params: T.ReferenceParams) -> list[T.Location] | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    c = ls.codec(a)
    locs = navigate.references(a, c.pos_in(a.path, params.position), c.texts, params.context.include_declaration)
    return [T.Location(loc.uri, c.range_out(to_fs_path(loc.uri) or loc.uri, loc.range)) for loc in locs] or None


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
@_safe(None)
def _prepare_rename(ls: TesseraServer, params: T.PrepareRenameParams) -> T.Range | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    c = ls.codec(a)
    r = navigate.prepare_rename(a, c.pos_in(a.path, params.position))
    return c.range_out(a.path, r) if r is not None else None


@server.feature(T.TEXT_DOCUMENT_RENAME)
def _rename(ls: TesseraServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
    pos = params.position
    if pos.line < 0 or pos.character < 0:
        return None
    try:  # a bad new name, or a file a rename must not edit: an error the editor shows, no traceback
        a = ls.analysis(params.text_document.uri)
        if a is None:
            return None
        c = ls.codec(a)
        edit = navigate.rename(a, c.pos_in(a.path, pos), params.new_name, c.texts)
    except navigate.RenameRefused as exc:
        raise JsonRpcException(message=str(exc), code=_REQUEST_FAILED) from None
    except Exception as exc:  # noqa: BLE001 - tessera's own defect: a plain error, never a traceback
        ls.window_log_message(T.LogMessageParams(T.MessageType.Error, f"tessera lsp: rename failed: {type(exc).__name__}"))
        raise JsonRpcException(message=f"rename failed (internal error {type(exc).__name__}); please report it",
                               code=_REQUEST_FAILED) from None
    if edit is None:
        return None
    return T.WorkspaceEdit(changes={u: [T.TextEdit(c.range_out(to_fs_path(u) or u, e.range), e.new_text) for e in es]
                                    for u, es in (edit.changes or {}).items()})


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@_safe(None)
def _symbols(ls: TesseraServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol] | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    c = ls.codec(a)

    def conv(sym: T.DocumentSymbol) -> T.DocumentSymbol:
        sym.range = c.range_out(a.path, sym.range)
        sym.selection_range = c.range_out(a.path, sym.selection_range)
        for child in sym.children or ():
            conv(child)
        return sym

    return [conv(sym) for sym in outline.document_symbols(a)]


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, outline.LEGEND)
@_safe(T.SemanticTokens(data=[]))
def _semantic_tokens(ls: TesseraServer, params: T.SemanticTokensParams) -> T.SemanticTokens:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return T.SemanticTokens(data=[])
    c = ls.codec(a)
    return T.SemanticTokens(data=outline.semantic_tokens(a, lambda line, col: c.col_out(a.path, line, col)))


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
@_safe(None)
def _code_actions(ls: TesseraServer, params: T.CodeActionParams) -> list[T.CodeAction] | None:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return None
    c = ls.codec(a)
    uri = params.text_document.uri
    diags = [T.Diagnostic(c.range_in(a.path, d.range), d.message, severity=d.severity, code=d.code, source=d.source)
             for d in params.context.diagnostics]
    acts = actions.code_actions(a, uri, diags)
    back = {id(x): d for x, d in zip(diags, params.context.diagnostics)}  # the client's own, as it sent them
    for act in acts:
        act.diagnostics = [back.get(id(x), x) for x in act.diagnostics or ()]
        for u, edits in (act.edit.changes or {}).items():
            act.edit.changes[u] = [T.TextEdit(c.range_out(a.path, e.range), e.new_text) for e in edits]
    why = navigate.installed_reason(a.path) if acts else None
    if why is not None:  # as rename refuses: never an edit of tessera's installed rules
        cap = ls.client_capabilities.text_document
        if not (cap and cap.code_action and cap.code_action.disabled_support):
            return None
        return [T.CodeAction(act.title, kind=act.kind, diagnostics=act.diagnostics,
                             disabled=T.CodeActionDisabled(f"not offered: {why}")) for act in acts]
    return acts or None


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
@_safe(None)
def _formatting(ls: TesseraServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
    from ..dsl.fmt import comments, format_module
    from ..dsl.parser import ParseFailure, parse

    old = ls.text(params.text_document.uri)
    if old is None or navigate.installed_reason(to_fs_path(params.text_document.uri) or "") is not None:
        return None  # nor does formatting edit tessera's installed rules
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


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["[", " ", ",", "("]))
@_safe(T.CompletionList(is_incomplete=False, items=[]))
def _completion(ls: TesseraServer, params: T.CompletionParams) -> T.CompletionList:
    a = ls.analysis(params.text_document.uri)
    if a is None:
        return T.CompletionList(is_incomplete=False, items=[])
    c = ls.codec(a)
    items = complete.complete(a, a.text, c.pos_in(a.path, params.position))
    for it in items:
        if isinstance(it.text_edit, T.TextEdit):
            it.text_edit = T.TextEdit(c.range_out(a.path, it.text_edit.range), it.text_edit.new_text)
    return T.CompletionList(is_incomplete=False, items=items)


def main() -> None:
    server.start_io()
