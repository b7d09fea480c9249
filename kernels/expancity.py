"""Expancity rules kernel (numba).

Rules: ``docs/rules/expancity.md`` (Expancity, Alex Cutler 2018; Korean edition).  The
whole game lives in one flat ``int64`` state array whose layout is given by the
``H_*`` / ``O_*`` constants below.  The game's tables (tile counts, special-tile
modifiers, rule numbers, the 50 contract conditions and the 6 goals) are checked
(:func:`check_data`) and compiled from ``kernels/data/expancity.yaml`` by
:func:`compile_data` into an int ``blob`` that ``init`` copies into the state, so a
corrected data file (the ``data_path`` option) needs no code change and no recompile.

Action encoding (616 actions, see the adapter's docstring):

* ``0..487``    PLACE(slot s, anchor tile a, dir d) = s*244 + a*4 + d  (d: 0 N, 1 E, 2 S, 3 W)
* ``488``       GATHER
* ``489..549``  BUILD(t) = 489 + t
* ``550..610``  ROOF(t) = 550 + t
* ``611``       STOP roofing
* ``612..613``  keep contract 0 / 1 of the drawn pair
* ``614..615``  keep tile 0 / 1 of the drawn pair (sorted by type id); ``615`` is masked
  when both tiles have the same type (the step is still asked, see below)

Turn machine: PLACE, up to 3 ACTION steps, ROOF (skipped when nothing can be roofed),
one CONTRACT_KEEP per roofed building, automatic reveal (step 4), and a TILE_KEEP step
whenever the bag held 2 or more tiles -- also when the two drawn tiles have the same
type, so whether the drawer is asked depends on the public bag size only.

Observation: the column offsets of every block are the ``FT_*`` (tile row), ``FP_*``
(player row), ``G_*`` (globals), ``P_*`` (private) and ``W_*`` / ``WP_*`` (crop)
constants; the adapter builds ``observation_layout`` and ``observation_bounds`` from
them.

Version history
    v0: initial.
    v0 (issues 14/15): ``G_PEND`` (contract draws still owed this turn; during ROOF the
    number of buildings roofed so far) and the private ``P_BOTTOM`` bits (own cards still
    at the bottom of the deck); TILE_KEEP asked whenever the bag held 2 or more tiles;
    ``O_SNAPNT`` / ``O_SNAP`` keep the buildings at each seat's last step 4 and
    ``H_DRAWN`` the draws made this turn (both public; :func:`met_at_last_step4` tells
    determinization which contracts a seat would have revealed); the data
    file is checked field by field at load; ``observe`` writes zeros for a seat outside
    the game.
"""
import numpy as np
from numba import njit

from kernels import data_files
from kernels import rng

GAME = "expancity"

# ----------------------------------------------------------------- dimensions
MAX_P = 4
MAX_T = 61            # City Hall + 60 bag tiles
NTYPES = 12
NCON = 50
NGOALS = 6
R = 60                # grid radius proven sufficient (rules ruling 3)
W = 2 * R + 1         # 121
NDIRS = 4
DX = np.array([0, 1, 0, -1], dtype=np.int64)   # N E S W
DY = np.array([1, 0, -1, 0], dtype=np.int64)

# type ids (fixed by the data schema)
T_CITY_HALL = 0
T_RES = 1
T_COM = 2
CLS_CIVIC = 0
CLS_ZONE = 1
CLS_SPECIAL = 2
CLASS_SPECIAL_ANY = 12   # tile class "special" in contract conditions

# ----------------------------------------------------------------- actions
A_PLACE = 0
PLACE_SLOT = MAX_T * NDIRS          # 244
A_GATHER = 2 * PLACE_SLOT           # 488
A_BUILD = A_GATHER + 1              # 489
A_ROOF = A_BUILD + MAX_T            # 550
A_STOP = A_ROOF + MAX_T             # 611
A_KEEPC = A_STOP + 1                # 612
A_KEEPT = A_KEEPC + 2               # 614
NUM_ACTIONS = A_KEEPT + 2           # 616

# ----------------------------------------------------------------- phases
PH_PLACE = 0
PH_ACTION = 1
PH_ROOF = 2
PH_CKEEP = 3
PH_TKEEP = 4
PH_OVER = 5
PHASE_NAMES = ("place", "action", "roof", "contract_keep", "tile_keep", "over")

# ----------------------------------------------------------------- data blob layout
B_MOD = 0                         # [12, 2] per-floor modifier by tile type and kind (0 res, 1 com)
B_COUNT = B_MOD + NTYPES * 2      # [12] copies in the bag
B_CLASS = B_COUNT + NTYPES        # [12] 0 civic, 1 zone, 2 special
B_RULES = B_CLASS + NTYPES        # [16] rule numbers, see RULE_KEYS
RULE_KEYS = ("actions_per_turn", "max_unfinished_buildings", "residential_max_floors",
             "commercial_free_floors", "residential_min_floors_to_complete",
             "commercial_min_floors_to_complete", "base_points_per_floor",
             "vacant_lot_per_floor", "supply_start", "reserve_start", "roofs_residential",
             "roofs_commercial", "hand_tiles", "first_player")
RU_ACTIONS, RU_MAXU, RU_RESMAX, RU_COMFREE, RU_RESMIN, RU_COMMIN, RU_BASE, RU_VACANT, \
    RU_SUPPLY, RU_RESERVE, RU_ROOFRES, RU_ROOFCOM, RU_HAND, RU_FIRST = range(14)
B_CVP = B_RULES + 16              # [50] contract VP
# one compiled condition row: form, param, tile class, cells code, has centre, 3 selectors
SEL_W = 11                        # present, status, type, floors, nadj, adj0..3, kinds_min, enclosed
COND_HDR = 5
COND_W = COND_HDR + 3 * SEL_W     # 38
B_COND = B_CVP + NCON             # [50, 38]
B_GMETRIC = B_COND + NCON * COND_W  # [6]
B_GVP = B_GMETRIC + NGOALS        # [6]
BLOB_SIZE = B_GVP + NGOALS

FORMS = {"building": 0, "share": 1, "touching": 2, "line": 3, "square": 4}
F_BUILDING, F_SHARE, F_TOUCHING, F_LINE, F_SQUARE = range(5)
CELLS_CODES = {"tile": 0, "no_vacant": 1}   # 2 = selector (member 0)
METRICS = ("max_floors_done", "count_done_com", "count_done_res", "contracts_revealed",
           "sum_floors_done", "count_done_adj_special")

# ----------------------------------------------------------------- state layout
H_NP = 0
H_PHASE = 1
H_CUR = 2
H_TURN = 3
H_ACTLEFT = 4
H_NT = 5            # tiles placed, City Hall included
H_BAGN = 6
H_PEND = 7          # contract draws still owed this turn
H_CP = 8            # [2] drawn contract pair
H_TP = 10           # [2] drawn tile pair
H_ROOFS = 12        # [2] roofs left (res, com)
H_GOALS = 14        # [3] goal indices in play
H_POOLN = 17        # never-drawn contracts
H_QHEAD = 18
H_QLEN = 19
H_RNG = 20          # [2]
H_WIN = 22          # side of the observation's spatial crop (0 = none)
H_DRAWN = 23        # contracts kept so far this turn (draws already made)
HDR = 32

O_DATA = HDR
O_TX = O_DATA + BLOB_SIZE
O_TY = O_TX + MAX_T
O_TTYPE = O_TY + MAX_T
O_TOWNER = O_TTYPE + MAX_T      # -1 no building
O_TFLOORS = O_TOWNER + MAX_T
O_TDONE = O_TFLOORS + MAX_T
O_TRAISED = O_TDONE + MAX_T     # turn of the last floor added (-1)
O_TSCORE = O_TRAISED + MAX_T    # frozen score once completed
O_HAND = O_TSCORE + MAX_T       # [4, 2] tile types, sorted, -1 empty (at the end)
# per player [4] each
O_SUPPLY = O_HAND + MAX_P * 2
O_RESERVE = O_SUPPLY + MAX_P
O_SCORE = O_RESERVE + MAX_P     # VP of buildings + contracts (+ goals at the end)
O_U = O_SCORE + MAX_P
O_R = O_U + MAX_P
O_C = O_R + MAX_P
O_DRES = O_C + MAX_P
O_DCOM = O_DRES + MAX_P
O_DFLOORS = O_DCOM + MAX_P
O_NHELD = O_DFLOORS + MAX_P
O_NREV = O_NHELD + MAX_P
O_GOALVP = O_NREV + MAX_P
O_HELD = O_GOALVP + MAX_P       # [4, 50]
O_REV = O_HELD + MAX_P * NCON   # [4, 50]
O_POOL = O_REV + MAX_P * NCON   # [50] 1 = never drawn
O_QUEUE = O_POOL + NCON         # [50] ring buffer of card ids put at the bottom
O_QOWNER = O_QUEUE + NCON       # [50] seat that put it there
O_BAG = O_QOWNER + NCON         # [12] tile counts in the bag
O_SEEN = O_BAG + NTYPES         # [4, 50] contracts each seat has seen in a drawn pair
# the buildings at each seat's last step 4 (public), so that a determinization knows which
# contracts that seat would have revealed then: tiles placed, then owner, floors, completed
O_SNAPNT = O_SEEN + MAX_P * NCON   # [4] tiles placed at the seat's last step 4 (0 = none yet)
O_SNAP = O_SNAPNT + MAX_P          # [4, 3, 61] owner, floors, completed per tile
O_GRID = O_SNAP + MAX_P * 3 * MAX_T  # [121*121] cell -> tile index, -1 empty
STATE_SIZE = O_GRID + W * W

