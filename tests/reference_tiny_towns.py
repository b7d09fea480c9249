"""Plain-Python reference for Tiny Towns: legality of the current decision and town scoring.

Written from the rules reference of the game (the rules described in :mod:`envs.tiny_towns`)
without calling the kernel's rule functions; it only reads the kernel's state layout (the
offsets of :mod:`kernels.tiny_towns`) and the data file.  Scoring brute-forces every feeding (all Greenhouse group choices, all Farm subsets).
"""
import itertools

import numpy as np
import yaml

from kernels import tiny_towns as K

with open(K.data_files.DATA_DIR / "tiny_towns.yaml") as f:
    D = yaml.safe_load(f)

RES = [r["code"] for r in D["resources"]]
TYPES = [t["id"] for t in D["building_types"]]
CARDS = D["buildings"] + D["monuments"]
NAMES = [c["name"] for c in CARDS]
NUM_BUILDING_CARDS = len(D["buildings"])
IDX = {n: i for i, n in enumerate(NAMES)}


def ctype(c):
    """Colour type index of card c, or None for a monument."""
    return TYPES.index(CARDS[c]["type"]) if c < NUM_BUILDING_CARDS else None


def type_key(c):
    """Type used for 'distinct type' counts: colour; Barrett Castle = cottage; other monuments own."""
    if c < NUM_BUILDING_CARDS:
        return TYPES[ctype(c)]
    if NAMES[c] == "Barrett Castle":
        return "cottage"
    return NAMES[c]


# -------------------------------------------------------------------- pattern images
def images(card):
    """{t: image} for the canonical transforms (lowest t of each distinct image)."""
    grid = np.array([list(row) for row in CARDS[card]["pattern"]])
    out, seen = {}, []
    for t in range(8):
        g = np.fliplr(grid) if t >= 4 else grid
        g = np.rot90(g, -(t % 4))          # clockwise quarter turns
        key = ("|".join("".join(r) for r in g))
        if key in seen:
            continue
        seen.append(key)
        out[t] = g
    return out


IMAGES = [images(c) for c in range(len(CARDS))]


# ----------------------------------------------------------------------- state view
class View:
    def __init__(self, state):
        s = [int(x) for x in state]
        self.s = s
        self.n = s[K.G_NUM_PLAYERS]
        self.round = s[K.G_ROUND]
        self.phase = s[K.G_PHASE]
        self.actor = s[K.G_ACTOR]
        self.cards = [s[K.G_CARDS_IN_PLAY + k] for k in range(7)]

    def p(self, p, off, i=0):
        return self.s[K.G_PLAYERS + p * K.PLAYER_SIZE + off + i]

    def cube(self, p, q):
        return self.p(p, K.O_CUBE, q)

    def bld(self, p, q):
        return self.p(p, K.O_BUILDING, q)

    def extra(self, p, q):
        return self.p(p, K.O_BUILDING_RES, q)

    def active(self, p, q):
        return self.p(p, K.O_PLACED_ROUND, q) < self.round

    def wh(self, p, q):
        return [self.p(p, K.O_WAREHOUSE, q * 5 + r) for r in range(5)]

    def empty(self, p, q):
        return self.cube(p, q) < 0 and self.bld(p, q) < 0

    def empties(self, p):
        return [q for q in range(16) if self.empty(p, q)]

    def monument(self, p):
        k = self.p(p, K.O_KEPT)
        return NAMES[k] if k >= 0 else None

    def monument_active(self, p, name):
        if self.monument(p) != name or not self.p(p, K.O_MONUMENT_BUILT):
            return False
        return any(self.bld(p, q) == IDX[name] and self.active(p, q) for q in range(16))


def _bld_name(v, p, q):
    c = v.bld(p, q)
    return NAMES[c] if c >= 0 else None


def bank_resources(v, p, skip=-1):
    return {v.extra(p, q) for q in range(16) if q != skip and _bld_name(v, p, q) == "Bank"
            and v.extra(p, q) >= 0}


def n_banks(v, p):
    return sum(1 for q in range(16) if _bld_name(v, p, q) == "Bank")


