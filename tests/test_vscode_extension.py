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

# Loads src/extension.js with the `vscode` API and vscode-languageclient stubbed (neither exists
# outside VS Code), calls activate() and prints what the LanguageClient was given.  argv: the
# extension, then (optional) the interpreter the stubbed Python extension names, then (optional)
# "restart" to run the restart command once after activation.
STUB = r"""
const Module = require("module");
const seen = { clients: [], commands: [] };
const load = Module._load;
const [extPath, python, action] = process.argv.slice(1);
Module._load = function (request, parent, isMain) {
  if (request === "vscode") {
    return {
      workspace: {
        getConfiguration: (section) => { (seen.sections = seen.sections || []).push(section);
          return { get: (k, d) => d, inspect: (k) => ({}) }; },
        onDidChangeConfiguration: () => ({ dispose() {} }),
        workspaceFolders: undefined,
      },
      window: { createOutputChannel: () => ({ appendLine: (l) => (seen.log = (seen.log || []).concat([l])), dispose() {} }) },
      commands: { registerCommand: (name, fn) => { seen.commands.push(name); seen[name] = fn; return { dispose() {} }; } },
      extensions: { getExtension: (id) => (id === "ms-python.python" && python ? { isActive: true, exports: {
        environments: { getActiveEnvironmentPath: () => ({ path: python }) } } } : undefined) },
    };
  }
  if (request === "vscode-languageclient/node") {
    return {
      TransportKind: { stdio: 0, ipc: 1 },
      LanguageClient: class {
        constructor(id, name, serverOptions, clientOptions) {
          this.n = seen.clients.length;
          seen.clients.push({ id, name, serverOptions, documentSelector: clientOptions.documentSelector });
        }
        start() { seen.clients[this.n].started = true; return Promise.resolve(); }
        stop() { seen.clients[this.n].stopped = true; return Promise.resolve(); }
      },
    };
  }
  return load.apply(this, arguments);
};
(async () => {
  const ext = require(extPath);
  const context = { subscriptions: [] };
  await ext.activate(context);
  if (action === "restart") await seen["tessera.restartServer"]();
  for (const d of context.subscriptions) await d.dispose();
  delete seen["tessera.restartServer"];
  console.log(JSON.stringify(seen));
})();
"""


def _activate(*argv: str) -> dict:
    out = subprocess.run(["node", "-e", STUB, str(EXT / "src" / "extension.js"), *argv],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"`{tool}` is not installed (CI has Node 20 and npm)")


def test_the_extension_starts_tessera_lsp_for_tess_files(tmp_path):
    _need("node")
    seen = _activate()  # no Python extension, no setting: `tessera` on the PATH
    manifest = json.loads((EXT / "package.json").read_text(encoding="utf-8"))
    assert manifest["main"] == "./dist/extension.js" and "vscode-languageclient" in manifest["devDependencies"]
    assert "onLanguage:tessera" in manifest["activationEvents"]
    (client,) = seen["clients"]
    assert client["id"] == "tessera" and client["started"] and client["stopped"]
    server = client["serverOptions"]
    assert (server["command"], server["args"], server["transport"]) == ("tessera", ["lsp"], 0)  # stdio
    assert {"scheme": "file", "language": "tessera"} in client["documentSelector"]
    props = manifest["contributes"]["configuration"]["properties"]
    assert props["tessera.server.command"]["default"] == "tessera" and props["tessera.server.args"]["default"] == ["lsp"]
    # the trace setting vscode-languageclient reads for the client id "tessera", and the restart command
    assert props["tessera.trace.server"]["enum"] == ["off", "messages", "verbose"]
    assert {"command": "tessera.restartServer", "title": "Restart the language server", "category": "tessera"} \
        in manifest["contributes"]["commands"]
    assert seen["commands"] == ["tessera.restartServer"]
    assert manifest["license"] == "MIT" and (EXT / "LICENSE").read_text().startswith("MIT License")
    # the project has no public repository yet: no address is made up, and `npm run package` says so to vsce
    assert "repository" not in manifest and "--allow-missing-repository" in manifest["scripts"]["package"]

    # that command line (the installed `tessera`), as the client drives it: initialize, a .tess opened
    path = tmp_path / "house.tess"
    text = 'module house "x"\nextends base\nfigure monk 1 per player on cloistr\n'

    async def script(s):
        return s.server_capabilities, await s.open(path, text)

    caps, diags = run(session(script, [str(TESSERA.with_name(server["command"])), *server["args"]]))
    assert caps.completion_provider and caps.hover_provider and caps.rename_provider and caps.code_action_provider
    (d,) = diags
    assert text.split("\n")[2][d.range.start.character:d.range.end.character] == "cloistr"


def test_the_python_extensions_interpreter_serves_when_tessera_is_installed_in_it(tmp_path):
    _need("node")
    python = str(TESSERA.with_name("python"))  # this venv's interpreter: tessera is installed in it
    (client,) = _activate(python)["clients"]
    assert (client["serverOptions"]["command"], client["serverOptions"]["args"]) == (python, ["-m", "tessera", "lsp"])
    # an interpreter without tessera: the extension says so in its output and falls back to the PATH
    subprocess.run([str(TESSERA.with_name("python")), "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    other = str(tmp_path / "bare" / "bin" / "python")
    seen = _activate(other)
    assert seen["clients"][0]["serverOptions"]["command"] == "tessera"
    assert any("has no tessera installed" in line for line in seen["log"])


def test_python_m_tessera_lsp_answers_as_the_extension_starts_it(tmp_path):
    path = tmp_path / "house.tess"
    text = 'module house "x"\nextends base\nfigure monk 1 per player on cloistr\n'

    async def script(s):
        return await s.open(path, text)

    (d,) = run(session(script, [str(TESSERA.with_name("python")), "-m", "tessera", "lsp"]))
    assert text.split("\n")[2][d.range.start.character:d.range.end.character] == "cloistr"


def test_the_restart_command_stops_the_server_and_starts_it_again():
    _need("node")
    first, second = _activate("", "restart")["clients"]
    assert first["started"] and first["stopped"] and second["started"]
    assert first["serverOptions"] == second["serverOptions"]


def test_the_vsix_builds(tmp_path):
    _need("node", "npm")
    work = tmp_path / "vscode"
    shutil.copytree(EXT, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    for cmd in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "package"]):
        out = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, f"{' '.join(cmd)}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    # vsce's warnings are not hidden (no --skip-license; --allow-missing-repository states that there is no public
    # repository yet, see the manifest test) and there are none
    assert "WARNING" not in out.stdout + out.stderr, out.stdout + out.stderr
    with zipfile.ZipFile(work / "tessera-rules.vsix") as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        bundle = z.read("extension/dist/extension.js").decode("utf-8")
    # bundled by esbuild: the language client is inside dist/extension.js, no node_modules ship
    assert {"extension/dist/extension.js", "extension/syntaxes/tessera.tmLanguage.json", "extension/LICENSE.txt",
            "extension/language-configuration.json", "extension/package.json"} <= names
    assert len(names) <= 10 and not any("/node_modules/" in n or "/src/" in n for n in names), sorted(names)
    assert manifest["main"] == "./dist/extension.js" and "tessera.restartServer" in bundle
    assert 'require("vscode")' in bundle and "vscode-languageclient" not in [n.split("/")[2] for n in names if n.count("/") > 2]
