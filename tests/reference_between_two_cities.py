"""Plain-Python reference for Between Two Cities: legality and scoring written from the
rules reference (the Korean rulebook edition), independently of the kernel's
algorithms.  Only the state *layout* (offsets) is taken from the kernel module, to read
a kernel state; tables are re-read from the YAML data file.
"""
from pathlib import Path

import yaml

from kernels import between_two_cities as K

DATA = yaml.safe_load((Path(K.__file__).parent / "data" / "between_two_cities.yaml").read_text())
KINDS = [k["name"] for k in sorted(DATA["tile_kinds"]["list"], key=lambda k: k["id"])]
KTYPE = [k["type"] for k in sorted(DATA["tile_kinds"]["list"], key=lambda k: k["id"])]
DUPS = {d["id"]: d for d in DATA["duplex_tiles"]["list"]}
SC = DATA["scoring"]
LINE = SC["shop"]["points_by_line_length"]
TAV = SC["tavern"]["points_by_set_size"]
OFF = SC["office"]["points_by_group_size"]
PARK = SC["park"]["points_by_group_size"]
FPTS = SC["factory"]["points_per_factory"]
TYPE_ORDER = DATA["building_types"]["order"]
# points each difficulty level adds to the Deep Learning City's final score (ruling 18:
# -10, -5, 0, +5, +10; negative values take points off)
ADJUSTMENT = DATA["solo"]["difficulty"]["bonus_by_level"]
SIDE = 7


# ------------------------------------------------------------------ tiles
def tile_cells(code, r, c):
    """[(r, c, kind_name)] covered by tile ``code`` anchored at (r, c)."""
    if code < 9:
        return [(r, c, KINDS[code])]
    d = DUPS[code - 9]
    a, b = d["halves"]
    if d["layout"] == "stacked":
        return [(r, c, a), (r + 1, c, b)]
    return [(r, c, a), (r, c + 1, b)]


