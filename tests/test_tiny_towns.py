"""Tiny Towns: rules-reference test vectors (TV-1..TV-36), kernel vs plain-Python reference on
random games, hidden information, determinism, options and the PettingZoo shell."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reference_tiny_towns as R  # noqa: E402
from kernels import tiny_towns as K  # noqa: E402
from kernels import playout  # noqa: E402
from kernels.rng import new_generator  # noqa: E402
from envs import tiny_towns as TT  # noqa: E402
from envs.tiny_towns import score_town  # noqa: E402
from tests import driver  # noqa: E402

# ====================================================================== helpers
CODE = {v: k for k, v in TT.CODES.items()}
CUBE = {"w": 0, "h": 1, "b": 2, "g": 3, "s": 4}
W, H, B, G, S = range(5)


def card(name):
    return K.CARD_ID[name]


def rows_to_tokens(rows):
    out = []
    for row in rows:
        toks = []
        for t in row.split():
            if t == "..":
                toks.append(".")
            elif t in CUBE:
                toks.append(K.RES_IDS[CUBE[t]])
            else:
                toks.append(K._card_token(CODE[t]))
        out.append(" ".join(toks))
    return out


def town_names(rows):
    names = []
    for row in rows:
        for t in row.split():
            names.append(CODE[t] if t not in ("..",) and t not in CUBE else None)
    return names


def check_score(rows, total, **kw):
    res = score_town(rows_to_tokens(rows), **kw)
    assert res["total"] == total, res
    ref = R.score_town_ref(town_names(rows), _wh_list(rows, kw.get("warehouse_cubes", 0)),
                           kw.get("right_feast_halls", 0), kw.get("solo", False),
                           kw.get("shrine_value") or 0, kw.get("starloom_place") or 1)
    assert ref == total
    return res


def _wh_list(rows, cubes):
    wh = [0] * 16
    for q, n in enumerate(town_names(rows)):
        if n == "Warehouse" and cubes:
            wh[q] = min(cubes, 3)
            cubes -= wh[q]
    return wh


def config(n=2, variant=0, monuments=1, cave=0, first=-1, cards=None):
    c = np.full(K.CONFIG_SIZE, -1, dtype=np.int64)
    c[K.CFG_NUM_PLAYERS], c[K.CFG_TOWN_HALL], c[K.CFG_MONUMENTS] = n, variant, monuments
    c[K.CFG_CAVE_RULE], c[K.CFG_FIRST_PLAYER], c[K.CFG_CARDS] = cave, first, 0
    if cards:
        for name in cards:
            t = int(K.CARD_TYPE[card(name)])
            if t > 0:
                c[K.CFG_CARDS + t] = card(name)
    return c


FIRST = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Factory"]


def new_state(n=2, seed=0, **kw):
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.init(st, config(n, **kw), seed)
    return st


def pb(p):
    return K.G_PLAYERS + p * K.PLAYER_SIZE


def set_board(st, p, rows, placed_round=-1):
    """Codes as in the rules' test vectors; buildings get ``placed_round`` (active when < round)."""
    b = pb(p)
    q = 0
    for row in rows:
        for t in row.split():
            st[b + K.O_CUBE + q] = -1
            st[b + K.O_BUILDING + q] = -1
            st[b + K.O_BUILDING_RES + q] = -1
            st[b + K.O_PLACED_ROUND + q] = -1
            st[b + K.O_WAREHOUSE + 5 * q:b + K.O_WAREHOUSE + 5 * q + 5] = 0
            if t in CUBE:
                st[b + K.O_CUBE + q] = CUBE[t]
            elif t != "..":
                c = card(CODE[t])
                st[b + K.O_BUILDING + q] = c
                st[b + K.O_PLACED_ROUND + q] = placed_round
                if c >= K.NUM_BUILDING_CARDS:
                    st[b + K.O_KEPT] = c
                    st[b + K.O_MONUMENT_BUILT] = 1
                    st[b + K.O_MONUMENT_CELL] = q
            q += 1


def force(st, phase, actor, rnd=None):
    st[K.G_PHASE] = phase
    st[K.G_ACTOR] = actor
    if rnd is not None:
        st[K.G_ROUND] = rnd


def after_token(st, p, q):
    """What ``step`` does once a construction's token is on q: the on-build effect, then
    back to p's build step unless the effect asks for a decision."""
    if K._after_token(st, p, q):
        if K._build_offered(st, p):
            K._set(st, K.PH_BUILD, p)
        else:
            K._finish_build_step(st, p)
            K._run(st)


def is_empty(st, p, q):
    return st[pb(p) + K.O_CUBE + q] < 0 and st[pb(p) + K.O_BUILDING + q] < 0


def mask_of(st):
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    K.legal_mask(st, m)
    return set(np.flatnonzero(m).tolist())


def constructs(st):
    return {a for a in mask_of(st) if a < 1024}


def check_ref(st):
    assert mask_of(st) == R.legal_actions(st)


FILL = "Fc"   # a 0-VP, non-feeding building used to fill squares


# ============================================================== scoring vectors
def test_tv1_rulebook_example():
    rows = K.DATA["rulebook_example"]["layout"]
    res = check_score(rows, 28, warehouse_cubes=3)
    assert res["well"] == 5 and res["cottage"] == 12 and res["chapel"] == 4
    assert res["tavern"] == 9 and res["bakery"] == 3 and res["warehouse"] == -3 and res["empty"] == -2


@pytest.mark.parametrize("table,values", [("Ta", [2, 5, 9, 14, 20, 20, 20]),
                                          ("Al", [-1, 5, -3, 15, -5, 26, 26])])
def test_tv2_tv3_tavern_almshouse(table, values):
    for k, vp in enumerate(values, start=1):
        cells = [table] * k + [".."] * (16 - k)
        rows = [" ".join(cells[4 * r:4 * r + 4]) for r in range(4)]
        res = check_score(rows, vp - (16 - k))
        assert res[K._card_token(CODE[table])] == vp


def test_tv4_greenhouse():
    rows = ["Co Co Ch Co", "Co .. .. ..", ".. .. Gh ..", "Co .. .. Co"]
    res = check_score(rows, 4)
    assert res["cottage"] == 9 and res["chapel"] == 3 and res["empty"] == -8
    rows[2] = ".. Gh Gh .."
    res = check_score(rows, 9)
    assert res["cottage"] == 12 and res["chapel"] == 4


def test_tv5_orchard():
    check_score(["Co .. .. ..", ".. Or .. Co", ".. .. Co ..", ".. Co .. .."], -5)


def test_tv6_granary():
    check_score(["Co .. .. ..", ".. Gr .. Co", "Co .. Co ..", ".. Co .. .."], -1)


def test_tv7_farm_best_feeding():
    res = check_score(["Co Te Co ..", ".. .. .. ..", "Co .. Co ..", ".. Fa .. Co"], 7)
    assert res["cottage"] == 12 and res["temple"] == 4


def test_tv8_cloister():
    check_score(["Cl .. .. Cl", ".. .. .. ..", ".. Cl .. ..", ".. .. .. .."], -7)
    check_score(["Cl .. .. Cl", ".. Cl .. ..", ".. .. .. ..", "Cl .. .. Cl"], 9)


def test_tv9_market():
    res = check_score(["Ma .. Ma Ma", ".. .. .. ..", "Ma .. .. ..", ".. .. .. .."], -1)
    assert res["market"] == 11


def test_tv10_tailor():
    res = check_score(["Tl .. .. ..", ".. Tl Tl ..", ".. .. .. ..", ".. .. .. Tl"], 0)
    assert res["tailor"] == 12


def test_tv11_theater():
    res = check_score([".. Co .. ..", "We Th Ta Co", ".. Fa .. ..", ".. Th .. Fc"], 7)
    assert res["theater"] == 7 and res["cottage"] == 6 and res["tavern"] == 2 and res["well"] == 0


def test_tv12_abbey():
    res = check_score(["Ab Co .. ..", "We .. Ab ..", ".. Ta Ab ..", ".. .. .. .."], -2)
    assert res["abbey"] == 6


def test_tv13_temple_chapel():
    res = check_score(["Co Te Co ..", ".. Gr .. ..", "Gr .. .. ..", "Co Te Co .."], 5)
    assert res["temple"] == 4 and res["cottage"] == 9
    res = check_score(["Co Co Ch ..", "Co Gr .. ..", ".. .. Ch ..", ".. .. .. Co"], 6)
    assert res["chapel"] == 6 and res["cottage"] == 9


def test_tv14_inn():
    res = check_score(["In .. In ..", ".. .. .. ..", ".. In .. ..", ".. .. .. In"], -6)
    assert res["inn"] == 6


def test_tv15_feast_hall():
    two = ["FH FH .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."]
    one = ["FH .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."]
    three = ["FH FH FH ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."]
    assert check_score(two, 6 - 14, right_feast_halls=1)["feast_hall"] == 6
    assert check_score(two, 4 - 14, right_feast_halls=2)["feast_hall"] == 4
    assert check_score(one, 2 - 15, right_feast_halls=2)["feast_hall"] == 2
    assert check_score(three, 9 - 13, right_feast_halls=1)["feast_hall"] == 9
    assert check_score(one, 2 - 15, right_feast_halls=3)["feast_hall"] == 2
    assert check_score(two, 4 - 14, solo=True)["feast_hall"] == 4
    # in a game: 3 players with 2, 2, 1 Feast Halls
    st = new_state(3, cards=["Feast Hall"], monuments=0)
    for p, rows in enumerate([two, two, one]):
        set_board(st, p, rows)
    parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
    got = []
    for p in range(3):
        K._player_score(st, p, parts)
        got.append(int(parts[K.C_FEAST]))
    assert got == [6, 4, 2]


