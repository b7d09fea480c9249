"""Kingdomino Duel rules as numba kernels on one flat ``int64`` state (see :mod:`envs.spec`).

Rules: ``docs/rules/kingdomino_duel.md`` (the Korean rulebook with the project's rulings,
cited as L1-L14 and R1-R32; the test vectors T1-T17 are the ``test_T*`` functions of
``tests/test_kingdomino_duel.py``; the environment summary is :mod:`envs.kingdomino_duel`).
Every table (map size, castle, dice faces, spellbook rows, family -> spell) comes from
``kernels/data/kingdomino_duel.yaml``, checked by :func:`check_data` at import: a wrong
type, range or total raises :class:`kernels.data_files.DataError` naming the field.

Flow of one round (all automatic events happen inside :func:`step`):
roll -> [DOUBLE_PICK_WINDOW] -> DRAFT_PICK x3 (or x2 with double_first_pick) ->
step 3 of S then of O (TURN_DIE_WINDOW, IGNORE_CONN_WINDOW, SPLIT_WINDOW, PASS_ONLY,
CASTLE_WINDOW, NAME_WILD, PLACE_DOMINO | SPLIT_FIRST + SPLIT_SECOND) -> spellbook marks
(S slot 0, S slot 1, O slot 0, O slot 1; DOMAIN_BONUS_NAME / ADD_CROSS_TARGET at the
moment a lightning spell is acquired) -> end check -> start player swaps.

``PASS_ONLY`` is an explicit one-action decision (action ``PASS`` = 203).
``TURN_DIE(slot, face)`` targets a coat-of-arms face of that die (never ``?``) whose value
differs from the shown one, the lowest face index standing for repeated values (L9, R20).

Compilation: kernels call each other with ``int64`` arguments only (``ZERO``/``ONE`` or
``np.int64(k)``, never an int literal, which numba would compile once per value), so
every function compiles exactly once per process (one specialisation each).

Version history
---------------
* v0: initial.
* v0, rev. 2: turn_die never targets a ``?`` face (a die showing ``?`` still turns to its
  coats of arms); data validated at import (:func:`check_data`); :func:`reseed` takes any
  integer (mod 2**63); literal-free internal calls (cold start 9.8 s -> 6.3 s CPU).
"""
import numpy as np
from numba import njit

from kernels import data_files, grid, rng

# Spells: ids fixed by their meaning in the code; the data says which family grants which.
SPELL_KEYS = ("ignore_connection", "split_domino", "double_first_pick", "turn_die",
              "domain_bonus", "add_cross")
SP_IGNORE, SP_SPLIT, SP_DOUBLE, SP_TURN, SP_BONUS, SP_ADDX = range(6)
NSPELLS = len(SPELL_KEYS)
_LIGHTNING_SPELLS = ("domain_bonus", "add_cross")      # the two the code resolves at once
# Sizes the flat action space and the observation are built on (docs/rules/kingdomino_duel.md, the environment section).
_SHAPE = {"rows": 5, "cols": 7, "families": 6, "dice": 4, "faces": 6, "max_crosses": 2}


