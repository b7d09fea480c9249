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

``PASS_ONLY`` is an explicit one-action decision (action ``A_PASS`` = 203).
``TURN_DIE(slot, face)`` targets a coat-of-arms face of that die (never ``?``) whose value
differs from the shown one, the lowest face index standing for repeated values (L9, R20).

Layouts: the flat state (:data:`STATE`), the observation (:data:`OBS`, with per-die and
per-spellbook-row records :data:`DIE_OBS` and :data:`ROW_OBS`), the option vector
(:data:`CONFIG`) and the action ids (:data:`ACTIONS`) are declared with
:mod:`kernels.layout`; every offset below is read from those declarations.  Decisions are
the ``PH_*`` constants (names in :data:`PHASE_NAMES`); domains are scored with
:func:`kernels.grid.flood_fill_sum`.

Compilation: kernels call each other with ``int64`` arguments only (``ZERO``/``ONE`` or
``np.int64(k)``, never an int literal, which numba would compile once per value), so
every function compiles exactly once per process (one specialisation each).

Version history
---------------
* v0: initial.
* v0, rev. 2: turn_die never targets a ``?`` face (a die showing ``?`` still turns to its
  coats of arms); data validated at import (:func:`check_data`); :func:`reseed` takes any
  integer (mod 2**63); literal-free internal calls (cold start 9.8 s -> 6.3 s CPU).
* v0, rev. 3 (no rule change, same observations): declared state / observation / action
  layouts, named phases, step-3 stages and end reasons; domain scoring through
  :mod:`kernels.grid`; the three unused state slots after ``first_start_player`` dropped
  (state 360 -> 357 slots).
