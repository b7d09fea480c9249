"""The table as text (``env.text(observer)``, ``render()`` in ``"ansi"`` mode): the public
table every seat sees, then each seat's hidden holdings (``GameSpec.private_text``).

For random games of every game, checked at several moments:

* the public part shows nothing hidden: it is unchanged when any seat's unseen information
  is re-drawn (``determinize``);
* a seat's own text shows nothing it cannot see (unchanged by its own ``determinize``);
* nothing the seat knows is missing: when re-drawing what *another* seat cannot see
  changes this seat's observation, this seat's text changes too;
* ``render()`` is the public table followed by every seat's hidden holdings.
"""
import re

import numpy as np
import pytest

import envs
from envs import testing
from test_pictures import CASES, _random_states, play_to_end


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_text_views_of_random_games(case):
    game, options = case.game, case.options
    env = envs.make(game, render_mode="ansi", **options)
    private_seen = []

    def visit(raw, move):
        seats = raw.cfg.num_players
        public = raw.spec.render_ansi(raw._state, raw.cfg)
        own = [raw.text(observer=seat) for seat in range(seats)]
        everything = raw.render()
        assert everything.startswith(public)
        for seat in range(seats):
            assert own[seat].startswith(public)
            lines = raw.spec.private_text(raw._state, raw.cfg, seat)
            assert all(isinstance(line, str) and line and "\n" not in line for line in lines)
            private_seen.extend(lines)
            assert all(line in everything for line in lines)
            assert (own[seat] == public) == (not lines)
        for seat in range(seats):
            redrawn = raw.determinize(seat, 2000 + move)
            assert redrawn.spec.render_ansi(redrawn._state, redrawn.cfg) == public, \
                f"move {move}: the public table changes when seat {seat}'s unseen information is re-drawn"
            assert redrawn.text(observer=seat) == own[seat], \
                f"move {move}: seat {seat}'s text shows something it cannot see"
            for other in range(seats):
                if other != seat and not np.array_equal(redrawn.observe(redrawn.possible_agents[other])["observation"],
                                                        raw.observe(raw.possible_agents[other])["observation"]):
                    assert redrawn.text(observer=other) != own[other], \
                        f"move {move}: seat {other} knows something its text does not show"

    play_to_end(env, 7, visit)
    if options.get("num_players", 2) > 1 and game != "kingdomino_duel_v0":   # KD: '?' names are rare
        assert private_seen, "no seat ever held anything hidden"


def test_text_names_the_observer_and_checks_it():
    env = envs.make("tiny_towns_v0", num_players=2)
    env.reset(seed=3)
    raw = env.unwrapped
    assert raw.text(observer="player_1") == raw.text(observer=1)
    assert "Only you know:" in raw.text(observer=0)
    assert "Only player_0 knows:" in raw.text() and "Only player_1 knows:" in raw.text()
    for bad in (2, -1, "player_9", 1.5):
        with pytest.raises(ValueError, match="observer"):
            raw.text(observer=bad)
    fresh = envs.make("tiny_towns_v0")
    with pytest.raises(AssertionError, match="reset"):
        fresh.unwrapped.text()


def test_tiny_towns_monument_in_its_owners_text_only():
    from kernels import tiny_towns as K
    env = envs.make("tiny_towns_v0", num_players=2, monuments=True)
    env.reset(seed=3)
    raw = env.unwrapped

    def dealt(p):
        b = K._player_base(p)
        return [K.CARD_NAMES[int(m)] for m in raw._state[b + K.O_DEALT: b + K.O_DEALT + 2] if m >= 0]

    for seat in (0, 1):
        text = raw.text(observer=seat)
        assert all(name in text for name in dealt(seat))
        assert not any(name in text for name in dealt(1 - seat))
    while raw.phase == "keep":
        env.step(K.A_KEEP + 1)
    for seat in (0, 1):
        kept = K.CARD_NAMES[int(raw._state[K._player_base(seat) + K.O_KEPT])]
        assert f"secret monument: {kept}" in raw.text(observer=seat)
        assert kept not in raw.text(observer=1 - seat)


def test_between_two_cities_hand_and_picks_in_their_owners_text_only():
    from envs.between_two_cities import tile_name
    from kernels import between_two_cities as K
    env = envs.make("between_two_cities_v0", num_players=3)
    env.reset(seed=2)
    raw = env.unwrapped
    env.step(int(raw.legal_actions()[0]))      # player_0 picks its first tile
    st = raw._state
    picked = tile_name(int(st[K.CHOSEN]))
    mine = raw.text(observer=0)
    assert f"picked this turn: {picked}" in mine
    for t in range(K.NUM_TILE_CODES):
        if st[K.HANDS + t]:
            assert f"{tile_name(t)} x{int(st[K.HANDS + t])}" in mine
    assert "picked this turn: nothing yet" in raw.text(observer=1)
    assert f"picked this turn: {picked}" not in raw.text(observer=1)


