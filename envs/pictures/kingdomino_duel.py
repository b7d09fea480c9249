"""Picture of a Kingdomino Duel table: both 5x7 kingdoms (each cell's coat of arms as a
colour and a symbol, its crosses as "+"), the four dice with who holds them, the shared
spellbook (marks of both players, spells and their owners) and a legend.

Everything is public except future rolls, which no picture shows.  The observation gives
the ``?`` names and the declared spells of the observer's own seat only (the opponent's
show up once they take effect), so a seat's view leaves the other seat's out.
"""
from __future__ import annotations

import numpy as np

from envs.pictures import if_legal, legal_for_viewer
from envs.pictures.canvas import HIGHLIGHT, INK, MUTED, PAPER, SEAT_COLOURS, Canvas, contrast, text_width
from kernels import kingdomino_duel as K
from kernels.grid import DIRS

FAMILY_FILLS = ("#78be5a", "#5a96dc", "#e6c846", "#c86e3c", "#3c3c3c", "#b478c8")
FAMILY_NAMES = [k.replace("_", " ") for k in K.FAMILY_KEYS]
CELL, MARGIN = 46, 16
MAP_W, MAP_H = K.COLS * CELL, K.ROWS * CELL
WIDTH = 2 * MAP_W + 3 * MARGIN + 8 + 60
DIR_WORDS = ("north", "east", "south", "west")


def draw(state, cfg, observer=None, clickable=False) -> Canvas:
    c = Canvas(WIDTH, 60 + 56 + MAP_H + 14 + 186 + 40, background=PAPER)
    mask = legal_for_viewer(K, state, observer, clickable)
    scores = np.zeros(2, dtype=np.int64)
    K.scores(state, scores)
    _header(c, state, observer, scores)
    st = K.STATE.fields(state)     # the state's declared fields, by name
    for p in range(2):
        _kingdom(c, st, p, MARGIN + p * (MAP_W + MARGIN + 8), 60, int(scores[p]), observer, mask)
    y = 60 + 56 + MAP_H + 14
    _dice(c, st, MARGIN, y, mask)
    _spellbook(c, st, MARGIN + 4 * 74 + 20, y, mask)
    _legend(c, y + 186)
    return c


def _header(c, state, observer, scores):
    st = K.STATE.fields(state)
    ph = int(st.phase)
    c.text(MARGIN, 24, "Kingdomino Duel", size=18, fill=INK, bold=True)
    c.text(MARGIN + text_width("Kingdomino Duel", 18) + 16, 24,
           f"round {int(st.round)}   start player: player_{int(st.start_player)}", size=14, fill=INK)
    c.text(WIDTH - MARGIN, 24, "everything shown" if observer is None else f"view of player_{observer}",
           size=12, fill=MUTED, anchor="end")
    line = f"phase: {K.PHASE_NAMES[ph].lower()}"
    if ph == K.PH_GAME_OVER:
        ranks = np.zeros(2, dtype=np.int64)
        K.ranks(state, ranks)
        why = {K.END_MAP_FULL: "a map is full", K.END_NOBODY_DREW: "nobody drew"}.get(int(st.end_reason), "")
        result = "a draw" if ranks[0] == ranks[1] else f"player_{int(np.argmin(ranks))} wins"
        line += f"   ({why}): {int(scores[0])} - {int(scores[1])}, {result}"
    else:
        line += f"   to move: player_{int(st.mover)}"
    c.text(MARGIN, 46, line, size=14, fill=INK)


def _kingdom(c, st, p, x, y, score, observer, mask):
    mover = int(st.mover)
    c.rect(x - 6, y - 4, MAP_W + 12, MAP_H + 54, fill="#fffdf7",
           stroke=HIGHLIGHT if mover == p else "#c8c0a8", stroke_width=4 if mover == p else 1, rx=8)
    c.circle(x + 8, y + 12, 7, fill=SEAT_COLOURS[p], stroke=INK)
    tags = []
    if int(st.start_player) == p:
        tags.append("start player")
    if mover == p:
        tags.append("to move")
    c.text(x + 20, y + 17, f"player_{p}" + (f"  ({', '.join(tags)})" if tags else ""), size=14, fill=INK, bold=True)
    c.text(x + MAP_W, y + 17, f"{score} points", size=15, fill=INK, bold=True, anchor="end")
    bonus = int(st.bonus_family[p])
    info = f"castle bonus {'used' if st.castle_used[p] else 'unused'}"
    if bonus >= 0:
        info += f"; domain bonus: {FAMILY_NAMES[bonus]}"
    if observer is None or observer == p:   # '?' names and declarations: the seat's own view only
        names = [int(st.wild_name[p, s]) for s in range(2)]
        if any(n >= 0 for n in names):
            info += "; ? named " + "/".join(FAMILY_NAMES[n] if n >= 0 else "-" for n in names)
        declared = [K.SPELL_KEYS[i].replace("_", " ") for i in range(2) if st.declared[p, i]]
        if declared:
            info += "; declared " + ", ".join(declared)
    c.fit_text(x, y + 36, info, MAP_W, size=12, fill=MUTED)
    gy = y + 44
    split_first = int(st.split_first_cell) if mover == p else -1
    for i in range(K.NUM_CELLS):
        r, col = divmod(i, K.COLS)
        cx, cy = x + col * CELL, gy + r * CELL
        act = if_legal(mask, K.A_CELL + i) if mover == p else None
        _cell(c, st, p, i, cx, cy, act, i == split_first)
        if mover == p and mask is not None:
            for d in range(K.NUM_DIRS):
                a = if_legal(mask, K.A_PLACE + K.NUM_DIRS * i + d)
                if a is not None:
                    _place_arrow(c, cx, cy, d, a, i)