# config vector: num_players, goal ids x3 (-1 = random), crop side, then the data blob
CFG_NP = 0
CFG_GOALS = 1
CFG_WIN = 4
CFG_BLOB = 5
CONFIG_SIZE = CFG_BLOB + BLOB_SIZE


# =================================================================== data compiler

# The numbers the kernel reads, with the range a data file may give them.  The upper
# bounds keep a game within the step bound (at most 11 agent steps a turn) and every
# value far from int64 overflow.
RULE_RANGES = {
    "actions_per_turn": (1, 3), "max_unfinished_buildings": (1, 3),
    "residential_max_floors": (1, 20), "commercial_free_floors": (1, 20),
    "residential_min_floors_to_complete": (1, 20), "commercial_min_floors_to_complete": (1, 20),
    "base_points_per_floor": (-100, 100), "vacant_lot_per_floor": (-100, 100),
    "supply_start": (0, 1000), "reserve_start": (0, 1000), "roofs_residential": (0, 1000),
    "roofs_commercial": (0, 1000), "hand_tiles": (2, 2), "first_player": (0, MAX_P - 1),
}
FIXED_COMPONENTS = {"city_hall_tiles": 1, "bag_tiles": MAX_T - 1, "contract_cards": NCON,
                    "goal_cards": NGOALS, "goal_cards_in_play": 3, "contracts_in_hand_start": 0,
                    "max_floors_per_building_per_turn": 1}
# other integer entries: documentation or cosmetic, still checked for type and range
OTHER_NUMBERS = {"blocks_per_colour": (1, 1000), "score_marker_blocks": (0, 1000),
                 "summary_cards": (0, 100), "score_track_length": (1, 1000)}
# {draw, keep} of the two draw-2-keep-1 rules: the action encoding has 2 keep actions
DRAW_RULES = ("contract_draw", "tile_refill")
TILE_CLASSES = ("civic", "zone", "special")
SELECTOR_FIELDS = ("status", "type", "floors", "adj", "adj_kinds_min", "enclosed")


def _check_selector(ck, path, class_keys):
    sel = ck.mapping(path)
    for k in sel:
        ck.require(k in SELECTOR_FIELDS, f"{path}.{k}", f"unknown selector field; known: {list(SELECTOR_FIELDS)}")
    ck.string(f"{path}.status", ("any", "done"), default="any")
    ck.string(f"{path}.type", ("any", "res", "com"), default="any")
    # optional fields: left out when not wanted (null is refused)
    if "floors" in sel:
        ck.integer(f"{path}.floors", 1, 100)
    if "adj" in sel:
        adj = ck.sequence(f"{path}.adj", max_len=NDIRS)
        for i in range(len(adj)):
            ck.string(f"{path}.adj[{i}]", class_keys)
    if "adj_kinds_min" in sel:
        ck.integer(f"{path}.adj_kinds_min", 0, NDIRS)
    if "enclosed" in sel:
        ck.boolean(f"{path}.enclosed")


def _check_condition(ck, path, class_keys):
    ck.mapping(path)
    form = ck.string(f"{path}.form", tuple(FORMS))
    if form == "building":
        ck.integer(f"{path}.count", 1, MAX_T, default=1)
        _check_selector(ck, f"{path}.sel", class_keys)
    elif form == "share":
        ck.string(f"{path}.tile", class_keys)
        members = ck.sequence(f"{path}.members", min_len=1, max_len=3)
        for i in range(len(members)):
            _check_selector(ck, f"{path}.members[{i}]", class_keys)
    elif form == "touching":
        ck.sequence(f"{path}.members", length=2)
        for i in range(2):
            _check_selector(ck, f"{path}.members[{i}]", class_keys)
    elif form == "line":
        ck.integer(f"{path}.length", 1, MAX_T)
        _check_selector(ck, f"{path}.sel", class_keys)
    else:
        ck.integer(f"{path}.size", 1, 8)
        cells = ck.get(f"{path}.cells")
        if isinstance(cells, str):
            ck.string(f"{path}.cells", tuple(CELLS_CODES))
        else:
            _check_selector(ck, f"{path}.cells", class_keys)
        if ck.get(f"{path}.centre", None) is not None:
            _check_selector(ck, f"{path}.centre", class_keys)


_IMPLEMENTED_AS = {
    "residential_height_rule": "new floor <= R_p + 1",
    "commercial_height_rule": "new floor <= max(4, C_p + 1)",
    "commercial_max_floors": None,
    "contract_hand_limit": None,
    "goal_tie_split": "floor_divide",
    "final_tie_break": ["most_completed_buildings", "shared"],
}


