"""Picture of an Expancity game (``expancity_v0``).

The city on the left (north up, one square per tile, coordinates on the margins), the
table on the right: whose turn and which step of it, each player's score, blocks,
buildings, hand and contracts, the decision in progress, the three goals, what is left
in the bag and the deck, and a legend of the tiles.

What a seat may see follows the kernel's ``observe``: its own hand, its own unrevealed
contracts and the cards it put under the deck; a drawn contract or tile pair only while
it is the one keeping.  Everybody else's are drawn face down (their number is public).
"""
from __future__ import annotations

import numpy as np

from envs.pictures.canvas import INK, MUTED, SEAT_COLOURS, Canvas, contrast, put_behind, text_width, wrap_text
from envs.expancity_readouts import bottom_cards
from kernels import expancity as K

_ZONE_FILL = {"city_hall": "#bdbdbd", "residential": "#cde8bb", "commercial": "#c3d5f3"}
_SPECIAL_FILL, _SPECIAL_EDGE = "#f8dcc6", "#c0392b"
_NAMES = {"city_hall": ("City Hall", "Hall"), "residential": ("Residential", "Res"),
          "commercial": ("Commercial", "Com"), "cathedral": ("Cathedral", "Cath"),
          "police_station": ("Police", "Pol"), "school": ("School", "Sch"),
          "hospital": ("Hospital", "Hosp"), "park": ("Park", "Park"), "wine_bar": ("Wine bar", "Wine"),
          "bank": ("Bank", "Bank"), "shopping_mall": ("Mall", "Mall"), "stadium": ("Stadium", "Stad")}
_ZONES = ("residential", "commercial")
_HIDDEN_FILL = "#8a8f98"
_CLICK_FILL = "#cfeed5"   # buttons that play a move
_PANEL_W = 440


def _type_key(state, cfg, typ):
    return getattr(cfg, "info", K.DEFAULT_INFO)["type_keys"][int(typ)]


def _is_special(st, typ):
    return int(K.DATA_BLOB.fields(st.blob).tile_class[int(typ)]) == K.CLS_SPECIAL


def _modifiers(st, typ):
    """Per-floor modifier of a tile type for (residential, commercial) neighbours."""
    modifier = K.DATA_BLOB.fields(st.blob).modifier
    return int(modifier[int(typ), K.KIND_RES]), int(modifier[int(typ), K.KIND_COM])


def _tile_fill(st, key, typ):
    return _SPECIAL_FILL if _is_special(st, typ) else _ZONE_FILL.get(key, "#dddddd")


def _name(key, width=None, size=10):
    """The tile type's name, or its short form when the long one does not fit ``width``."""
    long, short = _NAMES.get(key, (key.replace("_", " ").title(), key[:4].title()))
    # the two zones are named alike (both long or both short) so that they read as a pair
    rivals = [_NAMES[k][0] for k in _ZONES] if key in _ZONES else [long]
    # (browsers' fonts run up to ~10% wider than the raster font text_width measures)
    return long if width is None or 1.1 * max(text_width(r, size) for r in rivals) <= width else short


class _Context:
    """What one drawing needs: the state, what the viewer may see, and legal clicks."""

    def __init__(self, state, cfg, observer, clickable, action_label):
        self.state, self.cfg, self.observer = state, cfg, observer
        st = self.st = K.STATE.fields(state)     # the state's declared fields, by name
        self.info = getattr(cfg, "info", K.DEFAULT_INFO)
        self.n = int(st.num_players)
        self.phase = int(st.phase)
        self.current = int(st.current) if self.phase != K.PH_GAME_OVER else -1
        # Moves are the mover's to click (in its own view, or the omniscient one): their
        # labels name its hand.
        self.legal = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
        if clickable and self.current >= 0 and self.sees(self.current):
            K.legal_mask(state.copy(), self.legal)
        if clickable and action_label is None:
            raise ValueError("action_label (the adapter's, to title clickable moves) is needed with clickable=True")
        self._label = action_label

    def sees(self, seat):
        """May the viewer see ``seat``'s hand and secret contracts?"""
        return self.observer is None or self.observer == seat

    def action(self, a):
        return int(a) if self.legal[a] else None

    def label(self, a):
        return self._label(self.state, self.cfg, int(a))


# ------------------------------------------------------------------------ board

