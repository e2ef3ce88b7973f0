"""Raw JSON-RPC to `tessera lsp` (for what a typed client refuses to send, e.g. a negative position)."""
from __future__ import annotations

import json
import subprocess


class Raw:
    def __init__(self, cmd: list[str]):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/")
        self.n = 0

    def send(self, method: str, params, request: bool = True) -> int | None:
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.n += 1
            msg["id"] = self.n
        body = json.dumps(msg).encode("utf-8")
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()
        return msg.get("id")

    def read(self) -> dict:
        length = 0
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def answer(self, id_: int) -> dict:
        while True:
            msg = self.read()
            if msg.get("id") == id_ and "method" not in msg:
                return msg

    def close(self) -> int:
        i = self.send("shutdown", None)
        self.answer(i)
        self.send("exit", None, request=False)
        self.p.stdin.close()
        return self.p.wait(timeout=30)
