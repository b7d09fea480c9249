"""MkDocs hook: the manual's generated parts, so that each fact is written in one place.

A page asks for a generated block with an HTML comment on a line of its own:

``<!-- cityzoo:options GAME -->``
    the game's option table, from its declaration (``envs.registry.spec_for(GAME).options``,
    rendered by ``envs.options.table_markdown``);
``<!-- cityzoo:glance GAME -->``
    the game's id, seat counts, action count and observation size with the default options,
    read from the game's spec;
``<!-- cityzoo:actions GAME -->``
    the action ids as the kernel declares them (``kernels.<game>.ACTIONS``, named blocks);
``<!-- cityzoo:train_defaults all -->`` (or ``solo``)
    each game's default training recipe, from ``agents.learning.training.recipes.GAME_DEFAULTS`` (``SOLO_DEFAULTS``);
``<!-- cityzoo:observation GAME -->``
    the observation's named parts and shapes with the default options
    (``spec.observation_layout``, the parts ``split_observation`` returns).
``<!-- cityzoo:ladders all -->`` (or ``solo``)
    every two-seat (solo) rating ladder: its rungs, their published ratings and intervals,
    from the stored ladder files (``agents.rating.ladder.load``).

``expand(markdown)`` does the replacement; ``tests/test_docs.py`` checks it against the
declarations.  An unknown directive or game fails the build.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:       # mkdocs loads this file by path: make the packages importable
    sys.path.insert(0, str(ROOT))

DIRECTIVE = re.compile(r"^<!-- cityzoo:(\w+) ([\w.]+) -->$", re.M)


def options_table(game):
    from envs.options import table_markdown
    from envs.registry import spec_for
    return table_markdown(spec_for(game).options)


def _seat_counts(spec):
    opt = next((o for o in spec.options if o.name == "num_players"), None)
    if opt is None:
        return "?"
    if opt.kind == "choice":
        return ", ".join(str(c) for c in opt.choices)
    return f"{opt.low}–{opt.high}" if opt.low != opt.high else str(opt.low)


def glance_table(game):
    from envs.registry import spec_for
    spec = spec_for(game)
    cfg = spec.configure()
    rows = ["| | |", "|---|---|",
            f"| id | `{game}` (`envs.make(\"{game}\")`) |",
            f"| seats (`num_players`) | {_seat_counts(spec)} |",
            f"| actions | `Discrete({spec.num_actions})` with an `int8` action mask |",
            f"| observation (default options) | `Box({cfg.obs_size},)` `float32` |",
            f"| rules revision | {spec.rules_revision} |"]
    return "\n".join(rows)


def actions_table(game):
    import importlib
    blocks = importlib.import_module("kernels." + game.removesuffix("_v0")).ACTIONS
    rows = ["| ids | block | actions |", "|---|---|---|"]
    for name in blocks.names():
        first, size = blocks.offset(name), blocks.size(name)
        ids = str(first) if size == 1 else f"{first}–{first + size - 1}"
        rows.append(f"| {ids} | `{name}` | {size} |")
    return "\n".join(rows)


def observation_table(game):
    from envs.registry import spec_for
    spec = spec_for(game)
    parts = spec.observation_layout(spec.configure())
    # per-seat parts (player0_x, player1_x, ...) are listed once, with their count
    grouped = {}
    for name, shape in parts:
        key = re.sub(r"^player\d+_", "player{i}_", name)
        entry = grouped.setdefault(key, [tuple(shape), 0])
        entry[1] += 1
    rows = ["| part | shape | values |", "|---|---|---|"]
    for key, (shape, count) in grouped.items():
        size = 1
        for n in shape:
            size *= n
        many = f" (× {count}, one per seat slot)" if count > 1 else ""
        rows.append(f"| `{key}` | {shape}{many} | {size * count} |")
    return "\n".join(rows)


TRAIN_COLUMNS = ("policy", "timesteps", "opponents", "reward_mode", "shaping", "warm_start", "tie_break", "learn_head",
                 "learning_rate", "lr_schedule")


def train_defaults_table(which):
    from agents.learning.training.recipes import GAME_DEFAULTS, SOLO_DEFAULTS
    table = {"all": GAME_DEFAULTS, "solo": SOLO_DEFAULTS}[which]
    rows = ["| game | " + " | ".join(f"`{c}`" for c in TRAIN_COLUMNS) + " |",
            "|---" * (len(TRAIN_COLUMNS) + 1) + "|"]
    for game, cfg in table.items():
        rows.append(f"| `{game}` | " + " | ".join(f"`{getattr(cfg, c)!r}`".replace("|", "\\|")
                                                 for c in TRAIN_COLUMNS) + " |")
    return "\n".join(rows)


def shell_options_table(which):
    """The options every game takes (``all``: ``envs.options.SHELL_OPTIONS``) or the batch's
    own (``batch``: ``BATCH_OPTIONS``), from their declarations."""
    from envs.options import BATCH_OPTIONS, SHELL_OPTIONS, table_markdown
    return table_markdown(SHELL_OPTIONS if which == "all" else BATCH_OPTIONS)


def _cost(meta):
    if "core_seconds" in meta:
        return f"{meta['core_seconds'] / 3600:.2f}"
    return f"not recorded ({meta['seconds'] / 60:.0f} min on 2 workers)"   # built before it was


def ladders_table(which):
    """One row per ladder and its version: its rungs weakest first, each with its rating and
    interval (solo: and its mean solo result over the seeds)."""
    from agents.rating import ladder as ladders
    mode = {"all": "table", "solo": "solo"}[which]
    rows = ["| ladder | table | rungs, weakest first: Elo ± 95 % | games | cost (core-hours of play) | built |",
            "|---|---|---|---|---|---|"]
    for name, spec in sorted(ladders.SPECS.items()):
        if spec.mode != mode:
            continue
        lad = ladders.load(spec.game, spec.mode)
        rungs = ", ".join(f"`{r.label}` {lad.rating(r.label):.0f}" + (
            f" ± {lad.halfwidths[r.label]:.0f}" if r.label != ladders.ANCHOR else "") + (
            f" (mean {lad.mean_result(r.label):.1f})" if mode == "solo" else "")
            for r in lad.sorted_rungs())
        table = ", ".join(f"{k}={v}" for k, v in spec.options.items())
        rows.append(f"| `{name}` v{spec.version} | {table} | {rungs} | {lad.meta['games']:,} | "
                    f"{_cost(lad.meta)} | {lad.meta['date']}, {lad.meta['revision']} |")
    if len(rows) == 2:
        return f"No {'solo' if mode == 'solo' else 'two-seat'} ladder is built yet."
    return "\n".join(rows)


GENERATORS = {"options": options_table, "shell_options": shell_options_table, "glance": glance_table, "actions": actions_table,
              "observation": observation_table, "train_defaults": train_defaults_table,
              "ladders": ladders_table}


def expand(markdown):
    """``markdown`` with every ``<!-- cityzoo:KIND GAME -->`` line replaced by its block."""
    import envs

    def one(match):
        kind, game = match.groups()
        if kind not in GENERATORS:
            raise ValueError(f"docs: unknown generated block {kind!r} (known: {', '.join(GENERATORS)})")
        if kind in ("train_defaults", "ladders"):
            if game not in ("all", "solo"):
                raise ValueError(f"docs: cityzoo:{kind} takes 'all' or 'solo', not {game!r}")
        elif kind == "shell_options":
            if game not in ("all", "batch"):
                raise ValueError(f"docs: cityzoo:shell_options takes 'all' or 'batch', not {game!r}")
        elif game not in envs.GAMES:
            raise ValueError(f"docs: unknown game {game!r} in a cityzoo:{kind} block")
        return GENERATORS[kind](game)

    return DIRECTIVE.sub(one, markdown)


def on_page_markdown(markdown, page, config, files, **kwargs):
    return expand(markdown)
