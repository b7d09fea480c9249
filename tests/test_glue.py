"""Glue written once (issue 44): the shell's and the batch's own options share one declared
table and one validator; one function builds the spaces; one parser reads the learner-seat
options of SingleAgentEnv and the batch; no private state is read outside the shell."""
import numpy as np
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


@pytest.mark.parametrize("action_values", [False, True])
def test_every_view_has_the_spaces_of_envs_spaces(action_values):
    """One function builds the spaces: the AEC env, SingleAgentEnv, the Gymnasium and SB3
    batched adapters agree with envs.spaces (and with each other)."""
    from envs import spaces as game_spaces
    from envs.vector import SeatVectorEnv
    aec = envs.make(GAME, action_values=action_values)
    expected = game_spaces.observation_space(aec.spec, aec.cfg, action_values)
    assert list(expected.spaces) == ["action_mask", "observation"] + ["action_values"] * action_values
    flat, discrete = game_spaces.seat_spaces(aec.spec, aec.cfg, action_values)
    assert discrete == game_spaces.action_space(aec.spec) and discrete.n == aec.spec.num_actions
    assert flat.shape == (aec.cfg.obs_size + aec.spec.num_actions * action_values,)
    for agent in aec.possible_agents:
        assert aec.observation_space(agent) == expected
        assert aec.action_space(agent) == discrete
    single = envs.SingleAgentEnv(GAME, action_values=action_values)
    batched = SeatVectorEnv(GAME, 2, action_values=action_values)
    views = [(single.observation_space, single.action_space),
             (batched.single_observation_space, batched.single_action_space)]
    try:
        from envs.vector_sb3 import SB3SeatVecEnv
        sb3 = SB3SeatVecEnv(GAME, 2, action_values=action_values)
        views.append((sb3.observation_space, sb3.action_space))
    except ImportError:     # the train extra is not installed
        pass
    for obs_space, act_space in views:
        assert obs_space == flat
        assert act_space == discrete
    aec.reset(seed=1)
    assert aec.state_space.contains(aec.state())
    assert aec.state_space.shape == (aec.cfg.num_players * aec.cfg.obs_size,)


# ----------------------------------------------------------------- learner-seat options
def _single(**options):
    return envs.SingleAgentEnv(GAME, **options)


def _batch(**options):
    from envs.vector import VecSeatGame
    return VecSeatGame(GAME, 4, **options)


LEARNER_CLASSES = [pytest.param(_single, id="SingleAgentEnv"), pytest.param(_batch, id="VecSeatGame")]

ACCEPTED = [
    ("seat", 0, 0), ("seat", 1, 1), ("seat", np.int64(1), 1), ("seat", "random", "random"),
    ("seat", None, "random"), ("seat", "rotate", "rotate"),
    ("shaping", 0, 0.0), ("shaping", 0.5, 0.5), ("shaping", np.float32(0.25), 0.25), ("shaping", 2, 2.0),
    ("reward_scale", 1, 1.0), ("reward_scale", 0.1, 0.1), ("reward_scale", np.int32(3), 3.0),
]
REFUSED = [
    ("seat", 1.5), ("seat", 1.0), ("seat", True), ("seat", 2), ("seat", -1), ("seat", "left"),
    ("seat", {0}), ("shaping", True), ("shaping", "0.5"), ("shaping", -0.1), ("shaping", float("nan")),
    ("shaping", float("inf")), ("shaping", None), ("reward_scale", 0), ("reward_scale", -1),
    ("reward_scale", False), ("reward_scale", "1"), ("reward_scale", float("nan")), ("reward_scale", None),
    ("opponents", {"random"}), ("opponents", ["random", "random"]), ("opponents", 3),
    ("opponents", {"seat_1": "random"}),
]


@pytest.mark.parametrize("make", LEARNER_CLASSES)
@pytest.mark.parametrize("name, value, expected", ACCEPTED)
def test_learner_option_accepted_with_one_meaning(make, name, value, expected):
    env = make(**{name: value})
    assert getattr(env.learner_options, name) == expected
    assert type(getattr(env.learner_options, name)) is type(expected)


@pytest.mark.parametrize("make", LEARNER_CLASSES)
@pytest.mark.parametrize("name, value", REFUSED)
def test_learner_option_refused_naming_it(make, name, value):
    with pytest.raises(ValueError, match=name):
        make(**{name: value})


def _learner_seats(env, games):
    """The learner's seat in each of ``games`` games (several per reset for the batch)."""
    if isinstance(env, envs.SingleAgentEnv):
        seats = [env.reset(seed=7)[1]["seat"]]
        seats += [env.reset()[1]["seat"] for _ in range(games - 1)]
        return seats
    seats = []
    _, info = env.reset(seed=7)     # the batch stops every game at the learner's decision
    while len(seats) < games:
        seats += info["current_player"].tolist()
        _, info = env.reset()
    return seats[:games]


