"""JSON from outside the program (a record file, a web request), parsed within limits.

Python's ``json`` module parses nesting by recursion, so a text of a few thousand ``[``
raises ``RecursionError`` (a crash, not a refusal), and whatever walks the result recurses
as deep again.  :func:`loads` measures the nesting first and refuses anything deeper than
the caller allows with a ``ValueError``, as it refuses text that is not JSON (``NaN`` and
``Infinity`` included: they are not JSON).
"""
from __future__ import annotations

import json
import re

import numpy as np

# A JSON string, escapes included (written unrolled, so that long strings match in linear time).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_OPEN, _CLOSE = np.frombuffer(b"[{", np.uint8), np.frombuffer(b"]}", np.uint8)


def nesting_depth(text: str) -> int:
    """How deeply the arrays and objects of the JSON ``text`` nest (0 for a bare value);
    brackets inside strings do not count."""
    code = np.frombuffer(_STRING.sub("", text).encode("utf-8", "replace"), np.uint8)
    if code.size == 0:
        return 0
    steps = np.isin(code, _OPEN).astype(np.int64) - np.isin(code, _CLOSE)
    return int(max(np.cumsum(steps).max(), 0))


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


def loads(text, where, max_depth):
    """The JSON value of ``text`` (str or UTF-8 bytes); ``ValueError`` naming ``where`` if it
    is not JSON or nests deeper than ``max_depth``."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{where} is not UTF-8 text") from None
    depth = nesting_depth(text)
    if depth > max_depth:
        raise ValueError(f"{where} nests arrays and objects {depth} deep; at most {max_depth} "
                         "are accepted")
    try:
        return json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where} is not valid JSON (truncated or damaged?): {exc}") from None


def check_plain(value, where, max_depth):
    """``ValueError`` naming ``where`` unless ``value`` is plain JSON data (None, bool, int,
    finite float, str, lists and string-keyed dicts of them) nesting at most ``max_depth``
    deep.  Walks without recursion, so a deep or circular structure is refused, not a crash."""
    stack, seen = [(value, 0)], set()
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, (bool, int, str)):
            continue
        if isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                raise ValueError(f"{where} holds {item!r}, which is not JSON")
            continue
        if not isinstance(item, (list, dict)):
            raise ValueError(f"{where} holds a {type(item).__name__}; only JSON values are accepted")
        if depth >= max_depth:
            raise ValueError(f"{where} nests lists and dicts more than {max_depth} deep")
        if id(item) in seen:
            raise ValueError(f"{where} holds the same list or dict twice (or inside itself)")
        seen.add(id(item))
        if isinstance(item, dict):
            if not all(isinstance(k, str) for k in item):
                raise ValueError(f"{where} has a key that is not a string")
            stack.extend((v, depth + 1) for v in item.values())
        else:
            stack.extend((v, depth + 1) for v in item)
