"""Expancity rules kernel (numba).

Rules: ``docs/rules/expancity.md`` (Expancity, Alex Cutler 2018; Korean edition).  The
whole game lives in one flat ``int64`` state array declared field by field in ``STATE``
(:class:`kernels.layout.Layout`; print ``STATE.describe()`` for the offsets).  The game's
tables (tile counts, special-tile modifiers, rule numbers, the 50 contract conditions and
the 6 goals) are checked (:func:`check_data`) and compiled from
``kernels/data/expancity.yaml`` by :func:`compile_data` into an int ``blob`` (declared in
``DATA_BLOB``) that ``init`` copies into the state, so a corrected data file (the
``data_path`` option) needs no code change and no recompile.

Action encoding (616 actions, blocks declared in ``ACTIONS``; see the adapter's docstring):

* ``place``         ``0..487``    PLACE(slot s, anchor tile a, dir d) = s*244 + a*4 + d
  (d: 0 N, 1 E, 2 S, 3 W)
* ``gather``        ``488``
* ``build``         ``489..549``  BUILD(t) = 489 + t
* ``roof``          ``550..610``  ROOF(t) = 550 + t
* ``stop``          ``611``       STOP roofing
* ``keep_contract`` ``612..613``  keep contract 0 / 1 of the drawn pair
* ``keep_tile``     ``614..615``  keep tile 0 / 1 of the drawn pair (sorted by type id);
  ``615`` is masked when both tiles have the same type (the step is still asked, see below)

Turn machine (phases ``PH_*``): PLACE, up to 3 ACTION steps, ROOF (skipped when nothing can
be roofed), one CONTRACT_KEEP per roofed building, automatic reveal (step 4), and a
TILE_KEEP step whenever the bag held 2 or more tiles -- also when the two drawn tiles have
the same type, so whether the drawer is asked depends on the public bag size only.

Observation: declared piece by piece, with its bounds, by :func:`observation_layout`
(a :class:`~kernels.layout.Layout` per configuration, cached: bounds depend on the data
file and the crop size on ``obs_window``).  The rows of the ``tiles``, ``players`` and
``globals`` parts are records declared in ``TILE_ROW``, ``PLAYER_ROW`` and ``GLOBAL_ROW``;
``observe`` writes at the offsets read from these declarations (``OBS_*``, ``FT_*``,
``FP_*``, ``G_*``, ``W_*``, ``WP_*``).  The adapter's ``observation_layout`` and
``observation_bounds`` are ``observation_layout(config).parts()`` / ``.bounds()``.

Hidden information: :func:`reseed` re-keys the generator (the bag and the never-drawn
contracts are kept as counts / sets, so every future draw changes and nothing seen
does).  :func:`determinize` re-deals, for one observer, everything that observer has not
seen: the tiles (bag, the other hands, another seat's drawn pair) and the contracts (the
other seats' unrevealed cards, another seat's drawn pair, the never-drawn pool, the
bottom-of-deck places the others filled), consistently with what it knows.
Guarantee: both re-draws are functions of the seed and of the observer's information
only -- the hidden items are gathered into SORTED pools (tile types in type order, cards
in id order) before the seeded shuffle / matching, so two states that differ only in
what the observer cannot see give the same determinization for the same seed (a search
depends on nothing it could not know).  A determinized copy is itself a consistent game
and determinizes again.

Version history
    v0: initial.
    v0 (issues 14/15): ``PENDING_DRAWS`` (contract draws still owed this turn; during
    ROOF the number of buildings roofed so far, observed as ``G_PENDING_DRAWS``) and the
    private ``bottom_cards`` bits (own cards still at the bottom of the deck); TILE_KEEP
    asked whenever the bag held 2 or more tiles; ``SNAPSHOT_TILES`` / ``SNAPSHOT`` keep
    the buildings at each seat's last step 4 and ``DRAWN_THIS_TURN`` the draws made this
    turn (both public; :func:`_met_at_last_step4` tells determinization which contracts
    a seat would have revealed); the data file is checked field by field at load;
    ``observe`` writes zeros for a seat outside the game.
    v0 ("one way to write a game"): declared state / observation / action layouts, named
    state fields, determinization in the kernel; no rule or observation change.
    Rules revision 2 ("Rules, third pass", ruling 21 revised): no final tie-break --
    players tied on the highest final VP share the win; :func:`ranks` is
    :func:`kernels.outcome.ranks_by_value` of the final VP (completed buildings no longer
    break ties).
"""
import numpy as np
from numba import njit

from kernels import data_files
from kernels import rng
from kernels.outcome import ranks_lexicographic

# Sections, in the order every kernel file keeps: data (the tables of
# kernels/data/<game>.yaml) -> layouts (actions, state, config) -> helpers -> rules (the
# game's own parts) -> contract (init, current_player, legal_mask, step, advance, scores,
# ranks) -> observation (its layout, observe) -> hidden information (reseed, determinize)
# -> greedy heuristic (potential).
from kernels.layout import ActionBlocks, Layout

GAME = "expancity"

# ----------------------------------------------------------------- dimensions
MAX_SEATS = 4
MAX_TILES = 61        # City Hall + 60 bag tiles
NUM_TYPES = 12        # tile types
NUM_CONTRACTS = 50    # contract cards
NUM_GOALS = 6         # goal cards
GOALS_IN_PLAY = 3
HAND_SLOTS = 2
GRID_RADIUS = 60                  # proven sufficient (rules ruling 3)
GRID_SIDE = 2 * GRID_RADIUS + 1   # 121
NUM_DIRS = 4
DX = np.array([0, 1, 0, -1], dtype=np.int64)   # N E S W
DY = np.array([1, 0, -1, 0], dtype=np.int64)
NO_TILE = np.int64(-1)   # an empty cell; int64, not a literal -1, so _set_cell compiles once

# type ids (fixed by the data schema)
T_CITY_HALL = 0
T_RES = 1
T_COM = 2
CLS_CIVIC = 0
CLS_ZONE = 1
CLS_SPECIAL = 2
CLASS_SPECIAL_ANY = 12   # tile class "special" in contract conditions
# building kinds (index of the per-floor modifier, of the roofs left)
KIND_RES = 0
KIND_COM = 1

# ----------------------------------------------------------------- actions
PLACE_SLOT = MAX_TILES * NUM_DIRS          # 244 PLACE actions per hand slot
ACTIONS = ActionBlocks("expancity actions", [
    ("place", HAND_SLOTS * PLACE_SLOT),   # slot s, anchor tile a, direction d
    ("gather", 1),
    ("build", MAX_TILES),                     # on tile t
    ("roof", MAX_TILES),                      # building on tile t
    ("stop", 1),                          # stop roofing
    ("keep_contract", 2),                 # keep contract 0 / 1 of the drawn pair
    ("keep_tile", 2),                     # keep tile 0 / 1 of the drawn pair
])
A_PLACE = ACTIONS.offset("place")
A_GATHER = ACTIONS.offset("gather")
A_BUILD = ACTIONS.offset("build")
A_ROOF = ACTIONS.offset("roof")
A_STOP = ACTIONS.offset("stop")
A_KEEP_CONTRACT = ACTIONS.offset("keep_contract")
A_KEEP_TILE = ACTIONS.offset("keep_tile")
NUM_ACTIONS = ACTIONS.num_actions

# ----------------------------------------------------------------- phases
PHASE_NAMES = ("place", "action", "roof", "contract_keep", "tile_keep", "game_over")
PH_PLACE = PHASE_NAMES.index("place")
PH_ACTION = PHASE_NAMES.index("action")
PH_ROOF = PHASE_NAMES.index("roof")
PH_CONTRACT_KEEP = PHASE_NAMES.index("contract_keep")
PH_TILE_KEEP = PHASE_NAMES.index("tile_keep")
PH_GAME_OVER = PHASE_NAMES.index("game_over")

# ----------------------------------------------------------------- data blob layout
RULE_KEYS = ("actions_per_turn", "max_unfinished_buildings", "residential_max_floors",
             "commercial_free_floors", "residential_min_floors_to_complete",
             "commercial_min_floors_to_complete", "base_points_per_floor",
             "vacant_lot_per_floor", "supply_start", "reserve_start", "roofs_residential",
             "roofs_commercial", "hand_tiles", "first_player")
RU_ACTIONS = RULE_KEYS.index("actions_per_turn")
RU_MAX_UNFINISHED = RULE_KEYS.index("max_unfinished_buildings")
RU_RES_MAX_FLOORS = RULE_KEYS.index("residential_max_floors")
RU_COM_FREE_FLOORS = RULE_KEYS.index("commercial_free_floors")
RU_RES_MIN_FLOORS = RULE_KEYS.index("residential_min_floors_to_complete")
RU_COM_MIN_FLOORS = RULE_KEYS.index("commercial_min_floors_to_complete")
RU_BASE_PER_FLOOR = RULE_KEYS.index("base_points_per_floor")
RU_VACANT_PER_FLOOR = RULE_KEYS.index("vacant_lot_per_floor")
RU_SUPPLY_START = RULE_KEYS.index("supply_start")
RU_RESERVE_START = RULE_KEYS.index("reserve_start")
RU_ROOFS_RES = RULE_KEYS.index("roofs_residential")
RU_ROOFS_COM = RULE_KEYS.index("roofs_commercial")
RU_HAND_TILES = RULE_KEYS.index("hand_tiles")
RU_FIRST_PLAYER = RULE_KEYS.index("first_player")

# One compiled contract condition: a header, then up to 3 building selectors.
SELECTOR = Layout("expancity condition selector")
SEL_PRESENT = SELECTOR.add("present")         # 1 when this selector is used
SEL_STATUS = SELECTOR.add("status")           # 0 any, 1 completed
SEL_TYPE = SELECTOR.add("type")               # 0 any, else T_RES / T_COM
SEL_FLOORS = SELECTOR.add("floors")           # 0 any, else exactly this many
SEL_NUM_ADJ = SELECTOR.add("num_adj")         # neighbours required (entries of adj)
SEL_ADJ = SELECTOR.add("adj", (NUM_DIRS,))       # tile class code of each, on distinct sides
SEL_ADJ_KINDS_MIN = SELECTOR.add("adj_kinds_min")   # distinct special kinds around, at least
SEL_ENCLOSED = SELECTOR.add("enclosed")       # no empty or vacant side
SEL_W = SELECTOR.size
MAX_MEMBERS = 3
CONDITION = Layout("expancity contract condition")
COND_FORM = CONDITION.add("form")             # F_*
COND_PARAM = CONDITION.add("param")           # count / length / square size
COND_TILE_CLASS = CONDITION.add("tile_class")  # share: the shared tile's class code
COND_CELLS = CONDITION.add("cells")           # square: CELLS_CODES, 2 = selector member 0
COND_HAS_CENTRE = CONDITION.add("has_centre")  # square: member 1 selects the centre
COND_MEMBERS = CONDITION.add("members", (MAX_MEMBERS, SEL_W))
COND_W = CONDITION.size

