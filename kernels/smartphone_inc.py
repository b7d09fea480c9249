"""Smartphone Inc. rules kernel.

The whole game lives in one flat ``int64`` state array (layout below).  Every table
(pads, geometry, map, buyers, technologies, tiles, retailers, Steve) comes from
``kernels/data/smartphone_inc.yaml``, validated at import by :func:`check_data`.

Companies are numbered 0..N-1: the agents' seats first (company == seat), then Steve
(company ``num_players``) when he plays.  Steve's decisions are taken inline by
:func:`steve_action` through the same apply functions the agents use.

Decisions (flat action ids, blocks of ``docs/rules/smartphone_inc.md`` section 11.3):
SIDES 0(4), ARRANGE 4(120), TILE_PICK 124(10), TILE_PLACE 134(509), IMPROVE_PICK 643(5),
RESEARCH 648(7), LOGISTICS 655(13), OFFICE_TARGET 668(12), MOVE_SOURCE 680(12),
NFC_SELL 692(3), SELL 695(12), BONUS_TECH 707(6), BONUS_PRICE 713(2).

Planning encoding
-----------------
TILE_PLACE ``4*domino + 2*orient + level`` puts the picked tile *over* (level 0: above
the top pad) or *under* (level 1: on the bottom pad, beneath the top pad); the stack is
bottom pad, under-tiles in placement order, top pad, over-tiles in placement order.  An
under-tile may not touch a top-pad-only cell; since issue 14 it need not have a cell
beneath the top pad either (alone it then looks like an over-tile, but a later
under-tile can lie on it: ``docs/rules/smartphone_inc.md`` section 12.3, X = [PROD, LOG] on
(4,3)-(4,4) under Y = [RES, PDOWN] that slides beneath the top pad at (3,4)).

Result of the exhaustive enumeration (``tests/test_smartphone_inc.py``): a physically
legal plan is a stacking in which every item lies wholly above or wholly below every
item it overlaps (a layer order; bottom pad lowest), every tile cell below the top pad
where they overlap rests on the bottom pad, tiles keep the 4G and no-burying rules.
Over every pad plan, with two tiles, with and without 4G front (and with three tiles on
the pads of its section 12.2), the visible canvases (with the face-down count) of such
plans are exactly those the encoding reaches.  Before
that they were not: with tiles [PROD, LOG] and [RES, PDOWN], over 1,000 canvases per side
pair and a few outcome vectors (e.g. (1, 3, 1, 0, -4, 1, 3) with sides W0 B0) were
physically legal but unreachable.  With
more tiles the same holds by construction: the under-tiles are the tiles below the top
pad, each group in any order the agent picks, so every layer order is reachable.

Observation (``observe``; sizes from the data; named parts ``global``, ``regions``,
``companies``, ``plans`` as in the adapter's ``observation_layout``)
------------------------------------------------------------------------------------
* global ``G_*``: round, phase, own pending block, reveal flag, technology sides, costs
  and patent holders, display, token supply, stack size; retailer bonus in progress
  (kind one-hot, technology markers still to place), office-target kind (Wi-Fi,
  Gamepad, extra, move) while one is pending, chosen move-office source.
* per region ``R_*``: retailer and bonus kind, bonus amount, office slots, retailer
  slots, progress markers, buyers filled this round, static buyers, size, cost.
* per company ``K_*``, ego-centric (self first): presence, Steve flag, committed,
  to move, VP, start VP, price, ready goods, tokens, tiles by type, owned tiles in
  acquisition order (the TILE_PICK index), improvement picks still owed, technologies,
  research markers and locks, markers to spend, offices used, goods sold, revealed
  outcome vector, colour, turn-order slot; and the plan (one's own at every moment,
  every agent's once revealed): pad sides, arrangement (W on top, rotation, offset)
  and per owned tile: picked for placement now, placed, face down, over / under,
  placement order, its two cells, orientation.
* plans: per company 8 x 9 cells x ``PLANE_CH``: visible icon one-hot, source layer
  (bottom pad, top pad, tile), number of under- and over-tiles covering the cell.
Values lie in [OBS_LOW, OBS_HIGH] = [-1, 4].

Rewards: :func:`ranks` ranks every company, Steve included (score, then technologies,
then patents; ties share the better rank); the shell turns ranks into rewards.

Version history
---------------
v0: initial.
v0 (issues 14/15): observation completes the mover's own plan (sides, arrangement, every tile's
    placement, the picked tile, tiles in acquisition order) and the public bonus state
    (kind, amount, markers left, office-target kind, move source); under-tiles no longer
    need a cell beneath the top pad, so every physical stacking is reachable;
    determinize clears the picked-tile slot of a secret plan; the data file is
    validated at load; cold start: constants passed to jitted helpers are numpy
    scalars (one specialisation each instead of one per literal: 92 -> 64 compiled) and
    init/step link less flow code (import + make + reset + first step: ~20.5 -> ~15.7 s CPU).
"""
import numpy as np
from numba import njit

from kernels import rng
from kernels.data_files import Checker, load

_ICON_SET = ("BLANK", "IMP", "CHEAP", "PUP", "RES", "LOG", "PROD", "PDOWN")
_EFFECT_SET = ("none", "prod_icon_double", "produce_now", "free_second_office", "keep_unsold_goods",
               "research_discount", "free_small_office", "res_counts_as_log", "produce_per_two_techs",
               "direct_sale", "price_plus_one", "tile_overhang", "sell_without_office")
_BONUS_SET = ("none", "produce", "tech_markers", "price_shift", "extra_office", "move_office")


def check_data(data):
    """Validate a parsed ``smartphone_inc.yaml`` (types, ranges, references, totals) before
    any table is built from it; :class:`kernels.data_files.DataError` names the bad field.

    The sizes that fix the action and observation spaces are checked to be the documented
    ones: an 8 x 9 canvas, 60 top-pad positions, 6 technologies, 12 regions, 5 colours."""
    ck = Checker(data, "smartphone_inc")
    ck.mapping("constants")
    rounds = ck.integer("constants.rounds.value", 1, 10)
    for name, lo, hi in (("start_price", 1, 20), ("price_min", 1, 20), ("price_max", 1, 20),
                         ("display_size", 5, 5), ("ready_goods_cap", 1, 100),
                         ("goods_tokens_supply", 0, 100), ("office_markers_per_company", 1, 100),
                         ("patent_cost_drop", 0, 10), ("tech_cost_min", 1, 20)):
        ck.integer(f"constants.{name}.value", lo, hi)
    ck.require(ck.get("constants.price_min.value") <= ck.get("constants.start_price.value")
               <= ck.get("constants.price_max.value"), "constants.start_price.value",
               "must lie between price_min and price_max")
    lo_ov = ck.integer("constants.overlap_cells.min", 1, 6)
    ck.integer("constants.overlap_cells.max", lo_ov, 6)
    for name in ("improvement_phase_rounds", "display_refill_after_rounds"):
        vals = ck.sequence(f"constants.{name}.value", max_len=rounds)
        for i in range(len(vals)):
            ck.integer(f"constants.{name}.value[{i}]", 1, rounds)
        ck.require(len(set(vals)) == len(vals), f"constants.{name}.value", "rounds repeat")
    ck.require(len(ck.get("constants.improvement_phase_rounds.value")) == 4,
               "constants.improvement_phase_rounds.value",
               "must name 4 rounds (at most 9 owned tiles: the TILE_PICK block has 10 actions)")
    # pads and geometry
    for pad in ("W", "B"):
        for side in (0, 1):
            rows = ck.sequence(f"pads.{pad}.side{side}", length=2)
            for i in range(2):
                ck.sequence(f"pads.{pad}.side{side}[{i}]", length=3)
                for j in range(3):
                    ck.string(f"pads.{pad}.side{side}[{i}][{j}]", _ICON_SET)
            del rows
    ck.integer("geometry.canvas.rows", 8, 8)
    ck.integer("geometry.canvas.cols", 9, 9)
    ck.sequence("geometry.bottom_pad_top_left.value", length=2)
    br = ck.integer("geometry.bottom_pad_top_left.value[0]", 0, 6)
    bc = ck.integer("geometry.bottom_pad_top_left.value[1]", 0, 6)
    bottom = {(br + i, bc + j) for i in range(2) for j in range(3)}
    total = 0
    for k in range(4):
        h, w = (2, 3) if k % 2 == 0 else (3, 2)
        pos = ck.sequence(f"geometry.top_pad_positions.k{k}")
        seen = set()
        for i in range(len(pos)):
            path = f"geometry.top_pad_positions.k{k}[{i}]"
            ck.sequence(path, length=2)
            r0 = ck.integer(path + "[0]", 0, 8 - h)
            c0 = ck.integer(path + "[1]", 0, 9 - w)
            ov = len(bottom & {(r0 + a, c0 + b) for a in range(h) for b in range(w)})
            ck.require(1 <= ov <= 4, path, f"the top pad must overlap the bottom pad in 1-4 cells, got {ov}")
            ck.require((r0, c0) not in seen, path, "position repeats")
            seen.add((r0, c0))
        total += len(pos)
    ck.require(total == 60, "geometry.top_pad_positions", f"must list 60 positions in all, got {total}")
    # technologies
    techs = ck.sequence("technologies", length=6)
    ids = []
    for i in range(len(techs)):
        path = f"technologies[{i}]"
        ck.mapping(path)
        tid = ck.get(path + ".id")
        ck.require(isinstance(tid, (str, int)) and not isinstance(tid, bool), path + ".id",
                   f"expected a string, got {tid!r}")
        ids.append(str(tid))
        ck.string(path + ".name")
        ck.integer(path + ".board_index", 0, 5)
        ck.integer(path + ".cost.value", 1, 30)
        ck.integer(path + ".patent_vp.value", 0, 100)
        for side in ("front", "back"):
            ck.string(f"{path}.{side}.effect", _EFFECT_SET)
            if ck.get(f"{path}.{side}.phase", None) is not None:
                ck.integer(f"{path}.{side}.phase", 1, 7)
            for key in ("amount", "max_goods", "max_cells_off_pad", "per_region"):
                if key in ck.mapping(f"{path}.{side}"):
                    ck.integer(f"{path}.{side}.{key}", 1, 18)
    ck.require(len(set(ids)) == 6, "technologies", "technology ids repeat")
    ck.require(sorted(t["board_index"] for t in techs) == list(range(6)), "technologies",
               "board_index must number the technologies 0-5")
    # regions
    slots_of = {}
    for size in ("S", "M", "L"):
        path = f"region_types.{size}"
        ck.integer(path + ".office_cost", 1, 20)
        ns = ck.integer(path + ".office_slots", 1, 8)
        vps = ck.sequence(path + ".slot_vp", length=ns)
        for i in range(len(vps)):
            ck.sequence(f"{path}.slot_vp[{i}]", length=2)
            ck.integer(f"{path}.slot_vp[{i}][0]", 0, 100)
            if vps[i][1] is not None:
                ck.integer(f"{path}.slot_vp[{i}][1]", 0, 100)
        slots_of[size] = ns
    regs = ck.sequence("regions", length=12)
    rids = [ck.string(f"regions[{i}].id") for i in range(len(regs))]
    ck.require(len(set(rids)) == len(rids), "regions", "region ids repeat")
    for i in range(len(regs)):
        path = f"regions[{i}]"
        ck.string(path + ".name")
        ck.string(path + ".size", ("S", "M", "L"))
        links = ck.sequence(path + ".links", min_len=1)
        for j in range(len(links)):
            ck.string(f"{path}.links[{j}]", [r for r in rids if r != rids[i]])
        buyers = ck.sequence(path + ".buyers", min_len=1, max_len=8)
        for j in range(len(buyers)):
            b = buyers[j]
            if isinstance(b, int) and not isinstance(b, bool):
                ck.integer(f"{path}.buyers[{j}]", 1, 99)
            else:
                ck.require(isinstance(b, str) and b in ids, f"{path}.buyers[{j}]",
                           f"expected a price cap 1-99 or a technology id {ids}, got {b!r}")
    # tiles, colours, companies
    mk = ck.sequence("improvement_tiles.market.tiles", min_len=1)
    for i in range(len(mk)):
        path = f"improvement_tiles.market.tiles[{i}]"
        ck.sequence(path + ".icons", length=2)
        for j in range(2):
            ck.string(f"{path}.icons[{j}]", _ICON_SET)
        ck.integer(path + ".count", 0, 50)
    ck.integer("improvement_tiles.face_down_goods.value", 0, 10)
    cols = ck.sequence("colours.value", length=5)
    for i in range(5):
        ck.string(f"colours.value[{i}]")
    ck.require(len(set(cols)) == 5, "colours.value", "colours repeat")
    comps = ck.sequence("companies", length=5)
    svps = []
    for i in range(len(comps)):
        path = f"companies[{i}]"
        ck.string(path + ".colour", cols)
        svps.append(ck.integer(path + ".start_vp", 0, 100))
        ck.string(path + ".home", rids)
        ck.sequence(path + ".start_tile", length=2)
        for j in range(2):
            ck.string(f"{path}.start_tile[{j}]", _ICON_SET)
    ck.require(sorted(c["colour"] for c in comps) == sorted(cols), "companies",
               "must hold one company per colour")
    ck.require(len(set(svps)) == 5, "companies", "start VPs must all differ (they break turn-order ties)")
    # numbers the code is built for (documented in the file; a different value needs code)
    for path, value in (("constants.companies.min", 2), ("constants.companies.max", 5),
                        ("geometry.counts.arrangements_per_side_pair", 120),
                        ("geometry.counts.physical_pad_plans", 480),
                        ("map_facts.region_count.value", len(regs))):
        ck.require(ck.integer(path, 0, 10**6) == value, path, f"the code is built for {value}")
    ck.integer("geometry.counts.distinct_pad_outcomes", 1, 480)   # depends on the pads' icons
    ck.integer("constants.product_markers_per_company.value", 1, 100)
    ck.integer("constants.improvement_tiles_total.value", 1, 100)
    # retailers
    rt = ck.sequence("retailers.tiles", min_len=1)
    for i in range(len(rt)):
        path = f"retailers.tiles[{i}]"
        ck.string(path + ".id")
        ck.string(path + ".size", ("S", "M", "L"))
        for side in ("a", "b"):
            kind = ck.string(f"{path}.{side}.bonus", _BONUS_SET)
            if kind in ("produce", "tech_markers"):
                ck.integer(f"{path}.{side}.n", 1, 18)
            elif "n" in ck.mapping(f"{path}.{side}"):
                ck.integer(f"{path}.{side}.n", 0, 18)
    for size in ("S", "M", "L"):
        n_size = sum(1 for t in rt if t["size"] == size)
        ck.require(ck.integer(f"retailers.counts.value.{size}", 0, len(rt)) == n_size,
                   f"retailers.counts.value.{size}", f"must count the {size} tiles listed ({n_size})")
    for size in ("S", "M", "L"):
        vps = ck.sequence(f"retailers.slot_vp.{size}", min_len=1, max_len=8)
        for j in range(len(vps)):
            ck.integer(f"retailers.slot_vp.{size}[{j}]", 0, 100)
    for n in ("2", "3", "4", "5"):
        path = f"retailers.layout_by_companies.{n}"
        named = ck.sequence(path + ".named")
        for j in range(len(named)):
            ck.string(f"{path}.named[{j}]", rids)
        m = ck.get(path + ".medium_without_home")
        if m != "all":
            ck.integer(path + ".medium_without_home", 0, 12)
    # Steve
    # which agent counts Steve may join (the environment's num_players/steve options)
    allowed = ck.sequence("steve.allowed_with_agents", min_len=1)
    for i in range(len(allowed)):
        ck.integer(f"steve.allowed_with_agents[{i}]", 1, 4)
    ck.require(allowed == [1, 2, 3, 4], "steve.allowed_with_agents",
               "the code lets Steve join 1-4 agents (2-5 companies in all)")
    mandatory = ck.sequence("steve.mandatory_with_agents", min_len=1)
    for i in range(len(mandatory)):
        ck.integer(f"steve.mandatory_with_agents[{i}]", 1, 1)
    ck.sequence("steve.pad", length=2)
    for i in range(2):
        ck.sequence(f"steve.pad[{i}]", length=3)
        for j in range(3):
            ck.string(f"steve.pad[{i}][{j}]", _ICON_SET)
    cyc = ck.sequence("steve.marker_cycle", min_len=1)
    for i in range(len(cyc)):
        ck.sequence(f"steve.marker_cycle[{i}]", length=2)
        ck.integer(f"steve.marker_cycle[{i}][0]", 0, 1)
        ck.integer(f"steve.marker_cycle[{i}][1]", 0, 2)
    v = ck.integer("steve.policy.retailer_price_shift", -1, 1)
    ck.require(v != 0, "steve.policy.retailer_price_shift", "must be -1 or +1")
    return data


