"""Tiny Towns (AEG 2019, base game, 1-6 players) as numba kernels on one flat int64 state.

Rules: ``docs/rules/tiny_towns.md``; every table comes from
``kernels/data/tiny_towns.yaml``, checked against its schema at import (:func:`check_data`,
:func:`read_data`: a broken field raises :class:`kernels.data_files.DataError` naming it).

Cards are numbered 0..24 (the 25 building cards in data order, Cottage first) and 25..39
(the 15 monuments in data order).  Squares are ``row * 4 + col``.  Building types (colours)
are 0..6 = cottage, red, grey, orange, green, yellow, black.

Flat action space (1056), ``docs/rules/tiny_towns.md`` section 11.2:

* ``0..1023``   CONSTRUCT ``128*slot + 16*t + anchor`` (slot 0 Cottage, 1..6 the card in play
  of type red..black, 7 the own kept monument; t = transform, data ``encoding.transforms``;
  anchor = top-left square of the transformed bounding box)
* ``1024..1039`` SQUARE q, ``1040..1044`` RESOURCE r, ``1045..1051`` TYPE k,
  ``1052..1053`` KEEP i, ``1054`` PASS (done / stop / no swap), ``1055`` SET_ASIDE.

Simultaneous placements are hidden commitments: each player's choices go to a pending
buffer in its player block and are applied to the boards only when the last player of the
round has committed.  Build steps are simultaneous too (rules R6): each player builds on its
own record at once, while the other seats see the copy of every record taken at that reveal
(``G_SHOWN``, read through :func:`seen_base`) until the last builder is done.  Town Hall
draws and solo refills are sampled lazily from per-resource counts of the unseen cards, so
no future draw is stored in the state.

Whose turn it is depends on public information only (two or more players):

* a placement that could go to a Warehouse (imposed resource, an active Warehouse with room
  or a cube to swap) always takes the DEST, SWAP and SWAP_SQUARE steps -- PASS only where
  the step does not apply (``_warehouse_padded``) -- whether the cube went on a square, to
  the Warehouse, swapped a cube, onto a Cottage or was set aside;
* the build step is judged from public information (``_build_offered``): a player gets it
  as a decision when a card in play fits its board or a monument nobody has built yet
  could fit it (the player has not built its own, and the others do not know which one
  it kept), PASS the only action when nothing of its own fits; otherwise it is done at
  once.  The rules' "no legal construction: done" would show when a player's only legal
  construction is its secret monument.  Solo keeps the rule as written: no legal
  construction, done.

Layouts are declared with :mod:`kernels.layout`: the state ``STATE`` (globals ``G_*``, then
``players``, six records of the ``PLAYER`` layout with ``O_*`` offsets inside, then the
scratch tail ``SCRATCH_KEY`` .. ``STATE_SIZE``: the bitboards of ``_build_key``;
``init`` shuffles the monuments there), which carries no game information
(``GameConfig.scratch``); the option vector ``CONFIG`` (``CFG_*``); the observation
``OBS`` (one ``PLAYER_OBS`` piece per seat, ``P_*`` offsets inside, then the public,
private and step-context pieces ``OBS_*``) and the action blocks ``ACTIONS`` (``A_*``).
Phases are ``PH_*``, named in ``PHASE_NAMES`` (snake_case).  ``determinize`` refuses an
observer that is not a seat (``ValueError``) before touching the state.

Version history: v0 initial; v0.1 public turn order (padded Warehouse steps, build step
always offered with other players), scratch at the state tail, determinize redoes a
mid-placement mover's earlier sub-choices and checks its observer, data file checked at
load; v0.2 the build step is offered only when a card in play or a
monument nobody has built could fit ("could fit from public information"): as leak-free
as v0.1 with far fewer PASS-only steps (random games: 108 -> 77 steps at 2 players,
198 -> 136 at 4; the rulebook rule takes 74 and 129); v0.3 declared layouts (state,
observation, actions), options table, phase names in snake_case, re-draws in the kernel;
no rule change; v0.4 (rules revision 2) build steps hidden until the last builder is
done (R6), Trading Post and Obelisk of the Crescent serve their owner at once (R8).
"""
import numpy as np
import yaml
from numba import njit

from kernels import data_files, rng
from kernels.grid import anchor_bitboard, fitting_anchors, image_shifts
from kernels.layout import ActionBlocks, Layout
from kernels.outcome import ranks_lexicographic

# Sections, in the order every kernel file keeps: data (the tables of
# kernels/data/<game>.yaml) -> layouts (actions, state, config) -> helpers -> rules (the
# game's own parts) -> contract (init, current_player, legal_mask, step, advance, scores,
# ranks) -> observation (its layout, observe) -> hidden information (reseed, determinize)
# -> greedy heuristic (potential).

GAME = "tiny_towns"

# Helpers that only jitted code calls skip the Python and C entry points numba otherwise
# builds for every jitted function (about a third of a small helper's compile time: cold
# start).  Called from Python, such a helper crashes the interpreter: a helper that tests
# or the adapter call keeps the plain @njit(cache=True).
JIT_ONLY = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}

# Values jitted functions pass each other are int64 / numpy bool (np.int64(k), and locals
# that start as np.int64(0) when passed on): numba types a bare int or bool as a literal,
# even a local's first value while it infers the local's type, and compiles one more
# specialisation of the callee (and of everything it calls) per literal (cold start).
WHOLE_STEP, PARTIAL_STEP = np.bool_(False), np.bool_(True)    # _random_build's ``partial``

# The card names the rules below refer to; the data file must hold exactly these
# (in any order: cards are numbered in data order).
BUILDING_NAMES = ("Cottage", "Farm", "Granary", "Greenhouse", "Orchard", "Well", "Fountain", "Millstone",
                  "Shed", "Chapel", "Abbey", "Cloister", "Temple", "Tavern", "Almshouse", "Inn",
                  "Feast Hall", "Theater", "Bakery", "Market", "Tailor", "Factory", "Bank", "Trading Post",
                  "Warehouse")
MONUMENT_NAMES = ("Architect's Guild", "Archive of the Second Age", "Barrett Castle",
                  "Cathedral of Caterina", "Fort Ironweed", "Grand Mausoleum of the Rodina",
                  "Grove University", "Mandras Palace", "Obelisk of the Crescent", "Opaleye's Watch",
                  "Shrine of the Elder Tree", "Silva Forum", "The Sky Baths", "The Starloom",
                  "Statue of the Bondmaker")
TYPE_NAMES = ("cottage", "red", "grey", "orange", "green", "yellow", "black")
_VP = (-100, 100)       # any single VP figure in the data


def _check_pattern(ck, path, codes):
    rows = ck.sequence(path, min_len=1, max_len=4)
    width = None
    letters = 0
    for r in range(len(rows)):
        row = ck.string(f"{path}[{r}]")
        ck.require(1 <= len(row) <= 4, f"{path}[{r}]", "a pattern row has 1 to 4 cells")
        ck.require(width is None or len(row) == width, f"{path}[{r}]", "pattern rows must have equal lengths")
        width = len(row)
        for ch in row:
            ck.require(ch == "." or ch in codes, f"{path}[{r}]",
                       f"cells are resource codes {''.join(codes)} or '.', got {ch!r}")
            letters += ch != "."
    ck.require(letters > 0, path, "a pattern needs at least one resource cell")


_SCORE_NUMBERS = ("fed", "unfed", "value", "per", "max", "min_weight", "base", "if_more")


def _check_score(ck, path):
    score = ck.mapping(path)
    kind = ck.string(f"{path}.kind")
    if kind == "flat":
        ck.integer(f"{path}.value", *_VP)
    for key in _SCORE_NUMBERS:
        if key in score:
            ck.integer(f"{path}.{key}", *_VP)
    if "types_considered" in score:
        ck.integer(f"{path}.types_considered", 7, 7)


def check_data(data):
    """Check a parsed Tiny Towns data file against the schema the kernel relies on: types,
    ranges, the card list and the cross-field totals.  Raises
    :class:`kernels.data_files.DataError` (a ``ValueError``) naming the first bad field,
    e.g. ``buildings[3].pattern[1]``; returns ``data``.

    Ranges that bound an observation value (Warehouse capacity, Shrine values, deck and
    display sizes, Guild replacements) are those the observation normalises by, so a
    valid file keeps every observation in [0, 1]."""
    ck = data_files.Checker(data, GAME)
    if not isinstance(data, dict):
        ck.fail("<top>", f"expected a mapping, got {type(data).__name__}")
    # facts the kernel is built on
    ck.integer("schema_version", 1, 1)
    ck.integer("players.min", 1, 1)
    ck.integer("players.max", 6, 6)
    ck.integer("players.solo_at", 1, 1)
    ck.integer("board.rows", 4, 4)
    ck.integer("board.cols", 4, 4)
    ck.integer("setup.monuments.dealt_per_player", 2, 2)
    ck.integer("setup.monuments.kept", 1, 1)
    ck.integer("town_hall.min_players", 2, 2)
    comps = ck.sequence("components")
    for i in range(len(comps)):
        ck.mapping(f"components[{i}]")
        ck.integer(f"components[{i}].count", 0, 1000)
        if "per_resource" in comps[i]:
            ck.integer(f"components[{i}].per_resource", 0, 1000)
    # resources and building types
    res = ck.sequence("resources", length=5)
    codes, ids = [], []
    for i in range(len(res)):
        ck.mapping(f"resources[{i}]")
        ck.integer(f"resources[{i}].index", i, i)
        c = ck.string(f"resources[{i}].code")
        ck.require(len(c) == 1 and c.isalpha() and c.isupper(), f"resources[{i}].code",
                   f"a resource code is one capital letter, got {c!r}")
        codes.append(c)
        ids.append(ck.string(f"resources[{i}].id"))
    ck.require(len(set(codes)) == 5, "resources", "resource codes must be distinct")
    ck.require(len(set(ids)) == 5, "resources", "resource ids must be distinct")
    types = ck.sequence("building_types", length=7)
    tids = []
    for i in range(len(types)):
        ck.mapping(f"building_types[{i}]")
        ck.integer(f"building_types[{i}].index", i, i)
        tids.append(ck.string(f"building_types[{i}].id", TYPE_NAMES))
    ck.require(tuple(tids) == TYPE_NAMES, "building_types", f"the 7 types in the order {list(TYPE_NAMES)}")
    # cards
    blds = ck.sequence("buildings", length=len(BUILDING_NAMES))
    bnames = []
    for i in range(len(blds)):
        p = f"buildings[{i}]"
        ck.mapping(p)
        bnames.append(ck.string(f"{p}.name", BUILDING_NAMES))
        ck.string(f"{p}.type", TYPE_NAMES)
        _check_pattern(ck, f"{p}.pattern", codes)
        _check_score(ck, f"{p}.score")
    ck.require(len(set(bnames)) == len(bnames), "buildings", "each building card once")
    per_type = [sum(1 for b in blds if b["type"] == t) for t in TYPE_NAMES]
    ck.require(per_type[0] == 1, "buildings", "exactly one card of type cottage (the Cottage)")
    for k in range(1, 7):
        ck.require(per_type[k] == 4, "buildings", f"the {TYPE_NAMES[k]} deck needs 4 cards, got {per_type[k]}")
    ck.require(blds[bnames.index("Cottage")]["type"] == "cottage", "buildings", "the Cottage is of type cottage")
    mons = ck.sequence("monuments", length=len(MONUMENT_NAMES))
    mnames = []
    for i in range(len(mons)):
        p = f"monuments[{i}]"
        ck.mapping(p)
        mnames.append(ck.string(f"{p}.name", MONUMENT_NAMES))
        if ck.get(f"{p}.type", None) is not None:
            ck.string(f"{p}.type", ("cottage",))
        _check_pattern(ck, f"{p}.pattern", codes)
        _check_score(ck, f"{p}.score")
        ob = mons[i].get("on_build")
        if isinstance(ob, dict):
            for key in ("max", "count"):
                if key in ob:
                    ck.integer(f"{p}.on_build.{key}", 0, 16)
        elif ob is not None:
            ck.string(f"{p}.on_build")
    ck.require(len(set(mnames)) == len(mnames), "monuments", "each monument once")
    bi = {n: i for i, n in enumerate(bnames)}
    mi = {n: i for i, n in enumerate(mnames)}

    def b(name, field, lo=_VP[0], hi=_VP[1]):
        return ck.integer(f"buildings[{bi[name]}].{field}", lo, hi)

    def m(name, field, lo=_VP[0], hi=_VP[1]):
        return ck.integer(f"monuments[{mi[name]}].{field}", lo, hi)

    def type_list(path):
        lst = ck.sequence(path, min_len=1, max_len=7)
        for j in range(len(lst)):
            ck.string(f"{path}[{j}]", TYPE_NAMES)

    b("Cottage", "score.fed")
    b("Farm", "feeds.capacity", 0, 16)
    for name in ("Fountain", "Millstone", "Abbey", "Bakery"):
        b(name, "score.value")
        type_list(f"buildings[{bi[name]}].score.types")
    b("Cloister", "score.max", 0, 16)
    b("Temple", "score.value")
    b("Temple", "score.min_weight", 0, 32)
    b("Inn", "score.value")
    b("Feast Hall", "score.base")
    b("Feast Hall", "score.if_more")
    b("Tailor", "score.base")
    ck.string(f"buildings[{bi['Theater']}].score.excluded_type", TYPE_NAMES)
    b("Warehouse", "capacity", 1, 3)
    b("Bank", "max_per_town", 1, 5)
    m("Barrett Castle", "score.fed")
    m("Barrett Castle", "cottage_weight", 1, 4)
    m("Mandras Palace", "score.per")
    m("The Sky Baths", "score.per")
    m("Silva Forum", "score.base")
    m("Grand Mausoleum of the Rodina", "unfed_cottage_value")
    m("Grove University", "on_build.count", 1, 1)
    m("Statue of the Bondmaker", "cottage_capacity", 1, 1)
    m("Cathedral of Caterina", "empty_square_value")
    m("Architect's Guild", "on_build.max", 0, 2)
    m("Opaleye's Watch", "on_build.count", 1, 7)
    # tables
    for name, count, lo, hi in (("tavern", "count", *_VP), ("almshouse", "count", *_VP),
                                ("shrine", "buildings", 0, 8), ("starloom", "place", *_VP)):
        vp = ck.sequence(f"tables.{name}.vp", min_len=1, max_len=8 if name == "starloom" else 16)
        for j in range(len(vp)):
            ck.integer(f"tables.{name}.vp[{j}]", lo, hi)
        ck.integer(f"tables.{name}.later" if name == "starloom" else f"tables.{name}.above_last", lo, hi)
        ck.sequence(f"tables.{name}.{count}", length=len(vp))
        for j in range(len(vp)):
            ck.integer(f"tables.{name}.{count}[{j}]", j + 1, j + 1)
    ck.integer("tables.empty_square.vp", *_VP)
    ck.integer("tables.empty_square.with_cathedral", *_VP)
    # board
    for key in ("corners", "centre"):
        sq = ck.sequence(f"board.{key}", length=4)
        for j in range(4):
            ck.integer(f"board.{key}[{j}]", 0, 15)
        ck.require(len(set(sq)) == 4, f"board.{key}", "4 distinct squares")
    # decided values
    dv = ck.sequence("decided_values", min_len=1)
    where = {}
    for j in range(len(dv)):
        ck.mapping(f"decided_values[{j}]")
        k = ck.string(f"decided_values[{j}].key")
        ck.require(k not in where, f"decided_values[{j}].key", f"{k!r} given twice")
        where[k] = f"decided_values[{j}].value"
    for k in ("barrett_feed_cost", "feast_hall_solo_each", "bank_ban_lifted_when_all_five_banked"):
        ck.require(k in where, "decided_values", f"missing the entry {k!r}")
    ck.integer(where["barrett_feed_cost"], 1, 1)
    ck.integer(where["feast_hall_solo_each"], *_VP)
    ck.boolean(where["bank_ban_lifted_when_all_five_banked"])
    # variants
    ck.integer("cave_rule.uses_per_game", 1, 16)
    per = ck.integer("town_hall.deck.per_resource", 1, 3)
    ck.integer("town_hall.deck.cards", 5 * per, 5 * per)
    disc = ck.integer("town_hall.discard_face_down_after_shuffle", 0, 5 * per - 1)
    ck.require(5 * per - disc <= 10, "town_hall.discard_face_down_after_shuffle",
               "at most 10 cards may be drawn between two shuffles")
    per = ck.integer("solo.deck.per_resource", 1, 3)
    ck.integer("solo.deck.cards", 5 * per, 5 * per)
    disp = ck.integer("solo.display", 1, 3)
    ck.require(disp < 5 * per, "solo.display", "the display must leave cards in the deck")
    ck.require(5 * per - disp <= 12, "solo.display", "at most 12 cards may start face down")
    for key, names in (("removed_cards", bnames), ("removed_monuments", mnames)):
        lst = ck.sequence(f"solo.{key}")
        for j in range(len(lst)):
            ck.string(f"solo.{key}[{j}]", names)
    gone = set(data["solo"]["removed_cards"])
    for k in range(1, 7):
        ck.require(any(bb["type"] == TYPE_NAMES[k] and bb["name"] not in gone for bb in blds),
                   "solo.removed_cards", f"the solo game needs a card of the {TYPE_NAMES[k]} deck")
    ck.require(bnames.index("Cottage") >= 0 and "Cottage" not in gone, "solo.removed_cards",
               "the Cottage is always in play")
    ck.require(len(mnames) - len(set(data["solo"]["removed_monuments"])) >= 2, "solo.removed_monuments",
               "the solo player is dealt 2 monuments")
    ratings = ck.sequence("solo.ratings", min_len=1)
    for j in range(len(ratings)):
        p = f"solo.ratings[{j}]"
        ck.mapping(p)
        ck.string(f"{p}.title")
        lo = ck.integer(f"{p}.min", *_VP) if "min" in ratings[j] else None
        hi = ck.integer(f"{p}.max", *_VP) if "max" in ratings[j] else None
        ck.require(lo is None or hi is None or lo <= hi, p, "min must not exceed max")
    presets = ck.sequence("presets.first_game.cards", min_len=6, max_len=7)
    for j in range(len(presets)):
        ck.string(f"presets.first_game.cards[{j}]", bnames)
    # the worked example (documentation; tests read it)
    if "rulebook_example" in data:
        ck.mapping("rulebook_example")
        for key in ck.mapping("rulebook_example.breakdown"):
            ck.integer(f"rulebook_example.breakdown.{key}", *_VP)
        ck.integer("rulebook_example.total", *_VP)
        ck.integer("rulebook_example.warehouse_cubes", 0, 3)
    return data