def test_tv16_fountain_millstone_bakery():
    res = check_score(["Fo Fo .. Fo", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."], -9)
    assert res["fountain"] == 4
    res = check_score(["Mi Fa .. ..", ".. .. Mi ..", ".. Ba .. ..", ".. .. .. .."], 2 - 12)
    assert res["millstone"] == 2 and res["bakery"] == 0
    res = check_score(["Ba Fc .. ..", ".. .. .. ..", ".. Ba .. ..", ".. .. Fa .."], 3 - 12)
    assert res["bakery"] == 3


def test_tv21_barrett_castle():
    res = check_score(["BC We Co ..", "Ch .. .. ..", ".. .. .. ..", "Fa .. .. .."], 3)
    assert res["barrett_castle"] == 5 and res["well"] == 3 and res["chapel"] == 3
    check_score(["BC Te .. ..", "Gr .. .. ..", ".. .. .. ..", ".. .. .. .."], -4)
    res = check_score(["BC Co Co ..", "Co Co Ch ..", "Fa .. .. ..", ".. .. .. .."], 10)
    assert res["chapel"] == 5
    st = new_state(2, monuments=1)
    set_board(st, 0, ["BC We Co ..", "Ch .. .. ..", ".. .. .. ..", "Fa .. .. .."])
    assert K._tie_keys(st, 0)[2] == 3


def test_tv22_cathedral():
    check_score(["CC Sh Sh Sh", "Sh Sh Sh Sh", "Sh Sh Sh Sh", "Sh .. .. .."], 14)
    check_score([".. Sh Sh Sh", "Sh Sh Sh Sh", "Sh Sh Sh Sh", "Sh .. .. .."], 8)


def test_tv23_mausoleum():
    res = check_score(["Co Co Co ..", "Co Co Ch ..", "Fa GM .. ..", ".. .. .. .."], 11)
    assert res["cottage"] == 15 and res["chapel"] == 4


def test_tv24_mandras():
    res = check_score([".. Co .. ..", "Co MP We ..", ".. Ta .. ..", ".. .. .. .."], -3)
    assert res["mandras_palace"] == 6


def test_tv25_silva_forum():
    res = check_score(["Co Co .. We", ".. Co .. We", ".. Co SF We", ".. .. .. .."], -3)
    assert res["silva_forum"] == 5


def test_tv26_sky_baths_archive():
    res = check_score(["Co We .. ..", "Fa SB .. ..", ".. .. .. ..", ".. .. .. .."], 0)
    assert res["the_sky_baths"] == 8
    res = check_score(["Co We .. ..", "Fa AR .. ..", ".. .. .. ..", ".. .. .. .."], -5)
    assert res["archive_of_the_second_age"] == 3


def test_tv27_shrine_value_fixed_when_built():
    for others, value in ((4, 5), (5, 8), (7, 8), (0, 1)):
        st = new_state(2, monuments=1, cards=FIRST)
        cells = [FILL] * others + [".."] * (16 - others)
        set_board(st, 0, [" ".join(cells[4 * r:4 * r + 4]) for r in range(4)])
        b = pb(0)
        st[b + K.O_KEPT] = K.M_SHRINE
        q = 15
        K._put_building(st, 0, q, K.M_SHRINE)
        st[b + K.O_MONUMENT_BUILT] = 1
        st[b + K.O_MONUMENT_CELL] = q
        after_token(st, 0, q)
        assert st[b + K.O_SHRINE] == value
        st[b + K.O_BUILDING + 14] = card("Cottage")       # later buildings change nothing
        assert st[b + K.O_SHRINE] == value
    assert score_town(["shrine_of_the_elder_tree . . .", ". . . .", ". . . .",
                       ". . . ."], shrine_value=5)["shrine_of_the_elder_tree"] == 5


def test_tv28_starloom():
    st = new_state(4, monuments=1)
    for p, rnd in zip(range(4), (18, 19, 18, 21)):
        set_board(st, p, ["SL .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
        st[pb(p) + K.O_STATUS] = 1
        st[pb(p) + K.O_DONE_ROUND] = rnd
    parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
    got = []
    for p in range(4):
        K._player_score(st, p, parts)
        got.append(int(parts[K.M_STARLOOM]))
    assert got == [6, 2, 6, 0]
    for place, vp in ((1, 6), (2, 3), (3, 2), (4, 0)):
        assert score_town(["the_starloom . . .", ". . . .", ". . . .", ". . . ."],
                          starloom_place=place)["the_starloom"] == vp
    st = new_state(1, monuments=1)
    set_board(st, 0, ["SL .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    K._player_score(st, 0, parts)
    assert parts[K.M_STARLOOM] == 6


def test_score_town_removes_cubes_and_checks_input():
    res = score_town(["cottage wood . .", ". farm . .", ". . . .", ". . . ."])
    assert res["total"] == 3 - 14
    with pytest.raises(ValueError):
        score_town(["cottage . .", ". . . .", ". . . .", ". . . ."])
    with pytest.raises(ValueError):
        score_town(["castle . . .", ". . . .", ". . . .", ". . . ."])
    with pytest.raises(ValueError):
        score_town(["shrine_of_the_elder_tree . . .", ". . . .", ". . . .", ". . . ."])


# ============================================================ legality vectors
def test_tv18_trading_post():
    cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Trading Post"]
    st = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st, 0, [".. .. h ..", ".. TP g ..", ".. .. .. ..", ".. .. .. .."])
    force(st, K.PH_BUILD, 0)
    assert constructs(st) == {1}
    check_ref(st)
    K.step(st, 1)
    assert st[K.G_PHASE] == K.PH_TOKEN
    assert mask_of(st) == {K.A_SQUARE + 2, K.A_SQUARE + 6}
    check_ref(st)
    # Well from a Trading Post and a stone
    st = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st, 0, [".. .. .. ..", "TP TP .. ..", ".. s .. ..", ".. .. .. .."])
    force(st, K.PH_BUILD, 0)
    assert constructs(st) == {277}
    check_ref(st)
    K.step(st, 277)
    assert mask_of(st) == {K.A_SQUARE + 9}
    set_board(st, 0, [".. .. .. ..", "TP TP .. ..", ".. .. .. ..", ".. .. .. .."])
    force(st, K.PH_BUILD, 0)
    assert constructs(st) == set()


def test_tv18_trading_post_built_earlier_in_the_same_build_step():
    """Ruling 8 (revised): the Trading Post works "from now on", so one built earlier in
    the same build step already stands in for the Cottage's brick."""
    cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Trading Post"]
    st = new_state(2, cards=cards, monuments=0, first=1)
    # SW. / SWB (the Trading Post, t = 0 at square 4) beside the wheat on 2 and the glass on 6
    set_board(st, 0, [".. .. h ..", "s w g ..", "s w b ..", ".. .. .. .."])
    force(st, K.PH_BUILD, 0)
    assert not any(a < 128 for a in constructs(st))        # no Cottage yet
    trading_post = 128 * 6 + 16 * 0 + 4
    assert trading_post in constructs(st)
    check_ref(st)
    K.step(st, trading_post)
    K.step(st, K.A_SQUARE + 5)
    b = pb(0)
    assert st[b + K.O_BUILDING + 5] == K.C_TPOST and st[b + K.O_PLACED_ROUND + 5] == st[K.G_ROUND]
    assert [q for q in range(16) if not is_empty(st, 0, q)] == [2, 5, 6]   # TV-18's board
    assert st[K.G_PHASE] == K.PH_BUILD and st[K.G_ACTOR] == 0
    assert constructs(st) == {1}
    check_ref(st)
    K.step(st, 1)
    assert mask_of(st) == {K.A_SQUARE + 2, K.A_SQUARE + 6}     # never 5: the Trading Post stays
    check_ref(st)
    K.step(st, K.A_SQUARE + 6)
    assert st[b + K.O_BUILDING + 5] == K.C_TPOST and st[b + K.O_BUILDING + 6] == K.C_COTTAGE
    assert st[b + K.O_CUBE + 2] == -1


def test_tv19_shed_and_obelisk():
    rows = ["w s Fc Fc", "Fc Fc Fc Fc", "Fc Fc .. Fc", "Fc Fc Fc .."]
    for grey, expect in (("Shed", {0, 1, 10, 15}), ("Well", {0, 1})):
        st = new_state(2, cards=["Farm", grey, "Chapel", "Tavern", "Theater", "Factory"], monuments=0)
        set_board(st, 0, rows)
        force(st, K.PH_BUILD, 0)
        assert 256 in constructs(st)
        check_ref(st)
        K.step(st, 256)
        assert mask_of(st) == {K.A_SQUARE + q for q in expect}
        check_ref(st)
    # Obelisk: cottage from glass 0, brick 1, wheat 4 (t = 2, anchor 0 -> action 32); built in
    # an earlier round or earlier in this build step (ruling 8, revised: at once), the same
    for built_now in (False, True):
        st = new_state(2, cards=FIRST, monuments=1)
        rnd = st[K.G_ROUND]
        set_board(st, 0, ["g b Fc Fc", "h Fc Fc Fc", "Fc OC .. Fc", "Fc Fc Fc .."])
        if built_now:
            st[pb(0) + K.O_PLACED_ROUND + 9] = rnd
        force(st, K.PH_BUILD, 0)
        assert 32 in constructs(st)
        check_ref(st)
        K.step(st, 32)
        assert mask_of(st) == {K.A_SQUARE + q for q in (0, 1, 4, 10, 15)}
        check_ref(st)


def test_tv19_obelisk_built_earlier_in_the_same_build_step():
    """Ruling 8 (revised): a monument's effect applies at once -- the Obelisk of the Crescent
    built by a construction of this build step frees the next building's token."""
    st = new_state(2, cards=FIRST, monuments=1, first=1)
    skip_keep(st)
    b = pb(0)
    # the Obelisk (H.. / BGB, t = 0 at square 8) under the Cottage's glass 0, brick 1, wheat 4
    set_board(st, 0, ["g b Fc Fc", "h Fc Fc Fc", "h .. .. Fc", "b g b .."])
    st[b + K.O_KEPT] = K.M_OBELISK
    force(st, K.PH_BUILD, 0)
    obelisk = 128 * 7 + 16 * 0 + 8
    assert obelisk in constructs(st) and 32 in constructs(st)
    check_ref(st)
    K.step(st, obelisk)
    K.step(st, K.A_SQUARE + 13)
    assert st[b + K.O_MONUMENT_BUILT] == 1 and st[b + K.O_PLACED_ROUND + 13] == st[K.G_ROUND]
    assert st[K.G_PHASE] == K.PH_BUILD and 32 in constructs(st)
    check_ref(st)
    K.step(st, 32)
    empty = {q for q in range(16) if is_empty(st, 0, q)}
    assert {0, 1, 4} <= empty and {8, 12, 14, 9, 10, 15} <= empty
    assert mask_of(st) == {K.A_SQUARE + q for q in empty}
    check_ref(st)


def skip_keep(st):
    while st[K.G_PHASE] == K.PH_KEEP:
        K.step(st, K.A_KEEP)


def _start_placements(st, named):
    """From a NAME decision: name ``named`` and return the state at the first commitment."""
    assert st[K.G_PHASE] == K.PH_NAME
    K.step(st, K.A_RESOURCE + named)


def test_tv20_factory_and_bank():
    cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Factory"]
    st = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st, 0, ["Fc .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = B
    _start_placements(st, B)
    assert st[K.G_ACTOR] == 0 and st[K.G_PHASE] == K.PH_TAKE
    assert mask_of(st) == {K.A_RESOURCE + r for r in range(5)}
    check_ref(st)
    st = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st, 0, ["Fc .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = B
    _start_placements(st, W)
    assert st[K.G_PHASE] == K.PH_DEST
    st = new_state(2, cards=cards, monuments=0, first=0)
    set_board(st, 0, ["Fc .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = B
    _start_placements(st, B)
    assert st[K.G_ACTOR] == 1 and st[K.G_PHASE] == K.PH_DEST
    K.step(st, K.A_SQUARE + 0)
    assert st[K.G_ACTOR] == 0 and st[K.G_PHASE] == K.PH_DEST     # own call: no substitution
    # Banks
    bank_cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Bank"]
    st = new_state(2, cards=bank_cards, monuments=0, first=0)
    set_board(st, 0, ["Bk Bk .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = W
    st[pb(0) + K.O_BUILDING_RES + 1] = G
    assert mask_of(st) == {K.A_RESOURCE + r for r in (H, B, S)}
    check_ref(st)
    # third Bank: its resource avoids wood and glass
    set_board(st, 0, ["Bk Bk .. ..", "h h .. ..", "w g b ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = W
    st[pb(0) + K.O_BUILDING_RES + 1] = G
    force(st, K.PH_BUILD, 0)
    a = 128 * 6 + 0 * 16 + 4                   # Bank HH./WGB, t = 0 at square 4
    assert a in constructs(st)
    check_ref(st)
    K.step(st, a)
    K.step(st, K.A_SQUARE + 8)
    assert st[K.G_PHASE] == K.PH_BUILD_RESOURCE
    assert mask_of(st) == {K.A_RESOURCE + r for r in (H, B, S)}
    check_ref(st)
    # five Banks: no Bank construction, naming ban lifted
    st = new_state(2, cards=bank_cards, monuments=0, first=0)
    set_board(st, 0, ["Bk Bk Bk Bk", "Bk .. .. ..", "h h .. ..", "w g b .."])
    for q in range(5):
        st[pb(0) + K.O_BUILDING_RES + q] = q
    assert mask_of(st) == {K.A_RESOURCE + r for r in range(5)}
    force(st, K.PH_BUILD, 0)
    assert not any(a // 128 == 6 for a in constructs(st))
    check_ref(st)


def test_tv17_warehouse():
    cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Warehouse"]
    st = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_WAREHOUSE + W] = 1
    st[pb(0) + K.O_WAREHOUSE + B] = 1
    _start_placements(st, G)
    assert st[K.G_ACTOR] == 0 and K.A_SQUARE + 0 in mask_of(st)
    check_ref(st)
    K.step(st, K.A_SQUARE + 0)
    assert st[K.G_PHASE] == K.PH_SWAP
    assert mask_of(st) == {K.A_RESOURCE + W, K.A_RESOURCE + B, K.A_PASS}
    check_ref(st)
    K.step(st, K.A_PASS)
    # no swap: the SWAP_SQUARE step is still taken (PASS only), see test_warehouse_padding
    assert st[K.G_PHASE] == K.PH_SWAP_SQUARE and st[K.G_ACTOR] == 0 and mask_of(st) == {K.A_PASS}
    check_ref(st)
    K.step(st, K.A_PASS)
    K.step(st, K.A_SQUARE + 5)             # seat 1 places its glass
    assert st[pb(0) + K.O_WAREHOUSE + G] == 1 and K._warehouse_count(st, 0, 0) == 3
    # full Warehouse next round: swap only
    st2 = new_state(2, cards=cards, monuments=0, first=1)
    set_board(st2, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    for r in (W, B, G):
        st2[pb(0) + K.O_WAREHOUSE + r] = 1
    _start_placements(st2, S)
    K.step(st2, K.A_SQUARE + 0)
    assert mask_of(st2) == {K.A_RESOURCE + W, K.A_RESOURCE + B, K.A_RESOURCE + G}
    check_ref(st2)
    K.step(st2, K.A_RESOURCE + W)
    assert st2[K.G_PHASE] == K.PH_SWAP_SQUARE
    K.step(st2, K.A_SQUARE + 3)
    K.step(st2, K.A_SQUARE + 3)            # seat 1
    b = pb(0)
    assert st2[b + K.O_CUBE + 3] == W and st2[b + K.O_WAREHOUSE + S] == 1 and st2[b + K.O_WAREHOUSE + W] == 0
    assert K._warehouse_count(st2, 0, 0) == 3
    # as Master Builder: no Warehouse
    st3 = new_state(2, cards=cards, monuments=0, first=0)
    set_board(st3, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    _start_placements(st3, H)
    K.step(st3, K.A_SQUARE + 4)            # seat 1 first
    assert st3[K.G_ACTOR] == 0 and K.A_SQUARE + 0 not in mask_of(st3)
    check_ref(st3)
    # three stored cubes score -3
    assert score_town(["warehouse . . .", ". . . .", ". . . .", ". . . ."], warehouse_cubes=3)["warehouse"] == -3


def test_tv32_statue_and_cave():
    st = new_state(2, cards=FIRST, monuments=1, cave=1, first=1)
    skip_keep(st)
    set_board(st, 0, ["Co Co SM ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_BUILDING_RES + 0] = S
    _start_placements(st, B)
    m = mask_of(st)
    assert K.A_SQUARE + 1 in m and K.A_SQUARE + 0 not in m and K.A_SET_ASIDE in m and K.A_SQUARE + 5 in m
    check_ref(st)
    K.step(st, K.A_SQUARE + 1)
    K.step(st, K.A_SQUARE + 1)
    assert st[pb(0) + K.O_BUILDING_RES + 1] == B and st[pb(0) + K.O_CUBE + 1] == -1
    # the stored cube never counts for patterns and is ignored at the end
    assert score_town(["cottage cottage . .", ". . . .", ". . . .", ". . . ."])["total"] == -14
    # cave rule: after two uses it is masked
    st = new_state(2, cards=FIRST, monuments=0, cave=1, first=1)
    st[pb(0) + K.O_CAVE_USES] = 2
    _start_placements(st, B)
    assert K.A_SET_ASIDE not in mask_of(st)
    st = new_state(2, cards=FIRST, monuments=0, cave=1, first=0)
    _start_placements(st, B)
    assert st[K.G_ACTOR] == 1 and K.A_SET_ASIDE in mask_of(st)
    K.step(st, K.A_SET_ASIDE)
    assert st[K.G_ACTOR] == 0 and K.A_SET_ASIDE not in mask_of(st)     # own call
    K.step(st, K.A_SQUARE + 0)
    assert st[pb(1) + K.O_CAVE_USES] == 1


def test_tv29_turn_order_hammer_fort():
    st = new_state(4, cards=FIRST, monuments=1, first=1)
    for p in range(4):
        K.step(st, K.A_KEEP)
    assert st[K.G_PHASE] == K.PH_NAME and st[K.G_ACTOR] == 1
    assert [int(x) for x in st[K.G_ORDER:K.G_ORDER + 4]] == [2, 3, 0, 1]
    set_board(st, 2, ["FI .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(3) + K.O_STATUS] = 1
    K._end_round(st)
    assert st[K.G_MASTER_BUILDER] == 0
    # built during this very round: skipped already
    st = new_state(4, cards=FIRST, monuments=1, first=1)
    set_board(st, 2, ["FI .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."], placed_round=st[K.G_ROUND])
    st[pb(3) + K.O_STATUS] = 1
    K._end_round(st)
    assert st[K.G_MASTER_BUILDER] == 0
    # only seat 2 building: Master Builder every round, namings count
    st = new_state(4, cards=FIRST, monuments=1, first=1)
    set_board(st, 2, ["FI .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    for p in (0, 1, 3):
        st[pb(p) + K.O_STATUS] = 1
    K._end_round(st)
    assert st[K.G_MASTER_BUILDER] == 2
    K._run(st)
    assert st[K.G_PHASE] == K.PH_NAME and st[K.G_ACTOR] == 2
    K.step(st, K.A_RESOURCE + W)
    assert st[pb(2) + K.O_MB_TURNS] == 1 and st[K.G_ACTOR] == 2 and st[pb(2) + K.O_PEND_IMPOSED] == 0


def test_tv30_opaleye():
    st = new_state(3, cards=FIRST, monuments=1)
    set_board(st, 0, ["OW .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."], placed_round=6)
    b = pb(0)
    for k in (0, 2, 4):
        st[b + K.O_OPALEYE_ASIDE + k] = 1
    # round 6 (built this round): nothing
    st[K.G_ROUND] = 6
    st[pb(1) + K.O_BUILT_TYPES] = 1 << 0
    st[K.G_STAGE] = K.ST_END
    st[K.G_OPALEYE_STARTED] = 0
    assert not K._opaleye_next(st)
    # round 7: the right neighbour (seat 2) constructs a Tavern -> the Tavern moves
    st[K.G_ROUND] = 7
    st[pb(1) + K.O_BUILT_TYPES] = 0
    st[pb(2) + K.O_BUILT_TYPES] = 1 << 4
    st[K.G_OPALEYE_STARTED] = 0
    assert K._opaleye_next(st)
    assert st[K.G_PHASE] == K.PH_OPALEYE_SQUARE and st[K.G_ACTOR] == 0 and st[K.G_OPALEYE_TYPE] == 4
    check_ref(st)
    K.step(st, K.A_SQUARE + 5)
    assert st[b + K.O_BUILDING + 5] == card("Tavern")
    assert [int(st[b + K.O_OPALEYE_ASIDE + k]) for k in range(7)] == [1, 0, 1, 0, 0, 0, 0]
    assert st[K.G_ROUND] == 8
    # a Grove University placement is not a construction: O_BUILT_TYPES untouched
    st[pb(2) + K.O_BUILT_TYPES] = 0
    st[pb(2) + K.O_KEPT] = K.M_GROVE
    K._put_building(st, 2, 3, K.M_GROVE)
    st[pb(2) + K.O_MONUMENT_BUILT] = 1
    st[pb(2) + K.O_MONUMENT_CELL] = 3
    st[K.G_PHASE] = K.PH_BUILD
    st[K.G_ACTOR] = 2
    after_token(st, 2, 3)
    assert st[K.G_PHASE] == K.PH_GROVE_TYPE
    K.step(st, K.A_TYPE + 2)
    K.step(st, K.A_SQUARE + 7)
    assert st[pb(2) + K.O_BUILT_TYPES] == 0


def test_tv31_guild_and_grove():
    st = new_state(2, cards=FIRST, monuments=1, first=0)
    set_board(st, 0, ["Co .. .. AG", "Co .. .. We", ".. .. .. ..", ".. .. .. .."], placed_round=-1)
    force(st, K.PH_BUILD, 0)
    after_token(st, 0, 3)
    assert st[K.G_PHASE] == K.PH_GUILD_TARGET
    assert mask_of(st) == {K.A_SQUARE + 0, K.A_SQUARE + 4, K.A_SQUARE + 7, K.A_PASS}
    check_ref(st)
    K.step(st, K.A_SQUARE + 4)
    m = mask_of(st)
    assert K.A_TYPE + 0 not in m and m == {K.A_TYPE + k for k in range(1, 7)}
    check_ref(st)
    K.step(st, K.A_TYPE + 4)
    assert st[pb(0) + K.O_BUILDING + 4] == card("Tavern")
    assert mask_of(st) == {K.A_SQUARE + 0, K.A_SQUARE + 7, K.A_PASS}
    K.step(st, K.A_SQUARE + 7)
    K.step(st, K.A_TYPE + 4)
    assert st[pb(0) + K.O_BUILDING + 7] == card("Tavern")
    assert st[K.G_PHASE] != K.PH_GUILD_TARGET
    # Grove University with 3 empty squares: Factory opens BUILD_RESOURCE
    st = new_state(2, cards=FIRST, monuments=1, first=0)
    rows = ["GU Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc .. .. .."]
    set_board(st, 0, rows)
    force(st, K.PH_BUILD, 0)
    after_token(st, 0, 0)
    assert mask_of(st) == {K.A_TYPE + k for k in range(7)}
    K.step(st, K.A_TYPE + 6)
    assert mask_of(st) == {K.A_SQUARE + q for q in (13, 14, 15)}
    K.step(st, K.A_SQUARE + 14)
    assert st[K.G_PHASE] == K.PH_BUILD_RESOURCE and mask_of(st) == {K.A_RESOURCE + r for r in range(5)}
    # no empty square: the bonus is lost
    st = new_state(2, cards=FIRST, monuments=1, first=0)
    set_board(st, 0, ["GU Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc"])
    force(st, K.PH_BUILD, 0)
    after_token(st, 0, 0)
    assert st[K.G_PHASE] != K.PH_GROVE_TYPE


def test_tv33_town_hall_cycle():
    st = new_state(2, variant=1, cards=FIRST, monuments=0, seed=5)
    kinds, draws = {}, {}
    rs = np.random.default_rng(0)
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    while K.current_player(st) >= 0 and st[K.G_ROUND] <= 17:
        kinds[int(st[K.G_ROUND])] = int(st[K.G_TH_FREE_ROUND])
        draws[int(st[K.G_ROUND])] = int(st[K.G_DRAWS_LEFT])
        K.legal_mask(st, m)
        K.step(st, int(rs.choice(np.flatnonzero(m))))
    for r in kinds:
        assert kinds[r] == (1 if r % 3 == 0 else 0)
    assert draws[1] == 9 and draws[14] == 0
    if 16 in draws:
        assert draws[16] == 9
    # a Fort Ironweed owner skips the placement of free rounds
    st = new_state(2, variant=1, cards=FIRST, monuments=1, first=0)
    K.step(st, K.A_KEEP)
    K.step(st, K.A_KEEP)
    set_board(st, 1, ["FI .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[K.G_ROUND] = 2
    st[K.G_STAGE] = K.ST_END
    st[K.G_OPALEYE_STARTED] = 1
    st[K.G_OPALEYE_OWNER] = -1
    K._run(st)
    assert st[K.G_ROUND] == 3 and st[K.G_TH_FREE_ROUND] == 1
    assert st[K.G_PHASE] == K.PH_CHOOSE and st[K.G_ACTOR] == 0
    K.step(st, K.A_RESOURCE + W)
    K.step(st, K.A_SQUARE + 0)
    assert st[K.G_PHASE] == K.PH_BUILD or st[K.G_ROUND] == 4


def test_tv34_solo():
    for seed in range(40):
        st = new_state(1, seed=seed)
        cards = {int(c) for c in st[K.G_CARDS_IN_PLAY:K.G_CARDS_IN_PLAY + 7]}
        assert card("Inn") not in cards and card("Bank") not in cards
        dealt = {int(c) for c in st[pb(0) + K.O_DEALT:pb(0) + K.O_DEALT + 2]}
        assert K.M_FORT not in dealt and K.M_OPALEYE not in dealt
        assert st[K.G_DISPLAY:K.G_DISPLAY + 5].sum() == 3
    st = new_state(1, monuments=0)
    st[K.G_DISPLAY:K.G_DISPLAY + 5] = [2, 0, 0, 1, 0]
    K._set(st, K.PH_CHOOSE, 0)
    assert mask_of(st) == {K.A_RESOURCE + W, K.A_RESOURCE + G}
    check_ref(st)
    K.step(st, K.A_RESOURCE + G)
    K.step(st, K.A_SQUARE + 0)                    # place, then (no construction) the round ends
    assert st[K.G_UNDER_DECK] == G and st[K.G_UNDER_DECK_LEN] == 1
    assert st[K.G_DISPLAY:K.G_DISPLAY + 5].sum() == 3 and st[K.G_NEVER_SEEN] == 11
    assert TT.solo_title(30) == "Engineer"
    assert TT.solo_title(38) == "Master Architect"
    assert TT.solo_title(9) == "Aspiring Architect"


def test_tv35_tie_breaks():
    st = new_state(2, cards=["Farm", "Shed", "Chapel", "Tavern", "Theater", "Factory"], monuments=1)
    set_board(st, 0, ["Fa Fa Fa Fa", "Fa Fa Fa Fa", "Fa Fa Fa Fa", "Fa Fa Sh .."])
    set_board(st, 1, ["Fa Fa Fa Fa", "Fa Fa Fa Fa", "Fa Fa Fa Fa", "Sh Sh .. .."])
    for p in range(2):
        st[pb(p) + K.O_STATUS] = 1
    sc = np.zeros(2, dtype=np.int64)
    K.scores(st, sc)
    assert sc[0] == sc[1] == 0
    rk = np.zeros(2, dtype=np.int64)
    st[pb(0) + K.O_MB_TURNS] = 7
    st[pb(1) + K.O_MB_TURNS] = 6
    K.ranks(st, rk)
    assert list(rk) == [2, 1]
    st[pb(0) + K.O_MB_TURNS] = 6
    K.ranks(st, rk)
    assert list(rk) == [1, 2]
    set_board(st, 0, ["Co Co Co Co", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
    set_board(st, 1, ["Co Co Co BC", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
    K.scores(st, sc)
    assert sc[0] == sc[1]
    K.ranks(st, rk)
    assert list(rk) == [2, 1]
    set_board(st, 1, ["Co Co Co Co", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
    K.ranks(st, rk)
    assert list(rk) == [1, 1]
    # Town Hall: namings skipped
    st[K.G_TOWN_HALL] = 1
    st[pb(0) + K.O_MB_TURNS] = 9
    K.ranks(st, rk)
    assert list(rk) == [1, 1]


def test_tv36_completion():
    st = new_state(2, cards=FIRST, monuments=0, first=1)
    set_board(st, 0, ["Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
    set_board(st, 1, ["Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc .. .."])
    _start_placements(st, W)
    K.step(st, K.A_SQUARE + 15)          # seat 0: last empty square
    K.step(st, K.A_SQUARE + 14)          # seat 1
    # nothing could fit (no monuments in play): both done automatically
    assert not R.build_offered(st, 0) and not R.build_offered(st, 1)
    assert st[pb(0) + K.O_STATUS] == 1 and st[pb(0) + K.O_DONE_ROUND] == 1
    assert st[pb(1) + K.O_STATUS] == 0
    assert st[K.G_ROUND] == 2 and st[K.G_MASTER_BUILDER] == 1 and st[K.G_PHASE] == K.PH_NAME
    # a town filled by an Opaleye move: skips the placement, builds, completes when done
    st = new_state(2, cards=FIRST, monuments=0, first=1)
    set_board(st, 0, ["Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc"])
    _start_placements(st, W)
    assert st[K.G_ACTOR] == 1 and st[K.G_PHASE] == K.PH_DEST
    K.step(st, K.A_SQUARE + 0)
    assert st[pb(0) + K.O_STATUS] == 1 and st[pb(0) + K.O_DONE_ROUND] == 1
    # ... the same with monuments in play: a monument nobody has built could fit seat 1's
    # board as far as the table can tell, so it gets the step (PASS only), whichever it kept
    for kept in (K.M_STARLOOM, K.M_MANDRAS):
        st = new_state(2, cards=FIRST, monuments=1, first=0)
        skip_keep(st)
        st[pb(1) + K.O_KEPT] = kept
        set_board(st, 0, ["Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
        set_board(st, 1, ["g g Fc Fc", "w .. Fc Fc", "Fc Fc Fc Fc", "Fc Fc Fc .."])
        _start_placements(st, H)
        K.step(st, K.A_SQUARE + 5)           # seat 1 completes g g / w h: The Starloom's pattern
        K.step(st, K.A_SQUARE + 15)          # seat 0: last empty square, done at once
        assert st[K.G_PHASE] == K.PH_BUILD and st[K.G_ACTOR] == 1
        check_ref(st)
        assert (kept == K.M_STARLOOM) == (mask_of(st) != {K.A_PASS})
        K.step(st, K.A_PASS)
        assert st[pb(0) + K.O_STATUS] == 1 and st[pb(1) + K.O_STATUS] == 0
        assert st[K.G_ROUND] == 2 and st[K.G_PHASE] == K.PH_NAME


# ============================================================ random games
def _policy(rs, st, m):
    legal = np.flatnonzero(m)
    if st[K.G_PHASE] == K.PH_BUILD:
        cons = legal[legal < 1024]
        if len(cons) and rs.random() < 0.9:
            return int(rs.choice(cons))
    if st[K.G_PHASE] == K.PH_GUILD_TARGET and rs.random() < 0.7:
        sq = legal[legal < K.A_PASS]
        if len(sq):
            return int(rs.choice(sq))
    return int(rs.choice(legal))


class TargetPolicy:
    """Random play with a plan: each player picks a random placement of a card it may build
    (its monument preferred) and names/places the resources it needs, so constructions,
    monuments and their effects happen often."""

    def __init__(self):
        self.targets = {}

    def _cells(self, card, t, anchor):
        r0, c0 = divmod(anchor, 4)
        return [((r0 + K.PATTERN_CELLS[card, t, i, 0]) * 4 + c0 + K.PATTERN_CELLS[card, t, i, 1], int(K.PATTERN_CELLS[card, t, i, 2]))
                for i in range(K.PATTERN_SIZE[card])]

    def _valid(self, st, p, cells):
        b = pb(p)
        return all(st[b + K.O_BUILDING + q] < 0 and st[b + K.O_CUBE + q] in (-1, r) for q, r in cells)

    def target(self, rs, st, p):
        tgt = self.targets.get(p)
        if tgt is not None and self._valid(st, p, tgt):
            return tgt
        slots = [s for s in range(8) if K._slot_card(st, p, s) >= 0]
        for _ in range(40):
            slot = 7 if 7 in slots and rs.random() < 0.5 else int(rs.choice(slots))
            c = int(K._slot_card(st, p, slot))
            t = int(rs.choice(np.flatnonzero(K.TRANSFORM_DISTINCT[c])))
            h, w = K.TRANSFORM_BOX[c, t]
            anchor = int(rs.integers(4 - h + 1)) * 4 + int(rs.integers(4 - w + 1))
            cells = self._cells(c, t, anchor)
            if self._valid(st, p, cells):
                self.targets[p] = cells
                return cells
        self.targets[p] = None
        return None

    def __call__(self, rs, st, m):
        legal = np.flatnonzero(m)
        ph = int(st[K.G_PHASE])
        p = int(st[K.G_ACTOR])
        b = pb(p)
        if ph == K.PH_BUILD:
            cons = legal[legal < 1024]
            if len(cons) and rs.random() < 0.95:
                mon = cons[cons >= 7 * 128]
                if len(mon) and rs.random() < 0.8:
                    return int(rs.choice(mon))
                return int(rs.choice(cons))
            return _policy(rs, st, m)
        if ph not in (K.PH_NAME, K.PH_CHOOSE, K.PH_TAKE, K.PH_DEST) or rs.random() < 0.1:
            return _policy(rs, st, m)
        tgt = self.target(rs, st, p)
        if tgt is None:
            return _policy(rs, st, m)
        need = {q: r for q, r in tgt if st[b + K.O_CUBE + q] != r}
        if ph in (K.PH_NAME, K.PH_CHOOSE, K.PH_TAKE):
            want = [K.A_RESOURCE + r for r in set(need.values()) if m[K.A_RESOURCE + r]]
            return int(rs.choice(want)) if want else _policy(rs, st, m)
        res = st[b + K.O_PEND_RESOURCE]
        good = [K.A_SQUARE + q for q, r in need.items() if r == res and m[K.A_SQUARE + q]]
        if good:
            return int(rs.choice(good))
        cells = {q for q, _ in tgt}
        other = [a for a in legal if not (K.A_SQUARE <= a < K.A_RESOURCE and a - K.A_SQUARE in cells)]
        return int(rs.choice(other)) if other else int(rs.choice(legal))


def _smart_policy(rs, st, m, _cache={}):
    key = id(st)
    pol = _cache.get(key)
    if pol is None or pol[0] is not st:
        _cache.clear()
        pol = _cache[key] = (st, TargetPolicy())
    return pol[1](rs, st, m)


def _hidden_check(st, observer, rs):
    """The observer's view must not change when the others' hidden data change."""
    o1 = np.zeros(K.OBS_SIZE, dtype=np.float32)
    o2 = np.zeros(K.OBS_SIZE, dtype=np.float32)
    K.observe(st, observer, o1)
    st2 = st.copy()
    n = int(st[K.G_NUM_PLAYERS])
    for p in range(n):
        if p == observer:
            continue
        b = pb(p)
        if not st2[b + K.O_MONUMENT_BUILT] and st2[b + K.O_KEPT] >= 0:
            st2[b + K.O_KEPT] = K.NUM_BUILDING_CARDS + rs.integers(K.NUM_MONUMENTS)
            st2[b + K.O_DEALT] = K.NUM_BUILDING_CARDS + rs.integers(K.NUM_MONUMENTS)
        if st2[b + K.O_KEPT] < 0:
            st2[b + K.O_DEALT] = K.NUM_BUILDING_CARDS + rs.integers(K.NUM_MONUMENTS)
        if st2[b + K.O_PEND_RESOURCE] >= 0:
            st2[b + K.O_PEND_RESOURCE] = rs.integers(5)
            st2[b + K.O_PEND_DEST] = rs.integers(16)
        if st[K.G_STAGE] == K.ST_BUILD and n > 1:
            # this round's constructions: anything at all on the other towns, and any step
            # of another player's build step under way
            for q in range(16):
                st2[b + K.O_CUBE + q] = rs.integers(-1, 5)
                st2[b + K.O_BUILDING + q] = rs.integers(-1, K.NUM_CARDS)
                st2[b + K.O_PLACED_ROUND + q] = st[K.G_ROUND]
            st2[b + K.O_STATUS] = rs.integers(2)
            st2[b + K.O_MONUMENT_BUILT] = rs.integers(2)
            st2[b + K.O_SHRINE] = rs.integers(9)
            st2[b + K.O_OPALEYE_ASIDE:b + K.O_OPALEYE_ASIDE + 7] = rs.integers(2, size=7)
            if st[K.G_ACTOR] == p:
                st2[K.G_PHASE] = rs.integers(K.PH_BUILD, K.PH_OPALEYE_TYPE + 1)
                st2[K.G_TOKEN_CARD] = rs.integers(-1, K.NUM_CARDS)
                st2[K.G_TOKEN_VACATED] = rs.integers(1 << 16)
                st2[K.G_GROVE_TYPE] = rs.integers(-1, 7)
                st2[K.G_GUILD_REPLACED] = rs.integers(1 << 16)
                st2[K.G_RESOURCE_CELL] = rs.integers(-1, 16)
    K.observe(st2, observer, o2)
    assert np.array_equal(o1, o2)
    st3 = st.copy()
    K.determinize(st3, observer, int(rs.integers(1 << 30)))
    K.observe(st3, observer, o2)
    assert np.array_equal(o1, o2)
    assert K.current_player(st3) == K.current_player(st)
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    K.legal_mask(st3, m)
    assert m.sum() > 0


CONFIGS = [(1, 0, 1, 0), (1, 0, 0, 1), (2, 0, 1, 0), (2, 1, 1, 1), (3, 0, 1, 1), (3, 1, 0, 0),
           (4, 0, 1, 0), (4, 1, 1, 0), (5, 0, 0, 0), (5, 1, 1, 1), (6, 0, 1, 1), (6, 1, 1, 0)]


def _check_build_turns(pre, a, post):
    """After ``K.step(pre -> post, a)``: the build steps the kernel skipped and the one it
    offered are exactly those of the reference's ``build_offered`` (judged on the boards of
    ``post``, which skipping does not change, at the round of ``pre``)."""
    same_round = post[K.G_ROUND] == pre[K.G_ROUND]
    if pre[K.G_STAGE] == K.ST_COMMIT:
        if same_round and post[K.G_STAGE] == K.ST_COMMIT:
            return                                  # not revealed yet
        start = 0
    elif pre[K.G_STAGE] == K.ST_BUILD:
        start = int(pre[K.G_ORDER_POS]) + (1 if pre[K.G_PHASE] == K.PH_BUILD and a == K.A_PASS else 0)
    else:
        return
    at_build = same_round and post[K.G_STAGE] == K.ST_BUILD and post[K.G_PHASE] == K.PH_BUILD
    ended = not same_round or post[K.G_STAGE] != K.ST_BUILD
    if not (at_build or ended):
        return                                      # an effect of a construction is pending
    ref = post.copy()
    ref[K.G_ROUND] = pre[K.G_ROUND]
    order = [int(p) for p in pre[K.G_ORDER:K.G_ORDER + pre[K.G_ORDER_LEN]]]
    stop = int(post[K.G_ORDER_POS]) if at_build else len(order)
    for k in range(start, stop):
        assert not R.build_offered(ref, order[k]), f"seat {order[k]}'s build step was skipped"
    if at_build:
        assert post[K.G_ACTOR] == order[stop] and R.build_offered(ref, order[stop])


def _play(n, variant, mon, cave, seed, check_every=1, policy=None):
    policy = policy or _policy
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.init(st, config(n, variant, mon, cave), seed)
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
    ctx = {}

    def before_move(st, steps, m, rs):
        ctx["mask"] = m
        if steps % check_every == 0:
            assert set(np.flatnonzero(m).tolist()) == R.legal_actions(st), K.PHASE_NAMES[st[K.G_PHASE]]
            p = int(st[K.G_ACTOR])
            for obsv in range(n):
                assert K.observe(st, obsv, obs) == K.OBS_SIZE
                assert np.isfinite(obs).all() and obs.min() >= 0.0 and obs.max() <= 1.0
            if st[K.G_STAGE] in (K.ST_COMMIT, K.ST_BUILD) or st[K.G_PHASE] == K.PH_KEEP:
                _hidden_check(st, (p + 1) % n, rs)

    def choose(st, legal, rs):
        a = policy(rs, st, ctx["mask"])
        ctx["pre"] = st.copy()
        ctx["follows"] = None
        if st[K.G_PHASE] == K.PH_DEST:
            # the reference decides on its own whether the Warehouse steps follow
            p = int(st[K.G_ACTOR])
            to_wh = K.A_SQUARE <= a < K.A_RESOURCE and st[pb(p) + K.O_BUILDING + a - K.A_SQUARE] == K.C_WAREHOUSE
            ctx["follows"] = (p, to_wh or R.warehouse_padded(st, p))
        return a

    def after_move(st, steps, a):
        if ctx["follows"] is not None:
            p, follows = ctx["follows"]
            assert (st[K.G_PHASE] == K.PH_SWAP and st[K.G_ACTOR] == p) == follows
        if steps % check_every == 0:
            _check_build_turns(ctx["pre"], a, st)

    steps = driver.play_kernel(K, st, seed, choose=choose, before_move=before_move, after_move=after_move,
                               max_steps=TT.Spec.max_steps - 1)
    sc = np.zeros(n, dtype=np.int64)
    K.scores(st, sc)
    assert list(sc) == R.final_scores_ref(st)
    rk = np.zeros(n, dtype=np.int64)
    K.ranks(st, rk)
    assert rk.min() == 1
    return st, steps


@pytest.mark.parametrize("n,variant,mon,cave", CONFIGS)
def test_random_games(n, variant, mon, cave):
    for seed in range(2):
        st, steps = _play(n, variant, mon, cave, seed)
        assert all(st[pb(p) + K.O_STATUS] == 1 for p in range(n))


@pytest.mark.parametrize("n,variant,mon,cave", CONFIGS)
def test_steered_games(n, variant, mon, cave):
    for seed in range(2):
        _play(n, variant, mon, cave, 100 + seed, policy=_smart_policy)


@pytest.mark.slow
@pytest.mark.parametrize("n,variant,mon,cave", CONFIGS)
def test_random_games_many(n, variant, mon, cave):
    # 150 games per configuration: 300 per player count (each count has two configurations)
    for seed in range(2, 77):
        _play(n, variant, mon, cave, seed)
        _play(n, variant, mon, cave, 100 + seed, policy=_smart_policy)


def game_part(st):
    """The state without its scratch tail (which carries no game information)."""
    return st[:K.STATE_SIZE - K.SCRATCH_SIZE]


def test_scratch_is_the_state_tail_and_carries_nothing():
    """envs.spec contract: the last GameConfig.scratch slots are scratch only -- garbage
    there never changes a mask, an observation, a score or the course of the game."""
    cfg = TT.Spec().configure(num_players=3, cave_rule=True)
    assert cfg.scratch == K.SCRATCH_SIZE > 0 and cfg.state_size == K.STATE_SIZE
    assert K.SCRATCH_KEY == K.STATE_SIZE - K.SCRATCH_SIZE
    # every other state field lies before the tail: the declared layout puts scratch last
    assert K.STATE.scratch_size == K.SCRATCH_SIZE
    assert K.STATE.names()[-3:] == ["scratch_key", "scratch_score_parts", "scratch_rank_keys"]
    assert K.STATE.offset("players") + K.MAX_SEATS * K.PLAYER_SIZE == K.SCRATCH_KEY
    offsets = [v for k, v in vars(K).items() if k.startswith("G_") and isinstance(v, int)]
    assert max(offsets) == K.G_PLAYERS < K.SCRATCH_KEY
    for seed in range(3):
        clean = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.init(clean, cfg.config, seed)
        m2 = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
        o1 = np.zeros(K.OBS_SIZE, dtype=np.float32)
        o2 = np.zeros(K.OBS_SIZE, dtype=np.float32)
        s1 = np.zeros(3, dtype=np.int64)
        s2 = np.zeros(3, dtype=np.int64)
        ctx = {}

        def before_move(clean, steps, m1, rs):
            dirty = clean.copy()
            dirty[K.SCRATCH_KEY:] = rs.integers(-5, 20, K.SCRATCH_SIZE)
            K.legal_mask(dirty, m2)
            assert np.array_equal(m1, m2)
            for p in range(3):
                dirty[K.SCRATCH_KEY:] = rs.integers(-5, 20, K.SCRATCH_SIZE)
                K.observe(clean, p, o1)
                K.observe(dirty, p, o2)
                assert np.array_equal(o1, o2)
            K.scores(clean, s1)
            K.scores(dirty, s2)
            assert np.array_equal(s1, s2)
            ctx["mask"], ctx["dirty"] = m1, dirty

        def choose(clean, legal, rs):
            a = _policy(rs, clean, ctx["mask"])
            ctx["dirty"][K.SCRATCH_KEY:] = rs.integers(-5, 20, K.SCRATCH_SIZE)
            return a

        def after_move(clean, steps, a):
            K.step(ctx["dirty"], a)
            assert np.array_equal(game_part(clean), game_part(ctx["dirty"]))

        driver.play_kernel(K, clean, 5 + seed, before_move=before_move, choose=choose, after_move=after_move)
    # the shell's game_state() leaves the tail out
    from envs.shell import CityEnv
    env = CityEnv(TT.Spec(), num_players=2)
    env.reset(seed=1)
    assert env.game_state().shape == (K.STATE_SIZE - K.SCRATCH_SIZE,)


def test_reseed_keeps_observations():
    st = new_state(3, variant=1, seed=2)
    rs = np.random.default_rng(0)
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    for _ in range(30):
        K.legal_mask(st, m)
        K.step(st, _policy(rs, st, m))
    o1 = np.zeros(K.OBS_SIZE, dtype=np.float32)
    o2 = np.zeros(K.OBS_SIZE, dtype=np.float32)
    cp = st.copy()
    K.reseed(cp, 99)
    for p in range(3):
        K.observe(st, p, o1)
        K.observe(cp, p, o2)
        assert np.array_equal(o1, o2)


def test_playout_kernel():
    # compiled without numba's on-disk cache: the shared loop's cache index keys on other
    # games' dispatchers and saving it can fail ("underlying object has vanished")
    from numba import njit
    loop = playout.random_playout
    st = new_state(4, seed=1)
    gen = new_generator(0)
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    n = loop(K.step, K.legal_mask, K.current_player, st, m, gen, 100000)
    assert K.current_player(st) == -1 and n > 0


# ================================================================= options
@pytest.mark.parametrize("opts", [
    dict(num_players=0), dict(num_players=7), dict(num_players="2"), dict(num_players=True),
    dict(variant="x"), dict(variant="town_hall", num_players=1), dict(monuments=1),
    dict(cave_rule="yes"), dict(buildings="all"), dict(buildings=["Farm", "Granary", "Well", "Chapel",
                                                                  "Tavern", "Theater", "Factory"]),
    dict(buildings=["Farm", "Well", "Chapel", "Tavern", "Theater"]),
    dict(buildings=["Farm", "Well", "Chapel", "Inn", "Theater", "Factory"], num_players=1),
    dict(buildings=["Farm", "Well", "Chapel", "Tavern", "Theater", "Bank"], num_players=1),
    dict(buildings=["Farm", "Well", "Chapel", "Tavern", "Theater", "Nope"]),
    dict(buildings=["Farm", "Well", "Chapel", "Tavern", "Theater", "Fort Ironweed"]),
    dict(first_player=2), dict(colour="red"),
])
def test_bad_options(opts):
    with pytest.raises(ValueError):
        TT.Spec().configure(**opts)


def test_options_fix_cards():
    cfg = TT.Spec().configure(buildings="first_game", num_players=3)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.init(st, cfg.config, 0)
    assert [K.CARD_NAMES[c] for c in st[K.G_CARDS_IN_PLAY:K.G_CARDS_IN_PLAY + 7]] == FIRST
    cfg = TT.Spec().configure(buildings=["feast_hall", "Granary", "shed", "Abbey", "market", "Bank"])
    K.init(st, cfg.config, 0)
    assert {K.CARD_NAMES[c] for c in st[K.G_CARDS_IN_PLAY:K.G_CARDS_IN_PLAY + 7]} == {
        "Cottage", "Feast Hall", "Granary", "Shed", "Abbey", "Market", "Bank"}


# ==================================================================== shell
@pytest.mark.parametrize("opts", [dict(num_players=1), dict(num_players=3, variant="town_hall", cave_rule=True)])
def test_shell_game(opts):
    from envs.shell import CityEnv
    env = CityEnv(TT.Spec(), render_mode="ansi", **opts)
    env.reset(seed=4)
    rs = np.random.default_rng(2)
    info = None
    for i, agent in enumerate(env.agent_iter()):
        obs, rew, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent)["observation"].contains(obs["observation"])
        if i % 25 == 0:
            d = env.unwrapped.determinize(agent, i)
            assert np.array_equal(d.observe(agent)["observation"], obs["observation"])
            assert isinstance(env.unwrapped.action_label(int(np.flatnonzero(obs["action_mask"])[0])), str)
        env.step(int(rs.choice(np.flatnonzero(obs["action_mask"]))))
    assert "scores" in info and len(info["scores"]) == opts["num_players"]
    if opts["num_players"] == 1:
        assert info["title"] == TT.solo_title(info["scores"][0])
    assert isinstance(env.render(), str)
    img = TT.Spec().picture(env._state, env.cfg).to_rgb()
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8


# ============================================================ random states
def _random_position(rs, n=2):
    cards = ["Cottage"] + [K.CARD_NAMES[int(rs.choice(K.DECK_CARDS[t]))] for t in range(1, 7)]
    st = new_state(n, cards=cards, monuments=1, cave=int(rs.integers(2)), seed=int(rs.integers(1 << 30)))
    skip_keep(st)
    rnd = 5
    st[K.G_ROUND] = rnd
    p = 0
    b = pb(p)
    pool = [K.C_TPOST] * 4 + [K.C_WAREHOUSE, K.C_BANK, K.C_FACTORY, K.C_COTTAGE] + list(range(K.NUM_BUILDING_CARDS))
    bank_res = list(rs.permutation(5))
    for q in range(16):
        x = rs.random()
        st[b + K.O_CUBE + q] = -1
        st[b + K.O_BUILDING + q] = -1
        st[b + K.O_BUILDING_RES + q] = -1
        st[b + K.O_PLACED_ROUND + q] = -1
        st[b + K.O_WAREHOUSE + 5 * q:b + K.O_WAREHOUSE + 5 * q + 5] = 0
        if x < 0.5:
            st[b + K.O_CUBE + q] = rs.integers(5)
        elif x < 0.8:
            c = int(rs.choice(pool))
            if c == K.C_BANK and not bank_res:
                c = K.C_TPOST
            st[b + K.O_BUILDING + q] = c
            st[b + K.O_PLACED_ROUND + q] = rnd if rs.random() < 0.25 else rnd - 1
            if c == K.C_BANK:
                st[b + K.O_BUILDING_RES + q] = bank_res.pop()
            elif c == K.C_FACTORY:
                st[b + K.O_BUILDING_RES + q] = rs.integers(5)
            elif c == K.C_WAREHOUSE:
                for _ in range(rs.integers(4)):
                    st[b + K.O_WAREHOUSE + 5 * q + rs.integers(5)] += 1
    # stamp a few pattern images (from the reference's own transforms) so constructions exist
    mine = [int(st[K.G_CARDS_IN_PLAY + k]) for k in range(7)] + [int(st[b + K.O_KEPT])]
    for _ in range(rs.integers(1, 4)):
        c = int(rs.choice(mine))
        imgs = R.IMAGES[c]
        img = imgs[int(rs.choice(list(imgs)))]
        h, w = img.shape
        r0, c0 = int(rs.integers(4 - h + 1)), int(rs.integers(4 - w + 1))
        for dr in range(h):
            for dc in range(w):
                ch = img[dr, dc]
                if ch == ".":
                    continue
                q = (r0 + dr) * 4 + c0 + dc
                if st[b + K.O_BUILDING + q] == K.C_BANK:
                    continue
                st[b + K.O_BUILDING_RES + q] = -1
                st[b + K.O_WAREHOUSE + 5 * q:b + K.O_WAREHOUSE + 5 * q + 5] = 0
                if rs.random() < 0.15:
                    st[b + K.O_CUBE + q] = -1
                    st[b + K.O_BUILDING + q] = K.C_TPOST
                    st[b + K.O_PLACED_ROUND + q] = rnd if rs.random() < 0.3 else rnd - 1
                else:
                    st[b + K.O_CUBE + q] = R.RES.index(ch)
                    st[b + K.O_BUILDING + q] = -1
                    st[b + K.O_PLACED_ROUND + q] = -1
    if rs.random() < 0.5:
        empties = [q for q in range(16) if st[b + K.O_BUILDING + q] < 0 and st[b + K.O_CUBE + q] < 0]
        if empties:
            q = int(rs.choice(empties))
            m = int(st[b + K.O_KEPT])
            st[b + K.O_BUILDING + q] = m
            st[b + K.O_MONUMENT_BUILT] = 1
            st[b + K.O_MONUMENT_CELL] = q
            st[b + K.O_PLACED_ROUND + q] = rnd if rs.random() < 0.3 else rnd - 1
    return st


def test_random_states_against_reference():
    rs = np.random.default_rng(7)
    seen_phases = set()
    for it in range(250):
        st = _random_position(rs)
        b = pb(0)
        force(st, K.PH_BUILD, 0)
        check_ref(st)
        cons = sorted(constructs(st))
        if cons:
            cp = st.copy()
            K.step(cp, int(rs.choice(cons)))
            check_ref(cp)
            seen_phases.add("TOKEN")
        force(st, K.PH_NAME, 0)
        check_ref(st)
        for imp in (0, 1):
            st[b + K.O_PEND_IMPOSED] = imp
            st[b + K.O_PEND_RESOURCE] = rs.integers(5)
            force(st, K.PH_DEST, 0)
            check_ref(st)
        whs = [q for q in range(16) if st[b + K.O_BUILDING + q] == K.C_WAREHOUSE]
        if whs:
            st[b + K.O_PEND_DEST] = whs[0]
            force(st, K.PH_SWAP, 0)
            check_ref(st)
            seen_phases.add("SWAP")
        st[K.G_GUILD_REPLACED] = rs.integers(1 << 16)
        force(st, K.PH_GUILD_TARGET, 0)
        check_ref(st)
        blds = [q for q in range(16) if 0 <= st[b + K.O_BUILDING + q] < K.NUM_BUILDING_CARDS]
        if blds:
            st[K.G_GUILD_CELL] = int(rs.choice(blds))
            force(st, K.PH_GUILD_TYPE, 0)
            check_ref(st)
        force(st, K.PH_GROVE_TYPE, 0)
        check_ref(st)
        res_blds = [q for q in range(16) if st[b + K.O_BUILDING + q] in (K.C_BANK, K.C_FACTORY)]
        if res_blds:
            st[K.G_RESOURCE_CELL] = int(rs.choice(res_blds))
            force(st, K.PH_BUILD_RESOURCE, 0)
            check_ref(st)
            seen_phases.add("BRES")
        for k in range(7):
            st[b + K.O_OPALEYE_ASIDE + k] = rs.integers(2)
        if st[b + K.O_OPALEYE_ASIDE:b + K.O_OPALEYE_ASIDE + 7].sum() < 7:
            force(st, K.PH_OPALEYE_TYPE, 0)
            check_ref(st)
    assert seen_phases == {"TOKEN", "SWAP", "BRES"}


def test_random_towns_score_against_reference():
    rs = np.random.default_rng(3)
    done = 0
    while done < 150:
        town = []
        mon = K.NUM_BUILDING_CARDS + int(rs.integers(K.NUM_MONUMENTS))
        for q in range(16):
            x = rs.random()
            if x < 0.25:
                town.append(None)
            elif x < 0.3:
                town.append(K.CARD_NAMES[mon])
            else:
                town.append(K.CARD_NAMES[int(rs.integers(K.NUM_BUILDING_CARDS))])
        if sum(t in ("Cottage", "Barrett Castle") for t in town) > 7 or town.count("Greenhouse") > 2:
            continue
        if town.count(K.CARD_NAMES[mon]) > 1:
            continue
        done += 1
        wh = [int(rs.integers(4)) if t == "Warehouse" else 0 for t in town]
        right = int(rs.integers(4))
        solo = bool(rs.random() < 0.2)
        shrine = int(rs.integers(1, 9))
        place = int(rs.integers(1, 6))
        bld = np.array([K.CARD_ID[t] if t else -1 for t in town], dtype=np.int64)
        parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
        got = K.score_board(bld, np.array(wh, dtype=np.int64), right, int(solo), shrine, place, parts)
        assert got == R.score_town_ref(town, wh, right, solo, shrine, place), town
        assert parts[:K.NUM_CARDS + 1].sum() == got


def test_distinct_placement_counts():
    """Rules reference section 11: distinct placements per pattern (kernel table and the
    reference's own transforms agree)."""
    expect = {"Farm": 36, "Orchard": 36, "Cottage": 72, "Well": 48, "Chapel": 48, "Tavern": 32,
              "Theater": 24, "Factory": 24, "Warehouse": 24, "Bank": 48, "Trading Post": 48,
              "Architect's Guild": 32, "The Sky Baths": 32, "Opaleye's Watch": 16, "Barrett Castle": 24}
    for name, n in expect.items():
        c = card(name)
        kern = sum((5 - K.TRANSFORM_BOX[c, t, 0]) * (5 - K.TRANSFORM_BOX[c, t, 1]) for t in range(8) if K.TRANSFORM_DISTINCT[c, t])
        ref = sum((5 - img.shape[0]) * (5 - img.shape[1]) for img in R.IMAGES[c].values())
        assert kern == ref == n, name
        assert sorted(t for t in range(8) if K.TRANSFORM_DISTINCT[c, t]) == sorted(R.IMAGES[c])


def test_guild_factory_and_opaleye_factory_get_their_resource():
    st = new_state(2, cards=FIRST, monuments=1, first=0)
    set_board(st, 0, ["Co .. .. AG", "Co .. .. We", ".. .. .. ..", ".. .. .. .."])
    force(st, K.PH_BUILD, 0)
    after_token(st, 0, 3)
    K.step(st, K.A_SQUARE + 7)
    K.step(st, K.A_TYPE + 6)                     # Well -> Factory
    assert st[K.G_PHASE] == K.PH_BUILD_RESOURCE and mask_of(st) == {K.A_RESOURCE + r for r in range(5)}
    K.step(st, K.A_RESOURCE + S)
    assert st[pb(0) + K.O_BUILDING_RES + 7] == S
    assert st[K.G_PHASE] == K.PH_GUILD_TARGET and st[K.G_GUILD_LEFT] == 1
    assert mask_of(st) == {K.A_SQUARE + 0, K.A_SQUARE + 4, K.A_PASS}
    K.step(st, K.A_PASS)
    assert st[K.G_PHASE] != K.PH_GUILD_TARGET
    # Opaleye's Watch moving a Factory: its resource is chosen, then the round goes on
    st = new_state(2, cards=FIRST, monuments=1)
    skip_keep(st)
    set_board(st, 0, ["OW .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."], placed_round=1)
    st[pb(0) + K.O_OPALEYE_ASIDE + 6] = 1
    st[K.G_ROUND] = 2
    st[pb(1) + K.O_BUILT_TYPES] = 1 << 6
    st[K.G_STAGE] = K.ST_END
    st[K.G_OPALEYE_STARTED] = 0
    K._run(st)
    assert st[K.G_PHASE] == K.PH_OPALEYE_SQUARE
    K.step(st, K.A_SQUARE + 10)
    assert st[K.G_PHASE] == K.PH_BUILD_RESOURCE and st[K.G_ACTOR] == 0
    K.step(st, K.A_RESOURCE + H)
    assert st[pb(0) + K.O_BUILDING + 10] == K.C_FACTORY and st[pb(0) + K.O_BUILDING_RES + 10] == H
    assert st[K.G_ROUND] == 3 and st[K.G_PHASE] == K.PH_NAME


# ============================================================= greedy potential
EMPTY_ROWS = [".. .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."]


def _named_state(rows0, rows1=EMPTY_ROWS):
    """First-game cards, no monuments, player 1 to name (nothing pending for anybody)."""
    st = new_state(2, cards=FIRST, monuments=0, first=1)
    set_board(st, 0, rows0)
    set_board(st, 1, rows1)
    assert st[K.G_PHASE] == K.PH_NAME and st[K.G_ACTOR] == 1
    return st


def _score(st, p):
    out = np.zeros(2, dtype=np.int64)
    K.scores(st, out)
    return int(out[p])


def test_potential_empty_and_complete_towns():
    st = _named_state(EMPTY_ROWS)
    assert K.potential(st, 0) == K.potential(st, 1) == 16 * K.POT_EMPTY
    st[pb(0) + K.O_STATUS] = 1
    assert K.potential(st, 0) == 0.0


def test_potential_prefers_cubes_forming_a_pattern():
    # Cottage = ".H / BG": brick and glass side by side under an empty square need one wheat
    near = _named_state([".. .. .. ..", "b g .. ..", ".. .. .. ..", ".. .. .. .."])
    apart = _named_state(["b .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. g"])
    assert _score(near, 0) == _score(apart, 0)
    assert K.potential(near, 0) > K.potential(apart, 0) > 14 * K.POT_EMPTY
    # a third cube completing the Cottage is worth more than a third cube elsewhere
    done = _named_state([".. h .. ..", "b g .. ..", ".. .. .. ..", ".. .. .. .."])
    stray = _named_state([".. .. .. ..", "b g .. ..", ".. .. .. ..", ".. .. .. h"])
    assert K.potential(done, 0) > K.potential(stray, 0)


def test_potential_dead_cube_earns_nothing():
    # every pattern is connected, so a corner cube walled in by buildings can never be used
    st = _named_state(["s Fc .. ..", "Fc .. .. ..", ".. .. .. ..", ".. .. .. .."])
    assert K.potential(st, 0) == 13 * K.POT_EMPTY
    st = _named_state(["s .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. Fc Fc"])
    assert K.potential(st, 0) > 13 * K.POT_EMPTY


def test_potential_unfed_cottages_and_red_card():
    unfed = _named_state(["Co .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    fed = _named_state(["Co .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. Fa"])
    assert K.potential(unfed, 0) == 15 * K.POT_EMPTY + K.POT_UNFED
    assert K.potential(fed, 0) == 14 * K.POT_EMPTY
    # a complete Farm pattern (HH / WW) is worth more when Cottages wait to be fed
    farm = ["h h .. ..", "w w .. ..", ".. .. .. .."]

    def credit(last_row):                        # what the 4 cubes earn over 4 empty squares
        with_cubes = K.potential(_named_state(farm + [last_row]), 0)
        without = K.potential(_named_state(EMPTY_ROWS[:3] + [last_row]), 0)
        return with_cubes - without + 4 * K.POT_EMPTY

    assert credit(".. .. Co Co") > credit(".. .. .. ..") > 0


def test_potential_counts_the_cube_to_place_and_the_token():
    st = _named_state([".. .. .. ..", "b g .. ..", ".. .. .. ..", ".. .. .. Fa"])
    before = K.potential(st, 0)
    K.step(st, K.A_RESOURCE + H)                      # player 1 names wheat; player 0 places first
    assert st[K.G_PHASE] == K.PH_DEST and st[K.G_ACTOR] == 0
    ahead = K.potential(st, 0)
    assert ahead > before                         # the wheat can complete the Cottage
    worse = st.copy()
    K.step(worse, K.A_SQUARE + 11)                    # wheat away from the brick and glass
    K.step(st, K.A_SQUARE + 1)                        # committed, not revealed yet
    assert st[pb(0) + K.O_CUBE + 1] == -1
    assert K.potential(st, 0) == pytest.approx(ahead)
    assert K.potential(worse, 0) < ahead
    K.step(st, K.A_SQUARE + 0)                        # player 1's wheat; reveal, build step
    assert st[K.G_PHASE] == K.PH_BUILD and st[K.G_ACTOR] == 0
    pass_value = _score(st, 0) + K.potential(st, 0)
    assert 0 in constructs(st)                    # Cottage, t = 0, anchor 0
    K.step(st, 0)
    assert st[K.G_PHASE] == K.PH_TOKEN
    # waiting for the token: the real gain of the best square (fed Cottage) is promised
    token_value = _score(st, 0) + K.potential(st, 0)
    assert token_value > pass_value
    K.step(st, K.A_SQUARE + 5)
    # nothing more could fit (no monuments in play): both done at once, next round
    assert st[K.G_PHASE] == K.PH_NAME
    assert _score(st, 0) + K.potential(st, 0) == pytest.approx(token_value)


def test_potential_in_evaluate():
    st = _named_state(["Co .. .. ..", "b g .. ..", ".. .. .. ..", ".. .. .. .."],
                      ["Ta .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    spec = TT.Spec()
    cfg = spec.configure()
    weight = getattr(K, "POTENTIAL_WEIGHT", 1.0)          # kernels.outcome: the kernel's weight, default 1
    v = [_score(st, p) + weight * K.potential(st, p) for p in range(2)]
    assert spec.evaluate(st, cfg, 0) == pytest.approx(v[0] - v[1])
    assert spec.evaluate(st, cfg, 1) == pytest.approx(v[1] - v[0])


# ============================================ hidden build steps (ruling 6, revised)
STARLOOM = 128 * 7 + 16 * 0 + 0        # The Starloom (GG / WH), t = 0 at square 0
COTTAGE_LOW = 128 * 0 + 16 * 0 + 8     # a Cottage (.H / BG), t = 0 at square 8


def _starloom_round(build_starloom=False):
    """3 players, seat 2 holds the hammer: order 0, 1, 2.  Every town holds g g / w . and
    gets wheat on 5, The Starloom's pattern, which no card of the first game fits; seat 0
    also holds a Cottage pattern (h 9, b 12, g 13).  Seat 0 kept The Starloom, seats 1 and 2
    Mandras Palace and The Sky Baths.  The state at seat 0's first build decision, or with
    ``build_starloom`` after it built The Starloom on square 0."""
    st = new_state(3, cards=FIRST, monuments=1, first=2)
    skip_keep(st)
    for p, dealt in enumerate(((K.M_STARLOOM, K.M_SHRINE), (K.M_MANDRAS, K.M_SILVA),
                               (K.M_SKYBATHS, K.M_ARCHIVE))):
        b = pb(p)
        st[b + K.O_KEPT], st[b + K.O_DEALT], st[b + K.O_DEALT + 1] = dealt[0], dealt[0], dealt[1]
        set_board(st, p, ["g g .. ..", "w .. .. ..", ".. h .. .." if p == 0 else ".. .. .. ..",
                          "b g .. .." if p == 0 else ".. .. .. .."])
    _start_placements(st, H)                     # seat 2 names wheat
    for p in (0, 1, 2):
        assert st[K.G_ACTOR] == p
        K.step(st, K.A_SQUARE + 5)
    assert st[K.G_STAGE] == K.ST_BUILD and st[K.G_PHASE] == K.PH_BUILD and st[K.G_ACTOR] == 0
    assert {STARLOOM, COTTAGE_LOW, K.A_PASS} <= mask_of(st)
    if build_starloom:
        K.step(st, STARLOOM)
        K.step(st, K.A_SQUARE + 0)
        assert st[K.G_PHASE] == K.PH_BUILD and st[K.G_ACTOR] == 0      # the Cottage still fits
    return st


def _views(raw, seats):
    """What each of ``seats`` sees of the table: observation and mask, text, picture."""
    return [(raw.observe(raw.possible_agents[s])["observation"].tobytes(), raw.text(observer=s),
             raw.svg(observer=s)) for s in seats]


def _env_at(st):
    from envs.shell import CityEnv
    env = CityEnv(TT.Spec(), num_players=int(st[K.G_NUM_PLAYERS]), buildings="first_game")
    env.reset(seed=0)
    env.unwrapped._state[:] = st
    env.unwrapped._after_move()
    return env


def test_constructions_stay_hidden_until_the_last_builder_is_done():
    """Ruling 6 (revised): build steps are committed hidden in turn order and revealed
    together.  While seat 0 builds, seats 1 and 2 see nothing of it (observation, text,
    picture, the labels of its moves); seat 1's build step is offered as if seat 0 had built
    nothing (The Starloom still fits its board as far as it knows); when the last builder is
    done everything is revealed."""
    env = _env_at(_starloom_round())
    raw = env.unwrapped
    before, public = _views(raw, (1, 2)), raw.spec.render_ansi(raw._state, raw.cfg)
    for action in (STARLOOM, K.A_SQUARE + 0, COTTAGE_LOW):
        assert raw.action_label(action, observer=0) == raw.action_label(action)
        assert raw.action_label(action, observer=1) == raw.action_label(action, observer=2) == "(building)"
        env.step(action)
        assert env.agent_selection == "player_0"
        assert _views(raw, (1, 2)) == before, raw.phase
        assert raw.spec.render_ansi(raw._state, raw.cfg) == public
    assert raw.phase == "token" and "build step under way: token" in raw.text(observer=0)
    env.step(K.A_SQUARE + 13)
    own = raw.text(observer=0)
    assert "monument The Starloom" in own and "SL" in own and "Co" in own
    # nothing more fits seat 0's town: it is done, and seat 1 gets its build step (PASS
    # only: it kept Mandras Palace), exactly as when seat 0 passes at once
    passed = _env_at(_starloom_round())
    passed.step(K.A_PASS)
    for e in (env, passed):
        assert e.agent_selection == "player_1" and e.unwrapped.phase == "build"
        assert e.unwrapped.legal_actions() == [K.A_PASS]
    assert _views(raw, (1, 2)) == _views(passed.unwrapped, (1, 2))
    assert raw.spec.render_ansi(raw._state, raw.cfg) == passed.unwrapped.spec.render_ansi(
        passed.unwrapped._state, passed.unwrapped.cfg)
    assert "The Starloom" not in raw.text(observer=1) and "The Starloom" not in raw.svg(observer=2)
    assert _views(raw, (0,)) != _views(passed.unwrapped, (0,))
    # seats 1 and 2 pass: the round ends and everybody sees seat 0's town as built
    for e in (env, passed):
        e.step(K.A_PASS)
        assert e.agent_selection == "player_2" and e.unwrapped.legal_actions() == [K.A_PASS]
        e.step(K.A_PASS)
        assert e.unwrapped.phase == "name" and e.unwrapped._state[K.G_ROUND] == 2
    parts = raw.split_observation(raw.observe("player_1")["observation"])
    seat0 = "player2"                                   # seat 0 seen from seat 1: its right
    assert parts[f"{seat0}_monument_built"][K.M_STARLOOM - K.NUM_BUILDING_CARDS] == 1
    assert parts[f"{seat0}_squares"][0, K.PLANE_MONUMENT] == 1
    assert parts[f"{seat0}_squares"][13, K.PLANE_TYPE + 0] == 1       # the Cottage
    assert "monument The Starloom" in raw.text(observer=1) and "The Starloom" in raw.svg(observer=2)
    assert _views(raw, (1, 2)) != _views(passed.unwrapped, (1, 2))


def test_build_offer_ignores_the_hidden_constructions_of_earlier_builders():
    """Whether a seat is asked to build depends on its own board and public information:
    The Starloom built this round by an earlier builder still counts as unbuilt for seat 1
    (under the old public build steps seat 1 would be skipped: nothing of its own fits)."""
    for build in (False, True):
        st = _starloom_round(build)
        K.step(st, K.A_PASS)
        assert st[K.G_ACTOR] == 1 and st[K.G_PHASE] == K.PH_BUILD and mask_of(st) == {K.A_PASS}
        assert R.build_offered(st, 1) and R.monument_could_fit(st, 1)
        check_ref(st)


def test_determinize_redraws_hidden_constructions():
    """determinize(observer) during the build stage: the other players' constructions of the
    round are re-drawn from what the observer saw at the reveal -- the result depends only on
    the seed and on what the observer knows (the same whether seat 0 built The Starloom and a
    Cottage or nothing), the observer's view and whose turn it is do not change, and the copy
    is a legal game; reseed changes no observation."""
    built = _starloom_round(True)
    K.step(built, COTTAGE_LOW)
    K.step(built, K.A_SQUARE + 13)              # nothing more fits: seat 0 is done
    nothing = _starloom_round()
    K.step(nothing, K.A_PASS)
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)

    def view(st, p):
        K.observe(st, p, obs)
        return obs.tobytes()

    for p in (1, 2):
        assert view(built, p) == view(nothing, p)
    assert view(built, 0) != view(nothing, 0)
    outcomes = set()
    for seed in range(16):
        a, b = built.copy(), nothing.copy()
        K.determinize(a, 1, seed)
        K.determinize(b, 1, seed)
        assert np.array_equal(game_part(a), game_part(b)), seed
        assert view(a, 1) == view(built, 1)
        assert K.current_player(a) == 1 and a[K.G_PHASE] == K.PH_BUILD
        kept = [K.O_KEPT, K.O_DEALT, K.O_DEALT + 1]
        for p in (0, 2):         # the copies the others see: unchanged but for the re-dealt monuments
            lo = K.G_SHOWN + p * K.PLAYER_SIZE
            same = [i for i in range(K.PLAYER_SIZE) if i not in kept]
            assert np.array_equal(a[lo:lo + K.PLAYER_SIZE][same], built[lo:lo + K.PLAYER_SIZE][same])
        assert np.array_equal(a[pb(1):pb(1) + K.PLAYER_SIZE], built[pb(1):pb(1) + K.PLAYER_SIZE])
        assert a[pb(0) + K.O_KEPT] not in (K.M_MANDRAS, K.M_SILVA)          # seat 1's own cards
        cottage = any(a[pb(0) + K.O_BUILDING + q] == K.C_COTTAGE for q in range(16))
        outcomes.add((int(a[pb(0) + K.O_MONUMENT_BUILT]), cottage))
        # a legal game: on to the end, the reference agreeing with every mask
        rs = np.random.default_rng(seed)
        m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
        while K.current_player(a) >= 0:
            K.legal_mask(a, m)
            assert set(np.flatnonzero(m).tolist()) == R.legal_actions(a)
            K.step(a, int(rs.choice(np.flatnonzero(m))))
    assert (0, False) in outcomes and (0, True) in outcomes      # seat 0 re-drawn passing and building
    # seat 0 in the middle of its build step (its Starloom waiting for its square): the copy
    # leaves it to act at a BUILD decision, whatever it had done
    mid = _starloom_round()
    K.step(mid, STARLOOM)
    assert mid[K.G_PHASE] == K.PH_TOKEN
    start = _starloom_round()
    for seed in range(6):
        a, b = mid.copy(), start.copy()
        K.determinize(a, 2, seed)
        K.determinize(b, 2, seed)
        assert np.array_equal(game_part(a), game_part(b))
        assert K.current_player(a) == 0 and a[K.G_PHASE] == K.PH_BUILD
        assert view(a, 2) == view(mid, 2) == view(start, 2)
        m = mask_of(a)
        assert K.A_PASS in m and m == R.legal_actions(a)
    # the builder itself keeps everything it did; reseed changes no observation
    a = mid.copy()
    K.determinize(a, 0, 5)
    assert np.array_equal(a[pb(0):pb(0) + K.PLAYER_SIZE], mid[pb(0):pb(0) + K.PLAYER_SIZE])
    assert a[K.G_PHASE] == K.PH_TOKEN and view(a, 0) == view(mid, 0)
    for st in (mid, built):
        cp = st.copy()
        K.reseed(cp, 99)
        for p in range(3):
            assert view(cp, p) == view(st, p)


def test_opaleye_moves_after_the_reveal():
    """Effects that touch other players resolve after the reveal (ruling 8): seat 1's
    Opaleye's Watch (Cottage set aside) sees nothing of seat 0's Cottage while seat 0 builds;
    at the end of the round the construction is revealed, then the Cottage moves."""
    st = new_state(3, cards=FIRST, monuments=1, first=2)
    skip_keep(st)
    set_board(st, 1, ["OW .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."], placed_round=0)
    st[pb(1) + K.O_OPALEYE_ASIDE + 0] = 1
    set_board(st, 0, [".. h .. ..", "b .. .. ..", ".. .. .. ..", ".. .. .. .."])
    set_board(st, 2, [".. .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    _start_placements(st, G)
    K.step(st, K.A_SQUARE + 5)                   # seat 0: glass completes .H / BG
    K.step(st, K.A_SQUARE + 15)
    K.step(st, K.A_SQUARE + 15)
    assert st[K.G_ACTOR] == 0 and st[K.G_PHASE] == K.PH_BUILD and 0 in mask_of(st)
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
    K.observe(st, 1, obs)
    before = obs.copy()
    K.step(st, 0)
    K.observe(st, 1, obs)
    assert np.array_equal(obs, before)
    K.step(st, K.A_SQUARE + 4)                   # nothing else fits anywhere: the round ends
    assert st[K.G_PHASE] == K.PH_OPALEYE_SQUARE and st[K.G_ACTOR] == 1
    K.observe(st, 1, obs)
    seat0 = 2 * K.OBS_PLAYER                     # seat 0 seen from seat 1: its right
    assert obs[seat0 + K.P_SQUARES + 4 * K.OBS_PLANES + K.PLANE_TYPE + 0] == 1
    K.step(st, K.A_SQUARE + 6)
    assert st[pb(1) + K.O_BUILDING + 6] == K.C_COTTAGE


# ============================================== hidden information in the turn order
def _seats_until_monument(a, b, rs, policy, max_steps=3000):
    """Drive two games with the same actions (the policy's choice in ``a`` when legal in
    both, else a random common action); return the steps compared.  Fails when the seat
    to act differs while no monument has been built in either game."""
    ma = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    mb = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    built = lambda st: sum(int(st[pb(p) + K.O_MONUMENT_BUILT]) for p in range(int(st[K.G_NUM_PLAYERS])))
    steps = 0
    while K.current_player(a) >= 0 and steps < max_steps:
        assert K.current_player(a) == K.current_player(b), (
            f"step {steps}: seat {K.current_player(a)} acts in one game, {K.current_player(b)} in the "
            f"other ({K.PHASE_NAMES[a[K.G_PHASE]]} / {K.PHASE_NAMES[b[K.G_PHASE]]}, round {a[K.G_ROUND]})")
        if built(a) or built(b):
            break
        K.legal_mask(a, ma)
        K.legal_mask(b, mb)
        act = policy(rs, a, ma)
        if not mb[act]:
            common = np.flatnonzero(ma & mb)
            act = int(rs.choice(common))
        K.step(a, act)
        K.step(b, act)
        steps += 1
    return steps


def test_kept_monument_never_shows_in_the_turn_order():
    """Issue 15 section 4 (seed 80): two games alike in every public action but a seat's kept
    monument must ask the same seats to act.  Under the rulebook's "no legal construction:
    done at once" a player whose only legal construction was its secret monument got a
    BUILD turn the others saw.  The build step is offered when something could fit as far
    as the table can tell: a card in play, or a monument nobody has built yet."""
    # the position: seat 1 holds g g / w h, which fits The Starloom (GG / WH) and no card
    # of the first game nor any other monument; seat 0 is Master Builder, so seat 1 places
    # and builds first
    def game(monument, starloom_built_by_0=False):
        st = new_state(2, cards=FIRST, monuments=1, first=0)
        skip_keep(st)
        st[pb(1) + K.O_KEPT] = monument
        set_board(st, 1, ["g g .. ..", "w h .. ..", ".. .. .. ..", ".. .. .. .."])
        if starloom_built_by_0:
            set_board(st, 0, ["SL .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
        return st

    def build_turns(st):
        _start_placements(st, W)
        K.step(st, K.A_SQUARE + 15)          # seat 1
        K.step(st, K.A_SQUARE + 15)          # seat 0: w alone fits nothing
        seq = []
        while st[K.G_PHASE] == K.PH_BUILD:
            p = int(st[K.G_ACTOR])
            seq.append(p)
            check_ref(st)
            assert R.build_offered(st, p)
            m = mask_of(st)
            assert K.A_PASS in m
            if p == 1:
                v = R.View(st)
                assert (st[pb(1) + K.O_KEPT] == K.M_STARLOOM) == bool(R.constructions(v, 1))
                assert R.monument_could_fit(st, 1)
            K.step(st, K.A_PASS)
        assert st[K.G_PHASE] == K.PH_NAME and st[K.G_ROUND] == 2
        return seq

    seqs = []
    for monument in (K.M_STARLOOM, K.M_MANDRAS):
        st = game(monument)
        seqs.append(build_turns(st))
    # Starloom kept: a real construction (CONSTRUCT of slot 7 or PASS); Mandras kept: PASS
    # only -- the same turn, so the turn order does not tell the two apart
    assert seqs[0] == seqs[1] == [1]
    # The Starloom built (publicly) by seat 0: nothing seat 1 may hold fits, done at once
    st = game(K.M_MANDRAS, starloom_built_by_0=True)
    assert not R.monument_could_fit(st, 1)
    assert build_turns(st) == []
    # random games: seat 1's kept monument swapped for one nobody was dealt
    for n in (2, 3, 4):
        for seed in range(12 if n == 2 else 4):
            a = new_state(n, seed=80 + seed, cave=seed % 2)
            rs = np.random.default_rng(seed)
            ma = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
            while a[K.G_PHASE] == K.PH_KEEP:
                K.step(a, K.A_KEEP + int(rs.integers(2)))
            dealt = {int(a[pb(p) + K.O_DEALT + i]) for p in range(n) for i in range(2)}
            b = a.copy()
            b[pb(1) + K.O_KEPT] = int(rs.choice([m for m in range(K.NUM_BUILDING_CARDS, K.NUM_CARDS) if m not in dealt]))
            assert _seats_until_monument(a, b, rs, TargetPolicy()) > 0


def test_solo_build_step_follows_the_rule():
    """Solo: nobody to hide from, so a player with no legal construction is done at once."""
    st = new_state(1, monuments=0)
    st[K.G_DISPLAY:K.G_DISPLAY + 5] = [2, 0, 0, 1, 0]
    K._set(st, K.PH_CHOOSE, 0)
    K.step(st, K.A_RESOURCE + W)
    K.step(st, K.A_SQUARE + 0)
    assert st[K.G_PHASE] == K.PH_CHOOSE and st[K.G_ROUND] == 2
    assert not R.build_offered(st, 0)


def _warehouse_game(cave=0, n=2):
    cards = ["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Warehouse"]
    st = new_state(n, cards=cards, monuments=0, cave=cave, first=n - 1)
    set_board(st, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[pb(0) + K.O_WAREHOUSE + W] = 1
    return st


def test_warehouse_steps_do_not_depend_on_the_secret_destination():
    """Issue 14 section 5: a placement that could go to a Warehouse always takes the SWAP and
    SWAP_SQUARE steps (PASS only where they do not apply), so neither agent_selection nor
    any observation of the others tells a square, a Warehouse, a swap or a set-aside apart;
    the mover itself sees each of its choices.  Before the fix the seat kept acting only
    after choosing a Warehouse."""
    choices = {"square": [K.A_SQUARE + 5, K.A_PASS, K.A_PASS],
               "store": [K.A_SQUARE + 0, K.A_PASS, K.A_PASS],
               "swap": [K.A_SQUARE + 0, K.A_RESOURCE + W, K.A_SQUARE + 7],
               "aside": [K.A_SET_ASIDE, K.A_PASS, K.A_PASS]}
    other_views, own_views, seats = {}, {}, {}
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
    for name, actions in choices.items():
        st = _warehouse_game(cave=1)
        _start_placements(st, G)                  # glass, imposed on seat 0, which places first
        assert st[K.G_ACTOR] == 0 and R.warehouse_padded(st, 0)
        seq, others, own = [], [], []
        for a in actions:
            assert a in mask_of(st), (name, K.PHASE_NAMES[st[K.G_PHASE]])
            check_ref(st)
            K.step(st, a)
            seq.append((int(st[K.G_ACTOR]), int(st[K.G_PHASE]) if st[K.G_ACTOR] == 0 else -1))
            K.observe(st, 1, obs)
            others.append(obs.tobytes())
            K.observe(st, 0, obs)
            own.append(obs.tobytes())
        assert st[K.G_ACTOR] == 1 and st[K.G_PHASE] == K.PH_DEST      # seat 1's turn to place
        seats[name], other_views[name], own_views[name] = seq, others, own
    assert len({tuple(s) for s in seats.values()}) == 1
    assert len({tuple(v) for v in other_views.values()}) == 1
    # the mover tells every pair apart from its first sub-step on
    for i, x in enumerate(choices):
        for y in list(choices)[i + 1:]:
            assert own_views[x][0] != own_views[y][0] or own_views[x][1] != own_views[y][1], (x, y)
    # no Warehouse that could take the cube: one step, whatever the destination
    st = _warehouse_game(cave=1)
    set_board(st, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."],
              placed_round=st[K.G_ROUND])          # built this round: not active yet
    _start_placements(st, G)
    assert not R.warehouse_padded(st, 0) and K.A_SQUARE + 0 not in mask_of(st)
    K.step(st, K.A_SET_ASIDE)
    assert st[K.G_ACTOR] == 1
    # solo: nobody watches, no padding
    st = new_state(1, cards=["Cottage", "Farm", "Well", "Chapel", "Tavern", "Theater", "Warehouse"], monuments=0)
    set_board(st, 0, ["Wh .. .. ..", ".. .. .. ..", ".. .. .. ..", ".. .. .. .."])
    st[K.G_DISPLAY:K.G_DISPLAY + 5] = [3, 0, 0, 0, 0]
    K._set(st, K.PH_CHOOSE, 0)
    K.step(st, K.A_RESOURCE + W)
    assert not R.warehouse_padded(st, 0)
    K.step(st, K.A_SQUARE + 3)
    assert st[K.G_PHASE] != K.PH_SWAP


def _public_record(st, p):
    """Offset of p's record as the table sees it: during the build stage the copy taken when
    the placements were revealed (the round's constructions are hidden until the last
    builder is done), else p's record."""
    if st[K.G_STAGE] == K.ST_BUILD and not st[K.G_SOLO]:
        return K.G_SHOWN + p * K.PLAYER_SIZE
    return pb(p)


def boards_differ(real, copy):
    """True once the two states differ in what every seat sees on the boards, set-aside
    counts included (e.g. the placements of a round, revealed together, or the round's
    constructions once the last builder is done).  From there two determinized copies may
    differ openly."""
    for p in range(int(real[K.G_NUM_PLAYERS])):
        br, bc = _public_record(real, p), _public_record(copy, p)
        for lo, hi in ((K.O_CUBE, K.O_STATUS), (K.O_CAVE_USES, K.O_CAVE_USES + 1)):
            if not np.array_equal(real[br + lo:br + hi], copy[bc + lo:bc + hi]):
                return True
    return False


def redrawn_build_step(real, copy):
    """The player to act is in the middle of a build step the copy re-drew (its town or the
    decision under way differ).  A build step asks its builder for one decision per
    construction and per on-build choice, so the re-drawn one may ask for more or fewer:
    the turn order shows how many decisions a builder takes, never what it builds.  The
    other seats' build steps, the observer's own included, must still match."""
    if real[K.G_STAGE] != K.ST_BUILD or real[K.G_SOLO]:
        return False
    p = int(real[K.G_ACTOR])
    # its secret monument is re-dealt whether or not it built: a move that means another
    # monument in the copy has another label (and the comparison stops there)
    town = [i for i in range(K.PLAYER_SIZE) if i not in (K.O_KEPT, K.O_DEALT, K.O_DEALT + 1)]
    if not np.array_equal(real[pb(p):pb(p) + K.PLAYER_SIZE][town], copy[pb(p):pb(p) + K.PLAYER_SIZE][town]):
        return True
    return any(real[i] != copy[i] for i in K.BUILD_CONTEXT)


# For tests/test_conformance.py::test_whose_turn_depends_only_on_public_information: a
# determinized copy re-draws the others' committed placements and hidden constructions; once
# they are revealed (the boards every seat sees differ) the copies may differ openly, e.g.
# whether a town is complete; and a re-drawn build step under way may take a different number
# of decisions than the real one.
TURN_ORDER_REVEALED = (lambda real, copy: boards_differ(real, copy) or redrawn_build_step(real, copy),
                       "placements and constructions are committed in secret and revealed together; a "
                       "re-drawn placement may fill or leave a town's last square, and a re-drawn build "
                       "step under way may ask its builder for more or fewer decisions")


@pytest.mark.parametrize("n,opts", [(2, dict(cave_rule=True)), (3, dict(variant="town_hall", cave_rule=True))])
def test_turn_order_until_the_reveal_matches_every_determinization(n, opts):
    """The conformance check of whose turn it is, with Warehouses, cave rule and monuments
    in play, stopping only at a draw of chance or when re-drawn placements are revealed."""
    from envs.shell import CityEnv
    env = CityEnv(TT.Spec(), num_players=n, buildings=["Farm", "Well", "Chapel", "Tavern", "Theater",
                                                         "Warehouse"], **opts)
    slot = K.G_RNG + 1
    for g in range(3):
        env.reset(seed=50000 + g)
        rng = np.random.default_rng(g)
        steps = 0
        while not all(env.terminations.values()):
            if steps % 3 == 0:
                for o in env.possible_agents:
                    d = env.determinize(o, int(rng.integers(1 << 40)))
                    real = env.clone()
                    seed = int(rng.integers(1 << 40))
                    real.reseed(seed)
                    d.reseed(seed)
                    for _ in range(60):
                        if real._state[slot] != 0 or d._state[slot] != 0:
                            break
                        if TURN_ORDER_REVEALED[0](real._state, d._state):
                            break
                        assert all(real.terminations.values()) == all(d.terminations.values())
                        if all(real.terminations.values()):
                            break
                        assert real.agent_selection == d.agent_selection
                        common = np.flatnonzero(real._mask & d._mask)
                        a = int(common[rng.integers(common.size)])
                        if real.action_label(a) != d.action_label(a):
                            break       # e.g. another monument: the copies part openly
                        real.step(a)
                        d.step(a)
            legal = env.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1


# ========================================================================= solo end
def test_solo_pays_the_score_and_names_the_title():
    """Issue 14 section 4: solo has no win or loss; with reward_mode="rank" (the default)
    too, the lone seat is paid its final score, and the infos carry the rating title."""
    from envs.shell import CityEnv
    for mode in ("rank", "score"):
        env = CityEnv(TT.Spec(), num_players=1, reward_mode=mode)
        for seed in range(3):
            driver.play(env, seed, choose=lambda env, legal, rs: int(rs.choice(legal)))
            info = env.infos["player_0"]
            score = info["scores"][0]
            assert env._cumulative_rewards["player_0"] == float(score)
            assert info["title"] == TT.solo_title(score)
            assert info["winners"] == ["player_0"] and info["ranks"] == [1]
    # the rating table of the rules reference
    table = [(38, "Master Architect"), (60, "Master Architect"), (37, "Town Planner"),
             (32, "Town Planner"), (31, "Engineer"), (25, "Engineer"), (24, "Carpenter"),
             (18, "Carpenter"), (17, "Builder's Apprentice"), (10, "Builder's Apprentice"),
             (9, "Aspiring Architect"), (-20, "Aspiring Architect")]
    for score, title in table:
        assert TT.solo_title(score) == title
    for s in range(-30, 80):
        assert TT.solo_title(s)                       # every score has a title
    # the title reaches the infos through end_infos, for a finished solo state
    st = new_state(1, monuments=0)
    set_board(st, 0, ["Co Co Co Co", "Co Fa We We", "Ta Ta Ta Ta", "Ch Ch Ch Ch"])
    st[pb(0) + K.O_STATUS] = 1
    cfg = TT.Spec().configure(num_players=1)
    extra = TT.Spec().end_infos(st, cfg)
    total = extra["breakdown"][0]["total"]
    assert extra["title"] == TT.solo_title(total)
    with pytest.raises(ValueError, match="score"):
        TT.solo_title(3.5)
    with pytest.raises(ValueError, match="score"):
        TT.solo_title("30")
    two = TT.Spec().end_infos(new_state(2), TT.Spec().configure())
    assert "title" not in two


# ============================================================ bad input everywhere
BAD_SEATS = [7, 10, 20, 50, 10 ** 6, -1, 2, 2.0, "1", True, None, [0], np.int64(9), 1 << 70]


def test_determinize_refuses_bad_seats_at_every_level():
    """Issue 15 section 1: seats 7, 10, 20, 50, 10**6 crashed the interpreter (SIGSEGV).  The
    shell and the kernel entry each refuse them with ValueError (the spec's reseed/determinize
    are GameSpec's, which hand the shell's checked values to the kernel)."""
    from envs.shell import CityEnv
    env = CityEnv(TT.Spec(), num_players=2)
    env.reset(seed=80)
    before = env._state.copy()
    spec, cfg = TT.Spec(), TT.Spec().configure(num_players=2)
    for seat in BAD_SEATS:
        with pytest.raises(ValueError):
            env.determinize(seat, 1)
    for seat in (7, 10, 20, 50, 10 ** 6, -1, 2, -(1 << 40)):
        st = env._state.copy()
        with pytest.raises(ValueError, match="observer"):
            K.determinize(st, seat, 1)                     # the kernel entry itself
        with pytest.raises(ValueError, match="observer"):
            spec.determinize(st, cfg, seat, 1)             # GameSpec's: the kernel's own check
        assert np.array_equal(st, before)
    for seed in (1.5, "7", None, True, [1]):
        with pytest.raises(ValueError):
            env.determinize(0, seed)
        with pytest.raises(ValueError):
            env.reseed(seed)
    assert np.array_equal(env._state, before)
    # good values still work, huge seeds included
    for seat, seed in ((0, 0), (1, 1 << 64), ("player_1", -5)):
        d = env.determinize(seat, seed)
        assert d.legal_actions()


SCORE_TOWN_GOOD = dict(rows=["cottage warehouse . .", "farm . . .", ". . . .", ". . . ."],
                       warehouse_cubes=1, right_feast_halls=0, solo=False, shrine_value=None,
                       starloom_place=None)
SCORE_TOWN_BAD = {
    "rows": [None, 5, "cottage . . .", {"a", "b", "c", "d"}, frozenset(), ["cottage . . ."] * 3,
             [". . . ."] * 5, [1, 2, 3, 4], [["cottage", ".", ".", "."]] * 4, [b". . . ."] * 4,
             ["castle . . .", ". . . .", ". . . .", ". . . ."], ["cottage . .", ". . . .", ". . . .", ". . . ."],
             {0: ". . . ."}, 3.5, np.zeros((4, 4))],
    "warehouse_cubes": [-1, 1.5, "1", True, None, [1], 10 ** 20, 4, np.float64(1.0)],
    "right_feast_halls": [-1, 17, 2.5, "2", None, True, [0], 10 ** 30],
    "solo": [1, 0, "yes", None, [True], 2.0],
    "shrine_value": [0, 6, 7, 9, -1, 2.0, "5", True, [5], 10 ** 40],
    "starloom_place": [0, 7, -1, 1.0, "1", True, [1], 10 ** 40],
}


def test_score_town_validates_every_argument():
    """Issue 15 section 1: every argument of score_town is checked, with a ValueError naming
    it -- never a TypeError, IndexError or numba error."""
    assert score_town(**SCORE_TOWN_GOOD)["total"] == 3 - 1 - 13
    for arg, values in SCORE_TOWN_BAD.items():
        for v in values:
            kw = dict(SCORE_TOWN_GOOD, **{arg: v})
            with pytest.raises(ValueError, match=arg):
                score_town(**kw)
    with pytest.raises(ValueError, match="shrine_value"):
        score_town(["shrine_of_the_elder_tree . . .", ". . . .", ". . . .", ". . . ."])
    with pytest.raises(ValueError, match="starloom_place"):
        score_town(["the_starloom . . .", ". . . .", ". . . .", ". . . ."])
    with pytest.raises(ValueError, match="warehouse_cubes"):
        score_town([". . . .", ". . . .", ". . . .", ". . . ."], warehouse_cubes=1)
    # tuples, numpy strings and numpy integers are fine
    assert score_town(tuple(SCORE_TOWN_GOOD["rows"]), warehouse_cubes=np.int64(1))["total"] == -11
    assert score_town(np.array(SCORE_TOWN_GOOD["rows"]), solo=np.bool_(True))["total"] == -10


def test_score_town_fuzz():
    """Random mixes of good and bad arguments: a result or a ValueError, nothing else."""
    rs = np.random.default_rng(15)
    tokens = list(K.CARD_TOKENS) + list(K.RES_IDS) + [".", "..", "x", "", "COTTAGE"]
    for _ in range(400):
        kw = dict(SCORE_TOWN_GOOD)
        for arg in kw:
            if rs.random() < 0.25:
                pool = SCORE_TOWN_BAD[arg]
                kw[arg] = pool[int(rs.integers(len(pool)))]
        if rs.random() < 0.5:
            kw["rows"] = [" ".join(str(rs.choice(tokens)) for _ in range(int(rs.integers(3, 6))))
                          for _ in range(int(rs.integers(3, 6)))]
        if rs.random() < 0.3:
            kw["shrine_value"] = int(rs.integers(-2, 10))
            kw["starloom_place"] = int(rs.integers(-1, 8))
        try:
            res = score_town(**kw)
        except ValueError:
            continue
        assert isinstance(res["total"], int)


@pytest.mark.parametrize("opts,name", [
    (dict(buildings={"Farm", "Well", "Chapel", "Tavern", "Theater", "Factory"}), "buildings"),
    (dict(buildings=frozenset({"Farm"})), "buildings"),
    (dict(buildings={"red": "Farm"}), "buildings"),
    (dict(buildings=5), "buildings"),
    (dict(buildings=[["Farm"], "Well", "Chapel", "Tavern", "Theater", "Factory"]), "buildings"),
    (dict(buildings=[1, 2, 3, 4, 5, 6]), "buildings"),
    (dict(buildings=["Farm", "Well", "Chapel", "Tavern", "Theater", None]), "buildings"),
    (dict(buildings=b"first_game"), "buildings"),
    (dict(variant=["standard"]), "variant"),
    (dict(variant={"town_hall"}), "variant"),
    (dict(variant=5), "variant"),
    (dict(variant=np.array(["standard", "town_hall"])), "variant"),
    (dict(num_players=2.0), "num_players"),
    (dict(num_players=[2]), "num_players"),
    (dict(num_players={2}), "num_players"),
    (dict(monuments="yes"), "monuments"),
    (dict(monuments=[True]), "monuments"),
    (dict(cave_rule=None), "cave_rule"),
    (dict(cave_rule={True}), "cave_rule"),
    (dict(first_player=0.5), "first_player"),
    (dict(first_player="0"), "first_player"),
    (dict(first_player=[0]), "first_player"),
    (dict(first_player=True), "first_player"),
])
def test_bad_option_types_name_the_option(opts, name):
    """Issue 15 section 7: wrong types and unordered containers give ValueError naming the
    option (never TypeError), through the spec and through envs.make."""
    import envs
    with pytest.raises(ValueError, match=name):
        TT.Spec().configure(**opts)
    with pytest.raises(ValueError, match=name):
        envs.make("tiny_towns_v0", **opts)


def test_building_lists_are_normalised():
    a = TT.Spec().configure(buildings=["feast_hall", "Granary", "shed", "Abbey", "market", "Bank"])
    b = TT.Spec().configure(buildings=("Bank", "Market", "Abbey", "Shed", "Granary", "Feast Hall", "Cottage"))
    assert np.array_equal(a.config, b.config)
    assert a.options["buildings"] == b.options["buildings"] == (
        "Cottage", "Granary", "Shed", "Abbey", "Feast Hall", "Market", "Bank")


# ===================================================================== data file
def _mutations(D):
    """(description, mutate(data), field the error must name)."""
    bi = {b["name"]: i for i, b in enumerate(D["buildings"])}
    mi = {m["name"]: i for i, m in enumerate(D["monuments"])}

    def setp(path_fn, value):
        def f(d):
            obj, key = path_fn(d)
            obj[key] = value
        return f

    def delp(path_fn):
        def f(d):
            obj, key = path_fn(d)
            del obj[key]
        return f

    wh, farm, bank = bi["Warehouse"], bi["Farm"], bi["Bank"]
    ow = mi["Opaleye's Watch"]
    return [
        (setp(lambda d: (d["resources"][0], "code"), 5), "resources[0].code"),
        (setp(lambda d: (d["resources"][1], "code"), "W"), "resources"),
        (lambda d: d["resources"].pop(), "resources"),
        (setp(lambda d: (d["building_types"][2], "id"), "purple"), "building_types[2].id"),
        (setp(lambda d: (d["buildings"][0], "pattern"), ["HX"]), "buildings[0].pattern[0]"),
        (setp(lambda d: (d["buildings"][0], "pattern"), "HH"), "buildings[0].pattern"),
        (setp(lambda d: (d["buildings"][0], "pattern"), ["H", "HH"]), "buildings[0].pattern[1]"),
        (setp(lambda d: (d["buildings"][0], "pattern"), ["..", ".."]), "buildings[0].pattern"),
        (setp(lambda d: (d["buildings"][0], "pattern"), ["HHHHH"]), "buildings[0].pattern[0]"),
        (setp(lambda d: (d["buildings"][wh], "capacity"), -1), f"buildings[{wh}].capacity"),
        (setp(lambda d: (d["buildings"][wh], "capacity"), 2.5), f"buildings[{wh}].capacity"),
        (setp(lambda d: (d["buildings"][wh], "capacity"), 9), f"buildings[{wh}].capacity"),
        (setp(lambda d: (d["buildings"][farm]["feeds"], "capacity"), "4"), f"buildings[{farm}].feeds.capacity"),
        (delp(lambda d: (d["buildings"][bank], "max_per_town")), f"buildings[{bank}].max_per_town"),
        (setp(lambda d: (d["buildings"][farm], "type"), "grey"), "buildings"),
        (setp(lambda d: (d["buildings"][1], "name"), "Nope"), "buildings[1].name"),
        (setp(lambda d: (d["buildings"][2], "name"), "Farm"), "buildings"),
        (setp(lambda d: (d["buildings"][1]["score"], "value"), True), "buildings[1].score.value"),
        (setp(lambda d: (d["monuments"][1], "name"), D["monuments"][0]["name"]), "monuments"),
        (setp(lambda d: (d["monuments"][ow]["on_build"], "count"), 0), f"monuments[{ow}].on_build.count"),
        (setp(lambda d: (d["tables"]["tavern"]["vp"], 0), 1.5), "tables.tavern.vp[0]"),
        (setp(lambda d: (d["tables"]["shrine"]["vp"], 5), 9), "tables.shrine.vp[5]"),
        (setp(lambda d: (d["tables"]["starloom"], "later"), "0"), "tables.starloom.later"),
        (setp(lambda d: (d["tables"]["empty_square"], "vp"), None), "tables.empty_square.vp"),
        (setp(lambda d: (d["town_hall"]["deck"], "per_resource"), 0), "town_hall.deck.per_resource"),
        (setp(lambda d: (d["town_hall"], "discard_face_down_after_shuffle"), -5),
         "town_hall.discard_face_down_after_shuffle"),
        (setp(lambda d: (d["solo"], "display"), 99), "solo.display"),
        (setp(lambda d: (d["solo"], "removed_cards"), ["Farm", "Granary", "Greenhouse", "Orchard"]),
         "solo.removed_cards"),
        (setp(lambda d: (d["solo"], "removed_monuments"), ["Castle"]), "solo.removed_monuments[0]"),
        (setp(lambda d: (d["solo"]["ratings"][0], "min"), "x"), "solo.ratings[0].min"),
        (setp(lambda d: (d["solo"]["ratings"][1], "min"), 40), "solo.ratings[1]"),
        (setp(lambda d: (d["decided_values"][0], "value"), 2), "decided_values[0].value"),
        (lambda d: d["decided_values"].pop(0), "decided_values"),
        (setp(lambda d: (d["cave_rule"], "uses_per_game"), 0), "cave_rule.uses_per_game"),
        (setp(lambda d: (d["board"], "corners"), [0, 3, 12, 16]), "board.corners[3]"),
        (setp(lambda d: (d["presets"]["first_game"]["cards"], 1), "Castle"), "presets.first_game.cards[1]"),
        (delp(lambda d: (d, "tables")), "tables.tavern.vp"),
    ]


def test_data_file_is_checked_at_load(tmp_path):
    """Issue 15 section 8: the data file is checked against its schema when it is loaded
    (``read_data``, the path the kernel takes at import); every broken field is named."""
    import yaml
    from kernels.data_files import DataError
    path = K.data_files.DATA_DIR / "tiny_towns.yaml"
    assert K.read_data(path) == K.DATA
    with open(path) as f:
        D = yaml.safe_load(f)
    bad = tmp_path / "tiny_towns.yaml"
    import copy
    for mutate, field in _mutations(D):
        d = copy.deepcopy(D)
        mutate(d)
        bad.write_text(yaml.safe_dump(d, allow_unicode=True))
        with pytest.raises(DataError) as e:
            K.read_data(bad)
        assert isinstance(e.value, ValueError)
        assert f"'{field}'" in str(e.value), (field, str(e.value))
    bad.write_text("resources: [1, 2\n")
    with pytest.raises(DataError):
        K.read_data(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(DataError):
        K.read_data(bad)


# ================================================================ declared layouts
def test_declared_layouts_name_every_piece():
    """State, observation and actions come from the kernel's declarations: the observation
    splits into named pieces at the offsets observe() writes, phases are snake_case names and
    action labels decode ids through K.ACTIONS (bad ids refused)."""
    from envs.shell import CityEnv
    spec = TT.Spec()
    cfg = spec.configure(num_players=3)
    assert spec.observation_layout(cfg) == K.OBS.parts()
    low, high = spec.observation_bounds(cfg)
    assert low.shape == (K.OBS_SIZE,) and low.min() == 0.0 and high.max() == 1.0
    assert K.STATE.names()[-1] == "scratch_rank_keys" and K.STATE.scratch_size == cfg.scratch
    assert K.STATE.shape("players") == (K.MAX_SEATS, K.PLAYER.size)
    env = CityEnv(spec, num_players=3)
    env.reset(seed=4)
    parts = env.split_observation(env.observe(env.agent_selection)["observation"])
    for i in range(K.MAX_SEATS):
        assert parts[f"player{i}_present"][0] == (1.0 if i < 3 else 0.0)
        assert parts[f"player{i}_squares"].shape == (16, K.OBS_PLANES)
    assert parts["num_players"].tolist() == [0, 0, 1, 0, 0, 0]
    assert parts["phase"][K.PH_KEEP] == 1.0 and env.unwrapped.phase == "keep"
    assert all(n == n.lower() and n.isidentifier() for n in K.PHASE_NAMES) and K.PHASE_NAMES[-1] == "game_over"
    assert K.ACTIONS.decode(K.A_SET_ASIDE) == ("set_aside", 0) and K.ACTIONS.decode(1024) == ("square", 0)
    assert spec.action_label(env._state, cfg, K.A_PASS) == "PASS"
    for bad in (-1, K.NUM_ACTIONS, 3.0, True, "7"):
        with pytest.raises(ValueError, match="action"):
            spec.action_label(env._state, cfg, bad)
