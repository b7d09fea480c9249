"""Plain-Python reference for Kingdomino Duel legality and scoring.

Written from the rules reference (sections 5, 6, 7, 11: L1-L14, R1-R32) by brute force,
without calling the kernel's rule functions: it only reads the kernel's state layout
(offsets) to build a plain view of the position.  Tests compare it with the kernel.
"""
from pathlib import Path

import yaml

DATA = yaml.safe_load((Path(__file__).resolve().parents[1] / "kernels" / "data"
                       / "kingdomino_duel.yaml").read_text())
ROWS, COLS = DATA["map"]["rows"], DATA["map"]["cols"]
CASTLE_CELL = (DATA["map"]["castle"]["row"], DATA["map"]["castle"]["col"])
FAMS = [f["key"] for f in sorted(DATA["families"], key=lambda f: f["id"])]
WILD = "wild"
FACES = {d["id"]: [(k, x) for k, x in d["faces"]] for d in DATA["dice"]}
ROW_LEN = {r["family"]: r["boxes"] for r in DATA["spellbook_rows"]}
SPELL_OF = {r["family"]: r["spell"] for r in DATA["spellbook_rows"]}
BONUS = 3
DIRS = [(-1, 0), (0, 1), (1, 0), (0, -1)]

PHASES = ["DOUBLE_PICK_WINDOW", "DRAFT_PICK", "TURN_DIE_WINDOW", "IGNORE_CONN_WINDOW",
          "SPLIT_WINDOW", "PASS_ONLY", "CASTLE_WINDOW", "NAME_WILD", "PLACE_DOMINO",
          "SPLIT_FIRST", "SPLIT_SECOND", "DOMAIN_BONUS_NAME", "ADD_CROSS_TARGET", "GAME_OVER"]
SPELLS = ["ignore_connection", "split_domino", "double_first_pick", "turn_die",
          "domain_bonus", "add_cross"]


def cells():
    return [(r, c) for r in range(ROWS) for c in range(COLS)]


def nbrs(p):
    r, c = p
    return [(r + dr, c + dc) for dr, dc in DIRS if 0 <= r + dr < ROWS and 0 <= c + dc < COLS]


def idx(p):
    return p[0] * COLS + p[1]


# ------------------------------------------------------------------ view of a state
def view(K, st):
    """Plain dict view of a kernel state (reads offsets only)."""
    v = {}
    v["phase"] = PHASES[int(st[K.PHASE])]
    v["cur"] = int(st[K.MOVER])
    v["start"] = int(st[K.START_PLAYER])
    v["round"] = int(st[K.ROUND])
    v["maps"] = []
    for p in range(2):
        m = {}
        for cell in cells():
            f = int(st[K.MAP_FAMILY + p * ROWS * COLS + idx(cell)])
            if f >= 0:
                m[cell] = (FAMS[f], int(st[K.MAP_CROSSES + p * ROWS * COLS + idx(cell)]))
        v["maps"].append(m)
    v["faces"] = [int(st[K.DIE_FACE + d]) for d in range(4)]
    v["holder"] = [int(st[K.DIE_HOLDER + d]) for d in range(4)]
    v["owner"] = {s: int(st[K.SPELL_OWNER + i]) for i, s in enumerate(SPELLS)}
    v["used"] = {s: int(st[K.SPELL_USED + i]) for i, s in enumerate(SPELLS)}
    v["acq"] = {s: int(st[K.SPELL_ACQUIRED + i]) for i, s in enumerate(SPELLS)}
    v["castle_used"] = [int(st[K.CASTLE_USED + p]) for p in range(2)]
    v["bonus"] = [int(st[K.BONUS_FAMILY + p]) for p in range(2)]
    v["declared"] = [(int(st[K.DECLARED + 2 * p]), int(st[K.DECLARED + 2 * p + 1]))
                     for p in range(2)]
    v["wild_name"] = [[int(st[K.WILD_NAME + 2 * p + s]) for s in range(2)] for p in range(2)]
    v["split_first"] = int(st[K.SPLIT_FIRST_CELL])
    v["npicks"] = int(st[K.PICKS_MADE])
    return v