def check_data(data):
    """Check a parsed Expancity data file against its schema: types, ranges and the
    cross-field totals the kernel relies on.  Raises :class:`kernels.data_files.DataError`
    (a ``ValueError``) naming the first bad field, e.g. ``tile_types[3].count``."""
    ck = data_files.Checker(data, GAME)
    if not isinstance(data, dict):
        ck.fail("<top>", f"expected a mapping, got {type(data).__name__}")
    if "meta" in data:
        ck.mapping("meta")
        ck.integer("meta.schema_version", 1, 1)
    # tiles
    tiles = ck.sequence("tile_types", length=NTYPES)
    ids, keys = [], []
    for i in range(len(tiles)):
        ck.mapping(f"tile_types[{i}]")
        ids.append(ck.integer(f"tile_types[{i}].id", 0, NTYPES - 1))
        keys.append(ck.string(f"tile_types[{i}].key"))
        ck.string(f"tile_types[{i}].class", TILE_CLASSES)
        ck.integer(f"tile_types[{i}].count", 0, MAX_T - 1)
    ck.require(sorted(ids) == list(range(NTYPES)), "tile_types", f"ids must be 0..{NTYPES - 1}, each once")
    ck.require(len(set(keys)) == NTYPES, "tile_types", "keys must be distinct")
    by_id = {t["id"]: (i, t) for i, t in enumerate(tiles)}
    for tid, (key, cls) in enumerate((("city_hall", "civic"), ("residential", "zone"), ("commercial", "zone"))):
        i, t = by_id[tid]
        ck.require(t["key"] == key, f"tile_types[{i}].key", f"tile id {tid} must be {key!r}")
        ck.require(t["class"] == cls, f"tile_types[{i}].class", f"{key} must be of class {cls!r}")
    for tid in range(3, NTYPES):
        i, t = by_id[tid]
        ck.require(t["class"] == "special", f"tile_types[{i}].class", "tile ids 3..11 are special tiles")
    i0 = by_id[0][0]
    ck.require(tiles[i0]["count"] == 0, f"tile_types[{i0}].count", "City Hall is placed at setup, not in the bag")
    ck.require(sum(t["count"] for t in tiles) == MAX_T - 1, "tile_types",
               f"the counts must add up to {MAX_T - 1} bag tiles, got {sum(t['count'] for t in tiles)}")
    specials = [t["key"] for t in tiles if t["class"] == "special"]
    # modifiers: every special tile and City Hall exactly once
    mods = ck.sequence("special_modifiers", length=len(specials) + 1)
    named = []
    for i in range(len(mods)):
        ck.mapping(f"special_modifiers[{i}]")
        named.append(ck.string(f"special_modifiers[{i}].tile", specials + ["city_hall"]))
        ck.integer(f"special_modifiers[{i}].residential", -100, 100)
        ck.integer(f"special_modifiers[{i}].commercial", -100, 100)
    ck.require(len(set(named)) == len(named), "special_modifiers", "each tile listed once")
    # numbers: rules, setup, components
    vals, where = {}, {}
    for sec in ("rules", "setup", "components"):
        entries = ck.sequence(sec)
        for i in range(len(entries)):
            ck.mapping(f"{sec}[{i}]")
            k = ck.string(f"{sec}[{i}].key")
            ck.require(k not in where, f"{sec}[{i}].key", f"{k!r} given twice")
            vals[k] = entries[i].get("value")
            where[k] = f"{sec}[{i}].value"
    def named(key, check):
        """Run ``check``; an error also names the entry's key (paths show only its index)."""
        try:
            check()
        except data_files.DataError as err:
            raise data_files.DataError(f"{err} (entry {key!r})") from None

    for k, (lo, hi) in RULE_RANGES.items():
        ck.require(k in where, k, "missing (a rules, setup or components entry)")
        named(k, lambda: ck.integer(where[k], lo, hi))
    for k, v in FIXED_COMPONENTS.items():
        if k in where:
            named(k, lambda: ck.integer(where[k], v, v))
    for k, (lo, hi) in OTHER_NUMBERS.items():
        if k in where:
            named(k, lambda: ck.integer(where[k], lo, hi))
    for k in DRAW_RULES:
        if k in where:
            named(k, lambda: (ck.mapping(where[k]), ck.integer(where[k] + ".draw", 2, 2),
                              ck.integer(where[k] + ".keep", 1, 1)))
    # Entries whose behaviour is written in code: the file may only state what the code does.
    for k, v in _IMPLEMENTED_AS.items():
        if k in where:
            ck.require(vals[k] == v, where[k], f"the code implements only {v!r} (entry {k!r}); "
                       "changing this rule needs a code change")
    if "score_marker_blocks" in where and "blocks_per_colour" in where:
        marker, blocks = vals["score_marker_blocks"], vals["blocks_per_colour"]
        ck.require(vals["supply_start"] + vals["reserve_start"] + marker == blocks, where["reserve_start"],
                   f"supply_start + reserve_start + score_marker_blocks must equal blocks_per_colour ({blocks})")
    # the derived per-player-count table must agree with the numbers above
    if "player_counts" in data:
        rows = ck.sequence("player_counts", max_len=3)
        bag = MAX_T - 1
        for i in range(len(rows)):
            ck.mapping(f"player_counts[{i}]")
            n = ck.integer(f"player_counts[{i}].players", 2, MAX_P)
            after = bag - vals["hand_tiles"] * n
            derived = {"bag_after_deal": after, "total_turns": bag, "turns_per_player": bag // n,
                       "single_tile_refill_turn": after,
                       "last_seat": (vals["first_player"] + bag - 1) % n}
            for k, v in derived.items():
                if k in rows[i]:
                    ck.integer(f"player_counts[{i}].{k}", v, v)
    ck.require(vals["residential_min_floors_to_complete"] <= vals["residential_max_floors"],
               where["residential_min_floors_to_complete"], "above residential_max_floors: never completable")
    ck.require(vals["commercial_min_floors_to_complete"] <= vals["commercial_free_floors"],
               where["commercial_min_floors_to_complete"], "above commercial_free_floors: never completable")
    # contracts
    class_keys = tuple(specials) + ("city_hall", "special")
    cons = ck.sequence("contracts", length=NCON)
    cids = []
    for i in range(len(cons)):
        ck.mapping(f"contracts[{i}]")
        cids.append(ck.integer(f"contracts[{i}].id", 1, NCON))
        ck.string(f"contracts[{i}].name")
        ck.string(f"contracts[{i}].text")
        ck.integer(f"contracts[{i}].vp", 0, 100)
        _check_condition(ck, f"contracts[{i}].cond", class_keys)
    ck.require(sorted(cids) == list(range(1, NCON + 1)), "contracts", f"ids must be 1..{NCON}, each once")
    # goals
    goals = ck.sequence("goals", length=NGOALS)
    gids = []
    for i in range(len(goals)):
        ck.mapping(f"goals[{i}]")
        gids.append(ck.string(f"goals[{i}].id"))
        ck.string(f"goals[{i}].name")
        ck.string(f"goals[{i}].metric", METRICS)
        ck.integer(f"goals[{i}].vp", 0, 100)
    ck.require(len(set(gids)) == NGOALS, "goals", "ids must be distinct")
    return data


def _tile_class_code(key, type_ids):
    if key == "special":
        return CLASS_SPECIAL_ANY
    if key not in type_ids or key in ("residential", "commercial"):
        raise ValueError(f"unknown tile class {key!r} in a contract condition")
    return type_ids[key]


def _compile_selector(sel, type_ids, row, base):
    allowed = {"status", "type", "floors", "adj", "adj_kinds_min", "enclosed"}
    bad = set(sel) - allowed
    if bad:
        raise ValueError(f"unknown selector field(s) {sorted(bad)}")
    row[base + 0] = 1
    row[base + 1] = {"any": 0, "done": 1}[sel.get("status", "any")]
    row[base + 2] = {"any": 0, "res": T_RES, "com": T_COM}[sel.get("type", "any")]
    row[base + 3] = int(sel.get("floors", 0) or 0)
    adj = list(sel.get("adj", []) or [])
    if len(adj) > 4:
        raise ValueError("an adj list has at most 4 entries (4 neighbours)")
    row[base + 4] = len(adj)
    for i, k in enumerate(adj):
        row[base + 5 + i] = _tile_class_code(k, type_ids)
    row[base + 9] = int(sel.get("adj_kinds_min", 0) or 0)
    row[base + 10] = 1 if sel.get("enclosed", False) else 0


def compile_condition(cond, type_ids):
    """One contract ``cond`` (condition language of rules section 6.2) -> int row."""
    row = np.zeros(COND_W, dtype=np.int64)
    form = cond["form"]
    if form not in FORMS:
        raise ValueError(f"unknown condition form {form!r}")
    row[0] = FORMS[form]
    m = lambda i: COND_HDR + i * SEL_W  # noqa: E731
    if form == "building":
        row[1] = int(cond.get("count", 1))
        _compile_selector(cond["sel"], type_ids, row, m(0))
    elif form == "share":
        row[2] = _tile_class_code(cond["tile"], type_ids)
        members = cond["members"]
        if not 1 <= len(members) <= 3:
            raise ValueError("share needs 1-3 members")
        for i, s in enumerate(members):
            _compile_selector(s, type_ids, row, m(i))
    elif form == "touching":
        members = cond["members"]
        if len(members) != 2:
            raise ValueError("touching needs 2 members")
        for i, s in enumerate(members):
            _compile_selector(s, type_ids, row, m(i))
    elif form == "line":
        row[1] = int(cond["length"])
        _compile_selector(cond["sel"], type_ids, row, m(0))
    else:  # square
        row[1] = int(cond["size"])
        cells = cond["cells"]
        if isinstance(cells, str):
            row[3] = CELLS_CODES[cells]
        else:
            row[3] = 2
            _compile_selector(cells, type_ids, row, m(0))
        if cond.get("centre") is not None:
            row[4] = 1
            _compile_selector(cond["centre"], type_ids, row, m(1))
    return row


def compile_data(data):
    """The parsed YAML -> (blob int64[BLOB_SIZE], info dict of names for the adapter).
    The data is checked first (:func:`check_data`)."""
    check_data(data)
    blob = np.zeros(BLOB_SIZE, dtype=np.int64)
    types = sorted(data["tile_types"], key=lambda t: t["id"])
    if [t["id"] for t in types] != list(range(NTYPES)):
        raise ValueError("tile_types must have ids 0..11")
    keys = [t["key"] for t in types]
    if keys[:3] != ["city_hall", "residential", "commercial"]:
        raise ValueError("tile ids 0, 1, 2 must be city_hall, residential, commercial")
    type_ids = {k: i for i, k in enumerate(keys)}
    for t in types:
        blob[B_COUNT + t["id"]] = int(t["count"])
        blob[B_CLASS + t["id"]] = {"civic": CLS_CIVIC, "zone": CLS_ZONE,
                                   "special": CLS_SPECIAL}[t["class"]]
    if int(blob[B_COUNT:B_COUNT + NTYPES].sum()) != MAX_T - 1:
        raise ValueError("the bag must hold exactly 60 tiles (the action encoding needs it)")
    for m in data["special_modifiers"]:
        i = type_ids[m["tile"]]
        blob[B_MOD + 2 * i] = int(m["residential"])
        blob[B_MOD + 2 * i + 1] = int(m["commercial"])
    vals = {}
    for sec in ("rules", "setup", "components"):
        for e in data.get(sec, []):
            vals[e["key"]] = e.get("value")
    for i, k in enumerate(RULE_KEYS):
        v = vals[k]
        blob[B_RULES + i] = int(v)
    if vals["hand_tiles"] != 2:
        raise ValueError("hand_tiles must be 2 (the action encoding has 2 hand slots)")
    cons = sorted(data["contracts"], key=lambda c: c["id"])
    if [c["id"] for c in cons] != list(range(1, NCON + 1)):
        raise ValueError("contracts must have ids 1..50")
    for j, c in enumerate(cons):
        blob[B_CVP + j] = int(c["vp"])
        blob[B_COND + j * COND_W: B_COND + (j + 1) * COND_W] = compile_condition(c["cond"], type_ids)
    goals = data["goals"]
    if len(goals) != NGOALS:
        raise ValueError("there must be 6 goals")
    for j, g in enumerate(goals):
        if g["metric"] not in METRICS:
            raise ValueError(f"unknown goal metric {g['metric']!r}")
        blob[B_GMETRIC + j] = METRICS.index(g["metric"])
        blob[B_GVP + j] = int(g["vp"])
    info = {
        "type_keys": keys,
        "type_ids": type_ids,
        "contract_names": [c["name"] for c in cons],
        "contract_texts": [c["text"] for c in cons],
        "goal_ids": [g["id"] for g in goals],
        "goal_names": [g["name"] for g in goals],
    }
    return blob, info


