"""Plain-Python reference for Expancity legality and scoring, written from the game's
rules reference independently of the kernel's rule code.

It reads a kernel state only through the documented layout constants (to decode the
position) and reads the game's tables straight from the YAML data (conditions are
interpreted from their dictionaries, not from the kernel's compiled rows).
"""
from itertools import permutations
from pathlib import Path

import yaml

from kernels import expancity as K

DATA = yaml.safe_load((Path(K.__file__).parent / "data" / "expancity.yaml").read_bytes())
TYPES = {t["id"]: t for t in DATA["tile_types"]}
KEY = {i: t["key"] for i, t in TYPES.items()}
CLASS = {t["key"]: t["class"] for t in TYPES.values()}
MODS = {m["tile"]: (m["residential"], m["commercial"]) for m in DATA["special_modifiers"]}
RULES = {e["key"]: e["value"] for e in DATA["rules"]}
CONTRACTS = {c["id"]: c for c in DATA["contracts"]}
GOALS = DATA["goals"]
DIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))   # N E S W


class Pos:
    """A decoded position."""

    def __init__(self, state):
        s = [int(v) for v in state[:K.GRID]]
        self.n = s[K.NUM_PLAYERS]
        self.phase = s[K.PHASE]
        self.cur = s[K.CURRENT]
        self.turn = s[K.TURN]
        self.tile_pair = (s[K.TILE_PAIR], s[K.TILE_PAIR + 1])
        nt = s[K.NUM_TILES]
        self.tiles = []
        self.at = {}
        for t in range(nt):
            d = dict(i=t, x=s[K.TILE_X + t], y=s[K.TILE_Y + t], key=KEY[s[K.TILE_TYPE + t]],
                     owner=s[K.TILE_OWNER + t], floors=s[K.TILE_FLOORS + t], done=bool(s[K.TILE_DONE + t]),
                     raised=s[K.TILE_RAISED + t], score=s[K.TILE_SCORE + t])
            self.tiles.append(d)
            self.at[(d["x"], d["y"])] = d
        self.hand = [[s[K.HAND + 2 * p + i] for i in range(2) if s[K.HAND + 2 * p + i] >= 0]
                     for p in range(self.n)]
        self.supply = [s[K.SUPPLY + p] for p in range(self.n)]
        self.reserve = [s[K.RESERVE + p] for p in range(self.n)]
        self.roofs = {"residential": s[K.ROOFS_LEFT], "commercial": s[K.ROOFS_LEFT + 1]}
        self.revealed = [[c + 1 for c in range(K.NUM_CONTRACTS) if s[K.REVEALED + p * K.NUM_CONTRACTS + c]] for p in range(self.n)]
        self.held = [[c + 1 for c in range(K.NUM_CONTRACTS) if s[K.HELD + p * K.NUM_CONTRACTS + c]] for p in range(self.n)]

    # ------------------------------------------------------------ basics
    def nbrs(self, d):
        return [self.at.get((d["x"] + dx, d["y"] + dy)) for dx, dy in DIRS]

    def vacant(self, d):
        return d is not None and CLASS[d["key"]] == "zone" and d["owner"] < 0

    def buildings(self, p):
        return [d for d in self.tiles if d["owner"] == p]

    def R(self, p):
        return max([d["floors"] for d in self.buildings(p) if d["done"] and d["key"] == "residential"], default=0)

    def C(self, p):
        return max([d["floors"] for d in self.buildings(p) if d["done"] and d["key"] == "commercial"], default=0)

    def U(self, p):
        return sum(1 for d in self.buildings(p) if not d["done"])


# ---------------------------------------------------------------- legality

