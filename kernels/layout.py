"""Declared layouts: one way for every game to lay out its flat state, its observation
and its action ids.

A kernel keeps its whole game in one flat ``int64`` array and writes each observation
into one flat ``float32`` vector; numba wants plain integer offsets into them.  Instead
of typing offsets by hand, a game *declares* named fields with shapes, in order, and
reads the offsets back as module constants (numba freezes module-level integers into
the compiled code, so they cost nothing at run time)::

    STATE = Layout("tiny towns state")
    NUM_PLAYERS = STATE.add("num_players")            # one slot
    BOARD = STATE.add("board", (MAX_PLAYERS, 16))      # a block of 6 x 16 slots
    SCRATCH = STATE.add("scratch", (64,), scratch=True)
    STATE_SIZE = STATE.size

Scratch fields (working space that carries no game information) must come after every
game field, so the contract of :mod:`envs.spec` -- "two states are the same game when
all slots before the scratch agree" -- holds by construction.

An observation is declared the same way, with each piece's bounds next to it; the
adapter's ``observation_layout`` and ``observation_bounds`` are read from it::

    OBS = Layout("tiny towns observation")
    OBS_SQUARES = OBS.add("squares", (16, 9))                  # one-hot, in [0, 1]
    OBS_SCORE = OBS.add("score", (), low=-40.0, high=120.0)

Action ids are declared as consecutive named blocks (:class:`ActionBlocks`);
:meth:`ActionBlocks.decode` turns an id back into ``(block name, index in block)``.

For tests, rendering and debugging, :meth:`Layout.view`, :meth:`Layout.views` and
:meth:`Layout.fields` give named, shaped views of a state or observation array.
"""
import math

import numpy as np


