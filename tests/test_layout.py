"""The declaration helpers every game is written with: state/observation layouts,
action blocks and option tables."""
import numpy as np
import pytest

import envs
from envs.options import Option, validate
from envs.registry import spec_for
from kernels.layout import ActionBlocks, Layout


def test_layout_offsets_views_and_bounds():
    lay = Layout("demo")
    assert lay.add("turn") == 0
    assert lay.add("board", (2, 3), low=-1, high=5) == 1
    assert lay.add("bag", 4, high=np.arange(4)) == 7
    assert lay.add("tmp", (3,), scratch=True) == 11
    assert lay.size == 14 and lay.scratch_size == 3
    assert lay.parts() == [("turn", (1,)), ("board", (2, 3)), ("bag", (4,))]
    state = np.arange(14)
    assert lay.view(state, "board").tolist() == [[1, 2, 3], [4, 5, 6]]
    assert lay.view(state, "turn").shape == ()
    lay.view(state, "bag")[:] = -1          # a view, not a copy
    assert state[7:11].tolist() == [-1] * 4
    batch = np.zeros((5, 14))
    assert lay.view(batch, "board").shape == (5, 2, 3)
    low, high = lay.bounds()
    assert low.dtype == np.float32 and low[1:7].tolist() == [-1] * 6 and high[7:11].tolist() == [0, 1, 2, 3]
    assert set(lay.views(state)) == {"turn", "board", "bag"}
    assert "tmp" in lay.views(state, include_scratch=True)
    assert "board" in lay.describe()


def test_layout_refuses_mistakes():
    lay = Layout("demo")
    lay.add("a")
    with pytest.raises(ValueError, match="twice"):
        lay.add("a")
    with pytest.raises(ValueError, match="identifier"):
        lay.add("no good")
    with pytest.raises(ValueError, match="low > high"):
        lay.add("b", 2, low=3, high=1)
    lay.add("s", 2, scratch=True)
    with pytest.raises(ValueError, match="after scratch"):
        lay.add("late")
    with pytest.raises(ValueError, match="no field 'zz'"):
        lay.offset("zz")
    with pytest.raises(ValueError, match="slots"):
        lay.view(np.zeros(5), "a")


def test_action_blocks_decode():
    blocks = ActionBlocks("demo", [("pick", 3), ("place", 10), ("pass", 1)])
    assert blocks.num_actions == 14
    assert blocks.offset("place") == 3 and blocks.action("place", 4) == 7
    assert blocks.decode(0) == ("pick", 0) and blocks.decode(12) == ("place", 9)
    assert blocks.decode(np.int64(13)) == ("pass", 0)
    assert blocks.block_of.tolist() == [0] * 3 + [1] * 10 + [2]
    for bad in (-1, 14, 2.0, True, "3", None):
        with pytest.raises(ValueError, match="action"):
            blocks.decode(bad)
    with pytest.raises(ValueError, match="no action block"):
        blocks.offset("swap")
    with pytest.raises(ValueError, match="outside"):
        blocks.action("pick", 3)
    with pytest.raises(ValueError, match="twice"):
        ActionBlocks("demo", [("a", 1), ("a", 2)])


TABLE = (
    Option("num_players", "int", 2, "seats", low=1, high=4),
    Option("variant", "choice", "standard", "rules variant", choices=("standard", "advanced")),
    Option("monuments", "bool", True, "use monuments"),
    Option("first", "int", None, "first seat", low=0, high=3, none_ok=True),
    Option("cards", "list", None, "card names", none_ok=True,
           check=lambda v: v if v is None or all(isinstance(c, str) for c in v)
           else (_ for _ in ()).throw(ValueError(f"cards must hold names, got {v!r}"))),
)


def test_option_table_fills_defaults_and_normalises():
    assert validate(TABLE, {}, "demo") == {"num_players": 2, "variant": "standard", "monuments": True,
                                           "first": None, "cards": None}
    got = validate(TABLE, {"num_players": np.int64(3), "monuments": np.bool_(False), "cards": ("a", "b"),
                           "variant": np.str_("advanced")}, "demo")
    assert got["num_players"] == 3 and type(got["num_players"]) is int
    assert got["variant"] == "advanced" and type(got["variant"]) is str
    assert got["monuments"] is False and got["cards"] == ["a", "b"]


@pytest.mark.parametrize("bad, name", [
    ({"nope": 1}, "unknown option 'nope'"), ({"num_players": 5}, "num_players"),
    ({"num_players": 2.0}, "num_players"), ({"num_players": True}, "num_players"),
    ({"variant": "Standard"}, "variant"), ({"monuments": 1}, "monuments"),
    ({"first": "0"}, "first"), ({"cards": {"a", "b"}}, "unordered"), ({"cards": [1]}, "cards"),
    ({"cards": "ab"}, "cards"),
])
def test_option_table_refuses_with_the_option_named(bad, name):
    with pytest.raises(ValueError, match=name):
        validate(TABLE, bad, "demo")


def test_every_game_declares_its_options():
    """Each game's options come from one table on its spec: every documented option is a
    row, and an unknown option is refused by name."""
    for game in envs.GAMES:
        spec = spec_for(game)
        names = [o.name for o in spec.options]
        assert "num_players" in names, game
        assert all(o.doc for o in spec.options), game
        defaults = spec.configure()
        assert set(defaults.options) <= set(names), game
        with pytest.raises(ValueError, match="unknown option 'colour_blind'"):
            spec.configure(colour_blind=True)


def test_every_game_declares_its_state_and_observation():
    """The state and observation of every game come from declared layouts: the shell's
    sizes, the observation parts and bounds are read from them."""
    for game in envs.GAMES:
        spec = spec_for(game)
        kernel = spec.kernel
        assert isinstance(kernel.STATE, Layout), game
        cfg = spec.configure()
        assert cfg.state_size == kernel.STATE.size, game
        assert cfg.scratch == kernel.STATE.scratch_size, game
        assert isinstance(kernel.ACTIONS, ActionBlocks) and kernel.ACTIONS.num_actions == spec.num_actions, game
        parts = spec.observation_layout(cfg)
        assert sum(int(np.prod(s)) for _, s in parts) == cfg.obs_size, game
        low, high = spec.observation_bounds(cfg)
        assert np.shape(low) == (cfg.obs_size,) and np.all(np.asarray(low) <= np.asarray(high)), game


def test_fields_are_named_views_of_the_array():
    layout = Layout("t")
    layout.add("phase")
    layout.add("board", (2, 3))
    layout.add("work", 2, scratch=True)
    state = np.arange(layout.size, dtype=np.int64)
    f = layout.fields(state)
    assert f.phase.shape == () and int(f.phase) == 0       # a one-slot field: its value
    assert f.board.shape == (2, 3) and f.board[1, 2] == 6
    assert not hasattr(f, "work") and layout.fields(state, include_scratch=True).work.tolist() == [7, 8]
    state[4] = 40                         # views, not copies: they follow the state
    assert f.board[1, 0] == 40
    game_part = state[:layout.size - 2]   # a state without its scratch tail (CityEnv.game_state())
    assert layout.fields(game_part).board.tolist() == f.board.tolist()
    with pytest.raises(ValueError, match="expected arrays of 9 slots"):
        layout.fields(game_part, include_scratch=True)
    with pytest.raises(ValueError, match="expected arrays of 9 slots"):
        layout.fields(state[:5])
    batch = np.stack([state, state + 100])                 # a batch of states: views throughout
    fb = layout.fields(batch)
    assert fb.phase.tolist() == [0, 100] and fb.board.shape == (2, 2, 3) and fb.board[1, 1, 2] == 106
