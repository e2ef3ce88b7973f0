"""A hostile word in a rule file never stops the checker or leaves the editor waiting (issue 38,
round 5: the LSP fuzz's seed 2).  A line of 300 letters was looked up as a bundled module by making
it a file name (`rules/xxx...x.tess`): the system refuses such a name (ENAMETOOLONG), the OSError
was a traceback from `tessera check`, and in the editor the document's diagnostics never came, so
the editor waited for ever.  Now a word is looked up in the bundled folder's listing, and a check
that fails for any reason still answers the editor with a diagnostic that says so."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsprotocol import types as T
from pygls.workspace import Workspace

from tessera.dsl.parser import ParseFailure, parse
from tessera.lsp import TesseraServer, analysis as lsp_analysis
from tessera.lsp.analysis import Analysis

LONG = "module m\n" + "x" * 300 + "\n"  # the shape seed 2 opened with: a module line, then a 300-letter word


def test_a_word_too_long_for_a_file_name_is_a_syntax_error_not_an_oserror():
    try:
        parse(LONG, "house.tess")
    except ParseFailure as fail:
        assert [d.code for d in fail.diagnostics] == ["syntax"]
        assert (fail.diagnostics[0].span.line, fail.diagnostics[0].span.column) == (2, 1)
    else:
        raise AssertionError("a 300-letter word alone is not a statement")


def test_the_editors_check_of_it_answers_with_the_syntax_error():
    a = Analysis(LONG, "/nowhere/house.tess")  # the blanked re-parse the editor does was where it failed
    assert [(d.code, d.span.line) for d in a.diagnostics] == [("syntax", 2)]


def test_check_reports_it_as_a_problem_found(tmp_path):
    f = tmp_path / "long.tess"
    f.write_text(LONG, encoding="utf-8")
    got = subprocess.run([sys.executable, "-m", "tessera", "check", str(f)], capture_output=True, text=True,
                         timeout=120)
    assert got.returncode == 1, got.stderr[-2000:]
    assert "long.tess:2:1: error: unexpected `xxx" in got.stdout + got.stderr
    assert "Traceback" not in got.stdout + got.stderr


class _Server(TesseraServer):
    """The real server's handlers, without a client: what it publishes is kept."""

    def __init__(self, ws: Workspace):
        super().__init__()
        self._ws = ws
        self.sent: list[T.PublishDiagnosticsParams] = []
        self.logged: list[str] = []

    @property
    def workspace(self):
        return self._ws

    def text_document_publish_diagnostics(self, params):
        self.sent.append(params)

    def window_log_message(self, params):
        self.logged.append(params.message)


def test_a_check_that_fails_still_answers_the_editor(monkeypatch):
    """Whatever tessera's own defect, the editor gets the document's diagnostics (one saying the
    check failed), never silence."""
    ws = Workspace(None)
    uri = "file:///nowhere/house.tess"
    ws.put_text_document(T.TextDocumentItem(uri=uri, language_id="tessera", version=7, text="module m\n"))
    server = _Server(ws)

    def broken(*_a, **_k):
        raise OSError(36, "File name too long")

    monkeypatch.setattr("tessera.lsp.Analysis", broken)
    server.publish(uri)
    assert len(server.sent) == 1 and server.sent[0].version == 7
    [d] = server.sent[0].diagnostics
    assert d.code == "internal" and "could not check this document" in d.message and "OSError" in d.message
    assert "Traceback" not in d.message and server.logged
    monkeypatch.setattr("tessera.lsp.Analysis", lsp_analysis.Analysis)
    server.publish(uri)  # the defect gone, the same document is checked (no failed analysis was kept)
    assert server.sent[-1].diagnostics == []


def test_the_editors_recovery_reads_one_error_per_try_not_every_error(monkeypatch):
    """While a document does not parse, the editor blanks its broken statements to find the names
    (`_parsable`, up to 12 tries a keystroke).  Each try needs the first error's line only; it
    worked out every error (up to 50, each matched against the grammar's examples), so a hostile
    document of 80 stray lines cost about 700 diagnostics and a second of CPU per keystroke (the
    LSP fuzz, seed 4)."""
    from tessera.dsl import parser, syntax_errors

    made = []
    real = syntax_errors._syntax_diag
    for module in (parser, syntax_errors):  # the parser's recovery and the editor's first look
        monkeypatch.setattr(module, "_syntax_diag", lambda *a: made.append(1) or real(*a))
    text = 'module house "x"\nextends base\n' + "module m\n" * 80 + "tile T x1 [BASE-COMP-1] {\n  edges F F F F\n"
    lsp_analysis._parsable(text)
    assert 0 < len(made) <= 13, len(made)  # two a try (6 tries) and a last look
