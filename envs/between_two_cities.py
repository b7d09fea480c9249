"""Between Two Cities (``between_two_cities_v0``)
==============================================

Every player builds two 4x4 cities at once, one with each neighbour; a player's score
is its *lower* city.  Tiles are drafted: each turn everyone secretly chooses two tiles
from its hand, passes the rest, and places one chosen tile into each of its cities.
The Korean rulebook is the edition implemented.  Rules as implemented, with the
project's rulings: ``docs/rules/between_two_cities.md``; every table in
``kernels/data/between_two_cities.yaml``.

=================  ==========================================================================
Import             ``envs.make("between_two_cities_v0")`` / ``envs.between_two_cities_v0.env()``
Agents             ``player_0 .. player_{N-1}``, N = ``num_players`` 1-7 (default 3; 1: solo
                   against two automata played by the environment)
Actions            ``Discrete(131)``
Observation        ``Box(4362,)`` float32 + ``action_mask`` int8 (131)
=================  ==========================================================================

Options
-------
Declared as a table in ``Spec.options`` (an :class:`envs.options.Option` per row: name,
type, allowed values, default):

``num_players``
    1-7 (default 3).
``assign_at_selection``
    bool, default False (2-7 players; solo always assigns at selection, so ``False``
    there is refused).
``solo_mode``
    ``"simple"`` | ``"full"`` (default ``"full"``; solo only).
``difficulty``
    1-5 (default 2; solo only): adds -10, -5, 0, +5 or +10 points to the Deep Learning
    City's final score (level 3 is the automata unadjusted; the values are reconstructed,
    the rulebook's table being lost).

Wrong types (a float, a string for a number, a list or set for a value, a number for
``solo_mode``) raise ``ValueError`` naming the option; numpy integers and bools are
accepted.  ``Spec.build_config`` checks the rules between them (solo-only options).  The
shell adds ``render_mode``, ``reward_mode`` and ``illegal_action`` (:mod:`envs.shell`).

Decisions (phases)
------------------
Two decisions, ``PICK`` and ``PLACE`` (``K.PH_*``, named in ``K.PHASE_NAMES``):
``env.phase`` is ``"pick"``, ``"place"`` or, at the end, ``"game_over"``.

``player_0 .. player_{N-1}`` are the seats, seat ``s+1`` sitting on seat ``s``'s left.
City ``k`` lies between seats ``k`` and ``k+1``: seat ``s`` builds city ``s`` (its left
city) and city ``s-1`` (its right city).  A turn is split into small steps: seat 0
picks tile 1, picks tile 2, seat 1 ... seat N-1 (the picks stay hidden from the other
seats until every seat has committed), then seat 0 places a tile in its left city and
the other in its right city, seat 1 ..., which also realises "the earlier seat places
first within a city".  Passing (left in round 1, right in round 3), the round-2 duplex
discard and the unseen discard of the last single are automatic.

* ``num_players=2``: four cities; seat ``s`` alone builds cities ``2s`` (left) and
  ``2s+1`` (right); six half-rounds 1a 1b 2a 2b 3a 3b; score = sum of the two cities;
  ties are broken as in the 3-7 game (the Korean rulebook): the higher of the seat's own
  two cities first, then building counts by type.
* ``num_players=1`` (solo): one agent against automaton A (seat 1, shares the left
  city, acts first) and automaton B (seat 2, shares the right city); city 1 is the Deep
  Learning City.  Each pick assigns a tile (first pick: left city, second: right city);
  then the agent places its left city's two waiting tiles (either order), then its right
  city's two.  ``solo_mode="simple"``: seven iterations (3 singles, 1 duplex, 3 singles):
  3 tiles are assigned at random (the Deep Learning City's one joins it at once), 3 are
  drawn into the hand, the agent assigns two, the third joins the Deep Learning City.
  ``solo_mode="full"``: 3-player draft with open hands; the automata choose by the
  (reconstructed) automa card deck, placing their Deep Learning City tile at once and
  leaving their shared-city tile for the agent to place.  The Deep Learning City is
  scored without geometry: shops in lines of 4, optimal tavern sets, every office with
  the +1 tavern bonus (tavern or not), parks in pairs, houses never next to a factory.

Action encoding (``docs/rules/between_two_cities.md``, section 11)
------------------------------------------------------------------
Declared as two blocks in ``kernels.between_two_cities.ACTIONS``, ``pick`` (33) and
``place`` (98):

* ``0..8``: pick a single of kind ``0 shop, 1 factory, 2 drink, 3 food, 4 music,
  5 lodging, 6 office, 7 park, 8 house``; ``9..32``: pick duplex id ``a - 9``;
* ``33 + slot*49 + r*7 + c``: place chosen/waiting tile ``slot`` (0/1) with its anchor
  (left or top half) on cell ``(r, c)`` of the 7x7 canvas of the city being built.
  A city's first tile goes to ``(3, 3)``; later tiles must touch the city by an edge and
  keep its bounding box within 4x4.  By default the first placement of a seat's turn
  (its left city) may use either chosen tile, which fixes the assignment; with
  ``assign_at_selection=True`` the first pick goes left and the second right.
* Slot 1 is not masked when both waiting tiles are identical: the two actions have the
  same effect.
* Simple solo: the tile the random assignment gives the Deep Learning City joins it at
  once instead of at the placement step (it is public either way; no decision differs).

Observation
-----------
``{"observation": float32[obs_size], "action_mask": int8[131]}``; ``obs_size`` is 4362
whatever the options.  The parts, in order (declared with their bounds in
``kernels.between_two_cities.OBS``; ``Spec.observation_layout`` lists them and
``env.unwrapped.split_observation(obs)`` returns them by name), are: ``cities``
``[7, 10, 7, 7]`` (9 kind planes + occupancy per city canvas, cities relative to the
observer: its left city first then clockwise, its right city last; 2 players: own left,
own right, opponent's left, right; solo: left, right, Deep Learning City (empty planes,
see ``dlc_kind_counts``)), ``own_hand`` ``[33]`` counts, ``own_chosen`` ``[2, 33]``,
``revealed_choices`` ``[7, 2, 33]`` (seats relative to the observer; zero until every
seat has committed), ``committed`` ``[7]`` picks made this turn, ``passed_last`` ``[33]``
(the tiles this seat passed last), ``own_duplex_discards`` ``[33]``, ``round`` ``[6]`` /
``turn`` ``[3]`` / ``step_kind`` ``[4]`` (pick 1, pick 2, place first, place second) /
``city_being_built`` ``[7]`` one-hots, ``factory_counts`` ``[7]`` and ``city_scores``
``[7]`` (relative city order), ``num_seats`` ``[7]``, ``mode`` ``[4]`` (standard, 2
players, solo simple, solo full), ``assign_at_selection`` ``[1]``, and the solo parts
``automaton_hands`` ``[2, 33]`` (open in full mode), ``dlc_kind_counts`` ``[9]``,
``last_automa_cards`` ``[2, 20]``, ``difficulty`` ``[5]``, ``waiting`` ``[2, 2, 33]``.
The parts ``committed``, ``num_seats``, ``mode`` and ``assign_at_selection`` carry the
table's set-up; solo's Deep Learning City is the third relative city (its grid planes
stay empty; its contents are ``dlc_kind_counts``).  In simple solo the iterations 1-3, 4,
5-7 show as round 1 turns 1-3, round 2, round 3 turns 1-3.

Rewards
-------
Given by the shell at the end: ``reward_mode="rank"`` (default, from the ranks among all
participants, automata included) or ``"score"``.  Ties: the score, then the higher of
the participant's two cities, then its building counts by type (shops, factories,
taverns, offices, parks, houses); still tied, participants share the rank.  In solo the
automata are participants (automaton A: the lower of the left city and the Deep Learning
City with its difficulty adjustment; B: of the right city and the Deep Learning City), so a
human tied with an automaton after every tie-break shares its place: the rank reward
averages the shared places over the three participants (+1 first, 0 second, -1 third;
tied for first with one automaton: +0.5; tied for second behind the other: -0.5).
``infos[agent]["scores"]`` holds the player scores (lower city; sum in 2-player);
``end_infos`` adds ``city_scores`` and, in solo, ``automata_scores`` and
``participant_ranks`` (human, A, B).  A solo agent wins when its rank is 1 (alone or
shared): ``winners`` is empty when an automaton finishes first alone.

Hidden information
------------------
Another seat's hand, its unrevealed picks, the supply order and the automa deck order
never appear in an observation.  ``reseed`` re-keys the generator and reshuffles the
undrawn singles, duplexes and automa cards.  ``determinize(observer)`` also re-deals,
from the tiles the observer has not seen, every other hand it cannot know, the other
seats' unrevealed picks (random picks from the re-dealt hand), their round-2 discards
and the unseen last-tile discards, and keeps what it can deduce: in the running round a
hand it held on an earlier turn is known exactly (what it passed minus the picks
revealed since), so at turn ``t`` the seats ``o+d .. o+t*d`` keep their hands (2
players: from the second turn on, the opponent's hand); the last tile of a finished
round is known when the observer held that hand.  Solo hands are open, so there only
the future is re-drawn.  Both run in the kernel (``kernels.between_two_cities.reseed`` /
``determinize``, numba) and draw from sorted pools, so the result depends only on the
seed and on what the observer has seen.

Scoring helpers
---------------
``score_city(rows, factory_rank)``, ``score_cities(cities)`` and ``tile_name(tile)``
are pure functions; they check their arguments and raise ``ValueError`` naming the
argument for anything but 4 strings of 4 building characters, a rank name, a list of 1-7
such cities or a tile code 0-32.

Baselines
---------
Greedy (one-ply), MCTS's cut-off playouts and reward shaping share one evaluation,
:mod:`kernels.outcome` (also ``Spec.evaluate``): a seat's score plus
``kernels.between_two_cities.potential``, minus the mean of every other participant's,
automata included (solo: the mean of the two automata's scores).  The score is the live
city total (sum of the two cities in 2 players, the lower one otherwise).  Picks do not
change the score, so without the potential greedy picks at random.  The potential counts
the tiles a seat has chosen but not placed (best gain at a legal position, under the
best split between its two cities) and the unfinished patterns that can still be
completed (a run of 1-3 shops with room for a line of 4, a lone park with an open
neighbour, the open group of fewer than 6 offices, tavern sets of fewer than 4 kinds, a
point per missing type for each house not next to a factory), each worth (value
complete - value now) times a chance that falls with the buildings still needed and the
cells left; in solo only the grid cities count (the Deep Learning City has no patterns;
waiting tiles are not valued).  With 3-7 players a city gain beyond the lower city
counts a quarter.  Against ``RandomAgent`` with 2 players greedy finishes ahead in 100%
and 99.5% of 200 games (tournament seeds 7 and 8; 98% and 96% without the potential;
mean score 115 against 103), and beats greedy without the potential in 89% of 100 games;
with 3 players (greedy and two random seats, 60 games) it finishes ahead of a random
seat 71% and 86% of the time (42% and 55% without).  About 0.0004 s per move.
While a seat still has picks to make this turn (2-7 players), the potential also counts
each at a fixed ``POT_PICK`` (the mean gain of greedy's picks in greedy self-play, by 2
or 3-7 players and single or duplex round): every action of a decision shares it, so
greedy's choices do not change, but evaluations before and after a pick become
comparable (without it a pick raised the picker's evaluation by 3-8 points), which a
search that compares positions at different steps needs.

*Action values.*  The ``action_values`` option reads the same one-ply values with
``kernels.between_two_cities.feature_potential`` in place of the potential, with three
changes.  Each building a pattern lacks counts as arriving (``FEATURE_RHO`` 1.0; greedy's
``POT_RHO`` is 0.8).  In a two-player single round, while the hand a seat will receive is
still to be passed on, the seat gains ``FEATURE_DENIAL`` (0.5) x the two best gains it
sees in that hand, so in the margin a pick costs what the tiles it leaves are worth to
the opponent.  And each built cell costs ``FEATURE_CENTRE`` (0.1) x its squared distance
from the canvas centre, where the city started: greedy's values tie in about two thirds
of its placements, and the deterministic argmax of a policy then took the lowest action
id, the top left.  Played as an agent (the argmax of the values, lowest id among ties)
it finished ahead of GreedyAgent in 57.6% of 2,400 games (400 at each of six evaluation
seeds); without the centre term, 50.0% of 800 (57.25% and 54.5% drawing among ties at
random, as greedy does); greedy against greedy made 47.5% and 47.75% of 400.  Greedy,
MCTS and the shaping keep ``potential``.

*MCTS baseline.*  MCTS's settings for this game are in ``agents/settings.py`` (not on
the spec): ``MCTSAgent`` here plays 16 greedy moves (``playout="greedy"``; two whole
turns with 2 players) before scoring a leaf with the shared evaluation, a lead of 10
points counting as tanh(1).  Scoring the leaf at once only repeats what greedy sees (a
turn's picks and placements are all inside the potential), and then MCTS finished ahead
of greedy in 40-55% of 20-30-game matches whatever the budget (400-3000 simulations);
with the greedy playouts and 100 simulations (about 0.15 s per move) it finished ahead
in 31 of 40 games.

Data and provenance
-------------------
Every table is in ``kernels/data/between_two_cities.yaml``, checked at import (types,
ranges, references, cross-field totals).  Rules and tile counts: rulebook; the 24
duplexes: public implementations and the tile art; the automa deck, its tie-break
orders, the difficulty adjustments and the solo seating are *reconstructed* (marked so in
the data file).

Version history
---------------
* v0: initial.
* v0, rules revision (issue 14/15): 2-player ties by the higher own city before building
  counts (O10, O10b); Deep Learning City offices all get the +1 bonus (3 offices, no
  tavern: 9); ties with a solo automaton share the place; argument checks in the scoring
  helpers and options; the data file is checked at load; cold start about halved.
* v0, rev. 3: declared layouts (state, observation, actions), options table, phase names
  in snake_case, re-draws in the kernel; no rule change.
* v0, rev. 4: city scoring counts kinds in the scratch tail, so ``observe`` allocates
  nothing; no rule or observation change.
* v0, rev. 5: the ``action_values`` option reads ``feature_potential`` (above); the
  observation itself, the rules and greedy are unchanged.
* v0, rules revision 2 ("Rules, third pass", ruling 18 revised): ``difficulty`` 1-5 now
  adds -10, -5, 0, +5, +10 points to the Deep Learning City's final score (it added 0, 5,
  10, 15, 20).  Why: the rulebook's table is lost and it calls level 2 the level for
  first games, but the unadjusted automata (their city averages about 58.5) were level 1
  and search agents almost never beat level 2; the unadjusted automata are now the
  middle level 3.  Same seed and actions, same moves, but a different final score for
  the Deep Learning City, so different ranks and rewards (``rules_revision = 2``).  The
  observation's ``city_scores`` may now be negative (down to -10).
"""
from __future__ import annotations

