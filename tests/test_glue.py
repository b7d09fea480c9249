"""Glue written once (issue 44): the shell's and the batch's own options share one declared
table and one validator; one function builds the spaces; one parser reads the learner-seat
options of SingleAgentEnv and the batch; no private state is read outside the shell."""
import pytest

import envs
from envs.options import BATCH_OPTIONS, SHELL_OPTIONS
from envs.vector import VecGame

GAME = "kingdomino_duel_v0"

# (option, a value it refuses): a wrong type, a value outside the choices, an unordered set
BAD_SHELL_VALUES = [
    ("render_mode", "video"), ("render_mode", 1), ("reward_mode", "elo"), ("reward_mode", None),
    ("illegal_action", "ignore"), ("illegal_action", True), ("numeric_infos", 1),
    ("numeric_infos", "yes"), ("action_values", None), ("action_values", {True}),
]


def _message(make, **options):
    with pytest.raises(ValueError) as err:
        make(**options)
    return str(err.value)


@pytest.mark.parametrize("name, value", BAD_SHELL_VALUES)
def test_shell_option_refused_naming_it(name, value):
    message = _message(lambda **o: envs.make(GAME, **o), **{name: value})
    assert message.startswith(f"{name} must be "), message


@pytest.mark.parametrize("name, value", [(n, v) for n, v in BAD_SHELL_VALUES
                                         if n in {o.name for o in BATCH_OPTIONS}]
                         + [("copy", 0), ("copy", "no")])
def test_batch_option_refused_with_the_shells_words(name, value):
    message = _message(lambda **o: VecGame(GAME, 2, **o), **{name: value})
    assert message.startswith(f"{name} must be "), message
    if name != "copy":      # one declaration, one wording: the AEC env says the same
        assert message == _message(lambda **o: envs.make(GAME, **o), **{name: value})


@pytest.mark.parametrize("name", sorted({o.name for o in SHELL_OPTIONS} - {o.name for o in BATCH_OPTIONS}))
def test_shell_only_option_refused_by_the_batch(name):
    default = next(o.default for o in SHELL_OPTIONS if o.name == name)
    message = _message(lambda **o: VecGame(GAME, 2, **o), **{name: default})
    assert repr(name) in message and "batch" in message


@pytest.mark.parametrize("alias, mode", [("rank", "rank"), ("win_loss", "rank"),
                                         ("score", "score"), ("score_diff", "score")])
def test_reward_mode_aliases_mean_the_same_in_shell_and_batch(alias, mode):
    assert envs.make(GAME, reward_mode=alias).reward_mode == mode
    assert VecGame(GAME, 1, reward_mode=alias)._score_mode == (mode == "score")


def test_shell_options_accept_numpy_values_and_normalise_them():
    import numpy as np
    env = envs.make(GAME, render_mode=np.str_("ansi"), numeric_infos=np.bool_(True),
                    action_values=np.bool_(False))
    assert env.render_mode == "ansi" and env.numeric_infos is True and env.action_values is False