def read_data(path=None):
    """The checked data of the game: the package's ``kernels/data/tiny_towns.yaml`` (what
    the kernel runs on), or the file at ``path`` (to check an edited copy before
    installing it).  :class:`kernels.data_files.DataError` names any bad field."""
    if path is None:
        return check_data(data_files.load(GAME, __file__))
    try:
        with open(path, "rb") as f:
            data = yaml.safe_load(f.read())
    except yaml.YAMLError as e:
        raise data_files.DataError(f"{GAME} data: not valid YAML ({e})") from None
    return check_data(data)


DATA = read_data()

# ----------------------------------------------------------------------------- data tables
RES_CODES = "".join(r["code"] for r in DATA["resources"])          # "WHBGS"
RES_IDS = [r["id"] for r in DATA["resources"]]
TYPE_IDS = [t["id"] for t in DATA["building_types"]]
CARD_NAMES = [b["name"] for b in DATA["buildings"]] + [m["name"] for m in DATA["monuments"]]
NUM_BUILDING_CARDS = len(DATA["buildings"])        # 25 building cards
NUM_MONUMENTS = len(DATA["monuments"])        # 15 monuments
NUM_CARDS = NUM_BUILDING_CARDS + NUM_MONUMENTS
NUM_RESOURCES = 5
NUM_TYPES = 7


def _card_token(name):
    return name.lower().replace("'", "").replace(" ", "_")


CARD_TOKENS = [_card_token(n) for n in CARD_NAMES]
CARD_ID = {n: i for i, n in enumerate(CARD_NAMES)}

CARD_TYPE = np.full(NUM_CARDS, 7, dtype=np.int64)        # 7 = monument
for _i, _b in enumerate(DATA["buildings"]):
    CARD_TYPE[_i] = TYPE_IDS.index(_b["type"])
# type key for "distinct type" counts: building types 0..6, Barrett Castle = cottage,
# every other monument its own type (10 + card)
TYPE_KEY = np.zeros(NUM_CARDS, dtype=np.int64)
for _i in range(NUM_CARDS):
    TYPE_KEY[_i] = CARD_TYPE[_i] if _i < NUM_BUILDING_CARDS else 10 + _i
for _i, _m in enumerate(DATA["monuments"]):
    if _m.get("type") == "cottage":
        TYPE_KEY[NUM_BUILDING_CARDS + _i] = 0

C_COTTAGE = CARD_ID["Cottage"]
C_FARM, C_GRANARY, C_GREENHOUSE, C_ORCHARD = (CARD_ID[n] for n in ("Farm", "Granary", "Greenhouse", "Orchard"))
C_WELL, C_FOUNTAIN, C_MILLSTONE, C_SHED = (CARD_ID[n] for n in ("Well", "Fountain", "Millstone", "Shed"))
C_CHAPEL, C_ABBEY, C_CLOISTER, C_TEMPLE = (CARD_ID[n] for n in ("Chapel", "Abbey", "Cloister", "Temple"))
C_TAVERN, C_ALMSHOUSE, C_INN, C_FEAST = (CARD_ID[n] for n in ("Tavern", "Almshouse", "Inn", "Feast Hall"))
C_THEATER, C_BAKERY, C_MARKET, C_TAILOR = (CARD_ID[n] for n in ("Theater", "Bakery", "Market", "Tailor"))
C_FACTORY, C_BANK, C_TPOST, C_WAREHOUSE = (CARD_ID[n] for n in ("Factory", "Bank", "Trading Post", "Warehouse"))
M_GUILD = CARD_ID["Architect's Guild"]
M_ARCHIVE = CARD_ID["Archive of the Second Age"]
M_BARRETT = CARD_ID["Barrett Castle"]
M_CATHEDRAL = CARD_ID["Cathedral of Caterina"]
M_FORT = CARD_ID["Fort Ironweed"]
M_MAUSOLEUM = CARD_ID["Grand Mausoleum of the Rodina"]
M_GROVE = CARD_ID["Grove University"]
M_MANDRAS = CARD_ID["Mandras Palace"]
M_OBELISK = CARD_ID["Obelisk of the Crescent"]
M_OPALEYE = CARD_ID["Opaleye's Watch"]
M_SHRINE = CARD_ID["Shrine of the Elder Tree"]
M_SILVA = CARD_ID["Silva Forum"]
M_SKYBATHS = CARD_ID["The Sky Baths"]
M_STARLOOM = CARD_ID["The Starloom"]
M_STATUE = CARD_ID["Statue of the Bondmaker"]

# flat VP of every card (0 where the score is not flat)
FLAT_VP = np.zeros(NUM_CARDS, dtype=np.int64)
for _i, _c in enumerate(DATA["buildings"] + DATA["monuments"]):
    if _c["score"]["kind"] == "flat":
        FLAT_VP[_i] = _c["score"]["value"]
_B = {b["name"]: b for b in DATA["buildings"]}
_M = {m["name"]: m for m in DATA["monuments"]}
COTTAGE_FED_VP = _B["Cottage"]["score"]["fed"]
BARRETT_FED_VP = _M["Barrett Castle"]["score"]["fed"]
BARRETT_WEIGHT = _M["Barrett Castle"]["cottage_weight"]
FARM_CAP = _B["Farm"]["feeds"]["capacity"]
FOUNTAIN_VP = _B["Fountain"]["score"]["value"]
MILLSTONE_VP = _B["Millstone"]["score"]["value"]
ABBEY_VP = _B["Abbey"]["score"]["value"]
CLOISTER_MAX = _B["Cloister"]["score"]["max"]
TEMPLE_VP = _B["Temple"]["score"]["value"]
TEMPLE_MIN = _B["Temple"]["score"]["min_weight"]
INN_VP = _B["Inn"]["score"]["value"]
FEAST_BASE = _B["Feast Hall"]["score"]["base"]
FEAST_MORE = _B["Feast Hall"]["score"]["if_more"]
BAKERY_VP = _B["Bakery"]["score"]["value"]
TAILOR_BASE = _B["Tailor"]["score"]["base"]
WAREHOUSE_CAP = _B["Warehouse"]["capacity"]
MAX_BANKS = _B["Bank"]["max_per_town"]
MANDRAS_PER = _M["Mandras Palace"]["score"]["per"]
SKYBATHS_PER = _M["The Sky Baths"]["score"]["per"]
SILVA_BASE = _M["Silva Forum"]["score"]["base"]
MAUSOLEUM_UNFED = _M["Grand Mausoleum of the Rodina"]["unfed_cottage_value"]
assert _M["Statue of the Bondmaker"]["cottage_capacity"] == 1, "a Cottage holds one Statue cube (O_BUILDING_RES)"
GUILD_MAX = _M["Architect's Guild"]["on_build"]["max"]
OPALEYE_COUNT = _M["Opaleye's Watch"]["on_build"]["count"]
_T = DATA["tables"]


def _type_mask(types):
    m = 0
    for t in types:
        m |= 1 << TYPE_IDS.index(t)
    return m


FOUNTAIN_TYPES = _type_mask(_B["Fountain"]["score"]["types"])
MILLSTONE_TYPES = _type_mask(_B["Millstone"]["score"]["types"])
ABBEY_TYPES = _type_mask(_B["Abbey"]["score"]["types"])
BAKERY_TYPES = _type_mask(_B["Bakery"]["score"]["types"])
THEATER_EXCLUDED = TYPE_IDS.index(_B["Theater"]["score"]["excluded_type"])


def _table(vals, above, n):
    out = np.zeros(n + 1, dtype=np.int64)
    for k in range(1, n + 1):
        out[k] = vals[k - 1] if k <= len(vals) else above
    return out


TAVERN_VP = _table(_T["tavern"]["vp"], _T["tavern"]["above_last"], 16)
ALMS_VP = _table(_T["almshouse"]["vp"], _T["almshouse"]["above_last"], 16)
SHRINE_VP = _table(_T["shrine"]["vp"], _T["shrine"]["above_last"], 16)
STAR_VP = _table(_T["starloom"]["vp"], _T["starloom"]["later"], 8)
EMPTY_VP = _T["empty_square"]["vp"]
EMPTY_VP_CATHEDRAL = _T["empty_square"]["with_cathedral"]
_DV = {d["key"]: d["value"] for d in DATA["decided_values"]}
FEAST_SOLO = _DV["feast_hall_solo_each"]
BARRETT_FEED_COST = _DV["barrett_feed_cost"]
assert BARRETT_FEED_COST == 1, "the feeding search assumes Barrett Castle costs one Farm feed"
BANK_BAN_LIFT = 1 if _DV["bank_ban_lifted_when_all_five_banked"] else 0
CAVE_USES = DATA["cave_rule"]["uses_per_game"]
TH_DECK_PER = DATA["town_hall"]["deck"]["per_resource"]
TH_DISCARD = DATA["town_hall"]["discard_face_down_after_shuffle"]
TH_DRAWS = NUM_RESOURCES * TH_DECK_PER - TH_DISCARD
SOLO_DECK_PER = DATA["solo"]["deck"]["per_resource"]
SOLO_DISPLAY = DATA["solo"]["display"]
SOLO_DECK = NUM_RESOURCES * SOLO_DECK_PER
SOLO_REMOVED = np.zeros(NUM_CARDS, dtype=np.int64)
for _n in DATA["solo"]["removed_cards"] + DATA["solo"]["removed_monuments"]:
    SOLO_REMOVED[CARD_ID[_n]] = 1
DECK_CARDS = np.zeros((NUM_TYPES, 4), dtype=np.int64)     # the colour decks
_cnt = [0] * NUM_TYPES
for _i in range(NUM_BUILDING_CARDS):
    _t = CARD_TYPE[_i]
    if _t > 0:
        DECK_CARDS[_t, _cnt[_t]] = _i
        _cnt[_t] += 1
CORNER = np.zeros(16, dtype=np.int64)
for _q in DATA["board"]["corners"]:
    CORNER[_q] = 1
CENTRE = np.zeros(16, dtype=np.int64)
for _q in DATA["board"]["centre"]:
    CENTRE[_q] = 1


# ----------------------------------------------------------------- pattern transforms
def _transform_cells(pattern, t):
    """Cells ``(row, col, res)`` of ``pattern`` under transform t (data ``encoding.transforms``)
    and the box ``(h, w)``: mirror left-right if t >= 4, then rotate clockwise t mod 4 times."""
    h, w = len(pattern), len(pattern[0])
    cells = [(r, c, RES_CODES.index(ch)) for r, row in enumerate(pattern) for c, ch in enumerate(row)
             if ch != "."]
    if t >= 4:
        cells = [(r, w - 1 - c, v) for r, c, v in cells]
    for _ in range(t % 4):
        cells = [(c, h - 1 - r, v) for r, c, v in cells]
        h, w = w, h
    return sorted(cells), h, w


PATTERNS = [b["pattern"] for b in DATA["buildings"]] + [m["pattern"] for m in DATA["monuments"]]
MAX_PATTERN_CELLS = max(sum(ch != "." for row in p for ch in row) for p in PATTERNS)
# offsets (dr, dc, value) in the rules' t order
# (grid.d4_transforms orders and de-duplicates images differently, so the action encoding
# of docs/rules/tiny_towns.md (section 11.2) needs its own table)
PATTERN_CELLS = np.zeros((NUM_CARDS, 8, MAX_PATTERN_CELLS, 3), dtype=np.int64)
PATTERN_SIZE = np.zeros(NUM_CARDS, dtype=np.int64)
TRANSFORM_DISTINCT = np.zeros((NUM_CARDS, 8), dtype=np.int64)
TRANSFORM_BOX = np.zeros((NUM_CARDS, 8, 2), dtype=np.int64)
for _c, _p in enumerate(PATTERNS):
    _seen = set()
    for _t in range(8):
        _cells, _h, _w = _transform_cells(_p, _t)
        PATTERN_SIZE[_c] = len(_cells)
        TRANSFORM_BOX[_c, _t] = (_h, _w)
        for _k, (_r, _cc, _v) in enumerate(_cells):
            PATTERN_CELLS[_c, _t, _k] = (_r, _cc, _v)
        _key = tuple(_cells)
        if _key not in _seen:
            _seen.add(_key)
            TRANSFORM_DISTINCT[_c, _t] = 1
# bitboards (bit q: square q): the anchors keeping each distinct image on the board (0 for
# a repeated image), and the image's squares anchored at square 0
PATTERN_ANCHORS = np.zeros((NUM_CARDS, 8), dtype=np.int64)
PATTERN_BITS = np.zeros((NUM_CARDS, 8), dtype=np.int64)
for _c in range(NUM_CARDS):
    for _t in range(8):
        if TRANSFORM_DISTINCT[_c, _t]:
            PATTERN_ANCHORS[_c, _t] = anchor_bitboard(*TRANSFORM_BOX[_c, _t], 4, 4)
        for _r, _cc, _v in PATTERN_CELLS[_c, _t, :PATTERN_SIZE[_c]]:
            PATTERN_BITS[_c, _t] |= 1 << (4 * _r + _cc)
# the images as grid.fitting_anchors reads them (bit shift and resource of each square),
# and each card's distinct images (the transforms t worth searching)
PATTERN_SHIFT = np.zeros((NUM_CARDS, 8, MAX_PATTERN_CELLS), dtype=np.int64)
PATTERN_VALUE = np.zeros((NUM_CARDS, 8, MAX_PATTERN_CELLS), dtype=np.int64)
DISTINCT_TS = np.zeros((NUM_CARDS, 8), dtype=np.int64)
NUM_DISTINCT = np.zeros(NUM_CARDS, dtype=np.int64)
for _c in range(NUM_CARDS):
    for _t in range(8):
        _n = PATTERN_SIZE[_c]
        PATTERN_SHIFT[_c, _t, :_n], PATTERN_VALUE[_c, _t, :_n] = image_shifts(PATTERN_CELLS[_c, _t, :_n], 4)
        if TRANSFORM_DISTINCT[_c, _t]:
            DISTINCT_TS[_c, NUM_DISTINCT[_c]] = _t
            NUM_DISTINCT[_c] += 1

# ----------------------------------------------------------------------- action space
MAX_MONUMENTS_DEALT = 2
ACTIONS = ActionBlocks("tiny_towns actions", [
    ("construct", 8 * 8 * 16),      # 128 * slot + 16 * transform + anchor square
    ("square", 16),
    ("resource", NUM_RESOURCES),
    ("type", NUM_TYPES),
    ("keep", MAX_MONUMENTS_DEALT),
    ("pass", 1),
    ("set_aside", 1),
])
A_CONSTRUCT = ACTIONS.offset("construct")
A_SQUARE = ACTIONS.offset("square")
A_RESOURCE = ACTIONS.offset("resource")
A_TYPE = ACTIONS.offset("type")
A_KEEP = ACTIONS.offset("keep")
A_PASS = ACTIONS.offset("pass")
A_SET_ASIDE = ACTIONS.offset("set_aside")
NUM_ACTIONS = ACTIONS.num_actions
CONSTRUCT_SLOT = 128       # construct id = A_CONSTRUCT + CONSTRUCT_SLOT * slot + CONSTRUCT_T * t + anchor
CONSTRUCT_T = 16