import numpy as np

from envs.spec import GameConfig, GameSpec, Option
from envs.between_two_cities_readouts import remembered_tiles, tile_name  # noqa: F401  (public here too)
from kernels import between_two_cities as K

_RANKS = {"most": 0, "second": 1, "other": 2}
_CHAR_TO_KIND = {ch: k for k, ch in enumerate(K.KIND_CHAR)}
# the letters of docs/rules/between_two_cities.md's grids are accepted for taverns too: D drink, E food, M music, L lodging
_CHAR_TO_KIND.update({"D": K.KIND_NAMES.index("tavern_drink"), "E": K.KIND_NAMES.index("tavern_food"),
                      "M": K.KIND_NAMES.index("tavern_music"), "L": K.KIND_NAMES.index("tavern_lodging")})
_LETTER = {0: "s", 1: "f", 2: "D", 3: "E", 4: "M", 5: "L", 6: "o", 7: "p", 8: "h"}
_PART_NAMES = ("shop", "factory", "tavern", "office", "park", "house")


# ----------------------------------------------------------------- scoring functions
def _canvas(rows, name="rows"):
    """``rows`` (4 strings of 4 building characters) on a 7x7 canvas; ``ValueError`` naming
    ``name`` for anything else."""
    if isinstance(rows, np.ndarray) and rows.ndim == 1:
        rows = rows.tolist()
    if not isinstance(rows, (list, tuple)) or len(rows) != 4 \
            or any(not isinstance(r, str) or len(r) != 4 for r in rows):
        raise ValueError(f"{name} must be a list of 4 strings of 4 characters, got {rows!r}")
    g = np.full(K.CANVAS_CELLS, -1, dtype=np.int64)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if ch not in _CHAR_TO_KIND:
                raise ValueError(f"unknown building character {ch!r} in {name} (row {r}, column {c}); "
                                 f"known: {''.join(sorted(_CHAR_TO_KIND))} and '.' for empty")
            g[r * K.CANVAS + c] = _CHAR_TO_KIND[ch]
    return g


