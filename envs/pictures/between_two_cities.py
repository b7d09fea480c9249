"""Picture of a Between Two Cities table: every city (each building a coloured square with a
short name, explained by the legend), its score and the two seats building it, then every
seat's score, hand and chosen tiles.

Hidden: another seat's hand (a seat's view shows only how many tiles it holds) and its
picks until every seat has committed (shown as "k/2 picked").  Solo hands are open, as in
the observation.  The Deep Learning City of the solo game has no layout, only counts.
"""
from __future__ import annotations

import numpy as np

from envs.pictures import legal_for_viewer
from envs.pictures.canvas import HIGHLIGHT, INK, MUTED, PAPER, SEAT_COLOURS, Canvas, contrast, text_width
from envs.between_two_cities_readouts import remembered_tiles
from kernels import between_two_cities as K

KIND_FILLS = ("#4285f4", "#787878", "#db4437", "#e67c28", "#c83ca0", "#962828", "#8cc8f0", "#4caf50",
              "#f4c430")
KIND_SHORT = ("Sh", "Fa", "Dr", "Fd", "Mu", "Lo", "Of", "Pa", "Ho")
KIND_WORDS = ("shop", "factory", "tavern (drink)", "tavern (food)", "tavern (music)", "tavern (lodging)",
              "office", "park", "house")
CELL, MARGIN = 28, 14
CITY_W, CITY_H = K.CANVAS * CELL + 16, K.CANVAS * CELL + 50
CHIP = 24
ROW_H = 40


def _solo(state):
    st = K.STATE.fields(state)
    return int(st.mode) in (K.MODE_SIMPLE, K.MODE_FULL)


def tile_words(t):
    """Tile code ``t`` in words, as its tooltip says it ("duplex park over house")."""
    if t < K.NUM_KINDS:
        return KIND_WORDS[t]
    a, b = K.DUPLEX_HALVES[t - K.NUM_KINDS]
    return f"duplex {KIND_WORDS[a]} {'over' if K.DUPLEX_STACKED[t - K.NUM_KINDS] else 'beside'} {KIND_WORDS[b]}"


def _city_owners(state, c):
    st = K.STATE.fields(state)
    mode, nc = int(st.mode), int(st.num_cities)
    if mode == K.MODE_2P:
        return f"player_{c // 2} ({'left' if c % 2 == 0 else 'right'})"
    if mode in (K.MODE_SIMPLE, K.MODE_FULL):
        return ("player_0 + automaton A", "Deep Learning City: A + B", "automaton B + player_0")[c]
    return f"player_{c} + player_{(c + 1) % nc}"


