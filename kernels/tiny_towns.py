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
round has committed.  Town Hall draws and solo refills are sampled lazily from per-resource
counts of the unseen cards, so no future draw is stored in the state.

Whose turn it is depends on public information only (two or more players):

* a placement that could go to a Warehouse (imposed resource, an active Warehouse with room
  or a cube to swap) always takes the DEST, SWAP and SWAP_SQUARE steps -- PASS only where
  the step does not apply (``_warehouse_padded``) -- whether the cube went on a square, to
  the Warehouse, swapped a cube, onto a Cottage or was set aside;
* the build step is judged from public information (``_build_offered``): a player gets it
  as a decision when a card in play fits its board or a monument nobody has built yet
  could fit it (``_could_build_monument``: the player has not built its own, and the
  others do not know which one it kept), PASS the only action when nothing of its own
  fits; otherwise it is done at once.  The rules' "no legal construction: done" would
  show when a player's only legal construction is its secret monument.  Solo keeps the
  rule as written: no legal construction, done.

State layout: globals ``G_*`` (slots 0..PB-1), six player blocks of PSZ slots (``O_*``
offsets), then the scratch tail ``G_SCR`` .. ``STATE_SIZE`` (``SCRATCH`` slots: the
construction key of ``_build_key``), which carries no game information
(``GameConfig.scratch``).  ``determinize`` refuses an observer that is not a seat
(``ValueError``) before touching the state.

Version history: v0 initial; v0.1 public turn order (padded Warehouse steps, build step
always offered with other players), scratch at the state tail, determinize redoes a
mid-placement mover's earlier sub-choices and checks its observer, data file checked at
load; v0.2 (this revision) the build step is offered only when a card in play or a
monument nobody has built could fit ("could fit from public information"): as leak-free
as v0.1 with far fewer PASS-only steps (random games: 108 -> 77 steps at 2 players,
198 -> 136 at 4; the rulebook rule takes 74 and 129).
"""
import numpy as np
import yaml
from numba import njit

from kernels import data_files, rng
from kernels.grid import pattern_fits

GAME = "tiny_towns"

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
NB = len(DATA["buildings"])        # 25 building cards
NM = len(DATA["monuments"])        # 15 monuments
NCARDS = NB + NM
NRES = 5
NTYPES = 7


def card_token(name):
    return name.lower().replace("'", "").replace(" ", "_")


CARD_TOKENS = [card_token(n) for n in CARD_NAMES]
CID = {n: i for i, n in enumerate(CARD_NAMES)}

CARD_TYPE = np.full(NCARDS, 7, dtype=np.int64)        # 7 = monument
for _i, _b in enumerate(DATA["buildings"]):
    CARD_TYPE[_i] = TYPE_IDS.index(_b["type"])
# type key for "distinct type" counts: building types 0..6, Barrett Castle = cottage,
# every other monument its own type (10 + card)
TKEY = np.zeros(NCARDS, dtype=np.int64)
for _i in range(NCARDS):
    TKEY[_i] = CARD_TYPE[_i] if _i < NB else 10 + _i
for _i, _m in enumerate(DATA["monuments"]):
    if _m.get("type") == "cottage":
        TKEY[NB + _i] = 0

C_COTTAGE = CID["Cottage"]
C_FARM, C_GRANARY, C_GREENHOUSE, C_ORCHARD = (CID[n] for n in ("Farm", "Granary", "Greenhouse", "Orchard"))
C_WELL, C_FOUNTAIN, C_MILLSTONE, C_SHED = (CID[n] for n in ("Well", "Fountain", "Millstone", "Shed"))
C_CHAPEL, C_ABBEY, C_CLOISTER, C_TEMPLE = (CID[n] for n in ("Chapel", "Abbey", "Cloister", "Temple"))
C_TAVERN, C_ALMSHOUSE, C_INN, C_FEAST = (CID[n] for n in ("Tavern", "Almshouse", "Inn", "Feast Hall"))
C_THEATER, C_BAKERY, C_MARKET, C_TAILOR = (CID[n] for n in ("Theater", "Bakery", "Market", "Tailor"))
C_FACTORY, C_BANK, C_TPOST, C_WAREHOUSE = (CID[n] for n in ("Factory", "Bank", "Trading Post", "Warehouse"))
M_GUILD = CID["Architect's Guild"]
M_ARCHIVE = CID["Archive of the Second Age"]
M_BARRETT = CID["Barrett Castle"]
M_CATHEDRAL = CID["Cathedral of Caterina"]
M_FORT = CID["Fort Ironweed"]
M_MAUSOLEUM = CID["Grand Mausoleum of the Rodina"]
M_GROVE = CID["Grove University"]
M_MANDRAS = CID["Mandras Palace"]
M_OBELISK = CID["Obelisk of the Crescent"]
M_OPALEYE = CID["Opaleye's Watch"]
M_SHRINE = CID["Shrine of the Elder Tree"]
M_SILVA = CID["Silva Forum"]
M_SKYBATHS = CID["The Sky Baths"]
M_STARLOOM = CID["The Starloom"]
M_STATUE = CID["Statue of the Bondmaker"]

# flat VP of every card (0 where the score is not flat)
FLAT_VP = np.zeros(NCARDS, dtype=np.int64)
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
STATUE_CAP = _M["Statue of the Bondmaker"]["cottage_capacity"]
GUILD_MAX = _M["Architect's Guild"]["on_build"]["max"]
OPAL_COUNT = _M["Opaleye's Watch"]["on_build"]["count"]
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
TH_DRAWS = NRES * TH_DECK_PER - TH_DISCARD
SOLO_DECK_PER = DATA["solo"]["deck"]["per_resource"]
SOLO_DISPLAY = DATA["solo"]["display"]
SOLO_DECK = NRES * SOLO_DECK_PER
SOLO_REMOVED = np.zeros(NCARDS, dtype=np.int64)
for _n in DATA["solo"]["removed_cards"] + DATA["solo"]["removed_monuments"]:
    SOLO_REMOVED[CID[_n]] = 1
DECK_CARDS = np.zeros((NTYPES, 4), dtype=np.int64)     # the colour decks
_cnt = [0] * NTYPES
for _i in range(NB):
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
def transform_cells(pattern, t):
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
KMAX = max(sum(ch != "." for row in p for ch in row) for p in PATTERNS)
# offsets in the (dr, dc, value) format of kernels.grid.pattern_fits, in the rules' t order
# (grid.pack_patterns orders and de-duplicates images differently, so the action encoding
# of docs/rules/tiny_towns.md (section 11.2) needs its own table)
OFFS = np.zeros((NCARDS, 8, KMAX, 3), dtype=np.int64)
PSIZE = np.zeros(NCARDS, dtype=np.int64)
TVALID = np.zeros((NCARDS, 8), dtype=np.int64)
TBOX = np.zeros((NCARDS, 8, 2), dtype=np.int64)
for _c, _p in enumerate(PATTERNS):
    _seen = set()
    for _t in range(8):
        _cells, _h, _w = transform_cells(_p, _t)
        PSIZE[_c] = len(_cells)
        TBOX[_c, _t] = (_h, _w)
        for _k, (_r, _cc, _v) in enumerate(_cells):
            OFFS[_c, _t, _k] = (_r, _cc, _v)
        _key = tuple(_cells)
        if _key not in _seen:
            _seen.add(_key)
            TVALID[_c, _t] = 1

# ----------------------------------------------------------------------- action space
A_SQ = 1024
A_RES = 1040
A_TYPE = 1045
A_KEEP = 1052
A_PASS = 1054
A_ASIDE = 1055
NUM_ACTIONS = 1056

# phases
PH_KEEP, PH_NAME, PH_CHOOSE, PH_TAKE, PH_DEST, PH_SWAP, PH_SWAP_SQ, PH_BUILD, PH_TOKEN, \
    PH_BRES, PH_GROVE_TYPE, PH_GROVE_SQ, PH_GUILD_TARGET, PH_GUILD_TYPE, PH_OPAL_TYPE, \
    PH_OPAL_SQ, PH_OVER = range(17)
PHASE_NAMES = ("KEEP", "NAME", "CHOOSE", "TAKE", "DEST", "SWAP", "SWAP_SQUARE", "BUILD", "TOKEN",
               "BUILD_RESOURCE", "GROVE_TYPE", "GROVE_SQUARE", "GUILD_TARGET", "GUILD_TYPE",
               "OPALEYE_TYPE", "OPALEYE_SQUARE", "GAME_OVER")
NPHASES = 17
# stages of a round
ST_KEEP, ST_NAME, ST_COMMIT, ST_BUILD, ST_END = range(5)
# return targets after a BUILD_RESOURCE step
RET_BUILD, RET_GUILD, RET_END = range(3)

# ------------------------------------------------------------------------ state layout
MAXP = 6
G_NP = 0
G_VARIANT = 1      # 0 standard, 1 town hall
G_SOLO = 2
G_MONU = 3
G_CAVE = 4
G_ROUND = 5
G_PHASE = 6
G_ACTOR = 7
G_STAGE = 8
G_ORDER = 9        # 6 slots
G_ORDN = 15
G_ORDI = 16
G_MB = 17
G_MAYOR = 18
G_X = 19           # public resource of the round (named / drawn), -1 otherwise
G_THKIND = 20      # town hall: 0 drawn, 1 free
G_UNSEEN = 21      # 5: unseen cards per resource (town hall since last shuffle; solo face-down)
G_DRAWS = 26       # town hall draws left before a reshuffle
G_DISPLAY = 27     # 5: solo display counts
G_UNKNOWN = 32     # solo: face-down cards never seen
G_QUEUE = 33       # 15: solo known cards under the deck, in order
G_QN = 48
G_TAKEN = 49       # solo: resource of the card taken this round
G_RNG = 50         # 2 slots
G_CARDS = 52       # 7: card in play per type
G_CON_CARD = 60    # construction waiting for its token
G_CON_VAC = 61     # bitmask of vacated squares
G_CON_ANY = 62     # token may go on any empty square
G_EFF_CELL = 63    # square of the building awaiting BUILD_RESOURCE
G_RET = 64
G_GUILD_LEFT = 65
G_GUILD_MASK = 66
G_GUILD_CELL = 67
G_OPAL_N = 68
G_OPAL_OWNER = 69
G_OPAL_PEND = 70
G_OPAL_TYPE = 71
G_FACEUP = 72      # 5: town hall face-up discards since the last shuffle
G_GROVE_TYPE = 77
G_OPAL_INIT = 78
PB = 200
PSZ = 200
O_CUBE = 0
O_BLD = 16
O_EXTRA = 32
O_PR = 48
O_WH = 64          # 16 * 5
O_STATUS = 144     # 0 still building, 1 complete
O_CROUND = 145
O_MBT = 146
O_CAVE = 147
O_DEALT = 148      # 2
O_KEPT = 150
O_MBUILT = 151
O_SHRINE = 152
O_OPAL = 153       # 7 set-aside flags
O_CONS = 160       # bitmask of types constructed this round
O_COMMITTED = 161
O_PX = 162
O_PIMP = 163
O_PRES = 164
O_PDEST = 165
O_PSWR = 166
O_PSWQ = 167
O_PSTAGE = 168
O_MCELL = 169
G_SCR = PB + MAXP * PSZ   # scratch tail (16 key cells): carries no game information
SCRATCH = 16
STATE_SIZE = G_SCR + SCRATCH
CONFIG_SIZE = 12   # np, variant, monuments, cave, first_player, 7 cards (-1 random)

# observation layout
OBS_PLANES = 25
OBS_PVEC = 31
OBS_PLAYER = 16 * OBS_PLANES + OBS_PVEC
OBS_PUBLIC = 25 + 6 + 4 + 1 + (NPHASES + 1) + 6 + 5 + 1 + 2 + 5 + 1 + 5 + 5 + 1 + 75 + 1
OBS_PRIVATE = 15 + 15 + 5 + 5 + 17 + 5 + 16 + 1
OBS_CONTEXT = NCARDS + 16 + 1 + 7 + 1 + 16 + 7 + 16
OBS_SIZE = MAXP * OBS_PLAYER + OBS_PUBLIC + OBS_PRIVATE + OBS_CONTEXT
ROUND_NORM = 100.0


# ============================================================================ helpers
@njit(cache=True)
def _pb(p):
    return PB + p * PSZ


@njit(cache=True)
def _is_empty(state, p, q):
    b = _pb(p)
    return state[b + O_CUBE + q] < 0 and state[b + O_BLD + q] < 0


@njit(cache=True)
def _n_empty(state, p):
    n = 0
    for q in range(16):
        if _is_empty(state, p, q):
            n += 1
    return n


@njit(cache=True)
def _count_card(state, p, card):
    b = _pb(p)
    n = 0
    for q in range(16):
        if state[b + O_BLD + q] == card:
            n += 1
    return n


@njit(cache=True)
def _active_cell(state, p, q):
    return state[_pb(p) + O_PR + q] < state[G_ROUND]


@njit(cache=True)
def _monument_active(state, p, m):
    """Own monument ``m`` built before the current round."""
    b = _pb(p)
    if state[b + O_KEPT] != m or state[b + O_MBUILT] == 0:
        return False
    return state[b + O_PR + state[b + O_MCELL]] < state[G_ROUND]


@njit(cache=True)
def _monument_built(state, p, m):
    b = _pb(p)
    return state[b + O_KEPT] == m and state[b + O_MBUILT] != 0


@njit(cache=True)
def _n_building(state):
    n = 0
    for p in range(state[G_NP]):
        if state[_pb(p) + O_STATUS] == 0:
            n += 1
    return n


@njit(cache=True)
def _bank_res_mask(state, p, skip_cell):
    """Bitmask of resources lying on p's Banks (except the one on ``skip_cell``)."""
    b = _pb(p)
    m = 0
    for q in range(16):
        if q != skip_cell and state[b + O_BLD + q] == C_BANK and state[b + O_EXTRA + q] >= 0:
            m |= 1 << state[b + O_EXTRA + q]
    return m


