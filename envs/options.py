"""Game options declared as a table and validated in one place.

Each game lists its options on its spec (``GameSpec.options``) as :class:`Option` rows:
name, accepted types, allowed values or range, default, and one line of documentation.
:func:`validate` checks a user's keyword arguments against the table -- unknown names,
wrong types, values out of range, unordered containers -- and returns every option with
its default filled in; a game's ``build_config`` then only checks what involves several
options at once (e.g. a variant that needs two players) and builds the kernel's vector.

Every refusal is a ``ValueError`` that names the option.  Sets and other unordered
containers are always refused: their order depends on the process's hash seed, so the
same seed would give a different game in each process.

The options every environment takes whatever the game (``render_mode``, ``reward_mode``,
``illegal_action``, ``numeric_infos``, ``action_values``) are declared the same way, in
:data:`SHELL_OPTIONS`; the batch (:mod:`envs.vector`) takes the rows of :data:`BATCH_OPTIONS`.
:func:`split_options` validates those rows and hands the rest on as game options, so the
AEC shell and the batch accept the same values and refuse the rest with the same words.

Options of kind ``"path"`` name a file to open (:func:`file_options`).  Options that arrive
from elsewhere than the local user -- a web request, a game record -- must not make the
program open a file of the attacker's choosing (``/dev/stdin`` blocks, a device or a FIFO
hangs, error messages would tell what exists): :func:`refuse_file_options` turns them away
unless the caller allows them explicitly.
"""
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

_UNORDERED = (set, frozenset)


@dataclass(frozen=True)
class Option:
    """One row of a game's option table.

    ``kind`` is one of ``"int"``, ``"bool"``, ``"choice"`` (one of ``choices``),
    ``"list"`` (a list or tuple; ``check`` validates the items), ``"mapping"``,
    ``"path"`` (a file path string) or ``"custom"`` (``check`` alone decides; ``doc``
    says what is accepted).  ``low``/``high`` bound an ``"int"``;
    ``none_ok`` also accepts ``None``.  ``check(value) -> value`` may refine the value
    (normalise, validate items) and raises ``ValueError`` naming the option."""

    name: str
    kind: str
    default: object = None
    doc: str = ""
    choices: tuple = ()
    low: int = None
    high: int = None
    none_ok: bool = False
    check: object = None

    @property
    def label(self):
        """The option's name for people: ``cave_rule`` -> ``"Cave rule"`` (forms, tables)."""
        return self.name.replace("_", " ").capitalize()

    def describe(self):
        """The accepted values in words, for error messages and docs."""
        if self.kind == "int":
            text = f"an integer in [{self.low}, {self.high}]" if self.low is not None else "an integer"
        elif self.kind == "bool":
            text = "True or False"
        elif self.kind == "choice":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "list":
            text = "a list"
        elif self.kind == "custom":
            text = self.doc
        elif self.kind == "mapping":
            text = "a mapping"
        else:
            text = "a file path"
        if self.kind == "custom":      # the doc says everything accepted, None included
            return text
        return ("None or " + text) if self.none_ok else text

    def validate(self, value):
        if value is None and self.none_ok:
            return self.check(value) if self.check else None
        bad = ValueError(f"{self.name} must be {self.describe()}, got {value!r}")
        if isinstance(value, _UNORDERED):
            raise ValueError(f"{self.name} must be {self.describe()}, got a {type(value).__name__} "
                             "(unordered containers are refused: pass a list)")
        if self.kind == "int":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise bad
            value = int(value)
            if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
                raise bad
        elif self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise bad
            value = bool(value)
        elif self.kind == "choice":
            if isinstance(value, str):
                value = str(value)      # numpy strings count as strings
            # a choice is matched by equality *and* type (True == 1 must not select 1)
            if not any(type(value) is type(c) and value == c for c in self.choices):
                if not any(isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
                           and isinstance(c, int) and not isinstance(c, bool) and int(value) == c
                           for c in self.choices):
                    raise bad
                value = int(value)
        elif self.kind == "list":
            if not isinstance(value, (list, tuple)):
                raise bad
            value = list(value)
        elif self.kind == "mapping":
            if not isinstance(value, Mapping):
                raise bad
        elif self.kind == "path":
            import os
            if not isinstance(value, (str, os.PathLike)):
                raise bad
            value = os.fspath(value)
        elif self.kind == "custom":
            pass
        else:   # pragma: no cover - a mistake in a game's table
            raise TypeError(f"option {self.name}: unknown kind {self.kind!r}")
        return self.check(value) if self.check else value


