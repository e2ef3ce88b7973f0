// The tessera extension: the language `tessera` for *.tess files (grammar, brackets, comments)
// and a language client that starts `tessera lsp` over stdio for every .tess file opened.
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions(config) {
  const command = config.get("server.command", "tessera");
  const args = config.get("server.args", ["lsp"]);
  return { command, args, transport: TransportKind.stdio };
}

function clientOptions() {
  return {
    documentSelector: [
      { scheme: "file", language: "tessera" },
      { scheme: "untitled", language: "tessera" },
    ],
  };
}

function activate(context) {
  const config = vscode.workspace.getConfiguration("tessera");
  client = new LanguageClient("tessera", "tessera rule files", serverOptions(config), clientOptions());
  context.subscriptions.push({ dispose: () => (client ? client.stop() : undefined) });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, clientOptions };
