"""Picture of a Smartphone Inc. game (``smartphone_inc_v0``).

Top: the round, the phase track and the decision in progress.  Left: the world map, one
box per region laid out roughly as on the board (links drawn between them), with its
office slots (leadership VP under each), its buyers (red: price cap, purple: the
technology needed; filled with the colour of the company that sold there this round),
a retailer tile where one covers it, and the logistics markers on it.  Right: the six
technologies (side, effect, cost, patent, owners, research markers), the improvement
tiles on display and the supplies.  Below: one panel per company -- score, VP track,
price, goods, technologies, improvement tiles and this round's plan (the two pads seen
from above, with the tiles laid on them).

Plans are simultaneous and secret: a seat's view shows its own plan at every moment and
the others' only once every plan is revealed (as the kernel's ``observe``); before that
it shows whether each company has committed.
"""
from __future__ import annotations

import numpy as np

from envs.pictures.canvas import INK, MUTED, Canvas, contrast, put_behind, text_width, wrap_text
from envs.smartphone_inc_readouts import STEVE_COVERED, plan_cells
from kernels import smartphone_inc as K

COMPANY_COLOURS = {"green": "#2e9e44", "blue": "#2f5fd0", "black": "#222222", "yellow": "#e3c21b",
                   "red": "#cf2e2e"}
_ACCENT, _CLICK, _CLICK_FILL = "#b03a00", "#1f8f3a", "#cfeed5"

# icon: (short code on a plan cell, fill, what it does)
_ICONS = {
    K.BLANK: ("", "#ffffff", "blank"),
    K.IMP: ("Imp", "#c89a6a", "improvement: take a display tile (a goods token when covered)"),
    K.CHEAP: ("$-G", "#8fd08f", "price -1 and +1 good"),
    K.PRICE_UP: ("$+", "#f2a0a0", "price +1"),
    K.RES: ("Res", "#9dbff0", "1 research marker"),
    K.LOG: ("Log", "#f5c971", "1 logistics marker"),
    K.PROD: ("G", "#4fae5a", "+1 good"),
    K.PRICE_DOWN: ("$-", "#c7ecc0", "price -1"),
}
_TECH_SHORT = {"gps": "GPS", "wifi": "WiFi", "gamepad": "Pad", "li_ion": "Li", "nfc": "NFC", "4g": "4G"}
_EFFECT_TEXT = {
    "none": "no effect",
    "prod_icon_double": "production icons give 2 goods",
    "produce_now": "produce {n} goods at once",
    "free_second_office": "a free second office each logistics phase",
    "keep_unsold_goods": "unsold goods are kept",
    "research_discount": "technologies cost you 1 less",
    "free_small_office": "a free office in a small region",
    "res_counts_as_log": "research icons also give logistics",
    "produce_per_two_techs": "+1 good per 2 technologies owned",
    "direct_sale": "sell up to {n} goods directly (logistics)",
    "price_plus_one": "price +1",
    "tile_overhang": "tiles may overhang the pads by 1 cell",
    "sell_without_office": "sell 1 good where you have no office",
}
_BONUS_TEXT = {"none": "no bonus", "produce": "bonus: produce {n} goods",
               "tech_markers": "bonus: {n} research markers", "price_shift": "bonus: price +1 or -1",
               "extra_office": "bonus: a second office", "move_office": "bonus: move an office"}
_PHASE_TITLES = ("Planning", "Pricing", "Production", "Improvement", "Research", "Logistics", "Selling",
                 "Scoring")
_PLANNING = ("sides", "arrange", "tile_pick", "tile_place")    # the steps of one secret plan
_DECISION_TEXT = {
    "planning": "planning in secret",
    "sides": "planning: choose a side for each pad (W and B)",
    "arrange": "planning: lay the top pad over the bottom one",
    "tile_pick": "planning: pick the next improvement tile to place, or commit the plan",
    "tile_place": "planning: place the picked tile on the pads (or face down for +1 good)",
    "improve_pick": "improvement: take a tile from the display",
    "research": "research: place research markers on technologies",
    "logistics": "logistics: place logistics markers on linked regions",
    "office_target": "choose the region of a new office",
    "move_source": "choose the region an office moves away from",
    "nfc_sell": "NFC: sell goods directly",
    "sell": "selling: choose the region of the next good",
    "bonus_tech": "retailer bonus: place a research marker",
    "bonus_price": "retailer bonus: move the price",
}