def check_data(data):
    """Validate a parsed ``kingdomino_duel.yaml`` against the schema the code relies on and
    return it; :class:`kernels.data_files.DataError` (a ``ValueError``) names the field.

    Checked: types and ranges of every number the code reads; the 5 x 7 map with the castle
    inside it (``castle.index`` = ``row * cols + col``, ``drawable_cells`` = cells - 1); six
    families with distinct ids 0..5 and keys; the wild face (id 6, 0 crosses, never marks);
    four dice of six ``[family key or wild, crosses]`` faces, crosses within the cell cap, and
    the ``dice_summary`` totals recounted from them; one spellbook row (>= 1 box) per family,
    each of the six spells granted exactly once; the two lightning spells; the castle bonus
    the code implements; the round bound derived from the map; every ``provenance`` label
    from the legend.
    """
    ck = data_files.Checker(data, "kingdomino_duel")
    ck.mapping("")
    legend = ck.mapping("provenance_legend")
    for key in legend:
        ck.string(f"provenance_legend.{key}")

    def provenance(path):
        ck.string(path + ".provenance", choices=sorted(legend))

    ck.integer("players.count", 2, 2)
    provenance("players")
    # ---- map
    rows = ck.integer("map.rows", 1)
    cols = ck.integer("map.cols", 1)
    ck.require(rows == _SHAPE["rows"] and cols == _SHAPE["cols"], "map.rows",
               f"the action space is built for a {_SHAPE['rows']} x {_SHAPE['cols']} map, "
               f"got {rows} x {cols}")
    cr = ck.integer("map.castle.row", 0, rows - 1)
    cc = ck.integer("map.castle.col", 0, cols - 1)
    ck.integer("map.castle.index", 0, rows * cols - 1)
    ck.require(ck.get("map.castle.index") == cr * cols + cc, "map.castle.index",
               f"must be row * cols + col = {cr * cols + cc}")
    ck.integer("map.drawable_cells", 1)
    ck.require(ck.get("map.drawable_cells") == rows * cols - 1, "map.drawable_cells",
               f"must be the {rows * cols} cells minus the castle = {rows * cols - 1}")
    provenance("map")
    cap = ck.integer("cell_cross_cap.max_crosses_per_cell", 1, _SHAPE["max_crosses"])
    provenance("cell_cross_cap")
    # ---- families and the wild face
    fams = ck.sequence("families", length=_SHAPE["families"])
    keys = []
    ids = []
    for i in range(len(fams)):
        ids.append(ck.integer(f"families[{i}].id", 0, len(fams) - 1))
        keys.append(ck.string(f"families[{i}].key"))
        ck.string(f"families[{i}].name")
        provenance(f"families[{i}]")
    ck.require(len(set(ids)) == len(ids), "families", f"ids must be distinct, got {ids}")
    ck.require(len(set(keys)) == len(keys), "families", f"keys must be distinct, got {keys}")
    ck.integer("wild.id", len(fams), len(fams))
    wild = ck.string("wild.key")
    ck.require(wild not in keys, "wild.key", f"{wild!r} is also a family key")
    ck.integer("wild.printed_crosses", 0, 0)
    ck.require(ck.boolean("wild.marks_spellbook") is False, "wild.marks_spellbook",
               "a '?' face never marks the spellbook (the code implements no other rule)")
    provenance("wild")
    # ---- dice
    dice = ck.sequence("dice", length=_SHAPE["dice"])
    dice_ids = []
    counted = {k: [0] * (cap + 1) for k in keys}
    n_wild = 0
    for i in range(len(dice)):
        dice_ids.append(ck.integer(f"dice[{i}].id", 0, len(dice) - 1))
        faces = ck.sequence(f"dice[{i}].faces", length=_SHAPE["faces"])
        for j in range(len(faces)):
            ck.sequence(f"dice[{i}].faces[{j}]", length=2)
            k = ck.string(f"dice[{i}].faces[{j}][0]", choices=keys + [wild])
            x = ck.integer(f"dice[{i}].faces[{j}][1]", 0, cap)
            if k == wild:
                ck.require(x == 0, f"dice[{i}].faces[{j}][1]", "a '?' face has no cross")
                n_wild += 1
            else:
                counted[k][x] += 1
        provenance(f"dice[{i}]")
    ck.require(len(set(dice_ids)) == len(dice_ids), "dice", f"ids must be distinct, got {dice_ids}")
    total = len(dice) * _SHAPE["faces"]
    ck.require(ck.integer("dice_summary.total_faces", 0) == total, "dice_summary.total_faces",
               f"the dice have {total} faces")
    ck.require(ck.integer("dice_summary.wild_faces", 0) == n_wild, "dice_summary.wild_faces",
               f"the dice have {n_wild} '?' faces")
    crossless = sum(c[0] for c in counted.values())
    ck.require(ck.integer("dice_summary.crossless_arms_faces", 0) == crossless,
               "dice_summary.crossless_arms_faces",
               f"the dice have {crossless} coat-of-arms faces without a cross")
    ck.mapping("dice_summary.faces_by_crosses")
    for k in keys:
        got = ck.sequence(f"dice_summary.faces_by_crosses.{k}", length=cap + 1)
        for x in range(cap + 1):
            ck.integer(f"dice_summary.faces_by_crosses.{k}[{x}]", 0)
        ck.require(got == counted[k], f"dice_summary.faces_by_crosses.{k}",
                   f"the dice show {counted[k]} (faces with 0..{cap} crosses), got {got}")
    provenance("dice_summary")
    # ---- spellbook and spells
    rows_ = ck.sequence("spellbook_rows", length=len(fams))
    row_fams = []
    row_spells = []
    for i in range(len(rows_)):
        row_fams.append(ck.string(f"spellbook_rows[{i}].family", choices=keys))
        ck.integer(f"spellbook_rows[{i}].boxes", 1, 100)
        row_spells.append(ck.string(f"spellbook_rows[{i}].spell", choices=SPELL_KEYS))
        provenance(f"spellbook_rows[{i}]")
    ck.require(len(set(row_fams)) == len(row_fams), "spellbook_rows",
               f"one row per family, got families {row_fams}")
    ck.require(sorted(row_spells) == sorted(SPELL_KEYS), "spellbook_rows",
               f"each spell exactly once, got {row_spells}")
    spells = ck.sequence("spells", length=NSPELLS)
    spell_keys = []
    for i in range(len(spells)):
        k = ck.string(f"spells[{i}].key", choices=SPELL_KEYS)
        spell_keys.append(k)
        lightning = ck.boolean(f"spells[{i}].lightning")
        what = "a lightning spell" if k in _LIGHTNING_SPELLS else "not a lightning spell"
        ck.require(lightning == (k in _LIGHTNING_SPELLS), f"spells[{i}].lightning",
                   f"{k} is {what} in the code")
        if k == "domain_bonus":
            ck.integer(f"spells[{i}].points_per_domain", 0, 100)
        provenance(f"spells[{i}]")
    ck.require(sorted(spell_keys) == sorted(SPELL_KEYS), "spells",
               f"each spell exactly once, got {spell_keys}")
    # ---- castle bonus, as implemented: once, +1 cross below the cap, marking unchanged
    ck.integer("castle_bonus.uses_per_player", 1, 1)
    ck.integer("castle_bonus.allowed_if_printed_crosses_below", cap, cap)
    ck.require(ck.boolean("castle_bonus.affects_spellbook_marking") is False,
               "castle_bonus.affects_spellbook_marking",
               "marking counts printed crosses (the code implements no other rule)")
    provenance("castle_bonus")
    # ---- bounds derived from the map
    draws = (rows * cols - 1) // 2
    ck.require(ck.integer("limits.max_draws_per_player", 1) == draws,
               "limits.max_draws_per_player", f"must be drawable_cells // 2 = {draws}")
    ck.require(ck.integer("limits.max_rounds", 1) == 2 * draws - 1, "limits.max_rounds",
               f"must be 2 * max_draws_per_player - 1 = {2 * draws - 1}")
    provenance("limits")
    # ---- fields the code does not read are still checked: a typo must not pass silently
    ck.integer("spellbook.rows_per_family", 2, 2)
    example = ck.sequence("rulebook_example.family_domains", min_len=1)
    points = 0
    for i in range(len(example)):
        cells = ck.integer(f"rulebook_example.family_domains[{i}].cells", 1, rows * cols - 1)
        points += cells * ck.integer(f"rulebook_example.family_domains[{i}].crosses", 0,
                                     cap * cells)
    ck.require(ck.integer("rulebook_example.family_points", 0) == points,
               "rulebook_example.family_points", f"must be the sum of cells x crosses = {points}")
    ck.integer("rulebook_example.domain_bonus_on_that_family", 0)
    provenance("rulebook_example")
    return data


DATA = check_data(data_files.load("kingdomino_duel", __file__))

