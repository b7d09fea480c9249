"""Expancity: the rules reference's test vectors, every contract and goal on a hand-built
position, random games cross-checked against the plain-Python reference, determinism,
hidden information and bad input."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reference_expancity as ref  # noqa: E402
from envs import expancity as E  # noqa: E402
from envs.shell import CityEnv  # noqa: E402
from kernels import expancity as K  # noqa: E402
from kernels import playout  # noqa: E402
from kernels.rng import new_generator  # noqa: E402
from tests import driver  # noqa: E402

SPEC = E.Spec()
TYPE = K.DEFAULT_INFO["type_ids"]
SPECIALS = [k for k in K.DEFAULT_INFO["type_keys"] if ref.CLASS[k] == "special"]
GOAL_IDX = {g: i for i, g in enumerate(K.DEFAULT_INFO["goal_ids"])}
CVP = {c["id"]: c["vp"] for c in ref.DATA["contracts"]}


# =================================================================== position builders

def fresh(n=2, goals=("G1", "G2", "G3"), seed=0):
    st = K.new_state()
    K.init(st, K.make_config(n, [GOAL_IDX[g] for g in goals]), seed)
    return st


def put(st, key, x, y, owner=-1, floors=0, done=False, score=0):
    t = K._place_tile(st, TYPE[key], x, y)
    if owner >= 0:
        st[K.TILE_OWNER + t] = owner
        st[K.TILE_FLOORS + t] = floors
        st[K.TILE_DONE + t] = int(done)
        st[K.TILE_SCORE + t] = score
    sync(st)
    return t


def sync(st):
    """Recompute the per-player building records from the tiles."""
    for p in range(K.MAX_SEATS):
        for o in (K.UNFINISHED, K.TALLEST_RES, K.TALLEST_COM, K.DONE_RES, K.DONE_COM, K.DONE_FLOORS):
            st[o + p] = 0
    for t in range(1, st[K.NUM_TILES]):
        p = st[K.TILE_OWNER + t]
        if p < 0:
            continue
        f = st[K.TILE_FLOORS + t]
        res = st[K.TILE_TYPE + t] == K.T_RES
        if st[K.TILE_DONE + t]:
            st[K.DONE_FLOORS + p] += f
            if res:
                st[K.DONE_RES + p] += 1
                st[K.TALLEST_RES + p] = max(st[K.TALLEST_RES + p], f)
            else:
                st[K.DONE_COM + p] += 1
                st[K.TALLEST_COM + p] = max(st[K.TALLEST_COM + p], f)
        else:
            st[K.UNFINISHED + p] += 1


def set_owner(st, t, owner):
    st[K.TILE_OWNER + t] = owner
    sync(st)


def to_actions(st, p, turn=5, supply=6, reserve=10):
    st[K.CURRENT] = p
    st[K.TURN] = turn
    st[K.PHASE] = K.PH_ACTION
    st[K.ACTIONS_LEFT] = 3
    st[K.PENDING_DRAWS] = 0
    st[K.SUPPLY + p] = supply
    st[K.RESERVE + p] = reserve


def legal(st):
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    K.legal_mask(st, m)
    got = set(np.flatnonzero(m).tolist())
    assert got == ref.legal_actions(ref.Pos(st)), "kernel mask differs from the reference"
    return got


def place_action(st, slot, x, y):
    cands = [(st[K.TILE_X + a] + K.DX[d] == x and st[K.TILE_Y + a] + K.DY[d] == y, a, d)
             for a in range(st[K.NUM_TILES]) for d in range(4)]
    a, d = min((a, d) for ok, a, d in cands if ok)
    return slot * K.PLACE_SLOT + a * 4 + d


def give_contract(st, p, cid):
    st[K.HELD + p * K.NUM_CONTRACTS + cid - 1] = 1
    st[K.POOL + cid - 1] = 0
    st[K.POOL_SIZE] = int(st[K.POOL:K.POOL + K.NUM_CONTRACTS].sum())
    st[K.NUM_HELD + p] += 1


def met(st, cid, p=0):
    k = bool(K._cond_holds(st, cid - 1, p))
    r = ref.contract_ok(ref.Pos(st), cid, p)
    assert k == r, f"contract {cid}: kernel {k}, reference {r}"
    return k


def score(st, p):
    return int(st[K.SCORE + p])


# =================================================================== TV-1, TV-2

def test_tv1_tv2_marys_turn():
    st = fresh(2)
    c2 = put(st, "commercial", -1, 2, 0, 2)
    put(st, "shopping_mall", 0, 2)
    c1 = put(st, "commercial", 1, 2, 0, 4)
    put(st, "residential", 2, 2)
    r1 = put(st, "residential", 0, 1, 0, 1)
    put(st, "commercial", 2, 1, 0, 4, done=True, score=12)
    put(st, "residential", 0, -1, 0, 1, done=True, score=1)
    st[K.HAND:K.HAND + 2] = [TYPE["park"], -1]
    st[K.SUPPLY] = 1
    st[K.RESERVE] = 5
    st[K.SCORE] = 13
    st[K.PHASE] = K.PH_PLACE
    st[K.CURRENT] = 0
    st[K.TURN] = 9
    give_contract(st, 0, 4)
    assert (st[K.TALLEST_RES], st[K.TALLEST_COM], st[K.UNFINISHED]) == (1, 4, 3)
    a = place_action(st, 0, 1, 1)
    assert a in legal(st) and a + K.PLACE_SLOT not in legal(st)
    K.step(st, a)
    assert st[K.PHASE] == K.PH_ACTION
    for act in (K.A_BUILD + r1, K.A_GATHER, K.A_BUILD + c1):
        assert act in legal(st)
        K.step(st, act)
    assert st[K.PHASE] == K.PH_ROOF
    lg = legal(st)
    assert K.A_ROOF + c2 not in lg and {K.A_ROOF + r1, K.A_ROOF + c1, K.A_STOP} <= lg
    K.step(st, K.A_ROOF + r1)
    assert score(st, 0) == 13 + 4                               # TV-1
    K.step(st, K.A_ROOF + c1)
    assert score(st, 0) == 13 + 4 + 15                          # TV-2
    assert st[K.TILE_SCORE + r1] == 4 and st[K.TILE_SCORE + c1] == 15
    # C2 cannot be roofed: roofing ended by itself, two contract draws follow
    assert st[K.PHASE] == K.PH_CONTRACT_KEEP
    for _ in range(2):
        K.step(st, K.A_KEEP_CONTRACT)
    assert st[K.POOL_SIZE] + st[K.QUEUE_LEN] == 50 - 1 - 2           # contract 4 was dealt to Mary
    assert st[K.REVEALED + 3] == 1, "contract 4 (Picnic) must be revealed at step 4"
    extra = sum(CVP[c + 1] for c in range(K.NUM_CONTRACTS) if st[K.REVEALED + c]) - CVP[4]
    assert score(st, 0) == 13 + 4 + 15 + CVP[4] + extra
    assert (st[K.TALLEST_RES], st[K.TALLEST_COM], st[K.UNFINISHED]) == (2, 5, 1)


# =================================================================== TV-3 .. TV-6

def test_tv3_vacant_versus_built():
    assert E.building_score("residential", 3, ["park", "vacant", "vacant", "building"]) == 0


def test_tv4_negative_score():
    assert E.building_score("residential", 2, ["stadium", "vacant", "vacant", "none"]) == -4
    st = fresh(2)
    b = put(st, "residential", 5, 5, 0, 2)
    put(st, "stadium", 5, 6)
    put(st, "residential", 6, 5)
    put(st, "commercial", 5, 4)
    st[K.SCORE] = 2
    st[K.CURRENT] = 0
    assert K._roof_building(st, 0, b) == -4
    assert score(st, 0) == -2


def test_tv5_stacking():
    assert E.building_score("commercial", 4, ["stadium", "shopping_mall", "shopping_mall", "park"]) == 32


def test_tv6_city_hall_and_frozen_scores():
    assert E.building_score("commercial", 4, ["city_hall", "none", "none", "none"]) == 4
    st = fresh(2)
    b = put(st, "commercial", 1, 0, 0, 4)
    assert K._roof_building(st, 0, b) == 4
    put(st, "residential", 2, 0)
    put(st, "stadium", 1, 1)
    assert st[K.TILE_SCORE + b] == 4 and score(st, 0) == 4


def test_building_score_matches_kernel_formula_and_rejects_bad_input():
    rs = np.random.default_rng(1)
    sides = ["none", "vacant", "building", "city_hall"] + SPECIALS
    for _ in range(200):
        kind = ["residential", "commercial"][rs.integers(2)]
        nb = [sides[i] for i in rs.integers(len(sides), size=4)]
        f = int(rs.integers(1, 9))
        assert E.building_score(kind, f, nb) == ref.score_sides(kind, f, nb)
    with pytest.raises(ValueError):
        E.building_score("industrial", 1, ["none"] * 4)
    with pytest.raises(ValueError):
        E.building_score("residential", 1, ["lake", "none", "none", "none"])


# =================================================================== TV-7 .. TV-10

def test_tv7_residential_height_limit():
    st = fresh(2)
    x = put(st, "residential", 1, 0)
    y = put(st, "residential", -1, 0)
    z = put(st, "residential", 0, 1)
    to_actions(st, 0, turn=3)
    assert K.A_BUILD + x in legal(st)
    K.step(st, K.A_BUILD + x)
    assert K.A_BUILD + x not in legal(st)       # one floor per building per turn
    assert K.A_BUILD + y in legal(st)
    K.step(st, K.A_BUILD + y)
    K.step(st, K.A_GATHER)
    assert st[K.PHASE] == K.PH_ROOF
    K.step(st, K.A_ROOF + x)
    assert st[K.TALLEST_RES] == 1
    K.step(st, K.A_STOP)
    while st[K.CURRENT] == 0 and st[K.PHASE] != K.PH_PLACE:
        K.step(st, K.A_KEEP_CONTRACT if st[K.PHASE] == K.PH_CONTRACT_KEEP else K.A_KEEP_TILE)
    to_actions(st, 0, turn=5)
    assert K.A_BUILD + y in legal(st)            # floor 2 <= R + 1 = 2
    K.step(st, K.A_BUILD + y)
    to_actions(st, 0, turn=7)
    assert K.A_BUILD + y not in legal(st)        # floor 3 > R + 1 = 2
    assert K.A_BUILD + z in legal(st)            # a new 1-floor residential: always
    # if Y had been roofed at 2 floors: R = 2 and floor 3 on another 2-floor residential is legal
    st[K.TILE_DONE + y] = 1
    w = put(st, "residential", 0, -1, 0, 2)
    assert st[K.TALLEST_RES] == 2
    assert K.A_BUILD + w in legal(st)


def test_tv8_commercial_fifth_floor():
    st = fresh(2)
    k = put(st, "commercial", 1, 0, 0, 4)
    lt = put(st, "commercial", -1, 0, 0, 3)
    to_actions(st, 0, turn=3)
    lg = legal(st)
    assert K.A_BUILD + k not in lg and K.A_BUILD + lt in lg
    K.step(st, K.A_BUILD + lt)
    K.step(st, K.A_GATHER)
    K.step(st, K.A_GATHER)
    assert {K.A_ROOF + k, K.A_ROOF + lt} <= legal(st)
    K.step(st, K.A_ROOF + k)
    assert st[K.TALLEST_COM] == 4
    assert K.A_ROOF + lt in legal(st)
    K.step(st, K.A_STOP)
    to_actions(st, 0, turn=5)
    assert K.A_BUILD + lt in legal(st)
    K.step(st, K.A_BUILD + lt)
    assert st[K.TILE_FLOORS + lt] == 5
    st[K.TILE_DONE + lt] = 1
    sync(st)
    assert st[K.TALLEST_COM] == 5
    m = put(st, "commercial", 0, 1, 0, 5)
    n7 = put(st, "commercial", 0, -1, 0, 6)
    to_actions(st, 0, turn=7)
    lg = legal(st)
    assert K.A_BUILD + m in lg and K.A_BUILD + n7 not in lg
    # a 3-floor commercial cannot be roofed
    t3 = put(st, "commercial", 2, 0, 0, 3)
    st[K.PHASE] = K.PH_ROOF
    assert K.A_ROOF + t3 not in legal(st)


def test_tv9_three_unfinished():
    st = fresh(2)
    bs = [put(st, "residential", 1, 0, 0, 1), put(st, "commercial", -1, 0, 0, 2),
          put(st, "commercial", 0, 1, 0, 1)]
    lots = [put(st, "residential", 0, -1), put(st, "commercial", 1, 1)]
    to_actions(st, 0, turn=3, supply=3)
    for _ in range(3):
        lg = legal(st)
        assert not any(K.A_BUILD + t in lg for t in lots)
        raise_ = [K.A_BUILD + b for b in bs if K.A_BUILD + b in lg]
        assert raise_ or K.A_GATHER in lg
        K.step(st, raise_[0] if raise_ else K.A_GATHER)
    assert st[K.PHASE] == K.PH_ROOF
    K.step(st, K.A_ROOF + bs[0])
    assert st[K.UNFINISHED] == 2
    to_actions(st, 0, turn=5, supply=3)
    assert all(K.A_BUILD + t in legal(st) for t in lots)


def test_tv10_forfeit():
    st = fresh(2)
    a = put(st, "residential", 1, 0, 0, 1)
    b = put(st, "commercial", -1, 0, 0, 2)
    e = put(st, "commercial", 0, 1, 0, 4)
    put(st, "residential", 0, -1)
    to_actions(st, 0, turn=3, supply=1, reserve=0)
    assert legal(st) == {K.A_BUILD + b}
    K.step(st, K.A_BUILD + b)
    assert st[K.PHASE] == K.PH_ROOF and st[K.ACTIONS_LEFT] == 0
    lg = legal(st)
    assert K.A_ROOF + a in lg and K.A_ROOF + e in lg and K.A_ROOF + b not in lg
    # any supply gives the same result
    st2 = fresh(2)
    for args in (("residential", 1, 0, 0, 1), ("commercial", -1, 0, 0, 2), ("commercial", 0, 1, 0, 4)):
        put(st2, *args)
    to_actions(st2, 0, turn=3, supply=5, reserve=0)
    K.step(st2, K.A_BUILD + b)
    assert st2[K.PHASE] == K.PH_ROOF


def test_forfeit_at_turn_start_skips_to_roofing():
    st = fresh(2)
    put(st, "commercial", 1, 0, 0, 4)
    put(st, "commercial", -1, 0, 0, 4)
    put(st, "commercial", 0, 1, 0, 4)
    st[K.HAND:K.HAND + 2] = [TYPE["park"], -1]
    st[K.SUPPLY] = 3
    st[K.RESERVE] = 0
    K.step(st, place_action(st, 0, 0, -1))
    assert st[K.PHASE] == K.PH_ROOF


# =================================================================== TV-11 .. TV-15

def test_tv11_adjacency_lists_need_distinct_tiles():
    st = fresh(2)
    put(st, "residential", 5, 5, 0, 1)
    put(st, "park", 5, 6)
    put(st, "residential", 6, 5)
    assert not met(st, 40)
    put(st, "park", 5, 4)
    assert met(st, 40)
    st = fresh(2)
    put(st, "commercial", 5, 5, 0, 1)
    put(st, "shopping_mall", 5, 6)
    assert not met(st, 39)
    put(st, "shopping_mall", 4, 5)
    assert met(st, 39)
    st = fresh(2)
    put(st, "residential", 5, 5, 0, 1)
    put(st, "wine_bar", 5, 6)
    put(st, "residential", 8, 5, 0, 1)
    put(st, "school", 9, 5)
    assert not met(st, 1)
    put(st, "school", 5, 4)
    assert met(st, 1)


def test_tv12_lines():
    st = fresh(2)
    ts = [put(st, "residential", x, 0, 0, 1) for x in (3, 4, 5)]
    assert met(st, 19)
    set_owner(st, ts[1], 1)
    assert not met(st, 19)
    st = fresh(2)
    put(st, "residential", 3, 0, 0, 1)
    put(st, "residential", 4, 0, 0, 1)
    put(st, "residential", 4, 1, 0, 1)
    assert not met(st, 19)
    st = fresh(2)
    for y, k in zip((2, 3, 4, 5), ("residential", "commercial", "residential", "commercial")):
        put(st, k, 0, y, 0, 1)
    assert met(st, 21) and not met(st, 19) and not met(st, 20) and not met(st, 22)


def test_tv13_squares():
    st = fresh(2)
    put(st, "commercial", 1, 1, 0, 1)
    for x, y in ((2, 1), (1, 2), (2, 2)):
        put(st, "residential", x, y, 0, 1)
    assert met(st, 23) and not met(st, 47)
    st = fresh(2)
    for x, y in ((1, 1), (2, 1), (1, 2), (2, 2)):
        put(st, "residential", x, y, 0, 1)
    assert met(st, 23) and met(st, 47)
    # contract 24: block x 0..2, y 0..2 with City Hall at (0,0)
    st = fresh(2)
    put(st, "residential", 1, 1, 0, 1)
    lot = put(st, "residential", 2, 2)
    specials = iter(["park", "bank", "school", "cathedral", "police_station", "wine_bar", "park"])
    for x, y in ((1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2)):
        put(st, next(specials), x, y)
    assert not met(st, 24)
    st[K.TILE_OWNER + lot] = 1
    st[K.TILE_FLOORS + lot] = 1
    assert met(st, 24)
    # an empty cell (0,2) spoils the block whatever else holds
    st = fresh(2)
    put(st, "residential", 1, 1, 0, 1)
    for x, y in ((1, 0), (2, 0), (0, 1), (2, 1), (1, 2), (2, 2)):
        put(st, "park", x, y)
    assert not met(st, 24)


def test_tv14_exact_floors_and_completion():
    st = fresh(2)
    put(st, "residential", 1, 0, 0, 3, done=True)
    put(st, "residential", 3, 0, 0, 2, done=True)
    u = put(st, "residential", 5, 0, 0, 3)
    assert not met(st, 32)
    K._roof_building(st, 0, u)
    assert met(st, 32)
    st = fresh(2)
    put(st, "commercial", 5, 5, 0, 7, done=True)
    put(st, "wine_bar", 5, 6)
    assert not met(st, 3)
    st[K.TILE_FLOORS + 1] = 6
    assert met(st, 3)


def test_tv15_shared_tile_and_touching():
    st = fresh(2)
    put(st, "park", 5, 5)
    put(st, "park", 9, 5)
    put(st, "residential", 5, 6, 0, 1)
    put(st, "commercial", 9, 6, 0, 1)
    assert not met(st, 4)
    put(st, "commercial", 4, 5, 0, 1)
    assert met(st, 4)
    st = fresh(2)
    put(st, "residential", 1, 0, 0, 1)
    put(st, "commercial", 0, -1, 0, 1)
    assert met(st, 44)
    st = fresh(2)
    put(st, "bank", 5, 5)
    for x, y in ((5, 6), (6, 5), (5, 4)):
        put(st, "residential", x, y, 0, 1)
    assert met(st, 45)
    st = fresh(2)
    for x, y in ((1, 0), (0, 1), (-1, 0)):
        put(st, "residential", x, y, 0, 1)
    assert not met(st, 45) and met(st, 44)
    st = fresh(2)
    put(st, "commercial", 4, 4, 0, 4, done=True)
    put(st, "commercial", 5, 4, 0, 4, done=True)
    assert met(st, 36)
    st = fresh(2)
    put(st, "commercial", 4, 4, 0, 4, done=True)
    put(st, "commercial", 5, 5, 0, 4, done=True)
    assert not met(st, 36) and not met(st, 37)
    put(st, "residential", 4, 3, 0, 1, done=True)
    assert met(st, 37)


# =================================================================== TV-16 .. TV-20

def test_tv16_goal_splits():
    st = fresh(3, goals=("G2", "G4", "G1"))
    x = 2
    for p, k in ((0, 3), (1, 3), (2, 1)):
        for _ in range(k):
            put(st, "commercial", x, 10, p, 4, done=True)
            x += 2
    for p in range(3):
        st[K.REVEALED + p * K.NUM_CONTRACTS + p] = 1
        st[K.NUM_REVEALED + p] = 1
    K._end_game(st)
    # G2 5,5,0; G4 3,3,3; G1 (tallest: 4,4,4) 3,3,3
    assert list(st[K.GOAL_POINTS:K.GOAL_POINTS + 3]) == [5 + 3 + 3, 5 + 3 + 3, 0 + 3 + 3]
    assert list(st[K.GOAL_POINTS:K.GOAL_POINTS + 3]) == ref.goal_points(ref.Pos(st), [1, 3, 0])
    st = fresh(3, goals=("G1", "G3", "G5"))
    K._end_game(st)
    assert list(st[K.GOAL_POINTS:K.GOAL_POINTS + 3]) == [0, 0, 0]   # nobody completed anything
    st = fresh(4, goals=("G4", "G1", "G2"))
    for p in range(4):
        st[K.NUM_REVEALED + p] = 2
        st[K.REVEALED + p * K.NUM_CONTRACTS + 2 * p: K.REVEALED + p * K.NUM_CONTRACTS + 2 * p + 2] = 1
    K._end_game(st)
    assert list(st[K.GOAL_POINTS:K.GOAL_POINTS + 4]) == [2, 2, 2, 2]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tv17_game_length(n):
    st = fresh(n, seed=n)
    turns = {p: 0 for p in range(n)}
    bag_after_deal = 60 - 2 * n
    assert st[K.BAG_SIZE] == bag_after_deal
    now = {"last": None}

    def before_move(st, step, mask, rng):
        t, p = int(st[K.TURN]), int(st[K.CURRENT])
        assert p == (t - 1) % n
        if st[K.PHASE] == K.PH_PLACE:
            turns[p] += 1
            hs = sum(1 for s in range(2) if st[K.HAND + 2 * p + s] >= 0)
            missing = sum(1 for k in range(1, 61) if t - k * n > bag_after_deal)
            assert hs == 2 - missing >= 1
            now["bag_before"] = int(st[K.BAG_SIZE])
        now["t"], now["p"] = t, p

    def after_move(st, step, action):
        t, p = now["t"], now["p"]
        if K.current_player(st) != p:
            if t <= bag_after_deal:
                assert now["bag_before"] - st[K.BAG_SIZE] == 1
            if t == bag_after_deal:
                assert st[K.BAG_SIZE] == 0
            now["last"] = (t, p)

    driver.play_kernel(K, st, n, before_move=before_move, after_move=after_move, max_steps=SPEC.max_steps)
    assert now["last"] == (60, n - 1)
    assert all(v == 60 // n for v in turns.values())
    assert st[K.NUM_TILES] == 61 and st[K.BAG_SIZE] == 0


def test_player_count_table_of_the_data():
    for row in ref.DATA["player_counts"]:
        st = fresh(row["players"])
        assert st[K.BAG_SIZE] == row["bag_after_deal"]
        assert row["total_turns"] == K.MAX_TILES - 1 and row["turns_per_player"] * row["players"] == 60
        assert row["last_seat"] == row["players"] - 1 and st[K.CURRENT] == 0


def test_evaluate_hook():
    st = fresh(2)
    put(st, "commercial", 1, 0, 0, 2)            # counted at 4 floors: 4 x (1 + 0) = 4
    put(st, "park", 2, 0)                        # +1 per floor -> 8
    st[K.SCORE:K.SCORE + 2] = [10, 4]
    assert K.potential(st, 0) == 8 and K.potential(st, 1) == 0
    assert SPEC.evaluate(st, SPEC.configure(), 0) == 10 + 4 - 4
    assert SPEC.evaluate(st, SPEC.configure(), 1) == 4 - 14


def test_tv18_tie_break():
    """TV-18 (ruling 21, revised): final VP 41 and 41 with 7 and 6 completed buildings ->
    a shared win, both rank 1 (reward 0 each with 2 players); 41 and 40 -> the 41 wins
    whatever the buildings."""
    from kernels.outcome import rank_rewards, winning_seats
    st = fresh(2)
    out = np.zeros(2, dtype=np.int64)
    rewards = np.zeros(2)
    for vp, done, ranks, reward in (([41, 41], [7, 6], [1, 1], [0.0, 0.0]),
                                    ([41, 41], [0, 9], [1, 1], [0.0, 0.0]),
                                    ([41, 40], [6, 7], [1, 2], [1.0, -1.0]),
                                    ([40, 41], [7, 6], [2, 1], [-1.0, 1.0])):
        st[K.SCORE:K.SCORE + 2] = vp
        st[K.DONE_RES:K.DONE_RES + 2] = done
        K.ranks(st, out)
        assert list(out) == ranks == ref.ranks(vp)
        rank_rewards(out, 2, rewards)
        assert list(rewards) == reward
        assert winning_seats(out, 2) == [p for p in range(2) if ranks[p] == 1]
    # three players: two share the top, the third is third (standard competition ranking)
    st = fresh(3)
    out = np.zeros(3, dtype=np.int64)
    st[K.SCORE:K.SCORE + 3] = [41, 39, 41]
    st[K.DONE_RES:K.DONE_RES + 3] = [1, 9, 7]
    K.ranks(st, out)
    assert list(out) == [1, 3, 1] == ref.ranks([41, 39, 41])


def test_tv18_shared_win_through_the_environment():
    """A two-player game ending 41-41 (7 and 6 completed buildings): both players win,
    each with reward 0, in ``infos`` and rewards as the shell pays them."""
    moves = []
    driver.play(CityEnv(SPEC, num_players=2), 4,
                after_move=lambda env, step, action: moves.append(int(action)))
    env = CityEnv(SPEC, num_players=2)
    env.reset(seed=4)
    for action in moves[:-1]:       # the same random game up to its last decision
        env.step(action)
    raw = env.unwrapped
    # set the building counts and the VP so that the game ends 41-41 with 7 and 6
    # completed buildings (the last move and the goals add what they add: measured on a copy)
    st = raw._state
    st[K.DONE_RES:K.DONE_RES + 2] = [7, 6]
    st[K.DONE_COM:K.DONE_COM + 2] = [0, 0]
    last = moves[-1]
    probe = raw.clone()
    probe.step(last)
    gained = [int(probe._state[K.SCORE + p] - st[K.SCORE + p]) for p in range(2)]
    st[K.SCORE:K.SCORE + 2] = [41 - gained[0], 41 - gained[1]]
    env.step(last)
    assert all(env.terminations.values())
    info = env.infos["player_0"]
    assert info["scores"] == [41, 41]
    assert info["ranks"] == [1, 1]
    assert info["winners"] == ["player_0", "player_1"]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def _tv19_board():
    st = fresh(2)
    put(st, "residential", 1, 1, 0, 1)
    lot = put(st, "residential", 2, 2)
    for k, (x, y) in zip(["park", "bank", "school", "cathedral", "police_station", "wine_bar"],
                         ((1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2))):
        put(st, k, x, y)
    give_contract(st, 0, 24)
    return st, lot


def test_tv19_reveal_timing():
    st, lot = _tv19_board()
    to_actions(st, 1, turn=4, supply=1, reserve=0)
    assert legal(st) == {K.A_BUILD + lot}
    K.step(st, K.A_BUILD + lot)
    K.step(st, K.A_STOP)
    while st[K.CURRENT] == 1:
        K.step(st, K.A_KEEP_TILE)
    assert met(st, 24) and st[K.HELD + 23] == 1 and st[K.REVEALED + 23] == 0
    before = score(st, 0)
    K.step(st, sorted(legal(st))[0])                 # seat 0 places a tile
    while st[K.PHASE] == K.PH_ACTION:
        K.step(st, K.A_GATHER)
    if st[K.PHASE] == K.PH_ROOF:
        K.step(st, K.A_STOP)
    assert st[K.REVEALED + 23] == 1 and score(st, 0) == before + CVP[24]
    # same, but seat 1's turn is the last one of the game: no reveal
    st, lot = _tv19_board()
    y = -30
    while st[K.NUM_TILES] < 61:
        put(st, "park", 40, y)
        y += 1
    st[K.HAND:K.HAND + 8] = -1
    st[K.BAG:K.BAG + K.NUM_TYPES] = 0
    st[K.BAG_SIZE] = 0
    to_actions(st, 1, turn=60, supply=1, reserve=0)
    K.step(st, K.A_BUILD + lot)
    K.step(st, K.A_STOP)
    assert K.current_player(st) == -1
    assert st[K.REVEALED + 23] == 0 and st[K.HELD + 23] == 1


def test_tv20_placement_geometry():
    st = fresh(2)
    st[K.HAND:K.HAND + 2] = [TYPE["residential"], TYPE["park"]]
    lg = legal(st)
    places = {(d, s) for s in range(2) for d in range(4) if s * K.PLACE_SLOT + d in lg}
    assert places == {(d, s) for d in range(4) for s in range(2)}
    assert all(a < 2 * K.PLACE_SLOT and (a % K.PLACE_SLOT) // 4 == 0 for a in lg)
    st[K.HAND:K.HAND + 2] = [TYPE["park"], TYPE["park"]]
    assert not any(a >= K.PLACE_SLOT for a in legal(st))       # same type: slot 1 masked
    st2 = fresh(2)
    st2[K.HAND:K.HAND + 2] = [TYPE["park"], -1]
    cells = set()
    for a in legal(st2):
        t, d = divmod(a % K.PLACE_SLOT, 4)
        cells.add((int(st2[K.TILE_X + t] + K.DX[d]), int(st2[K.TILE_Y + t] + K.DY[d])))
    assert cells == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    put(st2, "park", 1, 0)
    st2[K.PHASE] = K.PH_PLACE
    lg = legal(st2)
    assert 1 * 4 + 0 in lg                      # (1,1) via tile 1's north edge
    # canonical anchor: tiles 0 (0,0), 1 (1,0), 2 (1,1): (0,1) is (a=0, N), not (a=2, W)
    put(st2, "park", 1, 1)
    lg = legal(st2)
    assert 0 * 4 + 0 in lg and 2 * 4 + 3 not in lg


# =================================================================== every contract, every goal

def _sel_building(st, sel, x, y, p=0):
    key = "commercial" if sel.get("type") == "com" else "residential"
    return put(st, key, x, y, p, sel.get("floors") or 1, done=sel.get("status") == "done")


def _neighbours_for(st, sel, x, y):
    """Place the tiles a selector needs around (x, y)."""
    free = [0, 1, 2, 3]
    adj = list(sel.get("adj") or [])
    if "city_hall" in adj:
        assert (x, y) == (1, 0)
        free.remove(3)
        adj.remove("city_hall")
    kinds = set()
    for cls in adj:
        key = "bank" if cls == "special" else cls
        d = free.pop(0)
        put(st, key, x + K.DX[d], y + K.DY[d])
        kinds.add(key)
    extra = [k for k in SPECIALS if k not in kinds]
    while len(kinds) < (sel.get("adj_kinds_min") or 0):
        k = extra.pop(0)
        d = free.pop(0)
        put(st, k, x + K.DX[d], y + K.DY[d])
        kinds.add(k)
    if sel.get("enclosed"):
        for d in free:
            put(st, "commercial", x + K.DX[d], y + K.DY[d], 1, 1)


def build_positive(cid):
    cond = ref.CONTRACTS[cid]["cond"]
    st = fresh(2)
    form = cond["form"]
    if form == "building":
        sel = cond["sel"]
        for k in range(cond.get("count", 1)):
            x, y = ((1, 0) if "city_hall" in (sel.get("adj") or []) else (-30 + 6 * k, 20))
            _sel_building(st, sel, x, y)
            _neighbours_for(st, sel, x, y)
    elif form == "share":
        cx, cy = (0, 0) if cond["tile"] == "city_hall" else (20, -20)
        if cond["tile"] != "city_hall":
            put(st, "bank" if cond["tile"] == "special" else cond["tile"], cx, cy)
        for d, sel in enumerate(cond["members"]):
            assert not sel.get("adj")
            _sel_building(st, sel, cx + K.DX[d], cy + K.DY[d])
    elif form == "touching":
        for i, sel in enumerate(cond["members"]):
            _sel_building(st, sel, 10 + i, 10)
    elif form == "line":
        for i in range(cond["length"]):
            _sel_building(st, cond["sel"], -20, -20 + i)
    else:
        k = cond["size"]
        centre = cond.get("centre")
        for i in range(k):
            for j in range(k):
                x, y = 30 + i, 30 + j
                if centre is not None and k % 2 == 1 and i == j == k // 2:
                    _sel_building(st, centre, x, y)
                elif isinstance(cond["cells"], dict):
                    _sel_building(st, cond["cells"], x, y)
                else:
                    put(st, "park", x, y)
    return st


@pytest.mark.parametrize("cid", sorted(ref.CONTRACTS))
def test_every_contract_on_a_hand_built_position(cid):
    st = build_positive(cid)
    assert met(st, cid, 0), f"contract {cid} should be met"
    assert not met(st, cid, 1)
    # every building of the minimal construction is needed: hand the first one to seat 1
    first = min(t for t in range(1, st[K.NUM_TILES]) if st[K.TILE_OWNER + t] == 0)
    set_owner(st, first, 1)
    assert not met(st, cid, 0), f"contract {cid} should not be met without building {first}"
    # an exact floor count is exact
    sel = ref.CONTRACTS[cid]["cond"].get("sel")
    if sel and sel.get("floors"):
        st = build_positive(cid)
        st[K.TILE_FLOORS + first] += 1
        assert not met(st, cid, 0)
    # a 'done' condition is not met by unfinished buildings
    if sel and sel.get("status") == "done":
        st = build_positive(cid)
        st[K.TILE_DONE + first] = 0
        assert not met(st, cid, 0)


def test_every_goal_metric_on_a_hand_built_position():
    st = fresh(3)
    put(st, "commercial", 1, 0, 0, 6, done=True)          # next to City Hall only
    put(st, "residential", 5, 5, 0, 2, done=True)
    put(st, "park", 5, 6)
    put(st, "residential", 9, 9, 0, 3)                    # unfinished: never counts
    put(st, "commercial", 20, 20, 1, 4, done=True)
    put(st, "commercial", 22, 20, 1, 5, done=True)
    put(st, "stadium", 23, 20)
    put(st, "residential", 30, 30, 1, 1, done=True)
    st[K.NUM_REVEALED:K.NUM_REVEALED + 3] = [1, 2, 0]
    st[K.REVEALED + 0] = 1
    st[K.REVEALED + K.NUM_CONTRACTS + 1: K.REVEALED + K.NUM_CONTRACTS + 3] = 1
    expected = {"max_floors_done": [6, 5, 0], "count_done_com": [1, 2, 0], "count_done_res": [1, 1, 0],
                "contracts_revealed": [1, 2, 0], "sum_floors_done": [8, 10, 0],
                "count_done_adj_special": [1, 1, 0]}
    pos = ref.Pos(st)
    for g, goal in enumerate(ref.GOALS):
        got = [int(K._goal_metric(st, g, p)) for p in range(3)]
        assert got == expected[goal["metric"]] == [ref.metric(pos, goal["metric"], p) for p in range(3)]


# =================================================================== random games

def _perturb_hidden(st, owner, rs):
    """Change what only ``owner`` (and nobody else) may know: its hand, its contracts,
    its drawn pairs, plus the bag contents/order and the generator."""
    s = st.copy()
    h = K.HAND + 2 * owner
    for i in range(2):
        if s[h + i] >= 0:
            s[h + i] = rs.integers(1, K.NUM_TYPES)
    s[h:h + 2] = sorted(s[h:h + 2], key=lambda v: (v < 0, v))
    held = K.HELD + owner * K.NUM_CONTRACTS
    k = int(s[held:held + K.NUM_CONTRACTS].sum())
    s[held:held + K.NUM_CONTRACTS] = 0
    free = [c for c in range(K.NUM_CONTRACTS) if not any(s[K.REVEALED + p * K.NUM_CONTRACTS + c] for p in range(K.MAX_SEATS))]
    for c in rs.choice(free, size=k, replace=False):
        s[held + c] = 1
    if s[K.CURRENT] == owner:
        if s[K.PHASE] == K.PH_CONTRACT_KEEP:
            s[K.CONTRACT_PAIR:K.CONTRACT_PAIR + 2] = rs.choice(free, size=2, replace=False)
        if s[K.PHASE] == K.PH_TILE_KEEP:
            s[K.TILE_PAIR:K.TILE_PAIR + 2] = sorted(rs.choice(np.arange(1, K.NUM_TYPES), size=2, replace=False))
    s[K.POOL:K.POOL + K.NUM_CONTRACTS] = rs.permutation(s[K.POOL:K.POOL + K.NUM_CONTRACTS])
    s[K.RNG] = rs.integers(1 << 62)
    return s


def play_checked(n, seed, check_every=1):
    """A random game (tests.driver) cross-checked against the reference at every step."""
    cfg = SPEC.configure(num_players=n)
    low, high = SPEC.observation_bounds(cfg)
    st = K.new_state()
    K.init(st, cfg.config, seed)
    goals = [int(g) for g in st[K.GOALS:K.GOALS + 3]]
    obs = np.zeros(cfg.obs_size, dtype=np.float32)
    obs2 = np.zeros(cfg.obs_size, dtype=np.float32)
    frozen = {}
    now = {}

    def before_move(st, steps, mask, rs):
        lg = set(np.flatnonzero(mask).tolist())
        pos = ref.Pos(st)
        if steps % check_every == 0 or st[K.PHASE] != K.PH_PLACE:
            assert lg == ref.legal_actions(pos)
        # counters agree with the tiles
        for q in range(n):
            assert (st[K.TALLEST_RES + q], st[K.TALLEST_COM + q], st[K.UNFINISHED + q]) \
                == (pos.R(q), pos.C(q), pos.U(q))
        if steps % 3 == 0:
            for j in range(n):
                K.observe(st, j, obs)
                assert np.isfinite(obs).all()
                assert (obs >= low).all() and (obs <= high).all(), np.flatnonzero((obs < low) | (obs > high))
                other = (j + 1 + rs.integers(n - 1)) % n
                K.observe(_perturb_hidden(st, other, rs), j, obs2)
                assert np.array_equal(obs, obs2), f"seat {j} sees hidden information of seat {other}"
        p = int(st[K.CURRENT])
        now.update(pos=pos, p=p, phase=int(st[K.PHASE]), before=score(st, p),
                   held_before=st[K.HELD + p * K.NUM_CONTRACTS: K.HELD + (p + 1) * K.NUM_CONTRACTS].copy(),
                   rev_before=st[K.REVEALED + p * K.NUM_CONTRACTS: K.REVEALED + (p + 1) * K.NUM_CONTRACTS].copy())

    def after_move(st, steps, a):
        pos, p, phase, before = now["pos"], now["p"], now["phase"], now["before"]
        expect = None
        if K.A_ROOF <= a < K.A_STOP:
            t = a - K.A_ROOF
            d = pos.tiles[t]
            sides = [ref.side_name(pos, q) for q in pos.nbrs(d)]
            expect = E.building_score(d["key"], d["floors"], sides)
            assert expect == ref.building_score_now(pos, t)
            assert st[K.TILE_SCORE + t] == expect and score(st, p) - before == expect
            frozen[t] = expect
        for t, v in frozen.items():
            assert st[K.TILE_SCORE + t] == v
        new_rev = np.flatnonzero(st[K.REVEALED + p * K.NUM_CONTRACTS: K.REVEALED + (p + 1) * K.NUM_CONTRACTS] - now["rev_before"])
        post = ref.Pos(st)
        for c in new_rev:
            assert now["held_before"][c] or phase == K.PH_CONTRACT_KEEP
            assert ref.contract_ok(post, int(c) + 1, p)
        turn_over = phase != K.PH_TILE_KEEP and (K.current_player(st) != p or st[K.PHASE] == K.PH_TILE_KEEP)
        if turn_over:
            for c in post.held[p]:
                assert not ref.contract_ok(post, c, p), f"contract {c} met but not revealed"
        if K.current_player(st) >= 0 and expect is None:
            assert score(st, p) - before == sum(CVP[int(c) + 1] for c in new_rev)

    steps = driver.play_kernel(K, st, seed, before_move=before_move, after_move=after_move,
                               max_steps=SPEC.max_steps)
    pos = ref.Pos(st)
    final = np.zeros(n, dtype=np.int64)
    K.scores(st, final)
    assert list(final) == ref.final_scores(pos, goals)
    rk = np.zeros(n, dtype=np.int64)
    K.ranks(st, rk)
    assert list(rk) == ref.ranks(list(final))
    assert st[K.TURN] == 60 and st[K.NUM_TILES] == 61
    return steps


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_match_reference(n):
    for g in range(2):
        play_checked(n, seed=100 * n + g, check_every=4)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_match_reference_many(n):
    for g in range(300):
        play_checked(n, seed=10_000 * n + g)


def test_random_games_through_the_shell():
    for n in (2, 3, 4):
        env = CityEnv(SPEC, num_players=n, render_mode="ansi")

        def before_move(env, steps, rs):
            mover = env.agent_selection
            o = env.observe(mover)
            if steps % 25 == 0:
                d = env.determinize(mover, steps)
                assert np.array_equal(d.observe(mover)["observation"], o["observation"])
                for a in env.possible_agents:
                    public = K.O_OBS_GLOBAL + K.G_UNSEEN    # up to the per-type unseen counts
                    assert np.array_equal(d.observe(a)["observation"][:public],
                                          env.observe(a)["observation"][:public])
                assert isinstance(env.render(), str)

        def choose(env, legal, rs):
            assert np.array_equal(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]), legal)
            a = driver.uniform(env, legal, rs)
            assert env.action_label(a)
            return a

        driver.play(env, 7 + n, choose=choose, before_move=before_move)
        info = env.infos[env.possible_agents[0]]
        assert info["scores"] == env.scores() and info["winners"]
        img = SPEC.picture(env._state, env.cfg).to_rgb()
        assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8


def test_determinize_keeps_public_counts_and_observer_knowledge():
    cfg = SPEC.configure(num_players=3)
    st = K.new_state()
    K.init(st, cfg.config, 5)
    gen = new_generator(3)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    for _ in range(250):
        K.legal_mask(st, mask)
        K.step(st, playout.pick_uniform(mask, gen, 0))
    d = st.copy()
    SPEC.determinize(d, cfg, 0, 11)
    o1, o2 = np.zeros(cfg.obs_size, np.float32), np.zeros(cfg.obs_size, np.float32)
    K.observe(st, 0, o1)
    K.observe(d, 0, o2)
    assert np.array_equal(o1, o2)
    # the re-dealt state is a consistent game: it plays to the end
    assert d[K.BAG_SIZE] == d[K.BAG:K.BAG + K.NUM_TYPES].sum() == st[K.BAG_SIZE]
    allc = d[K.POOL:K.POOL + K.NUM_CONTRACTS].sum() + d[K.HELD:K.HELD + 4 * K.NUM_CONTRACTS].sum() \
        + d[K.REVEALED:K.REVEALED + 4 * K.NUM_CONTRACTS].sum() + d[K.QUEUE_LEN]
    assert allc == K.NUM_CONTRACTS
    seen0 = d[K.SEEN:K.SEEN + K.NUM_CONTRACTS]
    assert not (d[K.POOL:K.POOL + K.NUM_CONTRACTS] & seen0).any(), "a card seat 0 saw went back to the pool"
    assert d[K.POOL_SIZE] == d[K.POOL:K.POOL + K.NUM_CONTRACTS].sum() == st[K.POOL_SIZE]
    assert np.array_equal(d[K.NUM_HELD:K.NUM_HELD + 4], st[K.NUM_HELD:K.NUM_HELD + 4])
    for q in range(3):
        assert d[K.HELD + q * K.NUM_CONTRACTS: K.HELD + (q + 1) * K.NUM_CONTRACTS].sum() == st[K.NUM_HELD + q]
    own = [(st[K.QUEUE + j], j) for j in range(K.NUM_CONTRACTS) if st[K.QUEUE_OWNER + j] == 0]
    live = {(st[K.QUEUE_HEAD] + i) % K.NUM_CONTRACTS for i in range(st[K.QUEUE_LEN])}
    assert all(d[K.QUEUE + j] == c for c, j in own if j in live)
    assert np.array_equal(d[K.HAND:K.HAND + 2], st[K.HAND:K.HAND + 2])
    assert np.array_equal(d[K.HELD:K.HELD + K.NUM_CONTRACTS], st[K.HELD:K.HELD + K.NUM_CONTRACTS])
    driver.play_kernel(K, d, 6, max_steps=SPEC.max_steps)
    assert K.current_player(d) == -1


# =================================================================== determinism, options

def test_determinism_and_copies():
    def run(seed, snap_at=None):
        st = K.new_state()
        K.init(st, K.make_config(3), seed)
        acts, snap = [], {}

        def after_move(st, step, a):
            acts.append(a)
            if step + 1 == snap_at:
                snap["mid"] = st.copy()
        driver.play_kernel(K, st, 99, after_move=after_move, max_steps=SPEC.max_steps)
        return st, acts, snap.get("mid")

    s1, a1, _ = run(3)
    s2, a2, mid = run(3, snap_at=120)
    assert a1 == a2 and np.array_equal(s1, s2)
    cp = mid.copy()
    for a in a1[120:]:
        K.step(mid, a)
        K.step(cp, a)
        assert np.array_equal(mid, cp)
    assert np.array_equal(mid, s1)
    s3, _, _ = run(4)
    assert not np.array_equal(s1, s3)


def test_reseed_changes_future_not_present():
    st = fresh(2, seed=1)
    o1, o2 = np.zeros(K.OBS_SIZE, np.float32), np.zeros(K.OBS_SIZE, np.float32)
    c = st.copy()
    SPEC.reseed(c, SPEC.configure(), 1234)
    for j in range(2):
        K.observe(st, j, o1)
        K.observe(c, j, o2)
        assert np.array_equal(o1, o2)
    assert c[K.RNG] != st[K.RNG]


def test_configure_options_and_errors(tmp_path):
    cfg = SPEC.configure(num_players=4, goal_ids=["G6", "G2", "G3"])
    st = K.new_state()
    K.init(st, cfg.config, 0)
    assert list(st[K.GOALS:K.GOALS + 3]) == [5, 1, 2] and st[K.NUM_PLAYERS] == 4
    for bad in ({"num_players": 1}, {"num_players": 5}, {"num_players": "2"}, {"num_players": True},
                {"goal_ids": ["G1", "G2"]}, {"goal_ids": ["G1", "G1", "G2"]}, {"goal_ids": ["G1", "G2", "G9"]},
                {"goal_ids": 3}, {"data_path": str(tmp_path / "missing.yaml")}, {"colour": "red"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SPEC.configure(**bad)
    with pytest.raises(ValueError):
        CityEnv(SPEC, no_such_option=1)


def test_data_path_corrections_take_effect(tmp_path):
    import yaml
    data = yaml.safe_load(open(K.data_files.DATA_DIR / "expancity.yaml"))
    for m in data["special_modifiers"]:
        if m["tile"] == "cathedral":
            m["residential"] = 5
    for c in data["contracts"]:
        if c["id"] == 50:
            c["vp"] = 33
            c["cond"] = {"form": "building", "sel": {"status": "any", "type": "com", "adj": ["bank"]}}
    path = tmp_path / "fixed.yaml"
    path.write_text(yaml.safe_dump(data))
    cfg = SPEC.configure(data_path=str(path))
    st = K.new_state()
    K.init(st, cfg.config, 0)
    b = put(st, "residential", 1, 0, 0, 1)
    put(st, "cathedral", 2, 0)
    assert K._roof_building(st, 0, b) == 1 + 5
    put(st, "commercial", 5, 5, 0, 1)
    put(st, "bank", 5, 6)
    assert K._cond_holds(st, 49, 0) and st[K.BLOB + K.B_CONTRACT_VP + 49] == 33
    bad = dict(data)
    bad["contracts"] = data["contracts"][:10]
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(ValueError, match="data_path"):
        SPEC.configure(data_path=str(path))


def test_observation_layout_adds_up():
    for win, size in ((21, K.OBS_SIZE + 3 + K.NUM_WIN_PLANES * 441), (0, K.OBS_SIZE), (5, K.OBS_SIZE + 3 + 14 * 25)):
        cfg = SPEC.configure(num_players=3, obs_window=win)
        assert sum(int(np.prod(s)) for _, s in SPEC.observation_layout(cfg)) == cfg.obs_size == size
        low, high = SPEC.observation_bounds(cfg)
        assert low.shape == high.shape == (size,) and (low <= high).all()
    for bad in (4, 2, 123, -1, 21.0, True):
        with pytest.raises(ValueError, match="obs_window"):
            SPEC.configure(obs_window=bad)


def test_spatial_crop():
    cfg = SPEC.configure(num_players=2, obs_window=5)
    st = K.new_state()
    K.init(st, cfg.config, 0)
    put(st, "residential", 1, 0, 1, 2, done=True)
    put(st, "stadium", 0, 1)
    put(st, "commercial", 2, 0)
    obs = np.zeros(cfg.obs_size, np.float32)
    K.observe(st, 0, obs)
    parts = dict(zip([n for n, _ in SPEC.observation_layout(cfg)],
                     np.split(obs, np.cumsum([int(np.prod(s)) for _, s in SPEC.observation_layout(cfg)])[:-1])))
    info = parts["window_info"]
    planes = parts["window"].reshape(K.NUM_WIN_PLANES, 5, 5)
    assert list(info) == [0, 1, 0]                     # bbox x 0..2, y 0..1 -> centre (1, 0)
    P = {n: i for i, n in enumerate(K.WIN_PLANES)}
    # row 0 is y = +2, column 0 is x = -1: cell (x, y) -> [2 - y, x + 1]
    assert planes[P["city_hall"], 2, 1] == 1
    assert planes[P["residential"], 2, 2] == 1 and planes[P["owner_1"], 2, 2] == 1
    assert planes[P["floors"], 2, 2] == 2 and planes[P["completed"], 2, 2] == 1
    assert planes[P["special"], 1, 1] == 1 and planes[P["mod_residential"], 1, 1] == -1
    assert planes[P["mod_commercial"], 1, 1] == 2
    assert planes[P["vacant"], 2, 3] == 1 and planes[P["legal_cell"], 2, 4] == 1
    assert planes[P["legal_cell"], 2, 1] == 0 and planes[P["legal_cell"], 0, 0] == 0
    K.observe(st, 1, obs)
    assert obs[K.O_OBS_WINDOW + 3 + (P["owner_0"] * 25) + 2 * 5 + 2] == 1   # relative owner
    put(st, "park", 4, 0)                               # bbox x 0..4 -> centre 2: all inside
    K.observe(st, 0, obs)
    assert obs[K.O_OBS_WINDOW] == 0
    put(st, "park", 5, 0)                               # x 0..5, centre 2: 5 > 4 -> outside
    K.observe(st, 0, obs)
    assert obs[K.O_OBS_WINDOW] == 1


# =================================================================== issue 14 / 15 items

def _obs(st, seat, size=K.OBS_SIZE):
    out = np.zeros(size, np.float32)
    K.observe(st, seat, out)
    return out


def _mary_two_draws():
    """TV-1/TV-2 position right after roofing two buildings: two contract draws owed."""
    st = fresh(2)
    put(st, "commercial", -1, 2, 0, 2)
    put(st, "shopping_mall", 0, 2)
    c1 = put(st, "commercial", 1, 2, 0, 4)
    put(st, "residential", 2, 2)
    r1 = put(st, "residential", 0, 1, 0, 1)
    st[K.HAND:K.HAND + 2] = [TYPE["park"], -1]
    st[K.SUPPLY] = 3
    st[K.RESERVE] = 5
    st[K.PHASE] = K.PH_PLACE
    st[K.CURRENT] = 0
    st[K.TURN] = 9
    K.step(st, place_action(st, 0, 1, 1))
    for act in (K.A_GATHER, K.A_GATHER, K.A_GATHER):
        K.step(st, act)
    K.step(st, K.A_ROOF + r1)
    K.step(st, K.A_ROOF + c1)
    assert st[K.PHASE] == K.PH_CONTRACT_KEEP and st[K.PENDING_DRAWS] == 2
    return st


def test_mover_sees_the_contract_draws_still_owed():
    """Issue 14 section 2: two CONTRACT_KEEP positions that differ only in the draws still
    owed looked the same to the mover (failed before: no such observation column)."""
    st = _mary_two_draws()
    g = K.O_OBS_GLOBAL + K.G_PENDING_DRAWS
    o2 = _obs(st, 0)
    assert o2[g] == 2 and _obs(st, 1)[g] == 2          # public: roofing is public
    last = st.copy()
    last[K.PENDING_DRAWS] = 1                                 # same pair, last draw of the turn
    assert not np.array_equal(o2, _obs(last, 0))
    kept, sent = int(st[K.CONTRACT_PAIR]), int(st[K.CONTRACT_PAIR + 1])
    K.step(st, K.A_KEEP_CONTRACT)
    assert st[K.PHASE] == K.PH_CONTRACT_KEEP and _obs(st, 0)[g] == 1
    # the card sent to the bottom stays in the mover's view; the others never see it
    b = K.OBS_BOTTOM_CARDS
    assert _obs(st, 0)[b + sent] == 1 and _obs(st, 1)[b:b + K.NUM_CONTRACTS].sum() == 0
    assert _obs(st, 0)[K.OBS_CONTRACTS + kept] == 1
    K.step(st, K.A_KEEP_CONTRACT)
    assert _obs(st, 0)[g] == 0


def test_observation_layout_comes_from_the_kernel_constants():
    cfg = SPEC.configure(num_players=2, obs_window=5)
    layout = K.observation_layout(cfg.config)
    assert SPEC.observation_layout(cfg) == layout.parts()
    names = [n for n, _ in SPEC.observation_layout(cfg)]
    sizes = dict(zip(names, [int(np.prod(s)) for _, s in SPEC.observation_layout(cfg)]))
    assert sizes["globals"] == K.OBS_GLOBAL == K.G_PENDING_DRAWS + 1
    assert sum(sizes[n] for n in ("hand", "contracts", "contract_pair", "tile_pair", "bottom_cards")) \
        == K.OBS_SIZE - K.O_OBS_PRIVATE == 248
    # every offset observe() writes at is the declaration's, whatever the configuration
    for name in ("tiles", "players", "globals", "hand", "contracts", "contract_pair", "tile_pair",
                 "bottom_cards"):
        assert layout.offset(name) == K.OBS.offset(name)
    assert layout.offset("window_info") == K.O_OBS_WINDOW
    low, high = SPEC.observation_bounds(cfg)
    assert np.array_equal(low, layout.bounds()[0]) and np.array_equal(high, layout.bounds()[1])
    g = K.O_OBS_GLOBAL
    assert high[g + K.G_PENDING_DRAWS] == 3 and high[g + K.G_ACTIONS_LEFT] == 3 and high[g + K.G_TURN] == 61
    assert low[K.FT_SCORE] < 0 and high[K.F_TILE + K.FT_X] == K.GRID_RADIUS
    assert K.observation_layout(cfg.config) is layout                       # cached


def test_tile_keep_is_asked_whatever_the_drawn_pair():
    """Issue 15 section 5: the refill asked TILE_KEEP only for a pair of different types, so
    the others learnt the secret pair's relationship from the phase (failed before)."""
    seqs = []
    for pair in ((TYPE["residential"], TYPE["residential"]), (TYPE["residential"], TYPE["park"])):
        st = fresh(2)
        put(st, "residential", 1, 0, 0, 1)
        st[K.BAG:K.BAG + K.NUM_TYPES] = 0
        for t in pair:
            st[K.BAG + t] += 1
        st[K.BAG_SIZE] = 2
        to_actions(st, 0, turn=3, supply=0, reserve=0)    # nothing to do: straight to ROOF
        st[K.PHASE] = K.PH_ROOF
        K.step(st, K.A_STOP)
        seq = [(int(K.current_player(st)), _obs(st, 1).tobytes())]
        assert st[K.PHASE] == K.PH_TILE_KEEP
        lg = legal(st)
        assert lg == ({K.A_KEEP_TILE} if pair[0] == pair[1] else {K.A_KEEP_TILE, K.A_KEEP_TILE + 1})
        K.step(st, K.A_KEEP_TILE)
        seq.append((int(K.current_player(st)), _obs(st, 1).tobytes()))
        seqs.append(seq)
    assert [p for p, _ in seqs[0]] == [p for p, _ in seqs[1]] == [0, 1]
    assert seqs[0][0][1] == seqs[1][0][1], "seat 1 must not see whether the pair matched"


