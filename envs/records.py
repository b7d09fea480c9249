"""Game records: a game saved as plain JSON, and replayed exactly.

A record holds what it takes to play a game again -- the game id, the options given to
:func:`envs.make`, the reset seed and the actions -- plus, for people and tools that read it
without replaying, each action's label and the final scores and ranks:

>>> record = new_record("tiny_towns_v0", {"num_players": 2}, seed=7, players=["me", "greedy"])
>>> add_action(record, env.unwrapped, action)    # before env.step(action): takes the label
>>> finish(record, env.unwrapped)                 # scores, ranks and winners
>>> save(record, "runs/games/tiny_towns_v0-7.json")
>>> env = replay(load("runs/games/tiny_towns_v0-7.json"))   # the raw env after the last move

Because every game is reproducible from its seed and actions, a replay reaches exactly the
states the game went through.  A replay also checks each recorded label against the one
the environment gives: a record written by a version whose rules or action encoding differ
fails at the first move that means something else, instead of replaying another game.

``FORMAT`` is the version of the layout; a record of another version is refused with a
``ValueError`` that says so.  ``rules`` is the revision of the game's rules the record was
played under (``GameSpec.rules_revision``; a record without it is of revision 1): a replay
refuses a record of another revision.  The keys are documented in ``docs/records.md``.

A record may come from anyone, so reading one trusts nothing in it: every key is
type-checked (a ``ValueError`` names the key), JSON nesting is limited, and an option that
names a file (kind ``"path"``, such as Expancity's ``data_path``) is refused unless the
caller passes ``allow_files=True`` -- a record must not make the program open a file.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from envs import safe_json

FORMAT = 1
MAX_DEPTH = 32   # how deeply a record's JSON may nest (options hold lists of lists at most)

_SUFFIXES = (".json", ".jsonl")
_REQUIRED = ("format", "game", "options", "seed", "actions", "labels")
_OPTIONAL = ("players", "scores", "ranks", "winners")   # null when absent
_FILES_REFUSED = ("pass allow_files=True to envs.records.replay (python -m envs.view: "
                  "--allow-files) if you trust the record and the file it names")
# Options that change how the env reports, never which states a game goes through: a
# replay chooses its own render mode.
_DISPLAY_OPTIONS = ("render_mode",)


# ------------------------------------------------------------------ building
def new_record(game, options=None, seed=0, players=None):
    """An empty record of a game of ``game`` made with ``envs.make(game, **options)`` and
    reset with ``seed``.  ``players``: optional names of whoever plays each seat, in seat
    order.  Raises ``ValueError`` for an unknown game, options that are not JSON-able, a
    seed that is not an integer or players that are not strings."""
    from envs.registry import GAMES, spec_for
    from envs.spec import as_seed

    if not isinstance(game, str) or game not in GAMES:
        raise ValueError(f"unknown game {game!r}; registered games: {', '.join(GAMES)}")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict of envs.make options, got {type(options).__name__}")
    options = {k: v for k, v in options.items() if k not in _DISPLAY_OPTIONS}
    try:
        safe_json.check_plain(options, "options", MAX_DEPTH - 1)
        options = json.loads(json.dumps(options, allow_nan=False))  # a JSON-able copy
    except (TypeError, ValueError) as exc:
        raise ValueError(f"options must be JSON-able (numbers, strings, lists, dicts): {exc}") from None
    as_seed(seed)
    if players is not None:
        if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
            raise ValueError(f"players must be a list of strings, got {players!r}")
        players = list(players)
    return {"format": FORMAT, "game": game, "rules": spec_for(game).rules_revision,
            "options": options, "seed": int(seed), "actions": [], "labels": [], "players": players,
            "scores": None, "ranks": None, "winners": None}


def add_action(record, raw_env, action):
    """Append ``action`` to ``record``; call it just before ``env.step(action)``, since the
    label describes the action in the position it is played from.  An action that is not
    legal now raises ``ValueError`` and leaves the record unchanged."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"action must be an integer, got {action!r}")
    action = int(action)
    if action not in raw_env.legal_actions():
        raise ValueError(f"action {action} is not legal in this position (phase {raw_env.phase!r}); "
                         "record an action before playing it")
    record["labels"].append(raw_env.action_label(action))
    record["actions"].append(action)


def finish(record, raw_env):
    """Write the outcome into ``record``: ``scores`` (the current scores of every seat),
    and once the game is over, ``ranks`` and ``winners`` (seat indices); these two stay
    ``None`` for a game that was left unfinished."""
    record["scores"] = [int(s) for s in raw_env.scores()]
    if raw_env.phase == "game_over":
        info = raw_env.infos[raw_env.possible_agents[0]]
        seat = {a: i for i, a in enumerate(raw_env.possible_agents)}
        record["ranks"] = [int(r) for r in info["ranks"]]
        # numeric_infos drop the winners' names; then every seat ranked 1st won
        winners = info.get("winners")
        record["winners"] = ([seat[w] for w in winners] if winners is not None
                             else [i for i, r in enumerate(record["ranks"]) if r == 1])
    else:
        record["ranks"] = record["winners"] = None
    return record


