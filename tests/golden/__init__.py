"""The golden playthroughs of the shipped games (``envs.testing.golden``): one text file per
entry of :data:`PLAYTHROUGHS`, committed here and compared by ``tests/test_golden.py``.

Regenerate them all (after a change of an encoding or of the rules, then review the diff)::

    python -m tests.golden --regen

``python -m tests.golden`` alone checks them and prints the diff of those that differ.
"""
from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent

# (file name, game, options, seed, max_steps or None for the whole game).  Every game has at
# least one whole game; the environment options of every shipped pretrained policy
# (agents' ``models/*.json`` records) are among them, exactly as those records give them.
PLAYTHROUGHS = [
    ("kingdomino_duel-score", "kingdomino_duel_v0", {"reward_mode": "score"}, 0, None),
    ("kingdomino_duel-2p", "kingdomino_duel_v0", {"num_players": 2}, 1, None),
    ("tiny_towns-score", "tiny_towns_v0", {"reward_mode": "score"}, 0, None),
    ("tiny_towns-1p", "tiny_towns_v0", {"num_players": 1}, 0, None),
    ("tiny_towns-3p-town_hall", "tiny_towns_v0", {"num_players": 3, "variant": "town_hall"}, 0, 60),
    ("between_two_cities-2p-score", "between_two_cities_v0", {"num_players": 2, "reward_mode": "score"}, 0, None),
    ("between_two_cities-1p", "between_two_cities_v0", {"num_players": 1}, 0, None),
    ("expancity-obs_window=0", "expancity_v0", {"obs_window": 0}, 0, None),
    ("expancity-score", "expancity_v0", {"reward_mode": "score"}, 0, 100),
    ("smartphone_inc-rank", "smartphone_inc_v0", {"reward_mode": "rank"}, 0, None),
    ("smartphone_inc-1p", "smartphone_inc_v0", {"num_players": 1}, 0, None),
    ("smartphone_inc-3p-steve-back", "smartphone_inc_v0",
     {"num_players": 3, "steve": True, "tech_sides": "back"}, 0, 40),
    # the two-seat tables the learned search's networks read (their records' options)
    ("tiny_towns-2p", "tiny_towns_v0", {"num_players": 2}, 1, 20),
    ("between_two_cities-2p", "between_two_cities_v0", {"num_players": 2}, 1, 20),
    ("expancity-2p", "expancity_v0", {"num_players": 2}, 1, 20),
    ("smartphone_inc-2p", "smartphone_inc_v0", {"num_players": 2}, 1, 20),
]


def path_of(name):
    return DIRECTORY / f"{name}.txt"


def regenerate(names=None):
    """Write the playthroughs (all, or those named); returns the paths written."""
    from envs.testing.golden import playthrough
    written = []
    for name, game, options, seed, max_steps in PLAYTHROUGHS:
        if names is None or name in names:
            path = path_of(name)
            path.write_text(playthrough(game, options, seed, max_steps))
            written.append(path)
    return written