# ------------------------------------------------------------------ data tables
ROWS = int(DATA["map"]["rows"])
COLS = int(DATA["map"]["cols"])
NC = ROWS * COLS
CASTLE = int(DATA["map"]["castle"]["index"])
DRAWABLE = int(DATA["map"]["drawable_cells"])
CAP = int(DATA["cell_cross_cap"]["max_crosses_per_cell"])
FAMILY_KEYS = tuple(f["key"] for f in sorted(DATA["families"], key=lambda f: f["id"]))
FAMILY_NAMES = tuple(f["name"] for f in sorted(DATA["families"], key=lambda f: f["id"]))
NF = len(FAMILY_KEYS)
WILD = int(DATA["wild"]["id"])
_FAMILY_ID = {k: i for i, k in enumerate(FAMILY_KEYS)}
_FAMILY_ID[DATA["wild"]["key"]] = WILD

NDICE = len(DATA["dice"])
NFACES = _SHAPE["faces"]
DICE = np.zeros((NDICE, NFACES, 2), dtype=np.int64)   # [die, face] -> (family or WILD, crosses)
for _d in DATA["dice"]:
    for _j, (_k, _x) in enumerate(_d["faces"]):
        DICE[int(_d["id"]), _j, 0] = _FAMILY_ID[_k]
        DICE[int(_d["id"]), _j, 1] = int(_x)

ROW_LEN = np.zeros(NF, dtype=np.int64)
FAMILY_SPELL = np.zeros(NF, dtype=np.int64)
for _r in DATA["spellbook_rows"]:
    ROW_LEN[_FAMILY_ID[_r["family"]]] = int(_r["boxes"])
    FAMILY_SPELL[_FAMILY_ID[_r["family"]]] = SPELL_KEYS.index(_r["spell"])
_SPELL_DATA = {s["key"]: s for s in DATA["spells"]}
LIGHTNING = np.array([1 if _SPELL_DATA[k]["lightning"] else 0 for k in SPELL_KEYS], dtype=np.int64)
BONUS_POINTS = int(_SPELL_DATA["domain_bonus"]["points_per_domain"])
MAX_ROUNDS = int(DATA["limits"]["max_rounds"])

NEIGH = grid.neighbor_table(ROWS, COLS)

# ------------------------------------------------------------------ action ids
A_PICK = 0            # 0..3
A_SKIP = 4
A_DOUBLE = 5
A_TURN = 6            # 6 + 6*slot + face
A_IGNORE = 18
A_SPLIT = 19
A_CASTLE = 20         # 20 + slot
A_FAMILY = 22         # 22 + family
A_PLACE = 28          # 28 + 4*cell + dir
A_CELL = 168          # 168 + cell
A_PASS = 203
NUM_ACTIONS = 204

# ------------------------------------------------------------------ phases
PHASE_NAMES = ("DOUBLE_PICK_WINDOW", "DRAFT_PICK", "TURN_DIE_WINDOW", "IGNORE_CONN_WINDOW",
               "SPLIT_WINDOW", "PASS_ONLY", "CASTLE_WINDOW", "NAME_WILD", "PLACE_DOMINO",
               "SPLIT_FIRST", "SPLIT_SECOND", "DOMAIN_BONUS_NAME", "ADD_CROSS_TARGET", "GAME_OVER")
(PH_DOUBLE, PH_DRAFT, PH_TURN, PH_IGNORE, PH_SPLIT, PH_PASS, PH_CASTLE, PH_NAME, PH_PLACE,
 PH_SPLIT1, PH_SPLIT2, PH_BONUS, PH_ADDX, PH_OVER) = range(14)
NPHASES = 14

# ------------------------------------------------------------------ state layout
EMPTY = -1
CASTLE_CODE = -2
# Slot / flag arguments between kernels are passed as these int64 scalars, never as int
# literals: numba compiles one specialisation per literal value (cold start, issue 15).
ZERO = np.int64(0)
ONE = np.int64(1)

RNG = 0               # 2 slots
PHASE = 2
CUR = 3               # seat owing the decision, -1 at the end
START = 4             # S of this round
ROUND = 5             # 1-based
NPICKS = 6            # dice picked so far in this draft
DOUBLE_ACTIVE = 7     # double_first_pick declared this round
S3 = 8                # whose step 3: 0 = S, 1 = O
MARK_IDX = 9          # next spellbook mark to process (0..3)
SPLIT_FIRST = 10      # cell chosen for slot 0 in a split (-1 none)
END_REASON = 11       # 0 running, 1 full map, 2 nobody drew
FIRST_START = 12      # option: -1 random
FAM = 16                          # [2, NC]  family, EMPTY, or CASTLE_CODE
CR = FAM + 2 * NC                 # [2, NC]  crosses
MARKS = CR + 2 * NC               # [2, NF]
CASTLE_USED = MARKS + 2 * NF      # [2]
BONUS_FAM = CASTLE_USED + 2       # [2]   -1 none
SP_OWNER = BONUS_FAM + 2          # [NSPELLS]  -1 none
SP_USED = SP_OWNER + NSPELLS      # [NSPELLS]
SP_ACQ = SP_USED + NSPELLS        # [NSPELLS]  round of acquisition
DIE_FACE = SP_ACQ + NSPELLS       # [NDICE]
DIE_HOLDER = DIE_FACE + NDICE     # [NDICE]  -1 not taken
DIE_TURNED = DIE_HOLDER + NDICE   # [NDICE]
CASTLE_TGT = DIE_TURNED + NDICE   # [2]  slot targeted by the castle bonus this round, -1
WILD_NAME = CASTLE_TGT + 2        # [2, 2]  family named for each slot's '?', -1
DECLARED = WILD_NAME + 4          # [2, 2]  (ignore, split) declared this round
DREW = DECLARED + 4               # [2]
SLOT_DIE = DREW + 2               # [2, 2]  die id of each player's slot
FILLED = SLOT_DIE + 4             # [2]
SCRATCH = FILLED + 2              # 4 * NC scratch cells
STATE_SIZE = SCRATCH + 4 * NC

CONFIG_SIZE = 2                   # [num_players, first_start_player (-1 random)]

# ------------------------------------------------------------------ observation layout
NPLANES = 20
PLANES_SIZE = NPLANES * NC
DIE_FEATS = 21
VEC_SIZE = NDICE * DIE_FEATS + 2 * 7 + NF * 6 + 2 + 2 * 7 + 2 + 1 + 1 + NPHASES + 2 + 2
assert VEC_SIZE == 172
OBS_SIZE = PLANES_SIZE + VEC_SIZE
SCORE_SCALE = 100.0
SCORE_OBS_MAX = float(NC * NC * CAP + BONUS_POINTS * NC) / SCORE_SCALE   # loose upper bound