DATA = data_files.load(GAME, __file__)
DEFAULT_BLOB, DEFAULT_INFO = compile_data(DATA)


def make_config(num_players=2, goals=None, blob=None, obs_window=0):
    cfg = np.full(CONFIG_SIZE, -1, dtype=np.int64)
    cfg[CFG_NP] = num_players
    cfg[CFG_WIN] = obs_window
    if goals is not None:
        cfg[CFG_GOALS:CFG_GOALS + 3] = goals
    cfg[CFG_BLOB:] = DEFAULT_BLOB if blob is None else blob
    return cfg


def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int64)


# =================================================================== small helpers

@njit(cache=True)
def rule(state, k):
    """Rule number ``k`` (``RU_*``).  Kernel code indexes the state directly instead:
    a call with a constant ``k`` would compile one specialisation per constant."""
    return state[O_DATA + B_RULES + k]


@njit(cache=True)
def tile_at(state, x, y):
    if x < -R or x > R or y < -R or y > R:
        return -1
    return state[O_GRID + (y + R) * W + (x + R)]


@njit(cache=True)
def tclass(state, typ):
    return state[O_DATA + B_CLASS + typ]


@njit(cache=True)
def is_vacant(state, t):
    return t >= 0 and tclass(state, state[O_TTYPE + t]) == CLS_ZONE and state[O_TOWNER + t] < 0


@njit(cache=True)
def neighbour(state, t, d):
    return tile_at(state, state[O_TX + t] + DX[d], state[O_TY + t] + DY[d])


@njit(cache=True)
def class_match(state, t, cls):
    if t < 0:
        return False
    typ = state[O_TTYPE + t]
    if cls == CLASS_SPECIAL_ANY:
        return tclass(state, typ) == CLS_SPECIAL
    return typ == cls


@njit(cache=True)
def per_floor_at(state, t, kind):
    """per_floor of a building of ``kind`` (0 res, 1 com) on tile t, from the current board."""
    v = state[O_DATA + B_RULES + RU_BASE]
    for d in range(NDIRS):
        q = neighbour(state, t, d)
        if q < 0:
            continue
        v += state[O_DATA + B_MOD + 2 * state[O_TTYPE + q] + kind]
        if is_vacant(state, q):
            v += state[O_DATA + B_RULES + RU_VACANT]
    return v


# =================================================================== random draws

@njit(cache=True)
def draw_tile(state):
    """Take one tile from the bag at random; returns its type (-1 if empty)."""
    typ = rng.draw_from_counts(state, H_RNG, O_BAG, NTYPES)
    if typ >= 0:
        state[H_BAGN] -= 1
    return typ


@njit(cache=True)
def return_tile(state, typ):
    state[O_BAG + typ] += 1
    state[H_BAGN] += 1


@njit(cache=True)
def hand_add(state, p, typ):
    h = O_HAND + 2 * p
    if state[h] < 0:
        state[h] = typ
    elif state[h + 1] < 0:
        if typ < state[h]:
            state[h + 1] = state[h]
            state[h] = typ
        else:
            state[h + 1] = typ


@njit(cache=True)
def draw_contract(state):
    n = state[H_POOLN]
    if n > 0:
        k = rng.randint(state, H_RNG, n)
        for c in range(NCON):
            if state[O_POOL + c] != 0:
                if k == 0:
                    state[O_POOL + c] = 0
                    state[H_POOLN] -= 1
                    return c
                k -= 1
        return -1
    if state[H_QLEN] == 0:
        return -1
    c = state[O_QUEUE + state[H_QHEAD]]
    state[H_QHEAD] = (state[H_QHEAD] + 1) % NCON
    state[H_QLEN] -= 1
    return c


@njit(cache=True)
def queue_push(state, c, p):
    i = (state[H_QHEAD] + state[H_QLEN]) % NCON
    state[O_QUEUE + i] = c
    state[O_QOWNER + i] = p
    state[H_QLEN] += 1


# =================================================================== contract conditions

@njit(cache=True)
def sel_match(state, b, p, so):
    """Does tile b hold a building of p matching the selector at state[so:so+SEL_W]?"""
    if b < 0 or state[O_TOWNER + b] != p:
        return False
    if state[so + 1] == 1 and state[O_TDONE + b] == 0:
        return False
    if state[so + 2] != 0 and state[O_TTYPE + b] != state[so + 2]:
        return False
    if state[so + 3] != 0 and state[O_TFLOORS + b] != state[so + 3]:
        return False
    nadj = state[so + 4]
    if nadj > 0:
        total = 1
        for _ in range(nadj):
            total *= NDIRS
        found = False
        for code in range(total):
            ok = True
            used = 0
            cc = code
            for i in range(nadj):
                d = cc % NDIRS
                cc //= NDIRS
                if (used >> d) & 1:
                    ok = False
                    break
                used |= 1 << d
                if not class_match(state, neighbour(state, b, d), state[so + 5 + i]):
                    ok = False
                    break
            if ok:
                found = True
                break
        if not found:
            return False
    kmin = state[so + 9]
    if kmin > 0:
        kinds = 0
        for d in range(NDIRS):
            q = neighbour(state, b, d)
            if q >= 0 and tclass(state, state[O_TTYPE + q]) == CLS_SPECIAL:
                kinds |= 1 << state[O_TTYPE + q]
        n = 0
        for typ in range(NTYPES):
            n += (kinds >> typ) & 1
        if n < kmin:
            return False
    if state[so + 10] != 0:
        for d in range(NDIRS):
            q = neighbour(state, b, d)
            if q < 0 or is_vacant(state, q):
                return False
    return True


@njit(cache=True)
def _cell_ok(state, x, y, code, p, so):
    t = tile_at(state, x, y)
    if t < 0:
        return False
    if code == 0:
        return True
    if code == 1:
        return not is_vacant(state, t)
    return sel_match(state, t, p, so)


@njit(cache=True)
def cond_holds(state, c, p):
    """Condition of contract c (0-based) for player p on the current board."""
    ro = O_DATA + B_COND + c * COND_W
    form = state[ro]
    param = state[ro + 1]
    m0 = ro + COND_HDR
    m1 = m0 + SEL_W
    m2 = m1 + SEL_W
    nt = state[H_NT]
    if form == F_BUILDING:
        n = 0
        for b in range(1, nt):
            if sel_match(state, b, p, m0):
                n += 1
                if n >= param:
                    return True
        return False
    if form == F_SHARE:
        cls = state[ro + 2]
        nm = 0
        for i in range(3):
            if state[m0 + i * SEL_W] != 0:
                nm += 1
        for t in range(nt):
            if not class_match(state, t, cls):
                continue
            # (tile_at, not neighbour(state, t, <constant>): one specialisation per constant)
            tx = state[O_TX + t]
            ty = state[O_TY + t]
            nb0 = tile_at(state, tx, ty + 1)
            nb1 = tile_at(state, tx + 1, ty)
            nb2 = tile_at(state, tx, ty - 1)
            nb3 = tile_at(state, tx - 1, ty)
            total = 1
            for _ in range(nm):
                total *= NDIRS
            for code in range(total):
                cc = code
                used = 0
                ok = True
                for i in range(nm):
                    d = cc % NDIRS
                    cc //= NDIRS
                    if (used >> d) & 1:
                        ok = False
                        break
                    used |= 1 << d
                    b = nb0 if d == 0 else (nb1 if d == 1 else (nb2 if d == 2 else nb3))
                    if not sel_match(state, b, p, m0 + i * SEL_W):
                        ok = False
                        break
                if ok:
                    return True
        return False
    if form == F_TOUCHING:
        for b in range(1, nt):
            if not sel_match(state, b, p, m0):
                continue
            for d in range(NDIRS):
                if sel_match(state, neighbour(state, b, d), p, m1):
                    return True
        return False
    if form == F_LINE:
        for b in range(1, nt):
            if not sel_match(state, b, p, m0):
                continue
            x = state[O_TX + b]
            y = state[O_TY + b]
            for d in range(2):   # N and E runs
                k = 1
                while k < param and sel_match(state, tile_at(state, x + k * DX[d], y + k * DY[d]), p, m0):
                    k += 1
                if k >= param:
                    return True
        return False
    if form == F_SQUARE:
        code = state[ro + 3]
        has_centre = state[ro + 4] != 0 and param % 2 == 1
        for t in range(nt):
            x0 = state[O_TX + t]
            y0 = state[O_TY + t]
            ok = True
            for i in range(param):
                for j in range(param):
                    if not _cell_ok(state, x0 + i, y0 + j, code, p, m0):
                        ok = False
                        break
                if not ok:
                    break
            if ok and has_centre:
                h = param // 2
                ok = sel_match(state, tile_at(state, x0 + h, y0 + h), p, m1)
            if ok:
                return True
        return False
    return False


