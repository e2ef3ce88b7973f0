"""`tessera view`: one self-contained HTML page that steps through a game record.

No server and no network: the board (one SVG holding every step, each element
tagged with the steps it shows in), the tiles drawn, the step data (JSON) and
the script are all inline.  Buttons and the arrow keys (Home/End too) step
through the game; each step shows the board, the tile drawn, the scores and
every event with the clause that caused it.
"""
from __future__ import annotations

import html
import json

from .board import Timeline, board_drawing, player_colours
from .sheet import drawn_features
from .tile import Style, draw_tile
import drawsvg as dw

# The frame both step-through pages share (this game viewer and pictures/cards.py's card game
# viewer): the header bar and the picture beside a side panel; the panel's step buttons and label.
FRAME_CSS = """
body{font-family:system-ui,sans-serif;margin:0;background:#f3efe6;color:#222}
header{padding:8px 16px;background:#4e342e;color:#fff}
header h1{font-size:18px;margin:0}
main{display:flex;gap:16px;padding:12px 16px;align-items:flex-start}
"""
PANEL_CSS = """aside{width:340px;flex:none}
.controls{display:flex;gap:6px;align-items:center;margin-bottom:8px}
.controls button{font-size:16px;padding:4px 10px;cursor:pointer}
#step-label{font-size:14px;margin:6px 0 10px;min-height:2.6em}
"""

CSS = FRAME_CSS + """#board{flex:1;min-width:0;overflow:auto;background:#f3efe6;border:1px solid #cfc6b4;max-height:88vh}
#board svg{display:block;width:100%;height:auto;min-width:600px}
""" + PANEL_CSS + """#drawn{display:flex;gap:10px;align-items:center;margin-bottom:10px}
#drawn .tilepic{width:84px;height:84px}
#drawn .tilepic svg{width:84px;height:84px;transition:none}
table{border-collapse:collapse;width:100%;margin-bottom:10px}
td,th{padding:3px 6px;border-bottom:1px solid #ddd;text-align:left}
td.supply{color:#666;font-size:12px}
td.num{text-align:right;font-variant-numeric:tabular-nums;font-weight:bold}
.swatch{display:inline-block;width:12px;height:12px;border:1px solid #111;margin-right:6px;vertical-align:-1px}
#events{list-style:none;padding:0;margin:0;font-size:13px}
#events li{padding:4px 0;border-bottom:1px dotted #bbb}
.clause{font-family:monospace;background:#e3dccb;border-radius:3px;padding:0 4px;margin-left:4px}
.none{color:#777}
.error{color:#c62828;font-weight:bold}
[data-from].hidden,[data-step].hidden{display:none}
"""

JS = """
(function(){
  const data = JSON.parse(document.getElementById('game-data').textContent);
  const steps = data.steps;
  let k = 0;
  const tagged = Array.from(document.querySelectorAll('#board [data-from]'));
  const marks = Array.from(document.querySelectorAll('#board [data-step]'));
  function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls; if(text!==undefined) e.textContent=text; return e;}
  function show(n){
    k = Math.max(0, Math.min(steps.length - 1, n));
    const s = steps[k];
    for (const e of tagged){
      const from = +e.dataset.from, to = e.dataset.to === undefined ? Infinity : +e.dataset.to;
      e.classList.toggle('hidden', !(from <= k && k < to));
    }
    for (const e of marks) e.classList.toggle('hidden', +e.dataset.step !== k);
    document.getElementById('step-no').textContent = k + ' / ' + (steps.length - 1);
    document.getElementById('step-label').textContent = s.label;
    const pic = document.getElementById('drawn-pic');
    pic.replaceChildren();
    if (s.tile !== null){
      const t = document.getElementById('tile-' + s.tile);
      if (t){ const c = t.content.cloneNode(true); pic.appendChild(c);
              const svg = pic.querySelector('svg'); if (svg) svg.style.transform = 'rotate(' + s.rotation + 'deg)'; }
    }
    document.getElementById('drawn-name').textContent = s.tile === null ? 'start landscape' : s.drawn;
    for (const p of data.players){
      const cell = document.querySelector('#scores td.num[data-player="' + CSS.escape(p) + '"]');
      cell.textContent = s.scores[p]; cell.dataset.score = s.scores[p];
      const sup = document.querySelector('#scores td.supply[data-player="' + CSS.escape(p) + '"]');
      sup.textContent = s.supply[p] || '';
    }
    document.getElementById('scores-title').textContent = s.final ? 'Final scores' : 'Scores after step ' + k;
    const ul = document.getElementById('events'); ul.replaceChildren();
    if (!s.events.length) ul.appendChild(el('li', 'none', 'no scoring this step'));
    for (const ev of s.events){ const li = el('li', '', ev.text); if (ev.clause) li.appendChild(el('span','clause',ev.clause)); ul.appendChild(li); }
    const err = document.getElementById('error');
    err.textContent = (k === steps.length - 1 && data.error) ? data.error : '';
    document.body.dataset.step = k;
  }
  document.getElementById('first').onclick = () => show(0);
  document.getElementById('prev').onclick = () => show(k - 1);
  document.getElementById('next').onclick = () => show(k + 1);
  document.getElementById('last').onclick = () => show(steps.length - 1);
  document.addEventListener('keydown', e => {
    if (e.key === 'ArrowRight') { show(k + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { show(k - 1); e.preventDefault(); }
    else if (e.key === 'Home') { show(0); e.preventDefault(); }
    else if (e.key === 'End') { show(steps.length - 1); e.preventDefault(); }
  });
  show(0);
})();
"""