@pytest.mark.parametrize("n", [2, 4])
def test_tile_keep_count_is_public(n):
    st = fresh(n, seed=50 + n)
    asked = []

    def before_move(st, step, mask, rng):
        asked.append(st[K.PHASE] == K.PH_TILE_KEEP)
    driver.play_kernel(K, st, n, before_move=before_move, max_steps=SPEC.max_steps)
    assert sum(asked) == 60 - 2 * n - 1       # every refill from a bag of 2 or more


def _random_state(n, seed, steps):
    cfg = SPEC.configure(num_players=n)
    st = K.new_state()
    K.init(st, cfg.config, seed)
    gen = new_generator(seed)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    for _ in range(steps):
        if K.current_player(st) < 0:
            break
        K.legal_mask(st, mask)
        K.step(st, playout.pick_uniform(mask, gen, 0))
    return cfg, st


def _check_consistent(st, n):
    """A state is a legal game as far as the contracts and tiles go."""
    pool = st[K.POOL:K.POOL + K.NUM_CONTRACTS]
    held = st[K.HELD:K.HELD + K.MAX_SEATS * K.NUM_CONTRACTS].reshape(K.MAX_SEATS, K.NUM_CONTRACTS)
    rev = st[K.REVEALED:K.REVEALED + K.MAX_SEATS * K.NUM_CONTRACTS].reshape(K.MAX_SEATS, K.NUM_CONTRACTS)
    seen = st[K.SEEN:K.SEEN + K.MAX_SEATS * K.NUM_CONTRACTS].reshape(K.MAX_SEATS, K.NUM_CONTRACTS)
    where = pool.astype(np.int64) + held.sum(0) + rev.sum(0)
    q = [int(st[K.QUEUE + (st[K.QUEUE_HEAD] + i) % K.NUM_CONTRACTS]) for i in range(st[K.QUEUE_LEN])]
    for c in q:
        where[c] += 1
    if st[K.PHASE] == K.PH_CONTRACT_KEEP:
        where[st[K.CONTRACT_PAIR]] += 1
        where[st[K.CONTRACT_PAIR + 1]] += 1
    assert (where == 1).all(), "every contract is in exactly one place"
    assert st[K.POOL_SIZE] == pool.sum()
    for p in range(n):
        assert held[p].sum() == st[K.NUM_HELD + p]
        assert not (pool & seen[p]).any(), f"seat {p} saw a card of the never-drawn pool"
    assert st[K.BAG_SIZE] == st[K.BAG:K.BAG + K.NUM_TYPES].sum() >= 0


