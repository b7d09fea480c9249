"""Tiny Towns (``tiny_towns_v0``)
==============================

Every player grows a 4 x 4 town.  Each round one resource (wood, wheat, brick, glass,
stone) is named -- by the Master Builder who holds the hammer, by a drawn card in the
Town Hall variant, or picked from a 3-card display in the solo game -- and every player
still building puts a cube of it on their own board.  Then, one after another, players
turn cube patterns (any rotation or mirror image) into buildings of the 7 cards in play
or of their own secret monument.  A town is complete when its owner ends a build step
with no empty square; the game ends when every town is complete, and every building,
fed Cottage and monument scores (squares without a building cost 1 VP each).

Rules: ``docs/rules/tiny_towns.md`` (the base-game rulebook with the project's rulings
R1-R34 and the turn-order modelling M1-M2); its ``reconstructed`` values are the
``decided_values`` of ``kernels/data/tiny_towns.yaml``.

=================  ==============================================================
Import             ``envs.make("tiny_towns_v0")`` / ``envs.tiny_towns_v0.env()``
Agents             ``player_0`` .. ``player_{n-1}`` (seats clockwise)
Actions            ``Discrete(1056)``
Observation        ``Box(2930,)`` float32 in [0, 1] + ``action_mask`` int8 (1056)
=================  ==============================================================

Options
-------
``num_players``  1 to 6 (default 2).  ``1`` plays the solo rules (Inn, Bank, Fort Ironweed and
    Opaleye's Watch removed; a 15-card resource deck with a 3-card display).
``variant``      ``"standard"`` (default) or ``"town_hall"`` (resource deck cycle drawn, drawn,
    free; needs 2+ players).
``monuments``    ``True`` (default): deal 2 monuments per player, each keeps 1 in secret.
``buildings``    ``None`` (default: one random card per colour deck), ``"first_game"`` or a
    list of card names (``"Feast Hall"`` or ``"feast_hall"``), one per colour deck; the
    Cottage may be listed or not.
``cave_rule``    ``False`` (default) / ``True``: each player may set aside an imposed resource
    at most twice per game.
``first_player`` ``None`` (random) or a seat: the first Master Builder (Town Hall: the mayor).

Every option is checked: an unknown option, a wrong type (a number for ``buildings``, a
list for ``variant``, nested lists, ...) or an unordered container (a set of card names:
pass a list) raises ``ValueError`` naming the option.

The shell adds ``render_mode`` (``"ansi"``, ``"human"``, ``"rgb_array"``), ``reward_mode``
and ``illegal_action``; see :mod:`envs.shell`.  Rewards: with 2-6 players ``"rank"``
(default) pays +1 first .. -1 last after the tie-breaks, ``"score"`` own final VP minus
the mean of the others.  Solo has no win or loss: in both modes the lone player is paid
its final score (``winners`` names it, as the API promises for a lone player), and the
infos carry its rating ``title``.

Decisions (phases)
------------------
``KEEP`` (which dealt monument to keep, seat order at setup), ``NAME`` (Master Builder;
never a resource lying on their own Banks unless all five are), ``CHOOSE`` (Town Hall
free round / solo display), ``TAKE`` (Factory substitution), ``DEST`` (where the cube
goes), ``SWAP`` / ``SWAP_SQUARE`` (Warehouse), ``BUILD`` (a construction or PASS =
done), ``TOKEN`` (square of the new building), ``BUILD_RESOURCE`` (Factory/Bank cube),
``GROVE_TYPE`` / ``GROVE_SQUARE``, ``GUILD_TARGET`` / ``GUILD_TYPE``, ``OPALEYE_TYPE``,
``OPALEYE_SQUARE`` and ``GAME_OVER``.  The placements of a round (``CHOOSE`` in Town
Hall free rounds, ``TAKE``, ``DEST``, ``SWAP``, ``SWAP_SQUARE``) are hidden commitments
made one player at a time in turn order and revealed together when the last one is in;
while another player commits, the observation shows only "another player is placing".
The player to move sees all of its own pending choices (resource, destination, swap).

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
every other forced choice is a one-action mask.

Action encoding (``docs/rules/tiny_towns.md``, section 11.2)
---------------------------------------------------------------------------
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
Per player (6 x 431): 16 squares x 25 planes -- empty, loose cube per resource (5),
non-monument building per type (7), monument, resource on the building (Factory/Bank
cube or Statue cube, 5), Warehouse stock per resource (/3), placed this round (effects
not active yet) -- then seat present, still building, complete, completion round /100,
Master Builder turns /100, holds the hammer, cave uses left /2, built monument (15
one-hot), Shrine value /8, Opaleye set-aside types (7), committed this round.
Public (161): cards in play (25 multi-hot), player count (6), variant flags (town hall,
solo, monuments, cave rule), round /100, phase (17 + "another player is placing"),
actor relative to the observer (6), the round's public resource (5), imposed on me,
Town Hall round kind (drawn, free), unseen cards per resource /3 (Town Hall since the last
shuffle; solo: never-seen cards), draws left /10, face-up discards /3, solo display /3,
solo never-seen cards /12, the ordered queue of cards put under the solo deck (15 x 5)
and its length /15.  Private (79): dealt monuments (until one is kept), kept monument,
own pending commitment (chosen resource, resource taken, destination incl. set aside,
swap resource, swap square, committed).  Step context (104): card waiting for its token,
vacated squares, token may go anywhere, Grove type chosen, Guild replacements left and
squares replaced, Opaleye type moving, square of the building awaiting a resource.
Never included: other players' unbuilt monuments, their uncommitted or unrevealed
placements, the returned monuments, deck order and face-down discards.

Hidden information and chance
-----------------------------
Town Hall draws and solo refills are drawn lazily from per-resource counts of the unseen
cards, so no future draw sits in the state.  ``reseed`` re-keys the generator;
``determinize(observer)`` also re-deals the other players' unbuilt monuments from the
monuments the observer has not seen and replaces their committed-but-unrevealed
placements by random legal ones (a player in the middle of its placement gets its earlier
sub-choices redone at random, up to the same step).  ``observer`` and ``seed`` are checked
by the shell, the adapter and the kernel entry.

Scores and infos
----------------
``infos[agent]["scores"]`` are the best-feeding town scores (``docs/rules/tiny_towns.md``, section 6);
``end_infos`` adds ``breakdown`` (per player, per card token, ``empty``, ``fed`` squares)
and, in solo, ``title`` (the rating of data ``solo.ratings``).  Tie-breaks: fewer
Master Builder turns (standard multi-player only), fewer squares without a building,
more Cottages (Barrett Castle weighs 2).  ``score_town`` scores any 4 x 4 position; it
checks every argument (``ValueError`` naming it).  ``solo_title(score)`` gives the rating.

Greedy baseline
---------------
The live score already charges -1 for every square without a building, so
``kernels.tiny_towns.potential`` adds what the board promises beyond it: each loose cube's
best share of a building pattern it can still complete (growing as the pattern fills up;
dead cubes earn nothing), a value for empty squares and for unfed Cottages, the best
square for a cube still to be placed this round (so naming and placing look ahead), and
while a token waits, the real score gain of the construction.  With it (weight 1)
``GreedyAgent`` beats ``RandomAgent`` in 99-100 % of two-player games (200 games, seeds 7
and 11) at about 0.3 ms per move.

Data
----
All tables (patterns, scores, tables, presets, solo ratings, decided values) live in
``kernels/data/tiny_towns.yaml`` with the provenance of each entry (``rulebook``,
``public`` or ``reconstructed``).  The file is checked against its schema when the kernel
loads it (``kernels.tiny_towns.read_data(path)`` checks an edited copy): types, ranges and
cross-field totals (25 building cards, 4 per colour deck, 15 monuments, patterns of the 5
resource codes, table values in range), and a bad field raises
``kernels.data_files.DataError`` (a ``ValueError``) naming it, e.g. ``buildings[3].pattern[1]``.

Version history
---------------
v0: initial.
v0.1: whose turn it is depends on public information only (Warehouse steps padded, the
build step offered to every player still building when others are at the table); solo
pays the score in every reward mode, with the rating ``title`` in the infos; options,
``score_town``, ``solo_title`` and ``determinize`` validate their arguments; the data file
is checked at load; the kernel's scratch lives at the state tail.
v0.2: the ``BUILD`` step is offered only when a card in play or a monument nobody has
built could fit the player's board (public information), no longer to every player still
building: as leak-free, with far fewer ``PASS``-only steps (random games 108 -> 77 steps
at 2 players, 198 -> 136 at 4).
"""
import numpy as np

