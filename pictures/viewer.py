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

from ..compiler.runtime import events as E

from .board import (MARGIN, Timeline, _meeple, board_cells, board_drawing, draw_stack, left_mark, new_floor_mark,
                    player_colours)
from .steps import event_text, step_label
from .sheet import drawn_features
from .tile import SIZE, Style, _centre_emblem, _shield, done_pattern, draw_tile, symbol_badge
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

CSS = FRAME_CSS + """#board{flex:1;min-width:0;overflow:hidden;background:#f3efe6;border:1px solid #cfc6b4;height:calc(100vh - 70px)}
#board svg{display:block;width:100%;height:100%}
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
aside{max-height:calc(100vh - 70px);overflow-y:auto}
td.prisoners{font-size:12px}
.disc{display:inline-block;width:11px;height:11px;border-radius:50%;border:1px solid #111;margin-right:2px;vertical-align:-1px}
#outposts .outpost{margin:0 0 8px;display:grid;grid-template-columns:minmax(80px,max-content) minmax(0,1fr);column-gap:8px;row-gap:3px;align-items:center}
#outposts .name{font-size:13px;font-weight:bold;overflow-wrap:anywhere}
#outposts .line{display:flex;flex-wrap:wrap;align-items:center;gap:4px 8px;min-width:0}
#outposts .line .pool,#outposts .line .catapult{margin-left:0}
.slots{display:inline-flex;gap:3px;vertical-align:middle}
.slot{width:14px;height:14px;border:1px solid #111;background:#fff}
.pool{display:inline-flex;gap:2px;align-items:center;margin-left:8px;padding:1px 4px;border:1px dashed #777;border-radius:9px;min-width:14px;min-height:14px;vertical-align:middle}
.catapult:not(.news){display:inline-block;width:22px;height:16px;border:1px solid #111;margin-left:8px;vertical-align:middle;background:#fff;text-align:center;font-size:12px;line-height:16px}
.catapult.filled{background:#5d4037;color:#fff}
#outposts .happened{grid-column:2;display:flex;flex-wrap:wrap;align-items:center;gap:2px 8px;min-width:0}
#outposts .news{font-size:12px;font-weight:bold;white-space:nowrap}
#outposts .returned{font-size:11px;color:#555}
#outposts .news.attack{color:#c62828}
#outposts .news.catapult{color:#5d4037}
#outposts .news.counterattack{color:#2e7d32}
#legend{list-style:none;padding:0;margin:0;font-size:12px;display:grid;grid-template-columns:1fr 1fr;gap:2px 8px}
#legend li{display:flex;align-items:center;gap:4px}
#legend svg{width:32px;height:32px;flex:none}
[data-from].hidden,[data-step].hidden{display:none}
"""