# =================================================================== legality

@njit(cache=True)
def can_build(state, p, t):
    if state[O_SUPPLY + p] < 1:
        return False
    typ = state[O_TTYPE + t]
    if tclass(state, typ) != CLS_ZONE:
        return False
    owner = state[O_TOWNER + t]
    if owner < 0:
        return state[O_U + p] < state[O_DATA + B_RULES + RU_MAXU]
    if owner != p or state[O_TDONE + t] != 0 or state[O_TRAISED + t] == state[H_TURN]:
        return False
    n = state[O_TFLOORS + t] + 1
    if typ == T_RES:
        return n <= state[O_DATA + B_RULES + RU_RESMAX] and n <= state[O_R + p] + 1
    return n <= state[O_DATA + B_RULES + RU_COMFREE] or n <= state[O_C + p] + 1


@njit(cache=True)
def can_roof(state, p, t):
    if state[O_TOWNER + t] != p or state[O_TDONE + t] != 0:
        return False
    typ = state[O_TTYPE + t]
    f = state[O_TFLOORS + t]
    if typ == T_RES:
        return f >= state[O_DATA + B_RULES + RU_RESMIN] and state[H_ROOFS] > 0
    return f >= state[O_DATA + B_RULES + RU_COMMIN] and state[H_ROOFS + 1] > 0


@njit(cache=True)
def any_action(state, p):
    if state[O_RESERVE + p] >= 1:
        return True
    if state[O_SUPPLY + p] < 1:
        return False
    for t in range(1, state[H_NT]):
        if can_build(state, p, t):
            return True
    return False


@njit(cache=True)
def any_roof(state, p):
    for t in range(1, state[H_NT]):
        if can_roof(state, p, t):
            return True
    return False


@njit(cache=True)
def is_canonical_anchor(state, a, d):
    """Target cell of (a, d) is empty and a is its lowest-index placed neighbour."""
    x = state[O_TX + a] + DX[d]
    y = state[O_TY + a] + DY[d]
    if tile_at(state, x, y) >= 0:
        return False
    for e in range(NDIRS):
        q = tile_at(state, x + DX[e], y + DY[e])
        if q >= 0 and q < a:
            return False
    return True


@njit(cache=True)
def current_player(state):
    if state[H_PHASE] == PH_OVER:
        return -1
    return state[H_CUR]


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = state[H_PHASE]
    p = state[H_CUR]
    nt = state[H_NT]
    if ph == PH_PLACE:
        h = O_HAND + 2 * p
        s1 = state[h + 1] >= 0 and state[h + 1] != state[h]
        for a in range(nt):
            for d in range(NDIRS):
                if is_canonical_anchor(state, a, d):
                    mask[A_PLACE + a * NDIRS + d] = 1
                    if s1:
                        mask[A_PLACE + PLACE_SLOT + a * NDIRS + d] = 1
    elif ph == PH_ACTION:
        if state[O_RESERVE + p] >= 1:
            mask[A_GATHER] = 1
        for t in range(1, nt):
            if can_build(state, p, t):
                mask[A_BUILD + t] = 1
    elif ph == PH_ROOF:
        for t in range(1, nt):
            if can_roof(state, p, t):
                mask[A_ROOF + t] = 1
        mask[A_STOP] = 1
    elif ph == PH_CKEEP:
        mask[A_KEEPC] = 1
        mask[A_KEEPC + 1] = 1
    elif ph == PH_TKEEP:
        mask[A_KEEPT] = 1
        if state[H_TP + 1] != state[H_TP]:
            mask[A_KEEPT + 1] = 1


# =================================================================== turn machinery

@njit(cache=True)
def place_tile(state, typ, x, y):
    t = state[H_NT]
    state[O_TX + t] = x
    state[O_TY + t] = y
    state[O_TTYPE + t] = typ
    state[O_TOWNER + t] = -1
    state[O_TFLOORS + t] = 0
    state[O_TDONE + t] = 0
    state[O_TRAISED + t] = -1
    state[O_TSCORE + t] = 0
    state[O_GRID + (y + R) * W + (x + R)] = t
    state[H_NT] = t + 1
    return t


@njit(cache=True)
def _goal_metric(state, metric, p):
    if metric == 0:
        m = 0
        for t in range(1, state[H_NT]):
            if state[O_TOWNER + t] == p and state[O_TDONE + t] != 0 and state[O_TFLOORS + t] > m:
                m = state[O_TFLOORS + t]
        return m
    if metric == 1:
        return state[O_DCOM + p]
    if metric == 2:
        return state[O_DRES + p]
    if metric == 3:
        return state[O_NREV + p]
    if metric == 4:
        return state[O_DFLOORS + p]
    m = 0
    for t in range(1, state[H_NT]):
        if state[O_TOWNER + t] == p and state[O_TDONE + t] != 0:
            for d in range(NDIRS):
                q = neighbour(state, t, d)
                if q >= 0 and tclass(state, state[O_TTYPE + q]) == CLS_SPECIAL:
                    m += 1
                    break
    return m


@njit(cache=True)
def goal_metric(state, goal, p):
    return _goal_metric(state, state[O_DATA + B_GMETRIC + goal], p)


@njit(cache=True)
def _end_game(state):
    np_ = state[H_NP]
    for k in range(3):
        g = state[H_GOALS + k]
        best = 0
        nbest = 0
        for p in range(np_):
            m = goal_metric(state, g, p)
            if m > best:
                best = m
                nbest = 1
            elif m == best:
                nbest += 1
        if best > 0:
            share = state[O_DATA + B_GVP + g] // nbest
            for p in range(np_):
                if goal_metric(state, g, p) == best:
                    state[O_GOALVP + p] += share
                    state[O_SCORE + p] += share
    state[H_PHASE] = PH_OVER
    state[H_CUR] = -1


@njit(cache=True)
def _end_turn(state):
    if state[H_NT] >= MAX_T:
        _end_game(state)
        return
    state[H_TURN] += 1
    state[H_CUR] = (state[H_CUR] + 1) % state[H_NP]
    state[H_PHASE] = PH_PLACE


@njit(cache=True)
def _refill(state):
    p = state[H_CUR]
    n = state[H_BAGN]
    if n >= 2:
        # Always a TILE_KEEP step (a single legal choice when both tiles have the same
        # type): whether the drawer is asked must not tell the others about the pair.
        a = draw_tile(state)
        b = draw_tile(state)
        state[H_TP] = min(a, b)
        state[H_TP + 1] = max(a, b)
        state[H_PHASE] = PH_TKEEP
        return
    elif n == 1:
        hand_add(state, p, draw_tile(state))
    _end_turn(state)


@njit(cache=True)
def _reveal(state):
    """Step 4: reveal every held contract that is met; keep a snapshot of the buildings
    (public) so that :func:`met_at_last_step4` can tell later which contracts p would
    have revealed now."""
    p = state[H_CUR]
    state[O_SNAPNT + p] = state[H_NT]
    base = O_SNAP + p * 3 * MAX_T
    for t in range(state[H_NT]):          # later tiles: not on that board (O_SNAPNT)
        state[base + t] = state[O_TOWNER + t]
        state[base + MAX_T + t] = state[O_TFLOORS + t]
        state[base + 2 * MAX_T + t] = state[O_TDONE + t]
    for c in range(NCON):
        if state[O_HELD + p * NCON + c] != 0 and cond_holds(state, c, p):
            state[O_HELD + p * NCON + c] = 0
            state[O_REV + p * NCON + c] = 1
            state[O_NHELD + p] -= 1
            state[O_NREV + p] += 1
            state[O_SCORE + p] += state[O_DATA + B_CVP + c]