def test_determinize_chains_stay_legal_games():
    """Issue 15 section 2: determinizing a determinized copy raised IndexError (pop from
    an empty list) -- the first copy left cards another seat had seen in the pool."""
    from agents import GreedyAgent
    tried = 0
    for n in (2, 3, 4):
        for g in range(3):
            env = CityEnv(SPEC, num_players=n)

            def chains(env, steps, rs):
                nonlocal tried
                if steps % 23 != 7:
                    return
                for o in range(n):
                    d = env.determinize(o, int(rs.integers(1 << 40)))
                    for depth in range(4):
                        _check_consistent(d._state, n)
                        nxt = int(rs.integers(n))
                        view = d.observe(d.possible_agents[nxt])
                        if depth % 2:
                            d = d.clone()
                            d.reseed(int(rs.integers(1 << 40)))
                        d = d.determinize(nxt, int(rs.integers(1 << 40)))
                        assert np.array_equal(d.observe(d.possible_agents[nxt])["observation"],
                                              view["observation"])
                        tried += 1
                    if not all(d.terminations.values()):
                        GreedyAgent(seed=steps).act(d, d.agent_selection)
            driver.play(env, 300 + 10 * n + g, before_move=chains)
    assert tried > 300


def test_determinized_copies_play_to_the_end():
    for n in (2, 3, 4):
        cfg, st = _random_state(n, 40 + n, 200)
        d = st.copy()
        for k in range(5):
            SPEC.determinize(d, cfg, k % n, 100 + k)
            _check_consistent(d, n)
        driver.play_kernel(K, d, 7, max_steps=SPEC.max_steps)