# ====================================================================== helpers
@njit(cache=True)
def _usable(state, p, sp):
    return (state[SP_OWNER + sp] == p and state[SP_USED + sp] == 0
            and state[SP_ACQ + sp] < state[ROUND])


@njit(cache=True)
def _anchored(state, p, c, f):
    """Some orthogonal neighbour of ``c`` is the castle or a drawn cell of family ``f``."""
    base = FAM + p * NC
    for d in range(4):
        q = NEIGH[c, d]
        if q >= 0:
            v = state[base + q]
            if v == CASTLE_CODE or v == f:
                return True
    return False


@njit(cache=True)
def _adjacent(a, b):
    for d in range(4):
        if NEIGH[a, d] == b:
            return True
    return False


@njit(cache=True)
def _slot_face(state, p, s):
    """(family-or-WILD, printed crosses) of player ``p``'s slot ``s``."""
    d = state[SLOT_DIE + 2 * p + s]
    f = state[DIE_FACE + d]
    return DICE[d, f, 0], DICE[d, f, 1]


@njit(cache=True)
def _slot_family(state, p, s):
    """Effective family of a slot: a '?' counts as its named family (-1 if unnamed)."""
    fam, _ = _slot_face(state, p, s)
    if fam == WILD:
        return state[WILD_NAME + 2 * p + s]
    return fam


@njit(cache=True)
def _normal_placements(state, p, f0, f1, ign, mask):
    """Normal domino placements (L3, or L4 with ``ign``): slot 0 on ``a``, slot 1 on its
    neighbour in direction ``d``.  Writes ``PLACE(a, d)`` into ``mask`` and returns the
    count; with a zero-length ``mask`` it only tells whether one exists (0 or 1)."""
    base = FAM + p * NC
    count = 0
    for a in range(NC):
        if state[base + a] != EMPTY:
            continue
        aa = ign or _anchored(state, p, a, f0)
        for d in range(4):
            b = NEIGH[a, d]
            if b >= 0 and state[base + b] == EMPTY:
                if aa or _anchored(state, p, b, f1):
                    if mask.shape[0] == 0:
                        return 1
                    mask[A_PLACE + 4 * a + d] = 1
                    count += 1
    return count


@njit(cache=True)
def _exists_fixed(state, p, f0, f1, ign, split):
    """A legal placement of faces f0 (slot 0), f1 (slot 1) exists under the declared spells."""
    base = FAM + p * NC
    if not split:
        # a zero-length int8 view of the state: "stop at the first placement" (same
        # argument types as legal_mask's call, so the function compiles once)
        return _normal_placements(state, p, f0, f1, ign,
                                  state[SCRATCH:SCRATCH].view(np.int8)) > 0
    if ign:
        n = 0
        for a in range(NC):
            if state[base + a] == EMPTY:
                n += 1
        return n >= 2
    # split without ignore: (A[a] and B[b], a != b) or (f0 == f1, adjacent, one anchored)
    na = 0
    nb = 0
    first_a = -1
    first_b = -1
    for c in range(NC):
        if state[base + c] != EMPTY:
            continue
        if _anchored(state, p, c, f0):
            na += 1
            first_a = c
            if f0 == f1:
                for d in range(4):
                    q = NEIGH[c, d]
                    if q >= 0 and state[base + q] == EMPTY:
                        return True
        if _anchored(state, p, c, f1):
            nb += 1
            first_b = c
    if na == 0 or nb == 0:
        return False
    if na == 1 and nb == 1 and first_a == first_b:
        return False
    return True


@njit(cache=True)
def _exists_any(state, p, ign, split):
    """A legal placement exists for some naming of the still-unnamed '?' faces."""
    g0 = _slot_family(state, p, ZERO)
    g1 = _slot_family(state, p, ONE)
    lo0, hi0 = (0, NF) if g0 < 0 else (g0, g0 + 1)
    lo1, hi1 = (0, NF) if g1 < 0 else (g1, g1 + 1)
    for f0 in range(lo0, hi0):
        for f1 in range(lo1, hi1):
            if _exists_fixed(state, p, f0, f1, ign, split):
                return True
    return False


@njit(cache=True)
def _split_pair_ok(state, p, a, b, f0, f1, ign):
    """Split: slot 0 at ``a``, slot 1 at ``b`` (distinct, both empty) is legal (L5/L6)."""
    if ign:
        return True
    aa = _anchored(state, p, a, f0)
    ab = _anchored(state, p, b, f1)
    if aa and ab:
        return True
    return f0 == f1 and (aa or ab) and _adjacent(a, b)


@njit(cache=True)
def _wild_unnamed_slot(state, p):
    for s in range(2):
        fam, _ = _slot_face(state, p, s)
        if fam == WILD and state[WILD_NAME + 2 * p + s] < 0:
            return s
    return -1


@njit(cache=True)
def _add_cross_targets(state, p):
    n = 0
    for c in range(NC):
        if state[FAM + p * NC + c] >= 0 and state[CR + p * NC + c] < CAP:
            n += 1
    return n


# ====================================================================== scoring
@njit(cache=True)
def score_arrays(fam, cr, bonus, seen, stack):
    """(score, largest domain) of one map: ``fam``/``cr`` are NC-long (family >= 0 drawn,
    anything negative = not in a domain); ``bonus`` = domain_bonus family or -1."""
    for i in range(NC):
        seen[i] = 0
    total = 0
    largest = 0
    for s in range(NC):
        f = fam[s]
        if f < 0 or seen[s] != 0:
            continue
        seen[s] = 1
        stack[0] = s
        top = 1
        size = 0
        crosses = 0
        while top > 0:
            top -= 1
            c = stack[top]
            size += 1
            crosses += cr[c]
            for d in range(4):
                q = NEIGH[c, d]
                if q >= 0 and seen[q] == 0 and fam[q] == f:
                    seen[q] = 1
                    stack[top] = q
                    top += 1
        total += size * crosses
        if f == bonus:
            total += BONUS_POINTS
        if size > largest:
            largest = size
    return total, largest