from envs.spec import GameConfig, GameSpec
from kernels import tiny_towns as K

PHASE_NAMES = K.PHASE_NAMES
CODES = {
    "Cottage": "Co", "Farm": "Fa", "Granary": "Gr", "Greenhouse": "Gh", "Orchard": "Or",
    "Well": "We", "Fountain": "Fo", "Millstone": "Mi", "Shed": "Sh", "Chapel": "Ch", "Abbey": "Ab",
    "Cloister": "Cl", "Temple": "Te", "Tavern": "Ta", "Almshouse": "Al", "Inn": "In",
    "Feast Hall": "FH", "Theater": "Th", "Bakery": "Ba", "Market": "Ma", "Tailor": "Tl",
    "Factory": "Fc", "Bank": "Bk", "Trading Post": "TP", "Warehouse": "Wh",
    "Architect's Guild": "AG", "Archive of the Second Age": "AR", "Barrett Castle": "BC",
    "Cathedral of Caterina": "CC", "Fort Ironweed": "FI", "Grand Mausoleum of the Rodina": "GM",
    "Grove University": "GU", "Mandras Palace": "MP", "Obelisk of the Crescent": "OC",
    "Opaleye's Watch": "OW", "Shrine of the Elder Tree": "SE", "Silva Forum": "SF",
    "The Sky Baths": "SB", "The Starloom": "SL", "Statue of the Bondmaker": "SM",
}
CARD_CODES = [CODES[n] for n in K.CARD_NAMES]
RES_LETTERS = "whbgs"
TYPE_COLOURS = [(70, 110, 200), (190, 50, 50), (140, 140, 140), (230, 140, 40), (60, 150, 70),
                (230, 200, 50), (40, 40, 40), (150, 80, 180)]
