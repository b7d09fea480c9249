"""Tiny Towns (``tiny_towns_v0``)
==============================

Every player grows a 4 x 4 town.  Each round one resource (wood, wheat, brick, glass,
stone) is named -- by the Master Builder who holds the hammer, by a drawn card in the
Town Hall variant, or picked from a 3-card display in the solo game -- and every player
still building puts a cube of it on their own board.  Then every player turns cube
patterns (any rotation or mirror image) into buildings of the 7 cards in play or of their
own secret monument; the environment takes these build steps one after another, hidden
from the others until the last one is done.  A town is complete when its owner ends a build step
with no empty square; the game ends when every town is complete, and every building,
fed Cottage and monument scores (squares without a building cost 1 VP each).

Rules: ``docs/rules/tiny_towns.md`` (the base-game rulebook with the project's rulings
R1-R34 and the turn-order modelling M1-M3); its ``reconstructed`` values are the
``decided_values`` of ``kernels/data/tiny_towns.yaml``.

=================  ==============================================================
Import             ``envs.make("tiny_towns_v0")`` / ``envs.tiny_towns_v0.env()``
Agents             ``player_0`` .. ``player_{n-1}`` (seats clockwise)
Actions            ``Discrete(1056)``
Observation        ``Box(2930,)`` float32 in [0, 1] + ``action_mask`` int8 (1056)
=================  ==============================================================

Options
-------
Declared as a table in ``Spec.options`` (name, type, allowed values, default; checked by
:func:`envs.options.validate`); ``Spec.build_config`` checks what involves several options.

``num_players``  1 to 6 (default 2).  ``1`` plays the solo rules (Inn, Bank, Fort Ironweed and
    Opaleye's Watch removed; a 15-card resource deck with a 3-card display).
``variant``      ``"standard"`` (default) or ``"town_hall"`` (resource deck cycle drawn, drawn,
    free; needs 2+ players).
``monuments``    ``True`` (default): deal 2 monuments per player, each keeps 1 in secret.
``buildings``    ``None`` (default: one random card per colour deck), ``"first_game"`` or a
    list of card names (``"Feast Hall"`` or ``"feast_hall"``), one per colour deck; the
    Cottage may be listed or not.  A list is normalised to the tuple of the 7 card names.
``cave_rule``    ``False`` (default) / ``True``: each player may set aside an imposed resource
    at most twice per game.
``first_player`` ``None`` (random) or a seat: the first Master Builder (Town Hall: the mayor).

Every option is checked: an unknown option, a wrong type (a number for ``buildings``, a
list for ``variant``, nested lists, ...) or an unordered container (a set of card names:
pass a list) raises ``ValueError`` naming the option.

The shell adds ``render_mode`` (``"ansi"``, ``"human"``, ``"rgb_array"``), ``reward_mode``
and ``illegal_action``; see :mod:`envs.shell`.

Decisions (phases)
------------------
``KEEP`` (which dealt monument to keep, seat order at setup), ``NAME`` (Master Builder;
never a resource lying on their own Banks unless all five are), ``CHOOSE`` (Town Hall
free round / solo display), ``TAKE`` (Factory substitution), ``DEST`` (where the cube
goes), ``SWAP`` / ``SWAP_SQUARE`` (Warehouse), ``BUILD`` (a construction or PASS =
done), ``TOKEN`` (square of the new building), ``BUILD_RESOURCE`` (Factory/Bank cube),
``GROVE_TYPE`` / ``GROVE_SQUARE``, ``GUILD_TARGET`` / ``GUILD_TYPE``, ``OPALEYE_TYPE``,
``OPALEYE_SQUARE`` and ``GAME_OVER`` (``K.PH_*``; ``K.PHASE_NAMES`` and ``env.phase`` give
the name in lower case, e.g. ``"swap_square"``, ``"game_over"``).  The placements of a
round (``CHOOSE`` in Town Hall free rounds, ``TAKE``, ``DEST``, ``SWAP``, ``SWAP_SQUARE``)
are hidden commitments made one player at a time in turn order and revealed together when
the last one is in; while another player commits, the observation shows only "another
player is placing".  The player to move sees all of its own pending choices (resource,
destination, swap).  The build steps (``BUILD``, ``TOKEN``, ``BUILD_RESOURCE``, ``GROVE_*``,
``GUILD_*``, ``OPALEYE_TYPE``) are hidden the same way (rules R6): in turn order, each player
builds on its own town, and the others see that town, its score and its monument as they were
when the placements were revealed, the phase as ``BUILD`` whatever decision the builder faces,
no step context, and its moves labelled ``(building)``, until the last builder is done; then
everything is revealed, and the Opaleye's Watch moves follow.  A Trading Post or Obelisk of
the Crescent serves its owner at once, in the same build step too (R8).

Whose turn it is never reveals anything hidden.  A placement that could go to a
Warehouse always takes the ``DEST``, ``SWAP`` and ``SWAP_SQUARE`` steps (``PASS`` the only
action where a step does not apply: the cube went on a square, onto a Cottage or was set
aside, or no cube is swapped), so the number of steps -- which everybody sees through
``agent_selection`` -- does not depend on the secret destination.  With two or more
players the ``BUILD`` step is judged from public information: a player still building
gets it as a decision when a card in play fits its board, or when a monument nobody has
built yet could fit it and the player has not built its own (the table does not know
which one it kept; a built monument is public).  ``PASS`` is then the only action when
nothing of the player's own fits; when nothing could fit the player is done at once.
The rules' "a player with no legal construction is done at once", applied literally,
would tell the table when a player's only legal construction is its secret monument.
Solo keeps that rule as written (a player with no legal construction is done at once);
every other forced choice is a one-action mask.  Whether a player is offered its build step
never depends on what the players before it built this round (hidden).  What the turn order
does show is how many decisions an earlier builder's hidden build step took (one per
construction and on-build choice, then ``PASS``; M3): a build step has no fixed length to pad
it to.

Action encoding (``docs/rules/tiny_towns.md``, section 11.2)
---------------------------------------------------------------------------
Declared as consecutive blocks in ``K.ACTIONS`` (``K.ACTIONS.decode(a)`` gives ``(block,
index)``; ``action_label`` refuses any other id with ``ValueError``):

=============  ==================================================================
ids            action
=============  ==================================================================
0-1023         CONSTRUCT ``128*slot + 16*t + anchor``: slot 0 Cottage, 1..6 the card
               in play of type red, grey, orange, green, yellow, black, 7 own monument;
               ``t`` transform (mirror first if t >= 4, then t mod 4 clockwise
               quarter turns); anchor = square (``4*row + col``) of the top-left corner
               of the transformed box.  Only the lowest ``t`` of equal placements.
1024-1039      SQUARE q
1040-1044      RESOURCE r (wood, wheat, brick, glass, stone)
1045-1051      TYPE k (cottage, red, grey, orange, green, yellow, black)
1052-1053      KEEP i (dealt monument i)
1054           PASS (done / stop the Guild / no Warehouse swap)
1055           SET_ASIDE (cave rule)
=============  ==================================================================

Observation (players ordered from the observer: self, left neighbour, ...; padded to 6)
-----------------------------------------------------------------------------------
Declared piece by piece in ``K.OBS`` (every piece in [0, 1]);
``env.unwrapped.split_observation(obs)`` returns the pieces by name.
Per player ``i`` (6 x 431, pieces ``player{i}_...``): ``squares`` 16 squares x 25 planes --
empty, loose cube per resource (5), non-monument building per type (7), monument, resource
on the building (Factory/Bank cube or Statue cube, 5), Warehouse stock per resource (/3),
placed this round (its effects on other players not active yet) -- then ``present`` (seat present),
``building`` (still building), ``complete``, ``done_round`` (completion round /100),
``master_builder_turns`` (/100), ``hammer`` (holds the hammer), ``cave_uses_left`` (/2),
``monument_built`` (built monument, 15 one-hot), ``shrine_value`` (/8), ``opaleye_aside``
(Opaleye set-aside types, 7), ``committed`` (committed this round).  Another player's
piece shows its record as it was when the placements were revealed while the build steps of
the round are under way; the observer's own is always as it stands.
Public (161): ``cards_in_play`` (25 multi-hot), ``num_players`` (6), variant flags
``town_hall``, ``solo``, ``monuments``, ``cave_rule``, ``round`` (/100), ``phase`` (17 +
"another player is placing"), ``actor`` (relative to the observer, 6), ``round_resource``
(the round's public resource, 5), ``imposed_on_me``, ``town_hall_round`` (Town Hall round
kind: drawn, free), ``unseen`` (unseen cards per resource /3: Town Hall since the last
shuffle; solo: never-seen cards), ``draws_left`` (/10), ``face_up_discards`` (/3),
``solo_display`` (/3), ``solo_never_seen`` (/12), ``solo_under_deck`` (the ordered queue of
cards put under the solo deck, 15 x 5) and ``solo_under_deck_len`` (/15).
Private (79): ``dealt_monuments`` (until one is kept), ``kept_monument``, the own pending
commitment: ``pending_offered`` (chosen resource), ``pending_resource`` (resource taken),
``pending_dest`` (destination incl. set aside, 17), ``pending_swap_resource``,
``pending_swap_square``, ``committed``.
Step context (104): ``token_card`` (card waiting for its token), ``token_vacated``
(vacated squares), ``token_anywhere`` (token may go anywhere), ``grove_type`` (Grove type
chosen), ``guild_left`` and ``guild_replaced`` (Guild replacements left and squares
replaced), ``opaleye_type`` (Opaleye type moving), ``resource_cell`` (square of the
building awaiting a resource); all zero during another player's build step.
Never included: other players' unbuilt monuments, their uncommitted or unrevealed
placements, their constructions of the round before the last builder is done, the returned
monuments, deck order and face-down discards.

Rewards
-------
With 2-6 players ``"rank"`` (default) pays +1 first .. -1 last after the tie-breaks,
``"score"`` own final VP minus the mean of the others.  Solo has no win or loss: in both
modes the lone player is paid its final score (``winners`` names it, as the API promises
for a lone player), and the infos carry its rating ``title``.

Hidden information
------------------
Town Hall draws and solo refills are drawn lazily from per-resource counts of the unseen
cards, so no future draw sits in the state.  ``reseed`` re-keys the generator;
``determinize(observer)`` also re-deals the other players' unbuilt monuments from the
monuments the observer has not seen and replaces their committed-but-unrevealed
placements by random legal ones (a player in the middle of its placement gets its earlier
sub-choices redone at random, up to the same step), and during the build steps re-draws the
other players' constructions of the round: each player done building replays its build step
at random from its town as revealed with the placements, and a player in the middle of its
build step replays one up to a ``BUILD`` decision, where it is left to act.  Both are the kernel's
(``kernels.tiny_towns.reseed`` / ``determinize``); ``observer`` and ``seed`` are checked
by the shell, and the kernel entry refuses an observer that is not a seat.

Scoring helpers
---------------
``infos[agent]["scores"]`` are the best-feeding town scores (``docs/rules/tiny_towns.md``, section 6);
``end_infos`` adds ``breakdown`` (per player, per card token, ``empty``, ``fed`` squares)
and, in solo, ``title`` (the rating of data ``solo.ratings``).  Tie-breaks: fewer
Master Builder turns (standard multi-player only), fewer squares without a building,
more Cottages (Barrett Castle weighs 2).  ``score_town`` scores any 4 x 4 position; it
checks every argument (``ValueError`` naming it).  ``solo_title(score)`` gives the rating.

Baselines
---------
The live score already charges -1 for every square without a building, so
``kernels.tiny_towns.potential`` adds what the board promises beyond it: each loose cube's
best share of a building pattern it can still complete (growing as the pattern fills up;
dead cubes earn nothing), a value for empty squares and for unfed Cottages, the best
square for a cube still to be placed this round (so naming and placing look ahead), and
while a token waits, the real score gain of the construction.  With it (weight 1)
``GreedyAgent`` beats ``RandomAgent`` in 99-100 % of two-player games (200 games, seeds 7
and 11) at about 0.3 ms per move.

Data and provenance
-------------------
All tables (patterns, scores, tables, presets, solo ratings, decided values) live in
``kernels/data/tiny_towns.yaml`` with the provenance of each entry (``rulebook``,
``public`` or ``reconstructed``).  The file is checked against its schema when the kernel
loads it (``kernels.tiny_towns.read_data(path)`` checks an edited copy): types, ranges and
cross-field totals (25 building cards, 4 per colour deck, 15 monuments, patterns of the 5
resource codes, table values in range), and a bad field raises
``kernels.data_files.DataError`` (a ``ValueError``) naming it, e.g. ``buildings[3].pattern[1]``.

Version history
---------------
* v0: initial.
* v0.1: whose turn it is depends on public information only (Warehouse steps padded, the
  build step offered to every player still building when others are at the table); solo
  pays the score in every reward mode, with the rating ``title`` in the infos; options,
  ``score_town``, ``solo_title`` and ``determinize`` validate their arguments; the data file
  is checked at load; the kernel's scratch lives at the state tail.
* v0.2: the ``BUILD`` step is offered only when a card in play or a monument nobody has
  built could fit the player's board (public information), no longer to every player still
  building: as leak-free, with far fewer ``PASS``-only steps (random games 108 -> 77 steps
  at 2 players, 198 -> 136 at 4).
* v0.3: declared layouts (state, observation, actions), options table, phase names in
  snake_case, re-draws in the kernel; no rule change.  Same observation values, split into
  finer named pieces (``player0_squares`` ... ``resource_cell``) instead of
  ``player{i}_vector`` / ``public`` / ``private`` / ``context``.
* v0.4, ``rules_revision = 2`` (the same seed and actions can give another game): two
  rulings re-read against the Korean rulebook.  R6: building is simultaneous there, so the
  build steps are now committed hidden in turn order and revealed together when the last
  builder is done, as the placements are; before, they were public as they happened and the
  later builders (the Master Builder always last) saw the round's constructions.  During the
  build steps another seat's observation, text, picture and scores show a builder's town as
  revealed with the placements, the phase as ``BUILD`` and no step context; its moves are
  labelled ``(building)``; the build offer (M1) counts a monument built this round by an
  earlier builder as unbuilt; ``determinize`` re-draws the hidden constructions.  R8: the
  Trading Post ("from now on") and the Obelisk of the Crescent ("at once") serve their owner
  at once, later constructions of the same build step included; before, they waited for the
  next round.  Observation size and layout unchanged.
"""
import numpy as np

