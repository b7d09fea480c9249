"""Plain-Python reference for Smartphone Inc.: legality of every decision and scoring,
written from the rules reference (sections 4-7) without calling the
kernel's rule functions.  It reads the state through the kernel's *layout* constants
and its data tables only (the YAML is re-read here for the rule parameters)."""
import numpy as np
import yaml

from kernels import smartphone_inc as K

DATA = yaml.safe_load(open(K.__file__.replace("smartphone_inc.py", "data/smartphone_inc.yaml")))
ICONS = {n: i for i, n in enumerate(K.ICON_NAMES)}
REGIONS = DATA["regions"]
RID = [r["id"] for r in REGIONS]
RTYPES = DATA["region_types"]
TECHS = sorted(DATA["technologies"], key=lambda t: t["board_index"])
TID = [str(t["id"]) for t in TECHS]
RET_TILES = DATA["retailers"]["tiles"]


# ------------------------------------------------------------------ helpers on the state
def comp(state, c, field, k=0):
    return int(state[K.COMPANIES + c * K.COMPANY_SIZE + field + k])


def owns(state, c, t):
    return comp(state, c, K.C_OWNS, t) != 0


def effect(state, c, name):
    """Total amount of effect ``name`` among the technologies c owns (0 if none)."""
    tot = 0
    for t, td in enumerate(TECHS):
        if owns(state, c, t):
            side = "front" if state[K.TECH_SIDE + t] == 0 else "back"
            e = td[side]
            if e["effect"] == name:
                tot += int(e.get("amount", e.get("max_goods", e.get("max_cells_off_pad", e.get("per_region", 1)))) or 1)
    return tot


def region_slots(state, r):
    """(list of occupants, is_retailer) of the slots offices go into."""
    t = int(state[K.RETAILER + r])
    if t >= 0:
        n = len(DATA["retailers"]["slot_vp"][RET_TILES[t]["size"]])
        return [int(state[K.RETAILER_OFFICES + r * K.MAX_RSLOT + s]) for s in range(n)], True
    n = RTYPES[REGIONS[r]["size"]]["office_slots"]
    return [int(state[K.OFFICES + r * K.MAX_SLOTS + s]) for s in range(n)], False


def n_offices(state, c, r):
    n = sum(1 for s in range(K.MAX_SLOTS) if state[K.OFFICES + r * K.MAX_SLOTS + s] == c)
    n += sum(1 for s in range(K.MAX_RSLOT) if state[K.RETAILER_OFFICES + r * K.MAX_RSLOT + s] == c)
    return n


def has_free(state, r):
    slots, _ = region_slots(state, r)
    return any(o < 0 for o in slots)


def linked(r, q):
    return RID[q] in REGIONS[r]["links"] or RID[r] in REGIONS[q]["links"]


def buyer_ok(state, c, code):
    if isinstance(code, int):
        return code >= comp(state, c, K.C_PRICE)
    return owns(state, c, TID.index(str(code)))


def capacity(state, c, r):
    if state[K.RETAILER + r] >= 0:
        return 0
    elig = 0
    mine = False
    for b, code in enumerate(REGIONS[r]["buyers"]):
        who = int(state[K.BUYERS + r * K.MAX_BUY + b])
        if who == c:
            mine = True
        if who < 0 and buyer_ok(state, c, code):
            elig += 1
    if c in [int(state[K.OFFICES + r * K.MAX_SLOTS + s]) for s in range(K.MAX_SLOTS)]:
        return elig
    if effect(state, c, "sell_without_office"):
        return 0 if mine else min(1, elig)
    return 0


# ------------------------------------------------------------------ plan geometry
def rot(a, k):
    for _ in range(k):
        h, w = len(a), len(a[0])
        a = [[a[h - 1 - j][i] for j in range(h)] for i in range(w)]
    return a


def pad_side(pad, side):
    return [[ICONS[x] for x in row] for row in DATA["pads"][pad][f"side{side}"]]