def test_expancity_contracts_and_hand_in_their_holders_text_only():
    from kernels import expancity as K
    for raw in _random_states("expancity_v0", 5, 61, num_players=3):
        names = raw.cfg.info["contract_names"]
        for seat in range(3):
            held = [c for c in range(K.NUM_CONTRACTS) if raw._state[K.HELD + seat * K.NUM_CONTRACTS + c]]
            for viewer in range(3):
                text = raw.text(observer=viewer)
                for c in held:
                    assert (f"secret contract {c + 1} '{names[c]}'" in text) == (viewer == seat)


def test_smartphone_inc_plan_in_its_owners_text_until_revealed():
    env = envs.make("smartphone_inc_v0", num_players=2)
    env.reset(seed=1)
    raw = env.unwrapped
    rs = np.random.default_rng(0)
    seen_secret = seen_revealed = False
    while not all(env.terminations.values()):
        for seat in (0, 1):
            plan = "plan: " + raw.spec.plan_text(raw._state, seat)
            revealed = bool(raw._state[raw.spec.kernel.REVEALED])
            if "(no plan)" in plan:
                continue
            lines = {viewer: [line.strip() for line in raw.text(observer=viewer).splitlines()] for viewer in (0, 1)}
            if revealed:
                seen_revealed = True
                assert plan in lines[1 - seat]
            else:
                seen_secret = True
                assert plan in lines[seat] and plan not in lines[1 - seat]
        env.step(int(rs.choice(raw.legal_actions())))
    assert seen_secret and seen_revealed


def test_kingdomino_question_mark_names_in_the_namers_text_only():
    from kernels import kingdomino_duel as K
    for seed in range(40):
        env = envs.make("kingdomino_duel_v0")
        env.reset(seed=seed)
        raw = env.unwrapped
        rs = np.random.default_rng(seed)
        while not all(env.terminations.values()):
            namer = int(raw._state[K.MOVER])
            if namer >= 0 and (raw._state[K.WILD_NAME + 2 * namer: K.WILD_NAME + 2 * namer + 2] >= 0).any():
                assert "'?' faces named" in raw.text(observer=namer)
                assert "'?' faces named" not in raw.text(observer=1 - namer)
                assert "'?' faces named" in raw.text()
                return
            env.step(int(rs.choice(raw.legal_actions())))
    pytest.fail("no random game named a '?' face")



# ------------------------------------------------------------- moves as others see them
def _after(raw, action, seat):
    """Once ``action`` is played: the game (without scratch) and what ``seat`` sees of it
    (the next seat and its observation)."""
    state, mask = raw._state.copy(), raw._mask.copy()
    mover = raw._k_advance(state, int(action), mask)
    observation = np.empty(raw.cfg.obs_size, dtype=np.float32)
    raw._k_observe(state, seat, observation)
    return state[: raw.cfg.state_size - raw.cfg.scratch].tobytes(), (int(mover), observation.tobytes())


@pytest.mark.parametrize("case", **testing.params([c for c in CASES if c.num_players > 1]))
def test_other_seats_see_a_move_label_only_when_they_see_the_move(case):
    """``action_label(a, observer)``: the mover and, once over, everybody get the label; in a
    secret phase the others get only its public name.  In every other phase the label must
    say nothing the observer does not see: a legal move with another label leaves the
    observer seeing something else."""
    game, options = case.game, case.options
    env = envs.make(game, **options)
    env.reset(seed=11)
    raw = env.unwrapped
    secret = raw.spec.secret_phases
    rs = np.random.default_rng(11)
    checked, played = {}, set()
    while not all(env.terminations.values()):
        legal = raw.legal_actions()
        action = int(rs.choice(legal))
        mover, phase = raw._seat[raw.agent_selection], raw.phase
        played.add(phase)
        label = raw.action_label(action)
        for viewer in range(raw.cfg.num_players):
            seen = raw.action_label(action, observer=viewer)
            if viewer == mover:
                assert seen == label
            elif phase in secret:
                assert seen == f"({secret[phase]})"
            else:
                assert seen == label
                if checked.get(phase, 0) < 40:    # the expensive part: 40 moves of each phase
                    checked[phase] = checked.get(phase, 0) + 1
                    game, mine = _after(raw, action, viewer)
                    for other in legal:     # (two ids of one move -- a domino laid either way -- alike)
                        other_game, theirs = _after(raw, other, viewer)
                        if raw.action_label(other) != label and other_game != game:
                            assert theirs != mine, \
                                f"{phase}: {label!r} and {raw.action_label(other)!r} look alike to seat {viewer}"
        env.step(action)
    assert raw.action_label(0, observer=0) == raw.action_label(0)   # over: every label shown
    # every public phase played was checked; a game may have none (Tiny Towns' Town Hall
    # variant: placements and build steps are secret, only the rare end-of-round Opaleye's
    # Watch move is public)
    assert checked or played <= set(secret), f"public phases {played - set(secret)} never checked"
    assert set(checked) == played - set(secret)