DATA_BLOB = Layout("expancity data blob")
B_MODIFIER = DATA_BLOB.add("modifier", (NUM_TYPES, 2))     # per-floor modifier by tile type and kind
B_TILE_COUNT = DATA_BLOB.add("tile_count", (NUM_TYPES,))   # copies in the bag
B_TILE_CLASS = DATA_BLOB.add("tile_class", (NUM_TYPES,))   # CLS_*
B_RULES = DATA_BLOB.add("rules", (len(RULE_KEYS),))     # RU_*
B_CONTRACT_VP = DATA_BLOB.add("contract_vp", (NUM_CONTRACTS,))
B_CONDITION = DATA_BLOB.add("condition", (NUM_CONTRACTS, COND_W))
B_GOAL_METRIC = DATA_BLOB.add("_goal_metric", (NUM_GOALS,))  # index in METRICS
B_GOAL_VP = DATA_BLOB.add("goal_vp", (NUM_GOALS,))
BLOB_SIZE = DATA_BLOB.size

FORMS = {"building": 0, "share": 1, "touching": 2, "line": 3, "square": 4}
F_BUILDING, F_SHARE, F_TOUCHING, F_LINE, F_SQUARE = (FORMS[f] for f in FORMS)
CELLS_CODES = {"tile": 0, "no_vacant": 1}   # 2 = selector (member 0)
CELLS_SELECTOR = 2
METRICS = ("max_floors_done", "count_done_com", "count_done_res", "contracts_revealed",
           "sum_floors_done", "count_done_adj_special")