def legal_actions(pos):
    p = pos.cur
    out = set()
    if pos.phase == K.PH_PLACE:
        hand = sorted(pos.hand[p])
        slots = [0] + ([1] if len(hand) == 2 and hand[0] != hand[1] else [])
        for d in pos.tiles:
            for di, (dx, dy) in enumerate(DIRS):
                cell = (d["x"] + dx, d["y"] + dy)
                if cell in pos.at:
                    continue
                owners = [pos.at[(cell[0] + ex, cell[1] + ey)]["i"] for ex, ey in DIRS
                          if (cell[0] + ex, cell[1] + ey) in pos.at]
                if min(owners) != d["i"]:
                    continue
                for s in slots:
                    out.add(s * 244 + d["i"] * 4 + di)
    elif pos.phase == K.PH_ACTION:
        if pos.reserve[p] >= 1:
            out.add(488)
        if pos.supply[p] >= 1:
            for d in pos.tiles:
                if CLASS[d["key"]] != "zone":
                    continue
                if d["owner"] < 0:
                    if pos.U(p) < RULES["max_unfinished_buildings"]:
                        out.add(489 + d["i"])
                elif d["owner"] == p and not d["done"] and d["raised"] != pos.turn:
                    n = d["floors"] + 1
                    if d["key"] == "residential":
                        ok = n <= RULES["residential_max_floors"] and n <= pos.R(p) + 1
                    else:
                        ok = n <= RULES["commercial_free_floors"] or n <= pos.C(p) + 1
                    if ok:
                        out.add(489 + d["i"])
    elif pos.phase == K.PH_ROOF:
        out.add(611)
        for d in pos.buildings(p):
            if d["done"]:
                continue
            need = RULES["residential_min_floors_to_complete"] if d["key"] == "residential" \
                else RULES["commercial_min_floors_to_complete"]
            if d["floors"] >= need and pos.roofs[d["key"]] > 0:
                out.add(550 + d["i"])
    elif pos.phase == K.PH_CONTRACT_KEEP:
        out |= {612, 613}
    elif pos.phase == K.PH_TILE_KEEP:
        # asked whenever the bag held 2+ tiles; with two tiles of one type, one choice
        out.add(614)
        if pos.tile_pair[0] != pos.tile_pair[1]:
            out.add(615)
    return out


# ---------------------------------------------------------------- scoring

def side_name(pos, d):
    if d is None:
        return "none"
    if pos.vacant(d):
        return "vacant"
    if CLASS[d["key"]] == "zone":
        return "building"
    return d["key"]


def score_sides(kind, floors, sides):
    per = RULES["base_points_per_floor"]
    k = 0 if kind == "residential" else 1
    for s in sides:
        if s == "vacant":
            per += RULES["vacant_lot_per_floor"]
        elif s in MODS:
            per += MODS[s][k]
    return floors * per


def building_score_now(pos, t):
    d = pos.tiles[t]
    return score_sides(d["key"], d["floors"], [side_name(pos, q) for q in pos.nbrs(d)])


# ---------------------------------------------------------------- conditions

def is_class(d, cls):
    if d is None:
        return False
    if cls == "special":
        return CLASS[d["key"]] == "special"
    return d["key"] == cls


def sel_ok(pos, d, p, sel):
    if d is None or d["owner"] != p:
        return False
    if sel.get("status", "any") == "done" and not d["done"]:
        return False
    typ = sel.get("type", "any")
    if typ == "res" and d["key"] != "residential":
        return False
    if typ == "com" and d["key"] != "commercial":
        return False
    if sel.get("floors") and d["floors"] != sel["floors"]:
        return False
    nb = pos.nbrs(d)
    adj = sel.get("adj") or []
    if adj:
        if not any(all(is_class(nb[j], c) for j, c in zip(perm, adj))
                   for perm in permutations(range(4), len(adj))):
            return False
    if sel.get("adj_kinds_min"):
        kinds = {q["key"] for q in nb if q is not None and CLASS[q["key"]] == "special"}
        if len(kinds) < sel["adj_kinds_min"]:
            return False
    if sel.get("enclosed"):
        if any(q is None or pos.vacant(q) for q in nb):
            return False
    return True


