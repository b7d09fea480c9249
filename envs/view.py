"""A recorded game as one self-contained HTML page: ``python -m envs.view RECORD -o FILE.html``.

The page needs no server and no network: the pictures of every position (SVG), the move
list, a chart of the scores and a little JavaScript are all inside the file.  It steps
through the game with buttons, a slider, the arrow keys or a click on a move, and a seat
selector swaps the omniscient pictures for what one seat saw at the table.

In a seat's view the page hides what that seat could not know: the other seats' moves are
listed as that seat saw them played (a secret choice such as a pick shows as its phase
only; ``CityEnv.action_label(action, observer)``), the score chart (the game's own count,
hidden cards included) is left out, and the final result appears only at the end; the
seat's pictures show the scores it can see.

Each seat has one colour on the whole page -- the picture's, which the move list and the
chart repeat (:func:`seat_colours`) -- and the pictures call the seats by the players' names
of the record (``greedy`` rather than ``player_0``).  The seed is shown as a string: it is a
63-bit integer, which a JavaScript number would round.

Pictures share their unchanged lines (see :class:`PictureStore`), so even a long game
makes a page of a few hundred kilobytes.
"""
from __future__ import annotations

import html
import importlib
import json
import re
import sys
from importlib import resources

from envs import records
from envs.pictures.canvas import SEAT_COLOURS
from envs.registry import ADAPTERS

_SEAT_NAME = re.compile(r"\bplayer_(\d+)\b")
_TEXT = re.compile(r">([^<]+)<")


def seat_colours(raw) -> list:
    """The colour of every seat as the game's picture draws it: the picture module's own
    ``seat_colours(state, cfg)`` where it has one (Smartphone Inc.'s company colours), else
    the colours shared by the pictures (:data:`envs.pictures.canvas.SEAT_COLOURS`)."""
    module = importlib.import_module(ADAPTERS[raw.spec.game_id].replace("envs.", "envs.pictures.", 1))
    own = getattr(module, "seat_colours", None)
    if own is not None:
        return list(own(raw.game_state(), raw.cfg))
    return [SEAT_COLOURS[k % len(SEAT_COLOURS)] for k in range(len(raw.possible_agents))]


def display_names(players, seats) -> list:
    """The players' names for the page: the record's, made distinct with the seat where two
    seats share one (``greedy (player_0)``)."""
    if len(set(players)) == len(players):
        return list(players)
    return [f"{name} ({seat})" if name != seat else name for name, seat in zip(players, seats)]


def with_player_names(svg, names) -> str:
    """``svg`` with the seat names in its texts (``player_0``) replaced by ``names``."""
    def name(match):
        k = int(match.group(1))
        return html.escape(names[k]) if k < len(names) else match.group(0)

    return _TEXT.sub(lambda m: ">" + _SEAT_NAME.sub(name, m.group(1)) + "<", svg)


class PictureStore:
    """The pictures of a game, each stored once, as lists of shared lines.

    Consecutive positions draw mostly the same shapes (one SVG element per line), so every
    distinct line is kept once in :attr:`lines` and a picture is a list of ``[first,
    count]`` runs of line numbers: picture ``p`` is ``"\\n".join`` of ``lines[first:first +
    count]`` over its runs.  A long game shrinks from tens of megabytes to a few hundred
    kilobytes."""

    def __init__(self):
        self.lines, self.pictures = [], []
        self._line_ids, self._picture_ids = {}, {}

    def add(self, svg) -> int:
        """The number of picture ``svg``, stored if new."""
        if svg not in self._picture_ids:
            runs = []
            for line in svg.split("\n"):
                if line not in self._line_ids:
                    self._line_ids[line] = len(self.lines)
                    self.lines.append(line)
                number = self._line_ids[line]
                if runs and runs[-2] + runs[-1] == number:
                    runs[-1] += 1
                else:
                    runs += [number, 1]
            self._picture_ids[svg] = len(self.pictures)
            self.pictures.append(runs)
        return self._picture_ids[svg]


def viewer_data(record, allow_files=False) -> dict:
    """Everything the page shows, as JSON-able data: replays ``record`` (``ValueError`` if
    it does not replay; ``allow_files``: see :func:`envs.records.replay_steps`) and keeps,
    per position, the number of each view's picture in a :class:`PictureStore` (omniscient
    view first, then one per seat)."""
    store = PictureStore()
    steps, moves = [], []
    players = seats = colours = None
    for i, raw in records.replay_steps(record, allow_files=allow_files):
        if seats is None:
            seats = list(raw.possible_agents)
            players = display_names(record.get("players") or seats, seats)
            colours = seat_colours(raw)
        over = raw.phase == "game_over"
        views = [store.add(with_player_names(svg, players))
                 for svg in [raw.svg()] + [raw.svg(observer=k) for k in range(len(seats))]]
        to_move = None if over else seats.index(raw.agent_selection)
        steps.append({"views": views, "scores": raw.scores(), "to_move": to_move,
                      "phase": raw.phase})
        if i < len(record["actions"]):   # the next move, described from this position
            action = record["actions"][i]     # and as every seat sees it played
            legal = isinstance(action, int) and action in raw.legal_actions()   # else replay says why
            moves.append({"seat": to_move, "label": record["labels"][i],
                          "seen": [raw.action_label(action, observer=k) for k in range(len(seats))] if legal else []})
    return {"game": record["game"], "seed": str(record["seed"]), "options": record["options"],
            "seats": seats, "players": players, "colours": colours,
            "lines": store.lines, "pictures": store.pictures, "steps": steps, "moves": moves,
            "final": {"scores": record["scores"], "ranks": record["ranks"]},
            "chart": scores_chart([s["scores"] for s in steps], players, colours)}