"""
import numpy as np
from numba import njit

from kernels import data_files, grid, rng
from kernels.layout import ActionBlocks, Layout
from kernels.outcome import ranks_lexicographic

# Sections, in the order every kernel file keeps: data (the tables of
# kernels/data/<game>.yaml) -> layouts (actions, state, config) -> helpers -> rules (the
# game's own parts) -> contract (init, current_player, legal_mask, step, advance, scores,
# ranks) -> observation (its layout, observe) -> hidden information (reseed, determinize)
# -> greedy heuristic (potential).

# Spells: ids fixed by their meaning in the code; the data says which family grants which.
SPELL_KEYS = ("ignore_connection", "split_domino", "double_first_pick", "turn_die",
              "domain_bonus", "add_cross")
(SPELL_IGNORE_CONNECTION, SPELL_SPLIT_DOMINO, SPELL_DOUBLE_FIRST_PICK, SPELL_TURN_DIE,
 SPELL_DOMAIN_BONUS, SPELL_ADD_CROSS) = range(len(SPELL_KEYS))
NUM_SPELLS = len(SPELL_KEYS)
_LIGHTNING_SPELLS = ("domain_bonus", "add_cross")      # the two the code resolves at once
# Sizes the flat action space and the observation are built on
# (docs/rules/kingdomino_duel.md, the environment section).
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
    spells = ck.sequence("spells", length=NUM_SPELLS)
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
NUM_CELLS = ROWS * COLS
CASTLE_CELL = int(DATA["map"]["castle"]["index"])
DRAWABLE_CELLS = int(DATA["map"]["drawable_cells"])
MAX_CROSSES = int(DATA["cell_cross_cap"]["max_crosses_per_cell"])
FAMILY_KEYS = tuple(f["key"] for f in sorted(DATA["families"], key=lambda f: f["id"]))
NUM_FAMILIES = len(FAMILY_KEYS)
WILD = int(DATA["wild"]["id"])
_FAMILY_ID = {k: i for i, k in enumerate(FAMILY_KEYS)}
_FAMILY_ID[DATA["wild"]["key"]] = WILD

NUM_DICE = len(DATA["dice"])
NUM_FACES = _SHAPE["faces"]
# [die, face] -> (family or WILD, printed crosses)
DICE = np.zeros((NUM_DICE, NUM_FACES, 2), dtype=np.int64)
for _d in DATA["dice"]:
    for _j, (_k, _x) in enumerate(_d["faces"]):
        DICE[int(_d["id"]), _j, 0] = _FAMILY_ID[_k]
        DICE[int(_d["id"]), _j, 1] = int(_x)

ROW_LEN = np.zeros(NUM_FAMILIES, dtype=np.int64)
FAMILY_SPELL = np.zeros(NUM_FAMILIES, dtype=np.int64)
for _r in DATA["spellbook_rows"]:
    ROW_LEN[_FAMILY_ID[_r["family"]]] = int(_r["boxes"])
    FAMILY_SPELL[_FAMILY_ID[_r["family"]]] = SPELL_KEYS.index(_r["spell"])
_SPELL_DATA = {s["key"]: s for s in DATA["spells"]}
LIGHTNING = np.array([1 if _SPELL_DATA[k]["lightning"] else 0 for k in SPELL_KEYS], dtype=np.int64)
BONUS_POINTS = int(_SPELL_DATA["domain_bonus"]["points_per_domain"])
MAX_ROUNDS = int(DATA["limits"]["max_rounds"])

NEIGHBORS = grid.neighbor_table(ROWS, COLS)      # [cell, dir] -> neighbour cell, -1 off the map
NUM_DIRS = len(grid.DIRS)                    # N, E, S, W

# ------------------------------------------------------------------ action ids
# Consecutive blocks, one per kind of decision (docs/rules/kingdomino_duel.md, section 8.2);
# ``A_<BLOCK>`` is the first id of a block.
ACTIONS = ActionBlocks("kingdomino_duel actions", [
    ("pick_die", NUM_DICE),                  # + die: draft a die not yet taken
    ("skip", 1),                             # decline any window
    ("double_first_pick", 1),                # the start player uses double_first_pick
    ("turn_die", 2 * NUM_FACES),             # + NUM_FACES * slot + face
    ("ignore_connection", 1),                # declare ignore_connection
    ("split_domino", 1),                     # declare split_domino
    ("castle_bonus", 2),                     # + slot: +1 cross on that face
    ("family", NUM_FAMILIES),                # + family: name a '?' face / the domain_bonus family
    ("place", NUM_CELLS * NUM_DIRS),         # + NUM_DIRS * cell + dir: slot 0 on cell, slot 1 next
    ("cell", NUM_CELLS),                     # + cell: split first / second cell, add_cross target
    ("pass", 1),                             # PASS_ONLY: the player cannot draw
])
A_PICK_DIE = ACTIONS.offset("pick_die")
A_SKIP = ACTIONS.offset("skip")
A_DOUBLE_FIRST_PICK = ACTIONS.offset("double_first_pick")
A_TURN_DIE = ACTIONS.offset("turn_die")
A_IGNORE_CONNECTION = ACTIONS.offset("ignore_connection")
A_SPLIT_DOMINO = ACTIONS.offset("split_domino")
A_CASTLE_BONUS = ACTIONS.offset("castle_bonus")
A_FAMILY = ACTIONS.offset("family")
A_PLACE = ACTIONS.offset("place")
A_CELL = ACTIONS.offset("cell")
A_PASS = ACTIONS.offset("pass")
NUM_ACTIONS = ACTIONS.num_actions

# ------------------------------------------------------------------ phases
# The decisions, named as in docs/rules/kingdomino_duel.md (``PHASE_NAMES[PH_x]``).  The order
# matters to :func:`potential`: up to PH_DRAFT_PICK the draft runs, up to PH_SPLIT_SECOND
# the spellbook marks of the round are still to come.
PHASE_NAMES = ("DOUBLE_PICK_WINDOW", "DRAFT_PICK", "TURN_DIE_WINDOW", "IGNORE_CONN_WINDOW",
               "SPLIT_WINDOW", "PASS_ONLY", "CASTLE_WINDOW", "NAME_WILD", "PLACE_DOMINO",
               "SPLIT_FIRST", "SPLIT_SECOND", "DOMAIN_BONUS_NAME", "ADD_CROSS_TARGET", "GAME_OVER")
(PH_DOUBLE_PICK_WINDOW, PH_DRAFT_PICK, PH_TURN_DIE_WINDOW, PH_IGNORE_CONN_WINDOW,
 PH_SPLIT_WINDOW, PH_PASS_ONLY, PH_CASTLE_WINDOW, PH_NAME_WILD, PH_PLACE_DOMINO,
 PH_SPLIT_FIRST, PH_SPLIT_SECOND, PH_DOMAIN_BONUS_NAME, PH_ADD_CROSS_TARGET,
 PH_GAME_OVER) = range(len(PHASE_NAMES))
NUM_PHASES = len(PHASE_NAMES)
# The windows of step 3 in the order they open: :func:`_step3_from` opens the first one
# that applies at or after a stage (int64 scalars: one numba specialisation).
(STAGE_TURN_DIE, STAGE_IGNORE_CONNECTION, STAGE_SPLIT_DOMINO, STAGE_PASS, STAGE_CASTLE_BONUS,
 STAGE_NAME_WILD) = (np.int64(i) for i in range(6))
# Why the game ended (``END_REASON``).
END_RUNNING, END_MAP_FULL, END_NOBODY_DREW = range(3)

# ------------------------------------------------------------------ state layout
EMPTY = -1            # map cell not drawn yet
CASTLE_CODE = -2      # the castle cell of a map
# Slot / flag arguments between kernels are passed as these int64 scalars, never as int
# literals: numba compiles one specialisation per literal value (cold start, issue 15).
ZERO = np.int64(0)
ONE = np.int64(1)

# S = the start player of the round, O = the other seat.
STATE = Layout("kingdomino_duel state")
RNG = STATE.add("rng", rng.RNG_SLOTS)                     # the dice generator
PHASE = STATE.add("phase")                                # PH_*
MOVER = STATE.add("mover")                                # seat owing the decision, -1 at the end
START_PLAYER = STATE.add("start_player")                  # S of this round
ROUND = STATE.add("round")                                # 1-based
PICKS_MADE = STATE.add("picks_made")                      # dice picked so far in this draft
DOUBLE_PICK_ACTIVE = STATE.add("double_pick_active")      # double_first_pick declared this round
STEP3_OF_OTHER = STATE.add("step3_of_other")              # whose step 3: 0 = S, 1 = O
NEXT_MARK = STATE.add("next_mark")                        # next spellbook mark to process (0..3)
SPLIT_FIRST_CELL = STATE.add("split_first_cell")          # cell chosen for slot 0 in a split, -1
END_REASON = STATE.add("end_reason")                      # END_*
FIRST_START_PLAYER = STATE.add("first_start_player")      # option: -1 drawn
MAP_FAMILY = STATE.add("map_family", (2, NUM_CELLS))      # [seat, cell] family, EMPTY, CASTLE_CODE
MAP_CROSSES = STATE.add("map_crosses", (2, NUM_CELLS))    # [seat, cell] crosses
MARKS = STATE.add("marks", (2, NUM_FAMILIES))             # [seat, family] spellbook marks
CASTLE_USED = STATE.add("castle_used", 2)                 # [seat]
BONUS_FAMILY = STATE.add("bonus_family", 2)               # [seat] domain_bonus family, -1 none
SPELL_OWNER = STATE.add("spell_owner", NUM_SPELLS)        # [spell] seat, -1 none
SPELL_USED = STATE.add("spell_used", NUM_SPELLS)          # [spell]
SPELL_ACQUIRED = STATE.add("spell_acquired", NUM_SPELLS)  # [spell] round of acquisition
DIE_FACE = STATE.add("die_face", NUM_DICE)                # [die] face index shown
DIE_HOLDER = STATE.add("die_holder", NUM_DICE)            # [die] seat, -1 not taken
DIE_TURNED = STATE.add("die_turned", NUM_DICE)            # [die] turned with turn_die this round
CASTLE_TARGET = STATE.add("castle_target", 2)             # [seat] slot given the castle bonus, -1
WILD_NAME = STATE.add("wild_name", (2, 2))                # [seat, slot] family named for a '?', -1
DECLARED = STATE.add("declared", (2, 2))                  # [seat, ignore / split] declared now
DREW = STATE.add("drew", 2)                               # [seat] drew this round
SLOT_DIE = STATE.add("slot_die", (2, 2))                  # [seat, slot] die id, -1 in the draft
FILLED = STATE.add("filled", 2)                           # [seat] drawn cells
# [seat] live score, kept up to date by every change of a map or a bonus family (observe
# and scores read it: scoring both maps took more than half of the observation's time)
SCORE = STATE.add("score", 2)
# scratch: the domains of one map (scoring: seen flags and the flood-fill stack;
# :func:`potential`: labels, the labelling stack then frontier counts, sizes, crosses)
COMPONENT_LABELS = STATE.add("component_labels", NUM_CELLS, scratch=True)
COMPONENT_STACK = STATE.add("component_stack", NUM_CELLS, scratch=True)
COMPONENT_SIZES = STATE.add("component_sizes", NUM_CELLS, scratch=True)
COMPONENT_CROSSES = STATE.add("component_crosses", NUM_CELLS, scratch=True)
RANK_KEYS = STATE.add("rank_keys", (2, 2), scratch=True)      # [seat] (score, largest domain)
SCRATCH = COMPONENT_LABELS                                # first scratch slot
STATE_SIZE = STATE.size

# The option vector ``init`` reads (built by the adapter's ``build_config``).
CONFIG = Layout("kingdomino_duel config")
CFG_NUM_PLAYERS = CONFIG.add("num_players")
CFG_FIRST_START_PLAYER = CONFIG.add("first_start_player")  # -1: drawn from the seed
CONFIG_SIZE = CONFIG.size


# ====================================================================== helpers
@njit(cache=True)
def _usable(state, p, spell):
    return (state[SPELL_OWNER + spell] == p and state[SPELL_USED + spell] == 0
            and state[SPELL_ACQUIRED + spell] < state[ROUND])


@njit(cache=True)
def _anchored(state, p, c, f):
    """Some orthogonal neighbour of ``c`` is the castle or a drawn cell of family ``f``."""
    base = MAP_FAMILY + p * NUM_CELLS
    for d in range(4):
        q = NEIGHBORS[c, d]
        if q >= 0:
            v = state[base + q]
            if v == CASTLE_CODE or v == f:
                return True
    return False


@njit(cache=True)
def _adjacent(a, b):
    for d in range(4):
        if NEIGHBORS[a, d] == b:
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
def _normal_placements(state, p, f0, f1, ignore_conn, mask):
    """Normal domino placements (L3, or L4 with ``ignore_conn``): slot 0 on ``a``, slot 1 on its
    neighbour in direction ``d``.  Writes ``PLACE(a, d)`` into ``mask`` and returns the
    count; with a zero-length ``mask`` it only tells whether one exists (0 or 1)."""
    base = MAP_FAMILY + p * NUM_CELLS
    count = 0
    for a in range(NUM_CELLS):
        if state[base + a] != EMPTY:
            continue
        aa = ignore_conn or _anchored(state, p, a, f0)
        for d in range(4):
            b = NEIGHBORS[a, d]
            if b >= 0 and state[base + b] == EMPTY:
                if aa or _anchored(state, p, b, f1):
                    if mask.shape[0] == 0:
                        return 1
                    mask[A_PLACE + NUM_DIRS * a + d] = 1
                    count += 1
    return count


@njit(cache=True)
def _exists_fixed(state, p, f0, f1, ignore_conn, split):
    """A legal placement of faces f0 (slot 0), f1 (slot 1) exists under the declared spells."""
    base = MAP_FAMILY + p * NUM_CELLS
    if not split:
        # a zero-length int8 view of the state: "stop at the first placement" (same
        # argument types as legal_mask's call, so the function compiles once)
        return _normal_placements(state, p, f0, f1, ignore_conn,
                                  state[SCRATCH:SCRATCH].view(np.int8)) > 0
    if ignore_conn:
        n = 0
        for a in range(NUM_CELLS):
            if state[base + a] == EMPTY:
                n += 1
        return n >= 2
    # split without ignore: (A[a] and B[b], a != b) or (f0 == f1, adjacent, one anchored)
    na = 0
    nb = 0
    first_a = -1
    first_b = -1
    for c in range(NUM_CELLS):
        if state[base + c] != EMPTY:
            continue
        if _anchored(state, p, c, f0):
            na += 1
            first_a = c
            if f0 == f1:
                for d in range(4):
                    q = NEIGHBORS[c, d]
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
def _exists_any(state, p, ignore_conn, split):
    """A legal placement exists for some naming of the still-unnamed '?' faces."""
    g0 = _slot_family(state, p, ZERO)
    g1 = _slot_family(state, p, ONE)
    lo0, hi0 = (0, NUM_FAMILIES) if g0 < 0 else (g0, g0 + 1)
    lo1, hi1 = (0, NUM_FAMILIES) if g1 < 0 else (g1, g1 + 1)
    for f0 in range(lo0, hi0):
        for f1 in range(lo1, hi1):
            if _exists_fixed(state, p, f0, f1, ignore_conn, split):
                return True
    return False


@njit(cache=True)
def _split_pair_ok(state, p, a, b, f0, f1, ignore_conn):
    """Split: slot 0 at ``a``, slot 1 at ``b`` (distinct, both empty) is legal (L5/L6)."""
    if ignore_conn:
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
    for c in range(NUM_CELLS):
        if (state[MAP_FAMILY + p * NUM_CELLS + c] >= 0
                and state[MAP_CROSSES + p * NUM_CELLS + c] < MAX_CROSSES):
            n += 1
    return n


# ====================================================================== scoring
@njit(cache=True)
def score_arrays(fam, cr, bonus, seen, stack):
    """(score, largest domain) of one map: ``fam``/``cr`` are NUM_CELLS-long (family >= 0 drawn,
    anything negative = not in a domain); ``bonus`` = domain_bonus family or -1; ``seen`` and
    ``stack`` are NUM_CELLS-long work arrays (:func:`grid.flood_fill_sum`)."""
    for i in range(NUM_CELLS):
        seen[i] = 0
    total = 0
    largest = 0
    for s in range(NUM_CELLS):
        if fam[s] < 0 or seen[s] != 0:
            continue
        size, crosses = grid.flood_fill_sum(s, fam, cr, NEIGHBORS, seen, stack)
        total += size * crosses
        if fam[s] == bonus:
            total += BONUS_POINTS
        if size > largest:
            largest = size
    return total, largest


@njit(cache=True)
def _player_score(state, p):
    """(score, largest domain) of seat ``p`` in the current position."""
    return score_arrays(state[MAP_FAMILY + p * NUM_CELLS: MAP_FAMILY + (p + 1) * NUM_CELLS],
                        state[MAP_CROSSES + p * NUM_CELLS: MAP_CROSSES + (p + 1) * NUM_CELLS],
                        state[BONUS_FAMILY + p],
                        state[COMPONENT_LABELS: COMPONENT_LABELS + NUM_CELLS],
                        state[COMPONENT_STACK: COMPONENT_STACK + NUM_CELLS])


@njit(cache=True)
def _refresh_score(state, p):
    sc, _ = _player_score(state, p)
    state[SCORE + p] = sc


@njit(cache=True)
def refresh_scores(state):
    """Recompute both seats' live ``SCORE`` slots from their maps and bonus families.
    ``step`` keeps them current; call this after editing a state's maps by hand."""
    for p in range(2):
        _refresh_score(state, p)


