"""Kingdomino Duel (``kingdomino_duel_v0``)
========================================

A two-player roll-and-write: each round the four dice are rolled and drafted (the start
player takes one, the other player two, the start player gets the last one); each player
then draws their two faces as a domino on their own 5 x 7 kingdom map (castle in the
middle), ticks the spellbook for every cross-less coat of arms they took, and the start
player changes.  Spells (ignore_connection, split_domino, double_first_pick, turn_die, and
the "lightning" domain_bonus and add_cross) belong to whoever first fills their row.  The
game ends after a round in which a map is full or nobody drew.  A domain (orthogonally
connected cells of one family) scores cells x crosses.

Rules: ``docs/rules/kingdomino_duel.md`` (the Korean rulebook with the project's rulings;
L* and R* below cite its legal-move rules and rulings, T* the test vectors it points to).

=================  ==============================================================
Import             ``envs.make("kingdomino_duel_v0")`` / ``envs.kingdomino_duel_v0.env()``
Agents             ``player_0``, ``player_1`` (the start-player role alternates)
Actions            ``Discrete(204)``
Observation        ``Box(872,)`` float32 + ``action_mask`` int8 (204)
=================  ==============================================================

Options
-------
Declared as a table in ``Spec.options`` (name, type, allowed values, default; checked by
:func:`envs.options.validate`; every refusal is a ``ValueError`` naming the option):

``num_players``
    Only ``2`` is accepted (default 2).
``first_start_player``
    ``None`` (default: drawn from the game's seeded generator), ``0`` or ``1``.

The shell adds ``render_mode`` (``"ansi"``, ``"human"``, ``"rgb_array"``), ``reward_mode``
and ``illegal_action``; see :mod:`envs.shell`.

Decisions (phases)
------------------
``DOUBLE_PICK_WINDOW``, ``DRAFT_PICK``, ``TURN_DIE_WINDOW``, ``IGNORE_CONN_WINDOW``,
``SPLIT_WINDOW``, ``PASS_ONLY``, ``CASTLE_WINDOW``, ``NAME_WILD``, ``PLACE_DOMINO``,
``SPLIT_FIRST``, ``SPLIT_SECOND``, ``DOMAIN_BONUS_NAME``, ``ADD_CROSS_TARGET`` and
``GAME_OVER`` (``K.PH_*``, named in ``K.PHASE_NAMES``; ``env.phase`` gives the name in
lower case, e.g. ``"draft_pick"``, ``"game_over"``).  A window is opened only when it has
an option besides ``SKIP``.  Step 3 (drawing) is played by the start player first, then
by the other (R13).  When a player cannot draw, they face ``PASS_ONLY``: an explicit
decision whose only legal action is ``PASS`` (so a pass always shows up in the action
history).  Rolling, handing over the last die (or two), spellbook marks, the end check
and the start-player swap are automatic.

Action encoding (``docs/rules/kingdomino_duel.md``, section 8.2)
-----------------------------------------------------------------
Declared as consecutive blocks (``kernels.kingdomino_duel.ACTIONS``: ``pick_die``,
``skip``, ``double_first_pick``, ``turn_die``, ``ignore_connection``, ``split_domino``,
``castle_bonus``, ``family``, ``place``, ``cell``, ``pass``):

=========  ============================  ===============================================
ids        action                        when
=========  ============================  ===============================================
0-3        ``PICK_DIE(d)``               draft; dice not yet taken
4          ``SKIP``                      any window
5          ``USE_DOUBLE_FIRST_PICK``     start player owns it (acquired in an earlier round)
6-17       ``TURN_DIE(slot, face)``      ``6 + 6*slot + face``; a coat-of-arms face (never
                                         ``?``; a die showing ``?`` still turns to its
                                         coats of arms) whose value differs from the
                                         shown one, lowest index among equal values
18         ``USE_IGNORE_CONNECTION``     only if a placement exists with it
19         ``USE_SPLIT``                 only if a placement exists with it
20-21      ``CASTLE_BONUS(slot)``        printed crosses of that face < 2, player will draw
22-27      ``FAMILY(f)``                 naming a ``?`` face (lowest unnamed slot) / domain_bonus
28-167     ``PLACE(cell, dir)``          ``28 + 4*cell + dir``: slot 0 at ``cell``, slot 1 at its
                                         neighbour in dir (0 N, 1 E, 2 S, 3 W)
168-202    ``CELL(c)``                   ``168 + c``: split first / second cell, add_cross target
203        ``PASS``                      ``PASS_ONLY``
=========  ============================  ===============================================

Cells are ``7*row + col``; slot 0 of a player is the die with the lower id they hold.
``env.unwrapped.action_label(a)`` spells an action out in the current state.

Observation (from the observing seat's point of view, "me" first)
------------------------------------------------------------------
Declared part by part, with bounds, as ``kernels.kingdomino_duel.OBS``;
``env.unwrapped.split_observation(obs)`` returns these parts by name:

* ``maps`` (2 x 9 x 5 x 7): for me then the opponent, 6 family one-hots, empty,
  crosses >= 1, crosses == 2 (planes ``PLANE_*``); the castle cell is in no family plane
  and not in the empty plane;
* ``castle`` (5 x 7): the castle cell; ``split_first_cell`` (5 x 7): the split first cell
  chosen this step;
* ``dice`` (4 x 21, one ``DIE_OBS`` record per die): face index one-hot (6),
  family-or-``?`` one-hot (7), printed crosses one-hot (3), holder one-hot (none / me /
  opponent, 3), turned flag, castle-bonus target flag;
* ``wild_names`` (2 x 7): the families I named for my two slots' ``?`` faces this round
  (last = none);
* ``spellbook`` (6 x 6, one ``ROW_OBS`` record per family): my marks / row length,
  opponent's marks / row length, owner one-hot (none / me / opponent), used flag;
* ``castle_used`` (me, opponent), ``bonus_family`` (2 x 7, last = none), ``declared``
  (the spells I declared this round: ignore, split), ``is_start_player``, ``round``
  (round / 33), ``phase`` (one-hot, 14), ``filled`` (cells / 34: me, opponent),
  ``scores`` (score / 100: me, opponent).

Every value is in [0, 1] except the two scores (in [0, ~24]; the Box bound is the
declaration's loose ``SCORE_OBS_MAX``).  The size does not depend on the options.  As
``docs/rules/kingdomino_duel.md`` (section 8.3) describes, the ``?`` names and the declared
spells are given for the observer's own seat only: they matter only while that seat is
drawing (names become map cells at placement; the opponent's declared spells show as used
spells it owns).  The seat to move sees every choice it made earlier in the same turn
(turned die, declared spells, castle-bonus target, ``?`` names, split first cell): any
two of its actions that lead to different games give it different observations or masks
(tested over many random games).

Rewards
-------
At the end only.  ``reward_mode="rank"`` (alias ``"win_loss"``): +1 / -1, 0 each for a
draw, after the tie-break (larger largest domain).  ``reward_mode="score"`` (alias
``"score_diff"``): own score minus the opponent's.  ``infos`` at the end hold ``scores``,
``winners`` and ``ranks``.

Hidden information
------------------
Everything is public except the future dice rolls (R32); the generator state is never
observed.  ``reseed(seed)`` re-keys the generator (future rolls only; current faces
stay); ``determinize`` is the same re-keying, since nothing else is hidden.  Both are
numba functions of the kernel (``kernels.kingdomino_duel.reseed`` / ``determinize``).
Seeds are any integer, taken modulo 2**63; anything else raises ``ValueError``, as does
an observer other than seat 0 or 1.  Before ``reset()`` nothing is computed from the
all-zero state: every method raises ``AssertionError`` (the adapter's own methods check
this too).

Scoring helpers
---------------
``score_kingdom(families, crosses, bonus_family=None)`` and
``largest_domain(families)``: pure functions, see their docstrings.  They take 5x7
integer array-likes and raise ``ValueError`` naming the argument for anything else
(floats, bools, strings, sets, ragged or wrongly shaped input, out-of-range values, a bad
``bonus_family``).

Baselines
---------
Greedy (one-ply), MCTS's cut-off playouts and reward shaping share one evaluation,
:mod:`kernels.outcome` (also ``Spec.evaluate``): a seat's score plus
``kernels.kingdomino_duel.potential``, minus the opponent's.  The potential counts
domains that can still grow (a crossless one waits for its first cross, a crossed one
gains its crosses per added cell), a cost for holes no domino can fill, the best
immediate gain of the dice a player holds but has not drawn (this is what orders draft
picks, ``?`` names, turn_die and the castle bonus), spellbook progress and unused spells,
and the unused castle bonus.  Against ``RandomAgent`` greedy finishes ahead in 99.5% and
100% of 200 games (tournament seeds 7 and 8; 75% without the potential), at about
0.0002 s per move.  MCTS's settings for this game are in ``agents/settings.py`` (not on
the spec): the leaf is scored by that evaluation at once (no playout moves), a lead of
10 points counting as tanh(1).

Data and provenance
-------------------
Every table (map, castle, dice faces, spellbook rows, family -> spell, bonus points) is in
``kernels/data/kingdomino_duel.yaml`` with its provenance: rules flow from the rulebook,
dice faces / row lengths / family-spell map from one public implementation (``public``),
the castle bonus leaving marking unchanged from English reviews (``public``: the Korean
text does not say), family icons ``reconstructed``.  Correct them there from a physical
copy: the file is checked at import (types, ranges, the dice totals of ``dice_summary``,
one row and one spell per family) and an error names the offending field.

Version history
---------------
* v0: initial.
* v0, rev. 2: ``TURN_DIE`` never targets a ``?`` face (revised ruling R20); castle-bonus
  marking relabelled ``provenance: public``; data file validated at import; public
  helpers and adapter methods validate their arguments (``ValueError``) and refuse an
  uninitialised state (``AssertionError``); faster cold start (fewer numba
  specialisations).
* v0, rev. 3: declared layouts (state, observation, actions), options table, phase names
  in snake_case, re-draws in the kernel; no rule change.  Same observation values: the
  observation is split into named parts (``maps`` ... ``scores``) instead of ``planes`` +
  ``vector``; ``phase`` names are lower case (``"draft_pick"``, ``"game_over"``).
* v0, rev. 4: the state keeps each seat's live score (``score``), updated whenever a map
  or a bonus family changes; ``observe`` and ``scores`` read it instead of scoring the maps
  (the observation's time fell by more than half).  Same observations, no rule change.  A
  state whose maps are edited by hand needs ``kernels.kingdomino_duel.refresh_scores``.
"""
import numpy as np

