"""editors/README.md's Neovim set-up, run by the Neovim installed (headless): the block for its
version opens a broken rule file, `tessera lsp` starts, and the diagnostic that comes back
underlines the misspelt word.  Skipped (saying so) where no Neovim is installed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lsp_client import TESSERA

pytestmark = pytest.mark.slow  # each test starts `tessera lsp` (or node, npm, Neovim) in a subprocess

README = Path(__file__).resolve().parent.parent / "editors" / "README.md"


def _blocks() -> dict[str, str]:
    """The README's Lua blocks by the version their first comment names (`0.7`, `0.8+`)."""
    out = {}
    for block in re.findall(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        m = re.match(r"-- Neovim (\d+\.\d+\+?)", block)
        assert m, block
        out[m.group(1)] = block
    return out


def _version() -> tuple[int, int]:
    out = subprocess.run(["nvim", "--version"], capture_output=True, text=True, timeout=30).stdout
    major, minor = re.match(r"NVIM v(\d+)\.(\d+)", out).groups()
    return int(major), int(minor)


def test_the_readme_has_a_block_for_neovim_0_7_and_0_8():
    assert set(_blocks()) == {"0.7", "0.8+"}


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (Debian 12: apt-get install neovim, 0.7.2)")
def test_neovim_gets_diagnostics_on_the_word(tmp_path):
    version = _version()
    blocks = _blocks()
    use = ["0.7"] + (["0.8+"] if version >= (0, 8) else [])
    text = 'module house "x"\nextends base\nfigure monk 1 per player on cloistr\n'
    (tmp_path / "house.tess").write_text(text, encoding="utf-8")
    env = dict(os.environ, PATH=f"{TESSERA.parent}{os.pathsep}{os.environ.get('PATH', '')}",
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    for key in use:
        init = tmp_path / f"init-{key}.lua"
        init.write_text(blocks[key], encoding="utf-8")
        out = tmp_path / f"out-{key}.txt"
        lua = ("lua vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100); "
               f"local f = io.open('{out}', 'w'); f:write(vim.bo.filetype .. '\\n'); "
               "for _, d in ipairs(vim.diagnostic.get(0)) do "
               "f:write(d.lnum .. ':' .. d.col .. ':' .. d.end_col .. ':' .. d.message .. '\\n') end; f:close()")
        proc = subprocess.run(["nvim", "--headless", "-u", str(init), "-c", lua, "-c", "qa!", "house.tess"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        filetype, *diags = out.read_text(encoding="utf-8").splitlines()
        assert filetype == "tessera", key
        assert len(diags) == 1, (key, diags)
        line, col, end, message = diags[0].split(":", 3)
        assert text.split("\n")[int(line)][int(col):int(end)] == "cloistr", (key, diags)
        assert "did you mean `cloister`?" in message