def _cells(img):
    """The resource cells of a pattern image: (row, col, resource index)."""
    return [(dr, dc, RES.index(img[dr, dc])) for dr in range(img.shape[0]) for dc in range(img.shape[1])
            if img[dr, dc] != "."]


CELLS = [{t: (img.shape, _cells(img)) for t, img in IMAGES[c].items()} for c in range(len(CARDS))]
ANY = 5     # board key of a Trading Post: stands for any resource


def board_key(v, p):
    """Per square of p's board: the loose cube's resource, ANY for a Trading Post (it serves
    its owner at once, later constructions of the same build step included: ruling 8),
    else None."""
    key = []
    for q in range(16):
        if v.cube(p, q) >= 0:
            key.append(v.cube(p, q))
        elif _bld_name(v, p, q) == "Trading Post":
            key.append(ANY)
        else:
            key.append(None)
    return key


def _placements(v, p, c, key=None):
    """(t, anchor) of every placement of card c's pattern on p's cubes (a Trading Post may
    stand for any resource, but at least one real cube is used)."""
    key = board_key(v, p) if key is None else key
    out = []
    for t, ((h, w), cells) in CELLS[c].items():
        for r0 in range(4 - h + 1):
            for c0 in range(4 - w + 1):
                ok, real = True, False
                for dr, dc, r in cells:
                    k = key[(r0 + dr) * 4 + c0 + dc]
                    if k == r:
                        real = True
                    elif k != ANY:
                        ok = False
                        break
                if ok and real:
                    out.append((t, r0 * 4 + c0))
    return out


def constructions(v, p):
    """Legal CONSTRUCT action ids of player p."""
    acts = set()
    slots = []
    for slot in range(7):
        c = v.cards[slot]
        if NAMES[c] == "Bank" and n_banks(v, p) >= 5:
            continue
        slots.append((slot, c))
    if v.s[K.G_MONUMENTS] and v.p(p, K.O_KEPT) >= 0 and not v.p(p, K.O_MONUMENT_BUILT):
        slots.append((7, v.p(p, K.O_KEPT)))
    key = board_key(v, p)
    for slot, c in slots:
        for t, anchor in _placements(v, p, c, key):
            acts.add(128 * slot + 16 * t + anchor)
    return acts