# ========================================================================= flow
@njit(cache=True)
def _start_round(state):
    for d in range(NUM_DICE):
        state[DIE_HOLDER + d] = -1
        state[DIE_TURNED + d] = 0
    for i in range(4):
        state[WILD_NAME + i] = -1
        state[DECLARED + i] = 0
        state[SLOT_DIE + i] = -1
    for p in range(2):
        state[CASTLE_TARGET + p] = -1
        state[DREW + p] = 0
    state[PICKS_MADE] = 0
    state[DOUBLE_PICK_ACTIVE] = 0
    state[STEP3_OF_OTHER] = 0
    state[NEXT_MARK] = 0
    state[SPLIT_FIRST_CELL] = -1
    for d in range(NUM_DICE):                       # step 1: roll, dice 0..3 in order
        state[DIE_FACE + d] = rng.randint(state, RNG, np.int64(NUM_FACES))
    s = state[START_PLAYER]
    state[MOVER] = s
    if _usable(state, s, np.int64(SPELL_DOUBLE_FIRST_PICK)):
        state[PHASE] = PH_DOUBLE_PICK_WINDOW
    else:
        state[PHASE] = PH_DRAFT_PICK


@njit(cache=True)
def _step3_from(state, stage):
    """Open the first window of the current step-3 player at or after ``stage``."""
    p = state[START_PLAYER] if state[STEP3_OF_OTHER] == 0 else 1 - state[START_PLAYER]
    state[MOVER] = p
    ignore_conn = state[DECLARED + 2 * p]
    split = state[DECLARED + 2 * p + 1]
    if stage <= STAGE_TURN_DIE:
        if _usable(state, p, np.int64(SPELL_TURN_DIE)):
            state[PHASE] = PH_TURN_DIE_WINDOW
            return
    if stage <= STAGE_IGNORE_CONNECTION:
        if _usable(state, p, np.int64(SPELL_IGNORE_CONNECTION)):
            if _exists_any(state, p, ONE, ZERO) or (_usable(state, p, np.int64(SPELL_SPLIT_DOMINO))
                                                    and _exists_any(state, p, ONE, ONE)):
                state[PHASE] = PH_IGNORE_CONN_WINDOW
                return
    if stage <= STAGE_SPLIT_DOMINO:
        if (_usable(state, p, np.int64(SPELL_SPLIT_DOMINO))
                and _exists_any(state, p, ignore_conn, ONE)):
            state[PHASE] = PH_SPLIT_WINDOW
            return
    if stage <= STAGE_PASS:
        if not _exists_any(state, p, ignore_conn, split):
            state[PHASE] = PH_PASS_ONLY
            return
    if stage <= STAGE_CASTLE_BONUS:
        if state[CASTLE_USED + p] == 0:
            _, x0 = _slot_face(state, p, ZERO)
            _, x1 = _slot_face(state, p, ONE)
            if x0 < MAX_CROSSES or x1 < MAX_CROSSES:
                state[PHASE] = PH_CASTLE_WINDOW
                return
    if stage <= STAGE_NAME_WILD:
        if _wild_unnamed_slot(state, p) >= 0:
            state[PHASE] = PH_NAME_WILD
            return
    state[PHASE] = PH_SPLIT_FIRST if split else PH_PLACE_DOMINO