@njit(cache=True)
def player_score(state, p):
    """(score, largest domain) of seat ``p`` in the current position."""
    return score_arrays(state[FAM + p * NC: FAM + (p + 1) * NC],
                        state[CR + p * NC: CR + (p + 1) * NC],
                        state[BONUS_FAM + p],
                        state[SCRATCH: SCRATCH + NC],
                        state[SCRATCH + NC: SCRATCH + 2 * NC])


# ====================================================================== flow
@njit(cache=True)
def _start_round(state):
    for d in range(NDICE):
        state[DIE_HOLDER + d] = -1
        state[DIE_TURNED + d] = 0
    for i in range(4):
        state[WILD_NAME + i] = -1
        state[DECLARED + i] = 0
        state[SLOT_DIE + i] = -1
    for p in range(2):
        state[CASTLE_TGT + p] = -1
        state[DREW + p] = 0
    state[NPICKS] = 0
    state[DOUBLE_ACTIVE] = 0
    state[S3] = 0
    state[MARK_IDX] = 0
    state[SPLIT_FIRST] = -1
    for d in range(NDICE):                       # step 1: roll, dice 0..3 in order
        state[DIE_FACE + d] = rng.randint(state, RNG, np.int64(NFACES))
    s = state[START]
    state[CUR] = s
    if _usable(state, s, np.int64(SP_DOUBLE)):
        state[PHASE] = PH_DOUBLE
    else:
        state[PHASE] = PH_DRAFT


@njit(cache=True)
def _step3_from(state, stage):
    """Open the first window of the current step-3 player at or after ``stage``."""
    p = state[START] if state[S3] == 0 else 1 - state[START]
    state[CUR] = p
    ign = state[DECLARED + 2 * p]
    spl = state[DECLARED + 2 * p + 1]
    if stage <= 0:
        if _usable(state, p, np.int64(SP_TURN)):
            state[PHASE] = PH_TURN
            return
    if stage <= 1:
        if _usable(state, p, np.int64(SP_IGNORE)):
            if _exists_any(state, p, ONE, ZERO) or (_usable(state, p, np.int64(SP_SPLIT))
                                                    and _exists_any(state, p, ONE, ONE)):
                state[PHASE] = PH_IGNORE
                return
    if stage <= 2:
        if _usable(state, p, np.int64(SP_SPLIT)) and _exists_any(state, p, ign, ONE):
            state[PHASE] = PH_SPLIT
            return
    if stage <= 3:
        if not _exists_any(state, p, ign, spl):
            state[PHASE] = PH_PASS
            return
    if stage <= 4:
        if state[CASTLE_USED + p] == 0:
            _, x0 = _slot_face(state, p, ZERO)
            _, x1 = _slot_face(state, p, ONE)
            if x0 < CAP or x1 < CAP:
                state[PHASE] = PH_CASTLE
                return
    if stage <= 5:
        if _wild_unnamed_slot(state, p) >= 0:
            state[PHASE] = PH_NAME
            return
    state[PHASE] = PH_SPLIT1 if spl else PH_PLACE


@njit(cache=True)
def _finish_draft(state):
    for p in range(2):
        k = 0
        for d in range(NDICE):
            if state[DIE_HOLDER + d] == p:
                state[SLOT_DIE + 2 * p + k] = d
                k += 1
    state[S3] = 0
    _step3_from(state, ZERO)


@njit(cache=True)
def _end_step3(state):
    if state[S3] == 0:
        state[S3] = 1
        _step3_from(state, ZERO)
    else:
        state[MARK_IDX] = 0
        _marking(state)


@njit(cache=True)
def _marking(state):
    """Process spellbook marks from MARK_IDX on; stop at a lightning decision."""
    s = state[START]
    while state[MARK_IDX] < 4:
        i = state[MARK_IDX]
        state[MARK_IDX] = i + 1
        p = s if i < 2 else 1 - s
        d = state[SLOT_DIE + 2 * p + (i & 1)]
        fam = DICE[d, state[DIE_FACE + d], 0]
        x = DICE[d, state[DIE_FACE + d], 1]
        if fam == WILD or x != 0:
            continue
        sp = FAMILY_SPELL[fam]
        if state[SP_OWNER + sp] >= 0:
            continue
        state[MARKS + NF * p + fam] += 1
        if state[MARKS + NF * p + fam] >= ROW_LEN[fam]:
            state[SP_OWNER + sp] = p
            state[SP_ACQ + sp] = state[ROUND]
            if LIGHTNING[sp]:
                if sp == SP_BONUS:
                    state[CUR] = p
                    state[PHASE] = PH_BONUS
                    return
                if sp == SP_ADDX:
                    if _add_cross_targets(state, p) > 0:
                        state[CUR] = p
                        state[PHASE] = PH_ADDX
                        return
                    state[SP_USED + sp] = 1      # lost: still owned, counts as used
    _end_check(state)


@njit(cache=True)
def _end_check(state):
    full = state[FILLED] >= DRAWABLE or state[FILLED + 1] >= DRAWABLE
    if full or (state[DREW] == 0 and state[DREW + 1] == 0):
        state[END_REASON] = 1 if full else 2
        state[PHASE] = PH_OVER
        state[CUR] = -1
        return
    state[START] = 1 - state[START]
    state[ROUND] += 1
    _start_round(state)


@njit(cache=True)
def _draw_cell(state, p, s, c):
    fam, x = _slot_face(state, p, s)
    if fam == WILD:
        fam = state[WILD_NAME + 2 * p + s]
    if state[CASTLE_TGT + p] == s:
        x += 1
    state[FAM + p * NC + c] = fam
    state[CR + p * NC + c] = x


@njit(cache=True)
def _draw_pair(state, p, a, b):
    _draw_cell(state, p, ZERO, a)
    _draw_cell(state, p, ONE, b)
    state[FILLED + p] += 2
    state[DREW + p] = 1