def legal_actions(state):
    """The set of legal action ids of the current decision."""
    v = View(state)
    ph, p = v.phase, v.actor
    A = K
    out = set()
    if ph == K.PH_GAME_OVER:
        return out
    if ph == K.PH_KEEP:
        return {A.A_KEEP, A.A_KEEP + 1}
    if ph in (K.PH_NAME,) or (ph == K.PH_CHOOSE and not v.s[K.G_SOLO]):
        banned = bank_resources(v, p)
        if len(banned) == 5:
            banned = set()
        return {A.A_RESOURCE + r for r in range(5) if r not in banned}
    if ph == K.PH_CHOOSE:
        return {A.A_RESOURCE + r for r in range(5) if v.s[K.G_DISPLAY + r] > 0}
    if ph == K.PH_TAKE:
        return {A.A_RESOURCE + r for r in range(5)}
    if ph == K.PH_DEST:
        imposed = v.p(p, K.O_PEND_IMPOSED) == 1
        empt = v.empties(p)
        out = {A.A_SQUARE + q for q in empt}
        if imposed:
            for q in range(16):
                nm = _bld_name(v, p, q)
                if nm == "Warehouse" and v.active(p, q):
                    cnt = sum(v.wh(p, q))
                    if cnt < 3 or (cnt > 0 and empt):
                        out.add(A.A_SQUARE + q)
                if nm == "Cottage" and v.extra(p, q) < 0 and v.monument_active(p, "Statue of the Bondmaker"):
                    out.add(A.A_SQUARE + q)
            if v.s[K.G_CAVE_RULE] and v.p(p, K.O_CAVE_USES) < 2:
                out.add(A.A_SET_ASIDE)
        return out
    if ph == K.PH_SWAP:
        q = v.p(p, K.O_PEND_DEST)
        if not 0 <= q < 16 or _bld_name(v, p, q) != "Warehouse":
            return {A.A_PASS}        # padding: the cube went elsewhere (see warehouse_padded)
        stock = v.wh(p, q)
        if v.empties(p):
            out |= {A.A_RESOURCE + r for r in range(5) if stock[r] > 0}
        if sum(stock) < 3:
            out.add(A.A_PASS)
        return out
    if ph == K.PH_SWAP_SQUARE and v.p(p, K.O_PEND_SWAP_RES) < 0:
        return {A.A_PASS}            # padding: no swap
    if ph in (K.PH_SWAP_SQUARE, K.PH_GROVE_SQUARE, K.PH_OPALEYE_SQUARE):
        return {A.A_SQUARE + q for q in v.empties(p)}
    if ph == K.PH_BUILD:
        return constructions(v, p) | {A.A_PASS}
    if ph == K.PH_TOKEN:
        card = v.s[K.G_TOKEN_CARD]
        vac = v.s[K.G_TOKEN_VACATED]
        # an Obelisk of the Crescent serves its owner at once (ruling 8)
        if NAMES[card] == "Shed" or (v.monument(p) == "Obelisk of the Crescent" and v.p(p, K.O_MONUMENT_BUILT)):
            return {A.A_SQUARE + q for q in v.empties(p)}
        return {A.A_SQUARE + q for q in range(16) if vac >> q & 1}
    if ph == K.PH_BUILD_RESOURCE:
        q = v.s[K.G_RESOURCE_CELL]
        if _bld_name(v, p, q) == "Bank":
            used = bank_resources(v, p, skip=q)
            return {A.A_RESOURCE + r for r in range(5) if r not in used}
        return {A.A_RESOURCE + r for r in range(5)}
    if ph == K.PH_GROVE_TYPE:
        return {A.A_TYPE + k for k in range(7) if not (NAMES[v.cards[k]] == "Bank" and n_banks(v, p) >= 5)}
    if ph == K.PH_GUILD_TARGET:
        done = v.s[K.G_GUILD_REPLACED]
        out = {A.A_SQUARE + q for q in range(16) if 0 <= v.bld(p, q) < NUM_BUILDING_CARDS and not done >> q & 1}
        return out | {A.A_PASS}
    if ph == K.PH_GUILD_TYPE:
        q = v.s[K.G_GUILD_CELL]
        cur = v.bld(p, q)
        nb = n_banks(v, p) - (1 if NAMES[cur] == "Bank" else 0)
        return {A.A_TYPE + k for k in range(7) if k != ctype(cur)
                and not (NAMES[v.cards[k]] == "Bank" and nb >= 5)}
    if ph == K.PH_OPALEYE_TYPE:
        return {A.A_TYPE + k for k in range(7) if not v.p(p, K.O_OPALEYE_ASIDE, k)}
    raise AssertionError(f"unknown phase {ph}")


def warehouse_padded(state, p):
    """A placement by p is followed by the two Warehouse steps whatever its destination:
    with others at the table, when the resource is imposed on p and one of p's active
    Warehouses could take it (room, or a stored cube and an empty square to swap)."""
    v = View(state)
    if v.s[K.G_SOLO] or v.p(p, K.O_PEND_IMPOSED) != 1:
        return False
    empt = v.empties(p)
    return any(_bld_name(v, p, q) == "Warehouse" and v.active(p, q)
               and (sum(v.wh(p, q)) < 3 or (sum(v.wh(p, q)) > 0 and empt)) for q in range(16))


def seen_built(v, j, p):
    """p knows that j has built its monument: its own always; another player's once built in
    an earlier round -- one built this round stays hidden until every player has finished
    building (ruling 6: build steps are committed hidden and revealed together)."""
    if not v.p(j, K.O_MONUMENT_BUILT):
        return False
    if j == p or v.s[K.G_SOLO]:
        return True
    return v.p(j, K.O_PLACED_ROUND, v.p(j, K.O_MONUMENT_CELL)) < v.round


def unbuilt_monuments(v, p):
    """Monuments nobody has built as far as p knows (a built monument is revealed with the
    round's constructions), solo removals out."""
    built = {v.p(j, K.O_KEPT) for j in range(v.n) if seen_built(v, j, p)}
    removed = set(D["solo"]["removed_monuments"]) if v.s[K.G_SOLO] else set()
    return [c for c in range(NUM_BUILDING_CARDS, len(CARDS)) if c not in built and NAMES[c] not in removed]


