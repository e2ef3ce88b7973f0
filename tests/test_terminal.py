"""Every `tessera` command as a person runs it: in a terminal (a pseudo-terminal, pexpect) and piped.

In a terminal rich draws: colours, progress bars (which hide the cursor while they draw), tables
fitted to the terminal's width.  Piped, the same command prints plain text.  No CliRunner here: it
runs neither a terminal nor a real process, which is how `tessera simulate` crashed in every
terminal (a console proxy that `rich.Progress` could not use) while the suite stayed green.

What each test holds, in a terminal: the command's exit code, no traceback and no internal error,
and the cursor shown again after it was hidden; piped: no escape sequence at all.  Ctrl-C in the
middle of `simulate` exits 130 with the summary of the games finished; a narrow terminal (40
columns) gets no line wider than itself; `--help` shows `[…]` as written (rich markup would eat it).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tty
from pathlib import Path

import pexpect
import pytest

ROOT = Path(__file__).resolve().parent.parent
TESSERA = str(Path(sys.executable).with_name("tessera"))
RECORD = ROOT / "rules" / "records" / "base" / "city_3_tiles_1_shield.json"
HIDE, SHOW = b"\x1b[?25l", b"\x1b[?25h"
ESC = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "TERM", "CI", "FORCE_COLOR")}
    env.update(TERM="xterm-256color", **extra)
    return env


def in_terminal(args: list[str], cwd: Path, width: int = 100, timeout: float = 120) -> tuple[int, bytes]:
    """Run `tessera ARGS` in a pseudo-terminal `width` columns wide: (exit code, all it wrote)."""
    child = pexpect.spawn(TESSERA, args, cwd=str(cwd), env=_env(), dimensions=(40, width), timeout=timeout)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


def piped(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([TESSERA, *args], cwd=cwd, env=_env(), capture_output=True, timeout=timeout)


def visible(raw: bytes) -> str:
    """What a person sees: the escape sequences taken out, carriage returns as line ends."""
    return ESC.sub(b"", raw).replace(b"\r\n", b"\n").decode("utf-8", "replace")


def assert_sane(code: int, raw: bytes, want: int) -> None:
    text = visible(raw)
    assert code == want, text[-3000:]
    assert "Traceback" not in text and "internal error" not in text, text[-3000:]
    if HIDE in raw:  # a progress bar hid the cursor: it is shown again before the command ends
        assert raw.rindex(SHOW) > raw.rindex(HIDE), text[-2000:]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("terminal")
    (d / "broken.tess").write_text('module broken "x"\nextends base\ntile Q x2 city(N) roadd(S)\n', encoding="utf-8")
    return d


# each command once: its arguments, its exit code, a piece of what it prints (in the terminal and piped)
COMMANDS = {
    "version": (["--version"], 0, "tessera 0.1.0"),
    "check": (["check", str(ROOT / "rules" / "abbot.tess")], 0, "no issues found"),
    "check-errors": (["check", "broken.tess"], 1, "broken.tess:3"),
    "check-json": (["check", "--json", str(ROOT / "rules" / "abbot.tess")], 0, '"files"'),
    "fmt": (["fmt", str(ROOT / "rules" / "abbot.tess")], 0, "module abbot"),
    "compile": (["compile", "base", "-o", "out"], 0, "wrote out"),
    "replay": (["replay", str(RECORD)], 0, "winners:"),
    "simulate": (["simulate", "--games", "30", "--jobs", "1"], 0, "30 games, 2 players"),
    "draw": (["draw", "base", "-o", "tiles.svg"], 0, "wrote tiles.svg"),
    "view": (["view", str(RECORD), "-o", "game.html"], 0, "wrote game.html"),
    "verify": (["verify", "base", "--no-engine", "--only", "tile-"], 0, "checks passed"),
    "verify-json": (["verify", "base", "--no-engine", "--only", "tile-", "--json"], 0, '"verdict"'),
    "help": (["simulate", "--help"], 0, "--games"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_in_a_terminal_and_piped(name, work):
    args, want, says = COMMANDS[name]
    code, raw = in_terminal(args, work)
    assert_sane(code, raw, want)
    assert says in visible(raw)
    p = piped(args, work)
    text = (p.stdout + p.stderr).decode("utf-8", "replace")
    assert p.returncode == want, text[-3000:]
    assert says in text and "Traceback" not in text
    assert b"\x1b" not in p.stdout + p.stderr, text[-2000:]  # piped: plain text, no colour, no bar


@pytest.mark.slow
def test_terminal_gets_colours_and_a_progress_bar(work):
    """In a terminal `verify` marks passed checks in green and `simulate` draws a bar (on stderr) that
    it clears again; the cursor it hides comes back."""
    code, raw = in_terminal(["verify", "base", "--no-engine", "--only", "tile-"], work)
    assert_sane(code, raw, 0)
    assert re.search(rb"\x1b\[[0-9;]*32m", raw), "no green in a terminal"
    code, raw = in_terminal(["simulate", "--games", "300", "--jobs", "1"], work)
    assert_sane(code, raw, 0)
    assert HIDE in raw and b"simulating base" in raw and re.search(rb"\d+/300", raw)


@pytest.mark.slow
def test_ctrl_c_in_a_terminal(work):
    """Ctrl-C while `simulate` plays: exit 130, `interrupted`, the summary of the games finished, the
    cursor shown again."""
    child = pexpect.spawn(TESSERA, ["simulate", "--games", "1000000", "--jobs", "1"], cwd=str(work), env=_env(),
                          dimensions=(40, 100), timeout=120)
    child.expect(rb"simulating base.*?(\d+)/1000000")
    child.expect(rb"[1-9]\d*/1000000")  # some games done
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    raw = child.before
    assert_sane(child.exitstatus, raw, 130)
    text = visible(raw)
    assert "interrupted; the summary is of the" in text and "mean score" in text


@pytest.mark.slow
def test_narrow_terminal(work):
    """40 columns: rich fits every table, panel and progress bar to the width (plain text lines are
    left to the terminal to wrap)."""
    for args in (["simulate", "--games", "20", "--jobs", "1"], ["simulate", "--help"],
                 ["verify", "base", "base+river", "--no-engine", "--only", "tile-"]):
        code, raw = in_terminal(args, work, width=40)
        assert_sane(code, raw, 0)
        lines = re.split(r"[\r\n]+", ESC.sub(b"", raw).decode("utf-8", "replace"))
        drawn = [ln for ln in lines if re.search("[─│━┃╭╮╰╯┏┓┗┛]", ln)]
        assert drawn, args
        wide = [ln for ln in drawn if len(ln.rstrip()) > 40]
        assert not wide, wide[:5]


@pytest.mark.slow
def test_help_shows_brackets_as_written(work):
    """rich markup would take `[cluster]` and `[default: …]` for tags and drop them."""
    code, raw = in_terminal(["simulate", "--help"], work, width=200)
    assert_sane(code, raw, 0)
    text = " ".join(visible(raw).replace("│", " ").split())  # a help line may go on inside the panel
    assert "'tessera-rules[cluster]'" in text
    assert "[default: the idle cores, 1 below 500 games]" in text and "[default: random]" in text


def _lsp_message(child) -> dict:
    child.expect(rb"Content-Length: (\d+)\r\n(?:[^\r\n]+\r\n)*\r\n")
    n = int(child.match.group(1))
    data = child.buffer  # what pexpect read past the headers
    while len(data) < n:
        data += child.read_nonblocking(n - len(data), timeout=60)
    child.buffer = data[n:]
    return json.loads(data[:n])


def _lsp_send(child, msg: dict) -> None:
    body = json.dumps(msg).encode("utf-8")
    child.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)


@pytest.mark.slow
def test_language_server_starts_in_a_terminal(work):
    """`tessera lsp` started from a terminal (the bytes raw, as an editor's pipe carries them): it answers
    `initialize` with its capabilities and ends on `shutdown` and `exit` with code 0."""
    child = pexpect.spawn(TESSERA, ["lsp"], cwd=str(work), env=_env(), dimensions=(40, 100), timeout=60)
    tty.setraw(child.child_fd)  # no echo, no \r -> \n: the protocol's bytes as they are
    _lsp_send(child, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    answer = _lsp_message(child)
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "tessera"
    assert "hoverProvider" in answer["result"]["capabilities"]
    _lsp_send(child, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    assert _lsp_message(child)["id"] == 2
    _lsp_send(child, {"jsonrpc": "2.0", "method": "exit"})
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
@pytest.mark.parametrize("args", [["check", str(ROOT / "rules")], ["fmt", str(ROOT / "rules" / "base.tess")],
                                  ["verify", "base", "--no-engine", "--only", "tile-"], ["simulate", "--help"]])
def test_closed_pipe_is_quiet(args, work):
    """`tessera … | head`: the reader goes away; the command stops without a traceback (exit 141, as a
    shell reports a writer that met a closed pipe)."""
    p = subprocess.Popen([TESSERA, *args], cwd=work, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader is gone before the first line
    err = p.stderr.read().decode("utf-8", "replace")
    assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err, err


def readme_main_job() -> list[list[str]]:
    """The `tessera` commands of the README's first command line (the main job), in order."""
    import shlex

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text.split("```bash\n", 1)[1].split("\n", 1)[0]
    steps = [shlex.split(part.strip()) for part in first.split("&&")]
    return [s[1:] for s in steps if s and s[0].endswith("/tessera")]


def test_the_readme_main_job_is_what_the_terminal_test_runs():
    job = readme_main_job()
    assert [s[0] for s in job] == ["check", "verify", "compile", "simulate", "draw", "simulate", "view", "compile",
                                   "simulate"], job


@pytest.mark.slow
def test_the_readme_main_job_in_a_terminal(tmp_path):
    """The README's main job, command by command as written, in an 80-column terminal from a fresh folder
    (the bundled rules copied there, as the README runs it from the checkout): every command exits 0
    with no traceback and its cursor back, and all of it prints under 120 lines."""
    import shutil

    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    lines = 0
    for args in readme_main_job():
        code, raw = in_terminal(args, tmp_path, width=80, timeout=900)
        assert_sane(code, raw, 0)
        shown = [ln for ln in visible(raw).split("\n") if ln.strip()]
        lines += len(shown)
    assert lines < 120, lines
    assert (tmp_path / "out" / "game.html").is_file() and (tmp_path / "out" / "simulate.svg").is_file()


def test_default_jobs_counts_the_idle_cores():
    """`simulate` without --jobs: as many workers as cores idle now, one for a short run (a worker's
    start-up costs more than it saves) or on a machine whose cores are taken."""
    from tessera.engine_cmds import PARALLEL_FROM, _default_jobs

    assert _default_jobs(PARALLEL_FROM - 1, 8, load=0.0) == 1
    assert _default_jobs(10_000, 2, load=1.0) == 2  # idle but for this process
    assert _default_jobs(10_000, 2, load=2.2) == 1  # another process holds a core
    assert _default_jobs(10_000, 2, load=28.0) == 1
    assert _default_jobs(10_000, 8, load=4.0) == 5
    assert _default_jobs(10_000, 1, load=0.0) == 1