JS = """
(function(){
  const data = JSON.parse(document.getElementById('game-data').textContent);
  const steps = data.steps;
  let k = 0;
  const tagged = Array.from(document.querySelectorAll('#board [data-from]'));
  const marks = Array.from(document.querySelectorAll('#board [data-step]'));
  const board = document.getElementById('board');
  const svg = board.querySelector('svg');
  function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls; if(text!==undefined) e.textContent=text; return e;}
  function disc(player, title){const d = el('span', 'disc'); d.style.background = data.colours[player] || '#777'; d.dataset.player = player; if (title) d.title = title; return d;}
  // zoom to fit the board shown at this step; if its tiles would then be smaller than
  // data.min_scale pixels per unit, keep that size and follow the last tile laid
  function frame(s){
    const W = board.clientWidth, H = board.clientHeight;
    if (!W || !H) return;
    let [x, y, w, h] = s.view;
    const fit = Math.min(W / w, H / h);
    if (fit < data.min_scale){
      const vw = W / data.min_scale, vh = H / data.min_scale;
      const c = s.last || s.view;
      const cx = c[0] + c[2] / 2, cy = c[1] + c[3] / 2;
      const clamp = (v, lo, hi) => hi < lo ? (lo + hi) / 2 : Math.max(lo, Math.min(hi, v));
      x = clamp(cx - vw / 2, x, x + w - vw); y = clamp(cy - vh / 2, y, y + h - vh); w = vw; h = vh;
    }
    svg.setAttribute('viewBox', x + ' ' + y + ' ' + w + ' ' + h);
  }
  function prisoners(s){
    for (const p of data.players){
      const td = document.querySelector('#scores td.prisoners[data-player="' + CSS.escape(p) + '"]');
      if (!td) continue;
      td.replaceChildren();
      let n = 0;
      const held = (s.prisoners || {})[p] || {};
      for (const owner of Object.keys(held)){
        for (const fig of Object.keys(held[owner])){
          const c = held[owner][fig]; n += c;
          const span = el('span', 'held'); span.dataset.owner = owner; span.dataset.figure = fig; span.dataset.count = c;
          span.appendChild(disc(owner, owner + "'s " + fig)); span.appendChild(document.createTextNode(c + ' ' + owner + ' ' + fig + (c === 1 ? '' : 's') + ' '));
          td.appendChild(span);
        }
      }
      td.dataset.count = n;
      if (!n) td.appendChild(el('span', 'none', '—'));
    }
  }
  function outposts(s){
    const box = document.getElementById('outposts');
    if (!box) return;
    box.replaceChildren();
    for (const name of Object.keys(s.outposts)){
      const o = s.outposts[name], meta = data.outposts[name];
      const div = el('div', 'outpost'); div.dataset.outpost = name;
      div.dataset.row = o.row.length; div.dataset.slots = o.slots; div.dataset.pool = o.pool.length; div.dataset.catapults = o.catapults;
      div.appendChild(el('span', 'name', name));
      // the row, the pool and the catapult slot on a line of their own that wraps, never over the name;
      // what happened this step on the grid's next row, under them (labels never overlap: a grid and flex boxes)
      const line = el('div', 'line');
      div.appendChild(line);
      const row = el('span', 'slots'); row.title = 'row: ' + o.slots + ' slots';
      for (let i = 0; i < o.slots; i++){
        const sl = el('span', 'slot' + (i < o.row.length ? ' filled' : ''));
        if (i < o.row.length){ sl.style.background = data.colours[o.row[i]] || '#777'; sl.dataset.player = o.row[i]; sl.title = o.row[i]; }
        row.appendChild(sl);
      }
      line.appendChild(row);
      if (meta.pool){ const pool = el('span', 'pool'); pool.title = 'pool'; for (const p of o.pool) pool.appendChild(disc(p, p)); line.appendChild(pool); }
      for (let i = 0; i < meta.catapults; i++){
        const c = el('span', 'catapult' + (i < o.catapults ? ' filled' : ''), i < o.catapults ? '⚙' : ''); c.title = 'catapult slot';
        line.appendChild(c);
      }
      const hap = el('div', 'happened');  // what came to the outpost this step, and who went home
      for (const ev of s.events){
        if (ev.outpost === name && (ev.kind === 'catapult' || ev.kind === 'attack' || ev.kind === 'counterattack')){
          const t = {catapult: 'catapult arrives', attack: 'attack!', counterattack: 'counterattack'}[ev.kind];
          const n = el('span', 'news ' + ev.kind, t); n.dataset.kind = ev.kind; hap.appendChild(n);
        }
      }
      const back = (s.returned || {})[name] || [];
      if (back.length){
        const r = el('span', 'returned', 'sent home: '); r.title = 'followers that left this outpost this step, back to supply';
        for (const p of back) r.appendChild(disc(p, p));
        hap.appendChild(r);
      }
      if (hap.childNodes.length) div.appendChild(hap);
      box.appendChild(div);
    }
  }
  function show(n){
    k = Math.max(0, Math.min(steps.length - 1, n));
    const s = steps[k];
    for (const e of tagged){
      const from = +e.dataset.from, to = e.dataset.to === undefined ? Infinity : +e.dataset.to;
      e.classList.toggle('hidden', !(from <= k && k < to));
    }
    for (const e of marks) e.classList.toggle('hidden', +e.dataset.step !== k);
    frame(s);
    document.getElementById('step-no').textContent = k + ' / ' + (steps.length - 1);
    document.getElementById('step-label').textContent = s.label;
    const pic = document.getElementById('drawn-pic');
    pic.replaceChildren();
    if (s.tile !== null){
      const t = document.getElementById('tile-' + s.tile);
      if (t) pic.appendChild(t.content.cloneNode(true));
    }
    document.getElementById('drawn-name').textContent = s.tile === null ? 'start landscape' : s.drawn;
    for (const p of data.players){
      const cell = document.querySelector('#scores td.num[data-player="' + CSS.escape(p) + '"]');
      cell.textContent = s.scores[p]; cell.dataset.score = s.scores[p];
      const sup = document.querySelector('#scores td.supply[data-player="' + CSS.escape(p) + '"]');
      sup.textContent = s.supply[p] || '';
    }
    prisoners(s);
    outposts(s);
    document.getElementById('scores-title').textContent = s.final ? 'Final scores' : 'Scores after step ' + k;
    const ul = document.getElementById('events'); ul.replaceChildren();
    if (!s.events.length) ul.appendChild(el('li', 'none', k ? 'nothing scored or happened this step' : 'the start'));
    for (const ev of s.events){ const li = el('li', '', ev.text); li.dataset.kind = ev.kind; if (ev.clause) li.appendChild(el('span','clause',ev.clause)); ul.appendChild(li); }
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
  window.addEventListener('resize', () => frame(steps[k]));
  show(0);
})();
"""