def test_determinize_deals_held_contracts_not_met_at_the_last_step_4():
    """Issue 14 section 5: a contract another seat still holds was NOT met at that seat's
    last step 4 (reveals are automatic), so a determinization may deal it only such cards
    (failed before: every unseen card was dealt).  The met sets are recomputed here with
    the plain-Python reference at the end of each turn (step 4 is the turn's last board
    change)."""
    bad = checked = 0
    for n in (2, 3):
        cfg = SPEC.configure(num_players=n)
        for g in range(3):
            st = K.new_state()
            K.init(st, cfg.config, 700 + 10 * n + g)
            met_then = {p: set() for p in range(n)}
            mover = {}

            def before_move(st, step, mask, rng):
                mover["p"] = int(st[K.CURRENT])

            def after_move(st, step, action):
                nonlocal bad, checked
                p, steps = mover["p"], step + 1
                if K.current_player(st) != p:
                    pos = ref.Pos(st)
                    met_then[p] = {c for c in ref.CONTRACTS if ref.contract_ok(pos, c, p)}
                if steps % 9 or K.current_player(st) < 0:
                    return
                cur, phase = int(st[K.CURRENT]), int(st[K.PHASE])
                for o in range(n):
                    for s in range(3):
                        d = st.copy()
                        SPEC.determinize(d, cfg, o, 1000 * steps + 10 * o + s)
                        for q in range(n):
                            if q == o or (q == cur and phase == K.PH_CONTRACT_KEEP):
                                continue
                            dealt = {c + 1 for c in range(K.NUM_CONTRACTS) if d[K.HELD + q * K.NUM_CONTRACTS + c]}
                            checked += len(dealt)
                            bad += len(dealt & met_then[q])
            driver.play_kernel(K, st, g, before_move=before_move, after_move=after_move,
                               max_steps=SPEC.max_steps)
    assert checked > 500
    assert bad == 0, f"{bad} contracts dealt to a seat that would have revealed them"


