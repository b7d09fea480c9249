"""What cityzoo's command lines share: every argument is checked before any work starts.

A command refuses a bad argument at once -- a count that is not positive, an unknown game,
a player count or option value the game does not allow -- with one line on stderr and exit
status 2 (argparse's status for a usage error), never a traceback: a person who mistyped
must not wait for kernels to compile, nor read thirty lines to find the one that matters.

* :class:`ArgumentParser` -- argparse's parser whose errors are that one line;
* argparse types: :func:`positive_int`, :func:`non_negative_int`, :func:`positive_float`,
  :func:`json_object`, :func:`game_id`;
* :func:`fail` -- the one-line refusal (raises :class:`UsageError`);
* :func:`check_game_options` -- the game's options (player count included) validated by
  the game's own option table, without making an environment.

Agents are checked by :mod:`agents.cli` (``envs`` does not import ``agents``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys


class UsageError(SystemExit):
    """A refused command line: exits with status 2; ``str()`` is the message (already
    written to stderr by :func:`fail`)."""

    def __init__(self, message):
        super().__init__(2)
        self.message = message

    def __str__(self):
        return self.message


def one_line(message) -> str:
    """``message`` with its whitespace (newlines included) folded into single spaces."""
    return " ".join(str(message).split())


def fail(message, prog=None, status=2):
    """Write ``prog: error: message`` (one line) to stderr and exit with ``status``
    (2: a refused command line; 1: a failure while working)."""
    text = one_line(message)
    print(f"{prog or _program()}: error: {text}", file=sys.stderr, flush=True)
    if status == 2:
        raise UsageError(text)
    raise SystemExit(status)


def _program():
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "cityzoo"
    return name or "cityzoo"


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, with a refusal of one line (``prog: error: ...``, exit 2) instead
    of the usage text followed by the error; ``--help`` still shows the usage."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        fail(message, self.prog)


def positive_int(text) -> int:
    """argparse type: an integer >= 1 (a count or a budget)."""
    return _integer(text, 1, "a positive integer")


def non_negative_int(text) -> int:
    """argparse type: an integer >= 0."""
    return _integer(text, 0, "an integer >= 0")


def _integer(text, low, words):
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be {words}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {words}, got {text!r}")
    return value


def positive_float(text) -> float:
    """argparse type: a finite number > 0 (seconds, minutes, a target)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def json_object(text) -> dict:
    """argparse type: a JSON object (``{"simulations": 200}``)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"bad JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object ({{...}}), got {text!r}")
    return value


def game_id(text) -> str:
    """argparse type: a registered game id."""
    from envs.registry import GAMES

    if text not in GAMES:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}; games: {', '.join(GAMES)}")
    return text


def check_game_options(game, options=None, prog=None):
    """The game's validated configuration of ``options`` (``num_players`` included), from
    the game's option table; a refusal (:func:`fail`) names the option.  Makes no
    environment, so nothing is compiled."""
    from envs.registry import GAMES, spec_for

    if game not in GAMES:
        fail(f"unknown game {game!r}; games: {', '.join(GAMES)}", prog)
    try:
        return spec_for(game).configure(**dict(options or {}))
    except (TypeError, ValueError) as exc:
        fail(f"{game}: {exc}", prog)