def _svg_text(d: dw.Drawing) -> str:
    s = d.as_svg()
    return s[s.index("<svg"):]


MIN_SCALE = 0.5  # the viewer zooms out to fit the board down to 50 px a tile, then follows the last tile


def _views(tl: Timeline) -> list[tuple[list[float], list[float] | None]]:
    """For each step: the box of the board's tiles shown then (SVG units, with a margin) and the box
    of the tile laid at that step (None at the start or after a discard)."""
    x0, y0, _, _ = board_cells(tl)
    pad = MARGIN

    def box(cell):
        return MARGIN + (cell[0] - x0) * SIZE, MARGIN + (cell[1] - y0) * SIZE

    out = []
    for s in tl.steps:
        shown = [box(p.cell) for p in tl.tiles.values() if p.step <= s.index] or [box((x0, y0))]
        bx0, by0 = min(x for x, _ in shown) - pad, min(y for _, y in shown) - pad
        bx1, by1 = max(x for x, _ in shown) + SIZE + pad, max(y for _, y in shown) + SIZE + pad
        last = [box(p.cell) for p in tl.tiles.values() if p.step == s.index and s.index > 0]
        out.append(([bx0, by0, bx1 - bx0, by1 - by0], [last[0][0], last[0][1], SIZE, SIZE] if last else None))
    return out


def _returned(prev: dict, s) -> dict[str, list[str]]:
    """The followers who left each outpost during step s (a counterattack or an attack sent them
    home): those there before the step or put there during it (its `outpost` events), less those
    still there after it; players in slot order."""
    out = {}
    for name, o in s.outposts.items():
        before = list(prev.get(name, {}).get("row", [])) + list(prev.get(name, {}).get("pool", []))
        before += [e["player"] for e in E.of_kind(s.events, "outpost") if e["outpost"] == name]
        left = list(o["row"]) + list(o["pool"])
        gone = []
        for p in before:
            if p in left:
                left.remove(p)
            else:
                gone.append(p)
        if gone:
            out[name] = gone
    return out


def plural(word: str, n: int) -> str:
    """`follower` for 1, `followers` otherwise (`-s`, `-es` after s, x, ch, sh; `-ies` after a consonant's y)."""
    if n == 1:
        return word
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return word + "s"


def _legend(tl: Timeline) -> str:
    """A legend entry for every figure the rule set declares and every mark the board may show."""
    rs = tl.rs
    items = []

    def pic(el, w=30, h=30, defs=()) -> str:
        d = dw.Drawing(w, h)
        for x in defs:
            d.append_def(x)
        d.append(el)
        return _svg_text(d)

    first = next(iter(rs.figures), None)
    grey = "#9e9e9e"
    for name in rs.figures:
        if name in tl.stacked:
            g = draw_stack(16, 15, 3, {}, {}, "", (0, 0), "C")
            items.append(("stack-" + name, pic(g, 52, 30), f"{name}s stacked (the number: the height)"))
        else:
            items.append(("figure-" + name, pic(_meeple(15, 16, grey, name, name == first)),
                          f"{name} (in its player's colour)"))
    if tl.stacked:
        others = [n for n in rs.figures if n not in tl.stacked]
        top = _meeple(15, 14, grey, others[0], others[0] == first, on_top=True) if others else None
        if top is not None:
            items.append(("on-top", pic(top), "a figure on top of a stack"))
    style = Style.of(rs)
    kinds_c = sorted(k for k in style.category if style.category[k] == "centre")
    for kind in kinds_c:  # every centre emblem a tile may show (the Tower's purple "T" among them)
        items.append(("kind-" + kind, pic(_centre_emblem(kind, style, 15, 15, kinds_c.index(kind))),
                      f"{kind} ({'a tower: floors stand on it' if kind in set(tl.stack_kind.values()) else 'centre'})"))
    if any(f.shields for t in rs.tiles for f in t.features):
        items.append(("shield", pic(_shield(15, 15)), "shield (its city scores more)"))
    items.append(("junction", pic(dw.Rectangle(8, 8, 14, 14, fill="#8d6e63", stroke="#4e342e", stroke_width=1.2)),
                  "where roads end (a crossroads)"))
    if tl.stacked:
        frame = dw.Group()
        frame.append(draw_stack(21, 18, 2, {}, {}, "", (0, 0), "C"))
        frame.append(new_floor_mark(21, 18, 2, (0, 0), "C"))
        items.append(("new-floor", pic(frame, 56, 36), "a floor put this step"))
    hatch = dw.Group()
    hatch.append(dw.Rectangle(2, 2, 26, 26, fill="#d9a05b"))
    hatch.append(dw.Rectangle(2, 2, 26, 26, fill="url(#done)"))
    items.append(("done", pic(hatch, defs=[done_pattern()]), "completed feature"))
    items.append(("last", pic(dw.Rectangle(3, 3, 24, 24, fill="none", stroke="#ff6f00", stroke_width=3)),
                  "tile laid this step"))
    for name, look in style.symbols.items():  # what a tile prints (`symbols ...`), as the tiles show it
        items.append(("symbol-" + name, pic(symbol_badge(name, look, 5, 5)), f"printed symbol {look.meaning}"))
    if rs.captures:
        ev = {"kind": "capture", "victim": "", "player": "", "figure": "", "at": [0, 0]}
        items.append(("mark-capture", pic(left_mark(15, 15, ev, {})), "a figure captured this step"))
    if rs.tracks:
        ev = {"kind": "remove", "player": "", "figure": "", "at": [0, 0]}
        items.append(("mark-remove", pic(left_mark(15, 15, ev, {})), "a figure removed this step (an attack)"))
    lis = "".join(f'<li data-legend="{html.escape(k, quote=True)}">{svg}<span>{html.escape(text)}</span></li>'
                  for k, svg, text in items)
    if rs.tracks:
        lis += ('<li data-legend="outpost"><span class="slots"><span class="slot"></span></span>'
                '<span>outpost row slot (filled: its player\'s colour)</span></li>'
                '<li data-legend="pool"><span class="pool"></span><span>outpost pool</span></li>'
                '<li data-legend="catapult"><span class="catapult filled">⚙</span><span>catapult slot</span></li>')
    return f'<ul id="legend">{lis}</ul>'