# ====================================================================== contract
@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    rng.seed_rng(state, RNG, seed)
    for p in range(2):
        for c in range(NC):
            state[FAM + p * NC + c] = EMPTY
        state[FAM + p * NC + CASTLE] = CASTLE_CODE
        state[BONUS_FAM + p] = -1
    for sp in range(NSPELLS):
        state[SP_OWNER + sp] = -1
    state[FIRST_START] = config[1]
    first = rng.randint(state, RNG, np.int64(2))     # always drawn: fixed stream layout
    if config[1] >= 0:
        first = config[1]
    state[START] = first
    state[ROUND] = 1
    state[END_REASON] = 0
    _start_round(state)


@njit(cache=True)
def current_player(state):
    return state[CUR]


@njit(cache=True)
def phase(state):
    return state[PHASE]


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = state[PHASE]
    p = state[CUR]
    if ph == PH_OVER:
        return
    if ph == PH_DRAFT:
        for d in range(NDICE):
            if state[DIE_HOLDER + d] < 0:
                mask[A_PICK + d] = 1
    elif ph == PH_DOUBLE:
        mask[A_SKIP] = 1
        mask[A_DOUBLE] = 1
    elif ph == PH_TURN:
        mask[A_SKIP] = 1
        for s in range(2):
            d = state[SLOT_DIE + 2 * p + s]
            cf = state[DIE_FACE + d]
            for j in range(NFACES):
                if DICE[d, j, 0] == WILD:        # L9: a coat of arms only, never '?'
                    continue
                if DICE[d, j, 0] == DICE[d, cf, 0] and DICE[d, j, 1] == DICE[d, cf, 1]:
                    continue
                first = True
                for k in range(j):
                    if DICE[d, k, 0] == DICE[d, j, 0] and DICE[d, k, 1] == DICE[d, j, 1]:
                        first = False
                        break
                if first:
                    mask[A_TURN + NFACES * s + j] = 1
    elif ph == PH_IGNORE:
        mask[A_SKIP] = 1
        mask[A_IGNORE] = 1
    elif ph == PH_SPLIT:
        mask[A_SKIP] = 1
        mask[A_SPLIT] = 1
    elif ph == PH_PASS:
        mask[A_PASS] = 1
    elif ph == PH_CASTLE:
        mask[A_SKIP] = 1
        for s in range(2):
            _, x = _slot_face(state, p, s)
            if x < CAP:
                mask[A_CASTLE + s] = 1
    elif ph == PH_NAME:
        s = _wild_unnamed_slot(state, p)
        ign = state[DECLARED + 2 * p]
        spl = state[DECLARED + 2 * p + 1]
        for f in range(NF):
            state[WILD_NAME + 2 * p + s] = f
            if _exists_any(state, p, ign, spl):
                mask[A_FAMILY + f] = 1
        state[WILD_NAME + 2 * p + s] = -1
    elif ph == PH_PLACE:
        _normal_placements(state, p, _slot_family(state, p, ZERO), _slot_family(state, p, ONE),
                           state[DECLARED + 2 * p], mask)
    elif ph == PH_SPLIT1 or ph == PH_SPLIT2:
        base = FAM + p * NC
        f0 = _slot_family(state, p, ZERO)
        f1 = _slot_family(state, p, ONE)
        ign = state[DECLARED + 2 * p]
        if ph == PH_SPLIT2:
            a = state[SPLIT_FIRST]
            for b in range(NC):
                if b != a and state[base + b] == EMPTY:
                    if _split_pair_ok(state, p, a, b, f0, f1, ign):
                        mask[A_CELL + b] = 1
        else:
            for a in range(NC):
                if state[base + a] != EMPTY:
                    continue
                for b in range(NC):
                    if b != a and state[base + b] == EMPTY:
                        if _split_pair_ok(state, p, a, b, f0, f1, ign):
                            mask[A_CELL + a] = 1
                            break
    elif ph == PH_BONUS:
        for f in range(NF):
            mask[A_FAMILY + f] = 1
    elif ph == PH_ADDX:
        for c in range(NC):
            if state[FAM + p * NC + c] >= 0 and state[CR + p * NC + c] < CAP:
                mask[A_CELL + c] = 1


@njit(cache=True)
def step(state, action):
    ph = state[PHASE]
    p = state[CUR]
    if ph == PH_DRAFT:
        state[DIE_HOLDER + action - A_PICK] = p
        state[NPICKS] += 1
        n = state[NPICKS]
        s = state[START]
        if state[DOUBLE_ACTIVE]:
            if n == 2:
                for d in range(NDICE):
                    if state[DIE_HOLDER + d] < 0:
                        state[DIE_HOLDER + d] = 1 - s
                _finish_draft(state)
        else:
            if n == 1:
                state[CUR] = 1 - s
            elif n == 3:
                for d in range(NDICE):
                    if state[DIE_HOLDER + d] < 0:
                        state[DIE_HOLDER + d] = s
                _finish_draft(state)
    elif ph == PH_DOUBLE:
        if action == A_DOUBLE:
            state[DOUBLE_ACTIVE] = 1
            state[SP_USED + SP_DOUBLE] = 1
        state[PHASE] = PH_DRAFT
    elif ph == PH_TURN:
        if action != A_SKIP:
            k = action - A_TURN
            s = k // NFACES
            d = state[SLOT_DIE + 2 * p + s]
            state[DIE_FACE + d] = k % NFACES
            state[DIE_TURNED + d] = 1
            state[SP_USED + SP_TURN] = 1
        _step3_from(state, np.int64(1))
    elif ph == PH_IGNORE:
        if action == A_IGNORE:
            state[DECLARED + 2 * p] = 1
            state[SP_USED + SP_IGNORE] = 1
        _step3_from(state, np.int64(2))
    elif ph == PH_SPLIT:
        if action == A_SPLIT:
            state[DECLARED + 2 * p + 1] = 1
            state[SP_USED + SP_SPLIT] = 1
        _step3_from(state, np.int64(3))
    elif ph == PH_PASS:
        _end_step3(state)
    elif ph == PH_CASTLE:
        if action != A_SKIP:
            state[CASTLE_TGT + p] = action - A_CASTLE
            state[CASTLE_USED + p] = 1
        _step3_from(state, np.int64(5))
    elif ph == PH_NAME:
        s = _wild_unnamed_slot(state, p)
        state[WILD_NAME + 2 * p + s] = action - A_FAMILY
        _step3_from(state, np.int64(5))
    elif ph == PH_PLACE:
        k = action - A_PLACE
        a = k // 4
        _draw_pair(state, p, a, NEIGH[a, k % 4])
        _end_step3(state)
    elif ph == PH_SPLIT1:
        state[SPLIT_FIRST] = action - A_CELL
        state[PHASE] = PH_SPLIT2
    elif ph == PH_SPLIT2:
        a = state[SPLIT_FIRST]
        state[SPLIT_FIRST] = -1
        _draw_pair(state, p, a, action - A_CELL)
        _end_step3(state)
    elif ph == PH_BONUS:
        state[BONUS_FAM + p] = action - A_FAMILY
        state[SP_USED + SP_BONUS] = 1
        _marking(state)
    elif ph == PH_ADDX:
        state[CR + p * NC + action - A_CELL] += 1
        state[SP_USED + SP_ADDX] = 1
        _marking(state)