def _bbox(state):
    st = K.STATE.fields(state)
    nt = int(st.num_tiles)
    xs, ys = st.tile_x[:nt], st.tile_y[:nt]
    return int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())


def _board_geometry(state):
    """Cell size and grid origin: the city's bounding box plus a ring of empty cells."""
    x0, x1, y0, y1 = _bbox(state)
    cols, rows = x1 - x0 + 3, y1 - y0 + 3
    cs = int(min(68, max(40, 720 // max(cols, rows))))
    return cs, x0 - 1, y1 + 1, cols, rows


def _tile_title(ctx, t):
    s, st = ctx.state, ctx.st
    key = _type_key(s, ctx.cfg, st.tile_type[t])
    x, y = int(st.tile_x[t]), int(st.tile_y[t])
    own = int(st.tile_owner[t])
    head = f"{_name(key)} tile #{t} at ({x},{y})"
    if own >= 0:
        floors = int(st.tile_floors[t])
        if st.tile_done[t]:
            return f"{head}: player_{own}'s roofed {floors}-floor building, scored {int(st.tile_score[t])} VP"
        return f"{head}: player_{own}'s unfinished {floors}-floor building"
    if key in _ZONES:
        return f"{head}: vacant lot"
    if _is_special(st, st.tile_type[t]):
        r, c = _modifiers(st, st.tile_type[t])
        return f"{head}: {r:+d} per floor to residential, {c:+d} to commercial neighbours"
    return head


def _draw_tile(cv, ctx, t, px, py, cs):
    s, st = ctx.state, ctx.st
    typ = int(st.tile_type[t])
    key = _type_key(s, ctx.cfg, typ)
    special = _is_special(st, typ)
    act = None
    if ctx.legal.any():
        act = ctx.action(K.A_BUILD + t) if ctx.phase == K.PH_ACTION else (
            ctx.action(K.A_ROOF + t) if ctx.phase == K.PH_ROOF else None)
    title = _tile_title(ctx, t) if act is None else ctx.label(act)
    cv.rect(px + 1, py + 1, cs - 2, cs - 2, fill=_tile_fill(st, key, typ),
            stroke="#1f8f3a" if act is not None else (_SPECIAL_EDGE if special else "#6b6b6b"),
            stroke_width=3 if (act is not None or special) else 1, rx=3, action=act, title=title)
    size = max(9, cs // 6)
    cv.text(px + cs / 2, py + size + 3, _name(key, cs - 6, size), size=size, fill=INK,
            anchor="middle", bold=key == "city_hall")
    own = int(st.tile_owner[t])
    if own >= 0:
        floors, done = int(st.tile_floors[t]), bool(st.tile_done[t])
        bx, bw = px + cs * 0.24, cs * 0.52
        by, bh = py + cs * 0.42, cs * 0.38
        if done:    # a roof, and the score it was frozen at
            cv.polygon([(bx - 3, by), (bx + bw + 3, by), (bx + bw / 2, by - cs * 0.14)],
                       fill="#3c3c3c", stroke="#000000", action=act, title=title)
        cv.rect(bx, by, bw, bh, fill=SEAT_COLOURS[own], stroke="#000000", action=act, title=title)
        ink = contrast(SEAT_COLOURS[own])
        cv.text(bx + bw / 2, by + bh / 2 + size / 2 - 1, str(floors), size=size + 2, fill=ink,
                anchor="middle", bold=True)
        if done:
            cv.text(px + cs / 2, py + cs - 3, f"{int(st.tile_score[t])} VP", size=size - 1,
                    fill=INK, anchor="middle", bold=True)
    elif special:
        r, c = _modifiers(st, typ)
        cv.text(px + cs / 2, py + cs * 0.62, f"R{r:+d}", size=size, fill=INK, anchor="middle")
        cv.text(px + cs / 2, py + cs * 0.62 + size + 2, f"C{c:+d}", size=size, fill=INK, anchor="middle")
    elif key in _ZONES:
        cv.text(px + cs / 2, py + cs * 0.66, "vacant", size=size - 1, fill=MUTED, anchor="middle")


def _draw_placements(cv, ctx, geo, left, top):
    """Empty cells a legal PLACE points at: one clickable square, halved when the two hand
    tiles differ (left half plays slot 0, right half slot 1)."""
    s, st = ctx.state, ctx.st
    cs, gx, gy, _, _ = geo
    cells = {}
    for a in np.flatnonzero(ctx.legal[K.A_PLACE:K.A_PLACE + 2 * K.PLACE_SLOT]):
        slot, rest = divmod(int(a), K.PLACE_SLOT)
        anchor, d = divmod(rest, K.NUM_DIRS)
        cell = (int(st.tile_x[anchor] + K.DX[d]), int(st.tile_y[anchor] + K.DY[d]))
        cells.setdefault(cell, {})[slot] = K.A_PLACE + int(a)
    hand = st.hand[ctx.current]
    for (x, y), slots in cells.items():
        px, py = left + (x - gx) * cs, top + (gy - y) * cs
        w = (cs - 4) / len(slots)
        for i, (slot, a) in enumerate(sorted(slots.items())):
            key = _type_key(s, ctx.cfg, hand[slot])
            cv.rect(px + 2 + i * w, py + 2, w, cs - 4, fill="#ffffff", stroke="#1f8f3a", stroke_width=2,
                    rx=3, action=a, title=ctx.label(a))
            cv.text(px + 2 + i * w + w / 2, py + cs / 2 + 4, _name(key, w - 4, 9), size=9,
                    fill="#1f8f3a", anchor="middle")


def _draw_board(cv, ctx, geo, left, top):
    st = ctx.st
    cs, gx, gy, cols, rows = geo
    cv.rect(left, top, cols * cs, rows * cs, fill="#f4f1e8", stroke="#b9b2a0")
    for i in range(cols):   # coordinates on the margins: x along the top, y down the left
        cv.text(left + i * cs + cs / 2, top - 4, str(gx + i), size=10, fill=MUTED, anchor="middle")
    for j in range(rows):
        cv.text(left - 4, top + j * cs + cs / 2 + 4, str(gy - j), size=10, fill=MUTED, anchor="end")
    for t in range(int(st.num_tiles)):
        px = left + (int(st.tile_x[t]) - gx) * cs
        py = top + (gy - int(st.tile_y[t])) * cs
        _draw_tile(cv, ctx, t, px, py, cs)
    if ctx.phase == K.PH_PLACE and ctx.legal.any():
        _draw_placements(cv, ctx, geo, left, top)
    cv.text(left, top + rows * cs + 14, "north is up; x grows east, y grows north; City Hall at (0,0)",
            size=10, fill=MUTED)


# ------------------------------------------------------------------------ table

def _tile_chip(cv, ctx, x, y, typ, action=None, title=None):
    """A hand / drawn tile: its colour and name; ``typ`` None draws it face down."""
    w, h = 78, 18
    if typ is None:
        cv.rect(x, y, w, h, fill=_HIDDEN_FILL, stroke="#555555", rx=3, title="a hidden tile")
        cv.text(x + w / 2, y + 13, "hidden", size=10, fill="#ffffff", anchor="middle")
        return w
    key = _type_key(ctx.state, ctx.cfg, typ)
    special = _is_special(ctx.st, typ)
    cv.rect(x, y, w, h, fill=_tile_fill(ctx.st, key, typ),
            stroke="#1f8f3a" if action is not None else (_SPECIAL_EDGE if special else "#6b6b6b"),
            stroke_width=2 if action is not None or special else 1, rx=3, action=action,
            title=title or _name(key))
    cv.text(x + w / 2, y + 13, _name(key, w - 4, 10), size=10, fill=INK, anchor="middle")
    return w


def _contract_chip(cv, ctx, x, y, card, action=None):
    """A contract card: name and VP (the condition as its tooltip); ``card`` None: face down."""
    if card is None:
        cv.rect(x, y, 120, 18, fill=_HIDDEN_FILL, stroke="#555555", rx=3, title="a secret contract")
        cv.text(x + 60, y + 13, "secret contract", size=10, fill="#ffffff", anchor="middle")
        return 120
    vp = int(K.DATA_BLOB.fields(ctx.st.blob).contract_vp[card])
    text = f"{ctx.info['contract_names'][card]} ({vp} VP)"
    w = text_width(text, 10) + 10
    cv.rect(x, y, w, 18, fill="#fff6cf", stroke="#1f8f3a" if action is not None else "#a58a2a",
            stroke_width=2 if action is not None else 1, rx=3, action=action,
            title=ctx.label(action) if action is not None else
            f"contract {card + 1}: {ctx.info['contract_texts'][card]} ({vp} VP)")
    cv.text(x + 5, y + 13, text, size=10, fill=INK)
    return w


def _chip_row(cv, x, y, right, chips):
    """Lay ``chips`` (callables drawing at (x, y) and returning their width) left to right,
    wrapping at ``right``; returns the y below the last row."""
    cx = x
    for chip in chips:
        if cx > x and cx + 80 > right:
            cx, y = x, y + 21
        cx += chip(cx, y) + 5
    return y + 21


def _player_box(cv, ctx, p, x, y):
    """One seat's public holdings (and secret ones where the viewer may see them)."""
    s, st = ctx.state, ctx.st
    w = _PANEL_W
    right = x + w - 8
    y0 = y
    lines = [f"blocks: supply {int(st.supply[p])}, reserve {int(st.reserve[p])}",
             f"buildings: {int(st.unfinished[p])} unfinished (max 3); roofed "
             f"{int(st.done_res[p])} residential, {int(st.done_com[p])} commercial "
             f"({int(st.done_floors[p])} floors)",
             f"tallest roofed: residential {int(st.tallest_res[p])}, commercial "
             f"{int(st.tallest_com[p])} floors"]
    if ctx.phase == K.PH_GAME_OVER:
        lines.append(f"goals scored: {int(st.goal_points[p])} VP")
    revealed = [c for c in range(K.NUM_CONTRACTS) if st.revealed[p, c]]
    body = [part for line in lines for part in wrap_text(line, w - 16, 11)]
    start = len(cv.shapes)
    ty = y + 20
    cv.text(x + 26, ty, f"player_{p}", size=13, fill=INK, bold=True)
    cv.text(right, ty, f"{int(st.score[p])} VP", size=14, fill=INK, anchor="end", bold=True)
    if p == ctx.current:
        cv.text(x + 26 + text_width(f"player_{p}", 13) + 12, ty,
                "TO MOVE", size=11, fill="#b03a00", bold=True)
    ty += 4
    for line in body:
        ty += 15
        cv.text(x + 8, ty, line, size=11, fill=INK)
    ty += 8
    hand = [int(st.hand[p, i]) for i in range(K.HAND_SLOTS)]
    hand = [h for h in hand if h >= 0]
    cv.text(x + 8, ty + 13, "hand:", size=11, fill=INK)
    if not hand:
        cv.text(x + 60, ty + 13, "empty", size=11, fill=MUTED)
        ty += 21
    else:
        shown = hand if ctx.sees(p) else [None] * len(hand)
        ty = _chip_row(cv, x + 60, ty, right,
                       [lambda cx, cy, h=h: _tile_chip(cv, ctx, cx, cy, h) for h in shown])
    held = [c for c in range(K.NUM_CONTRACTS) if st.held[p, c]]
    held_text = f"secret contracts: {int(st.num_held[p])}"
    cv.text(x + 8, ty + 13, held_text if ctx.sees(p) or not held else held_text + " (face down)", size=11, fill=INK)
    ty += 21
    if held and ctx.sees(p):
        ty = _chip_row(cv, x + 20, ty, right, [lambda cx, cy, c=c: _contract_chip(cv, ctx, cx, cy, c)
                                               for c in held])
    cv.text(x + 8, ty + 13, f"revealed contracts: {len(revealed)}", size=11, fill=INK)
    ty += 21
    if revealed:
        ty = _chip_row(cv, x + 20, ty, right, [lambda cx, cy, c=c: _contract_chip(cv, ctx, cx, cy, c)
                                               for c in revealed])
    if ctx.sees(p):
        bottom = bottom_cards(s, p)
        if bottom:
            cv.text(x + 8, ty + 13, "put under the deck (only this player knows):", size=11, fill=MUTED)
            ty += 21
            ty = _chip_row(cv, x + 20, ty, right, [lambda cx, cy, c=c: _contract_chip(cv, ctx, cx, cy, c)
                                                   for c in bottom])
    h = ty - y0 + 4
    cur = p == ctx.current
    behind = Canvas(1, 1)
    behind.rect(x, y0, w, h, fill="#fffdf7" if cur else "#fafafa", stroke="#b03a00" if cur else "#bbbbbb",
                stroke_width=3 if cur else 1, rx=6)
    behind.rect(x + 8, y0 + 9, 13, 13, fill=SEAT_COLOURS[p], stroke="#000000")
    if cur:   # the turn marker: an arrow pointing at the seat to move
        behind.polygon([(x - 14, y0 + 8), (x - 4, y0 + 15), (x - 14, y0 + 22)], fill="#b03a00")
    put_behind(cv, start, behind)
    return y0 + h


def _decision_box(cv, ctx, x, y):
    """What the player to move is deciding now (the drawn pairs only for who may see them)."""
    st = ctx.st
    p = ctx.current
    if p < 0:
        return y
    y0 = y
    right = x + _PANEL_W - 8
    start = len(cv.shapes)
    ty = y + 18
    texts = {
        K.PH_PLACE: "1. place one hand tile on an empty cell next to the city",
        K.PH_ACTION: f"2. build or gather: {int(st.actions_left)} of 3 actions left "
                     "(build: start on a vacant lot or add a floor; gather: 1 block reserve -> supply)",
        K.PH_ROOF: f"3. roof finished buildings (roofed this turn: {int(st.pending_draws)}; "
                   "each gives a contract draw)",
        K.PH_CONTRACT_KEEP: f"3. keep one of two drawn contracts ({int(st.pending_draws)} draw(s) to go)",
        K.PH_TILE_KEEP: "5. refill: keep one of two tiles drawn from the bag",
    }
    cv.text(x + 8, ty, f"player_{p} to move - {K.PHASE_NAMES[ctx.phase]}", size=13, fill="#b03a00", bold=True)
    for line in wrap_text(texts[ctx.phase], _PANEL_W - 16, 11):
        ty += 15
        cv.text(x + 8, ty, line, size=11, fill=INK)
    ty += 8
    if ctx.phase == K.PH_ACTION and ctx.action(K.A_GATHER) is not None:
        cv.button(x + 8, ty, 90, 22, "gather", action=K.A_GATHER, fill=_CLICK_FILL)
        ty += 28
    elif ctx.phase == K.PH_ROOF and ctx.action(K.A_STOP) is not None:
        cv.button(x + 8, ty, 120, 22, "stop roofing", action=K.A_STOP, fill=_CLICK_FILL)
        ty += 28
    elif ctx.phase == K.PH_CONTRACT_KEEP:
        pair = [int(st.contract_pair[i]) for i in range(2)]
        shown = pair if ctx.sees(p) else [None, None]
        ty = _chip_row(cv, x + 8, ty, right, [
            lambda cx, cy, i=i, c=c: _contract_chip(cv, ctx, cx, cy, c, ctx.action(K.A_KEEP_CONTRACT + i)
                                                    if c is not None else None)
            for i, c in enumerate(shown)])
    elif ctx.phase == K.PH_TILE_KEEP:
        pair = [int(st.tile_pair[i]) for i in range(2)]
        shown = pair if ctx.sees(p) else [None, None]
        chips = []
        for i, typ in enumerate(shown):
            a = ctx.action(K.A_KEEP_TILE + i) if typ is not None else None
            chips.append(lambda cx, cy, typ=typ, a=a: _tile_chip(
                cv, ctx, cx, cy, typ, a, ctx.label(a) if a is not None else None))
        ty = _chip_row(cv, x + 8, ty, right, chips)
    h = ty - y0 + 4
    behind = Canvas(1, 1)
    behind.rect(x, y0, _PANEL_W, h, fill="#fff4ea", stroke="#b03a00", stroke_width=2, rx=6)
    put_behind(cv, start, behind)
    return y0 + h


def _goals_and_supply(cv, ctx, x, y):
    st = ctx.st
    cv.text(x, y + 14, "Public goals (scored after turn 60; ties split)", size=12, fill=INK, bold=True)
    y += 16
    for k in range(K.GOALS_IN_PLAY):
        g = int(st.goals[k])
        y += 15
        cv.text(x + 8, y, f"{ctx.info['goal_names'][g]} ({ctx.info['goal_ids'][g]}): "
                          f"{int(K.DATA_BLOB.fields(st.blob).goal_vp[g])} VP", size=11, fill=INK)
    y += 22
    cv.text(x, y, "Supply", size=12, fill=INK, bold=True)
    y += 15
    cv.text(x + 8, y, f"bag: {int(st.bag_size)} tiles   contract deck: "
                      f"{int(st.pool_size + st.queue_len)} cards", size=11, fill=INK)
    y += 15
    cv.text(x + 8, y, f"roofs left: {int(st.roofs_left[K.KIND_RES])} residential, "
                      f"{int(st.roofs_left[K.KIND_COM])} commercial", size=11, fill=INK)
    return y + 8


def _legend(cv, ctx, x, y):
    st = ctx.st
    cv.text(x, y + 14, "Legend", size=12, fill=INK, bold=True)
    y += 22
    keys = ctx.info["type_keys"]
    col_w = _PANEL_W // 2
    for i, key in enumerate(keys):
        cx, cy = x + (i % 2) * col_w, y + (i // 2) * 18
        typ = i
        special = _is_special(st, typ)
        cv.rect(cx, cy, 14, 14, fill=_tile_fill(st, key, typ), stroke=_SPECIAL_EDGE if special else "#6b6b6b",
                stroke_width=2 if special else 1)
        label = _name(key)
        if special or key == "city_hall":
            r, c = _modifiers(st, typ)
            label += f"  R{r:+d} C{c:+d}"
        cv.text(cx + 20, cy + 11, label, size=11, fill=INK)
    y += (len(keys) + 1) // 2 * 18 + 6
    notes = ["R/C: points per floor this tile adds to a residential / commercial neighbour.",
             "A vacant lot (zone tile without blocks) costs its neighbours 1 per floor.",
             "Coloured block: a building of that player, number = floors; with a roof: "
             "roofed, scored the VP written under it (score = floors x (1 + modifiers))."]
    for note in notes:
        for line in wrap_text(note, _PANEL_W - 8, 10):
            cv.text(x, y + 10, line, size=10, fill=MUTED)
            y += 13
    return y


def _header(cv, ctx, width):
    s, st = ctx.state, ctx.st
    cv.text(16, 26, "Expancity", size=20, fill=INK, bold=True)
    if ctx.phase == K.PH_GAME_OVER:
        ranks = np.zeros(ctx.n, dtype=np.int64)
        K.ranks(s, ranks)
        winners = ", ".join(f"player_{p}" for p in range(ctx.n) if ranks[p] == 1)
        status = f"Game over after turn {int(st.turn)} - phase: {K.PHASE_NAMES[ctx.phase]} - won by {winners}"
    else:
        status = (f"Turn {int(st.turn)} of 60 - player_{ctx.current} "
                  f"to move - phase: {K.PHASE_NAMES[ctx.phase]}")
        if ctx.phase == K.PH_ACTION:
            status += f" ({int(st.actions_left)} actions left)"
    cv.text(140, 26, status, size=14, fill=INK)
    view = "everything (omniscient view)" if ctx.observer is None else \
        f"what player_{ctx.observer} sees at the table"
    cv.text(width - 16, 26, f"showing {view}", size=11, fill=MUTED, anchor="end")


def draw(state, cfg, observer=None, clickable=False, action_label=None) -> Canvas:
    """The picture of ``state``: everything (``observer=None``) or what seat ``observer``
    sees; with ``clickable`` the legal moves of the player to move are clickable (board
    cells for placements, tiles for build/roof, buttons and drawn cards) in that player's
    own view and the omniscient one, titled by ``action_label(state, cfg, action)`` (the
    adapter's, needed with ``clickable``)."""
    ctx = _Context(state, cfg, observer, clickable, action_label)
    geo = _board_geometry(state)
    cs, _, _, cols, rows = geo
    board_left, board_top = 40, 64
    panel_x = board_left + cols * cs + 36
    width = max(panel_x + _PANEL_W + 24, 900)
    # The panel's height is known only once drawn: draw on a tall canvas, then trim.
    cv = Canvas(width, 4000, background="#ffffff")
    _header(cv, ctx, width)
    _draw_board(cv, ctx, geo, board_left, board_top)
    y = board_top - 14
    y = _decision_box(cv, ctx, panel_x, y) + 10 if ctx.current >= 0 else y
    for p in range(ctx.n):
        y = _player_box(cv, ctx, p, panel_x, y) + 8
    y = _goals_and_supply(cv, ctx, panel_x, y + 4)
    y = _legend(cv, ctx, panel_x, y + 8)
    cv.height = int(max(y, board_top + rows * cs + 20) + 16)
    return cv
