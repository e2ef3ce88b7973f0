// The tessera extension: the language `tessera` for *.tess files (grammar, brackets, comments)
// and a language client that starts the tessera language server over stdio for every .tess file.
//
// Which server: `tessera.server.command` when the user set it; else the Python interpreter the
// Python extension (ms-python.python) has selected for the workspace, as `python -m tessera lsp`
// when tessera is installed in it; else `python.defaultInterpreterPath`, else a `.venv` in the
// workspace folder (the places the Python extension looks first); else `tessera` on the PATH.
// Bundled into dist/extension.js by esbuild (`npm run bundle`).
"use strict";
const vscode = require("vscode");
const path = require("path");
const fs = require("fs");
const { execFile } = require("child_process");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;
let output;

// whether `python -c "import tessera"` succeeds (tessera is installed in that interpreter)
function hasTessera(python) {
  return new Promise((resolve) => {
    // from a neutral folder: `-c` puts the current folder first on sys.path, and a tessera checkout there is not an install
    execFile(python, ["-c", "import tessera"], { timeout: 20000, cwd: require("os").tmpdir() }, (err) => resolve(!err));
  });
}

// the interpreter the Python extension has selected for this resource, or undefined
async function pythonFromPythonExtension(resource) {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    if (api && api.environments && api.environments.getActiveEnvironmentPath) {
      const env = api.environments.getActiveEnvironmentPath(resource);
      const resolved = env && api.environments.resolveEnvironment ? await api.environments.resolveEnvironment(env) : undefined;
      const exe = resolved && resolved.executable && resolved.executable.uri ? resolved.executable.uri.fsPath : env && env.path;
      if (exe) return exe;
    }
    if (api && api.settings && api.settings.getExecutionDetails) {  // older releases of the Python extension
      const details = api.settings.getExecutionDetails(resource);
      if (details && details.execCommand && details.execCommand[0]) return details.execCommand[0];
    }
  } catch (e) {
    log(`the Python extension did not name an interpreter: ${e}`);
  }
  return undefined;
}

function workspaceVenvs() {
  const out = [];
  for (const folder of vscode.workspace.workspaceFolders || []) {
    for (const venv of [".venv", "venv"]) {
      const exe = process.platform === "win32"
        ? path.join(folder.uri.fsPath, venv, "Scripts", "python.exe")
        : path.join(folder.uri.fsPath, venv, "bin", "python");
      if (fs.existsSync(exe)) out.push(exe);
    }
  }
  return out;
}

function log(line) {
  if (output) output.appendLine(line);
}

// {command, args} of the server to start (see the head of this file)
async function findServer(config) {
  const inspected = config.inspect ? config.inspect("server.command") : undefined;
  const userSet = inspected && (inspected.globalValue !== undefined || inspected.workspaceValue !== undefined
                                || inspected.workspaceFolderValue !== undefined);
  const args = config.get("server.args", ["lsp"]);
  if (userSet) return { command: config.get("server.command", "tessera"), args, how: "tessera.server.command" };
  const resource = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0]
    ? vscode.workspace.workspaceFolders[0].uri : undefined;
  const candidates = [];
  const fromExt = await pythonFromPythonExtension(resource);
  if (fromExt) candidates.push([fromExt, "the Python extension's interpreter"]);
  const configured = vscode.workspace.getConfiguration("python", resource).get("defaultInterpreterPath");
  if (configured && configured !== "python") candidates.push([configured, "python.defaultInterpreterPath"]);
  for (const venv of workspaceVenvs()) candidates.push([venv, "the workspace's virtual environment"]);
  for (const [python, how] of candidates) {
    if (await hasTessera(python)) return { command: python, args: ["-m", "tessera", ...args], how };
    log(`${python} (${how}) has no tessera installed`);
  }
  return { command: config.get("server.command", "tessera"), args, how: "tessera on the PATH" };
}

async function serverOptions(config) {
  const server = await findServer(config);
  log(`starting ${server.command} ${server.args.join(" ")} (${server.how})`);
  return { command: server.command, args: server.args, transport: TransportKind.stdio };
}

function clientOptions() {
  return {
    documentSelector: [
      { scheme: "file", language: "tessera" },
      { scheme: "untitled", language: "tessera" },
    ],
    outputChannel: output,
  };
}

async function start() {
  const config = vscode.workspace.getConfiguration("tessera");
  // the client id "tessera" makes vscode-languageclient read the `tessera.trace.server` setting
  client = new LanguageClient("tessera", "tessera rule files", await serverOptions(config), clientOptions());
  await client.start();
}

async function restart() {
  if (client) {
    const old = client;
    client = undefined;
    await old.stop();
  }
  await start();
}

async function activate(context) {
  output = vscode.window.createOutputChannel("tessera");
  context.subscriptions.push(output);
  context.subscriptions.push(vscode.commands.registerCommand("tessera.restartServer", restart));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration("tessera.server")) restart();
  }));
  context.subscriptions.push({ dispose: () => (client ? client.stop() : undefined) });
  await start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, clientOptions, findServer, restart };