# Regions roughly where they sit on the board: (column, row) of a 5 x 3 grid.
_MAP_POS = {"Canada": (0, 0), "USA": (0, 1), "Caribbean": (1, 1), "South America": (1, 2),
            "Europe": (2, 0), "North Africa": (2, 1), "RSA": (2, 2), "Russia": (3, 0), "Emirates": (3, 1),
            "China": (4, 0), "India": (4, 1), "Australia": (4, 2)}
_REGION_W, _REGION_H, _REGION_GAP = 156, 124, 14
_PANEL_W = 408
_CELL = 20


class _Context:
    """The state, who looks, and the legal clicks of the company to move."""

    def __init__(self, state, cfg, observer, clickable, action_label):
        self.state, self.cfg, self.observer = state, cfg, observer
        st = self.st = K.STATE.fields(state)     # the state's declared fields, by name
        self.n = int(st.num_companies)
        self.steve = int(st.steve)
        self.over = bool(st.over)
        self.current = -1 if self.over else int(st.current)
        self.pending = "game_over" if self.over else K.BLOCK_NAMES[int(st.pending)]
        # How far a rival has got with its secret plan is hidden too (its observation says
        # only whose turn it is to plan): such a viewer sees the phase as "planning".
        if self.pending in _PLANNING and observer not in (None, self.current):
            self.pending = "planning"
        self.revealed = bool(st.revealed)
        self.legal = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
        # Moves are the mover's to click (in its own view, or the omniscient one).
        if clickable and self.current >= 0 and observer in (None, self.current):
            K.legal_mask(state.copy(), self.legal)
        if clickable and action_label is None:
            raise ValueError("action_label (the adapter's, to title clickable moves) is needed with clickable=True")
        self._label = action_label

    def colour(self, c):
        return K.COLOURS[int(K.COMPANY.fields(self.st.companies[c]).colour)]

    def fill(self, c):
        return COMPANY_COLOURS[self.colour(c)]

    def name(self, c):
        return f"Steve ({self.colour(c)})" if c == self.steve else f"player_{c} ({self.colour(c)})"

    def sees_plan(self, c):
        """May the viewer see company ``c``'s plan of this round?"""
        return self.observer is None or self.observer == c or self.revealed

    def action(self, block_offset, i):
        a = int(block_offset) + int(i)
        return a if self.legal[a] else None

    def label(self, a):
        return self._label(self.state, self.cfg, int(a))


def _tile_chip(cv, x, y, tile, action=None, title=None, cell=18):
    """An improvement tile: a domino of two icon cells; ``tile`` < 0 draws an empty slot."""
    if tile < 0:
        cv.rect(x, y, 2 * cell, cell, fill="#f0f0f0", stroke="#bbbbbb", rx=2, title=title or "empty")
        return 2 * cell
    icons = [int(i) for i in K.TT_ICONS[tile]]
    text = title or ("improvement tile " + " / ".join(_ICONS[i][2] for i in icons))
    for k, icon in enumerate(icons):
        code, fill, _ = _ICONS[icon]
        cv.rect(x + k * cell, y, cell, cell, fill=fill, stroke="#6a3d9a", stroke_width=1, action=action,
                title=text)
        cv.text(x + k * cell + cell / 2, y + cell / 2 + 3, code, size=8, fill=INK, anchor="middle")
    cv.rect(x, y, 2 * cell, cell, stroke=_CLICK if action is not None else "#6a3d9a",
            stroke_width=2 if action is not None else 1.5, action=action, title=text)
    return 2 * cell


def _company_chip(cv, ctx, x, y, c, text=None, size=10):
    """A small square of company ``c``'s colour, with ``text`` on it."""
    w = max(14, text_width(text, size) + 6) if text else 12
    cv.rect(x, y, w, 14, fill=ctx.fill(c), stroke="#000000", rx=2, title=ctx.name(c))
    if text:
        cv.text(x + w / 2, y + 11, text, size=size, fill=contrast(ctx.fill(c)), anchor="middle", bold=True)
    return w


# -------------------------------------------------------------------------- map