def slots(v, p):
    """Die ids held by ``p``, lower id first."""
    return sorted(d for d in range(4) if v["holder"][d] == p)


def face(v, d):
    return FACES[d][v["faces"][d]]


# ------------------------------------------------------------------ placement rules
def empty(m, p):
    return p != CASTLE_CELL and p not in m


def anchored(m, p, f):
    return any(q == CASTLE_CELL or (q in m and m[q][0] == f) for q in nbrs(p))


def legal_pair(m, a, b, f0, f1, ign, split):
    """Slot-0 face (family f0) at a, slot-1 face (f1) at b: legal under L3-L6?"""
    if a == b or not empty(m, a) or not empty(m, b):
        return False
    adj = b in nbrs(a)
    if not split:
        if not adj:
            return False
        return ign or anchored(m, a, f0) or anchored(m, b, f1)
    if ign:
        return True
    m_a = dict(m)
    m_a[a] = (f0, 0)
    m_b = dict(m)
    m_b[b] = (f1, 0)
    return ((anchored(m, a, f0) and anchored(m_a, b, f1))
            or (anchored(m, b, f1) and anchored(m_b, a, f0)))


def all_pairs(m, f0, f1, ign, split):
    return [(a, b) for a in cells() for b in cells() if legal_pair(m, a, b, f0, f1, ign, split)]


def any_pair(m, f0, f1, ign, split):
    return any(legal_pair(m, a, b, f0, f1, ign, split) for a in cells() for b in cells())


def families_of(v, p):
    """Candidate families for each slot: the face's family, the named one, or all six."""
    out = []
    for s, d in enumerate(slots(v, p)):
        k, _ = face(v, d)
        if k == WILD:
            n = v["wild_name"][p][s]
            out.append(FAMS if n < 0 else [FAMS[n]])
        else:
            out.append([k])
    return out


def placement_exists(v, p, ign, split, fams=None):
    fams = fams or families_of(v, p)
    m = v["maps"][p]
    return any(any_pair(m, f0, f1, ign, split) for f0 in fams[0] for f1 in fams[1])


def usable(v, p, spell):
    return v["owner"][spell] == p and not v["used"][spell] and v["acq"][spell] < v["round"]


# ------------------------------------------------------------------ mask
def mask(v):
    """Set of legal action ids in the current decision (section 11 encoding)."""
    ph, p = v["phase"], v["cur"]
    legal = set()
    if ph == "GAME_OVER":
        return legal
    if ph == "DRAFT_PICK":
        return {d for d in range(4) if v["holder"][d] < 0}
    if ph == "DOUBLE_PICK_WINDOW":
        return {4, 5}
    if ph == "IGNORE_CONN_WINDOW":
        return {4, 18}
    if ph == "SPLIT_WINDOW":
        return {4, 19}
    if ph == "PASS_ONLY":
        return {203}
    if ph == "DOMAIN_BONUS_NAME":
        return {22 + f for f in range(6)}
    my = slots(v, p)
    if ph == "TURN_DIE_WINDOW":
        # L9 / ruling 20: one of the player's two dice goes to another coat-of-arms face of
        # that same die -- never a '?' face (a die showing '?' may still be turned to its
        # coats of arms) -- whose value (family, crosses) differs from the current one;
        # faces that repeat a value count once (the lowest face index stands for them).
        legal.add(4)
        for s, d in enumerate(my):
            seen = {face(v, d)}
            for j, val in enumerate(FACES[d]):
                if val[0] == WILD:
                    continue
                if val not in seen:
                    seen.add(val)
                    legal.add(6 + 6 * s + j)
        return legal
    if ph == "CASTLE_WINDOW":
        legal.add(4)
        for s, d in enumerate(my):
            if face(v, d)[1] < 2:
                legal.add(20 + s)
        return legal
    ign, split = v["declared"][p]
    if ph == "NAME_WILD":
        fams = families_of(v, p)
        s = next(s for s, d in enumerate(my)
                 if face(v, d)[0] == WILD and v["wild_name"][p][s] < 0)
        for fi, f in enumerate(FAMS):
            trial = list(fams)
            trial[s] = [f]
            if placement_exists(v, p, ign, split, trial):
                legal.add(22 + fi)
        return legal
    m = v["maps"][p]
    if ph == "ADD_CROSS_TARGET":
        return {168 + idx(c) for c, (_, x) in m.items() if x < 2}
    (f0,), (f1,) = families_of(v, p)
    if ph == "PLACE_DOMINO":
        for a in cells():
            for dd, (dr, dc) in enumerate(DIRS):
                b = (a[0] + dr, a[1] + dc)
                if 0 <= b[0] < ROWS and 0 <= b[1] < COLS and legal_pair(m, a, b, f0, f1, ign, 0):
                    legal.add(28 + 4 * idx(a) + dd)
        return legal
    if ph == "SPLIT_FIRST":
        return {168 + idx(a) for a, b in all_pairs(m, f0, f1, ign, 1)}
    if ph == "SPLIT_SECOND":
        a = divmod(v["split_first"], COLS)
        return {168 + idx(b) for b in cells() if legal_pair(m, a, b, f0, f1, ign, 1)}
    raise ValueError(ph)