def test_determinize_is_independent_of_hidden_contracts():
    """Two states that differ only in a hidden hand give the same determinization."""
    for seed in range(91, 200):
        cfg, st = _random_state(3, seed, 260)
        held1 = st[K.HELD + K.NUM_CONTRACTS: K.HELD + 2 * K.NUM_CONTRACTS].copy()
        held2 = st[K.HELD + 2 * K.NUM_CONTRACTS: K.HELD + 3 * K.NUM_CONTRACTS].copy()
        met = np.zeros(2 * K.NUM_CONTRACTS, dtype=np.int64)
        work = np.empty(K.STATE_SIZE, dtype=np.int64)
        for q in (1, 2):
            K._met_at_last_step4(st, q, work, met[(q - 1) * K.NUM_CONTRACTS: q * K.NUM_CONTRACTS])
        # seats 1 and 2 swap hands: a position equally possible for seat 0
        if held1.sum() == held2.sum() > 0 and not met[np.concatenate([held2, held1]) != 0].any() \
                and st[K.PHASE] != K.PH_CONTRACT_KEEP:
            break
    else:
        raise AssertionError("no suitable position found")
    other = st.copy()
    other[K.HELD + K.NUM_CONTRACTS: K.HELD + 2 * K.NUM_CONTRACTS] = held2
    other[K.HELD + 2 * K.NUM_CONTRACTS: K.HELD + 3 * K.NUM_CONTRACTS] = held1
    a, b = st.copy(), other.copy()
    SPEC.determinize(a, cfg, 0, 5)
    SPEC.determinize(b, cfg, 0, 5)
    assert np.array_equal(a[K.HELD:K.HELD + 4 * K.NUM_CONTRACTS], b[K.HELD:K.HELD + 4 * K.NUM_CONTRACTS])