@njit(cache=True)
def _naming_mask(state, p):
    m = _bank_res_mask(state, p, np.int64(-1))
    if m == 31 and BANK_BAN_LIFT:
        return 31
    return 31 & ~m


@njit(cache=True)
def _wh_count(state, p, q):
    b = _pb(p) + O_WH + q * 5
    return state[b] + state[b + 1] + state[b + 2] + state[b + 3] + state[b + 4]


@njit(cache=True)
def _draw_weighted(state, off, n):
    """Draw a resource with probability proportional to ``state[off:off+n]``; decrements it."""
    return rng.draw_from_counts(state, G_RNG, off, n)


# ===================================================================== construction
@njit(cache=True)
def _build_key(state, p):
    """Scratch key per square: loose cube resource, 5 for an active Trading Post, else -1."""
    b = _pb(p)
    for q in range(16):
        v = state[b + O_CUBE + q]
        if v < 0 and state[b + O_BLD + q] == C_TPOST and _active_cell(state, p, q):
            v = 5
        state[G_SCR + q] = v


@njit(cache=True)
def _slot_card(state, p, slot):
    if slot < 7:
        c = state[G_CARDS + slot]
        if c == C_BANK and _count_card(state, p, C_BANK) >= MAX_BANKS:
            return -1
        return c
    b = _pb(p)
    if state[G_MONU] == 0 or state[b + O_KEPT] < 0 or state[b + O_MBUILT] != 0:
        return -1
    return state[b + O_KEPT]


# resources of each card's pattern, by type (the same in every transform)
PATTERN_NEED = np.zeros((NCARDS, 5), dtype=np.int64)
for _c in range(NCARDS):
    for _k in range(PSIZE[_c]):
        PATTERN_NEED[_c, OFFS[_c, 0, _k, 2]] += 1


@njit(cache=True)
def _card_fits(state, card):
    """Some transform and anchor of ``card``'s pattern fits (scratch key of ``_build_key``)."""
    for t in range(8):
        if TVALID[card, t] == 0:
            continue
        for anchor in range(16):
            if _placement_ok(state, card, t, anchor):
                return True
    return False


