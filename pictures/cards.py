"""Pictures of the card game (rulebook 001): the table at any move of a `tessera-cards/1` record.

`card_timeline` replays a record move by move (replay/cards.py); `table_drawing` draws
one step as SVG: the four colour rows with their cards and feudals (a face-down card as a card
back, shown face up only to the player who laid it), a legend of the feudals' discs and the
card marks, every player's score, pile and chest (the chest's size: its cards lie face down)
and the viewing player's hand (the others' hands by size only).  Whose view: `seat` a player's
name; `"all"` the record's author's, who sees everything (every hand, every face-down card,
with a dashed border); None a spectator's, who sees what lies open and no hand.  The heading
says whose move it is, what the dealer or a player must decide, and at the end why the game
ended and who won.  `card_viewer_html` writes one self-contained page that steps through the
game (first / previous / next / last buttons, arrow keys, Home and End), nothing loaded from
the network.  Every text from a record reaches the page escaped (drawsvg and html.escape).
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import drawsvg as dw

from ..compiler.runtime import events as E

from .board import CannotStart  # noqa: F401  (raised here too, and imported from here)
from .viewer import FRAME_CSS, PANEL_CSS

COLOURS = {"yellow": "#f2c12e", "red": "#d64541", "green": "#4caf50", "blue": "#3f7fd6", "black": "#333333"}
JOKER = "#9c6ade"
BACK = "#6d4c41"
CARD_W, CARD_H, GAP = 46, 64, 6


@dataclass
class CardStep:
    label: str
    view: dict  # the engine's view(seat) after this step
    scores: dict
    events: list = field(default_factory=list)  # scoring events of this step


@dataclass
class CardTimeline:
    title: str
    players: list
    seat: int | str | None  # a seat, "all" (the author: every hand) or None (a spectator: no hand)
    steps: list
    error: dict | None = None
    feudal: str = "feudal"  # the rules' name of the figure that claims (`feudal NAME`)


def card_timeline(record: dict, base: Path | None = None, seat: str | None = None) -> CardTimeline:
    """Every step of a card record, as the player `seat` sees it ("all": everything, every hand;
    None: what lies open, no hand)."""
    from ..replay.cards import g_illegal, move_of, start_game
    from ..replay.records import RecordError
    from ..replay.tiles import _resolve_rules, engine_for
    from ..dsl.family import CARDS, Family

    players = record["players"]
    if seat is not None and seat != "all" and seat not in players:
        raise RecordError(f"--seat {seat!r}: the players are {', '.join(players)}, or `all` for every hand")
    who = None if seat == "all" else players.index(seat) if seat is not None else -1  # -1: no player's view
    rules, search, confine = _resolve_rules(record, base)
    eng = engine_for(rules, search, confine)
    if Family.of_rules(eng.rules) is not CARDS:
        raise RecordError("a tessera-cards/1 record names the rules of a tile game")
    g, problem = start_game(eng, record)
    if g is None:  # no game starts from this record: a problem found, as replay says it
        raise CannotStart(problem)
    first = ("set-up: the layout and the first deal" if g.phase != "layout" else
             f"set-up: the layout, drawn one card at a time, stops at the joker {g.pending[0]} (card {g.laid})")
    steps = [CardStep(first, g.view(who), dict(zip(players, g.scores)))]
    error = None
    for i, t in enumerate(record.get("turns", [])):
        seen = len(g.events)
        mover = g.names[g.current]
        try:
            if g.ended:
                raise g_illegal(g, "the game is over", eng.rules.CLAUSE_END)
            a = move_of(t, g)
            g.apply_action(a)
        except eng.IllegalAction as ill:
            error = {"turn": i, "message": f"turn {i}: {ill.message}", "clause": ill.clause}
            break
        shown = a
        last = g.rows[a.row][-1] if a.KIND == "play" and g.rows[a.row] else None  # the card just played
        if last is not None and last[1] and who is not None and who != players.index(mover):
            shown = ("play", "a card face down to", a.row)  # its face is the mover's to know
        label = f"{i + 1}. {mover}: {' '.join(str(x) for x in shown)}"
        steps.append(CardStep(label, g.view(who), dict(zip(players, g.scores)),
                              [e for e in g.events[seen:] if E.is_shown(e, E.CARDS)]))
    if error is None and record.get("end", "final") == "final" and not g.ended:
        seen = len(g.events)
        g.finish()
        steps.append(CardStep("final scoring", g.view(who), dict(zip(players, g.scores)),
                              [e for e in g.events[seen:] if E.is_shown(e, E.CARDS)]))
    title = f"{' + '.join(rules)}: {len(players)} players" + (
        ", every hand shown" if seat == "all" else f", as {seat} sees it" if seat else ", the open table")
    return CardTimeline(title, list(players), "all" if seat == "all" else who if seat else None, steps, error,
                        eng.rules.FEUDAL)


def _colour_of(card: str) -> str:
    head = card.split(".", 1)[0]
    return COLOURS.get(head, JOKER)


def _card(x: float, y: float, name: str | None, face_down: bool = False) -> list:
    """A card's parts: its face (or its back when `name` is None or "?")."""
    if name is None or name == "?":
        return [_Part(("back", x, y), lambda: dw.Rectangle(x, y, CARD_W, CARD_H, rx=5, fill=BACK, stroke="#222",
                                                             class_="card back")),
                _Part(("back?", x, y), lambda: dw.Text("?", 20, x + CARD_W / 2, y + CARD_H / 2 + 7,
                                                       text_anchor="middle", fill="#fff"))]
    out = [_Part(("card", x, y, name, face_down), lambda: dw.Rectangle(
        x, y, CARD_W, CARD_H, rx=5, fill=_colour_of(name), stroke="#222",
        stroke_dasharray="4,3" if face_down else None, class_="card", data_card=name))]
    parts = name.split(".")
    kind = parts[1] if len(parts) > 1 else parts[0]
    value = parts[2] if len(parts) > 2 else ""
    if kind.endswith("_joker"):  # a joker: its kind above, J for its value
        kind, value = kind.removesuffix("_joker"), "J"
    label = kind.replace("_", " ")[:9]
    out.append(_Part(("kind", x, y, label), lambda: dw.Text(label, 9, x + CARD_W / 2, y + 16, text_anchor="middle",
                                                            fill="#111")))
    if value:
        out.append(_Part(("value", x, y, value), lambda: dw.Text(value, 20, x + CARD_W / 2, y + 44,
                                                                 text_anchor="middle", fill="#111")))
    if face_down:
        out.append(_Part(("down", x, y), lambda: dw.Text("face down", 7, x + CARD_W / 2, y + CARD_H - 6,
                                                        text_anchor="middle", fill="#111")))
    return out