from envs.spec import GameConfig, GameSpec, Option
from envs.tiny_towns_readouts import (CARD_CODES, CODES, pending_placement_text,  # noqa: F401  (public here too)
                                      player_record,
                                      recipe_inline, recipe_table)
from kernels import tiny_towns as K

PHASE_NAMES = K.PHASE_NAMES
RES_LETTERS = "whbgs"
_TOKEN_TO_CARD = {t: i for i, t in enumerate(K.CARD_TOKENS)}
_NAME_TO_CARD = {n.lower(): i for i, n in enumerate(K.CARD_NAMES)}
_RES_TOKENS = {r: i for i, r in enumerate(K.RES_IDS)}


def _card_index(name):
    if not isinstance(name, str):
        raise ValueError(f"buildings: card names must be strings, got {name!r} of type {type(name).__name__}")
    key = name.strip().lower()
    if key in _NAME_TO_CARD:
        return _NAME_TO_CARD[key]
    if key in _TOKEN_TO_CARD:
        return _TOKEN_TO_CARD[key]
    raise ValueError(f"buildings: unknown card {name!r}")


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def solo_title(score):
    """The solo rating title of a final ``score`` (data ``solo.ratings``)."""
    if not _is_int(score):
        raise ValueError(f"score must be an integer, got {score!r}")
    for r in K.DATA["solo"]["ratings"]:
        if r.get("min", -10 ** 9) <= score <= r.get("max", 10 ** 9):
            return r["title"]
    return ""