# -------------------------------------------------------------------- checks
def check(record, where="record"):
    """``record`` itself if it is a well-formed record of this format version; otherwise
    ``ValueError`` naming ``where`` (a file, a line), the key and what is wrong.  Checks each
    key's type and what can be checked without the game: the seat lists' agreement in
    length, ranks from 1, distinct winners.  :func:`replay_steps` checks the rest against
    the game (the number of seats, the rules revision, the outcome)."""
    from envs.registry import GAMES

    if not isinstance(record, dict) or "format" not in record:
        raise ValueError(f"{where} is not a cityzoo game record (no 'format' key)")
    version = record["format"]
    if not _is_int(version) or version != FORMAT:
        raise ValueError(f"{where} has record format version {version!r}; this version of cityzoo "
                         f"reads format {FORMAT} only")
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise ValueError(f"{where} lacks the key(s) {', '.join(missing)}")
    game = record["game"]
    if not isinstance(game, str) or game not in GAMES:
        raise ValueError(f"{where} is a record of the unknown game {_short(game)}; "
                         f"registered games: {', '.join(GAMES)}")
    rules = record.get("rules", 1)
    if not _is_int(rules) or rules < 1:
        raise ValueError(f"{where}: 'rules' must be a rules revision (an integer >= 1), got {_short(rules)}")
    if not isinstance(record["options"], dict):
        raise ValueError(f"{where}: 'options' must be a dict, got {_short(record['options'])}")
    safe_json.check_plain(record["options"], f"{where}: 'options'", MAX_DEPTH - 1)
    if not _is_int(record["seed"]):
        raise ValueError(f"{where}: 'seed' must be an integer, got {_short(record['seed'])}")
    actions, labels = record["actions"], record["labels"]
    if not isinstance(actions, list) or not all(_is_int(a) for a in actions):
        raise ValueError(f"{where}: 'actions' must be a list of integers")
    if not isinstance(labels, list) or not all(isinstance(s, str) for s in labels) \
            or len(labels) != len(actions):
        raise ValueError(f"{where}: 'labels' must be a list of strings, one per action "
                         f"({len(actions)} actions)")
    for key in _OPTIONAL:
        value = record.get(key)
        kind = str if key == "players" else int
        if value is not None and (not isinstance(value, list)
                                  or not all(isinstance(v, kind) and not isinstance(v, bool)
                                             for v in value)):
            raise ValueError(f"{where}: '{key}' must be null or a list of {kind.__name__}s")
    seats = [(key, len(record[key])) for key in ("players", "scores", "ranks")
             if record.get(key) is not None]
    for key, n in seats[1:]:
        if n != seats[0][1]:
            raise ValueError(f"{where}: '{key}' has {n} entries but '{seats[0][0]}' has "
                             f"{seats[0][1]}: both list every seat")
    ranks, winners = record.get("ranks"), record.get("winners")
    if ranks is not None and any(r < 1 for r in ranks):
        raise ValueError(f"{where}: 'ranks' must be ranks from 1, got {ranks}")
    if winners is not None and ranks is None:
        raise ValueError(f"{where}: 'winners' is given but 'ranks' is null: only a finished game "
                         "has winners, and it has ranks")
    if winners is not None and (any(w < 0 for w in winners) or len(set(winners)) != len(winners)):
        raise ValueError(f"{where}: 'winners' must be distinct seat numbers (from 0), got {winners}")
    return record


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value, limit=80):
    """``repr(value)`` cut to ``limit`` characters, for error messages about untrusted data."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _check_against_game(record, env):
    """What only the game can tell: the seat lists' length, the winners' seats."""
    n = len(env.possible_agents)
    for key in ("players", "scores", "ranks"):
        value = record.get(key)
        if value is not None and len(value) != n:
            raise ValueError(f"the record's '{key}' has {len(value)} entries, but its "
                             f"{record['game']} game has {n} seat(s)")
    winners = record.get("winners")
    if winners is not None and any(w >= n for w in winners):
        raise ValueError(f"the record's 'winners' {winners} are not all seats of its "
                         f"{n}-seat game")


# ---------------------------------------------------------------- files
def _suffix(path):
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(f"a record file must end in .json (one game) or .jsonl (one game per "
                         f"line), got {str(path)!r}")
    return suffix


def save(record, path):
    """Write ``record`` to ``path``: ``.json`` holds one game (overwritten), ``.jsonl`` gets
    the record appended as one line.  Missing parent directories are created."""
    suffix = _suffix(path)
    check(record, "the record to save")
    text = json.dumps(record, allow_nan=False, separators=(",", ":"))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".json":
        path.write_text(text + "\n")
    else:
        with open(path, "a") as f:
            f.write(text + "\n")
    return path


def load_all(path):
    """Every record in ``path`` (``.json``: a list of one; ``.jsonl``: one per non-blank line).
    ``ValueError`` naming the file (and line) for anything that is not a valid record."""
    suffix = _suffix(path)
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ValueError(f"cannot read the record file {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{str(path)!r} is not a text (JSON) file") from None
    if suffix == ".json":
        records = [check(_parse(text, f"{str(path)!r}"), f"{str(path)!r}")]
    else:
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                where = f"{str(path)!r} line {number}"
                records.append(check(_parse(line, where), where))
    for record in records:
        for key in _OPTIONAL:
            record.setdefault(key, None)
    return records


def load(path):
    """The one record in ``path``; a ``.jsonl`` file must then hold exactly one game
    (use :func:`load_all` for several)."""
    records = load_all(path)
    if len(records) != 1:
        raise ValueError(f"{str(path)!r} holds {len(records)} records, not one; use load_all()")
    return records[0]


def _parse(text, where):
    return safe_json.loads(text, where, MAX_DEPTH)


# ------------------------------------------------------------------- replay
def replay_steps(record, render_mode=None, verify=True, allow_files=False):
    """Play ``record`` back: yields ``(0, env)`` after the reset, then ``(i, env)`` after its
    ``i``-th action -- always the same raw env object, advanced; a caller that keeps states
    must ``clone()`` them.  ``render_mode`` is the env's (the record does not fix it).

    ``ValueError`` (raised when the bad move is reached) if the record does not replay: a
    malformed record, a record of another revision of the game's rules, options the game
    refuses, seat lists that do not fit the game, an action that is not legal, or -- with
    ``verify`` -- a label or final outcome that differs from the recorded one (a record of
    another version of the game's rules).  An option that names a file is refused unless
    ``allow_files`` (whatever the path: the file is not looked at)."""
    import envs
    from envs.options import refuse_file_options
    from envs.registry import spec_for

    check(record)
    spec = spec_for(record["game"])
    rules = record.get("rules", 1)
    if rules != spec.rules_revision:
        raise ValueError(f"the record's 'rules' is revision {rules} of {record['game']}'s rules, but "
                         f"this version of cityzoo plays revision {spec.rules_revision}: the same "
                         "actions would give another game")
    options = {k: v for k, v in record["options"].items() if k not in _DISPLAY_OPTIONS}
    if not allow_files:
        refuse_file_options(spec.options, options, "a game record", _FILES_REFUSED)
    try:
        env = envs.make(record["game"], render_mode=render_mode, **options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the record's options do not make a {record['game']} game: {exc}") from None
    _check_against_game(record, env)
    env.reset(seed=record["seed"])
    yield 0, env
    for i, (action, label) in enumerate(zip(record["actions"], record["labels"]), 1):
        if env.phase == "game_over":
            raise ValueError(f"move {i}: the game is already over, yet the record has "
                             f"{len(record['actions']) - i + 1} more action(s)")
        if action not in env.legal_actions():
            raise ValueError(f"move {i}: action {action} ({_short(label)}) is not legal here "
                             f"({env.agent_selection} to play, phase {env.phase!r})")
        if verify and env.action_label(action) != label:
            raise ValueError(f"move {i}: action {action} is recorded as {_short(label)} but means "
                             f"{env.action_label(action)!r} here; the record was made by another "
                             "version of the game")
        env.step(action)
        yield i, env
    if verify:
        _verify_outcome(record, env)


def _verify_outcome(record, env):
    if record.get("scores") is not None and record["scores"] != env.scores():
        raise ValueError(f"the replayed scores {env.scores()} differ from the recorded "
                         f"{record['scores']}; the record was made by another version of the game")
    if record.get("ranks") is not None:
        if env.phase != "game_over":
            raise ValueError("the record has final ranks but its actions stop before the game ends")
        replayed = finish({}, env)
        if replayed["ranks"] != record["ranks"]:
            raise ValueError(f"the replayed ranks {replayed['ranks']} differ from the recorded "
                             f"{record['ranks']}")
        if record.get("winners") is not None and replayed["winners"] != record["winners"]:
            raise ValueError(f"the replayed winners {replayed['winners']} differ from the recorded "
                             f"'winners' {record['winners']}")


def replay(record, render_mode=None, verify=True, allow_files=False):
    """The raw env after every action of ``record`` (see :func:`replay_steps`)."""
    env = None
    for _, env in replay_steps(record, render_mode=render_mode, verify=verify,
                               allow_files=allow_files):
        pass
    return env


def truncated(record, num_actions):
    """A copy of ``record`` keeping only its first ``num_actions`` actions, outcome cleared
    (the game it describes is unfinished until :func:`finish` says otherwise)."""
    if not _is_int(num_actions) or not 0 <= num_actions <= len(record["actions"]):
        raise ValueError(f"num_actions must be in [0, {len(record['actions'])}], got {num_actions!r}")
    return dict(record, actions=record["actions"][:num_actions], labels=record["labels"][:num_actions],
                scores=None, ranks=None, winners=None)