def _cell(c, st, p, i, x, y, action, marked):
    f = int(st.map_family[p, i])
    stroke, sw = (HIGHLIGHT, 3) if action is not None or marked else ("#9a9280", 1)
    r, col = divmod(i, K.COLS)
    if f == K.CASTLE_CODE:
        c.rect(x, y, CELL, CELL, fill="#e6e6e6", stroke=stroke, stroke_width=sw, action=action, title="castle")
        c.rect(x + 12, y + 20, CELL - 24, CELL - 26, fill="#787878")
        roof = "#c82828" if st.castle_used[p] else "#a0a0a0"
        c.polygon([(x + 8, y + 20), (x + CELL / 2, y + 6), (x + CELL - 8, y + 20)], fill=roof, stroke=INK)
    elif f >= 0:
        crosses = int(st.map_crosses[p, i])
        c.rect(x, y, CELL, CELL, fill=FAMILY_FILLS[f], stroke=stroke, stroke_width=sw, action=action,
               title=f"({r},{col}) {FAMILY_NAMES[f]}, {crosses} cross{'es' if crosses != 1 else ''}")
        _symbol(c, x, y, CELL, f)
        if crosses:
            c.text(x + CELL - 3, y + 13, "+" * crosses, size=14, fill=contrast(FAMILY_FILLS[f]), anchor="end",
                   bold=True)
    else:
        c.rect(x, y, CELL, CELL, fill="#ffffff", stroke=stroke, stroke_width=sw, action=action,
               title=f"({r},{col}) empty")


def _symbol(c, x, y, size, f):
    """The coat of arms of family ``f``, drawn in the contrasting ink of its colour."""
    ink = contrast(FAMILY_FILLS[f])
    cx, cy, s = x + size / 2, y + size / 2 + 2, size / 46
    if f == 0:
        c.circle(cx, cy, 5 * s, fill=ink)
    elif f == 1:
        c.rect(cx - 13 * s, cy - 2 * s, 26 * s, 4 * s, fill=ink)
    elif f == 2:
        c.circle(cx - 7 * s, cy, 5 * s, fill=ink)
        c.circle(cx + 7 * s, cy, 5 * s, fill=ink)
    elif f == 3:
        c.rect(cx - 13 * s, cy - 7 * s, 26 * s, 4 * s, fill=ink)
        c.rect(cx - 13 * s, cy + 3 * s, 26 * s, 4 * s, fill=ink)
    elif f == 4:
        c.rect(cx - 8 * s, cy - 8 * s, 16 * s, 16 * s, stroke=ink, stroke_width=2)
    else:
        c.line(cx, cy - 11 * s, cx, cy + 11 * s, ink, 3)
        c.line(cx - 11 * s, cy, cx + 11 * s, cy, ink, 3)


def _place_arrow(c, x, y, d, action, cell):
    """A clickable wedge at the edge of ``cell`` pointing where the second half would go."""
    dr, dc = DIRS[d]
    cx, cy, h = x + CELL / 2 + dc * (CELL / 2 - 8), y + CELL / 2 + dr * (CELL / 2 - 8), 8
    tip = (cx + dc * 6, cy + dr * 6)
    base = [(cx - dr * h - dc * 2, cy - dc * h - dr * 2), (cx + dr * h - dc * 2, cy + dc * h - dr * 2)]
    c.polygon([tip] + base, fill="#ff9800", stroke=INK, action=action,
              title=f"place: first half on ({cell // K.COLS},{cell % K.COLS}), second to the {DIR_WORDS[d]}")