def test_determinize_is_independent_of_hidden_tiles():
    """The tiles are re-dealt from a sorted pool: states that differ only in which hidden
    tiles sit in another seat's hand and which in the bag determinize alike (one seed)."""
    for seed in range(300, 400):
        cfg, st = _random_state(3, seed, 100 + seed % 40)
        hand1 = st[K.HAND + K.HAND_SLOTS: K.HAND + 2 * K.HAND_SLOTS]
        swap = [t for t in range(1, K.NUM_TYPES) if st[K.BAG + t] > 0 and t not in hand1]
        if K.current_player(st) >= 0 and hand1[0] >= 0 and swap:
            break
    else:
        raise AssertionError("no suitable position found")
    other = st.copy()
    old, new = int(hand1[0]), swap[0]
    other[K.HAND + K.HAND_SLOTS: K.HAND + 2 * K.HAND_SLOTS] = sorted([new, int(hand1[1])]) \
        if hand1[1] >= 0 else [new, -1]
    other[K.BAG + new] -= 1
    other[K.BAG + old] += 1
    obs_a, obs_b = _obs(st, 0, cfg.obs_size), _obs(other, 0, cfg.obs_size)
    assert np.array_equal(obs_a, obs_b)                 # seat 0 cannot tell them apart
    a, b = st.copy(), other.copy()
    SPEC.determinize(a, cfg, 0, 77)
    SPEC.determinize(b, cfg, 0, 77)
    assert np.array_equal(a, b)
    # the kernel function itself, for a seed reduced by the adapter
    c = other.copy()
    assert K.determinize(c, 0, 77) and np.array_equal(c, a)
    assert not K.determinize(other.copy(), 3, 77)       # not a seat of a 3-player game