# --------------------------------------------------------------------- score_town
_SHRINE_VALUES = sorted(set(int(v) for v in K.SHRINE_VP[1:]))


def _int_arg(name, v, lo, hi):
    if not _is_int(v) or not lo <= int(v) <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {v!r}")
    return int(v)


def score_town(rows, *, warehouse_cubes=0, right_feast_halls=0, solo=False, shrine_value=None,
               starloom_place=None):
    """Score one 4x4 town at game end with the owner's best feeding.

    ``rows``: a list (or tuple) of 4 strings of 4 whitespace-separated tokens (card tokens
    such as ``cottage``, ``feast_hall``, ``architects_guild``; resources ``wood`` ..
    ``stone``; ``.`` empty).  Loose cubes are removed first.  ``warehouse_cubes``: cubes
    stored on the Warehouses in total (0 to 3 per Warehouse); ``right_feast_halls``: Feast
    Halls of the right neighbour (0 to 16); ``solo``: Feast Halls score the solo value;
    ``shrine_value`` (a value of the data's ``shrine`` table) / ``starloom_place`` (1 to 6)
    are needed when those monuments are on the board.  Returns ``{"total": int, <card
    token>: int, ..., "empty": int}`` (one entry per card type present, plus ``empty``).
    Every argument is checked: a bad one raises ``ValueError`` naming it."""
    if isinstance(rows, np.ndarray) and rows.ndim == 1:
        rows = rows.tolist()
    if not isinstance(rows, (list, tuple)):
        raise ValueError(f"rows must be a list of 4 strings, got {type(rows).__name__}")
    if len(rows) != 4:
        raise ValueError(f"rows must hold 4 strings, got {len(rows)}")
    bld = np.full(16, -1, dtype=np.int64)
    for r, row in enumerate(rows):
        if not isinstance(row, str):
            raise ValueError(f"rows[{r}] must be a string of 4 tokens, got {row!r}")
        toks = row.split()
        if len(toks) != 4:
            raise ValueError(f"rows[{r}] must hold 4 tokens, got {row!r}")
        for c, tok in enumerate(toks):
            t = tok.lower()
            if t == "." or t == ".." or t in _RES_TOKENS:
                continue
            if t not in _TOKEN_TO_CARD:
                raise ValueError(f"rows[{r}]: unknown token {tok!r}")
            bld[4 * r + c] = _TOKEN_TO_CARD[t]
    whs = [q for q in range(16) if bld[q] == K.C_WAREHOUSE]
    if not _is_int(warehouse_cubes) or not 0 <= int(warehouse_cubes) <= K.WAREHOUSE_CAP * len(whs):
        raise ValueError(f"warehouse_cubes must be an integer from 0 to {K.WAREHOUSE_CAP} per Warehouse "
                         f"of the town ({len(whs)} here), got {warehouse_cubes!r}")
    cubes = int(warehouse_cubes)
    right = _int_arg("right_feast_halls", right_feast_halls, 0, 16)
    if not isinstance(solo, (bool, np.bool_)):
        raise ValueError(f"solo must be True or False, got {solo!r}")
    if shrine_value is not None and (not _is_int(shrine_value) or int(shrine_value) not in _SHRINE_VALUES):
        raise ValueError(f"shrine_value must be None or one of {_SHRINE_VALUES}, got {shrine_value!r}")
    if starloom_place is not None:
        _int_arg("starloom_place", starloom_place, 1, K.MAX_SEATS)
    if K.M_SHRINE in bld and shrine_value is None:
        raise ValueError("shrine_value is needed when the Shrine of the Elder Tree is on the board")
    if K.M_STARLOOM in bld and starloom_place is None:
        raise ValueError("starloom_place is needed when The Starloom is on the board")
    wh = np.zeros(16, dtype=np.int64)
    left = cubes
    for q in whs:
        take = min(left, K.WAREHOUSE_CAP)
        wh[q] = take
        left -= take
    parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
    total = K.score_board(bld, wh, right, 1 if solo else 0,
                          int(shrine_value or 0), int(starloom_place or 1), parts)
    out = {"total": int(total)}
    for c in sorted(set(int(x) for x in bld if x >= 0)):
        out[K.CARD_TOKENS[c]] = int(parts[c])
    out["empty"] = int(parts[K.NUM_CARDS])
    return out