# phases (the decision the actor faces)
PHASE_NAMES = ("keep", "name", "choose", "take", "dest", "swap", "swap_square", "build", "token",
               "build_resource", "grove_type", "grove_square", "guild_target", "guild_type",
               "opaleye_type", "opaleye_square", "game_over")
PH_KEEP, PH_NAME, PH_CHOOSE, PH_TAKE, PH_DEST, PH_SWAP, PH_SWAP_SQUARE, PH_BUILD, PH_TOKEN, \
    PH_BUILD_RESOURCE, PH_GROVE_TYPE, PH_GROVE_SQUARE, PH_GUILD_TARGET, PH_GUILD_TYPE, PH_OPALEYE_TYPE, \
    PH_OPALEYE_SQUARE, PH_GAME_OVER = range(len(PHASE_NAMES))
NUM_PHASES = len(PHASE_NAMES)
# stages of a round
ST_KEEP, ST_NAME, ST_COMMIT, ST_BUILD, ST_END = range(5)
# return targets after a BUILD_RESOURCE step
RET_BUILD, RET_GUILD, RET_END = range(3)

# ----------------------------------------------------------------------- option vector
CONFIG = Layout("tiny_towns config")
CFG_NUM_PLAYERS = CONFIG.add("num_players")
CFG_TOWN_HALL = CONFIG.add("town_hall")              # 0 standard, 1 town hall
CFG_MONUMENTS = CONFIG.add("monuments")
CFG_CAVE_RULE = CONFIG.add("cave_rule")
CFG_FIRST_PLAYER = CONFIG.add("first_player")        # -1 random
CFG_CARDS = CONFIG.add("cards", (NUM_TYPES,))           # card per colour deck, -1 random (slot 0 unused)
CONFIG_SIZE = CONFIG.size

# ------------------------------------------------------------------------ state layout
MAX_SEATS = 6
# one player's record (offsets inside the record)
PLAYER = Layout("tiny_towns player record")
O_CUBE = PLAYER.add("cube", (16,))                    # loose cube per square, -1 none
O_BUILDING = PLAYER.add("building", (16,))            # card per square, -1 none
O_BUILDING_RES = PLAYER.add("building_resource", (16,))   # Factory/Bank/Statue cube, -1 none
O_PLACED_ROUND = PLAYER.add("placed_round", (16,))    # round a building was placed
O_WAREHOUSE = PLAYER.add("warehouse", (16, NUM_RESOURCES))     # Warehouse stock per square and resource
O_STATUS = PLAYER.add("status")                       # 0 still building, 1 complete
O_DONE_ROUND = PLAYER.add("done_round")               # round the town was completed
O_MB_TURNS = PLAYER.add("master_builder_turns")
O_CAVE_USES = PLAYER.add("cave_uses")
O_DEALT = PLAYER.add("dealt_monuments", (MAX_MONUMENTS_DEALT,))
O_KEPT = PLAYER.add("kept_monument")
O_MONUMENT_BUILT = PLAYER.add("monument_built")
O_SHRINE = PLAYER.add("shrine_value")
O_OPALEYE_ASIDE = PLAYER.add("opaleye_aside", (NUM_TYPES,))   # set-aside flags per type
O_BUILT_TYPES = PLAYER.add("built_types")             # bitmask of types constructed this round
O_COMMITTED = PLAYER.add("committed")
O_PEND_OFFERED = PLAYER.add("pending_offered")        # resource offered / chosen this round
O_PEND_IMPOSED = PLAYER.add("pending_imposed")
O_PEND_RESOURCE = PLAYER.add("pending_resource")      # resource taken (after a Factory swap)
O_PEND_DEST = PLAYER.add("pending_dest")              # square, 16 = set aside
O_PEND_SWAP_RES = PLAYER.add("pending_swap_resource")
O_PEND_SWAP_SQUARE = PLAYER.add("pending_swap_square")
O_PEND_STAGE = PLAYER.add("pending_stage")
O_MONUMENT_CELL = PLAYER.add("monument_cell")
PLAYER_SIZE = PLAYER.size

STATE = Layout("tiny_towns state")
G_NUM_PLAYERS = STATE.add("num_players")
G_TOWN_HALL = STATE.add("town_hall")                  # 0 standard, 1 town hall
G_SOLO = STATE.add("solo")
G_MONUMENTS = STATE.add("monuments")
G_CAVE_RULE = STATE.add("cave_rule")
G_ROUND = STATE.add("round")
G_PHASE = STATE.add("phase")
G_ACTOR = STATE.add("actor")
G_STAGE = STATE.add("stage")
G_ORDER = STATE.add("turn_order", (MAX_SEATS,))
G_ORDER_LEN = STATE.add("turn_order_len")
G_ORDER_POS = STATE.add("turn_order_pos")
G_MASTER_BUILDER = STATE.add("master_builder")
G_MAYOR = STATE.add("mayor")
G_RESOURCE = STATE.add("round_resource")              # public resource of the round (named / drawn), -1 otherwise
G_TH_FREE_ROUND = STATE.add("town_hall_free_round")   # town hall: 0 drawn, 1 free
G_UNSEEN = STATE.add("unseen", (NUM_RESOURCES,))               # unseen cards per resource (town hall since last shuffle; solo face-down)
G_DRAWS_LEFT = STATE.add("draws_left")                # town hall draws left before a reshuffle
G_DISPLAY = STATE.add("solo_display", (NUM_RESOURCES,))        # solo display counts
G_NEVER_SEEN = STATE.add("solo_never_seen")           # solo: face-down cards never seen
G_UNDER_DECK = STATE.add("solo_under_deck", (15,))    # solo known cards under the deck, in order
G_UNDER_DECK_LEN = STATE.add("solo_under_deck_len")
G_SOLO_TAKEN = STATE.add("solo_taken")                # solo: resource of the card taken this round
G_RNG = STATE.add("rng", (2,))
G_CARDS_IN_PLAY = STATE.add("cards_in_play", (NUM_TYPES,))   # card in play per type
G_TOKEN_CARD = STATE.add("token_card")                # construction waiting for its token
G_TOKEN_VACATED = STATE.add("token_vacated")          # bitmask of vacated squares
G_TOKEN_ANYWHERE = STATE.add("token_anywhere")        # token may go on any empty square
G_RESOURCE_CELL = STATE.add("resource_cell")          # square of the building awaiting BUILD_RESOURCE
G_RESOURCE_RETURN = STATE.add("resource_return")      # RET_*: where play resumes after it
G_GUILD_LEFT = STATE.add("guild_left")
G_GUILD_REPLACED = STATE.add("guild_replaced")        # bitmask of squares replaced
G_GUILD_CELL = STATE.add("guild_cell")
G_OPALEYE_MOVED = STATE.add("opaleye_moved")
G_OPALEYE_OWNER = STATE.add("opaleye_owner")
G_OPALEYE_TYPES_LEFT = STATE.add("opaleye_types_left")    # bitmask
G_OPALEYE_TYPE = STATE.add("opaleye_type")
G_FACE_UP = STATE.add("town_hall_face_up", (NUM_RESOURCES,))   # town hall face-up discards since the last shuffle
G_GROVE_TYPE = STATE.add("grove_type")
G_OPALEYE_STARTED = STATE.add("opaleye_started")
# Each player's record as the other seats see it during the build stage: a copy taken when
# the placements are revealed.  A player's constructions of the round go to its own record
# only and reach the others' views (observation, text, pictures, their build offers) when the
# last builder is done (rules R6); outside the build stage the copy is not read.
G_SHOWN = STATE.add("shown_players", (MAX_SEATS, PLAYER_SIZE))
G_PLAYERS = STATE.add("players", (MAX_SEATS, PLAYER_SIZE))
# scratch tail (carries no game information): the bitboards of _build_key; init shuffles
# the monument pool here
SCRATCH_KEY = STATE.add("scratch_key", (16,), scratch=True)
KEY_WILD = SCRATCH_KEY + NUM_RESOURCES       # _build_key's wild and loose-cube bitboards follow its
KEY_CUBES = SCRATCH_KEY + NUM_RESOURCES + 1  # NUM_RESOURCES resource bitboards
SCRATCH_SCORE_PARTS = STATE.add("scratch_score_parts", (NUM_CARDS + 2,), scratch=True)   # scores' breakdown
SCRATCH_RANK_KEYS = STATE.add("scratch_rank_keys", (MAX_SEATS, 4), scratch=True)          # ranks' keys per seat
SCRATCH_SIZE = STATE.scratch_size
assert NUM_MONUMENTS <= SCRATCH_SIZE      # init deals the monuments from a pool in the scratch tail
STATE_SIZE = STATE.size

# The step context of a build step (with the turn order position): where a build step
# under way keeps its choices, reset to IDLE_CONTEXT whenever the player is back at its
# BUILD decision, so nothing of an earlier build step lingers in the state.
BUILD_CONTEXT = np.array([G_PHASE, G_ACTOR, G_ORDER_POS, G_TOKEN_CARD, G_TOKEN_VACATED, G_TOKEN_ANYWHERE,
                          G_RESOURCE_CELL, G_RESOURCE_RETURN, G_GUILD_LEFT, G_GUILD_REPLACED, G_GUILD_CELL,
                          G_OPALEYE_MOVED, G_GROVE_TYPE, G_OPALEYE_TYPE], dtype=np.int64)
IDLE_CONTEXT = np.array([PH_BUILD, 0, 0, -1, 0, 0, -1, RET_BUILD, 0, 0, -1, 0, -1, -1], dtype=np.int64)
CONTEXT_FIRST_IDLE = 3      # phase, actor and turn order position are not reset


# ============================================================================ helpers
@njit(cache=True)
def _player_base(p):
    return G_PLAYERS + p * PLAYER_SIZE


# Viewers of a player's record besides a seat (see seen_base).
EVERYTHING = -1     # everything as it stands, hidden constructions included
TABLE = MAX_SEATS        # what every seat sees: the public table


@njit(cache=True)
def _builds_hidden(state):
    """The build stage of a game with others at the table: the players' constructions of
    the round are committed hidden and revealed together when the last builder is done."""
    return state[G_STAGE] == ST_BUILD and state[G_SOLO] == 0


@njit(cache=True)
def seen_base(state, p, viewer):
    """Offset of p's record as ``viewer`` sees it (a seat, ``TABLE`` or ``EVERYTHING``):
    p's own record, except during the build stage for anyone but p and ``EVERYTHING``,
    who see the copy taken when the placements were revealed (R6)."""
    if viewer != EVERYTHING and viewer != p and _builds_hidden(state):
        return G_SHOWN + p * PLAYER_SIZE
    return G_PLAYERS + p * PLAYER_SIZE


@njit(cache=True, **JIT_ONLY)
def _show_records(state):
    """The placements are revealed: what every seat sees of each record from now until the
    last builder is done."""
    for i in range(state[G_NUM_PLAYERS] * PLAYER_SIZE):
        state[G_SHOWN + i] = state[G_PLAYERS + i]


@njit(cache=True, **JIT_ONLY)
def _is_empty(state, p, q):
    b = _player_base(p)
    return state[b + O_CUBE + q] < 0 and state[b + O_BUILDING + q] < 0


@njit(cache=True, **JIT_ONLY)
def _n_empty(state, p):
    n = 0
    for q in range(16):
        if _is_empty(state, p, q):
            n += 1
    return n


@njit(cache=True, **JIT_ONLY)
def _count_card(state, p, card):
    b = _player_base(p)
    n = 0
    for q in range(16):
        if state[b + O_BUILDING + q] == card:
            n += 1
    return n


@njit(cache=True, **JIT_ONLY)
def _active_cell(state, p, q):
    return state[_player_base(p) + O_PLACED_ROUND + q] < state[G_ROUND]


@njit(cache=True, **JIT_ONLY)
def _monument_active(state, p, m):
    """Own monument ``m`` built before the current round."""
    b = _player_base(p)
    if state[b + O_KEPT] != m or state[b + O_MONUMENT_BUILT] == 0:
        return False
    return state[b + O_PLACED_ROUND + state[b + O_MONUMENT_CELL]] < state[G_ROUND]


@njit(cache=True, **JIT_ONLY)
def _monument_built(state, p, m):
    b = _player_base(p)
    return state[b + O_KEPT] == m and state[b + O_MONUMENT_BUILT] != 0


@njit(cache=True, **JIT_ONLY)
def _n_building(state):
    n = 0
    for p in range(state[G_NUM_PLAYERS]):
        if state[_player_base(p) + O_STATUS] == 0:
            n += 1
    return n


@njit(cache=True, **JIT_ONLY)
def _bank_res_mask(state, p, skip_cell):
    """Bitmask of resources lying on p's Banks (except the one on ``skip_cell``)."""
    b = _player_base(p)
    m = 0
    for q in range(16):
        if q != skip_cell and state[b + O_BUILDING + q] == C_BANK and state[b + O_BUILDING_RES + q] >= 0:
            m |= 1 << state[b + O_BUILDING_RES + q]
    return m


@njit(cache=True, **JIT_ONLY)
def _naming_mask(state, p):
    m = _bank_res_mask(state, p, np.int64(-1))
    if m == 31 and BANK_BAN_LIFT:
        return 31
    return 31 & ~m


@njit(cache=True)
def _warehouse_count(state, p, q):
    b = _player_base(p) + O_WAREHOUSE + q * 5
    return state[b] + state[b + 1] + state[b + 2] + state[b + 3] + state[b + 4]


@njit(cache=True, **JIT_ONLY)
def _draw_weighted(state, off, n):
    """Draw a resource with probability proportional to ``state[off:off+n]``; decrements it."""
    return rng.draw_from_counts(state, G_RNG, off, n)


# ======================================================================= construction
@njit(cache=True, **JIT_ONLY)
def _build_key(state, p):
    """p's construction key as bitboards (bit q: square q) in the scratch tail: at
    ``SCRATCH_KEY + r`` the squares that may stand for resource r (a loose cube of r or a
    Trading Post of p), at ``KEY_WILD`` the Trading Posts, at ``KEY_CUBES`` the loose cubes.
    A Trading Post serves its owner from the moment it stands, later constructions of the
    same build step included (R8).  Returns the counts for :func:`_enough_cubes`."""
    b = _player_base(p)
    wild = np.int64(0)
    cubes = 0
    for r in range(NUM_RESOURCES):
        state[SCRATCH_KEY + r] = 0
    for q in range(16):
        v = state[b + O_CUBE + q]
        if v >= 0:
            state[SCRATCH_KEY + v] |= 1 << q
            cubes |= 1 << q
        elif state[b + O_BUILDING + q] == C_TPOST:
            wild |= 1 << q
    for r in range(NUM_RESOURCES):
        state[SCRATCH_KEY + r] |= wild
    state[KEY_WILD] = wild
    state[KEY_CUBES] = cubes
    # How many squares hold each resource 0..4 and wilds (5), 5 bits per count packed in
    # one integer: no array to allocate (cold start and run time).
    have = _popcount(wild) << (5 * NUM_RESOURCES)
    for r in range(NUM_RESOURCES):
        have += _popcount(state[SCRATCH_KEY + r] & ~wild) << (5 * r)
    return have


@njit(cache=True, **JIT_ONLY)
def _enough_cubes(have, card):
    """The counts ``have`` of :func:`_build_key` cover ``card``'s pattern, wilds filling the
    gaps: a cheap necessary condition before the placement search."""
    short = 0
    for r in range(NUM_RESOURCES):
        h = (have >> (5 * r)) & 31
        if PATTERN_NEED[card, r] > h:
            short += PATTERN_NEED[card, r] - h
    return short <= have >> (5 * NUM_RESOURCES)


@njit(cache=True)
def _slot_card(state, p, slot):
    if slot < 7:
        c = state[G_CARDS_IN_PLAY + slot]
        if c == C_BANK and _count_card(state, p, C_BANK) >= MAX_BANKS:
            return -1
        return c
    b = _player_base(p)
    if state[G_MONUMENTS] == 0 or state[b + O_KEPT] < 0 or state[b + O_MONUMENT_BUILT] != 0:
        return -1
    return state[b + O_KEPT]