@njit(cache=True)
def met_at_last_step4(state, p, work, out):
    """``out[c]`` = 1 when contract c's condition held for p on the board of p's last
    step 4 (all 0 before p's first one).  ``work`` is a scratch state of ``STATE_SIZE``.
    Step 4 reveals every met card, so a card p still holds from an earlier turn has 0
    here; determinization deals p only such cards."""
    for c in range(NCON):
        out[c] = 0
    if p < 0 or p >= state[H_NP]:
        return
    nt0 = state[O_SNAPNT + p]
    if nt0 <= 0:
        return
    for i in range(STATE_SIZE):
        work[i] = state[i]
    for t in range(nt0, state[H_NT]):
        work[O_GRID + (state[O_TY + t] + R) * W + (state[O_TX + t] + R)] = -1
    work[H_NT] = nt0
    base = O_SNAP + p * 3 * MAX_T
    for t in range(nt0):
        work[O_TOWNER + t] = state[base + t]
        work[O_TFLOORS + t] = state[base + MAX_T + t]
        work[O_TDONE + t] = state[base + 2 * MAX_T + t]
    for c in range(NCON):
        if cond_holds(work, c, p):
            out[c] = 1


@njit(cache=True)
def random_matching(elig, key, match):
    """A random perfect matching of places (rows) to cards (columns) of the 0/1 matrix
    ``elig`` (square): ``match[i]`` = the card of place i; False when none exists.
    Random orders (generator ``key``, a 2-slot :mod:`kernels.rng` state), a greedy pass,
    augmenting paths (breadth first) for the places left, then random exchanges between
    two places that keep both eligible.  Used by determinization only (allocates)."""
    ns = elig.shape[0]
    corder = np.arange(ns)
    sorder = np.arange(ns)
    rng.shuffle(key, 0, corder, ns)
    rng.shuffle(key, 0, sorder, ns)
    owner = np.full(ns, -1, dtype=np.int64)      # card -> place
    for i in range(ns):
        match[i] = -1
    for si in range(ns):
        s = sorder[si]
        for ci in range(ns):
            c = corder[ci]
            if elig[s, c] != 0 and owner[c] < 0:
                owner[c] = s
                match[s] = c
                break
    came = np.empty(ns, dtype=np.int64)
    queue = np.empty(ns, dtype=np.int64)
    seen = np.zeros(ns, dtype=np.bool_)
    for si in range(ns):
        s0 = sorder[si]
        if match[s0] >= 0:
            continue
        for c in range(ns):
            seen[c] = False
        head = 0
        tail = 1
        queue[0] = s0
        found = -1
        while head < tail and found < 0:
            s = queue[head]
            head += 1
            for ci in range(ns):
                c = corder[ci]
                if elig[s, c] != 0 and not seen[c]:
                    seen[c] = True
                    came[c] = s
                    if owner[c] < 0:
                        found = c
                        break
                    queue[tail] = owner[c]
                    tail += 1
        if found < 0:
            return False
        c = found
        while True:
            s = came[c]
            nxt = match[s]
            match[s] = c
            owner[c] = s
            if s == s0:
                break
            c = nxt
    for _ in range(4 * ns):
        i = rng.randint(key, 0, ns)
        j = rng.randint(key, 0, ns)
        ci = match[i]
        cj = match[j]
        if elig[i, cj] != 0 and elig[j, ci] != 0:
            match[i] = cj
            match[j] = ci
    return True


@njit(cache=True)
def deal_contracts(state, observer, key, work):
    """Determinization of the contracts for ``observer`` (see ``envs.expancity``): the
    other seats' unrevealed contracts, another seat's drawn pair, the never-drawn pool and
    the bottom-of-deck places others filled are re-dealt among themselves at random
    (generator ``key``), with cards the observer saw kept out of the pool and a seat's
    contracts from earlier turns limited to cards not met at its last step 4; then each
    other seat's record of seen cards is rebuilt from the new deal.  ``work`` is scratch
    (``STATE_SIZE``).  False when no consistent deal exists (never for a real game)."""
    np_ = state[H_NP]
    if observer < 0 or observer >= np_:
        return False
    cur = state[H_CUR]
    ph = state[H_PHASE]
    cpair = ph == PH_CKEEP and cur != observer
    # the cards to re-deal, in canonical (sorted) order
    in_set = np.zeros(NCON, dtype=np.bool_)
    for c in range(NCON):
        if state[O_POOL + c] != 0:
            in_set[c] = True
        for p in range(np_):
            if p != observer and state[O_HELD + p * NCON + c] != 0:
                in_set[c] = True
    head = state[H_QHEAD]
    qlen = state[H_QLEN]
    for i in range(qlen):
        j = (head + i) % NCON
        if state[O_QOWNER + j] != observer:
            in_set[state[O_QUEUE + j]] = True
    if cpair:
        in_set[state[H_CP]] = True
        in_set[state[H_CP + 1]] = True
    cards = np.flatnonzero(in_set)
    ns = cards.shape[0]
    # places in blocks: pool, each other seat's hand, the queue places, the pair
    elig = np.ones((ns, ns), dtype=np.int8)
    npool = state[H_POOLN]
    for i in range(npool):
        for k in range(ns):
            if state[O_SEEN + observer * NCON + cards[k]] != 0:
                elig[i, k] = 0
    at = npool
    met = np.zeros(NCON, dtype=np.int64)
    nheld = np.zeros(MAX_P, dtype=np.int64)
    for p in range(np_):
        if p == observer:
            continue
        n = 0
        for c in range(NCON):
            n += state[O_HELD + p * NCON + c]
        nheld[p] = n
        fresh = state[H_DRAWN] if (ph == PH_CKEEP and cur == p) else 0
        if fresh > n:
            fresh = n
        if n > fresh:
            met_at_last_step4(state, p, work, met)
        for i in range(at + fresh, at + n):
            for k in range(ns):
                if met[cards[k]] != 0:
                    elig[i, k] = 0
        at += n
    match = np.empty(ns, dtype=np.int64)
    if not random_matching(elig, key, match):
        return False
    # write the deal
    for c in range(NCON):
        state[O_POOL + c] = 0
        for p in range(np_):
            if p != observer:
                state[O_HELD + p * NCON + c] = 0
    for i in range(npool):
        state[O_POOL + cards[match[i]]] = 1
    at = npool
    for p in range(np_):
        if p == observer:
            continue
        for i in range(at, at + nheld[p]):
            state[O_HELD + p * NCON + cards[match[i]]] = 1
        at += nheld[p]
    for i in range(qlen):
        j = (head + i) % NCON
        if state[O_QOWNER + j] != observer:
            state[O_QUEUE + j] = cards[match[at]]
            at += 1
    if cpair:
        state[H_CP] = cards[match[at]]
        state[H_CP + 1] = cards[match[at + 1]]
    # what each other seat has seen: what it holds, revealed, put at the bottom, is choosing
    for p in range(np_):
        if p == observer:
            continue
        for c in range(NCON):
            state[O_SEEN + p * NCON + c] = 1 if (state[O_HELD + p * NCON + c] != 0
                                                 or state[O_REV + p * NCON + c] != 0) else 0
    for i in range(qlen):
        j = (head + i) % NCON
        q = state[O_QOWNER + j]
        if q != observer:
            state[O_SEEN + q * NCON + state[O_QUEUE + j]] = 1
    if cpair:
        state[O_SEEN + cur * NCON + state[H_CP]] = 1
        state[O_SEEN + cur * NCON + state[H_CP + 1]] = 1
    return True


@njit(cache=True)
def _after_roofing(state):
    if state[H_PEND] > 0:
        p = state[H_CUR]
        for i in range(2):
            c = draw_contract(state)
            state[H_CP + i] = c
            state[O_SEEN + p * NCON + c] = 1
        state[H_PHASE] = PH_CKEEP
        return
    _reveal(state)
    _refill(state)


@njit(cache=True)
def _enter_roof(state):
    if any_roof(state, state[H_CUR]):
        state[H_PHASE] = PH_ROOF
    else:
        _after_roofing(state)


@njit(cache=True)
def _continue_actions(state):
    p = state[H_CUR]
    if state[H_ACTLEFT] > 0 and any_action(state, p):
        state[H_PHASE] = PH_ACTION
    else:
        state[H_ACTLEFT] = 0
        _enter_roof(state)