def monument_could_fit(state, p):
    """What the others can tell: p has not built its monument and some monument nobody
    has built yet as far as p knows (whichever p kept) fits p's board."""
    v = View(state)
    if not v.s[K.G_MONUMENTS] or v.p(p, K.O_MONUMENT_BUILT):
        return False
    key = board_key(v, p)
    return any(_placements(v, p, c, key) for c in unbuilt_monuments(v, p))


def build_offered(state, p):
    """p's build step is a decision (else p is done at once) when p has a legal
    construction, or -- with others at the table -- when a monument nobody has built yet
    could fit p's board: judged from p's own board and public information only (not the
    constructions of players who built before p this round, hidden until the reveal), so
    the turn order never shows which monument p kept or what the others built.  Solo: only
    when p has a legal construction (the rule as written)."""
    v = View(state)
    if constructions(v, p):
        return True
    return not v.s[K.G_SOLO] and monument_could_fit(state, p)


# --------------------------------------------------------------------------- scoring
def _adj(q):
    r, c = divmod(q, 4)
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < 4 and 0 <= c + dc < 4:
            yield (r + dr) * 4 + c + dc


def _table(name, k):
    t = D["tables"][name]
    vals = t["vp"]
    return vals[k - 1] if k <= len(vals) else t["above_last"]