@njit(cache=True)
def _placement_ok(state, card, t, anchor):
    """Uses the scratch key of ``_build_key``."""
    if TVALID[card, t] == 0:
        return False
    r0 = anchor // 4
    c0 = anchor % 4
    if r0 + TBOX[card, t, 0] > 4 or c0 + TBOX[card, t, 1] > 4:
        return False
    key = state[G_SCR:G_SCR + 16]
    if not pattern_fits(key, 4, 4, OFFS[card, t], PSIZE[card], r0, c0, 5):
        return False
    for i in range(PSIZE[card]):
        q = (r0 + OFFS[card, t, i, 0]) * 4 + c0 + OFFS[card, t, i, 1]
        if key[q] != 5:
            return True
    return False


@njit(cache=True)
def _construct_mask(state, p, mask):
    """Set the legal CONSTRUCT actions of p in ``mask`` (if given); return their number."""
    _build_key(state, p)
    ncubes = 0
    for q in range(16):
        if state[G_SCR + q] >= 0 and state[G_SCR + q] < 5:
            ncubes += 1
    if ncubes == 0:
        return 0
    n = 0
    for slot in range(8):
        card = _slot_card(state, p, slot)
        if card < 0:
            continue
        for t in range(8):
            if TVALID[card, t] == 0:
                continue
            for anchor in range(16):
                if _placement_ok(state, card, t, anchor):
                    n += 1
                    if mask.shape[0] > 0:
                        mask[128 * slot + 16 * t + anchor] = 1
    return n


@njit(cache=True)
def _has_construction(state, p):
    _build_key(state, p)
    for slot in range(8):
        card = _slot_card(state, p, slot)
        if card >= 0 and _card_fits(state, card):
            return True
    return False


# ======================================================================= commitments
@njit(cache=True)
def _factory_swap(state, p, x):
    """p has an active Factory holding x."""
    b = _pb(p)
    for q in range(16):
        if state[b + O_BLD + q] == C_FACTORY and state[b + O_EXTRA + q] == x and _active_cell(state, p, q):
            return True
    return False


@njit(cache=True)
def _commit_mask(state, p, ph, mask):
    """Legal actions of p's commitment sub-phase ``ph`` into ``mask``."""
    b = _pb(p)
    if ph == PH_CHOOSE:
        if state[G_SOLO]:
            for r in range(NRES):
                if state[G_DISPLAY + r] > 0:
                    mask[A_RES + r] = 1
        else:
            m = _naming_mask(state, p)
            for r in range(NRES):
                if m >> r & 1:
                    mask[A_RES + r] = 1
    elif ph == PH_TAKE:
        for r in range(NRES):
            mask[A_RES + r] = 1
    elif ph == PH_DEST:
        imp = state[b + O_PIMP]
        has_empty = _n_empty(state, p) > 0
        for q in range(16):
            if _is_empty(state, p, q):
                mask[A_SQ + q] = 1
            elif imp:
                bl = state[b + O_BLD + q]
                if bl == C_WAREHOUSE and _active_cell(state, p, q):
                    cnt = _wh_count(state, p, q)
                    if cnt < WAREHOUSE_CAP or (cnt > 0 and has_empty):
                        mask[A_SQ + q] = 1
                elif bl == C_COTTAGE and state[b + O_EXTRA + q] < 0 and _monument_active(state, p, np.int64(M_STATUE)):
                    mask[A_SQ + q] = 1
        if imp and state[G_CAVE] and state[b + O_CAVE] < CAVE_USES:
            mask[A_ASIDE] = 1
    elif ph == PH_SWAP:
        q = state[b + O_PDEST]
        if q < 0 or q >= 16 or state[b + O_BLD + q] != C_WAREHOUSE:
            mask[A_PASS] = 1          # padding step: the cube did not go to a Warehouse
        else:
            if _n_empty(state, p) > 0:
                for r in range(NRES):
                    if state[b + O_WH + q * 5 + r] > 0:
                        mask[A_RES + r] = 1
            if _wh_count(state, p, q) < WAREHOUSE_CAP:
                mask[A_PASS] = 1
    elif ph == PH_SWAP_SQ:
        if state[b + O_PSWR] < 0:
            mask[A_PASS] = 1          # padding step: no swap
        else:
            for q in range(16):
                if _is_empty(state, p, q):
                    mask[A_SQ + q] = 1


@njit(cache=True)
def _commit_start(state, p):
    """First sub-phase of p's commitment (pending fields reset)."""
    b = _pb(p)
    state[b + O_PRES] = -1
    state[b + O_PDEST] = -1
    state[b + O_PSWR] = -1
    state[b + O_PSWQ] = -1
    if state[G_SOLO]:
        state[b + O_PX] = -1
        state[b + O_PIMP] = 1
        return PH_CHOOSE
    if state[G_VARIANT] == 1:
        if state[G_THKIND] == 1:
            state[b + O_PX] = -1
            state[b + O_PIMP] = 0
            return PH_CHOOSE
        state[b + O_PIMP] = 1
    else:
        state[b + O_PIMP] = 1 if p != state[G_MB] else 0
    state[b + O_PX] = state[G_X]
    return _after_x(state, p)


@njit(cache=True)
def _after_x(state, p):
    b = _pb(p)
    x = state[b + O_PX]
    if state[b + O_PIMP] and _factory_swap(state, p, x):
        return PH_TAKE
    state[b + O_PRES] = x
    return PH_DEST


@njit(cache=True)
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
    b = _pb(p)
    if state[b + O_PIMP] == 0:
        return False
    has_empty = _n_empty(state, p) > 0
    for q in range(16):
        if state[b + O_BLD + q] == C_WAREHOUSE and _active_cell(state, p, q):
            cnt = _wh_count(state, p, q)
            if cnt < WAREHOUSE_CAP or (cnt > 0 and has_empty):
                return True
    return False


@njit(cache=True)
def _commit_apply(state, p, ph, a):
    """Apply action ``a`` of sub-phase ``ph``; return the next sub-phase or -1 when committed."""
    b = _pb(p)
    if ph == PH_CHOOSE:
        r = a - A_RES
        state[b + O_PX] = r
        if state[G_SOLO]:
            state[G_DISPLAY + r] -= 1
            state[G_TAKEN] = r
        return _after_x(state, p)
    if ph == PH_TAKE:
        state[b + O_PRES] = a - A_RES
        return PH_DEST
    if ph == PH_DEST:
        if a == A_ASIDE:
            state[b + O_PDEST] = 16
            return PH_SWAP if _warehouse_padded(state, p) else -1
        q = a - A_SQ
        state[b + O_PDEST] = q
        if state[b + O_BLD + q] == C_WAREHOUSE or _warehouse_padded(state, p):
            return PH_SWAP
        return -1
    if ph == PH_SWAP:
        if a != A_PASS:
            state[b + O_PSWR] = a - A_RES
            return PH_SWAP_SQ
        return PH_SWAP_SQ if _warehouse_padded(state, p) else -1
    if ph == PH_SWAP_SQ:
        if a != A_PASS:
            state[b + O_PSWQ] = a - A_SQ
        return -1
    return -1


@njit(cache=True)
def _reveal(state):
    for i in range(state[G_ORDN]):
        p = state[G_ORDER + i]
        b = _pb(p)
        if state[b + O_COMMITTED] == 0:
            continue
        q = state[b + O_PDEST]
        r = state[b + O_PRES]
        if q == 16:
            state[b + O_CAVE] += 1
        elif q >= 0:
            bl = state[b + O_BLD + q]
            if bl == C_WAREHOUSE:
                state[b + O_WH + q * 5 + r] += 1
                if state[b + O_PSWR] >= 0:
                    state[b + O_WH + q * 5 + state[b + O_PSWR]] -= 1
                    state[b + O_CUBE + state[b + O_PSWQ]] = state[b + O_PSWR]
            elif bl == C_COTTAGE:
                state[b + O_EXTRA + q] = r
            else:
                state[b + O_CUBE + q] = r
        state[b + O_COMMITTED] = 0
        state[b + O_PX] = -1
        state[b + O_PRES] = -1
        state[b + O_PDEST] = -1
        state[b + O_PSWR] = -1
        state[b + O_PSWQ] = -1
        state[b + O_PSTAGE] = -1