def check_phase(v):
    """Return a list of problems with the *choice* of the current step-3 window (the flow
    rules of section 4 / L7 / L10 / L11), empty when consistent."""
    ph, p = v["phase"], v["cur"]
    probs = []
    if ph not in ("IGNORE_CONN_WINDOW", "SPLIT_WINDOW", "PASS_ONLY", "CASTLE_WINDOW",
                  "NAME_WILD", "PLACE_DOMINO", "SPLIT_FIRST"):
        return probs
    ign, split = v["declared"][p]
    exists = placement_exists(v, p, ign, split)
    if ph == "PASS_ONLY" and exists:
        probs.append("PASS_ONLY although a placement exists")
    if ph != "PASS_ONLY" and ph not in ("IGNORE_CONN_WINDOW", "SPLIT_WINDOW") and not exists:
        probs.append(f"{ph} although no placement exists")
    if ph == "IGNORE_CONN_WINDOW":
        ok = placement_exists(v, p, 1, 0) or (usable(v, p, "split_domino")
                                              and placement_exists(v, p, 1, 1))
        if not ok or not usable(v, p, "ignore_connection"):
            probs.append("ignore window offered without use")
    if ph == "SPLIT_WINDOW":
        if not placement_exists(v, p, ign, 1) or not usable(v, p, "split_domino"):
            probs.append("split window offered without use")
    if ph == "CASTLE_WINDOW" and v["castle_used"][p]:
        probs.append("castle window after use")
    return probs


# ------------------------------------------------------------------ scoring
def score_map(m, bonus_family=None):
    """(score, largest domain) of a map ``{(r, c): (family, crosses)}``."""
    seen = set()
    total = 0
    largest = 0
    for cell in sorted(m):
        if cell in seen or cell == CASTLE_CELL:
            continue
        fam = m[cell][0]
        group = {cell}
        todo = [cell]
        while todo:
            q = todo.pop()
            for n in nbrs(q):
                if n in m and n != CASTLE_CELL and n not in group and m[n][0] == fam:
                    group.add(n)
                    todo.append(n)
        seen |= group
        total += len(group) * sum(m[q][1] for q in group)
        if bonus_family is not None and fam == bonus_family:
            total += BONUS
        largest = max(largest, len(group))
    return total, largest


def final_result(v):
    """(scores, ranks) of a finished game view."""
    res = []
    for p in range(2):
        b = v["bonus"][p]
        res.append(score_map(v["maps"][p], FAMS[b] if b >= 0 else None))
    (s0, l0), (s1, l1) = res
    if (s0, l0) > (s1, l1):
        ranks = [1, 2]
    elif (s0, l0) < (s1, l1):
        ranks = [2, 1]
    else:
        ranks = [1, 1]
    return [s0, s1], ranks
