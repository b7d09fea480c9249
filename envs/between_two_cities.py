"""Between Two Cities (``between_two_cities_v0``).

Every player builds two 4x4 cities at once, one with each neighbour; a player's score
is its *lower* city.  Tiles are drafted: each turn everyone secretly chooses two tiles
from its hand, passes the rest, and places one chosen tile into each of its cities.
The Korean rulebook is the edition implemented.  Rules as implemented, with the
project's rulings: ``docs/rules/between_two_cities.md``; every table in
``kernels/data/between_two_cities.yaml``.

Agents and turn order
---------------------
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

Action space: ``Discrete(131)``
-------------------------------
* ``0..8``: pick a single of kind ``0 shop, 1 factory, 2 drink, 3 food, 4 music,
  5 lodging, 6 office, 7 park, 8 house``; ``9..32``: pick duplex id ``a - 9``;
* ``33 + slot*49 + r*7 + c``: place chosen/waiting tile ``slot`` (0/1) with its anchor
  (left or top half) on cell ``(r, c)`` of the 7x7 canvas of the city being built.
  A city's first tile goes to ``(3, 3)``; later tiles must touch the city by an edge and
  keep its bounding box within 4x4.  By default the first placement of a seat's turn
  (its left city) may use either chosen tile, which fixes the assignment; with
  ``assign_at_selection=True`` the first pick goes left and the second right.

Observation
-----------
``{"observation": float32[obs_size], "action_mask": int8[131]}``; the parts, in order
(see ``Spec.observation_layout``), are: ``cities`` ``[7, 10, 7, 7]`` (9 kind planes +
occupancy per city canvas, cities relative to the observer: its left city first then
clockwise, its right city last; 2 players: own left, own right, opponent's left, right;
solo: left, right, Deep Learning City (empty planes, see ``dlc_kind_counts``)),
``own_hand`` ``[33]`` counts, ``own_chosen`` ``[2, 33]``, ``revealed_choices`` ``[7, 2,
33]`` (seats relative to the observer; zero until every seat has committed),
``committed`` ``[7]`` picks made this turn, ``passed_last`` ``[33]`` (the tiles this seat
passed last), ``own_duplex_discards`` ``[33]``, ``round`` ``[6]`` / ``turn`` ``[3]`` /
``step_kind`` ``[4]`` (pick 1, pick 2, place first, place second) /
``city_being_built`` ``[7]`` one-hots, ``factory_counts`` ``[7]`` and ``city_scores``
``[7]`` (relative city order), ``num_seats`` ``[7]``, ``mode`` ``[4]`` (standard, 2
players, solo simple, solo full), ``assign_at_selection`` ``[1]``, and the solo parts
``automaton_hands`` ``[2, 33]`` (open in full mode), ``dlc_kind_counts`` ``[9]``,
``last_automa_cards`` ``[2, 20]``, ``difficulty`` ``[5]``, ``waiting`` ``[2, 2, 33]``.
Another seat's hand, its unrevealed picks, the supply order and the automa deck order
never appear.  In simple solo the iterations 1-3, 4, 5-7 show as round 1 turns 1-3,
round 2, round 3 turns 1-3.

Rewards
-------
Given by the shell at the end: ``reward_mode="rank"`` (default, from the ranks among all
participants, automata included) or ``"score"``.  Ties: the score, then the higher of
the participant's two cities, then its building counts by type (shops, factories,
taverns, offices, parks, houses); still tied, participants share the rank.  In solo the
automata are participants (automaton A: the lower of the left city and the Deep Learning
City with its difficulty bonus; B: of the right city and the Deep Learning City), so a
human tied with an automaton after every tie-break shares its place: the rank reward
averages the shared places over the three participants (+1 first, 0 second, -1 third;
tied for first with one automaton: +0.5; tied for second behind the other: -0.5).
``infos[agent]["scores"]`` holds the player scores (lower city; sum in 2-player);
``end_infos`` adds ``city_scores`` and, in solo, ``automata_scores`` and
``participant_ranks`` (human, A, B).  A solo agent wins when its rank is 1 (alone or
shared): ``winners`` is empty when an automaton finishes first alone.

Options
-------
``num_players`` 1-7 (default 3), ``assign_at_selection`` (bool, default False; 2-7
players), ``solo_mode`` ``"simple"|"full"`` (default ``"full"``; solo only),
``difficulty`` 1-5 (default 2; solo only, an additive Deep Learning City bonus).
Wrong types (a float, a string for a number, a list or set for a value, a number for
``solo_mode``) raise ``ValueError`` naming the option; numpy integers and bools are
accepted.

Scoring helpers
---------------
``score_city(rows, factory_rank)``, ``score_cities(cities)`` and ``tile_name(tile)``
check their arguments and raise ``ValueError`` naming the argument for anything but 4
strings of 4 building characters, a rank name, a list of 1-7 such cities or a tile code
0-32.

Hidden information, reseed and determinize
------------------------------------------
``reseed`` re-keys the generator and reshuffles the undrawn singles, duplexes and
automa cards.  ``determinize(observer)`` also re-deals, from the tiles the observer has
not seen, every other hand it cannot know, the other seats' unrevealed picks (random
picks from the re-dealt hand), their round-2 discards and the unseen last-tile discards,
and keeps what it can deduce: in the running round a hand it held on an earlier turn is
known exactly (what it passed minus the picks revealed since), so at turn ``t`` the
seats ``o+d .. o+t*d`` keep their hands (2 players: from the second turn on, the
opponent's hand); the last tile of a finished round is known when the observer held
that hand.  Solo hands are open, so there only the future is re-drawn.

Greedy baseline
---------------
``Spec.evaluate`` (one-ply greedy; 2-7 players) adds ``kernels.between_two_cities.potential``
to the live score (the live city totals: sum of the two cities in 2 players, the lower
one otherwise).  Picks do not change the score, so without it greedy picks at random.
The potential counts the tiles a seat has chosen but not placed (best gain at a legal
position, under the best split between its two cities) and the unfinished patterns that
can still be completed (a run of 1-3 shops with room for a line of 4, a lone park with
an open neighbour, the open group of fewer than 6 offices, tavern sets of fewer than 4
kinds, a point per missing type for each house not next to a factory), each worth
(value complete - value now) times a chance that falls with the buildings still needed
and the cells left.  With 3-7 players a city gain beyond the lower city counts a quarter.
Against ``RandomAgent`` with 2 players greedy finishes ahead in 100% and 99.5% of 200
games (tournament seeds 7 and 8; 98% and 96% without the potential; mean score 115
against 103), and beats greedy without the potential in 89% of 100 games; with 3 players
(greedy and two random seats, 60 games) it finishes ahead of a random seat 71% and 86% of
the time (42% and 55% without).  About 0.0004 s per move.
While a seat still has picks to make this turn, the potential also counts each at a
fixed ``POT_PICK`` (the mean gain of greedy's picks in greedy self-play): every action of
a decision shares it, so greedy's choices do not change, but evaluations before and
after a pick become comparable (without it a pick raised the picker's evaluation by 3-8
points), which a search that compares positions at different steps needs.

MCTS baseline
-------------
``MCTSAgent`` here plays 16 greedy moves (``Spec.mcts_playout = "greedy"``; two whole
turns with 2 players) before scoring a leaf with the greedy evaluation.  Scoring the leaf
at once only repeats what greedy sees (a turn's picks and placements are all inside the
potential), and then MCTS finished ahead of greedy in 40-55% of 20-30-game matches
whatever the budget (400-3000 simulations); with the greedy playouts and 100
simulations (about 0.15 s per move) it finished ahead in 31 of 40 games.

Encoding notes (``docs/rules/between_two_cities.md``, section 11)
-----------------------------------------------------------------
* Simple solo: the tile the random assignment gives the Deep Learning City joins it at
  once instead of at the placement step (it is public either way; no decision differs).
* Slot 1 is not masked when both waiting tiles are identical: the two actions have the
  same effect.
* Observation parts that carry the table's set-up: ``committed``, ``num_seats``, ``mode``,
  ``assign_at_selection``; solo's Deep Learning City is the third relative city (its
  grid planes stay empty; its contents are ``dlc_kind_counts``).

Data provenance
---------------
Rules and tile counts: rulebook; the 24 duplexes: public implementations and the tile
art; the automa deck, its tie-break orders, the difficulty bonuses and the solo seating
are *reconstructed* (marked so in the data file).

Version history
---------------
v0: initial.
v0, rules revision (issue 14/15): 2-player ties by the higher own city before building
counts (O10, O10b); Deep Learning City offices all get the +1 bonus (3 offices, no
tavern: 9); ties with a solo automaton share the place; argument checks in the scoring
helpers and options; the data file is checked at load; cold start about halved.
"""
from __future__ import annotations

