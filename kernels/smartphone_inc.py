"""Smartphone Inc. rules kernel.

The whole game lives in one flat ``int64`` state array declared field by field in
``STATE`` (a :class:`kernels.layout.Layout`; each company's record is the ``COMPANY``
layout, its plan of the round the ``PLAN`` layout, its plan outcome the ``OUTCOME``
layout), whose offsets are the module constants the jitted code uses.  Every table
(pads, geometry, map, buyers, technologies, tiles, retailers, Steve) comes from
``kernels/data/smartphone_inc.yaml``, validated at import by :func:`check_data`.

Companies are numbered 0..N-1: the agents' seats first (company == seat), then Steve
(company ``num_players``) when he plays.  Steve's decisions are taken inline by
:func:`_steve_action` through the same apply functions the agents use.

Decisions (flat action ids, declared in ``ACTIONS``, blocks of ``docs/rules/smartphone_inc.md``
section 11.3): sides 0(4), arrange 4(120), tile_pick 124(10), tile_place 134(509),
improve_pick 643(5), research 648(7), logistics 655(13), office_target 668(12),
move_source 680(12), nfc_sell 692(3), sell 695(12), bonus_tech 707(6), bonus_price 713(2).
The state's ``PENDING`` holds the block number (``P_*``) of the decision owed; a round
runs through the phases ``PH_PLANNING`` .. ``PH_SELLING``.

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

Observation (``observe``; declared in ``OBS``, sizes from the data)
--------------------------------------------------------------------
Every piece is declared by name, shape and bounds; the adapter's ``observation_layout``
and ``observation_bounds`` are ``OBS.parts()`` and ``OBS.bounds()``.

* global pieces ``OBS_*``: round, phase, own pending block, reveal flag, technology
  sides, costs and patent holders, display, token supply, stack size; retailer bonus in
  progress (kind one-hot, technology markers still to place), office-target kind
  (Wi-Fi, Gamepad, extra, move) while one is pending, chosen move-office source.
* ``regions``: per region a ``REGION_OBS`` record (``RO_*``): retailer and bonus kind,
  bonus amount, office slots, retailer slots, progress markers, buyers filled this
  round, printed buyers, size, cost.
* ``companies``: per company, ego-centric (self first), a ``COMPANY_OBS`` record
  (``CO_*``): presence, Steve flag, committed, to move, VP, start VP, price, ready goods,
  tokens, tiles by type, owned tiles in acquisition order (the TILE_PICK index),
  whether its display pick is owed now, technologies, research markers and locks, markers to
  spend, offices used, goods sold, revealed outcome vector, colour, turn-order slot; and
  the plan (one's own at every moment, every agent's once revealed): pad sides,
  arrangement (W on top, rotation, offset) and per owned tile a ``PLAN_TILE_OBS``
  record (``PT_*``): picked for placement now, placed, face down, over / under,
  placement order, its two cells, orientation.
* ``plans``: per company 8 x 9 cells x ``PLANE`` channels (``CH_*``): visible icon
  one-hot, source layer (bottom pad, top pad, tile), number of under- and over-tiles
  covering the cell.
Values lie in [-1, 4] (clipped at ``OBS_CLIP``); ``OBS_LOW``/``OBS_HIGH`` hold each
slot's declared bounds.

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
v0 ("one way to write a game"): no rule change; state, observation, option vector and
    actions declared with kernels.layout (same slots and values), named phases and
    stages, private helpers; observation bounds declared per piece.
v0, rules revision 2: phase 4 is one action per company (a display pick with an active IMP,
    else a token without a decision; ruling 6); Steve's pad is any grid from the data
    (STEVE_ROWS x STEVE_COLS, drawn from the bottom pad's corner), re-reconstructed as
    3 x 4 (ruling 43); the potential values phase 4 so; ``improve_left`` observed as 0/1.
"""
import numpy as np
from numba import njit

from kernels import rng
from kernels.data_files import Checker, load
from kernels.layout import ActionBlocks, Layout
from kernels.outcome import ranks_lexicographic

# Sections, in the order every kernel file keeps: data (the tables of
# kernels/data/<game>.yaml) -> layouts (actions, state, config) -> helpers -> rules (the
# game's own parts) -> contract (init, current_player, legal_mask, step, advance, scores,
# ranks) -> observation (its layout, observe) -> hidden information (reseed, determinize)
# -> greedy heuristic (potential).

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
    # Steve's one pad: a grid of icon cells drawn on the canvas from the bottom pad's corner
    srows = ck.sequence("steve.pad", min_len=1, max_len=8 - br)
    width = len(ck.sequence("steve.pad[0]", min_len=1, max_len=9 - bc))
    for i in range(len(srows)):
        ck.sequence(f"steve.pad[{i}]", length=width)
        for j in range(width):
            ck.string(f"steve.pad[{i}][{j}]", _ICON_SET)
    cyc = ck.sequence("steve.marker_cycle", min_len=1)
    for i in range(len(cyc)):
        ck.sequence(f"steve.marker_cycle[{i}]", length=2)
        ck.integer(f"steve.marker_cycle[{i}][0]", 0, len(srows) - 1)
        ck.integer(f"steve.marker_cycle[{i}][1]", 0, width - 1)
    v = ck.integer("steve.policy.retailer_price_shift", -1, 1)
    ck.require(v != 0, "steve.policy.retailer_price_shift", "must be -1 or +1")
    return data


DATA = check_data(load("smartphone_inc", __file__))

# ----------------------------------------------------------------------------- icons
ICON_NAMES = _ICON_SET
BLANK, IMP, CHEAP, PRICE_UP, RES, LOG, PROD, PRICE_DOWN = range(8)
NUM_ICONS = 8
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
IMP_ROUND = np.zeros(ROUNDS + 2, dtype=np.int64)
for _r in _C["improvement_phase_rounds"]["value"]:
    IMP_ROUND[int(_r)] = 1
REFILL_ROUND = np.zeros(ROUNDS + 2, dtype=np.int64)
for _r in _C["display_refill_after_rounds"]["value"]:
    REFILL_ROUND[int(_r)] = 1
MAX_SEATS = 5                      # companies: the seats, and Steve in a solo game
MAX_TILES = 1 + 2 * int(IMP_ROUND.sum())

# ----------------------------------------------------------------------------- pads & geometry
CANVAS_R = int(DATA["geometry"]["canvas"]["rows"])
CANVAS_C = int(DATA["geometry"]["canvas"]["cols"])
NUM_CELLS = CANVAS_R * CANVAS_C
_BOTTOM_PAD_TOP_LEFT = DATA["geometry"]["bottom_pad_top_left"]["value"]
PAD_ICONS = np.zeros((2, 2, 6), dtype=np.int64)          # [W/B][side][cell i*3+j]
for _pi, _pn in enumerate(("W", "B")):
    for _s in range(2):
        _arr = DATA["pads"][_pn][f"side{_s}"]
        for _i in range(2):
            for _j in range(3):
                PAD_ICONS[_pi, _s, _i * 3 + _j] = _ICON[_arr[_i][_j]]