def _deck_cards(names):
    """Card index per colour deck (index 0, the Cottage, stays -1) from a list of card names;
    ``ValueError`` naming ``buildings`` for a bad list."""
    cards = [-1] * K.NUM_TYPES
    for name in names:
        c = _card_index(name)
        if c >= K.NUM_BUILDING_CARDS:
            raise ValueError(f"buildings: {name!r} is a monument, not a building card")
        t = int(K.CARD_TYPE[c])
        if t == 0:
            continue
        if cards[t] >= 0:
            raise ValueError(f"buildings: two cards of the {K.TYPE_IDS[t]} deck ({name!r})")
        cards[t] = c
    missing = [K.TYPE_IDS[t] for t in range(1, K.NUM_TYPES) if cards[t] < 0]
    if missing:
        raise ValueError(f"buildings: no card of the {', '.join(missing)} deck(s)")
    return cards


def _check_buildings(value):
    """The ``buildings`` option: ``None``, ``"first_game"`` or a list of card names (one per
    colour deck, the Cottage optional), normalised to the tuple of the 7 card names."""
    if value is None:
        return None
    if isinstance(value, str):
        if value != "first_game":
            raise ValueError(f"buildings must be None, 'first_game' or a list of card names, got {value!r}")
        return "first_game"
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"buildings must be None, 'first_game' or a list of card names, got {value!r}")
    cards = _deck_cards(list(value))
    return tuple(K.CARD_NAMES[c] for c in [K.C_COTTAGE] + cards[1:])


