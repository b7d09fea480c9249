"""The conformance kit: the contract checks of the shell and of a game's kernel, for anyone
writing a game on the shell (``envs/spec.py``), and the case table our own test suites read.

* :func:`cases` -- one case per registered game x player count, plus one per non-default value
  of each declared variant option (``GameSpec.variant_options``) and one per extra option set
  (``GameSpec.test_options``).  Every generic suite of ``tests/`` is parametrized by it, so a
  game added with :func:`envs.registry.register` is tested by all of them.
* the checks (:mod:`envs.testing.checks`): each raises ``AssertionError`` with a message that
  says what broke, and needs only the package's runtime dependencies (no pytest).

``docs/testing.md`` shows them on the toy game of ``tests/toy_game.py``.
"""
from dataclasses import dataclass, field

from envs import registry


@dataclass(frozen=True)
class Case:
    """One game and option set of the case table.  ``kind``: ``"players"`` (a player count
    at default options), ``"variant"`` (a declared variant option at a non-default value) or
    ``"extra"`` (one of the spec's ``test_options``)."""

    game: str
    options: dict = field(default_factory=dict, compare=False, hash=False)
    kind: str = "players"
    id: str = ""

    def make(self, **more):
        """``envs.make(game, **options, **more)``."""
        return registry.make(self.game, **dict(self.options, **more))

    @property
    def num_players(self):
        return registry.spec_for(self.game).configure(**self.options).num_players

    def __repr__(self):
        return f"Case({self.id})"


def _case_id(game, options):
    name = game.rsplit("_v", 1)[0]
    parts = [f"{options['num_players']}p"] if "num_players" in options else []
    parts += [f"{k}={v}" for k, v in options.items() if k != "num_players"]
    return "-".join([name] + parts)


def _variant_values(option):
    """The values of a variant option other than its default."""
    if option.kind == "bool":
        values = [True, False]
    elif option.kind == "choice":
        values = list(option.choices)
    elif option.kind == "int" and option.low is not None:
        values = [option.low, option.high]
    else:
        raise ValueError(f"variant option {option.name!r} must be a bool, a choice or a bounded int")
    return [v for v in values if not (type(v) is type(option.default) and v == option.default)]


def game_cases(game_id):
    """The cases of one registered game (see :func:`cases`)."""
    spec = registry.spec_for(game_id)
    names = {o.name: o for o in spec.options}
    counted = "num_players" in names
    default_n = names["num_players"].default if counted else spec.player_counts[0]
    out, seen = [], set()

    def add(options, kind):
        try:
            cfg = spec.configure(**options)
        except ValueError:
            return False
        key = (cfg.num_players, cfg.config.tobytes())
        if key in seen:          # the same game as a case already in the table
            return True
        seen.add(key)
        out.append(Case(game_id, dict(options), kind, _case_id(game_id, options)))
        return True

    for n in spec.player_counts:
        if not add({"num_players": n} if counted else {}, "players"):
            raise ValueError(f"{game_id}: player count {n} of player_counts is refused by configure")
    counts = [default_n] + [n for n in spec.player_counts if n != default_n]
    for name in spec.variant_options:
        if name not in names:
            raise ValueError(f"{game_id}: variant option {name!r} is not in the option table")
        for value in _variant_values(names[name]):
            # at the default player count if it allows the value, else at the first that does
            if not any(add(dict({"num_players": n} if counted else {}, **{name: value}), "variant")
                       for n in counts):
                raise ValueError(f"{game_id}: no player count accepts {name}={value!r}")
    for options in spec.test_options:
        options = dict(options)
        if counted:
            options.setdefault("num_players", default_n)
            options = {"num_players": options.pop("num_players"), **options}
        if not add(options, "extra"):
            raise ValueError(f"{game_id}: test_options {options} are refused by configure")
    return out


def cases(games=None, kinds=("players", "variant", "extra")):
    """The case table: every registered game (or those of ``games``) x every player count it
    allows, every non-default value of each declared variant option, and the spec's
    ``test_options``; ``kinds`` selects among ``"players"``, ``"variant"`` and ``"extra"``.
    Option sets that configure the same game as an earlier case are left out."""
    games = registry.GAMES if games is None else games
    return [c for g in games for c in game_cases(g) if c.kind in kinds]


def default_cases(games=None):
    """One case per game: its default options."""
    games = registry.GAMES if games is None else games
    out = []
    for g in games:
        spec = registry.spec_for(g)
        counted = any(o.name == "num_players" for o in spec.options)
        n = next((o.default for o in spec.options if o.name == "num_players"), None)
        options = {"num_players": n} if counted else {}
        out.append(Case(g, options, "players", _case_id(g, options)))
    return out


def check_game(game, *, seeds=(0,), allocations=True, api_cycles=100):
    """Run the whole kit on every case of ``game`` (a registered id): PettingZoo's api, seed
    and render tests, random games with the per-step contract, determinize for every seat,
    pickling, the kernel's determinism, declared layouts, the all-zero state, and (unless
    ``allocations=False``) allocation counting.  Raises ``AssertionError`` at the first broken
    promise; returns ``{case id: moves played in random games}``."""
    from envs.testing import checks
    table = cases([game])
    played = {}
    checks.check_seed_and_render(lambda render_mode=None: registry.make(game, render_mode=render_mode),
                                 num_cycles=api_cycles)
    checks.check_unstarted_state_refused(game, table[0].options)
    for case in table:
        checks.check_pettingzoo_api(case.make(), num_cycles=api_cycles)
        checks.check_declared_layout(game, case.options)
        played[case.id] = sum(checks.check_random_game(case.make(), seed) for seed in seeds)
        checks.check_determinize_every_seat(case.make(), seeds[0])
        checks.check_pickle_continues(case.make(), seed=seeds[0])
        checks.check_determinism_and_copy(game, case.options, seed=seeds[0])
    if allocations:
        checks.check_no_allocations(table)
    return played


def params(case_list):
    """``pytest.mark.parametrize`` arguments for a list of cases: ``(cases, ids)`` as a dict
    (``@pytest.mark.parametrize("case", **params(cases()))``)."""
    return {"argvalues": case_list, "ids": [c.id for c in case_list]}


__all__ = ["Case", "cases", "game_cases", "default_cases", "params", "check_game"]
