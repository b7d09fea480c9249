"""The one ranking of every game: :func:`kernels.outcome.ranks_lexicographic` against a
plain-Python lexicographic ranking on random keys with ties, and each kernel's ``ranks``
(which now calls it) against the plain-Python reference models on random games."""
import numpy as np
import pytest

import envs
from envs.registry import spec_for
from kernels.outcome import ranks_lexicographic
from tests import reference_between_two_cities as REF_BTC
from tests import reference_expancity as REF_EX
from tests import reference_kingdomino_duel as REF_KD
from tests import reference_smartphone_inc as REF_SI
from tests import reference_tiny_towns as REF_TT


def plain_ranks(keys):
    """Standard competition ranking by key tuples, higher better: 1 + how many beat it."""
    return [1 + sum(1 for other in keys if tuple(other) > tuple(mine)) for mine in keys]


def test_ranks_lexicographic_worked_example():
    # first key decides; the second breaks 7 = 7; (5, 2) twice stay tied and share rank 3,
    # and the last one is 5th, not 4th
    keys = np.array([[5, 2], [7, 1], [7, 3], [5, 2], [4, 9]], dtype=np.int64)
    out = np.zeros(5, dtype=np.int64)
    ranks_lexicographic(keys, 5, out)
    assert out.tolist() == [3, 2, 1, 3, 5]


def test_ranks_lexicographic_matches_plain_python_on_random_keys_with_ties():
    rng = np.random.default_rng(44)
    for _ in range(2000):
        rows = int(rng.integers(1, 9))
        num = int(rng.integers(1, rows + 1))        # rows past num are scratch leftovers
        num_keys = int(rng.integers(1, 9))
        keys = rng.integers(-2, 3, size=(rows, num_keys)).astype(np.int64)    # many ties
        out_len = int(rng.integers(1, rows + 2))
        out = np.full(out_len, -7, dtype=np.int64)
        ranks_lexicographic(keys, num, out)
        expected = plain_ranks(keys[:num].tolist())
        written = min(out_len, num)
        assert out[:written].tolist() == expected[:written]
        assert (out[written:] == -7).all()      # nothing written past the participants


def reference_ranks(game, kernel, state):
    """The ranks the rules give ``state``, computed by the game's plain-Python reference
    model (Tiny Towns: reference scores, tie-break items read as the rules name them)."""
    if game == "between_two_cities_v0":
        return REF_BTC.reference_scores_ranks(state)[1]
    if game == "smartphone_inc_v0":
        return REF_SI.final_ranks(state)
    if game == "kingdomino_duel_v0":
        return REF_KD.final_result(REF_KD.view(kernel, state))[1]
    if game == "expancity_v0":
        vp = np.zeros(int(state[kernel.NUM_PLAYERS]), dtype=np.int64)
        kernel.scores(state, vp)
        return REF_EX.ranks(vp.tolist())
    if game == "tiny_towns_v0":
        scores = REF_TT.final_scores_ref(state)
        keys = [(scores[p],) + tuple(int(x) for x in kernel._tie_keys(state, p))
                for p in range(len(scores))]
        return plain_ranks(keys)
    raise AssertionError(game)


CASES = [(g, n) for g in envs.GAMES for n in spec_for(g).player_counts
         if n in (min(spec_for(g).player_counts), max(spec_for(g).player_counts))]


@pytest.mark.parametrize("game,num_players", CASES)
def test_kernel_ranks_match_the_reference_on_random_games(game, num_players):
    kw = {"num_players": num_players} if len(spec_for(game).player_counts) > 1 else {}
    env = envs.make(game, **kw)
    rng = np.random.default_rng(7)
    for seed in range(2):
        env.reset(seed=seed)
        raw = env.unwrapped
        kernel = raw.spec.kernel
        state = raw._state.copy()
        mask = np.zeros(raw.spec.num_actions, dtype=np.int8)
        out = np.zeros(8, dtype=np.int64)
        steps = 0
        while True:
            if steps % 25 == 0 or kernel.current_player(state) < 0:
                expected = reference_ranks(game, kernel, state)
                out[:] = 0
                kernel.ranks(state, out[:len(expected)])
                assert out[:len(expected)].tolist() == expected, (game, seed, steps)
                assert len(expected) >= num_players    # automata follow the seats
            if kernel.current_player(state) < 0:
                break
            kernel.legal_mask(state, mask)
            kernel.step(state, int(rng.choice(np.flatnonzero(mask))))
            steps += 1
