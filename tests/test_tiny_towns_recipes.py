"""Tiny Towns' cards show their recipe (the resource pattern a building needs) wherever a person
reads the table: on the cards in play of the picture (SVG/RGB, the viewer's and the web app's),
in the terminal table (``render_ansi``, the table ``agents.play`` prints) and with the secret
and dealt monuments.  Every rendered pattern is compared with the game data file read here
directly, not with the kernel's copy of it."""
from pathlib import Path

import pytest
import yaml

import envs
from envs.pictures import tiny_towns as picture
from envs.tiny_towns_readouts import CARD_CODES, recipe_table
from kernels import tiny_towns as K

DATA = yaml.safe_load((Path(K.__file__).parent / "data" / "tiny_towns.yaml").read_text())
PATTERN = {c["name"]: c["pattern"] for c in DATA["buildings"] + DATA["monuments"]}
RESOURCE = {r["id"]: r["code"] for r in DATA["resources"]}
BUILDINGS = [b["name"] for b in DATA["buildings"]]
MONUMENTS = [m["name"] for m in DATA["monuments"]]


def _decks():
    """Four ``buildings`` options that together put every building card in play."""
    by_type = {}
    for b in DATA["buildings"]:
        if b["type"] != "cottage":
            by_type.setdefault(b["type"], []).append(b["name"])
    assert all(len(names) == 4 for names in by_type.values())
    return [[names[i] for names in by_type.values()] for i in range(4)]


def _env(buildings, seed=0, **options):
    env = envs.make("tiny_towns_v0", render_mode="ansi", buildings=buildings, **options)
    env.reset(seed=seed)
    return env.unwrapped