BOTTOM_CELLS = np.array([(_BOTTOM_PAD_TOP_LEFT[0] + v // 3) * CANVAS_C + _BOTTOM_PAD_TOP_LEFT[1] + v % 3 for v in range(6)], dtype=np.int64)


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
NUM_ARRANGEMENTS = 120

# dominoes: horizontal 8r+c (r 0-7, c 0-7), vertical 64+9r+c (r 0-6, c 0-8)
NUM_DOMINO_SPOTS = CANVAS_R * (CANVAS_C - 1) + (CANVAS_R - 1) * CANVAS_C
DOM_A = np.zeros(NUM_DOMINO_SPOTS, dtype=np.int64)
DOM_B = np.zeros(NUM_DOMINO_SPOTS, dtype=np.int64)
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
FACE_DOWN = 4 * NUM_DOMINO_SPOTS   # TILE_PLACE code of a face-down tile

# ----------------------------------------------------------------------------- technologies
EFFECTS = _EFFECT_SET
# Constants passed as arguments to jitted functions are numpy scalars: numba compiles a
# separate specialisation for every plain-int literal argument (cold start, issue 15).
(E_NONE, E_PROD_DOUBLE, E_PRODUCE_NOW, E_SECOND_OFFICE, E_KEEP_UNSOLD, E_RES_DISCOUNT, E_FREE_SMALL,
 E_RES_AS_LOG, E_PER_TWO, E_DIRECT_SALE, E_PRICE_PLUS, E_OVERHANG, E_SELL_NO_OFFICE) = (np.int64(i) for i in range(13))
_TECHS = sorted(DATA["technologies"], key=lambda t: t["board_index"])
NUM_TECHS = len(_TECHS)
TECH_IDS = tuple(str(t["id"]) for t in _TECHS)
TECH_NAMES = tuple(t["name"] for t in _TECHS)
TECH_COST = np.array([t["cost"]["value"] for t in _TECHS], dtype=np.int64)
TECH_PVP = np.array([t["patent_vp"]["value"] for t in _TECHS], dtype=np.int64)
TECH_EFF = np.zeros((NUM_TECHS, 2), dtype=np.int64)
TECH_AMT = np.zeros((NUM_TECHS, 2), dtype=np.int64)
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
NUM_REGIONS = len(_REG)
REGION_IDS = tuple(r["id"] for r in _REG)
REGION_NAMES = tuple(r["name"] for r in _REG)
_RIDX = {rid: i for i, rid in enumerate(REGION_IDS)}
MAX_SLOTS = max(int(v["office_slots"]) for v in _RT.values())
MAX_BUY = max(len(r["buyers"]) for r in _REG)
REG_SIZE = np.array([SIZES.index(r["size"]) for r in _REG], dtype=np.int64)
REG_COST = np.array([_RT[r["size"]]["office_cost"] for r in _REG], dtype=np.int64)
REG_NSLOT = np.array([_RT[r["size"]]["office_slots"] for r in _REG], dtype=np.int64)
REG_SLOTVP = np.full((NUM_REGIONS, MAX_SLOTS, 2), -1, dtype=np.int64)
REG_BUY = np.zeros((NUM_REGIONS, MAX_BUY), dtype=np.int64)   # 0 none, 1..99 red cap, 100+t purple
REG_NBUY = np.zeros(NUM_REGIONS, dtype=np.int64)
LINK = np.zeros((NUM_REGIONS, NUM_REGIONS), dtype=np.int64)
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
NUM_TILE_TYPES = len(TILE_TYPES)
TT_ICONS = np.array([[_ICON[a], _ICON[b]] for a, b in TILE_TYPES], dtype=np.int64)
MARKET_CNT = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
for _t in _MK:
    MARKET_CNT[TILE_TYPES.index(tuple(_t["icons"]))] += int(_t["count"])
FACE_DOWN_GOODS = int(DATA["improvement_tiles"]["face_down_goods"]["value"])

# ----------------------------------------------------------------------------- companies
COLOURS = tuple(DATA["colours"]["value"])
NUM_COLOURS = len(COLOURS)
_COMP = {c["colour"]: c for c in DATA["companies"]}
COL_SVP = np.array([_COMP[c]["start_vp"] for c in COLOURS], dtype=np.int64)
COL_HOME = np.array([_RIDX[_COMP[c]["home"]] for c in COLOURS], dtype=np.int64)
COL_TILE = np.array([TILE_TYPES.index(tuple(_COMP[c]["start_tile"])) for c in COLOURS], dtype=np.int64)

# ----------------------------------------------------------------------------- retailers
BONUS_KINDS = _BONUS_SET
B_NONE, B_PRODUCE, B_TECH, B_PRICE, B_EXTRA, B_MOVE = range(6)
_RTL = DATA["retailers"]
NUM_RETAILER_TILES = len(_RTL["tiles"])
RETAILER_IDS = tuple(t["id"] for t in _RTL["tiles"])
RT_SIZE = np.array([SIZES.index(t["size"]) for t in _RTL["tiles"]], dtype=np.int64)
RT_BONUS = np.zeros((NUM_RETAILER_TILES, 2), dtype=np.int64)
RT_N = np.zeros((NUM_RETAILER_TILES, 2), dtype=np.int64)
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
LAYOUT_TARGET = np.zeros((MAX_SEATS + 1, NUM_REGIONS), dtype=np.int64)   # 1 = named target region
LAYOUT_MED = np.zeros(MAX_SEATS + 1, dtype=np.int64)              # -1 = all, else count
for _n, _lay in _RTL["layout_by_companies"].items():
    if _n == "provenance":
        continue
    for _rid in _lay["named"]:
        LAYOUT_TARGET[int(_n), _RIDX[_rid]] = 1
    _m = _lay["medium_without_home"]
    LAYOUT_MED[int(_n)] = -1 if _m == "all" else int(_m)

# ----------------------------------------------------------------------------- Steve
_ST = DATA["steve"]
STEVE_ROWS, STEVE_COLS = len(_ST["pad"]), len(_ST["pad"][0])
STEVE_PAD = np.array([_ICON[x] for row in _ST["pad"] for x in row], dtype=np.int64)   # row-major
NUM_STEVE_CELLS = STEVE_PAD.shape[0]
# canvas cell of each of his pad cells: drawn from the bottom pad's top-left corner
STEVE_CELLS = np.array([(_BOTTOM_PAD_TOP_LEFT[0] + v // STEVE_COLS) * CANVAS_C + _BOTTOM_PAD_TOP_LEFT[1] + v % STEVE_COLS
                        for v in range(NUM_STEVE_CELLS)], dtype=np.int64)
STEVE_CYCLE = np.array([r * STEVE_COLS + c for r, c in _ST["marker_cycle"]], dtype=np.int64)
STEVE_PRICE_SHIFT = int(_ST["policy"]["retailer_price_shift"])

# ----------------------------------------------------------------------------- actions
# One flat action space in consecutive blocks; the pending decision (state PENDING) is the
# number of its block (P_*), its actions are A_<BLOCK> + index.
ACTIONS = ActionBlocks("smartphone_inc actions", [
    ("sides", 4),                      # 2 * W side + B side
    ("arrange", NUM_ARRANGEMENTS),                 # 60 * (B on top) + top-pad position
    ("tile_pick", MAX_TILES + 1),      # owned tile to place next; MAX_TILES = the rest face down, commit
    ("tile_place", 4 * NUM_DOMINO_SPOTS + 1),      # 4 * domino + 2 * orient + level (0 over, 1 under); FACE_DOWN
    ("improve_pick", DISPLAY_SIZE),    # display slot
    ("research", NUM_TECHS + 1),           # technology; NUM_TECHS = stop
    ("logistics", NUM_REGIONS + 1),           # region; NUM_REGIONS = stop
    ("office_target", NUM_REGIONS),           # region for a Wi-Fi / Gamepad / extra office or a move
    ("move_source", NUM_REGIONS),             # region an office moves away from
    ("nfc_sell", 3),                   # k + 1 goods sold directly
    ("sell", NUM_REGIONS),                    # region of the next good
    ("bonus_tech", NUM_TECHS),             # technology for a retailer's marker
    ("bonus_price", 2),                # price -1 / +1
])
BLOCK_NAMES = tuple(ACTIONS.names())
NUM_ACTIONS = ACTIONS.num_actions
A_SIDES = ACTIONS.offset("sides")
A_ARRANGE = ACTIONS.offset("arrange")
A_TILE_PICK = ACTIONS.offset("tile_pick")
A_TILE_PLACE = ACTIONS.offset("tile_place")
A_IMPROVE_PICK = ACTIONS.offset("improve_pick")
A_RESEARCH = ACTIONS.offset("research")
A_LOGISTICS = ACTIONS.offset("logistics")
A_OFFICE_TARGET = ACTIONS.offset("office_target")
A_MOVE_SOURCE = ACTIONS.offset("move_source")
A_NFC_SELL = ACTIONS.offset("nfc_sell")
A_SELL = ACTIONS.offset("sell")
A_BONUS_TECH = ACTIONS.offset("bonus_tech")
A_BONUS_PRICE = ACTIONS.offset("bonus_price")
# Block numbers (the values of state PENDING and PLAN_STAGE); numpy scalars: see E_NONE.
(P_SIDES, P_ARRANGE, P_TILE_PICK, P_TILE_PLACE, P_IMPROVE_PICK, P_RESEARCH, P_LOGISTICS, P_OFFICE_TARGET,
 P_MOVE_SOURCE, P_NFC_SELL, P_SELL, P_BONUS_TECH, P_BONUS_PRICE) = (
    np.int64(BLOCK_NAMES.index(b)) for b in ("sides", "arrange", "tile_pick", "tile_place", "improve_pick",
                                              "research", "logistics", "office_target", "move_source",
                                              "nfc_sell", "sell", "bonus_tech", "bonus_price"))
P_NONE = np.int64(-1)                  # no decision owed (game over)

# Kinds of office target (state OFFICE_KIND) while an OFFICE_TARGET decision is pending.
OT_NONE, OT_WIFI, OT_GAMEPAD, OT_EXTRA, OT_MOVE = (np.int64(i) for i in range(5))

# Phases of a round (state PHASE).  PH_SCORING is never entered: the round ends with selling.
PHASE_NAMES = ("", "planning", "pricing", "production", "improvement", "research", "logistics",
               "selling", "scoring")
(PH_PLANNING, PH_PRICING, PH_PRODUCTION, PH_IMPROVEMENT, PH_RESEARCH, PH_LOGISTICS, PH_SELLING,
 PH_SCORING) = (np.int64(i) for i in range(1, len(PHASE_NAMES)))

# Steps (state STAGE) of the acting company's turn within a phase.
IMPROVE_START, IMPROVE_PICKING = np.int64(0), np.int64(1)               # action not yet taken / taken or owed
LOGISTICS_MARKERS, LOGISTICS_WIFI, LOGISTICS_NFC, LOGISTICS_DONE = (np.int64(i) for i in range(4))
SELL_START, SELL_SELLING = np.int64(0), np.int64(1)                     # goods to sell not yet counted / counted

# ----------------------------------------------------------------------------- option vector
CONFIG = Layout("smartphone_inc options")
CFG_NUM_PLAYERS = CONFIG.add("num_players")
CFG_STEVE = CONFIG.add("steve")                         # 1 when Steve plays (company num_players)
CFG_TECH_SIDES = CONFIG.add("tech_sides", NUM_TECHS)        # 0 front, 1 back, 2 random
CFG_COLOURS = CONFIG.add("colours", MAX_SEATS)             # colour of each company, -1 random
CONFIG_SIZE = CONFIG.size

# ----------------------------------------------------------------------------- state layout
# Outcome vector of a plan (docs/rules section 4, phase 1); PO_*: offsets inside it.
OUTCOME = Layout("smartphone_inc plan outcome")
PO_GOODS = OUTCOME.add("goods")                # covered cells C plus face-down tiles d (x goods each)
PO_PROD = OUTCOME.add("production")            # visible PROD + CHEAP icons
PO_IMP = OUTCOME.add("imp")                    # visible IMP icons (any: a tile in phase 4, else a token)
PO_IMP_COVERED = OUTCOME.add("imp_covered")    # covered IMP icons (no effect of their own)
PO_PRICE_SHIFT = OUTCOME.add("price_shift")    # PRICE_UP - PRICE_DOWN - CHEAP
PO_RES = OUTCOME.add("research")               # visible RES icons
PO_LOG = OUTCOME.add("logistics")              # visible LOG icons
PLAN_OUTCOME_SIZE = OUTCOME.size

# One company's record (offsets inside it; company c's record starts at company_base(c)).
COMPANY = Layout("smartphone_inc company")
C_COLOUR = COMPANY.add("colour")
C_START_VP = COMPANY.add("start_vp")
C_VP = COMPANY.add("vp")                          # VP track
C_PRICE = COMPANY.add("price")
C_READY = COMPANY.add("ready_goods")
C_TOKENS = COMPANY.add("tokens")                  # goods tokens
C_NUM_TILES = COMPANY.add("num_tiles")            # improvement tiles owned
C_TILES = COMPANY.add("tiles", MAX_TILES)         # tile type of each, in acquisition order
C_OWNS = COMPANY.add("owns", NUM_TECHS)               # 1 per technology owned
C_TECH_MARKERS = COMPANY.add("tech_markers", NUM_TECHS)
C_LOCKED = COMPANY.add("tech_locked", NUM_TECHS)      # marker from a retailer this research phase
C_RESEARCH_LEFT = COMPANY.add("research_left")    # research markers still to place
C_LOGISTICS_LEFT = COMPANY.add("logistics_left")  # logistics markers still to place
C_OFFICES_USED = COMPANY.add("offices_used")      # office markers used (offices and technologies)
C_SOLD = COMPANY.add("sold")                      # goods sold this round
C_OUTCOME = COMPANY.add("outcome", PLAN_OUTCOME_SIZE)          # this round's plan outcome (OUTCOME layout)
C_IMPROVE_LEFT = COMPANY.add("improve_left")      # 1 while its display pick is owed (phase 4)
C_COMMITTED = COMPANY.add("committed")            # plan committed this round
COMPANY_SIZE = COMPANY.size

# One company's plan of the round (offsets inside it; starts at plan_base(c)).
PLAN = Layout("smartphone_inc plan")
PL_W_SIDE = PLAN.add("w_side")                    # -1 before SIDES
PL_B_SIDE = PLAN.add("b_side")
PL_ARRANGE = PLAN.add("arrange")                  # ARRANGE index, -1 before
PL_COUNT = PLAN.add("count")                      # tiles placed (face up or down) so far
PL_PLACED = PLAN.add("placed", MAX_TILES)         # per owned tile: placed already
PL_ORDER_TILE = PLAN.add("order_tile", MAX_TILES)  # k-th placement: owned tile index
PL_ORDER_CODE = PLAN.add("order_code", MAX_TILES)  # k-th placement: TILE_PLACE index (FACE_DOWN)
PLAN_SIZE = PLAN.size

STATE = Layout("smartphone_inc state")
NUM_PLAYERS = STATE.add("num_players")            # agent seats
NUM_COMPANIES = STATE.add("num_companies")        # seats + Steve
STEVE = STATE.add("steve")                        # Steve's company, -1 without him
ROUND = STATE.add("round")                        # 1..ROUNDS
PHASE = STATE.add("phase")                        # PH_*
OVER = STATE.add("over")
PENDING = STATE.add("pending")                    # block (P_*) of the decision owed, -1 at the end
CURRENT = STATE.add("current")                    # company that owes it, -1 at the end
TURN_POS = STATE.add("turn_pos")                  # position in ORDER of the company acting this phase
STAGE = STATE.add("stage")                        # step of its turn (IMPROVE_*, LOGISTICS_*, SELL_*)
OFFICE_KIND = STATE.add("office_kind")            # OT_* of the pending office target
BONUS_KIND = STATE.add("bonus_kind")              # retailer bonus in progress (B_*)
BONUS_LEFT = STATE.add("bonus_left")              # its technology markers still to place
BONUS_COMPANY = STATE.add("bonus_company")        # company resolving it
MOVE_SOURCE = STATE.add("move_source")            # region a moving office leaves, -1 not chosen
GAMEPAD_PENDING = STATE.add("gamepad_pending")    # Gamepad-back free office still to place
PLAN_SEAT = STATE.add("plan_seat")                # seat planning now
PLAN_STAGE = STATE.add("plan_stage")              # its planning decision (P_SIDES..P_TILE_PLACE)
PICKED_TILE = STATE.add("picked_tile")            # owned tile picked for placement
TOKENS_LEFT = STATE.add("tokens_left")            # goods tokens in the supply
STACK_SIZE = STATE.add("stack_size")              # tiles left in the stack
SELL_LEFT = STATE.add("sell_left")                # goods the acting company still sells
REVEALED = STATE.add("revealed")                  # plans revealed this round
ORDER = STATE.add("order", MAX_SEATS)                # turn order (companies)
TECH_SIDE = STATE.add("tech_side", NUM_TECHS)         # 0 front, 1 back
PATENT = STATE.add("patent", NUM_TECHS)               # holder, -1 none
DISPLAY = STATE.add("display", DISPLAY_SIZE)      # tile type, -1 empty
STACK = STATE.add("stack", NUM_TILE_TYPES)                   # tiles of each type in the stack
OFFICES = STATE.add("offices", (NUM_REGIONS, MAX_SLOTS))             # company or -1
RETAILER = STATE.add("retailer", NUM_REGIONS)                        # retailer tile or -1
RETAILER_SIDE = STATE.add("retailer_side", NUM_REGIONS)
RETAILER_OFFICES = STATE.add("retailer_offices", (NUM_REGIONS, MAX_RSLOT))
MARKERS = STATE.add("markers", (NUM_REGIONS, MAX_SEATS))                # logistics markers
BUYERS = STATE.add("buyers", (NUM_REGIONS, MAX_BUY))     # company whose good sits on the buyer this round, -1 free
RNG = STATE.add("rng", rng.RNG_SLOTS)
COMPANIES = STATE.add("companies", (MAX_SEATS, COMPANY_SIZE))
PLANS = STATE.add("plans", (MAX_SEATS, PLAN_SIZE))
# Scratch (working space, never part of the game): step, legal_mask and observe allocate
# nothing, and a state copy carries its own.
SCR_ICON = STATE.add("scr_icon", NUM_CELLS, scratch=True)           # paint: visible icon per cell
SCR_SOURCE = STATE.add("scr_source", NUM_CELLS, scratch=True)       # paint: what shows it
SCR_COUNTS = STATE.add("scr_counts", NUM_ICONS, scratch=True)       # a plan's icon counts
SCR_TOP = STATE.add("scr_top", NUM_CELLS, scratch=True)             # cells under the top pad
SCR_GAIN = STATE.add("scr_gain", MAX_SEATS, scratch=True)          # leadership VP per company
SCR_GEN = STATE.add("scr_gen", 2, scratch=True)                 # determinize's generator
SCR_MASK = STATE.add("scr_mask", NUM_ACTIONS, scratch=True)     # a re-drawn plan's choices
SCR_RANK_KEYS = STATE.add("scr_rank_keys", (MAX_SEATS, 3), scratch=True)   # ranks' keys per company
STATE_SIZE = STATE.size
SCRATCH_START = STATE.size - STATE.scratch_size   # the game lies before it; scratch after
# Slots whose change makes hidden choices public at once (the plan reveal): a search copy
# determinized before it may, from there, differ openly (e.g. in turn order).
REVEAL_SLOTS = (REVEALED,)


# ============================================================================= small helpers
@njit(cache=True)
def company_base(c):
    """State offset of company ``c``'s record (``C_*`` offsets inside it)."""
    return COMPANIES + c * COMPANY_SIZE


@njit(cache=True)
def plan_base(c):
    """State offset of company ``c``'s plan of the round (``PL_*`` offsets inside it)."""
    return PLANS + c * PLAN_SIZE


@njit(cache=True)
def _clamp_price(v):
    if v < PRICE_MIN:
        return PRICE_MIN
    if v > PRICE_MAX:
        return PRICE_MAX
    return v


@njit(cache=True)
def _effect_amount(state, c, e):
    """Amount of effect ``e`` that company ``c`` owns (0 if none)."""
    b = company_base(c)
    tot = 0
    for t in range(NUM_TECHS):
        if state[b + C_OWNS + t] != 0:
            s = state[TECH_SIDE + t]
            if TECH_EFF[t, s] == e:
                tot += TECH_AMT[t, s]
    return tot


@njit(cache=True)
def _num_techs(state, c):
    n = 0
    for t in range(NUM_TECHS):
        n += state[company_base(c) + C_OWNS + t] != 0
    return n


@njit(cache=True)
def _num_patents(state, c):
    n = 0
    for t in range(NUM_TECHS):
        n += state[PATENT + t] == c
    return n


@njit(cache=True)
def _tech_cost(state, t, c):
    v = TECH_COST[t]
    if state[PATENT + t] >= 0:
        v -= PATENT_DROP
    v -= _effect_amount(state, c, E_RES_DISCOUNT)
    if v < TECH_COST_MIN:
        v = TECH_COST_MIN
    return v


@njit(cache=True)
def _add_goods(state, c, n):
    b = company_base(c)
    v = state[b + C_READY] + n
    if v > GOODS_CAP:
        v = GOODS_CAP
    state[b + C_READY] = v


@njit(cache=True)
def _offices_in(state, c, r):
    """Offices of ``c`` in region ``r`` (region slots and retailer slots)."""
    n = 0
    for s in range(MAX_SLOTS):
        n += state[OFFICES + r * MAX_SLOTS + s] == c
    for s in range(MAX_RSLOT):
        n += state[RETAILER_OFFICES + r * MAX_RSLOT + s] == c
    return n


@njit(cache=True)
def _has_region_office(state, c, r):
    for s in range(MAX_SLOTS):
        if state[OFFICES + r * MAX_SLOTS + s] == c:
            return True
    return False


@njit(cache=True)
def _free_slot(state, r):
    """Leftmost free slot of region ``r`` (retailer slot if a retailer covers it), -1 if full."""
    t = state[RETAILER + r]
    if t >= 0:
        for s in range(RT_NSLOT[RT_SIZE[t]]):
            if state[RETAILER_OFFICES + r * MAX_RSLOT + s] < 0:
                return s
        return -1
    for s in range(REG_NSLOT[r]):
        if state[OFFICES + r * MAX_SLOTS + s] < 0:
            return s
    return -1


@njit(cache=True)
def _buys_at(state, c, code, price):
    """Whether buyer ``code`` would buy from ``c`` at ``price`` (ignoring whether it is free)."""
    if code <= 0:
        return False
    if code >= 100:
        return state[company_base(c) + C_OWNS + code - 100] != 0
    return code >= price


@njit(cache=True)
def _buys(state, c, code):
    return _buys_at(state, c, code, state[company_base(c) + C_PRICE])


@njit(cache=True)
def _free_buyers(state, c, r):
    if state[RETAILER + r] >= 0:
        return 0
    n = 0
    for b in range(REG_NBUY[r]):
        if state[BUYERS + r * MAX_BUY + b] < 0 and _buys(state, c, REG_BUY[r, b]):
            n += 1
    return n


@njit(cache=True)
def _sell_capacity(state, c, r):
    if state[RETAILER + r] >= 0:
        return 0
    e = _free_buyers(state, c, r)
    if _has_region_office(state, c, r):
        return e
    if _effect_amount(state, c, E_SELL_NO_OFFICE) > 0:
        for b in range(REG_NBUY[r]):
            if state[BUYERS + r * MAX_BUY + b] == c:
                return 0
        return min(1, e)
    return 0


@njit(cache=True)
def _steve_region_key(state, c, r):
    return -_free_buyers(state, c, r) * 10000 + REG_COST[r] * 100 + REG_ALPHA[r]


@njit(cache=True)
def _logistics_legal(state, c, r):
    if _offices_in(state, c, r) > 0 or _free_slot(state, r) < 0:
        return False
    for q in range(NUM_REGIONS):
        if LINK[r, q] != 0 and _offices_in(state, c, q) > 0:
            return True
    return False


@njit(cache=True)
def _office_target_legal(state, c, kind, r):
    if kind == OT_WIFI or kind == OT_EXTRA:
        return (state[company_base(c) + C_OFFICES_USED] < OFFICE_MAX and _offices_in(state, c, r) == 1
                and state[RETAILER + r] < 0 and _free_slot(state, r) >= 0)
    if kind == OT_GAMEPAD:
        return (state[company_base(c) + C_OFFICES_USED] < OFFICE_MAX and REG_SIZE[r] == 0
                and _offices_in(state, c, r) == 0
                and _free_slot(state, r) >= 0)
    # move destination
    return r != state[MOVE_SOURCE] and _offices_in(state, c, r) == 0 and _free_slot(state, r) >= 0


@njit(cache=True)
def _any_office_target(state, c, kind):
    for r in range(NUM_REGIONS):
        if _office_target_legal(state, c, kind, r):
            return True
    return False


@njit(cache=True)
def _move_source_legal(state, c, r):
    if _offices_in(state, c, r) == 0:
        return False
    if c == state[STEVE] and not _has_region_office(state, c, r):
        return False   # Steve moves only offices standing on a region (data steve.policy)
    for d in range(NUM_REGIONS):
        if d != r and _offices_in(state, c, d) == 0 and _free_slot(state, d) >= 0:
            return True
    return False


@njit(cache=True)
def _clear_markers_if_full(state, r):
    if _free_slot(state, r) < 0:
        for c in range(MAX_SEATS):
            state[MARKERS + r * MAX_SEATS + c] = 0


@njit(cache=True)
def _put_office(state, c, r):
    """Put an office of ``c`` in the leftmost free slot of ``r``; returns True on a retailer."""
    s = _free_slot(state, r)
    on_ret = state[RETAILER + r] >= 0
    if on_ret:
        state[RETAILER_OFFICES + r * MAX_RSLOT + s] = c
    else:
        state[OFFICES + r * MAX_SLOTS + s] = c
    state[MARKERS + r * MAX_SEATS + c] = 0
    _clear_markers_if_full(state, r)
    return on_ret


@njit(cache=True)
def _build_office(state, c, r):
    """A new office (uses an office marker); a retailer bonus resolves at once."""
    state[company_base(c) + C_OFFICES_USED] += 1
    if _put_office(state, c, r):
        _trigger_bonus(state, c, r)


@njit(cache=True)
def _trigger_bonus(state, c, r):
    t = state[RETAILER + r]
    s = state[RETAILER_SIDE + r]
    kind = RT_BONUS[t, s]
    n = RT_N[t, s]
    if kind == B_PRODUCE:
        _add_goods(state, c, n)
    elif kind == B_TECH:
        if _num_techs(state, c) < NUM_TECHS and n > 0:
            state[BONUS_KIND] = B_TECH
            state[BONUS_LEFT] = n
            state[BONUS_COMPANY] = c
    elif kind == B_PRICE:
        state[BONUS_KIND] = B_PRICE
        state[BONUS_COMPANY] = c
    elif kind == B_EXTRA:
        if _any_office_target(state, c, OT_EXTRA):
            state[BONUS_KIND] = B_EXTRA
            state[BONUS_COMPANY] = c
    elif kind == B_MOVE:
        for q in range(NUM_REGIONS):
            if _move_source_legal(state, c, q):
                state[BONUS_KIND] = B_MOVE
                state[BONUS_COMPANY] = c
                state[MOVE_SOURCE] = -1
                break


@njit(cache=True)
def _remove_office(state, c, r):
    """Remove ``c``'s rightmost office in ``r`` (region slots first, else retailer); close the gap."""
    base = OFFICES + r * MAX_SLOTS
    n = MAX_SLOTS
    pos = -1
    for s in range(MAX_SLOTS):
        if state[base + s] == c:
            pos = s
    if pos < 0:
        base = RETAILER_OFFICES + r * MAX_RSLOT
        n = MAX_RSLOT
        for s in range(MAX_RSLOT):
            if state[base + s] == c:
                pos = s
    for s in range(pos, n - 1):
        state[base + s] = state[base + s + 1]
    state[base + n - 1] = -1


@njit(cache=True)
def _complete_techs(state, c):
    """Completion check of section 4 phase 5.  Returns True if a Gamepad-back office is pending."""
    b = company_base(c)
    changed = True
    while changed:
        changed = False
        for t in range(NUM_TECHS):
            if state[b + C_OWNS + t] != 0 or state[b + C_LOCKED + t] != 0:
                continue
            if state[b + C_TECH_MARKERS + t] >= _tech_cost(state, t, c) and state[b + C_OFFICES_USED] < OFFICE_MAX:
                state[b + C_TECH_MARKERS + t] = 0
                state[b + C_OWNS + t] = 1
                state[b + C_OFFICES_USED] += 1
                if state[PATENT + t] < 0:
                    state[PATENT + t] = c
                s = state[TECH_SIDE + t]
                e = TECH_EFF[t, s]
                changed = True
                if e == E_PRODUCE_NOW:
                    _add_goods(state, c, TECH_AMT[t, s])
                elif e == E_PER_TWO:
                    _add_goods(state, c, _num_techs(state, c) // 2)
                elif e == E_PRICE_PLUS:
                    state[b + C_PRICE] = _clamp_price(state[b + C_PRICE] + TECH_AMT[t, s])
                elif e == E_FREE_SMALL:
                    if _any_office_target(state, c, OT_GAMEPAD):
                        state[GAMEPAD_PENDING] = 1
                        return True
    return False


@njit(cache=True)
def _compute_order(state):
    n = state[NUM_COMPANIES]
    for i in range(n):
        state[ORDER + i] = i
    for i in range(1, n):
        j = i
        while j > 0:
            a = state[ORDER + j - 1]
            bq = state[ORDER + j]
            ka = (state[company_base(a) + C_PRICE], state[company_base(a) + C_VP],
                  state[company_base(a) + C_START_VP])
            kb = (state[company_base(bq) + C_PRICE], state[company_base(bq) + C_VP],
                  state[company_base(bq) + C_START_VP])
            if kb < ka:
                state[ORDER + j - 1] = bq
                state[ORDER + j] = a
                j -= 1
            else:
                break


@njit(cache=True)
def _display_tiles(state):
    """Tiles in the display."""
    n = 0
    for s in range(DISPLAY_SIZE):
        n += state[DISPLAY + s] >= 0
    return n


@njit(cache=True)
def _draw_tile(state):
    t = rng.draw_from_counts(state, RNG, STACK, NUM_TILE_TYPES)
    if t >= 0:
        state[STACK_SIZE] -= 1
    return t


# ============================================================================= plan geometry
@njit(cache=True)
def _plan_pads(state, c):
    """(bottom pad index, bottom side, top pad index, top side, arrangement i) of c's plan."""
    p = plan_base(c)
    a = state[p + PL_ARRANGE]
    t = a // 60
    top = 0 if t == 0 else 1
    bot = 1 - top
    sides = (state[p + PL_W_SIDE], state[p + PL_B_SIDE])
    return bot, sides[bot], top, sides[top], a % 60


@njit(cache=True)
def paint(state, c, icon, src, upto):
    """Visible icon / source of every canvas cell for c's plan (first ``upto`` placements).

    src: 0 empty, 1 bottom pad, 2 top pad, 3+k placement k.  Returns the overlap count C.
    """
    for i in range(NUM_CELLS):
        icon[i] = -1
        src[i] = 0
    p = plan_base(c)
    if state[p + PL_W_SIDE] < 0:
        return 0
    if state[p + PL_ARRANGE] < 0:
        for v in range(6):
            icon[BOTTOM_CELLS[v]] = PAD_ICONS[1, state[p + PL_B_SIDE], v]   # preview: W over B undecided
            src[BOTTOM_CELLS[v]] = 1
        return 0
    bot, bs, top, ts, ai = _plan_pads(state, c)
    for v in range(6):
        icon[BOTTOM_CELLS[v]] = PAD_ICONS[bot, bs, v]
        src[BOTTOM_CELLS[v]] = 1
    for lvpass in range(2):
        if lvpass == 1:
            for v in range(6):
                icon[ARR_CELLS[ai, v]] = PAD_ICONS[top, ts, v]
                src[ARR_CELLS[ai, v]] = 2
        for k in range(upto):
            code = state[p + PL_ORDER_CODE + k]
            if code == FACE_DOWN:
                continue
            lv = code & 1
            if (lvpass == 0 and lv == 1) or (lvpass == 1 and lv == 0):
                d = code >> 2
                o = (code >> 1) & 1
                tt = state[company_base(c) + C_TILES + state[p + PL_ORDER_TILE + k]]
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
def _eval_plan(state, c, out):
    """Outcome vector (C+d, PROD+CHEAP, IMP active, IMP covered, price shift, RES, LOG)."""
    icon = state[SCR_ICON:SCR_ICON + NUM_CELLS]
    src = state[SCR_SOURCE:SCR_SOURCE + NUM_CELLS]
    p = plan_base(c)
    n = state[p + PL_COUNT]
    cov = paint(state, c, icon, src, n)
    cnt = state[SCR_COUNTS:SCR_COUNTS + NUM_ICONS]
    for i in range(NUM_ICONS):
        cnt[i] = 0
    for i in range(NUM_CELLS):
        if icon[i] >= 0:
            cnt[icon[i]] += 1
    d = 0
    for k in range(n):
        if state[p + PL_ORDER_CODE + k] == FACE_DOWN:
            d += 1
    imp_total = np.int64(0)
    for v in range(6):
        imp_total += PAD_ICONS[0, state[p + PL_W_SIDE], v] == IMP
        imp_total += PAD_ICONS[1, state[p + PL_B_SIDE], v] == IMP
    _write_outcome(out, cov + d * FACE_DOWN_GOODS, cnt, imp_total)


@njit(cache=True)
def _write_outcome(out, goods, cnt, imp_total):
    """Fill the outcome vector (``O_*`` slots) of a plan from its ``goods`` (covered cells
    plus face-down tiles), the counts ``cnt`` of its visible icons and its IMP icons in
    all (``imp_total``, covered ones included)."""
    out[PO_GOODS] = goods
    out[PO_PROD] = cnt[PROD] + cnt[CHEAP]
    out[PO_IMP] = cnt[IMP]
    out[PO_IMP_COVERED] = imp_total - cnt[IMP]
    out[PO_PRICE_SHIFT] = cnt[PRICE_UP] - cnt[PRICE_DOWN] - cnt[CHEAP]
    out[PO_RES] = cnt[RES]
    out[PO_LOG] = cnt[LOG]


@njit(cache=True)
def _steve_outcome(state, c):
    _steve_plan(state, c, state[company_base(c) + C_OUTCOME:])


@njit(cache=True)
def _steve_plan(state, c, out):
    """Write the outcome of Steve's fixed plan for this round into ``out`` (O_* slots)."""
    cnt = state[SCR_COUNTS:SCR_COUNTS + NUM_ICONS]
    for i in range(NUM_ICONS):
        cnt[i] = 0
    cov = STEVE_CYCLE[(state[ROUND] - 1) % STEVE_CYCLE.shape[0]]
    imp_total = np.int64(0)
    for v in range(NUM_STEVE_CELLS):
        imp_total += STEVE_PAD[v] == IMP
        if v != cov:
            cnt[STEVE_PAD[v]] += 1
    _write_outcome(out, 1 + state[company_base(c) + C_NUM_TILES] * FACE_DOWN_GOODS, cnt, imp_total)


@njit(cache=True)
def _in_bottom_pad(cell):
    r = cell // CANVAS_C
    col = cell % CANVAS_C
    return r >= 3 and r <= 4 and col >= 3 and col <= 5


@njit(cache=True, inline="always")   # inlined: asked for 254 candidates per mask
def _pads_allow(d, lv, tmask, max_off):
    """Domino d at level lv (0 over, 1 under) suits the pads: at most ``max_off`` of its
    cells off them (:func:`_max_overhang`), and an under-tile not beneath the top pad."""
    a = DOM_A[d]
    bcell = DOM_B[d]
    ua = _in_bottom_pad(a) or tmask[a] != 0
    ub = _in_bottom_pad(bcell) or tmask[bcell] != 0
    off = (0 if ua else 1) + (0 if ub else 1)
    if off > max_off:
        return False
    if lv == 1:
        if tmask[a] != 0 and not _in_bottom_pad(a):
            return False
        if tmask[bcell] != 0 and not _in_bottom_pad(bcell):
            return False
        # (issue 14) no cell beneath the top pad is needed: such an under-tile differs from an
        # over-tile once a later under-tile lies on it (see "Planning encoding" above).
    return True


@njit(cache=True)
def _face_up_tile(code):
    """A face-up placement code's two cells (DOM_A, DOM_B) and stacking rank (under 0,
    over 1)."""
    return DOM_A[code >> 2], DOM_B[code >> 2], 1 - (code & 1)


@njit(cache=True)
def _buries_none(state, c, d, lv, covered_a, covered_b):
    """The next tile of company c, face up on domino d at level lv, leaves every tile a
    cell not covered by a tile above it; ``covered_a`` / ``covered_b``:
    :func:`_covered_cells` of the tiles placed so far."""
    a = DOM_A[d]
    bcell = DOM_B[d]
    # Tile j lies above tile i when its stacking rank (under 0, over 1) is higher, or equal
    # and j came later; the new tile comes last.
    p = plan_base(c)
    n = state[p + PL_COUNT]
    rank = 1 - lv
    new_hit_a = False        # the new tile's cells under an earlier tile of higher rank
    new_hit_b = False
    for i in range(n):
        ci = state[p + PL_ORDER_CODE + i]
        if ci == FACE_DOWN:
            continue
        ai, bi, rank_i = _face_up_tile(ci)
        if rank_i > rank:
            new_hit_a = new_hit_a or ai == a or bi == a
            new_hit_b = new_hit_b or ai == bcell or bi == bcell
        above = rank >= rank_i
        hit_a = (covered_a >> i) & 1 == 1 or (above and (ai == a or ai == bcell))
        hit_b = (covered_b >> i) & 1 == 1 or (above and (bi == a or bi == bcell))
        if hit_a and hit_b:
            return False
    return not (new_hit_a and new_hit_b)


@njit(cache=True)
def _covered_cells(state, c):
    """For the face-up tiles company c has placed: bit i of the first result is set when
    tile i's first cell (DOM_A) is covered by a tile above it (of a higher stacking rank,
    or of the same rank and placed later), bit i of the second when its second cell
    (DOM_B) is."""
    p = plan_base(c)
    n = state[p + PL_COUNT]
    covered_a = 0
    covered_b = 0
    for i in range(n):
        ci = state[p + PL_ORDER_CODE + i]
        if ci == FACE_DOWN:
            continue
        ai, bi, rank_i = _face_up_tile(ci)
        for j in range(n):
            cj = state[p + PL_ORDER_CODE + j]
            if j == i or cj == FACE_DOWN:
                continue
            aj, bj, rank_j = _face_up_tile(cj)
            if rank_j > rank_i or (rank_j == rank_i and j > i):
                if aj == ai or bj == ai:
                    covered_a |= 1 << i
                if aj == bi or bj == bi:
                    covered_b |= 1 << i
    return covered_a, covered_b


@njit(cache=True)
def _max_overhang(state, c):
    """How many cells of a face-up tile of company c may lie off the pads."""
    return min(2, _effect_amount(state, c, E_OVERHANG))


@njit(cache=True)
def _top_mask(state, c, tmask):
    for i in range(NUM_CELLS):
        tmask[i] = 0
    bot, bs, top, ts, ai = _plan_pads(state, c)
    for v in range(6):
        tmask[ARR_CELLS[ai, v]] = 1


@njit(cache=True)
def _plan_mask(state, c, mask):
    """Legal actions of company c's planning decision (state PLAN_STAGE)."""
    st = state[PLAN_STAGE]
    p = plan_base(c)
    if st == P_SIDES:
        for a in range(4):
            mask[A_SIDES + a] = 1
    elif st == P_ARRANGE:
        for a in range(NUM_ARRANGEMENTS):
            mask[A_ARRANGE + a] = 1
    elif st == P_TILE_PICK:
        for t in range(state[company_base(c) + C_NUM_TILES]):
            if state[p + PL_PLACED + t] == 0:
                mask[A_TILE_PICK + t] = 1
        mask[A_TILE_PICK + MAX_TILES] = 1
    else:   # P_TILE_PLACE
        tmask = state[SCR_TOP:SCR_TOP + NUM_CELLS]
        _top_mask(state, c, tmask)
        max_off = _max_overhang(state, c)
        covered_a, covered_b = _covered_cells(state, c)
        for d in range(NUM_DOMINO_SPOTS):
            for lv in range(2):
                if _pads_allow(d, lv, tmask, max_off) and _buries_none(state, c, d, lv, covered_a, covered_b):
                    mask[A_TILE_PLACE + 4 * d + lv] = 1
                    mask[A_TILE_PLACE + 4 * d + 2 + lv] = 1
        mask[A_TILE_PLACE + FACE_DOWN] = 1


@njit(cache=True)
def _reset_plan(state, c):
    p = plan_base(c)
    for i in range(PLAN_SIZE):
        state[p + i] = 0
    state[p + PL_W_SIDE] = -1
    state[p + PL_B_SIDE] = -1
    state[p + PL_ARRANGE] = -1
    state[company_base(c) + C_COMMITTED] = 0


@njit(cache=True)
def _plan_apply(state, c, a):
    p = plan_base(c)
    st = state[PLAN_STAGE]
    if st == P_SIDES:
        x = a - A_SIDES
        state[p + PL_W_SIDE] = x // 2
        state[p + PL_B_SIDE] = x % 2
        state[PLAN_STAGE] = P_ARRANGE
    elif st == P_ARRANGE:
        state[p + PL_ARRANGE] = a - A_ARRANGE
        state[PLAN_STAGE] = P_TILE_PICK
    elif st == P_TILE_PICK:
        t = a - A_TILE_PICK
        if t == MAX_TILES:
            for u in range(state[company_base(c) + C_NUM_TILES]):
                if state[p + PL_PLACED + u] == 0:
                    k = state[p + PL_COUNT]
                    state[p + PL_ORDER_TILE + k] = u
                    state[p + PL_ORDER_CODE + k] = FACE_DOWN
                    state[p + PL_PLACED + u] = 1
                    state[p + PL_COUNT] = k + 1
            state[company_base(c) + C_COMMITTED] = 1
            state[PLAN_SEAT] += 1
            state[PLAN_STAGE] = P_SIDES
            state[PICKED_TILE] = 0
        else:
            state[PICKED_TILE] = t
            state[PLAN_STAGE] = P_TILE_PLACE
    else:   # P_TILE_PLACE
        k = state[p + PL_COUNT]
        u = state[PICKED_TILE]
        state[p + PL_ORDER_TILE + k] = u
        state[p + PL_ORDER_CODE + k] = a - A_TILE_PLACE
        state[p + PL_PLACED + u] = 1
        state[p + PL_COUNT] = k + 1
        state[PLAN_STAGE] = P_TILE_PICK
        state[PICKED_TILE] = 0


# ====================================================================================== flow
@njit(cache=True)
def _start_phase(state, ph):
    state[PHASE] = ph
    state[TURN_POS] = 0
    state[STAGE] = 0   # IMPROVE_START, LOGISTICS_MARKERS, SELL_START
    if ph >= PH_IMPROVEMENT and ph <= PH_SELLING:
        _compute_order(state)
    n = state[NUM_COMPANIES]
    if ph == PH_RESEARCH:
        for c in range(n):
            state[company_base(c) + C_RESEARCH_LEFT] = state[company_base(c) + C_OUTCOME + PO_RES]
    elif ph == PH_LOGISTICS:
        for c in range(n):
            v = state[company_base(c) + C_OUTCOME + PO_LOG]
            if _effect_amount(state, c, E_RES_AS_LOG) > 0:
                v += state[company_base(c) + C_OUTCOME + PO_RES]
            state[company_base(c) + C_LOGISTICS_LEFT] = v


@njit(cache=True)
def _end_round(state):
    n = state[NUM_COMPANIES]
    # sales
    for c in range(n):
        b = company_base(c)
        state[b + C_VP] += state[b + C_SOLD] * state[b + C_PRICE]
    # leadership
    gain = state[SCR_GAIN:SCR_GAIN + MAX_SEATS]
    for c in range(MAX_SEATS):
        gain[c] = 0
    _leadership(state, state[BUYERS:BUYERS + NUM_REGIONS * MAX_BUY], gain)
    for c in range(n):
        state[company_base(c) + C_VP] += gain[c]
    # cleanup
    for i in range(NUM_REGIONS * MAX_BUY):
        state[BUYERS + i] = -1
    rd = state[ROUND]
    if rd < ROUNDS and REFILL_ROUND[rd] != 0:
        for s in range(DISPLAY_SIZE):
            state[DISPLAY + s] = _draw_tile(state)
    for c in range(n):
        b = company_base(c)
        state[b + C_SOLD] = 0
        state[b + C_PRICE] = START_PRICE
        _reset_plan(state, c)
    state[REVEALED] = 0
    if rd >= ROUNDS:
        state[OVER] = 1
        state[PENDING] = P_NONE
        state[CURRENT] = -1
        return
    state[ROUND] = rd + 1
    state[PHASE] = PH_PLANNING
    state[PLAN_SEAT] = 0
    state[PLAN_STAGE] = P_SIDES


@njit(cache=True)
def _leadership(state, buy, gain):
    """Add to ``gain[c]`` the region leadership VP of section 6 for the goods on ``buy``
    (a buyer array laid out like the state's BUYERS block: the real one or a simulated one)."""
    n = state[NUM_COMPANIES]
    for r in range(NUM_REGIONS):
        if state[RETAILER + r] >= 0:
            continue
        s = -1
        for q in range(REG_NSLOT[r]):
            if state[OFFICES + r * MAX_SLOTS + q] >= 0:
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
def _owe(state, c, p):
    """Company ``c`` owes a decision of block ``p`` (a ``P_*``)."""
    state[CURRENT] = c
    state[PENDING] = p
    return True


@njit(cache=True)
def _advance(state):
    """Run automatic events until a decision is owed; sets PENDING/CURRENT.  False at game end."""
    while True:
        if state[OVER] != 0:
            state[PENDING] = P_NONE
            state[CURRENT] = -1
            return False
        # a retailer bonus in progress has priority
        bk = state[BONUS_KIND]
        if bk != B_NONE:
            c = state[BONUS_COMPANY]
            if bk == B_TECH:
                if state[BONUS_LEFT] > 0 and _num_techs(state, c) < NUM_TECHS:
                    return _owe(state, c, P_BONUS_TECH)
                state[BONUS_KIND] = B_NONE
                state[BONUS_LEFT] = 0
                continue
            if bk == B_PRICE:
                return _owe(state, c, P_BONUS_PRICE)
            if bk == B_EXTRA:
                if _any_office_target(state, c, OT_EXTRA):
                    state[OFFICE_KIND] = OT_EXTRA
                    return _owe(state, c, P_OFFICE_TARGET)
                state[BONUS_KIND] = B_NONE
                continue
            if bk == B_MOVE:
                if state[MOVE_SOURCE] < 0:
                    return _owe(state, c, P_MOVE_SOURCE)
                state[OFFICE_KIND] = OT_MOVE
                return _owe(state, c, P_OFFICE_TARGET)
        ph = state[PHASE]
        n = state[NUM_COMPANIES]
        if ph == PH_PLANNING:
            s = state[PLAN_SEAT]
            if s < state[NUM_PLAYERS]:
                return _owe(state, s, state[PLAN_STAGE])
            # reveal
            for c in range(n):
                if c == state[STEVE]:
                    _steve_outcome(state, c)
                else:
                    _eval_plan(state, c, state[company_base(c) + C_OUTCOME:company_base(c) + C_OUTCOME + PLAN_OUTCOME_SIZE])
            state[REVEALED] = 1
            state[PHASE] = PH_PRICING
        elif ph == PH_PRICING:
            for c in range(n):
                b = company_base(c)
                state[b + C_PRICE] = _clamp_price(START_PRICE + state[b + C_OUTCOME + PO_PRICE_SHIFT]
                                                  + _effect_amount(state, c, E_PRICE_PLUS))
            state[PHASE] = PH_PRODUCTION
        elif ph == PH_PRODUCTION:
            for c in range(n):
                b = company_base(c)
                mult = 2 if _effect_amount(state, c, E_PROD_DOUBLE) > 0 else 1
                g = state[b + C_OUTCOME + PO_GOODS] + state[b + C_OUTCOME + PO_PROD] * mult + state[b + C_TOKENS]
                if _effect_amount(state, c, E_PER_TWO) > 0:
                    g += _num_techs(state, c) // 2
                _add_goods(state, c, g)
            _start_phase(state, PH_IMPROVEMENT if IMP_ROUND[state[ROUND]] != 0 else PH_RESEARCH)
        elif ph == PH_IMPROVEMENT:
            if state[TURN_POS] >= n:
                _start_phase(state, PH_RESEARCH)
                continue
            c = state[ORDER + state[TURN_POS]]
            b = company_base(c)
            if state[STAGE] == IMPROVE_START:
                # exactly one action (ruling 6): a display tile of its choice with an active
                # IMP, else a goods token, automatically -- also when the display is empty
                # (ruling 22); with no token left, nothing
                state[STAGE] = IMPROVE_PICKING
                if state[b + C_OUTCOME + PO_IMP] > 0 and _display_tiles(state) > 0:
                    state[b + C_IMPROVE_LEFT] = 1
                    return _owe(state, c, P_IMPROVE_PICK)
                if state[TOKENS_LEFT] > 0:
                    state[TOKENS_LEFT] -= 1
                    state[b + C_TOKENS] += 1
            state[TURN_POS] += 1
            state[STAGE] = IMPROVE_START
        elif ph == PH_RESEARCH:
            if state[TURN_POS] >= n:
                for c in range(n):
                    for t in range(NUM_TECHS):
                        state[company_base(c) + C_LOCKED + t] = 0
                _start_phase(state, PH_LOGISTICS)
                continue
            c = state[ORDER + state[TURN_POS]]
            b = company_base(c)
            if state[GAMEPAD_PENDING] != 0:
                if _any_office_target(state, c, OT_GAMEPAD):
                    state[OFFICE_KIND] = OT_GAMEPAD
                    return _owe(state, c, P_OFFICE_TARGET)
                state[GAMEPAD_PENDING] = 0
            if _complete_techs(state, c):
                continue
            if state[b + C_RESEARCH_LEFT] > 0 and _num_techs(state, c) < NUM_TECHS:
                return _owe(state, c, P_RESEARCH)
            state[b + C_RESEARCH_LEFT] = 0
            state[TURN_POS] += 1
        elif ph == PH_LOGISTICS:
            if state[TURN_POS] >= n:
                _start_phase(state, PH_SELLING)
                continue
            c = state[ORDER + state[TURN_POS]]
            b = company_base(c)
            st = state[STAGE]
            if st == LOGISTICS_MARKERS:
                if state[b + C_LOGISTICS_LEFT] > 0:
                    for r in range(NUM_REGIONS):
                        if _logistics_legal(state, c, r):
                            return _owe(state, c, P_LOGISTICS)
                state[b + C_LOGISTICS_LEFT] = 0
                state[STAGE] = LOGISTICS_WIFI
            elif st == LOGISTICS_WIFI:
                state[STAGE] = LOGISTICS_NFC
                if _effect_amount(state, c, E_SECOND_OFFICE) > 0 and _any_office_target(state, c, OT_WIFI):
                    state[STAGE] = LOGISTICS_WIFI
                    state[OFFICE_KIND] = OT_WIFI
                    return _owe(state, c, P_OFFICE_TARGET)
            elif st == LOGISTICS_NFC:
                if _effect_amount(state, c, E_DIRECT_SALE) > 0 and state[b + C_READY] > 0:  # NFC front
                    return _owe(state, c, P_NFC_SELL)
                state[STAGE] = LOGISTICS_DONE
            else:
                state[TURN_POS] += 1
                state[STAGE] = LOGISTICS_MARKERS
        elif ph == PH_SELLING:
            if state[TURN_POS] >= n:
                _end_round(state)
                continue
            c = state[ORDER + state[TURN_POS]]
            b = company_base(c)
            if state[STAGE] == SELL_START:
                tot = 0
                for r in range(NUM_REGIONS):
                    tot += _sell_capacity(state, c, r)
                state[SELL_LEFT] = min(tot, state[b + C_READY])
                state[STAGE] = SELL_SELLING
            if state[SELL_LEFT] > 0:
                return _owe(state, c, P_SELL)
            if _effect_amount(state, c, E_KEEP_UNSOLD) == 0:
                state[b + C_READY] = 0
            state[TURN_POS] += 1
            state[STAGE] = SELL_START
        else:   # PH_SCORING (never entered)
            _end_round(state)


@njit(cache=True)
def _sell_one(state, c, r):
    for bb in range(REG_NBUY[r]):
        if state[BUYERS + r * MAX_BUY + bb] < 0 and _buys(state, c, REG_BUY[r, bb]):
            state[BUYERS + r * MAX_BUY + bb] = c
            break
    b = company_base(c)
    state[b + C_READY] -= 1
    state[b + C_SOLD] += 1
    state[SELL_LEFT] -= 1


@njit(cache=True)
def _apply(state, a):
    """Apply action ``a`` of the current decision (no automatic follow-up)."""
    p = state[PENDING]
    c = state[CURRENT]
    b = company_base(c)
    if p <= P_TILE_PLACE:   # a planning decision
        _plan_apply(state, c, a)
    elif p == P_IMPROVE_PICK:
        s = a - A_IMPROVE_PICK
        state[b + C_TILES + state[b + C_NUM_TILES]] = state[DISPLAY + s]
        state[b + C_NUM_TILES] += 1
        state[DISPLAY + s] = -1
        state[b + C_IMPROVE_LEFT] -= 1
    elif p == P_RESEARCH:
        t = a - A_RESEARCH
        if t == NUM_TECHS:
            state[b + C_RESEARCH_LEFT] = 0
        else:
            state[b + C_TECH_MARKERS + t] += 1
            state[b + C_RESEARCH_LEFT] -= 1
    elif p == P_LOGISTICS:
        r = a - A_LOGISTICS
        if r == NUM_REGIONS:
            state[b + C_LOGISTICS_LEFT] = 0
        else:
            state[b + C_LOGISTICS_LEFT] -= 1
            state[MARKERS + r * MAX_SEATS + c] += 1
            if state[MARKERS + r * MAX_SEATS + c] >= REG_COST[r] and state[b + C_OFFICES_USED] < OFFICE_MAX:
                _build_office(state, c, r)
    elif p == P_OFFICE_TARGET:
        r = a - A_OFFICE_TARGET
        k = state[OFFICE_KIND]
        state[OFFICE_KIND] = OT_NONE
        if k == OT_WIFI:
            state[STAGE] = LOGISTICS_NFC
            _build_office(state, c, r)
        elif k == OT_GAMEPAD:
            state[GAMEPAD_PENDING] = 0
            _build_office(state, c, r)
        elif k == OT_EXTRA:
            state[BONUS_KIND] = B_NONE
            _build_office(state, c, r)
        else:
            state[BONUS_KIND] = B_NONE
            _remove_office(state, c, state[MOVE_SOURCE])
            state[MOVE_SOURCE] = -1
            _put_office(state, c, r)
    elif p == P_MOVE_SOURCE:
        state[MOVE_SOURCE] = a - A_MOVE_SOURCE
    elif p == P_NFC_SELL:
        k = a - A_NFC_SELL + 1
        state[b + C_VP] += k * state[b + C_PRICE]
        state[b + C_READY] -= k
        state[STAGE] = LOGISTICS_DONE
    elif p == P_SELL:
        _sell_one(state, c, a - A_SELL)
    elif p == P_BONUS_TECH:
        t = a - A_BONUS_TECH
        state[b + C_TECH_MARKERS + t] += 1
        if state[PHASE] == PH_RESEARCH:
            state[b + C_LOCKED + t] = 1
        state[BONUS_LEFT] -= 1
        if state[BONUS_LEFT] <= 0:
            state[BONUS_KIND] = B_NONE
    elif p == P_BONUS_PRICE:
        d = -1 if a == A_BONUS_PRICE else 1
        state[b + C_PRICE] = _clamp_price(state[b + C_PRICE] + d)
        state[BONUS_KIND] = B_NONE


@njit(cache=True)
def legal_mask(state, mask):
    for i in range(NUM_ACTIONS):
        mask[i] = 0
    p = state[PENDING]
    c = state[CURRENT]
    if p < 0:
        return
    b = company_base(c)
    if p <= P_TILE_PLACE:
        _plan_mask(state, c, mask)
    elif p == P_IMPROVE_PICK:
        for s in range(DISPLAY_SIZE):
            if state[DISPLAY + s] >= 0:
                mask[A_IMPROVE_PICK + s] = 1
    elif p == P_RESEARCH:
        for t in range(NUM_TECHS):
            if state[b + C_OWNS + t] == 0:
                mask[A_RESEARCH + t] = 1
        mask[A_RESEARCH + NUM_TECHS] = 1
    elif p == P_LOGISTICS:
        for r in range(NUM_REGIONS):
            if _logistics_legal(state, c, r):
                mask[A_LOGISTICS + r] = 1
        mask[A_LOGISTICS + NUM_REGIONS] = 1
    elif p == P_OFFICE_TARGET:
        for r in range(NUM_REGIONS):
            if _office_target_legal(state, c, state[OFFICE_KIND], r):
                mask[A_OFFICE_TARGET + r] = 1
    elif p == P_MOVE_SOURCE:
        for r in range(NUM_REGIONS):
            if _move_source_legal(state, c, r):
                mask[A_MOVE_SOURCE + r] = 1
    elif p == P_NFC_SELL:
        for k in range(min(3, _effect_amount(state, c, E_DIRECT_SALE), state[b + C_READY])):
            mask[A_NFC_SELL + k] = 1
    elif p == P_SELL:
        for r in range(NUM_REGIONS):
            if _sell_capacity(state, c, r) > 0:
                mask[A_SELL + r] = 1
    elif p == P_BONUS_TECH:
        for t in range(NUM_TECHS):
            if state[b + C_OWNS + t] == 0:
                mask[A_BONUS_TECH + t] = 1
    elif p == P_BONUS_PRICE:
        mask[A_BONUS_PRICE] = 1
        mask[A_BONUS_PRICE + 1] = 1


# ===================================================================================== Steve
@njit(cache=True)
def _steve_research_target(state, c):
    b = company_base(c)
    best = -1
    bk = (0, 0, 0)
    for t in range(NUM_TECHS):
        if state[b + C_OWNS + t] != 0:
            continue
        cost = _tech_cost(state, t, c)
        diff = cost - state[b + C_TECH_MARKERS + t]
        if diff <= 0:
            continue
        k = (diff, cost, t)
        if best < 0 or k < bk:
            best = t
            bk = k
    return best


@njit(cache=True)
def _steve_action(state):
    p = state[PENDING]
    c = state[CURRENT]
    b = company_base(c)
    if p == P_IMPROVE_PICK:
        best = -1
        bn = -1
        for s in range(DISPLAY_SIZE):
            t = state[DISPLAY + s]
            if t >= 0:
                np_ = (TT_ICONS[t, 0] == PROD) + (TT_ICONS[t, 1] == PROD)
                if np_ > bn:
                    bn = np_
                    best = s
        return A_IMPROVE_PICK + best
    if p == P_RESEARCH:
        t = _steve_research_target(state, c)
        return A_RESEARCH + (NUM_TECHS if t < 0 else t)
    if p == P_LOGISTICS:
        best = -1
        bk = 0
        for r in range(NUM_REGIONS):
            if _logistics_legal(state, c, r):
                k = _steve_region_key(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_LOGISTICS + (NUM_REGIONS if best < 0 else best)
    if p == P_OFFICE_TARGET:
        best = -1
        bk = 0
        for r in range(NUM_REGIONS):
            if _office_target_legal(state, c, state[OFFICE_KIND], r):
                k = _steve_region_key(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_OFFICE_TARGET + best
    if p == P_MOVE_SOURCE:
        best = -1
        bk = 0
        for r in range(NUM_REGIONS):
            if _move_source_legal(state, c, r):
                k = _free_buyers(state, c, r)
                if best < 0 or k < bk:
                    best = r
                    bk = k
        return A_MOVE_SOURCE + best
    if p == P_NFC_SELL:
        return A_NFC_SELL + min(3, _effect_amount(state, c, E_DIRECT_SALE), state[b + C_READY]) - 1
    if p == P_SELL:
        best = -1
        bk = 0
        for r in range(NUM_REGIONS):
            k = _sell_capacity(state, c, r)
            if k > bk:
                best = r
                bk = k
        return A_SELL + best
    if p == P_BONUS_TECH:
        t = _steve_research_target(state, c)
        if t < 0:
            for u in range(NUM_TECHS):
                if state[b + C_OWNS + u] == 0:
                    t = u
                    break
        return A_BONUS_TECH + t
    if p == P_BONUS_PRICE:
        return A_BONUS_PRICE + (0 if STEVE_PRICE_SHIFT < 0 else 1)
    return -1


@njit(cache=True)
def _forced_sell(state):
    """Region of the next good when the selling choice is forced, else -1 (section 5.6)."""
    c = state[CURRENT]
    tot = 0
    nreg = 0
    first = -1
    for r in range(NUM_REGIONS):
        k = _sell_capacity(state, c, r)
        if k > 0:
            tot += k
            nreg += 1
            if first < 0:
                first = r
    if nreg == 1 or state[SELL_LEFT] >= tot:
        return first
    return -1


@njit(cache=True)
def _run(state):
    """Advance to the next agent decision, playing Steve and forced moves inline."""
    while _advance(state):
        c = state[CURRENT]
        if c == state[STEVE]:
            _apply(state, _steve_action(state))
            continue
        if state[PENDING] == P_SELL:
            r = _forced_sell(state)
            if r >= 0:
                _apply(state, A_SELL + r)
                continue
        return


# ========================================================================= pad outcome table
@njit(cache=True)
def pad_plan_outcomes(out):
    """All 480 tile-less pad plans: out[i] = (sides, arrange, 7 outcome entries); i = 120*sides + arr."""
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    o = np.zeros(PLAN_OUTCOME_SIZE, dtype=np.int64)
    for sides in range(4):
        for a in range(NUM_ARRANGEMENTS):
            _reset_plan(st, 0)
            st[plan_base(0) + PL_W_SIDE] = sides // 2
            st[plan_base(0) + PL_B_SIDE] = sides % 2
            st[plan_base(0) + PL_ARRANGE] = a
            _eval_plan(st, 0, o)
            i = sides * NUM_ARRANGEMENTS + a
            out[i, 0] = sides
            out[i, 1] = a
            for k in range(PLAN_OUTCOME_SIZE):
                out[i, 2 + k] = o[k]


# ================================================================================== contract
@njit(cache=True)
def init(state, config, seed):
    for i in range(STATE_SIZE):
        state[i] = 0
    npl = config[CFG_NUM_PLAYERS]
    st = config[CFG_STEVE]
    state[NUM_PLAYERS] = npl
    state[NUM_COMPANIES] = npl + st
    state[STEVE] = npl if st != 0 else -1
    rng.seed_rng(state, RNG, seed)
    n = npl + st
    # colours
    used = np.zeros(NUM_COLOURS, dtype=np.int64)
    for c in range(n):
        col = config[CFG_COLOURS + c]
        if col < 0:
            k = rng.randint(state, RNG, NUM_COLOURS - c)
            for q in range(NUM_COLOURS):
                if used[q] == 0:
                    if k == 0:
                        col = q
                        break
                    k -= 1
        used[col] = 1
        state[company_base(c) + C_COLOUR] = col
    # technology sides
    for t in range(NUM_TECHS):
        m = config[CFG_TECH_SIDES + t]
        state[TECH_SIDE + t] = rng.randint(state, RNG, np.int64(2)) if m == 2 else m
        state[PATENT + t] = -1
    # board
    for i in range(NUM_REGIONS * MAX_SLOTS):
        state[OFFICES + i] = -1
    for i in range(NUM_REGIONS * MAX_RSLOT):
        state[RETAILER_OFFICES + i] = -1
    for i in range(NUM_REGIONS * MAX_BUY):
        state[BUYERS + i] = -1
    for r in range(NUM_REGIONS):
        state[RETAILER + r] = -1
    # retailers
    home = np.zeros(NUM_REGIONS, dtype=np.int64)
    for c in range(n):
        home[COL_HOME[state[company_base(c) + C_COLOUR]]] = 1
    med = LAYOUT_MED[n]
    rused = np.zeros(NUM_RETAILER_TILES, dtype=np.int64)
    for r in range(NUM_REGIONS):
        target = LAYOUT_TARGET[n, r] != 0
        if not target and REG_SIZE[r] == 1 and home[r] == 0 and med != 0:
            target = True
            if med > 0:
                med -= 1
        if not target:
            continue
        cnt = np.int64(0)
        for t in range(NUM_RETAILER_TILES):
            if rused[t] == 0 and RT_SIZE[t] == REG_SIZE[r]:
                cnt += 1
        if cnt == 0:
            continue
        k = rng.randint(state, RNG, cnt)
        for t in range(NUM_RETAILER_TILES):
            if rused[t] == 0 and RT_SIZE[t] == REG_SIZE[r]:
                if k == 0:
                    rused[t] = 1
                    state[RETAILER + r] = t
                    state[RETAILER_SIDE + r] = rng.randint(state, RNG, np.int64(2))
                    break
                k -= 1
    # tiles
    for t in range(NUM_TILE_TYPES):
        state[STACK + t] = MARKET_CNT[t]
    state[STACK_SIZE] = MARKET_CNT.sum()
    for s in range(DISPLAY_SIZE):
        state[DISPLAY + s] = _draw_tile(state)
    state[TOKENS_LEFT] = TOKEN_SUPPLY
    for c in range(n):
        b = company_base(c)
        col = state[b + C_COLOUR]
        state[b + C_START_VP] = COL_SVP[col]
        state[b + C_VP] = COL_SVP[col]
        state[b + C_PRICE] = START_PRICE
        state[b + C_TILES] = COL_TILE[col]
        state[b + C_NUM_TILES] = 1
        h = COL_HOME[col]
        state[OFFICES + h * MAX_SLOTS + _free_slot(state, h)] = c
        state[b + C_OFFICES_USED] = 1
        _reset_plan(state, c)
    state[MOVE_SOURCE] = -1
    state[ROUND] = 1
    state[PHASE] = PH_PLANNING
    # What _run(state) would do here: the first decision is always seat 0's SIDES (Steve
    # plans inline at the reveal).  Set directly, so init links no flow code: every
    # jitted caller re-optimises the code it links in (cold start, see step).
    state[PLAN_SEAT] = 0
    state[PLAN_STAGE] = P_SIDES
    _owe(state, np.int64(0), P_SIDES)


@njit(cache=True)
def current_player(state):
    if state[OVER] != 0:
        return -1
    return state[CURRENT]


@njit(cache=True)
def step(state, action):
    _apply(state, action)
    # _run(state), written out: each jitted caller re-optimises the code it links in, so
    # one wrapper fewer between the entry points and _advance() shortens the cold start
    while _advance(state):
        if state[CURRENT] == state[STEVE]:
            _apply(state, _steve_action(state))
            continue
        if state[PENDING] == P_SELL:
            r = _forced_sell(state)
            if r >= 0:
                _apply(state, A_SELL + r)
                continue
        return


@njit(cache=True)
def advance(state, action, mask):
    """The AEC shell's one call per step (see :mod:`envs.spec`)."""
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True)
def _retailer_vp(state, c):
    v = 0
    for r in range(NUM_REGIONS):
        t = state[RETAILER + r]
        if t < 0:
            continue
        for s in range(RT_NSLOT[RT_SIZE[t]]):
            if state[RETAILER_OFFICES + r * MAX_RSLOT + s] == c:
                v += RT_SLOTVP[RT_SIZE[t], s]
    return v


@njit(cache=True)
def _patent_vp(state, c):
    v = 0
    for t in range(NUM_TECHS):
        if state[PATENT + t] == c:
            v += TECH_PVP[t]
    return v


@njit(cache=True)
def total_score(state, c):
    return state[company_base(c) + C_VP] + _patent_vp(state, c) + _retailer_vp(state, c)


@njit(cache=True)
def scores(state, out):
    for c in range(min(out.shape[0], state[NUM_COMPANIES])):
        out[c] = total_score(state, c)


@njit(cache=True)
def ranks(state, out):
    """1-based rank of each company (out may hold the seats only, or every company): VP
    decide, then technologies, then patents; a tie on all three is shared."""
    n = state[NUM_COMPANIES]
    keys = state[SCR_RANK_KEYS:SCR_RANK_KEYS + MAX_SEATS * 3].reshape((MAX_SEATS, 3))
    for c in range(n):
        keys[c, 0] = total_score(state, c)
        keys[c, 1] = _num_techs(state, c)
        keys[c, 2] = _num_patents(state, c)
    ranks_lexicographic(keys, n, out)


# =============================================================================== observation
# Values are scaled to about [0, 1] and clipped at OBS_CLIP; each field's bounds are declared
# with it.  Company slots are ego-centric (slot 0 = the observer, then seats in turn); a
# "company one-hot" has MAX_SEATS + 1 entries, the last one meaning none.
OBS_CLIP = 4.0
NOBODY = MAX_SEATS + 1                    # entries of a company one-hot (ego slots, then none)

# Per region (RO_*: offsets inside one region's record).
REGION_OBS = Layout("smartphone_inc region observation")
RO_RETAILER = REGION_OBS.add("retailer")                                   # a retailer covers it
RO_BONUS = REGION_OBS.add("bonus", len(BONUS_KINDS))                       # its bonus kind (one-hot)
RO_OFFICES = REGION_OBS.add("offices", (MAX_SLOTS, NOBODY))                # office slots
RO_RETAILER_OFFICES = REGION_OBS.add("retailer_offices", (MAX_RSLOT, NOBODY))
RO_MARKERS = REGION_OBS.add("markers", MAX_SEATS, high=OBS_CLIP)              # progress markers / 4
RO_BUYERS = REGION_OBS.add("buyers", (MAX_BUY, NOBODY))                    # good sold there this round
_PRINTED_HIGH = np.array([OBS_CLIP] + [1.0] * NUM_TECHS)
RO_PRINTED_BUYERS = REGION_OBS.add("printed_buyers", (MAX_BUY, 1 + NUM_TECHS),  # price cap / 10, technology
                                   high=_PRINTED_HIGH)
RO_SIZE = REGION_OBS.add("size", len(SIZES))                               # S, M, L (one-hot)
RO_COST = REGION_OBS.add("cost", high=OBS_CLIP)                            # office cost / 4
RO_BONUS_AMOUNT = REGION_OBS.add("bonus_amount", high=OBS_CLIP)            # retailer bonus n / 3
REGION_OBS_SIZE = REGION_OBS.size

# Per owned tile of a plan, in acquisition order (PT_*: offsets inside one tile's record).
PLAN_TILE_OBS = Layout("smartphone_inc plan tile observation")
PT_PICKED = PLAN_TILE_OBS.add("picked")       # the tile picked for placement now
PT_PLACED = PLAN_TILE_OBS.add("placed")
PT_DOWN = PLAN_TILE_OBS.add("face_down")
PT_OVER = PLAN_TILE_OBS.add("over")           # over the top pad
PT_UNDER = PLAN_TILE_OBS.add("under")         # under the top pad
PT_ORDER = PLAN_TILE_OBS.add("order")         # placement order (k + 1) / MAX_TILES
PT_AR = PLAN_TILE_OBS.add("a_row")            # its two cells (row / 8, column / 8)
PT_AC = PLAN_TILE_OBS.add("a_col")
PT_BR = PLAN_TILE_OBS.add("b_row")
PT_BC = PLAN_TILE_OBS.add("b_col")
PT_ORIENT = PLAN_TILE_OBS.add("orient")
PT_SZ = PLAN_TILE_OBS.size

# Per company (CO_*: offsets inside one company's record); the plan fields show the
# observer's own plan at every moment, others' once revealed.
COMPANY_OBS = Layout("smartphone_inc company observation")
CO_PRESENT = COMPANY_OBS.add("present")
CO_STEVE = COMPANY_OBS.add("steve")
CO_COMMITTED = COMPANY_OBS.add("committed")
CO_TO_MOVE = COMPANY_OBS.add("to_move")
CO_VP = COMPANY_OBS.add("vp", high=OBS_CLIP)                        # / 100
CO_START_VP = COMPANY_OBS.add("start_vp", high=OBS_CLIP)            # / 5
CO_PRICE = COMPANY_OBS.add("price", high=OBS_CLIP)                  # / 10
CO_READY = COMPANY_OBS.add("ready_goods", high=OBS_CLIP)            # / 18
CO_TOKENS = COMPANY_OBS.add("tokens", high=OBS_CLIP)                # / 20
CO_TILES = COMPANY_OBS.add("tiles", NUM_TILE_TYPES, high=OBS_CLIP)             # owned tiles by type / 3
CO_OWNS = COMPANY_OBS.add("owns", NUM_TECHS)                            # technologies
CO_TECH_MARKERS = COMPANY_OBS.add("tech_markers", NUM_TECHS, high=OBS_CLIP)  # / 6
CO_TECH_LOCKED = COMPANY_OBS.add("tech_locked", NUM_TECHS)
CO_RESEARCH_LEFT = COMPANY_OBS.add("research_left", high=OBS_CLIP)  # / 6
CO_LOGISTICS_LEFT = COMPANY_OBS.add("logistics_left", high=OBS_CLIP)  # / 8
CO_OFFICES_USED = COMPANY_OBS.add("offices_used", high=OBS_CLIP)    # / 18
CO_SOLD = COMPANY_OBS.add("sold", high=OBS_CLIP)                    # / 18
CO_OUTCOME = COMPANY_OBS.add("outcome", PLAN_OUTCOME_SIZE, low=-1.0, high=OBS_CLIP)  # revealed outcome / 10
CO_COLOUR = COMPANY_OBS.add("colour", NUM_COLOURS)
CO_TURN_ORDER = COMPANY_OBS.add("turn_order", MAX_SEATS)               # position (improvement to selling)
CO_IMPROVE_LEFT = COMPANY_OBS.add("improve_left")                  # 1 while its display pick is owed
CO_TILE_SEQUENCE = COMPANY_OBS.add("tile_sequence", (MAX_TILES, NUM_TILE_TYPES))  # owned tiles in acquisition order
CO_PLAN_W_SIDE = COMPANY_OBS.add("plan_w_side", 2)
CO_PLAN_B_SIDE = COMPANY_OBS.add("plan_b_side", 2)
CO_PLAN_ARRANGED = COMPANY_OBS.add("plan_arranged")
CO_PLAN_W_ON_TOP = COMPANY_OBS.add("plan_w_on_top")
CO_PLAN_ROTATION = COMPANY_OBS.add("plan_rotation", 4)              # top pad turned k x 90 degrees
CO_PLAN_TOP_ROW = COMPANY_OBS.add("plan_top_row")                   # top pad's top-left / 8
CO_PLAN_TOP_COL = COMPANY_OBS.add("plan_top_col")
CO_PLAN_TILES = COMPANY_OBS.add("plan_tiles", (MAX_TILES, PT_SZ))   # PLAN_TILE_OBS per owned tile
COMPANY_OBS_SIZE = COMPANY_OBS.size

# Per canvas cell of a company's plan (CH_*: channels).
PLANE = Layout("smartphone_inc plan cell")
CH_ICON = PLANE.add("icon", NUM_ICONS)                   # visible icon (one-hot)
CH_SOURCE = PLANE.add("source", 3)                   # it lies on the bottom pad, top pad, a tile
CH_UNDER = PLANE.add("under_tiles", high=OBS_CLIP)   # face-up under-tiles covering the cell
CH_OVER = PLANE.add("over_tiles", high=OBS_CLIP)     # face-up over-tiles covering the cell
PLANE_CH = PLANE.size


def _rows(layout, n):
    """Bounds of ``n`` records of ``layout``, shaped (n, record size)."""
    low, high = layout.bounds(np.float64)
    return np.tile(low, (n, 1)), np.tile(high, (n, 1))


OBS = Layout("smartphone_inc observation")
OBS_ROUND = OBS.add("round", ROUNDS)                           # one-hot
OBS_PHASE = OBS.add("phase", len(PHASE_NAMES) - 1)             # planning .. scoring (one-hot)
OBS_PENDING = OBS.add("pending", len(BLOCK_NAMES))             # own decision's block (one-hot)
OBS_REVEALED = OBS.add("revealed")
OBS_TECH_SIDE = OBS.add("tech_side", NUM_TECHS)                    # 1 = back
OBS_TECH_COST = OBS.add("tech_cost", NUM_TECHS, low=-1.0, high=OBS_CLIP)   # printed, less patent drop / 10
OBS_PATENT = OBS.add("patent", (NUM_TECHS, NOBODY))                # holder (company one-hot)
OBS_DISPLAY = OBS.add("display", (DISPLAY_SIZE, NUM_TILE_TYPES + 1))      # tile type, last = empty
OBS_TOKENS = OBS.add("tokens", high=OBS_CLIP)                  # supply / 20
OBS_STACK = OBS.add("stack", high=OBS_CLIP)                    # stack size / 22
OBS_BONUS_KIND = OBS.add("bonus_kind", len(BONUS_KINDS))       # retailer bonus in progress (0 = none)
OBS_BONUS_LEFT = OBS.add("bonus_left", high=OBS_CLIP)          # its technology markers still to place / 3
OBS_OFFICE_KIND = OBS.add("office_kind", 4)                    # Wi-Fi, Gamepad, extra, move (while pending)
OBS_MOVE_SOURCE = OBS.add("move_source", NUM_REGIONS)                 # chosen move-office source (one-hot)
_lo, _hi = _rows(REGION_OBS, NUM_REGIONS)
OBS_REGIONS = OBS.add("regions", (NUM_REGIONS, REGION_OBS_SIZE), low=_lo, high=_hi)
_lo, _hi = _rows(COMPANY_OBS, MAX_SEATS)
OBS_COMPANIES = OBS.add("companies", (MAX_SEATS, COMPANY_OBS_SIZE), low=_lo, high=_hi)
_lo, _hi = PLANE.bounds(np.float64)
OBS_PLANS = OBS.add("plans", (MAX_SEATS, CANVAS_R, CANVAS_C, PLANE_CH), low=_lo, high=_hi)
OBS_SIZE = OBS.size
OBS_LOW, OBS_HIGH = OBS.bounds()


@njit(cache=True)
def _clip(v):
    """A value of a field whose declared bound is OBS_CLIP, as observe() writes it (clipping
    each as it is written: a compare-and-store pass over those fields afterwards took a
    seventh of observe())."""
    return min(v, OBS_CLIP)


@njit(cache=True)
def _ego(state, player, c):
    """Ego slot (0 = player) of company c (both in ``[0, NUM_COMPANIES)``)."""
    e = c - player
    return e + state[NUM_COMPANIES] if e < 0 else e     # a branch, not an integer division


@njit(cache=True)
def observe(state, player, out):
    for i in range(OBS_SIZE):
        out[i] = 0.0
    n = state[NUM_COMPANIES]
    rd = state[ROUND]
    out[OBS_ROUND + min(rd, ROUNDS) - 1] = 1.0
    out[OBS_PHASE + state[PHASE] - PH_PLANNING] = 1.0
    if state[PENDING] >= 0 and state[CURRENT] == player:
        out[OBS_PENDING + state[PENDING]] = 1.0
    out[OBS_REVEALED] = state[REVEALED]
    for t in range(NUM_TECHS):
        out[OBS_TECH_SIDE + t] = state[TECH_SIDE + t]
        out[OBS_TECH_COST + t] = _clip((TECH_COST[t] - (PATENT_DROP if state[PATENT + t] >= 0 else 0)) / 10.0)
        h = state[PATENT + t]
        out[OBS_PATENT + t * NOBODY + (MAX_SEATS if h < 0 else _ego(state, player, h))] = 1.0
    for s in range(DISPLAY_SIZE):
        t = state[DISPLAY + s]
        out[OBS_DISPLAY + s * (NUM_TILE_TYPES + 1) + (NUM_TILE_TYPES if t < 0 else t)] = 1.0
    out[OBS_TOKENS] = _clip(state[TOKENS_LEFT] / 20.0)
    out[OBS_STACK] = _clip(state[STACK_SIZE] / 22.0)
    out[OBS_BONUS_KIND + state[BONUS_KIND]] = 1.0
    out[OBS_BONUS_LEFT] = _clip(state[BONUS_LEFT] / 3.0)
    if state[PENDING] == P_OFFICE_TARGET and state[OFFICE_KIND] != OT_NONE:
        out[OBS_OFFICE_KIND + state[OFFICE_KIND] - OT_WIFI] = 1.0
    if state[MOVE_SOURCE] >= 0:
        out[OBS_MOVE_SOURCE + state[MOVE_SOURCE]] = 1.0
    for r in range(NUM_REGIONS):
        o = OBS_REGIONS + r * REGION_OBS_SIZE
        t = state[RETAILER + r]
        if t >= 0:
            out[o + RO_RETAILER] = 1.0
            out[o + RO_BONUS + RT_BONUS[t, state[RETAILER_SIDE + r]]] = 1.0
            out[o + RO_BONUS_AMOUNT] = _clip(RT_N[t, state[RETAILER_SIDE + r]] / 3.0)
            for s in range(MAX_RSLOT):
                q = state[RETAILER_OFFICES + r * MAX_RSLOT + s]
                out[o + RO_RETAILER_OFFICES + s * NOBODY + (MAX_SEATS if q < 0 else _ego(state, player, q))] = 1.0
        for s in range(MAX_SLOTS):
            q = state[OFFICES + r * MAX_SLOTS + s]
            out[o + RO_OFFICES + s * NOBODY + (MAX_SEATS if q < 0 else _ego(state, player, q))] = 1.0
        for c in range(n):
            out[o + RO_MARKERS + _ego(state, player, c)] = _clip(state[MARKERS + r * MAX_SEATS + c] / 4.0)
        for bb in range(MAX_BUY):
            q = state[BUYERS + r * MAX_BUY + bb]
            out[o + RO_BUYERS + bb * NOBODY + (MAX_SEATS if q < 0 else _ego(state, player, q))] = 1.0
            code = REG_BUY[r, bb]
            if code >= 100:
                out[o + RO_PRINTED_BUYERS + bb * (1 + NUM_TECHS) + 1 + code - 100] = 1.0
            elif code > 0:
                out[o + RO_PRINTED_BUYERS + bb * (1 + NUM_TECHS)] = _clip(code / 10.0)
        out[o + RO_SIZE + REG_SIZE[r]] = 1.0
        out[o + RO_COST] = _clip(REG_COST[r] / 4.0)
    for c in range(n):
        e = _ego(state, player, c)
        o = OBS_COMPANIES + e * COMPANY_OBS_SIZE
        b = company_base(c)
        out[o + CO_PRESENT] = 1.0
        out[o + CO_STEVE] = 1.0 if c == state[STEVE] else 0.0
        out[o + CO_COMMITTED] = state[b + C_COMMITTED]
        out[o + CO_TO_MOVE] = 1.0 if c == state[CURRENT] else 0.0
        out[o + CO_VP] = _clip(state[b + C_VP] / 100.0)
        out[o + CO_START_VP] = _clip(state[b + C_START_VP] / 5.0)
        out[o + CO_PRICE] = _clip(state[b + C_PRICE] / 10.0)
        out[o + CO_READY] = _clip(state[b + C_READY] / 18.0)
        out[o + CO_TOKENS] = _clip(state[b + C_TOKENS] / 20.0)
        for k in range(state[b + C_NUM_TILES]):
            out[o + CO_TILES + state[b + C_TILES + k]] += 1.0 / 3.0
            out[o + CO_TILE_SEQUENCE + k * NUM_TILE_TYPES + state[b + C_TILES + k]] = 1.0
        for k in range(NUM_TILE_TYPES):
            out[o + CO_TILES + k] = _clip(np.float64(out[o + CO_TILES + k]))
        out[o + CO_IMPROVE_LEFT] = state[b + C_IMPROVE_LEFT]
        for t in range(NUM_TECHS):
            out[o + CO_OWNS + t] = state[b + C_OWNS + t]
            out[o + CO_TECH_MARKERS + t] = _clip(state[b + C_TECH_MARKERS + t] / 6.0)
            out[o + CO_TECH_LOCKED + t] = state[b + C_LOCKED + t]
        out[o + CO_RESEARCH_LEFT] = _clip(state[b + C_RESEARCH_LEFT] / 6.0)
        out[o + CO_LOGISTICS_LEFT] = _clip(state[b + C_LOGISTICS_LEFT] / 8.0)
        out[o + CO_OFFICES_USED] = _clip(state[b + C_OFFICES_USED] / 18.0)
        out[o + CO_SOLD] = _clip(state[b + C_SOLD] / 18.0)
        if state[REVEALED] != 0:
            for k in range(PLAN_OUTCOME_SIZE):
                out[o + CO_OUTCOME + k] = _clip(state[b + C_OUTCOME + k] / 10.0)
        out[o + CO_COLOUR + state[b + C_COLOUR]] = 1.0
        if state[PHASE] >= PH_IMPROVEMENT and state[PHASE] <= PH_SELLING:
            for i in range(n):
                if state[ORDER + i] == c:
                    out[o + CO_TURN_ORDER + i] = 1.0
        # plan planes: own plan always, others only once revealed
        if c == player or state[REVEALED] != 0:
            po = OBS_PLANS + e * NUM_CELLS * PLANE_CH
            _write_planes(state, c, out, po)
            if c != state[STEVE]:
                _write_plan_details(state, c, out, o)


@njit(cache=True)
def _write_planes(state, c, out, po):
    icon = state[SCR_ICON:SCR_ICON + NUM_CELLS]
    src = state[SCR_SOURCE:SCR_SOURCE + NUM_CELLS]
    if c == state[STEVE]:
        if state[REVEALED] == 0:
            return
        cov = STEVE_CYCLE[(state[ROUND] - 1) % STEVE_CYCLE.shape[0]]
        for v in range(NUM_STEVE_CELLS):
            cell = STEVE_CELLS[v]
            if v == cov:
                out[po + cell * PLANE_CH + CH_SOURCE + 1] = 1.0        # covered by his marker
            else:
                out[po + cell * PLANE_CH + CH_ICON + STEVE_PAD[v]] = 1.0
                out[po + cell * PLANE_CH + CH_SOURCE] = 1.0
        return
    p = plan_base(c)
    paint(state, c, icon, src, state[p + PL_COUNT])
    for i in range(NUM_CELLS):
        if icon[i] >= 0:
            out[po + i * PLANE_CH + CH_ICON + icon[i]] = 1.0
            s = src[i]
            out[po + i * PLANE_CH + CH_SOURCE + (s if s < 3 else 3) - 1] = 1.0
    # every face-up tile's cells, visible or not: under-tiles, over-tiles (counts)
    for k in range(state[p + PL_COUNT]):
        code = state[p + PL_ORDER_CODE + k]
        if code == FACE_DOWN:
            continue
        ch = CH_OVER if (code & 1) == 0 else CH_UNDER
        d = code >> 2
        for cell in (DOM_A[d], DOM_B[d]):
            out[po + cell * PLANE_CH + ch] = min(out[po + cell * PLANE_CH + ch] + 1.0, OBS_CLIP)


@njit(cache=True)
def _write_plan_details(state, c, out, o):
    """Company record fields CO_PLAN_* of c's plan (a company's own plan, or any revealed one)."""
    p = plan_base(c)
    if state[p + PL_W_SIDE] < 0:
        return
    out[o + CO_PLAN_W_SIDE + state[p + PL_W_SIDE]] = 1.0
    out[o + CO_PLAN_B_SIDE + state[p + PL_B_SIDE]] = 1.0
    a = state[p + PL_ARRANGE]
    if a >= 0:
        i = a % 60
        out[o + CO_PLAN_ARRANGED] = 1.0
        out[o + CO_PLAN_W_ON_TOP] = 1.0 if a < 60 else 0.0
        out[o + CO_PLAN_ROTATION + ARR_K[i]] = 1.0
        out[o + CO_PLAN_TOP_ROW] = ARR_RC[i, 0] / 8.0
        out[o + CO_PLAN_TOP_COL] = ARR_RC[i, 1] / 8.0
    for k in range(state[p + PL_COUNT]):
        u = state[p + PL_ORDER_TILE + k]
        code = state[p + PL_ORDER_CODE + k]
        t = o + CO_PLAN_TILES + u * PT_SZ
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
    if (state[PHASE] == PH_PLANNING and state[OVER] == 0 and state[PENDING] == P_TILE_PLACE
            and state[CURRENT] == c and state[PLAN_STAGE] == P_TILE_PLACE):
        out[o + CO_PLAN_TILES + state[PICKED_TILE] * PT_SZ + PT_PICKED] = 1.0


# ======================================================================== hidden information
@njit(cache=True)
def _random_plan(state, c, gen):
    """Replace c's plan by a uniformly-stepped random legal committed plan (``gen``: 2-slot rng)."""
    # int8 like legal_mask's mask (a byte view of the scratch words), so _plan_mask compiles once
    mask = state[SCR_MASK:SCR_MASK + NUM_ACTIONS].view(np.int8)[:NUM_ACTIONS]
    save_seat = state[PLAN_SEAT]
    save_stage = state[PLAN_STAGE]
    save_tile = state[PICKED_TILE]
    _reset_plan(state, c)
    state[PLAN_STAGE] = P_SIDES
    while True:
        for i in range(NUM_ACTIONS):
            mask[i] = 0
        _plan_mask(state, c, mask)
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
        done = state[PLAN_STAGE] == P_TILE_PICK and a == A_TILE_PICK + MAX_TILES
        _plan_apply(state, c, a)
        if done:
            break
    state[PLAN_SEAT] = save_seat
    state[PLAN_STAGE] = save_stage
    state[PICKED_TILE] = save_tile


@njit(cache=True)
def reseed(state, seed):
    rng.seed_rng(state, RNG, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    """Re-draw what ``observer`` cannot see: others' unrevealed plans and future chance."""
    gen = state[SCR_GEN:SCR_GEN + 2]
    rng.seed_rng(gen, 0, seed + 7919)
    if state[OVER] == 0 and state[PHASE] == PH_PLANNING:
        s = state[PLAN_SEAT]
        for c in range(state[NUM_PLAYERS]):
            if c == observer:
                continue
            if c < s:
                _random_plan(state, c, gen)
            elif c == s:
                _reset_plan(state, c)
                state[PLAN_STAGE] = P_SIDES
                state[PICKED_TILE] = 0    # the picked tile of a secret plan
    reseed(state, seed)


# ========================================================================== greedy heuristic
def _pad_rows():
    """Outcome vector of every tile-less pad plan, row 120*sides + arrangement (same
    numbers as :func:`pad_plan_outcomes`, built in Python so importing compiles nothing)."""
    rows = np.zeros((4 * NUM_ARRANGEMENTS, PLAN_OUTCOME_SIZE), dtype=np.int64)
    bottom = set(int(x) for x in BOTTOM_CELLS)
    for sides in range(4):
        sd = (sides // 2, sides % 2)
        for a in range(NUM_ARRANGEMENTS):
            top = 0 if a // 60 == 0 else 1
            bot = 1 - top
            vis = {int(BOTTOM_CELLS[v]): int(PAD_ICONS[bot, sd[bot], v]) for v in range(6)}
            cov = 0
            for v in range(6):
                cell = int(ARR_CELLS[a % 60, v])
                cov += cell in bottom
                vis[cell] = int(PAD_ICONS[top, sd[top], v])
            cnt = [0] * NUM_ICONS
            for i in vis.values():
                cnt[i] += 1
            imps = int((PAD_ICONS[0, sd[0]] == IMP).sum() + (PAD_ICONS[1, sd[1]] == IMP).sum())
            rows[sides * NUM_ARRANGEMENTS + a] = (cov, cnt[CHEAP], cnt[IMP], imps - cnt[IMP], cnt[PRICE_UP] - cnt[CHEAP],
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
def _value_logistics(r):
    return H_LOG * (ROUNDS - r + 0.5)


@njit(cache=True)
def _value_research(r):
    return H_RES_PAT + H_RES * (ROUNDS - r + 0.5)


@njit(cache=True)
def _value_tile(r):
    return H_TILE * (ROUNDS - r) if IMP_ROUND[r] != 0 else 0.0


@njit(cache=True)
def _value_token(r):
    return H_TOKEN * (ROUNDS - r) if IMP_ROUND[r] != 0 else 0.0


@njit(cache=True)
def _value_improvement(imp, r):
    """Phase 4 of round r for a plan whose outcome has ``imp`` (its PO_IMP): a tile with an
    active IMP, else a token.  Takes the number, not the outcome row, which is read-only in
    the pad tables and writable elsewhere (two numba specialisations)."""
    return _value_tile(r) if imp > 0 else _value_token(r)


@njit(cache=True)
def _static_buyers(state, c, r, price):
    """Buyers of region r that would buy from c at ``price`` in an empty round."""
    n = 0
    for b in range(REG_NBUY[r]):
        n += _buys_at(state, c, REG_BUY[r, b], price)
    return n


@njit(cache=True)
def _future_caps(state, c, capf):
    """capf[P]: goods c could sell in a later round at price P with its current offices
    and technologies (rivals' offices in a region discount its buyers by H_SHARED)."""
    for pr in range(PRICE_MAX + 1):
        capf[pr] = 0.0
    no_office = _effect_amount(state, c, E_SELL_NO_OFFICE) > 0
    for r in range(NUM_REGIONS):
        if state[RETAILER + r] >= 0:
            continue
        mine = _has_region_office(state, c, r)
        if not mine and not no_office:
            continue
        w = 1.0
        for s in range(REG_NSLOT[r]):
            q = state[OFFICES + r * MAX_SLOTS + s]
            if q >= 0 and q != c:
                w = H_SHARED
        for pr in range(1, PRICE_MAX + 1):
            k = _static_buyers(state, c, r, pr)
            if not mine:
                k = min(1, k)
            capf[pr] += w * k
    direct = min(3, _effect_amount(state, c, E_DIRECT_SALE))   # NFC front sells without buyers
    for pr in range(PRICE_MAX + 1):
        capf[pr] += direct


@njit(cache=True)
def _extra_goods(state, c):
    """Goods c produces every round besides its pads: tiles face down, tokens, Li-ion back."""
    g = state[company_base(c) + C_NUM_TILES] * FACE_DOWN_GOODS + state[company_base(c) + C_TOKENS]
    if _effect_amount(state, c, E_PER_TWO) > 0:
        g += _num_techs(state, c) // 2
    return g


@njit(cache=True)
def _outcome_value(state, c, o, capf, extra, r):
    """Value of one round of c played with outcome vector o (the Python table's layout),
    selling into capf with no rival: sales plus markers, tiles and tokens it brings."""
    pr = _clamp_price(START_PRICE + o[PO_PRICE_SHIFT] + _effect_amount(state, c, E_PRICE_PLUS))
    mult = 2 if _effect_amount(state, c, E_PROD_DOUBLE) > 0 else 1
    g = min(GOODS_CAP, o[PO_GOODS] + o[PO_PROD] * mult + extra)
    log = o[PO_LOG]
    if _effect_amount(state, c, E_RES_AS_LOG) > 0:
        log += o[PO_RES]
    return (pr * min(float(g), capf[pr]) + _value_research(r) * o[PO_RES] + _value_logistics(r) * log
            + _value_improvement(o[PO_IMP], r))


@njit(cache=True)
def _best_outcome(state, c, rows, lo, hi, capf, extra, r, o):
    """Copy into o the best of rows[lo:hi] by :func:`_outcome_value`; returns its value."""
    best = -1.0e18
    for i in range(lo, hi):
        v = _outcome_value(state, c, rows[i], capf, extra, r)
        if v > best:
            best = v
            for k in range(PLAN_OUTCOME_SIZE):
                o[k] = rows[i, k]
    return best


@njit(cache=True)
def _plan_outlook(state, c, o, capf):
    """Outcome vector c's plan will have this round (planning phase): the plan so far with
    unplaced tiles face down; the best arrangement of the chosen sides; or, with no plan
    yet (a rival still to plan), the best pad outcome."""
    p = plan_base(c)
    rd = state[ROUND]
    if c == state[STEVE]:
        _steve_plan(state, c, o)
        return
    extra = state[company_base(c) + C_NUM_TILES] * FACE_DOWN_GOODS
    if state[p + PL_ARRANGE] >= 0:
        _eval_plan(state, c, o)
        o[PO_GOODS] += (state[company_base(c) + C_NUM_TILES] - state[p + PL_COUNT]) * FACE_DOWN_GOODS
        return
    base = _extra_goods(state, c) + state[company_base(c) + C_READY]
    if state[p + PL_W_SIDE] >= 0:
        lo = (2 * state[p + PL_W_SIDE] + state[p + PL_B_SIDE]) * NUM_ARRANGEMENTS
        _best_outcome(state, c, PAD_ROWS, lo, lo + NUM_ARRANGEMENTS, capf, base, rd, o)
    else:
        _best_outcome(state, c, PAD_UNIQ, np.int64(0), PAD_UNIQ.shape[0], capf, base, rd, o)
    o[PO_GOODS] += extra


@njit(cache=True)
def _sim_selling(state, goods, price, sold, gain):
    """Play the rest of this round's selling: every company still to sell places
    min(goods, capacity) goods, cheapest first, each on the region where it has the most
    room left (Steve's rule); sold[c] counts them (plus NFC-front direct sales still to
    come) and gain[c] the leadership VP the resulting buyers give."""
    n = state[NUM_COMPANIES]
    ph = state[PHASE]
    buy = state[BUYERS:BUYERS + NUM_REGIONS * MAX_BUY].copy()
    order = np.zeros(MAX_SEATS, dtype=np.int64)
    start = 0
    if ph >= PH_IMPROVEMENT:
        for i in range(n):
            order[i] = state[ORDER + i]
        if ph == PH_SELLING:
            start = state[TURN_POS]
    if ph < PH_SELLING:
        for i in range(n):
            order[i] = i
        for i in range(1, n):
            j = i
            while j > 0:
                a = order[j - 1]
                q = order[j]
                ka = (price[a], state[company_base(a) + C_VP], state[company_base(a) + C_START_VP])
                kq = (price[q], state[company_base(q) + C_VP], state[company_base(q) + C_START_VP])
                if kq < ka:
                    order[j - 1] = q
                    order[j] = a
                    j -= 1
                else:
                    break
    room = np.zeros(NUM_REGIONS, dtype=np.int64)
    for i in range(start, n):
        c = order[i]
        left = goods[c]
        if _effect_amount(state, c, E_DIRECT_SALE) > 0 and not _done_nfc(state, c):
            k = min(3, left)
            sold[c] += k
            left -= k
        for r in range(NUM_REGIONS):
            room[r] = 0
            if state[RETAILER + r] >= 0:
                continue
            e = 0
            for b in range(REG_NBUY[r]):
                e += buy[r * MAX_BUY + b] < 0 and _buys_at(state, c, REG_BUY[r, b], price[c])
            if _has_region_office(state, c, r):
                room[r] = e
            elif _effect_amount(state, c, E_SELL_NO_OFFICE) > 0:
                room[r] = min(1, e)
                for b in range(REG_NBUY[r]):
                    if buy[r * MAX_BUY + b] == c:
                        room[r] = 0
        while left > 0:
            best = -1
            for r in range(NUM_REGIONS):
                if room[r] > 0 and (best < 0 or room[r] > room[best]):
                    best = r
            if best < 0:
                break
            for b in range(REG_NBUY[best]):
                if buy[best * MAX_BUY + b] < 0 and _buys_at(state, c, REG_BUY[best, b], price[c]):
                    buy[best * MAX_BUY + b] = c
                    break
            room[best] -= 1
            sold[c] += 1
            left -= 1
    _leadership(state, buy, gain)


@njit(cache=True)
def _order_pos(state, c):
    for i in range(state[NUM_COMPANIES]):
        if state[ORDER + i] == c:
            return i
    return -1


@njit(cache=True)
def _done_nfc(state, c):
    """Whether c's NFC-front step of this round's logistics phase is behind it."""
    ph = state[PHASE]
    if ph != PH_LOGISTICS:
        return ph > PH_LOGISTICS
    k = _order_pos(state, c)
    return k < state[TURN_POS] or (k == state[TURN_POS] and state[STAGE] >= LOGISTICS_DONE)


@njit(cache=True)
def potential(state, p):
    """VP company p's position promises beyond its live score (greedy baseline).

    * This round's sales: every company's goods and price (in planning, from its plan
      as laid so far: see :func:`_plan_outlook`) are sold by :func:`_sim_selling` against
      the buyers its offices reach, cheapest first; p gets goods sold x price (goods sold
      earlier this round included) plus the leadership VP of the simulated buyers.
    * This round's icons not yet used: each research marker h_vres, logistics marker
      h_vlog, phase 4's one action (:func:`_value_improvement`: a tile or a token).
    * Progress: markers on a technology, share (markers / cost) of its free patent VP plus
      H_TECH per round left; markers on a region, share (markers / office cost) of the
      office's worth (H_USE of its buyers at price 5 per later round, or a retailer's VP).
    * Later rounds: each is worth the best pad outcome (:func:`_outcome_value`) given the
      offices, technologies, tiles and tokens p holds now (selling capacity from
      :func:`_future_caps`, so an office or a technology pays through the buyers it adds).
    * H_OFFICE per office and H_TECH per technology per round left: reach, leadership and
      effects the capacity term does not see, so completing never looks worse than waiting.
    """
    n = state[NUM_COMPANIES]
    if state[OVER] != 0 or p >= n:
        return 0.0
    rd = state[ROUND]
    ph = state[PHASE]
    capf = np.zeros(PRICE_MAX + 1)
    goods = np.zeros(MAX_SEATS, dtype=np.int64)
    price = np.zeros(MAX_SEATS, dtype=np.int64)
    o = np.zeros(PLAN_OUTCOME_SIZE, dtype=np.int64)
    op = np.zeros(PLAN_OUTCOME_SIZE, dtype=np.int64)
    for c in range(n):
        b = company_base(c)
        if ph == PH_PLANNING:
            _future_caps(state, c, capf)
            _plan_outlook(state, c, o, capf)
            price[c] = _clamp_price(START_PRICE + o[PO_PRICE_SHIFT] + _effect_amount(state, c, E_PRICE_PLUS))
            mult = 2 if _effect_amount(state, c, E_PROD_DOUBLE) > 0 else 1
            g = o[PO_GOODS] + o[PO_PROD] * mult + state[b + C_TOKENS]
            if _effect_amount(state, c, E_PER_TWO) > 0:
                g += _num_techs(state, c) // 2
            goods[c] = min(GOODS_CAP, state[b + C_READY] + g)
        else:
            price[c] = state[b + C_PRICE]
            goods[c] = state[b + C_READY]
            for k in range(PLAN_OUTCOME_SIZE):
                o[k] = state[b + C_OUTCOME + k]
        if c == p:
            for k in range(PLAN_OUTCOME_SIZE):
                op[k] = o[k]
    sold = np.zeros(MAX_SEATS, dtype=np.int64)
    gain = np.zeros(MAX_SEATS, dtype=np.int64)
    if ph <= PH_SELLING:
        _sim_selling(state, goods, price, sold, gain)
    b = company_base(p)
    v = float((state[b + C_SOLD] + sold[p]) * price[p] + gain[p])
    # icons of this round not used yet
    pos = _order_pos(state, p)
    if ph == PH_IMPROVEMENT and pos == state[TURN_POS] and state[STAGE] == IMPROVE_PICKING:
        v += _value_tile(rd) if state[b + C_IMPROVE_LEFT] > 0 else 0.0   # its display pick, owed now
    elif ph < PH_IMPROVEMENT or (ph == PH_IMPROVEMENT and pos >= state[TURN_POS]):
        v += _value_improvement(op[PO_IMP], rd)
    if ph < PH_RESEARCH:
        v += _value_research(rd) * op[PO_RES]
    elif ph == PH_RESEARCH:
        v += _value_research(rd) * state[b + C_RESEARCH_LEFT]
    if ph < PH_LOGISTICS:
        v += _value_logistics(rd) * (op[PO_LOG] + (op[PO_RES] if _effect_amount(state, p, E_RES_AS_LOG) > 0 else 0))
    elif ph == PH_LOGISTICS:
        v += _value_logistics(rd) * state[b + C_LOGISTICS_LEFT]
    # progress, assets
    left = ROUNDS - rd + 0.5
    for t in range(NUM_TECHS):
        if state[b + C_OWNS + t] != 0:
            v += H_TECH * left
        elif state[b + C_TECH_MARKERS + t] > 0:
            worth = H_TECH * left + (TECH_PVP[t] if state[PATENT + t] < 0 else 0)
            v += worth * min(1.0, state[b + C_TECH_MARKERS + t] / _tech_cost(state, t, p))
    for r in range(NUM_REGIONS):
        if _has_region_office(state, p, r):
            v += H_OFFICE * left
        m = state[MARKERS + r * MAX_SEATS + p]
        if m > 0:
            t = state[RETAILER + r]
            if t >= 0:
                s = _free_slot(state, r)
                worth = RT_SLOTVP[RT_SIZE[t], s] if s >= 0 else 0.0
            else:
                buyers = _static_buyers(state, p, r, np.int64(START_PRICE))
                worth = (ROUNDS - rd) * (H_OFFICE + H_USE * START_PRICE * buyers)
            v += worth * m / REG_COST[r]
    # later rounds
    _future_caps(state, p, capf)
    extra = _extra_goods(state, p)
    for r in range(rd + 1, ROUNDS + 1):
        v += _best_outcome(state, p, PAD_UNIQ, np.int64(0), PAD_UNIQ.shape[0], capf, extra, r, o)
    return v