@njit(cache=True)
def _finish_draft(state):
    for p in range(2):
        k = 0
        for d in range(NUM_DICE):
            if state[DIE_HOLDER + d] == p:
                state[SLOT_DIE + 2 * p + k] = d
                k += 1
    state[STEP3_OF_OTHER] = 0
    _step3_from(state, STAGE_TURN_DIE)


@njit(cache=True)
def _end_step3(state):
    if state[STEP3_OF_OTHER] == 0:
        state[STEP3_OF_OTHER] = 1
        _step3_from(state, STAGE_TURN_DIE)
    else:
        state[NEXT_MARK] = 0
        _marking(state)


@njit(cache=True)
def _marking(state):
    """Process spellbook marks from NEXT_MARK on; stop at a lightning decision."""
    s = state[START_PLAYER]
    while state[NEXT_MARK] < 4:
        i = state[NEXT_MARK]
        state[NEXT_MARK] = i + 1
        p = s if i < 2 else 1 - s
        d = state[SLOT_DIE + 2 * p + (i & 1)]
        fam = DICE[d, state[DIE_FACE + d], 0]
        x = DICE[d, state[DIE_FACE + d], 1]
        if fam == WILD or x != 0:
            continue
        spell = FAMILY_SPELL[fam]
        if state[SPELL_OWNER + spell] >= 0:
            continue
        state[MARKS + NUM_FAMILIES * p + fam] += 1
        if state[MARKS + NUM_FAMILIES * p + fam] >= ROW_LEN[fam]:
            state[SPELL_OWNER + spell] = p
            state[SPELL_ACQUIRED + spell] = state[ROUND]
            if LIGHTNING[spell]:
                if spell == SPELL_DOMAIN_BONUS:
                    state[MOVER] = p
                    state[PHASE] = PH_DOMAIN_BONUS_NAME
                    return
                if spell == SPELL_ADD_CROSS:
                    if _add_cross_targets(state, p) > 0:
                        state[MOVER] = p
                        state[PHASE] = PH_ADD_CROSS_TARGET
                        return
                    state[SPELL_USED + spell] = 1      # lost: still owned, counts as used
    _end_check(state)