def heading(v: dict) -> str:
    """The step's heading: whose move and what waits, or who won and why the game ended (a
    second line, after a newline)."""
    if "over" in v:
        won = v.get("winners") or []
        scores = " to ".join(str(s) for s in sorted(v["scores"].values(), reverse=True))
        return (f"game over after round {v['round']}: "
                + (f"{' and '.join(won)} {'wins' if len(won) == 1 else 'win'} ({scores})" if won else "no winner")
                + f"\n{v['over']}")
    if v.get("phase") == "layout":
        return (f"set-up: the dealer, {v['to_move']}, lays the joker {v['waiting']} into a row of their choice "
                f"({v['deck']} cards in the deck)")
    if v.get("phase") == "keep":
        return f"round {v['round']} is over: {v['to_move']} keeps or discards the misplaced {v['waiting']}"
    return f"round {v['round']}, {v['to_move']} to move, dealer {v['dealer']}, {v['deck']} cards in the deck"


def _hands_shown(tl: CardTimeline) -> list:
    if tl.seat == "all":
        return list(tl.players)
    return [tl.players[tl.seat]] if isinstance(tl.seat, int) else []


@dataclass(frozen=True)
class _Part:
    """One element of a table's picture: `key` is everything it shows (so its SVG text can be kept
    and used again), `make` builds it, and a group's `children` are parts too."""
    key: tuple
    make: Callable[[], dw.DrawingElement]
    children: tuple = ()