DATA = check_data(load("smartphone_inc", __file__))

# ----------------------------------------------------------------------------- icons
ICON_NAMES = _ICON_SET
BLANK, IMP, CHEAP, PUP, RES, LOG, PROD, PDOWN = range(8)
NICON = 8
_ICON = {n: i for i, n in enumerate(ICON_NAMES)}

# ----------------------------------------------------------------------------- constants
_C = DATA["constants"]
ROUNDS = int(_C["rounds"]["value"])
START_PRICE = int(_C["start_price"]["value"])
PRICE_MIN = int(_C["price_min"]["value"])
PRICE_MAX = int(_C["price_max"]["value"])
DISPLAY_SIZE = int(_C["display_size"]["value"])
GOODS_CAP = int(_C["ready_goods_cap"]["value"])
TOKEN_SUPPLY = int(_C["goods_tokens_supply"]["value"])
OFFICE_MAX = int(_C["office_markers_per_company"]["value"])
PATENT_DROP = int(_C["patent_cost_drop"]["value"])
TECH_COST_MIN = int(_C["tech_cost_min"]["value"])
OVERLAP_MIN = int(_C["overlap_cells"]["min"])
OVERLAP_MAX = int(_C["overlap_cells"]["max"])
IMP_ROUND = np.zeros(ROUNDS + 2, dtype=np.int64)
for _r in _C["improvement_phase_rounds"]["value"]:
    IMP_ROUND[int(_r)] = 1
REFILL_ROUND = np.zeros(ROUNDS + 2, dtype=np.int64)
for _r in _C["display_refill_after_rounds"]["value"]:
    REFILL_ROUND[int(_r)] = 1
MAX_CO = 5
MAX_TILES = 1 + 2 * int(IMP_ROUND.sum())

# ----------------------------------------------------------------------------- pads & geometry
CANVAS_R = int(DATA["geometry"]["canvas"]["rows"])
CANVAS_C = int(DATA["geometry"]["canvas"]["cols"])
NCELL = CANVAS_R * CANVAS_C
_BTL = DATA["geometry"]["bottom_pad_top_left"]["value"]
PAD_ICONS = np.zeros((2, 2, 6), dtype=np.int64)          # [W/B][side][cell i*3+j]
for _pi, _pn in enumerate(("W", "B")):
    for _s in range(2):
        _arr = DATA["pads"][_pn][f"side{_s}"]
        for _i in range(2):
            for _j in range(3):
                PAD_ICONS[_pi, _s, _i * 3 + _j] = _ICON[_arr[_i][_j]]