def _evaluate(town, wh, fed, right_fh, solo, shrine, star_place):
    """town: list of 16 card names or None; fed: set of squares."""
    dv = {d["key"]: d["value"] for d in D["decided_values"]}

    def weight(q):
        return 2 if town[q] == "Barrett Castle" else (1 if town[q] == "Cottage" else 0)

    def typ(q):
        return None if town[q] is None else type_key(IDX[town[q]])

    def colour(q):
        if town[q] is None or IDX[town[q]] >= NUM_BUILDING_CARDS:
            return None
        return CARDS[IDX[town[q]]]["type"]

    total = 0
    count = {n: town.count(n) for n in set(town) if n}
    for q, nm in enumerate(town):
        if nm is None:
            continue
        r, c = divmod(q, 4)
        line = [x for x in range(16) if x != q and (x // 4 == r or x % 4 == c)]
        adj = list(_adj(q))
        if nm == "Cottage":
            total += 3 if q in fed else (3 if "Grand Mausoleum of the Rodina" in count else 0)
        elif nm == "Barrett Castle":
            total += 5 if q in fed else 0
        elif nm == "Well":
            total += sum(weight(x) for x in adj)
        elif nm == "Fountain":
            total += 2 if any(colour(x) == "grey" for x in adj) else 0
        elif nm == "Millstone":
            total += 2 if any(colour(x) in ("red", "yellow") for x in adj) else 0
        elif nm == "Shed":
            total += 1
        elif nm == "Chapel":
            total += sum(weight(x) for x in fed)
        elif nm == "Abbey":
            total += 0 if any(colour(x) in ("black", "green", "yellow") for x in adj) else 3
        elif nm == "Cloister":
            total += min(4, sum(1 for x in (0, 3, 12, 15) if town[x] == "Cloister"))
        elif nm == "Temple":
            total += 4 if sum(weight(x) for x in adj if x in fed) >= 2 else 0
        elif nm == "Inn":
            total += 0 if any(colour(x) == "green" for x in line) else 3
        elif nm == "Feast Hall":
            total += dv["feast_hall_solo_each"] if solo else (3 if count["Feast Hall"] > right_fh else 2)
        elif nm == "Theater":
            total += len({typ(x) for x in line if town[x] is not None and colour(x) != "yellow"})
        elif nm == "Bakery":
            total += 3 if any(colour(x) in ("red", "black") for x in adj) else 0
        elif nm == "Market":
            total += max(sum(1 for x in range(16) if x // 4 == r and town[x] == "Market"),
                         sum(1 for x in range(16) if x % 4 == c and town[x] == "Market"))
        elif nm == "Tailor":
            total += 1 + sum(1 for x in (5, 6, 9, 10) if town[x] == "Tailor")
        elif nm == "Bank":
            total += 4
        elif nm == "Trading Post":
            total += 1
        elif nm == "Warehouse":
            total -= wh[q]
        elif nm == "Architect's Guild":
            total += 1
        elif nm == "Archive of the Second Age":
            total += len({typ(x) for x in range(16) if typ(x) in TYPES})
        elif nm == "Cathedral of Caterina":
            total += 2
        elif nm == "Fort Ironweed":
            total += 7
        elif nm == "Grove University":
            total += 3
        elif nm == "Mandras Palace":
            total += 2 * len({typ(x) for x in adj if town[x] is not None})
        elif nm == "Shrine of the Elder Tree":
            total += shrine
        elif nm == "Silva Forum":
            best = 0
            for s in range(16):
                if town[s] is None:
                    continue
                grp, todo = {s}, [s]
                while todo:
                    x = todo.pop()
                    for y in _adj(x):
                        if y not in grp and town[y] is not None and typ(y) == typ(s):
                            grp.add(y)
                            todo.append(y)
                best = max(best, len(grp))
            total += 1 + best
        elif nm == "The Sky Baths":
            total += 2 * (7 - len({typ(x) for x in range(16) if typ(x) in TYPES}))
        elif nm == "The Starloom":
            total += {1: 6, 2: 3, 3: 2}.get(star_place, 0)
    if count.get("Tavern"):
        total += _table("tavern", count["Tavern"])
    if count.get("Almshouse"):
        total += _table("almshouse", count["Almshouse"])
    empty = sum(1 for x in town if x is None)
    total += 0 if "Cathedral of Caterina" in count else -empty
    return total


def score_town_ref(town, wh=None, right_fh=0, solo=False, shrine=0, star_place=1):
    """Best total over every feeding.  ``town``: 16 card names or None."""
    wh = wh or [0] * 16
    feedable = [q for q in range(16) if town[q] in ("Cottage", "Barrett Castle")]
    base = set()
    for q, nm in enumerate(town):
        r, c = divmod(q, 4)
        if nm == "Granary":
            base |= {x for x in feedable if abs(x // 4 - r) <= 1 and abs(x % 4 - c) <= 1}
        if nm == "Orchard":
            base |= {x for x in feedable if x // 4 == r or x % 4 == c}
    groups = []
    left = set(feedable)
    while left:
        s = left.pop()
        grp, todo = {s}, [s]
        while todo:
            x = todo.pop()
            for y in _adj(x):
                if y in left:
                    left.discard(y)
                    grp.add(y)
                    todo.append(y)
        groups.append(grp)
    n_gh = town.count("Greenhouse")
    cap = 4 * town.count("Farm")
    best = None
    gh_choices = itertools.product(range(len(groups)), repeat=n_gh) if groups else [()]
    for choice in gh_choices:
        fed1 = set(base)
        for g in choice:
            fed1 |= groups[g]
        unfed = [q for q in feedable if q not in fed1]
        for k in range(0, min(cap, len(unfed)) + 1):
            for sub in itertools.combinations(unfed, k):
                v = _evaluate(town, wh, fed1 | set(sub), right_fh, solo, shrine, star_place)
                best = v if best is None else max(best, v)
    return best


def final_scores_ref(state):
    """Reference final score of every seat of a kernel state."""
    v = View(state)
    out = []
    for p in range(v.n):
        town = [_bld_name(v, p, q) for q in range(16)]
        wh = [sum(v.wh(p, q)) for q in range(16)]
        right = (p - 1) % v.n
        right_fh = sum(1 for q in range(16) if _bld_name(v, right, q) == "Feast Hall") if v.n > 1 else 0
        mine = v.p(p, K.O_DONE_ROUND) if v.p(p, K.O_STATUS) else v.round + 1
        place = 1 + sum(1 for j in range(v.n) if j != p and v.p(j, K.O_STATUS) and v.p(j, K.O_DONE_ROUND) < mine)
        out.append(score_town_ref(town, wh, right_fh, v.n == 1, v.p(p, K.O_SHRINE), place))
    return out