def pad_layers(sw, sb, arr):
    """Canvas dicts bottom {cell: icon}, top {cell: icon} of W side ``sw``, B side ``sb`` and
    arrangement ``arr`` (60 * (B on top) + top-pad position)."""
    top_is_w = arr // 60 == 0
    botpad = pad_side("B", sb) if top_is_w else pad_side("W", sw)
    toppad = pad_side("W", sw) if top_is_w else pad_side("B", sb)
    i = arr % 60
    k = 0
    while i >= len(DATA["geometry"]["top_pad_positions"][f"k{k}"]):
        i -= len(DATA["geometry"]["top_pad_positions"][f"k{k}"])
        k += 1
    r0, c0 = DATA["geometry"]["top_pad_positions"][f"k{k}"][i]
    bottom = {(3 + a, 3 + b): botpad[a][b] for a in range(2) for b in range(3)}
    rt = rot(toppad, k)
    top = {(r0 + a, c0 + b): rt[a][b] for a in range(len(rt)) for b in range(len(rt[0]))}
    return bottom, top


def plan_layers(state, c, upto=None):
    """Canvas dicts: bottom {cell: icon}, top {cell: icon}, tiles [(cells, icons, level)]."""
    p = K.PLANS + c * K.PLAN_SIZE
    bottom, top = pad_layers(int(state[p + K.PL_W_SIDE]), int(state[p + K.PL_B_SIDE]), int(state[p + K.PL_ARRANGE]))
    tiles = []
    n = int(state[p + K.PL_COUNT]) if upto is None else upto
    for j in range(n):
        code = int(state[p + K.PL_ORDER_CODE + j])
        u = int(state[p + K.PL_ORDER_TILE + j])
        tt = K.TILE_TYPES[comp(state, c, K.C_TILES, u)]
        if code == 4 * len(DOMINOES):
            tiles.append(None)
            continue
        d, o, lv = code >> 2, (code >> 1) & 1, code & 1
        cells = DOMINOES[d]
        icons = (ICONS[tt[0]], ICONS[tt[1]]) if o == 0 else (ICONS[tt[1]], ICONS[tt[0]])
        tiles.append((cells, icons, lv))
    return bottom, top, tiles


DOMINOES = [((r, c), (r, c + 1)) for r in range(8) for c in range(8)] + \
           [((r, c), (r + 1, c)) for r in range(7) for c in range(9)]


def tile_place_legal(bottom, top, tiles, cells, lv, overhang):
    B, T = set(bottom), set(top)
    U = B | T
    off = sum(1 for x in cells if x not in U)
    if off > overhang:
        return False
    if lv == 1:
        if any(x in T and x not in B for x in cells):
            return False
        # an under-tile needs no cell beneath the top pad: a later under-tile may lie on it
    placed = [t for t in tiles if t is not None] + [(cells, None, lv)]
    for i, (ci, _, li) in enumerate(placed):
        above = [set(cj) for j, (cj, _, lj) in enumerate(placed)
                 if j != i and ((1 - lj) > (1 - li) or ((1 - lj) == (1 - li) and j > i))]
        if all(any(x in s for s in above) for x in ci):
            return False
    return True


def outcome(state, c):
    """Outcome vector of c's plan as laid so far (tiles not placed yet count for nothing)."""
    return visible_outcome(*plan_layers(state, c))


def committed_outcome(state, c):
    """Outcome vector of c's plan once committed: tiles not placed yet go face down."""
    o = list(outcome(state, c))
    o[0] += comp(state, c, K.C_NUM_TILES) - int(state[K.PLANS + c * K.PLAN_SIZE + K.PL_COUNT])
    return tuple(o)


def visible_outcome(bottom, top, tiles):
    """(C + d, PROD + CHEAP, IMP active, IMP covered, PUP - PDOWN - CHEAP, RES, LOG) of the
    layers of :func:`plan_layers` (a face-down tile is None in ``tiles``)."""
    vis = {}
    for x, ic in bottom.items():
        vis[x] = ic
    for t in tiles:
        if t is not None and t[2] == 1:
            for x, ic in zip(t[0], t[1]):
                vis[x] = ic
    for x, ic in top.items():
        vis[x] = ic
    for t in tiles:
        if t is not None and t[2] == 0:
            for x, ic in zip(t[0], t[1]):
                vis[x] = ic
    cnt = {i: 0 for i in range(len(K.ICON_NAMES))}
    for ic in vis.values():
        cnt[ic] += 1
    C = len(set(bottom) & set(top))
    d = sum(1 for t in tiles if t is None)
    imp_total = sum(1 for ic in list(bottom.values()) + list(top.values()) if ic == ICONS["IMP"])
    return (C + d, cnt[ICONS["PROD"]] + cnt[ICONS["CHEAP"]], cnt[ICONS["IMP"]], imp_total - cnt[ICONS["IMP"]],
            cnt[ICONS["PUP"]] - cnt[ICONS["PDOWN"]] - cnt[ICONS["CHEAP"]], cnt[ICONS["RES"]], cnt[ICONS["LOG"]])