def _dice(c, st, x, y, mask):
    c.text(x, y + 12, "dice", size=14, fill=INK, bold=True)
    for d in range(K.NUM_DICE):
        dx, dy = x + d * 74, y + 22
        face = int(st.die_face[d])
        fam, crosses = int(K.DICE[d, face, 0]), int(K.DICE[d, face, 1])
        holder = int(st.die_holder[d])
        act = if_legal(mask, K.A_PICK_DIE + d)
        fill = "#ffffff" if fam == K.WILD else FAMILY_FILLS[fam]
        name = "?" if fam == K.WILD else FAMILY_NAMES[fam]
        c.rect(dx, dy, 56, 56, fill=fill, stroke=HIGHLIGHT if act is not None else INK,
               stroke_width=4 if act is not None else 2, rx=8, action=act,
               title=f"die {d}: {name}, {crosses} cross{'es' if crosses != 1 else ''}")
        if fam == K.WILD:
            c.text(dx + 28, dy + 38, "?", size=26, fill=INK, anchor="middle", bold=True)
        else:
            _symbol(c, dx + 5, dy + 5, 46, fam)
        if crosses:
            c.text(dx + 53, dy + 15, "+" * crosses, size=14, fill=contrast(fill), anchor="end", bold=True)
        notes = ["free" if holder < 0 else f"player_{holder}"]
        if holder >= 0:   # the slot says which half of the domino the die is
            for slot, half in ((0, "first half"), (1, "second half")):
                if int(st.slot_die[holder, slot]) == d:
                    notes.append(half)
        if st.die_turned[d]:
            notes.append("turned")
        if holder >= 0 and st.castle_target[holder] >= 0 and \
                st.slot_die[holder, st.castle_target[holder]] == d:
            notes.append("+castle")
        for k, note in enumerate(notes):
            c.text(dx + 28, dy + 72 + 14 * k, note, size=12, fill=INK if k == 0 else MUTED, anchor="middle")
    bx = x
    for action, label in ((K.A_SKIP, "skip"), (K.A_PASS, "pass")):
        if mask is not None and mask[action]:
            c.button(bx, y + 130, 70, 26, label, action=action)
            bx += 78


def _spellbook(c, st, x, y, mask):
    c.text(x, y + 12, "spellbook", size=14, fill=INK, bold=True)
    c.text(x + 118, y + 12, "marks p0 / p1", size=11, fill=MUTED)
    c.text(x + 190, y + 12, "spell", size=11, fill=MUTED)
    c.text(x + 330, y + 12, "owner", size=11, fill=MUTED)
    spell_actions = {K.SPELL_KEYS.index(k): K.ACTIONS.offset(k)
                     for k in ("double_first_pick", "ignore_connection", "split_domino")}
    for f in range(K.NUM_FAMILIES):
        ry = y + 22 + f * 26
        fam_act = if_legal(mask, K.A_FAMILY + f)
        c.rect(x, ry, 22, 22, fill=FAMILY_FILLS[f], stroke=HIGHLIGHT if fam_act is not None else INK,
               stroke_width=3 if fam_act is not None else 1, action=fam_act, title=f"family {FAMILY_NAMES[f]}")
        _symbol(c, x, ry, 22, f)
        c.text(x + 28, ry + 16, FAMILY_NAMES[f], size=12, fill=INK)
        marks = [int(st.marks[p, f]) for p in range(2)]
        c.text(x + 118, ry + 16, f"{marks[0]} / {marks[1]} of {int(K.ROW_LEN[f])}", size=12, fill=INK)
        sp = int(K.FAMILY_SPELL[f])
        owner = int(st.spell_owner[sp])
        who = "-" if owner < 0 else f"player_{owner}" + (" (used)" if st.spell_used[sp] else "")
        act = if_legal(mask, spell_actions[sp]) if sp in spell_actions else None
        if act is not None:
            c.button(x + 186, ry, 138, 22, K.SPELL_KEYS[sp].replace("_", " "), action=act, fill="#ffe9a8", size=11)
        else:
            c.text(x + 190, ry + 16, K.SPELL_KEYS[sp].replace("_", " "), size=12, fill=INK)
        c.text(x + 330, ry + 16, who, size=12, fill=MUTED if owner < 0 else INK)


def _legend(c, y):
    """The spellbook rows double as the key of the coats of arms; the rest is said here."""
    c.text(MARGIN, y + 12, "+ = one cross (a domain scores its cells times its crosses);  "
           "castle roof: grey = castle bonus unused, red = used", size=12, fill=MUTED)
    c.text(MARGIN, y + 28, "orange wedges (when it is your move): put the first half there, "
           "the second half where the wedge points", size=12, fill=MUTED)