from envs.spec import GameConfig, GameSpec, Option
from kernels import kingdomino_duel as K

DIR_NAMES = ("N", "E", "S", "W")
PHASE_NAMES = K.PHASE_NAMES


def _cell_name(c):
    return f"({c // K.COLS},{c % K.COLS})"


def _face_name(die, face):
    fam, x = int(K.DICE[die, face, 0]), int(K.DICE[die, face, 1])
    name = "?" if fam == K.WILD else K.FAMILY_KEYS[fam]
    return f"[{name},{x}]"


def _int_grid(value, name):
    """``value`` as a 5x7 ``int64`` array; ``ValueError`` naming ``name`` otherwise."""
    if isinstance(value, (str, bytes, set, frozenset, dict)):
        raise ValueError(f"{name} must be a {K.ROWS}x{K.COLS} array-like of integers, "
                         f"got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a {K.ROWS}x{K.COLS} array-like of integers, "
                         f"got a ragged or unreadable {type(value).__name__}") from None
    if arr.shape != (K.ROWS, K.COLS):
        raise ValueError(f"{name} must be {K.ROWS}x{K.COLS}, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr


def _as_maps(families, crosses):
    """Checked NUM_CELLS-long kernel arrays (castle cell neutralised) from the 5x7 arguments."""
    fam_in = _int_grid(families, "families")
    cr_in = _int_grid(crosses, "crosses")
    off_castle = np.ones((K.ROWS, K.COLS), dtype=bool)
    off_castle[K.CASTLE_CELL // K.COLS, K.CASTLE_CELL % K.COLS] = False
    f = fam_in[off_castle]
    if f.min() < -1 or f.max() >= K.NUM_FAMILIES:
        bad = f[(f < -1) | (f >= K.NUM_FAMILIES)][0]
        raise ValueError(f"families must hold -1 (empty) or 0..{K.NUM_FAMILIES - 1} outside the castle "
                         f"cell, got {int(bad)}")
    x = cr_in[off_castle]
    if x.min() < 0 or x.max() > K.MAX_CROSSES:
        bad = x[(x < 0) | (x > K.MAX_CROSSES)][0]
        raise ValueError(f"crosses must be in 0..{K.MAX_CROSSES} outside the castle cell, got {int(bad)}")
    fam = fam_in.astype(np.int64).reshape(-1)
    cr = cr_in.astype(np.int64).reshape(-1)
    fam[K.CASTLE_CELL] = K.CASTLE_CODE
    cr[fam < 0] = 0                       # the castle and empty cells carry no crosses
    return fam, cr


def _family_arg(bonus_family):
    """Family id of ``bonus_family`` (None -> -1, an id 0..5 or a family key)."""
    if bonus_family is None:
        return -1
    if isinstance(bonus_family, str):
        if bonus_family not in K.FAMILY_KEYS:
            raise ValueError(f"bonus_family must be None, 0..{K.NUM_FAMILIES - 1} or one of "
                             f"{list(K.FAMILY_KEYS)}, got {bonus_family!r}")
        return K.FAMILY_KEYS.index(bonus_family)
    if isinstance(bonus_family, (bool, np.bool_)) \
            or not isinstance(bonus_family, (int, np.integer)):
        raise ValueError(f"bonus_family must be None, an integer 0..{K.NUM_FAMILIES - 1} or a family key, "
                         f"got {bonus_family!r} of type {type(bonus_family).__name__}")
    if not 0 <= int(bonus_family) < K.NUM_FAMILIES:
        raise ValueError(f"bonus_family must be None or 0..{K.NUM_FAMILIES - 1}, got {bonus_family!r}")
    return int(bonus_family)


def _score(families, crosses, bonus_family):
    fam, cr = _as_maps(families, crosses)
    b = _family_arg(bonus_family)
    seen = np.zeros(K.NUM_CELLS, dtype=np.int64)
    stack = np.zeros(K.NUM_CELLS, dtype=np.int64)
    total, largest = K.score_arrays(fam, cr, np.int64(b), seen, stack)
    return int(total), int(largest)


def score_kingdom(families, crosses, bonus_family=None):
    """Final score of one kingdom map.

    ``families``: 5x7 integers, -1 empty, 0..5 = dot, stripe, double_dot, double_stripe,
    black, quarters (the castle cell (2,3) is ignored); ``crosses``: 5x7 integers 0..2
    (ignored on the castle and on empty cells); ``bonus_family``: the family named with
    domain_bonus (id 0..5 or key), or None.  Anything else (floats, bools, other shapes,
    values out of range, sets, strings) raises ``ValueError`` naming the argument.
    Uses the game kernel's scoring code.
    """
    return _score(families, crosses, bonus_family)[0]


def largest_domain(families):
    """Cell count of the largest domain of any family (the tie-break measure).
    ``families`` as for :func:`score_kingdom`."""
    return _score(families, np.zeros((K.ROWS, K.COLS), dtype=np.int64), None)[1]


def _started(state):
    """Refuse a state ``init`` never set up (all zeros: the env before ``reset()``)."""
    if int(K.STATE.view(state, "round")) < 1:
        raise AssertionError("reset() needs to be called first: this Kingdomino Duel state "
                             "was never initialised")


class Spec(GameSpec):
    game_id = "kingdomino_duel_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    player_counts = (2,)
    max_steps = K.MAX_ROUNDS * 24
    # a player's '?' names and its declarations of Ignore Connection / Split are its own
    secret_phases = {"name_wild": "name '?' faces", "ignore_conn_window": "spell window",
                     "split_window": "spell window"}

    # ---------------------------------------------------------------- options
    options = (
        Option("num_players", "choice", 2, "Kingdomino Duel is a two-player game", choices=(2,)),
        Option("first_start_player", "choice", None,
               "start player of round 1; None: drawn from the game's seeded generator",
               choices=(0, 1), none_ok=True),
    )

    def build_config(self, opts):
        fsp = opts["first_start_player"]
        config = np.zeros(K.CONFIG_SIZE, dtype=np.int64)
        config[K.CFG_NUM_PLAYERS] = opts["num_players"]
        config[K.CFG_FIRST_START_PLAYER] = -1 if fsp is None else fsp
        return GameConfig(num_players=2, config=config, state_size=K.STATE_SIZE,
                          obs_size=K.OBS_SIZE, scratch=K.STATE.scratch_size,
                          options={"num_players": 2, "first_start_player": fsp})

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return K.OBS.parts()

    def observation_bounds(self, cfg):
        return K.OBS.bounds()

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        """The decision the player to move faces, as named in the rules reference
        (``"draft_pick"``, ``"place_domino"``...; ``"game_over"`` at the end)."""
        st = K.STATE.fields(state)
        _started(state)
        return PHASE_NAMES[int(st.phase)].lower()

    def action_label(self, state, cfg, action):
        st = K.STATE.fields(state)
        _started(state)
        block, i = K.ACTIONS.decode(action)
        p = int(st.mover)
        ph = int(st.phase)
        if block == "pick_die":
            return f"PICK_DIE({i}) {_face_name(i, int(st.die_face[i]))}"
        if block == "skip":
            return "SKIP"
        if block == "double_first_pick":
            return "USE_DOUBLE_FIRST_PICK"
        if block == "turn_die":
            s, f = divmod(i, K.NUM_FACES)
            d = int(st.slot_die[p, s]) if p >= 0 else -1
            tail = f" die {d} -> {_face_name(d, f)}" if d >= 0 else ""
            if d >= 0 and K.DICE[d, f, 0] == K.WILD:
                tail += " (never legal: turn_die targets a coat of arms, not '?')"
            return f"TURN_DIE(slot {s}, face {f}){tail}"
        if block == "ignore_connection":
            return "USE_IGNORE_CONNECTION"
        if block == "split_domino":
            return "USE_SPLIT"
        if block == "castle_bonus":
            return f"CASTLE_BONUS(slot {i})"
        if block == "family":
            what = "DOMAIN_BONUS" if ph == K.PH_DOMAIN_BONUS_NAME else "NAME_WILD"
            return f"FAMILY({K.FAMILY_KEYS[i]}) [{what}]"
        if block == "place":
            c, d = divmod(i, K.NUM_DIRS)
            return f"PLACE(cell {_cell_name(c)}, {DIR_NAMES[d]})"
        if block == "cell":
            what = {K.PH_SPLIT_FIRST: "split first", K.PH_SPLIT_SECOND: "split second",
                    K.PH_ADD_CROSS_TARGET: "add cross"}.get(ph, "cell")
            return f"CELL{_cell_name(i)} [{what}]"
        return "PASS"

    board_squares = K.NUM_CELLS

    def action_square(self, state, cfg, action):
        block, i = K.ACTIONS.decode(action)
        return i if block == "cell" else None

    # -------------------------------------------------------------- rendering
    def _map_lines(self, state, p):
        """A kingdom map under a header of column numbers, each row led by its row number and
        the number of its first cell: cell (r,c) is number # + c = 7r + c (terminal play lists
        a CELL move under that number)."""
        st = K.STATE.fields(state)
        lines = [" r  #  " + "".join(f"{c:<4}" for c in range(K.COLS)).rstrip()]
        for r in range(K.ROWS):
            row = [f"{r:>2} {r * K.COLS:>2}: "]
            for c in range(K.COLS):
                i = r * K.COLS + c
                f = int(st.map_family[p, i])
                if f == K.CASTLE_CODE:
                    row.append("CC ")
                elif f < 0:
                    row.append(".  ")
                else:
                    x = int(st.map_crosses[p, i])
                    row.append(f"{f}{'+' * x}{' ' * (2 - x)}")
            lines.append(row[0] + " ".join(row[1:]))
        return lines

    def private_text(self, state, cfg, seat):
        """The families ``seat`` has named its '?' faces and the spells it has declared for the
        placement under way: its own view only, like its observation."""
        st = K.STATE.fields(state)
        _started(state)
        names = [int(st.wild_name[seat, s]) for s in range(2)]
        lines = []
        if any(n >= 0 for n in names):
            lines.append("'?' faces named " + "/".join(K.FAMILY_KEYS[n] if n >= 0 else "-" for n in names))
        declared = [K.SPELL_KEYS[i] for i in range(2) if st.declared[seat, i]]
        if declared:
            lines.append("declared: " + ", ".join(declared))
        return lines

    def render_ansi(self, state, cfg):
        st = K.STATE.fields(state)
        _started(state)
        out = []
        ph = int(st.phase)
        sc = np.zeros(2, dtype=np.int64)
        K.scores(state, sc)
        out.append(f"Kingdomino Duel  round {int(st.round)}  start player: player_"
                   f"{int(st.start_player)}  phase: {PHASE_NAMES[ph]}"
                   + (f"  to move: player_{int(st.mover)}" if st.mover >= 0 else ""))
        out.append("families: " + ", ".join(f"{i}={k}" for i, k in enumerate(K.FAMILY_KEYS))
                   + "; '+' = cross, CC = castle")
        maps = [self._map_lines(state, p) for p in range(2)]
        out.append(f"{'player_0 (score %d)' % sc[0]:<40}{'player_1 (score %d)' % sc[1]}")
        for a, b in zip(*maps):
            out.append(f"{a:<40}{b}".rstrip())
        dice = []
        for d in range(K.NUM_DICE):
            h = int(st.die_holder[d])
            extra = " turned" if st.die_turned[d] else ""
            if h >= 0 and st.castle_target[h] >= 0 and \
                    st.slot_die[h, st.castle_target[h]] == d:
                extra += " +castle"
            dice.append(f"die{d}={_face_name(d, int(st.die_face[d]))}"
                        f"({'free' if h < 0 else 'p%d' % h}{extra})")
        out.append("dice: " + "  ".join(dice))
        for p in range(2):
            b = int(st.bonus_family[p])
            out.append(f"player_{p}: castle bonus {'used' if st.castle_used[p] else 'unused'}, "
                       f"domain_bonus family {K.FAMILY_KEYS[b] if b >= 0 else '-'}")
        out.append("spellbook (p0 marks / p1 marks / row, spell, owner, used):")
        for f in range(K.NUM_FAMILIES):
            sp = int(K.FAMILY_SPELL[f])
            o = int(st.spell_owner[sp])
            out.append(f"  {K.FAMILY_KEYS[f]:<14}{int(st.marks[0, f])}/"
                       f"{int(st.marks[1, f])}/{int(K.ROW_LEN[f])}  "
                       f"{K.SPELL_KEYS[sp]:<18}{'-' if o < 0 else 'player_%d' % o:<10}"
                       f"{'used' if st.spell_used[sp] else ''}")
        if st.split_first_cell >= 0:
            out.append(f"split first cell: {_cell_name(int(st.split_first_cell))}")
        if ph == K.PH_GAME_OVER:
            rk = np.zeros(2, dtype=np.int64)
            K.ranks(state, rk)
            why = {K.END_MAP_FULL: "a map is full",
                   K.END_NOBODY_DREW: "nobody drew"}.get(int(st.end_reason), "")
            res = "draw" if rk[0] == rk[1] else f"player_{int(np.argmin(rk))} wins"
            out.append(f"GAME OVER ({why}): {sc[0]} - {sc[1]}, {res}")
        return "\n".join(out)

    def picture(self, state, cfg, observer=None, clickable=False):
        _started(state)
        from envs.pictures.kingdomino_duel import draw
        return draw(state, cfg, observer, clickable)

    # ------------------------------------------------------- hidden information
    # The shell hands these already-checked arguments; they check again (same rules as
    # the shell: any integer seed, taken modulo 2**63) so no direct call feeds the kernel
    # an unchecked value or a second numba specialisation.
    def reseed(self, state, cfg, seed):
        _started(state)
        super().reseed(state, cfg, seed)

    def determinize(self, state, cfg, observer, seed):
        """Nothing but the future rolls is hidden (R32): the same re-keying as reseed."""
        _started(state)
        super().determinize(state, cfg, observer, seed)
