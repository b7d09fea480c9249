"""Golden playthroughs (as OpenSpiel's): one seeded game written as text, to be committed and
compared, so that any change of an encoding or of the rules shows as a reviewed diff.

:func:`playthrough` plays ``game`` with ``options`` after ``reset(seed=seed)``, choosing
uniformly among the legal ids with ``numpy.random.default_rng(seed)``, and writes per move:
the seat to move and its phase, the legal ids (the mask), the mover's observation, the action
with its label, the rewards and the scores; at the end the final scores, ranks and winners.
Observations are written compactly: ``index:value`` for every entry that differs from the
seat's previous observation written (from zeros at its first), consecutive indices with one
value as ``first-last:value``; values are float32, written exactly (shortest repr).

:func:`check_playthrough` regenerates a file's game (its first line says which) and raises
``AssertionError`` with a readable diff when the text differs.
"""
import difflib
import json

import numpy as np

from envs import registry

HEADER = "# playthrough "


def _value(v):
    return np.format_float_positional(np.float32(v), unique=True, trim="-")


def _runs(indices, values):
    """``"i:v"`` items, consecutive indices with the same value merged as ``"a-b:v"``."""
    out = []
    start = prev = None
    for i, v in zip(indices.tolist(), values):
        if start is not None and i == prev + 1 and v == value:
            prev = i
            continue
        if start is not None:
            out.append(f"{start}:{value}" if start == prev else f"{start}-{prev}:{value}")
        start = prev = i
        value = v
    if start is not None:
        out.append(f"{start}:{value}" if start == prev else f"{start}-{prev}:{value}")
    return " ".join(out)


def ids(indices):
    """Sorted ints as ranges: ``[0, 1, 2, 5]`` -> ``"0-2 5"``."""
    return _runs(np.asarray(indices, dtype=np.int64), ["x"] * len(indices)).replace(":x", "")


def observation_delta(before, after):
    changed = np.flatnonzero(before != after)
    return _runs(changed, [_value(v) for v in after[changed]])


def _numbers(values):
    return " ".join(_value(v) if isinstance(v, float) else str(v) for v in values)


def playthrough(game, options=None, seed=0, max_steps=None):
    """The text of one seeded random game (see the module docstring); ``max_steps`` stops a
    long game after that many moves (the file says so)."""
    options = dict(options or {})
    env = registry.make(game, **options)
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    header = {"game": game, "options": options, "seed": seed, "max_steps": max_steps}
    lines = [HEADER + json.dumps(header, sort_keys=True),
             f"# observation size {raw.cfg.obs_size}, {raw.spec.num_actions} action ids, "
             f"rules revision {raw.spec.rules_revision}",
             "# per move: seat and phase, legal ids, the mover's observation (changes since its last "
             "one), action and label, rewards, scores"]
    seen = {agent: np.zeros(raw.cfg.obs_size, dtype=np.float32) for agent in env.possible_agents}
    returns = dict.fromkeys(env.possible_agents, 0.0)
    scores = raw.scores()
    lines.append("scores " + _numbers(scores))
    move = 0
    while not all(env.terminations.values()):
        if max_steps is not None and move >= max_steps:
            lines.append(f"stopped after {move} moves")
            break
        agent = env.agent_selection
        ob = env.observe(agent)
        legal = np.flatnonzero(ob["action_mask"])
        lines.append(f"move {move} {agent} {raw.phase}")
        lines.append("  legal " + ids(legal))
        lines.append("  obs " + observation_delta(seen[agent], ob["observation"]))
        seen[agent] = ob["observation"].copy()
        action = int(legal[rng.integers(legal.size)])
        lines.append(f"  action {action} {raw.action_label(action)}")
        env.step(action)
        rewards = {a: r for a, r in env.rewards.items() if r}
        for a, r in rewards.items():
            returns[a] += r
        if rewards:
            lines.append("  rewards " + " ".join(f"{a}:{_value(r)}" for a, r in rewards.items()))
        if raw.scores() != scores:
            scores = raw.scores()
            lines.append("  scores " + _numbers(scores))
        move += 1
    else:
        info = env.infos[env.possible_agents[0]]
        lines.append(f"game over after {move} moves")
        lines.append("final scores " + _numbers(info["scores"]))
        lines.append("ranks " + _numbers(info["ranks"]))
        lines.append("winners " + " ".join(info["winners"]))
        lines.append("returns " + " ".join(f"{a}:{_value(r)}" for a, r in returns.items()))
    return "\n".join(lines) + "\n"


def read_header(text):
    """The ``{game, options, seed, max_steps}`` a playthrough file was made with."""
    first = text.split("\n", 1)[0]
    if not first.startswith(HEADER):
        raise ValueError(f"not a playthrough: its first line is {first[:80]!r}")
    return json.loads(first[len(HEADER):])


def diff(expected, actual, name="playthrough", context=3, limit=80):
    """A unified diff of two playthrough texts, cut after ``limit`` lines."""
    lines = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                      f"{name} (committed)", f"{name} (now)", n=context, lineterm=""))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... {len(lines) - limit} more diff lines"]
    return "\n".join(lines)


def check_playthrough(path):
    """Play the game the file at ``path`` records again and compare: ``AssertionError`` with
    the diff when anything differs.  Returns the number of lines compared."""
    from pathlib import Path
    path = Path(path)
    expected = path.read_text()
    header = read_header(expected)
    actual = playthrough(header["game"], header["options"], header["seed"], header["max_steps"])
    if actual != expected:
        raise AssertionError(
            f"{path.name}: the game played now differs from the committed playthrough (an "
            f"encoding or a rule changed; if on purpose, regenerate and review the diff):\n"
            + diff(expected, actual, path.name))
    return expected.count("\n")
