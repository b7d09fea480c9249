"""Kingdomino Duel: rules-reference test vectors (T1-T17), kernel vs plain-Python reference,
determinism, observation contract and the PettingZoo shell."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reference_kingdomino_duel as R  # noqa: E402
from kernels import kingdomino_duel as K  # noqa: E402
from kernels import playout  # noqa: E402
from kernels.rng import new_generator  # noqa: E402
from envs import kingdomino_duel as KD  # noqa: E402
from tests import driver  # noqa: E402

# ====================================================================== helpers
DOT, STRIPE, DDOT, DSTRIPE, BLACK, QUARTERS = range(6)
PLUS = ["...0...", "..000..", ".00C00.", "..000..", "...0..."]


def new_state(first=0, seed=0):
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.init(st, np.array([2, first], dtype=np.int64), seed)
    return st


def set_map(st, p, rows, crosses=None):
    """Write a map in the rules' notation ('.' empty, 'C' castle, '0'-'5' family)."""
    filled = 0
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            i = 7 * r + c
            if ch == "C":
                assert i == K.CASTLE_CELL
                continue
            if ch == ".":
                st[K.MAP_FAMILY + p * K.NUM_CELLS + i] = K.EMPTY
            else:
                st[K.MAP_FAMILY + p * K.NUM_CELLS + i] = int(ch)
                filled += 1
            st[K.MAP_CROSSES + p * K.NUM_CELLS + i] = 0
    if crosses is not None:
        for r, line in enumerate(crosses):
            for c, ch in enumerate(line):
                if ch not in ".C":
                    st[K.MAP_CROSSES + p * K.NUM_CELLS + 7 * r + c] = int(ch)
    st[K.FILLED + p] = filled
    K.refresh_scores(st)


def grid_arrays(rows, crosses=None):
    fam = np.full((5, 7), -1)
    cr = np.zeros((5, 7), dtype=int)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            if ch not in ".C":
                fam[r, c] = int(ch)
    if crosses:
        for r, line in enumerate(crosses):
            for c, ch in enumerate(line):
                if ch not in ".C":
                    cr[r, c] = int(ch)
    return fam, cr


def give_spell(st, p, spell, acquired_round=0):
    st[K.SPELL_OWNER + spell] = p
    st[K.SPELL_ACQUIRED + spell] = acquired_round
    st[K.SPELL_USED + spell] = 0


def hold(st, p, dice_faces, other=None, start=None):
    """Give seat ``p`` the dice ``{die: face}`` (the other seat gets the rest, with faces
    ``other`` or unchanged), finish the draft and open step 3 of the start player."""
    for d in range(4):
        st[K.DIE_HOLDER + d] = 1 - p
    for d, f in dice_faces.items():
        st[K.DIE_FACE + d] = f
        st[K.DIE_HOLDER + d] = p
    for d, f in (other or {}).items():
        st[K.DIE_FACE + d] = f
    if start is not None:
        st[K.START_PLAYER] = start
    K._finish_draft(st)


def step3_as(st, p, dice_faces, other=None):
    """Make ``p`` the non-start player and open their step 3 (S = 1 - p has passed)."""
    st[K.START_PLAYER] = 1 - p
    for d in range(4):
        st[K.DIE_HOLDER + d] = 1 - p
    for d, f in dice_faces.items():
        st[K.DIE_FACE + d] = f
        st[K.DIE_HOLDER + d] = p
    for d, f in (other or {}).items():
        st[K.DIE_FACE + d] = f
    for q in range(2):
        k = 0
        for d in range(4):
            if st[K.DIE_HOLDER + d] == q:
                st[K.SLOT_DIE + 2 * q + k] = d
                k += 1
    st[K.STEP3_OF_OTHER] = 1
    K._step3_from(st, K.STAGE_TURN_DIE)


def legal(st):
    m = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    K.legal_mask(st, m)
    return set(np.flatnonzero(m).tolist())


def phase(st):
    return K.PHASE_NAMES[int(st[K.PHASE])]


def skip_until(st, target):
    """Answer SKIP to every window (and the lowest family to a naming) until ``target``."""
    while phase(st) != target:
        if phase(st) == "NAME_WILD":
            K.step(st, min(legal(st)))
            continue
        assert K.A_SKIP in legal(st), phase(st)
        K.step(st, K.A_SKIP)


def count_split_pairs(st):
    assert phase(st) == "SPLIT_FIRST"
    total = 0
    for a in legal(st):
        c = st.copy()
        K.step(c, a)
        total += len(legal(c))
    return total


def marks(st, p, f):
    return int(st[K.MARKS + K.NUM_FAMILIES * p + f])


def check_against_reference(st):
    v = R.view(K, st)
    assert R.mask(v) == legal(st), (v["phase"], R.mask(v) ^ legal(st))
    assert not R.check_phase(v)


# ====================================================================== data
def test_data_self_check():
    summ = K.DATA["dice_summary"]
    faces = K.DICE.reshape(-1, 2)
    assert len(faces) == summ["total_faces"]
    assert (faces[:, 0] == K.WILD).sum() == summ["wild_faces"]
    assert ((faces[:, 0] != K.WILD) & (faces[:, 1] == 0)).sum() == summ["crossless_arms_faces"]
    for f, key in enumerate(K.FAMILY_KEYS):
        counts = [int(((faces[:, 0] == f) & (faces[:, 1] == x)).sum()) for x in range(3)]
        assert counts == summ["faces_by_crosses"][key], key
    assert K.ROW_LEN.tolist() == [5, 5, 4, 4, 3, 3]
    assert K.NUM_ACTIONS == 204 and K.OBS_SIZE == 20 * 35 + 172


def test_data_castle_bonus_marking_is_public_provenance():
    """Issue 14: the castle bonus not changing marking comes from English reviews, not the
    Korean rulebook; the loaded data says so."""
    bonus = K.DATA["castle_bonus"]
    assert bonus["affects_spellbook_marking"] is False
    assert bonus["provenance"] == "public"
    turn = next(s for s in K.DATA["spells"] if s["key"] == "turn_die")
    assert "coat-of-arms" in turn["effect"] and "never" in turn["effect"]