# ========================================================================= rounds
@njit(cache=True)
def _start_round(state):
    state[G_ROUND] += 1
    r = state[G_ROUND]
    n = state[G_NP]
    for p in range(n):
        b = _pb(p)
        state[b + O_CONS] = 0
        state[b + O_COMMITTED] = 0
    base = state[G_MB] if state[G_VARIANT] == 0 else state[G_MAYOR]
    k = 0
    for j in range(1, n + 1):
        p = (base + j) % n
        if state[_pb(p) + O_STATUS] == 0:
            state[G_ORDER + k] = p
            k += 1
    state[G_ORDN] = k
    state[G_ORDI] = 0
    state[G_X] = -1
    if state[G_SOLO]:
        state[G_STAGE] = ST_COMMIT
    elif state[G_VARIANT] == 1:
        if r % 3 == 0:
            state[G_THKIND] = 1
        else:
            state[G_THKIND] = 0
            if state[G_DRAWS] == 0:
                for i in range(NRES):
                    state[G_UNSEEN + i] = TH_DECK_PER
                    state[G_FACEUP + i] = 0
                state[G_DRAWS] = TH_DRAWS
            state[G_X] = _draw_weighted(state, G_UNSEEN, NRES)
            state[G_DRAWS] -= 1
        state[G_STAGE] = ST_COMMIT
    else:
        state[G_STAGE] = ST_NAME


@njit(cache=True)
def _end_round(state):
    """End of round after the Opaleye moves: game end, discards, hammer; then next round."""
    n = state[G_NP]
    if state[G_VARIANT] == 1 and state[G_THKIND] == 0 and state[G_X] >= 0:
        state[G_FACEUP + state[G_X]] += 1
    if _n_building(state) == 0:
        state[G_PHASE] = PH_OVER
        state[G_ACTOR] = -1
        return False
    if state[G_VARIANT] == 0 and not state[G_SOLO]:
        mb = state[G_MB]
        new = -1
        for j in range(1, n + 1):
            q = (mb + j) % n
            if state[_pb(q) + O_STATUS] == 0 and not _monument_built(state, q, M_FORT):
                new = q
                break
        if new < 0:
            for q in range(n):
                if state[_pb(q) + O_STATUS] == 0:
                    new = q
        state[G_MB] = new
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
    b = _pb(p)
    if _n_empty(state, p) == 0 and state[b + O_STATUS] == 0:
        state[b + O_STATUS] = 1
        state[b + O_CROUND] = state[G_ROUND]
    state[G_ORDI] += 1


@njit(cache=True)
def _could_build_monument(state, p):
    """Judged from public information: p has not built a monument yet and some monument
    nobody has built yet (p's own kept one among them, whichever it is) fits p's board.

    Which monument p kept is secret, so every monument still unbuilt counts; the built
    ones (public, each held by its builder) do not.  Solo monuments removed from the game
    are skipped (solo never asks: :func:`_build_offered`).  Sets and reads the scratch key
    of :func:`_build_key` for p itself, so it never depends on what an earlier caller left
    there."""
    if state[G_MONU] == 0 or state[_pb(p) + O_MBUILT] != 0:
        return False
    _build_key(state, p)
    have = np.zeros(6, dtype=np.int64)      # resources 0..4 on the board, 5 = wildcards
    for q in range(16):
        v = state[G_SCR + q]
        if v >= 0 and v <= 5:
            have[v] += 1
    for i in range(NM):
        card = NB + i
        if state[G_SOLO] and SOLO_REMOVED[card]:
            continue
        short = 0                            # cheap necessary condition before the search
        for r in range(5):
            if PATTERN_NEED[card, r] > have[r]:
                short += PATTERN_NEED[card, r] - have[r]
        if short > have[5]:
            continue
        built = False
        for j in range(state[G_NP]):
            if state[_pb(j) + O_MBUILT] != 0 and state[_pb(j) + O_KEPT] == card:
                built = True
        if not built and _card_fits(state, card):
            return True
    return False


@njit(cache=True)
def _build_offered(state, p):
    """p gets a BUILD decision (PASS only when nothing of p's own fits) rather than being
    done at once.

    The rules make a player with no legal construction done automatically.  Applied
    literally with other players at the table, that would show them whether a player's
    only legal construction is its secret monument.  So with two or more players the
    step is offered when a construction *could* fit as far as the others can tell: a card
    in play fits (``_has_construction``, which includes p's own monument) or some
    monument nobody has built yet fits (``_could_build_monument``).  p's own unbuilt
    monument is one of those, so the disjunction reads only public information (the
    boards after the reveal, the cards in play, the monuments built and by whom) and the
    turn order shows nothing hidden.  (A determinized copy re-draws the others' committed
    placements; once they are revealed the boards, and so the build steps, may differ
    openly.)  Solo (nobody to hide anything from) keeps the rule as written."""
    if _has_construction(state, p):
        return True
    if state[G_SOLO]:
        return False
    return _could_build_monument(state, p)


@njit(cache=True)
def _enter_build(state, p):
    """Back to p's build step: a decision when ``_build_offered``, else done at once."""
    if _build_offered(state, p):
        _set(state, np.int64(PH_BUILD), p)
        return True
    _finish_build_step(state, p)
    return False


@njit(cache=True)
def _run(state):
    """Run automatic events until the next decision (or the end)."""
    while True:
        st = state[G_STAGE]
        n = state[G_NP]
        if st == ST_KEEP:
            i = state[G_ORDI]
            if i < n:
                _set(state, np.int64(PH_KEEP), i)
                return
            _start_round(state)
            continue
        if st == ST_NAME:
            _set(state, np.int64(PH_NAME), state[G_MB])
            return
        if st == ST_COMMIT:
            i = state[G_ORDI]
            if i >= state[G_ORDN]:
                _reveal(state)
                state[G_STAGE] = ST_BUILD
                state[G_ORDI] = 0
                continue
            p = state[G_ORDER + i]
            if _n_empty(state, p) == 0:
                state[G_ORDI] += 1
                continue
            if (state[G_VARIANT] == 1 and state[G_THKIND] == 1 and _monument_active(state, p, np.int64(M_FORT))
                    and _n_building(state) > 1):
                state[G_ORDI] += 1
                continue
            ph = _commit_start(state, p)
            state[_pb(p) + O_PSTAGE] = ph
            _set(state, ph, p)
            return
        if st == ST_BUILD:
            i = state[G_ORDI]
            if i >= state[G_ORDN]:
                if state[G_SOLO]:
                    if state[G_QN] < 15:
                        state[G_QUEUE + state[G_QN]] = state[G_TAKEN]
                        state[G_QN] += 1
                    if state[G_UNKNOWN] > 0:
                        r = _draw_weighted(state, G_UNSEEN, NRES)
                        state[G_UNKNOWN] -= 1
                    else:
                        r = state[G_QUEUE]
                        for j in range(state[G_QN] - 1):
                            state[G_QUEUE + j] = state[G_QUEUE + j + 1]
                        state[G_QN] -= 1
                        state[G_QUEUE + state[G_QN]] = -1
                    state[G_DISPLAY + r] += 1
                    state[G_TAKEN] = -1
                state[G_STAGE] = ST_END
                state[G_OPAL_INIT] = 0
                continue
            p = state[G_ORDER + i]
            if _enter_build(state, p):
                return
            continue
        if st == ST_END:
            if _opal_next(state):
                return
            if not _end_round(state):
                return
            continue
        return


@njit(cache=True)
def _opal_next(state):
    """Set up the next Opaleye's Watch move decision; False when none is left."""
    n = state[G_NP]
    if state[G_OPAL_INIT] == 0:
        state[G_OPAL_INIT] = 1
        state[G_OPAL_OWNER] = -1
        state[G_OPAL_PEND] = 0
        for p in range(n):
            if n > 1 and _monument_active(state, p, np.int64(M_OPALEYE)):
                b = _pb(p)
                cons = state[_pb((p + 1) % n) + O_CONS] | state[_pb((p + n - 1) % n) + O_CONS]
                pend = 0
                for k in range(NTYPES):
                    if state[b + O_OPAL + k] and (cons >> k) & 1:
                        pend |= 1 << k
                state[G_OPAL_OWNER] = p
                state[G_OPAL_PEND] = pend
    p = state[G_OPAL_OWNER]
    if p < 0:
        return False
    while state[G_OPAL_PEND] != 0:
        pend = state[G_OPAL_PEND]
        k = 0
        while not (pend >> k) & 1:
            k += 1
        state[G_OPAL_PEND] = pend & ~(1 << k)
        if _n_empty(state, p) == 0:
            continue
        if state[G_CARDS + k] == C_BANK and _count_card(state, p, C_BANK) >= MAX_BANKS:
            continue
        state[G_OPAL_TYPE] = k
        _set(state, np.int64(PH_OPAL_SQ), p)
        return True
    return False


