"""Picture of a Tiny Towns table: the cards in play (named, by colour, each with its recipe:
the resource pattern of the game data), every town with its buildings (short codes explained
by the card row) and loose cubes, scores, the turn and the round's resource.

Hidden: each player's secret monument (dealt and kept) until it is built, the placements a
player commits during a round until they are all revealed -- another seat sees only that the
player has committed -- and a player's constructions of the round until the last builder is
done (another seat sees that player's town, score and monument as they were when the
placements were revealed).  While someone else commits or builds, a seat's view shows the
phase as "another player is placing" / "another player is building", as its observation does.
"""
from __future__ import annotations

import numpy as np

from envs.pictures import if_legal, legal_for_viewer
from envs.pictures.canvas import (HIGHLIGHT, INK, MUTED, PAPER, SEAT_COLOURS, Canvas, contrast,
                                  text_width)
from envs.tiny_towns_readouts import (CARD_CODES, RECIPE_RULE, pending_placement_text, player_record,  # shared with the text table
                                      recipe_inline, recipe_rows)
from kernels import tiny_towns as K

# Card colours by type (cottage, red, grey, orange, green, yellow, black, monument).
TYPE_FILLS = ("#4a6ec8", "#be3232", "#8c8c8c", "#e68c28", "#3c9646", "#e6c832", "#282828", "#9650b4")
RES_FILLS = ("#8a5a2b", "#f0dc3c", "#c83228", "#50aae6", "#b4b4b4")

CELL, GAP, MARGIN = 46, 3, 14
BOARD = 4 * CELL + 3 * GAP
PANEL_W, PANEL_H = BOARD + 40, BOARD + 134
CARD_W, CARD_H = 100, 98
RECIPE_CELL = 16   # a pattern cell on a card in play


def _card_fill(card):
    return TYPE_FILLS[int(K.CARD_TYPE[card])]   # monuments are type 7