@njit(cache=True)
def roof_building(state, p, t):
    """Complete building t of p: score it by the formula and update p's records."""
    typ = state[O_TTYPE + t]
    kind = 0 if typ == T_RES else 1
    f = state[O_TFLOORS + t]
    sc = f * per_floor_at(state, t, kind)
    state[O_TDONE + t] = 1
    state[O_TSCORE + t] = sc
    state[O_SCORE + p] += sc
    state[H_ROOFS + kind] -= 1
    state[O_U + p] -= 1
    state[O_DFLOORS + p] += f
    if kind == 0:
        state[O_DRES + p] += 1
        if f > state[O_R + p]:
            state[O_R + p] = f
    else:
        state[O_DCOM + p] += 1
        if f > state[O_C + p]:
            state[O_C + p] = f
    return sc


@njit(cache=True)
def step(state, action):
    p = state[H_CUR]
    ph = state[H_PHASE]
    if ph == PH_PLACE:
        s = action // PLACE_SLOT
        r = action % PLACE_SLOT
        a = r // NDIRS
        d = r % NDIRS
        h = O_HAND + 2 * p
        typ = state[h + s]
        if s == 0:
            state[h] = state[h + 1]
        state[h + 1] = -1
        place_tile(state, typ, state[O_TX + a] + DX[d], state[O_TY + a] + DY[d])
        state[H_ACTLEFT] = state[O_DATA + B_RULES + RU_ACTIONS]
        state[H_PEND] = 0
        state[H_DRAWN] = 0
        _continue_actions(state)
    elif ph == PH_ACTION:
        if action == A_GATHER:
            state[O_RESERVE + p] -= 1
            state[O_SUPPLY + p] += 1
        else:
            t = action - A_BUILD
            state[O_SUPPLY + p] -= 1
            if state[O_TOWNER + t] < 0:
                state[O_TOWNER + t] = p
                state[O_TFLOORS + t] = 1
                state[O_U + p] += 1
            else:
                state[O_TFLOORS + t] += 1
            state[O_TRAISED + t] = state[H_TURN]
        state[H_ACTLEFT] -= 1
        _continue_actions(state)
    elif ph == PH_ROOF:
        if action == A_STOP:
            _after_roofing(state)
        else:
            roof_building(state, p, action - A_ROOF)
            state[H_PEND] += 1
            if any_roof(state, p):
                return
            _after_roofing(state)
    elif ph == PH_CKEEP:
        i = action - A_KEEPC
        keep = state[H_CP + i]
        other = state[H_CP + 1 - i]
        state[O_HELD + p * NCON + keep] = 1
        state[O_NHELD + p] += 1
        queue_push(state, other, p)
        state[H_CP] = -1
        state[H_CP + 1] = -1
        state[H_PEND] -= 1
        state[H_DRAWN] += 1
        _after_roofing(state)
    elif ph == PH_TKEEP:
        i = action - A_KEEPT
        hand_add(state, p, state[H_TP + i])
        return_tile(state, state[H_TP + 1 - i])
        state[H_TP] = -1
        state[H_TP + 1] = -1
        _end_turn(state)


@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    for i in range(BLOB_SIZE):
        state[O_DATA + i] = config[CFG_BLOB + i]
    for i in range(W * W):
        state[O_GRID + i] = -1
    np_ = config[CFG_NP]
    state[H_NP] = np_
    state[H_WIN] = config[CFG_WIN]
    rng.seed_rng(state, H_RNG, seed)
    for i in range(MAX_T):
        state[O_TOWNER + i] = -1
        state[O_TRAISED + i] = -1
        state[O_TTYPE + i] = -1
    for i in range(2 * MAX_P):
        state[O_HAND + i] = -1
    state[H_CP] = -1
    state[H_CP + 1] = -1
    state[H_TP] = -1
    state[H_TP + 1] = -1
    state[H_ROOFS] = state[O_DATA + B_RULES + RU_ROOFRES]
    state[H_ROOFS + 1] = state[O_DATA + B_RULES + RU_ROOFCOM]
    for typ in range(NTYPES):
        state[O_BAG + typ] = state[O_DATA + B_COUNT + typ]
        state[H_BAGN] += state[O_DATA + B_COUNT + typ]
    for c in range(NCON):
        state[O_POOL + c] = 1
    state[H_POOLN] = NCON
    for p in range(np_):
        state[O_SUPPLY + p] = state[O_DATA + B_RULES + RU_SUPPLY]
        state[O_RESERVE + p] = state[O_DATA + B_RULES + RU_RESERVE]
    origin = state[H_NT]           # 0, as a run-time value: no specialisation on constants
    place_tile(state, origin + T_CITY_HALL, origin, origin)
    for p in range(np_):
        for _ in range(state[O_DATA + B_RULES + RU_HAND]):
            hand_add(state, p, draw_tile(state))
    # goals: given (config) or 3 of the 6 at random
    if config[CFG_GOALS] >= 0:
        for k in range(3):
            state[H_GOALS + k] = config[CFG_GOALS + k]
    else:
        tmp = np.arange(NGOALS)
        rng.shuffle(state, H_RNG, tmp, NGOALS)
        for k in range(3):
            state[H_GOALS + k] = tmp[k]
    state[H_TURN] = 1
    state[H_CUR] = state[O_DATA + B_RULES + RU_FIRST] % np_
    state[H_PHASE] = PH_PLACE


@njit(cache=True)
def scores(state, out):
    for p in range(state[H_NP]):
        out[p] = state[O_SCORE + p]


@njit(cache=True)
def ranks(state, out):
    np_ = state[H_NP]
    for p in range(np_):
        r = 1
        sp = state[O_SCORE + p]
        bp = state[O_DRES + p] + state[O_DCOM + p]
        for q in range(np_):
            sq = state[O_SCORE + q]
            bq = state[O_DRES + q] + state[O_DCOM + q]
            if sq > sp or (sq == sp and bq > bp):
                r += 1
        out[p] = r


# =================================================================== observation

# Column offsets of every observation block.  ``envs.expancity`` builds the layout and the
# bounds from these names only, so a new column is added here and nowhere else.
# tile table row
FT_PLACED = 0
FT_X = 1
FT_Y = 2
FT_TYPE = 3                                 # [12] one-hot
FT_HAS_BUILDING = FT_TYPE + NTYPES          # 15
FT_OWNER = FT_HAS_BUILDING + 1              # [4] relative seat one-hot
FT_FLOORS = FT_OWNER + MAX_P                # 20
FT_DONE = FT_FLOORS + 1
FT_RAISED = FT_DONE + 1
FT_SCORE = FT_RAISED + 1
FT_VACANT = FT_SCORE + 1
F_TILE = FT_VACANT + 1                      # 25
# player row
FP_SCORE = 0
FP_SUPPLY = 1
FP_RESERVE = 2
FP_U = 3
FP_R = 4
FP_C = 5
FP_DRES = 6
FP_DCOM = 7
FP_DFLOORS = 8
FP_NHELD = 9
FP_NREV = 10
FP_HAND = 11
FP_ACTIVE = 12
F_PLAYER = FP_ACTIVE + 1                    # 13, then the 50 revealed-contract bits
FP_REVEALED = F_PLAYER
# public globals
G_PHASE = 0                                 # [6] one-hot
G_ACTLEFT = G_PHASE + len(PHASE_NAMES)      # 6
G_TURN = G_ACTLEFT + 1
G_BAG = G_TURN + 1
G_DECK = G_BAG + 1
G_ROOFS = G_DECK + 1                        # [2] res, com
G_GOALS = G_ROOFS + 2                       # [6]
G_UNSEEN = G_GOALS + NGOALS                 # [12]
G_PEND = G_UNSEEN + NTYPES                  # contract draws still owed this turn
OBS_GLOBAL = G_PEND + 1                     # 31
# private block
P_HAND = 0                                  # [2, 12]
P_HELD = P_HAND + 2 * NTYPES                # [50]
P_CPAIR = P_HELD + NCON                     # [2, 50]
P_TPAIR = P_CPAIR + 2 * NCON                # [2, 12]
P_BOTTOM = P_TPAIR + 2 * NTYPES             # [50] own cards still at the bottom of the deck
OBS_PRIVATE = P_BOTTOM + NCON               # 248

OBS_TILES = MAX_T * F_TILE                  # 1525
OBS_PLAYERS = MAX_P * (F_PLAYER + NCON)     # 252
O_OBS_TILES = 0
O_OBS_PLAYERS = O_OBS_TILES + OBS_TILES
O_OBS_GLOBAL = O_OBS_PLAYERS + OBS_PLAYERS
O_OBS_PRIVATE = O_OBS_GLOBAL + OBS_GLOBAL
OBS_SIZE = O_OBS_PRIVATE + OBS_PRIVATE      # without the optional spatial crop
O_OBS_WINDOW = OBS_SIZE                     # crop: outside flag, centre x, y, then planes
W_OUTSIDE = 0
W_CX = 1
W_CY = 2
W_INFO = 3
WIN_PLANES = ("residential", "commercial", "special", "city_hall", "mod_residential",
              "mod_commercial", "owner_0", "owner_1", "owner_2", "owner_3", "floors",
              "completed", "vacant", "legal_cell")