def _parts(tl: CardTimeline, step: int) -> tuple[tuple[int, int], list[_Part]]:
    """One step of the game as its size and its parts (see the module's docstring)."""
    v = tl.steps[step].view
    rows = v["rows"]
    widest = max([len(r) for r in rows.values()] + [6])
    hands = _hands_shown(tl)
    width = 120 + (widest + 1) * (CARD_W + GAP) + 40
    lines = heading(v).split("\n")
    top = 18 * len(lines)
    height = (top + 22 + len(rows) * (CARD_H + 14) + 34 + 60 + len(tl.players) * 22
              + sum(CARD_H + 30 if v["hands"][p] else 24 for p in hands))
    W = max(width, 760)
    out = [_Part(("background", W, height), lambda: dw.Rectangle(0, 0, W, height, fill="#f3efe6")),
           _Part(("heading", *lines), lambda: dw.Text(lines, 14, 10, 22, fill="#222", class_="heading",
                                                      line_height=1.3))]
    y = top + 18
    for row, cards in rows.items():
        kids = [_Part(("row-label", row, y), lambda row=row, y=y: dw.Rectangle(
                    10, y, 100, CARD_H, rx=6, fill=COLOURS.get(row, "#999"), stroke="#222")),
                _Part(("row-name", row, y), lambda row=row, y=y: dw.Text(
                    row, 14, 60, y + CARD_H / 2 + 5, text_anchor="middle", fill="#111"))]
        x = 120
        for c in cards:
            if c.startswith("feudal:"):
                who = c.split(":", 1)[1]
                colour = _player_colour(tl, who)

                def disc(x=x, y=y, who=who, colour=colour):
                    el = dw.Circle(x + 12, y + CARD_H / 2, 11, fill=colour, stroke="#111", class_="feudal",
                                   data_player=who)
                    el.append_title(f"{who}'s {tl.feudal}")
                    return el
                kids.append(_Part(("feudal", x, y, who, colour, tl.feudal), disc))
                x += 30
                continue
            face_down = c.endswith(" (face down)")
            kids.extend(_card(x, y, c.removesuffix(" (face down)"), face_down))
            x += CARD_W + GAP
        out.append(_Part(("row", row), lambda row=row: dw.Group(class_="row", data_row=row), tuple(kids)))
        y += CARD_H + 14
    out.append(_legend(tl, y + 4))
    y = y + 4 + 20 + 14
    for p in tl.players:
        pile = v["piles"][p]
        hand = v["hands"][p]
        line = (f"{p}: {v['scores'][p]} points; pile {len(pile)}; chest {v['chests'][p]}; hand "
                f"{len(hand) if isinstance(hand, list) else hand}")
        colour = _player_colour(tl, p)
        out.append(_Part(("swatch", y, colour), lambda y=y, colour=colour: dw.Rectangle(
            10, y - 11, 12, 12, fill=colour, stroke="#111")))
        out.append(_Part(("player", y, p, line), lambda y=y, p=p, line=line: dw.Text(
            line, 13, 28, y, fill="#222", class_="player", data_player=p)))
        y += 22
    for me in hands:
        cards = v["hands"][me]
        label = f"{me}'s hand" + ("" if cards else ": empty")
        out.append(_Part(("hand-label", y, label), lambda y=y, label=label: dw.Text(label, 13, 10, y + 8, fill="#222")))
        kids = [part for k, c in enumerate(cards) for part in _card(10 + k * (CARD_W + GAP), y + 16, c)]
        out.append(_Part(("hand", me), lambda me=me: dw.Group(class_="hand", data_player=me), tuple(kids)))
        y += CARD_H + 30 if cards else 24
    return (W, height), out