# resources of each card's pattern, by type (the same in every transform)
PATTERN_NEED = np.zeros((NUM_CARDS, 5), dtype=np.int64)
for _c in range(NUM_CARDS):
    for _k in range(PATTERN_SIZE[_c]):
        PATTERN_NEED[_c, PATTERN_CELLS[_c, 0, _k, 2]] += 1


@njit(cache=True, **JIT_ONLY)
def _card_fits(state, card):
    """Some transform and anchor of ``card``'s pattern fits (the key of ``_build_key``):
    :func:`_fitting_anchors`, stopping at the first anchor found."""
    wild = state[KEY_WILD]
    for j in range(NUM_DISTINCT[card]):
        t = DISTINCT_TS[card, j]
        fit = _matching_anchors(state, card, t)
        while fit != 0:
            anchor_bit = fit & -fit
            if _not_all_wild(card, t, anchor_bit, wild):
                return True
            fit &= fit - 1
    return False


@njit(cache=True, **JIT_ONLY)
def _matching_anchors(state, card, t):
    """Anchors at which each square of transform t of ``card``'s pattern holds its resource
    or a wild (the key of ``_build_key``)."""
    return fitting_anchors(PATTERN_SHIFT[card, t], PATTERN_VALUE[card, t], PATTERN_SIZE[card], state,
                           SCRATCH_KEY, PATTERN_ANCHORS[card, t])


@njit(cache=True, **JIT_ONLY)
def _not_all_wild(card, t, anchor_bit, wild):
    """Not every square of the image anchored at ``anchor_bit`` (a one-bit bitboard; times
    it shifts the image there) is a wild."""
    return PATTERN_BITS[card, t] * anchor_bit & ~wild != 0


@njit(cache=True, **JIT_ONLY)
def _fitting_anchors(state, card, t):
    """Bitboard of the anchors at which transform t of ``card``'s pattern can be built on
    the key of ``_build_key``: each square holds its resource or a wild, and not every
    square is a wild."""
    fit = _matching_anchors(state, card, t)
    wild = state[KEY_WILD]
    rest = fit if wild != 0 else 0
    while rest != 0:
        anchor_bit = rest & -rest
        if not _not_all_wild(card, t, anchor_bit, wild):
            fit &= ~anchor_bit
        rest &= rest - 1
    return fit


@njit(cache=True, **JIT_ONLY)
def _construct_mask(state, p, mask):
    """Set the legal CONSTRUCT actions of p in ``mask`` (if given); return their number."""
    have = _build_key(state, p)
    if state[KEY_CUBES] == 0:
        return 0
    n = 0
    for slot in range(8):
        card = _slot_card(state, p, slot)
        if card < 0 or not _enough_cubes(have, card):
            continue
        for t in range(8):
            fit = _fitting_anchors(state, card, t)
            for anchor in range(16):
                if (fit >> anchor) & 1:
                    n += 1
                    if mask.shape[0] > 0:
                        mask[A_CONSTRUCT + CONSTRUCT_SLOT * slot + CONSTRUCT_T * t + anchor] = 1
    return n


# ======================================================================== commitments
@njit(cache=True, **JIT_ONLY)
def _factory_swap(state, p, x):
    """p has an active Factory holding x."""
    b = _player_base(p)
    for q in range(16):
        if state[b + O_BUILDING + q] == C_FACTORY and state[b + O_BUILDING_RES + q] == x and _active_cell(state, p, q):
            return True
    return False


@njit(cache=True, **JIT_ONLY)
def _commit_mask(state, p, ph, mask):
    """Legal actions of p's commitment sub-phase ``ph`` into ``mask``."""
    b = _player_base(p)
    if ph == PH_CHOOSE:
        if state[G_SOLO]:
            for r in range(NUM_RESOURCES):
                if state[G_DISPLAY + r] > 0:
                    mask[A_RESOURCE + r] = 1
        else:
            m = _naming_mask(state, p)
            for r in range(NUM_RESOURCES):
                if m >> r & 1:
                    mask[A_RESOURCE + r] = 1
    elif ph == PH_TAKE:
        for r in range(NUM_RESOURCES):
            mask[A_RESOURCE + r] = 1
    elif ph == PH_DEST:
        imp = state[b + O_PEND_IMPOSED]
        has_empty = _n_empty(state, p) > 0
        for q in range(16):
            if _is_empty(state, p, q):
                mask[A_SQUARE + q] = 1
            elif imp:
                bl = state[b + O_BUILDING + q]
                if bl == C_WAREHOUSE and _active_cell(state, p, q):
                    cnt = _warehouse_count(state, p, q)
                    if cnt < WAREHOUSE_CAP or (cnt > 0 and has_empty):
                        mask[A_SQUARE + q] = 1
                elif bl == C_COTTAGE and state[b + O_BUILDING_RES + q] < 0 and _monument_active(state, p, np.int64(M_STATUE)):
                    mask[A_SQUARE + q] = 1
        if imp and state[G_CAVE_RULE] and state[b + O_CAVE_USES] < CAVE_USES:
            mask[A_SET_ASIDE] = 1
    elif ph == PH_SWAP:
        q = state[b + O_PEND_DEST]
        if q < 0 or q >= 16 or state[b + O_BUILDING + q] != C_WAREHOUSE:
            mask[A_PASS] = 1          # padding step: the cube did not go to a Warehouse
        else:
            if _n_empty(state, p) > 0:
                for r in range(NUM_RESOURCES):
                    if state[b + O_WAREHOUSE + q * 5 + r] > 0:
                        mask[A_RESOURCE + r] = 1
            if _warehouse_count(state, p, q) < WAREHOUSE_CAP:
                mask[A_PASS] = 1
    elif ph == PH_SWAP_SQUARE:
        if state[b + O_PEND_SWAP_RES] < 0:
            mask[A_PASS] = 1          # padding step: no swap
        else:
            for q in range(16):
                if _is_empty(state, p, q):
                    mask[A_SQUARE + q] = 1


@njit(cache=True, **JIT_ONLY)
def _commit_start(state, p):
    """First sub-phase of p's commitment (pending fields reset)."""
    b = _player_base(p)
    state[b + O_PEND_RESOURCE] = -1
    state[b + O_PEND_DEST] = -1
    state[b + O_PEND_SWAP_RES] = -1
    state[b + O_PEND_SWAP_SQUARE] = -1
    if state[G_SOLO]:
        state[b + O_PEND_OFFERED] = -1
        state[b + O_PEND_IMPOSED] = 1
        return PH_CHOOSE
    if state[G_TOWN_HALL] == 1:
        if state[G_TH_FREE_ROUND] == 1:
            state[b + O_PEND_OFFERED] = -1
            state[b + O_PEND_IMPOSED] = 0
            return PH_CHOOSE
        state[b + O_PEND_IMPOSED] = 1
    else:
        state[b + O_PEND_IMPOSED] = 1 if p != state[G_MASTER_BUILDER] else 0
    state[b + O_PEND_OFFERED] = state[G_RESOURCE]
    return _after_x(state, p)


@njit(cache=True, **JIT_ONLY)
def _after_x(state, p):
    b = _player_base(p)
    x = state[b + O_PEND_OFFERED]
    if state[b + O_PEND_IMPOSED] and _factory_swap(state, p, x):
        return PH_TAKE
    state[b + O_PEND_RESOURCE] = x
    return PH_DEST


@njit(cache=True, **JIT_ONLY)
def _warehouse_padded(state, p):
    """p's placement takes the SWAP and SWAP_SQUARE steps whatever its destination.

    True when a Warehouse of p could take the cube (public: the resource is imposed on p,
    the Warehouse is active and has room or a cube to swap); then every destination is
    followed by the two Warehouse steps (PASS-only when they do not apply), so the number
    of steps p takes -- seen by everyone through the turn order -- does not reveal whether
    the secret placement went on a square, to a Warehouse (with or without a swap), onto a
    Cottage (Statue of the Bondmaker) or was set aside (cave rule).  Not in solo (nobody
    to hide from)."""
    if state[G_SOLO]:
        return False
    b = _player_base(p)
    if state[b + O_PEND_IMPOSED] == 0:
        return False
    has_empty = _n_empty(state, p) > 0
    for q in range(16):
        if state[b + O_BUILDING + q] == C_WAREHOUSE and _active_cell(state, p, q):
            cnt = _warehouse_count(state, p, q)
            if cnt < WAREHOUSE_CAP or (cnt > 0 and has_empty):
                return True
    return False


@njit(cache=True, **JIT_ONLY)
def _commit_apply(state, p, ph, a):
    """Apply action ``a`` of sub-phase ``ph``; return the next sub-phase or -1 when committed."""
    b = _player_base(p)
    if ph == PH_CHOOSE:
        r = a - A_RESOURCE
        state[b + O_PEND_OFFERED] = r
        if state[G_SOLO]:
            state[G_DISPLAY + r] -= 1
            state[G_SOLO_TAKEN] = r
        return _after_x(state, p)
    if ph == PH_TAKE:
        state[b + O_PEND_RESOURCE] = a - A_RESOURCE
        return PH_DEST
    if ph == PH_DEST:
        if a == A_SET_ASIDE:
            state[b + O_PEND_DEST] = 16
            return PH_SWAP if _warehouse_padded(state, p) else -1
        q = a - A_SQUARE
        state[b + O_PEND_DEST] = q
        if state[b + O_BUILDING + q] == C_WAREHOUSE or _warehouse_padded(state, p):
            return PH_SWAP
        return -1
    if ph == PH_SWAP:
        if a != A_PASS:
            state[b + O_PEND_SWAP_RES] = a - A_RESOURCE
            return PH_SWAP_SQUARE
        return PH_SWAP_SQUARE if _warehouse_padded(state, p) else -1
    if ph == PH_SWAP_SQUARE:
        if a != A_PASS:
            state[b + O_PEND_SWAP_SQUARE] = a - A_SQUARE
        return -1
    return -1


@njit(cache=True, **JIT_ONLY)
def _reveal(state):
    for i in range(state[G_ORDER_LEN]):
        p = state[G_ORDER + i]
        b = _player_base(p)
        if state[b + O_COMMITTED] == 0:
            continue
        q = state[b + O_PEND_DEST]
        r = state[b + O_PEND_RESOURCE]
        if q == 16:
            state[b + O_CAVE_USES] += 1
        elif q >= 0:
            bl = state[b + O_BUILDING + q]
            if bl == C_WAREHOUSE:
                state[b + O_WAREHOUSE + q * 5 + r] += 1
                if state[b + O_PEND_SWAP_RES] >= 0:
                    state[b + O_WAREHOUSE + q * 5 + state[b + O_PEND_SWAP_RES]] -= 1
                    state[b + O_CUBE + state[b + O_PEND_SWAP_SQUARE]] = state[b + O_PEND_SWAP_RES]
            elif bl == C_COTTAGE:
                state[b + O_BUILDING_RES + q] = r
            else:
                state[b + O_CUBE + q] = r
        state[b + O_COMMITTED] = 0
        state[b + O_PEND_OFFERED] = -1
        state[b + O_PEND_RESOURCE] = -1
        state[b + O_PEND_DEST] = -1
        state[b + O_PEND_SWAP_RES] = -1
        state[b + O_PEND_SWAP_SQUARE] = -1
        state[b + O_PEND_STAGE] = -1


# ============================================================================= rounds
@njit(cache=True, **JIT_ONLY)
def _start_round(state):
    state[G_ROUND] += 1
    r = state[G_ROUND]
    n = state[G_NUM_PLAYERS]
    for p in range(n):
        b = _player_base(p)
        state[b + O_BUILT_TYPES] = 0
        state[b + O_COMMITTED] = 0
    base = state[G_MASTER_BUILDER] if state[G_TOWN_HALL] == 0 else state[G_MAYOR]
    k = 0
    for j in range(1, n + 1):
        p = (base + j) % n
        if state[_player_base(p) + O_STATUS] == 0:
            state[G_ORDER + k] = p
            k += 1
    state[G_ORDER_LEN] = k
    state[G_ORDER_POS] = 0
    state[G_RESOURCE] = -1
    if state[G_SOLO]:
        state[G_STAGE] = ST_COMMIT
    elif state[G_TOWN_HALL] == 1:
        if r % 3 == 0:
            state[G_TH_FREE_ROUND] = 1
        else:
            state[G_TH_FREE_ROUND] = 0
            if state[G_DRAWS_LEFT] == 0:
                for i in range(NUM_RESOURCES):
                    state[G_UNSEEN + i] = TH_DECK_PER
                    state[G_FACE_UP + i] = 0
                state[G_DRAWS_LEFT] = TH_DRAWS
            state[G_RESOURCE] = _draw_weighted(state, G_UNSEEN, NUM_RESOURCES)
            state[G_DRAWS_LEFT] -= 1
        state[G_STAGE] = ST_COMMIT
    else:
        state[G_STAGE] = ST_NAME


@njit(cache=True)
def _end_round(state):
    """End of round after the Opaleye moves: game end, discards, hammer; then next round."""
    n = state[G_NUM_PLAYERS]
    if state[G_TOWN_HALL] == 1 and state[G_TH_FREE_ROUND] == 0 and state[G_RESOURCE] >= 0:
        state[G_FACE_UP + state[G_RESOURCE]] += 1
    if _n_building(state) == 0:
        state[G_PHASE] = PH_GAME_OVER
        state[G_ACTOR] = -1
        return False
    if state[G_TOWN_HALL] == 0 and not state[G_SOLO]:
        mb = state[G_MASTER_BUILDER]
        new = -1
        for j in range(1, n + 1):
            q = (mb + j) % n
            if state[_player_base(q) + O_STATUS] == 0 and not _monument_built(state, q, np.int64(M_FORT)):
                new = q
                break
        if new < 0:
            for q in range(n):
                if state[_player_base(q) + O_STATUS] == 0:
                    new = q
        state[G_MASTER_BUILDER] = new
    _start_round(state)
    return True


@njit(cache=True)
def _set(state, phase, actor):
    # callers pass phases as np.int64(PH_...): a bare module constant is typed as a
    # literal and would compile one specialisation per phase (cold start)
    state[G_PHASE] = phase
    state[G_ACTOR] = actor


@njit(cache=True)
def _finish_build_step(state, p):
    """p declares done: complete if no empty square."""
    b = _player_base(p)
    if _n_empty(state, p) == 0 and state[b + O_STATUS] == 0:
        state[b + O_STATUS] = 1
        state[b + O_DONE_ROUND] = state[G_ROUND]
    state[G_ORDER_POS] += 1


@njit(cache=True)
def _build_offered(state, p):
    """p gets a BUILD decision (PASS only when nothing of p's own fits) rather than being
    done at once.

    The rules make a player with no legal construction done automatically.  Applied
    literally with other players at the table, that would show them whether a player's
    only legal construction is its secret monument.  So with two or more players the
    step is offered when a construction *could* fit as far as the others can tell: a card
    in play fits (p's own monument included) or some monument nobody has built yet fits
    while p has built none.  p's own unbuilt monument is one of those, so the disjunction
    reads only what p's build step may depend on: p's own record and public information
    (the cards in play; the monuments the others have built, as p sees them -- one built
    this round by an earlier builder is hidden until the reveal, R6).  So the turn order
    shows nothing hidden.  (A determinized copy re-draws the others' committed placements;
    once they are revealed the boards, and so the build steps, may differ openly.)  Solo
    (nobody to hide anything from) keeps the rule as written.

    Both searches read the scratch key of :func:`_build_key`, set here for p itself, so
    they never depend on what an earlier caller left there.  (One function for both: each
    jitted function calling the placement search recompiles it, which costs cold start.)"""
    have = _build_key(state, p)
    for slot in range(8):
        card = _slot_card(state, p, slot)
        if card >= 0 and _enough_cubes(have, card) and _card_fits(state, card):
            return True
    if state[G_SOLO] or state[G_MONUMENTS] == 0 or state[_player_base(p) + O_MONUMENT_BUILT] != 0:
        return False
    # Which monument p kept is secret, so every monument still unbuilt counts; the ones p
    # has seen built (public, each held by its builder) do not.
    for i in range(NUM_MONUMENTS):
        card = NUM_BUILDING_CARDS + i
        if not _enough_cubes(have, card):
            continue
        built = False
        for j in range(state[G_NUM_PLAYERS]):
            bj = seen_base(state, j, p)
            if state[bj + O_MONUMENT_BUILT] != 0 and state[bj + O_KEPT] == card:
                built = True
        if not built and _card_fits(state, card):
            return True
    return False