import numpy as np

from envs.spec import GameConfig, GameSpec
from kernels import between_two_cities as K

_RANKS = {"most": 0, "second": 1, "other": 2}
_CHAR_TO_KIND = {ch: k for k, ch in enumerate(K.KIND_CHAR)}
# the letters of docs/rules/between_two_cities.md's grids are accepted for taverns too: D drink, E food, M music, L lodging
_CHAR_TO_KIND.update({"D": K.KIND_NAMES.index("tavern_drink"), "E": K.KIND_NAMES.index("tavern_food"),
                      "M": K.KIND_NAMES.index("tavern_music"), "L": K.KIND_NAMES.index("tavern_lodging")})
_LETTER = {0: "s", 1: "f", 2: "D", 3: "E", 4: "M", 5: "L", 6: "o", 7: "p", 8: "h"}
_PART_NAMES = ("shop", "factory", "tavern", "office", "park", "house")
_COLORS = {0: (66, 133, 244), 1: (120, 120, 120), 2: (219, 68, 55), 3: (230, 124, 40),
           4: (200, 60, 160), 5: (150, 40, 40), 6: (140, 200, 240), 7: (76, 175, 80),
           8: (244, 196, 48)}


# ----------------------------------------------------------------- scoring functions
def _canvas(rows, name="rows"):
    """``rows`` (4 strings of 4 building characters) on a 7x7 canvas; ``ValueError`` naming
    ``name`` for anything else."""
    if isinstance(rows, np.ndarray) and rows.ndim == 1:
        rows = rows.tolist()
    if not isinstance(rows, (list, tuple)) or len(rows) != 4 \
            or any(not isinstance(r, str) or len(r) != 4 for r in rows):
        raise ValueError(f"{name} must be a list of 4 strings of 4 characters, got {rows!r}")
    g = np.full(K.CC, -1, dtype=np.int64)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if ch not in _CHAR_TO_KIND:
                raise ValueError(f"unknown building character {ch!r} in {name} (row {r}, column {c}); "
                                 f"known: {''.join(sorted(_CHAR_TO_KIND))} and '.' for empty")
            g[r * K.CAN + c] = _CHAR_TO_KIND[ch]
    return g