def viewer_html(tl: Timeline, title: str) -> str:
    style = Style.of(tl.rs)
    board = board_drawing(tl, None, scores_panel=False)
    colours = player_colours(tl.players)
    used = {}
    steps = []
    views = _views(tl)
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
                rot = placed.rotation if placed is not None else 0
                tile_id = f"{t.id}@{rot}"  # drawn turned, its printed symbols upright (as on the board)
                used[tile_id] = (t, rot)
        view, last = views[s.index]
        steps.append({"label": step_label(s.index, s.player, s.moves, s.events, s.final), "tile": tile_id,
                      "drawn": drawn, "rotation": rot, "scores": s.scores, "final": s.final,
                      "supply": {p: ", ".join(f"{n} {plural(f, n)}" for f, n in figs.items()) for p, figs in s.supply.items()},
                      "prisoners": s.prisoners, "outposts": s.outposts, "view": view, "last": last,
                      "returned": _returned(tl.steps[s.index - 1].outposts if s.index else {}, s),
                      "events": [{"text": event_text(e), "clause": e.get("clause"), "kind": e["kind"],
                                  **({"outpost": e["outpost"]} if "outpost" in e else {})} for e in s.events]})
    data = {"players": tl.players, "steps": steps, "colours": colours, "min_scale": MIN_SCALE,
            "outposts": {n: {"pool": t.pool, "catapults": t.catapult} for n, t in tl.rs.tracks.items()},
            "error": f"Replay stopped: {tl.error['message']} [{tl.error['clause']}]" if tl.error else None}
    blob = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    templates = []
    for tid, (t, rot) in used.items():
        d = dw.Drawing(100, 100)
        d.append(draw_tile(drawn_features(t, rot), style, symbols=t.symbols, rotation=rot))
        templates.append(f'<template id="tile-{html.escape(tid, quote=True)}">{_svg_text(d)}</template>')
    held = bool(tl.rs.captures)  # a column of prisoners: who holds whose
    rows = "".join(
        f'<tr><td><span class="swatch" style="background:{colours[p]}"></span>{html.escape(p)}</td>'
        f'<td class="supply" data-player="{html.escape(p, quote=True)}"></td>'
        + (f'<td class="prisoners" data-player="{html.escape(p, quote=True)}"></td>' if held else '')
        + f'<td class="num" data-player="{html.escape(p, quote=True)}"></td></tr>' for p in tl.players)
    head = "<th>player</th><th>figures left</th>" + ("<th>holds prisoners</th>" if held else "") + "<th>score</th>"
    outposts = '<h3>Outposts</h3><div id="outposts"></div>' if tl.rs.tracks else ""
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
<table id="scores"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>
{outposts}
<h3>Events</h3>
<ul id="events"></ul>
<p id="error" class="error"></p>
<h3>Legend</h3>
{_legend(tl)}
<p class="none">← → step, Home/End first/last. Rules: {html.escape(' + '.join(tl.rs.names))}.</p>
</aside>
</main>
{''.join(templates)}
<script type="application/json" id="game-data">{blob}</script>
<script>{JS}</script>
</body></html>
"""