@njit(cache=True)
def _run(state):
    """Run automatic events until the next decision (or the end)."""
    while True:
        st = state[G_STAGE]
        n = state[G_NUM_PLAYERS]
        if st == ST_KEEP:
            i = state[G_ORDER_POS]
            if i < n:
                _set(state, np.int64(PH_KEEP), i)
                return
            _start_round(state)
            continue
        if st == ST_NAME:
            _set(state, np.int64(PH_NAME), state[G_MASTER_BUILDER])
            return
        if st == ST_COMMIT:
            i = state[G_ORDER_POS]
            if i >= state[G_ORDER_LEN]:
                _reveal(state)
                state[G_STAGE] = ST_BUILD
                state[G_ORDER_POS] = 0
                if state[G_SOLO] == 0:
                    _show_records(state)
                continue
            p = state[G_ORDER + i]
            if _n_empty(state, p) == 0:
                state[G_ORDER_POS] += 1
                continue
            if (state[G_TOWN_HALL] == 1 and state[G_TH_FREE_ROUND] == 1 and _monument_active(state, p, np.int64(M_FORT))
                    and _n_building(state) > 1):
                state[G_ORDER_POS] += 1
                continue
            ph = _commit_start(state, p)
            state[_player_base(p) + O_PEND_STAGE] = ph
            _set(state, ph, p)
            return
        if st == ST_BUILD:
            i = state[G_ORDER_POS]
            if i >= state[G_ORDER_LEN]:
                if state[G_SOLO]:
                    if state[G_UNDER_DECK_LEN] < 15:
                        state[G_UNDER_DECK + state[G_UNDER_DECK_LEN]] = state[G_SOLO_TAKEN]
                        state[G_UNDER_DECK_LEN] += 1
                    if state[G_NEVER_SEEN] > 0:
                        r = _draw_weighted(state, G_UNSEEN, NUM_RESOURCES)
                        state[G_NEVER_SEEN] -= 1
                    else:
                        r = state[G_UNDER_DECK]
                        for j in range(state[G_UNDER_DECK_LEN] - 1):
                            state[G_UNDER_DECK + j] = state[G_UNDER_DECK + j + 1]
                        state[G_UNDER_DECK_LEN] -= 1
                        state[G_UNDER_DECK + state[G_UNDER_DECK_LEN]] = -1
                    state[G_DISPLAY + r] += 1
                    state[G_SOLO_TAKEN] = -1
                state[G_STAGE] = ST_END
                state[G_OPALEYE_STARTED] = 0
                continue
            p = state[G_ORDER + i]
            # p's build step: a decision when offered, else done at once
            if _build_offered(state, p):
                _set(state, np.int64(PH_BUILD), p)
                return
            _finish_build_step(state, p)
            continue
        if st == ST_END:
            if _opaleye_next(state):
                return
            if not _end_round(state):
                return
            continue
        return


@njit(cache=True)
def _opaleye_next(state):
    """Set up the next Opaleye's Watch move decision; False when none is left."""
    n = state[G_NUM_PLAYERS]
    if state[G_OPALEYE_STARTED] == 0:
        state[G_OPALEYE_STARTED] = 1
        state[G_OPALEYE_OWNER] = -1
        state[G_OPALEYE_TYPES_LEFT] = 0
        for p in range(n):
            if n > 1 and _monument_active(state, p, np.int64(M_OPALEYE)):
                b = _player_base(p)
                cons = state[_player_base((p + 1) % n) + O_BUILT_TYPES] | state[_player_base((p + n - 1) % n) + O_BUILT_TYPES]
                pend = 0
                for k in range(NUM_TYPES):
                    if state[b + O_OPALEYE_ASIDE + k] and (cons >> k) & 1:
                        pend |= 1 << k
                state[G_OPALEYE_OWNER] = p
                state[G_OPALEYE_TYPES_LEFT] = pend
    p = state[G_OPALEYE_OWNER]
    if p < 0:
        return False
    while state[G_OPALEYE_TYPES_LEFT] != 0:
        pend = state[G_OPALEYE_TYPES_LEFT]
        k = 0
        while not (pend >> k) & 1:
            k += 1
        state[G_OPALEYE_TYPES_LEFT] = pend & ~(1 << k)
        if _n_empty(state, p) == 0:
            continue
        if state[G_CARDS_IN_PLAY + k] == C_BANK and _count_card(state, p, C_BANK) >= MAX_BANKS:
            continue
        state[G_OPALEYE_TYPE] = k
        _set(state, np.int64(PH_OPALEYE_SQUARE), p)
        return True
    return False


# ========================================================================== buildings
@njit(cache=True)
def _put_building(state, p, q, card):
    b = _player_base(p)
    state[b + O_BUILDING + q] = card
    state[b + O_CUBE + q] = -1
    state[b + O_BUILDING_RES + q] = -1
    state[b + O_PLACED_ROUND + q] = state[G_ROUND]
    for r in range(NUM_RESOURCES):
        state[b + O_WAREHOUSE + q * 5 + r] = 0


@njit(cache=True, **JIT_ONLY)
def _needs_resource(card):
    return card == C_FACTORY or card == C_BANK


@njit(cache=True, **JIT_ONLY)
def _count_buildings(state, p):
    b = _player_base(p)
    n = 0
    for q in range(16):
        if state[b + O_BUILDING + q] >= 0:
            n += 1
    return n


@njit(cache=True)
def _after_token(state, p, q):
    """On-build action of the card just placed on q by a construction.  True when p goes
    straight back to its build step (the caller resumes it: see :func:`step`)."""
    b = _player_base(p)
    card = state[b + O_BUILDING + q]
    if _needs_resource(card):
        state[G_RESOURCE_CELL] = q
        state[G_RESOURCE_RETURN] = RET_BUILD
        _set(state, np.int64(PH_BUILD_RESOURCE), p)
        return False
    if card == M_SHRINE:
        state[b + O_SHRINE] = SHRINE_VP[min(_count_buildings(state, p), 16)]
    elif card == M_GROVE:
        if _n_empty(state, p) > 0:
            _set(state, np.int64(PH_GROVE_TYPE), p)
            return False
    elif card == M_GUILD:
        state[G_GUILD_LEFT] = GUILD_MAX
        state[G_GUILD_REPLACED] = 0
        _set(state, np.int64(PH_GUILD_TARGET), p)
        return False
    elif card == M_OPALEYE:
        state[G_OPALEYE_MOVED] = 0
        _set(state, np.int64(PH_OPALEYE_TYPE), p)
        return False
    return True


@njit(cache=True, **JIT_ONLY)
def _type_allowed(state, p, k, replacing_bank):
    """Type k may be placed by an effect (Bank only below the limit)."""
    c = state[G_CARDS_IN_PLAY + k]
    if c == C_BANK:
        nb = _count_card(state, p, C_BANK) - (1 if replacing_bank else 0)
        return nb < MAX_BANKS
    return True