def _score_canvas(g, fpp):
    parts = np.zeros(6, dtype=np.int64)
    scratch = np.zeros((4, K.CC), dtype=np.int64)
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
    return _score_canvas(_canvas(rows), int(K.FACT_PTS[_RANKS[factory_rank]]))


def score_cities(cities):
    """Score every city of one game (a list of 1 to 7 ``rows`` as for :func:`score_city`),
    factories ranked across them.  Returns one dict per city, in order."""
    if not isinstance(cities, (list, tuple)) or not 1 <= len(cities) <= K.MAXC:
        raise ValueError(f"cities must be a list of 1 to {K.MAXC} cities (each a list of 4 strings), "
                         f"got {cities!r}")
    grids = [_canvas(rows, f"cities[{i}]") for i, rows in enumerate(cities)]
    counts = np.array([int((g == K.FACTORY).sum()) for g in grids], dtype=np.int64)
    return [_score_canvas(g, int(K.factory_points(counts, np.int64(len(grids)), np.int64(i))))
            for i, g in enumerate(grids)]


def tile_name(tile):
    """Name of tile code ``tile``: ``0..8`` a single of that kind, ``9..32`` duplex ``tile - 9``."""
    if isinstance(tile, (bool, np.bool_)) or not isinstance(tile, (int, np.integer)) \
            or not 0 <= int(tile) < K.NTILE:
        raise ValueError(f"tile must be an integer tile code in [0, {K.NTILE}), got {tile!r}")
    t = int(tile)
    if t < K.NK:
        return K.KIND_NAMES[t]
    d = t - K.NK
    a, b = K.DUP_HALF[d]
    sep = "/" if K.DUP_STACKED[d] else "|"
    return f"duplex {d} [{K.KIND_NAMES[a]}{sep}{K.KIND_NAMES[b]}]"