@njit(cache=True)
def scores(state, out):
    for p in range(2):
        sc, _ = player_score(state, p)
        out[p] = sc


@njit(cache=True)
def ranks(state, out):
    s0, l0 = player_score(state, ZERO)
    s1, l1 = player_score(state, ONE)
    out[0] = 1
    out[1] = 1
    if s0 > s1 or (s0 == s1 and l0 > l1):
        out[1] = 2
    elif s1 > s0 or (s0 == s1 and l1 > l0):
        out[0] = 2


# ====================================================================== greedy heuristic
# Weights of :func:`potential`, in score points (tuned against RandomAgent and between
# greedy variants; see the Greedy baseline paragraph of envs/kingdomino_duel.py).
POT_CROSSLESS = 0.5     # per cell of a crossless domain that can still grow: one cross scores it
POT_CROSSED = 0.3       # per cell of a crossed domain that can still grow: each extra cross adds its size
POT_GROWTH = 0.5        # per cross x free cell around the domain: each cell added scores its crosses
POT_FRONTIER_CAP = 3    # free cells around a domain that count for POT_GROWTH
POT_DEAD = 1.0          # per empty cell without an empty neighbour: only split_domino fills it
POT_CASTLE = 5.0        # unused castle bonus on an empty map, fading as the map fills
# What owning each spell is worth (ids SP_*); lightning ones turn into score at acquisition.
SPELL_VALUE = np.array([3.0, 3.0, 2.0, 3.0, 9.0, 6.0])


@njit(cache=True)
def _best_join(fam, labels, size, crosses, frontier, f, x, castle_open):
    """Points a face of family ``f`` with ``x`` crosses scores at once in its best spot:
    joining a growable domain (s, c) of ``f`` gives (s+1)(c+x) - s*c, a fresh domain next
    to the castle gives x; -1 if neither exists."""
    best = float(x) if castle_open else -1.0
    nxt = 0
    for c in range(NC):
        k = labels[c]
        if k == nxt:                 # labels are numbered by their lowest cell
            nxt += 1
            if fam[c] == f and frontier[k] > 0:
                g = float(x * (size[k] + 1) + crosses[k])
                if g > best:
                    best = g
    return best


@njit(cache=True)
def potential(state, p):
    """Points seat ``p``'s position promises beyond its live score (greedy baseline).

    * Domains with free room (a *free* cell is empty and has an empty neighbour, so a
      domino can still cover it): POT_CROSSLESS per cell of a crossless domain (a cross
      would score all of it), POT_CROSSED per cell of a crossed one (another cross adds its
      size), plus POT_GROWTH x crosses x free cells around it (capped at POT_FRONTIER_CAP).
    * POT_DEAD per empty cell with no empty neighbour: lost unless split_domino.
    * Dice p holds and has not drawn yet (draft and step 3): each face's best immediate
      gain (:func:`_best_join`; a ``?`` takes its name or else its best family, a castle
      bonus target counts its extra cross).  This is what makes draft picks, naming,
      turn_die and the castle bonus meaningful one ply ahead.
    * Spellbook: an open row is worth SPELL_VALUE x (marks / row length)^2, counting the
      marks p's cross-less faces will make this round; an owned spell not used yet (or
      declared this round) is worth SPELL_VALUE, so turn_die is spent only for a bigger gain.
    * An unused castle bonus: POT_CASTLE x empty cells / 34, so it waits for a big domain
      early and is not hoarded late.
    """
    fam = state[FAM + p * NC: FAM + (p + 1) * NC]
    cr = state[CR + p * NC: CR + (p + 1) * NC]
    labels = state[SCRATCH: SCRATCH + NC]
    frontier = state[SCRATCH + NC: SCRATCH + 2 * NC]    # first the labelling stack
    size = state[SCRATCH + 2 * NC: SCRATCH + 3 * NC]
    crosses = state[SCRATCH + 3 * NC: SCRATCH + 4 * NC]
    n = grid.label_components(fam, NEIGH, labels, frontier)
    for k in range(n):
        size[k] = 0
        crosses[k] = 0
        frontier[k] = 0
    for c in range(NC):
        k = labels[c]
        if k >= 0:
            size[k] += 1
            crosses[k] += cr[c]
    empty = 0
    dead = 0
    castle_open = ZERO               # int64 flag: one specialisation of _best_join
    for e in range(NC):
        if fam[e] != EMPTY:
            continue
        empty += 1
        if not grid.touches(e, fam, NEIGH, np.int64(EMPTY)):
            dead += 1
            continue
        for d in range(4):
            q = NEIGH[e, d]
            if q < 0:
                continue
            if q == CASTLE:
                castle_open = ONE
            k = labels[q]
            if k < 0:
                continue
            seen = False                 # count a free cell once per domain
            for d2 in range(d):
                q2 = NEIGH[e, d2]
                if q2 >= 0 and labels[q2] == k:
                    seen = True
            if not seen:
                frontier[k] += 1
    v = -POT_DEAD * dead
    for k in range(n):
        if frontier[k] > 0:
            v += (POT_CROSSLESS if crosses[k] == 0 else POT_CROSSED) * size[k]
            v += POT_GROWTH * crosses[k] * min(frontier[k], POT_FRONTIER_CAP)
    # ---- dice in hand
    ph = state[PHASE]
    before_marks = ph <= PH_SPLIT2
    undrawn = ph <= PH_DRAFT or (before_marks and (state[S3] == 0 or p != state[START])
                                 and not (ph == PH_PASS and state[CUR] == p))
    if undrawn:
        for d in range(NDICE):
            if state[DIE_HOLDER + d] != p:
                continue
            f = DICE[d, state[DIE_FACE + d], 0]
            x = DICE[d, state[DIE_FACE + d], 1]
            for s in range(2):           # slots exist once the draft is over
                if state[SLOT_DIE + 2 * p + s] == d:
                    if state[CASTLE_TGT + p] == s:
                        x += 1
                    if f == WILD and state[WILD_NAME + 2 * p + s] >= 0:
                        f = state[WILD_NAME + 2 * p + s]
            best = -1.0
            for g in range(NF):
                if f == g or f == WILD:
                    best = max(best, _best_join(fam, labels, size, crosses, frontier,
                                                g, x, castle_open))
            if best > 0:
                v += best
    # ---- spellbook and castle
    for f in range(NF):
        sp = FAMILY_SPELL[f]
        owner = state[SP_OWNER + sp]
        if owner < 0:
            m = state[MARKS + NF * p + f]
            if before_marks:
                for d in range(NDICE):
                    if (state[DIE_HOLDER + d] == p and DICE[d, state[DIE_FACE + d], 0] == f
                            and DICE[d, state[DIE_FACE + d], 1] == 0):
                        m += 1
            m = min(m, ROW_LEN[f])
            v += SPELL_VALUE[sp] * (m * m) / (ROW_LEN[f] * ROW_LEN[f])
        elif owner == p and LIGHTNING[sp] == 0:
            declared = ((sp == SP_IGNORE and state[DECLARED + 2 * p] != 0)
                        or (sp == SP_SPLIT and state[DECLARED + 2 * p + 1] != 0)
                        or (sp == SP_DOUBLE and state[DOUBLE_ACTIVE] != 0))
            if state[SP_USED + sp] == 0 or declared:
                v += SPELL_VALUE[sp]
    if state[CASTLE_USED + p] == 0:
        v += POT_CASTLE * empty / DRAWABLE
    return v