# ======================================================================= buildings
@njit(cache=True)
def _put_building(state, p, q, card):
    b = _pb(p)
    state[b + O_BLD + q] = card
    state[b + O_CUBE + q] = -1
    state[b + O_EXTRA + q] = -1
    state[b + O_PR + q] = state[G_ROUND]
    for r in range(NRES):
        state[b + O_WH + q * 5 + r] = 0


@njit(cache=True)
def _needs_resource(card):
    return card == C_FACTORY or card == C_BANK


@njit(cache=True)
def _count_buildings(state, p):
    b = _pb(p)
    n = 0
    for q in range(16):
        if state[b + O_BLD + q] >= 0:
            n += 1
    return n


@njit(cache=True)
def _after_token(state, p, q):
    """On-build action of the card just placed on q by a construction."""
    b = _pb(p)
    card = state[b + O_BLD + q]
    if _needs_resource(card):
        state[G_EFF_CELL] = q
        state[G_RET] = RET_BUILD
        _set(state, np.int64(PH_BRES), p)
        return
    if card == M_SHRINE:
        state[b + O_SHRINE] = SHRINE_VP[min(_count_buildings(state, p), 16)]
    elif card == M_GROVE:
        if _n_empty(state, p) > 0:
            _set(state, np.int64(PH_GROVE_TYPE), p)
            return
    elif card == M_GUILD:
        state[G_GUILD_LEFT] = GUILD_MAX
        state[G_GUILD_MASK] = 0
        _set(state, np.int64(PH_GUILD_TARGET), p)
        return
    elif card == M_OPALEYE:
        state[G_OPAL_N] = 0
        _set(state, np.int64(PH_OPAL_TYPE), p)
        return
    _resume_build(state, p)


@njit(cache=True)
def _resume_build(state, p):
    if not _enter_build(state, p):
        _run(state)


@njit(cache=True)
def _type_allowed(state, p, k, replacing_bank):
    """Type k may be placed by an effect (Bank only below the limit)."""
    c = state[G_CARDS + k]
    if c == C_BANK:
        nb = _count_card(state, p, C_BANK) - (1 if replacing_bank else 0)
        return nb < MAX_BANKS
    return True


# ============================================================================ API
@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    n = config[0]
    state[G_NP] = n
    state[G_VARIANT] = config[1]
    state[G_SOLO] = 1 if n == 1 else 0
    state[G_MONU] = config[2]
    state[G_CAVE] = config[3]
    rng.seed_rng(state, G_RNG, seed)
    for p in range(MAXP):
        b = _pb(p)
        for q in range(16):
            state[b + O_CUBE + q] = -1
            state[b + O_BLD + q] = -1
            state[b + O_EXTRA + q] = -1
            state[b + O_PR + q] = -1
        state[b + O_STATUS] = 0 if p < n else 1
        state[b + O_CROUND] = 0
        state[b + O_DEALT] = -1
        state[b + O_DEALT + 1] = -1
        state[b + O_KEPT] = -1
        state[b + O_MCELL] = -1
        state[b + O_PX] = -1
        state[b + O_PRES] = -1
        state[b + O_PDEST] = -1
        state[b + O_PSWR] = -1
        state[b + O_PSWQ] = -1
        state[b + O_PSTAGE] = -1
    # cards in play
    state[G_CARDS] = C_COTTAGE
    for k in range(1, NTYPES):
        c = config[5 + k]
        if c < 0:
            while True:
                c = DECK_CARDS[k, rng.randint(state, G_RNG, np.int64(4))]
                if not (state[G_SOLO] and SOLO_REMOVED[c]):
                    break
        state[G_CARDS + k] = c
    # monuments: deal 2 each
    if state[G_MONU]:
        pool = np.empty(NM, dtype=np.int64)
        m = 0
        for i in range(NM):
            if not (state[G_SOLO] and SOLO_REMOVED[NB + i]):
                pool[m] = NB + i
                m += 1
        rng.shuffle(state, G_RNG, pool, np.int64(m))
        for p in range(n):
            state[_pb(p) + O_DEALT] = pool[2 * p]
            state[_pb(p) + O_DEALT + 1] = pool[2 * p + 1]
    first = config[4]
    if first < 0 or first >= n:
        first = rng.randint(state, G_RNG, n)
    state[G_MB] = first if state[G_VARIANT] == 0 and n > 1 else 0
    state[G_MAYOR] = first if state[G_VARIANT] == 1 else 0
    state[G_THKIND] = 0
    state[G_DRAWS] = 0
    state[G_TAKEN] = -1
    for i in range(15):
        state[G_QUEUE + i] = -1
    if state[G_SOLO]:
        for r in range(NRES):
            state[G_UNSEEN + r] = SOLO_DECK_PER
        for i in range(SOLO_DISPLAY):
            state[G_DISPLAY + _draw_weighted(state, G_UNSEEN, NRES)] += 1
        state[G_UNKNOWN] = SOLO_DECK - SOLO_DISPLAY
    state[G_CON_CARD] = -1
    state[G_OPAL_OWNER] = -1
    state[G_GROVE_TYPE] = -1
    state[G_EFF_CELL] = -1
    state[G_GUILD_CELL] = -1
    state[G_OPAL_TYPE] = -1
    state[G_ORDI] = 0
    if state[G_MONU]:
        state[G_STAGE] = ST_KEEP
    else:
        _start_round(state)
    _run(state)


@njit(cache=True)
def current_player(state):
    if state[G_PHASE] == PH_OVER:
        return -1
    return state[G_ACTOR]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 0
    ph = state[G_PHASE]
    p = state[G_ACTOR]
    if ph == PH_OVER:
        return
    b = _pb(p)
    if ph == PH_KEEP:
        mask[A_KEEP] = 1
        mask[A_KEEP + 1] = 1
    elif ph == PH_NAME:
        m = _naming_mask(state, p)
        for r in range(NRES):
            if m >> r & 1:
                mask[A_RES + r] = 1
    elif ph >= PH_CHOOSE and ph <= PH_SWAP_SQ:
        _commit_mask(state, p, ph, mask)
    elif ph == PH_BUILD:
        _construct_mask(state, p, mask)
        mask[A_PASS] = 1
    elif ph == PH_TOKEN:
        for q in range(16):
            if state[G_CON_ANY]:
                if _is_empty(state, p, q):
                    mask[A_SQ + q] = 1
            elif (state[G_CON_VAC] >> q) & 1:
                mask[A_SQ + q] = 1
    elif ph == PH_BRES:
        q = state[G_EFF_CELL]
        if state[b + O_BLD + q] == C_BANK:
            m = _bank_res_mask(state, p, q)
            for r in range(NRES):
                if not (m >> r) & 1:
                    mask[A_RES + r] = 1
        else:
            for r in range(NRES):
                mask[A_RES + r] = 1
    elif ph == PH_GROVE_TYPE:
        for k in range(NTYPES):
            if _type_allowed(state, p, k, np.bool_(False)):
                mask[A_TYPE + k] = 1
    elif ph == PH_GROVE_SQ or ph == PH_OPAL_SQ:
        for q in range(16):
            if _is_empty(state, p, q):
                mask[A_SQ + q] = 1
    elif ph == PH_GUILD_TARGET:
        for q in range(16):
            c = state[b + O_BLD + q]
            if c >= 0 and c < NB and not (state[G_GUILD_MASK] >> q) & 1:
                mask[A_SQ + q] = 1
        mask[A_PASS] = 1
    elif ph == PH_GUILD_TYPE:
        q = state[G_GUILD_CELL]
        c = state[b + O_BLD + q]
        for k in range(NTYPES):
            if k != CARD_TYPE[c] and _type_allowed(state, p, k, c == C_BANK):
                mask[A_TYPE + k] = 1
    elif ph == PH_OPAL_TYPE:
        for k in range(NTYPES):
            if state[b + O_OPAL + k] == 0:
                mask[A_TYPE + k] = 1