def cond_ok(pos, cond, p):
    form = cond["form"]
    mine = pos.buildings(p)
    if form == "building":
        return sum(1 for d in mine if sel_ok(pos, d, p, cond["sel"])) >= cond.get("count", 1)
    if form == "share":
        members = cond["members"]
        for t in pos.tiles:
            if not is_class(t, cond["tile"]):
                continue
            around = [q for q in pos.nbrs(t) if q is not None and q["owner"] == p]
            for combo in permutations(around, len(members)):
                if all(sel_ok(pos, b, p, s) for b, s in zip(combo, members)):
                    return True
        return False
    if form == "touching":
        m0, m1 = cond["members"]
        return any(sel_ok(pos, a, p, m0) and any(sel_ok(pos, b, p, m1) for b in pos.nbrs(a)) for a in mine)
    if form == "line":
        n = cond["length"]
        cells = {(d["x"], d["y"]) for d in mine if sel_ok(pos, d, p, cond["sel"])}
        for (x, y) in cells:
            if all((x + k, y) in cells for k in range(n)) or all((x, y + k) in cells for k in range(n)):
                return True
        return False
    if form == "square":
        k = cond["size"]
        cells = cond["cells"]
        centre = cond.get("centre")

        def cell_ok(x, y):
            d = pos.at.get((x, y))
            if d is None:
                return False
            if cells == "tile":
                return True
            if cells == "no_vacant":
                return not pos.vacant(d)
            return sel_ok(pos, d, p, cells)

        xs = [d["x"] for d in pos.tiles]
        ys = [d["y"] for d in pos.tiles]
        for x0 in range(min(xs), max(xs) + 1):
            for y0 in range(min(ys), max(ys) + 1):
                if all(cell_ok(x0 + i, y0 + j) for i in range(k) for j in range(k)):
                    if centre is not None and k % 2 == 1:
                        if not sel_ok(pos, pos.at.get((x0 + k // 2, y0 + k // 2)), p, centre):
                            continue
                    return True
        return False
    raise ValueError(form)


def contract_ok(pos, cid, p):
    """Contract ``cid`` (1-based id of the data) met by p on this position."""
    return cond_ok(pos, CONTRACTS[cid]["cond"], p)


# ---------------------------------------------------------------- goals

def metric(pos, name, p):
    done = [d for d in pos.buildings(p) if d["done"]]
    if name == "max_floors_done":
        return max([d["floors"] for d in done], default=0)
    if name == "count_done_com":
        return sum(1 for d in done if d["key"] == "commercial")
    if name == "count_done_res":
        return sum(1 for d in done if d["key"] == "residential")
    if name == "contracts_revealed":
        return len(pos.revealed[p])
    if name == "sum_floors_done":
        return sum(d["floors"] for d in done)
    if name == "count_done_adj_special":
        return sum(1 for d in done if any(q is not None and CLASS[q["key"]] == "special" for q in pos.nbrs(d)))
    raise ValueError(name)


def goal_points(pos, goal_indices):
    pts = [0] * pos.n
    for g in goal_indices:
        goal = GOALS[g]
        m = [metric(pos, goal["metric"], p) for p in range(pos.n)]
        best = max(m)
        if best == 0:
            continue
        winners = [p for p in range(pos.n) if m[p] == best]
        for p in winners:
            pts[p] += goal["vp"] // len(winners)
    return pts


def final_scores(pos, goal_indices):
    """Final VP from a finished position: frozen building scores + revealed contracts + goals."""
    gp = goal_points(pos, goal_indices)
    out = []
    for p in range(pos.n):
        b = sum(d["score"] for d in pos.buildings(p) if d["done"])
        c = sum(CONTRACTS[cid]["vp"] for cid in pos.revealed[p])
        out.append(b + c + gp[p])
    return out


def ranks(final):
    """Ranks by final VP alone: the rulebook names no tie-break, so players tied on the
    highest score share the win, and any tie shares its rank (ruling 21)."""
    n = len(final)
    return [1 + sum(1 for q in range(n) if final[q] > final[p]) for p in range(n)]
