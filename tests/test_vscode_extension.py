"""The VS Code extension (editors/vscode): its client code starts `tessera lsp` for `.tess`
documents, the server it starts answers that client's first messages, and `npm run package`
builds the .vsix with the language client inside.

Needs Node and npm (CI has Node 20; the build installs the packages of package-lock.json from
the npm registry); without them the tests are skipped and say why."""
from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from lsprotocol import types as T

from lsp_client import TESSERA, run, session

pytestmark = pytest.mark.slow  # each test starts `tessera lsp` (or node, npm, Neovim) in a subprocess

EXT = Path(__file__).resolve().parent.parent / "editors" / "vscode"

# Loads extension.js with the `vscode` API and vscode-languageclient stubbed (neither exists
# outside VS Code), calls activate() and prints what the LanguageClient was given.
STUB = r"""
const Module = require("module");
const seen = {};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") {
    return { workspace: { getConfiguration: (section) => { seen.section = section; return { get: (k, d) => d }; } } };
  }
  if (request === "vscode-languageclient/node") {
    return {
      TransportKind: { stdio: 0, ipc: 1 },
      LanguageClient: class {
        constructor(id, name, serverOptions, clientOptions) { Object.assign(seen, { id, name, serverOptions, clientOptions }); }
        start() { seen.started = true; return Promise.resolve(); }
        stop() { seen.stopped = true; return Promise.resolve(); }
      },
    };
  }
  return load.apply(this, arguments);
};
const ext = require(process.argv[1]);
const context = { subscriptions: [] };
ext.activate(context);
context.subscriptions.forEach((d) => d.dispose());
console.log(JSON.stringify(seen));
"""


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"`{tool}` is not installed (CI has Node 20 and npm)")


def test_the_extension_starts_tessera_lsp_for_tess_files(tmp_path):
    _need("node")
    out = subprocess.run(["node", "-e", STUB, str(EXT / "extension.js")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    manifest = json.loads((EXT / "package.json").read_text(encoding="utf-8"))
    assert manifest["main"] == "./extension.js" and "vscode-languageclient" in manifest["dependencies"]
    assert "onLanguage:tessera" in manifest["activationEvents"]
    assert seen["section"] == "tessera" and seen["started"] and seen["stopped"]
    server = seen["serverOptions"]
    assert (server["command"], server["args"], server["transport"]) == ("tessera", ["lsp"], 0)  # stdio
    assert {"scheme": "file", "language": "tessera"} in seen["clientOptions"]["documentSelector"]
    props = manifest["contributes"]["configuration"]["properties"]
    assert props["tessera.server.command"]["default"] == "tessera" and props["tessera.server.args"]["default"] == ["lsp"]

    # that command line (the installed `tessera`), as the client drives it: initialize, a .tess opened
    path = tmp_path / "house.tess"
    text = 'module house "x"\nextends base\nfigure monk 1 per player on cloistr\n'

    async def script(s):
        return s.server_capabilities, await s.open(path, text)

    caps, diags = run(session(script, [str(TESSERA.with_name(server["command"])), *server["args"]]))
    assert caps.completion_provider and caps.hover_provider and caps.rename_provider and caps.code_action_provider
    (d,) = diags
    assert text.split("\n")[2][d.range.start.character:d.range.end.character] == "cloistr"


def test_the_vsix_builds(tmp_path):
    _need("node", "npm")
    work = tmp_path / "vscode"
    shutil.copytree(EXT, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    for cmd in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "package"]):
        out = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, f"{' '.join(cmd)}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    with zipfile.ZipFile(work / "tessera-rules.vsix") as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    assert {"extension/extension.js", "extension/syntaxes/tessera.tmLanguage.json",
            "extension/language-configuration.json", "extension/node_modules/vscode-languageclient/package.json"} <= names
    assert manifest["main"] == "./extension.js"
    assert not any(n.startswith("extension/node_modules/@vscode/vsce/") for n in names)  # the build tool stays out