# ------------------------------------------------------------------ legality
def legal_actions(state):
    """Set of legal flat action ids in the current state."""
    pend = int(state[K.PENDING])
    c = int(state[K.CURRENT])
    out = set()
    if pend < 0:
        return out
    off = int(K.ACTIONS.block_offsets[pend])
    if pend == K.P_SIDES:
        return {off + i for i in range(4)}
    if pend == K.P_ARRANGE:
        return {off + i for i in range(120)}
    if pend == K.P_TILE_PICK:
        p = K.PLANS + c * K.PLAN_SIZE
        out = {off + u for u in range(comp(state, c, K.C_NUM_TILES)) if state[p + K.PL_PLACED + u] == 0}
        out.add(off + K.MAX_TILES)
        return out
    if pend == K.P_TILE_PLACE:
        bottom, top, tiles = plan_layers(state, c)
        ov = 1 if effect(state, c, "tile_overhang") else 0
        for d, cells in enumerate(DOMINOES):
            for lv in range(2):
                if tile_place_legal(bottom, top, tiles, cells, lv, ov):
                    out.add(off + 4 * d + lv)
                    out.add(off + 4 * d + 2 + lv)
        out.add(off + 4 * len(DOMINOES))
        return out
    if pend == K.P_IMPROVE_PICK:
        return {off + s for s in range(K.DISPLAY_SIZE) if state[K.DISPLAY + s] >= 0}
    if pend == K.P_RESEARCH:
        return {off + t for t in range(6) if not owns(state, c, t)} | {off + 6}
    if pend == K.P_LOGISTICS:
        for r in range(12):
            if n_offices(state, c, r) == 0 and has_free(state, r) and \
                    any(linked(r, q) and n_offices(state, c, q) > 0 for q in range(12)):
                out.add(off + r)
        out.add(off + 12)
        return out
    if pend == K.P_OFFICE_TARGET:
        kind = int(state[K.OFFICE_KIND])
        used = comp(state, c, K.C_OFFICES_USED)
        for r in range(12):
            if kind in (K.OT_WIFI, K.OT_EXTRA):
                ok = used < 18 and n_offices(state, c, r) == 1 and state[K.RETAILER + r] < 0 and has_free(state, r)
            elif kind == K.OT_GAMEPAD:
                ok = used < 18 and REGIONS[r]["size"] == "S" and n_offices(state, c, r) == 0 and has_free(state, r)
            else:
                ok = r != state[K.MOVE_SOURCE] and n_offices(state, c, r) == 0 and has_free(state, r)
            if ok:
                out.add(off + r)
        return out
    if pend == K.P_MOVE_SOURCE:
        for r in range(12):
            if n_offices(state, c, r) and any(d != r and n_offices(state, c, d) == 0 and has_free(state, d)
                                              for d in range(12)):
                out.add(off + r)
        return out
    if pend == K.P_NFC_SELL:
        return {off + k for k in range(min(3, comp(state, c, K.C_READY)))}
    if pend == K.P_SELL:
        return {off + r for r in range(12) if capacity(state, c, r) > 0}
    if pend == K.P_BONUS_TECH:
        return {off + t for t in range(6) if not owns(state, c, t)}
    if pend == K.P_BONUS_PRICE:
        return {off, off + 1}
    return out


# ------------------------------------------------------------------ scoring
def final_score(state, c):
    """(track VP, patent VP, retailer VP, total)."""
    track = comp(state, c, K.C_VP)
    pat = sum(int(TECHS[t]["patent_vp"]["value"]) for t in range(6) if state[K.PATENT + t] == c)
    ret = 0
    for r in range(12):
        t = int(state[K.RETAILER + r])
        if t < 0:
            continue
        vps = DATA["retailers"]["slot_vp"][RET_TILES[t]["size"]]
        for s in range(len(vps)):
            if state[K.RETAILER_OFFICES + r * K.MAX_RSLOT + s] == c:
                ret += vps[s]
    return track, pat, ret, track + pat + ret