def draw(state, cfg, observer=None, clickable=False) -> Canvas:
    st = K.STATE.fields(state)
    nc = int(st.num_cities)
    participants = int(st.num_participants)
    cols = min(nc, 4)
    city_rows = (nc + cols - 1) // cols
    width = max(2 * MARGIN + cols * (CITY_W + MARGIN) - MARGIN, 720)
    seats_y = 70 + city_rows * (CITY_H + MARGIN)
    seen = range(int(st.num_seats)) if observer is None else [observer]
    memory = [f"player_{s} {line}" for s in seen for line in remembered_tiles(state, s)]
    height = seats_y + 20 + participants * ROW_H + (24 if _solo(state) else 0) + 18 * len(memory) + 70
    c = Canvas(width, height, background=PAPER)
    mask = legal_for_viewer(K, state, observer, clickable)
    totals = np.zeros(K.MAX_CITIES, dtype=np.int64)
    K.city_totals(state, totals)
    slots = np.zeros(2, dtype=np.int64)
    target = K.placement_target(state, slots) if int(st.phase) == K.PH_PLACE else -1
    _header(c, state, observer, width, target, mask is not None and target >= 0)
    for city in range(nc):
        x = MARGIN + (city % cols) * (CITY_W + MARGIN)
        y = 62 + (city // cols) * (CITY_H + MARGIN)
        _city(c, state, city, x, y, int(totals[city]), city == target, slots, mask)
    y = _seats(c, state, seats_y, observer, mask)
    for line in memory:   # what a seat remembers of tiles that left its hand unseen by others
        c.fit_text(MARGIN, y + 14, line, width - 2 * MARGIN, size=12, fill=MUTED)
        y += 18
    c.legend(MARGIN, y + 8, [(KIND_FILLS[k], f"{KIND_SHORT[k]} {KIND_WORDS[k]}") for k in range(K.NUM_KINDS)],
             width - 2 * MARGIN)
    return c


def _header(c, state, observer, width, target, clickable_placing):
    st = K.STATE.fields(state)
    ph = int(st.phase)
    c.text(MARGIN, 24, "Between Two Cities", size=18, fill=INK, bold=True)
    c.text(width - MARGIN, 24, "everything shown" if observer is None else f"view of player_{observer}",
           size=12, fill=MUTED, anchor="end")
    if ph == K.PH_END:
        line = "phase: game_over"
    else:
        r, t = K.round_and_turn(state)
        seat = int(K.current_player(state))
        line = f"round {r + 1}, turn {t + 1}   phase: {K.PHASE_NAMES[ph]}"
        if ph == K.PH_PICK:
            line += f" (choice {int(st.substep) + 1} of 2)"
        else:
            line += f" (into city {target})"
        line += f"   to move: player_{seat}"
    c.text(MARGIN + text_width("Between Two Cities", 18) + 18, 24, line, size=14, fill=INK)
    c.text(MARGIN, 48, "A seat scores its lower city (2 players: the sum of its two cities).", size=12,
           fill=MUTED)
    if clickable_placing:
        c.text(width - MARGIN, 48, "orange 1 / 2: where chosen tile 1 / 2 can go", size=12, fill=INK,
               anchor="end")


def _city(c, state, city, x, y, score, building, slots, mask):
    st = K.STATE.fields(state)
    c.rect(x, y, CITY_W, CITY_H, fill="#fffdf7", stroke=HIGHLIGHT if building else "#c8c0a8",
           stroke_width=4 if building else 1, rx=8)
    c.text(x + 8, y + 17, f"city {city}", size=13, fill=INK, bold=True)
    c.text(x + CITY_W - 8, y + 17, f"{score} points", size=13, fill=INK, bold=True, anchor="end")
    counts = st.kind_counts[city]
    factories = int(counts[K.KIND_NAMES.index("factory")])
    c.fit_text(x + 8, y + 33, f"{_city_owners(state, city)}; factories: {factories}", CITY_W - 16, size=11,
               fill=MUTED)
    gx, gy = x + 8, y + 42
    if _solo(state) and city == K.DLC:   # no layout: its buildings are only counted
        for k in range(K.NUM_KINDS):
            ry = gy + 4 + k * 21
            c.rect(gx, ry, 18, 18, fill=KIND_FILLS[k], stroke=INK, rx=2)
            c.text(gx + 24, ry + 14, f"{KIND_WORDS[k]}: {int(counts[k])}", size=12, fill=INK)
        return
    grid = st.grids[city]
    reach = _reachable(state, city)
    rows, cols = np.flatnonzero(reach.any(axis=1)), np.flatnonzero(reach.any(axis=0))
    # centre the cells the city can still use (the labels keep the canvas coordinates)
    gx += ((K.CANVAS - len(cols)) / 2 - cols[0]) * CELL
    gy += ((K.CANVAS - len(rows)) / 2 - rows[0]) * CELL
    for cell in range(K.CANVAS_CELLS):
        r, col = divmod(cell, K.CANVAS)
        cx, cy = gx + col * CELL, gy + r * CELL
        kind = int(grid[cell])
        if kind >= 0:
            c.rect(cx, cy, CELL, CELL, fill=KIND_FILLS[kind], stroke=INK, title=f"({r},{col}) {KIND_WORDS[kind]}")
            c.text(cx + CELL / 2, cy + CELL / 2 + 5, KIND_SHORT[kind], size=13, fill=contrast(KIND_FILLS[kind]),
                   anchor="middle", bold=True)
        elif reach[r, col]:
            c.rect(cx + 1, cy + 1, CELL - 2, CELL - 2, fill="#f1ecdc", stroke="#ddd5bd")
        if building and mask is not None:
            for k in range(2):   # one badge per waiting tile that may be anchored here
                a = K.ACTIONS.offset("place") + k * K.CANVAS_CELLS + cell
                if mask[a] and slots[k] >= 0:
                    c.circle(cx + 8 + 12 * k, cy + CELL / 2, 6, fill="#ff9800", stroke=INK, action=a,
                             title=f"place tile {k + 1} ({tile_words(int(slots[k]))}) anchored at ({r},{col})")
                    c.text(cx + 8 + 12 * k, cy + CELL / 2 + 3.5, str(k + 1), size=9, fill=INK, anchor="middle")


def _reachable(state, city):
    """Canvas cells a 4x4 city could still grow into (drawn faintly; the rest stays blank)."""
    box = K.BOX.fields(K.STATE.fields(state).boxes[city])
    out = np.zeros((K.CANVAS, K.CANVAS), dtype=bool)
    if box.cells == 0:
        out[3, 3] = True
        return out
    r0, r1 = int(box.min_row), int(box.max_row)
    c0, c1 = int(box.min_col), int(box.max_col)
    out[max(0, r1 - 3): min(K.CANVAS, r0 + 4), max(0, c1 - 3): min(K.CANVAS, c0 + 4)] = True
    return out


def _seats(c, state, y, observer, mask):
    """One row per participant: score, hand (or its size) and chosen tiles; returns the y below."""
    st = K.STATE.fields(state)
    participants = int(st.num_participants)
    solo = _solo(state)
    scores = np.zeros(K.MAX_SEATS, dtype=np.int64)
    K.scores(state, scores)
    ranks = None
    if int(st.phase) == K.PH_END:
        ranks = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.all_ranks(state, ranks)
    mover = int(K.current_player(state))
    placing = int(st.phase) == K.PH_PLACE
    c.text(MARGIN, y + 4, "seats", size=14, fill=INK, bold=True)
    y += 12
    pick = K.ACTIONS.offset("pick")
    for s in range(participants):
        ry = y + s * ROW_H
        name = f"player_{s}" if not solo or s == 0 else f"automaton {'AB'[s - 1]}"
        if s == mover:
            c.rect(MARGIN - 4, ry, c.width - 2 * MARGIN + 8, ROW_H - 4, fill="#fff4c4", stroke=HIGHLIGHT, rx=6)
        c.circle(MARGIN + 8, ry + 18, 7, fill=SEAT_COLOURS[s % len(SEAT_COLOURS)], stroke=INK)
        c.text(MARGIN + 20, ry + 16, name, size=13, fill=INK, bold=True)
        tail = f"{int(scores[s])} points" + (f", rank {int(ranks[s])}" if ranks is not None else "")
        c.text(MARGIN + 20, ry + 31, tail + ("  (to move)" if s == mover else ""), size=11, fill=MUTED)
        x = MARGIN + 170
        hand = st.hands[s]
        sees_hand = observer is None or observer == s or (solo and (s == 0 or int(st.mode) == K.MODE_FULL))
        if sees_hand:
            c.text(x, ry + 22, "hand:", size=12, fill=INK)
            x += 40
            for t in range(K.NUM_TILE_CODES):
                if hand[t]:
                    act = pick + t if (mask is not None and s == mover and mask[pick + t]) else None
                    x = _chip(c, x, ry + 4, t, int(hand[t]), act) + 6
        else:
            c.text(x, ry + 22, f"hand: {int(hand.sum())} tile(s), hidden", size=12, fill=MUTED)
            x += 170
        if not solo:
            x = max(x + 10, MARGIN + 520)
            chosen = [(k, int(t)) for k, t in enumerate(st.chosen[s]) if t >= 0]
            if observer is None or observer == s or placing:
                c.text(x, ry + 22, "chosen:" if chosen else "chosen: -", size=12, fill=INK)
                x += 52
                for k, t in chosen:   # numbered by slot, like the placement badges
                    c.text(x, ry + 22, f"{k + 1}:", size=11, fill=MUTED)
                    x = _chip(c, x + 14, ry + 4, t, 1, None) + 8
            else:
                c.text(x, ry + 22, f"{int(st.picks_made[s])} of 2 picked, hidden", size=12, fill=MUTED)
    y += participants * ROW_H
    if solo:
        waits = []
        for city, side in ((0, "left"), (2, "right")):
            tiles = [f"{k + 1}: " + (KIND_SHORT[t] if t < K.NUM_KINDS else tile_words(int(t)))
                     for k, t in enumerate(st.waiting[city]) if t >= 0]
            waits.append(f"waiting for the {side} city: {', '.join(tiles) or '-'}")
        c.text(MARGIN, y + 14, ";  ".join(waits), size=12, fill=INK)
        y += 24
    return y


def _chip(c, x, y, t, count, action):
    """Tile ``t`` as a small picture (a duplex: two joined squares); returns the right edge."""
    stroke, sw = (HIGHLIGHT, 3) if action is not None else (INK, 1)
    title = tile_words(t) + (f" x{count}" if count > 1 else "")
    if t < K.NUM_KINDS:
        halves, stacked = [t], False
    else:
        halves, stacked = list(K.DUPLEX_HALVES[t - K.NUM_KINDS]), bool(K.DUPLEX_STACKED[t - K.NUM_KINDS])
    hw, hh = CHIP, (17 if stacked else CHIP)   # one half: a stacked duplex is two short halves
    for i, k in enumerate(halves):
        hx, hy = (x, y + i * hh) if stacked else (x + i * hw, y)
        c.rect(hx, hy, hw, hh, fill=KIND_FILLS[k], stroke=INK)
        c.text(hx + hw / 2, hy + hh / 2 + 4, KIND_SHORT[k], size=11, fill=contrast(KIND_FILLS[k]),
               anchor="middle", bold=True)
    w = hw * (1 if stacked else len(halves))
    h = hh * (len(halves) if stacked else 1)
    c.rect(x - 1, y - 1, w + 2, h + 2, fill=None, stroke=stroke, stroke_width=sw, action=action, title=title)
    if count > 1:
        c.text(x + w + 2, y + 12, f"x{count}", size=11, fill=INK)
        return x + w + 18
    return x + w