@njit(cache=True)
def step(state, action):
    ph = state[G_PHASE]
    p = state[G_ACTOR]
    b = _pb(p)
    a = action
    if ph == PH_KEEP:
        state[b + O_KEPT] = state[b + O_DEALT + a - A_KEEP]
        state[G_ORDI] += 1
        _run(state)
    elif ph == PH_NAME:
        state[G_X] = a - A_RES
        state[b + O_MBT] += 1
        state[G_STAGE] = ST_COMMIT
        state[G_ORDI] = 0
        _run(state)
    elif ph >= PH_CHOOSE and ph <= PH_SWAP_SQ:
        nxt = _commit_apply(state, p, ph, a)
        if nxt < 0:
            state[b + O_COMMITTED] = 1
            state[b + O_PSTAGE] = -1
            state[G_ORDI] += 1
            _run(state)
        else:
            state[b + O_PSTAGE] = nxt
            _set(state, nxt, p)
    elif ph == PH_BUILD:
        if a == A_PASS:
            _finish_build_step(state, p)
            _run(state)
            return
        slot = a // 128
        t = (a % 128) // 16
        anchor = a % 16
        card = _slot_card(state, p, slot)
        r0 = anchor // 4
        c0 = anchor % 4
        vac = 0
        for i in range(PSIZE[card]):
            q = (r0 + OFFS[card, t, i, 0]) * 4 + c0 + OFFS[card, t, i, 1]
            if state[b + O_CUBE + q] >= 0:
                state[b + O_CUBE + q] = -1
                vac |= 1 << q
        state[G_CON_CARD] = card
        state[G_CON_VAC] = vac
        state[G_CON_ANY] = 1 if (card == C_SHED or _monument_active(state, p, np.int64(M_OBELISK))) else 0
        _set(state, np.int64(PH_TOKEN), p)
    elif ph == PH_TOKEN:
        q = a - A_SQ
        card = state[G_CON_CARD]
        _put_building(state, p, q, card)
        if card < NB:
            state[b + O_CONS] |= 1 << CARD_TYPE[card]
        else:
            state[b + O_MBUILT] = 1
            state[b + O_MCELL] = q
        state[G_CON_CARD] = -1
        state[G_CON_VAC] = 0
        state[G_CON_ANY] = 0
        _after_token(state, p, q)
    elif ph == PH_BRES:
        q = state[G_EFF_CELL]
        state[b + O_EXTRA + q] = a - A_RES
        state[G_EFF_CELL] = -1
        ret = state[G_RET]
        if ret == RET_BUILD:
            _resume_build(state, p)
        elif ret == RET_GUILD:
            _guild_continue(state, p)
        else:
            _run(state)
    elif ph == PH_GROVE_TYPE:
        state[G_GROVE_TYPE] = a - A_TYPE
        _set(state, np.int64(PH_GROVE_SQ), p)
    elif ph == PH_GROVE_SQ:
        q = a - A_SQ
        card = state[G_CARDS + state[G_GROVE_TYPE]]
        state[G_GROVE_TYPE] = -1
        _put_building(state, p, q, card)
        if _needs_resource(card):
            state[G_EFF_CELL] = q
            state[G_RET] = RET_BUILD
            _set(state, np.int64(PH_BRES), p)
        else:
            _resume_build(state, p)
    elif ph == PH_GUILD_TARGET:
        if a == A_PASS:
            state[G_GUILD_LEFT] = 0
            _resume_build(state, p)
        else:
            state[G_GUILD_CELL] = a - A_SQ
            _set(state, np.int64(PH_GUILD_TYPE), p)
    elif ph == PH_GUILD_TYPE:
        q = state[G_GUILD_CELL]
        card = state[G_CARDS + a - A_TYPE]
        _put_building(state, p, q, card)
        state[G_GUILD_MASK] |= 1 << q
        state[G_GUILD_LEFT] -= 1
        state[G_GUILD_CELL] = -1
        if _needs_resource(card):
            state[G_EFF_CELL] = q
            state[G_RET] = RET_GUILD
            _set(state, np.int64(PH_BRES), p)
        else:
            _guild_continue(state, p)
    elif ph == PH_OPAL_TYPE:
        state[b + O_OPAL + a - A_TYPE] = 1
        state[G_OPAL_N] += 1
        if state[G_OPAL_N] >= OPAL_COUNT:
            _resume_build(state, p)
    elif ph == PH_OPAL_SQ:
        q = a - A_SQ
        k = state[G_OPAL_TYPE]
        card = state[G_CARDS + k]
        state[b + O_OPAL + k] = 0
        state[G_OPAL_TYPE] = -1
        _put_building(state, p, q, card)
        if _needs_resource(card):
            state[G_EFF_CELL] = q
            state[G_RET] = RET_END
            _set(state, np.int64(PH_BRES), p)
        else:
            _run(state)


@njit(cache=True)
def _guild_continue(state, p):
    if state[G_GUILD_LEFT] > 0:
        _set(state, np.int64(PH_GUILD_TARGET), p)
    else:
        _resume_build(state, p)


# =========================================================================== scoring
@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _eval_town(bld, wh, fed, fh_right, solo, shrine_val, star_place, parts):
    """Score of a town (no loose cubes) for a given fed bitmask; parts[card], parts[NCARDS]=empty."""
    for i in range(NCARDS + 1):
        parts[i] = 0
    cnt = np.zeros(NCARDS, dtype=np.int64)
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
                if ty < NTYPES:
                    if (FOUNTAIN_TYPES >> ty) & 1:
                        grey = True
                    if (MILLSTONE_TYPES >> ty) & 1:
                        redyel = True
                    if (BAKERY_TYPES >> ty) & 1:
                        redblack = True
                    if (ABBEY_TYPES >> ty) & 1:
                        bgy = True
                key = TKEY[nc]
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
                    key = TKEY[bld[qq]]
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
            seen = 0
            for qq in range(16):
                if bld[qq] >= 0 and TKEY[bld[qq]] < NTYPES:
                    seen |= 1 << TKEY[bld[qq]]
            k = _popcount(seen)
            v = k if c == M_ARCHIVE else SKYBATHS_PER * (NTYPES - k)
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
                key = TKEY[bld[s]]
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
                        if not (seen >> nq) & 1 and bld[nq] >= 0 and TKEY[bld[nq]] == key:
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
    parts[NCARDS] = v
    tot += v
    return tot


@njit(cache=True)
def score_board(bld, wh, fh_right, solo, shrine_val, star_place, parts):
    """Best-feeding score of one town: ``bld`` card per square (-1 none), ``wh`` Warehouse cubes
    per square.  Writes the breakdown of the best feeding into ``parts`` (NCARDS + 2 long:
    per card, then empty squares, then the chosen fed bitmask) and returns the total."""
    feedable = 0
    fed0 = 0
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
    tmp = np.zeros(NCARDS + 1, dtype=np.int64)
    best = -(1 << 40)
    bestfed = 0
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
    parts[NCARDS + 1] = bestfed
    return best


@njit(cache=True)
def _player_score(state, p, parts):
    b = _pb(p)
    return _town_score(state, p, state[b + O_BLD:b + O_BLD + 16], state[b + O_SHRINE], parts)


@njit(cache=True)
def _town_score(state, p, bld, shrine_val, parts):
    """Score of p's town with the buildings ``bld`` (p's own, or a variant of them)."""
    n = state[G_NP]
    b = _pb(p)
    wh = np.zeros(16, dtype=np.int64)
    for q in range(16):
        wh[q] = _wh_count(state, p, q)
    fh_right = 0
    if n > 1:
        fh_right = _count_card(state, (p + n - 1) % n, C_FEAST)
    place = 1
    mine = state[b + O_CROUND] if state[b + O_STATUS] == 1 else state[G_ROUND] + 1
    for j in range(n):
        bj = _pb(j)
        if j != p and state[bj + O_STATUS] == 1 and state[bj + O_CROUND] < mine:
            place += 1
    return score_board(bld, wh, fh_right, state[G_SOLO], shrine_val, place, parts)


@njit(cache=True)
def scores(state, out):
    parts = np.zeros(NCARDS + 2, dtype=np.int64)
    for p in range(state[G_NP]):
        out[p] = _player_score(state, p, parts)