# ------------------------------------------------------------------------- Spec
class Spec(GameSpec):
    game_id = "tiny_towns_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    player_counts = (1, 2, 3, 4, 5, 6)
    max_steps = 100_000
    rules_revision = 2      # builds hidden until the last builder is done; Trading Post, Obelisk at once
    # the kept monument, and the placements and build steps of a round until they are
    # revealed together (a BUILD_RESOURCE after an end-of-round Opaleye move is public, but
    # whether a move is secret may depend on its phase only)
    secret_phases = {"keep": "keep a monument",
                     **{p: "placing" for p in ("choose", "take", "dest", "swap", "swap_square")},
                     **{p: "building" for p in ("build", "token", "build_resource", "grove_type", "grove_square",
                                                "guild_target", "guild_type", "opaleye_type")}}

    variant_options = ("variant", "monuments", "cave_rule")
    options = (
        Option("num_players", "int", 2, "seats; 1 plays the solo rules", low=1, high=6),
        Option("variant", "choice", "standard", "resource naming: 'standard' (Master Builder) or "
               "'town_hall' (resource deck; needs 2+ players)", choices=("standard", "town_hall")),
        Option("monuments", "bool", True, "deal 2 monuments per player, each keeps 1 in secret"),
        Option("buildings", "custom", None, "None (one random card per colour deck), 'first_game' or a "
               "list of card names, one per colour deck", none_ok=True, check=_check_buildings),
        Option("cave_rule", "bool", False, "each player may set aside an imposed resource twice per game"),
        Option("first_player", "int", None, "the first Master Builder (Town Hall: the mayor); None: random",
               low=0, high=K.MAX_SEATS - 1, none_ok=True),
    )

    def build_config(self, opts):
        n = opts["num_players"]
        variant = opts["variant"]
        if variant == "town_hall" and n < 2:
            raise ValueError("variant 'town_hall' needs num_players >= 2")
        first = opts["first_player"]
        if first is not None and not first < n:
            raise ValueError(f"first_player must be None or a seat 0..{n - 1}, got {first!r}")
        buildings = opts["buildings"]
        cards = [-1] * K.NUM_TYPES
        if buildings is not None:
            names = K.DATA["presets"]["first_game"]["cards"] if buildings == "first_game" else buildings
            cards = _deck_cards(names)
            for t in range(1, K.NUM_TYPES):
                if n == 1 and K.SOLO_REMOVED[cards[t]]:
                    raise ValueError(f"buildings: {K.CARD_NAMES[cards[t]]!r} is not used in the solo game")
        config = np.full(K.CONFIG_SIZE, -1, dtype=np.int64)
        config[K.CFG_NUM_PLAYERS] = n
        config[K.CFG_TOWN_HALL] = 1 if variant == "town_hall" else 0
        config[K.CFG_MONUMENTS] = 1 if opts["monuments"] else 0
        config[K.CFG_CAVE_RULE] = 1 if opts["cave_rule"] else 0
        config[K.CFG_FIRST_PLAYER] = -1 if first is None else first
        config[K.CFG_CARDS] = 0
        for t in range(1, K.NUM_TYPES):
            config[K.CFG_CARDS + t] = cards[t]
        return GameConfig(num_players=n, config=config, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=dict(opts), scratch=K.STATE.scratch_size)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return K.OBS.parts()

    def observation_bounds(self, cfg):
        return K.OBS.bounds()

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        st = K.STATE.fields(state)
        return PHASE_NAMES[int(st.phase)]

    def action_label(self, state, cfg, action):
        st = K.STATE.fields(state)
        block, i = K.ACTIONS.decode(action)
        p = int(st.actor)
        if block == "construct":
            slot, t, anchor = i // K.CONSTRUCT_SLOT, (i % K.CONSTRUCT_SLOT) // K.CONSTRUCT_T, i % K.CONSTRUCT_T
            card = int(K._slot_card(state, max(p, 0), slot)) if p >= 0 else -1
            name = K.CARD_NAMES[card] if card >= 0 else f"slot {slot}"
            return f"CONSTRUCT {name} t={t} at {anchor}"
        if block == "square":
            return f"SQUARE {i}"
        if block == "resource":
            return f"RESOURCE {K.RES_IDS[i]}"
        if block == "type":
            return f"TYPE {K.TYPE_IDS[i]} ({K.CARD_NAMES[int(st.cards_in_play[i])]})"
        if block == "keep":
            m = int(player_record(state, p).dealt_monuments[i]) if p >= 0 else -1
            return f"KEEP {i}" + (f" ({K.CARD_NAMES[m]})" if m >= 0 else "")
        if block == "pass":
            return "PASS"
        return "SET_ASIDE"

    board_squares = 16

    def action_square(self, state, cfg, action):
        block, i = K.ACTIONS.decode(action)
        return i if block == "square" else None

    def _board_lines(self, rec, indent="   "):
        """A town's 4 x 4 squares under a header of column offsets, each row led by the
        number of its first square: square = row number + offset (as the labels count)."""
        lines = [indent + "    " + " ".join(f"+{c:<2}" for c in range(4)).rstrip()]
        lines.extend(f"{indent}{4 * r:>2}  " + " ".join(self._cell(rec, 4 * r + c) for c in range(4)).rstrip()
                     for r in range(4))
        return lines

    def _cell(self, rec, q):
        """Square q of the player record at ``b`` (its own, or the copy the others see)."""
        c = int(rec.building[q])
        if c >= 0:
            s = CARD_CODES[c]
            e = int(rec.building_resource[q])
            if e >= 0:
                s += RES_LETTERS[e]
            elif c == K.C_WAREHOUSE:
                s += str(int(rec.warehouse[q].sum()))
            return s.ljust(3)
        cube = int(rec.cube[q])
        if cube >= 0:
            return RES_LETTERS[cube].ljust(3)
        return ".".ljust(3)

    def private_text(self, state, cfg, seat):
        """``seat``'s dealt or secret monument (until it is built), its placement of this
        round before the placements are revealed, and its build step of this round before the
        last builder is done (the decision under way, and its town as built so far)."""
        st = K.STATE.fields(state)
        rec = player_record(state, seat)
        lines = []
        kept = int(rec.kept_monument)
        if st.monuments and not rec.monument_built:
            if kept >= 0:
                lines.append(f"secret monument: {K.CARD_NAMES[kept]} (pattern {recipe_inline(kept)})")
            else:
                dealt = [f"{K.CARD_NAMES[int(m)]} (pattern {recipe_inline(m)})"
                         for m in rec.dealt_monuments if m >= 0]
                if dealt:
                    lines.append("dealt monuments (keep one): " + ", ".join(dealt))
        pending = pending_placement_text(state, seat)
        if pending:
            lines.append(pending)
        lines.extend(self._hidden_build_text(state, seat))
        return lines

    def _hidden_build_text(self, state, seat):
        """What ``seat`` knows of its own build step while the constructions of the round
        are hidden (R6): the decision under way and, once it has built, its town as built."""
        st = K.STATE.fields(state)
        if not K._builds_hidden(state):
            return []
        lines = []
        ph = int(st.phase)
        if int(st.actor) == seat and ph != K.PH_BUILD:
            step = f"build step under way: {PHASE_NAMES[ph]}"
            token = int(st.token_card)
            if token >= 0:
                vacated = [q for q in range(16) if int(st.token_vacated) >> q & 1]
                step += f", {K.CARD_NAMES[token]} to place (emptied squares {vacated}" + \
                        (", or any empty square)" if st.token_anywhere else ")")
            grove = int(st.grove_type)
            if grove >= 0:
                step += f", Grove University places a {K.TYPE_IDS[grove]} building"
            if ph in (K.PH_GUILD_TARGET, K.PH_GUILD_TYPE) or (
                    ph == K.PH_BUILD_RESOURCE and st.resource_return == K.RET_GUILD):
                replaced = [q for q in range(16) if int(st.guild_replaced) >> q & 1]
                step += f", Architect's Guild: {int(st.guild_left)} left, squares replaced {replaced}"
            for name, square in (("building on square", st.resource_cell), ("replacing square", st.guild_cell)):
                if int(square) >= 0:
                    step += f", {name} {int(square)}"
            if ph == K.PH_OPALEYE_TYPE:
                step += f", {int(st.opaleye_moved)} of {K.OPALEYE_COUNT} types set aside"
            lines.append(step)
        # (builds are hidden: the others see the copy of its record taken at the reveal)
        live_rec, shown_rec = player_record(state, seat), player_record(state, seat, K.TABLE)
        if not np.array_equal(st.players[seat], st.shown_players[seat]):
            parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
            score = int(K.score_seen(state, seat, seat, parts))
            head = f"built this round, hidden until everyone has built: score {score}"
            if live_rec.status:
                head += ", town complete"
            if live_rec.monument_built and not shown_rec.monument_built:
                head += f", monument {K.CARD_NAMES[int(live_rec.kept_monument)]}"
            opal = [K.TYPE_IDS[k] for k in range(K.NUM_TYPES) if live_rec.opaleye_aside[k]]
            if opal:
                head += f", Opaleye set aside {opal}"
            lines.append(head)
            lines.extend(self._board_lines(live_rec, indent="  "))
        return lines

    def render_ansi(self, state, cfg):
        st = K.STATE.fields(state)
        n = int(st.num_players)
        lines = []
        cards = ", ".join(K.CARD_NAMES[int(st.cards_in_play[k])] for k in range(7))
        variant = "solo" if st.solo else ("town hall" if st.town_hall else "standard")
        lines.append(f"Tiny Towns ({variant}) round {int(st.round)} -- cards: {cards}")
        lines.extend(recipe_table([int(st.cards_in_play[k]) for k in range(7)]))
        ph = int(st.phase)
        if K._builds_hidden(state):     # which step of a build step it is stays hidden (R6)
            ph = K.PH_BUILD
        actor = int(st.actor)
        x = int(st.round_resource)
        info = f"phase {PHASE_NAMES[ph]}"
        if ph != K.PH_GAME_OVER:
            info += f", player_{actor} to act"
        if x >= 0:
            info += f", resource {K.RES_IDS[x]}"
        if st.town_hall == 0 and n > 1:
            info += f", Master Builder player_{int(st.master_builder)}"
        if st.town_hall == 1:
            info += f", mayor player_{int(st.mayor)}, {'free' if st.town_hall_free_round else 'drawn'} round"
        if st.solo:
            disp = [K.RES_IDS[r] for r in range(5) for _ in range(int(st.solo_display[r]))]
            info += f", display {disp}"
        lines.append(info)
        parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
        for p in range(n):
            rec = player_record(state, p, K.TABLE)     # this round's constructions: hidden until the reveal
            score = int(K.score_seen(state, p, K.TABLE, parts))
            status = "complete (round %d)" % rec.done_round if rec.status else "building"
            mon = ""
            if rec.monument_built:
                mon = f", monument {K.CARD_NAMES[int(rec.kept_monument)]}"
            opal = [K.TYPE_IDS[k] for k in range(7) if rec.opaleye_aside[k]]
            extra = f", Opaleye set aside {opal}" if opal else ""
            lines.append(f"player_{p}: {status}, score {score}, namings {int(rec.master_builder_turns)}, "
                         f"cave uses {int(rec.cave_uses)}{mon}{extra}")
            lines.extend(self._board_lines(rec))
        return "\n".join(lines)

    def picture(self, state, cfg, observer=None, clickable=False):
        from envs.pictures.tiny_towns import draw
        return draw(state, cfg, observer, clickable)

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg):
        n = cfg.num_players
        breakdown = []
        parts = np.zeros(K.NUM_CARDS + 2, dtype=np.int64)
        totals = []
        for p in range(n):
            tot = int(K._player_score(state, p, parts))
            totals.append(tot)
            d = {"total": tot}
            rec = player_record(state, p)
            present = sorted(set(int(c) for c in rec.building if c >= 0))
            for c in present:
                d[K.CARD_TOKENS[c]] = int(parts[c])
            d["empty"] = int(parts[K.NUM_CARDS])
            d["fed"] = [q for q in range(16) if (int(parts[K.NUM_CARDS + 1]) >> q) & 1]
            breakdown.append(d)
        out = {"breakdown": breakdown}
        if n == 1:
            out["title"] = solo_title(totals[0])
        return out