@njit(cache=True)
def observe(state, player, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    me = player
    op = 1 - player
    # ---- planes: 9 per seat (me, opponent), then castle, then split first cell
    for k in range(2):
        p = me if k == 0 else op
        pb = 9 * NC * k
        for c in range(NC):
            f = state[FAM + p * NC + c]
            if f >= 0:
                out[pb + f * NC + c] = 1.0
                x = state[CR + p * NC + c]
                if x >= 1:
                    out[pb + 7 * NC + c] = 1.0
                if x >= 2:
                    out[pb + 8 * NC + c] = 1.0
            elif f == EMPTY:
                out[pb + 6 * NC + c] = 1.0
    out[18 * NC + CASTLE] = 1.0
    if state[SPLIT_FIRST] >= 0:
        out[19 * NC + state[SPLIT_FIRST]] = 1.0
    v = PLANES_SIZE
    # ---- dice
    for d in range(NDICE):
        b = v + DIE_FEATS * d
        f = state[DIE_FACE + d]
        out[b + f] = 1.0
        out[b + 6 + DICE[d, f, 0]] = 1.0
        out[b + 13 + DICE[d, f, 1]] = 1.0
        h = state[DIE_HOLDER + d]
        if h < 0:
            out[b + 16] = 1.0
        elif h == me:
            out[b + 17] = 1.0
        else:
            out[b + 18] = 1.0
        out[b + 19] = float(state[DIE_TURNED + d])
        if h >= 0 and state[SLOT_DIE + 2 * h] >= 0:
            t = state[CASTLE_TGT + h]
            if t >= 0 and state[SLOT_DIE + 2 * h + t] == d:
                out[b + 20] = 1.0
    v += NDICE * DIE_FEATS
    # ---- named families of my two slots (6 families + "none")
    for s in range(2):
        w = state[WILD_NAME + 2 * me + s]
        out[v + 7 * s + (w if w >= 0 else 6)] = 1.0
    v += 14
    # ---- spellbook
    for f in range(NF):
        b = v + 6 * f
        out[b] = state[MARKS + NF * me + f] / ROW_LEN[f]
        out[b + 1] = state[MARKS + NF * op + f] / ROW_LEN[f]
        sp = FAMILY_SPELL[f]
        o = state[SP_OWNER + sp]
        if o < 0:
            out[b + 2] = 1.0
        elif o == me:
            out[b + 3] = 1.0
        else:
            out[b + 4] = 1.0
        out[b + 5] = float(state[SP_USED + sp])
    v += 6 * NF
    out[v] = float(state[CASTLE_USED + me])
    out[v + 1] = float(state[CASTLE_USED + op])
    v += 2
    for k in range(2):
        p = me if k == 0 else op
        w = state[BONUS_FAM + p]
        out[v + 7 * k + (w if w >= 0 else 6)] = 1.0
    v += 14
    out[v] = float(state[DECLARED + 2 * me])
    out[v + 1] = float(state[DECLARED + 2 * me + 1])
    v += 2
    out[v] = 1.0 if state[START] == me else 0.0
    out[v + 1] = state[ROUND] / MAX_ROUNDS
    v += 2
    out[v + state[PHASE]] = 1.0
    v += NPHASES
    out[v] = state[FILLED + me] / DRAWABLE
    out[v + 1] = state[FILLED + op] / DRAWABLE
    v += 2
    s0, _ = player_score(state, me)
    s1, _ = player_score(state, op)
    out[v] = s0 / SCORE_SCALE
    out[v + 1] = s1 / SCORE_SCALE


def obs_bounds():
    """(low, high) float32 arrays of the observation."""
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    high[-2:] = SCORE_OBS_MAX
    return low, high


def reseed(state, seed):
    """Re-key the generator: every future roll is re-drawn, nothing seen changes.  Only the
    two generator slots are written; ``seed`` (any integer) is taken modulo 2**63, so the
    compiled keying always sees an ``int64``."""
    rng.seed_rng(state, RNG, int(seed) % (1 << 63))