def parse_recipe_table(text):
    """{card name: pattern rows} from the recipe blocks of a terminal table: each block row is
    a line of "Co Cottage" headings (three spaces or more apart) over the pattern lines."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("recipes ("))
    assert "rotation or mirror image" in lines[start]
    found, i = {}, start + 2
    while i < len(lines) and lines[i].startswith("  ") and lines[i][2:3].strip():
        heading = lines[i]
        starts = [2] + [j for j in range(3, len(heading)) if heading[j - 3:j] == "   " and heading[j] != " "]
        ends = starts[1:] + [None]
        body = []
        i += 1
        while i < len(lines) and set(lines[i].strip()) <= set(" ." + "".join(RESOURCE.values())) \
                and lines[i].strip():
            body.append(lines[i])
            i += 1
        for a, b in zip(starts, ends):
            code, name = heading[a:b].strip().split(" ", 1)
            rows = [line[a:b].replace(" ", "") for line in body]
            found[name] = [r for r in rows if r]
            assert code == CARD_CODES[K.CARD_NAMES.index(name)]
    return found


@pytest.mark.parametrize("deck", range(4))
def test_terminal_table_shows_each_card_in_plays_pattern(deck):
    raw = _env(_decks()[deck])
    shown = parse_recipe_table(raw.text())
    assert sorted(shown) == sorted(["Cottage"] + _decks()[deck])
    for name, rows in shown.items():
        assert rows == PATTERN[name], name
    # the person at the terminal reads the same table (agents.play prints env.text(seat))
    assert parse_recipe_table(raw.text(observer=1)) == shown


def test_recipe_table_wraps_and_keeps_every_pattern():
    cards = list(range(K.NUM_CARDS))
    lines = recipe_table(cards, width=60)
    assert max(len(line) for line in lines[2:]) <= 60   # the blocks; the two heading lines are fixed
    shown = parse_recipe_table("\n".join(lines))
    assert shown == {name: PATTERN[name] for name in BUILDINGS + MONUMENTS}


def _card_shapes(canvas):
    """{card name: (card rect, [(x, y, w, resource code or ".")])}: the cards in play and the
    pattern cells drawn on each."""
    shapes = canvas.shapes
    cards = {}
    for kind, p in shapes:
        if kind == "rect" and p.get("title") and ": pattern " in p["title"] and p["h"] == picture.CARD_H:
            cards[p["title"].split(" (")[0]] = p
    cells = {name: [] for name in cards}
    codes = {**{rid: code for rid, code in RESOURCE.items()}, "any square": "."}
    for kind, p in shapes:
        if kind != "rect" or p.get("title") not in codes:
            continue
        for name, r in cards.items():
            if r["x"] <= p["x"] < r["x"] + r["w"] and r["y"] <= p["y"] < r["y"] + r["h"]:
                cells[name].append((p["x"], p["y"], p["w"], codes[p["title"]]))
    return cards, cells


def _rows_from_cells(cells, cell):
    """The pattern rows the drawn cells spell (cells on a grid of ``cell`` pixels)."""
    x0, y0 = min(x for x, _, _, _ in cells), min(y for _, y, _, _ in cells)
    grid = {(round((y - y0) / cell), round((x - x0) / cell)): code for x, y, _, code in cells}
    h, w = max(r for r, _ in grid) + 1, max(c for _, c in grid) + 1
    assert len(grid) == h * w, "a pattern fills its bounding box, '.' cells included"
    return ["".join(grid[r, c] for c in range(w)) for r in range(h)]


@pytest.mark.parametrize("deck", range(4))
def test_picture_cards_show_the_datas_pattern(deck):
    raw = _env(_decks()[deck])
    for observer in (None, 0):
        canvas = raw.spec.picture(raw.game_state(), raw.cfg, observer)
        cards, cells = _card_shapes(canvas)
        assert sorted(cards) == sorted(["Cottage"] + _decks()[deck])
        for name, drawn in cells.items():
            assert _rows_from_cells(drawn, picture.RECIPE_CELL) == PATTERN[name], name
            # the tooltip spells it too: rows top to bottom, cells spaced, rows split by " / "
            tip = cards[name]["title"].split(": pattern ")[1]
            assert [row.replace(" ", "") for row in tip.split(" / ")] == PATTERN[name]
    assert "rotation or mirror image" in " ".join(canvas.texts())
    svg = raw.svg()
    assert all(f"{name} (" in svg for name in cards)
    assert raw.spec.picture(raw.game_state(), raw.cfg).to_rgb().shape[2] == 3


def _monument_cells(canvas, cell):
    """Pattern cells drawn outside the card row (the monuments'), by their top-left corner."""
    top = picture.CARD_H + 58
    codes = {**RESOURCE, "any square": "."}
    return [(p["x"], p["y"], p["w"], codes[p["title"]]) for kind, p in canvas.shapes
            if kind == "rect" and p.get("title") in codes and p["y"] > top and p["w"] == cell - 2]


def test_monuments_show_their_pattern_to_whoever_holds_them():
    raw = _env(_decks()[0], seed=4, num_players=2)
    state = raw.game_state()
    b = K._player_base(0)
    dealt = [K.CARD_NAMES[int(m)] for m in state[b + K.O_DEALT:b + K.O_DEALT + K.MAX_MONUMENTS_DEALT]]
    text = raw.text(observer=0)
    for name in dealt:
        spaced = " / ".join(" ".join(row) for row in PATTERN[name])
        assert f"{name} (pattern {spaced})" in text
    # the dealt boxes of the picture: one small pattern each, as the data prints it
    canvas = raw.spec.picture(state, raw.cfg, 0)
    drawn = _monument_cells(canvas, 6)
    groups = {}
    for x, y, w, code in drawn:
        box = int((x - picture.MARGIN - 10) // 108)    # seat 0's panel: boxes 108 px apart
        groups.setdefault(box, []).append((x, y, w, code))
    assert [_rows_from_cells(groups[i], 6) for i in sorted(groups)] == [PATTERN[n] for n in dealt]
    # seat 1 sees neither the names nor the patterns of seat 0's monuments
    other = raw.spec.picture(state, raw.cfg, 1)
    assert not any(name in " ".join(other.texts()) for name in dealt)
    # keep one: the secret monument's line names its pattern
    assert raw.agent_selection == "player_0"
    raw.step(int(raw.legal_actions()[0]))
    kept = K.CARD_NAMES[int(raw.game_state()[b + K.O_KEPT])]
    spaced = " / ".join(" ".join(row) for row in PATTERN[kept])
    assert f"secret monument: {kept} (pattern {spaced})" in raw.text(observer=0)