M_MAX_FLOORS_DONE, M_COUNT_DONE_COM, M_COUNT_DONE_RES, M_CONTRACTS_REVEALED, \
    M_SUM_FLOORS_DONE, M_COUNT_DONE_ADJ_SPECIAL = range(len(METRICS))


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
    "roofs_commercial": (0, 1000), "hand_tiles": (2, 2), "first_player": (0, MAX_SEATS - 1),
}
FIXED_COMPONENTS = {"city_hall_tiles": 1, "bag_tiles": MAX_TILES - 1, "contract_cards": NUM_CONTRACTS,
                    "goal_cards": NUM_GOALS, "goal_cards_in_play": 3, "contracts_in_hand_start": 0,
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
        adj = ck.sequence(f"{path}.adj", max_len=NUM_DIRS)
        for i in range(len(adj)):
            ck.string(f"{path}.adj[{i}]", class_keys)
    if "adj_kinds_min" in sel:
        ck.integer(f"{path}.adj_kinds_min", 0, NUM_DIRS)
    if "enclosed" in sel:
        ck.boolean(f"{path}.enclosed")


def _check_condition(ck, path, class_keys):
    ck.mapping(path)
    form = ck.string(f"{path}.form", tuple(FORMS))
    if form == "building":
        ck.integer(f"{path}.count", 1, MAX_TILES, default=1)
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
        ck.integer(f"{path}.length", 1, MAX_TILES)
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
    "final_tie_break": ["shared"],
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
    tiles = ck.sequence("tile_types", length=NUM_TYPES)
    ids, keys = [], []
    for i in range(len(tiles)):
        ck.mapping(f"tile_types[{i}]")
        ids.append(ck.integer(f"tile_types[{i}].id", 0, NUM_TYPES - 1))
        keys.append(ck.string(f"tile_types[{i}].key"))
        ck.string(f"tile_types[{i}].class", TILE_CLASSES)
        ck.integer(f"tile_types[{i}].count", 0, MAX_TILES - 1)
    ck.require(sorted(ids) == list(range(NUM_TYPES)), "tile_types", f"ids must be 0..{NUM_TYPES - 1}, each once")
    ck.require(len(set(keys)) == NUM_TYPES, "tile_types", "keys must be distinct")
    by_id = {t["id"]: (i, t) for i, t in enumerate(tiles)}
    for tid, (key, cls) in enumerate((("city_hall", "civic"), ("residential", "zone"), ("commercial", "zone"))):
        i, t = by_id[tid]
        ck.require(t["key"] == key, f"tile_types[{i}].key", f"tile id {tid} must be {key!r}")
        ck.require(t["class"] == cls, f"tile_types[{i}].class", f"{key} must be of class {cls!r}")
    for tid in range(3, NUM_TYPES):
        i, t = by_id[tid]
        ck.require(t["class"] == "special", f"tile_types[{i}].class", "tile ids 3..11 are special tiles")
    i0 = by_id[0][0]
    ck.require(tiles[i0]["count"] == 0, f"tile_types[{i0}].count", "City Hall is placed at setup, not in the bag")
    ck.require(sum(t["count"] for t in tiles) == MAX_TILES - 1, "tile_types",
               f"the counts must add up to {MAX_TILES - 1} bag tiles, got {sum(t['count'] for t in tiles)}")
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
        bag = MAX_TILES - 1
        for i in range(len(rows)):
            ck.mapping(f"player_counts[{i}]")
            n = ck.integer(f"player_counts[{i}].players", 2, MAX_SEATS)
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
    cons = ck.sequence("contracts", length=NUM_CONTRACTS)
    cids = []
    for i in range(len(cons)):
        ck.mapping(f"contracts[{i}]")
        cids.append(ck.integer(f"contracts[{i}].id", 1, NUM_CONTRACTS))
        ck.string(f"contracts[{i}].name")
        ck.string(f"contracts[{i}].text")
        ck.integer(f"contracts[{i}].vp", 0, 100)
        _check_condition(ck, f"contracts[{i}].cond", class_keys)
    ck.require(sorted(cids) == list(range(1, NUM_CONTRACTS + 1)), "contracts", f"ids must be 1..{NUM_CONTRACTS}, each once")
    # goals
    goals = ck.sequence("goals", length=NUM_GOALS)
    gids = []
    for i in range(len(goals)):
        ck.mapping(f"goals[{i}]")
        gids.append(ck.string(f"goals[{i}].id"))
        ck.string(f"goals[{i}].name")
        ck.string(f"goals[{i}].metric", METRICS)
        ck.integer(f"goals[{i}].vp", 0, 100)
    ck.require(len(set(gids)) == NUM_GOALS, "goals", "ids must be distinct")
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
    row[base + SEL_PRESENT] = 1
    row[base + SEL_STATUS] = {"any": 0, "done": 1}[sel.get("status", "any")]
    row[base + SEL_TYPE] = {"any": 0, "res": T_RES, "com": T_COM}[sel.get("type", "any")]
    row[base + SEL_FLOORS] = int(sel.get("floors", 0) or 0)
    adj = list(sel.get("adj", []) or [])
    if len(adj) > NUM_DIRS:
        raise ValueError("an adj list has at most 4 entries (4 neighbours)")
    row[base + SEL_NUM_ADJ] = len(adj)
    for i, k in enumerate(adj):
        row[base + SEL_ADJ + i] = _tile_class_code(k, type_ids)
    row[base + SEL_ADJ_KINDS_MIN] = int(sel.get("adj_kinds_min", 0) or 0)
    row[base + SEL_ENCLOSED] = 1 if sel.get("enclosed", False) else 0


def _compile_condition(cond, type_ids):
    """One contract ``cond`` (condition language of rules section 6.2) -> int row."""
    row = np.zeros(COND_W, dtype=np.int64)
    form = cond["form"]
    if form not in FORMS:
        raise ValueError(f"unknown condition form {form!r}")
    row[COND_FORM] = FORMS[form]
    m = lambda i: COND_MEMBERS + i * SEL_W  # noqa: E731
    if form == "building":
        row[COND_PARAM] = int(cond.get("count", 1))
        _compile_selector(cond["sel"], type_ids, row, m(0))
    elif form == "share":
        row[COND_TILE_CLASS] = _tile_class_code(cond["tile"], type_ids)
        members = cond["members"]
        if not 1 <= len(members) <= MAX_MEMBERS:
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
        row[COND_PARAM] = int(cond["length"])
        _compile_selector(cond["sel"], type_ids, row, m(0))
    else:  # square
        row[COND_PARAM] = int(cond["size"])
        cells = cond["cells"]
        if isinstance(cells, str):
            row[COND_CELLS] = CELLS_CODES[cells]
        else:
            row[COND_CELLS] = CELLS_SELECTOR
            _compile_selector(cells, type_ids, row, m(0))
        if cond.get("centre") is not None:
            row[COND_HAS_CENTRE] = 1
            _compile_selector(cond["centre"], type_ids, row, m(1))
    return row


def compile_data(data):
    """The parsed YAML -> (blob int64[BLOB_SIZE], info dict of names for the adapter).
    The data is checked first (:func:`check_data`)."""
    check_data(data)
    blob = np.zeros(BLOB_SIZE, dtype=np.int64)
    types = sorted(data["tile_types"], key=lambda t: t["id"])
    if [t["id"] for t in types] != list(range(NUM_TYPES)):
        raise ValueError("tile_types must have ids 0..11")
    keys = [t["key"] for t in types]
    if keys[:3] != ["city_hall", "residential", "commercial"]:
        raise ValueError("tile ids 0, 1, 2 must be city_hall, residential, commercial")
    type_ids = {k: i for i, k in enumerate(keys)}
    for t in types:
        blob[B_TILE_COUNT + t["id"]] = int(t["count"])
        blob[B_TILE_CLASS + t["id"]] = {"civic": CLS_CIVIC, "zone": CLS_ZONE,
                                   "special": CLS_SPECIAL}[t["class"]]
    if int(blob[B_TILE_COUNT:B_TILE_COUNT + NUM_TYPES].sum()) != MAX_TILES - 1:
        raise ValueError("the bag must hold exactly 60 tiles (the action encoding needs it)")
    for m in data["special_modifiers"]:
        i = type_ids[m["tile"]]
        blob[B_MODIFIER + 2 * i + KIND_RES] = int(m["residential"])
        blob[B_MODIFIER + 2 * i + KIND_COM] = int(m["commercial"])
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
    if [c["id"] for c in cons] != list(range(1, NUM_CONTRACTS + 1)):
        raise ValueError("contracts must have ids 1..50")
    for j, c in enumerate(cons):
        blob[B_CONTRACT_VP + j] = int(c["vp"])
        blob[B_CONDITION + j * COND_W: B_CONDITION + (j + 1) * COND_W] = _compile_condition(c["cond"], type_ids)
    goals = data["goals"]
    if len(goals) != NUM_GOALS:
        raise ValueError("there must be 6 goals")
    for j, g in enumerate(goals):
        if g["metric"] not in METRICS:
            raise ValueError(f"unknown goal metric {g['metric']!r}")
        blob[B_GOAL_METRIC + j] = METRICS.index(g["metric"])
        blob[B_GOAL_VP + j] = int(g["vp"])
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
    cfg[CFG_NUM_PLAYERS] = num_players
    cfg[CFG_WINDOW] = obs_window
    if goals is not None:
        cfg[CFG_GOALS:CFG_GOALS + GOALS_IN_PLAY] = goals
    cfg[CFG_BLOB:] = DEFAULT_BLOB if blob is None else blob
    return cfg


def new_state():
    return np.zeros(STATE_SIZE, dtype=np.int64)


# ----------------------------------------------------------------- state layout
STATE = Layout("expancity state")
NUM_PLAYERS = STATE.add("num_players")
PHASE = STATE.add("phase")                        # PH_*
CURRENT = STATE.add("current")                    # seat to move (-1 at the end)
TURN = STATE.add("turn")                          # 1..60
ACTIONS_LEFT = STATE.add("actions_left")
NUM_TILES = STATE.add("num_tiles")                # tiles placed, City Hall included
BAG_SIZE = STATE.add("bag_size")
PENDING_DRAWS = STATE.add("pending_draws")        # contract draws still owed this turn
CONTRACT_PAIR = STATE.add("contract_pair", (2,))  # drawn contract pair (-1 none)
TILE_PAIR = STATE.add("tile_pair", (2,))          # drawn tile pair, sorted (-1 none)
ROOFS_LEFT = STATE.add("roofs_left", (2,))        # by kind: res, com
GOALS = STATE.add("goals", (GOALS_IN_PLAY,))      # goal indices in play
POOL_SIZE = STATE.add("pool_size")                # never-drawn contracts
QUEUE_HEAD = STATE.add("queue_head")              # bottom-of-deck ring buffer: first card
QUEUE_LEN = STATE.add("queue_len")                # ... and number of cards
RNG = STATE.add("rng", (rng.RNG_SLOTS,))
WINDOW_SIDE = STATE.add("window_side")            # side of the observation's crop (0 = none)
DRAWN_THIS_TURN = STATE.add("drawn_this_turn")    # contracts kept so far this turn
BLOB = STATE.add("blob", (BLOB_SIZE,))            # the compiled data (DATA_BLOB)
# one entry per tile index (placement order, City Hall 0)
TILE_X = STATE.add("tile_x", (MAX_TILES,))
TILE_Y = STATE.add("tile_y", (MAX_TILES,))
TILE_TYPE = STATE.add("tile_type", (MAX_TILES,))
TILE_OWNER = STATE.add("tile_owner", (MAX_TILES,))    # -1 no building
TILE_FLOORS = STATE.add("tile_floors", (MAX_TILES,))
TILE_DONE = STATE.add("tile_done", (MAX_TILES,))      # roofed
TILE_RAISED = STATE.add("tile_raised", (MAX_TILES,))  # turn of the last floor added (-1)
TILE_SCORE = STATE.add("tile_score", (MAX_TILES,))    # frozen score once completed
# one entry per seat
HAND = STATE.add("hand", (MAX_SEATS, HAND_SLOTS))     # tile types, sorted, -1 empty (at the end)
SUPPLY = STATE.add("supply", (MAX_SEATS,))
RESERVE = STATE.add("reserve", (MAX_SEATS,))
SCORE = STATE.add("score", (MAX_SEATS,))              # VP of buildings + contracts (+ goals at the end)
UNFINISHED = STATE.add("unfinished", (MAX_SEATS,))    # unfinished buildings (U)
TALLEST_RES = STATE.add("tallest_res", (MAX_SEATS,))  # floors of the tallest completed residential (R)
TALLEST_COM = STATE.add("tallest_com", (MAX_SEATS,))  # floors of the tallest completed commercial (C)
DONE_RES = STATE.add("done_res", (MAX_SEATS,))        # completed residential buildings
DONE_COM = STATE.add("done_com", (MAX_SEATS,))        # completed commercial buildings
DONE_FLOORS = STATE.add("done_floors", (MAX_SEATS,))  # floors of completed buildings
NUM_HELD = STATE.add("num_held", (MAX_SEATS,))        # unrevealed contracts held
NUM_REVEALED = STATE.add("num_revealed", (MAX_SEATS,))
GOAL_POINTS = STATE.add("goal_points", (MAX_SEATS,))  # VP from goals (at the end)
HELD = STATE.add("held", (MAX_SEATS, NUM_CONTRACTS))           # 1 = seat holds the card, unrevealed
REVEALED = STATE.add("revealed", (MAX_SEATS, NUM_CONTRACTS))
# contract deck: never-drawn pool (a set: its order is drawn when needed) + bottom queue
POOL = STATE.add("pool", (NUM_CONTRACTS,))                 # 1 = never drawn
QUEUE = STATE.add("queue", (NUM_CONTRACTS,))               # ring buffer of card ids put at the bottom
QUEUE_OWNER = STATE.add("queue_owner", (NUM_CONTRACTS,))   # seat that put it there
BAG = STATE.add("bag", (NUM_TYPES,))                 # tile counts in the bag
SEEN = STATE.add("seen", (MAX_SEATS, NUM_CONTRACTS))           # contracts each seat has seen in a drawn pair
# the buildings at each seat's last step 4 (public), so that a determinization knows which
# contracts that seat would have revealed then: tiles placed, then owner, floors, completed
SNAPSHOT_TILES = STATE.add("snapshot_tiles", (MAX_SEATS,))   # tiles placed then (0 = none yet)
SNAP_OWNER, SNAP_FLOORS, SNAP_DONE = range(3)         # records of a snapshot
SNAP_RECORDS = 3
SNAPSHOT = STATE.add("snapshot", (MAX_SEATS, SNAP_RECORDS, MAX_TILES))      # [seat, SNAP_*, tile]
# The grid: cell (x, y) is cell (y + GRID_RADIUS) * GRID_SIDE + x + GRID_RADIUS, holding its tile + 1 (0: empty) in
# CELL_BITS bits, CELLS_PER_WORD cells a word (see tile_at): the grid takes an eighth of
# the memory of a word a cell, and a game's whole state a third.
CELL_BITS = 8
CELLS_PER_WORD = 64 // CELL_BITS
WORD_SHIFT = 3                                    # cell >> WORD_SHIFT: its word
assert CELLS_PER_WORD == 1 << WORD_SHIFT
assert MAX_TILES + 1 < 1 << (CELL_BITS - 1)          # never the sign bit
GRID = STATE.add("grid", ((GRID_SIDE * GRID_SIDE + CELLS_PER_WORD - 1) // CELLS_PER_WORD,))
STATE_SIZE = STATE.size
SCRATCH_SIZE = STATE.scratch_size                 # 0: determinization allocates its own

# config vector handed to ``init``
CONFIG = Layout("expancity config")
CFG_NUM_PLAYERS = CONFIG.add("num_players")
CFG_GOALS = CONFIG.add("goals", (GOALS_IN_PLAY,))  # goal indices, -1 = 3 at random
CFG_WINDOW = CONFIG.add("window")                 # crop side (obs_window), 0 = none
CFG_BLOB = CONFIG.add("blob", (BLOB_SIZE,))
CONFIG_SIZE = CONFIG.size


# =================================================================== small helpers

@njit(cache=True)
def tile_at(state, x, y):
    """The tile at cell (x, y), -1 when none (or off the grid)."""
    if x < -GRID_RADIUS or x > GRID_RADIUS or y < -GRID_RADIUS or y > GRID_RADIUS:
        return -1
    cell = (y + GRID_RADIUS) * GRID_SIDE + (x + GRID_RADIUS)           # >= 0: shifts and masks, not signed division
    word = state[GRID + (cell >> WORD_SHIFT)]
    return ((word >> (CELL_BITS * (cell & (CELLS_PER_WORD - 1)))) & ((1 << CELL_BITS) - 1)) - 1


@njit(cache=True)
def _set_cell(state, x, y, t):
    """Put tile t (-1: none) at cell (x, y)."""
    cell = (y + GRID_RADIUS) * GRID_SIDE + (x + GRID_RADIUS)
    shift = CELL_BITS * (cell & (CELLS_PER_WORD - 1))
    w = GRID + (cell >> WORD_SHIFT)
    state[w] = (state[w] & ~(((1 << CELL_BITS) - 1) << shift)) | ((t + 1) << shift)


@njit(cache=True)
def _tile_class(state, typ):
    return state[BLOB + B_TILE_CLASS + typ]


@njit(cache=True)
def _is_vacant(state, t):
    return t >= 0 and _tile_class(state, state[TILE_TYPE + t]) == CLS_ZONE and state[TILE_OWNER + t] < 0


@njit(cache=True)
def _neighbour(state, t, d):
    return tile_at(state, state[TILE_X + t] + DX[d], state[TILE_Y + t] + DY[d])


@njit(cache=True)
def _class_match(state, t, cls):
    if t < 0:
        return False
    typ = state[TILE_TYPE + t]
    if cls == CLASS_SPECIAL_ANY:
        return _tile_class(state, typ) == CLS_SPECIAL
    return typ == cls


@njit(cache=True)
def _per_floor_at(state, t, kind):
    """per_floor of a building of ``kind`` (0 res, 1 com) on tile t, from the current board."""
    v = state[BLOB + B_RULES + RU_BASE_PER_FLOOR]
    for d in range(NUM_DIRS):
        q = _neighbour(state, t, d)
        if q < 0:
            continue
        v += state[BLOB + B_MODIFIER + 2 * state[TILE_TYPE + q] + kind]
        if _is_vacant(state, q):
            v += state[BLOB + B_RULES + RU_VACANT_PER_FLOOR]
    return v


# ==================================================================== random draws

@njit(cache=True)
def _draw_tile(state):
    """Take one tile from the bag at random; returns its type (-1 if empty)."""
    typ = rng.draw_from_counts(state, RNG, BAG, NUM_TYPES)
    if typ >= 0:
        state[BAG_SIZE] -= 1
    return typ


@njit(cache=True)
def _return_tile(state, typ):
    state[BAG + typ] += 1
    state[BAG_SIZE] += 1


@njit(cache=True)
def _hand_add(state, p, typ):
    h = HAND + HAND_SLOTS * p
    if state[h] < 0:
        state[h] = typ
    elif state[h + 1] < 0:
        if typ < state[h]:
            state[h + 1] = state[h]
            state[h] = typ
        else:
            state[h + 1] = typ


@njit(cache=True)
def _draw_contract(state):
    n = state[POOL_SIZE]
    if n > 0:
        k = rng.randint(state, RNG, n)
        for c in range(NUM_CONTRACTS):
            if state[POOL + c] != 0:
                if k == 0:
                    state[POOL + c] = 0
                    state[POOL_SIZE] -= 1
                    return c
                k -= 1
        return -1
    if state[QUEUE_LEN] == 0:
        return -1
    c = state[QUEUE + state[QUEUE_HEAD]]
    state[QUEUE_HEAD] = (state[QUEUE_HEAD] + 1) % NUM_CONTRACTS
    state[QUEUE_LEN] -= 1
    return c


@njit(cache=True)
def _queue_push(state, c, p):
    i = (state[QUEUE_HEAD] + state[QUEUE_LEN]) % NUM_CONTRACTS
    state[QUEUE + i] = c
    state[QUEUE_OWNER + i] = p
    state[QUEUE_LEN] += 1


# ====================================================== contract cards: conditions

@njit(cache=True)
def _sel_match(state, b, p, so):
    """Does tile b hold a building of p matching the selector at state[so:so+SEL_W]?"""
    if b < 0 or state[TILE_OWNER + b] != p:
        return False
    if state[so + SEL_STATUS] == 1 and state[TILE_DONE + b] == 0:
        return False
    if state[so + SEL_TYPE] != 0 and state[TILE_TYPE + b] != state[so + SEL_TYPE]:
        return False
    if state[so + SEL_FLOORS] != 0 and state[TILE_FLOORS + b] != state[so + SEL_FLOORS]:
        return False
    nadj = state[so + SEL_NUM_ADJ]
    if nadj > 0:
        # the sides whose neighbour each required class could be (4 bits an entry) ...
        fits = 0
        for d in range(NUM_DIRS):
            q = _neighbour(state, b, d)
            for i in range(nadj):
                if _class_match(state, q, state[so + SEL_ADJ + i]):
                    fits |= 1 << (NUM_DIRS * i + d)
        # ... then a different side for each entry
        total = 1
        for _ in range(nadj):
            total *= NUM_DIRS
        found = False
        for code in range(total):
            ok = True
            used = 0
            cc = code
            for i in range(nadj):
                d = cc % NUM_DIRS
                cc //= NUM_DIRS
                if (used >> d) & 1 or not (fits >> (NUM_DIRS * i + d)) & 1:
                    ok = False
                    break
                used |= 1 << d
            if ok:
                found = True
                break
        if not found:
            return False
    kmin = state[so + SEL_ADJ_KINDS_MIN]
    if kmin > 0:
        kinds = 0
        for d in range(NUM_DIRS):
            q = _neighbour(state, b, d)
            if q >= 0 and _tile_class(state, state[TILE_TYPE + q]) == CLS_SPECIAL:
                kinds |= 1 << state[TILE_TYPE + q]
        n = 0
        for typ in range(NUM_TYPES):
            n += (kinds >> typ) & 1
        if n < kmin:
            return False
    if state[so + SEL_ENCLOSED] != 0:
        for d in range(NUM_DIRS):
            q = _neighbour(state, b, d)
            if q < 0 or _is_vacant(state, q):
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
        return not _is_vacant(state, t)
    return _sel_match(state, t, p, so)


@njit(cache=True)
def _cond_holds(state, c, p):
    """Condition of contract c (0-based) for player p on the current board."""
    ro = BLOB + B_CONDITION + c * COND_W
    form = state[ro + COND_FORM]
    param = state[ro + COND_PARAM]
    m0 = ro + COND_MEMBERS
    m1 = m0 + SEL_W
    m2 = m1 + SEL_W
    nt = state[NUM_TILES]
    # (each loop skips the others' tiles before calling _sel_match, which would reject them:
    # most tiles are someone else's, and the call costs more than the test)
    if form == F_BUILDING:
        n = 0
        for b in range(1, nt):
            if state[TILE_OWNER + b] == p and _sel_match(state, b, p, m0):
                n += 1
                if n >= param:
                    return True
        return False
    if form == F_SHARE:
        cls = state[ro + COND_TILE_CLASS]
        nm = 0
        for i in range(MAX_MEMBERS):
            if state[m0 + i * SEL_W + SEL_PRESENT] != 0:
                nm += 1
        for t in range(nt):
            if not _class_match(state, t, cls):
                continue
            # (tile_at, not _neighbour(state, t, <constant>): one specialisation per constant)
            tx = state[TILE_X + t]
            ty = state[TILE_Y + t]
            nb0 = tile_at(state, tx, ty + 1)
            nb1 = tile_at(state, tx + 1, ty)
            nb2 = tile_at(state, tx, ty - 1)
            nb3 = tile_at(state, tx - 1, ty)
            # the directions whose neighbour each member could be (4 bits a member) ...
            fits = 0
            for i in range(nm):
                dirs = 0
                for d in range(NUM_DIRS):
                    b = nb0 if d == 0 else (nb1 if d == 1 else (nb2 if d == 2 else nb3))
                    if _sel_match(state, b, p, m0 + i * SEL_W):
                        dirs |= 1 << d
                fits |= dirs << (NUM_DIRS * i)
            # ... then a different direction for each member
            total = 1
            for _ in range(nm):
                total *= NUM_DIRS
            for code in range(total):
                cc = code
                used = 0
                ok = True
                for i in range(nm):
                    d = cc % NUM_DIRS
                    cc //= NUM_DIRS
                    if (used >> d) & 1 or not (fits >> (NUM_DIRS * i + d)) & 1:
                        ok = False
                        break
                    used |= 1 << d
                if ok:
                    return True
        return False
    if form == F_TOUCHING:
        for b in range(1, nt):
            if state[TILE_OWNER + b] != p or not _sel_match(state, b, p, m0):
                continue
            for d in range(NUM_DIRS):
                if _sel_match(state, _neighbour(state, b, d), p, m1):
                    return True
        return False
    if form == F_LINE:
        for b in range(1, nt):
            if state[TILE_OWNER + b] != p or not _sel_match(state, b, p, m0):
                continue
            x = state[TILE_X + b]
            y = state[TILE_Y + b]
            for d in range(2):   # N and E runs
                k = 1
                while k < param and _sel_match(state, tile_at(state, x + k * DX[d], y + k * DY[d]), p, m0):
                    k += 1
                if k >= param:
                    return True
        return False
    if form == F_SQUARE:
        code = state[ro + COND_CELLS]
        has_centre = state[ro + COND_HAS_CENTRE] != 0 and param % 2 == 1
        for t in range(nt):
            x0 = state[TILE_X + t]
            y0 = state[TILE_Y + t]
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
                ok = _sel_match(state, tile_at(state, x0 + h, y0 + h), p, m1)
            if ok:
                return True
        return False
    return False


# ======================================================================== legality

@njit(cache=True)
def _can_build(state, p, t):
    if state[SUPPLY + p] < 1:
        return False
    typ = state[TILE_TYPE + t]
    if _tile_class(state, typ) != CLS_ZONE:
        return False
    owner = state[TILE_OWNER + t]
    if owner < 0:
        return state[UNFINISHED + p] < state[BLOB + B_RULES + RU_MAX_UNFINISHED]
    if owner != p or state[TILE_DONE + t] != 0 or state[TILE_RAISED + t] == state[TURN]:
        return False
    n = state[TILE_FLOORS + t] + 1
    if typ == T_RES:
        return n <= state[BLOB + B_RULES + RU_RES_MAX_FLOORS] and n <= state[TALLEST_RES + p] + 1
    return n <= state[BLOB + B_RULES + RU_COM_FREE_FLOORS] or n <= state[TALLEST_COM + p] + 1


@njit(cache=True)
def _can_roof(state, p, t):
    if state[TILE_OWNER + t] != p or state[TILE_DONE + t] != 0:
        return False
    typ = state[TILE_TYPE + t]
    f = state[TILE_FLOORS + t]
    if typ == T_RES:
        return f >= state[BLOB + B_RULES + RU_RES_MIN_FLOORS] and state[ROOFS_LEFT + KIND_RES] > 0
    return f >= state[BLOB + B_RULES + RU_COM_MIN_FLOORS] and state[ROOFS_LEFT + KIND_COM] > 0


@njit(cache=True)
def _any_action(state, p):
    if state[RESERVE + p] >= 1:
        return True
    if state[SUPPLY + p] < 1:
        return False
    for t in range(1, state[NUM_TILES]):
        if _can_build(state, p, t):
            return True
    return False


@njit(cache=True)
def _any_roof(state, p):
    for t in range(1, state[NUM_TILES]):
        if _can_roof(state, p, t):
            return True
    return False


@njit(cache=True)
def _is_canonical_anchor(state, a, d):
    """Target cell of (a, d) is empty and a is its lowest-index placed _neighbour."""
    x = state[TILE_X + a] + DX[d]
    y = state[TILE_Y + a] + DY[d]
    if tile_at(state, x, y) >= 0:
        return False
    for e in range(NUM_DIRS):
        q = tile_at(state, x + DX[e], y + DY[e])
        if q >= 0 and q < a:
            return False
    return True


# ================================================================== turn machinery

@njit(cache=True)
def _place_tile(state, typ, x, y):
    t = state[NUM_TILES]
    state[TILE_X + t] = x
    state[TILE_Y + t] = y
    state[TILE_TYPE + t] = typ
    state[TILE_OWNER + t] = -1
    state[TILE_FLOORS + t] = 0
    state[TILE_DONE + t] = 0
    state[TILE_RAISED + t] = -1
    state[TILE_SCORE + t] = 0
    _set_cell(state, x, y, t)
    state[NUM_TILES] = t + 1
    return t


@njit(cache=True)
def _metric_value(state, metric, p):
    if metric == M_MAX_FLOORS_DONE:
        m = 0
        for t in range(1, state[NUM_TILES]):
            if state[TILE_OWNER + t] == p and state[TILE_DONE + t] != 0 and state[TILE_FLOORS + t] > m:
                m = state[TILE_FLOORS + t]
        return m
    if metric == M_COUNT_DONE_COM:
        return state[DONE_COM + p]
    if metric == M_COUNT_DONE_RES:
        return state[DONE_RES + p]
    if metric == M_CONTRACTS_REVEALED:
        return state[NUM_REVEALED + p]
    if metric == M_SUM_FLOORS_DONE:
        return state[DONE_FLOORS + p]
    m = 0   # M_COUNT_DONE_ADJ_SPECIAL
    for t in range(1, state[NUM_TILES]):
        if state[TILE_OWNER + t] == p and state[TILE_DONE + t] != 0:
            for d in range(NUM_DIRS):
                q = _neighbour(state, t, d)
                if q >= 0 and _tile_class(state, state[TILE_TYPE + q]) == CLS_SPECIAL:
                    m += 1
                    break
    return m


@njit(cache=True)
def _goal_metric(state, goal, p):
    return _metric_value(state, state[BLOB + B_GOAL_METRIC + goal], p)


@njit(cache=True)
def _end_game(state):
    np_ = state[NUM_PLAYERS]
    for k in range(GOALS_IN_PLAY):
        g = state[GOALS + k]
        best = 0
        nbest = 0
        for p in range(np_):
            m = _goal_metric(state, g, p)
            if m > best:
                best = m
                nbest = 1
            elif m == best:
                nbest += 1
        if best > 0:
            share = state[BLOB + B_GOAL_VP + g] // nbest
            for p in range(np_):
                if _goal_metric(state, g, p) == best:
                    state[GOAL_POINTS + p] += share
                    state[SCORE + p] += share
    state[PHASE] = PH_GAME_OVER
    state[CURRENT] = -1


@njit(cache=True)
def _end_turn(state):
    if state[NUM_TILES] >= MAX_TILES:
        _end_game(state)
        return
    state[TURN] += 1
    state[CURRENT] = (state[CURRENT] + 1) % state[NUM_PLAYERS]
    state[PHASE] = PH_PLACE


@njit(cache=True)
def _refill(state):
    p = state[CURRENT]
    n = state[BAG_SIZE]
    if n >= 2:
        # Always a TILE_KEEP step (a single legal choice when both tiles have the same
        # type): whether the drawer is asked must not tell the others about the pair.
        a = _draw_tile(state)
        b = _draw_tile(state)
        state[TILE_PAIR] = min(a, b)
        state[TILE_PAIR + 1] = max(a, b)
        state[PHASE] = PH_TILE_KEEP
        return
    elif n == 1:
        _hand_add(state, p, _draw_tile(state))
    _end_turn(state)


@njit(cache=True)
def _reveal(state):
    """Step 4: reveal every held contract that is met; keep a snapshot of the buildings
    (public) so that :func:`_met_at_last_step4` can tell later which contracts p would
    have revealed now."""
    p = state[CURRENT]
    state[SNAPSHOT_TILES + p] = state[NUM_TILES]
    base = SNAPSHOT + p * SNAP_RECORDS * MAX_TILES
    for t in range(state[NUM_TILES]):          # later tiles: not on that board (SNAPSHOT_TILES)
        state[base + SNAP_OWNER * MAX_TILES + t] = state[TILE_OWNER + t]
        state[base + SNAP_FLOORS * MAX_TILES + t] = state[TILE_FLOORS + t]
        state[base + SNAP_DONE * MAX_TILES + t] = state[TILE_DONE + t]
    for c in range(NUM_CONTRACTS):
        if state[HELD + p * NUM_CONTRACTS + c] != 0 and _cond_holds(state, c, p):
            state[HELD + p * NUM_CONTRACTS + c] = 0
            state[REVEALED + p * NUM_CONTRACTS + c] = 1
            state[NUM_HELD + p] -= 1
            state[NUM_REVEALED + p] += 1
            state[SCORE + p] += state[BLOB + B_CONTRACT_VP + c]


@njit(cache=True)
def _met_at_last_step4(state, p, work, out):
    """``out[c]`` = 1 when contract c's condition held for p on the board of p's last
    step 4 (all 0 before p's first one).  ``work`` is a scratch state of ``STATE_SIZE``.
    Step 4 reveals every met card, so a card p still holds from an earlier turn has 0
    here; determinization deals p only such cards."""
    for c in range(NUM_CONTRACTS):
        out[c] = 0
    if p < 0 or p >= state[NUM_PLAYERS]:
        return
    nt0 = state[SNAPSHOT_TILES + p]
    if nt0 <= 0:
        return
    for i in range(STATE_SIZE):
        work[i] = state[i]
    for t in range(nt0, state[NUM_TILES]):
        _set_cell(work, state[TILE_X + t], state[TILE_Y + t], NO_TILE)
    work[NUM_TILES] = nt0
    base = SNAPSHOT + p * SNAP_RECORDS * MAX_TILES
    for t in range(nt0):
        work[TILE_OWNER + t] = state[base + SNAP_OWNER * MAX_TILES + t]
        work[TILE_FLOORS + t] = state[base + SNAP_FLOORS * MAX_TILES + t]
        work[TILE_DONE + t] = state[base + SNAP_DONE * MAX_TILES + t]
    for c in range(NUM_CONTRACTS):
        if _cond_holds(work, c, p):
            out[c] = 1


@njit(cache=True)
def _random_matching(elig, key, match):
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
def _deal_contracts(state, observer, key, work):
    """Determinization of the contracts for ``observer`` (part of :func:`determinize`):
    the other seats' unrevealed contracts, another seat's drawn pair, the never-drawn pool
    and the bottom-of-deck places others filled are re-dealt among themselves at random
    (generator ``key``), subject to what the observer knows:

    * a card the observer has seen in one of its pairs never goes back to the pool;
    * a contract another seat still holds from an earlier turn was not met at that seat's
      last step 4 (ruling 18 reveals every met card then, and the board was public): only
      such cards are dealt to it.  Cards it kept in the draws of the turn under way
      (before its step 4) are unconstrained.

    The deal is a random perfect matching of cards to places (:func:`_random_matching`;
    one always exists: the real deal is one) over the cards in id order, so it depends on
    the generator and the observer's information only.  Each other seat's record of seen
    cards is then rebuilt from the new deal (what it holds, revealed, put at the bottom or
    is choosing), so the copy determinizes again; public counts are kept.  ``work`` is
    scratch (``STATE_SIZE``).  False when no consistent deal exists (never for a real
    game)."""
    np_ = state[NUM_PLAYERS]
    if observer < 0 or observer >= np_:
        return False
    cur = state[CURRENT]
    ph = state[PHASE]
    cpair = ph == PH_CONTRACT_KEEP and cur != observer
    # the cards to re-deal, in canonical (sorted) order
    in_set = np.zeros(NUM_CONTRACTS, dtype=np.bool_)
    for c in range(NUM_CONTRACTS):
        if state[POOL + c] != 0:
            in_set[c] = True
        for p in range(np_):
            if p != observer and state[HELD + p * NUM_CONTRACTS + c] != 0:
                in_set[c] = True
    head = state[QUEUE_HEAD]
    qlen = state[QUEUE_LEN]
    for i in range(qlen):
        j = (head + i) % NUM_CONTRACTS
        if state[QUEUE_OWNER + j] != observer:
            in_set[state[QUEUE + j]] = True
    if cpair:
        in_set[state[CONTRACT_PAIR]] = True
        in_set[state[CONTRACT_PAIR + 1]] = True
    cards = np.flatnonzero(in_set)
    ns = cards.shape[0]
    # places in blocks: pool, each other seat's hand, the queue places, the pair
    elig = np.ones((ns, ns), dtype=np.int8)
    npool = state[POOL_SIZE]
    for i in range(npool):
        for k in range(ns):
            if state[SEEN + observer * NUM_CONTRACTS + cards[k]] != 0:
                elig[i, k] = 0
    at = npool
    met = np.zeros(NUM_CONTRACTS, dtype=np.int64)
    nheld = np.zeros(MAX_SEATS, dtype=np.int64)
    for p in range(np_):
        if p == observer:
            continue
        n = 0
        for c in range(NUM_CONTRACTS):
            n += state[HELD + p * NUM_CONTRACTS + c]
        nheld[p] = n
        fresh = state[DRAWN_THIS_TURN] if (ph == PH_CONTRACT_KEEP and cur == p) else 0
        if fresh > n:
            fresh = n
        if n > fresh:
            _met_at_last_step4(state, p, work, met)
        for i in range(at + fresh, at + n):
            for k in range(ns):
                if met[cards[k]] != 0:
                    elig[i, k] = 0
        at += n
    match = np.empty(ns, dtype=np.int64)
    if not _random_matching(elig, key, match):
        return False
    # write the deal
    for c in range(NUM_CONTRACTS):
        state[POOL + c] = 0
        for p in range(np_):
            if p != observer:
                state[HELD + p * NUM_CONTRACTS + c] = 0
    for i in range(npool):
        state[POOL + cards[match[i]]] = 1
    at = npool
    for p in range(np_):
        if p == observer:
            continue
        for i in range(at, at + nheld[p]):
            state[HELD + p * NUM_CONTRACTS + cards[match[i]]] = 1
        at += nheld[p]
    for i in range(qlen):
        j = (head + i) % NUM_CONTRACTS
        if state[QUEUE_OWNER + j] != observer:
            state[QUEUE + j] = cards[match[at]]
            at += 1
    if cpair:
        state[CONTRACT_PAIR] = cards[match[at]]
        state[CONTRACT_PAIR + 1] = cards[match[at + 1]]
    # what each other seat has seen: what it holds, revealed, put at the bottom, is choosing
    for p in range(np_):
        if p == observer:
            continue
        for c in range(NUM_CONTRACTS):
            state[SEEN + p * NUM_CONTRACTS + c] = 1 if (state[HELD + p * NUM_CONTRACTS + c] != 0
                                                 or state[REVEALED + p * NUM_CONTRACTS + c] != 0) else 0
    for i in range(qlen):
        j = (head + i) % NUM_CONTRACTS
        q = state[QUEUE_OWNER + j]
        if q != observer:
            state[SEEN + q * NUM_CONTRACTS + state[QUEUE + j]] = 1
    if cpair:
        state[SEEN + cur * NUM_CONTRACTS + state[CONTRACT_PAIR]] = 1
        state[SEEN + cur * NUM_CONTRACTS + state[CONTRACT_PAIR + 1]] = 1
    return True


@njit(cache=True)
def _after_roofing(state):
    if state[PENDING_DRAWS] > 0:
        p = state[CURRENT]
        for i in range(2):
            c = _draw_contract(state)
            state[CONTRACT_PAIR + i] = c
            state[SEEN + p * NUM_CONTRACTS + c] = 1
        state[PHASE] = PH_CONTRACT_KEEP
        return
    _reveal(state)
    _refill(state)


@njit(cache=True)
def _enter_roof(state):
    if _any_roof(state, state[CURRENT]):
        state[PHASE] = PH_ROOF
    else:
        _after_roofing(state)


@njit(cache=True)
def _continue_actions(state):
    p = state[CURRENT]
    if state[ACTIONS_LEFT] > 0 and _any_action(state, p):
        state[PHASE] = PH_ACTION
    else:
        state[ACTIONS_LEFT] = 0
        _enter_roof(state)


@njit(cache=True)
def _roof_building(state, p, t):
    """Complete building t of p: score it by the formula and update p's records."""
    typ = state[TILE_TYPE + t]
    kind = KIND_RES if typ == T_RES else KIND_COM
    f = state[TILE_FLOORS + t]
    sc = f * _per_floor_at(state, t, kind)
    state[TILE_DONE + t] = 1
    state[TILE_SCORE + t] = sc
    state[SCORE + p] += sc
    state[ROOFS_LEFT + kind] -= 1
    state[UNFINISHED + p] -= 1
    state[DONE_FLOORS + p] += f
    if kind == KIND_RES:
        state[DONE_RES + p] += 1
        if f > state[TALLEST_RES + p]:
            state[TALLEST_RES + p] = f
    else:
        state[DONE_COM + p] += 1
        if f > state[TALLEST_COM + p]:
            state[TALLEST_COM + p] = f
    return sc


# ======================================================================== contract
@njit(cache=True)
def current_player(state):
    if state[PHASE] == PH_GAME_OVER:
        return -1
    return state[CURRENT]


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    ph = state[PHASE]
    p = state[CURRENT]
    nt = state[NUM_TILES]
    if ph == PH_PLACE:
        h = HAND + HAND_SLOTS * p
        s1 = state[h + 1] >= 0 and state[h + 1] != state[h]
        for a in range(nt):
            for d in range(NUM_DIRS):
                if _is_canonical_anchor(state, a, d):
                    mask[A_PLACE + a * NUM_DIRS + d] = 1
                    if s1:
                        mask[A_PLACE + PLACE_SLOT + a * NUM_DIRS + d] = 1
    elif ph == PH_ACTION:
        if state[RESERVE + p] >= 1:
            mask[A_GATHER] = 1
        for t in range(1, nt):
            if _can_build(state, p, t):
                mask[A_BUILD + t] = 1
    elif ph == PH_ROOF:
        for t in range(1, nt):
            if _can_roof(state, p, t):
                mask[A_ROOF + t] = 1
        mask[A_STOP] = 1
    elif ph == PH_CONTRACT_KEEP:
        mask[A_KEEP_CONTRACT] = 1
        mask[A_KEEP_CONTRACT + 1] = 1
    elif ph == PH_TILE_KEEP:
        mask[A_KEEP_TILE] = 1
        if state[TILE_PAIR + 1] != state[TILE_PAIR]:
            mask[A_KEEP_TILE + 1] = 1


@njit(cache=True)
def step(state, action):
    p = state[CURRENT]
    ph = state[PHASE]
    if ph == PH_PLACE:
        s = (action - A_PLACE) // PLACE_SLOT
        r = (action - A_PLACE) % PLACE_SLOT
        a = r // NUM_DIRS
        d = r % NUM_DIRS
        h = HAND + HAND_SLOTS * p
        typ = state[h + s]
        if s == 0:
            state[h] = state[h + 1]
        state[h + 1] = -1
        _place_tile(state, typ, state[TILE_X + a] + DX[d], state[TILE_Y + a] + DY[d])
        state[ACTIONS_LEFT] = state[BLOB + B_RULES + RU_ACTIONS]
        state[PENDING_DRAWS] = 0
        state[DRAWN_THIS_TURN] = 0
        _continue_actions(state)
    elif ph == PH_ACTION:
        if action == A_GATHER:
            state[RESERVE + p] -= 1
            state[SUPPLY + p] += 1
        else:
            t = action - A_BUILD
            state[SUPPLY + p] -= 1
            if state[TILE_OWNER + t] < 0:
                state[TILE_OWNER + t] = p
                state[TILE_FLOORS + t] = 1
                state[UNFINISHED + p] += 1
            else:
                state[TILE_FLOORS + t] += 1
            state[TILE_RAISED + t] = state[TURN]
        state[ACTIONS_LEFT] -= 1
        _continue_actions(state)
    elif ph == PH_ROOF:
        if action == A_STOP:
            _after_roofing(state)
        else:
            _roof_building(state, p, action - A_ROOF)
            state[PENDING_DRAWS] += 1
            if _any_roof(state, p):
                return
            _after_roofing(state)
    elif ph == PH_CONTRACT_KEEP:
        i = action - A_KEEP_CONTRACT
        keep = state[CONTRACT_PAIR + i]
        other = state[CONTRACT_PAIR + 1 - i]
        state[HELD + p * NUM_CONTRACTS + keep] = 1
        state[NUM_HELD + p] += 1
        _queue_push(state, other, p)
        state[CONTRACT_PAIR] = -1
        state[CONTRACT_PAIR + 1] = -1
        state[PENDING_DRAWS] -= 1
        state[DRAWN_THIS_TURN] += 1
        _after_roofing(state)
    elif ph == PH_TILE_KEEP:
        i = action - A_KEEP_TILE
        _hand_add(state, p, state[TILE_PAIR + i])
        _return_tile(state, state[TILE_PAIR + 1 - i])
        state[TILE_PAIR] = -1
        state[TILE_PAIR + 1] = -1
        _end_turn(state)


@njit(cache=True)
def advance(state, action, mask):
    """The AEC shell's one call per step (see :mod:`envs.spec`)."""
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    for i in range(BLOB_SIZE):
        state[BLOB + i] = config[CFG_BLOB + i]
    np_ = config[CFG_NUM_PLAYERS]
    state[NUM_PLAYERS] = np_
    state[WINDOW_SIDE] = config[CFG_WINDOW]
    rng.seed_rng(state, RNG, seed)
    for i in range(MAX_TILES):
        state[TILE_OWNER + i] = -1
        state[TILE_RAISED + i] = -1
        state[TILE_TYPE + i] = -1
    for i in range(HAND_SLOTS * MAX_SEATS):
        state[HAND + i] = -1
    state[CONTRACT_PAIR] = -1
    state[CONTRACT_PAIR + 1] = -1
    state[TILE_PAIR] = -1
    state[TILE_PAIR + 1] = -1
    state[ROOFS_LEFT + KIND_RES] = state[BLOB + B_RULES + RU_ROOFS_RES]
    state[ROOFS_LEFT + KIND_COM] = state[BLOB + B_RULES + RU_ROOFS_COM]
    for typ in range(NUM_TYPES):
        state[BAG + typ] = state[BLOB + B_TILE_COUNT + typ]
        state[BAG_SIZE] += state[BLOB + B_TILE_COUNT + typ]
    for c in range(NUM_CONTRACTS):
        state[POOL + c] = 1
    state[POOL_SIZE] = NUM_CONTRACTS
    for p in range(np_):
        state[SUPPLY + p] = state[BLOB + B_RULES + RU_SUPPLY_START]
        state[RESERVE + p] = state[BLOB + B_RULES + RU_RESERVE_START]
    origin = state[NUM_TILES]           # 0, as a run-time value: no specialisation on constants
    _place_tile(state, origin + T_CITY_HALL, origin, origin)
    for p in range(np_):
        for _ in range(state[BLOB + B_RULES + RU_HAND_TILES]):
            _hand_add(state, p, _draw_tile(state))
    # goals: given (config) or 3 of the 6 at random
    if config[CFG_GOALS] >= 0:
        for k in range(GOALS_IN_PLAY):
            state[GOALS + k] = config[CFG_GOALS + k]
    else:
        tmp = np.arange(NUM_GOALS)
        rng.shuffle(state, RNG, tmp, NUM_GOALS)
        for k in range(GOALS_IN_PLAY):
            state[GOALS + k] = tmp[k]
    state[TURN] = 1
    state[CURRENT] = state[BLOB + B_RULES + RU_FIRST_PLAYER] % np_
    state[PHASE] = PH_PLACE


@njit(cache=True)
def scores(state, out):
    for p in range(state[NUM_PLAYERS]):
        out[p] = state[SCORE + p]


@njit(cache=True)
def ranks(state, out):
    """1-based ranks by final VP into ``out``; players tied on VP share the better rank,
    whatever else differs: the rulebook names no tie-break (ruling 21)."""
    n = state[NUM_PLAYERS]
    ranks_lexicographic(state[SCORE:SCORE + n].reshape((n, 1)), n, out)


# ===================================================================== observation

def _limits(blob):
    """Upper bounds of the observed counters under the data ``blob`` (int64, DATA_BLOB)."""
    rules = blob[B_RULES:B_RULES + len(RULE_KEYS)]
    mods = blob[B_MODIFIER:B_MODIFIER + NUM_TYPES * 2].reshape(NUM_TYPES, 2)
    blocks = int(rules[RU_SUPPLY_START] + rules[RU_RESERVE_START])     # a seat's blocks
    per = abs(int(rules[RU_BASE_PER_FLOOR])) + NUM_DIRS * (int(np.abs(mods).max())
                                                        + abs(int(rules[RU_VACANT_PER_FLOOR])))
    building = blocks * per                                   # |score| of one building
    total = building + int(np.abs(blob[B_CONTRACT_VP:B_CONTRACT_VP + NUM_CONTRACTS]).sum()) \
        + int(np.abs(blob[B_GOAL_VP:B_GOAL_VP + NUM_GOALS]).sum())
    return dict(blocks=blocks, building_score=building, total_score=total,
                max_unfinished=max(1, int(rules[RU_MAX_UNFINISHED])),
                actions=max(1, int(rules[RU_ACTIONS])),
                roofs=(max(1, int(rules[RU_ROOFS_RES])), max(1, int(rules[RU_ROOFS_COM]))),
                unseen=np.maximum(blob[B_TILE_COUNT:B_TILE_COUNT + NUM_TYPES], 1),
                mod_low=np.minimum(0, mods.min(axis=0)), mod_high=np.maximum(1, mods.max(axis=0)))


WIN_PLANES = ("residential", "commercial", "special", "city_hall", "mod_residential",
              "mod_commercial", "owner_0", "owner_1", "owner_2", "owner_3", "floors",
              "completed", "vacant", "legal_cell")


def _declare_observation(blob, win):
    """The observation for data ``blob`` and crop side ``win``: ``(obs, tile row, player
    row, globals row, window info)`` Layouts.  Only the bounds and the crop depend on the
    arguments; every offset ``observe`` uses is the same for every configuration."""
    lim = _limits(blob)
    blocks, bscore, total = lim["blocks"], lim["building_score"], lim["total_score"]
    tile = Layout("expancity observation: tiles row")     # one row per tile index
    tile.add("placed")
    tile.add("x", low=-GRID_RADIUS, high=GRID_RADIUS)
    tile.add("y", low=-GRID_RADIUS, high=GRID_RADIUS)
    tile.add("type", (NUM_TYPES,))                           # one-hot
    tile.add("has_building")
    tile.add("owner", (MAX_SEATS,))                           # relative seat one-hot
    tile.add("floors", high=blocks)
    tile.add("completed")
    tile.add("raised_this_turn")
    tile.add("score", low=-bscore, high=bscore)           # frozen score once completed
    tile.add("vacant")                                    # vacant lot
    player = Layout("expancity observation: players row")  # relative seat order
    player.add("score", low=-total, high=total)
    player.add("supply", high=blocks)
    player.add("reserve", high=blocks)
    player.add("unfinished", high=lim["max_unfinished"])
    player.add("tallest_res", high=blocks)
    player.add("tallest_com", high=blocks)
    player.add("done_res", high=MAX_TILES)
    player.add("done_com", high=MAX_TILES)
    player.add("done_floors", high=blocks)
    player.add("num_held", high=NUM_CONTRACTS)
    player.add("num_revealed", high=NUM_CONTRACTS)
    player.add("hand_size", high=HAND_SLOTS)
    player.add("active")
    player.add("revealed", (NUM_CONTRACTS,))
    glob = Layout("expancity observation: globals")
    glob.add("phase", (len(PHASE_NAMES),))                # one-hot
    glob.add("actions_left", high=lim["actions"])
    glob.add("turn", high=MAX_TILES)
    glob.add("bag_size", high=MAX_TILES)
    glob.add("deck_size", high=NUM_CONTRACTS)
    glob.add("roofs_left", (2,), high=lim["roofs"])       # res, com
    glob.add("goals", (NUM_GOALS,))                          # goals in play
    glob.add("unseen", (NUM_TYPES,), high=lim["unseen"])     # bag + others' hands, per type
    glob.add("pending_draws", high=lim["max_unfinished"])  # one draw per building roofed
    obs = Layout("expancity observation")
    obs.add("tiles", (MAX_TILES, tile.size), low=tile.bounds(np.float64)[0].reshape(1, -1),
            high=tile.bounds(np.float64)[1].reshape(1, -1))
    obs.add("players", (MAX_SEATS, player.size), low=player.bounds(np.float64)[0].reshape(1, -1),
            high=player.bounds(np.float64)[1].reshape(1, -1))
    obs.add("globals", (glob.size,), low=glob.bounds(np.float64)[0], high=glob.bounds(np.float64)[1])
    # private: only what the observer holds or draws
    obs.add("hand", (HAND_SLOTS, NUM_TYPES))                 # own tiles, one-hot by slot
    obs.add("contracts", (NUM_CONTRACTS,))                         # own unrevealed contracts
    obs.add("contract_pair", (2, NUM_CONTRACTS))                   # while the observer keeps one
    obs.add("tile_pair", (2, NUM_TYPES))                     # during the observer's tile keep
    obs.add("bottom_cards", (NUM_CONTRACTS,))                      # own cards still at the deck's bottom
    info = Layout("expancity observation: window info")
    info.add("outside")                                   # some tile lies outside the crop
    info.add("centre_x", low=-GRID_RADIUS, high=GRID_RADIUS)
    info.add("centre_y", low=-GRID_RADIUS, high=GRID_RADIUS)
    if win:
        obs.add("window_info", (info.size,), low=info.bounds(np.float64)[0], high=info.bounds(np.float64)[1])
        plane_low = np.zeros((len(WIN_PLANES), win, win))
        plane_high = np.ones((len(WIN_PLANES), win, win))
        for k, name in enumerate(("mod_residential", "mod_commercial")):
            plane_low[WIN_PLANES.index(name)] = lim["mod_low"][k]
            plane_high[WIN_PLANES.index(name)] = lim["mod_high"][k]
        plane_high[WIN_PLANES.index("floors")] = blocks
        obs.add("window", (len(WIN_PLANES), win, win), low=plane_low, high=plane_high)
    return obs, tile, player, glob, info


_OBS_LAYOUTS = {}


def crop_cells(x, y, cx, cy, win):
    """Where cells ``(x, y)`` (arrays of a batch, y growing north) fall in the ``win`` x
    ``win`` crop centred on each game's ``(cx, cy)`` (shape ``(batch,)``): the flat index
    into the crop's row-major planes, and whether the cell is inside it (cells outside get
    an index clipped into the crop; callers mask them).  Plain arithmetic, so the same code serves numpy arrays
    and torch tensors (``agents.players.networks`` and its numpy twin for the pretrained policy)."""
    h = win // 2
    col = x - cx[:, None, None] + h
    row = cy[:, None, None] + h - y
    inside = (col >= 0) & (col < win) & (row >= 0) & (row < win)
    flat = (row * win + col).clip(0, win * win - 1)     # (floats, from the observation)
    return (flat.long() if hasattr(flat, "long") else flat.astype(np.int64)), inside


def observation_layout(config):
    """The observation :class:`~kernels.layout.Layout` (names, shapes, bounds) of the
    configuration ``config`` (``make_config``'s vector), cached per configuration."""
    config = np.asarray(config, dtype=np.int64)
    key = config.tobytes()
    if key not in _OBS_LAYOUTS:
        _OBS_LAYOUTS[key] = _declare_observation(config[CFG_BLOB:CFG_BLOB + BLOB_SIZE],
                                                 int(config[CFG_WINDOW]))[0]
    return _OBS_LAYOUTS[key]


# The offsets ``observe`` writes at: the same for every configuration (read from the
# declaration for the default data, without the crop).
OBS, TILE_ROW, PLAYER_ROW, GLOBAL_ROW, WINDOW_INFO = _declare_observation(DEFAULT_BLOB, 0)
F_TILE = TILE_ROW.size                      # 25 values a tile
FT_PLACED = TILE_ROW.offset("placed")
FT_X = TILE_ROW.offset("x")
FT_Y = TILE_ROW.offset("y")
FT_TYPE = TILE_ROW.offset("type")
FT_HAS_BUILDING = TILE_ROW.offset("has_building")
FT_OWNER = TILE_ROW.offset("owner")
FT_FLOORS = TILE_ROW.offset("floors")
FT_DONE = TILE_ROW.offset("completed")
FT_RAISED = TILE_ROW.offset("raised_this_turn")
FT_SCORE = TILE_ROW.offset("score")
FT_VACANT = TILE_ROW.offset("vacant")
F_PLAYER = PLAYER_ROW.size                  # 63 values a seat
FP_SCORE = PLAYER_ROW.offset("score")
FP_SUPPLY = PLAYER_ROW.offset("supply")
FP_RESERVE = PLAYER_ROW.offset("reserve")
FP_UNFINISHED = PLAYER_ROW.offset("unfinished")
FP_TALLEST_RES = PLAYER_ROW.offset("tallest_res")
FP_TALLEST_COM = PLAYER_ROW.offset("tallest_com")
FP_DONE_RES = PLAYER_ROW.offset("done_res")
FP_DONE_COM = PLAYER_ROW.offset("done_com")
FP_DONE_FLOORS = PLAYER_ROW.offset("done_floors")
FP_NUM_HELD = PLAYER_ROW.offset("num_held")
FP_NUM_REVEALED = PLAYER_ROW.offset("num_revealed")
FP_HAND_SIZE = PLAYER_ROW.offset("hand_size")
FP_ACTIVE = PLAYER_ROW.offset("active")
FP_REVEALED = PLAYER_ROW.offset("revealed")
G_PHASE = GLOBAL_ROW.offset("phase")
G_ACTIONS_LEFT = GLOBAL_ROW.offset("actions_left")
G_TURN = GLOBAL_ROW.offset("turn")
G_BAG_SIZE = GLOBAL_ROW.offset("bag_size")
G_DECK_SIZE = GLOBAL_ROW.offset("deck_size")
G_ROOFS_LEFT = GLOBAL_ROW.offset("roofs_left")
G_GOALS = GLOBAL_ROW.offset("goals")
G_UNSEEN = GLOBAL_ROW.offset("unseen")
G_PENDING_DRAWS = GLOBAL_ROW.offset("pending_draws")
OBS_GLOBAL = GLOBAL_ROW.size                # 31
O_OBS_TILES = OBS.offset("tiles")
OBS_TILES = OBS.length("tiles")             # 61 x 25
O_OBS_PLAYERS = OBS.offset("players")
O_OBS_GLOBAL = OBS.offset("globals")
O_OBS_PRIVATE = OBS.offset("hand")          # start of the private parts
OBS_HAND = OBS.offset("hand")
OBS_CONTRACTS = OBS.offset("contracts")
OBS_CONTRACT_PAIR = OBS.offset("contract_pair")
OBS_TILE_PAIR = OBS.offset("tile_pair")
OBS_BOTTOM_CARDS = OBS.offset("bottom_cards")
OBS_SIZE = OBS.size                         # without the optional spatial crop
O_OBS_WINDOW = OBS_SIZE                     # crop: window_info, then the window planes
W_OUTSIDE = WINDOW_INFO.offset("outside")
W_CX = WINDOW_INFO.offset("centre_x")
W_CY = WINDOW_INFO.offset("centre_y")
W_INFO = WINDOW_INFO.size
NUM_WIN_PLANES = len(WIN_PLANES)
WP_RES = WIN_PLANES.index("residential")
WP_COM = WIN_PLANES.index("commercial")
WP_SPECIAL = WIN_PLANES.index("special")
WP_CITY_HALL = WIN_PLANES.index("city_hall")
WP_MOD_RES = WIN_PLANES.index("mod_residential")
WP_MOD_COM = WIN_PLANES.index("mod_commercial")
WP_OWNER = WIN_PLANES.index("owner_0")      # 4 planes, relative seat
WP_FLOORS = WIN_PLANES.index("floors")
WP_DONE = WIN_PLANES.index("completed")
WP_VACANT = WIN_PLANES.index("vacant")
WP_LEGAL = WIN_PLANES.index("legal_cell")


@njit(cache=True)
def _seat_from(player, seat, num_players):
    """``seat`` counted from ``player`` (0 = player itself): a branch, not an integer
    division (observe() asks it for every building)."""
    e = seat - player
    return e + num_players if e < 0 else e


@njit(cache=True)
def observe(state, player, out):
    for i in range(out.shape[0]):
        out[i] = 0.0
    np_ = state[NUM_PLAYERS]
    if player < 0 or player >= np_:
        return
    nt = state[NUM_TILES]
    turn = state[TURN]
    # tile table
    for t in range(nt):
        o = O_OBS_TILES + t * F_TILE
        out[o + FT_PLACED] = 1.0
        out[o + FT_X] = state[TILE_X + t]
        out[o + FT_Y] = state[TILE_Y + t]
        out[o + FT_TYPE + state[TILE_TYPE + t]] = 1.0
        own = state[TILE_OWNER + t]
        if own >= 0:
            out[o + FT_HAS_BUILDING] = 1.0
            out[o + FT_OWNER + _seat_from(player, own, np_)] = 1.0
            out[o + FT_FLOORS] = state[TILE_FLOORS + t]
            out[o + FT_DONE] = state[TILE_DONE + t]
            out[o + FT_RAISED] = 1.0 if state[TILE_RAISED + t] == turn else 0.0
            out[o + FT_SCORE] = state[TILE_SCORE + t]
        elif _tile_class(state, state[TILE_TYPE + t]) == CLS_ZONE:
            out[o + FT_VACANT] = 1.0
    # players, rotated so the observer is row 0
    for r in range(np_):
        p = (player + r) % np_
        o = O_OBS_PLAYERS + r * F_PLAYER
        out[o + FP_SCORE] = state[SCORE + p]
        out[o + FP_SUPPLY] = state[SUPPLY + p]
        out[o + FP_RESERVE] = state[RESERVE + p]
        out[o + FP_UNFINISHED] = state[UNFINISHED + p]
        out[o + FP_TALLEST_RES] = state[TALLEST_RES + p]
        out[o + FP_TALLEST_COM] = state[TALLEST_COM + p]
        out[o + FP_DONE_RES] = state[DONE_RES + p]
        out[o + FP_DONE_COM] = state[DONE_COM + p]
        out[o + FP_DONE_FLOORS] = state[DONE_FLOORS + p]
        out[o + FP_NUM_HELD] = state[NUM_HELD + p]
        out[o + FP_NUM_REVEALED] = state[NUM_REVEALED + p]
        hs = 0
        for s in range(HAND_SLOTS):
            if state[HAND + HAND_SLOTS * p + s] >= 0:
                hs += 1
        out[o + FP_HAND_SIZE] = hs
        out[o + FP_ACTIVE] = 1.0 if (state[PHASE] != PH_GAME_OVER and state[CURRENT] == p) else 0.0
        for c in range(NUM_CONTRACTS):
            out[o + FP_REVEALED + c] = state[REVEALED + p * NUM_CONTRACTS + c]
    # public globals
    o = O_OBS_GLOBAL
    ph = state[PHASE]
    out[o + G_PHASE + ph] = 1.0
    out[o + G_ACTIONS_LEFT] = state[ACTIONS_LEFT] if ph == PH_ACTION else 0
    out[o + G_TURN] = turn
    out[o + G_BAG_SIZE] = state[BAG_SIZE]
    out[o + G_DECK_SIZE] = state[POOL_SIZE] + state[QUEUE_LEN]
    out[o + G_ROOFS_LEFT + KIND_RES] = state[ROOFS_LEFT + KIND_RES]
    out[o + G_ROOFS_LEFT + KIND_COM] = state[ROOFS_LEFT + KIND_COM]
    for k in range(GOALS_IN_PLAY):
        out[o + G_GOALS + state[GOALS + k]] = 1.0
    for typ in range(NUM_TYPES):
        out[o + G_UNSEEN + typ] = state[BLOB + B_TILE_COUNT + typ]
    for t in range(1, nt):
        out[o + G_UNSEEN + state[TILE_TYPE + t]] -= 1
    for s in range(HAND_SLOTS):
        typ = state[HAND + HAND_SLOTS * player + s]
        if typ >= 0:
            out[o + G_UNSEEN + typ] -= 1
    # buildings roofed this turn (ROOF) / draws left (CONTRACT_KEEP): public, 0 otherwise
    out[o + G_PENDING_DRAWS] = state[PENDING_DRAWS] if (ph == PH_ROOF or ph == PH_CONTRACT_KEEP) else 0
    # private
    for s in range(HAND_SLOTS):
        typ = state[HAND + HAND_SLOTS * player + s]
        if typ >= 0:
            out[OBS_HAND + s * NUM_TYPES + typ] = 1.0
    for c in range(NUM_CONTRACTS):
        out[OBS_CONTRACTS + c] = state[HELD + player * NUM_CONTRACTS + c]
    mine = state[CURRENT] == player
    if mine and ph == PH_CONTRACT_KEEP:
        out[OBS_CONTRACT_PAIR + state[CONTRACT_PAIR]] = 1.0
        out[OBS_CONTRACT_PAIR + NUM_CONTRACTS + state[CONTRACT_PAIR + 1]] = 1.0
    if mine and ph == PH_TILE_KEEP:
        out[OBS_TILE_PAIR + state[TILE_PAIR]] = 1.0
        out[OBS_TILE_PAIR + NUM_TYPES + state[TILE_PAIR + 1]] = 1.0
        # the pair is out of the bag and seen by its drawer: not "unseen" for it
        out[O_OBS_GLOBAL + G_UNSEEN + state[TILE_PAIR]] -= 1
        out[O_OBS_GLOBAL + G_UNSEEN + state[TILE_PAIR + 1]] -= 1
    head = state[QUEUE_HEAD]
    for i in range(state[QUEUE_LEN]):
        j = (head + i) % NUM_CONTRACTS
        if state[QUEUE_OWNER + j] == player:
            out[OBS_BOTTOM_CARDS + state[QUEUE + j]] = 1.0
    if state[WINDOW_SIDE] > 0:
        _observe_window(state, player, out)


@njit(cache=True)
def _observe_window(state, player, out):
    """K x K crop centred on the centre of the city's bounding box (row 0 = north)."""
    win = state[WINDOW_SIDE]
    np_ = state[NUM_PLAYERS]
    nt = state[NUM_TILES]
    xmin = state[TILE_X]
    xmax = xmin
    ymin = state[TILE_Y]
    ymax = ymin
    for t in range(1, nt):
        xmin = min(xmin, state[TILE_X + t])
        xmax = max(xmax, state[TILE_X + t])
        ymin = min(ymin, state[TILE_Y + t])
        ymax = max(ymax, state[TILE_Y + t])
    cx = (xmin + xmax) // 2
    cy = (ymin + ymax) // 2
    h = win // 2
    o = O_OBS_WINDOW
    out[o + W_OUTSIDE] = 1.0 if (xmin < cx - h or xmax > cx + h or ymin < cy - h or ymax > cy + h) else 0.0
    out[o + W_CX] = cx
    out[o + W_CY] = cy
    o += W_INFO
    ps = win * win
    # Visit the tiles, not the window's cells (a city has far fewer tiles than the crop has
    # cells), and never the 121 x 121 grid (cold in memory in a large batch): a legal spot is
    # a cell next to a tile that holds no tile itself.
    for t in range(nt):
        for d in range(NUM_DIRS):
            i = state[TILE_X + t] + DX[d] - (cx - h)
            j = (cy + h) - state[TILE_Y + t] - DY[d]
            if 0 <= i < win and 0 <= j < win:
                out[o + j * win + i + WP_LEGAL * ps] = 1.0
    for t in range(nt):
        x = state[TILE_X + t]
        y = state[TILE_Y + t]
        i = x - (cx - h)
        j = (cy + h) - y
        if 0 <= i < win and 0 <= j < win:
            c = o + j * win + i
            out[c + WP_LEGAL * ps] = 0.0
            typ = state[TILE_TYPE + t]
            cls = _tile_class(state, typ)
            if typ == T_RES:
                out[c + WP_RES * ps] = 1.0
            elif typ == T_COM:
                out[c + WP_COM * ps] = 1.0
            elif cls == CLS_SPECIAL:
                out[c + WP_SPECIAL * ps] = 1.0
            else:
                out[c + WP_CITY_HALL * ps] = 1.0
            out[c + WP_MOD_RES * ps] = state[BLOB + B_MODIFIER + 2 * typ + KIND_RES]
            out[c + WP_MOD_COM * ps] = state[BLOB + B_MODIFIER + 2 * typ + KIND_COM]
            own = state[TILE_OWNER + t]
            if own >= 0:
                out[c + (WP_OWNER + _seat_from(player, own, np_)) * ps] = 1.0
                out[c + WP_FLOORS * ps] = state[TILE_FLOORS + t]
                out[c + WP_DONE * ps] = state[TILE_DONE + t]
            elif cls == CLS_ZONE:
                out[c + WP_VACANT * ps] = 1.0


# ============================================================== hidden information

@njit(cache=True)
def reseed(state, seed):
    """Re-key the generator from ``seed`` (a non-negative int64): every future draw (bag,
    never-drawn contracts) changes, nothing seen does."""
    rng.seed_rng(state, RNG, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    """Re-deal, in place, what seat ``observer`` has not seen, then re-key the generator;
    False (state partly re-dealt) when no deal is consistent with the public record
    (never for a real game) or ``observer`` is not a seat.

    Tiles: the bag, the other seats' hand tiles and another seat's drawn tile pair are one
    multiset, gathered in type order (SORTED: the deal cannot depend on where each hidden
    tile sat), shuffled by the seeded generator and dealt back to the same places (hand
    slots in seat order, then the pair, the rest to the bag).  Contracts: see
    :func:`_deal_contracts` (cards in id order, a seeded random matching).  So the result
    depends on the seed and on the observer's information only.  Simplification: the
    observer's memory of the tile types it returned to the bag is not used."""
    np_ = state[NUM_PLAYERS]
    if observer < 0 or observer >= np_:
        return False
    key = np.zeros(rng.RNG_SLOTS, dtype=np.int64)
    rng.seed_rng(key, 0, seed)
    pair = state[PHASE] == PH_TILE_KEEP and state[CURRENT] != observer
    # the hidden tiles as counts per type, then as a sorted list
    counts = np.zeros(NUM_TYPES, dtype=np.int64)
    for typ in range(NUM_TYPES):
        counts[typ] = state[BAG + typ]
    for p in range(np_):
        if p != observer:
            for s in range(HAND_SLOTS):
                typ = state[HAND + HAND_SLOTS * p + s]
                if typ >= 0:
                    counts[typ] += 1
    if pair:
        counts[state[TILE_PAIR]] += 1
        counts[state[TILE_PAIR + 1]] += 1
    total = 0
    for typ in range(NUM_TYPES):
        total += counts[typ]
    pool = np.empty(total, dtype=np.int64)
    n = 0
    for typ in range(NUM_TYPES):
        for _ in range(counts[typ]):
            pool[n] = typ
            n += 1
    rng.shuffle(key, 0, pool, n)
    # deal: the other hands keep their sizes, the pair its place, the rest is the bag
    for p in range(np_):
        if p == observer:
            continue
        size = 0
        for s in range(HAND_SLOTS):
            if state[HAND + HAND_SLOTS * p + s] >= 0:
                size += 1
            state[HAND + HAND_SLOTS * p + s] = -1
        for _ in range(size):
            n -= 1
            _hand_add(state, p, pool[n])
    if pair:
        a = pool[n - 1]
        b = pool[n - 2]
        n -= 2
        state[TILE_PAIR] = min(a, b)
        state[TILE_PAIR + 1] = max(a, b)
    for typ in range(NUM_TYPES):
        state[BAG + typ] = 0
    for i in range(n):
        state[BAG + pool[i]] += 1
    state[BAG_SIZE] = n
    # contracts
    if not _deal_contracts(state, observer, key, np.empty(STATE_SIZE, dtype=np.int64)):
        return False
    reseed(state, np.int64(rng.next_u64(key, 0) >> np.uint64(1)))
    return True


# ================================================================ greedy heuristic
# The evaluation of kernels.outcome counts half of what unfinished buildings would score
# if roofed now: they may never be finished.
POTENTIAL_WEIGHT = 0.5


@njit(cache=True)
def potential(state, p):
    """Score p's unfinished buildings would get if roofed now (commercial ones below the
    completion height counted at that height): a positional term for greedy baselines."""
    v = 0
    for t in range(1, state[NUM_TILES]):
        if state[TILE_OWNER + t] == p and state[TILE_DONE + t] == 0:
            kind = KIND_RES if state[TILE_TYPE + t] == T_RES else KIND_COM
            f = state[TILE_FLOORS + t]
            if kind == KIND_COM and f < state[BLOB + B_RULES + RU_COM_MIN_FLOORS]:
                f = state[BLOB + B_RULES + RU_COM_MIN_FLOORS]
            v += f * _per_floor_at(state, t, kind)
    return v