def test_phase_name_names_the_decision():
    st = fresh(2)
    cfg = SPEC.configure()
    assert SPEC.phase_name(st, cfg) == "place"
    seen = set()
    driver.play_kernel(K, st, 5, before_move=lambda st, step, mask, rng: seen.add(SPEC.phase_name(st, cfg)),
                       max_steps=SPEC.max_steps)
    assert SPEC.phase_name(st, cfg) == "game_over"
    assert seen == {"place", "action", "roof", "contract_keep", "tile_keep"}


def test_action_labels_follow_the_action_blocks():
    cfg, st = _random_state(2, 4, 0)
    for block in K.ACTIONS.names():
        first = K.ACTIONS.action(block)
        assert K.ACTIONS.decode(first) == (block, 0)
        assert isinstance(SPEC.action_label(st, cfg, first), str)
    assert SPEC.action_label(st, cfg, K.A_STOP) == "stop roofing"
    assert SPEC.action_label(st, cfg, K.A_BUILD + 60) == "build on unplaced tile #60"


def test_option_table_and_normalised_options(tmp_path):
    names = [o.name for o in SPEC.options]
    assert names == ["num_players", "goal_ids", "data_path", "obs_window"]
    cfg = SPEC.configure()
    assert cfg.options == {"num_players": 2, "goal_ids": None, "data_path": None, "obs_window": 21}
    cfg = SPEC.configure(num_players=np.int64(3), goal_ids=("G2", "G1", "G6"), obs_window=np.int64(5))
    assert cfg.options == {"num_players": 3, "goal_ids": ["G2", "G1", "G6"], "data_path": None,
                           "obs_window": 5}
    assert type(cfg.options["num_players"]) is int and type(cfg.options["obs_window"]) is int
    with pytest.raises(ValueError, match="goal_ids"):
        SPEC.configure(goal_ids=["G1", "G2", "G7"])        # not in the data file


# ------------------------------------------------------------------- bad input (issue 15 1, 7, 8)

def test_determinize_and_reseed_refuse_bad_seats_and_seeds():
    cfg, st = _random_state(2, 3, 30)
    for bad in (-1, 2, 4, 7, 10 ** 6, True, 1.0, "0", None, np.float64(0)):
        with pytest.raises(ValueError, match="observer"):
            SPEC.determinize(st.copy(), cfg, bad, 0)
    for bad in (1.5, "7", None, True, [1]):
        with pytest.raises(ValueError, match="seed"):
            SPEC.determinize(st.copy(), cfg, 0, bad)
        with pytest.raises(ValueError, match="seed"):
            SPEC.reseed(st.copy(), cfg, bad)
    before = st.copy()
    SPEC.determinize(st.copy(), cfg, np.int64(1), 2 ** 70)     # big seeds are reduced
    SPEC.reseed(st.copy(), cfg, -(2 ** 65))
    assert np.array_equal(st, before)
    env = CityEnv(SPEC)
    env.reset(seed=1)
    for bad in (-1, 2, 10 ** 6, "player_9", 0.0):
        with pytest.raises(ValueError):
            env.determinize(bad, 0)
    out = np.ones(K.OBS_SIZE, np.float32)
    K.observe(st, 5, out)                         # kernel: no out-of-bounds access
    assert not out.any()


def test_action_label_refuses_bad_actions():
    cfg, st = _random_state(2, 4, 20)
    for bad in (-1, K.NUM_ACTIONS, 10 ** 9, 1.0, "3", True, None):
        with pytest.raises(ValueError, match="action"):
            SPEC.action_label(st, cfg, bad)
    assert SPEC.action_label(st, cfg, np.int64(K.A_GATHER)).startswith("gather")


def test_building_score_refuses_bad_arguments():
    for args in (("residential", "3", ["none"] * 4), ("residential", 2.5, ["none"] * 4),
                 ("residential", True, ["none"] * 4), ("residential", -1, ["none"] * 4),
                 ("residential", 1, {"none", "park"}), ("residential", 1, "none"),
                 ("residential", 1, ["none"] * 3), ("residential", 1, ["none", "park", ["x"], "none"]),
                 ("residential", 1, ["none", "park", None, "none"]), (["residential"], 1, ["none"] * 4),
                 ("residential", 1, {"a": 1, "b": 2, "c": 3, "d": 4}), ("residential", 1, None),
                 ("residential", 1, ["residential", "none", "none", "none"])):
        name = ("kind", "floors", "neighbours")[
            0 if not isinstance(args[0], str) else (1 if not isinstance(args[1], int) or isinstance(
                args[1], bool) or args[1] < 0 else 2)]
        with pytest.raises(ValueError, match=name):
            E.building_score(*args)
    assert E.building_score("commercial", np.int64(4), ("park", "none", "none", "none")) == 8
    assert E.building_score("commercial", 4, np.array(["park", "none", "none", "none"])) == 8


