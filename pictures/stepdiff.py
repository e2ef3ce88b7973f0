"""A page's step pictures stored as differences, so the page grows with the moves, not with
moves x table (issue 38: a 2,000-card game's viewer page was 393 MB, every step a whole table).

`step_pictures(svgs)` gives the HTML for a viewer's `#table`: one `<div class="step">` per step
as before (the page's own script shows one and hides the others by the `hidden` class), but
only the first holds its picture.  The others are kept in a JSON block as the lines that change
from the step before (a whole picture every CHECKPOINT steps, so showing any step applies at
most CHECKPOINT - 1 differences), and a small script puts a step's picture into its div when the
div is shown and empties it when hidden: the DOM holds one table at a time.

The pictures are drawsvg's SVG, every attribute escaped (pictures/__init__.py); the JSON block
escapes `<`, `>` and `&`, so no text of a record can end it.
"""
from __future__ import annotations

import difflib
import json
from typing import Iterable

CHECKPOINT = 200

JS = """
(function(){
  const data = JSON.parse(document.getElementById('step-pictures').textContent);
  const cp = data.checkpoint, steps = data.steps;
  const divs = Array.from(document.querySelectorAll('#table .step'));
  let last = null;  // {k, lines}: stepping forward applies one difference
  function apply(lines, ops){
    const out = []; let pos = 0;
    for (const [i1, i2, ins] of ops){
      for (let j = pos; j < i1; j++) out.push(lines[j]);
      for (const l of ins) out.push(l);
      pos = i2;
    }
    for (let j = pos; j < lines.length; j++) out.push(lines[j]);
    return out;
  }
  function lines(k){
    let start = k - k % cp, cur = steps[start].whole;
    if (last && last.k < k && last.k >= start) { start = last.k; cur = last.lines; }
    for (let j = start + 1; j <= k; j++) cur = apply(cur, steps[j].ops);
    last = {k: k, lines: cur};
    return cur;
  }
  function fill(d){
    const k = Number(d.dataset.step);
    if (d.classList.contains('hidden')) { d.textContent = ''; }
    else if (!d.firstElementChild) { d.innerHTML = lines(k).join('\\n'); }
  }
  const seen = new MutationObserver((ms) => { for (const m of ms) fill(m.target); });
  divs.forEach((d) => { seen.observe(d, {attributes: true, attributeFilter: ['class']}); });
  divs.forEach(fill);
})();
"""


def _ops(a: list[str], b: list[str]) -> list:
    """The changes that make lines `b` of lines `a`: [start, end, new lines] in `a`'s order."""
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [[i1, i2, b[j1:j2]] for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def step_pictures(svgs: Iterable[str]) -> str:
    """The `#table` HTML of a viewer: a div per step, the first with its picture, the others'
    pictures as differences (see the module's docstring)."""
    divs, steps, prev = [], [], None
    for i, svg in enumerate(svgs):
        cur = svg.split("\n")
        steps.append({"whole": cur} if i % CHECKPOINT == 0 else {"ops": _ops(prev, cur)})
        divs.append(f'<div class="step{" hidden" if i else ""}" data-step="{i}">{svg if i == 0 else ""}</div>')
        prev = cur
    payload = json.dumps({"checkpoint": CHECKPOINT, "steps": steps}, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return ("\n".join(divs) + f'\n<script type="application/json" id="step-pictures">{payload}</script>'
            f"<script>{JS}</script>")