BOTTOM_CELLS = np.array([(_BTL[0] + v // 3) * CANVAS_C + _BTL[1] + v % 3 for v in range(6)], dtype=np.int64)


def _rotate(a, k):
    for _ in range(k):
        h, w = a.shape
        r = np.zeros((w, h), dtype=a.dtype)
        for i in range(w):
            for j in range(h):
                r[i, j] = a[h - 1 - j, i]
        a = r
    return a


_POS = DATA["geometry"]["top_pad_positions"]
ARR_K = np.zeros(60, dtype=np.int64)
ARR_RC = np.zeros((60, 2), dtype=np.int64)
ARR_CELLS = np.zeros((60, 6), dtype=np.int64)     # canvas cell of the top pad's original cell v
_ai = 0
for _k in range(4):
    _rot = _rotate(np.arange(6).reshape(2, 3), _k)
    for (_r0, _c0) in _POS[f"k{_k}"]:
        ARR_K[_ai] = _k
        ARR_RC[_ai] = (_r0, _c0)
        for _i in range(_rot.shape[0]):
            for _j in range(_rot.shape[1]):
                ARR_CELLS[_ai, _rot[_i, _j]] = (_r0 + _i) * CANVAS_C + _c0 + _j
        _ai += 1
assert _ai == 60
NARR = 120

# dominoes: horizontal 8r+c (r 0-7, c 0-7), vertical 64+9r+c (r 0-6, c 0-8)
NDOM = CANVAS_R * (CANVAS_C - 1) + (CANVAS_R - 1) * CANVAS_C
DOM_A = np.zeros(NDOM, dtype=np.int64)
DOM_B = np.zeros(NDOM, dtype=np.int64)
_d = 0
for _r in range(CANVAS_R):
    for _c in range(CANVAS_C - 1):
        DOM_A[_d] = _r * CANVAS_C + _c
        DOM_B[_d] = _r * CANVAS_C + _c + 1
        _d += 1
for _r in range(CANVAS_R - 1):
    for _c in range(CANVAS_C):
        DOM_A[_d] = _r * CANVAS_C + _c
        DOM_B[_d] = (_r + 1) * CANVAS_C + _c
        _d += 1
FACE_DOWN = 4 * NDOM   # TILE_PLACE code of a face-down tile

# ----------------------------------------------------------------------------- technologies
EFFECTS = _EFFECT_SET
# Constants passed as arguments to jitted functions are numpy scalars: numba compiles a
# separate specialisation for every plain-int literal argument (cold start, issue 15).
(E_NONE, E_PROD_DOUBLE, E_PRODUCE_NOW, E_SECOND_OFFICE, E_KEEP_UNSOLD, E_RES_DISCOUNT, E_FREE_SMALL,
 E_RES_AS_LOG, E_PER_TWO, E_DIRECT_SALE, E_PRICE_PLUS, E_OVERHANG, E_SELL_NO_OFFICE) = (np.int64(i) for i in range(13))
_TECHS = sorted(DATA["technologies"], key=lambda t: t["board_index"])
NTECH = len(_TECHS)
TECH_IDS = tuple(str(t["id"]) for t in _TECHS)
TECH_NAMES = tuple(t["name"] for t in _TECHS)
TECH_COST = np.array([t["cost"]["value"] for t in _TECHS], dtype=np.int64)
TECH_PVP = np.array([t["patent_vp"]["value"] for t in _TECHS], dtype=np.int64)
TECH_EFF = np.zeros((NTECH, 2), dtype=np.int64)
TECH_AMT = np.zeros((NTECH, 2), dtype=np.int64)
for _t, _td in enumerate(_TECHS):
    for _s, _sn in enumerate(("front", "back")):
        _e = _td[_sn]
        TECH_EFF[_t, _s] = EFFECTS.index(_e["effect"])
        TECH_AMT[_t, _s] = int(_e.get("amount", _e.get("max_goods", _e.get("max_cells_off_pad", _e.get("per_region", 1)))) or 1)
_TIDX = {tid: i for i, tid in enumerate(TECH_IDS)}

# ----------------------------------------------------------------------------- map
SIZES = ("S", "M", "L")
_RT = DATA["region_types"]
_REG = DATA["regions"]
NREG = len(_REG)
REGION_IDS = tuple(r["id"] for r in _REG)
REGION_NAMES = tuple(r["name"] for r in _REG)
_RIDX = {rid: i for i, rid in enumerate(REGION_IDS)}
MAX_SLOTS = max(int(v["office_slots"]) for v in _RT.values())
MAX_BUY = max(len(r["buyers"]) for r in _REG)
REG_SIZE = np.array([SIZES.index(r["size"]) for r in _REG], dtype=np.int64)
REG_COST = np.array([_RT[r["size"]]["office_cost"] for r in _REG], dtype=np.int64)
REG_NSLOT = np.array([_RT[r["size"]]["office_slots"] for r in _REG], dtype=np.int64)
REG_SLOTVP = np.full((NREG, MAX_SLOTS, 2), -1, dtype=np.int64)
REG_BUY = np.zeros((NREG, MAX_BUY), dtype=np.int64)   # 0 none, 1..99 red cap, 100+t purple
REG_NBUY = np.zeros(NREG, dtype=np.int64)
LINK = np.zeros((NREG, NREG), dtype=np.int64)
for _i, _r in enumerate(_REG):
    for _s, _v in enumerate(_RT[_r["size"]]["slot_vp"]):
        REG_SLOTVP[_i, _s, 0] = _v[0]
        REG_SLOTVP[_i, _s, 1] = -1 if _v[1] is None else _v[1]
    REG_NBUY[_i] = len(_r["buyers"])
    for _b, _v in enumerate(_r["buyers"]):
        REG_BUY[_i, _b] = int(_v) if isinstance(_v, int) else 100 + _TIDX[str(_v)]
    for _l in _r["links"]:
        LINK[_i, _RIDX[_l]] = 1
        LINK[_RIDX[_l], _i] = 1
REG_ALPHA = np.array([sorted(REGION_IDS).index(r) for r in REGION_IDS], dtype=np.int64)

# ----------------------------------------------------------------------------- tiles
_MK = DATA["improvement_tiles"]["market"]["tiles"]
_types = []
for _t in _MK:
    if tuple(_t["icons"]) not in _types:
        _types.append(tuple(_t["icons"]))
for _co in DATA["companies"]:
    if tuple(_co["start_tile"]) not in _types:
        _types.append(tuple(_co["start_tile"]))
TILE_TYPES = tuple(_types)
NTT = len(TILE_TYPES)
TT_ICONS = np.array([[_ICON[a], _ICON[b]] for a, b in TILE_TYPES], dtype=np.int64)
MARKET_CNT = np.zeros(NTT, dtype=np.int64)
for _t in _MK:
    MARKET_CNT[TILE_TYPES.index(tuple(_t["icons"]))] += int(_t["count"])
FACE_DOWN_GOODS = int(DATA["improvement_tiles"]["face_down_goods"]["value"])

# ----------------------------------------------------------------------------- companies
COLOURS = tuple(DATA["colours"]["value"])
NCOL = len(COLOURS)
_COMP = {c["colour"]: c for c in DATA["companies"]}
COL_SVP = np.array([_COMP[c]["start_vp"] for c in COLOURS], dtype=np.int64)
COL_HOME = np.array([_RIDX[_COMP[c]["home"]] for c in COLOURS], dtype=np.int64)
COL_TILE = np.array([TILE_TYPES.index(tuple(_COMP[c]["start_tile"])) for c in COLOURS], dtype=np.int64)

# ----------------------------------------------------------------------------- retailers
BONUS_KINDS = _BONUS_SET
B_NONE, B_PRODUCE, B_TECH, B_PRICE, B_EXTRA, B_MOVE = range(6)
_RTL = DATA["retailers"]
NRT = len(_RTL["tiles"])
RETAILER_IDS = tuple(t["id"] for t in _RTL["tiles"])
RT_SIZE = np.array([SIZES.index(t["size"]) for t in _RTL["tiles"]], dtype=np.int64)
RT_BONUS = np.zeros((NRT, 2), dtype=np.int64)
RT_N = np.zeros((NRT, 2), dtype=np.int64)
for _i, _t in enumerate(_RTL["tiles"]):
    for _s, _sn in enumerate(("a", "b")):
        RT_BONUS[_i, _s] = BONUS_KINDS.index(_t[_sn]["bonus"])
        RT_N[_i, _s] = int(_t[_sn].get("n", 0))
MAX_RSLOT = max(len(v) for k, v in _RTL["slot_vp"].items() if k in SIZES)
RT_SLOTVP = np.full((3, MAX_RSLOT), -1, dtype=np.int64)
RT_NSLOT = np.zeros(3, dtype=np.int64)
for _s, _sn in enumerate(SIZES):
    _v = _RTL["slot_vp"][_sn]
    RT_NSLOT[_s] = len(_v)
    RT_SLOTVP[_s, :len(_v)] = _v
LAYOUT_TARGET = np.zeros((MAX_CO + 1, NREG), dtype=np.int64)   # 1 = named target region
LAYOUT_MED = np.zeros(MAX_CO + 1, dtype=np.int64)              # -1 = all, else count
for _n, _lay in _RTL["layout_by_companies"].items():
    if _n == "provenance":
        continue
    for _rid in _lay["named"]:
        LAYOUT_TARGET[int(_n), _RIDX[_rid]] = 1
    _m = _lay["medium_without_home"]
    LAYOUT_MED[int(_n)] = -1 if _m == "all" else int(_m)

# ----------------------------------------------------------------------------- Steve
_ST = DATA["steve"]
STEVE_PAD = np.array([_ICON[x] for row in _ST["pad"] for x in row], dtype=np.int64)
STEVE_CYCLE = np.array([r * 3 + c for r, c in _ST["marker_cycle"]], dtype=np.int64)
STEVE_PRICE_SHIFT = int(_ST["policy"]["retailer_price_shift"])

# ----------------------------------------------------------------------------- actions
BLOCK_NAMES = ("SIDES", "ARRANGE", "TILE_PICK", "TILE_PLACE", "IMPROVE_PICK", "RESEARCH", "LOGISTICS",
               "OFFICE_TARGET", "MOVE_SOURCE", "NFC_SELL", "SELL", "BONUS_TECH", "BONUS_PRICE")
BLOCK_SIZES = (4, NARR, MAX_TILES + 1, 4 * NDOM + 1, DISPLAY_SIZE, NTECH + 1, NREG + 1,
               NREG, NREG, 3, NREG, NTECH, 2)
BLOCK_OFF = tuple(int(sum(BLOCK_SIZES[:i])) for i in range(len(BLOCK_SIZES)))
(P_SIDES, P_ARR, P_PICK, P_PLACE, P_IMPR, P_RES, P_LOG, P_OFF, P_MSRC, P_NFC, P_SELL,
 P_BTECH, P_BPRICE) = (np.int64(i) for i in range(13))
(A_SIDES, A_ARR, A_PICK, A_PLACE, A_IMPR, A_RES, A_LOG, A_OFF, A_MSRC, A_NFC, A_SELL,
 A_BTECH, A_BPRICE) = BLOCK_OFF
NUM_ACTIONS = int(sum(BLOCK_SIZES))
BLOCK_OF = np.zeros(NUM_ACTIONS, dtype=np.int64)
for _b in range(len(BLOCK_SIZES)):
    BLOCK_OF[BLOCK_OFF[_b]:BLOCK_OFF[_b] + BLOCK_SIZES[_b]] = _b
BLOCK_OFF_A = np.array(BLOCK_OFF, dtype=np.int64)

# office-target kinds
OT_WIFI, OT_GAMEPAD, OT_EXTRA, OT_MOVE = (np.int64(i) for i in (1, 2, 3, 4))
PH_RESEARCH, PH_LOGISTICS, PH_SELLING = np.int64(5), np.int64(6), np.int64(7)

# ----------------------------------------------------------------------------- state layout
_off = [0]


def _f(n=1):
    v = _off[0]
    _off[0] += n
    return v


NPL = _f(); NCO = _f(); STEVE = _f(); ROUND = _f(); PHASE = _f(); OVER = _f(); PEND = _f(); CUR = _f()
OPOS = _f(); STAGE = _f(); OTK = _f(); BKIND = _f(); BLEFT = _f(); BCO = _f(); MSRC = _f(); GPP = _f()
PSEAT = _f(); PSTAGE = _f(); PTILE = _f(); TOK = _f(); STACKN = _f(); SELLLEFT = _f(); REVEALED = _f()
ORDER = _f(MAX_CO)
TSIDE = _f(NTECH)
PATENT = _f(NTECH)
DISP = _f(DISPLAY_SIZE)
STACK = _f(NTT)
OFFS = _f(NREG * MAX_SLOTS)        # company or -1
RET = _f(NREG)                     # retailer tile or -1
RSIDE = _f(NREG)
ROFF = _f(NREG * MAX_RSLOT)
MARK = _f(NREG * MAX_CO)
BUY = _f(NREG * MAX_BUY)           # company whose good sits on the buyer this round, -1 free
RNG = _f(rng.RNG_SLOTS)
# per company
C_COL, C_SVP, C_VP, C_PRICE, C_READY, C_TOK, C_NT = range(7)
C_TILES = 7
C_OWN = C_TILES + MAX_TILES
C_TM = C_OWN + NTECH
C_LOCK = C_TM + NTECH
C_RESL = C_LOCK + NTECH
C_LOGL = C_RESL + 1
C_OUSED = C_LOGL + 1
C_SOLD = C_OUSED + 1
C_OUT = C_SOLD + 1          # outcome vector (7)
C_IMPL = C_OUT + 7
C_COMMIT = C_IMPL + 1
CSZ = C_COMMIT + 1
CB = _f(MAX_CO * CSZ)
# outcome vector entries
O_CD, O_PROD, O_IMP, O_IMPCOV, O_SHIFT, O_RES, O_LOG = range(7)
# per company plan
PL_SW, PL_SB, PL_ARR, PL_N = range(4)
PL_PLACED = 4
PL_ORDT = PL_PLACED + MAX_TILES
PL_ORDC = PL_ORDT + MAX_TILES
PSZ = PL_ORDC + MAX_TILES
PB = _f(MAX_CO * PSZ)
STATE_SIZE = _off[0]
# Slots whose change makes hidden choices public at once (the plan reveal): a search copy
# determinized before it may, from there, differ openly (e.g. in turn order).
REVEAL_SLOTS = (REVEALED,)

CONFIG_SIZE = 2 + NTECH + MAX_CO   # num_players, steve, tech side modes (0 front 1 back 2 random), colours

PHASE_NAMES = ("", "planning", "pricing", "production", "improvement", "research", "logistics",
               "selling", "scoring")


# ============================================================================= small helpers
@njit(cache=True)
def cb(c):
    return CB + c * CSZ


@njit(cache=True)
def pb(c):
    return PB + c * PSZ


@njit(cache=True)
def clampp(v):
    if v < PRICE_MIN:
        return PRICE_MIN
    if v > PRICE_MAX:
        return PRICE_MAX
    return v


@njit(cache=True)
def eff_amount(state, c, e):
    """Amount of effect ``e`` that company ``c`` owns (0 if none)."""
    b = cb(c)
    tot = 0
    for t in range(NTECH):
        if state[b + C_OWN + t] != 0:
            s = state[TSIDE + t]
            if TECH_EFF[t, s] == e:
                tot += TECH_AMT[t, s]
    return tot


@njit(cache=True)
def n_techs(state, c):
    n = 0
    for t in range(NTECH):
        n += state[cb(c) + C_OWN + t] != 0
    return n


@njit(cache=True)
def n_patents(state, c):
    n = 0
    for t in range(NTECH):
        n += state[PATENT + t] == c
    return n


@njit(cache=True)
def tech_cost(state, t, c):
    v = TECH_COST[t]
    if state[PATENT + t] >= 0:
        v -= PATENT_DROP
    v -= eff_amount(state, c, E_RES_DISCOUNT)
    if v < TECH_COST_MIN:
        v = TECH_COST_MIN
    return v


@njit(cache=True)
def add_goods(state, c, n):
    b = cb(c)
    v = state[b + C_READY] + n
    if v > GOODS_CAP:
        v = GOODS_CAP
    state[b + C_READY] = v


@njit(cache=True)
def offices_in(state, c, r):
    """Offices of ``c`` in region ``r`` (region slots and retailer slots)."""
    n = 0
    for s in range(MAX_SLOTS):
        n += state[OFFS + r * MAX_SLOTS + s] == c
    for s in range(MAX_RSLOT):
        n += state[ROFF + r * MAX_RSLOT + s] == c
    return n


@njit(cache=True)
def region_office_in(state, c, r):
    for s in range(MAX_SLOTS):
        if state[OFFS + r * MAX_SLOTS + s] == c:
            return True
    return False


@njit(cache=True)
def free_slot(state, r):
    """Leftmost free slot of region ``r`` (retailer slot if a retailer covers it), -1 if full."""
    t = state[RET + r]
    if t >= 0:
        for s in range(RT_NSLOT[RT_SIZE[t]]):
            if state[ROFF + r * MAX_RSLOT + s] < 0:
                return s
        return -1
    for s in range(REG_NSLOT[r]):
        if state[OFFS + r * MAX_SLOTS + s] < 0:
            return s
    return -1


@njit(cache=True)
def eligible_at(state, c, code, price):
    """Whether buyer ``code`` would buy from ``c`` at ``price`` (ignoring whether it is free)."""
    if code <= 0:
        return False
    if code >= 100:
        return state[cb(c) + C_OWN + code - 100] != 0
    return code >= price


@njit(cache=True)
def eligible(state, c, code):
    return eligible_at(state, c, code, state[cb(c) + C_PRICE])


@njit(cache=True)
def eligible_free(state, c, r):
    if state[RET + r] >= 0:
        return 0
    n = 0
    for b in range(REG_NBUY[r]):
        if state[BUY + r * MAX_BUY + b] < 0 and eligible(state, c, REG_BUY[r, b]):
            n += 1
    return n


@njit(cache=True)
def sell_cap(state, c, r):
    if state[RET + r] >= 0:
        return 0
    e = eligible_free(state, c, r)
    if region_office_in(state, c, r):
        return e
    if eff_amount(state, c, E_SELL_NO_OFFICE) > 0:
        for b in range(REG_NBUY[r]):
            if state[BUY + r * MAX_BUY + b] == c:
                return 0
        return min(1, e)
    return 0


@njit(cache=True)
def region_key(state, c, r):
    return -eligible_free(state, c, r) * 10000 + REG_COST[r] * 100 + REG_ALPHA[r]


@njit(cache=True)
def logistics_legal(state, c, r):
    if offices_in(state, c, r) > 0 or free_slot(state, r) < 0:
        return False
    for q in range(NREG):
        if LINK[r, q] != 0 and offices_in(state, c, q) > 0:
            return True
    return False


@njit(cache=True)
def office_target_legal(state, c, kind, r):
    if kind == OT_WIFI or kind == OT_EXTRA:
        return (state[cb(c) + C_OUSED] < OFFICE_MAX and offices_in(state, c, r) == 1
                and state[RET + r] < 0 and free_slot(state, r) >= 0)
    if kind == OT_GAMEPAD:
        return (state[cb(c) + C_OUSED] < OFFICE_MAX and REG_SIZE[r] == 0 and offices_in(state, c, r) == 0
                and free_slot(state, r) >= 0)
    # move destination
    return r != state[MSRC] and offices_in(state, c, r) == 0 and free_slot(state, r) >= 0


@njit(cache=True)
def any_office_target(state, c, kind):
    for r in range(NREG):
        if office_target_legal(state, c, kind, r):
            return True
    return False


@njit(cache=True)
def move_source_legal(state, c, r):
    if offices_in(state, c, r) == 0:
        return False
    if c == state[STEVE] and not region_office_in(state, c, r):
        return False   # Steve moves only offices standing on a region (data steve.policy)
    for d in range(NREG):
        if d != r and offices_in(state, c, d) == 0 and free_slot(state, d) >= 0:
            return True
    return False


@njit(cache=True)
def clear_if_full(state, r):
    if free_slot(state, r) < 0:
        for c in range(MAX_CO):
            state[MARK + r * MAX_CO + c] = 0


@njit(cache=True)
def put_office(state, c, r):
    """Put an office of ``c`` in the leftmost free slot of ``r``; returns True on a retailer."""
    s = free_slot(state, r)
    on_ret = state[RET + r] >= 0
    if on_ret:
        state[ROFF + r * MAX_RSLOT + s] = c
    else:
        state[OFFS + r * MAX_SLOTS + s] = c
    state[MARK + r * MAX_CO + c] = 0
    clear_if_full(state, r)
    return on_ret


@njit(cache=True)
def build_office(state, c, r):
    """A new office (uses an office marker); a retailer bonus resolves at once."""
    state[cb(c) + C_OUSED] += 1
    if put_office(state, c, r):
        trigger_bonus(state, c, r)


@njit(cache=True)
def trigger_bonus(state, c, r):
    t = state[RET + r]
    s = state[RSIDE + r]
    kind = RT_BONUS[t, s]
    n = RT_N[t, s]
    if kind == B_PRODUCE:
        add_goods(state, c, n)
    elif kind == B_TECH:
        if n_techs(state, c) < NTECH and n > 0:
            state[BKIND] = B_TECH
            state[BLEFT] = n
            state[BCO] = c
    elif kind == B_PRICE:
        state[BKIND] = B_PRICE
        state[BCO] = c
    elif kind == B_EXTRA:
        if any_office_target(state, c, OT_EXTRA):
            state[BKIND] = B_EXTRA
            state[BCO] = c
    elif kind == B_MOVE:
        for q in range(NREG):
            if move_source_legal(state, c, q):
                state[BKIND] = B_MOVE
                state[BCO] = c
                state[MSRC] = -1
                break


@njit(cache=True)
def remove_office(state, c, r):
    """Remove ``c``'s rightmost office in ``r`` (region slots first, else retailer); close the gap."""
    base = OFFS + r * MAX_SLOTS
    n = MAX_SLOTS
    pos = -1
    for s in range(MAX_SLOTS):
        if state[base + s] == c:
            pos = s
    if pos < 0:
        base = ROFF + r * MAX_RSLOT
        n = MAX_RSLOT
        for s in range(MAX_RSLOT):
            if state[base + s] == c:
                pos = s
    for s in range(pos, n - 1):
        state[base + s] = state[base + s + 1]
    state[base + n - 1] = -1


@njit(cache=True)
def complete_check(state, c):
    """Completion check of section 4 phase 5.  Returns True if a Gamepad-back office is pending."""
    b = cb(c)
    changed = True
    while changed:
        changed = False
        for t in range(NTECH):
            if state[b + C_OWN + t] != 0 or state[b + C_LOCK + t] != 0:
                continue
            if state[b + C_TM + t] >= tech_cost(state, t, c) and state[b + C_OUSED] < OFFICE_MAX:
                state[b + C_TM + t] = 0
                state[b + C_OWN + t] = 1
                state[b + C_OUSED] += 1
                if state[PATENT + t] < 0:
                    state[PATENT + t] = c
                s = state[TSIDE + t]
                e = TECH_EFF[t, s]
                changed = True
                if e == E_PRODUCE_NOW:
                    add_goods(state, c, TECH_AMT[t, s])
                elif e == E_PER_TWO:
                    add_goods(state, c, n_techs(state, c) // 2)
                elif e == E_PRICE_PLUS:
                    state[b + C_PRICE] = clampp(state[b + C_PRICE] + TECH_AMT[t, s])
                elif e == E_FREE_SMALL:
                    if any_office_target(state, c, OT_GAMEPAD):
                        state[GPP] = 1
                        return True
    return False


@njit(cache=True)
def compute_order(state):
    n = state[NCO]
    for i in range(n):
        state[ORDER + i] = i
    for i in range(1, n):
        j = i
        while j > 0:
            a = state[ORDER + j - 1]
            bq = state[ORDER + j]
            ka = (state[cb(a) + C_PRICE], state[cb(a) + C_VP], state[cb(a) + C_SVP])
            kb = (state[cb(bq) + C_PRICE], state[cb(bq) + C_VP], state[cb(bq) + C_SVP])
            if kb < ka:
                state[ORDER + j - 1] = bq
                state[ORDER + j] = a
                j -= 1
            else:
                break


@njit(cache=True)
def draw_tile(state):
    t = rng.draw_from_counts(state, RNG, STACK, NTT)
    if t >= 0:
        state[STACKN] -= 1
    return t


# ============================================================================= plan geometry
@njit(cache=True)
def plan_pads(state, c):
    """(bottom pad index, bottom side, top pad index, top side, arrangement i) of c's plan."""
    p = pb(c)
    a = state[p + PL_ARR]
    t = a // 60
    top = 0 if t == 0 else 1
    bot = 1 - top
    sides = (state[p + PL_SW], state[p + PL_SB])
    return bot, sides[bot], top, sides[top], a % 60


@njit(cache=True)
def paint(state, c, icon, src, upto):
    """Visible icon / source of every canvas cell for c's plan (first ``upto`` placements).

    src: 0 empty, 1 bottom pad, 2 top pad, 3+k placement k.  Returns the overlap count C.
    """
    for i in range(NCELL):
        icon[i] = -1
        src[i] = 0
    p = pb(c)
    if state[p + PL_SW] < 0:
        return 0
    if state[p + PL_ARR] < 0:
        for v in range(6):
            icon[BOTTOM_CELLS[v]] = PAD_ICONS[1, state[p + PL_SB], v]   # preview: W over B undecided
            src[BOTTOM_CELLS[v]] = 1
        return 0
    bot, bs, top, ts, ai = plan_pads(state, c)
    for v in range(6):
        icon[BOTTOM_CELLS[v]] = PAD_ICONS[bot, bs, v]
        src[BOTTOM_CELLS[v]] = 1
    for lvpass in range(2):
        if lvpass == 1:
            for v in range(6):
                icon[ARR_CELLS[ai, v]] = PAD_ICONS[top, ts, v]
                src[ARR_CELLS[ai, v]] = 2
        for k in range(upto):
            code = state[p + PL_ORDC + k]
            if code == FACE_DOWN:
                continue
            lv = code & 1
            if (lvpass == 0 and lv == 1) or (lvpass == 1 and lv == 0):
                d = code >> 2
                o = (code >> 1) & 1
                tt = state[cb(c) + C_TILES + state[p + PL_ORDT + k]]
                icon[DOM_A[d]] = TT_ICONS[tt, o]
                icon[DOM_B[d]] = TT_ICONS[tt, 1 - o]
                src[DOM_A[d]] = 3 + k
                src[DOM_B[d]] = 3 + k
    n = 0
    for v in range(6):
        cell = ARR_CELLS[ai, v]
        for w in range(6):
            if BOTTOM_CELLS[w] == cell:
                n += 1
    return n


@njit(cache=True)
def eval_plan(state, c, out):
    """Outcome vector (C+d, PROD+CHEAP, IMP active, IMP covered, price shift, RES, LOG)."""
    icon = np.empty(NCELL, dtype=np.int64)
    src = np.empty(NCELL, dtype=np.int64)
    p = pb(c)
    n = state[p + PL_N]
    cov = paint(state, c, icon, src, n)
    cnt = np.zeros(NICON, dtype=np.int64)
    for i in range(NCELL):
        if icon[i] >= 0:
            cnt[icon[i]] += 1
    d = 0
    for k in range(n):
        if state[p + PL_ORDC + k] == FACE_DOWN:
            d += 1
    imp_total = np.int64(0)
    for v in range(6):
        imp_total += PAD_ICONS[0, state[p + PL_SW], v] == IMP
        imp_total += PAD_ICONS[1, state[p + PL_SB], v] == IMP
    write_outcome(out, cov + d * FACE_DOWN_GOODS, cnt, imp_total)


@njit(cache=True)
def write_outcome(out, goods, cnt, imp_total):
    """Fill the outcome vector (``O_*`` slots) of a plan from its ``goods`` (covered cells
    plus face-down tiles), the counts ``cnt`` of its visible icons and its IMP icons in
    all (``imp_total``, covered ones included)."""
    out[O_CD] = goods
    out[O_PROD] = cnt[PROD] + cnt[CHEAP]
    out[O_IMP] = cnt[IMP]
    out[O_IMPCOV] = imp_total - cnt[IMP]
    out[O_SHIFT] = cnt[PUP] - cnt[PDOWN] - cnt[CHEAP]
    out[O_RES] = cnt[RES]
    out[O_LOG] = cnt[LOG]


@njit(cache=True)
def steve_outcome(state, c):
    steve_plan(state, c, state[cb(c) + C_OUT:])


@njit(cache=True)
def steve_plan(state, c, out):
    """Write the outcome of Steve's fixed plan for this round into ``out`` (O_* slots)."""
    cnt = np.zeros(NICON, dtype=np.int64)
    cov = STEVE_CYCLE[(state[ROUND] - 1) % STEVE_CYCLE.shape[0]]
    imp_total = np.int64(0)
    for v in range(6):
        imp_total += STEVE_PAD[v] == IMP
        if v != cov:
            cnt[STEVE_PAD[v]] += 1
    write_outcome(out, 1 + state[cb(c) + C_NT] * FACE_DOWN_GOODS, cnt, imp_total)


@njit(cache=True)
def in_b(cell):
    r = cell // CANVAS_C
    col = cell % CANVAS_C
    return r >= 3 and r <= 4 and col >= 3 and col <= 5


@njit(cache=True)
def place_legal(state, c, d, lv, tmask):
    """Face-up placement of the next tile on domino d at level lv (0 over, 1 under)."""
    a = DOM_A[d]
    bcell = DOM_B[d]
    max_off = min(2, eff_amount(state, c, E_OVERHANG))
    ua = in_b(a) or tmask[a] != 0
    ub = in_b(bcell) or tmask[bcell] != 0
    off = (0 if ua else 1) + (0 if ub else 1)
    if off > max_off:
        return False
    if lv == 1:
        if tmask[a] != 0 and not in_b(a):
            return False
        if tmask[bcell] != 0 and not in_b(bcell):
            return False
        # (issue 14) no cell beneath the top pad is needed: such an under-tile differs from an
        # over-tile once a later under-tile lies on it (see "Planning encoding" above).
    # no burying: every tile must keep a cell not covered by tiles above it
    p = pb(c)
    n = state[p + PL_N]
    for i in range(n + 1):
        if i < n:
            ci = state[p + PL_ORDC + i]
            if ci == FACE_DOWN:
                continue
            di = ci >> 2
            li = ci & 1
        else:
            di = d
            li = lv
        ri = 1 - li   # stacking rank: under 0, over 1
        covered = 0
        for cell in (DOM_A[di], DOM_B[di]):
            hit = False
            for j in range(n + 1):
                if j == i:
                    continue
                if j < n:
                    cj = state[p + PL_ORDC + j]
                    if cj == FACE_DOWN:
                        continue
                    dj = cj >> 2
                    lj = cj & 1
                else:
                    dj = d
                    lj = lv
                rj = 1 - lj
                if rj > ri or (rj == ri and j > i):
                    if DOM_A[dj] == cell or DOM_B[dj] == cell:
                        hit = True
                        break
            if hit:
                covered += 1
        if covered == 2:
            return False
    return True


@njit(cache=True)
def top_mask(state, c, tmask):
    for i in range(NCELL):
        tmask[i] = 0
    bot, bs, top, ts, ai = plan_pads(state, c)
    for v in range(6):
        tmask[ARR_CELLS[ai, v]] = 1


@njit(cache=True)
def plan_mask(state, c, mask):
    """Legal planning actions of company c (its own PSTAGE-like stage in state[PSTAGE])."""
    st = state[PSTAGE]
    p = pb(c)
    if st == 0:
        for a in range(4):
            mask[A_SIDES + a] = 1
    elif st == 1:
        for a in range(NARR):
            mask[A_ARR + a] = 1
    elif st == 2:
        for t in range(state[cb(c) + C_NT]):
            if state[p + PL_PLACED + t] == 0:
                mask[A_PICK + t] = 1
        mask[A_PICK + MAX_TILES] = 1
    else:
        tmask = np.zeros(NCELL, dtype=np.int64)
        top_mask(state, c, tmask)
        for d in range(NDOM):
            for lv in range(2):
                if place_legal(state, c, d, lv, tmask):
                    mask[A_PLACE + 4 * d + lv] = 1
                    mask[A_PLACE + 4 * d + 2 + lv] = 1
        mask[A_PLACE + FACE_DOWN] = 1


@njit(cache=True)
def reset_plan(state, c):
    p = pb(c)
    for i in range(PSZ):
        state[p + i] = 0
    state[p + PL_SW] = -1
    state[p + PL_SB] = -1
    state[p + PL_ARR] = -1
    state[cb(c) + C_COMMIT] = 0


@njit(cache=True)
def plan_apply(state, c, a):
    p = pb(c)
    st = state[PSTAGE]
    if st == 0:
        x = a - A_SIDES
        state[p + PL_SW] = x // 2
        state[p + PL_SB] = x % 2
        state[PSTAGE] = 1
    elif st == 1:
        state[p + PL_ARR] = a - A_ARR
        state[PSTAGE] = 2
    elif st == 2:
        t = a - A_PICK
        if t == MAX_TILES:
            for u in range(state[cb(c) + C_NT]):
                if state[p + PL_PLACED + u] == 0:
                    k = state[p + PL_N]
                    state[p + PL_ORDT + k] = u
                    state[p + PL_ORDC + k] = FACE_DOWN
                    state[p + PL_PLACED + u] = 1
                    state[p + PL_N] = k + 1
            state[cb(c) + C_COMMIT] = 1
            state[PSEAT] += 1
            state[PSTAGE] = 0
            state[PTILE] = 0
        else:
            state[PTILE] = t
            state[PSTAGE] = 3
    else:
        k = state[p + PL_N]
        u = state[PTILE]
        state[p + PL_ORDT + k] = u
        state[p + PL_ORDC + k] = a - A_PLACE
        state[p + PL_PLACED + u] = 1
        state[p + PL_N] = k + 1
        state[PSTAGE] = 2
        state[PTILE] = 0


# ============================================================================= flow
@njit(cache=True)
def start_phase(state, ph):
    state[PHASE] = ph
    state[OPOS] = 0
    state[STAGE] = 0
    if ph >= 4 and ph <= 7:
        compute_order(state)
    n = state[NCO]
    if ph == 5:
        for c in range(n):
            state[cb(c) + C_RESL] = state[cb(c) + C_OUT + O_RES]
    elif ph == 6:
        for c in range(n):
            v = state[cb(c) + C_OUT + O_LOG]
            if eff_amount(state, c, E_RES_AS_LOG) > 0:
                v += state[cb(c) + C_OUT + O_RES]
            state[cb(c) + C_LOGL] = v


@njit(cache=True)
def end_round(state):
    n = state[NCO]
    # sales
    for c in range(n):
        b = cb(c)
        state[b + C_VP] += state[b + C_SOLD] * state[b + C_PRICE]
    # leadership
    gain = np.zeros(MAX_CO, dtype=np.int64)
    leadership(state, state[BUY:BUY + NREG * MAX_BUY], gain)
    for c in range(n):
        state[cb(c) + C_VP] += gain[c]
    # cleanup
    for i in range(NREG * MAX_BUY):
        state[BUY + i] = -1
    rd = state[ROUND]
    if rd < ROUNDS and REFILL_ROUND[rd] != 0:
        for s in range(DISPLAY_SIZE):
            state[DISP + s] = draw_tile(state)
    for c in range(n):
        b = cb(c)
        state[b + C_SOLD] = 0
        state[b + C_PRICE] = START_PRICE
        reset_plan(state, c)
    state[REVEALED] = 0
    if rd >= ROUNDS:
        state[OVER] = 1
        state[PEND] = -1
        state[CUR] = -1
        return
    state[ROUND] = rd + 1
    state[PHASE] = 1
    state[PSEAT] = 0
    state[PSTAGE] = 0


@njit(cache=True)
def leadership(state, buy, gain):
    """Add to ``gain[c]`` the region leadership VP of section 6 for the goods on ``buy``
    (a buyer array laid out like the state's BUY block: the real one or a simulated one)."""
    n = state[NCO]
    for r in range(NREG):
        if state[RET + r] >= 0:
            continue
        s = -1
        for q in range(REG_NSLOT[r]):
            if state[OFFS + r * MAX_SLOTS + q] >= 0:
                s = q
        if s < 0:
            continue
        best = -1
        bcnt = 0
        bleft = 0
        sec = -1
        scnt = 0
        sleft = 0
        for c in range(n):
            cnt = 0
            left = 99
            for bb in range(REG_NBUY[r]):
                if buy[r * MAX_BUY + bb] == c:
                    cnt += 1
                    if bb < left:
                        left = bb
            if cnt == 0:
                continue
            if best < 0 or cnt > bcnt or (cnt == bcnt and left < bleft):
                sec, scnt, sleft = best, bcnt, bleft
                best, bcnt, bleft = c, cnt, left
            elif sec < 0 or cnt > scnt or (cnt == scnt and left < sleft):
                sec, scnt, sleft = c, cnt, left
        if best >= 0:
            gain[best] += REG_SLOTVP[r, s, 0]
        if sec >= 0 and REG_SLOTVP[r, s, 1] >= 0:
            gain[sec] += REG_SLOTVP[r, s, 1]


@njit(cache=True)
def need(state, c, p):
    state[CUR] = c
    state[PEND] = p
    return True


@njit(cache=True)
def advance(state):
    """Run automatic events until a decision is owed; sets PEND/CUR.  False at game end."""
    while True:
        if state[OVER] != 0:
            state[PEND] = -1
            state[CUR] = -1
            return False
        # a retailer bonus in progress has priority
        bk = state[BKIND]
        if bk != 0:
            c = state[BCO]
            if bk == B_TECH:
                if state[BLEFT] > 0 and n_techs(state, c) < NTECH:
                    return need(state, c, P_BTECH)
                state[BKIND] = 0
                state[BLEFT] = 0
                continue
            if bk == B_PRICE:
                return need(state, c, P_BPRICE)
            if bk == B_EXTRA:
                if any_office_target(state, c, OT_EXTRA):
                    state[OTK] = OT_EXTRA
                    return need(state, c, P_OFF)
                state[BKIND] = 0
                continue
            if bk == B_MOVE:
                if state[MSRC] < 0:
                    return need(state, c, P_MSRC)
                state[OTK] = OT_MOVE
                return need(state, c, P_OFF)
        ph = state[PHASE]
        n = state[NCO]
        if ph == 1:
            s = state[PSEAT]
            if s < state[NPL]:
                return need(state, s, state[PSTAGE])
            # reveal
            for c in range(n):
                if c == state[STEVE]:
                    steve_outcome(state, c)
                else:
                    eval_plan(state, c, state[cb(c) + C_OUT:cb(c) + C_OUT + 7])
            state[REVEALED] = 1
            state[PHASE] = 2
        elif ph == 2:
            for c in range(n):
                b = cb(c)
                state[b + C_PRICE] = clampp(START_PRICE + state[b + C_OUT + O_SHIFT]
                                            + eff_amount(state, c, E_PRICE_PLUS))
            state[PHASE] = 3
        elif ph == 3:
            for c in range(n):
                b = cb(c)
                mult = 2 if eff_amount(state, c, E_PROD_DOUBLE) > 0 else 1
                g = state[b + C_OUT + O_CD] + state[b + C_OUT + O_PROD] * mult + state[b + C_TOK]
                if eff_amount(state, c, E_PER_TWO) > 0:
                    g += n_techs(state, c) // 2
                add_goods(state, c, g)
            start_phase(state, np.int64(4 if IMP_ROUND[state[ROUND]] != 0 else 5))
        elif ph == 4:
            if state[OPOS] >= n:
                start_phase(state, PH_RESEARCH)
                continue
            c = state[ORDER + state[OPOS]]
            b = cb(c)
            if state[STAGE] == 0:
                state[b + C_IMPL] = state[b + C_OUT + O_IMP]
                state[STAGE] = 1
            if state[b + C_IMPL] > 0:
                for s in range(DISPLAY_SIZE):
                    if state[DISP + s] >= 0:
                        return need(state, c, P_IMPR)
                if state[TOK] > 0:
                    state[TOK] -= 1
                    state[b + C_TOK] += 1
                state[b + C_IMPL] -= 1
                continue
            for k in range(state[b + C_OUT + O_IMPCOV]):
                if state[TOK] > 0:
                    state[TOK] -= 1
                    state[b + C_TOK] += 1
            state[OPOS] += 1
            state[STAGE] = 0
        elif ph == 5:
            if state[OPOS] >= n:
                for c in range(n):
                    for t in range(NTECH):
                        state[cb(c) + C_LOCK + t] = 0
                start_phase(state, PH_LOGISTICS)
                continue
            c = state[ORDER + state[OPOS]]
            b = cb(c)
            if state[GPP] != 0:
                if any_office_target(state, c, OT_GAMEPAD):
                    state[OTK] = OT_GAMEPAD
                    return need(state, c, P_OFF)
                state[GPP] = 0
            if complete_check(state, c):
                continue
            if state[b + C_RESL] > 0 and n_techs(state, c) < NTECH:
                return need(state, c, P_RES)
            state[b + C_RESL] = 0
            state[OPOS] += 1
        elif ph == 6:
            if state[OPOS] >= n:
                start_phase(state, PH_SELLING)
                continue
            c = state[ORDER + state[OPOS]]
            b = cb(c)
            st = state[STAGE]
            if st == 0:
                if state[b + C_LOGL] > 0:
                    for r in range(NREG):
                        if logistics_legal(state, c, r):
                            return need(state, c, P_LOG)
                state[b + C_LOGL] = 0
                state[STAGE] = 1
            elif st == 1:
                state[STAGE] = 2
                if eff_amount(state, c, E_SECOND_OFFICE) > 0 and any_office_target(state, c, OT_WIFI):
                    state[STAGE] = 1
                    state[OTK] = OT_WIFI
                    return need(state, c, P_OFF)
            elif st == 2:
                if eff_amount(state, c, E_DIRECT_SALE) > 0 and state[b + C_READY] > 0:  # NFC front
                    return need(state, c, P_NFC)
                state[STAGE] = 3
            else:
                state[OPOS] += 1
                state[STAGE] = 0
        elif ph == 7:
            if state[OPOS] >= n:
                end_round(state)
                continue
            c = state[ORDER + state[OPOS]]
            b = cb(c)
            if state[STAGE] == 0:
                tot = 0
                for r in range(NREG):
                    tot += sell_cap(state, c, r)
                state[SELLLEFT] = min(tot, state[b + C_READY])
                state[STAGE] = 1
            if state[SELLLEFT] > 0:
                return need(state, c, P_SELL)
            if eff_amount(state, c, E_KEEP_UNSOLD) == 0:
                state[b + C_READY] = 0
            state[OPOS] += 1
            state[STAGE] = 0
        else:
            end_round(state)


@njit(cache=True)
def sell_one(state, c, r):
    for bb in range(REG_NBUY[r]):
        if state[BUY + r * MAX_BUY + bb] < 0 and eligible(state, c, REG_BUY[r, bb]):
            state[BUY + r * MAX_BUY + bb] = c
            break
    b = cb(c)
    state[b + C_READY] -= 1
    state[b + C_SOLD] += 1
    state[SELLLEFT] -= 1


@njit(cache=True)
def apply(state, a):
    """Apply action ``a`` of the current decision (no automatic follow-up)."""
    p = state[PEND]
    c = state[CUR]
    b = cb(c)
    if p <= P_PLACE:
        plan_apply(state, c, a)
    elif p == P_IMPR:
        s = a - A_IMPR
        state[b + C_TILES + state[b + C_NT]] = state[DISP + s]
        state[b + C_NT] += 1
        state[DISP + s] = -1
        state[b + C_IMPL] -= 1
    elif p == P_RES:
        t = a - A_RES
        if t == NTECH:
            state[b + C_RESL] = 0
        else:
            state[b + C_TM + t] += 1
            state[b + C_RESL] -= 1
    elif p == P_LOG:
        r = a - A_LOG
        if r == NREG:
            state[b + C_LOGL] = 0
        else:
            state[b + C_LOGL] -= 1
            state[MARK + r * MAX_CO + c] += 1
            if state[MARK + r * MAX_CO + c] >= REG_COST[r] and state[b + C_OUSED] < OFFICE_MAX:
                build_office(state, c, r)
    elif p == P_OFF:
        r = a - A_OFF
        k = state[OTK]
        state[OTK] = 0
        if k == OT_WIFI:
            state[STAGE] = 2
            build_office(state, c, r)
        elif k == OT_GAMEPAD:
            state[GPP] = 0
            build_office(state, c, r)
        elif k == OT_EXTRA:
            state[BKIND] = 0
            build_office(state, c, r)
        else:
            state[BKIND] = 0
            remove_office(state, c, state[MSRC])
            state[MSRC] = -1
            put_office(state, c, r)
    elif p == P_MSRC:
        state[MSRC] = a - A_MSRC
    elif p == P_NFC:
        k = a - A_NFC + 1
        state[b + C_VP] += k * state[b + C_PRICE]
        state[b + C_READY] -= k
        state[STAGE] = 3
    elif p == P_SELL:
        sell_one(state, c, a - A_SELL)
    elif p == P_BTECH:
        t = a - A_BTECH
        state[b + C_TM + t] += 1
        if state[PHASE] == 5:
            state[b + C_LOCK + t] = 1
        state[BLEFT] -= 1
        if state[BLEFT] <= 0:
            state[BKIND] = 0
    elif p == P_BPRICE:
        d = -1 if a == A_BPRICE else 1
        state[b + C_PRICE] = clampp(state[b + C_PRICE] + d)
        state[BKIND] = 0


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    p = state[PEND]
    c = state[CUR]
    if p < 0:
        return
    b = cb(c)
    if p <= P_PLACE:
        plan_mask(state, c, mask)
    elif p == P_IMPR:
        for s in range(DISPLAY_SIZE):
            if state[DISP + s] >= 0:
                mask[A_IMPR + s] = 1
    elif p == P_RES:
        for t in range(NTECH):
            if state[b + C_OWN + t] == 0:
                mask[A_RES + t] = 1
        mask[A_RES + NTECH] = 1
    elif p == P_LOG:
        for r in range(NREG):
            if logistics_legal(state, c, r):
                mask[A_LOG + r] = 1
        mask[A_LOG + NREG] = 1
    elif p == P_OFF:
        for r in range(NREG):
            if office_target_legal(state, c, state[OTK], r):
                mask[A_OFF + r] = 1
    elif p == P_MSRC:
        for r in range(NREG):
            if move_source_legal(state, c, r):
                mask[A_MSRC + r] = 1
    elif p == P_NFC:
        for k in range(min(3, eff_amount(state, c, E_DIRECT_SALE), state[b + C_READY])):
            mask[A_NFC + k] = 1
    elif p == P_SELL:
        for r in range(NREG):
            if sell_cap(state, c, r) > 0:
                mask[A_SELL + r] = 1
    elif p == P_BTECH:
        for t in range(NTECH):
            if state[b + C_OWN + t] == 0:
                mask[A_BTECH + t] = 1
    elif p == P_BPRICE:
        mask[A_BPRICE] = 1
        mask[A_BPRICE + 1] = 1


# ============================================================================= Steve
@njit(cache=True)
def steve_research_target(state, c):
    b = cb(c)
    best = -1
    bk = (0, 0, 0)
    for t in range(NTECH):
        if state[b + C_OWN + t] != 0:
            continue
        cost = tech_cost(state, t, c)
        diff = cost - state[b + C_TM + t]
        if diff <= 0:
            continue
        k = (diff, cost, t)
        if best < 0 or k < bk:
            best = t
            bk = k
    return best


@njit(cache=True)
def steve_action(state):
    p = state[PEND]
    c = state[CUR]
    b = cb(c)
    if p == P_IMPR:
        best = -1
        bn = -1
        for s in range(DISPLAY_SIZE):
            t = state[DISP + s]
            if t >= 0:
                np_ = (TT_ICONS[t, 0] == PROD) + (TT_ICONS[t, 1] == PROD)
                if np_ > bn:
                    bn = np_
                    best = s
        return A_IMPR + best
    if p == P_RES:
        t = steve_research_target(state, c)
        return A_RES + (NTECH if t < 0 else t)
    if p == P_LOG:
        best = -1
        bk = 0
        for r in range(NREG):
            if logistics_legal(state, c, r):
                k = region_key(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_LOG + (NREG if best < 0 else best)
    if p == P_OFF:
        best = -1
        bk = 0
        for r in range(NREG):
            if office_target_legal(state, c, state[OTK], r):
                k = region_key(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_OFF + best
    if p == P_MSRC:
        best = -1
        bk = 0
        for r in range(NREG):
            if move_source_legal(state, c, r):
                k = eligible_free(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_MSRC + best
    if p == P_NFC:
        return A_NFC + min(3, eff_amount(state, c, E_DIRECT_SALE), state[b + C_READY]) - 1
    if p == P_SELL:
        best = -1
        bk = 0
        for r in range(NREG):
            k = sell_cap(state, c, r)
            if k > bk:
                best = r
                bk = k
        return A_SELL + best
    if p == P_BTECH:
        t = steve_research_target(state, c)
        if t < 0:
            for u in range(NTECH):
                if state[b + C_OWN + u] == 0:
                    t = u
                    break
        return A_BTECH + t
    if p == P_BPRICE:
        return A_BPRICE + (0 if STEVE_PRICE_SHIFT < 0 else 1)
    return -1


@njit(cache=True)
def forced_sell(state):
    """Region of the next good when the selling choice is forced, else -1 (section 5.6)."""
    c = state[CUR]
    tot = 0
    nreg = 0
    first = -1
    for r in range(NREG):
        k = sell_cap(state, c, r)
        if k > 0:
            tot += k
            nreg += 1
            if first < 0:
                first = r
    if nreg == 1 or state[SELLLEFT] >= tot:
        return first
    return -1


@njit(cache=True)
def run(state):
    """Advance to the next agent decision, playing Steve and forced moves inline."""
    while advance(state):
        c = state[CUR]
        if c == state[STEVE]:
            apply(state, steve_action(state))
            continue
        if state[PEND] == P_SELL:
            r = forced_sell(state)
            if r >= 0:
                apply(state, A_SELL + r)
                continue
        return


# ============================================================================= contract
@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    npl = config[0]
    st = config[1]
    state[NPL] = npl
    state[NCO] = npl + st
    state[STEVE] = npl if st != 0 else -1
    rng.seed_rng(state, RNG, seed)
    n = npl + st
    # colours
    used = np.zeros(NCOL, dtype=np.int64)
    for c in range(n):
        col = config[2 + NTECH + c]
        if col < 0:
            k = rng.randint(state, RNG, NCOL - c)
            for q in range(NCOL):
                if used[q] == 0:
                    if k == 0:
                        col = q
                        break
                    k -= 1
        used[col] = 1
        state[cb(c) + C_COL] = col
    # technology sides
    for t in range(NTECH):
        m = config[2 + t]
        state[TSIDE + t] = rng.randint(state, RNG, np.int64(2)) if m == 2 else m
        state[PATENT + t] = -1
    # board
    for i in range(NREG * MAX_SLOTS):
        state[OFFS + i] = -1
    for i in range(NREG * MAX_RSLOT):
        state[ROFF + i] = -1
    for i in range(NREG * MAX_BUY):
        state[BUY + i] = -1
    for r in range(NREG):
        state[RET + r] = -1
    # retailers
    home = np.zeros(NREG, dtype=np.int64)
    for c in range(n):
        home[COL_HOME[state[cb(c) + C_COL]]] = 1
    med = LAYOUT_MED[n]
    rused = np.zeros(NRT, dtype=np.int64)
    for r in range(NREG):
        target = LAYOUT_TARGET[n, r] != 0
        if not target and REG_SIZE[r] == 1 and home[r] == 0 and med != 0:
            target = True
            if med > 0:
                med -= 1
        if not target:
            continue
        cnt = np.int64(0)
        for t in range(NRT):
            if rused[t] == 0 and RT_SIZE[t] == REG_SIZE[r]:
                cnt += 1
        if cnt == 0:
            continue
        k = rng.randint(state, RNG, cnt)
        for t in range(NRT):
            if rused[t] == 0 and RT_SIZE[t] == REG_SIZE[r]:
                if k == 0:
                    rused[t] = 1
                    state[RET + r] = t
                    state[RSIDE + r] = rng.randint(state, RNG, np.int64(2))
                    break
                k -= 1
    # tiles
    for t in range(NTT):
        state[STACK + t] = MARKET_CNT[t]
    state[STACKN] = MARKET_CNT.sum()
    for s in range(DISPLAY_SIZE):
        state[DISP + s] = draw_tile(state)
    state[TOK] = TOKEN_SUPPLY
    for c in range(n):
        b = cb(c)
        col = state[b + C_COL]
        state[b + C_SVP] = COL_SVP[col]
        state[b + C_VP] = COL_SVP[col]
        state[b + C_PRICE] = START_PRICE
        state[b + C_TILES] = COL_TILE[col]
        state[b + C_NT] = 1
        h = COL_HOME[col]
        state[OFFS + h * MAX_SLOTS + free_slot(state, h)] = c
        state[b + C_OUSED] = 1
        reset_plan(state, c)
    state[MSRC] = -1
    state[ROUND] = 1
    state[PHASE] = 1
    # What run(state) would do here: the first decision is always seat 0's SIDES (Steve
    # plans inline at the reveal).  Set directly, so init links no flow code: every
    # jitted caller re-optimises the code it links in (cold start, see step).
    state[PSEAT] = 0
    state[PSTAGE] = 0
    need(state, np.int64(0), P_SIDES)


@njit(cache=True)
def current_player(state):
    if state[OVER] != 0:
        return -1
    return state[CUR]


@njit(cache=True)
def step(state, action):
    apply(state, action)
    # run(state), written out: each jitted caller re-optimises the code it links in, so
    # one wrapper fewer between the entry points and advance() shortens the cold start
    while advance(state):
        if state[CUR] == state[STEVE]:
            apply(state, steve_action(state))
            continue
        if state[PEND] == P_SELL:
            r = forced_sell(state)
            if r >= 0:
                apply(state, A_SELL + r)
                continue
        return


@njit(cache=True)
def retailer_vp(state, c):
    v = 0
    for r in range(NREG):
        t = state[RET + r]
        if t < 0:
            continue
        for s in range(RT_NSLOT[RT_SIZE[t]]):
            if state[ROFF + r * MAX_RSLOT + s] == c:
                v += RT_SLOTVP[RT_SIZE[t], s]
    return v


@njit(cache=True)
def patent_vp(state, c):
    v = 0
    for t in range(NTECH):
        if state[PATENT + t] == c:
            v += TECH_PVP[t]
    return v


@njit(cache=True)
def total_score(state, c):
    return state[cb(c) + C_VP] + patent_vp(state, c) + retailer_vp(state, c)


@njit(cache=True)
def scores(state, out):
    for c in range(min(out.shape[0], state[NCO])):
        out[c] = total_score(state, c)


@njit(cache=True)
def ranks(state, out):
    """1-based rank of each company (out may hold the seats only, or every company)."""
    n = state[NCO]
    for c in range(min(out.shape[0], n)):
        kc = (total_score(state, c), n_techs(state, c), n_patents(state, c))
        r = 1
        for q in range(n):
            kq = (total_score(state, q), n_techs(state, q), n_patents(state, q))
            if kq > kc:
                r += 1
        out[c] = r


# ============================================================================= observation
G_ROUND = 0
G_PHASE = G_ROUND + ROUNDS
G_PEND = G_PHASE + 8
G_REV = G_PEND + 13
G_TSIDE = G_REV + 1
G_TCOST = G_TSIDE + NTECH
G_PAT = G_TCOST + NTECH
G_DISP = G_PAT + NTECH * (MAX_CO + 1)
G_TOK = G_DISP + DISPLAY_SIZE * (NTT + 1)
G_STACK = G_TOK + 1
G_BKIND = G_STACK + 1                  # retailer bonus in progress (one-hot BONUS_KINDS, 0 = none)
G_BLEFT = G_BKIND + len(BONUS_KINDS)   # retailer technology markers still to place / 3
G_OTK = G_BLEFT + 1                    # office-target kind: Wi-Fi, Gamepad, extra, move (one-hot)
G_MSRC = G_OTK + 4                     # chosen move-office source region (one-hot)
G_SIZE = G_MSRC + NREG
R_RET = 0
R_BONUS = 1
R_OFFS = R_BONUS + 6
R_ROFF = R_OFFS + MAX_SLOTS * (MAX_CO + 1)
R_MARK = R_ROFF + MAX_RSLOT * (MAX_CO + 1)
R_BUY = R_MARK + MAX_CO
R_STATIC = R_BUY + MAX_BUY * (MAX_CO + 1)
R_SIZEOH = R_STATIC + MAX_BUY * (1 + NTECH)
R_COST = R_SIZEOH + 3
R_BAMT = R_COST + 1                    # retailer bonus amount n (goods, markers) / 3
R_SZ = R_BAMT + 1
K_PRESENT, K_STEVE, K_COMMIT, K_CUR, K_VP, K_SVP, K_PRICE, K_READY, K_TOK = range(9)
K_TILES = 9
K_OWN = K_TILES + NTT
K_TM = K_OWN + NTECH
K_LOCK = K_TM + NTECH
K_RESL = K_LOCK + NTECH
K_LOGL = K_RESL + 1
K_OUSED = K_LOGL + 1
K_SOLD = K_OUSED + 1
K_OUT = K_SOLD + 1
K_COL = K_OUT + 7
K_ORD = K_COL + len(COLOURS)
K_IMPL = K_ORD + MAX_CO                # improvement picks still owed this phase / 3
K_TSEQ = K_IMPL + 1                    # owned tiles in acquisition order: MAX_TILES x NTT one-hot
# plan details (own plan at every moment, others' once revealed):
K_PSIDE = K_TSEQ + MAX_TILES * NTT     # W side one-hot (2), B side one-hot (2)
K_PARR = K_PSIDE + 4                   # arrangement: chosen, W on top, k one-hot (4), top-left row/8, col/8
K_PTILE = K_PARR + 8                   # per owned tile k (acquisition order): PT_* fields
PT_PICKED, PT_PLACED, PT_DOWN, PT_OVER, PT_UNDER, PT_ORDER, PT_AR, PT_AC, PT_BR, PT_BC, PT_ORIENT = range(11)
PT_SZ = 11
K_SZ = K_PTILE + MAX_TILES * PT_SZ
PLANE_CH = NICON + 5                   # icon one-hot, source (bottom/top/tile), tiles under/over here
OBS_GLOBAL = 0
OBS_REGIONS = G_SIZE
OBS_COMP = OBS_REGIONS + NREG * R_SZ
OBS_PLANES = OBS_COMP + MAX_CO * K_SZ
OBS_SIZE = OBS_PLANES + MAX_CO * NCELL * PLANE_CH
OBS_LOW = -1.0
OBS_HIGH = 4.0


@njit(cache=True)
def ego(state, player, c):
    """Ego slot (0 = player) of company c."""
    n = state[NCO]
    return (c - player + n) % n


@njit(cache=True)
def observe(state, player, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = state[NCO]
    rd = state[ROUND]
    out[G_ROUND + min(rd, ROUNDS) - 1] = 1.0
    out[G_PHASE + state[PHASE] - 1] = 1.0
    if state[PEND] >= 0 and state[CUR] == player:
        out[G_PEND + state[PEND]] = 1.0
    out[G_REV] = state[REVEALED]
    for t in range(NTECH):
        out[G_TSIDE + t] = state[TSIDE + t]
        out[G_TCOST + t] = (TECH_COST[t] - (PATENT_DROP if state[PATENT + t] >= 0 else 0)) / 10.0
        h = state[PATENT + t]
        out[G_PAT + t * (MAX_CO + 1) + (MAX_CO if h < 0 else ego(state, player, h))] = 1.0
    for s in range(DISPLAY_SIZE):
        t = state[DISP + s]
        out[G_DISP + s * (NTT + 1) + (NTT if t < 0 else t)] = 1.0
    out[G_TOK] = state[TOK] / 20.0
    out[G_STACK] = state[STACKN] / 22.0
    out[G_BKIND + state[BKIND]] = 1.0
    out[G_BLEFT] = state[BLEFT] / 3.0
    if state[PEND] == P_OFF and state[OTK] > 0:
        out[G_OTK + state[OTK] - 1] = 1.0
    if state[MSRC] >= 0:
        out[G_MSRC + state[MSRC]] = 1.0
    for r in range(NREG):
        o = OBS_REGIONS + r * R_SZ
        t = state[RET + r]
        if t >= 0:
            out[o + R_RET] = 1.0
            out[o + R_BONUS + RT_BONUS[t, state[RSIDE + r]]] = 1.0
            out[o + R_BAMT] = RT_N[t, state[RSIDE + r]] / 3.0
            for s in range(MAX_RSLOT):
                q = state[ROFF + r * MAX_RSLOT + s]
                out[o + R_ROFF + s * (MAX_CO + 1) + (MAX_CO if q < 0 else ego(state, player, q))] = 1.0
        for s in range(MAX_SLOTS):
            q = state[OFFS + r * MAX_SLOTS + s]
            out[o + R_OFFS + s * (MAX_CO + 1) + (MAX_CO if q < 0 else ego(state, player, q))] = 1.0
        for c in range(n):
            out[o + R_MARK + ego(state, player, c)] = state[MARK + r * MAX_CO + c] / 4.0
        for bb in range(MAX_BUY):
            q = state[BUY + r * MAX_BUY + bb]
            out[o + R_BUY + bb * (MAX_CO + 1) + (MAX_CO if q < 0 else ego(state, player, q))] = 1.0
            code = REG_BUY[r, bb]
            if code >= 100:
                out[o + R_STATIC + bb * (1 + NTECH) + 1 + code - 100] = 1.0
            elif code > 0:
                out[o + R_STATIC + bb * (1 + NTECH)] = code / 10.0
        out[o + R_SIZEOH + REG_SIZE[r]] = 1.0
        out[o + R_COST] = REG_COST[r] / 4.0
    for c in range(n):
        e = ego(state, player, c)
        o = OBS_COMP + e * K_SZ
        b = cb(c)
        out[o + K_PRESENT] = 1.0
        out[o + K_STEVE] = 1.0 if c == state[STEVE] else 0.0
        out[o + K_COMMIT] = state[b + C_COMMIT]
        out[o + K_CUR] = 1.0 if c == state[CUR] else 0.0
        out[o + K_VP] = state[b + C_VP] / 100.0
        out[o + K_SVP] = state[b + C_SVP] / 5.0
        out[o + K_PRICE] = state[b + C_PRICE] / 10.0
        out[o + K_READY] = state[b + C_READY] / 18.0
        out[o + K_TOK] = state[b + C_TOK] / 20.0
        for k in range(state[b + C_NT]):
            out[o + K_TILES + state[b + C_TILES + k]] += 1.0 / 3.0
            out[o + K_TSEQ + k * NTT + state[b + C_TILES + k]] = 1.0
        out[o + K_IMPL] = state[b + C_IMPL] / 3.0
        for t in range(NTECH):
            out[o + K_OWN + t] = state[b + C_OWN + t]
            out[o + K_TM + t] = state[b + C_TM + t] / 6.0
            out[o + K_LOCK + t] = state[b + C_LOCK + t]
        out[o + K_RESL] = state[b + C_RESL] / 6.0
        out[o + K_LOGL] = state[b + C_LOGL] / 8.0
        out[o + K_OUSED] = state[b + C_OUSED] / 18.0
        out[o + K_SOLD] = state[b + C_SOLD] / 18.0
        if state[REVEALED] != 0:
            for k in range(7):
                out[o + K_OUT + k] = state[b + C_OUT + k] / 10.0
        out[o + K_COL + state[b + C_COL]] = 1.0
        if state[PHASE] >= 4 and state[PHASE] <= 7:
            for i in range(n):
                if state[ORDER + i] == c:
                    out[o + K_ORD + i] = 1.0
        # plan planes: own plan always, others only once revealed
        if c == player or state[REVEALED] != 0:
            po = OBS_PLANES + e * NCELL * PLANE_CH
            write_planes(state, c, out, po)
            if c != state[STEVE]:
                write_plan_details(state, c, out, o)
    for i in range(OBS_SIZE):
        if out[i] > OBS_HIGH:
            out[i] = OBS_HIGH


@njit(cache=True)
def write_planes(state, c, out, po):
    icon = np.empty(NCELL, dtype=np.int64)
    src = np.empty(NCELL, dtype=np.int64)
    if c == state[STEVE]:
        if state[REVEALED] == 0:
            return
        cov = STEVE_CYCLE[(state[ROUND] - 1) % STEVE_CYCLE.shape[0]]
        for v in range(6):
            cell = BOTTOM_CELLS[v]
            if v == cov:
                out[po + cell * PLANE_CH + NICON + 1] = 1.0
            else:
                out[po + cell * PLANE_CH + STEVE_PAD[v]] = 1.0
                out[po + cell * PLANE_CH + NICON] = 1.0
        return
    p = pb(c)
    paint(state, c, icon, src, state[p + PL_N])
    for i in range(NCELL):
        if icon[i] >= 0:
            out[po + i * PLANE_CH + icon[i]] = 1.0
            s = src[i]
            out[po + i * PLANE_CH + NICON + (s if s < 3 else 3) - 1] = 1.0
    # every face-up tile's cells, visible or not: under-tiles, over-tiles (counts)
    for k in range(state[p + PL_N]):
        code = state[p + PL_ORDC + k]
        if code == FACE_DOWN:
            continue
        ch = NICON + 4 if (code & 1) == 0 else NICON + 3
        d = code >> 2
        out[po + DOM_A[d] * PLANE_CH + ch] += 1.0
        out[po + DOM_B[d] * PLANE_CH + ch] += 1.0


@njit(cache=True)
def write_plan_details(state, c, out, o):
    """Company block fields K_PSIDE.. of c's plan (a company's own plan, or any revealed one)."""
    p = pb(c)
    if state[p + PL_SW] < 0:
        return
    out[o + K_PSIDE + state[p + PL_SW]] = 1.0
    out[o + K_PSIDE + 2 + state[p + PL_SB]] = 1.0
    a = state[p + PL_ARR]
    if a >= 0:
        i = a % 60
        out[o + K_PARR] = 1.0
        out[o + K_PARR + 1] = 1.0 if a < 60 else 0.0
        out[o + K_PARR + 2 + ARR_K[i]] = 1.0
        out[o + K_PARR + 6] = ARR_RC[i, 0] / 8.0
        out[o + K_PARR + 7] = ARR_RC[i, 1] / 8.0
    for k in range(state[p + PL_N]):
        u = state[p + PL_ORDT + k]
        code = state[p + PL_ORDC + k]
        t = o + K_PTILE + u * PT_SZ
        out[t + PT_PLACED] = 1.0
        out[t + PT_ORDER] = (k + 1) / MAX_TILES
        if code == FACE_DOWN:
            out[t + PT_DOWN] = 1.0
        else:
            d = code >> 2
            out[t + (PT_UNDER if (code & 1) != 0 else PT_OVER)] = 1.0
            out[t + PT_AR] = (DOM_A[d] // CANVAS_C) / 8.0
            out[t + PT_AC] = (DOM_A[d] % CANVAS_C) / 8.0
            out[t + PT_BR] = (DOM_B[d] // CANVAS_C) / 8.0
            out[t + PT_BC] = (DOM_B[d] % CANVAS_C) / 8.0
            out[t + PT_ORIENT] = (code >> 1) & 1
    if (state[PHASE] == 1 and state[OVER] == 0 and state[PEND] == P_PLACE and state[CUR] == c
            and state[PSTAGE] == 3):
        out[o + K_PTILE + state[PTILE] * PT_SZ + PT_PICKED] = 1.0


# ============================================================================= hidden information
@njit(cache=True)
def random_plan(state, c, gen):
    """Replace c's plan by a uniformly-stepped random legal committed plan (``gen``: 2-slot rng)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    save_seat = state[PSEAT]
    save_stage = state[PSTAGE]
    save_tile = state[PTILE]
    reset_plan(state, c)
    state[PSTAGE] = 0
    while True:
        for i in range(NUM_ACTIONS):
            mask[i] = 0
        plan_mask(state, c, mask)
        cnt = np.int64(0)
        for i in range(NUM_ACTIONS):
            cnt += mask[i]
        k = rng.randint(gen, 0, cnt)
        a = -1
        for i in range(NUM_ACTIONS):
            if mask[i] != 0:
                if k == 0:
                    a = i
                    break
                k -= 1
        done = state[PSTAGE] == 2 and a == A_PICK + MAX_TILES
        plan_apply(state, c, a)
        if done:
            break
    state[PSEAT] = save_seat
    state[PSTAGE] = save_stage
    state[PTILE] = save_tile


@njit(cache=True)
def reseed(state, seed):
    rng.seed_rng(state, RNG, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    """Re-draw what ``observer`` cannot see: others' unrevealed plans and future chance."""
    gen = np.zeros(2, dtype=np.int64)
    rng.seed_rng(gen, 0, seed + 7919)
    if state[OVER] == 0 and state[PHASE] == 1:
        s = state[PSEAT]
        for c in range(state[NPL]):
            if c == observer:
                continue
            if c < s:
                random_plan(state, c, gen)
            elif c == s:
                reset_plan(state, c)
                state[PSTAGE] = 0
                state[PTILE] = 0    # the picked tile of a secret plan
    reseed(state, seed)


# ============================================================================= pad outcome table
@njit(cache=True)
def pad_plan_outcomes(out):
    """All 480 tile-less pad plans: out[i] = (sides, arrange, 7 outcome entries); i = 120*sides + arr."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    o = np.zeros(7, dtype=np.int64)
    for sides in range(4):
        for a in range(NARR):
            reset_plan(st, 0)
            st[pb(0) + PL_SW] = sides // 2
            st[pb(0) + PL_SB] = sides % 2
            st[pb(0) + PL_ARR] = a
            eval_plan(st, 0, o)
            i = sides * NARR + a
            out[i, 0] = sides
            out[i, 1] = a
            for k in range(7):
                out[i, 2 + k] = o[k]


# ============================================================================= greedy heuristic
def _pad_rows():
    """Outcome vector of every tile-less pad plan, row 120*sides + arrangement (same
    numbers as :func:`pad_plan_outcomes`, built in Python so importing compiles nothing)."""
    rows = np.zeros((4 * NARR, 7), dtype=np.int64)
    bottom = set(int(x) for x in BOTTOM_CELLS)
    for sides in range(4):
        sd = (sides // 2, sides % 2)
        for a in range(NARR):
            top = 0 if a // 60 == 0 else 1
            bot = 1 - top
            vis = {int(BOTTOM_CELLS[v]): int(PAD_ICONS[bot, sd[bot], v]) for v in range(6)}
            cov = 0
            for v in range(6):
                cell = int(ARR_CELLS[a % 60, v])
                cov += cell in bottom
                vis[cell] = int(PAD_ICONS[top, sd[top], v])
            cnt = [0] * NICON
            for i in vis.values():
                cnt[i] += 1
            imps = int((PAD_ICONS[0, sd[0]] == IMP).sum() + (PAD_ICONS[1, sd[1]] == IMP).sum())
            rows[sides * NARR + a] = (cov, cnt[CHEAP], cnt[IMP], imps - cnt[IMP], cnt[PUP] - cnt[CHEAP],
                                      cnt[RES], cnt[LOG])
    return rows


PAD_ROWS = _pad_rows()
PAD_UNIQ = np.unique(PAD_ROWS, axis=0)    # the distinct pad outcomes (80 with the data pads)

# Weights of the greedy potential, in VP.  "Rounds left" counts the current round as half
# when what is valued only starts paying part-way through it.
H_LOG = 1.5      # a logistics marker, per round left (an office sells every later round)
H_RES = 0.5      # a research marker, per round left ...
H_RES_PAT = 1.0  # ... plus its share of a patent
H_TILE = 2.5     # an improvement tile, per later round (at least one good face down)
H_TOKEN = 2.5    # a goods token, per later round
H_TECH = 2.0     # an owned technology's effects beyond price, goods and buyers, per round left
H_OFFICE = 1.0   # an office's reach and leadership chances, per round left
H_SHARED = 0.6   # share of a region's buyers counted for later rounds when rivals have an office there
H_USE = 0.5      # share of a region's buyers a not-yet-built office is expected to fill


@njit(cache=True)
def h_vlog(r):
    return H_LOG * (ROUNDS - r + 0.5)


@njit(cache=True)
def h_vres(r):
    return H_RES_PAT + H_RES * (ROUNDS - r + 0.5)


@njit(cache=True)
def h_vtile(r):
    return H_TILE * (ROUNDS - r) if IMP_ROUND[r] != 0 else 0.0


@njit(cache=True)
def h_vtok(r):
    return H_TOKEN * (ROUNDS - r) if IMP_ROUND[r] != 0 else 0.0


@njit(cache=True)
def static_buyers(state, c, r, price):
    """Buyers of region r that would buy from c at ``price`` in an empty round."""
    n = 0
    for b in range(REG_NBUY[r]):
        n += eligible_at(state, c, REG_BUY[r, b], price)
    return n


@njit(cache=True)
def future_caps(state, c, capf):
    """capf[P]: goods c could sell in a later round at price P with its current offices
    and technologies (rivals' offices in a region discount its buyers by H_SHARED)."""
    for pr in range(PRICE_MAX + 1):
        capf[pr] = 0.0
    no_office = eff_amount(state, c, E_SELL_NO_OFFICE) > 0
    for r in range(NREG):
        if state[RET + r] >= 0:
            continue
        mine = region_office_in(state, c, r)
        if not mine and not no_office:
            continue
        w = 1.0
        for s in range(REG_NSLOT[r]):
            q = state[OFFS + r * MAX_SLOTS + s]
            if q >= 0 and q != c:
                w = H_SHARED
        for pr in range(1, PRICE_MAX + 1):
            k = static_buyers(state, c, r, pr)
            if not mine:
                k = min(1, k)
            capf[pr] += w * k
    direct = min(3, eff_amount(state, c, E_DIRECT_SALE))   # NFC front sells without buyers
    for pr in range(PRICE_MAX + 1):
        capf[pr] += direct


@njit(cache=True)
def extra_goods(state, c):
    """Goods c produces every round besides its pads: tiles face down, tokens, Li-ion back."""
    g = state[cb(c) + C_NT] * FACE_DOWN_GOODS + state[cb(c) + C_TOK]
    if eff_amount(state, c, E_PER_TWO) > 0:
        g += n_techs(state, c) // 2
    return g


@njit(cache=True)
def outcome_value(state, c, o, capf, extra, r):
    """Value of one round of c played with outcome vector o (the Python table's layout),
    selling into capf with no rival: sales plus markers, tiles and tokens it brings."""
    pr = clampp(START_PRICE + o[O_SHIFT] + eff_amount(state, c, E_PRICE_PLUS))
    mult = 2 if eff_amount(state, c, E_PROD_DOUBLE) > 0 else 1
    g = min(GOODS_CAP, o[O_CD] + o[O_PROD] * mult + extra)
    log = o[O_LOG]
    if eff_amount(state, c, E_RES_AS_LOG) > 0:
        log += o[O_RES]
    return (pr * min(float(g), capf[pr]) + h_vres(r) * o[O_RES] + h_vlog(r) * log
            + h_vtile(r) * o[O_IMP] + h_vtok(r) * o[O_IMPCOV])


@njit(cache=True)
def best_outcome(state, c, rows, lo, hi, capf, extra, r, o):
    """Copy into o the best of rows[lo:hi] by :func:`outcome_value`; returns its value."""
    best = -1.0e18
    for i in range(lo, hi):
        v = outcome_value(state, c, rows[i], capf, extra, r)
        if v > best:
            best = v
            for k in range(7):
                o[k] = rows[i, k]
    return best


@njit(cache=True)
def plan_outlook(state, c, o, capf):
    """Outcome vector c's plan will have this round (planning phase): the plan so far with
    unplaced tiles face down; the best arrangement of the chosen sides; or, with no plan
    yet (a rival still to plan), the best pad outcome."""
    p = pb(c)
    rd = state[ROUND]
    if c == state[STEVE]:
        steve_plan(state, c, o)
        return
    extra = state[cb(c) + C_NT] * FACE_DOWN_GOODS
    if state[p + PL_ARR] >= 0:
        eval_plan(state, c, o)
        o[O_CD] += (state[cb(c) + C_NT] - state[p + PL_N]) * FACE_DOWN_GOODS
        return
    base = extra_goods(state, c) + state[cb(c) + C_READY]
    if state[p + PL_SW] >= 0:
        lo = (2 * state[p + PL_SW] + state[p + PL_SB]) * NARR
        best_outcome(state, c, PAD_ROWS, lo, lo + NARR, capf, base, rd, o)
    else:
        best_outcome(state, c, PAD_UNIQ, 0, PAD_UNIQ.shape[0], capf, base, rd, o)
    o[O_CD] += extra


@njit(cache=True)
def sim_selling(state, goods, price, sold, gain):
    """Play the rest of this round's selling: every company still to sell places
    min(goods, capacity) goods, cheapest first, each on the region where it has the most
    room left (Steve's rule); sold[c] counts them (plus NFC-front direct sales still to
    come) and gain[c] the leadership VP the resulting buyers give."""
    n = state[NCO]
    ph = state[PHASE]
    buy = state[BUY:BUY + NREG * MAX_BUY].copy()
    order = np.zeros(MAX_CO, dtype=np.int64)
    start = 0
    if ph >= 4:
        for i in range(n):
            order[i] = state[ORDER + i]
        if ph == 7:
            start = state[OPOS]
    if ph < 7:
        for i in range(n):
            order[i] = i
        for i in range(1, n):
            j = i
            while j > 0:
                a = order[j - 1]
                q = order[j]
                ka = (price[a], state[cb(a) + C_VP], state[cb(a) + C_SVP])
                kq = (price[q], state[cb(q) + C_VP], state[cb(q) + C_SVP])
                if kq < ka:
                    order[j - 1] = q
                    order[j] = a
                    j -= 1
                else:
                    break
    room = np.zeros(NREG, dtype=np.int64)
    for i in range(start, n):
        c = order[i]
        left = goods[c]
        if eff_amount(state, c, E_DIRECT_SALE) > 0 and not done_nfc(state, c):
            k = min(3, left)
            sold[c] += k
            left -= k
        for r in range(NREG):
            room[r] = 0
            if state[RET + r] >= 0:
                continue
            e = 0
            for b in range(REG_NBUY[r]):
                e += buy[r * MAX_BUY + b] < 0 and eligible_at(state, c, REG_BUY[r, b], price[c])
            if region_office_in(state, c, r):
                room[r] = e
            elif eff_amount(state, c, E_SELL_NO_OFFICE) > 0:
                room[r] = min(1, e)
                for b in range(REG_NBUY[r]):
                    if buy[r * MAX_BUY + b] == c:
                        room[r] = 0
        while left > 0:
            best = -1
            for r in range(NREG):
                if room[r] > 0 and (best < 0 or room[r] > room[best]):
                    best = r
            if best < 0:
                break
            for b in range(REG_NBUY[best]):
                if buy[best * MAX_BUY + b] < 0 and eligible_at(state, c, REG_BUY[best, b], price[c]):
                    buy[best * MAX_BUY + b] = c
                    break
            room[best] -= 1
            sold[c] += 1
            left -= 1
    leadership(state, buy, gain)


@njit(cache=True)
def order_pos(state, c):
    for i in range(state[NCO]):
        if state[ORDER + i] == c:
            return i
    return -1


@njit(cache=True)
def done_nfc(state, c):
    """Whether c's NFC-front step of this round's logistics phase is behind it."""
    ph = state[PHASE]
    if ph != 6:
        return ph > 6
    k = order_pos(state, c)
    return k < state[OPOS] or (k == state[OPOS] and state[STAGE] >= 3)


@njit(cache=True)
def potential(state, p):
    """VP company p's position promises beyond its live score (greedy baseline).

    * This round's sales: every company's goods and price (in planning, from its plan
      as laid so far: see :func:`plan_outlook`) are sold by :func:`sim_selling` against
      the buyers its offices reach, cheapest first; p gets goods sold x price (goods sold
      earlier this round included) plus the leadership VP of the simulated buyers.
    * This round's icons not yet used: each research marker h_vres, logistics marker
      h_vlog, active IMP h_vtile (a tile), covered IMP h_vtok (a token).
    * Progress: markers on a technology, share (markers / cost) of its free patent VP plus
      H_TECH per round left; markers on a region, share (markers / office cost) of the
      office's worth (H_USE of its buyers at price 5 per later round, or a retailer's VP).
    * Later rounds: each is worth the best pad outcome (:func:`outcome_value`) given the
      offices, technologies, tiles and tokens p holds now (selling capacity from
      :func:`future_caps`, so an office or a technology pays through the buyers it adds).
    * H_OFFICE per office and H_TECH per technology per round left: reach, leadership and
      effects the capacity term does not see, so completing never looks worse than waiting.
    """
    n = state[NCO]
    if state[OVER] != 0 or p >= n:
        return 0.0
    rd = state[ROUND]
    ph = state[PHASE]
    capf = np.zeros(PRICE_MAX + 1)
    goods = np.zeros(MAX_CO, dtype=np.int64)
    price = np.zeros(MAX_CO, dtype=np.int64)
    o = np.zeros(7, dtype=np.int64)
    op = np.zeros(7, dtype=np.int64)
    for c in range(n):
        b = cb(c)
        if ph == 1:
            future_caps(state, c, capf)
            plan_outlook(state, c, o, capf)
            price[c] = clampp(START_PRICE + o[O_SHIFT] + eff_amount(state, c, E_PRICE_PLUS))
            mult = 2 if eff_amount(state, c, E_PROD_DOUBLE) > 0 else 1
            g = o[O_CD] + o[O_PROD] * mult + state[b + C_TOK]
            if eff_amount(state, c, E_PER_TWO) > 0:
                g += n_techs(state, c) // 2
            goods[c] = min(GOODS_CAP, state[b + C_READY] + g)
        else:
            price[c] = state[b + C_PRICE]
            goods[c] = state[b + C_READY]
            for k in range(7):
                o[k] = state[b + C_OUT + k]
        if c == p:
            for k in range(7):
                op[k] = o[k]
    sold = np.zeros(MAX_CO, dtype=np.int64)
    gain = np.zeros(MAX_CO, dtype=np.int64)
    if ph <= 7:
        sim_selling(state, goods, price, sold, gain)
    b = cb(p)
    v = float((state[b + C_SOLD] + sold[p]) * price[p] + gain[p])
    # icons of this round not used yet
    pos = order_pos(state, p)
    if ph < 4 or (ph == 4 and pos > state[OPOS]):
        v += h_vtile(rd) * op[O_IMP] + h_vtok(rd) * op[O_IMPCOV]
    elif ph == 4 and pos == state[OPOS]:
        v += h_vtile(rd) * (state[b + C_IMPL] if state[STAGE] == 1 else op[O_IMP]) + h_vtok(rd) * op[O_IMPCOV]
    if ph < 5:
        v += h_vres(rd) * op[O_RES]
    elif ph == 5:
        v += h_vres(rd) * state[b + C_RESL]
    if ph < 6:
        v += h_vlog(rd) * (op[O_LOG] + (op[O_RES] if eff_amount(state, p, E_RES_AS_LOG) > 0 else 0))
    elif ph == 6:
        v += h_vlog(rd) * state[b + C_LOGL]
    # progress, assets
    left = ROUNDS - rd + 0.5
    for t in range(NTECH):
        if state[b + C_OWN + t] != 0:
            v += H_TECH * left
        elif state[b + C_TM + t] > 0:
            worth = H_TECH * left + (TECH_PVP[t] if state[PATENT + t] < 0 else 0)
            v += worth * min(1.0, state[b + C_TM + t] / tech_cost(state, t, p))
    for r in range(NREG):
        if region_office_in(state, p, r):
            v += H_OFFICE * left
        m = state[MARK + r * MAX_CO + p]
        if m > 0:
            t = state[RET + r]
            if t >= 0:
                s = free_slot(state, r)
                worth = RT_SLOTVP[RT_SIZE[t], s] if s >= 0 else 0.0
            else:
                worth = (ROUNDS - rd) * (H_OFFICE + H_USE * START_PRICE * static_buyers(state, p, r, START_PRICE))
            v += worth * m / REG_COST[r]
    # later rounds
    future_caps(state, p, capf)
    extra = extra_goods(state, p)
    for r in range(rd + 1, ROUNDS + 1):
        v += best_outcome(state, p, PAD_UNIQ, 0, PAD_UNIQ.shape[0], capf, extra, r, o)
    return v