def _set(path, value):
    """A mutation: the data entry at ``path`` (keys / indices) becomes ``value``."""
    def mutate(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _delete(path):
    def mutate(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


DATA_MUTATIONS = [
    # (mutation, field the error must name)
    (_set(("spellbook_rows", 0, "boxes"), -1), "spellbook_rows[0].boxes"),
    (_set(("spellbook_rows", 0, "boxes"), 0), "spellbook_rows[0].boxes"),
    (_set(("spellbook_rows", 0, "boxes"), 2.5), "spellbook_rows[0].boxes"),
    (_set(("spellbook_rows", 0, "boxes"), "5"), "spellbook_rows[0].boxes"),
    (_set(("spellbook_rows", 2, "spell"), "fly"), "spellbook_rows[2].spell"),
    (_set(("spellbook_rows", 3, "spell"), "split_domino"), "spellbook_rows"),
    (_set(("spellbook_rows", 3, "family"), "dot"), "spellbook_rows"),
    (_delete(("spellbook_rows", 5)), "spellbook_rows"),
    (_set(("dice", 1, "faces", 2, 1), 3), "dice[1].faces[2][1]"),
    (_set(("dice", 1, "faces", 2, 1), -1), "dice[1].faces[2][1]"),
    (_set(("dice", 1, "faces", 2, 1), True), "dice[1].faces[2][1]"),
    (_set(("dice", 1, "faces", 2, 1), 1.0), "dice[1].faces[2][1]"),
    (_set(("dice", 1, "faces", 2, 0), "dragon"), "dice[1].faces[2][0]"),
    (_set(("dice", 1, "faces", 2, 0), 3), "dice[1].faces[2][0]"),
    (_set(("dice", 0, "faces", 0, 1), 1), "dice[0].faces[0][1]"),        # '?' with a cross
    (_set(("dice", 0, "faces", 1), ["dot"]), "dice[0].faces[1]"),
    (_set(("dice", 0, "faces", 1), "dot"), "dice[0].faces[1]"),
    (_set(("dice", 0, "faces", 1), ["stripe", 0]), "dice_summary.faces_by_crosses.dot"),
    (_set(("dice", 0, "faces", 1), ["wild", 0]), "dice_summary.wild_faces"),
    (_set(("dice", 2, "faces"), [["dot", 0]] * 5), "dice[2].faces"),
    (_delete(("dice", 3)), "dice"),
    (_set(("dice", 3, "id"), 0), "dice"),
    (_set(("dice", 3, "id"), 7), "dice[3].id"),
    (_set(("dice",), {"id": 0}), "dice"),
    (_set(("dice_summary", "total_faces"), 25), "dice_summary.total_faces"),
    (_set(("dice_summary", "crossless_arms_faces"), "14"), "dice_summary.crossless_arms_faces"),
    (_set(("dice_summary", "faces_by_crosses", "black"), [1, 1, 0]),
     "dice_summary.faces_by_crosses.black"),
    (_delete(("dice_summary", "faces_by_crosses", "quarters")),
     "dice_summary.faces_by_crosses.quarters"),
    (_set(("map", "rows"), 6), "map.rows"),
    (_set(("map", "cols"), -7), "map.cols"),
    (_set(("map", "castle", "row"), 9), "map.castle.row"),
    (_set(("map", "castle", "index"), 18), "map.castle.index"),
    (_set(("map", "drawable_cells"), 35), "map.drawable_cells"),
    (_delete(("map",)), "map.rows"),
    (_set(("cell_cross_cap", "max_crosses_per_cell"), 0), "cell_cross_cap.max_crosses_per_cell"),
    (_set(("families", 2, "id"), 1), "families"),
    (_set(("families", 2, "id"), 99), "families[2].id"),
    (_set(("families", 2, "key"), "dot"), "families"),
    (_set(("families", 2, "key"), None), "families[2].key"),
    (_delete(("families", 5)), "families"),
    (_set(("wild", "id"), 5), "wild.id"),
    (_set(("wild", "key"), "dot"), "wild.key"),
    (_set(("wild", "marks_spellbook"), True), "wild.marks_spellbook"),
    (_set(("spells", 4, "lightning"), False), "spells[4].lightning"),
    (_set(("spells", 0, "lightning"), "yes"), "spells[0].lightning"),
    (_set(("spells", 4, "points_per_domain"), -3), "spells[4].points_per_domain"),
    (_set(("spells", 4, "points_per_domain"), 3.5), "spells[4].points_per_domain"),
    (_set(("spells", 5, "key"), "turn_die"), "spells[5].lightning"),
    (_set(("spells", 1, "key"), "ignore_connection"), "spells"),
    (_set(("castle_bonus", "affects_spellbook_marking"), True),
     "castle_bonus.affects_spellbook_marking"),
    (_set(("castle_bonus", "uses_per_player"), 2), "castle_bonus.uses_per_player"),
    (_set(("castle_bonus", "provenance"), "folklore"), "castle_bonus.provenance"),
    (_set(("limits", "max_rounds"), 40), "limits.max_rounds"),
    (_set(("players", "count"), 3), "players.count"),
]


@pytest.mark.parametrize("mutation,field", DATA_MUTATIONS,
                         ids=[f"{i}-{f}" for i, (_, f) in enumerate(DATA_MUTATIONS)])
def test_data_mutation_is_refused_naming_the_field(mutation, field):
    import copy
    import re
    from kernels.data_files import DataError
    data = copy.deepcopy(K.DATA)
    K.check_data(copy.deepcopy(data))                 # the shipped data passes
    mutation(data)
    with pytest.raises(DataError, match=re.escape(repr(field))):
        K.check_data(data)


@pytest.mark.parametrize("data", [None, [], "dice", 3])
def test_data_that_is_not_a_mapping_is_refused(data):
    from kernels.data_files import DataError
    with pytest.raises(DataError):
        K.check_data(data)


def _data_paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _data_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _data_paths(v, path + (i,))


def test_data_fuzz_every_entry_only_data_errors():
    """Every entry of the data file replaced by a value of another type (or deleted): the
    check passes (text the code never reads) or raises DataError -- never TypeError,
    KeyError or IndexError."""
    import copy
    from kernels.data_files import DataError
    refused = 0
    paths = [p for p in _data_paths(K.DATA) if p]
    for path in paths:
        for value in (None, -1, 1.5, "x", [], {}, True, [0] * 9):
            data = copy.deepcopy(K.DATA)
            _set(path, value)(data)
            try:
                K.check_data(data)
            except DataError:
                refused += 1
        data = copy.deepcopy(K.DATA)
        _delete(path)(data)
        try:
            K.check_data(data)
        except DataError:
            refused += 1
    assert refused > 5 * len(paths)


def test_edited_data_file_fails_at_import_naming_the_field(tmp_path):
    """The path a user takes: edit ``kernels/data/kingdomino_duel.yaml`` and import."""
    import shutil
    import subprocess
    import yaml
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    shutil.copytree(os.path.join(root, "kernels"), tmp_path / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "kernels" / "data" / "kingdomino_duel.yaml"
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    probe = [sys.executable, "-c", "import kernels.kingdomino_duel as K; print(K.__file__)"]
    ok = subprocess.run(probe, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ok.returncode == 0 and str(tmp_path) in ok.stdout, ok.stderr
    data = yaml.safe_load(path.read_text())
    data["spellbook_rows"][4]["boxes"] = -3
    path.write_text(yaml.safe_dump(data))
    bad = subprocess.run(probe, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert bad.returncode != 0
    assert "DataError" in bad.stderr and "'spellbook_rows[4].boxes'" in bad.stderr


# ====================================================================== T1-T3 scoring
T1 = (["000....", "000....", "000C...", "......0", "......."],
      ["1......", ".1.....", "...C...", ".......", "......."])
T2 = (["0011122", "0331422", "035C442", "5550041", "5220111"],
      ["1..1.1.", ".1..2..", ".12C..1", "....1..", "2.....1"])


def test_T1_rulebook_scoring_example():
    fam, cr = grid_arrays(*T1)
    assert KD.score_kingdom(fam, cr) == 18
    assert KD.score_kingdom(fam, cr, bonus_family=DOT) == 24
    assert KD.score_kingdom(fam, cr, bonus_family="dot") == 24
    assert KD.score_kingdom(fam, cr, bonus_family=STRIPE) == 18
    m = {(r, c): (R.FAMS[fam[r, c]], cr[r, c]) for r in range(5) for c in range(7) if fam[r, c] >= 0}
    assert R.score_map(m) == (18, 9)
    assert R.score_map(m, "dot") == (24, 9)


def test_T2_full_map_score():
    fam, cr = grid_arrays(*T2)
    assert (fam >= 0).sum() == 34
    assert KD.score_kingdom(fam, cr) == 59
    assert KD.largest_domain(fam) == 5
    for f in (DOT, STRIPE, DDOT):
        assert KD.score_kingdom(fam, cr, f) == 65
    for f in (DSTRIPE, BLACK, QUARTERS):
        assert KD.score_kingdom(fam, cr, f) == 62
    # castle cell content is ignored
    fam2 = fam.copy()
    fam2[2, 3] = DOT
    assert KD.score_kingdom(fam2, cr) == 59
    # same numbers from the game state
    st = new_state()
    set_map(st, 0, *T2)
    assert K._player_score(st, 0) == (59, 5)


def _t3_state(extra_b=False):
    st = new_state()
    set_map(st, 0, [".000...", "...0...", "...C...", ".......", "......."],
            [".......", "...1...", "...C...", ".......", "......."])
    b = [".......", ".......", ".00C...", "...1...", "...111."]
    if not extra_b:
        b = [".......", ".......", ".00C...", ".......", "......."]
    set_map(st, 1, b, [".......", ".......", "..2C...", ".......", "......."])
    st[K.PHASE] = K.PH_GAME_OVER
    st[K.MOVER] = -1
    return st


def test_T3_tiebreak():
    st = _t3_state()
    sc = np.zeros(2, dtype=np.int64)
    rk = np.zeros(2, dtype=np.int64)
    K.scores(st, sc)
    K.ranks(st, rk)
    assert sc.tolist() == [4, 4] and rk.tolist() == [1, 2]
    assert R.final_result(R.view(K, st)) == ([4, 4], [1, 2])
    st = _t3_state(extra_b=True)
    K.scores(st, sc)
    K.ranks(st, rk)
    assert sc.tolist() == [4, 4] and rk.tolist() == [1, 1]
    assert R.final_result(R.view(K, st)) == ([4, 4], [1, 1])


# ====================================================================== T4-T8 placement
T4_IDS = {42, 65, 66, 68, 69, 71, 74, 75, 89, 92, 94, 95, 100, 101, 102, 107,
          120, 121, 125, 126, 127, 128, 131, 152}


@pytest.mark.parametrize("faces", [{1: 0, 2: 2}, {0: 1, 1: 4}, {0: 0, 3: 2}, {2: 3, 3: 4}])
def test_T4_empty_map_counts(faces):
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    step3_as(st, 1, faces)
    skip_until(st, "PLACE_DOMINO")
    assert phase(st) == "PLACE_DOMINO"
    m = legal(st)
    assert m == T4_IDS
    assert 68 in m and 64 not in m and 65 in m
    check_against_reference(st)
    # with ignore_connection
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    give_spell(st, 1, K.SPELL_IGNORE_CONNECTION)
    step3_as(st, 1, {1: 0, 2: 2})
    assert phase(st) == "IGNORE_CONN_WINDOW"
    K.step(st, K.A_IGNORE_CONNECTION)
    assert len(legal(st)) == 108
    check_against_reference(st)


@pytest.mark.parametrize("faces,ign,expected", [
    ({1: 0, 2: 2}, False, 12),                   # quarters / black
    ({0: 1, 1: 4}, False, 36),                   # dot / dot
    ({1: 0, 2: 2}, True, 34 * 33),
])
def test_T4_split_counts(faces, ign, expected):
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    give_spell(st, 1, K.SPELL_SPLIT_DOMINO)
    if ign:
        give_spell(st, 1, K.SPELL_IGNORE_CONNECTION)
    step3_as(st, 1, faces)
    if ign:
        assert phase(st) == "IGNORE_CONN_WINDOW"
        K.step(st, K.A_IGNORE_CONNECTION)
    assert phase(st) == "SPLIT_WINDOW"
    K.step(st, K.A_SPLIT_DOMINO)
    assert phase(st) == "SPLIT_FIRST"
    check_against_reference(st)
    assert count_split_pairs(st) == expected
    if not ign and expected == 12:
        assert {c - K.A_CELL for c in legal(st)} == {10, 16, 18, 24}


def test_T5_connection_details():
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    set_map(st, 1, ["0......", ".......", "...C...", ".......", "......."])
    step3_as(st, 1, {0: 3, 1: 4})                # slot 0 [stripe,0], slot 1 [dot,0]
    m = legal(st)
    assert 28 + 4 * 8 + 0 in m                   # PLACE((1,1),N)
    assert 28 + 4 * 1 + 2 not in m               # PLACE((0,1),S)
    assert 28 + 4 * 9 + 1 in m                   # PLACE((1,2),E)
    assert 28 + 4 * 2 + 2 not in m               # PLACE((0,2),S)
    assert len(m) == 28
    check_against_reference(st)
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    set_map(st, 1, ["0......", ".......", "...C...", ".......", "......."])
    step3_as(st, 1, {0: 1, 1: 4})                # two dots
    assert 28 + 4 * 2 + 1 not in legal(st)       # PLACE((0,2),E)
    check_against_reference(st)


def _t6(spells=()):
    st = new_state()
    set_map(st, 1, PLUS)
    for sp in spells:
        give_spell(st, 1, sp)
    step3_as(st, 1, {1: 0, 2: 2}, other={0: 0, 3: 0})   # [quarters,0], [black,2]
    return st


def test_T6_forced_pass_still_marks():
    st = _t6()
    assert phase(st) == "PASS_ONLY"
    assert legal(st) == {K.A_PASS}
    check_against_reference(st)
    K.step(st, K.A_PASS)
    assert marks(st, 1, QUARTERS) == 1 and marks(st, 1, BLACK) == 0
    assert st[K.CASTLE_USED + 1] == 0


def test_T6_ignore_connection_offered():
    st = _t6([K.SPELL_IGNORE_CONNECTION])
    assert phase(st) == "IGNORE_CONN_WINDOW" and legal(st) == {K.A_SKIP, K.A_IGNORE_CONNECTION}
    K.step(st, K.A_IGNORE_CONNECTION)
    skip_until(st, "PLACE_DOMINO")
    assert len(legal(st)) == 48
    check_against_reference(st)


def test_T6_split_without_ignore_not_offered():
    st = _t6([K.SPELL_SPLIT_DOMINO])
    assert phase(st) == "PASS_ONLY"
    st = _t6([K.SPELL_SPLIT_DOMINO, K.SPELL_IGNORE_CONNECTION])
    assert phase(st) == "IGNORE_CONN_WINDOW"
    K.step(st, K.A_IGNORE_CONNECTION)
    assert phase(st) == "SPLIT_WINDOW"
    K.step(st, K.A_SPLIT_DOMINO)
    skip_until(st, "SPLIT_FIRST")
    assert count_split_pairs(st) == 22 * 21
    check_against_reference(st)


def test_T7_naming_wild_under_mandatory_drawing():
    st = new_state()
    set_map(st, 1, PLUS)
    step3_as(st, 1, {0: 0, 1: 5}, other={2: 0, 3: 0})   # '?', [black,0]
    assert phase(st) == "CASTLE_WINDOW"
    K.step(st, K.A_SKIP)
    assert phase(st) == "NAME_WILD"
    assert legal(st) == {K.A_FAMILY + DOT}
    assert K.A_PASS not in legal(st)
    check_against_reference(st)
    K.step(st, K.A_FAMILY + DOT)
    assert phase(st) == "PLACE_DOMINO"
    m = legal(st)
    assert len(m) == 16
    check_against_reference(st)
    K.step(st, min(m))
    assert marks(st, 1, BLACK) == 1
    assert sum(marks(st, 1, f) for f in range(6)) == 1


def test_T8_split():
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    set_map(st, 1, [".......", ".......", "...C...", ".......", "......1"])
    give_spell(st, 1, K.SPELL_SPLIT_DOMINO)
    step3_as(st, 1, {0: 3, 3: 4})                # [stripe,0] slot 0, [dot,1] slot 1
    assert phase(st) == "SPLIT_WINDOW"
    K.step(st, K.A_SPLIT_DOMINO)
    assert phase(st) == "SPLIT_FIRST"
    check_against_reference(st)
    assert count_split_pairs(st) == 20
    K.step(st, K.A_CELL + 27)
    m = legal(st)
    assert K.A_CELL + 10 in m and K.A_CELL + 0 not in m
    check_against_reference(st)
    K.step(st, K.A_CELL + 10)
    assert st[K.MAP_FAMILY + K.NUM_CELLS + 27] == STRIPE and st[K.MAP_FAMILY + K.NUM_CELLS + 10] == DOT
    assert st[K.MAP_CROSSES + K.NUM_CELLS + 10] == 1 and st[K.SPELL_USED + K.SPELL_SPLIT_DOMINO] == 1
    # empty map, two dots
    st = new_state()
    st[K.CASTLE_USED + 1] = 1
    give_spell(st, 1, K.SPELL_SPLIT_DOMINO)
    step3_as(st, 1, {0: 1, 1: 4})
    K.step(st, K.A_SPLIT_DOMINO)
    for a, b, ok in ((3, 10, True), (10, 3, True), (3, 4, False)):
        c = st.copy()
        if K.A_CELL + a in legal(c):
            K.step(c, K.A_CELL + a)
            assert (K.A_CELL + b in legal(c)) == ok
        else:
            assert not ok


# ====================================================================== T9-T16 spellbook, draft, end
def _marking_state(s_dice, o_dice, start=0):
    st = new_state(first=start)
    st[K.START_PLAYER] = start
    for d, f in {**s_dice, **o_dice}.items():
        st[K.DIE_FACE + d] = f
    for d in s_dice:
        st[K.DIE_HOLDER + d] = start
    for d in o_dice:
        st[K.DIE_HOLDER + d] = 1 - start
    for q in range(2):
        k = 0
        for d in range(4):
            if st[K.DIE_HOLDER + d] == q:
                st[K.SLOT_DIE + 2 * q + k] = d
                k += 1
    st[K.DREW + start] = 1                       # keep the game going
    st[K.NEXT_MARK] = 0
    return st


def test_T9_spellbook_race():
    st = _marking_state({1: 4, 0: 2}, {2: 4, 3: 3}, start=0)
    st[K.MARKS + DOT] = 4
    st[K.MARKS + K.NUM_FAMILIES + DOT] = 4
    r = int(st[K.ROUND])
    K._marking(st)
    assert st[K.SPELL_OWNER + K.SPELL_IGNORE_CONNECTION] == 0 and st[K.SPELL_ACQUIRED + K.SPELL_IGNORE_CONNECTION] == r
    assert marks(st, 0, DOT) == 5 and marks(st, 1, DOT) == 4
    assert marks(st, 0, DSTRIPE) == 0 and marks(st, 1, STRIPE) == 1
    # usable from the next round, never by the other player
    assert st[K.ROUND] == r + 1
    assert K._usable(st, 0, K.SPELL_IGNORE_CONNECTION) and not K._usable(st, 1, K.SPELL_IGNORE_CONNECTION)


def test_second_mark_after_red_box_is_ignored():
    # S holds two [dot,0] dice with the dot row at 4/5: the first fills it, the second is ignored
    st = _marking_state({0: 1, 1: 4}, {2: 4, 3: 3}, start=1)
    st[K.MARKS + K.NUM_FAMILIES + DOT] = 4
    K._marking(st)
    assert marks(st, 1, DOT) == 5 and st[K.SPELL_OWNER + K.SPELL_IGNORE_CONNECTION] == 1
    assert marks(st, 0, DOT) == 0 and marks(st, 0, STRIPE) == 1


def test_T10_turn_die():
    st = new_state()
    st[K.ROUND] = 3
    give_spell(st, 1, K.SPELL_TURN_DIE, acquired_round=2)
    step3_as(st, 1, {0: 0, 2: 3}, other={1: 1, 3: 1})   # '?', [quarters,2]
    assert phase(st) == "TURN_DIE_WINDOW"
    assert legal(st) == {4, 7, 8, 9, 10, 12, 13, 14, 16, 17}
    check_against_reference(st)
    K.step(st, 16)
    assert st[K.DIE_FACE + 2] == 4 and tuple(K.DICE[2, 4]) == (DOT, 0)
    assert st[K.SPELL_USED + K.SPELL_TURN_DIE] == 1
    while st[K.MOVER] == 1 and st[K.PHASE] != K.PH_GAME_OVER:
        check_against_reference(st)
        K.step(st, min(legal(st) - {K.A_SKIP}) if legal(st) - {K.A_SKIP} else K.A_SKIP)
    assert marks(st, 1, DOT) == 1
    assert sum(marks(st, 1, f) for f in range(6)) == 1


def _turn_window(faces):
    """Seat 1 owns turn_die (acquired in an earlier round) and holds ``{die: face}``."""
    st = new_state()
    st[K.ROUND] = 3
    give_spell(st, 1, K.SPELL_TURN_DIE, acquired_round=2)
    others = {d: 1 for d in range(4) if d not in faces}
    step3_as(st, 1, faces, other=others)
    assert phase(st) == "TURN_DIE_WINDOW"
    return st


def test_turn_die_never_targets_a_wild_face():
    """L9 / ruling 20 [revised]: "turn the die to a coat of arms on another face" -- the
    target is a coat-of-arms face with a different value, never '?'."""
    # die 0 shows face 1 [dot,0]: faces 2, 3, 4 (face 5 repeats [dot,0]; face 0 is '?')
    # die 3 shows face 0 [double_stripe,0]: faces 1, 3, 4, 5 (face 2 is '?')
    st = _turn_window({0: 1, 3: 0})
    assert legal(st) == {K.A_SKIP, 8, 9, 10, 13, 15, 16, 17}
    assert 6 not in legal(st) and 14 not in legal(st)          # the two '?' faces
    check_against_reference(st)


def test_turn_die_from_a_wild_face_to_its_coats_of_arms():
    """A die showing '?' may still be turned to any of its coat-of-arms faces."""
    st = _turn_window({0: 0, 3: 2})                              # both dice show '?'
    assert legal(st) == {K.A_SKIP, 7, 8, 9, 10, 12, 13, 15, 16, 17}
    check_against_reference(st)
    K.step(st, 7)                                                # die 0 -> face 1 [dot,0]
    assert st[K.DIE_FACE + 0] == 1 and st[K.DIE_TURNED + 0] == 1
    assert st[K.SPELL_USED + K.SPELL_TURN_DIE] == 1
    while st[K.MOVER] == 1 and st[K.PHASE] != K.PH_GAME_OVER:
        K.step(st, min(legal(st)))
    assert marks(st, 1, DOT) == 1                                # the final face marks
    assert sum(marks(st, 1, f) for f in range(6)) == 1


def test_turn_die_targets_every_die_and_face():
    """For every die and shown face: exactly one action per coat-of-arms value other than
    the shown one (lowest face index), never a '?' face -- and the reference agrees."""
    for d_low, d_high in ((0, 1), (2, 3), (0, 3)):
        for f_low in range(6):
            for f_high in range(6):
                st = _turn_window({d_low: f_low, d_high: f_high})
                m = legal(st)
                check_against_reference(st)
                for s, (d, f) in enumerate(((d_low, f_low), (d_high, f_high))):
                    shown = tuple(K.DICE[d, f])
                    values = {tuple(v) for v in K.DICE[d] if v[0] != K.WILD} - {shown}
                    got = [j for j in range(6) if K.A_TURN_DIE + 6 * s + j in m]
                    assert all(K.DICE[d, j, 0] != K.WILD for j in got)
                    assert sorted(tuple(K.DICE[d, j]) for j in got) == sorted(values)


def test_turn_die_label_of_a_wild_face():
    env = _env_at_turn_window()
    label = env.action_label(6)                                  # slot 0 (die 0), face 0 = '?'
    assert "never legal" in label and "[?,0]" in label
    assert "never legal" not in env.action_label(7)


def _env_at_turn_window():
    import envs
    env = envs.make("kingdomino_duel_v0", first_start_player=1)
    env.reset(seed=0)
    st = env.unwrapped._state
    st[K.ROUND] = 3
    give_spell(st, 1, K.SPELL_TURN_DIE, acquired_round=2)
    step3_as(st, 1, {0: 1, 3: 0}, other={1: 1, 2: 1})
    env.unwrapped._k_mask(st, env.unwrapped._mask)
    env.unwrapped.agent_selection = "player_1"
    assert env.unwrapped.phase == "turn_die_window"
    return env.unwrapped


def test_T10_without_spell_marks_nothing():
    st = new_state()
    step3_as(st, 1, {0: 0, 2: 3}, other={1: 1, 3: 1})
    assert phase(st) == "CASTLE_WINDOW"
    while st[K.MOVER] == 1 and st[K.PHASE] != K.PH_GAME_OVER:
        K.step(st, min(legal(st)))
    assert sum(marks(st, 1, f) for f in range(6)) == 0


def test_T11_castle_bonus():
    st = new_state()
    step3_as(st, 1, {1: 5, 2: 2}, other={0: 0, 3: 0})   # [black,0], [black,2]
    assert phase(st) == "CASTLE_WINDOW"
    assert legal(st) == {K.A_SKIP, 20}
    K.step(st, 20)
    assert phase(st) == "PLACE_DOMINO"
    K.step(st, 68)
    assert st[K.MAP_FAMILY + K.NUM_CELLS + 10] == BLACK and st[K.MAP_CROSSES + K.NUM_CELLS + 10] == 1
    assert st[K.MAP_FAMILY + K.NUM_CELLS + 3] == BLACK and st[K.MAP_CROSSES + K.NUM_CELLS + 3] == 2
    assert K._player_score(st, 1)[0] == 6
    assert marks(st, 1, BLACK) == 1 and st[K.CASTLE_USED + 1] == 1


def test_T11_castle_bonus_on_wild():
    st = new_state()
    step3_as(st, 1, {0: 0, 2: 2}, other={1: 0, 3: 0})   # '?', [black,2]
    assert legal(st) == {K.A_SKIP, 20}
    K.step(st, 20)
    assert phase(st) == "NAME_WILD"
    K.step(st, K.A_FAMILY + BLACK)
    K.step(st, 68)
    assert st[K.MAP_FAMILY + K.NUM_CELLS + 10] == BLACK and st[K.MAP_CROSSES + K.NUM_CELLS + 10] == 1
    assert sum(marks(st, 1, f) for f in range(6)) == 0


def _t12_state():
    st = new_state(first=0)
    for d, f in enumerate((1, 0, 2, 2)):
        st[K.DIE_FACE + d] = f
    return st


def test_T12_draft_normal():
    st = _t12_state()
    assert phase(st) == "DRAFT_PICK" and st[K.MOVER] == 0
    K.step(st, 2)
    assert st[K.MOVER] == 1 and legal(st) == {0, 1, 3}
    K.step(st, 0)
    assert st[K.MOVER] == 1 and legal(st) == {1, 3}
    K.step(st, 3)
    assert st[K.DIE_HOLDER + 1] == 0
    assert [st[K.SLOT_DIE + i] for i in range(4)] == [1, 2, 0, 3]


def test_T12_draft_double_first_pick():
    st = _t12_state()
    give_spell(st, 0, K.SPELL_DOUBLE_FIRST_PICK)
    K._start_round(st)                       # re-open the round: the window is offered
    for d, f in enumerate((1, 0, 2, 2)):
        st[K.DIE_FACE + d] = f
    assert phase(st) == "DOUBLE_PICK_WINDOW" and legal(st) == {K.A_SKIP, K.A_DOUBLE_FIRST_PICK}
    K.step(st, K.A_DOUBLE_FIRST_PICK)
    assert phase(st) == "DRAFT_PICK" and st[K.MOVER] == 0
    K.step(st, 2)
    assert st[K.MOVER] == 0 and legal(st) == {0, 1, 3}
    K.step(st, 0)
    assert st[K.DIE_HOLDER + 1] == 1 and st[K.DIE_HOLDER + 3] == 1
    assert st[K.SPELL_USED + K.SPELL_DOUBLE_FIRST_PICK] == 1


def test_T13_first_use_of_acquired_spell():
    # O (seat 1) fills double_dot in round r -> window in round r+1 (O is S then)
    st = _marking_state({0: 0, 1: 0}, {2: 0, 3: 0}, start=0)   # die 2 face 0 = [double_dot,0]
    st[K.MARKS + K.NUM_FAMILIES + DDOT] = 3
    K._marking(st)
    assert st[K.SPELL_OWNER + K.SPELL_DOUBLE_FIRST_PICK] == 1
    assert st[K.START_PLAYER] == 1 and phase(st) == "DOUBLE_PICK_WINDOW" and st[K.MOVER] == 1
    # S (seat 0) fills it in round r -> no window in r+1, first chance in r+2
    st = _marking_state({2: 0, 0: 0}, {1: 0, 3: 0}, start=0)
    st[K.MARKS + DDOT] = 3
    r = int(st[K.ROUND])
    K._marking(st)
    assert st[K.SPELL_OWNER + K.SPELL_DOUBLE_FIRST_PICK] == 0 and st[K.ROUND] == r + 1
    assert phase(st) == "DRAFT_PICK" and st[K.START_PLAYER] == 1
    rs = np.random.default_rng(1)
    while st[K.ROUND] == r + 1:
        assert phase(st) != "DOUBLE_PICK_WINDOW"
        K.step(st, int(rs.choice(sorted(legal(st)))))
    assert st[K.ROUND] == r + 2 and st[K.START_PLAYER] == 0
    assert phase(st) == "DOUBLE_PICK_WINDOW"


def test_T14_add_cross_target():
    st = _marking_state({1: 0, 0: 2}, {2: 2, 3: 1}, start=0)   # S: [quarters,0]
    set_map(st, 0, ["...0...", "...4...", ".50C...", ".......", "......."],
            ["...0...", "...2...", ".12C...", ".......", "......."])
    st[K.MARKS + QUARTERS] = 2
    K._marking(st)
    assert phase(st) == "ADD_CROSS_TARGET" and st[K.MOVER] == 0
    assert legal(st) == {171, 183}
    check_against_reference(st)
    K.step(st, 171)
    assert st[K.MAP_CROSSES + 3] == 1 and st[K.SPELL_USED + K.SPELL_ADD_CROSS] == 1
    # every cell already at 2 crosses: lost, still owned
    st = _marking_state({1: 0, 0: 2}, {2: 2, 3: 1}, start=0)
    set_map(st, 0, ["...0...", "...4...", ".50C...", ".......", "......."],
            ["...2...", "...2...", ".22C...", ".......", "......."])
    st[K.MARKS + QUARTERS] = 2
    K._marking(st)
    assert phase(st) != "ADD_CROSS_TARGET"
    assert st[K.SPELL_OWNER + K.SPELL_ADD_CROSS] == 0 and st[K.SPELL_USED + K.SPELL_ADD_CROSS] == 1
    assert st[K.MAP_CROSSES + 3] == 2


def test_T14_domain_bonus_naming():
    st = _marking_state({2: 2, 1: 5}, {0: 2, 3: 1}, start=0)   # S: die 1 face 5 = [black,0]
    st[K.MARKS + BLACK] = 2
    K._marking(st)
    assert phase(st) == "DOMAIN_BONUS_NAME" and legal(st) == set(range(22, 28))
    K.step(st, K.A_FAMILY + STRIPE)
    assert st[K.BONUS_FAMILY + 0] == STRIPE and st[K.SPELL_USED + K.SPELL_DOMAIN_BONUS] == 1


def test_T15_end_nobody_drew():
    st = new_state(first=0)
    set_map(st, 0, PLUS)
    set_map(st, 1, PLUS)
    for d, f in ((1, 0), (2, 2), (0, 3), (3, 0)):
        st[K.DIE_FACE + d] = f
    hold(st, 0, {1: 0, 2: 2}, start=0)
    assert st[K.MOVER] == 0 and phase(st) == "PASS_ONLY"
    K.step(st, K.A_PASS)
    assert st[K.MOVER] == 1 and phase(st) == "PASS_ONLY"
    K.step(st, K.A_PASS)
    assert phase(st) == "GAME_OVER" and st[K.MOVER] == -1 and st[K.END_REASON] == K.END_NOBODY_DREW
    assert marks(st, 0, QUARTERS) == 1 and marks(st, 0, BLACK) == 0
    assert marks(st, 1, STRIPE) == 1 and marks(st, 1, DSTRIPE) == 1


@pytest.mark.parametrize("cell,expected", [(21, 64), (1, 63), (6, 64), (30, 61)])
def test_T16_full_map_with_lightning(cell, expected):
    st = new_state(first=0)
    rows = [r for r in T2[0]]
    rows[3] = "5.50041"                               # (3,1) quarters and (4,1) double_dot
    rows[4] = "5.20111"                               # left open for the last domino
    set_map(st, 0, rows, T2[1])
    st[K.CASTLE_USED + 0] = 1
    st[K.MARKS + QUARTERS] = 2
    for d, f in ((1, 0), (2, 0), (0, 3), (3, 0)):
        st[K.DIE_FACE + d] = f
    hold(st, 0, {1: 0, 2: 0}, start=0)               # [quarters,0], [double_dot,0]
    assert phase(st) == "PLACE_DOMINO"
    K.step(st, 28 + 4 * 22 + 2)                       # PLACE((3,1),S)
    assert st[K.FILLED] == 34
    assert K._player_score(st, 0)[0] == 59
    assert st[K.MOVER] == 1                             # O still plays step 3
    while st[K.MOVER] == 1:
        K.step(st, min(legal(st)))
    assert phase(st) == "ADD_CROSS_TARGET" and st[K.MOVER] == 0
    assert len(legal(st)) == 31
    check_against_reference(st)
    best = 0
    for a in legal(st):
        c = st.copy()
        K.step(c, a)
        best = max(best, K._player_score(c, 0)[0])
    assert best == 64
    K.step(st, K.A_CELL + cell)
    assert phase(st) == "GAME_OVER" and st[K.END_REASON] == K.END_MAP_FULL
    assert K._player_score(st, 0)[0] == expected


def test_T17_alternation_and_mandatory_draw():
    st = new_state(first=1, seed=5)
    starts = {}

    def before_move(st, step, mask, rng):
        starts.setdefault(int(st[K.ROUND]), int(st[K.START_PLAYER]))
        p = int(st[K.MOVER])
        if st[K.FILLED + p] == 0:
            assert not mask[K.A_PASS] and phase(st) != "PASS_ONLY"
    driver.play_kernel(K, st, 2, before_move=before_move, max_steps=KD.Spec.max_steps)
    assert starts[1] == 1 and starts[2] == 0 and starts[3] == 1
    assert all(starts[r] == (r % 2) for r in starts)


# ====================================================================== properties
def _random_games(n_games, seed0, check_ref=True, check_obs=True):
    low, high = KD.Spec().observation_bounds(KD.Spec().configure())
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
    obs2 = np.zeros(K.OBS_SIZE, dtype=np.float32)
    phases = set()
    for g in range(n_games):
        first = [-1, 0, 1][g % 3]
        seed = seed0 * 100003 + g
        st = new_state(first=first, seed=seed)

        def before_move(st, steps, mask, rng):
            m = set(np.flatnonzero(mask).tolist())
            v = R.view(K, st)
            phases.add(v["phase"])
            # the live scores the observation reads are the maps' scores after every step
            work = st.copy()
            assert [int(st[K.SCORE + p]) for p in range(2)] == [K._player_score(work, p)[0] for p in range(2)]
            if check_ref:
                assert R.mask(v) == m, (g, steps, v["phase"], R.mask(v) ^ m)
                assert not R.check_phase(v), R.check_phase(v)
            if check_obs:
                for p in range(2):
                    K.observe(st, p, obs)
                    assert np.all(np.isfinite(obs))
                    assert np.all(obs >= low) and np.all(obs <= high)
                    # the generator (future rolls) is not observable
                    c = st.copy()
                    c[K.RNG] ^= 0x5DEECE66D
                    c[K.RNG + 1] += 7
                    K.observe(c, p, obs2)
                    assert np.array_equal(obs, obs2)
        driver.play_kernel(K, st, seed, before_move=before_move, max_steps=KD.Spec.max_steps)
        assert st[K.ROUND] <= 33
        v = R.view(K, st)
        sc = np.zeros(2, dtype=np.int64)
        rk = np.zeros(2, dtype=np.int64)
        K.scores(st, sc)
        K.ranks(st, rk)
        assert (sc.tolist(), rk.tolist()) == R.final_result(v)
        for p in range(2):
            fam = st[K.MAP_FAMILY + p * K.NUM_CELLS: K.MAP_FAMILY + (p + 1) * K.NUM_CELLS].reshape(5, 7).copy()
            fam[2, 3] = -1
            cr = st[K.MAP_CROSSES + p * K.NUM_CELLS: K.MAP_CROSSES + (p + 1) * K.NUM_CELLS].reshape(5, 7)
            b = int(st[K.BONUS_FAMILY + p])
            assert KD.score_kingdom(fam, cr, None if b < 0 else b) == sc[p]
    return phases


def test_random_games_match_reference():
    phases = _random_games(300, 1, check_obs=False)
    assert "GAME_OVER" not in phases
    assert len(phases) >= 12


def test_random_games_observation_contract():
    _random_games(25, 2, check_ref=False, check_obs=True)


@pytest.mark.slow
def test_random_games_match_reference_many():
    _random_games(1500, 3)


def test_mover_tells_its_own_substeps_apart_in_many_games():
    """Issue 14 section 2, over many more games than the conformance test: wherever the
    mover acts again, two of its legal actions that lead to different games give it
    different observations or masks (no state is ever indistinguishable to the mover:
    everything is public except future rolls, which no action here draws)."""
    obs = np.zeros(K.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    checked = {}
    for g in range(150):
        st = new_state(first=-1, seed=31000 + g)

        def before_move(st, step, legal_mask, rng):
            p = int(st[K.MOVER])
            seen = {}
            for a in np.flatnonzero(legal_mask).tolist():
                c = st.copy()
                K.step(c, a)
                if c[K.MOVER] != p:
                    continue
                K.observe(c, p, obs)
                K.legal_mask(c, mask)
                key = obs.tobytes() + mask.tobytes()
                game = c[:K.SCRATCH].copy()
                for b, other in seen.get(key, ()):
                    assert np.array_equal(other, game), (
                        f"game {g}: seat {p} cannot tell action {b} from {a} in "
                        f"{phase(st)} (slots {np.flatnonzero(other != game)[:8].tolist()})")
                seen.setdefault(key, []).append((a, game))
                checked[phase(st)] = checked.get(phase(st), 0) + 1
        driver.play_kernel(K, st, g, before_move=before_move, max_steps=KD.Spec.max_steps)
    assert set(checked) >= {"DRAFT_PICK", "DOUBLE_PICK_WINDOW", "TURN_DIE_WINDOW",
                            "IGNORE_CONN_WINDOW", "SPLIT_WINDOW", "CASTLE_WINDOW", "NAME_WILD",
                            "SPLIT_FIRST"}, checked


def test_score_kingdom_random_maps():
    rs = np.random.default_rng(4)
    for _ in range(300):
        fam = rs.integers(-1, 6, size=(5, 7))
        cr = rs.integers(0, 3, size=(5, 7))
        fam[2, 3] = -1
        m = {(r, c): (R.FAMS[fam[r, c]], int(cr[r, c])) for r in range(5) for c in range(7)
             if fam[r, c] >= 0}
        b = int(rs.integers(-1, 6))
        exp = R.score_map(m, R.FAMS[b] if b >= 0 else None)
        assert KD.score_kingdom(fam, cr, None if b < 0 else b) == exp[0]
        assert KD.largest_domain(fam) == exp[1]


def test_score_kingdom_validation():
    fam, cr = grid_arrays(*T1)
    with pytest.raises(ValueError):
        KD.score_kingdom(fam[:4], cr)
    with pytest.raises(ValueError):
        KD.score_kingdom(fam, cr + 3)
    with pytest.raises(ValueError):
        KD.score_kingdom(fam, cr, bonus_family=9)


def _bad_grids(good):
    """Values that are not a 5x7 grid of integers, each with what makes it bad."""
    g = np.asarray(good)
    ragged = [list(r) for r in g.tolist()]
    ragged[2] = ragged[2][:3]
    with_none = g.tolist()
    with_none[0][0] = None
    return [None, 3, 2.5, "0000000", b"x", {1, 2}, {"a": 1}, [], [[]], g[:4], g[:, :6],
            g.reshape(-1), g[None], g.astype(float), g + 0.5, g.astype(bool), ragged,
            with_none, g.astype(str), g.astype(object) + 0.5, [[1.5] * 7] * 5]


def test_score_kingdom_fuzz_refuses_bad_arguments_naming_them():
    """Issue 15: nothing a caller passes reaches the kernel unchecked; ValueError names the
    argument (before: TypeError from numpy, floats truncated, bools taken as ints)."""
    fam, cr = grid_arrays(*T2)
    for bad in _bad_grids(fam):
        with pytest.raises(ValueError, match="families"):
            KD.score_kingdom(bad, cr)
        with pytest.raises(ValueError, match="families"):
            KD.largest_domain(bad)
    for bad in _bad_grids(cr):
        with pytest.raises(ValueError, match="crosses"):
            KD.score_kingdom(fam, bad)
    for value in (-2, -7, 6, 99, 2 ** 63, -2 ** 63):
        for r, c in ((0, 0), (4, 6), (1, 3)):
            f = fam.copy().astype(object) if abs(value) >= 2 ** 62 else fam.copy()
            f[r, c] = value
            with pytest.raises(ValueError, match="families"):
                KD.score_kingdom(f, cr)
    for value in (-1, 3, 100):
        x = cr.copy()
        x[0, 0] = value
        with pytest.raises(ValueError, match="crosses"):
            KD.score_kingdom(fam, x)
    for bad in (-1, 6, 2.0, 1.5, True, False, "dragon", "", b"dot", ["dot"], {0}, (1,),
                np.float64(1), np.array([1])):
        with pytest.raises(ValueError, match="bonus_family"):
            KD.score_kingdom(fam, cr, bonus_family=bad)
    # accepted: numpy integer ids and arrays, unsigned dtypes, lists, any value on the castle
    assert KD.score_kingdom(fam.astype(np.int8), cr.astype(np.uint8), np.int64(0)) == 65
    assert KD.score_kingdom(fam.tolist(), cr.tolist(), "double_dot") == 65
    f = fam.copy()
    f[2, 3] = 12345
    x = cr.copy()
    x[2, 3] = -9
    assert KD.score_kingdom(f, x) == 59 and KD.largest_domain(f) == 5
    assert f[2, 3] == 12345 and x[2, 3] == -9                   # the caller's arrays unchanged


def test_adapter_methods_validate_their_arguments():
    spec = KD.Spec()
    cfg = spec.configure()
    st = new_state(seed=1)
    for bad in (-1, 204, 10 ** 6, 1.0, "3", None, True):
        with pytest.raises(ValueError, match="action"):
            spec.action_label(st, cfg, bad)
    assert spec.action_label(st, cfg, np.int64(203)) == "PASS"
    for bad in (1.5, "7", None, True, [1]):
        with pytest.raises(ValueError, match="seed"):
            spec.reseed(st.copy(), cfg, bad)
        with pytest.raises(ValueError, match="seed"):
            spec.determinize(st.copy(), cfg, 0, bad)
    for bad in (-1, 2, 7, 10 ** 6, True, 0.0, "player_0", None):
        c = st.copy()
        with pytest.raises(ValueError, match="observer"):
            spec.determinize(c, cfg, bad, 1)
        assert np.array_equal(c, st)                    # refused: nothing changed
    # any integer seed, reduced modulo 2**63: one int64 specialisation, same re-keying
    a, b, c = st.copy(), st.copy(), st.copy()
    spec.reseed(a, cfg, 5)
    spec.reseed(b, cfg, 5 + 2 ** 63)
    spec.determinize(c, cfg, 1, 5 - 2 ** 63)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    for seed in (-1, 2 ** 64, 2 ** 200, np.uint64(2 ** 64 - 1)):
        spec.reseed(st.copy(), cfg, seed)
    assert all(str(sig[2]) == "int64" for sig in K.rng.seed_rng.signatures)


def test_chains_of_clone_determinize_reseed_stay_playable():
    """Issue 15 section 2: a determinized copy is a legal game and determinizes again; every
    link keeps every seat's view (nothing but future rolls is hidden) and plays to the end."""
    import envs
    env = envs.make("kingdomino_duel_v0")
    env.reset(seed=21)
    rs = np.random.default_rng(21)
    for _ in range(25):
        env.step(int(rs.choice(env.unwrapped.legal_actions())))
    game = env.unwrapped
    for link in range(12):
        views = [game.observe(a)["observation"] for a in game.possible_agents]
        kind = link % 3
        seed = int(rs.integers(-2 ** 62, 2 ** 62)) * 2 ** 8 + link
        if kind == 0:
            game = game.determinize(link % 2, seed)
        elif kind == 1:
            game = game.clone()
            game.reseed(seed)
        else:
            game = game.determinize(f"player_{link % 2}", seed).clone()
        for a, v in zip(game.possible_agents, views):
            assert np.array_equal(game.observe(a)["observation"], v)
        assert game.legal_actions()
    driver.play(game, int(rs.integers(1 << 31)), reset=False)
    assert set(game.infos["player_0"]) >= {"scores", "winners", "ranks"}


def test_observation_perspective():
    st = new_state(seed=8)
    rs = np.random.default_rng(3)
    for _ in range(60):
        if st[K.MOVER] < 0:
            break
        K.step(st, int(rs.choice(sorted(legal(st)))))
    o0 = np.zeros(K.OBS_SIZE, np.float32)
    o1 = np.zeros(K.OBS_SIZE, np.float32)
    K.observe(st, 0, o0)
    K.observe(st, 1, o1)
    # the flat order documented in the adapter: 20 planes of 5 x 7, then the 172-long vector
    p0 = o0[:700].reshape(20, 5, 7)
    p1 = o1[:700].reshape(20, 5, 7)
    assert np.array_equal(p0[:9], p1[9:18]) and np.array_equal(p0[9:18], p1[:9])
    assert p0[18].sum() == 1 and p0[18, 2, 3] == 1
    for p, planes in ((0, p0), (1, p1)):
        fam = st[K.MAP_FAMILY + p * K.NUM_CELLS: K.MAP_FAMILY + (p + 1) * K.NUM_CELLS].reshape(5, 7)
        for f in range(6):
            assert np.array_equal(planes[f] == 1, fam == f)
        assert np.array_equal(planes[6] == 1, fam == K.EMPTY)
    v0 = o0[700:]
    for d in range(4):
        seg = v0[21 * d: 21 * d + 21]
        assert seg[:6].sum() == 1 and seg[6:13].sum() == 1 and seg[13:16].sum() == 1
        assert seg[16:19].sum() == 1
    assert v0[-2 - 2 - 14 + int(st[K.PHASE])] == 1
    # the same through the declared parts
    n0, n1 = K.OBS.views(o0), K.OBS.views(o1)
    assert np.array_equal(n0["maps"][0], n1["maps"][1]) and np.array_equal(n0["maps"][1], n1["maps"][0])
    assert np.array_equal(n0["maps"].reshape(18, 5, 7), p0[:18])
    assert np.array_equal(n0["castle"], p0[18]) and np.array_equal(n0["split_first_cell"], p0[19])
    for p, seat in ((0, n0["maps"][0]), (1, n0["maps"][1])):
        fam = K.STATE.view(st, "map_family")[p].reshape(5, 7)
        assert np.array_equal(seat[K.PLANE_EMPTY] == 1, fam == K.EMPTY)
        crosses = K.STATE.view(st, "map_crosses")[p].reshape(5, 7)
        assert np.array_equal(seat[K.PLANE_CROSSED] == 1, (fam >= 0) & (crosses >= 1))
        assert np.array_equal(seat[K.PLANE_TWO_CROSSES] == 1, (fam >= 0) & (crosses == 2))
    for d in range(4):
        die = K.DIE_OBS.views(n0["dice"][d])
        assert die["face"][st[K.DIE_FACE + d]] == 1 and die["face"].sum() == 1
        assert die["family"].sum() == 1 and die["crosses"].sum() == 1 and die["holder"].sum() == 1
    assert n0["phase"][int(st[K.PHASE])] == 1 and n0["phase"].sum() == 1
    assert n0["is_start_player"] == float(st[K.START_PLAYER] == 0)
    assert np.array_equal(n0["scores"], n1["scores"][::-1])
    for f in range(6):
        row = K.ROW_OBS.views(n0["spellbook"][f])
        assert row["my_marks"] == np.float32(st[K.MARKS + f] / K.ROW_LEN[f])
        assert row["owner"].sum() == 1


def test_reseed_changes_only_future_rolls():
    st = new_state(seed=9)
    rs = np.random.default_rng(0)
    for _ in range(10):
        K.step(st, int(rs.choice(sorted(legal(st)))))
    before = [np.zeros(K.OBS_SIZE, np.float32) for _ in range(2)]
    for p in range(2):
        K.observe(st, p, before[p])
    c = st.copy()
    KD.Spec().reseed(c, None, 1234)
    after = np.zeros(K.OBS_SIZE, np.float32)
    for p in range(2):
        K.observe(c, p, after)
        assert np.array_equal(before[p], after)
    assert not np.array_equal(c[:2], st[:2])
    assert np.array_equal(c[2:], st[2:])


def test_playout_kernel():
    loop = playout.random_playout
    st = new_state(seed=3)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    gen = new_generator(1)
    n = loop(K.step, K.legal_mask, K.current_player, st, mask, gen, 10000)
    assert 0 < n <= KD.Spec.max_steps and st[K.MOVER] == -1


# ====================================================================== adapter / shell
def test_configure_options():
    spec = KD.Spec()
    cfg = spec.configure()
    assert cfg.num_players == 2 and cfg.obs_size == K.OBS_SIZE
    assert spec.configure(num_players=2, first_start_player=1).config.tolist() == [2, 1]
    for bad in ({"num_players": 3}, {"first_start_player": 2}, {"first_start_player": "x"},
                {"colour": 1}, {"num_players": {2}}, {"num_players": 2.0}, {"num_players": "2"},
                {"num_players": True}, {"num_players": [2]}, {"first_start_player": {0}},
                {"first_start_player": [1]}, {"first_start_player": 1.0},
                {"first_start_player": True}, {"first_start_player": -1}):
        with pytest.raises(ValueError, match=list(bad)[0]):
            spec.configure(**bad)
    assert spec.configure(num_players=np.int64(2), first_start_player=np.int8(0)).config.tolist() \
        == [2, 0]
    assert spec.configure(first_start_player=np.int8(1)).options == {"num_players": 2,
                                                                     "first_start_player": 1}
    assert spec.configure().options == {"num_players": 2, "first_start_player": None}
    assert [o.name for o in spec.options] == ["num_players", "first_start_player"]


def test_observation_is_declared():
    """The observation's parts, sizes and bounds are read from the kernel's OBS declaration
    (no hand-kept numbers in the adapter); the flat order is the documented one."""
    spec = KD.Spec()
    cfg = spec.configure()
    shapes = spec.observation_layout(cfg)
    assert shapes == [("maps", (2, 9, 5, 7)), ("castle", (5, 7)), ("split_first_cell", (5, 7)),
                      ("dice", (4, 21)), ("wild_names", (2, 7)), ("spellbook", (6, 6)),
                      ("castle_used", (2,)), ("bonus_family", (2, 7)), ("declared", (2,)),
                      ("is_start_player", (1,)), ("round", (1,)), ("phase", (14,)),
                      ("filled", (2,)), ("scores", (2,))]
    assert sum(int(np.prod(s)) for _, s in shapes) == cfg.obs_size == K.OBS_SIZE == 872
    low, high = spec.observation_bounds(cfg)
    assert low.shape == high.shape == (872,) and not low.any()
    assert np.all(high[:-2] == 1) and np.allclose(high[-2:], K.SCORE_OBS_MAX)
    assert K.DIE_OBS.size == 21 and K.ROW_OBS.size == 6
    assert K.STATE_SIZE == K.STATE.size and cfg.scratch == K.STATE.scratch_size == 4 * K.NUM_CELLS + 4   # domains, rank keys
    assert K.SCRATCH == K.STATE_SIZE - cfg.scratch
    import envs
    env = envs.make("kingdomino_duel_v0")
    env.reset(seed=1)
    o = env.observe("player_0")["observation"]
    parts = env.unwrapped.split_observation(o)
    assert list(parts) == [n for n, _ in shapes]
    assert parts["castle"][2, 3] == 1 and parts["phase"][K.PH_DRAFT_PICK] == 1
    assert env.observation_space("player_0")["observation"].shape == (872,)


def test_action_ids_are_declared():
    """Action ids come from the ACTIONS declaration; labels decode them by block."""
    assert K.ACTIONS.names() == ["pick_die", "skip", "double_first_pick", "turn_die",
                                 "ignore_connection", "split_domino", "castle_bonus", "family",
                                 "place", "cell", "pass"]
    assert (K.A_PICK_DIE, K.A_SKIP, K.A_DOUBLE_FIRST_PICK, K.A_TURN_DIE, K.A_IGNORE_CONNECTION,
            K.A_SPLIT_DOMINO, K.A_CASTLE_BONUS, K.A_FAMILY, K.A_PLACE, K.A_CELL, K.A_PASS,
            K.NUM_ACTIONS) == (0, 4, 5, 6, 18, 19, 20, 22, 28, 168, 203, 204)
    spec, cfg = KD.Spec(), KD.Spec().configure()
    st = new_state(seed=2)
    assert spec.action_label(st, cfg, 0).startswith("PICK_DIE(0)")
    assert spec.action_label(st, cfg, 203) == "PASS"
    assert spec.action_label(st, cfg, 28 + 4 * 3 + 1) == "PLACE(cell (0,3), E)"
    assert spec.action_label(st, cfg, 21) == "CASTLE_BONUS(slot 1)"
    for bad in (-1, 204, 1.0, True, "3", None):
        with pytest.raises(ValueError, match="action"):
            spec.action_label(st, cfg, bad)
    assert spec.phase_name(st, cfg) == "draft_pick"


def test_shell_full_game_and_render():
    import envs
    env = envs.make("kingdomino_duel_v0", render_mode="ansi", first_start_player=0)

    def choose(env, legal, rng):
        obs, rew, term, trunc, info = env.last()
        assert not (term or trunc)
        m = obs["action_mask"]
        assert m.dtype == np.int8 and m.any() and np.array_equal(np.flatnonzero(m), legal)
        return driver.uniform(env, legal, rng)

    def before_move(env, n, rng):
        if n % 7 == 0:
            assert isinstance(env.unwrapped.action_label(int(env.unwrapped.legal_actions()[0])), str)
    driver.play(env, 11, choose=choose, before_move=before_move)
    for agent in env.agent_iter():              # the finished game's dead steps, PettingZoo style
        obs, rew, term, trunc, info = env.last()
        assert term or trunc
        env.step(None)
    assert "GAME OVER" in env.render()
    assert set(info) >= {"scores", "winners"}
    env2 = envs.make("kingdomino_duel_v0", render_mode="rgb_array")
    env2.reset(seed=1)
    img = env2.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


# ====================================================================== greedy potential
T2_MAP = ["0011122", "0331422", "035C442", "5550041", "5220111"]
T2_CROSSES = ["1..1.1.", ".1..2..", ".12C..1", "....1..", "2.....1"]


def _blank(rows, *cells):
    rows = [list(r) for r in rows]
    for r, c in cells:
        rows[r][c] = "."
    return ["".join(r) for r in rows]


def _quiet_state():
    """Round 1 draft, no die taken, both castle bonuses used: only the map counts."""
    st = new_state(first=0)
    st[K.CASTLE_USED] = 1
    st[K.CASTLE_USED + 1] = 1
    return st


def test_potential_empty_and_full_maps():
    st = new_state(first=0)
    assert K.potential(st, 0) == K.potential(st, 1) == K.POT_CASTLE   # unused castle bonus
    st[K.CASTLE_USED] = 1
    assert K.potential(st, 0) == 0.0
    # a full map: nothing can grow, no hole, the castle bonus has faded to nothing
    st = new_state(first=0)
    set_map(st, 0, T2_MAP, T2_CROSSES)
    assert K.potential(st, 0) == 0.0


def test_potential_domains_with_room():
    st = _quiet_state()
    set_map(st, 0, ["...0...", "...0...", "...C...", ".......", "......."])
    assert K.potential(st, 0) == pytest.approx(2 * K.POT_CROSSLESS)   # a cross would score it
    set_map(st, 0, ["...0...", "...0...", "...C...", ".......", "......."],
            ["...1...", ".......", "...C...", ".......", "......."])
    out = np.zeros(2, dtype=np.int64)
    K.scores(st, out)
    assert out[0] == 2                                                # counted by the score
    # 4 free cells around it, capped at 3: each would add the domain's cross
    assert K.potential(st, 0) == pytest.approx(2 * K.POT_CROSSED + 3 * K.POT_GROWTH)


def test_potential_walled_domains_and_dead_hole():
    st = _quiet_state()
    # one hole surrounded by drawn cells: no domino fits, nothing grows into it
    set_map(st, 0, _blank(T2_MAP, (4, 6)), _blank(T2_CROSSES, (4, 6)))
    assert K.potential(st, 0) == pytest.approx(-K.POT_DEAD)
    # two adjacent holes: free; the black domain (4 cells, 2 crosses) and two single
    # crossless stripe cells touch them, every other domain is walled in
    set_map(st, 0, _blank(T2_MAP, (4, 5), (4, 6)), _blank(T2_CROSSES, (4, 5), (4, 6)))
    assert K.potential(st, 0) == pytest.approx(2 * K.POT_CROSSLESS + 4 * K.POT_CROSSED
                                               + 2 * 1 * K.POT_GROWTH)


def test_potential_dice_in_hand():
    st = _quiet_state()
    set_map(st, 0, ["..00...", "...0...", "...C...", ".......", "......."],
            ["...1...", ".......", "...C...", ".......", "......."])   # dot: 3 cells, 1 cross
    base = K.potential(st, 0)
    st[K.DIE_FACE + 3] = 4                                   # [dot,1]
    st[K.DIE_HOLDER + 3] = 1
    assert K.potential(st, 0) == base                        # the opponent's die
    st[K.DIE_HOLDER + 3] = 0
    assert K.potential(st, 0) == pytest.approx(base + 4 * 2 - 3 * 1)   # 4x2 instead of 3x1
    st[K.DIE_FACE + 3] = 2                                   # '?': best family, dot
    assert K.potential(st, 0) == pytest.approx(base + 1)     # one more cell of a 1-cross domain
    st[K.PHASE] = K.PH_DOMAIN_BONUS_NAME                                 # drawn already: nothing in hand
    assert K.potential(st, 0) == base


@pytest.mark.parametrize("top, use", [("...0...", False), ("00000..", True)])
def test_potential_castle_bonus_waits_for_a_big_domain(top, use):
    """A 1-cross dot domain of 3 cells (skip the bonus) or of 7 cells (use it)."""
    st = new_state(first=0)
    set_map(st, 0, [top, "...00..", "...C...", ".......", "......."],
            ["...1...", ".......", "...C...", ".......", "......."])
    hold(st, 0, {2: 4, 3: 4}, start=0)                       # [dot,0], [dot,1]
    assert phase(st) == "CASTLE_WINDOW"
    after = {}
    for a in (K.A_SKIP, K.A_CASTLE_BONUS + 1):
        c = st.copy()
        K.step(c, a)
        after[a] = K.potential(c, 0)
    # the cross adds the domain size + 1 at once; keeping the bonus is worth 5 x empty / 34
    assert (after[K.A_CASTLE_BONUS + 1] > after[K.A_SKIP]) == use


def test_potential_spellbook():
    st = _quiet_state()
    st[K.MARKS + QUARTERS] = 2                               # add_cross row at 2/3
    base = K.potential(st, 0)
    assert base == pytest.approx(K.SPELL_VALUE[K.SPELL_ADD_CROSS] * 4 / 9)
    st[K.DIE_FACE + 1] = 0                                   # [quarters,0] will mark the last box
    st[K.DIE_HOLDER + 1] = 0
    assert K.potential(st, 0) == pytest.approx(K.SPELL_VALUE[K.SPELL_ADD_CROSS])
    st[K.SPELL_OWNER + K.SPELL_ADD_CROSS] = 1                           # the row is closed
    assert K.potential(st, 0) == 0.0
    st = _quiet_state()
    give_spell(st, 0, K.SPELL_TURN_DIE)
    assert K.potential(st, 0) == pytest.approx(K.SPELL_VALUE[K.SPELL_TURN_DIE])
    st[K.SPELL_USED + K.SPELL_TURN_DIE] = 1
    assert K.potential(st, 0) == 0.0


def test_potential_in_evaluate_and_draft():
    spec = KD.Spec()
    cfg = spec.configure()
    st = _quiet_state()
    set_map(st, 0, ["..00...", "...0...", "...C...", ".......", "......."],
            ["...1...", ".......", "...C...", ".......", "......."])
    set_map(st, 1, ["...1...", "...1...", "...C...", ".......", "......."])
    out = np.zeros(2, dtype=np.int64)
    K.scores(st, out)
    v0, v1 = out[0] + K.potential(st, 0), out[1] + K.potential(st, 1)
    assert spec.evaluate(st, cfg, 0) == pytest.approx(v0 - v1)
    # one ply ahead, seat 0 (start player) picks the die whose face joins its crossed domain
    for d, f in enumerate((3, 1, 4, 4)):                     # stripe, stripe, dot (0), dot (1)
        st[K.DIE_FACE + d] = f
    assert phase(st) == "DRAFT_PICK" and st[K.MOVER] == 0
    values = {}
    for a in legal(st):
        c = st.copy()
        K.step(c, a)
        values[a] = spec.evaluate(c, cfg, 0)
    assert max(values, key=values.get) == K.A_PICK_DIE + 3