def test_secret_phases_name_phases_of_their_game():
    from kernels import between_two_cities, expancity, kingdomino_duel, smartphone_inc, tiny_towns
    phases = {"kingdomino_duel_v0": [name.lower() for name in kingdomino_duel.PHASE_NAMES],
              "tiny_towns_v0": tiny_towns.PHASE_NAMES, "between_two_cities_v0": between_two_cities.PHASE_NAMES,
              "expancity_v0": expancity.PHASE_NAMES, "smartphone_inc_v0": smartphone_inc.BLOCK_NAMES}
    for game, names in phases.items():
        secret = envs.make(game).unwrapped.spec.secret_phases
        assert secret and set(secret) <= set(names), game


def _random_game(game, seed, moves, **options):
    env = envs.make(game, render_mode="ansi", **options)
    env.reset(seed=seed)
    rs = np.random.default_rng(seed)
    for _ in range(moves):
        env.step(int(rs.choice(env.legal_actions())))
    return env


def test_between_two_cities_cities_print_the_coordinates_placements_name():
    """Each city's rows are led by their canvas row and headed by the canvas columns: the
    letter printed at (row, col) is the tile the kernel holds there, as "at (r,c)" names it."""
    from envs.between_two_cities import _LETTER
    from kernels import between_two_cities as K
    env = _random_game("between_two_cities_v0", 5, 40)
    state, lines = env.game_state(), env.text().splitlines()
    checked = 0
    for c in range(int(state[K.NUM_CITIES])):
        at = next(k for k, line in enumerate(lines) if line.startswith(f"city {c} "))
        header = lines[at + 1]
        cols = {i: int(ch) for i, ch in enumerate(header) if ch.isdigit()}
        assert list(cols.values()) == list(range(min(cols.values()), min(cols.values()) + len(cols)))
        for line in lines[at + 2:at + 6]:
            r = int(line.split()[0])
            for i, col in cols.items():
                kind = int(state[K.GRIDS + c * K.CANVAS_CELLS + r * K.CANVAS + col])
                assert line[i] == (_LETTER[kind] if kind >= 0 else "."), (c, r, col, line)
                checked += kind >= 0
    assert checked >= 6


def test_smartphone_inc_plans_print_the_coordinates_moves_name():
    """The plan rows are led by their row number under a header of column numbers: the icon
    printed at (row, col) is the kernel's icon of that cell of the planning canvas."""
    from envs.smartphone_inc import ICON_SHORT, plan_cells
    from kernels import smartphone_inc as K
    env = _random_game("smartphone_inc_v0", 2, 25, num_players=2)
    state = env.game_state()
    seat = next(s for s in range(2) if state[K.plan_base(s) + K.PL_W_SIDE] >= 0 and not state[K.REVEALED])
    lines = env.text(observer=seat).splitlines()
    at = lines.index("Only you know:")
    block = [line[2:] for line in lines[at + 2:]]
    header = block[0]
    cols = {int(m.group()): m.start() for m in re.finditer(r"\d+", header)}
    assert sorted(cols) == list(range(K.CANVAS_C))
    icon, _ = plan_cells(state, seat)
    rows_seen = set()
    for line in block[1:]:
        r = int(line[:3])
        rows_seen.add(r)
        for col, start in cols.items():
            i = int(icon[r * K.CANVAS_C + col])
            assert line[start:start + 2].strip() == ("" if i < 0 else ICON_SHORT[i]), (r, col, line)
    assert rows_seen == {r for r in range(K.CANVAS_R) if (icon[r * K.CANVAS_C:(r + 1) * K.CANVAS_C] >= 0).any()}