class Layout:
    """Named fields laid out one after another in a flat array."""

    def __init__(self, name):
        self.name = name
        self._fields = {}        # name -> (offset, shape, low, high, scratch)
        self._size = 0
        self._scratch_size = 0
        self._scratch_started = False

    # ------------------------------------------------------------------ declaring
    def add(self, name, shape=(), *, low=0.0, high=1.0, scratch=False):
        """Append a field of ``shape`` (``()`` for one slot) and return its offset.

        ``low``/``high`` (scalars or arrays of ``shape``) are the field's bounds when
        the layout describes an observation.  ``scratch=True`` marks working space;
        once a scratch field is declared, only scratch fields may follow."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{self.name}: field name must be an identifier, got {name!r}")
        if name in self._fields:
            raise ValueError(f"{self.name}: field {name!r} declared twice")
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"{self.name}: field {name!r} has a negative dimension {shape}")
        if self._scratch_started and not scratch:
            raise ValueError(f"{self.name}: game field {name!r} declared after scratch space; "
                             "scratch must sit at the end of the state")
        self._scratch_started |= bool(scratch)
        length = int(np.prod(shape)) if shape else 1
        low = np.broadcast_to(np.asarray(low, dtype=np.float64), shape).copy()
        high = np.broadcast_to(np.asarray(high, dtype=np.float64), shape).copy()
        if np.any(low > high):
            raise ValueError(f"{self.name}: field {name!r} has low > high")
        offset = self._size
        self._fields[name] = (offset, shape, low, high, bool(scratch))
        self._size += length
        self._scratch_size += length if scratch else 0
        self.__dict__.pop("_readers", None)      # fields() makes its reader classes again
        return offset

    # ------------------------------------------------------------------ reading
    @property
    def size(self):
        """Total number of slots."""
        return self._size

    @property
    def scratch_size(self):
        """Number of trailing scratch slots."""
        return self._scratch_size

    def names(self):
        return list(self._fields)

    def offset(self, name):
        return self._field(name)[0]

    def shape(self, name):
        return self._field(name)[1]

    def length(self, name):
        shape = self._field(name)[1]
        return int(np.prod(shape)) if shape else 1

    def slice(self, name):
        off = self.offset(name)
        return slice(off, off + self.length(name))

    def parts(self, include_scratch=False):
        """``[(name, shape), ...]`` in order (the form of ``GameSpec.observation_layout``);
        one-slot fields are reported with shape ``(1,)``."""
        return [(n, f[1] or (1,)) for n, f in self._fields.items() if include_scratch or not f[4]]

    def bounds(self, dtype=np.float32):
        """``(low, high)`` arrays over the whole layout, from each field's declaration."""
        low = np.empty(self._size, dtype=dtype)
        high = np.empty(self._size, dtype=dtype)
        for name, (off, shape, lo, hi, _) in self._fields.items():
            n = self.length(name)
            low[off:off + n] = lo.reshape(-1)
            high[off:off + n] = hi.reshape(-1)
        return low, high

    def view(self, array, name):
        """``array``'s field ``name`` as a view with the declared shape (scalars: 0-d).
        ``array`` holds the whole layout, or its game fields only (a state without its
        scratch tail, as ``CityEnv.game_state()`` gives it) for a game field."""
        array = np.asarray(array)
        self._check_length(array, self._field(name)[4])
        lead = array.shape[:-1]
        return array[..., self.slice(name)].reshape(lead + self.shape(name))

    def _check_length(self, array, scratch):
        """``array`` spans the layout, or its game fields only when no scratch is wanted."""
        game_part = self._size - self.scratch_size
        if array.shape[-1] != self._size and (array.shape[-1] != game_part or scratch):
            raise ValueError(f"{self.name}: expected arrays of {self._size} slots"
                             f"{f' (or {game_part} without scratch)' if game_part < self._size else ''}, "
                             f"got {array.shape}")

    def views(self, array, include_scratch=False):
        """``{name: view}`` of every field of ``array``."""
        return {n: self.view(array, n) for n, f in self._fields.items() if include_scratch or not f[4]}

    def fields(self, array, include_scratch=False):
        """Every field of ``array`` as an attribute (``STATE.fields(state).board[p, q]``): how
        presentation code reads a state by its declared names.  A field is a view with its
        declared shape, except a one-slot field of a single (1-d) array, which reads as its
        value (``STATE.fields(state).phase``, a numpy scalar).  Each is read on first use (a
        picture reads a few of a state's many fields)."""
        if type(array) is not np.ndarray:
            array = np.asarray(array)
        if array.shape[-1] != self._size:
            self._check_length(array, include_scratch)
        try:
            return self._readers[include_scratch](array)
        except (AttributeError, KeyError):     # the first call (or the first since an add)
            self.__dict__.setdefault("_readers", {})[include_scratch] = _reader_class(self, include_scratch)
            return self._readers[include_scratch](array)

    def describe(self):
        """One line per field: offset, shape, bounds -- for docs and debugging."""
        lines = [f"{self.name}: {self._size} slots"]
        for name, (off, shape, lo, hi, scratch) in self._fields.items():
            tag = " scratch" if scratch else ""
            lines.append(f"  {off:6d}  {name:<28} {str(shape or ()):<16} "
                         f"[{lo.min() if lo.size else 0:g}, {hi.max() if hi.size else 0:g}]{tag}")
        return "\n".join(lines)

    def _field(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise ValueError(f"{self.name} has no field {name!r} (fields: {', '.join(self._fields)})") from None

    def __contains__(self, name):
        return name in self._fields

    def __repr__(self):
        return f"Layout({self.name!r}, {len(self._fields)} fields, {self._size} slots)"


class ActionBlocks:
    """Action ids as consecutive named blocks: ``[(name, size), ...]``.

    ``offset(name)`` gives the first id of a block (use it as a module constant in
    kernels), ``num_actions`` the total, ``decode(action)`` the pair ``(name, index)``
    that action labels are built from, and ``block_of`` a per-id array of block numbers
    for jitted code."""

    def __init__(self, name, blocks):
        self.name = name
        self._names = []
        self._offsets = {}
        self._sizes = {}
        total = 0
        for block, size in blocks:
            if block in self._offsets:
                raise ValueError(f"{name}: action block {block!r} declared twice")
            if int(size) < 1:
                raise ValueError(f"{name}: action block {block!r} must hold at least one action")
            self._names.append(block)
            self._offsets[block] = total
            self._sizes[block] = int(size)
            total += int(size)
        self.num_actions = total
        self.block_of = np.zeros(total, dtype=np.int64)
        for i, block in enumerate(self._names):
            self.block_of[self._offsets[block]:self._offsets[block] + self._sizes[block]] = i
        self.block_offsets = np.array([self._offsets[b] for b in self._names], dtype=np.int64)

    def names(self):
        return list(self._names)

    def offset(self, block):
        self._check(block)
        return self._offsets[block]

    def size(self, block):
        self._check(block)
        return self._sizes[block]

    def action(self, block, index=0):
        """The id of ``block``'s ``index``-th action."""
        self._check(block)
        if not 0 <= index < self._sizes[block]:
            raise ValueError(f"{self.name}: index {index} outside block {block!r} of {self._sizes[block]}")
        return self._offsets[block] + index

    def decode(self, action):
        """``(block name, index within the block)`` of an action id; ``ValueError`` naming
        ``action`` when it is not an integer id of this game."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= int(action) < self.num_actions:
            raise ValueError(f"action must be an integer in [0, {self.num_actions}), got {action!r}")
        a = int(action)
        block = self._names[int(self.block_of[a])]
        return block, a - self._offsets[block]

    def _check(self, block):
        if block not in self._offsets:
            raise ValueError(f"{self.name} has no action block {block!r} (blocks: {', '.join(self._names)})")

    def __repr__(self):
        return f"ActionBlocks({self.name!r}, {', '.join(f'{b}:{self._sizes[b]}' for b in self._names)})"


def _reader_class(layout, include_scratch):
    """A class whose instances wrap one array and read each field of ``layout`` as a
    property (one per field, made once per layout): a one-slot field of a single (1-d) array
    as its value, any other field as a view with its declared shape."""
    def reader(offset, shape):
        length = math.prod(shape)
        if not shape:
            return property(lambda self: self._array[..., offset] if self._array.ndim > 1
                            else self._array[offset])
        if len(shape) == 1:
            return property(lambda self: self._array[..., offset:offset + length])
        return property(lambda self: self._array[..., offset:offset + length].reshape(
            self._array.shape[:-1] + shape))

    namespace = {"__slots__": (), "__doc__": f"The fields of one {layout.name} array by name."}
    for name, (offset, shape, _, _, scratch) in layout._fields.items():
        if include_scratch or not scratch:
            namespace[name] = reader(offset, shape)
    return type("Fields", (_Fields,), namespace)


class _Fields:
    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array