RES_COLOURS = [(120, 75, 35), (240, 220, 60), (200, 50, 40), (80, 170, 230), (150, 150, 150)]
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
_MAX_PLAYERS = 6


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
        _int_arg("starloom_place", starloom_place, 1, _MAX_PLAYERS)
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
    parts = np.zeros(K.NCARDS + 2, dtype=np.int64)
    total = K.score_board(bld, wh, right, 1 if solo else 0,
                          int(shrine_value or 0), int(starloom_place or 1), parts)
    out = {"total": int(total)}
    for c in sorted(set(int(x) for x in bld if x >= 0)):
        out[K.CARD_TOKENS[c]] = int(parts[c])
    out["empty"] = int(parts[K.NCARDS])
    return out


# ------------------------------------------------------------------------- Spec
class Spec(GameSpec):
    game_id = "tiny_towns_v0"
    metadata_name = "tiny_towns_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    # MCTSAgent scores a leaf by the greedy evaluation at once (no random moves), a
    # lead of margin_scale points counting as tanh(1):
    # towns score about -15 to +20, so a few points decide a game.
    mcts_playout_depth = 0
    margin_scale = 5.0
    player_counts = (1, 2, 3, 4, 5, 6)
    default_num_players = 2
    max_steps = 100_000

    OPTIONS = ("num_players", "variant", "monuments", "buildings", "cave_rule", "first_player")

    def configure(self, **options):
        for k in options:
            if k not in self.OPTIONS:
                raise ValueError(f"unknown option {k!r} for tiny_towns_v0 (options: {', '.join(self.OPTIONS)})")
        n = options.get("num_players", 2)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= int(n) <= 6:
            raise ValueError(f"num_players must be an integer from 1 to 6, got {n!r}")
        n = int(n)
        variant = options.get("variant", "standard")
        if not isinstance(variant, str) or variant not in ("standard", "town_hall"):
            raise ValueError(f"variant must be 'standard' or 'town_hall', got {variant!r}")
        if variant == "town_hall" and n < 2:
            raise ValueError("variant 'town_hall' needs num_players >= 2")
        monuments = options.get("monuments", True)
        if not isinstance(monuments, (bool, np.bool_)):
            raise ValueError(f"monuments must be True or False, got {monuments!r}")
        cave = options.get("cave_rule", False)
        if not isinstance(cave, (bool, np.bool_)):
            raise ValueError(f"cave_rule must be True or False, got {cave!r}")
        first = options.get("first_player", None)
        if first is not None and (isinstance(first, bool) or not isinstance(first, (int, np.integer))
                                  or not 0 <= int(first) < n):
            raise ValueError(f"first_player must be None or a seat 0..{n - 1}, got {first!r}")
        buildings = options.get("buildings", None)
        cards = [-1] * 7
        names = None
        if buildings is not None:
            if isinstance(buildings, str):
                if buildings != "first_game":
                    raise ValueError(f"buildings must be None, 'first_game' or a list of card names, got {buildings!r}")
                names = K.DATA["presets"]["first_game"]["cards"]
            elif isinstance(buildings, (list, tuple)):
                names = list(buildings)
            elif isinstance(buildings, (set, frozenset, dict)):
                raise ValueError(f"buildings must be None, 'first_game' or a list of card names, got a "
                                 f"{type(buildings).__name__} (unordered containers are refused: pass a list)")
            else:
                raise ValueError(f"buildings must be None, 'first_game' or a list of card names, got {buildings!r}")
            for name in names:
                c = _card_index(name)
                if c >= K.NB:
                    raise ValueError(f"buildings: {name!r} is a monument, not a building card")
                t = int(K.CARD_TYPE[c])
                if t == 0:
                    continue
                if cards[t] >= 0:
                    raise ValueError(f"buildings: two cards of the {K.TYPE_IDS[t]} deck ({name!r})")
                if n == 1 and K.SOLO_REMOVED[c]:
                    raise ValueError(f"buildings: {name!r} is not used in the solo game")
                cards[t] = c
            missing = [K.TYPE_IDS[t] for t in range(1, 7) if cards[t] < 0]
            if missing:
                raise ValueError(f"buildings: no card of the {', '.join(missing)} deck(s)")
        config = np.full(K.CONFIG_SIZE, -1, dtype=np.int64)
        config[0] = n
        config[1] = 1 if variant == "town_hall" else 0
        config[2] = 1 if monuments else 0
        config[3] = 1 if cave else 0
        config[4] = -1 if first is None else int(first)
        config[5] = 0
        for t in range(1, 7):
            config[5 + t] = cards[t]
        if buildings is not None and not isinstance(buildings, str):
            buildings = tuple(K.CARD_NAMES[c] for c in [K.C_COTTAGE] + cards[1:])
        opts = {"num_players": n, "variant": variant, "monuments": bool(monuments),
                "buildings": buildings, "cave_rule": bool(cave),
                "first_player": None if first is None else int(first)}
        return GameConfig(num_players=n, config=config, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=opts, scratch=K.SCRATCH)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        out = []
        for i in range(K.MAXP):
            out.append((f"player{i}_squares", (16, K.OBS_PLANES)))
            out.append((f"player{i}_vector", (K.OBS_PVEC,)))
        out += [("public", (K.OBS_PUBLIC,)), ("private", (K.OBS_PRIVATE,)), ("context", (K.OBS_CONTEXT,))]
        return out

    def observation_bounds(self, cfg):
        return 0.0, 1.0

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        return PHASE_NAMES[int(state[K.G_PHASE])]

    def action_label(self, state, cfg, action):
        a = int(action)
        p = int(state[K.G_ACTOR])
        if a < 1024:
            slot, t, anchor = a // 128, (a % 128) // 16, a % 16
            card = int(K._slot_card(state, max(p, 0), slot)) if p >= 0 else -1
            name = K.CARD_NAMES[card] if card >= 0 else f"slot {slot}"
            return f"CONSTRUCT {name} t={t} at {anchor}"
        if a < K.A_RES:
            return f"SQUARE {a - K.A_SQ}"
        if a < K.A_TYPE:
            return f"RESOURCE {K.RES_IDS[a - K.A_RES]}"
        if a < K.A_KEEP:
            k = a - K.A_TYPE
            return f"TYPE {K.TYPE_IDS[k]} ({K.CARD_NAMES[int(state[K.G_CARDS + k])]})"
        if a < K.A_PASS:
            i = a - K.A_KEEP
            m = int(state[K._pb(p) + K.O_DEALT + i]) if p >= 0 else -1
            return f"KEEP {i}" + (f" ({K.CARD_NAMES[m]})" if m >= 0 else "")
        if a == K.A_PASS:
            return "PASS"
        return "SET_ASIDE"

    def _cell(self, state, p, q):
        b = K._pb(p)
        c = int(state[b + K.O_BLD + q])
        if c >= 0:
            s = CARD_CODES[c]
            e = int(state[b + K.O_EXTRA + q])
            if e >= 0:
                s += RES_LETTERS[e]
            elif c == K.C_WAREHOUSE:
                s += str(int(K._wh_count(state, p, q)))
            return s.ljust(3)
        cube = int(state[b + K.O_CUBE + q])
        if cube >= 0:
            return RES_LETTERS[cube].ljust(3)
        return ".".ljust(3)

    def render_ansi(self, state, cfg):
        n = int(state[K.G_NP])
        lines = []
        cards = ", ".join(K.CARD_NAMES[int(state[K.G_CARDS + k])] for k in range(7))
        variant = "solo" if state[K.G_SOLO] else ("town hall" if state[K.G_VARIANT] else "standard")
        lines.append(f"Tiny Towns ({variant}) round {int(state[K.G_ROUND])} -- cards: {cards}")
        ph = int(state[K.G_PHASE])
        actor = int(state[K.G_ACTOR])
        x = int(state[K.G_X])
        info = f"phase {PHASE_NAMES[ph]}"
        if ph != K.PH_OVER:
            info += f", player_{actor} to act"
        if x >= 0:
            info += f", resource {K.RES_IDS[x]}"
        if state[K.G_VARIANT] == 0 and n > 1:
            info += f", Master Builder player_{int(state[K.G_MB])}"
        if state[K.G_VARIANT] == 1:
            info += f", mayor player_{int(state[K.G_MAYOR])}, {'free' if state[K.G_THKIND] else 'drawn'} round"
        if state[K.G_SOLO]:
            disp = [K.RES_IDS[r] for r in range(5) for _ in range(int(state[K.G_DISPLAY + r]))]
            info += f", display {disp}"
        lines.append(info)
        sc = np.zeros(n, dtype=np.int64)
        K.scores(state, sc)
        for p in range(n):
            b = K._pb(p)
            status = "complete (round %d)" % state[b + K.O_CROUND] if state[b + K.O_STATUS] else "building"
            mon = ""
            if state[b + K.O_MBUILT]:
                mon = f", monument {K.CARD_NAMES[int(state[b + K.O_KEPT])]}"
            opal = [K.TYPE_IDS[k] for k in range(7) if state[b + K.O_OPAL + k]]
            extra = f", Opaleye set aside {opal}" if opal else ""
            lines.append(f"player_{p}: {status}, score {int(sc[p])}, namings {int(state[b + K.O_MBT])}, "
                         f"cave uses {int(state[b + K.O_CAVE])}{mon}{extra}")
            for r in range(4):
                lines.append("   " + " ".join(self._cell(state, p, 4 * r + c) for c in range(4)))
        return "\n".join(lines)

    def render_rgb(self, state, cfg):
        from PIL import Image, ImageDraw
        n = int(state[K.G_NP])
        cell, pad = 36, 12
        tw = 4 * cell
        cols = min(n, 3)
        rows = (n + cols - 1) // cols
        w = cols * (tw + pad) + pad
        h = rows * (tw + pad + 16) + pad + 20
        sc = np.zeros(n, dtype=np.int64)
        K.scores(state, sc)
        img = Image.new("RGB", (w, h), (245, 240, 225))
        d = ImageDraw.Draw(img)
        d.text((pad, 4), f"round {int(state[K.G_ROUND])}  phase {PHASE_NAMES[int(state[K.G_PHASE])]}",
               fill=(0, 0, 0))
        for p in range(n):
            b = K._pb(p)
            x0 = pad + (p % cols) * (tw + pad)
            y0 = 20 + pad + (p // cols) * (tw + pad + 16)
            status = "done" if state[b + K.O_STATUS] else "building"
            d.text((x0, y0), f"player_{p}  {int(sc[p])} VP  {status}", fill=(0, 0, 0))
            y0 += 14
            for q in range(16):
                cx = x0 + (q % 4) * cell
                cy = y0 + (q // 4) * cell
                d.rectangle([cx, cy, cx + cell - 1, cy + cell - 1], fill=(225, 215, 190), outline=(90, 80, 60))
                c = int(state[b + K.O_BLD + q])
                cube = int(state[b + K.O_CUBE + q])
                if c >= 0:
                    col = TYPE_COLOURS[int(K.CARD_TYPE[c])]
                    d.rectangle([cx + 3, cy + 3, cx + cell - 4, cy + cell - 4], fill=col)
                    txt = (255, 255, 255) if sum(col) < 400 else (0, 0, 0)
                    d.text((cx + 8, cy + 11), CARD_CODES[c], fill=txt)
                elif cube >= 0:
                    d.rectangle([cx + 10, cy + 10, cx + cell - 11, cy + cell - 11], fill=RES_COLOURS[cube],
                                outline=(0, 0, 0))
        return np.asarray(img, dtype=np.uint8).copy()

    # ------------------------------------------------------- hidden information
    def reseed(self, state, cfg, seed):
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        K.reseed(state, int(seed) & ((1 << 63) - 1))

    def determinize(self, state, cfg, observer, seed):
        # The shell checks both; a seat out of range must never reach the kernel (it indexes
        # the state with it), whoever calls this.
        if isinstance(observer, (bool, np.bool_)) or not isinstance(observer, (int, np.integer)) \
                or not 0 <= int(observer) < cfg.num_players:
            raise ValueError(f"observer must be a seat 0..{cfg.num_players - 1}, got {observer!r}")
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        K.determinize(state, int(observer), int(seed) & ((1 << 63) - 1))

    # --------------------------------------------------------------- game end
    def winners(self, state, cfg, ranks):
        return [p for p in range(cfg.num_players) if ranks[p] == 1]

    def end_infos(self, state, cfg):
        n = cfg.num_players
        breakdown = []
        parts = np.zeros(K.NCARDS + 2, dtype=np.int64)
        totals = []
        for p in range(n):
            tot = int(K._player_score(state, p, parts))
            totals.append(tot)
            d = {"total": tot}
            b = K._pb(p)
            present = sorted(set(int(c) for c in state[b + K.O_BLD:b + K.O_BLD + 16] if c >= 0))
            for c in present:
                d[K.CARD_TOKENS[c]] = int(parts[c])
            d["empty"] = int(parts[K.NCARDS])
            d["fed"] = [q for q in range(16) if (int(parts[K.NCARDS + 1]) >> q) & 1]
            breakdown.append(d)
        out = {"breakdown": breakdown}
        if n == 1:
            out["title"] = solo_title(totals[0])
        return out