def draw(state, cfg, observer=None, clickable=False) -> Canvas:
    st = K.STATE.fields(state)
    n = int(st.num_players)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    width = max(2 * MARGIN + cols * (PANEL_W + MARGIN) - MARGIN, 2 * MARGIN + 7 * (CARD_W + 6))
    top = 58 + CARD_H + 26
    height = top + rows * (PANEL_H + MARGIN) + 64
    c = Canvas(width, height, background=PAPER)
    mask = legal_for_viewer(K, state, observer, clickable)
    ranks = None
    if int(st.phase) == K.PH_GAME_OVER:
        ranks = np.zeros(cfg.num_participants, dtype=np.int64)
        K.ranks(state, ranks)

    _header(c, state, observer, width)
    _cards_in_play(c, state, 58, mask)
    for i in range(n):
        x = MARGIN + (i % cols) * (PANEL_W + MARGIN)
        y = top + (i // cols) * (PANEL_H + MARGIN)
        _town(c, state, i, x, y, None if ranks is None else int(ranks[i]), observer, mask)
    _footer(c, state, height - 50, width, mask)
    return c


def _phase_text(state, observer):
    st = K.STATE.fields(state)
    ph = int(st.phase)
    if observer is not None:   # the phase as the observer sees it, as in its observation
        if int(K.public_phase(state, observer)) == K.NUM_PHASES:
            return "another player is placing"
        if K.context_hidden(state, observer):
            return "another player is building"
    return K.PHASE_NAMES[ph]


def _header(c, state, observer, width):
    st = K.STATE.fields(state)
    n = int(st.num_players)
    variant = "solo" if st.solo else ("town hall" if st.town_hall else "standard")
    title = f"Tiny Towns ({variant})"
    c.text(MARGIN, 22, title, size=18, fill=INK, bold=True)
    c.text(MARGIN + text_width(title, 18) + 16, 22, f"round {int(st.round)}", size=15, fill=INK)
    view = "everything shown" if observer is None else f"view of player_{observer}"
    c.text(width - MARGIN, 22, view, size=12, fill=MUTED, anchor="end")
    ph = int(st.phase)
    line = f"phase: {_phase_text(state, observer)}"
    token = int(st.token_card)
    if token >= 0 and (observer is None or not K.context_hidden(state, observer)):
        line += f" ({K.CARD_NAMES[token]})"     # the building whose square is being chosen
    if ph != K.PH_GAME_OVER:
        line += f"   to move: player_{int(st.actor)}"
    if st.town_hall == 1:
        line += f"   mayor: player_{int(st.mayor)} ({'free' if st.town_hall_free_round else 'drawn'} round)"
    elif n > 1:
        line += f"   Master Builder: player_{int(st.master_builder)}"
    c.fit_text(MARGIN, 44, line, width - 2 * MARGIN - 190, size=14, fill=INK)
    res = int(st.round_resource)
    x = width - MARGIN - 150
    if res >= 0:
        c.text(x, 44, "resource:", size=14, fill=INK, anchor="end")
        _cube(c, x + 6, 31, 16, res)
        c.text(x + 26, 44, K.RES_IDS[res], size=14, fill=INK, bold=True)


def _cube(c, x, y, size, res, action=None, title=None):
    fill = RES_FILLS[res]
    c.rect(x, y, size, size, fill=fill, stroke=INK, rx=3, action=action, title=title or K.RES_IDS[res])
    if size >= 14:
        c.text(x + size / 2, y + size * 0.72, K.RES_CODES[res], size=int(size * 0.6), fill=contrast(fill),
               anchor="middle", bold=True)


def _cards_in_play(c, state, y, mask):
    """The seven cards everyone may build, named: they also explain the towns' codes."""
    st = K.STATE.fields(state)
    for t in range(K.NUM_TYPES):
        card = int(st.cards_in_play[t])
        if card < 0:
            continue
        x = MARGIN + t * (CARD_W + 6)
        fill = _card_fill(card)
        act = if_legal(mask, K.A_TYPE + t)
        c.rect(x, y, CARD_W, CARD_H, fill=fill, stroke=HIGHLIGHT if act is not None else INK,
               stroke_width=3 if act is not None else 1, rx=5, action=act,
               title=f"{K.CARD_NAMES[card]} ({K.TYPE_IDS[t]}): pattern {recipe_inline(card)}")
        ink = contrast(fill)
        c.text(x + 6, y + 17, CARD_CODES[card], size=14, fill=ink, bold=True)
        c.text(x + CARD_W - 6, y + 17, K.TYPE_IDS[t], size=10, fill=ink, anchor="end")
        c.fit_text(x + 6, y + 37, K.CARD_NAMES[card], CARD_W - 12, size=13, fill=ink)
        rows = recipe_rows(card)
        w = len(rows[0]) * RECIPE_CELL
        _recipe(c, card, x + (CARD_W - w) / 2, y + 45, RECIPE_CELL)
    c.text(MARGIN, y + CARD_H + 15, f"recipes: {RECIPE_RULE} (grey)", size=11, fill=MUTED)


def _recipe(c, card, x, y, cell):
    """Card ``card``'s resource pattern with its top-left corner at (x, y): a cube of the
    resource on each cell the pattern needs, a plain cell where any square will do."""
    for r, row in enumerate(recipe_rows(card)):
        for col, code in enumerate(row):
            cx, cy = x + col * cell, y + r * cell
            if code == ".":
                c.rect(cx + 1, cy + 1, cell - 2, cell - 2, fill="#d8d2c0", stroke="#a09880", rx=2,
                       title="any square")
            else:
                _cube(c, cx + 1, cy + 1, cell - 2, K.RES_CODES.index(code))


def _town(c, state, p, x, y, rank, observer, mask):
    st = K.STATE.fields(state)
    viewer = K.EVERYTHING if observer is None else observer
    rec = player_record(state, p, viewer)     # another seat's constructions of the round: hidden
    # the score as the kernel counts it (best feeding), with its parts and the fed squares
    parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
    score = int(K.score_seen(state, p, viewer, parts))
    fed = int(parts[K.NUM_CARDS + 1])
    actor = int(st.actor)
    to_move = actor == p and int(st.phase) != K.PH_GAME_OVER
    c.rect(x, y, PANEL_W, PANEL_H, fill="#fffdf7", stroke=HIGHLIGHT if to_move else "#c8c0a8",
           stroke_width=4 if to_move else 1, rx=8)
    c.circle(x + 14, y + 16, 7, fill=SEAT_COLOURS[p % len(SEAT_COLOURS)], stroke=INK)
    c.text(x + 26, y + 21, f"player_{p}", size=14, fill=INK, bold=True)
    c.text(x + PANEL_W - 10, y + 21, f"{score} VP", size=15, fill=INK, bold=True, anchor="end")
    status = ("complete (round %d)" % rec.done_round) if rec.status else "building"
    marks = []
    if to_move:
        marks.append("to move")
    if rank is not None:
        marks.append(f"final rank {rank}")
    if st.town_hall == 0 and st.num_players > 1 and st.master_builder == p:
        marks.append("hammer")
    c.fit_text(x + 10, y + 38, status + (" - " + ", ".join(marks) if marks else ""), PANEL_W - 20, size=12,
               fill=MUTED)
    gx, gy = x + 20, y + 46
    mine = observer is None or observer == p
    pend_dest = int(rec.pending_dest) if mine else -1
    for q in range(16):
        cx, cy = gx + (q % 4) * (CELL + GAP), gy + (q // 4) * (CELL + GAP)
        act = if_legal(mask, K.A_SQUARE + q) if actor == p else None
        _square(c, rec, q, cx, cy, act, pending=(pend_dest == q), fed=bool(fed >> q & 1))
    for r in range(4):   # square numbers, for the action labels
        c.text(gx - 4, gy + r * (CELL + GAP) + CELL / 2 + 4, str(4 * r), size=9, fill=MUTED, anchor="end")
    _holdings(c, state, p, rec, x + 10, gy + BOARD + 18, mine, mask)
    built = sorted({int(card) for card in rec.building if card >= 0})
    breakdown = [f"{CARD_CODES[card]} {int(parts[card])}" for card in built] + [f"empty {int(parts[K.NUM_CARDS])}"]
    lines = [("VP: ", [])]   # wrapped between parts: seven card types and a monument fit in two lines
    for part in breakdown:
        head, parts_of_line = lines[-1]
        if parts_of_line and text_width(head + ", ".join(parts_of_line + [part]), 11) > PANEL_W - 20:
            lines.append(("", []))
        lines[-1][1].append(part)
    for i, (head, parts_of_line) in enumerate(lines):
        more = "," if i < len(lines) - 1 else ""
        c.text(x + 10, y + PANEL_H - 22 + 14 * i, head + ", ".join(parts_of_line) + more, size=11, fill=INK)


def _square(c, rec, q, x, y, action, pending, fed):
    """Square q of the player record at ``b`` (its own, or the copy the others see)."""
    card = int(rec.building[q])
    cube = int(rec.cube[q])
    stroke, sw = (HIGHLIGHT, 3) if action is not None else ("#a09880", 1)
    if card >= 0:
        fill = _card_fill(card)
        c.rect(x, y, CELL, CELL, fill=fill, stroke=stroke, stroke_width=sw, rx=4, action=action,
               title=f"square {q}: {K.CARD_NAMES[card]}")
        ink = contrast(fill)
        c.text(x + CELL / 2, y + 27, CARD_CODES[card], size=17, fill=ink, anchor="middle", bold=True)
        if card in (K.C_COTTAGE, K.M_BARRETT):   # feeding decides whether it scores
            c.text(x + CELL / 2, y + CELL - 5, "fed" if fed else "unfed", size=9, fill=ink, anchor="middle")
        res = int(rec.building_resource[q])
        if res >= 0:
            _cube(c, x + CELL - 15, y + CELL - 15, 12, res)
        if card == K.C_WAREHOUSE:
            stock = [(k, int(rec.warehouse[q, k])) for k in range(K.NUM_RESOURCES)]
            for i, (k, cnt) in enumerate((k, cnt) for k, cnt in stock if cnt):
                c.text(x + 4 + 14 * i, y + CELL - 4, f"{K.RES_CODES[k]}{cnt}", size=10, fill=ink)
        return
    c.rect(x, y, CELL, CELL, fill="#efe6cc", stroke=stroke, stroke_width=sw, rx=4, action=action,
           title=f"square {q}")
    if cube >= 0:
        _cube(c, x + 9, y + 9, CELL - 18, cube)
    elif pending:
        c.rect(x + 9, y + 9, CELL - 18, CELL - 18, fill=None, stroke=INK, rx=3)
        c.text(x + CELL / 2, y + CELL / 2 + 4, "here", size=10, fill=INK, anchor="middle")


def _holdings(c, state, p, rec, x, y, mine, mask):
    """The monument line and, for whoever may see them, the secret monument and the pending
    placement; others see only that a monument is held and whether the player committed.
    ``b``: p's record as the viewer sees it."""
    st = K.STATE.fields(state)
    kept = int(rec.kept_monument)
    if st.monuments:
        if rec.monument_built:
            c.text(x, y, "monument built:", size=12, fill=INK)
            c.fit_text(x, y + 15, K.CARD_NAMES[kept], PANEL_W - 64, size=12, fill=INK, bold=True)
            _recipe(c, kept, x + PANEL_W - 20 - 10 * len(recipe_rows(kept)[0]), y - 10, 10)
        elif not mine:
            c.text(x, y, "monument: secret (face down)" if kept >= 0 else "monument: choosing",
                   size=12, fill=MUTED)
        elif kept >= 0:
            c.text(x, y, "secret monument:", size=12, fill="#6a2c91")
            c.fit_text(x, y + 15, K.CARD_NAMES[kept], PANEL_W - 64, size=12, fill="#6a2c91", bold=True)
            _recipe(c, kept, x + PANEL_W - 20 - 10 * len(recipe_rows(kept)[0]), y - 10, 10)
        else:
            dealt = [int(rec.dealt_monuments[i]) for i in range(K.MAX_MONUMENTS_DEALT)]
            c.text(x, y, "dealt monuments, keep one:", size=12, fill="#6a2c91")
            for i, m in enumerate(dealt):
                if m < 0:
                    continue
                act = if_legal(mask, K.A_KEEP + i) if int(st.actor) == p else None
                c.rect(x + i * 108, y + 5, 104, 22, fill="#e9dcf2", stroke=HIGHLIGHT if act is not None else INK,
                       stroke_width=3 if act is not None else 1, rx=4, action=act,
                       title=f"{K.CARD_NAMES[m]}: pattern {recipe_inline(m)}")
                c.fit_text(x + i * 108 + 4, y + 21, K.CARD_NAMES[m], 98 - 6 * len(recipe_rows(m)[0]), size=11,
                           fill=INK)
                _recipe(c, m, x + i * 108 + 101 - 6 * len(recipe_rows(m)[0]), y + 7, 6)
            return
    y += 30
    extra = []
    if st.cave_rule:
        extra.append(f"cave uses {int(rec.cave_uses)}/{K.CAVE_USES}")
    opal = [K.TYPE_IDS[k] for k in range(K.NUM_TYPES) if rec.opaleye_aside[k]]
    if opal:
        extra.append("Opaleye aside: " + ", ".join(opal))
    if mine:
        pend = pending_placement_text(state, p)
        if pend:
            extra.append(pend)
    elif rec.committed:
        extra.append("placement committed (hidden)")
    if extra:
        c.fit_text(x, y, "; ".join(extra), PANEL_W - 20, size=11, fill=MUTED)


def _footer(c, state, y, width, mask):
    """Resource key (clickable when a resource is to be named), the solo display or the Town
    Hall deck, and pass / set-aside buttons."""
    st = K.STATE.fields(state)
    c.text(MARGIN, y + 13, "resources:", size=12, fill=INK)
    x = MARGIN + 66
    for r in range(K.NUM_RESOURCES):
        act = if_legal(mask, K.A_RESOURCE + r)
        if act is not None:
            c.rect(x - 3, y - 2, 78, 22, fill=None, stroke=HIGHLIGHT, stroke_width=3, rx=4)
        _cube(c, x, y, 18, r, action=act, title=f"resource {K.RES_IDS[r]}")
        c.text(x + 22, y + 14, K.RES_IDS[r], size=12, fill=INK)
        x += 80
    info = ""
    if st.solo:
        disp = [f"{K.RES_IDS[r]} x{int(st.solo_display[r])}" for r in range(K.NUM_RESOURCES) if st.solo_display[r]]
        info = "display: " + (", ".join(disp) or "-")
    elif st.town_hall:
        info = f"resource deck: {int(st.draws_left)} draws before the reshuffle"
    if info:
        c.fit_text(MARGIN, y + 38, info, width - 2 * MARGIN - 200, size=12, fill=INK)
    if mask is not None:
        bx = width - MARGIN - 90
        for action, label in ((K.A_SET_ASIDE, "set aside"), (K.A_PASS, "pass")):
            if mask[action]:
                c.button(bx, y + 22, 86, 24, label, action=action)
                bx -= 94