@njit(cache=True)
def _end_check(state):
    full = state[FILLED] >= DRAWABLE_CELLS or state[FILLED + 1] >= DRAWABLE_CELLS
    if full or (state[DREW] == 0 and state[DREW + 1] == 0):
        state[END_REASON] = END_MAP_FULL if full else END_NOBODY_DREW
        state[PHASE] = PH_GAME_OVER
        state[MOVER] = -1
        return
    state[START_PLAYER] = 1 - state[START_PLAYER]
    state[ROUND] += 1
    _start_round(state)


@njit(cache=True)
def _draw_cell(state, p, s, c):
    fam, x = _slot_face(state, p, s)
    if fam == WILD:
        fam = state[WILD_NAME + 2 * p + s]
    if state[CASTLE_TARGET + p] == s:
        x += 1
    state[MAP_FAMILY + p * NUM_CELLS + c] = fam
    state[MAP_CROSSES + p * NUM_CELLS + c] = x


@njit(cache=True)
def _draw_pair(state, p, a, b):
    _draw_cell(state, p, ZERO, a)
    _draw_cell(state, p, ONE, b)
    state[FILLED + p] += 2
    state[DREW + p] = 1
    _refresh_score(state, p)


# ===================================================================== contract
@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    rng.seed_rng(state, RNG, seed)
    for p in range(2):
        for c in range(NUM_CELLS):
            state[MAP_FAMILY + p * NUM_CELLS + c] = EMPTY
        state[MAP_FAMILY + p * NUM_CELLS + CASTLE_CELL] = CASTLE_CODE
        state[BONUS_FAMILY + p] = -1
    for spell in range(NUM_SPELLS):
        state[SPELL_OWNER + spell] = -1
    state[FIRST_START_PLAYER] = config[CFG_FIRST_START_PLAYER]
    first = rng.randint(state, RNG, np.int64(2))     # always drawn: fixed stream layout
    if config[CFG_FIRST_START_PLAYER] >= 0:
        first = config[CFG_FIRST_START_PLAYER]
    state[START_PLAYER] = first
    state[ROUND] = 1
    state[END_REASON] = END_RUNNING
    refresh_scores(state)
    _start_round(state)


@njit(cache=True)
def current_player(state):
    return state[MOVER]


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = state[PHASE]
    p = state[MOVER]
    if ph == PH_GAME_OVER:
        return
    if ph == PH_DRAFT_PICK:
        for d in range(NUM_DICE):
            if state[DIE_HOLDER + d] < 0:
                mask[A_PICK_DIE + d] = 1
    elif ph == PH_DOUBLE_PICK_WINDOW:
        mask[A_SKIP] = 1
        mask[A_DOUBLE_FIRST_PICK] = 1
    elif ph == PH_TURN_DIE_WINDOW:
        mask[A_SKIP] = 1
        for s in range(2):
            d = state[SLOT_DIE + 2 * p + s]
            shown = state[DIE_FACE + d]
            for j in range(NUM_FACES):
                if DICE[d, j, 0] == WILD:        # L9: a coat of arms only, never '?'
                    continue
                if DICE[d, j, 0] == DICE[d, shown, 0] and DICE[d, j, 1] == DICE[d, shown, 1]:
                    continue
                first = True
                for k in range(j):
                    if DICE[d, k, 0] == DICE[d, j, 0] and DICE[d, k, 1] == DICE[d, j, 1]:
                        first = False
                        break
                if first:
                    mask[A_TURN_DIE + NUM_FACES * s + j] = 1
    elif ph == PH_IGNORE_CONN_WINDOW:
        mask[A_SKIP] = 1
        mask[A_IGNORE_CONNECTION] = 1
    elif ph == PH_SPLIT_WINDOW:
        mask[A_SKIP] = 1
        mask[A_SPLIT_DOMINO] = 1
    elif ph == PH_PASS_ONLY:
        mask[A_PASS] = 1
    elif ph == PH_CASTLE_WINDOW:
        mask[A_SKIP] = 1
        for s in range(2):
            _, x = _slot_face(state, p, s)
            if x < MAX_CROSSES:
                mask[A_CASTLE_BONUS + s] = 1
    elif ph == PH_NAME_WILD:
        s = _wild_unnamed_slot(state, p)
        ignore_conn = state[DECLARED + 2 * p]
        split = state[DECLARED + 2 * p + 1]
        for f in range(NUM_FAMILIES):
            state[WILD_NAME + 2 * p + s] = f
            if _exists_any(state, p, ignore_conn, split):
                mask[A_FAMILY + f] = 1
        state[WILD_NAME + 2 * p + s] = -1
    elif ph == PH_PLACE_DOMINO:
        _normal_placements(state, p, _slot_family(state, p, ZERO), _slot_family(state, p, ONE),
                           state[DECLARED + 2 * p], mask)
    elif ph == PH_SPLIT_FIRST or ph == PH_SPLIT_SECOND:
        base = MAP_FAMILY + p * NUM_CELLS
        f0 = _slot_family(state, p, ZERO)
        f1 = _slot_family(state, p, ONE)
        ignore_conn = state[DECLARED + 2 * p]
        if ph == PH_SPLIT_SECOND:
            a = state[SPLIT_FIRST_CELL]
            for b in range(NUM_CELLS):
                if b != a and state[base + b] == EMPTY:
                    if _split_pair_ok(state, p, a, b, f0, f1, ignore_conn):
                        mask[A_CELL + b] = 1
        else:
            for a in range(NUM_CELLS):
                if state[base + a] != EMPTY:
                    continue
                for b in range(NUM_CELLS):
                    if b != a and state[base + b] == EMPTY:
                        if _split_pair_ok(state, p, a, b, f0, f1, ignore_conn):
                            mask[A_CELL + a] = 1
                            break
    elif ph == PH_DOMAIN_BONUS_NAME:
        for f in range(NUM_FAMILIES):
            mask[A_FAMILY + f] = 1
    elif ph == PH_ADD_CROSS_TARGET:
        for c in range(NUM_CELLS):
            if (state[MAP_FAMILY + p * NUM_CELLS + c] >= 0
                    and state[MAP_CROSSES + p * NUM_CELLS + c] < MAX_CROSSES):
                mask[A_CELL + c] = 1