N_WIN_PLANES = len(WIN_PLANES)
WP_MOD_RES = 4
WP_MOD_COM = 5
WP_OWNER = 6
WP_FLOORS = 10
WP_DONE = 11
WP_VACANT = 12
WP_LEGAL = 13


def obs_size(obs_window):
    return OBS_SIZE + (W_INFO + N_WIN_PLANES * obs_window * obs_window if obs_window else 0)


@njit(cache=True)
def observe(state, player, out):
    for i in range(out.shape[0]):
        out[i] = 0.0
    np_ = state[H_NP]
    if player < 0 or player >= np_:
        return
    nt = state[H_NT]
    turn = state[H_TURN]
    # tile table
    for t in range(nt):
        o = O_OBS_TILES + t * F_TILE
        out[o + FT_PLACED] = 1.0
        out[o + FT_X] = state[O_TX + t]
        out[o + FT_Y] = state[O_TY + t]
        out[o + FT_TYPE + state[O_TTYPE + t]] = 1.0
        own = state[O_TOWNER + t]
        if own >= 0:
            out[o + FT_HAS_BUILDING] = 1.0
            out[o + FT_OWNER + (own - player) % np_] = 1.0
            out[o + FT_FLOORS] = state[O_TFLOORS + t]
            out[o + FT_DONE] = state[O_TDONE + t]
            out[o + FT_RAISED] = 1.0 if state[O_TRAISED + t] == turn else 0.0
            out[o + FT_SCORE] = state[O_TSCORE + t]
        elif tclass(state, state[O_TTYPE + t]) == CLS_ZONE:
            out[o + FT_VACANT] = 1.0
    # players, rotated so the observer is row 0
    for r in range(np_):
        p = (player + r) % np_
        o = O_OBS_PLAYERS + r * (F_PLAYER + NCON)
        out[o + FP_SCORE] = state[O_SCORE + p]
        out[o + FP_SUPPLY] = state[O_SUPPLY + p]
        out[o + FP_RESERVE] = state[O_RESERVE + p]
        out[o + FP_U] = state[O_U + p]
        out[o + FP_R] = state[O_R + p]
        out[o + FP_C] = state[O_C + p]
        out[o + FP_DRES] = state[O_DRES + p]
        out[o + FP_DCOM] = state[O_DCOM + p]
        out[o + FP_DFLOORS] = state[O_DFLOORS + p]
        out[o + FP_NHELD] = state[O_NHELD + p]
        out[o + FP_NREV] = state[O_NREV + p]
        hs = 0
        for s in range(2):
            if state[O_HAND + 2 * p + s] >= 0:
                hs += 1
        out[o + FP_HAND] = hs
        out[o + FP_ACTIVE] = 1.0 if (state[H_PHASE] != PH_OVER and state[H_CUR] == p) else 0.0
        for c in range(NCON):
            out[o + FP_REVEALED + c] = state[O_REV + p * NCON + c]
    # public globals
    o = O_OBS_GLOBAL
    ph = state[H_PHASE]
    out[o + G_PHASE + ph] = 1.0
    out[o + G_ACTLEFT] = state[H_ACTLEFT] if ph == PH_ACTION else 0
    out[o + G_TURN] = turn
    out[o + G_BAG] = state[H_BAGN]
    out[o + G_DECK] = state[H_POOLN] + state[H_QLEN]
    out[o + G_ROOFS] = state[H_ROOFS]
    out[o + G_ROOFS + 1] = state[H_ROOFS + 1]
    for k in range(3):
        out[o + G_GOALS + state[H_GOALS + k]] = 1.0
    for typ in range(NTYPES):
        out[o + G_UNSEEN + typ] = state[O_DATA + B_COUNT + typ]
    for t in range(1, nt):
        out[o + G_UNSEEN + state[O_TTYPE + t]] -= 1
    for s in range(2):
        typ = state[O_HAND + 2 * player + s]
        if typ >= 0:
            out[o + G_UNSEEN + typ] -= 1
    # buildings roofed this turn (ROOF) / draws left (CONTRACT_KEEP): public, 0 otherwise
    out[o + G_PEND] = state[H_PEND] if (ph == PH_ROOF or ph == PH_CKEEP) else 0
    # private
    o = O_OBS_PRIVATE
    for s in range(2):
        typ = state[O_HAND + 2 * player + s]
        if typ >= 0:
            out[o + P_HAND + s * NTYPES + typ] = 1.0
    for c in range(NCON):
        out[o + P_HELD + c] = state[O_HELD + player * NCON + c]
    mine = state[H_CUR] == player
    if mine and ph == PH_CKEEP:
        out[o + P_CPAIR + state[H_CP]] = 1.0
        out[o + P_CPAIR + NCON + state[H_CP + 1]] = 1.0
    if mine and ph == PH_TKEEP:
        out[o + P_TPAIR + state[H_TP]] = 1.0
        out[o + P_TPAIR + NTYPES + state[H_TP + 1]] = 1.0
        # the pair is out of the bag and seen by its drawer: not "unseen" for it
        out[O_OBS_GLOBAL + G_UNSEEN + state[H_TP]] -= 1
        out[O_OBS_GLOBAL + G_UNSEEN + state[H_TP + 1]] -= 1
    head = state[H_QHEAD]
    for i in range(state[H_QLEN]):
        j = (head + i) % NCON
        if state[O_QOWNER + j] == player:
            out[o + P_BOTTOM + state[O_QUEUE + j]] = 1.0
    if state[H_WIN] > 0:
        _observe_window(state, player, out)


@njit(cache=True)
def _observe_window(state, player, out):
    """K x K crop centred on the centre of the city's bounding box (row 0 = north)."""
    win = state[H_WIN]
    np_ = state[H_NP]
    nt = state[H_NT]
    xmin = state[O_TX]
    xmax = xmin
    ymin = state[O_TY]
    ymax = ymin
    for t in range(1, nt):
        xmin = min(xmin, state[O_TX + t])
        xmax = max(xmax, state[O_TX + t])
        ymin = min(ymin, state[O_TY + t])
        ymax = max(ymax, state[O_TY + t])
    cx = (xmin + xmax) // 2
    cy = (ymin + ymax) // 2
    h = win // 2
    o = O_OBS_WINDOW
    out[o + W_OUTSIDE] = 1.0 if (xmin < cx - h or xmax > cx + h or ymin < cy - h or ymax > cy + h) else 0.0
    out[o + W_CX] = cx
    out[o + W_CY] = cy
    o += W_INFO
    ps = win * win
    for j in range(win):
        y = cy + h - j
        for i in range(win):
            x = cx - h + i
            c = o + j * win + i
            t = tile_at(state, x, y)
            if t < 0:
                for d in range(NDIRS):
                    if tile_at(state, x + DX[d], y + DY[d]) >= 0:
                        out[c + WP_LEGAL * ps] = 1.0
                        break
                continue
            typ = state[O_TTYPE + t]
            cls = tclass(state, typ)
            if typ == T_RES:
                out[c] = 1.0
            elif typ == T_COM:
                out[c + ps] = 1.0
            elif cls == CLS_SPECIAL:
                out[c + 2 * ps] = 1.0
            else:
                out[c + 3 * ps] = 1.0
            out[c + WP_MOD_RES * ps] = state[O_DATA + B_MOD + 2 * typ]
            out[c + WP_MOD_COM * ps] = state[O_DATA + B_MOD + 2 * typ + 1]
            own = state[O_TOWNER + t]
            if own >= 0:
                out[c + (WP_OWNER + (own - player) % np_) * ps] = 1.0
                out[c + WP_FLOORS * ps] = state[O_TFLOORS + t]
                out[c + WP_DONE * ps] = state[O_TDONE + t]
            elif cls == CLS_ZONE:
                out[c + WP_VACANT * ps] = 1.0


@njit(cache=True)
def potential(state, p):
    """Score p's unfinished buildings would get if roofed now (commercial ones below the
    completion height counted at that height): a positional term for greedy baselines."""
    v = 0
    for t in range(1, state[H_NT]):
        if state[O_TOWNER + t] == p and state[O_TDONE + t] == 0:
            kind = 0 if state[O_TTYPE + t] == T_RES else 1
            f = state[O_TFLOORS + t]
            if kind == 1 and f < state[O_DATA + B_RULES + RU_COMMIN]:
                f = state[O_DATA + B_RULES + RU_COMMIN]
            v += f * per_floor_at(state, t, kind)
    return v