def final_ranks(state):
    n = int(state[K.NUM_COMPANIES])
    keys = []
    for c in range(n):
        keys.append((final_score(state, c)[3], sum(owns(state, c, t) for t in range(6)),
                     sum(1 for t in range(6) if state[K.PATENT + t] == c)))
    return [1 + sum(1 for q in range(n) if keys[q] > keys[c]) for c in range(n)]


def leadership(counts_left, slot_vp_pair):
    """counts_left: {company: (goods, leftmost index)}; returns {company: vp}."""
    order = sorted(counts_left, key=lambda c: (-counts_left[c][0], counts_left[c][1]))
    out = {}
    if order:
        out[order[0]] = slot_vp_pair[0]
    if len(order) > 1 and slot_vp_pair[1] is not None:
        out[order[1]] = slot_vp_pair[1]
    return out


# ------------------------------------------------------------------ pads alone and Steve (ruling 43)
def price_of(shift, nfc_back=0):
    """Phase 2: 5 + icon shift (+1 with NFC back), kept within the price bounds."""
    c = DATA["constants"]
    return min(max(c["start_price"]["value"] + shift + nfc_back, c["price_min"]["value"]), c["price_max"]["value"])


def pad_plan_outcomes():
    """Outcome vectors of the 480 tile-less pad plans, in order 120 * sides + arrangement."""
    return [visible_outcome(*pad_layers(s // 2, s % 2, a), []) for s in range(4) for a in range(120)]


def company_pad_means():
    """Means over a company's 480 pad plans, no technologies: goods (C + CHEAP), research,
    logistics and price."""
    outs = pad_plan_outcomes()
    n = len(outs)
    return {"goods": sum(o[0] + o[1] for o in outs) / n, "research": sum(o[5] for o in outs) / n,
            "logistics": sum(o[6] for o in outs) / n, "price": sum(price_of(o[4]) for o in outs) / n}


def steve_outcome(rnd, num_tiles):
    """Outcome vector of Steve's plan in round ``rnd`` with ``num_tiles`` tiles (all face
    down): his marker's cell counts as one covered cell and its icon is inactive; every
    other icon of his pad is active."""
    st = DATA["steve"]
    r, c = st["marker_cycle"][(rnd - 1) % len(st["marker_cycle"])]
    cells = [(i, j) for i in range(len(st["pad"])) for j in range(len(st["pad"][0]))]
    active = [st["pad"][i][j] for i, j in cells if (i, j) != (r, c)]
    imp_total = sum(1 for i, j in cells if st["pad"][i][j] == "IMP")
    down = DATA["improvement_tiles"]["face_down_goods"]["value"]
    return (1 + num_tiles * down, active.count("PROD") + active.count("CHEAP"), active.count("IMP"),
            imp_total - active.count("IMP"), active.count("PUP") - active.count("PDOWN") - active.count("CHEAP"),
            active.count("RES"), active.count("LOG"))


def steve_round(rnd):
    """Steve's pad alone in round ``rnd``, no technologies: goods (1 covered cell + PROD +
    CHEAP), research, logistics, price."""
    o = steve_outcome(rnd, 0)
    return {"goods": o[0] + o[1], "research": o[5], "logistics": o[6], "price": price_of(o[4])}


# ------------------------------------------------------------------ phase 4 (ruling 6)
def turn_order(state, prices):
    """Companies sorted by (price, track VP, start VP)."""
    n = int(state[K.NUM_COMPANIES])
    return sorted(range(n), key=lambda c: (prices[c], comp(state, c, K.C_VP), comp(state, c, K.C_START_VP)))


def improvement_phase(order, imp_active, display_tiles, tokens):
    """Phase 4: in ``order``, each company takes exactly one action -- with an active IMP
    (``imp_active[c] > 0``) a display tile of its choice (a decision, ``"tile"``), unless the
    display is empty; otherwise, or then, a goods token (``"token"``, automatic), or
    ``"nothing"`` when no token is left.  Returns {company: action}."""
    out = {}
    for c in order:
        if imp_active[c] > 0 and display_tiles > 0:
            out[c] = "tile"
            display_tiles -= 1
        elif tokens > 0:
            out[c] = "token"
            tokens -= 1
        else:
            out[c] = "nothing"
    return out