@njit(cache=True)
def step(state, action):
    ph = state[PHASE]
    p = state[MOVER]
    if ph == PH_DRAFT_PICK:
        state[DIE_HOLDER + action - A_PICK_DIE] = p
        state[PICKS_MADE] += 1
        n = state[PICKS_MADE]
        s = state[START_PLAYER]
        if state[DOUBLE_PICK_ACTIVE]:
            if n == 2:
                for d in range(NUM_DICE):
                    if state[DIE_HOLDER + d] < 0:
                        state[DIE_HOLDER + d] = 1 - s
                _finish_draft(state)
        else:
            if n == 1:
                state[MOVER] = 1 - s
            elif n == 3:
                for d in range(NUM_DICE):
                    if state[DIE_HOLDER + d] < 0:
                        state[DIE_HOLDER + d] = s
                _finish_draft(state)
    elif ph == PH_DOUBLE_PICK_WINDOW:
        if action == A_DOUBLE_FIRST_PICK:
            state[DOUBLE_PICK_ACTIVE] = 1
            state[SPELL_USED + SPELL_DOUBLE_FIRST_PICK] = 1
        state[PHASE] = PH_DRAFT_PICK
    elif ph == PH_TURN_DIE_WINDOW:
        if action != A_SKIP:
            k = action - A_TURN_DIE
            s = k // NUM_FACES
            d = state[SLOT_DIE + 2 * p + s]
            state[DIE_FACE + d] = k % NUM_FACES
            state[DIE_TURNED + d] = 1
            state[SPELL_USED + SPELL_TURN_DIE] = 1
        _step3_from(state, STAGE_IGNORE_CONNECTION)
    elif ph == PH_IGNORE_CONN_WINDOW:
        if action == A_IGNORE_CONNECTION:
            state[DECLARED + 2 * p] = 1
            state[SPELL_USED + SPELL_IGNORE_CONNECTION] = 1
        _step3_from(state, STAGE_SPLIT_DOMINO)
    elif ph == PH_SPLIT_WINDOW:
        if action == A_SPLIT_DOMINO:
            state[DECLARED + 2 * p + 1] = 1
            state[SPELL_USED + SPELL_SPLIT_DOMINO] = 1
        _step3_from(state, STAGE_PASS)
    elif ph == PH_PASS_ONLY:
        _end_step3(state)
    elif ph == PH_CASTLE_WINDOW:
        if action != A_SKIP:
            state[CASTLE_TARGET + p] = action - A_CASTLE_BONUS
            state[CASTLE_USED + p] = 1
        _step3_from(state, STAGE_NAME_WILD)
    elif ph == PH_NAME_WILD:
        s = _wild_unnamed_slot(state, p)
        state[WILD_NAME + 2 * p + s] = action - A_FAMILY
        _step3_from(state, STAGE_NAME_WILD)
    elif ph == PH_PLACE_DOMINO:
        k = action - A_PLACE
        a = k // NUM_DIRS
        _draw_pair(state, p, a, NEIGHBORS[a, k % NUM_DIRS])
        _end_step3(state)
    elif ph == PH_SPLIT_FIRST:
        state[SPLIT_FIRST_CELL] = action - A_CELL
        state[PHASE] = PH_SPLIT_SECOND
    elif ph == PH_SPLIT_SECOND:
        a = state[SPLIT_FIRST_CELL]
        state[SPLIT_FIRST_CELL] = -1
        _draw_pair(state, p, a, action - A_CELL)
        _end_step3(state)
    elif ph == PH_DOMAIN_BONUS_NAME:
        state[BONUS_FAMILY + p] = action - A_FAMILY
        _refresh_score(state, p)
        state[SPELL_USED + SPELL_DOMAIN_BONUS] = 1
        _marking(state)
    elif ph == PH_ADD_CROSS_TARGET:
        state[MAP_CROSSES + p * NUM_CELLS + action - A_CELL] += 1
        _refresh_score(state, p)
        state[SPELL_USED + SPELL_ADD_CROSS] = 1
        _marking(state)


@njit(cache=True)
def advance(state, action, mask):
    """The AEC shell's one call per step (see :mod:`envs.spec`)."""
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True)
def scores(state, out):
    for p in range(2):
        out[p] = state[SCORE + p]


@njit(cache=True)
def ranks(state, out):
    """Score decides, then the largest domain; a tie on both is shared."""
    keys = state[RANK_KEYS:RANK_KEYS + 4].reshape((2, 2))
    keys[0, 0], keys[0, 1] = _player_score(state, ZERO)
    keys[1, 0], keys[1, 1] = _player_score(state, ONE)
    ranks_lexicographic(keys, 2, out)


# ================================================================== observation
# ------------------------------------------------------------------ observation layout
SCORE_SCALE = 100.0
# a loose upper bound of a score / SCORE_SCALE
SCORE_OBS_MAX = float(NUM_CELLS * NUM_CELLS * MAX_CROSSES + BONUS_POINTS * NUM_CELLS) / SCORE_SCALE
# Owner / holder one-hots of the observation.
WHO_NONE, WHO_ME, WHO_OPPONENT = range(3)
# One seat's map planes: one per family, then these three.
PLANE_EMPTY = NUM_FAMILIES
PLANE_CROSSED = NUM_FAMILIES + 1          # crosses >= 1
PLANE_TWO_CROSSES = NUM_FAMILIES + 2      # crosses == 2
SEAT_PLANES = NUM_FAMILIES + 3

# One die's features (a row of the observation's ``dice``).
DIE_OBS = Layout("kingdomino_duel die observation")
DIE_OBS_FACE = DIE_OBS.add("face", NUM_FACES)               # face index one-hot
DIE_OBS_FAMILY = DIE_OBS.add("family", NUM_FAMILIES + 1)    # family one-hot, last = '?'
DIE_OBS_CROSSES = DIE_OBS.add("crosses", MAX_CROSSES + 1)   # printed crosses one-hot
DIE_OBS_HOLDER = DIE_OBS.add("holder", 3)                   # WHO_* one-hot
DIE_OBS_TURNED = DIE_OBS.add("turned")
DIE_OBS_CASTLE_TARGET = DIE_OBS.add("castle_target")        # its holder's castle bonus is on it
DIE_OBS_SIZE = DIE_OBS.size