# ---------------------------------------------------------------------------- spec
class Spec(GameSpec):
    game_id = "between_two_cities_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    # MCTSAgent plays 16 greedy moves before scoring the leaf by the greedy evaluation
    # (module docstring: MCTS baseline), a lead of margin_scale points counting as
    # tanh(1) (two-player totals ~90-120).
    mcts_playout = "greedy"
    mcts_playout_depth = 16
    margin_scale = 10.0
    player_counts = (1, 2, 3, 4, 5, 6, 7)
    default_num_players = 3
    metadata_name = "between_two_cities_v0"
    max_steps = 400

    def configure(self, **options) -> GameConfig:
        known = {"num_players", "assign_at_selection", "solo_mode", "difficulty"}
        for k in options:
            if k not in known:
                raise ValueError(f"unknown option {k!r} for between_two_cities (known: {sorted(known)})")
        n = options.get("num_players", self.default_num_players)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= int(n) <= 7:
            raise ValueError(f"num_players must be an integer 1-7, got {n!r}")
        n = int(n)
        assign = options.get("assign_at_selection", None)
        if assign is not None:
            if not isinstance(assign, (bool, np.bool_)):
                raise ValueError(f"assign_at_selection must be a bool, got {assign!r}")
            if n == 1 and assign is not True:
                raise ValueError("assign_at_selection: solo always assigns at selection "
                                 "(the option is for num_players 2-7)")
        assign = bool(assign) if assign is not None else (n == 1)
        mode = options.get("solo_mode", None)
        diff = options.get("difficulty", None)
        if n != 1 and mode is not None:
            raise ValueError("solo_mode is only allowed with num_players=1")
        if n != 1 and diff is not None:
            raise ValueError("difficulty is only allowed with num_players=1")
        mode = "full" if mode is None else mode
        if not isinstance(mode, str) or mode not in ("simple", "full"):
            raise ValueError(f"solo_mode must be 'simple' or 'full', got {mode!r}")
        diff = K.DEFAULT_DIFFICULTY if diff is None else diff
        if isinstance(diff, bool) or not isinstance(diff, (int, np.integer)) or not 1 <= int(diff) <= 5:
            raise ValueError(f"difficulty must be an integer 1-5, got {diff!r}")
        cfg = np.array([n, int(assign), int(mode == "full"), int(diff)], dtype=np.int64)
        opts = {"num_players": n, "assign_at_selection": assign}
        if n == 1:
            opts.update(solo_mode=mode, difficulty=int(diff))
        return GameConfig(num_players=n, config=cfg, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=opts, num_participants=3 if n == 1 else n,
                          scratch=K.STATE_SIZE - K.O_SCR)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return list(K.OBS_PARTS)

    def observation_bounds(self, cfg):
        high = np.ones(K.OBS_SIZE, dtype=np.float32)
        for name, hi in (("own_hand", 7), ("passed_last", 7), ("own_duplex_discards", 3), ("committed", 2),
                         ("factory_counts", 16), ("city_scores", 400), ("automaton_hands", 7),
                         ("dlc_kind_counts", 16)):
            size = int(np.prod(dict(K.OBS_PARTS)[name]))
            off = K.OBS_OFF[name]
            high[off:off + size] = hi
        return np.zeros(K.OBS_SIZE, dtype=np.float32), high

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg) -> str:
        ph = int(state[K.H_PHASE])
        if ph == K.PH_END:
            return "game over"
        r, t = K.obs_round_turn(state)
        if ph == K.PH_PICK:
            what = f"pick {int(state[K.H_SUB]) + 1}"
        else:
            slots = np.zeros(2, dtype=np.int64)
            city = K.placement_target(state, slots)
            what = f"place into city {city}"
        return f"round {r + 1} turn {t + 1}: {what}"

    def action_label(self, state, cfg, action) -> str:
        a = int(action)
        if a < K.NTILE:
            if int(state[K.H_MODE]) in (K.MODE_SIMPLE, K.MODE_FULL) and state[K.H_PHASE] == K.PH_PICK:
                side = "left" if state[K.H_SUB] == 0 else "right"
                return f"assign {tile_name(a)} to the {side} city"
            return f"pick {tile_name(a)}"
        if not K.A_PLACE <= a < K.NUM_ACTIONS:
            return f"invalid action {a}"
        k, cell = divmod(a - K.A_PLACE, K.CC)
        r, c = divmod(cell, K.CAN)
        slots = np.zeros(2, dtype=np.int64)
        city = K.placement_target(state, slots) if state[K.H_PHASE] == K.PH_PLACE else -1
        t = slots[k]
        what = tile_name(t) if t >= 0 else f"slot {k}"
        return f"place {what} in city {city} at ({r},{c})"

    # --------------------------------------------------------------- rendering
    @staticmethod
    def _city_rows(state, c):
        g = state[K.O_GRID + c * K.CC: K.O_GRID + (c + 1) * K.CC].reshape(K.CAN, K.CAN)
        b = K.O_BOX + c * 5
        if state[b] == 0:
            return ["....", "....", "....", "...."]
        r0, c0 = int(state[b + 1]), int(state[b + 3])
        rows = []
        for r in range(r0, r0 + 4):
            rows.append("".join(_LETTER[int(g[r, cc])] if r < K.CAN and cc < K.CAN and g[r, cc] >= 0 else "."
                                for cc in range(c0, c0 + 4)))
        return rows

    def _city_names(self, state):
        mode = int(state[K.H_MODE])
        nc = int(state[K.H_NC])
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

    def render_ansi(self, state, cfg) -> str:
        mode = int(state[K.H_MODE])
        nc = int(state[K.H_NC])
        tot = np.zeros(K.MAXC, dtype=np.int64)
        K.city_totals(state, tot)
        lines = [f"Between Two Cities - {self.phase_name(state, cfg)}"]
        names = self._city_names(state)
        for c in range(nc):
            fc = int(state[K.O_KCNT + c * K.NK + K.FACTORY])
            lines.append(f"{names[c]}: score {int(tot[c])}, factories {fc}")
            if mode in (K.MODE_SIMPLE, K.MODE_FULL) and c == K.DLC:
                kc = state[K.O_KCNT + c * K.NK: K.O_KCNT + (c + 1) * K.NK]
                lines.append("  " + ", ".join(f"{K.KIND_NAMES[k]} {int(kc[k])}" for k in range(K.NK) if kc[k]))
                continue
            for row in self._city_rows(state, c):
                lines.append("  " + row)
        if mode in (K.MODE_STD, K.MODE_2P):
            ns = int(state[K.H_NS])
            if state[K.H_PHASE] == K.PH_PICK:
                lines.append("committed: " + ", ".join(f"player_{s} {int(state[K.O_COMMIT + s])}/2"
                                                       for s in range(ns)))
            elif state[K.H_PHASE] == K.PH_PLACE:
                for s in range(ns):
                    ch = [tile_name(t) for t in state[K.O_CHOSEN + 2 * s: K.O_CHOSEN + 2 * s + 2] if t >= 0]
                    lines.append(f"player_{s} revealed: {', '.join(ch) or '-'}")
        else:
            for c, side in ((0, "left"), (2, "right")):
                w = [tile_name(t) for t in state[K.O_WAIT + 2 * c: K.O_WAIT + 2 * c + 2] if t >= 0]
                lines.append(f"waiting for the {side} city: {', '.join(w) or '-'}")
            if mode == K.MODE_FULL:
                for a, nm in ((1, "A"), (2, "B")):
                    h = state[K.O_HAND + a * K.NTILE: K.O_HAND + (a + 1) * K.NTILE]
                    cd = int(state[K.H_CARD + a - 1])
                    card = f"card {int(K.CARD_IDS[cd])}" if cd >= 0 else "no card"
                    lines.append(f"automaton {nm} hand: " + ", ".join(
                        f"{tile_name(t)} x{int(h[t])}" for t in range(K.NTILE) if h[t]) + f" ({card})")
            lines.append("player_0 hand: " + ", ".join(
                f"{tile_name(t)} x{int(state[K.O_HAND + t])}" for t in range(K.NTILE) if state[K.O_HAND + t]))
        out = np.zeros(K.MAXS, dtype=np.int64)
        K.scores(state, out)
        lines.append("scores: " + ", ".join(str(int(x)) for x in out[:int(state[K.H_NP])]))
        return "\n".join(lines)

    def render_rgb(self, state, cfg) -> np.ndarray:
        from PIL import Image, ImageDraw
        mode = int(state[K.H_MODE])
        nc = int(state[K.H_NC])
        cell, pad = 28, 16
        cw = 4 * cell + pad
        cols = min(nc, 4)
        rows_n = (nc + cols - 1) // cols
        w = cols * cw + pad
        h = rows_n * (4 * cell + 2 * pad + 14) + pad + 16
        img = Image.new("RGB", (w, h), (250, 250, 245))
        d = ImageDraw.Draw(img)
        d.text((pad, h - 16), self.phase_name(state, cfg), fill=(60, 60, 60))
        tot = np.zeros(K.MAXC, dtype=np.int64)
        K.city_totals(state, tot)
        for c in range(nc):
            x0 = pad + (c % cols) * cw
            y0 = pad + (c // cols) * (4 * cell + 2 * pad + 14)
            if mode == K.MODE_2P:
                label = f"c{c} p{c // 2} {'left' if c % 2 == 0 else 'right'}"
            elif mode in (K.MODE_SIMPLE, K.MODE_FULL):
                label = ("left p0+A", "DLC A+B", "right B+p0")[c]
            else:
                label = f"c{c} p{c}+p{(c + 1) % nc}"
            d.text((x0, y0), f"{label}: {int(tot[c])}", fill=(0, 0, 0))
            y0 += 14
            if mode in (K.MODE_SIMPLE, K.MODE_FULL) and c == K.DLC:
                kc = state[K.O_KCNT + c * K.NK: K.O_KCNT + (c + 1) * K.NK]
                x = x0
                for k in range(K.NK):
                    bh = int(kc[k]) * 7
                    d.rectangle([x, y0 + 4 * cell - 12 - bh, x + 10, y0 + 4 * cell - 12], fill=_COLORS[k])
                    d.text((x + 2, y0 + 4 * cell - 10), _LETTER[k], fill=(0, 0, 0))
                    if kc[k]:
                        d.text((x + 2, y0 + 4 * cell - 24 - bh), str(int(kc[k])), fill=(0, 0, 0))
                    x += 12
                continue
            rows = self._city_rows(state, c)
            inv = {v: k for k, v in _LETTER.items()}
            for r in range(4):
                for cc in range(4):
                    ch = rows[r][cc]
                    box = [x0 + cc * cell, y0 + r * cell, x0 + (cc + 1) * cell - 2, y0 + (r + 1) * cell - 2]
                    if ch == ".":
                        d.rectangle(box, outline=(200, 200, 200))
                    else:
                        d.rectangle(box, fill=_COLORS[inv[ch]])
                        d.text((box[0] + 9, box[1] + 7), ch, fill=(0, 0, 0))
        return np.asarray(img, dtype=np.uint8)

    # ------------------------------------------------------- hidden information
    def reseed(self, state, cfg, seed) -> None:
        K.reseed(state, int(seed) & ((1 << 63) - 1))

    def determinize(self, state, cfg, observer, seed) -> None:
        """Re-deal, from the tiles ``observer`` has not seen, every hand, unrevealed pick and
        discard it cannot know, and the supply order.  What it can deduce is kept: in the
        running single round, a hand it held on an earlier turn is known exactly (what it
        passed minus the picks revealed since), so at turn ``t`` the seats ``o+d .. o+t*d``
        keep their hands (picks made from them are re-drawn); the unseen last-tile discard
        of a finished round is known when the observer held that hand (its passer is
        ``o``, ``o+d`` or ``o+2d``).  Solo hands are open: only the future is re-drawn."""
        mode = int(state[K.H_MODE])
        if mode in (K.MODE_SIMPLE, K.MODE_FULL) or state[K.H_PHASE] == K.PH_END:
            self.reseed(state, cfg, seed)
            return
        rs = np.random.default_rng(int(seed) & ((1 << 63) - 1))
        o = int(observer)
        np_ = int(state[K.H_NP])
        rnd = int(state[K.H_ROUND])
        turn = int(state[K.H_TURN])
        picking = state[K.H_PHASE] == K.PH_PICK
        n_turns = (K.HAND_SINGLES - 1) // 2
        sp, dp = int(state[K.H_SPTR]), int(state[K.H_DPTR])
        singles = [int(x) for x in state[K.O_SSUP + sp: K.O_SSUP + K.N_SINGLES]]
        duplexes = [int(x) for x in state[K.O_DSUP + dp: K.O_DSUP + K.N_DUPLEX]]
        live = not K.round_is_duplex(state, rnd)
        d = int(K.round_pass_dir(state, rnd))
        known = {(o + k * d) % np_ for k in range(1, turn + 1)} if live else set()
        known.discard(o)

        def hand(s):
            return state[K.O_HAND + s * K.NTILE: K.O_HAND + (s + 1) * K.NTILE]

        def pool_add(t, n=1):
            for _ in range(int(n)):
                (singles if t < K.NK else duplexes).append(t if t < K.NK else t - K.NK)

        others = [s for s in range(np_) if s != o]
        pre = {}
        redeal = []
        for s in others:
            pre[s] = hand(s).copy()
            if picking:
                for t in state[K.O_PICKED + 2 * s: K.O_PICKED + 2 * s + 2]:
                    if t >= 0:
                        pre[s][t] += 1
            if s not in known:
                for t in range(K.NTILE):
                    pool_add(t, pre[s][t])
                redeal.append((s, int(pre[s][:K.NK].sum()), int(pre[s][K.NK:].sum())))
            r2 = state[K.O_R2DISC + s * K.NTILE: K.O_R2DISC + (s + 1) * K.NTILE]
            for t in range(K.NTILE):
                pool_add(t, r2[t])
        unknown_ldt = []
        for r in range(rnd):
            if K.round_is_duplex(state, r):
                continue
            dr = int(K.round_pass_dir(state, r))
            knownp = {(o + k * dr) % np_ for k in range(n_turns)}
            for s in range(np_):
                t = int(state[K.O_LDT + r * K.MAXS + s])
                if t >= 0 and s not in knownp:
                    pool_add(t)
                    unknown_ldt.append(K.O_LDT + r * K.MAXS + s)
        # sorted first: the re-deal must depend on the seed only, not on the hidden order
        # (a search on two states that differ only in hidden tiles must match)
        singles.sort()
        duplexes.sort()
        rs.shuffle(singles)
        rs.shuffle(duplexes)
        for s, n_s, n_d in redeal:
            h = np.zeros(K.NTILE, dtype=np.int64)
            for _ in range(n_s):
                h[singles.pop()] += 1
            for _ in range(n_d):
                h[K.NK + duplexes.pop()] += 1
            pre[s] = h
        for s in others:
            r2 = state[K.O_R2DISC + s * K.NTILE: K.O_R2DISC + (s + 1) * K.NTILE]
            n_d = int(r2.sum())
            r2[:] = 0
            for _ in range(n_d):
                r2[K.NK + duplexes.pop()] += 1
        for off in unknown_ldt:
            state[off] = singles.pop()
        for s in others:
            h = pre[s].copy()
            if picking:
                for k in range(2):
                    state[K.O_CHOSEN + 2 * s + k] = -1
                    state[K.O_PICKED + 2 * s + k] = -1
                for k in range(int(state[K.O_COMMIT + s])):
                    tiles = np.repeat(np.arange(K.NTILE), h)
                    t = int(tiles[rs.integers(len(tiles))])
                    h[t] -= 1
                    state[K.O_CHOSEN + 2 * s + k] = t
                    state[K.O_PICKED + 2 * s + k] = t
            hand(s)[:] = h
        # the other seats' memory of what they passed last, consistent with the new deal
        for s in others:
            mem = state[K.O_PASSED + s * K.NTILE: K.O_PASSED + (s + 1) * K.NTILE]
            if live and turn >= 1:
                mem[:] = self._own_pre(state, (s + d) % np_)
            elif state[K.O_PASSRD + s] >= 0:
                t = int(state[K.O_LDT + int(state[K.O_PASSRD + s]) * K.MAXS + s])
                mem[:] = 0
                if t >= 0:
                    mem[t] = 1
        state[K.O_SSUP + sp: K.O_SSUP + K.N_SINGLES] = singles
        state[K.O_DSUP + dp: K.O_DSUP + K.N_DUPLEX] = duplexes
        self.reseed(state, cfg, int(rs.integers(1 << 62)))

    @staticmethod
    def _own_pre(state, s):
        """Seat ``s``'s hand before its picks of this turn."""
        h = state[K.O_HAND + s * K.NTILE: K.O_HAND + (s + 1) * K.NTILE].copy()
        for k in range(2):
            t = int(state[K.O_PICKED + 2 * s + k])
            if t >= 0:
                h[t] += 1
        return h

    def evaluate(self, state, cfg, seat) -> float:
        """Score minus the mean of the other participants' (solo: the two automata)."""
        if cfg.num_players != 1:
            return super().evaluate(state, cfg, seat)
        out = np.zeros(3, dtype=np.int64)
        K.scores(state, out)
        return float(out[0] - (out[1] + out[2]) / 2.0)

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg) -> dict:
        nc = int(state[K.H_NC])
        tot = np.zeros(K.MAXC, dtype=np.int64)
        K.city_totals(state, tot)
        info = {"city_scores": [int(x) for x in tot[:nc]]}
        if cfg.num_players == 1:
            sc = np.zeros(3, dtype=np.int64)
            K.scores(state, sc)
            rk = np.zeros(K.MAXS, dtype=np.int64)
            K.all_ranks(state, rk)
            info["automata_scores"] = [int(sc[1]), int(sc[2])]
            info["participant_ranks"] = [int(x) for x in rk[:3]]
        return info