# ============================================================================ scoring
@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _eval_town(bld, wh, fed, fh_right, solo, shrine_val, star_place, parts):
    """Score of a town (no loose cubes) for a given fed bitmask; parts[card], parts[NUM_CARDS]=empty."""
    for i in range(NUM_CARDS + 1):
        parts[i] = 0
    cnt = np.zeros(NUM_CARDS, dtype=np.int64)
    for q in range(16):
        if bld[q] >= 0:
            cnt[bld[q]] += 1
    mausoleum = cnt[M_MAUSOLEUM] > 0
    fedw = 0
    for q in range(16):
        if (fed >> q) & 1:
            fedw += BARRETT_WEIGHT if bld[q] == M_BARRETT else 1
    tot = 0
    for q in range(16):
        c = bld[q]
        if c < 0:
            continue
        r = q // 4
        col = q % 4
        v = 0
        if c == C_COTTAGE:
            if (fed >> q) & 1:
                v = COTTAGE_FED_VP
            elif mausoleum:
                v = MAUSOLEUM_UNFED
        elif c == M_BARRETT:
            if (fed >> q) & 1:
                v = BARRETT_FED_VP
        elif c == C_WELL or c == C_FOUNTAIN or c == C_MILLSTONE or c == C_ABBEY or c == C_TEMPLE \
                or c == C_BAKERY or c == M_MANDRAS:
            w = 0
            grey = False
            redyel = False
            redblack = False
            bgy = False
            fw = 0
            tmask = 0
            tk = np.zeros(4, dtype=np.int64)
            nk = 0
            for d in range(4):
                rr = r + (-1, 0, 1, 0)[d]
                cc = col + (0, 1, 0, -1)[d]
                if rr < 0 or rr > 3 or cc < 0 or cc > 3:
                    continue
                nq = rr * 4 + cc
                nc = bld[nq]
                if nc < 0:
                    continue
                ty = CARD_TYPE[nc]
                if nc == C_COTTAGE:
                    w += 1
                    if (fed >> nq) & 1:
                        fw += 1
                elif nc == M_BARRETT:
                    w += BARRETT_WEIGHT
                    if (fed >> nq) & 1:
                        fw += BARRETT_WEIGHT
                if ty < NUM_TYPES:
                    if (FOUNTAIN_TYPES >> ty) & 1:
                        grey = True
                    if (MILLSTONE_TYPES >> ty) & 1:
                        redyel = True
                    if (BAKERY_TYPES >> ty) & 1:
                        redblack = True
                    if (ABBEY_TYPES >> ty) & 1:
                        bgy = True
                key = TYPE_KEY[nc]
                new = True
                for j in range(nk):
                    if tk[j] == key:
                        new = False
                if new:
                    tk[nk] = key
                    nk += 1
            if c == C_WELL:
                v = w
            elif c == C_FOUNTAIN:
                v = FOUNTAIN_VP if grey else 0
            elif c == C_MILLSTONE:
                v = MILLSTONE_VP if redyel else 0
            elif c == C_ABBEY:
                v = 0 if bgy else ABBEY_VP
            elif c == C_TEMPLE:
                v = TEMPLE_VP if fw >= TEMPLE_MIN else 0
            elif c == C_BAKERY:
                v = BAKERY_VP if redblack else 0
            else:
                v = MANDRAS_PER * nk
        elif c == C_CHAPEL:
            v = fedw
        elif c == C_CLOISTER:
            k = 0
            for qq in range(16):
                if bld[qq] == C_CLOISTER and CORNER[qq]:
                    k += 1
            v = min(k, CLOISTER_MAX)
        elif c == C_INN:
            alone = True
            for qq in range(16):
                if qq != q and (qq // 4 == r or qq % 4 == col) and bld[qq] >= 0 and CARD_TYPE[bld[qq]] == CARD_TYPE[C_INN]:
                    alone = False
            v = INN_VP if alone else 0
        elif c == C_FEAST:
            if solo:
                v = FEAST_SOLO
            else:
                v = FEAST_MORE if cnt[C_FEAST] > fh_right else FEAST_BASE
        elif c == C_THEATER:
            tk = np.zeros(6, dtype=np.int64)
            nk = 0
            for qq in range(16):
                if qq != q and (qq // 4 == r or qq % 4 == col) and bld[qq] >= 0 and CARD_TYPE[bld[qq]] != THEATER_EXCLUDED:
                    key = TYPE_KEY[bld[qq]]
                    new = True
                    for j in range(nk):
                        if tk[j] == key:
                            new = False
                    if new:
                        tk[nk] = key
                        nk += 1
            v = nk
        elif c == C_MARKET:
            kr = 0
            kc = 0
            for qq in range(16):
                if bld[qq] == C_MARKET:
                    if qq // 4 == r:
                        kr += 1
                    if qq % 4 == col:
                        kc += 1
            v = max(kr, kc)
        elif c == C_TAILOR:
            k = 0
            for qq in range(16):
                if bld[qq] == C_TAILOR and CENTRE[qq]:
                    k += 1
            v = TAILOR_BASE + k
        elif c == C_WAREHOUSE:
            v = -wh[q]
        elif c == M_ARCHIVE or c == M_SKYBATHS:
            seen = np.int64(0)
            for qq in range(16):
                if bld[qq] >= 0 and TYPE_KEY[bld[qq]] < NUM_TYPES:
                    seen |= 1 << TYPE_KEY[bld[qq]]
            k = _popcount(seen)
            v = k if c == M_ARCHIVE else SKYBATHS_PER * (NUM_TYPES - k)
        elif c == M_SHRINE:
            v = shrine_val
        elif c == M_STARLOOM:
            v = STAR_VP[min(max(star_place, 1), 8)]
        elif c == M_SILVA:
            best = 0
            for s in range(16):
                if bld[s] < 0:
                    continue
                # flood fill over same type key
                seen = 1 << s
                stack = 1 << s
                size = 0
                key = TYPE_KEY[bld[s]]
                while stack:
                    x = 0
                    while not (stack >> x) & 1:
                        x += 1
                    stack &= ~(1 << x)
                    size += 1
                    xr = x // 4
                    xc = x % 4
                    for d in range(4):
                        rr = xr + (-1, 0, 1, 0)[d]
                        cc = xc + (0, 1, 0, -1)[d]
                        if rr < 0 or rr > 3 or cc < 0 or cc > 3:
                            continue
                        nq = rr * 4 + cc
                        if not (seen >> nq) & 1 and bld[nq] >= 0 and TYPE_KEY[bld[nq]] == key:
                            seen |= 1 << nq
                            stack |= 1 << nq
                if size > best:
                    best = size
            v = SILVA_BASE + best
        else:
            v = FLAT_VP[c]
        if c == C_TAVERN or c == C_ALMSHOUSE:
            v = 0
        parts[c] += v
        tot += v
    if cnt[C_TAVERN] > 0:
        v = TAVERN_VP[cnt[C_TAVERN]]
        parts[C_TAVERN] = v
        tot += v
    if cnt[C_ALMSHOUSE] > 0:
        v = ALMS_VP[cnt[C_ALMSHOUSE]]
        parts[C_ALMSHOUSE] = v
        tot += v
    ne = 0
    for q in range(16):
        if bld[q] < 0:
            ne += 1
    v = ne * (EMPTY_VP_CATHEDRAL if cnt[M_CATHEDRAL] > 0 else EMPTY_VP)
    parts[NUM_CARDS] = v
    tot += v
    return tot


@njit(cache=True)
def score_board(bld, wh, fh_right, solo, shrine_val, star_place, parts):
    """Best-feeding score of one town: ``bld`` card per square (-1 none), ``wh`` Warehouse cubes
    per square.  Writes the breakdown of the best feeding into ``parts`` (NUM_CARDS + 2 long:
    per card, then empty squares, then the chosen fed bitmask) and returns the total."""
    feedable = 0
    fed0 = np.int64(0)
    ngh = 0
    cap = 0
    for q in range(16):
        c = bld[q]
        if c == C_COTTAGE or c == M_BARRETT:
            feedable |= 1 << q
    for q in range(16):
        c = bld[q]
        r = q // 4
        col = q % 4
        if c == C_GRANARY:
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    rr = r + dr
                    cc = col + dc
                    if 0 <= rr < 4 and 0 <= cc < 4:
                        fed0 |= 1 << (rr * 4 + cc)
        elif c == C_ORCHARD:
            for qq in range(16):
                if qq // 4 == r or qq % 4 == col:
                    fed0 |= 1 << qq
        elif c == C_GREENHOUSE:
            ngh += 1
        elif c == C_FARM:
            cap += FARM_CAP
    fed0 &= feedable
    # groups of feedable buildings
    groups = np.zeros(16, dtype=np.int64)
    ng = 0
    left = feedable
    while left:
        s = 0
        while not (left >> s) & 1:
            s += 1
        grp = 1 << s
        stack = 1 << s
        while stack:
            x = 0
            while not (stack >> x) & 1:
                x += 1
            stack &= ~(1 << x)
            xr = x // 4
            xc = x % 4
            for d in range(4):
                rr = xr + (-1, 0, 1, 0)[d]
                cc = xc + (0, 1, 0, -1)[d]
                if 0 <= rr < 4 and 0 <= cc < 4:
                    nq = rr * 4 + cc
                    if (feedable >> nq) & 1 and not (grp >> nq) & 1:
                        grp |= 1 << nq
                        stack |= 1 << nq
        groups[ng] = grp
        ng += 1
        left &= ~grp
    has_temple = False
    for q in range(16):
        if bld[q] == C_TEMPLE:
            has_temple = True
    tmp = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    best = -(1 << 40)
    bestfed = np.int64(0)
    kg = min(ngh, ng)
    for gm in range(1 << ng):
        if _popcount(gm) != kg:
            continue
        fed1 = fed0
        for j in range(ng):
            if (gm >> j) & 1:
                fed1 |= groups[j]
        unfed = feedable & ~fed1
        nu = _popcount(unfed)
        k = min(cap, nu)
        ulist = np.zeros(16, dtype=np.int64)
        m = 0
        has_barrett = False
        for q in range(16):
            if (unfed >> q) & 1:
                ulist[m] = q
                m += 1
                if bld[q] == M_BARRETT:
                    has_barrett = True
        if k == nu or k == 0 or not (has_temple or has_barrett):
            fed = fed1
            for j in range(k):
                fed |= 1 << ulist[j]
            v = _eval_town(bld, wh, fed, fh_right, solo, shrine_val, star_place, tmp)
            if v > best:
                best = v
                bestfed = fed
            continue
        # enumerate k-subsets of the unfed list (Gosper's hack)
        sub = (1 << k) - 1
        while sub < (1 << m):
            fed = fed1
            for j in range(m):
                if (sub >> j) & 1:
                    fed |= 1 << ulist[j]
            v = _eval_town(bld, wh, fed, fh_right, solo, shrine_val, star_place, tmp)
            if v > best:
                best = v
                bestfed = fed
            c = sub & -sub
            rr = sub + c
            sub = (((rr ^ sub) >> 2) // c) | rr
    _eval_town(bld, wh, bestfed, fh_right, solo, shrine_val, star_place, parts)
    parts[NUM_CARDS + 1] = bestfed
    return best


@njit(cache=True)
def _player_score(state, p, parts):
    return score_seen(state, p, np.int64(EVERYTHING), parts)


@njit(cache=True)
def score_seen(state, p, viewer, parts):
    """p's live score (as if the game ended now) as ``viewer`` (a seat, ``TABLE`` or
    ``EVERYTHING``) knows it: the town, and the right neighbour's Feast Halls and the
    completion places it depends on, as ``viewer`` sees them (R6).  ``parts`` as in
    :func:`score_board`."""
    b = seen_base(state, p, viewer)
    return _town_score(state, p, state[b + O_BUILDING:b + O_BUILDING + 16], state[b + O_SHRINE], parts, viewer)


@njit(cache=True)
def _town_score(state, p, bld, shrine_val, parts, viewer):
    """Score of p's town with the buildings ``bld`` (p's own, or a variant of them); the
    rest of the table as ``viewer`` sees it."""
    n = state[G_NUM_PLAYERS]
    b = seen_base(state, p, viewer)
    wh = np.zeros(16, dtype=np.int64)
    for q in range(16):
        for r in range(NUM_RESOURCES):
            wh[q] += state[b + O_WAREHOUSE + q * 5 + r]
    fh_right = np.int64(0)
    if n > 1:
        br = seen_base(state, (p + n - 1) % n, viewer)
        for q in range(16):
            if state[br + O_BUILDING + q] == C_FEAST:
                fh_right += 1
    place = np.int64(1)
    mine = state[b + O_DONE_ROUND] if state[b + O_STATUS] == 1 else state[G_ROUND] + 1
    for j in range(n):
        bj = seen_base(state, j, viewer)
        if j != p and state[bj + O_STATUS] == 1 and state[bj + O_DONE_ROUND] < mine:
            place += 1
    return score_board(bld, wh, fh_right, state[G_SOLO], shrine_val, place, parts)


# =========================================================================== contract
@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    n = config[CFG_NUM_PLAYERS]
    state[G_NUM_PLAYERS] = n
    state[G_TOWN_HALL] = config[CFG_TOWN_HALL]
    state[G_SOLO] = 1 if n == 1 else 0
    state[G_MONUMENTS] = config[CFG_MONUMENTS]
    state[G_CAVE_RULE] = config[CFG_CAVE_RULE]
    rng.seed_rng(state, G_RNG, seed)
    for p in range(MAX_SEATS):
        b = _player_base(p)
        for q in range(16):
            state[b + O_CUBE + q] = -1
            state[b + O_BUILDING + q] = -1
            state[b + O_BUILDING_RES + q] = -1
            state[b + O_PLACED_ROUND + q] = -1
        state[b + O_STATUS] = 0 if p < n else 1
        state[b + O_DONE_ROUND] = 0
        state[b + O_DEALT] = -1
        state[b + O_DEALT + 1] = -1
        state[b + O_KEPT] = -1
        state[b + O_MONUMENT_CELL] = -1
        state[b + O_PEND_OFFERED] = -1
        state[b + O_PEND_RESOURCE] = -1
        state[b + O_PEND_DEST] = -1
        state[b + O_PEND_SWAP_RES] = -1
        state[b + O_PEND_SWAP_SQUARE] = -1
        state[b + O_PEND_STAGE] = -1
    # cards in play
    state[G_CARDS_IN_PLAY] = C_COTTAGE
    for k in range(1, NUM_TYPES):
        c = config[CFG_CARDS + k]
        if c < 0:
            while True:
                c = DECK_CARDS[k, rng.randint(state, G_RNG, np.int64(4))]
                if not (state[G_SOLO] and SOLO_REMOVED[c]):
                    break
        state[G_CARDS_IN_PLAY + k] = c
    # monuments: deal 2 each
    if state[G_MONUMENTS]:
        pool = state[SCRATCH_KEY:SCRATCH_KEY + NUM_MONUMENTS]    # the scratch tail: no array to allocate (cold start)
        m = 0
        for i in range(NUM_MONUMENTS):
            if not (state[G_SOLO] and SOLO_REMOVED[NUM_BUILDING_CARDS + i]):
                pool[m] = NUM_BUILDING_CARDS + i
                m += 1
        rng.shuffle(state, G_RNG, pool, np.int64(m))
        for p in range(n):
            state[_player_base(p) + O_DEALT] = pool[2 * p]
            state[_player_base(p) + O_DEALT + 1] = pool[2 * p + 1]
    first = config[CFG_FIRST_PLAYER]
    if first < 0 or first >= n:
        first = rng.randint(state, G_RNG, n)
    state[G_MASTER_BUILDER] = first if state[G_TOWN_HALL] == 0 and n > 1 else 0
    state[G_MAYOR] = first if state[G_TOWN_HALL] == 1 else 0
    state[G_TH_FREE_ROUND] = 0
    state[G_DRAWS_LEFT] = 0
    state[G_SOLO_TAKEN] = -1
    for i in range(15):
        state[G_UNDER_DECK + i] = -1
    if state[G_SOLO]:
        for r in range(NUM_RESOURCES):
            state[G_UNSEEN + r] = SOLO_DECK_PER
        for i in range(SOLO_DISPLAY):
            state[G_DISPLAY + _draw_weighted(state, G_UNSEEN, NUM_RESOURCES)] += 1
        state[G_NEVER_SEEN] = SOLO_DECK - SOLO_DISPLAY
    state[G_TOKEN_CARD] = -1
    state[G_OPALEYE_OWNER] = -1
    state[G_GROVE_TYPE] = -1
    state[G_RESOURCE_CELL] = -1
    state[G_GUILD_CELL] = -1
    state[G_OPALEYE_TYPE] = -1
    state[G_ORDER_POS] = 0
    if state[G_MONUMENTS]:
        state[G_STAGE] = ST_KEEP
    else:
        _start_round(state)
    _run(state)


@njit(cache=True)
def current_player(state):
    if state[G_PHASE] == PH_GAME_OVER:
        return -1
    return state[G_ACTOR]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 0
    ph = state[G_PHASE]
    p = state[G_ACTOR]
    if ph == PH_GAME_OVER:
        return
    b = _player_base(p)
    if ph == PH_KEEP:
        mask[A_KEEP] = 1
        mask[A_KEEP + 1] = 1
    elif ph == PH_NAME:
        m = _naming_mask(state, p)
        for r in range(NUM_RESOURCES):
            if m >> r & 1:
                mask[A_RESOURCE + r] = 1
    elif ph >= PH_CHOOSE and ph <= PH_SWAP_SQUARE:
        _commit_mask(state, p, ph, mask)
    elif ph == PH_BUILD:
        _construct_mask(state, p, mask)
        mask[A_PASS] = 1
    elif ph == PH_TOKEN:
        for q in range(16):
            if state[G_TOKEN_ANYWHERE]:
                if _is_empty(state, p, q):
                    mask[A_SQUARE + q] = 1
            elif (state[G_TOKEN_VACATED] >> q) & 1:
                mask[A_SQUARE + q] = 1
    elif ph == PH_BUILD_RESOURCE:
        q = state[G_RESOURCE_CELL]
        if state[b + O_BUILDING + q] == C_BANK:
            m = _bank_res_mask(state, p, q)
            for r in range(NUM_RESOURCES):
                if not (m >> r) & 1:
                    mask[A_RESOURCE + r] = 1
        else:
            for r in range(NUM_RESOURCES):
                mask[A_RESOURCE + r] = 1
    elif ph == PH_GROVE_TYPE:
        for k in range(NUM_TYPES):
            if _type_allowed(state, p, k, np.bool_(False)):
                mask[A_TYPE + k] = 1
    elif ph == PH_GROVE_SQUARE or ph == PH_OPALEYE_SQUARE:
        for q in range(16):
            if _is_empty(state, p, q):
                mask[A_SQUARE + q] = 1
    elif ph == PH_GUILD_TARGET:
        for q in range(16):
            c = state[b + O_BUILDING + q]
            if c >= 0 and c < NUM_BUILDING_CARDS and not (state[G_GUILD_REPLACED] >> q) & 1:
                mask[A_SQUARE + q] = 1
        mask[A_PASS] = 1
    elif ph == PH_GUILD_TYPE:
        q = state[G_GUILD_CELL]
        c = state[b + O_BUILDING + q]
        for k in range(NUM_TYPES):
            if k != CARD_TYPE[c] and _type_allowed(state, p, k, c == C_BANK):
                mask[A_TYPE + k] = 1
    elif ph == PH_OPALEYE_TYPE:
        for k in range(NUM_TYPES):
            if state[b + O_OPALEYE_ASIDE + k] == 0:
                mask[A_TYPE + k] = 1


@njit(cache=True)
def step(state, action):
    ph = state[G_PHASE]
    p = state[G_ACTOR]
    b = _player_base(p)
    a = action
    # The automatic events (``run``) happen at the end, from here only: every jitted
    # function that calls _run compiles its code again (cold start).
    run = False
    if ph == PH_KEEP:
        state[b + O_KEPT] = state[b + O_DEALT + a - A_KEEP]
        state[G_ORDER_POS] += 1
        run = True
    elif ph == PH_NAME:
        state[G_RESOURCE] = a - A_RESOURCE
        state[b + O_MB_TURNS] += 1
        state[G_STAGE] = ST_COMMIT
        state[G_ORDER_POS] = 0
        run = True
    elif ph >= PH_CHOOSE and ph <= PH_SWAP_SQUARE:
        nxt = _commit_apply(state, p, ph, a)
        if nxt < 0:
            state[b + O_COMMITTED] = 1
            state[b + O_PEND_STAGE] = -1
            state[G_ORDER_POS] += 1
            run = True
        else:
            state[b + O_PEND_STAGE] = nxt
            _set(state, nxt, p)
    elif ph == PH_OPALEYE_SQUARE:       # end of round: an Opaleye's Watch building moves
        q = a - A_SQUARE
        k = state[G_OPALEYE_TYPE]
        card = state[G_CARDS_IN_PLAY + k]
        state[b + O_OPALEYE_ASIDE + k] = 0
        state[G_OPALEYE_TYPE] = -1
        _put_building(state, p, q, card)
        if _needs_resource(card):
            state[G_RESOURCE_CELL] = q
            state[G_RESOURCE_RETURN] = RET_END
            _set(state, np.int64(PH_BUILD_RESOURCE), p)
        else:
            run = True
    elif ph == PH_BUILD_RESOURCE and state[G_RESOURCE_RETURN] == RET_END:
        state[b + O_BUILDING_RES + state[G_RESOURCE_CELL]] = a - A_RESOURCE
        _idle_context(state)
        run = True
    else:
        run = _build_substep(state, p, ph, a)
    if run:
        _run(state)


@njit(cache=True, **JIT_ONLY)
def _idle_context(state):
    """Back at a BUILD decision (or past the effect): the step context holds nothing."""
    for i in range(CONTEXT_FIRST_IDLE, BUILD_CONTEXT.shape[0]):
        state[BUILD_CONTEXT[i]] = IDLE_CONTEXT[i]


@njit(cache=True)
def _build_substep(state, p, ph, a):
    """Apply action ``a`` of decision ``ph`` of p's build step (``BUILD`` .. ``OPALEYE_TYPE``,
    ``BUILD_RESOURCE`` of a construction); return True when the build step is over (p is
    done: the caller runs on), else p's next decision is set.  Only p's own record and the
    step context change, so :func:`determinize` re-draws hidden build steps with it."""
    b = _player_base(p)
    resume = False
    if ph == PH_BUILD and a == A_PASS:
        _finish_build_step(state, p)
        return True
    if ph == PH_BUILD:
        slot = (a - A_CONSTRUCT) // CONSTRUCT_SLOT
        t = ((a - A_CONSTRUCT) % CONSTRUCT_SLOT) // CONSTRUCT_T
        anchor = (a - A_CONSTRUCT) % CONSTRUCT_T
        card = _slot_card(state, p, slot)
        r0 = anchor // 4
        c0 = anchor % 4
        vac = 0
        for i in range(PATTERN_SIZE[card]):
            q = (r0 + PATTERN_CELLS[card, t, i, 0]) * 4 + c0 + PATTERN_CELLS[card, t, i, 1]
            if state[b + O_CUBE + q] >= 0:
                state[b + O_CUBE + q] = -1
                vac |= 1 << q
        state[G_TOKEN_CARD] = card
        state[G_TOKEN_VACATED] = vac
        # an Obelisk of the Crescent serves its owner at once, in the same build step (R8)
        state[G_TOKEN_ANYWHERE] = 1 if (card == C_SHED or _monument_built(state, p, np.int64(M_OBELISK))) else 0
        _set(state, np.int64(PH_TOKEN), p)
    elif ph == PH_TOKEN:
        q = a - A_SQUARE
        card = state[G_TOKEN_CARD]
        _put_building(state, p, q, card)
        if card < NUM_BUILDING_CARDS:
            state[b + O_BUILT_TYPES] |= 1 << CARD_TYPE[card]
        else:
            state[b + O_MONUMENT_BUILT] = 1
            state[b + O_MONUMENT_CELL] = q
        state[G_TOKEN_CARD] = -1
        state[G_TOKEN_VACATED] = 0
        state[G_TOKEN_ANYWHERE] = 0
        resume = _after_token(state, p, q)
    elif ph == PH_BUILD_RESOURCE:
        q = state[G_RESOURCE_CELL]
        state[b + O_BUILDING_RES + q] = a - A_RESOURCE
        state[G_RESOURCE_CELL] = -1
        if state[G_RESOURCE_RETURN] == RET_GUILD:
            resume = _guild_continue(state, p)
        else:
            resume = True
    elif ph == PH_GROVE_TYPE:
        state[G_GROVE_TYPE] = a - A_TYPE
        _set(state, np.int64(PH_GROVE_SQUARE), p)
    elif ph == PH_GROVE_SQUARE:
        q = a - A_SQUARE
        card = state[G_CARDS_IN_PLAY + state[G_GROVE_TYPE]]
        state[G_GROVE_TYPE] = -1
        _put_building(state, p, q, card)
        if _needs_resource(card):
            state[G_RESOURCE_CELL] = q
            state[G_RESOURCE_RETURN] = RET_BUILD
            _set(state, np.int64(PH_BUILD_RESOURCE), p)
        else:
            resume = True
    elif ph == PH_GUILD_TARGET:
        if a == A_PASS:
            state[G_GUILD_LEFT] = 0
            resume = True
        else:
            state[G_GUILD_CELL] = a - A_SQUARE
            _set(state, np.int64(PH_GUILD_TYPE), p)
    elif ph == PH_GUILD_TYPE:
        q = state[G_GUILD_CELL]
        card = state[G_CARDS_IN_PLAY + a - A_TYPE]
        _put_building(state, p, q, card)
        state[G_GUILD_REPLACED] |= 1 << q
        state[G_GUILD_LEFT] -= 1
        state[G_GUILD_CELL] = -1
        if _needs_resource(card):
            state[G_RESOURCE_CELL] = q
            state[G_RESOURCE_RETURN] = RET_GUILD
            _set(state, np.int64(PH_BUILD_RESOURCE), p)
        else:
            resume = _guild_continue(state, p)
    elif ph == PH_OPALEYE_TYPE:
        state[b + O_OPALEYE_ASIDE + a - A_TYPE] = 1
        state[G_OPALEYE_MOVED] += 1
        resume = state[G_OPALEYE_MOVED] >= OPALEYE_COUNT
    if resume:      # back to p's build step, as in _run
        _idle_context(state)
        if _build_offered(state, p):
            _set(state, np.int64(PH_BUILD), p)
        else:
            _finish_build_step(state, p)
            return True
    return False


@njit(cache=True)
def advance(state, action, mask):
    """The AEC shell's one call per step (see :mod:`envs.spec`)."""
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True, **JIT_ONLY)
def _guild_continue(state, p):
    """Next Architect's Guild replacement; True when the Guild is over (back to building)."""
    if state[G_GUILD_LEFT] > 0:
        _set(state, np.int64(PH_GUILD_TARGET), p)
        return False
    return True


@njit(cache=True)
def scores(state, out):
    parts = state[SCRATCH_SCORE_PARTS:SCRATCH_SCORE_PARTS + NUM_CARDS + 2]
    for p in range(state[G_NUM_PLAYERS]):
        out[p] = _player_score(state, p, parts)


@njit(cache=True)
def _tie_keys(state, p):
    """(fewest namings key, fewest empty key, cottages) as numbers where larger is better."""
    b = _player_base(p)
    mbt = state[b + O_MB_TURNS] if (state[G_TOWN_HALL] == 0 and not state[G_SOLO]) else 0
    ne = 0
    cw = 0
    for q in range(16):
        c = state[b + O_BUILDING + q]
        if c < 0:
            ne += 1
        elif c == C_COTTAGE:
            cw += 1
        elif c == M_BARRETT:
            cw += BARRETT_WEIGHT
    return -mbt, -ne, cw


@njit(cache=True)
def ranks(state, out):
    """Score decides, then the tie-breaks of :func:`_tie_keys` in order; a tie on all of
    them is shared."""
    n = state[G_NUM_PLAYERS]
    keys = state[SCRATCH_RANK_KEYS:SCRATCH_RANK_KEYS + MAX_SEATS * 4].reshape((MAX_SEATS, 4))
    parts = state[SCRATCH_SCORE_PARTS:SCRATCH_SCORE_PARTS + NUM_CARDS + 2]
    for p in range(n):
        keys[p, 0] = _player_score(state, p, parts)
        keys[p, 1], keys[p, 2], keys[p, 3] = _tie_keys(state, p)
    ranks_lexicographic(keys, n, out)


# ======================================================================== observation
# ------------------------------------------------------------------ observation layout
ROUND_NORM = 100.0
# one player's piece, seen from the observer (offsets inside the piece); squares planes:
PLANE_EMPTY, PLANE_CUBE, PLANE_TYPE, PLANE_MONUMENT, PLANE_BUILDING_RES, PLANE_WAREHOUSE, PLANE_PLACED = \
    0, 1, 1 + NUM_RESOURCES, 1 + NUM_RESOURCES + NUM_TYPES, 2 + NUM_RESOURCES + NUM_TYPES, 2 + 2 * NUM_RESOURCES + NUM_TYPES, 2 + 3 * NUM_RESOURCES + NUM_TYPES
OBS_PLANES = PLANE_PLACED + 1
_PLAYER_OBS_FIELDS = (
    ("squares", (16, OBS_PLANES)), ("present", ()), ("building", ()), ("complete", ()),
    ("done_round", ()), ("master_builder_turns", ()), ("hammer", ()), ("cave_uses_left", ()),
    ("monument_built", (NUM_MONUMENTS,)), ("shrine_value", ()), ("opaleye_aside", (NUM_TYPES,)),
    ("committed", ()),
)
PLAYER_OBS = Layout("tiny_towns player observation")
for _name, _shape in _PLAYER_OBS_FIELDS:
    PLAYER_OBS.add(_name, _shape)
P_SQUARES = PLAYER_OBS.offset("squares")
P_PRESENT = PLAYER_OBS.offset("present")
P_BUILDING = PLAYER_OBS.offset("building")
P_COMPLETE = PLAYER_OBS.offset("complete")
P_DONE_ROUND = PLAYER_OBS.offset("done_round")
P_MB_TURNS = PLAYER_OBS.offset("master_builder_turns")
P_HAMMER = PLAYER_OBS.offset("hammer")
P_CAVE_LEFT = PLAYER_OBS.offset("cave_uses_left")
P_MONUMENT = PLAYER_OBS.offset("monument_built")
P_SHRINE = PLAYER_OBS.offset("shrine_value")
P_OPALEYE = PLAYER_OBS.offset("opaleye_aside")
P_COMMITTED = PLAYER_OBS.offset("committed")
OBS_PLAYER = PLAYER_OBS.size

OBS = Layout("tiny_towns observation")      # every part in [0, 1]
for _i in range(MAX_SEATS):
    for _name, _shape in _PLAYER_OBS_FIELDS:
        _off = OBS.add(f"player{_i}_{_name}", _shape)
        assert _off == _i * OBS_PLAYER + PLAYER_OBS.offset(_name)
# public
OBS_CARDS = OBS.add("cards_in_play", (NUM_BUILDING_CARDS,))
OBS_NUM_PLAYERS = OBS.add("num_players", (MAX_SEATS,))
OBS_TOWN_HALL = OBS.add("town_hall")
OBS_SOLO = OBS.add("solo")
OBS_MONUMENTS = OBS.add("monuments")
OBS_CAVE_RULE = OBS.add("cave_rule")
OBS_ROUND = OBS.add("round")
OBS_PHASE = OBS.add("phase", (NUM_PHASES + 1,))           # last: "another player is placing"
OBS_ACTOR = OBS.add("actor", (MAX_SEATS,))
OBS_RESOURCE = OBS.add("round_resource", (NUM_RESOURCES,))
OBS_IMPOSED = OBS.add("imposed_on_me")
OBS_TH_ROUND = OBS.add("town_hall_round", (2,))       # drawn, free
OBS_UNSEEN = OBS.add("unseen", (NUM_RESOURCES,))
OBS_DRAWS_LEFT = OBS.add("draws_left")
OBS_FACE_UP = OBS.add("face_up_discards", (NUM_RESOURCES,))
OBS_DISPLAY = OBS.add("solo_display", (NUM_RESOURCES,))
OBS_NEVER_SEEN = OBS.add("solo_never_seen")
OBS_UNDER_DECK = OBS.add("solo_under_deck", (15, NUM_RESOURCES))
OBS_UNDER_DECK_LEN = OBS.add("solo_under_deck_len")
# private
OBS_DEALT = OBS.add("dealt_monuments", (NUM_MONUMENTS,))
OBS_KEPT = OBS.add("kept_monument", (NUM_MONUMENTS,))
OBS_PEND_OFFERED = OBS.add("pending_offered", (NUM_RESOURCES,))
OBS_PEND_RESOURCE = OBS.add("pending_resource", (NUM_RESOURCES,))
OBS_PEND_DEST = OBS.add("pending_dest", (17,))          # 16 = set aside
OBS_PEND_SWAP_RES = OBS.add("pending_swap_resource", (NUM_RESOURCES,))
OBS_PEND_SWAP_SQUARE = OBS.add("pending_swap_square", (16,))
OBS_COMMITTED = OBS.add("committed")
# step context (public, except another player's build step: hidden until the reveal)
OBS_TOKEN_CARD = OBS.add("token_card", (NUM_CARDS,))
OBS_TOKEN_VACATED = OBS.add("token_vacated", (16,))
OBS_TOKEN_ANYWHERE = OBS.add("token_anywhere")
OBS_GROVE_TYPE = OBS.add("grove_type", (NUM_TYPES,))
OBS_GUILD_LEFT = OBS.add("guild_left")
OBS_GUILD_REPLACED = OBS.add("guild_replaced", (16,))
OBS_OPALEYE_TYPE = OBS.add("opaleye_type", (NUM_TYPES,))
OBS_RESOURCE_CELL = OBS.add("resource_cell", (16,))
OBS_SIZE = OBS.size


@njit(cache=True)
def public_phase(state, viewer):
    """The current decision as ``viewer`` (a seat or ``TABLE``) sees it: its ``PH_*``, but
    ``NUM_PHASES`` ("another player is placing") for a step of another player's secret
    placement, and ``PH_BUILD`` for any step of another player's hidden build step (which
    construction or on-build choice it is stays hidden until the reveal, R6)."""
    ph = state[G_PHASE]
    if state[G_ACTOR] == viewer or state[G_SOLO] or ph == PH_GAME_OVER:
        return ph
    if ph >= PH_CHOOSE and ph <= PH_SWAP_SQUARE:
        return np.int64(NUM_PHASES)
    if _builds_hidden(state):
        return np.int64(PH_BUILD)
    return ph


@njit(cache=True)
def context_hidden(state, viewer):
    """The step context (the construction waiting for its token, on-build choices under
    way) belongs to another player's hidden build step."""
    return state[G_ACTOR] != viewer and _builds_hidden(state)


@njit(cache=True)
def observe(state, player, out):
    out[:] = 0.0
    n = state[G_NUM_PLAYERS]
    r = state[G_ROUND]
    for rel in range(MAX_SEATS):
        if rel < n:
            p = (player + rel) % n
            b = seen_base(state, p, player)     # another player's constructions of the round: hidden
            o = rel * OBS_PLAYER
            for q in range(16):
                base = o + P_SQUARES + q * OBS_PLANES
                c = state[b + O_BUILDING + q]
                cube = state[b + O_CUBE + q]
                if c < 0 and cube < 0:
                    out[base + PLANE_EMPTY] = 1.0
                if cube >= 0:
                    out[base + PLANE_CUBE + cube] = 1.0
                if c >= 0:
                    if c < NUM_BUILDING_CARDS:
                        out[base + PLANE_TYPE + CARD_TYPE[c]] = 1.0
                    else:
                        out[base + PLANE_MONUMENT] = 1.0
                    if state[b + O_BUILDING_RES + q] >= 0:
                        out[base + PLANE_BUILDING_RES + state[b + O_BUILDING_RES + q]] = 1.0
                    for k in range(NUM_RESOURCES):
                        out[base + PLANE_WAREHOUSE + k] = state[b + O_WAREHOUSE + q * 5 + k] / 3.0
                    if state[b + O_PLACED_ROUND + q] == r:
                        out[base + PLANE_PLACED] = 1.0
            out[o + P_PRESENT] = 1.0
            out[o + P_BUILDING] = 1.0 if state[b + O_STATUS] == 0 else 0.0
            out[o + P_COMPLETE] = 1.0 if state[b + O_STATUS] == 1 else 0.0
            out[o + P_DONE_ROUND] = min(state[b + O_DONE_ROUND], ROUND_NORM) / ROUND_NORM
            out[o + P_MB_TURNS] = min(state[b + O_MB_TURNS], ROUND_NORM) / ROUND_NORM
            out[o + P_HAMMER] = 1.0 if (state[G_TOWN_HALL] == 0 and n > 1 and state[G_MASTER_BUILDER] == p) else 0.0
            out[o + P_CAVE_LEFT] = (CAVE_USES - state[b + O_CAVE_USES]) / CAVE_USES if state[G_CAVE_RULE] else 0.0
            if state[b + O_MONUMENT_BUILT]:
                out[o + P_MONUMENT + state[b + O_KEPT] - NUM_BUILDING_CARDS] = 1.0
                out[o + P_SHRINE] = state[b + O_SHRINE] / 8.0
            for k in range(NUM_TYPES):
                out[o + P_OPALEYE + k] = state[b + O_OPALEYE_ASIDE + k]
            out[o + P_COMMITTED] = state[b + O_COMMITTED]
    # public
    for k in range(NUM_TYPES):
        out[OBS_CARDS + state[G_CARDS_IN_PLAY + k]] = 1.0
    out[OBS_NUM_PLAYERS + n - 1] = 1.0
    out[OBS_TOWN_HALL] = state[G_TOWN_HALL]
    out[OBS_SOLO] = state[G_SOLO]
    out[OBS_MONUMENTS] = state[G_MONUMENTS]
    out[OBS_CAVE_RULE] = state[G_CAVE_RULE]
    out[OBS_ROUND] = min(r, ROUND_NORM) / ROUND_NORM
    ph = state[G_PHASE]
    out[OBS_PHASE + public_phase(state, player)] = 1.0
    if state[G_ACTOR] >= 0 and ph != PH_GAME_OVER:
        out[OBS_ACTOR + (state[G_ACTOR] - player + n) % n] = 1.0
    if state[G_RESOURCE] >= 0:
        out[OBS_RESOURCE + state[G_RESOURCE]] = 1.0
    out[OBS_IMPOSED] = 1.0 if (state[G_RESOURCE] >= 0 and (state[G_TOWN_HALL] == 1 or
                                                           player != state[G_MASTER_BUILDER])) else 0.0
    if state[G_SOLO]:
        out[OBS_IMPOSED] = 1.0
    if state[G_TOWN_HALL] == 1:
        out[OBS_TH_ROUND + state[G_TH_FREE_ROUND]] = 1.0
    if not state[G_SOLO]:
        for k in range(NUM_RESOURCES):
            out[OBS_UNSEEN + k] = state[G_UNSEEN + k] / 3.0 if state[G_TOWN_HALL] == 1 else 0.0
    else:
        for k in range(NUM_RESOURCES):
            out[OBS_UNSEEN + k] = state[G_UNSEEN + k] / 3.0
    out[OBS_DRAWS_LEFT] = state[G_DRAWS_LEFT] / 10.0
    for k in range(NUM_RESOURCES):
        out[OBS_FACE_UP + k] = state[G_FACE_UP + k] / 3.0
    for k in range(NUM_RESOURCES):
        out[OBS_DISPLAY + k] = state[G_DISPLAY + k] / 3.0
    out[OBS_NEVER_SEEN] = state[G_NEVER_SEEN] / 12.0
    for i in range(15):
        if state[G_UNDER_DECK + i] >= 0 and i < state[G_UNDER_DECK_LEN]:
            out[OBS_UNDER_DECK + 5 * i + state[G_UNDER_DECK + i]] = 1.0
    out[OBS_UNDER_DECK_LEN] = state[G_UNDER_DECK_LEN] / 15.0
    # private
    b = _player_base(player)
    if state[b + O_KEPT] < 0:
        for i in range(MAX_MONUMENTS_DEALT):
            if state[b + O_DEALT + i] >= 0:
                out[OBS_DEALT + state[b + O_DEALT + i] - NUM_BUILDING_CARDS] = 1.0
    if state[b + O_KEPT] >= 0:
        out[OBS_KEPT + state[b + O_KEPT] - NUM_BUILDING_CARDS] = 1.0
    if state[b + O_PEND_OFFERED] >= 0:
        out[OBS_PEND_OFFERED + state[b + O_PEND_OFFERED]] = 1.0
    if state[b + O_PEND_RESOURCE] >= 0:
        out[OBS_PEND_RESOURCE + state[b + O_PEND_RESOURCE]] = 1.0
    if state[b + O_PEND_DEST] >= 0:
        out[OBS_PEND_DEST + state[b + O_PEND_DEST]] = 1.0
    if state[b + O_PEND_SWAP_RES] >= 0:
        out[OBS_PEND_SWAP_RES + state[b + O_PEND_SWAP_RES]] = 1.0
    if state[b + O_PEND_SWAP_SQUARE] >= 0:
        out[OBS_PEND_SWAP_SQUARE + state[b + O_PEND_SWAP_SQUARE]] = 1.0
    out[OBS_COMMITTED] = state[b + O_COMMITTED]
    # step context: public, except during another player's hidden build step
    if context_hidden(state, player):
        return OBS_SIZE
    if state[G_TOKEN_CARD] >= 0:
        out[OBS_TOKEN_CARD + state[G_TOKEN_CARD]] = 1.0
    for q in range(16):
        out[OBS_TOKEN_VACATED + q] = (state[G_TOKEN_VACATED] >> q) & 1
    out[OBS_TOKEN_ANYWHERE] = state[G_TOKEN_ANYWHERE]
    if state[G_GROVE_TYPE] >= 0:
        out[OBS_GROVE_TYPE + state[G_GROVE_TYPE]] = 1.0
    guild = ph == PH_GUILD_TARGET or ph == PH_GUILD_TYPE or (ph == PH_BUILD_RESOURCE and
                                                             state[G_RESOURCE_RETURN] == RET_GUILD)
    out[OBS_GUILD_LEFT] = state[G_GUILD_LEFT] / 2.0 if guild else 0.0
    for q in range(16):
        out[OBS_GUILD_REPLACED + q] = (state[G_GUILD_REPLACED] >> q) & 1 if guild else 0
    if state[G_OPALEYE_TYPE] >= 0:
        out[OBS_OPALEYE_TYPE + state[G_OPALEYE_TYPE]] = 1.0
    if state[G_RESOURCE_CELL] >= 0:
        out[OBS_RESOURCE_CELL + state[G_RESOURCE_CELL]] = 1.0
    elif state[G_GUILD_CELL] >= 0:
        out[OBS_RESOURCE_CELL + state[G_GUILD_CELL]] = 1.0
    return OBS_SIZE


# ================================================================= hidden information
@njit(cache=True)
def reseed(state, seed):
    rng.seed_rng(state, G_RNG, seed)


@njit(cache=True)
def _pick(state, mask):
    return _pick_gen(state, G_RNG, mask)


@njit(cache=True)
def _pick_gen(gen_state, off, mask):
    cnt = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            cnt += 1
    k = rng.randint(gen_state, off, cnt)
    for i in range(mask.shape[0]):
        if mask[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@njit(cache=True)
def _random_commit(state, p, mask):
    """Redo p's commitment with uniformly random legal choices at each sub-step."""
    ph = _commit_start(state, p)
    while ph >= 0:
        mask[:] = 0
        _commit_mask(state, p, ph, mask)
        a = _pick(state, mask)
        ph = _commit_apply(state, p, ph, a)


@njit(cache=True)
def _random_build(state, p, mask, backup, partial):
    """Replay p's build step from its start (p's record as the others saw it) with uniformly
    random legal choices at every decision.  Played to its end, or (``partial``) to one of
    p's ``BUILD`` decisions, where p is left to act: there ``PASS`` stands for "stop here", and
    a construction after which the step would end by itself is undone (``backup`` holds p's
    record and the step context before it)."""
    nctx = BUILD_CONTEXT.shape[0]
    if not _build_offered(state, p):
        if partial:     # cannot happen (the actor's step was offered); keep the game legal
            _set(state, np.int64(PH_BUILD), p)
        else:
            _finish_build_step(state, p)
        return
    _set(state, np.int64(PH_BUILD), p)
    b = _player_base(p)
    while True:
        ph = state[G_PHASE]
        mask[:] = 0
        legal_mask(state, mask)
        a = _pick(state, mask)
        if partial and ph == PH_BUILD:
            if a == A_PASS:
                return
            for i in range(PLAYER_SIZE):
                backup[i] = state[b + i]
            for i in range(nctx):
                backup[PLAYER_SIZE + i] = state[BUILD_CONTEXT[i]]
        if _build_substep(state, p, ph, a):
            if partial:
                for i in range(PLAYER_SIZE):
                    state[b + i] = backup[i]
                for i in range(nctx):
                    state[BUILD_CONTEXT[i]] = backup[PLAYER_SIZE + i]
            return


@njit(cache=True)
def determinize(state, observer, seed):
    n = state[G_NUM_PLAYERS]
    if observer < 0 or observer >= n:
        # callers validate; a bad seat must still never index the state
        raise ValueError("determinize: observer is not a seat of this game")
    reseed(state, seed)
    ob = _player_base(observer)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    nctx = BUILD_CONTEXT.shape[0]
    saved = np.empty(nctx, dtype=np.int64)
    backup = np.empty(PLAYER_SIZE + nctx, dtype=np.int64)
    # the others' constructions of this round, hidden until the last builder is done: every
    # other record back to what the table saw at the reveal (re-drawn below)
    hidden_builds = _builds_hidden(state)
    actor = state[G_ACTOR]
    if hidden_builds:
        for i in range(nctx):
            saved[i] = state[BUILD_CONTEXT[i]]
            if i >= CONTEXT_FIRST_IDLE and actor != observer:
                state[BUILD_CONTEXT[i]] = IDLE_CONTEXT[i]
        for p in range(n):
            if p != observer:
                for i in range(PLAYER_SIZE):
                    state[_player_base(p) + i] = state[G_SHOWN + p * PLAYER_SIZE + i]
    # monuments the observer has not seen
    if state[G_MONUMENTS]:
        seen = np.zeros(NUM_CARDS, dtype=np.int64)
        for i in range(2):
            if state[ob + O_DEALT + i] >= 0:
                seen[state[ob + O_DEALT + i]] = 1
        for p in range(n):
            b = _player_base(p)
            if state[b + O_MONUMENT_BUILT]:
                seen[state[b + O_KEPT]] = 1
        pool = np.empty(NUM_MONUMENTS, dtype=np.int64)
        m = 0
        for i in range(NUM_BUILDING_CARDS, NUM_CARDS):
            if seen[i] == 0 and not (state[G_SOLO] and SOLO_REMOVED[i]):
                pool[m] = i
                m += 1
        rng.shuffle(state, G_RNG, pool, np.int64(m))
        k = 0
        for p in range(n):
            if p == observer:
                continue
            b = _player_base(p)
            if state[b + O_MONUMENT_BUILT]:
                state[b + O_DEALT] = state[b + O_KEPT]
                state[b + O_DEALT + 1] = pool[k]
                k += 1
            elif state[b + O_KEPT] >= 0:
                state[b + O_KEPT] = pool[k]
                state[b + O_DEALT] = pool[k]
                state[b + O_DEALT + 1] = pool[k + 1]
                k += 2
            else:
                state[b + O_DEALT] = pool[k]
                state[b + O_DEALT + 1] = pool[k + 1]
                k += 2
            # the copy the others see holds no secret of the real game either
            shown = G_SHOWN + p * PLAYER_SIZE
            state[shown + O_KEPT] = state[b + O_KEPT]
            state[shown + O_DEALT] = state[b + O_DEALT]
            state[shown + O_DEALT + 1] = state[b + O_DEALT + 1]
    # hidden commitments of the other players
    if state[G_STAGE] == ST_COMMIT and not state[G_SOLO]:
        for i in range(state[G_ORDER_LEN]):
            p = state[G_ORDER + i]
            if p == observer:
                continue
            b = _player_base(p)
            if state[b + O_COMMITTED]:
                _random_commit(state, p, mask)
            elif state[G_ACTOR] == p and state[G_PHASE] >= PH_CHOOSE and state[G_PHASE] <= PH_SWAP_SQUARE:
                # p is in the middle of its placement: redo its earlier sub-choices at random
                # up to the same step (the sequence of steps depends on public facts only,
                # see _warehouse_padded), so the copy's turn order matches the game's.
                target = state[G_PHASE]
                ph = _commit_start(state, p)
                while ph >= 0 and ph != target:
                    mask[:] = 0
                    _commit_mask(state, p, ph, mask)
                    ph = _commit_apply(state, p, ph, _pick(state, mask))
                if ph < 0:          # cannot happen; keep the copy a legal game anyway
                    ph = _commit_start(state, p)
                state[b + O_PEND_STAGE] = ph
                _set(state, ph, p)
    # hidden build steps: the other players done building replay theirs at random, and
    # another player in the middle of its build step replays one up to a BUILD decision,
    # where it is left to act (its earlier choices there are hidden, so whose turn it is
    # does not change)
    if hidden_builds:
        for i in range(state[G_ORDER_POS]):
            p = state[G_ORDER + i]
            if p != observer:
                _random_build(state, p, mask, backup, WHOLE_STEP)
                state[G_ORDER_POS] = saved[2]
        if actor != observer:
            _random_build(state, actor, mask, backup, PARTIAL_STEP)
        else:
            for i in range(nctx):
                state[BUILD_CONTEXT[i]] = saved[i]


# =================================================================== greedy heuristic
# Heuristic weights, not rules data (only ``potential`` reads them).  EST_VP: the VP a
# building of each card typically adds to a town, context-dependent scores taken at a
# middling value and 0-VP utility cards valued for what they enable.
_EST = {"Cottage": 3.0, "Farm": 1.0, "Granary": 1.0, "Greenhouse": 1.0, "Orchard": 1.0,
        "Well": 1.0, "Fountain": 1.0, "Millstone": 1.0, "Shed": 1.0,
        "Chapel": 2.5, "Abbey": 2.5, "Cloister": 2.0, "Temple": 2.5,
        "Tavern": 3.5, "Almshouse": 2.0, "Inn": 2.5, "Feast Hall": 2.5,
        "Theater": 3.0, "Bakery": 2.0, "Market": 2.0, "Tailor": 2.0,
        "Factory": 1.0, "Bank": 4.0, "Trading Post": 1.5, "Warehouse": 0.5}
EST_VP = np.zeros(NUM_CARDS, dtype=np.float64)
for _i in range(NUM_CARDS):
    EST_VP[_i] = _EST[CARD_NAMES[_i]] if _i < NUM_BUILDING_CARDS else max(4.0, float(FLAT_VP[_i]))
POT_POWER = 1.5     # a placement with k of its n cubes is worth (k / n) ** POT_POWER of a built one
POT_READY = 0.5     # a complete pattern is not built yet, and may score less in context
POT_EMPTY = 1.0     # an empty square can still take a useful cube (it scores -1 like a cube)
POT_UNFED = 1.5     # an unfed Cottage (Barrett Castle: BARRETT_WEIGHT) may be fed later
POT_SHARE = np.zeros((MAX_PATTERN_CELLS + 1, MAX_PATTERN_CELLS + 1), dtype=np.float64)    # [cells, cubes missing]
for _n in range(1, MAX_PATTERN_CELLS + 1):
    for _m in range(_n + 1):
        POT_SHARE[_n, _m] = POT_READY * ((_n - _m) / _n) ** POT_POWER
K_WILD = 5          # pattern key of a Trading Post (stands for any resource)
K_BLOCKED = 6       # pattern key of any other building


@njit(cache=True)
def _pot_key(state, p, key):
    """p's squares as pattern keys (-1 empty, 0..4 cube), p's committed cube already on."""
    b = _player_base(p)
    for q in range(16):
        v = state[b + O_CUBE + q]
        c = state[b + O_BUILDING + q]
        if c >= 0:
            v = K_WILD if c == C_TPOST else K_BLOCKED
        key[q] = v
    if state[b + O_COMMITTED]:
        q = state[b + O_PEND_DEST]
        if 0 <= q < 16 and key[q] == -1:
            key[q] = state[b + O_PEND_RESOURCE]
        if state[b + O_PEND_SWAP_SQUARE] >= 0:
            key[state[b + O_PEND_SWAP_SQUARE]] = state[b + O_PEND_SWAP_RES]


@njit(cache=True)
def _pattern_value(key, cards, worths, ncards, credit):
    """Loose cubes credited with their best share of a pattern they can still complete, plus
    the empty squares.  A placement is open when each cell holds its cube, a wild or nothing;
    its card's worth times POT_SHARE of the cubes it lacks is split over the cubes it has, so
    a cube gains by joining fuller patterns.  A cube in no open placement is dead."""
    for q in range(16):
        credit[q] = 0.0
    for i in range(ncards):
        card = cards[i]
        n = PATTERN_SIZE[card]
        worth = worths[i]
        for t in range(8):
            if TRANSFORM_DISTINCT[card, t] == 0:
                continue
            for r0 in range(5 - TRANSFORM_BOX[card, t, 0]):
                for c0 in range(5 - TRANSFORM_BOX[card, t, 1]):
                    have = 0
                    miss = 0
                    for j in range(n):
                        v = key[(r0 + PATTERN_CELLS[card, t, j, 0]) * 4 + c0 + PATTERN_CELLS[card, t, j, 1]]
                        if v == PATTERN_CELLS[card, t, j, 2]:
                            have += 1
                        elif v == -1:
                            miss += 1
                        elif v != K_WILD:
                            have = -1
                            break
                    if have <= 0:
                        continue
                    share = worth * POT_SHARE[n, miss] / have
                    for j in range(n):
                        q = (r0 + PATTERN_CELLS[card, t, j, 0]) * 4 + c0 + PATTERN_CELLS[card, t, j, 1]
                        if key[q] == PATTERN_CELLS[card, t, j, 2] and share > credit[q]:
                            credit[q] = share
    v = 0.0
    for q in range(16):
        v += credit[q]
        if key[q] == -1:
            v += POT_EMPTY
    return v


@njit(cache=True)
def _to_place(state, p):
    """Bitmask of the resources p still puts on its board this round (0: none pending)."""
    if state[G_STAGE] != ST_COMMIT:
        return 0
    b = _player_base(p)
    if state[b + O_COMMITTED]:
        return 0
    pending = False
    for i in range(state[G_ORDER_POS], state[G_ORDER_LEN]):
        if state[G_ORDER + i] == p:
            pending = True
    if not pending:
        return 0
    if state[G_ACTOR] == p and state[b + O_PEND_RESOURCE] >= 0:
        return 1 << state[b + O_PEND_RESOURCE]
    if state[G_SOLO]:
        m = 0
        for r in range(NUM_RESOURCES):
            if state[G_DISPLAY + r] > 0:
                m |= 1 << r
        return m
    if state[G_TOWN_HALL] == 1 and state[G_TH_FREE_ROUND] == 1:
        return _naming_mask(state, p)
    x = state[G_RESOURCE]
    if x < 0:
        return 0
    if (state[G_TOWN_HALL] == 1 or p != state[G_MASTER_BUILDER]) and _factory_swap(state, p, x):
        return 31
    return 1 << x


@njit(cache=True)
def _unfed(bld, fed):
    """Weight of the unfed Cottages (Barrett Castle counts BARRETT_WEIGHT)."""
    n = 0
    for q in range(16):
        if not (fed >> q) & 1:
            if bld[q] == C_COTTAGE:
                n += 1
            elif bld[q] == M_BARRETT:
                n += BARRETT_WEIGHT
    return n


@njit(cache=True)
def potential(state, p):
    """Points p's position promises that ``scores`` (the live town score: buildings as they
    stand, -1 per square without a building) does not count yet; for greedy baselines.

    * Pattern progress: every loose cube earns its best share of an open placement (any of
      the 8 transforms; Trading Posts are wild) of a card p may build.  A placement
      holding k of its n cells is worth POT_READY * (k / n) ** POT_POWER of the card's worth,
      split over its cubes: EST_VP + 1 (the building's square stops scoring -1) +
      POT_EMPTY per other square it frees, and for the red card (COTTAGE_FED_VP - POT_UNFED)
      per unfed Cottage it could feed (up to FARM_CAP).  A cube that fits no open placement
      is dead and earns nothing.
    * POT_EMPTY per empty square (room for future cubes); POT_UNFED per unfed Cottage.
    * A cube p still has to place this round (its resource known: named, drawn, or its own
      choice) is put on the empty square where this value is highest; p's committed but
      unrevealed cube counts on its square.
    * While p holds the token of a construction: the best real score gain (``score_board``)
      over the legal token squares, unfed Cottages and the square's POT_EMPTY included.
    A complete town promises nothing more."""
    b = _player_base(p)
    if state[b + O_STATUS] == 1:
        return 0.0
    parts = np.zeros(NUM_CARDS + 2, dtype=np.int64)
    bld = state[b + O_BUILDING:b + O_BUILDING + 16]
    cur = _town_score(state, p, bld, state[b + O_SHRINE], parts, np.int64(EVERYTHING))
    unfed = _unfed(bld, parts[NUM_CARDS + 1])
    cards = np.empty(8, dtype=np.int64)
    worths = np.empty(8, dtype=np.float64)
    nc = np.int64(0)
    for slot in range(8):
        c = _slot_card(state, p, slot)
        if c >= 0:
            cards[nc] = c
            # a building stops its square scoring -1 and frees the other squares of its
            # pattern; a red one also feeds waiting Cottages
            worths[nc] = EST_VP[c] + 1.0 + POT_EMPTY * (PATTERN_SIZE[c] - 1)
            if slot == 1:
                worths[nc] += (COTTAGE_FED_VP - POT_UNFED) * min(unfed, FARM_CAP)
            nc += 1
    key = np.empty(16, dtype=np.int64)
    credit = np.empty(16, dtype=np.float64)
    _pot_key(state, p, key)
    rmask = _to_place(state, p)
    best = -1e18
    if rmask:
        for q in range(16):
            if key[q] != -1:
                continue
            for r in range(NUM_RESOURCES):
                if (rmask >> r) & 1:
                    key[q] = r
                    best = max(best, _pattern_value(key, cards, worths, nc, credit))
            key[q] = -1
    if best == -1e18:
        best = _pattern_value(key, cards, worths, nc, credit)
    if state[G_PHASE] == PH_TOKEN and state[G_ACTOR] == p:
        card = state[G_TOKEN_CARD]
        shrine = state[b + O_SHRINE]
        if card == M_SHRINE:
            shrine = SHRINE_VP[min(_count_buildings(state, p) + 1, 16)]
        alt = bld.copy()
        gain = -1e18
        for q in range(16):
            if not ((state[G_TOKEN_VACATED] >> q) & 1 or (state[G_TOKEN_ANYWHERE] and _is_empty(state, p, q))):
                continue
            alt[q] = card
            v = _town_score(state, p, alt, shrine, parts, np.int64(EVERYTHING))
            gain = max(gain, v - cur + POT_UNFED * (_unfed(alt, parts[NUM_CARDS + 1]) - unfed) - POT_EMPTY)
            alt[q] = -1
        if gain > -1e18:
            best += gain
    return best + POT_UNFED * unfed