def legal_anchors(city, code):
    """``city``: dict (r, c) -> kind name on the 7x7 canvas.  Legal anchors (G1-G4)."""
    out = set()
    for r in range(SIDE):
        for c in range(SIDE):
            cells = tile_cells(code, r, c)
            if any(not (0 <= rr < SIDE and 0 <= cc < SIDE) for rr, cc, _ in cells):
                continue
            if any((rr, cc) in city for rr, cc, _ in cells):
                continue
            if not city:
                if (r, c) == (3, 3):
                    out.add((r, c))
                continue
            touch = any((rr + dr, cc + dc) in city for rr, cc, _ in cells
                        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if not touch:
                continue
            rows = [p[0] for p in city] + [x[0] for x in cells]
            cols = [p[1] for p in city] + [x[1] for x in cells]
            if max(rows) - min(rows) + 1 > 4 or max(cols) - min(cols) + 1 > 4:
                continue
            out.add((r, c))
    return out


# ------------------------------------------------------------------ reading a kernel state
def read_city(state, c):
    g = state[K.GRIDS + c * 49: K.GRIDS + (c + 1) * 49]
    return {(i // 7, i % 7): KINDS[int(g[i])] for i in range(49) if g[i] >= 0}


def is_solo(state):
    return int(state[K.MODE]) in (K.MODE_SIMPLE, K.MODE_FULL)


def seat_cities(state, s):
    """(left, right) city of seat ``s`` per the conventions of the rules reference."""
    n = int(state[K.NUM_PARTICIPANTS])
    if int(state[K.MODE]) == K.MODE_2P:
        return 2 * s, 2 * s + 1
    return s, (s - 1) % n


def reference_mask(state):
    mask = [0] * K.NUM_ACTIONS
    ph = int(state[K.PHASE])
    if ph == K.PH_END:
        return mask
    solo = is_solo(state)
    seat = 0 if solo else int(state[K.CUR_SEAT])
    if ph == K.PH_PICK:
        # 5.1: choose a tile from the hand (earlier picks are already out of the hand)
        for t in range(33):
            if state[K.HANDS + seat * 33 + t] > 0:
                mask[t] = 1
        return mask
    sub = int(state[K.SUBSTEP])
    if solo:
        city = 0 if sub < 2 else 2                   # left city's waiting tiles first (ruling 23)
        cands = [int(state[K.WAITING + city * 2 + k]) for k in range(2)]
    else:
        city = seat_cities(state, seat)[sub]         # left city first, then right
        cands = [int(state[K.CHOSEN + 2 * seat + k]) for k in range(2)]
        if state[K.ASSIGN_AT_SELECTION]:                        # first pick -> left, second -> right
            cands = [cands[0], -1] if sub == 0 else [-1, cands[1]]
    cells = read_city(state, city)
    for k, code in enumerate(cands):
        if code < 0:
            continue
        for r, c in legal_anchors(cells, code):
            mask[33 + k * 49 + r * 7 + c] = 1
    return mask


def city_grid(state, c):
    """The city as 4 row strings of kind names (cropped to its box)."""
    cells = read_city(state, c)
    if not cells:
        return [[None] * 4 for _ in range(4)]
    r0 = min(p[0] for p in cells)
    c0 = min(p[1] for p in cells)
    return [[cells.get((r0 + r, c0 + cc)) for cc in range(4)] for r in range(4)]


# ------------------------------------------------------------------ scoring
def shop_points(grid):
    """Maximum over all splits of the shops into straight lines (recursive search)."""
    shops = frozenset((r, c) for r in range(4) for c in range(4) if grid[r][c] == "shop")

    memo = {}

    def best(rest):
        if not rest:
            return 0
        if rest in memo:
            return memo[rest]
        first = min(rest)
        r, c = first
        res = 0
        for dr, dc in ((0, 1), (1, 0)):
            line = []
            rr, cc = r, c
            while (rr, cc) in rest:
                line.append((rr, cc))
                res = max(res, LINE[len(line)] + best(rest - frozenset(line)))
                rr, cc = rr + dr, cc + dc
        # a shop may also be the end of a line that began earlier: covered since
        # `first` is the smallest remaining cell (lines go right / down from it)
        memo[rest] = res
        return res

    return best(shops)


def neighbours(r, c):
    return [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= r + dr < 4 and 0 <= c + dc < 4]


def tavern_points(counts):
    counts = list(counts)
    pts = 0
    while any(counts):
        k = sum(1 for x in counts if x > 0)
        pts += TAV[k]
        counts = [x - 1 if x > 0 else 0 for x in counts]
    return pts


def office_base(n):
    pts = 0
    while n > 0:
        g = min(n, 6)
        pts += OFF[g]
        n -= g
    return pts


def park_value(k):
    return PARK[k] if k <= 3 else PARK[3] + SC["park"]["extra_per_tile_above_3"] * (k - 3)


def ref_score_grid(grid, fpp):
    """grid: 4x4 of kind names or None.  Returns dict of parts and total."""
    cells = {(r, c): grid[r][c] for r in range(4) for c in range(4) if grid[r][c] is not None}
    kinds = list(cells.values())
    out = {"shop": shop_points(grid), "factory": kinds.count("factory") * fpp}
    out["tavern"] = tavern_points([kinds.count(k) for k in KINDS if k.startswith("tavern")])
    bonus = sum(1 for p, k in cells.items() if k == "office"
                and any(cells.get(q, "").startswith("tavern") for q in neighbours(*p)))
    out["office"] = office_base(kinds.count("office")) + bonus
    seen = set()
    parks = 0
    for p, k in cells.items():
        if k != "park" or p in seen:
            continue
        group = {p}
        todo = [p]
        while todo:
            q = todo.pop()
            for nb in neighbours(*q):
                if cells.get(nb) == "park" and nb not in group:
                    group.add(nb)
                    todo.append(nb)
        seen |= group
        parks += park_value(len(group))
    out["park"] = parks
    types = {KTYPE[KINDS.index(k)] for k in kinds} - {"house"}
    hs = 0
    for p, k in cells.items():
        if k == "house":
            hs += 1 if any(cells.get(q) == "factory" for q in neighbours(*p)) else len(types)
    out["house"] = hs
    out["total"] = sum(out.values())
    return out


def ref_dlc(counts, fpp):
    """counts: dict kind name -> n.  6.8."""
    n = counts.get("shop", 0)
    shop = 16 * (n // 4) + [0, 2, 5, 10][n % 4]
    tav = [counts.get(k, 0) for k in KINDS if k.startswith("tavern")]
    # ruling 19 (revised): every office counts as next to a tavern, tavern or not
    office = office_base(counts.get("office", 0)) + SC["office"]["tavern_adjacency_bonus_per_office"] * counts.get("office", 0)
    p = counts.get("park", 0)
    park = 8 * (p // 2) + 2 * (p % 2)
    types = {KTYPE[KINDS.index(k)] for k, v in counts.items() if v} - {"house"}
    house = counts.get("house", 0) * len(types)
    return shop + counts.get("factory", 0) * fpp + tavern_points(tav) + office + park + house


def factory_rank_points(counts):
    distinct = sorted(set(counts), reverse=True)
    out = []
    for x in counts:
        if x == 0:
            out.append(0)
        elif x == distinct[0]:
            out.append(FPTS["most"])
        elif len(distinct) > 1 and x == distinct[1]:
            out.append(FPTS["second"])
        else:
            out.append(FPTS["other"])
    return out


def city_kind_counts(state, c):
    return {KINDS[k]: int(state[K.KIND_COUNTS + c * 9 + k]) for k in range(9)}


def reference_city_totals(state):
    nc = int(state[K.NUM_CITIES])
    counts = [city_kind_counts(state, c) for c in range(nc)]
    fpp = factory_rank_points([cc["factory"] for cc in counts])
    totals = []
    for c in range(nc):
        if is_solo(state) and c == 1:
            totals.append(ref_dlc(counts[c], fpp[c]) + ADJUSTMENT[int(state[K.DIFFICULTY])])
        else:
            totals.append(ref_score_grid(city_grid(state, c), fpp[c])["total"])
    return totals, counts


def reference_scores_ranks(state, totals=None):
    """Scores and ranks of every participant (section 6.7, 7): score, then the tie-break
    items of the data file in order (2 players too: ruling 14, revised -- the higher of
    the seat's own two cities first, then building counts by type)."""
    t2, counts = reference_city_totals(state)
    totals = t2 if totals is None else totals
    n = int(state[K.NUM_PARTICIPANTS])
    two = int(state[K.MODE]) == K.MODE_2P
    order = SC["tie_break"]["two_player" if two else "three_to_seven_and_solo"]
    keys = []
    for s in range(n):
        a, b = seat_cities(state, s)
        score = totals[a] + totals[b] if two else min(totals[a], totals[b])
        key = [score]
        for item in order:
            if item == "higher_city":
                key.append(max(totals[a], totals[b]))
            else:
                key.append(sum(v for k, v in counts[a].items() if KTYPE[KINDS.index(k)] == item)
                           + sum(v for k, v in counts[b].items() if KTYPE[KINDS.index(k)] == item))
        keys.append(key)
    ranks = [1 + sum(1 for j in range(n) if keys[j] > keys[i]) for i in range(n)]
    return [k[0] for k in keys], ranks


# ------------------------------------------------------------------ solo automata (5.5)
CARDS = sorted(DATA["solo"]["automa_deck"]["cards"], key=lambda c: c["id"])
TIE = DATA["solo"]["max_points_tie_break"]


def _grid_from_cells(cells):
    if not cells:
        return [[None] * 4 for _ in range(4)]
    r0 = min(p[0] for p in cells)
    c0 = min(p[1] for p in cells)
    return [[cells.get((r0 + r, c0 + c)) for c in range(4)] for r in range(4)]


def ref_gain(state, city, code):
    """Score gain of tile ``code`` for solo ``city`` (best legal position; DLC: no bonus)."""
    counts = [city_kind_counts(state, c) for c in range(3)]
    fnow = factory_rank_points([cc["factory"] for cc in counts])
    added = [k for _, _, k in tile_cells(code, 0, 0)]
    after = [dict(cc) for cc in counts]
    for k in added:
        after[city][k] += 1
    fafter = factory_rank_points([cc["factory"] for cc in after])
    if city == 1:
        return ref_dlc(after[1], fafter[1]) - ref_dlc(counts[1], fnow[1])
    cells = read_city(state, city)
    now = ref_score_grid(_grid_from_cells(cells), fnow[city])["total"]
    best = None
    for r, c in legal_anchors(cells, code):
        new = dict(cells)
        for rr, cc, k in tile_cells(code, r, c):
            new[(rr, cc)] = k
        s = ref_score_grid(_grid_from_cells(new), fafter[city])["total"]
        best = s if best is None else max(best, s)
    return best - now


def ref_automaton_choice(state, seat, card_index, col, city):
    hand = [t for t in range(33) if state[K.HANDS + seat * 33 + t] > 0]
    column = CARDS[card_index]["shared_city" if col == 0 else "deep_learning_city"]
    kinds_here = {k for k, v in city_kind_counts(state, city).items() if v}
    types_here = {KTYPE[KINDS.index(k)] for k in kinds_here}

    def order(t):
        name = KINDS[t]
        ty = KTYPE[t]
        tav = TIE["tavern_kind_order"].index(name) if ty == "tavern" else 0
        return (TIE["type_order"].index(ty), tav)

    for item in column:
        if item == "max_points":
            cands = hand
        elif item == "new_type_if_house":
            if "house" not in kinds_here:
                continue
            cands = [t for t in hand if KTYPE[t] not in types_here]
        else:
            cands = [t for t in hand if KTYPE[t] == item]
        if cands:
            return min(cands, key=lambda t: (-ref_gain(state, city, t), order(t)))
    return None