def table_drawing(tl: CardTimeline, step: int) -> dw.Drawing:
    """One step of the game as SVG (see the module's docstring)."""
    (w, h), parts = _parts(tl, step)
    d = dw.Drawing(w, h)

    def build(part: _Part):
        el = part.make()
        for child in part.children:
            el.append(build(child))
        return el
    for part in parts:
        d.append(build(part))
    return d


class TableSvg:
    """`table_drawing(tl, step).as_svg()`, the same text, drawn from the parts' texts kept from
    the steps before: a step draws only what changed (a card played, a score, the heading), so
    drawing a whole game costs what its moves change, not moves x table (issue 38: 13 s of CPU for
    a 2,792-step game of 2,000 cards).  At most `keep` texts are kept (then all are dropped)."""

    def __init__(self, keep: int = 20_000):
        self.keep = keep
        self.texts: dict = {}

    def _text(self, key: tuple, make) -> str:
        got = self.texts.get(key)
        if got is None:
            if len(self.texts) >= self.keep:
                self.texts.clear()
            got = self.texts[key] = make()
        return got

    def _el(self, part: _Part) -> str:
        """drawsvg's text of one element as a drawing writes it (a group's: its opening tag, each
        child's text and a newline, `</g>`)."""
        if not part.children:
            return self._text(part.key, lambda: _alone(part.make()))
        head = self._text(("open",) + part.key, lambda: _alone(part.make()).removesuffix("</g>"))
        return head + "\n" + "".join(self._el(c) + "\n" for c in part.children) + "</g>"

    def __call__(self, tl: CardTimeline, step: int) -> str:
        (w, h), parts = _parts(tl, step)
        head = self._text(("svg", w, h), lambda: dw.Drawing(w, h).as_svg().removesuffix("</svg>"))
        return head + "".join(self._el(p) + "\n" for p in parts) + "</svg>"


def _alone(el) -> str:
    d = dw.Drawing(1, 1)
    d.append(el)
    text = d.as_svg()
    return text[text.index("</defs>\n") + len("</defs>\n"):-len("\n</svg>")]


def _legend(tl: CardTimeline, y: float) -> _Part:
    """The key to the discs and marks: each player's feudal, a face-down card (dashed: shown to
    whoever may see it; a card back: hidden)."""
    def make():
        g = dw.Group(class_="legend")
        x = 10
        g.append(dw.Text("feudals:", 12, x, y + 14, fill="#222"))
        x += 58
        for p in tl.players:
            g.append(dw.Circle(x + 8, y + 10, 8, fill=_player_colour(tl, p), stroke="#111", class_="legend-feudal",
                               data_player=p))
            label = f"{p}'s {tl.feudal}"
            g.append(dw.Text(label, 12, x + 20, y + 14, fill="#222"))
            x += 30 + 7 * len(label)
        g.append(dw.Text("cards:", 12, x, y + 14, fill="#222"))
        x += 44
        g.append(dw.Rectangle(x, y + 2, 12, 16, rx=2, fill="#fff", stroke="#222", stroke_dasharray="3,2"))
        g.append(dw.Text("face down", 12, x + 17, y + 14, fill="#222"))
        x += 86
        g.append(dw.Rectangle(x, y + 2, 12, 16, rx=2, fill=BACK, stroke="#222"))
        g.append(dw.Text("face down, hidden", 12, x + 17, y + 14, fill="#222"))
        return g
    return _Part(("legend", y, tuple(tl.players), tl.feudal), make)


_PLAYER_COLOURS = ["#e53935", "#1e88e5", "#43a047", "#fdd835", "#212121", "#8e24aa"]


def _player_colour(tl: CardTimeline, name: str) -> str:
    return _PLAYER_COLOURS[tl.players.index(name) % len(_PLAYER_COLOURS)] if name in tl.players else "#999"