def test_options_refuse_unordered_containers_and_wrong_types(tmp_path):
    for bad in ({"G1", "G2", "G3"}, frozenset({"G1", "G2", "G3"}), {"G1": 1, "G2": 2, "G3": 3},
                "G1G2G3", (g for g in ("G1", "G2", "G3")), [["G1"], "G2", "G3"], [1, 2, 3],
                ["G1", "G2", None]):
        with pytest.raises(ValueError, match="goal_ids"):
            SPEC.configure(goal_ids=bad)
    assert SPEC.configure(goal_ids=("G1", "G2", "G3")).options["goal_ids"] == ["G1", "G2", "G3"]
    for bad in (3, b"x.yaml", ["a.yaml"], 1.5):
        with pytest.raises(ValueError, match="data_path"):
            SPEC.configure(data_path=bad)
    import pathlib
    SPEC.configure(data_path=pathlib.Path(K.data_files.DATA_DIR / "expancity.yaml"))


def _data():
    import yaml
    return yaml.safe_load(open(K.data_files.DATA_DIR / "expancity.yaml"))


def _entry(data, sec, key):
    return next(e for e in data[sec] if e["key"] == key)


def _first_player(data, seat):
    """Change the starting seat, and the derived last seat of the player-count table."""
    _entry(data, "setup", "first_player").update(value=seat)
    for row in data["player_counts"]:
        row["last_seat"] = (seat + 59) % row["players"]


def _tile(data, key):
    return next(t for t in data["tile_types"] if t["key"] == key)


DATA_MUTATIONS = [
    # (what, mutation, a field named in the error)
    ("negative tile count", lambda d: _tile(d, "park").update(count=-1), "tile_types[7].count"),
    ("string tile count", lambda d: _tile(d, "park").update(count="6"), "tile_types[7].count"),
    ("float tile count", lambda d: _tile(d, "park").update(count=6.0), "tile_types[7].count"),
    ("bag total short", lambda d: (_tile(d, "park").update(count=0), _tile(d, "bank").update(count=0)),
     "tile_types"),
    ("bag total off", lambda d: _tile(d, "park").update(count=7), "tile_types"),
    ("city hall in the bag", lambda d: (_tile(d, "city_hall").update(count=1),
                                        _tile(d, "park").update(count=5)), "tile_types[0].count"),
    ("tile id out of range", lambda d: _tile(d, "stadium").update(id=12), "tile_types[11].id"),
    ("duplicate tile id", lambda d: _tile(d, "stadium").update(id=10), "tile_types"),
    ("unknown tile class", lambda d: _tile(d, "park").update({"class": "green"}), "tile_types[7].class"),
    ("special made a zone", lambda d: _tile(d, "park").update({"class": "zone"}), "tile_types[7].class"),
    ("tile types missing", lambda d: d.pop("tile_types"), "tile_types"),
    ("tile type not a mapping", lambda d: d["tile_types"].__setitem__(3, "cathedral"), "tile_types[3]"),
    ("float modifier", lambda d: d["special_modifiers"][0].update(residential=1.5),
     "special_modifiers[0].residential"),
    ("modifier for an unknown tile", lambda d: d["special_modifiers"][0].update(tile="lake"),
     "special_modifiers[0].tile"),
    ("modifier missing", lambda d: d["special_modifiers"].pop(), "special_modifiers"),
    ("modifier twice", lambda d: d["special_modifiers"].__setitem__(1, dict(d["special_modifiers"][0])),
     "special_modifiers"),
    ("negative supply", lambda d: _entry(d, "setup", "supply_start").update(value=-1), "setup[2].value"),
    ("negative reserve", lambda d: _entry(d, "setup", "reserve_start").update(value=-5), "setup[3].value"),
    ("blocks do not add up", lambda d: _entry(d, "setup", "reserve_start").update(value=60),
     "setup[3].value"),
    ("string supply", lambda d: _entry(d, "setup", "supply_start").update(value="6"), "setup[2].value"),
    ("negative roofs", lambda d: _entry(d, "components", "roofs_residential").update(value=-1),
     "components[4].value"),
    ("float roofs", lambda d: _entry(d, "components", "roofs_commercial").update(value=20.0),
     "components[5].value"),
    ("first player 99", lambda d: _entry(d, "setup", "first_player").update(value=99), "setup[5].value"),
    ("player-count table disagrees", lambda d: d["player_counts"][1].update(bag_after_deal=50),
     "player_counts[1].bag_after_deal"),
    ("last seat not derived", lambda d: _entry(d, "setup", "first_player").update(value=1),
     "player_counts[0].last_seat"),
    ("schema version", lambda d: d["meta"].update(schema_version=2), "meta.schema_version"),
    ("contract draw keeps 2", lambda d: _entry(d, "rules", "contract_draw")["value"].update(keep=2),
     "contract_draw"),
    ("first player a bool", lambda d: _entry(d, "setup", "first_player").update(value=True),
     "setup[5].value"),
    ("rule missing", lambda d: d["rules"].pop(0), "actions_per_turn"),
    ("too many actions", lambda d: _entry(d, "rules", "actions_per_turn").update(value=9), "rules[0].value"),
    ("max unfinished 0", lambda d: _entry(d, "rules", "max_unfinished_buildings").update(value=0),
     "rules[1].value"),
    ("hand of 3", lambda d: _entry(d, "setup", "hand_tiles").update(value=3), "setup[0].value"),
    ("bag_tiles", lambda d: _entry(d, "components", "bag_tiles").update(value=61), "components[1].value"),
    ("uncompletable commercial", lambda d: _entry(d, "rules", "commercial_min_floors_to_complete").update(
        value=5), "rules[8].value"),
    ("float contract vp", lambda d: d["contracts"][3].update(vp=4.5), "contracts[3].vp"),
    ("negative contract vp", lambda d: d["contracts"][3].update(vp=-4), "contracts[3].vp"),
    ("string contract vp", lambda d: d["contracts"][3].update(vp="4"), "contracts[3].vp"),
    ("contract id twice", lambda d: d["contracts"][3].update(id=3), "contracts"),
    ("contract id 0", lambda d: d["contracts"][0].update(id=0), "contracts[0].id"),
    ("contract missing", lambda d: d["contracts"].pop(), "contracts"),
    ("unknown form", lambda d: d["contracts"][0]["cond"].update(form="circle"), "contracts[0].cond.form"),
    ("unknown selector field", lambda d: d["contracts"][0]["cond"]["sel"].update(colour="red"),
     "contracts[0].cond.sel.colour"),
    ("bad status", lambda d: d["contracts"][0]["cond"]["sel"].update(status="built"),
     "contracts[0].cond.sel.status"),
    ("adj class unknown", lambda d: d["contracts"][0]["cond"]["sel"].update(adj=["lake"]),
     "contracts[0].cond.sel.adj[0]"),
    ("adj too long", lambda d: d["contracts"][0]["cond"]["sel"].update(adj=["park"] * 5),
     "contracts[0].cond.sel.adj"),
    ("float floors", lambda d: d["contracts"][2]["cond"]["sel"].update(floors=6.0),
     "contracts[2].cond.sel.floors"),
    ("string count", lambda d: d["contracts"][31]["cond"].update(count="2"), "contracts[31].cond.count"),
    ("share without members", lambda d: d["contracts"][3]["cond"].update(members=[]),
     "contracts[3].cond.members"),
    ("touching of 3", lambda d: d["contracts"][35]["cond"]["members"].append({"status": "any"}),
     "contracts[35].cond.members"),
    ("line length float", lambda d: d["contracts"][18]["cond"].update(length=3.0),
     "contracts[18].cond.length"),
    ("huge square", lambda d: d["contracts"][22]["cond"].update(size=50), "contracts[22].cond.size"),
    ("bad cells code", lambda d: d["contracts"][23]["cond"].update(cells="empty"),
     "contracts[23].cond.cells"),
    ("enclosed a string", lambda d: d["contracts"][30]["cond"]["sel"].update(enclosed="yes"),
     "contracts[30].cond.sel.enclosed"),
    ("goal vp float", lambda d: d["goals"][0].update(vp=10.0), "goals[0].vp"),
    ("goal vp negative", lambda d: d["goals"][0].update(vp=-10), "goals[0].vp"),
    ("goal metric unknown", lambda d: d["goals"][0].update(metric="height"), "goals[0].metric"),
    ("goal id twice", lambda d: d["goals"][1].update(id="G1"), "goals"),
    ("five goals", lambda d: d["goals"].pop(), "goals"),
    ("goals a mapping", lambda d: d.update(goals={"G1": 10}), "goals"),
    ("top level a list", None, "<top>"),
]


@pytest.mark.parametrize("what,mutate,field", DATA_MUTATIONS, ids=[m[0] for m in DATA_MUTATIONS])
def test_data_file_is_checked_through_data_path(tmp_path, what, mutate, field):
    """Issue 15 section 8: impossible data loaded silently (failed before for the range,
    type and total mutations); each is refused with a ValueError naming the field."""
    import yaml
    data = _data()
    if mutate is None:
        data = [data]
    else:
        mutate(data)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ValueError, match="data_path") as err:
        from envs import make
        make("expancity_v0", data_path=str(path))
    assert field in str(err.value), f"{what}: {err.value}"
    assert isinstance(err.value.__cause__, K.data_files.DataError) or "DataError" in repr(err.value.__cause__)


def test_first_player_must_be_a_seat(tmp_path):
    import yaml
    data = _data()
    _first_player(data, 3)
    path = tmp_path / "fp.yaml"
    path.write_text(yaml.safe_dump(data))
    SPEC.configure(num_players=4, data_path=str(path))
    with pytest.raises(ValueError, match="first_player"):
        SPEC.configure(num_players=2, data_path=str(path))


def test_valid_corrected_data_keeps_observations_in_their_space(tmp_path):
    import yaml
    data = _data()
    _entry(data, "setup", "supply_start").update(value=10)
    _entry(data, "setup", "reserve_start").update(value=45)
    _first_player(data, 1)
    for m in data["special_modifiers"]:
        m["commercial"] = 3 if m["tile"] == "stadium" else m["commercial"]
    data["goals"][0]["vp"] = 15
    path = tmp_path / "ok.yaml"
    path.write_text(yaml.safe_dump(data))
    env = CityEnv(SPEC, num_players=3, data_path=str(path), obs_window=7)
    env.reset(seed=3)
    assert env.agent_selection == "player_1"
    space = env.observation_space("player_0")

    def before_move(env, step, rng):
        for a in env.possible_agents:
            assert space.contains(env.observe(a))
    driver.play(env, 3, reset=False, before_move=before_move)