@pytest.mark.parametrize("make", LEARNER_CLASSES)
@pytest.mark.parametrize("seat", [0, 1, "rotate", "random", None])
def test_seat_values_mean_the_same_in_both(make, seat):
    seats = _learner_seats(make(seat=seat), 4)
    assert len(seats) == 4
    if isinstance(seat, int):
        assert seats == [seat] * 4
    elif seat == "rotate":
        assert seats == [0, 1, 0, 1]
    else:     # a seat drawn each game, reproducible from the seed; both seats come up
        assert seats == _learner_seats(make(seat=seat), 4)
        assert set(_learner_seats(make(seat=seat), 12)) == {0, 1}


@pytest.mark.parametrize("make", LEARNER_CLASSES)
@pytest.mark.parametrize("opponents", [None, "random", ["random"], ("random",)])
def test_default_opponent_is_random_play_in_both(make, opponents):
    env = make(opponents=opponents, seat=0)
    first = env.reset(seed=3)[0]
    assert first is not None
    assert env.learner_options.deal(np.random.default_rng(0)) in ([None], ["random"])


@pytest.mark.parametrize("make", LEARNER_CLASSES)
def test_opponent_factory_called_at_every_game_with_the_seeded_generator(make):
    calls = []

    def factory(rng):
        calls.append(rng)
        return "random"
    env = make(opponents=factory, seat=0)
    env.reset(seed=5)
    assert calls and all(isinstance(g, np.random.Generator) for g in calls)


# ------------------------------------------------------------- no private state as an API
PRIVATE_SHELL_FIELDS = {"_state", "_cumulative_rewards", "_k_player"}
ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def _package_sources():
    """Every Python file of the packages, the benchmarks, the examples and train.py (tests
    are white-box and may look inside the shell)."""
    for folder in ("envs", "agents", "kernels", "benchmarks", "examples"):
        yield from sorted((ROOT / folder).rglob("*.py"))
    yield ROOT / "train.py"


def test_no_private_shell_state_read_outside_the_shell():
    import ast
    offenders = []
    for path in _package_sources():
        if path == ROOT / "envs" / "shell.py" or not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_SHELL_FIELDS:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    assert not offenders, "use CityEnv.kernel_state / current_seat() / cumulative_reward():\n" \
        + "\n".join(offenders)


def test_the_check_finds_a_private_read():
    """The AST check above would see a reading of the shell's private state."""
    import ast
    tree = ast.parse("value = raw._state[0] + env._cumulative_rewards['player_0']")
    assert {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} >= {"_state", "_cumulative_rewards"}


def test_kernel_state_is_the_live_array_and_the_accessors_follow_the_game():
    env = envs.make(GAME)
    with pytest.raises(AssertionError):
        env.kernel_state
    with pytest.raises(AssertionError):
        env.current_seat()
    env.reset(seed=0)
    state = env.kernel_state
    assert state.dtype == np.int64 and state.shape == (env.cfg.state_size,)
    assert state is env.kernel_state                      # live, not a copy
    assert np.array_equal(state[: env.cfg.state_size - env.cfg.scratch], env.game_state())
    scores = np.zeros(env.cfg.num_players, dtype=np.int64)
    env.spec.kernel.scores(env.kernel_state, scores)
    assert scores.tolist() == env.scores()
    rng = np.random.default_rng(0)
    while True:
        seat = env.current_seat()
        if seat < 0:
            break
        assert env.agent_selection == env.possible_agents[seat]
        env.step(int(rng.choice(env.legal_actions())))
        assert env.kernel_state is state                   # the same array, moved on
    assert env.terminations[env.agent_selection]
    rewards = [env.cumulative_reward(a) for a in env.possible_agents]
    assert rewards == [env.rewards[a] for a in env.possible_agents]
    assert sorted(rewards) in ([-1.0, 1.0], [0.0, 0.0])     # rank rewards of a two-seat game
    with pytest.raises(ValueError, match="agent"):
        env.cumulative_reward("player_9")
    with pytest.raises(ValueError, match="agent"):
        env.cumulative_reward(["player_0"])


def test_docs_list_every_declared_shell_option():
    import importlib.util
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    text = hooks.expand((ROOT / "docs" / "api.md").read_text())
    table = text[text.index("Options common to every game"):text.index("SHELL_OPTIONS")]
    for option in SHELL_OPTIONS:
        assert f"| `{option.name}` |" in table, option.name