def _score_canvas(g, fpp):
    parts = np.zeros(6, dtype=np.int64)
    scratch = np.zeros((4, K.CANVAS_CELLS), dtype=np.int64)
    total = K.score_grid(g, np.int64(fpp), parts, scratch[0], scratch[1], scratch[2], scratch[3])
    out = {name: int(parts[i]) for i, name in enumerate(_PART_NAMES)}
    out["total"] = int(total)
    return out


def score_city(rows, factory_rank):
    """Score one 4x4 city.  ``rows``: 4 strings of ``s f o p h`` and tavern digits ``1``
    music, ``2`` food, ``3`` drink, ``4`` lodging (``.`` empty; the letters
    ``M E D L`` of docs/rules/between_two_cities.md are accepted for taverns too); ``factory_rank``:
    ``"most"``, ``"second"`` or ``"other"``.  Returns a dict of ints.  Anything else
    raises ``ValueError`` naming the argument."""
    if not isinstance(factory_rank, str) or factory_rank not in _RANKS:
        raise ValueError(f"factory_rank must be 'most', 'second' or 'other', got {factory_rank!r}")
    return _score_canvas(_canvas(rows), int(K.FACTORY_PTS[_RANKS[factory_rank]]))


def score_cities(cities):
    """Score every city of one game (a list of 1 to 7 ``rows`` as for :func:`score_city`),
    factories ranked across them.  Returns one dict per city, in order."""
    if not isinstance(cities, (list, tuple)) or not 1 <= len(cities) <= K.MAX_CITIES:
        raise ValueError(f"cities must be a list of 1 to {K.MAX_CITIES} cities (each a list of 4 strings), "
                         f"got {cities!r}")
    grids = [_canvas(rows, f"cities[{i}]") for i, rows in enumerate(cities)]
    counts = np.array([int((g == K.FACTORY).sum()) for g in grids], dtype=np.int64)
    return [_score_canvas(g, int(K.factory_points(counts, np.int64(len(grids)), np.int64(i))))
            for i, g in enumerate(grids)]