# One family's spellbook row (a row of the observation's ``spellbook``).
ROW_OBS = Layout("kingdomino_duel spellbook row observation")
ROW_OBS_MY_MARKS = ROW_OBS.add("my_marks")                  # marks / row length
ROW_OBS_OPPONENT_MARKS = ROW_OBS.add("opponent_marks")      # marks / row length
ROW_OBS_OWNER = ROW_OBS.add("owner", 3)                     # WHO_* one-hot of the row's spell
ROW_OBS_USED = ROW_OBS.add("used")                          # the row's spell is used
ROW_OBS_SIZE = ROW_OBS.size

# The observation of one seat ("me"; the other seat is "the opponent").
OBS = Layout("kingdomino_duel observation")
OBS_MAPS = OBS.add("maps", (2, SEAT_PLANES, ROWS, COLS))          # [me / opponent, plane, row, col]
OBS_CASTLE = OBS.add("castle", (ROWS, COLS))                      # the castle cell
OBS_SPLIT_FIRST_CELL = OBS.add("split_first_cell", (ROWS, COLS))  # chosen this step, if any
OBS_DICE = OBS.add("dice", (NUM_DICE, DIE_OBS_SIZE))              # [die] DIE_OBS record
OBS_WILD_NAMES = OBS.add("wild_names", (2, NUM_FAMILIES + 1))     # [my slot] family, last: none
OBS_SPELLBOOK = OBS.add("spellbook", (NUM_FAMILIES, ROW_OBS_SIZE))  # [family] ROW_OBS record
OBS_CASTLE_USED = OBS.add("castle_used", 2)                       # me, opponent
OBS_BONUS_FAMILY = OBS.add("bonus_family", (2, NUM_FAMILIES + 1))  # [me / opponent], last: none
OBS_DECLARED = OBS.add("declared", 2)                             # my ignore, split this round
OBS_IS_START_PLAYER = OBS.add("is_start_player")
OBS_ROUND = OBS.add("round")                                      # round / MAX_ROUNDS
OBS_PHASE = OBS.add("phase", NUM_PHASES)                          # PH_* one-hot
OBS_FILLED = OBS.add("filled", 2)                                 # drawn cells / DRAWABLE_CELLS
OBS_SCORES = OBS.add("scores", 2, high=SCORE_OBS_MAX)             # score / SCORE_SCALE
OBS_SIZE = OBS.size


@njit(cache=True)
def observe(state, player, out):
    """``player``'s view, written at the offsets of the :data:`OBS` declaration."""
    for i in range(OBS_SIZE):
        out[i] = 0.0
    me = player
    opponent = 1 - player
    # ---- maps: SEAT_PLANES planes for me, then for the opponent
    for k in range(2):
        p = me if k == 0 else opponent
        planes = OBS_MAPS + SEAT_PLANES * NUM_CELLS * k
        for c in range(NUM_CELLS):
            f = state[MAP_FAMILY + p * NUM_CELLS + c]
            if f >= 0:
                out[planes + f * NUM_CELLS + c] = 1.0
                x = state[MAP_CROSSES + p * NUM_CELLS + c]
                if x >= 1:
                    out[planes + PLANE_CROSSED * NUM_CELLS + c] = 1.0
                if x >= 2:
                    out[planes + PLANE_TWO_CROSSES * NUM_CELLS + c] = 1.0
            elif f == EMPTY:
                out[planes + PLANE_EMPTY * NUM_CELLS + c] = 1.0
    out[OBS_CASTLE + CASTLE_CELL] = 1.0
    if state[SPLIT_FIRST_CELL] >= 0:
        out[OBS_SPLIT_FIRST_CELL + state[SPLIT_FIRST_CELL]] = 1.0
    # ---- dice
    for d in range(NUM_DICE):
        die = OBS_DICE + DIE_OBS_SIZE * d
        f = state[DIE_FACE + d]
        out[die + DIE_OBS_FACE + f] = 1.0
        out[die + DIE_OBS_FAMILY + DICE[d, f, 0]] = 1.0
        out[die + DIE_OBS_CROSSES + DICE[d, f, 1]] = 1.0
        h = state[DIE_HOLDER + d]
        if h < 0:
            out[die + DIE_OBS_HOLDER + WHO_NONE] = 1.0
        elif h == me:
            out[die + DIE_OBS_HOLDER + WHO_ME] = 1.0
        else:
            out[die + DIE_OBS_HOLDER + WHO_OPPONENT] = 1.0
        out[die + DIE_OBS_TURNED] = float(state[DIE_TURNED + d])
        if h >= 0 and state[SLOT_DIE + 2 * h] >= 0:
            t = state[CASTLE_TARGET + h]
            if t >= 0 and state[SLOT_DIE + 2 * h + t] == d:
                out[die + DIE_OBS_CASTLE_TARGET] = 1.0
    # ---- families I named for my two slots' '?' faces (last = none)
    for s in range(2):
        w = state[WILD_NAME + 2 * me + s]
        out[OBS_WILD_NAMES + (NUM_FAMILIES + 1) * s + (w if w >= 0 else NUM_FAMILIES)] = 1.0
    # ---- spellbook
    for f in range(NUM_FAMILIES):
        row = OBS_SPELLBOOK + ROW_OBS_SIZE * f
        out[row + ROW_OBS_MY_MARKS] = state[MARKS + NUM_FAMILIES * me + f] / ROW_LEN[f]
        out[row + ROW_OBS_OPPONENT_MARKS] = state[MARKS + NUM_FAMILIES * opponent + f] / ROW_LEN[f]
        spell = FAMILY_SPELL[f]
        o = state[SPELL_OWNER + spell]
        if o < 0:
            out[row + ROW_OBS_OWNER + WHO_NONE] = 1.0
        elif o == me:
            out[row + ROW_OBS_OWNER + WHO_ME] = 1.0
        else:
            out[row + ROW_OBS_OWNER + WHO_OPPONENT] = 1.0
        out[row + ROW_OBS_USED] = float(state[SPELL_USED + spell])
    # ---- castle bonus, domain_bonus family, declared spells, round, phase, progress
    out[OBS_CASTLE_USED] = float(state[CASTLE_USED + me])
    out[OBS_CASTLE_USED + 1] = float(state[CASTLE_USED + opponent])
    for k in range(2):
        p = me if k == 0 else opponent
        w = state[BONUS_FAMILY + p]
        out[OBS_BONUS_FAMILY + (NUM_FAMILIES + 1) * k + (w if w >= 0 else NUM_FAMILIES)] = 1.0
    out[OBS_DECLARED] = float(state[DECLARED + 2 * me])
    out[OBS_DECLARED + 1] = float(state[DECLARED + 2 * me + 1])
    out[OBS_IS_START_PLAYER] = 1.0 if state[START_PLAYER] == me else 0.0
    out[OBS_ROUND] = state[ROUND] / MAX_ROUNDS
    out[OBS_PHASE + state[PHASE]] = 1.0
    out[OBS_FILLED] = state[FILLED + me] / DRAWABLE_CELLS
    out[OBS_FILLED + 1] = state[FILLED + opponent] / DRAWABLE_CELLS
    s0 = state[SCORE + me]
    s1 = state[SCORE + opponent]
    out[OBS_SCORES] = s0 / SCORE_SCALE
    out[OBS_SCORES + 1] = s1 / SCORE_SCALE