@njit(cache=True)
def tie_keys(state, p):
    """(fewest namings key, fewest empty key, cottages) as numbers where larger is better."""
    b = _pb(p)
    mbt = state[b + O_MBT] if (state[G_VARIANT] == 0 and not state[G_SOLO]) else 0
    ne = 0
    cw = 0
    for q in range(16):
        c = state[b + O_BLD + q]
        if c < 0:
            ne += 1
        elif c == C_COTTAGE:
            cw += 1
        elif c == M_BARRETT:
            cw += BARRETT_WEIGHT
    return -mbt, -ne, cw


@njit(cache=True)
def ranks(state, out):
    n = state[G_NP]
    sc = np.zeros(n, dtype=np.int64)
    scores(state, sc)
    k1 = np.zeros(n, dtype=np.int64)
    k2 = np.zeros(n, dtype=np.int64)
    k3 = np.zeros(n, dtype=np.int64)
    for p in range(n):
        a, bb, c = tie_keys(state, p)
        k1[p] = a
        k2[p] = bb
        k3[p] = c
    for p in range(n):
        rk = 1
        for j in range(n):
            if j == p:
                continue
            better = False
            if sc[j] != sc[p]:
                better = sc[j] > sc[p]
            elif k1[j] != k1[p]:
                better = k1[j] > k1[p]
            elif k2[j] != k2[p]:
                better = k2[j] > k2[p]
            elif k3[j] != k3[p]:
                better = k3[j] > k3[p]
            if better:
                rk += 1
        out[p] = rk


# ==================================================================== greedy potential
# Heuristic weights, not rules data (only ``potential`` reads them).  EST_VP: the VP a
# building of each card typically adds to a town, context-dependent scores taken at a
# middling value and 0-VP utility cards valued for what they enable.
_EST = {"Cottage": 3.0, "Farm": 1.0, "Granary": 1.0, "Greenhouse": 1.0, "Orchard": 1.0,
        "Well": 1.0, "Fountain": 1.0, "Millstone": 1.0, "Shed": 1.0,
        "Chapel": 2.5, "Abbey": 2.5, "Cloister": 2.0, "Temple": 2.5,
        "Tavern": 3.5, "Almshouse": 2.0, "Inn": 2.5, "Feast Hall": 2.5,
        "Theater": 3.0, "Bakery": 2.0, "Market": 2.0, "Tailor": 2.0,
        "Factory": 1.0, "Bank": 4.0, "Trading Post": 1.5, "Warehouse": 0.5}
EST_VP = np.zeros(NCARDS, dtype=np.float64)
for _i in range(NCARDS):
    EST_VP[_i] = _EST[CARD_NAMES[_i]] if _i < NB else max(4.0, float(FLAT_VP[_i]))
POT_POWER = 1.5     # a placement with k of its n cubes is worth (k / n) ** POT_POWER of a built one
POT_READY = 0.5     # a complete pattern is not built yet, and may score less in context
POT_EMPTY = 1.0     # an empty square can still take a useful cube (it scores -1 like a cube)
POT_UNFED = 1.5     # an unfed Cottage (Barrett Castle: BARRETT_WEIGHT) may be fed later
POT_SHARE = np.zeros((KMAX + 1, KMAX + 1), dtype=np.float64)    # [cells, cubes missing]
for _n in range(1, KMAX + 1):
    for _m in range(_n + 1):
        POT_SHARE[_n, _m] = POT_READY * ((_n - _m) / _n) ** POT_POWER
K_WILD = 5          # pattern key of an active Trading Post (stands for any resource)
K_BLOCKED = 6       # pattern key of any other building


@njit(cache=True)
def _pot_key(state, p, key):
    """p's squares as pattern keys (-1 empty, 0..4 cube), p's committed cube already on."""
    b = _pb(p)
    for q in range(16):
        v = state[b + O_CUBE + q]
        c = state[b + O_BLD + q]
        if c >= 0:
            v = K_WILD if (c == C_TPOST and _active_cell(state, p, q)) else K_BLOCKED
        key[q] = v
    if state[b + O_COMMITTED]:
        q = state[b + O_PDEST]
        if 0 <= q < 16 and key[q] == -1:
            key[q] = state[b + O_PRES]
        if state[b + O_PSWQ] >= 0:
            key[state[b + O_PSWQ]] = state[b + O_PSWR]


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
        n = PSIZE[card]
        worth = worths[i]
        for t in range(8):
            if TVALID[card, t] == 0:
                continue
            for r0 in range(5 - TBOX[card, t, 0]):
                for c0 in range(5 - TBOX[card, t, 1]):
                    have = 0
                    miss = 0
                    for j in range(n):
                        v = key[(r0 + OFFS[card, t, j, 0]) * 4 + c0 + OFFS[card, t, j, 1]]
                        if v == OFFS[card, t, j, 2]:
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
                        q = (r0 + OFFS[card, t, j, 0]) * 4 + c0 + OFFS[card, t, j, 1]
                        if key[q] == OFFS[card, t, j, 2] and share > credit[q]:
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
    b = _pb(p)
    if state[b + O_COMMITTED]:
        return 0
    pending = False
    for i in range(state[G_ORDI], state[G_ORDN]):
        if state[G_ORDER + i] == p:
            pending = True
    if not pending:
        return 0
    if state[G_ACTOR] == p and state[b + O_PRES] >= 0:
        return 1 << state[b + O_PRES]
    if state[G_SOLO]:
        m = 0
        for r in range(NRES):
            if state[G_DISPLAY + r] > 0:
                m |= 1 << r
        return m
    if state[G_VARIANT] == 1 and state[G_THKIND] == 1:
        return _naming_mask(state, p)
    x = state[G_X]
    if x < 0:
        return 0
    if (state[G_VARIANT] == 1 or p != state[G_MB]) and _factory_swap(state, p, x):
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
      the 8 transforms; active Trading Posts are wild) of a card p may build.  A placement
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
    b = _pb(p)
    if state[b + O_STATUS] == 1:
        return 0.0
    parts = np.zeros(NCARDS + 2, dtype=np.int64)
    bld = state[b + O_BLD:b + O_BLD + 16]
    cur = _town_score(state, p, bld, state[b + O_SHRINE], parts)
    unfed = _unfed(bld, parts[NCARDS + 1])
    cards = np.empty(8, dtype=np.int64)
    worths = np.empty(8, dtype=np.float64)
    nc = 0
    for slot in range(8):
        c = _slot_card(state, p, slot)
        if c >= 0:
            cards[nc] = c
            # a building stops its square scoring -1 and frees the other squares of its
            # pattern; a red one also feeds waiting Cottages
            worths[nc] = EST_VP[c] + 1.0 + POT_EMPTY * (PSIZE[c] - 1)
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
            for r in range(NRES):
                if (rmask >> r) & 1:
                    key[q] = r
                    best = max(best, _pattern_value(key, cards, worths, nc, credit))
            key[q] = -1
    if best == -1e18:
        best = _pattern_value(key, cards, worths, nc, credit)
    if state[G_PHASE] == PH_TOKEN and state[G_ACTOR] == p:
        card = state[G_CON_CARD]
        shrine = state[b + O_SHRINE]
        if card == M_SHRINE:
            shrine = SHRINE_VP[min(_count_buildings(state, p) + 1, 16)]
        alt = bld.copy()
        gain = -1e18
        for q in range(16):
            if not ((state[G_CON_VAC] >> q) & 1 or (state[G_CON_ANY] and _is_empty(state, p, q))):
                continue
            alt[q] = card
            v = _town_score(state, p, alt, shrine, parts)
            gain = max(gain, v - cur + POT_UNFED * (_unfed(alt, parts[NCARDS + 1]) - unfed) - POT_EMPTY)
            alt[q] = -1
        if gain > -1e18:
            best += gain
    return best + POT_UNFED * unfed


# ======================================================================= observation
@njit(cache=True)
def _obs_is_actor_hidden(state, player):
    """True when the current decision is another player's (hidden) commitment step."""
    ph = state[G_PHASE]
    return ph >= PH_CHOOSE and ph <= PH_SWAP_SQ and state[G_ACTOR] != player and not state[G_SOLO]