def scores_chart(score_rows, players, colours=SEAT_COLOURS, width=420, height=170) -> str:
    """A line chart (SVG) of every seat's score after each move; its element
    ``#cz-cursor`` is the vertical line the page moves to the current position."""
    pad_left, pad_right, pad_top, pad_bottom = 34, 10, 10, 36
    n = max(len(score_rows) - 1, 1)
    values = [v for row in score_rows for v in row] or [0]
    low, high = min(values + [0]), max(values + [1])
    span = high - low or 1

    def x(i):
        return pad_left + (width - pad_left - pad_right) * i / n

    def y(v):
        return pad_top + (height - pad_top - pad_bottom) * (high - v) / span

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">',
           f'<line x1="{pad_left}" y1="{y(0):.1f}" x2="{width - pad_right}" y2="{y(0):.1f}" '
           'stroke="#bbb"/>',
           f'<text x="{pad_left - 4}" y="{y(high) + 4:.1f}" text-anchor="end">{high}</text>',
           f'<text x="{pad_left - 4}" y="{y(low) + 4:.1f}" text-anchor="end">{low}</text>',
           f'<text x="{width - pad_right}" y="{height - pad_bottom + 12}" text-anchor="end">'
           f'move {len(score_rows) - 1}</text>']
    for seat, name in enumerate(players):
        colour = colours[seat % len(colours)]
        points = " ".join(f"{x(i):.1f},{y(row[seat]):.1f}" for i, row in enumerate(score_rows))
        out.append(f'<polyline data-seat="{seat}" fill="none" stroke="{colour}" stroke-width="1.5" '
                   f'points="{points}"/>')
        lx = pad_left + 110 * (seat % 3)
        ly = height - 12 + 12 * (seat // 3) - 12 * ((len(players) - 1) // 3)
        out.append(f'<rect x="{lx}" y="{ly - 8}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{lx + 14}" y="{ly}">{html.escape(name)}</text>')
    out.append(f'<line id="cz-cursor" x1="{pad_left}" y1="{pad_top}" x2="{pad_left}" '
               f'y2="{height - pad_bottom}" stroke="#555" stroke-dasharray="3,2" '
               f'data-x0="{pad_left}" data-step="{(width - pad_left - pad_right) / n:.4f}"/>')
    out.append("</svg>")
    return "".join(out)


def build_html(record, allow_files=False) -> str:
    """The viewer page of ``record`` (a dict in the :mod:`envs.records` format)."""
    data = viewer_data(record, allow_files=allow_files)
    # "<" escaped so that no "</script>" inside a label or a picture can end the script.
    payload = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    page = resources.files("envs").joinpath("view_page.html").read_text()
    title = f"{record['game']} seed {record['seed']}"
    return page.replace("{{TITLE}}", html.escape(title)).replace("{{DATA}}", payload)


def main(argv=None) -> int:
    from envs import cli

    parser = cli.ArgumentParser(
        prog="python -m envs.view",
        description="Write a recorded game as one self-contained HTML page (no server needed).")
    parser.add_argument("record", help="a record file: .json (one game) or .jsonl (one game a line)")
    parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    parser.add_argument("--index", type=cli.non_negative_int, default=0,
                        help="which game of a .jsonl file to show (0-based; default 0)")
    parser.add_argument("--allow-files", "--allow-data-path", action="store_true",
                        help="let the record's options open the files they name (such as "
                             "Expancity's data_path); off by default, since a record may come "
                             "from anyone (docs/security.md)")
    args = parser.parse_args(argv)
    try:
        games = records.load_all(args.record)
        if not 0 <= args.index < len(games):
            raise ValueError(f"--index {args.index} is out of range: {args.record!r} holds "
                             f"{len(games)} game(s)")
        page = build_html(games[args.index], allow_files=args.allow_files)
    except ValueError as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)   # one line
        return 2
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as exc:
        print(f"error: cannot write {args.output!r}: {exc.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {args.output} ({len(page) // 1024} KiB, {len(games[args.index]['actions'])} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