def _svg_text(d: dw.Drawing) -> str:
    s = d.as_svg()
    return s[s.index("<svg"):]


def _entry_text(s, tl: Timeline) -> str:
    e = s.entry
    if e is None:
        return "Start: the start landscape is laid."
    who = s.player or "?"
    if e.get("discard"):
        return f"Turn {s.index}: {who} drew {e['tile']}; it fits nowhere and is discarded."
    text = f"Turn {s.index}: {who} drew {e['tile']} and placed it at [{e['at'][0]},{e['at'][1]}], rotation {e.get('rotation', 0)}"
    place = e.get("place")
    if isinstance(place, dict):
        text += f", with a {place.get('figure')} on {place.get('on') or place.get('corner')}"
    recall = e.get("recall")
    if recall is not None:
        text += ", and took back a figure"
    if s.final:
        text += "; the game ends and final scoring follows"
    return text + "."


def _event_text(ev: dict) -> str:
    if ev["kind"] == "discard":
        return f"{ev.get('player', '?')} discards {ev.get('tile', '?')}"
    pts = ", ".join(f"{p} +{v}" for p, v in ev.get("points", {}).items()) or "nobody scores"
    size = f" ({ev['tiles']} tile{'s' if ev['tiles'] != 1 else ''})" if "tiles" in ev else ""
    return f"{ev['feature']} {ev['when']}{size}: {pts}"


def viewer_html(tl: Timeline, title: str) -> str:
    style = Style.of(tl.rs)
    board = board_drawing(tl, None, scores_panel=False)
    colours = player_colours(tl.players)
    used = {}
    steps = []
    for s in tl.steps:
        placed = next((p for p in tl.tiles.values() if p.step == s.index and s.index > 0), None)
        tile_id = None
        drawn = None
        rot = 0
        if s.entry is not None:
            drawn = s.entry.get("tile")
            cands = tl.rs.tile_types(drawn) if isinstance(drawn, str) else []
            t = placed.tile if placed is not None else (cands[0] if cands else None)
            if t is not None:
                tile_id = t.id
                used[t.id] = t
                rot = placed.rotation if placed is not None else 0
        steps.append({"label": _entry_text(s, tl), "tile": tile_id, "drawn": drawn, "rotation": rot,
                      "scores": s.scores, "final": s.final,
                      "supply": {p: ", ".join(f"{n} {f}" for f, n in figs.items()) for p, figs in s.supply.items()},
                      "events": [{"text": _event_text(e), "clause": e.get("clause")} for e in s.events]})
    data = {"players": tl.players, "steps": steps,
            "error": f"Replay stopped: {tl.error['message']} [{tl.error['clause']}]" if tl.error else None}
    blob = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    templates = []
    for tid, t in used.items():
        d = dw.Drawing(100, 100)
        d.append(draw_tile(drawn_features(t), style, symbols=t.symbols))
        templates.append(f'<template id="tile-{html.escape(tid, quote=True)}">{_svg_text(d)}</template>')
    rows = "".join(
        f'<tr><td><span class="swatch" style="background:{colours[p]}"></span>{html.escape(p)}</td>'
        f'<td class="supply" data-player="{html.escape(p, quote=True)}"></td>'
        f'<td class="num" data-player="{html.escape(p, quote=True)}"></td></tr>' for p in tl.players)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{CSS}</style></head>
<body>
<header><h1>{html.escape(title)}</h1></header>
<main>
<div id="board">{_svg_text(board)}</div>
<aside>
<div class="controls">
<button id="first" title="first step (Home)">|◀</button><button id="prev" title="previous step (←)">◀</button>
<span id="step-no"></span>
<button id="next" title="next step (→)">▶</button><button id="last" title="last step (End)">▶|</button>
</div>
<div id="step-label"></div>
<div id="drawn"><div class="tilepic" id="drawn-pic"></div><div>Tile drawn: <b id="drawn-name"></b></div></div>
<h3 id="scores-title">Scores</h3>
<table id="scores"><thead><tr><th>player</th><th>figures left</th><th>score</th></tr></thead><tbody>{rows}</tbody></table>
<h3>Events</h3>
<ul id="events"></ul>
<p id="error" class="error"></p>
<p class="none">← → step, Home/End first/last. Rules: {html.escape(' + '.join(tl.rs.names))}.</p>
</aside>
</main>
{''.join(templates)}
<script type="application/json" id="game-data">{blob}</script>
<script>{JS}</script>
</body></html>
"""