def validate(table, given, game_id):
    """Check ``given`` (the user's keyword options) against ``table`` (a sequence of
    :class:`Option`) and return ``{name: value}`` for every option, defaults filled in."""
    known = {o.name: o for o in table}
    for name in given:
        if name not in known:
            raise ValueError(f"unknown option {name!r} for {game_id} (options: {', '.join(known)})")
    return {name: (opt.validate(given[name]) if name in given else opt.default)
            for name, opt in known.items()}


def table_markdown(table):
    """The option table as Markdown rows (the docs' option tables are generated from it)."""
    def cell(text):
        return str(text).replace("|", "\\|").replace("\n", " ")
    rows = ["| option | accepts | default | meaning |", "|---|---|---|---|"]
    for o in table:
        accepts = o.describe()
        accepts = "see the meaning" if accepts == o.doc else cell(accepts)
        rows.append(f"| `{o.name}` | {accepts} | `{o.default!r}` | {cell(o.doc)} |")
    return "\n".join(rows)


def file_options(table):
    """The names of the options of ``table`` that name a file (kind ``"path"``)."""
    return tuple(o.name for o in table if o.kind == "path")


def refuse_file_options(table, given, where, how_to_allow):
    """``ValueError`` if ``given`` sets an option of ``table`` that names a file (to anything
    but ``None``, its "no file" default).  The message names the option, ``where`` it came
    from and ``how_to_allow`` it; it never opens, inspects or repeats the value, so the
    answer is the same whatever the path."""
    for name in file_options(table):
        if name in given and given[name] is not None:
            raise ValueError(f"option {name!r} names a file, and {where} may not make this "
                             f"program open files; {how_to_allow}")


# ---------------------------------------------------------------- the shell's own options
# Accepted reward_mode values -> the mode they select ("win_loss"/"score_diff": aliases).
REWARD_MODES = {"rank": "rank", "score": "score", "win_loss": "rank", "score_diff": "score"}
RENDER_MODES = ("ansi", "human", "rgb_array")
ILLEGAL_ACTION_MODES = ("raise", "terminate")

_REWARD_MODE = Option(
    "reward_mode", "choice", "rank", choices=tuple(REWARD_MODES), check=REWARD_MODES.__getitem__,
    doc="rewards at the end: 'rank' (+1 first ... -1 last, ties share) or 'score' (final score "
        "minus the others' mean); 'win_loss'/'score_diff' are aliases")
_ACTION_VALUES = Option(
    "action_values", "bool", False,
    doc="the observation gains 'action_values': each legal action's one-ply value below the best")

# Options every AEC environment takes besides its game's own (see envs.shell).
SHELL_OPTIONS = (
    Option("render_mode", "choice", None, choices=RENDER_MODES, none_ok=True,
           doc="what render() returns: text ('ansi'), printed text ('human') or a picture ('rgb_array')"),
    _REWARD_MODE,
    Option("illegal_action", "choice", "raise", choices=ILLEGAL_ACTION_MODES,
           doc="an illegal action raises ValueError ('raise') or ends the game with -1 for the "
               "offender ('terminate')"),
    Option("numeric_infos", "bool", False,
           doc="infos hold fixed-shape numbers only (scores, ranks, won)"),
    _ACTION_VALUES,
)

# Options the batch (envs.vector) takes besides its game's own: the shell's that apply to it.
BATCH_OPTIONS = (
    _REWARD_MODE,
    _ACTION_VALUES,
    Option("copy", "bool", True,
           doc="observations are fresh arrays (True) or the batch's own buffers, overwritten by "
               "the next step (False)"),
)


def split_options(table, given, where, refused=()):
    """``(own, rest)``: ``own`` every option of ``table`` (validated, defaults filled in),
    ``rest`` the other entries of ``given`` (the game's options, checked by its own table).
    A name of ``refused`` (rows of another table that do not apply ``where``) raises
    ``ValueError`` naming it."""
    own_names = {o.name for o in table}
    for option in refused:
        if option.name in given and option.name not in own_names:
            raise ValueError(f"option {option.name!r} does not apply to {where}")
    own = validate(table, {k: v for k, v in given.items() if k in own_names}, where)
    rest = {k: v for k, v in given.items() if k not in own_names}
    return own, rest
