"""Per-game settings of the search baselines (they are choices of the agents, not of the
games, so they live here and not on the environments' specs).

``playout``/``playout_depth``: how :class:`agents.players.mcts.MCTSAgent` (``playout="auto"``)
finishes an iteration -- ``depth`` moves of ``"heuristic"`` (random) or ``"greedy"`` play,
then the position is scored with the evaluation of :mod:`kernels.outcome`;
``margin_scale``: the score lead that counts as tanh(1) in that squashed score, i.e. a
lead that nearly decides a game; in a solo game with automata, also the points a won
game is worth on top of the score (:func:`kernels.outcome.solo_value_function`).
``solo_playout``/``solo_playout_depth``: the playout when one seat plays, where it differs.
``solo_c_uct``: UCB's exploration constant when one seat plays.  Its results are points,
rescaled to [-1, 1] over the range seen in the search; that range is set by the best and
worst playouts, so two moves differ by a far smaller share of it than two rank rewards
do, and the constant must be smaller than the 1 used with several seats.
"""
from typing import NamedTuple, Optional


class SearchSettings(NamedTuple):
    playout: str = "heuristic"
    playout_depth: int = 0
    margin_scale: float = 10.0
    solo_c_uct: float = 0.3
    solo_playout: Optional[str] = None        # with one seat: its own playout (None: as above)
    solo_playout_depth: Optional[int] = None


SEARCH_SETTINGS = {
    # final scores ~70-110: a lead of 10 is a typical lead between good players
    "kingdomino_duel_v0": SearchSettings("heuristic", 0, 10.0),
    # towns score about -15 to +20, so a few points decide a game.  Solo: a town's worth
    # shows only once its buildings stand and are fed, so 30 greedy moves come before the
    # evaluation (200 iterations a move, seeds 500-505: mean 18.7 against 9.0 when
    # evaluating at the leaf), and exploration is small against the spread of those
    # results (200 iterations, seeds 510-519: c 0.3 17.5, 0.1 20.2, 0.03 19.4)
    "tiny_towns_v0": SearchSettings("heuristic", 0, 5.0, solo_c_uct=0.1,
                                    solo_playout="greedy", solo_playout_depth=30),
    # 16 greedy moves (two whole turns with 2 players) before the evaluation: scoring at
    # once only repeats what greedy sees (envs/between_two_cities.py, "MCTS baseline");
    # two-player totals ~90-120
    "between_two_cities_v0": SearchSettings("greedy", 16, 10.0),
    # final scores of a few dozen points
    "expancity_v0": SearchSettings("heuristic", 0, 10.0),
    # scores run to ~200 VP but rounds swing them by 10-20
    "smartphone_inc_v0": SearchSettings("heuristic", 0, 10.0),
}


def search_settings(game_id):
    """The settings of ``game_id`` (a random playout to the end for a game not listed)."""
    return SEARCH_SETTINGS.get(game_id, SearchSettings("random", 0, 10.0))