@njit(cache=True)
def observe(state, player, out):
    out[:] = 0.0
    n = state[G_NP]
    r = state[G_ROUND]
    o = 0
    for rel in range(MAXP):
        if rel < n:
            p = (player + rel) % n
            b = _pb(p)
            for q in range(16):
                base = o + q * OBS_PLANES
                c = state[b + O_BLD + q]
                cube = state[b + O_CUBE + q]
                if c < 0 and cube < 0:
                    out[base] = 1.0
                if cube >= 0:
                    out[base + 1 + cube] = 1.0
                if c >= 0:
                    if c < NB:
                        out[base + 6 + CARD_TYPE[c]] = 1.0
                    else:
                        out[base + 13] = 1.0
                    if state[b + O_EXTRA + q] >= 0:
                        out[base + 14 + state[b + O_EXTRA + q]] = 1.0
                    for k in range(NRES):
                        out[base + 19 + k] = state[b + O_WH + q * 5 + k] / 3.0
                    if state[b + O_PR + q] == r:
                        out[base + 24] = 1.0
            v = o + 16 * OBS_PLANES
            out[v] = 1.0
            out[v + 1] = 1.0 if state[b + O_STATUS] == 0 else 0.0
            out[v + 2] = 1.0 if state[b + O_STATUS] == 1 else 0.0
            out[v + 3] = min(state[b + O_CROUND], ROUND_NORM) / ROUND_NORM
            out[v + 4] = min(state[b + O_MBT], ROUND_NORM) / ROUND_NORM
            out[v + 5] = 1.0 if (state[G_VARIANT] == 0 and n > 1 and state[G_MB] == p) else 0.0
            out[v + 6] = (CAVE_USES - state[b + O_CAVE]) / CAVE_USES if state[G_CAVE] else 0.0
            if state[b + O_MBUILT]:
                out[v + 7 + state[b + O_KEPT] - NB] = 1.0
                out[v + 22] = state[b + O_SHRINE] / 8.0
            for k in range(NTYPES):
                out[v + 23 + k] = state[b + O_OPAL + k]
            out[v + 30] = state[b + O_COMMITTED]
        o += OBS_PLAYER
    # public
    for k in range(NTYPES):
        out[o + state[G_CARDS + k]] = 1.0
    o += 25
    out[o + n - 1] = 1.0
    o += 6
    out[o] = state[G_VARIANT]
    out[o + 1] = state[G_SOLO]
    out[o + 2] = state[G_MONU]
    out[o + 3] = state[G_CAVE]
    o += 4
    out[o] = min(r, ROUND_NORM) / ROUND_NORM
    o += 1
    ph = state[G_PHASE]
    if _obs_is_actor_hidden(state, player):
        out[o + NPHASES] = 1.0
    else:
        out[o + ph] = 1.0
    o += NPHASES + 1
    if state[G_ACTOR] >= 0 and ph != PH_OVER:
        out[o + (state[G_ACTOR] - player + n) % n] = 1.0
    o += 6
    if state[G_X] >= 0:
        out[o + state[G_X]] = 1.0
    o += 5
    out[o] = 1.0 if (state[G_X] >= 0 and (state[G_VARIANT] == 1 or player != state[G_MB])) else 0.0
    if state[G_SOLO]:
        out[o] = 1.0
    o += 1
    if state[G_VARIANT] == 1:
        out[o + state[G_THKIND]] = 1.0
    o += 2
    if not state[G_SOLO]:
        for k in range(NRES):
            out[o + k] = state[G_UNSEEN + k] / 3.0 if state[G_VARIANT] == 1 else 0.0
    else:
        for k in range(NRES):
            out[o + k] = state[G_UNSEEN + k] / 3.0
    o += 5
    out[o] = state[G_DRAWS] / 10.0
    o += 1
    for k in range(NRES):
        out[o + k] = state[G_FACEUP + k] / 3.0
    o += 5
    for k in range(NRES):
        out[o + k] = state[G_DISPLAY + k] / 3.0
    o += 5
    out[o] = state[G_UNKNOWN] / 12.0
    o += 1
    for i in range(15):
        if state[G_QUEUE + i] >= 0 and i < state[G_QN]:
            out[o + 5 * i + state[G_QUEUE + i]] = 1.0
    o += 75
    out[o] = state[G_QN] / 15.0
    o += 1
    # private
    b = _pb(player)
    if state[b + O_KEPT] < 0:
        for i in range(2):
            if state[b + O_DEALT + i] >= 0:
                out[o + state[b + O_DEALT + i] - NB] = 1.0
    o += 15
    if state[b + O_KEPT] >= 0:
        out[o + state[b + O_KEPT] - NB] = 1.0
    o += 15
    if state[b + O_PX] >= 0:
        out[o + state[b + O_PX]] = 1.0
    o += 5
    if state[b + O_PRES] >= 0:
        out[o + state[b + O_PRES]] = 1.0
    o += 5
    if state[b + O_PDEST] >= 0:
        out[o + state[b + O_PDEST]] = 1.0
    o += 17
    if state[b + O_PSWR] >= 0:
        out[o + state[b + O_PSWR]] = 1.0
    o += 5
    if state[b + O_PSWQ] >= 0:
        out[o + state[b + O_PSWQ]] = 1.0
    o += 16
    out[o] = state[b + O_COMMITTED]
    o += 1
    # step context (public)
    if state[G_CON_CARD] >= 0:
        out[o + state[G_CON_CARD]] = 1.0
    o += NCARDS
    for q in range(16):
        out[o + q] = (state[G_CON_VAC] >> q) & 1
    o += 16
    out[o] = state[G_CON_ANY]
    o += 1
    if state[G_GROVE_TYPE] >= 0:
        out[o + state[G_GROVE_TYPE]] = 1.0
    o += 7
    out[o] = state[G_GUILD_LEFT] / 2.0 if (ph == PH_GUILD_TARGET or ph == PH_GUILD_TYPE or
                                           (ph == PH_BRES and state[G_RET] == RET_GUILD)) else 0.0
    o += 1
    for q in range(16):
        out[o + q] = (state[G_GUILD_MASK] >> q) & 1 if (ph == PH_GUILD_TARGET or ph == PH_GUILD_TYPE or
                                                        (ph == PH_BRES and state[G_RET] == RET_GUILD)) else 0
    o += 16
    if state[G_OPAL_TYPE] >= 0:
        out[o + state[G_OPAL_TYPE]] = 1.0
    o += 7
    if state[G_EFF_CELL] >= 0:
        out[o + state[G_EFF_CELL]] = 1.0
    elif state[G_GUILD_CELL] >= 0:
        out[o + state[G_GUILD_CELL]] = 1.0
    o += 16
    return o


# ================================================================ hidden information
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
def _monument_public(state, p):
    """p's monument is being constructed right now (its card is shown while the token waits)."""
    return (state[G_PHASE] == PH_TOKEN and state[G_ACTOR] == p and state[G_CON_CARD] >= NB)


@njit(cache=True)
def determinize(state, observer, seed):
    n = state[G_NP]
    if observer < 0 or observer >= n:
        # callers validate; a bad seat must still never index the state
        raise ValueError("determinize: observer is not a seat of this game")
    reseed(state, seed)
    ob = _pb(observer)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    # monuments the observer has not seen
    if state[G_MONU]:
        seen = np.zeros(NCARDS, dtype=np.int64)
        for i in range(2):
            if state[ob + O_DEALT + i] >= 0:
                seen[state[ob + O_DEALT + i]] = 1
        for p in range(n):
            b = _pb(p)
            if state[b + O_MBUILT] or _monument_public(state, p):
                seen[state[b + O_KEPT]] = 1
        pool = np.empty(NM, dtype=np.int64)
        m = 0
        for i in range(NB, NCARDS):
            if seen[i] == 0 and not (state[G_SOLO] and SOLO_REMOVED[i]):
                pool[m] = i
                m += 1
        rng.shuffle(state, G_RNG, pool, np.int64(m))
        k = 0
        for p in range(n):
            if p == observer:
                continue
            b = _pb(p)
            if state[b + O_MBUILT] or _monument_public(state, p):
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
    # hidden commitments of the other players
    if state[G_STAGE] == ST_COMMIT and not state[G_SOLO]:
        for i in range(state[G_ORDN]):
            p = state[G_ORDER + i]
            if p == observer:
                continue
            b = _pb(p)
            if state[b + O_COMMITTED]:
                _random_commit(state, p, mask)
            elif state[G_ACTOR] == p and state[G_PHASE] >= PH_CHOOSE and state[G_PHASE] <= PH_SWAP_SQ:
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
                state[b + O_PSTAGE] = ph
                _set(state, ph, p)