# =========================================================== hidden information
@njit(cache=True)
def reseed(state, seed):
    """Re-key the generator from ``seed`` (a non-negative int64; the adapter reduces any
    integer modulo 2**63): every future roll is re-drawn, nothing seen changes.  Only the
    two generator slots are written."""
    rng.seed_rng(state, RNG, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    """Nothing but the future rolls is hidden from ``observer`` (R32): the same re-keying
    as :func:`reseed`."""
    rng.seed_rng(state, RNG, seed)


# ============================================================= greedy heuristic
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
    for c in range(NUM_CELLS):
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
    fam = state[MAP_FAMILY + p * NUM_CELLS: MAP_FAMILY + (p + 1) * NUM_CELLS]
    cr = state[MAP_CROSSES + p * NUM_CELLS: MAP_CROSSES + (p + 1) * NUM_CELLS]
    labels = state[COMPONENT_LABELS: COMPONENT_LABELS + NUM_CELLS]
    frontier = state[COMPONENT_STACK: COMPONENT_STACK + NUM_CELLS]    # first the labelling stack
    size = state[COMPONENT_SIZES: COMPONENT_SIZES + NUM_CELLS]
    crosses = state[COMPONENT_CROSSES: COMPONENT_CROSSES + NUM_CELLS]
    n = grid.label_components(fam, NEIGHBORS, labels, frontier)
    for k in range(n):
        size[k] = 0
        crosses[k] = 0
        frontier[k] = 0
    for c in range(NUM_CELLS):
        k = labels[c]
        if k >= 0:
            size[k] += 1
            crosses[k] += cr[c]
    empty = 0
    dead = 0
    castle_open = ZERO               # int64 flag: one specialisation of _best_join
    for e in range(NUM_CELLS):
        if fam[e] != EMPTY:
            continue
        empty += 1
        if not grid.touches(e, fam, NEIGHBORS, np.int64(EMPTY)):
            dead += 1
            continue
        for d in range(4):
            q = NEIGHBORS[e, d]
            if q < 0:
                continue
            if q == CASTLE_CELL:
                castle_open = ONE
            k = labels[q]
            if k < 0:
                continue
            seen = False                 # count a free cell once per domain
            for d2 in range(d):
                q2 = NEIGHBORS[e, d2]
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
    before_marks = ph <= PH_SPLIT_SECOND
    undrawn = ph <= PH_DRAFT_PICK or (before_marks
                                      and (state[STEP3_OF_OTHER] == 0 or p != state[START_PLAYER])
                                      and not (ph == PH_PASS_ONLY and state[MOVER] == p))
    if undrawn:
        for d in range(NUM_DICE):
            if state[DIE_HOLDER + d] != p:
                continue
            f = DICE[d, state[DIE_FACE + d], 0]
            x = DICE[d, state[DIE_FACE + d], 1]
            for s in range(2):           # slots exist once the draft is over
                if state[SLOT_DIE + 2 * p + s] == d:
                    if state[CASTLE_TARGET + p] == s:
                        x += 1
                    if f == WILD and state[WILD_NAME + 2 * p + s] >= 0:
                        f = state[WILD_NAME + 2 * p + s]
            best = -1.0
            for g in range(NUM_FAMILIES):
                if f == g or f == WILD:
                    best = max(best, _best_join(fam, labels, size, crosses, frontier,
                                                g, x, castle_open))
            if best > 0:
                v += best
    # ---- spellbook and castle
    for f in range(NUM_FAMILIES):
        spell = FAMILY_SPELL[f]
        owner = state[SPELL_OWNER + spell]
        if owner < 0:
            m = state[MARKS + NUM_FAMILIES * p + f]
            if before_marks:
                for d in range(NUM_DICE):
                    if (state[DIE_HOLDER + d] == p and DICE[d, state[DIE_FACE + d], 0] == f
                            and DICE[d, state[DIE_FACE + d], 1] == 0):
                        m += 1
            m = min(m, ROW_LEN[f])
            v += SPELL_VALUE[spell] * (m * m) / (ROW_LEN[f] * ROW_LEN[f])
        elif owner == p and LIGHTNING[spell] == 0:
            declared = ((spell == SPELL_IGNORE_CONNECTION and state[DECLARED + 2 * p] != 0)
                        or (spell == SPELL_SPLIT_DOMINO and state[DECLARED + 2 * p + 1] != 0)
                        or (spell == SPELL_DOUBLE_FIRST_PICK and state[DOUBLE_PICK_ACTIVE] != 0))
            if state[SPELL_USED + spell] == 0 or declared:
                v += SPELL_VALUE[spell]
    if state[CASTLE_USED + p] == 0:
        v += POT_CASTLE * empty / DRAWABLE_CELLS
    return v