# ---------------------------------------------------------------------------- spec
class Spec(GameSpec):
    game_id = "between_two_cities_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    player_counts = (1, 2, 3, 4, 5, 6, 7)
    default_num_players = 3
    max_steps = 400
    secret_phases = {"pick": "pick"}   # picks are revealed together before placing
    rules_revision = 2   # difficulty levels -10 .. +10 (see Version history)

    variant_options = ("assign_at_selection", "solo_mode")
    options = (
        Option("num_players", "int", default_num_players, "seats: 1 (solo, against two automata) to 7",
               low=min(player_counts), high=max(player_counts)),
        Option("assign_at_selection", "bool", None, "the first pick goes to the left city, the second "
               "to the right (default: the first placement chooses); solo always does", none_ok=True),
        Option("solo_mode", "choice", None, "solo only: 'simple' (random assignment) or 'full' "
               "(automa deck; default)", choices=("simple", "full"), none_ok=True),
        Option("difficulty", "int", None, "solo only: 1-5 add "
               + ", ".join(f"{int(K.DIFFICULTY_ADJUSTMENT[d]):+d}" for d in range(1, 6))
               + f" points to the Deep Learning City's final score (default {K.DEFAULT_DIFFICULTY})",
               low=1, high=5, none_ok=True),
    )

    def build_config(self, opts) -> GameConfig:
        n = opts["num_players"]
        assign = opts["assign_at_selection"]
        if n == 1 and assign is not None and assign is not True:
            raise ValueError("assign_at_selection: solo always assigns at selection "
                             "(the option is for num_players 2-7)")
        assign = assign if assign is not None else (n == 1)
        mode = opts["solo_mode"]
        diff = opts["difficulty"]
        if n != 1 and mode is not None:
            raise ValueError("solo_mode is only allowed with num_players=1")
        if n != 1 and diff is not None:
            raise ValueError("difficulty is only allowed with num_players=1")
        mode = "full" if mode is None else mode
        diff = K.DEFAULT_DIFFICULTY if diff is None else diff
        cfg = np.zeros(K.CONFIG.size, dtype=np.int64)
        cfg[K.CFG_NUM_PLAYERS] = n
        cfg[K.CFG_ASSIGN] = int(assign)
        cfg[K.CFG_SOLO_FULL] = int(mode == "full")
        cfg[K.CFG_DIFFICULTY] = diff
        normalised = {"num_players": n, "assign_at_selection": assign}
        if n == 1:
            normalised.update(solo_mode=mode, difficulty=diff)
        return GameConfig(num_players=n, config=cfg, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=normalised, num_participants=3 if n == 1 else n,
                          scratch=K.STATE.scratch_size)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return K.OBS.parts()

    def observation_bounds(self, cfg):
        return K.OBS.bounds()

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg) -> str:
        st = K.STATE.fields(state)
        return K.PHASE_NAMES[int(st.phase)]

    def _progress(self, state):
        """``round r turn t: what`` for render: the decision in words."""
        st = K.STATE.fields(state)
        ph = int(st.phase)
        if ph == K.PH_END:
            return "game over"
        r, t = K.round_and_turn(state)
        if ph == K.PH_PICK:
            what = f"pick {int(st.substep) + 1}"
        else:
            slots = np.zeros(2, dtype=np.int64)
            what = f"place into city {K.placement_target(state, slots)}"
        return f"round {r + 1} turn {t + 1}: {what}"

    def action_label(self, state, cfg, action) -> str:
        st = K.STATE.fields(state)
        block, i = K.ACTIONS.decode(action)
        if block == "pick":
            if int(st.mode) in (K.MODE_SIMPLE, K.MODE_FULL) and st.phase == K.PH_PICK:
                side = "left" if st.substep == 0 else "right"
                return f"assign {tile_name(i)} to the {side} city"
            return f"pick {tile_name(i)}"
        k, cell = divmod(i, K.CANVAS_CELLS)
        r, c = divmod(cell, K.CANVAS)
        slots = np.zeros(2, dtype=np.int64)
        city = K.placement_target(state, slots) if st.phase == K.PH_PLACE else -1
        t = slots[k]
        what = tile_name(t) if t >= 0 else f"slot {k}"
        return f"place {what} in city {city} at ({r},{c})"

    # --------------------------------------------------------------- rendering
    @staticmethod
    def _city_rows(st, c):
        g = st.grids[c].reshape(K.CANVAS, K.CANVAS)
        box = K.BOX.fields(st.boxes[c])
        if box.cells == 0:
            return ["....", "....", "....", "...."]
        r0, c0 = int(box.min_row), int(box.min_col)
        rows = []
        for r in range(r0, r0 + 4):
            rows.append("".join(_LETTER[int(g[r, cc])] if r < K.CANVAS and cc < K.CANVAS and g[r, cc] >= 0 else "."
                                for cc in range(c0, c0 + 4)))
        return rows

    def _city_lines(self, st, c):
        """City ``c``'s rows, under the column numbers of the canvas and each led by its row
        number: the ``(row,col)`` a placement names.  An empty city has no coordinates yet."""
        rows = self._city_rows(st, c)
        box = K.BOX.fields(st.boxes[c])
        if box.cells == 0:
            return ["  " + row for row in rows]
        r0, c0 = int(box.min_row), int(box.min_col)
        head = "".join(str(cc) if cc < K.CANVAS else " " for cc in range(c0, c0 + 4)).rstrip()
        return [f"    {head}"] + [f"  {r0 + k if r0 + k < K.CANVAS else ' '} {row}" for k, row in enumerate(rows)]

    def _city_names(self, state):
        st = K.STATE.fields(state)
        mode = int(st.mode)
        nc = int(st.num_cities)
        names = []
        for c in range(nc):
            if mode == K.MODE_2P:
                names.append(f"city {c} (player_{c // 2} {'left' if c % 2 == 0 else 'right'})")
            elif mode in (K.MODE_SIMPLE, K.MODE_FULL):
                names.append({0: "city 0 (left: player_0 + A)", 1: "city 1 (Deep Learning: A + B)",
                              2: "city 2 (right: B + player_0)"}[c])
            else:
                names.append(f"city {c} (player_{c} + player_{(c + 1) % nc})")
        return names

    def private_text(self, state, cfg, seat):
        """With two or more seats: ``seat``'s hand and, until the picks are revealed, the
        tiles it has picked this turn (a solo player's hand is on the table already)."""
        st = K.STATE.fields(state)
        if int(st.mode) not in (K.MODE_STD, K.MODE_2P):
            return []
        hand = st.hands[seat]
        if int(st.phase) == K.PH_END:
            return []
        lines = ["hand: " + (", ".join(f"{tile_name(t)} x{int(hand[t])}" for t in range(K.NUM_TILE_CODES) if hand[t])
                             or "empty")]
        if st.phase == K.PH_PICK:
            picked = [tile_name(t) for t in st.chosen[seat] if t >= 0]
            lines.append("picked this turn: " + (", ".join(picked) or "nothing yet"))
        return lines + remembered_tiles(state, seat)

    def render_ansi(self, state, cfg) -> str:
        st = K.STATE.fields(state)
        mode = int(st.mode)
        nc = int(st.num_cities)
        tot = np.zeros(K.MAX_CITIES, dtype=np.int64)
        K.city_totals(state, tot)
        lines = [f"Between Two Cities - {self._progress(state)}"]
        names = self._city_names(state)
        for c in range(nc):
            fc = int(st.kind_counts[c, K.FACTORY])
            lines.append(f"{names[c]}: score {int(tot[c])}, factories {fc}")
            if mode in (K.MODE_SIMPLE, K.MODE_FULL) and c == K.DLC:
                kc = st.kind_counts[c]
                lines.append("  " + ", ".join(f"{K.KIND_NAMES[k]} {int(kc[k])}" for k in range(K.NUM_KINDS) if kc[k]))
                continue
            lines.extend(self._city_lines(st, c))
        if mode in (K.MODE_STD, K.MODE_2P):
            ns = int(st.num_seats)
            if st.phase == K.PH_PICK:
                lines.append("committed: " + ", ".join(f"player_{s} {int(st.picks_made[s])}/2"
                                                       for s in range(ns)))
            elif st.phase == K.PH_PLACE:
                for s in range(ns):
                    ch = [tile_name(t) for t in st.chosen[s] if t >= 0]
                    lines.append(f"player_{s} revealed: {', '.join(ch) or '-'}")
        else:
            for c, side in ((0, "left"), (2, "right")):
                w = [tile_name(t) for t in st.waiting[c] if t >= 0]
                lines.append(f"waiting for the {side} city: {', '.join(w) or '-'}")
            if mode == K.MODE_FULL:
                for a, nm in ((1, "A"), (2, "B")):
                    h = st.hands[a]
                    cd = int(st.last_card[a - 1])
                    card = f"card {int(K.CARD_IDS[cd])}" if cd >= 0 else "no card"
                    lines.append(f"automaton {nm} hand: " + ", ".join(
                        f"{tile_name(t)} x{int(h[t])}" for t in range(K.NUM_TILE_CODES) if h[t]) + f" ({card})")
            lines.append("player_0 hand: " + ", ".join(
                f"{tile_name(t)} x{int(st.hands[0, t])}" for t in range(K.NUM_TILE_CODES) if st.hands[0, t]))
        out = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.scores(state, out)
        lines.append("scores: " + ", ".join(str(int(x)) for x in out[:int(st.num_participants)]))
        return "\n".join(lines)

    def picture(self, state, cfg, observer=None, clickable=False):
        from envs.pictures.between_two_cities import draw
        return draw(state, cfg, observer, clickable)

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg) -> dict:
        st = K.STATE.fields(state)
        nc = int(st.num_cities)
        tot = np.zeros(K.MAX_CITIES, dtype=np.int64)
        K.city_totals(state, tot)
        info = {"city_scores": [int(x) for x in tot[:nc]]}
        if cfg.num_players == 1:
            sc = np.zeros(3, dtype=np.int64)
            K.scores(state, sc)
            rk = np.zeros(K.MAX_SEATS, dtype=np.int64)
            K.all_ranks(state, rk)
            info["automata_scores"] = [int(sc[1]), int(sc[2])]
            info["participant_ranks"] = [int(x) for x in rk[:3]]
        return info