def _region_xy(r, left, top):
    col, row = _MAP_POS.get(K.REGION_NAMES[r], (r % 5, r // 5))
    return left + col * (_REGION_W + _REGION_GAP), top + row * (_REGION_H + _REGION_GAP)


def _crosses_box(p, q, box):
    """Does segment p-q pass through the rectangle ``box`` (x0, y0, x1, y1)?"""
    for k in range(1, 40):
        t = k / 40
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if box[0] < x < box[2] and box[1] < y < box[3]:
            return True
    return False


def _links(cv, ctx, left, top):
    """A line between linked regions; links that would cross a third region are named in
    the region boxes instead.  Returns {region: [names of those far links]}."""
    boxes = {r: _region_xy(r, left, top) for r in range(K.NUM_REGIONS)}
    centre = {r: (x + _REGION_W / 2, y + _REGION_H / 2) for r, (x, y) in boxes.items()}
    far = {r: [] for r in range(K.NUM_REGIONS)}
    for r in range(K.NUM_REGIONS):
        for q in range(r + 1, K.NUM_REGIONS):
            if not K.LINK[r, q]:
                continue
            blocked = any(_crosses_box(centre[r], centre[q], (x, y, x + _REGION_W, y + _REGION_H))
                          for o, (x, y) in boxes.items() if o not in (r, q))
            if blocked:
                far[r].append(K.REGION_NAMES[q])
                far[q].append(K.REGION_NAMES[r])
            else:
                cv.line(*centre[r], *centre[q], stroke="#9aa7b8", width=3)
    return far


def _region_action(ctx, r):
    for block in (K.A_LOGISTICS, K.A_OFFICE_TARGET, K.A_MOVE_SOURCE, K.A_SELL):
        a = ctx.action(block, r)
        if a is not None:
            return a
    return None


def _region(cv, ctx, r, x, y, far):
    st = ctx.st
    a = _region_action(ctx, r)
    size = K.SIZES[int(K.REG_SIZE[r])]
    retailer = int(st.retailer[r])
    title = ctx.label(a) if a is not None else f"{K.REGION_NAMES[r]}: size {size}, office cost {int(K.REG_COST[r])}"
    cv.rect(x, y, _REGION_W, _REGION_H, fill="#eef3fa", stroke=_CLICK if a is not None else "#7d8ba0",
            stroke_width=3 if a is not None else 1, rx=6, action=a, title=title)
    cv.rect(x, y, _REGION_W, 18, fill="#d5e0f0" if a is None else "#cfeed5", stroke=None, rx=6,
            action=a, title=title)
    cv.text(x + 5, y + 13, K.REGION_NAMES[r], size=11, fill=INK, bold=True)
    cv.text(x + _REGION_W - 5, y + 13, f"{size}  cost {int(K.REG_COST[r])}", size=10, fill=MUTED, anchor="end")
    # offices: slots left to right, leadership VP (first/second) under each
    cy = y + 22
    for slot in range(int(K.REG_NSLOT[r])):
        who = int(st.offices[r, slot])
        sx = x + 5 + slot * 29
        vp = K.REG_SLOTVP[r, slot]
        vp_text = f"{int(vp[0])}" + (f"/{int(vp[1])}" if vp[1] >= 0 else "")
        cv.rect(sx, cy, 26, 13, fill=ctx.fill(who) if who >= 0 else "#ffffff", stroke="#444444", rx=2,
                title=(f"office of {ctx.name(who)}" if who >= 0 else "free office slot")
                + f"; leadership {vp_text} VP when it is the rightmost office")
        cv.text(sx + 13, cy + 23, vp_text, size=8, fill=MUTED, anchor="middle")
    cy += 28
    if retailer >= 0:
        side = int(st.retailer_side[r])
        kind = K.BONUS_KINDS[int(K.RT_BONUS[retailer, side])]
        rsize = int(K.RT_SIZE[retailer])
        cv.rect(x + 4, cy, _REGION_W - 8, 44, fill="#fbe3b8", stroke="#b07a1a", rx=4,
                title=f"retailer {K.RETAILER_IDS[retailer]} (side {'ab'[side]}) covers the buyers; "
                      "its offices score the VP shown at the end")
        cv.text(x + 8, cy + 12, f"retailer: {_BONUS_TEXT[kind].format(n=int(K.RT_N[retailer, side]))}",
                size=9, fill=INK)
        for slot in range(int(K.RT_NSLOT[rsize])):
            who = int(st.retailer_offices[r, slot])
            sx = x + 8 + slot * 29
            cv.rect(sx, cy + 17, 26, 13, fill=ctx.fill(who) if who >= 0 else "#ffffff", stroke="#444444", rx=2,
                    title=f"retailer office slot: {int(K.RT_SLOTVP[rsize, slot])} VP at the end")
            cv.text(sx + 13, cy + 40, f"{int(K.RT_SLOTVP[rsize, slot])} VP", size=8, fill=MUTED,
                    anchor="middle")
    else:
        for b in range(int(K.REG_NBUY[r])):
            code = int(K.REG_BUY[r, b])
            who = int(st.buyers[r, b])
            bx, by = x + 14 + b * 24, cy + 12
            purple = code >= 100
            text = _TECH_SHORT[K.TECH_IDS[code - 100]] if purple else str(code)
            desc = (f"buyer for owners of {K.TECH_NAMES[code - 100]}" if purple
                    else f"buyer paying a price up to {code}")
            cv.circle(bx, by, 10, fill=ctx.fill(who) if who >= 0 else "#ffffff",
                      stroke="#7b2fa8" if purple else "#cc2222", stroke_width=2,
                      title=desc + (f"; bought from {ctx.name(who)} this round" if who >= 0 else ""))
            ink = contrast(ctx.fill(who)) if who >= 0 else INK
            cv.text(bx, by + 3.5, text, size=9 if not purple else 7, fill=ink, anchor="middle", bold=True)
        cy += 28
    # logistics markers on the region
    cy = y + _REGION_H - 20
    mx = x + 5
    marks = [(c, int(st.markers[r, c])) for c in range(ctx.n) if st.markers[r, c]]
    if marks:
        cv.text(mx, cy + 11, "markers", size=9, fill=MUTED)
        mx += 42
        for c, m in marks:
            mx += _company_chip(cv, ctx, mx, cy, c, str(m), 9) + 3
    elif far:
        cv.text(mx, cy + 11, "also linked: " + ", ".join(far), size=8, fill=MUTED)


def _map(cv, ctx, left, top):
    cv.text(left, top - 8, "World map (lines: links; office VP: leader/second; buyer: price cap or "
                           "technology needed)", size=11, fill=MUTED)
    far = _links(cv, ctx, left, top)
    for r in range(K.NUM_REGIONS):
        x, y = _region_xy(r, left, top)
        _region(cv, ctx, r, x, y, far[r])
    return top + 3 * (_REGION_H + _REGION_GAP)


# ------------------------------------------------------------ technologies etc.

def _tech_cost(st, t):
    """The cost for everybody (Gamepad front's owner pays 1 less, as its text says)."""
    return max(int(K.TECH_COST_MIN), int(K.TECH_COST[t]) - (int(K.PATENT_DROP) if st.patent[t] >= 0 else 0))


def _technologies(cv, ctx, x, y, w):
    st = ctx.st
    cv.text(x, y + 12, "Technologies", size=13, fill=INK, bold=True)
    cv.text(x + w, y + 12, "coloured squares: research markers", size=9, fill=MUTED, anchor="end")
    y += 18
    row_h = 50
    for t in range(K.NUM_TECHS):
        side = int(st.tech_side[t])
        a = ctx.action(K.A_RESEARCH, t) if ctx.pending == "research" else ctx.action(K.A_BONUS_TECH, t)
        effect = K.EFFECTS[int(K.TECH_EFF[t, side])]
        effect_text = _EFFECT_TEXT.get(effect, effect).format(n=int(K.TECH_AMT[t, side]))
        cost = _tech_cost(st, t)
        title = ctx.label(a) if a is not None else f"{K.TECH_NAMES[t]} ({'front' if side == 0 else 'back'}): " \
                                                    f"{effect_text}; cost {cost}"
        cv.rect(x, y, w, row_h - 4, fill="#f6f3fb", stroke=_CLICK if a is not None else "#b7a9cc",
                stroke_width=3 if a is not None else 1, rx=5, action=a, title=title)
        cv.text(x + 6, y + 14, K.TECH_NAMES[t], size=11, fill=INK, bold=True)
        cv.text(x + 6 + text_width(K.TECH_NAMES[t], 11) + 8, y + 14,
                f"({'front' if side == 0 else 'back'}) {effect_text}", size=9, fill=INK)
        holder = int(st.patent[t])
        cost_text = f"cost {cost}" + (" (patent taken: -1)" if holder >= 0 else "")
        cv.text(x + 6, y + 29, cost_text, size=9, fill=MUTED)
        px = x + 6 + text_width(cost_text, 9) + 10
        cv.text(px, y + 29, f"patent {int(K.TECH_PVP[t])} VP:", size=9, fill=MUTED)
        px += text_width(f"patent {int(K.TECH_PVP[t])} VP:", 9) + 4
        if holder >= 0:
            _company_chip(cv, ctx, px, y + 19, holder)
        else:
            cv.text(px, y + 29, "free", size=9, fill=MUTED)
        owners = [c for c in range(ctx.n) if K.COMPANY.fields(st.companies[c]).owns[t]]
        ox = x + w - 6
        for c in reversed(owners):
            ox -= 16
            _company_chip(cv, ctx, ox, y + 4, c, "o", 8)
        if owners:
            cv.text(ox - 4, y + 15, "owned by", size=9, fill=MUTED, anchor="end")
        mx = x + w - 6
        for c in reversed(range(ctx.n)):
            m = int(K.COMPANY.fields(st.companies[c]).tech_markers[t])
            if m:
                mx -= 20
                _company_chip(cv, ctx, mx, y + 21, c, str(m), 9)
        y += row_h
    return y


def _display(cv, ctx, x, y, w):
    st = ctx.st
    cv.text(x, y + 12, "Improvement tiles on display", size=13, fill=INK, bold=True)
    y += 20
    cx = x
    for slot in range(K.DISPLAY_SIZE):
        tile = int(st.display[slot])
        a = ctx.action(K.A_IMPROVE_PICK, slot) if tile >= 0 else None
        cx += _tile_chip(cv, cx, y, tile, a, ctx.label(a) if a is not None else None, cell=22) + 12
    y += 38
    cv.text(x, y, f"stack: {int(st.stack_size)} tiles (order hidden)   goods tokens left: "
                  f"{int(st.tokens_left)}", size=11, fill=INK)
    return y + 8


def _legend(cv, x, y, w):
    cv.text(x, y + 12, "Plan icons", size=13, fill=INK, bold=True)
    y += 20
    for k, icon in enumerate(i for i in _ICONS if i != K.BLANK):
        code, fill, what = _ICONS[icon]
        cx, cy = x + (k % 2) * (w // 2), y + (k // 2) * 18
        cv.rect(cx, cy, _CELL, 15, fill=fill, stroke="#777777")
        cv.text(cx + _CELL / 2, cy + 11, code, size=8, fill=INK, anchor="middle")
        cv.text(cx + _CELL + 5, cy + 11, what if text_width(what, 9) < w // 2 - 30 else what.split(":")[0],
                size=9, fill=INK)
    y += 4 * 18 + 2
    notes = ["Plan cells: thin grey border = bottom pad, black = top pad (its overlap with the bottom "
             "pad produces goods), purple = improvement tile; only the topmost icon of a cell counts."]
    for note in notes:
        for line in wrap_text(note, w, 9):
            cv.text(x, y + 10, line, size=9, fill=MUTED)
            y += 12
    return y


# ------------------------------------------------------------------ companies

def _plan_bottom(ctx, c, y):
    """The y below the drawing of ``_plan(..., y)`` (its rows and the note under them)."""
    icon, _ = plan_cells(ctx.state, c)
    rows = np.flatnonzero(icon >= 0) // K.CANVAS_C
    return y + (int(rows.max() - rows.min()) + 1) * _CELL + 20 if rows.size else y + 20


def _plan(cv, ctx, c, x, y):
    """Company ``c``'s plan of the round seen from above (rows and columns in use only)."""
    icon, src = plan_cells(ctx.state, c)
    used = np.flatnonzero(icon >= 0)
    if used.size == 0:
        return
    rows, cols = used // K.CANVAS_C, used % K.CANVAS_C
    r0, c0 = rows.min(), cols.min()
    for i in used:
        r, j = divmod(int(i), K.CANVAS_C)
        px, py = x + (j - c0) * _CELL, y + (r - r0) * _CELL
        code, fill, what = _ICONS[int(icon[i])]
        layer = int(src[i])
        if layer == STEVE_COVERED:
            cv.rect(px, py, _CELL, _CELL, fill="#9a9a9a", stroke="#444444", title="Steve's covered cell")
            cv.text(px + _CELL / 2, py + 13, "x", size=9, fill="#ffffff", anchor="middle")
            continue
        stroke, sw, where = {1: ("#9a9a9a", 1, "bottom pad"), 2: ("#111111", 2, "top pad")}.get(
            layer, ("#6a3d9a", 2, "improvement tile"))
        cv.rect(px + sw / 2, py + sw / 2, _CELL - sw, _CELL - sw, fill=fill, stroke=stroke, stroke_width=sw,
                title=f"{where}: {what}")
        cv.text(px + _CELL / 2, py + 13, code, size=8, fill=INK, anchor="middle")
    pl = K.PLAN.fields(ctx.st.plans[c])
    if c != ctx.steve and pl.w_side >= 0:
        down = sum(1 for k in range(int(pl.count)) if pl.order_code[k] == K.FACE_DOWN)
        y_note = y + (rows.max() - r0 + 1) * _CELL + 12
        note = f"W side {int(pl.w_side)}, B side {int(pl.b_side)}"
        if down:
            note += f", {down} tile(s) face down"
        cv.text(x, y_note, note, size=9, fill=MUTED)


def _company(cv, ctx, c, x, y):
    s, st = ctx.state, ctx.st
    co = K.COMPANY.fields(ctx.st.companies[c])
    cur = c == ctx.current
    start = len(cv.shapes)
    right = x + _PANEL_W - 8
    cv.rect(x + 8, y + 8, 14, 14, fill=ctx.fill(c), stroke="#000000")
    cv.text(x + 28, y + 20, ctx.name(c), size=13, fill=INK, bold=True)
    if cur:
        cv.text(x + 36 + text_width(ctx.name(c), 13), y + 20, "TO MOVE", size=11, fill=_ACCENT, bold=True)
    cv.text(right, y + 20, f"score {int(K.total_score(s, c))}", size=14, fill=INK, anchor="end", bold=True)
    lines = [f"VP track {int(co.vp)} (start {int(co.start_vp)}); price {int(co.price)}",
             f"ready goods {int(co.ready_goods)}, goods tokens {int(co.tokens)}, "
             f"office markers used {int(co.offices_used)}/{int(K.OFFICE_MAX)}"]
    phase = int(st.phase)
    if not ctx.over and K.PH_IMPROVEMENT <= phase <= K.PH_SELLING:
        order = [int(st.order[i]) for i in range(ctx.n)]
        if c in order:
            lines[0] += f"; turn order {order.index(c) + 1} of {ctx.n}"
    owned = [K.TECH_NAMES[t] for t in range(K.NUM_TECHS) if co.owns[t]]
    patents = [K.TECH_NAMES[t] for t in range(K.NUM_TECHS) if st.patent[t] == c]
    lines.append("technologies: " + (", ".join(owned) if owned else "none")
                 + (f"; patents: {', '.join(patents)}" if patents else ""))
    todo = [(int(co.improve_left), "improvement"), (int(co.research_left), "research"),
            (int(co.logistics_left), "logistics")]
    todo = [f"{n} {what}" for n, what in todo if n > 0]
    if todo:
        lines.append("still to use: " + ", ".join(todo))
    ty = y + 22
    for line in lines:
        for part in wrap_text(line, _PANEL_W - 16, 10):
            ty += 14
            cv.text(x + 8, ty, part, size=10, fill=INK)
    # improvement tiles owned (clickable while this company picks the next one to place)
    ty += 8
    cv.text(x + 8, ty + 12, "tiles:", size=10, fill=INK)
    tx = x + 44
    num = int(co.num_tiles)
    if not num:
        cv.text(tx, ty + 12, "none", size=10, fill=MUTED)
    placing = cur and ctx.pending == "tile_place" and ctx.sees_plan(c)
    for k in range(num):
        tile = int(co.tiles[k])
        a = ctx.action(K.A_TILE_PICK, k) if ctx.pending == "tile_pick" and cur else None
        if tx + 40 > right:
            tx, ty = x + 44, ty + 22
        if placing and k == int(st.picked_tile):   # the tile being placed now
            cv.rect(tx - 3, ty - 3, 42, 24, fill="#ffd27a", stroke=_ACCENT, stroke_width=2, rx=3,
                    title="the tile being placed")
        tx += _tile_chip(cv, tx, ty, tile, a, ctx.label(a) if a is not None else None) + 6
    ty += 26
    # this round's plan, or what the viewer may know of it
    if ctx.over:
        extra = int(K.total_score(s, c)) - int(co.vp)
        cv.text(x + 8, ty + 12, f"final score: VP track {int(co.vp)} + patents and retailer "
                                f"offices {extra}", size=10, fill=INK, bold=True)
    elif ctx.sees_plan(c):
        if ctx.revealed:
            label = "plan (revealed)"
        elif co.committed:
            label = "plan (committed, secret)"
        elif c != ctx.steve and K.PLAN.fields(st.plans[c]).w_side >= 0:
            label = "plan (in progress, secret)"
        else:
            label = "plan: not started"
        cv.text(x + 8, ty + 10, label, size=10, fill=INK, bold=True)
        _plan(cv, ctx, c, x + 8, ty + 16)
        if ctx.revealed:
            o = [int(v) for v in co.outcome]
            out = [f"goods from overlap + face down: {o[K.PO_GOODS]}", f"production icons: {o[K.PO_PROD]}",
                   f"improvement icons: {o[K.PO_IMP]} active, {o[K.PO_IMP_COVERED]} covered",
                   f"price shift: {o[K.PO_PRICE_SHIFT]:+d}", f"research: {o[K.PO_RES]}, logistics: {o[K.PO_LOG]}"]
            oy = ty + 10
            for line in out:
                cv.text(x + 200, oy, line, size=9, fill=INK)
                oy += 13
    elif c != ctx.steve:
        status = "committed" if co.committed else "not committed yet"
        cv.rect(x + 8, ty + 2, 180, 40, fill="#8a8f98", stroke="#555555", rx=4,
                title="plans are secret until every company has committed")
        cv.text(x + 98, ty + 18, "secret plan", size=11, fill="#ffffff", anchor="middle", bold=True)
        cv.text(x + 98, ty + 33, status, size=10, fill="#ffffff", anchor="middle")
    else:
        cv.text(x + 8, ty + 14, "Steve's plan is shown when the plans are revealed", size=10, fill=MUTED)
    shown = ctx.sees_plan(c) and not ctx.over
    bottom = max(ty + (24 if ctx.over else 48), _plan_bottom(ctx, c, ty + 16) if shown else 0,
                 ty + 10 + 5 * 13 if shown and ctx.revealed else 0)
    behind = Canvas(1, 1)
    behind.rect(x, y, _PANEL_W, bottom - y, fill="#fffdf7" if cur else "#fafafa",
                stroke=_ACCENT if cur else "#bbbbbb", stroke_width=3 if cur else 1, rx=6)
    if cur:
        behind.polygon([(x - 12, y + 8), (x - 3, y + 15), (x - 12, y + 22)], fill=_ACCENT)
    put_behind(cv, start, behind)
    return bottom


# ---------------------------------------------------------------- header etc.

def _header(cv, ctx, width):
    s, st = ctx.state, ctx.st
    cv.text(16, 26, "Smartphone Inc.", size=20, fill=INK, bold=True)
    if ctx.over:
        ranks = np.zeros(ctx.n, dtype=np.int64)
        K.ranks(s, ranks)
        winners = ", ".join(ctx.name(c) for c in range(ctx.n) if ranks[c] == 1)
        status = f"Game over after round {K.ROUNDS} - phase: {ctx.pending} - won by {winners}"
    else:
        status = f"Round {int(st.round)} of {K.ROUNDS} - {ctx.name(ctx.current)} to move - phase: {ctx.pending}"
    cv.text(190, 26, status, size=14, fill=INK)
    view = "everything (omniscient view)" if ctx.observer is None else \
        f"what player_{ctx.observer} sees at the table"
    cv.text(width - 16, 26, f"showing {view}", size=11, fill=MUTED, anchor="end")
    # the phase track
    phase = int(st.phase)
    x = 16
    for k, title in enumerate(_PHASE_TITLES):
        on = not ctx.over and phase == k + 1
        w = 96
        cv.rect(x, 38, w, 20, fill="#ffe2c6" if on else "#f2f2f2", stroke=_ACCENT if on else "#bbbbbb",
                stroke_width=2 if on else 1, rx=4)
        cv.text(x + w / 2, 52, f"{k + 1} {title}", size=10, fill=INK, anchor="middle", bold=on)
        x += w + 4


def _decision(cv, ctx, x, y, w):
    """The decision owed now, with buttons for the moves that have no place on the map."""
    if ctx.over:
        return y
    st = ctx.st
    c = ctx.current
    text = f"{ctx.name(c)}: {_DECISION_TEXT.get(ctx.pending, ctx.pending)}"
    co = K.COMPANY.fields(ctx.st.companies[c])
    left = {"research": int(co.research_left), "logistics": int(co.logistics_left),
            "improve_pick": int(co.improve_left), "bonus_tech": int(st.bonus_left)}
    if ctx.pending in left:
        text += f" ({left[ctx.pending]} left)"
    if ctx.pending == "sell":
        text += f" ({int(co.ready_goods)} ready goods)"
    if ctx.pending == "office_target":
        text += {K.OT_WIFI: " (Wi-Fi: a free second office)",
                 K.OT_GAMEPAD: " (Gamepad: a free office in a small region)",
                 K.OT_EXTRA: " (retailer bonus: a second office)",
                 K.OT_MOVE: " (moving an office: where it goes)"}.get(int(st.office_kind), "")
    cv.text(x, y + 14, text, size=12, fill=_ACCENT, bold=True)
    y += 20
    buttons = []
    if ctx.pending == "sides":
        buttons = [(f"W{k // 2} B{k % 2}", K.A_SIDES + k) for k in range(4)]
    elif ctx.pending == "tile_pick":
        buttons = [("rest face down and commit", K.A_TILE_PICK + K.MAX_TILES)]
    elif ctx.pending == "tile_place":
        buttons = [("face down (+1 good)", K.A_TILE_PLACE + K.FACE_DOWN)]
    elif ctx.pending == "research":
        buttons = [("stop research", K.A_RESEARCH + K.NUM_TECHS)]
    elif ctx.pending == "logistics":
        buttons = [("stop logistics", K.A_LOGISTICS + K.NUM_REGIONS)]
    elif ctx.pending == "nfc_sell":
        buttons = [(f"sell {k + 1}", K.A_NFC_SELL + k) for k in range(3)]
    elif ctx.pending == "bonus_price":
        buttons = [("price -1", K.A_BONUS_PRICE), ("price +1", K.A_BONUS_PRICE + 1)]
    bx = x
    for text, a in buttons:
        if ctx.legal[a]:
            w = text_width(text, 11) + 20
            cv.button(bx, y, w, 22, text, action=a, fill=_CLICK_FILL, size=11)
            bx += w + 8
    if bx > x:
        y += 26
    return y


def seat_colours(state, cfg) -> list:
    """Every seat's colour as drawn: its company's colour (the game's ``colours`` option)."""
    companies = K.STATE.fields(state).companies
    return [COMPANY_COLOURS[K.COLOURS[int(K.COMPANY.fields(companies[c]).colour)]]
            for c in range(cfg.num_players)]


def draw(state, cfg, observer=None, clickable=False, action_label=None) -> Canvas:
    """The picture of ``state``: everything (``observer=None``) or what seat ``observer``
    sees; with ``clickable`` the legal moves of the company to move are clickable (regions,
    technologies, display tiles, own tiles, buttons) in its own view and the omniscient one,
    titled by ``action_label(state, cfg, action)`` (the adapter's, needed with ``clickable``)."""
    ctx = _Context(state, cfg, observer, clickable, action_label)
    map_w = 5 * _REGION_W + 4 * _REGION_GAP
    side_x, side_w = 16 + map_w + 24, 420
    width = side_x + side_w + 16
    cv = Canvas(width, 4000, background="#ffffff")
    _header(cv, ctx, width)
    map_top = _decision(cv, ctx, 16, 62, width - 32) + 30
    map_bottom = _map(cv, ctx, 16, map_top)
    y = _technologies(cv, ctx, side_x, map_top - 18, side_w)
    y = _display(cv, ctx, side_x, y + 6, side_w)
    y = max(map_bottom, _legend(cv, side_x, y + 6, side_w)) + 8
    per_row = max(1, (width - 16) // (_PANEL_W + 12))
    for first in range(0, ctx.n, per_row):
        y = max(_company(cv, ctx, c, 16 + (c - first) * (_PANEL_W + 12), y)
                for c in range(first, min(ctx.n, first + per_row))) + 10
    cv.height = int(y + 4)
    return cv