CSS = FRAME_CSS + """#table{flex:1;min-width:0;overflow:auto}
#table svg{display:block;max-width:100%;height:auto}
""" + PANEL_CSS + """table{border-collapse:collapse;width:100%;margin-bottom:10px}
td{padding:3px 6px;border-bottom:1px solid #ddd}
td.num{text-align:right;font-weight:bold}
#events{list-style:none;padding:0;margin:0;font-size:13px}
.clause{font-family:monospace;background:#e3dccb;border-radius:3px;padding:0 4px;margin-left:4px}
.error{color:#c62828;font-weight:bold}
.step.hidden{display:none}
"""

JS = """
(function(){
  const data = JSON.parse(document.getElementById('game-data').textContent);
  const steps = data.steps;
  const pics = Array.from(document.querySelectorAll('#table .step'));
  let k = 0;
  function el(tag, cls, text){const e=document.createElement(tag); if(cls) e.className=cls; if(text!==undefined) e.textContent=text; return e;}
  function show(n){
    k = Math.max(0, Math.min(steps.length - 1, n));
    pics.forEach((p, i) => p.classList.toggle('hidden', i !== k));
    const s = steps[k];
    document.getElementById('step-no').textContent = k + ' / ' + (steps.length - 1);
    document.getElementById('step-label').textContent = s.label;
    const tb = document.getElementById('scores');
    tb.textContent = '';
    for (const p of data.players){
      const tr = el('tr'); tr.appendChild(el('td', '', p));
      const td = el('td', 'num', String(s.scores[p])); td.dataset.player = p; tr.appendChild(td); tb.appendChild(tr);
    }
    document.getElementById('scores-title').textContent = k === steps.length - 1 ? 'Final scores' : 'Scores';
    const ev = document.getElementById('events'); ev.textContent = '';
    for (const e of s.events){
      const li = el('li', '', e.feature + ' (' + e.when + '): ' + Object.entries(e.points).map(([p, v]) => p + ' ' + v).join(', '));
      li.appendChild(el('span', 'clause', e.clause)); ev.appendChild(li);
    }
  }
    document.getElementById('first').onclick = () => show(0);
  document.getElementById('prev').onclick = () => show(k - 1);
  document.getElementById('next').onclick = () => show(k + 1);
  document.getElementById('last').onclick = () => show(steps.length - 1);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight') show(k + 1); else if (e.key === 'ArrowLeft') show(k - 1);
    else if (e.key === 'Home') show(0); else if (e.key === 'End') show(steps.length - 1);
  });
  show(0);
})();
"""


def card_viewer_html(tl: CardTimeline) -> str:
    from .stepdiff import step_pictures  # one table, then each step's changes: the page grows with the moves

    svg = TableSvg()  # each step drawn from the one before's parts: the CPU grows with the moves
    pics = step_pictures(svg(tl, i) for i in range(len(tl.steps)))
    data = {"players": tl.players,
            "steps": [{"label": s.label, "scores": s.scores, "events": s.events} for s in tl.steps]}
    payload = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    err = (f'<p class="error">{html.escape(tl.error["message"])} [{html.escape(tl.error["clause"])}]</p>'
           if tl.error else "")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(tl.title)}</title>"
            f"<style>{CSS}</style></head><body><header><h1>{html.escape(tl.title)}</h1></header><main>"
            f'<div id="table">{pics}</div><aside><div class="controls">'
            f'<button id="first" title="first step (Home)">|&#9664;</button>'
            f'<button id="prev" title="previous step (&#8592;)">&#9664;</button>'
            f'<button id="next" title="next step (&#8594;)">&#9654;</button>'
            f'<button id="last" title="last step (End)">&#9654;|</button><span id="step-no"></span></div><div id="step-label"></div>{err}'
            f'<h3 id="scores-title">Scores</h3><table><tbody id="scores"></tbody></table><h3>Scoring</h3>'
            f'<ul id="events"></ul></aside></main>'
            f'<script type="application/json" id="game-data">{payload}</script><script>{JS}</script></body></html>\n')
