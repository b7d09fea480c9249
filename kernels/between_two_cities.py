"""Between Two Cities: rules kernel (numba) on one flat ``int64`` state array.

Contract: see :mod:`envs.spec`.  Rules: ``docs/rules/between_two_cities.md`` (section and
ruling numbers below are its own; the Korean rulebook is the edition implemented).

Tile codes (also the pick actions): ``0..8`` a single of kind id 0..8 (shop, factory,
drink, food, music, lodging, office, park, house); ``9..32`` duplex id ``code - 9``.
Actions (``ACTIONS``, blocks ``pick`` and ``place``): ``A_PICK + t`` picks tile code
``t`` (0..32); ``A_PLACE + slot*49 + r*7 + c`` (33..130) places waiting tile ``slot``
with its anchor (left / top half) on canvas cell ``(r, c)`` of the city being built.
Every 4x4 city lives on a 7x7 canvas whose first tile goes to ``(3, 3)``.

Layouts: the state is declared field by field in ``STATE`` (a
:class:`kernels.layout.Layout`; each city's bounding box is a ``BOX`` record), scratch
space last; the observation in ``OBS``, each part with its bounds.  The module
constants the jitted code uses (``HANDS``, ``OB_HAND`` ...) are the declared offsets.
Phases: ``PH_PICK``, ``PH_PLACE``, ``PH_END`` (names in ``PHASE_NAMES``); table modes:
``MODE_STD`` (3-7 players), ``MODE_2P``, ``MODE_SIMPLE`` and ``MODE_FULL`` (solo).

Seats / cities: city ``k`` lies between seat ``k`` and seat ``k+1``; seat ``s``'s left
city is ``s`` and its right city ``s-1`` (3-7 players and solo, where seat 1 is
automaton A, seat 2 automaton B and city 1 the Deep Learning City).  Two players:
seat ``s`` owns cities ``2s`` (left) and ``2s+1`` (right).

Scores and ranks (rules sections 6.7, 7): a participant's key is its score (lower city;
sum of its two cities with 2 players) followed by the data file's tie-break items
(``scoring.tie_break``, table ``TIE_ORDER``): the higher of its two cities -- with 2
players too (ruling 14, revised) -- then building counts by type.  ``all_ranks`` /
``ranks`` rank every participant, the solo automata included (seats first, then A and
B), with standard competition ranking: participants equal on the whole key share a rank
(a seat tied with an automaton shares its place).  The Deep Learning City gives every
office the +1 tavern bonus whether or not it holds a tavern (ruling 19, revised).

Data: ``kernels/data/between_two_cities.yaml`` is checked at import by
:func:`check_data` (types, ranges, references, and cross-field totals: every city ends
with exactly 16 cells, the supplies cover the largest game, no city can score beyond the
observation bound); :func:`load_data` runs the same check on any file.

Cold start: constants passed between jitted functions are ``np.int64`` globals
(``I_NO``, ``I_RNG`` ...) or ``np.int64(k)``, never int literals, since a plain int or
bool constant reaches the callee as a Literal type and compiles one more specialisation
of it and of everything it calls; the automata run at the end of ``init`` / ``step``
(flag ``AUTOMATA_DUE``) rather than inside the flow helpers, and ``_automaton_choice`` /
``_tile_gain`` are inlined into ``_run_automata``: numba re-optimises a function's whole
call tree into its own machine code, so heavy code reached through many small jitted
levels is compiled many times.

Hidden information: :func:`reseed` re-draws the undrawn supplies and automa cards;
:func:`determinize` also re-deals, for one observer, every hand, unrevealed pick and
discard it cannot know.  Both leave the observer's view unchanged and draw from SORTED
pools with a generator keyed by the seed alone, so the worlds a search draws depend only
on the seed and on what the observer has seen (details in :func:`determinize`).

Version history: v0 initial; v0 (issue 14/15 pass): 2-player ties by the higher city,
Deep Learning City office bonus without condition, data-file schema check, cold start
19-21 s -> about 10-11 s CPU; v0 (one way to write a game): declared state, observation
and action layouts, determinize in the kernel (numba), shared grid helpers; no rule change;
v0 (issue 18): ``feature_potential`` for the action-value features; greedy's unchanged.
Rules revision 2 ("Rules, third pass"): the difficulty levels 1-5 adjust the Deep Learning
City's final score by -10, -5, 0, +5, +10 (were +0 .. +20; ruling 18, revised).
"""
import numpy as np
from numba import njit

from kernels import data_files, grid, rng
from kernels.layout import ActionBlocks, Layout
from kernels.outcome import ranks_lexicographic

# Sections, in the order every kernel file keeps: data (the tables of
# kernels/data/<game>.yaml) -> layouts (actions, state, config) -> helpers -> rules (the
# game's own parts) -> contract (init, current_player, legal_mask, step, advance, scores,
# ranks) -> observation (its layout, observe) -> hidden information (reseed, determinize)
# -> greedy heuristic (potential).

_D = data_files.load("between_two_cities", __file__)

# ----------------------------------------------------------------------------- data schema
# What the engine is built around (action ids, observation planes, the documented
# encodings): the data file may change values, not this frame.
CANON_KINDS = ("shop", "factory", "tavern_drink", "tavern_food", "tavern_music", "tavern_lodging",
               "office", "park", "house")
CANON_TYPES = ("shop", "factory", "tavern", "office", "park", "house")
CANON_KIND_TYPE = ("shop", "factory", "tavern", "tavern", "tavern", "tavern", "office", "park", "house")
CANON_DUPLEXES = 24       # pick actions 9..32
CANON_CARDS = 20          # observation part last_automa_cards [2, 20]
MAX_CITY_SCORE = 400      # observation bound of city_scores
MAX_DIFFICULTY_ADJUSTMENT = 100   # |points| a difficulty level may add to or take from the Deep Learning City
_TIE_ITEMS = ("higher_city",) + CANON_TYPES
_ITEMS = CANON_TYPES + ("max_points", "new_type_if_house")
_SINGLE_REMAINDERS = ("pass_left", "pass_right", "pass_to_opponent")


def _int_value(ck, path, v, lo, hi):
    """:meth:`Checker.integer` for a value already in hand (mappings keyed by ints)."""
    if isinstance(v, bool) or not isinstance(v, int):
        ck.fail(path, f"expected an integer, got {v!r}")
    if v < lo or v > hi:
        ck.fail(path, f"must be in [{lo}, {hi}], got {v}")
    return v


def _int_table(ck, path, keys, lo, hi):
    """A mapping whose keys are exactly the ints ``keys``, values ints in ``[lo, hi]``."""
    m = ck.mapping(path)
    ck.require(sorted(m, key=str) == sorted(keys, key=str), path,
               f"expected the keys {list(keys)}, got {list(m)}")
    return {k: _int_value(ck, f"{path}.{k}", m[k], lo, hi) for k in keys}


def _schedule(ck, path, rounds, hand, dhand):
    """Checks one round list (standard, two_player or solo_full); returns (#single rounds,
    #duplex rounds)."""
    ck.require(1 <= len(rounds) <= 6, path, f"expected 1 to 6 rounds, got {len(rounds)}")
    solo = path.endswith("solo_full.rounds")
    ns = nd = 0
    for i, r in enumerate(rounds):
        p = f"{path}[{i}]"
        ck.mapping(p)
        if path.endswith("two_player.rounds"):
            ck.string(f"{p}.round")
        else:
            ck.integer(f"{p}.round", i + 1, i + 1)
        tiles = ck.string(f"{p}.tiles", ("single", "duplex"))
        if not solo:
            ck.integer(f"{p}.keep_per_turn", 2, 2)
        if tiles == "single":
            ns += 1
            ck.string(f"{p}.remainder", _SINGLE_REMAINDERS)
            ck.require(ck.integer(f"{p}.hand_size", 1, 99) == hand, f"{p}.hand_size",
                       f"every single round deals the same hand ({hand} tiles)")
            turns = ck.integer(f"{p}.turns", 1, 3)
            ck.require(turns == (hand - 1) // 2, f"{p}.turns",
                       f"a hand of {hand} picked 2 at a time lasts {(hand - 1) // 2} turns, got {turns}")
            ck.string(f"{p}.leftover", ("discard_unseen",))
            if solo:
                ck.require(ck.boolean(f"{p}.hands_face_up"), f"{p}.hands_face_up",
                           "the full solo game plays with open hands")
        else:
            nd += 1
            ck.string(f"{p}.remainder", ("discard",))
            if solo:
                ck.integer(f"{p}.human_draws", dhand, dhand)
                ck.integer(f"{p}.repeats", 2, 2)
                ck.integer(f"{p}.human_assigns", 2, 2)
                ck.require(not ck.boolean(f"{p}.automata_act"), f"{p}.automata_act",
                           "the automata sit out duplex rounds")
            else:
                ck.integer(f"{p}.hand_size", dhand, dhand)
                ck.integer(f"{p}.turns", 1, 1)
    return ns, nd


def check_data(data):
    """Validate the parsed data file against the schema the engine needs: types, ranges,
    references between fields and cross-field totals (every city ends with exactly 16
    cells; the supplies cover 7 players and both solo modes; no city can score beyond
    the observation bound).  Raises :class:`kernels.data_files.DataError` naming the
    field.  Returns ``data``."""
    ck = data_files.Checker(data, "between_two_cities")
    if not isinstance(data, dict):
        ck.fail("<top>", f"expected a mapping, got {type(data).__name__}")
    ck.string("game", ("between_two_cities",))
    ck.integer("data_version", 1)
    order = ck.sequence("building_types.order", length=len(CANON_TYPES))
    for i, t in enumerate(order):
        ck.string(f"building_types.order[{i}]", CANON_TYPES)
    ck.require(len(set(order)) == len(order), "building_types.order", "types must be unique")
    kinds = ck.sequence("tile_kinds.list", length=len(CANON_KINDS))
    chars = set()
    for i in range(len(kinds)):
        p = f"tile_kinds.list[{i}]"
        ck.mapping(p)
        ck.require(ck.integer(f"{p}.id", 0, len(CANON_KINDS) - 1) == i, f"{p}.id",
                   f"kind ids must be 0..{len(CANON_KINDS) - 1} in order")
        ck.string(f"{p}.name", (CANON_KINDS[i],))
        ck.string(f"{p}.type", (CANON_KIND_TYPE[i],))
        ch = ck.string(f"{p}.score_city_char")
        ck.require(len(ch) == 1 and ch != "." and not ch.isspace(), f"{p}.score_city_char",
                   f"expected one character other than '.', got {ch!r}")
        ck.require(ch not in chars, f"{p}.score_city_char", f"{ch!r} is used by another kind")
        chars.add(ch)
    counts = ck.mapping("single_tiles.counts")
    ck.require(set(counts) == set(CANON_KINDS), "single_tiles.counts",
               f"expected one count per kind {list(CANON_KINDS)}, got {list(counts)}")
    n_singles = sum(ck.integer(f"single_tiles.counts.{k}", 0, 200) for k in CANON_KINDS)
    ck.require(ck.integer("single_tiles.total", 0) == n_singles, "single_tiles.total",
               f"must equal the sum of the counts ({n_singles})")
    ck.integer("duplex_tiles.count", CANON_DUPLEXES, CANON_DUPLEXES)
    dups = ck.sequence("duplex_tiles.list", length=CANON_DUPLEXES)
    layouts = ck.mapping("duplex_tiles.layouts")
    ck.require(set(layouts) == {"side_by_side", "stacked"}, "duplex_tiles.layouts",
               "expected exactly side_by_side and stacked")
    halves = dict.fromkeys(CANON_TYPES, 0)
    for i in range(len(dups)):
        p = f"duplex_tiles.list[{i}]"
        ck.mapping(p)
        ck.require(ck.integer(f"{p}.id", 0, CANON_DUPLEXES - 1) == i, f"{p}.id",
                   f"duplex ids must be 0..{CANON_DUPLEXES - 1} in order")
        ck.string(f"{p}.layout", ("side_by_side", "stacked"))
        ck.sequence(f"{p}.halves", length=2)
        for j in range(2):
            halves[CANON_KIND_TYPE[CANON_KINDS.index(ck.string(f"{p}.halves[{j}]", CANON_KINDS))]] += 1
    per_type = ck.mapping("duplex_tiles.halves_per_type")
    ck.require(set(per_type) == set(CANON_TYPES), "duplex_tiles.halves_per_type",
               f"expected one entry per type {list(CANON_TYPES)}")
    for t in CANON_TYPES:
        ck.require(ck.integer(f"duplex_tiles.halves_per_type.{t}", 0) == halves[t],
                   f"duplex_tiles.halves_per_type.{t}", f"the duplex list has {halves[t]} {t} halves")
    # ------------------------------------------------------------------ scoring
    s = "scoring"
    line = _int_table(ck, f"{s}.shop.points_by_line_length", (1, 2, 3, 4), 0, 100)
    fact = {k: ck.integer(f"{s}.factory.points_per_factory.{k}", 0, 100) for k in ("most", "second", "other")}
    tav = _int_table(ck, f"{s}.tavern.points_by_set_size", (1, 2, 3, 4), 0, 100)
    gmax = ck.integer(f"{s}.office.group_max", 1, 16)
    off = _int_table(ck, f"{s}.office.points_by_group_size", tuple(range(1, gmax + 1)), 0, 100)
    obonus = ck.integer(f"{s}.office.tavern_adjacency_bonus_per_office", 0, 100)
    park = _int_table(ck, f"{s}.park.points_by_group_size", (1, 2, 3), 0, 100)
    pextra = ck.integer(f"{s}.park.extra_per_tile_above_3", 0, 100)
    hper = ck.integer(f"{s}.house.points_per_distinct_other_type", 0, 100)
    hfac = ck.integer(f"{s}.house.adjacent_to_factory_points", 0, 100)
    other = ck.sequence(f"{s}.house.other_types", max_len=len(CANON_TYPES) - 1)
    for i in range(len(other)):
        ck.string(f"{s}.house.other_types[{i}]", CANON_TYPES[:-1])
    ck.require(len(set(other)) == len(other), f"{s}.house.other_types", "types must be unique")
    ck.string(f"{s}.player_score.three_to_seven", ("lower_city",))
    ck.string(f"{s}.player_score.two_player", ("sum_of_cities",))
    ck.string(f"{s}.player_score.solo", ("lower_city",))
    for key in ("three_to_seven_and_solo", "two_player"):
        p = f"{s}.tie_break.{key}"
        items = ck.sequence(p, min_len=1, max_len=len(_TIE_ITEMS))
        for i in range(len(items)):
            ck.string(f"{p}[{i}]", _TIE_ITEMS)
        ck.require(len(set(items)) == len(items), p, "items must be unique")
    # the best a building can add to a city, times 16 cells, plus the largest difficulty adjustment
    per_cell = max([line[k] / k for k in line] + list(fact.values()) + [tav[k] / k for k in tav]
                   + [off[k] / k + obonus for k in off] + [park[k] / k for k in park] + [pextra]
                   + [hper * len(other), hfac])
    # ------------------------------------------------------------------ schedules
    hand = ck.integer("schedules.standard.rounds[0].hand_size", 3, 7)
    ck.require(hand % 2 == 1, "schedules.standard.rounds[0].hand_size",
               f"a hand picked 2 at a time must be odd to end on one tile, got {hand}")
    dhand = None
    for key in ("standard", "two_player", "solo_full"):
        rounds = ck.sequence(f"schedules.{key}.rounds")
        for i in range(len(rounds)):
            if ck.get(f"schedules.{key}.rounds[{i}].tiles", None) == "duplex":
                n = ck.integer(f"schedules.{key}.rounds[{i}]."
                               + ("human_draws" if key == "solo_full" else "hand_size"), 2, 3)
                ck.require(dhand is None or n == dhand, f"schedules.{key}.rounds[{i}]",
                           f"every duplex round deals the same hand ({dhand} duplexes)")
                dhand = n
    if dhand is None:
        ck.fail("schedules.standard.rounds", "no duplex round")
    turns = (hand - 1) // 2
    std = ck.sequence("schedules.standard.rounds")
    ns, nd = _schedule(ck, "schedules.standard.rounds", std, hand, dhand)
    # every city gets 2 tiles a turn (one per neighbour), 2 duplexes a duplex round
    ck.require(ns * turns * 2 + nd * 2 * 2 == 16, "schedules.standard.rounds",
               "the rounds must fill every city with exactly 16 cells")
    need_s, need_d = 7 * hand * ns, 7 * dhand * nd
    two = ck.sequence("schedules.two_player.rounds")
    ns2, nd2 = _schedule(ck, "schedules.two_player.rounds", two, hand, dhand)
    ck.require(ns2 * turns + nd2 * 2 == 16, "schedules.two_player.rounds",
               "the half-rounds must fill every city with exactly 16 cells")
    need_s, need_d = max(need_s, 2 * hand * ns2), max(need_d, 2 * dhand * nd2)
    its = ck.sequence("schedules.solo_simple.iterations", min_len=1, max_len=7)
    for i in range(len(its)):
        ck.string(f"schedules.solo_simple.iterations[{i}]", ("single", "duplex"))
    ck.integer("schedules.solo_simple.random_assignment_tiles", 3, 3)
    ck.integer("schedules.solo_simple.chosen_assignment_tiles", 3, 3)
    ck.require(sum(2 if t == "single" else 4 for t in its) == 16, "schedules.solo_simple.iterations",
               "the iterations must fill every city with exactly 16 cells")
    need_s = max(need_s, 6 * its.count("single"))
    need_d = max(need_d, 6 * its.count("duplex"))
    full = ck.sequence("schedules.solo_full.rounds")
    nsf, ndf = _schedule(ck, "schedules.solo_full.rounds", full, hand, dhand)
    ck.sequence("schedules.solo_full.automaton_turn_order", length=3)
    for i, who in enumerate(("automaton_a", "automaton_b", "human")):
        ck.string(f"schedules.solo_full.automaton_turn_order[{i}]", (who,))
    setup = ck.integer("schedules.solo_full.setup_duplexes_to_deep_learning_city", 0, 8)
    ck.require(nsf * turns * 2 + ndf * 2 * 2 == 16, "schedules.solo_full.rounds",
               "the rounds must fill the human's cities with exactly 16 cells")
    ck.require(nsf * turns * 2 + setup * 2 == 16, "schedules.solo_full.setup_duplexes_to_deep_learning_city",
               "with the automata's tiles the Deep Learning City must end with exactly 16 cells")
    need_s = max(need_s, 3 * hand * nsf)
    need_d = max(need_d, setup + 2 * dhand * ndf)
    ck.require(n_singles >= need_s, "single_tiles.total",
               f"{n_singles} singles cannot supply the largest game ({need_s} drawn)")
    ck.require(CANON_DUPLEXES >= need_d, "schedules", f"the rounds draw {need_d} of the "
               f"{CANON_DUPLEXES} duplexes")
    # ------------------------------------------------------------------ solo
    seats = ck.mapping("solo.seating.seats")
    for name, seat in (("human", 0), ("automaton_a", 1), ("automaton_b", 2)):
        ck.integer(f"solo.seating.seats.{name}", seat, seat)
    ck.require(len(seats) == 3, "solo.seating.seats", "expected human, automaton_a, automaton_b")
    levels = _int_table(ck, "solo.difficulty.bonus_by_level", (1, 2, 3, 4, 5),
                        -MAX_DIFFICULTY_ADJUSTMENT, MAX_DIFFICULTY_ADJUSTMENT)
    ck.integer("solo.difficulty.default", 1, 5)
    tto = ck.sequence("solo.max_points_tie_break.type_order", length=len(CANON_TYPES))
    for i in range(len(tto)):
        ck.string(f"solo.max_points_tie_break.type_order[{i}]", CANON_TYPES)
    ck.require(set(tto) == set(CANON_TYPES), "solo.max_points_tie_break.type_order",
               "expected every type once")
    tk = [k for k in CANON_KINDS if k.startswith("tavern")]
    tko = ck.sequence("solo.max_points_tie_break.tavern_kind_order", length=len(tk))
    for i in range(len(tko)):
        ck.string(f"solo.max_points_tie_break.tavern_kind_order[{i}]", tk)
    ck.require(set(tko) == set(tk), "solo.max_points_tie_break.tavern_kind_order",
               "expected every tavern kind once")
    ck.integer("solo.automa_deck.size", CANON_CARDS, CANON_CARDS)
    cards = ck.sequence("solo.automa_deck.cards", length=CANON_CARDS)
    ids = set()
    for i in range(len(cards)):
        p = f"solo.automa_deck.cards[{i}]"
        ck.mapping(p)
        cid = ck.integer(f"{p}.id", 1, 10 ** 6)
        ck.require(cid not in ids, f"{p}.id", f"card id {cid} is used twice")
        ids.add(cid)
        for col in ("shared_city", "deep_learning_city"):
            items = ck.sequence(f"{p}.{col}", min_len=1, max_len=4)
            for j in range(len(items)):
                ck.string(f"{p}.{col}[{j}]", _ITEMS)
    ck.require(2 * turns * nsf <= CANON_CARDS, "solo.automa_deck.cards", "too few cards for a game")
    ck.integer("geometry.city_side", 4, 4)
    for name, cells, halves in (("side_by_side", [[0, 0], [0, 1]], ["left", "right"]),
                                ("stacked", [[0, 0], [1, 0]], ["top", "bottom"])):
        p = f"duplex_tiles.layouts.{name}"
        ck.sequence(f"{p}.cells", length=2)
        for i in range(2):
            ck.sequence(f"{p}.cells[{i}]", length=2)
            for j in range(2):
                ck.integer(f"{p}.cells[{i}][{j}]", cells[i][j], cells[i][j])
        ck.sequence(f"{p}.halves", length=2)
        for i in range(2):
            ck.string(f"{p}.halves[{i}]", (halves[i],))
    # components without a rules effect: counts all the same
    for key in ("city_tokens", "scoreboard", "reference_cards", "seating_cards"):
        ck.integer(f"other_components.{key}", 0, 1000)
    ck.integer("other_components.solo.automa_cards", CANON_CARDS, CANON_CARDS)
    ck.integer("other_components.solo.name_cards", 0, 1000)
    ck.integer("other_components.solo.automa_rulebook", 0, 1000)
    top = 16 * per_cell + max(levels.values())
    ck.require(top <= MAX_CITY_SCORE, "scoring",
               f"a city could score up to {top:.0f}, beyond the observation bound {MAX_CITY_SCORE}")
    return data


def load_data(path=None):
    """The data file at ``path`` (default: the packaged ``kernels/data/between_two_cities.yaml``),
    parsed and checked by :func:`check_data`.  The kernel's tables come from the packaged file."""
    if path is None:
        return check_data(_D)
    import yaml
    with open(path, "rb") as f:
        return check_data(yaml.safe_load(f))


check_data(_D)

# ----------------------------------------------------------------------------- tables
KIND_NAMES = tuple(k["name"] for k in sorted(_D["tile_kinds"]["list"], key=lambda k: k["id"]))
TYPE_NAMES = tuple(_D["building_types"]["order"])
NUM_KINDS = len(KIND_NAMES)            # 9
NUM_TYPES = len(TYPE_NAMES)        # 6
KIND_TYPE = np.array([TYPE_NAMES.index(k["type"]) for k in
                      sorted(_D["tile_kinds"]["list"], key=lambda k: k["id"])], dtype=np.int64)
KIND_CHAR = tuple(k["score_city_char"] for k in sorted(_D["tile_kinds"]["list"], key=lambda k: k["id"]))
_KID = {n: i for i, n in enumerate(KIND_NAMES)}
SHOP, FACTORY, OFFICE, PARK, HOUSE = (_KID["shop"], _KID["factory"], _KID["office"], _KID["park"],
                                      _KID["house"])
T_TAVERN = TYPE_NAMES.index("tavern")
IS_TAVERN = np.array([1 if KIND_TYPE[k] == T_TAVERN else 0 for k in range(NUM_KINDS)], dtype=np.int64)
TAVERN_KINDS = np.array([k for k in range(NUM_KINDS) if IS_TAVERN[k]], dtype=np.int64)

SINGLE_COUNTS = np.array([_D["single_tiles"]["counts"][n] for n in KIND_NAMES], dtype=np.int64)
NUM_SINGLES = int(SINGLE_COUNTS.sum())                       # 108
_dups = sorted(_D["duplex_tiles"]["list"], key=lambda d: d["id"])
NUM_DUPLEXES = len(_dups)                                      # 24
DUPLEX_STACKED = np.array([1 if d["layout"] == "stacked" else 0 for d in _dups], dtype=np.int64)
DUPLEX_HALVES = np.array([[_KID[d["halves"][0]], _KID[d["halves"][1]]] for d in _dups], dtype=np.int64)
NUM_TILE_CODES = NUM_KINDS + NUM_DUPLEXES                                      # 33 tile codes

_sc = _D["scoring"]
LINE_PTS = np.array([0] + [_sc["shop"]["points_by_line_length"][i] for i in range(1, 5)], dtype=np.int64)
TAVERN_PTS = np.array([0] + [_sc["tavern"]["points_by_set_size"][i] for i in range(1, 5)], dtype=np.int64)
OFFICE_GROUP = int(_sc["office"]["group_max"])
OFFICE_PTS = np.array([0] + [_sc["office"]["points_by_group_size"][i] for i in range(1, OFFICE_GROUP + 1)],
                      dtype=np.int64)
OFFICE_BONUS = int(_sc["office"]["tavern_adjacency_bonus_per_office"])
PARK_PTS = np.array([0] + [_sc["park"]["points_by_group_size"][i] for i in range(1, 4)], dtype=np.int64)
PARK_EXTRA = int(_sc["park"]["extra_per_tile_above_3"])
HOUSE_PER_TYPE = int(_sc["house"]["points_per_distinct_other_type"])
HOUSE_FACTORY_PTS = int(_sc["house"]["adjacent_to_factory_points"])
HOUSE_OTHER_TYPES = np.array([TYPE_NAMES.index(t) for t in _sc["house"]["other_types"]], dtype=np.int64)
FACTORY_PTS = np.array([_sc["factory"]["points_per_factory"][k] for k in ("most", "second", "other")],
                    dtype=np.int64)
# Tie-break items after the score (section 7), row 0: 3-7 players and solo, row 1: two
# players; TIE_HIGHER = the higher of the participant's two cities, a type id = buildings
# of that type in its two cities, TIE_NONE = unused.
TIE_HIGHER, TIE_NONE = -1, -2
TIE_ORDER = np.full((2, 7), TIE_NONE, dtype=np.int64)
for _row, _key in enumerate(("three_to_seven_and_solo", "two_player")):
    for _j, _it in enumerate(_sc["tie_break"][_key]):
        TIE_ORDER[_row, _j] = TIE_HIGHER if _it == "higher_city" else TYPE_NAMES.index(_it)

_solo = _D["solo"]
# points added to the Deep Learning City's final score by level (negative: taken off)
DIFFICULTY_ADJUSTMENT = np.zeros(6, dtype=np.int64)
for _lvl, _b in _solo["difficulty"]["bonus_by_level"].items():
    DIFFICULTY_ADJUSTMENT[int(_lvl)] = int(_b)
DEFAULT_DIFFICULTY = int(_solo["difficulty"]["default"])
_type_order = [TYPE_NAMES.index(t) for t in _solo["max_points_tie_break"]["type_order"]]
_tav_order = [_KID[k] for k in _solo["max_points_tie_break"]["tavern_kind_order"]]
# Lower priority value wins a tie in gain.
KIND_PRIORITY = np.array([_type_order.index(KIND_TYPE[k]) * 16 + (_tav_order.index(k) if IS_TAVERN[k] else 0)
                      for k in range(NUM_KINDS)], dtype=np.int64)
ITEM_MAX_POINTS = NUM_TYPES          # 6
ITEM_NEW_TYPE = NUM_TYPES + 1        # 7
_cards = sorted(_solo["automa_deck"]["cards"], key=lambda c: c["id"])
NUM_AUTOMA_CARDS = len(_cards)
CARD_IDS = np.array([c["id"] for c in _cards], dtype=np.int64)
MAX_ITEMS = 4
DECK_ITEMS = np.full((NUM_AUTOMA_CARDS, 2, MAX_ITEMS), -1, dtype=np.int64)


def _item_code(name):
    if name == "max_points":
        return ITEM_MAX_POINTS
    if name == "new_type_if_house":
        return ITEM_NEW_TYPE
    return TYPE_NAMES.index(name)


for _i, _c in enumerate(_cards):
    for _col, _key in enumerate(("shared_city", "deep_learning_city")):
        for _j, _it in enumerate(_c[_key]):
            DECK_ITEMS[_i, _col, _j] = _item_code(_it)

_sched = _D["schedules"]
_DIRS = {"pass_left": 1, "pass_right": -1, "pass_to_opponent": 1, "discard": 0}
# per mode (standard, two-player, solo simple, solo full) and round: duplex round?, pass direction
ROUND_DUPLEX = np.zeros((4, 8), dtype=np.int64)
ROUND_PASS = np.zeros((4, 8), dtype=np.int64)
NUM_ROUNDS = np.zeros(4, dtype=np.int64)
for _m, _key in ((0, "standard"), (1, "two_player"), (3, "solo_full")):
    _rounds = _sched[_key]["rounds"]
    NUM_ROUNDS[_m] = len(_rounds)
    for _i, _r in enumerate(_rounds):
        ROUND_DUPLEX[_m, _i] = 1 if _r["tiles"] == "duplex" else 0
        ROUND_PASS[_m, _i] = _DIRS[_r["remainder"]]
for _i, _t in enumerate(_sched["solo_simple"]["iterations"]):
    ROUND_DUPLEX[2, _i] = 1 if _t == "duplex" else 0
NUM_ROUNDS[2] = len(_sched["solo_simple"]["iterations"])
SOLO_SETUP_DUPLEXES = int(_sched["solo_full"]["setup_duplexes_to_deep_learning_city"])
HAND_SINGLES = int(_sched["standard"]["rounds"][0]["hand_size"])      # 7
HAND_DUPLEX = int(_sched["standard"]["rounds"][1]["hand_size"])       # 3
SIMPLE_RANDOM = int(_sched["solo_simple"]["random_assignment_tiles"])
SIMPLE_CHOSEN = int(_sched["solo_simple"]["chosen_assignment_tiles"])

# ----------------------------------------------------------------------------- geometry
CANVAS = 7                          # every city is built on a 7x7 canvas ...
CANVAS_CELLS = CANVAS * CANVAS
CENTER = 3                          # ... whose first tile goes to (3, 3)
CITY_SIDE = 4                       # a finished city is 4x4
NEIGHBORS = grid.neighbor_table(CANVAS, CANVAS)
MAX_SEATS = 7                       # participants: the seats, and the solo automata
MAX_CITIES = 7
MAX_ROUNDS = 7                      # rounds (solo simple: iterations) of the longest schedule
RANK_KEY = 1 + TIE_ORDER.shape[1]   # a participant's score and its tie-break items

MODE_STD, MODE_2P, MODE_SIMPLE, MODE_FULL = 0, 1, 2, 3
PH_PICK, PH_PLACE, PH_END = 0, 1, 2
PHASE_NAMES = ("pick", "place", "game_over")
DLC = 1                             # the Deep Learning City's index in solo

# ----------------------------------------------------------------------------- actions
# pick: tile code t (solo: assign it to the left city, then the right one); place: waiting
# or chosen tile ``slot`` (0/1) anchored on canvas cell r*7+c, id A_PLACE + slot*49 + cell.
ACTIONS = ActionBlocks("between_two_cities actions", [("pick", NUM_TILE_CODES), ("place", 2 * CANVAS_CELLS)])
A_PICK = ACTIONS.offset("pick")
A_PLACE = ACTIONS.offset("place")
NUM_ACTIONS = ACTIONS.num_actions               # 131

# ----------------------------------------------------------------------------- state layout
# A city's bounding box (offsets inside one record of ``boxes``); the Deep Learning City
# uses ``cells`` only.
BOX = Layout("between_two_cities city box")
BOX_CELLS = BOX.add("cells")                    # cells covered so far
BOX_MIN_ROW = BOX.add("min_row")
BOX_MAX_ROW = BOX.add("max_row")
BOX_MIN_COL = BOX.add("min_col")
BOX_MAX_COL = BOX.add("max_col")
BOX_SIZE = BOX.size

STATE = Layout("between_two_cities state")
NUM_PARTICIPANTS = STATE.add("num_participants")     # seats incl. the solo automata
NUM_SEATS = STATE.add("num_seats")                   # agent seats
MODE = STATE.add("mode")                             # MODE_*
ASSIGN_AT_SELECTION = STATE.add("assign_at_selection")
DIFFICULTY = STATE.add("difficulty")                 # solo: 1-5
NUM_CITIES = STATE.add("num_cities")
ROUND = STATE.add("round")                           # 0-based (solo simple: iteration)
TURN = STATE.add("turn")                             # 0-based turn of the round
PHASE = STATE.add("phase")                           # PH_*
CUR_SEAT = STATE.add("cur_seat")                     # seat picking / placing (2-7 players)
SUBSTEP = STATE.add("substep")                       # pick 0/1; place 0/1 (solo: 0-3)
DUPLEX_REPEAT = STATE.add("duplex_repeat")           # solo full: second draw of the duplex round
SINGLES_DRAWN = STATE.add("singles_drawn")           # supply pointers
DUPLEXES_DRAWN = STATE.add("duplexes_drawn")
CARDS_DRAWN = STATE.add("cards_drawn")
LAST_CARD = STATE.add("last_card", (2,))             # automaton A, B: card index, -1 none
ROUNDS_IN_GAME = STATE.add("rounds_in_game")
AUTOMATA_DUE = STATE.add("automata_due")             # 1 while the automata owe their turn (inside init / step)
RNG = STATE.add("rng", (rng.RNG_SLOTS,))
SINGLE_SUPPLY = STATE.add("single_supply", (NUM_SINGLES,))       # kind ids, drawn from the front
DUPLEX_SUPPLY = STATE.add("duplex_supply", (NUM_DUPLEXES,))        # duplex ids
AUTOMA_DECK = STATE.add("automa_deck", (NUM_AUTOMA_CARDS,))             # card indices
GRIDS = STATE.add("grids", (MAX_CITIES, CANVAS_CELLS))         # -1 empty, else kind
BOXES = STATE.add("boxes", (MAX_CITIES, BOX_SIZE))
KIND_COUNTS = STATE.add("kind_counts", (MAX_CITIES, NUM_KINDS))  # buildings per kind per city
HANDS = STATE.add("hands", (MAX_SEATS, NUM_TILE_CODES))               # tile counts
CHOSEN = STATE.add("chosen", (MAX_SEATS, 2))                   # picked, not yet placed; -1 none
PICKS_MADE = STATE.add("picks_made", (MAX_SEATS,))             # picks this turn
PASSED_LAST = STATE.add("passed_last", (MAX_SEATS, NUM_TILE_CODES))   # the tiles a seat passed last
PASSED_ROUND = STATE.add("passed_round", (MAX_SEATS,))         # round of that pass, -1 none
DUPLEX_DISCARDS = STATE.add("duplex_discards", (MAX_SEATS, NUM_TILE_CODES))
# the single tile seat s passed at the end of round r that its receiver discarded unseen
LAST_TILE_DISCARDS = STATE.add("last_tile_discards", (MAX_ROUNDS, MAX_SEATS))
PICKED = STATE.add("picked", (MAX_SEATS, 2))                   # picked this turn (kept while placing)
WAITING = STATE.add("waiting", (MAX_CITIES, 2))                # solo: tiles waiting for a city, -1 none
SCR_SCORE_PARTS = STATE.add("scr_score_parts", (NUM_TYPES,), scratch=True)
SCR_SHOP_DIRS = STATE.add("scr_shop_dirs", (CANVAS_CELLS,), scratch=True)
SCR_SEEN = STATE.add("scr_seen", (CANVAS_CELLS,), scratch=True)
SCR_STACK = STATE.add("scr_stack", (CANVAS_CELLS,), scratch=True)
SCR_CROSSINGS = STATE.add("scr_crossings", (CANVAS_CELLS,), scratch=True)
SCR_FACTORY_COUNTS = STATE.add("scr_factory_counts", (MAX_CITIES,), scratch=True)
SCR_CITY_TOTALS = STATE.add("scr_city_totals", (MAX_CITIES,), scratch=True)
SCR_RANK_KEYS = STATE.add("scr_rank_keys", (MAX_SEATS, RANK_KEY), scratch=True)
SCR_SEAT_ORDER = STATE.add("scr_seat_order", (3,), scratch=True)    # solo simple's random assignment
SCR_SLOTS = STATE.add("scr_slots", (2,), scratch=True)              # placement_target's tile codes
SCR_REACH = STATE.add("scr_reach", (4,), scratch=True)              # _city_future's open rows / columns
# observe's city scores, each kept with the exact inputs it came from (see _remembered_city_scores)
# key: the city's 4x4 window at its bounding box's corner, 8 cells a word, then the corner
MEMO_KEY_WORDS = CITY_SIDE * CITY_SIDE // 8 + 1
MEMO_SIZE = 2 + MEMO_KEY_WORDS                                      # points per factory + 1, key, score
SCR_SCORE_MEMO = STATE.add("scr_score_memo", (MAX_CITIES, MEMO_SIZE), scratch=True)
SCRATCH_START = STATE.size - STATE.scratch_size
STATE_SIZE = STATE.size

# the option vector handed to init (GameConfig.config)
CONFIG = Layout("between_two_cities config")
CFG_NUM_PLAYERS = CONFIG.add("num_players")
CFG_ASSIGN = CONFIG.add("assign_at_selection")
CFG_SOLO_FULL = CONFIG.add("solo_full")             # solo_mode == "full"
CFG_DIFFICULTY = CONFIG.add("difficulty")

# Constants passed as arguments between jitted functions.  A plain int or bool constant
# reaches the callee as a Literal type and makes numba compile one more specialisation
# of it (and of everything it calls); np.int64 globals are typed int64, so each kernel
# function compiles once (cold start: module docstring of envs.between_two_cities).
I_NO, I_YES = np.int64(0), np.int64(1)
I_ADD, I_REMOVE = np.int64(1), np.int64(-1)
I_RNG = np.int64(RNG)
I_FACTORY, I_PARK = np.int64(FACTORY), np.int64(PARK)
I_FIRST_KIND, I_LAST_KIND = np.int64(0), np.int64(NUM_KINDS - 1)


# ============================================================================= helpers
@njit(cache=True)
def _grid(state, c):
    return state[GRIDS + c * CANVAS_CELLS: GRIDS + (c + 1) * CANVAS_CELLS]


@njit(cache=True)
def _is_dlc(state, c):
    m = state[MODE]
    return (m == MODE_SIMPLE or m == MODE_FULL) and c == DLC


@njit(cache=True)
def _factory_points_of(state, c):
    nc = state[NUM_CITIES]
    fc = state[SCR_FACTORY_COUNTS: SCR_FACTORY_COUNTS + MAX_CITIES]
    for i in range(nc):
        fc[i] = state[KIND_COUNTS + i * NUM_KINDS + FACTORY]
    return factory_points(fc, nc, c)


@njit(cache=True)
def _city_score(state, c, with_adjustment):
    parts = state[SCR_SCORE_PARTS: SCR_SCORE_PARTS + 6]
    fpp = _factory_points_of(state, c)
    if _is_dlc(state, c):
        s = _score_dlc(state[KIND_COUNTS + c * NUM_KINDS: KIND_COUNTS + (c + 1) * NUM_KINDS], fpp, parts)
        if with_adjustment:
            s += DIFFICULTY_ADJUSTMENT[state[DIFFICULTY]]
        return s
    return score_grid(_grid(state, c), fpp, parts, state[SCR_SHOP_DIRS: SCR_SHOP_DIRS + CANVAS_CELLS],
                      state[SCR_SEEN: SCR_SEEN + CANVAS_CELLS], state[SCR_STACK: SCR_STACK + CANVAS_CELLS],
                      state[SCR_CROSSINGS: SCR_CROSSINGS + CANVAS_CELLS])


@njit(cache=True)
def _remembered_city_scores(state, totals):
    """``_city_score(state, c, I_YES)`` of every city into ``totals``, each reused from
    scratch when the city's tiles and its points per factory are those it was last
    computed from: an observation shows every city's score, and a turn changes one or two
    cities.  A city's score depends on nothing else, so an entry left by another game or
    position is still right when it matches.  The city lies in the 4x4 window at its
    bounding box's top-left corner (as :func:`_place_tile` keeps the box), so that window
    and the corner are the key."""
    nc = state[NUM_CITIES]
    fc = state[SCR_FACTORY_COUNTS: SCR_FACTORY_COUNTS + MAX_CITIES]
    for i in range(nc):
        fc[i] = state[KIND_COUNTS + i * NUM_KINDS + FACTORY]
    for c in range(nc):
        if _is_dlc(state, c):
            totals[c] = _city_score(state, c, I_YES)
            continue
        memo = SCR_SCORE_MEMO + c * MEMO_SIZE
        g = GRIDS + c * CANVAS_CELLS
        b = BOXES + c * BOX_SIZE
        top = state[b + BOX_MIN_ROW]
        left = state[b + BOX_MIN_COL]
        fpp = factory_points(fc, nc, c)
        same = state[memo] == fpp + 1          # 0: never filled
        for w in range(MEMO_KEY_WORDS - 1):
            key = 0
            for k in range(8):
                r = top + 2 * w + k // CITY_SIDE
                col = left + k % CITY_SIDE
                if r < CANVAS and col < CANVAS:
                    key |= (state[g + r * CANVAS + col] + 1) << (8 * k)
            if state[memo + 1 + w] != key:
                same = False
                state[memo + 1 + w] = key
        corner = top * CANVAS + left
        if state[memo + MEMO_KEY_WORDS] != corner:
            same = False
            state[memo + MEMO_KEY_WORDS] = corner
        if not same:
            state[memo] = fpp + 1
            state[memo + 1 + MEMO_KEY_WORDS] = _city_score(state, c, I_YES)
        totals[c] = state[memo + 1 + MEMO_KEY_WORDS]


# canvas bitboards (bit r * CANVAS + c)
CANVAS_FULL = (1 << CANVAS_CELLS) - 1
NOT_FIRST_COL = sum(1 << (r * CANVAS + c) for r in range(CANVAS) for c in range(1, CANVAS))
NOT_LAST_COL = sum(1 << (r * CANVAS + c) for r in range(CANVAS) for c in range(CANVAS - 1))
CENTER_BIT = 1 << (CENTER * CANVAS + CENTER)
ROWS_SPAN, COLS_SPAN = grid.span_bitboards(CANVAS, CANVAS)


@njit(cache=True)
def _legal_anchors(state, city, t):
    """Bitboard of the canvas cells ``(r, c)`` at which tile code ``t`` may be anchored in
    ``city`` (G1-G4): its squares (a duplex: the anchor and the square below or to the
    right) on the canvas and empty, the city's first tile on the centre, a later one
    touching a building orthogonally, and the city still fitting in 4x4."""
    g = GRIDS + city * CANVAS_CELLS
    occupied = 0
    building = 0
    for q in range(CANVAS_CELLS):
        v = state[g + q]
        if v >= 0:
            occupied |= 1 << q
            if I_FIRST_KIND <= v <= I_LAST_KIND:
                building |= 1 << q
    empty = ~occupied & CANVAS_FULL
    touching = grid.adjacent_cells(building, CANVAS, CANVAS_FULL, NOT_FIRST_COL, NOT_LAST_COL)
    dr = 0
    dc = 0
    if t < NUM_KINDS:
        anchors = empty & touching
    elif DUPLEX_STACKED[t - NUM_KINDS]:
        dr = 1
        anchors = empty & (empty >> CANVAS) & (touching | (touching >> CANVAS))
    else:
        dc = 1
        second = NOT_LAST_COL & (empty >> 1)
        anchors = empty & second & (touching | ((touching >> 1) & NOT_LAST_COL))
    b = BOXES + city * BOX_SIZE
    if state[b + BOX_CELLS] == 0:
        first = empty & CENTER_BIT
        if dr:
            first &= empty >> CANVAS
        if dc:
            first &= NOT_LAST_COL & (empty >> 1)
        return first
    # the tile's rows r..r+dr and the city's rows span fewer than CITY_SIDE rows; columns alike
    row_lo = max(state[b + BOX_MAX_ROW] - (CITY_SIDE - 1), 0)
    row_hi = min(state[b + BOX_MIN_ROW] + (CITY_SIDE - 1) - dr, CANVAS - 1)
    col_lo = max(state[b + BOX_MAX_COL] - (CITY_SIDE - 1), 0)
    col_hi = min(state[b + BOX_MIN_COL] + (CITY_SIDE - 1) - dc, CANVAS - 1)
    if row_lo > row_hi or col_lo > col_hi:
        return 0
    return anchors & ROWS_SPAN[row_lo, row_hi] & COLS_SPAN[col_lo, col_hi]


@njit(cache=True)
def _legal_anchor(state, city, t, r, c):
    """G1-G4 for tile code ``t`` anchored at canvas cell ``(r, c)`` of ``city``."""
    return (_legal_anchors(state, city, t) >> (r * CANVAS + c)) & 1 == 1


@njit(cache=True)
def _put(state, city, t, r, c, sign):
    """Add (sign=1) or remove (sign=-1) tile ``t`` at ``(r, c)`` on grid and kind counts only."""
    g = _grid(state, city)
    if t < NUM_KINDS:
        g[r * CANVAS + c] = t if sign > 0 else -1
        state[KIND_COUNTS + city * NUM_KINDS + t] += sign
        return
    d = t - NUM_KINDS
    r2 = r + 1 if DUPLEX_STACKED[d] else r
    c2 = c if DUPLEX_STACKED[d] else c + 1
    g[r * CANVAS + c] = DUPLEX_HALVES[d, 0] if sign > 0 else -1
    g[r2 * CANVAS + c2] = DUPLEX_HALVES[d, 1] if sign > 0 else -1
    state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[d, 0]] += sign
    state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[d, 1]] += sign


@njit(cache=True)
def _place_tile(state, city, t, r, c):
    _put(state, city, t, r, c, I_ADD)
    b = BOXES + city * BOX_SIZE
    r2 = r
    c2 = c
    if t >= NUM_KINDS:
        if DUPLEX_STACKED[t - NUM_KINDS]:
            r2 = r + 1
        else:
            c2 = c + 1
    if state[b + BOX_CELLS] == 0:
        state[b + BOX_MIN_ROW] = r
        state[b + BOX_MAX_ROW] = r2
        state[b + BOX_MIN_COL] = c
        state[b + BOX_MAX_COL] = c2
    else:
        state[b + BOX_MIN_ROW] = min(state[b + BOX_MIN_ROW], r)
        state[b + BOX_MAX_ROW] = max(state[b + BOX_MAX_ROW], r2)
        state[b + BOX_MIN_COL] = min(state[b + BOX_MIN_COL], c)
        state[b + BOX_MAX_COL] = max(state[b + BOX_MAX_COL], c2)
    state[b + BOX_CELLS] += 1 if t < NUM_KINDS else 2


@njit(cache=True)
def _add_to_dlc(state, t):
    if t < NUM_KINDS:
        state[KIND_COUNTS + DLC * NUM_KINDS + t] += 1
        state[BOXES + DLC * BOX_SIZE + BOX_CELLS] += 1
    else:
        d = t - NUM_KINDS
        state[KIND_COUNTS + DLC * NUM_KINDS + DUPLEX_HALVES[d, 0]] += 1
        state[KIND_COUNTS + DLC * NUM_KINDS + DUPLEX_HALVES[d, 1]] += 1
        state[BOXES + DLC * BOX_SIZE + BOX_CELLS] += 2


@njit(cache=True)
def _left_city(state, s):
    if state[MODE] == MODE_2P:
        return 2 * s
    return s


@njit(cache=True)
def _right_city(state, s):
    if state[MODE] == MODE_2P:
        return 2 * s + 1
    np_ = state[NUM_PARTICIPANTS]
    return (s + np_ - 1) % np_


@njit(cache=True)
def _draw_single(state):
    p = state[SINGLES_DRAWN]
    state[SINGLES_DRAWN] = p + 1
    return state[SINGLE_SUPPLY + p]


@njit(cache=True)
def _draw_duplex(state):
    p = state[DUPLEXES_DRAWN]
    state[DUPLEXES_DRAWN] = p + 1
    return state[DUPLEX_SUPPLY + p] + NUM_KINDS


@njit(cache=True)
def _hand_size(state, s):
    n = 0
    for t in range(NUM_TILE_CODES):
        n += state[HANDS + s * NUM_TILE_CODES + t]
    return n


@njit(cache=True)
def _round_is_duplex(state, r):
    return ROUND_DUPLEX[state[MODE], r] == 1


@njit(cache=True)
def _round_pass_dir(state, r):
    """+1: seat s passes to seat s+1 (left); -1: to seat s-1 (right); 0: no passing."""
    return ROUND_PASS[state[MODE], r]


# ============================================================================= scoring
@njit(cache=True)
def _shop_runs(g, dirs):
    s = 0
    for r in range(CANVAS):
        run = 0
        for c in range(CANVAS + 1):
            if c < CANVAS and dirs[r * CANVAS + c] == 1:
                run += 1
            else:
                if run > 0:
                    s += 16 * (run // 4) + LINE_PTS[run % 4] if run > 4 else LINE_PTS[run]
                run = 0
    for c in range(CANVAS):
        run = 0
        for r in range(CANVAS + 1):
            if r < CANVAS and dirs[r * CANVAS + c] == 2:
                run += 1
            else:
                if run > 0:
                    s += 16 * (run // 4) + LINE_PTS[run % 4] if run > 4 else LINE_PTS[run]
                run = 0
    return s


@njit(cache=True)
def _shop_score(g, dirs, cross):
    """Best split of the shops of canvas ``g`` into straight lines (6.1)."""
    nc = 0
    for i in range(CANVAS_CELLS):
        dirs[i] = 0
        if g[i] != SHOP:
            continue
        r = i // CANVAS
        c = i % CANVAS
        h = (c > 0 and g[i - 1] == SHOP) or (c < CANVAS - 1 and g[i + 1] == SHOP)
        v = (r > 0 and g[i - CANVAS] == SHOP) or (r < CANVAS - 1 and g[i + CANVAS] == SHOP)
        if h and v:
            cross[nc] = i
            nc += 1
            dirs[i] = 1
        elif v:
            dirs[i] = 2
        else:
            dirs[i] = 1
    best = 0
    for m in range(1 << nc):
        for j in range(nc):
            dirs[cross[j]] = 2 if (m >> j) & 1 else 1
        s = _shop_runs(g, dirs)
        if s > best:
            best = s
    return best


@njit(cache=True)
def _tavern_sets(kc):
    """Points of the tavern sets of kind counts ``kc``: with the four tavern kinds' counts
    sorted a0 >= a1 >= a2 >= a3, a3 sets of four, a2 - a3 of three, and so on."""
    a0 = a1 = a2 = a3 = 0
    for j in range(TAVERN_KINDS.shape[0]):   # insertion into the four scalars, largest first
        x = kc[TAVERN_KINDS[j]]
        if x > a0:
            a0, a1, a2, a3 = x, a0, a1, a2
        elif x > a1:
            a1, a2, a3 = x, a1, a2
        elif x > a2:
            a2, a3 = x, a2
        elif x > a3:
            a3 = x
    return (a3 * TAVERN_PTS[4] + (a2 - a3) * TAVERN_PTS[3] + (a1 - a2) * TAVERN_PTS[2]
            + (a0 - a1) * TAVERN_PTS[1])


@njit(cache=True)
def _office_base(n):
    return OFFICE_PTS[OFFICE_GROUP] * (n // OFFICE_GROUP) + OFFICE_PTS[n % OFFICE_GROUP]


@njit(cache=True)
def _park_group(k):
    if k <= 3:
        return PARK_PTS[k]
    return PARK_PTS[3] + PARK_EXTRA * (k - 3)


@njit(cache=True)
def _other_types(kc):
    n = 0
    for t in HOUSE_OTHER_TYPES:
        present = False
        for k in range(NUM_KINDS):
            if KIND_TYPE[k] == t and kc[k] > 0:
                present = True
        if present:
            n += 1
    return n


@njit(cache=True)
def score_grid(g, fpp, parts, dirs, seen, stack, cross):
    """Score the 7x7 canvas ``g`` (-1 empty) with ``fpp`` points per factory.
    ``parts`` (6) receives shop, factory, tavern, office, park, house.  Returns the total.
    ``dirs``, ``seen``, ``stack`` and ``cross`` are scratch (no allocation here)."""
    kc = seen   # the kind counts, in seen's first NUM_KINDS slots until the parks' flood fill
    for k in range(NUM_KINDS):
        kc[k] = 0
    for i in range(CANVAS_CELLS):
        if g[i] >= 0:
            kc[g[i]] += 1
    parts[1] = kc[FACTORY] * fpp
    parts[2] = _tavern_sets(kc)
    parts[3] = _office_base(kc[OFFICE])
    ot = _other_types(kc) * HOUSE_PER_TYPE
    parts[0] = _shop_score(g, dirs, cross)
    tlo = TAVERN_KINDS[0]
    thi = TAVERN_KINDS[TAVERN_KINDS.shape[0] - 1]
    bonus = 0
    for i in range(CANVAS_CELLS):
        if g[i] == OFFICE and grid.touches_range(i, g, NEIGHBORS, tlo, thi):
            bonus += OFFICE_BONUS
    parts[3] += bonus
    # parks
    for i in range(CANVAS_CELLS):
        seen[i] = 0
    ps = 0
    for i in range(CANVAS_CELLS):
        if g[i] != PARK or seen[i]:
            continue
        size = grid.flood_fill(i, g, NEIGHBORS, seen, stack)
        ps += _park_group(size)
    parts[4] = ps
    hs = 0
    for i in range(CANVAS_CELLS):
        if g[i] == HOUSE:
            if grid.touches(i, g, NEIGHBORS, I_FACTORY):
                hs += HOUSE_FACTORY_PTS
            else:
                hs += ot
    parts[5] = hs
    return parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5]


@njit(cache=True)
def _score_dlc(kc, fpp, parts):
    """Deep Learning City (6.8), difficulty adjustment excluded."""
    n = kc[SHOP]
    parts[0] = LINE_PTS[4] * (n // 4) + LINE_PTS[n % 4]
    parts[1] = kc[FACTORY] * fpp
    parts[2] = _tavern_sets(kc)
    # every office counts as next to a tavern, whether or not the city has one (ruling 19)
    parts[3] = _office_base(kc[OFFICE]) + kc[OFFICE] * OFFICE_BONUS
    n = kc[PARK]
    parts[4] = PARK_PTS[2] * (n // 2) + PARK_PTS[1] * (n % 2)
    parts[5] = kc[HOUSE] * _other_types(kc) * HOUSE_PER_TYPE
    return parts[0] + parts[1] + parts[2] + parts[3] + parts[4] + parts[5]


@njit(cache=True)
def factory_points(counts, n, c):
    """Points per factory of city ``c`` given the factory ``counts`` of ``n`` cities (6.2)."""
    if counts[c] == 0:
        return 0
    m1 = 0
    for i in range(n):
        if counts[i] > m1:
            m1 = counts[i]
    m2 = -1
    for i in range(n):
        if counts[i] < m1 and counts[i] > m2:
            m2 = counts[i]
    if counts[c] == m1:
        return FACTORY_PTS[0]
    if counts[c] == m2:
        return FACTORY_PTS[1]
    return FACTORY_PTS[2]


# ============================================================================ automata
@njit(cache=True, inline='always')
def _tile_gain(state, city, t):
    """Gain of tile ``t`` for ``city`` (5.5): best legal position now; DLC without the difficulty adjustment."""
    if _is_dlc(state, city):
        now = _city_score(state, city, I_NO)
        if t < NUM_KINDS:
            state[KIND_COUNTS + city * NUM_KINDS + t] += 1
        else:
            state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[t - NUM_KINDS, 0]] += 1
            state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[t - NUM_KINDS, 1]] += 1
        after = _city_score(state, city, I_NO)
        if t < NUM_KINDS:
            state[KIND_COUNTS + city * NUM_KINDS + t] -= 1
        else:
            state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[t - NUM_KINDS, 0]] -= 1
            state[KIND_COUNTS + city * NUM_KINDS + DUPLEX_HALVES[t - NUM_KINDS, 1]] -= 1
        return after - now
    now = _city_score(state, city, I_NO)
    best = -(1 << 40)
    anchors = _legal_anchors(state, city, t)
    for r in range(CANVAS):
        for c in range(CANVAS):
            if (anchors >> (r * CANVAS + c)) & 1:
                _put(state, city, t, r, c, I_ADD)
                s = _city_score(state, city, I_NO)
                _put(state, city, t, r, c, I_REMOVE)
                if s > best:
                    best = s
    return best - now


@njit(cache=True)
def _city_has_type(state, city, ty):
    for k in range(NUM_KINDS):
        if KIND_TYPE[k] == ty and state[KIND_COUNTS + city * NUM_KINDS + k] > 0:
            return True
    return False


@njit(cache=True, inline='always')
def _automaton_choice(state, seat, card, col, city):
    """Tile code the automaton at ``seat`` picks for ``city`` by column ``col`` of ``card``."""
    h = HANDS + seat * NUM_TILE_CODES
    for j in range(MAX_ITEMS):
        it = DECK_ITEMS[card, col, j]
        if it < 0:
            break
        best = -1
        bg = 0
        bp = 0
        if it == ITEM_NEW_TYPE and state[KIND_COUNTS + city * NUM_KINDS + HOUSE] == 0:
            continue
        for t in range(NUM_TILE_CODES):
            if state[h + t] <= 0:
                continue
            k = t if t < NUM_KINDS else DUPLEX_HALVES[t - NUM_KINDS, 0]
            if it < NUM_TYPES:
                if t >= NUM_KINDS or KIND_TYPE[t] != it:
                    continue
            elif it == ITEM_NEW_TYPE:
                if t >= NUM_KINDS or _city_has_type(state, city, KIND_TYPE[t]):
                    continue
            g = _tile_gain(state, city, t)
            p = KIND_PRIORITY[k] * 64 + t
            if best < 0 or g > bg or (g == bg and p < bp):
                best = t
                bg = g
                bp = p
        if best >= 0:
            return best
    # every reconstructed column ends with max_points; fall back to any tile
    for t in range(NUM_TILE_CODES):
        if state[h + t] > 0:
            return t
    return -1


@njit(cache=True)
def _run_automata(state):
    """Automaton A, then B: draw a card, assign a tile to the shared city (it waits for the
    human), then place one in the Deep Learning City (5.5).  One call site of
    :func:`_automaton_choice`, which is inlined here (cold start)."""
    for j in range(4):
        a = 1 + j // 2
        if j % 2 == 0:
            kp = state[CARDS_DRAWN]
            state[LAST_CARD + a - 1] = state[AUTOMA_DECK + kp]
            state[CARDS_DRAWN] = kp + 1
        card = state[LAST_CARD + a - 1]
        col = j % 2
        city = DLC if col == 1 else (0 if a == 1 else 2)
        t = _automaton_choice(state, a, card, col, city)
        state[HANDS + a * NUM_TILE_CODES + t] -= 1
        if col == 1:
            _add_to_dlc(state, t)
        else:
            w = WAITING + city * 2
            if state[w] < 0:
                state[w] = t
            else:
                state[w + 1] = t


# ================================================================================ flow
@njit(cache=True)
def _begin_turn(state):
    for s in range(MAX_SEATS):
        state[PICKS_MADE + s] = 0
        state[CHOSEN + 2 * s] = -1
        state[CHOSEN + 2 * s + 1] = -1
        state[PICKED + 2 * s] = -1
        state[PICKED + 2 * s + 1] = -1
    state[PHASE] = PH_PICK
    state[CUR_SEAT] = 0
    state[SUBSTEP] = 0
    if state[MODE] == MODE_FULL and not _round_is_duplex(state, state[ROUND]):
        # The automata move at the end of init / step (AUTOMATA_DUE): called from there
        # only, their code and the scoring it needs are compiled into those two entry
        # points and not again into every flow helper in between (cold start).
        state[AUTOMATA_DUE] = 1


@njit(cache=True)
def _start_round(state):
    m = state[MODE]
    r = state[ROUND]
    state[TURN] = 0
    state[DUPLEX_REPEAT] = 0
    dup = _round_is_duplex(state, r)
    if m == MODE_SIMPLE:
        perm = state[SCR_SEAT_ORDER: SCR_SEAT_ORDER + 3]
        perm[0] = 0
        perm[1] = 1
        perm[2] = 2
        rng.shuffle(state, I_RNG, perm, np.int64(3))
        for i in range(SIMPLE_RANDOM):
            t = _draw_duplex(state) if dup else _draw_single(state)
            c = perm[i % 3] if i < 3 else DLC
            if c == DLC:
                _add_to_dlc(state, t)
            else:
                w = WAITING + c * 2
                if state[w] < 0:
                    state[w] = t
                else:
                    state[w + 1] = t
        for i in range(SIMPLE_CHOSEN):
            t = _draw_duplex(state) if dup else _draw_single(state)
            state[HANDS + t] += 1
        _begin_turn(state)
        return
    if m == MODE_FULL:
        if dup:
            for i in range(HAND_DUPLEX):
                state[HANDS + _draw_duplex(state)] += 1
        else:
            for s in range(3):
                for i in range(HAND_SINGLES):
                    state[HANDS + s * NUM_TILE_CODES + _draw_single(state)] += 1
        _begin_turn(state)
        return
    ns = state[NUM_SEATS]
    for s in range(ns):
        if dup:
            for i in range(HAND_DUPLEX):
                state[HANDS + s * NUM_TILE_CODES + _draw_duplex(state)] += 1
        else:
            for i in range(HAND_SINGLES):
                state[HANDS + s * NUM_TILE_CODES + _draw_single(state)] += 1
    _begin_turn(state)


@njit(cache=True)
def _end_round(state):
    state[ROUND] += 1
    if state[ROUND] >= state[ROUNDS_IN_GAME]:
        state[PHASE] = PH_END
        state[CUR_SEAT] = -1
        return
    _start_round(state)


@njit(cache=True)
def _end_turn(state):
    m = state[MODE]
    r = state[ROUND]
    if m == MODE_SIMPLE:
        _end_round(state)
        return
    if _round_is_duplex(state, r):
        # standard / 2p: the third duplex is discarded (solo full did it at pick time)
        if m != MODE_FULL:
            for s in range(state[NUM_SEATS]):
                for t in range(NUM_TILE_CODES):
                    n = state[HANDS + s * NUM_TILE_CODES + t]
                    state[DUPLEX_DISCARDS + s * NUM_TILE_CODES + t] += n
                    state[HANDS + s * NUM_TILE_CODES + t] = 0
        _end_round(state)
        return
    np_ = state[NUM_PARTICIPANTS]
    d = _round_pass_dir(state, r)
    # pass: seat s gives its rest to seat s + d
    for s in range(np_):
        for t in range(NUM_TILE_CODES):
            state[PASSED_LAST + s * NUM_TILE_CODES + t] = state[HANDS + s * NUM_TILE_CODES + t]
        state[PASSED_ROUND + s] = r
    for s in range(np_):
        src = (s - d + np_) % np_
        for t in range(NUM_TILE_CODES):
            state[HANDS + s * NUM_TILE_CODES + t] = state[PASSED_LAST + src * NUM_TILE_CODES + t]
    if _hand_size(state, 0) <= 1:
        for s in range(np_):
            for t in range(NUM_TILE_CODES):
                if state[PASSED_LAST + s * NUM_TILE_CODES + t] > 0:
                    state[LAST_TILE_DISCARDS + r * MAX_SEATS + s] = t
                state[HANDS + s * NUM_TILE_CODES + t] = 0
        _end_round(state)
        return
    state[TURN] += 1
    _begin_turn(state)


@njit(cache=True)
def _to_placement(state):
    state[PHASE] = PH_PLACE
    state[CUR_SEAT] = 0
    state[SUBSTEP] = 0


@njit(cache=True)
def placement_target(state, slots):
    """City being built now; writes the candidate tile codes of slot 0/1 (-1 = none)."""
    m = state[MODE]
    sub = state[SUBSTEP]
    if m == MODE_SIMPLE or m == MODE_FULL:
        city = 0 if sub < 2 else 2
        slots[0] = state[WAITING + city * 2]
        slots[1] = state[WAITING + city * 2 + 1]
        return city
    s = state[CUR_SEAT]
    city = _left_city(state, s) if sub == 0 else _right_city(state, s)
    slots[0] = state[CHOSEN + 2 * s]
    slots[1] = state[CHOSEN + 2 * s + 1]
    if state[ASSIGN_AT_SELECTION]:
        if sub == 0:
            slots[1] = -1
        else:
            slots[0] = -1
    return city


# ============================================================================ contract
@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    n = config[CFG_NUM_PLAYERS]
    state[NUM_SEATS] = n
    if n == 1:
        state[MODE] = MODE_FULL if config[CFG_SOLO_FULL] else MODE_SIMPLE
        state[NUM_PARTICIPANTS] = 3
        state[NUM_CITIES] = 3
        state[DIFFICULTY] = config[CFG_DIFFICULTY]
    elif n == 2:
        state[MODE] = MODE_2P
        state[NUM_PARTICIPANTS] = 2
        state[NUM_CITIES] = 4
    else:
        state[MODE] = MODE_STD
        state[NUM_PARTICIPANTS] = n
        state[NUM_CITIES] = n
    state[ROUNDS_IN_GAME] = NUM_ROUNDS[state[MODE]]
    state[ASSIGN_AT_SELECTION] = config[CFG_ASSIGN] if n >= 2 else 1
    rng.seed_rng(state, I_RNG, seed)
    p = 0
    for k in range(NUM_KINDS):
        for i in range(SINGLE_COUNTS[k]):
            state[SINGLE_SUPPLY + p] = k
            p += 1
    for d in range(NUM_DUPLEXES):
        state[DUPLEX_SUPPLY + d] = d
    for i in range(NUM_AUTOMA_CARDS):
        state[AUTOMA_DECK + i] = i
    rng.shuffle(state, I_RNG, state[SINGLE_SUPPLY: SINGLE_SUPPLY + NUM_SINGLES], np.int64(NUM_SINGLES))
    rng.shuffle(state, I_RNG, state[DUPLEX_SUPPLY: DUPLEX_SUPPLY + NUM_DUPLEXES], np.int64(NUM_DUPLEXES))
    rng.shuffle(state, I_RNG, state[AUTOMA_DECK: AUTOMA_DECK + NUM_AUTOMA_CARDS], np.int64(NUM_AUTOMA_CARDS))
    for i in range(MAX_CITIES * CANVAS_CELLS):
        state[GRIDS + i] = -1
    for i in range(MAX_CITIES * 2):
        state[WAITING + i] = -1
    for i in range(MAX_ROUNDS * MAX_SEATS):
        state[LAST_TILE_DISCARDS + i] = -1
    for s in range(MAX_SEATS):
        state[PASSED_ROUND + s] = -1
        state[CHOSEN + 2 * s] = -1
        state[CHOSEN + 2 * s + 1] = -1
    state[LAST_CARD] = -1
    state[LAST_CARD + 1] = -1
    if state[MODE] == MODE_FULL:
        for i in range(SOLO_SETUP_DUPLEXES):
            _add_to_dlc(state, _draw_duplex(state))
    state[ROUND] = 0
    _start_round(state)
    if state[AUTOMATA_DUE]:               # the automata move now, if their turn began (AUTOMATA_DUE)
        state[AUTOMATA_DUE] = 0
        _run_automata(state)


@njit(cache=True)
def current_player(state):
    if state[PHASE] == PH_END:
        return -1
    m = state[MODE]
    if m == MODE_SIMPLE or m == MODE_FULL:
        return 0
    return state[CUR_SEAT]


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 0
    ph = state[PHASE]
    if ph == PH_END:
        return
    m = state[MODE]
    if ph == PH_PICK:
        s = 0 if (m == MODE_SIMPLE or m == MODE_FULL) else state[CUR_SEAT]
        for t in range(NUM_TILE_CODES):
            if state[HANDS + s * NUM_TILE_CODES + t] > 0:
                mask[A_PICK + t] = 1
        return
    slots = state[SCR_SLOTS: SCR_SLOTS + 2]
    city = placement_target(state, slots)
    for k in range(2):
        t = slots[k]
        if t < 0:
            continue
        anchors = _legal_anchors(state, city, t)
        for q in range(CANVAS_CELLS):
            if (anchors >> q) & 1:
                mask[A_PLACE + k * CANVAS_CELLS + q] = 1


@njit(cache=True)
def step(state, action):
    m = state[MODE]
    solo = m == MODE_SIMPLE or m == MODE_FULL
    if state[PHASE] == PH_PICK:
        t = action - A_PICK
        if solo:
            state[HANDS + t] -= 1
            city = 0 if state[SUBSTEP] == 0 else 2
            w = WAITING + city * 2
            if state[w] < 0:
                state[w] = t
            else:
                state[w + 1] = t
            state[SUBSTEP] += 1
            if state[SUBSTEP] < 2:
                return
            if m == MODE_SIMPLE:
                for u in range(NUM_TILE_CODES):
                    while state[HANDS + u] > 0:
                        state[HANDS + u] -= 1
                        _add_to_dlc(state, u)
                _to_placement(state)
                return
            if _round_is_duplex(state, state[ROUND]):
                for u in range(NUM_TILE_CODES):
                    state[DUPLEX_DISCARDS + u] += state[HANDS + u]
                    state[HANDS + u] = 0
                if state[DUPLEX_REPEAT] == 0:
                    state[DUPLEX_REPEAT] = 1
                    state[TURN] = 1
                    for i in range(HAND_DUPLEX):
                        state[HANDS + _draw_duplex(state)] += 1
                    state[SUBSTEP] = 0
                    return
            _to_placement(state)
            return
        s = state[CUR_SEAT]
        state[HANDS + s * NUM_TILE_CODES + t] -= 1
        state[CHOSEN + 2 * s + state[SUBSTEP]] = t
        state[PICKED + 2 * s + state[SUBSTEP]] = t
        state[PICKS_MADE + s] += 1
        state[SUBSTEP] += 1
        if state[SUBSTEP] == 2:
            state[SUBSTEP] = 0
            state[CUR_SEAT] = s + 1
            if s + 1 >= state[NUM_SEATS]:
                _to_placement(state)
        return
    # placement
    slots = state[SCR_SLOTS: SCR_SLOTS + 2]
    city = placement_target(state, slots)
    a = action - A_PLACE
    k = a // CANVAS_CELLS
    cell = a % CANVAS_CELLS
    t = slots[k]
    _place_tile(state, city, t, cell // CANVAS, cell % CANVAS)
    if solo:
        state[WAITING + city * 2 + k] = -1
        state[SUBSTEP] += 1
        if state[SUBSTEP] >= 4:
            _end_turn(state)
            if state[AUTOMATA_DUE]:
                state[AUTOMATA_DUE] = 0
                _run_automata(state)
        return
    s = state[CUR_SEAT]
    state[CHOSEN + 2 * s + k] = -1
    state[SUBSTEP] += 1
    if state[SUBSTEP] == 2:
        state[SUBSTEP] = 0
        state[CUR_SEAT] = s + 1
        if s + 1 >= state[NUM_SEATS]:
            _end_turn(state)
            if state[AUTOMATA_DUE]:
                state[AUTOMATA_DUE] = 0
                _run_automata(state)


@njit(cache=True)
def advance(state, action, mask):
    """The AEC shell's one call per step (see :mod:`envs.spec`)."""
    step(state, action)
    player = current_player(state)
    if player >= 0:
        legal_mask(state, mask)
    return player


@njit(cache=True)
def city_totals(state, out):
    for c in range(state[NUM_CITIES]):
        out[c] = _city_score(state, c, I_YES)


@njit(cache=True)
def _participant_key(state, p, tot, key):
    """key[0] the score, key[1..7] the tie-break items of section 7 in the data file's
    order (TIE_ORDER): the higher of the two cities, building counts by type."""
    m = state[MODE]
    a = _left_city(state, p)
    b = _right_city(state, p)
    row = 0
    if m == MODE_2P:
        key[0] = tot[a] + tot[b]
        row = 1
    else:
        key[0] = min(tot[a], tot[b])
    for j in range(TIE_ORDER.shape[1]):
        ty = TIE_ORDER[row, j]
        n = 0
        if ty == TIE_HIGHER:
            n = max(tot[a], tot[b])
        elif ty >= 0:
            for k in range(NUM_KINDS):
                if KIND_TYPE[k] == ty:
                    n += state[KIND_COUNTS + a * NUM_KINDS + k] + state[KIND_COUNTS + b * NUM_KINDS + k]
        key[1 + j] = n


@njit(cache=True)
def scores(state, out):
    tot = state[SCR_CITY_TOTALS: SCR_CITY_TOTALS + MAX_CITIES]
    city_totals(state, tot)
    key = state[SCR_RANK_KEYS: SCR_RANK_KEYS + RANK_KEY]
    for p in range(min(out.shape[0], state[NUM_PARTICIPANTS])):
        _participant_key(state, p, tot, key)
        out[p] = key[0]


@njit(cache=True)
def ranks(state, out):
    """Rank of every participant (automata included) into ``out`` (as many as it holds)."""
    tot = state[SCR_CITY_TOTALS: SCR_CITY_TOTALS + MAX_CITIES]
    city_totals(state, tot)
    _ranks_from_totals(state, tot, out)


all_ranks = ranks      # the name the presentation code knows


@njit(cache=True)
def _ranks_from_totals(state, tot, out):
    """Ranks of the participants given the city totals ``tot`` (section 7): score, then
    the tie-break items in order; participants equal on all of them share the rank."""
    num = state[NUM_PARTICIPANTS]
    keys = state[SCR_RANK_KEYS: SCR_RANK_KEYS + MAX_SEATS * RANK_KEY].reshape((MAX_SEATS, RANK_KEY))
    for p in range(num):
        _participant_key(state, p, tot, keys[p])
    ranks_lexicographic(keys, num, out)


# ========================================================================= observation
# Cities, seats and factory counts are given relative to the observer (_relative_city);
# every part not listed with a bound below is a 0/1 flag or one-hot.
OBS = Layout("between_two_cities observation")
# per relative city: one plane per kind (NUM_KINDS) then occupancy, over the 7x7 canvas
OB_CITIES = OBS.add("cities", (MAX_CITIES, NUM_KINDS + 1, CANVAS, CANVAS))
OB_OCCUPIED = NUM_KINDS                       # the occupancy plane's index
OB_CITY = (NUM_KINDS + 1) * CANVAS_CELLS      # one city's block
OB_HAND = OBS.add("own_hand", (NUM_TILE_CODES,), high=HAND_SINGLES)
OB_CHOSEN = OBS.add("own_chosen", (2, NUM_TILE_CODES))
OB_REVEALED = OBS.add("revealed_choices", (MAX_SEATS, 2, NUM_TILE_CODES))   # seats relative to the observer
OB_COMMITTED = OBS.add("committed", (MAX_SEATS,), high=2)
OB_PASSED = OBS.add("passed_last", (NUM_TILE_CODES,), high=HAND_SINGLES)
OB_DUPLEX_DISCARDS = OBS.add("own_duplex_discards", (NUM_TILE_CODES,), high=HAND_DUPLEX)
OB_ROUND = OBS.add("round", (6,))
OB_TURN = OBS.add("turn", (3,))
OB_STEP_KIND = OBS.add("step_kind", (4,))   # pick 1, pick 2, place first, place second
OB_BUILDING = OBS.add("city_being_built", (MAX_CITIES,))
OB_FACTORIES = OBS.add("factory_counts", (MAX_CITIES,), high=CITY_SIDE * CITY_SIDE)
# the Deep Learning City's score includes its difficulty adjustment, which may be negative
OB_SCORES = OBS.add("city_scores", (MAX_CITIES,), low=min(0, int(DIFFICULTY_ADJUSTMENT.min())),
                    high=MAX_CITY_SCORE)
OB_NUM_SEATS = OBS.add("num_seats", (MAX_SEATS,))
OB_MODE = OBS.add("mode", (4,))
OB_ASSIGN = OBS.add("assign_at_selection", (1,))
OB_AUTOMATON_HANDS = OBS.add("automaton_hands", (2, NUM_TILE_CODES), high=HAND_SINGLES)
OB_DLC_KINDS = OBS.add("dlc_kind_counts", (NUM_KINDS,), high=CITY_SIDE * CITY_SIDE)
OB_CARDS = OBS.add("last_automa_cards", (2, NUM_AUTOMA_CARDS))
OB_DIFFICULTY = OBS.add("difficulty", (5,))
OB_WAITING = OBS.add("waiting", (2, 2, NUM_TILE_CODES))   # left, right city x slot
OBS_SIZE = OBS.size


@njit(cache=True)
def _relative_city(state, p, i):
    """The city in observer ``p``'s relative slot ``i`` (-1 none)."""
    m = state[MODE]
    nc = state[NUM_CITIES]
    if i >= nc:
        return -1
    if m == MODE_2P:
        if i < 2:
            return 2 * p + i
        return 2 * (1 - p) + i - 2
    if m == MODE_SIMPLE or m == MODE_FULL:
        if i == 0:
            return 0
        if i == 1:
            return 2
        return DLC
    return (p + i) % nc


@njit(cache=True)
def round_and_turn(state):
    m = state[MODE]
    r = state[ROUND]
    if m == MODE_SIMPLE:
        if r < 3:
            return 0, r
        if r == 3:
            return 1, 0
        return 2, r - 4
    return r, state[TURN]


@njit(cache=True)
def observe(state, player, out):
    out[:] = 0.0
    m = state[MODE]
    np_ = state[NUM_PARTICIPANTS]
    solo = m == MODE_SIMPLE or m == MODE_FULL
    tot = state[SCR_CITY_TOTALS: SCR_CITY_TOTALS + MAX_CITIES]
    _remembered_city_scores(state, tot)
    for i in range(MAX_CITIES):
        c = _relative_city(state, player, i)
        if c < 0:
            continue
        out[OB_FACTORIES + i] = state[KIND_COUNTS + c * NUM_KINDS + FACTORY]
        out[OB_SCORES + i] = tot[c]
        if _is_dlc(state, c):
            continue
        base = OB_CITIES + i * OB_CITY
        for cell in range(CANVAS_CELLS):
            k = state[GRIDS + c * CANVAS_CELLS + cell]
            if k >= 0:
                out[base + k * CANVAS_CELLS + cell] = 1.0
                out[base + OB_OCCUPIED * CANVAS_CELLS + cell] = 1.0
    for t in range(NUM_TILE_CODES):
        out[OB_HAND + t] = state[HANDS + player * NUM_TILE_CODES + t]
        out[OB_PASSED + t] = state[PASSED_LAST + player * NUM_TILE_CODES + t]
        out[OB_DUPLEX_DISCARDS + t] = state[DUPLEX_DISCARDS + player * NUM_TILE_CODES + t]
    ph = state[PHASE]
    if not solo:
        for k in range(2):
            t = state[CHOSEN + 2 * player + k]
            if t >= 0:
                out[OB_CHOSEN + k * NUM_TILE_CODES + t] = 1.0
        for i in range(np_):
            s = (player + i) % np_
            out[OB_COMMITTED + i] = state[PICKS_MADE + s]
            if ph == PH_PLACE:
                for k in range(2):
                    t = state[CHOSEN + 2 * s + k]
                    if t >= 0:
                        out[OB_REVEALED + (i * 2 + k) * NUM_TILE_CODES + t] = 1.0
    if ph != PH_END:
        rr, tt = round_and_turn(state)
        out[OB_ROUND + rr] = 1.0
        out[OB_TURN + min(tt, 2)] = 1.0
        sub = state[SUBSTEP]
        if ph == PH_PICK:
            out[OB_STEP_KIND + sub] = 1.0
        else:
            out[OB_STEP_KIND + 2 + (sub % 2)] = 1.0
            slots = state[SCR_SLOTS: SCR_SLOTS + 2]
            city = placement_target(state, slots)
            for i in range(MAX_CITIES):
                if _relative_city(state, player, i) == city:
                    out[OB_BUILDING + i] = 1.0
    out[OB_NUM_SEATS + state[NUM_SEATS] - 1] = 1.0
    out[OB_MODE + m] = 1.0
    out[OB_ASSIGN] = state[ASSIGN_AT_SELECTION]
    if solo:
        if m == MODE_FULL:
            for a in range(2):
                for t in range(NUM_TILE_CODES):
                    out[OB_AUTOMATON_HANDS + a * NUM_TILE_CODES + t] = state[HANDS + (a + 1) * NUM_TILE_CODES + t]
                cd = state[LAST_CARD + a]
                if cd >= 0:
                    out[OB_CARDS + a * NUM_AUTOMA_CARDS + cd] = 1.0
        for k in range(NUM_KINDS):
            out[OB_DLC_KINDS + k] = state[KIND_COUNTS + DLC * NUM_KINDS + k]
        if state[DIFFICULTY] >= 1:
            out[OB_DIFFICULTY + state[DIFFICULTY] - 1] = 1.0
        for ci in range(2):
            c = 0 if ci == 0 else 2
            for k in range(2):
                t = state[WAITING + c * 2 + k]
                if t >= 0:
                    out[OB_WAITING + (ci * 2 + k) * NUM_TILE_CODES + t] = 1.0


# ================================================================== hidden information
@njit(cache=True)
def reseed(state, seed):
    """Re-key the generator and reshuffle the undrawn supplies and automa cards.

    Each undrawn part is sorted before the shuffle, so the new order depends on the seed
    and on which tiles / cards are left, never on their hidden old order."""
    rng.seed_rng(state, I_RNG, seed)
    p = state[SINGLES_DRAWN]
    state[SINGLE_SUPPLY + p: SINGLE_SUPPLY + NUM_SINGLES].sort()
    rng.shuffle(state, I_RNG, state[SINGLE_SUPPLY + p: SINGLE_SUPPLY + NUM_SINGLES], NUM_SINGLES - p)
    p = state[DUPLEXES_DRAWN]
    state[DUPLEX_SUPPLY + p: DUPLEX_SUPPLY + NUM_DUPLEXES].sort()
    rng.shuffle(state, I_RNG, state[DUPLEX_SUPPLY + p: DUPLEX_SUPPLY + NUM_DUPLEXES], NUM_DUPLEXES - p)
    p = state[CARDS_DRAWN]
    state[AUTOMA_DECK + p: AUTOMA_DECK + NUM_AUTOMA_CARDS].sort()
    rng.shuffle(state, I_RNG, state[AUTOMA_DECK + p: AUTOMA_DECK + NUM_AUTOMA_CARDS], NUM_AUTOMA_CARDS - p)


@njit(cache=True)
def _hand_before_picks(state, s, out):
    """Seat ``s``'s hand before its picks of this turn (its hand plus what it picked) into ``out``."""
    for t in range(NUM_TILE_CODES):
        out[t] = state[HANDS + s * NUM_TILE_CODES + t]
    for k in range(2):
        t = state[PICKED + 2 * s + k]
        if t >= 0:
            out[t] += 1


@njit(cache=True)
def _seat_after(s, k, d, n):
    """The seat ``k`` passes after seat ``s`` in direction ``d`` (+1 left, -1 right) of ``n``."""
    return ((s + k * d) % n + n) % n


@njit(cache=True)
def determinize(state, observer, seed):
    """Re-draw in place everything ``observer`` cannot see, consistently with what it has seen.

    2-7 players, while the game runs: the other seats' hands it cannot know, their
    unrevealed picks (drawn at random from their re-dealt hands), their round-2 duplex
    discards and the unseen last-tile discards are re-dealt from the tiles the observer
    has not seen, together with the undrawn supplies; then :func:`reseed`.  What the
    observer can deduce is kept: in the running single round a hand it held on an
    earlier turn is known exactly (what it passed minus the picks revealed since), so at
    turn ``t`` the seats ``o+d .. o+t*d`` keep their hands (their picks are re-drawn from
    them); the last tile of a finished round is kept when the observer held that hand
    (its passer is one of ``o, o+d, ..``); the other seats' memory of what they passed
    last is rebuilt from the new deal.  Solo hands are open and a finished game hides
    nothing: there only the future is re-drawn (:func:`reseed`).

    Guarantee: the observer's observation, every public count (hand sizes, picks made,
    discards per seat) and the tile multiset of the whole game are unchanged; the unseen
    tiles are pooled and the pools SORTED before they are shuffled with a generator keyed
    by ``seed`` alone, so the result depends only on ``seed`` and on what ``observer``
    has seen, never on the hidden order or the hidden tiles themselves (a search over
    two states the observer cannot tell apart draws the same worlds).  A determinized
    state can be determinized again."""
    m = state[MODE]
    if m == MODE_SIMPLE or m == MODE_FULL or state[PHASE] == PH_END:
        reseed(state, seed)
        return
    rng.seed_rng(state, I_RNG, seed)
    o = observer
    np_ = state[NUM_PARTICIPANTS]
    rnd = state[ROUND]
    turn = state[TURN]
    picking = state[PHASE] == PH_PICK
    n_turns = (HAND_SINGLES - 1) // 2
    sp = state[SINGLES_DRAWN]
    dp = state[DUPLEXES_DRAWN]
    # the pools of unseen tiles: undrawn supplies, unknown hands, duplex discards, last tiles
    singles = np.empty(NUM_SINGLES, dtype=np.int64)
    duplexes = np.empty(NUM_DUPLEXES, dtype=np.int64)
    ns = 0
    nd = 0
    for i in range(sp, NUM_SINGLES):
        singles[ns] = state[SINGLE_SUPPLY + i]
        ns += 1
    for i in range(dp, NUM_DUPLEXES):
        duplexes[nd] = state[DUPLEX_SUPPLY + i]
        nd += 1
    live = not _round_is_duplex(state, rnd)
    d = _round_pass_dir(state, rnd)
    known = np.zeros(MAX_SEATS, dtype=np.bool_)
    if live:
        for k in range(1, turn + 1):
            known[_seat_after(o, k, d, np_)] = True
    known[o] = False
    pre = np.zeros((MAX_SEATS, NUM_TILE_CODES), dtype=np.int64)
    deal_singles = np.zeros(MAX_SEATS, dtype=np.int64)
    deal_duplexes = np.zeros(MAX_SEATS, dtype=np.int64)
    for s in range(np_):
        if s == o:
            continue
        if picking:
            _hand_before_picks(state, s, pre[s])
        else:
            for t in range(NUM_TILE_CODES):
                pre[s, t] = state[HANDS + s * NUM_TILE_CODES + t]
        if not known[s]:
            for t in range(NUM_TILE_CODES):
                for _ in range(pre[s, t]):
                    if t < NUM_KINDS:
                        singles[ns] = t
                        ns += 1
                        deal_singles[s] += 1
                    else:
                        duplexes[nd] = t - NUM_KINDS
                        nd += 1
                        deal_duplexes[s] += 1
        for t in range(NUM_KINDS, NUM_TILE_CODES):
            for _ in range(state[DUPLEX_DISCARDS + s * NUM_TILE_CODES + t]):
                duplexes[nd] = t - NUM_KINDS
                nd += 1
    unknown_last = np.empty(MAX_ROUNDS * MAX_SEATS, dtype=np.int64)
    n_last = 0
    for r in range(rnd):
        if _round_is_duplex(state, r):
            continue
        dr = _round_pass_dir(state, r)
        for s in range(np_):
            t = state[LAST_TILE_DISCARDS + r * MAX_SEATS + s]
            held = False
            for k in range(n_turns):
                if _seat_after(o, k, dr, np_) == s:
                    held = True
            if t >= 0 and not held:
                singles[ns] = t
                ns += 1
                unknown_last[n_last] = LAST_TILE_DISCARDS + r * MAX_SEATS + s
                n_last += 1
    # sorted first: the re-deal must depend on the seed only, not on the hidden order
    singles[:ns].sort()
    duplexes[:nd].sort()
    rng.shuffle(state, I_RNG, singles, ns)
    rng.shuffle(state, I_RNG, duplexes, nd)
    for s in range(np_):
        if s == o or known[s]:
            continue
        pre[s, :] = 0
        for _ in range(deal_singles[s]):
            ns -= 1
            pre[s, singles[ns]] += 1
        for _ in range(deal_duplexes[s]):
            nd -= 1
            pre[s, NUM_KINDS + duplexes[nd]] += 1
    for s in range(np_):
        if s == o:
            continue
        n_dis = 0
        for t in range(NUM_TILE_CODES):
            n_dis += state[DUPLEX_DISCARDS + s * NUM_TILE_CODES + t]
            state[DUPLEX_DISCARDS + s * NUM_TILE_CODES + t] = 0
        for _ in range(n_dis):
            nd -= 1
            state[DUPLEX_DISCARDS + s * NUM_TILE_CODES + NUM_KINDS + duplexes[nd]] += 1
    for i in range(n_last):
        ns -= 1
        state[unknown_last[i]] = singles[ns]
    for s in range(np_):
        if s == o:
            continue
        h = pre[s]
        if picking:
            for k in range(2):
                state[CHOSEN + 2 * s + k] = -1
                state[PICKED + 2 * s + k] = -1
            for k in range(state[PICKS_MADE + s]):
                total = 0
                for t in range(NUM_TILE_CODES):
                    total += h[t]
                j = rng.randint(state, I_RNG, total)
                t = 0
                while j >= h[t]:
                    j -= h[t]
                    t += 1
                h[t] -= 1
                state[CHOSEN + 2 * s + k] = t
                state[PICKED + 2 * s + k] = t
        for t in range(NUM_TILE_CODES):
            state[HANDS + s * NUM_TILE_CODES + t] = h[t]
    # the other seats' memory of what they passed last, consistent with the new deal
    for s in range(np_):
        if s == o:
            continue
        mem = state[PASSED_LAST + s * NUM_TILE_CODES: PASSED_LAST + (s + 1) * NUM_TILE_CODES]
        if live and turn >= 1:
            _hand_before_picks(state, _seat_after(s, np.int64(1), d, np_), mem)
        elif state[PASSED_ROUND + s] >= 0:
            t = state[LAST_TILE_DISCARDS + state[PASSED_ROUND + s] * MAX_SEATS + s]
            mem[:] = 0
            if t >= 0:
                mem[t] = 1
    for i in range(ns):
        state[SINGLE_SUPPLY + sp + i] = singles[i]
    for i in range(nd):
        state[DUPLEX_SUPPLY + dp + i] = duplexes[i]
    reseed(state, np.int64(rng.next_u64(state, I_RNG) >> np.uint64(2)))


# ==================================================================== greedy heuristic
# Weights of :func:`potential` (a heuristic for the greedy baseline, not rules data); see the
# Greedy baseline paragraph of envs/between_two_cities.py.
POT_RHO = 0.8           # chance that each further building a pattern needs still arrives
POT_BALANCE = 0.25      # 3-7 players: weight of the better city above the lower one
# What one building is worth once its pattern is complete (line of 4 shops, group of 6
# offices, set of 4 taverns, pair of parks), from the scoring tables.
POT_SHOP_UNIT = LINE_PTS[4] / 4.0
POT_OFFICE_UNIT = OFFICE_PTS[OFFICE_GROUP] / OFFICE_GROUP
POT_TAVERN_UNIT = TAVERN_PTS[4] / 4.0
POT_PARK_UNIT = PARK_PTS[2] / 2.0
# What a pick not yet made this turn is worth on average (rows: 2 players, 3-7 players;
# columns: single round, duplex round), measured as the mean gain of greedy's picks in
# greedy self-play.  Greedy's
# choices do not depend on it (every action of a decision shares it); it keeps
# evaluations comparable across the steps of a turn for MCTSAgent, whose tree compares
# positions before and after picks.
POT_PICK = np.array([[3.3, 7.5], [1.6, 4.0]])
# :func:`feature_potential` (the action values a learning policy observes; greedy keeps
# :func:`potential`): every further building arrives (rho 1.0), a two-player pick also
# weighs what the picker's hand will give the opponent, and cells far from the canvas
# centre cost a little.  Its argmax, as an agent, finished ahead of greedy in 57.6% of
# 2,400 games (benchmarks/results/between_two_cities_v0/training.md).
FEATURE_RHO = 1.0
FEATURE_DENIAL = 0.5    # weight of the two best gains a seat sees in the hand it will receive
FEATURE_CENTRE = 0.1    # per unit of squared distance of a built cell from the canvas centre
# squared distance of each canvas cell from the centre, where every city starts
CENTRE_DIST2 = np.array([(r - CANVAS // 2) ** 2 + (c - CANVAS // 2) ** 2
                         for r in range(CANVAS) for c in range(CANVAS)], dtype=np.int64)


@njit(cache=True)
def _chance(need, empty, rho):
    """How likely a pattern still gets the ``need`` buildings it lacks when its city has
    ``empty`` cells left: ``rho`` (POT_RHO for greedy) per building, scaled by the slack
    left in the city."""
    if need > empty:
        return 0.0
    return rho ** need * (empty - need + 1) / (empty + 1)


@njit(cache=True)
def _open_cell(g, r, c, lim):
    """Empty canvas cell that the city's final 4x4 box can still include (``lim``: min/max
    row, min/max column it may reach)."""
    return lim[0] <= r <= lim[1] and lim[2] <= c <= lim[3] and g[r * CANVAS + c] < 0


@njit(cache=True)
def _open_next_to(g, r, c, lim):
    return (_open_cell(g, r - 1, c, lim) or _open_cell(g, r + 1, c, lim) or _open_cell(g, r, c - 1, lim)
            or _open_cell(g, r, c + 1, lim))


@njit(cache=True)
def _shop_room(g, r, c, dr, dc, lim):
    """Length of the shop run starting at ``(r, c)`` in direction ``(dr, dc)`` and the
    longest line it could become (the run plus the open cells on both ends)."""
    n = 0
    while r + n * dr < CANVAS and c + n * dc < CANVAS and g[(r + n * dr) * CANVAS + c + n * dc] == SHOP:
        n += 1
    room = n
    k = 1
    while _open_cell(g, r - k * dr, c - k * dc, lim):
        room += 1
        k += 1
    k = n
    while _open_cell(g, r + k * dr, c + k * dc, lim):
        room += 1
        k += 1
    return n, room


@njit(cache=True)
def _city_future(state, city, rho):
    """Points the unfinished patterns of grid ``city`` promise beyond its live score: each
    pattern that can still be completed adds (its value when complete - its value now)
    x :func:`_chance` (per-building ``rho``) of getting the buildings it lacks."""
    b = BOXES + city * BOX_SIZE
    n = state[b + BOX_CELLS]
    if n == 0 or n >= 16 or _is_dlc(state, city):
        return 0.0
    empty = 16 - n
    g = _grid(state, city)
    kc = state[KIND_COUNTS + city * NUM_KINDS: KIND_COUNTS + (city + 1) * NUM_KINDS]
    lim = state[SCR_REACH: SCR_REACH + 4]
    lim[0] = max(0, state[b + BOX_MAX_ROW] - (CITY_SIDE - 1))
    lim[1] = min(CANVAS - 1, state[b + BOX_MIN_ROW] + (CITY_SIDE - 1))
    lim[2] = max(0, state[b + BOX_MAX_COL] - (CITY_SIDE - 1))
    lim[3] = min(CANVAS - 1, state[b + BOX_MIN_COL] + (CITY_SIDE - 1))
    v = 0.0
    free_houses = 0
    for r in range(CANVAS):
        for c in range(CANVAS):
            i = r * CANVAS + c
            k = g[i]
            if k == SHOP:
                # a run of 1-3 shops with room for a line of 4, counted from its first shop
                hor = (c > 0 and g[i - 1] == SHOP) or (c < CANVAS - 1 and g[i + 1] == SHOP)
                ver = (r > 0 and g[i - CANVAS] == SHOP) or (r < CANVAS - 1 and g[i + CANVAS] == SHOP)
                if not hor and not ver:
                    _, hroom = _shop_room(g, r, c, np.int64(0), np.int64(1), lim)
                    _, vroom = _shop_room(g, r, c, np.int64(1), np.int64(0), lim)
                    if hroom >= 4 or vroom >= 4:
                        v += _chance(np.int64(3), empty, rho) * (POT_SHOP_UNIT - LINE_PTS[1])
                    continue
                if hor and not (c > 0 and g[i - 1] == SHOP):
                    run, room = _shop_room(g, r, c, np.int64(0), np.int64(1), lim)
                    if run < 4 and room >= 4:
                        v += _chance(4 - run, empty, rho) * (POT_SHOP_UNIT * run - LINE_PTS[run])
                if ver and not (r > 0 and g[i - CANVAS] == SHOP):
                    run, room = _shop_room(g, r, c, np.int64(1), np.int64(0), lim)
                    if run < 4 and room >= 4:
                        v += _chance(4 - run, empty, rho) * (POT_SHOP_UNIT * run - LINE_PTS[run])
            elif k == PARK:
                # a lone park with an open neighbour waits for its pair
                if not grid.touches(i, g, NEIGHBORS, I_PARK) and _open_next_to(g, r, c, lim):
                    v += _chance(np.int64(1), empty, rho) * (POT_PARK_UNIT - PARK_PTS[1])
            elif k == HOUSE:
                if not grid.touches(i, g, NEIGHBORS, I_FACTORY):
                    free_houses += 1
    # the open group of fewer than 6 offices
    m = kc[OFFICE] % OFFICE_GROUP
    if m > 0:
        v += _chance(OFFICE_GROUP - m, empty, rho) * (POT_OFFICE_UNIT * m - OFFICE_PTS[m])
    # tavern sets of fewer than 4 kinds (layer l holds every kind with at least l taverns)
    for layer in range(1, 8):
        size = 0
        for j in range(TAVERN_KINDS.shape[0]):
            if kc[TAVERN_KINDS[j]] >= layer:
                size += 1
        if size == 0:
            break
        if size < 4:
            v += _chance(4 - size, empty, rho) * (POT_TAVERN_UNIT * size - TAVERN_PTS[size])
    # every house not next to a factory gains a point per other type still to come
    if free_houses > 0:
        missing = HOUSE_OTHER_TYPES.shape[0] - _other_types(kc)
        s = 0.0
        for j in range(1, missing + 1):
            s += _chance(j, empty, rho)
        v += free_houses * HOUSE_PER_TYPE * s
    return v


@njit(cache=True)
def _city_value(state, city, rho):
    """Live score of ``city`` plus :func:`_city_future`."""
    return _city_score(state, city, I_NO) + _city_future(state, city, rho)


@njit(cache=True)
def _value_gain(state, city, t, base, rho):
    """What tile ``t`` adds to :func:`_city_value` of ``city`` (``base``) at its best legal
    position now (0 if it has none, which the rules exclude)."""
    b = BOXES + city * BOX_SIZE
    best = base
    found = False
    anchors = _legal_anchors(state, city, t)
    for r in range(CANVAS):
        for c in range(CANVAS):
            if not (anchors >> (r * CANVAS + c)) & 1:
                continue
            n0 = state[b + BOX_CELLS]
            r0 = state[b + BOX_MIN_ROW]
            r1 = state[b + BOX_MAX_ROW]
            c0 = state[b + BOX_MIN_COL]
            c1 = state[b + BOX_MAX_COL]
            _place_tile(state, city, t, r, c)
            v = _city_value(state, city, rho)
            _put(state, city, t, r, c, I_REMOVE)
            state[b + BOX_CELLS] = n0
            state[b + BOX_MIN_ROW] = r0
            state[b + BOX_MAX_ROW] = r1
            state[b + BOX_MIN_COL] = c0
            state[b + BOX_MAX_COL] = c1
            if v > best or not found:
                best = v
                found = True
    return best - base


@njit(cache=True)
def _combine(state, left, right):
    """A seat's value from its two cities' values: the sum in 2 players, else the lower
    city plus POT_BALANCE of the lead of the better one."""
    if state[MODE] == MODE_2P:
        return left + right
    lo = min(left, right)
    return lo + POT_BALANCE * (max(left, right) - lo)


@njit(cache=True)
def _best_two_gains(state, p, lc, rc, vl, vr, rho):
    """The sum of the two largest :func:`_value_gain` (each the better of ``p``'s cities
    ``lc`` / ``rc``, of values ``vl`` / ``vr``) over the tiles of the hand the other
    two-player seat holds -- the hand ``p`` receives next -- counting a tile held twice
    twice; 0 unless at least two of its tiles will be left after that seat's pending picks."""
    q = 1 - p
    hand = state[HANDS + q * NUM_TILE_CODES: HANDS + (q + 1) * NUM_TILE_CODES]
    left_over = state[PICKS_MADE + q] - 2
    for t in range(NUM_TILE_CODES):
        left_over += hand[t]
    if left_over < 2:
        return 0.0
    g1 = 0.0
    g2 = 0.0
    for t in range(NUM_TILE_CODES):
        if hand[t] == 0:
            continue
        g = max(_value_gain(state, lc, t, vl, rho), _value_gain(state, rc, t, vr, rho))
        if g > g1:
            g2 = max(g1, g if hand[t] > 1 else g2)
            g1 = g
        elif g > g2:
            g2 = g
    return g1 + g2


@njit(cache=True)
def _spread(state, city):
    """The sum over ``city``'s built cells of their squared distance from the canvas
    centre (0 for the Deep Learning City, which has no grid)."""
    if _is_dlc(state, city):
        return 0
    g = _grid(state, city)
    total = 0
    for i in range(CANVAS_CELLS):
        if g[i] >= 0:
            total += CENTRE_DIST2[i]
    return total


@njit(cache=True)
def _potential(state, p, rho, denial, centre):
    """Points seat ``p``'s position promises beyond its live score: :func:`potential` with
    ``rho`` POT_RHO, ``denial`` and ``centre`` 0; :func:`feature_potential` with their
    FEATURE_ values.

    A city's value is its live score plus :func:`_city_future`: every unfinished pattern
    that can still be completed is worth (its value complete - its value now) x the
    chance of getting the buildings it lacks (:func:`_chance`: ``rho`` per building,
    scaled by the city's free cells).  Patterns: a run of 1-3 shops with room for a line
    of 4 (complete: POT_SHOP_UNIT per shop), a lone park with an open neighbour (a pair),
    the open group of fewer than 6 offices, each tavern set of fewer than 4 kinds, and a
    point per missing other type for each house not next to a factory.
    The tiles ``p`` has chosen but not placed add their best gain in city value
    (:func:`_value_gain`) under the best legal split between its two cities (the tile
    left after its first placement goes to its right city).  This is what makes picks
    meaningful one ply ahead: the score only moves when tiles are placed.
    The two cities combine as the score does (:func:`_combine`): their sum in 2 players;
    otherwise the lower plus POT_BALANCE x the lead of the better one, so that a gain in
    the better city is not worthless.  Returns that combination minus the live score.
    Solo: the grid cities only (the Deep Learning City has no patterns; waiting tiles
    are not valued).
    With ``denial`` > 0, in a two-player single round's pick phase while the hand ``p``
    will receive is still to be passed on, ``p`` also gains ``denial`` x
    :func:`_best_two_gains` of that hand: in a margin, a pick then costs the picker what the
    tiles it leaves are worth to the opponent.  With ``centre`` > 0, ``p`` loses ``centre``
    x the :func:`_spread` of its two cities: of placements worth the same otherwise, the
    one nearer the canvas centre, which keeps the city room to grow every way, is worth a
    little more."""
    m = state[MODE]
    lc = _left_city(state, p)
    rc = _right_city(state, p)
    sl = _city_score(state, lc, I_NO)
    sr = _city_score(state, rc, I_NO)
    score = float(sl + sr) if m == MODE_2P else float(min(sl, sr))
    vl = sl + _city_future(state, lc, rho)
    vr = sr + _city_future(state, rc, rho)
    best = _combine(state, vl, vr)
    t0 = state[CHOSEN + 2 * p]
    t1 = state[CHOSEN + 2 * p + 1]
    if (m == MODE_2P or m == MODE_STD) and (t0 >= 0 or t1 >= 0):
        if state[PHASE] == PH_PLACE and state[CUR_SEAT] == p and state[SUBSTEP] == 1:
            t = t0 if t0 >= 0 else t1           # the left city is built: this one goes right
            best = _combine(state, vl, vr + _value_gain(state, rc, t, vr, rho))
        elif t0 >= 0 and t1 >= 0:
            best = _combine(state, vl + _value_gain(state, lc, t0, vl, rho),
                            vr + _value_gain(state, rc, t1, vr, rho))
            if not state[ASSIGN_AT_SELECTION]:
                best = max(best, _combine(state, vl + _value_gain(state, lc, t1, vl, rho),
                                          vr + _value_gain(state, rc, t0, vr, rho)))
        else:
            t = t0 if t0 >= 0 else t1           # first pick made: it may still go either way
            to_left = _combine(state, vl + _value_gain(state, lc, t, vl, rho), vr)
            to_right = _combine(state, vl, vr + _value_gain(state, rc, t, vr, rho))
            if state[ASSIGN_AT_SELECTION]:
                best = to_left if t0 >= 0 else to_right
            else:
                best = max(to_left, to_right)
    if centre > 0.0:
        best -= centre * (_spread(state, lc) + _spread(state, rc))
    if denial > 0.0 and m == MODE_2P and state[PHASE] == PH_PICK \
            and not _round_is_duplex(state, state[ROUND]):
        best += denial * _best_two_gains(state, p, lc, rc, vl, vr, rho)
    if (m == MODE_2P or m == MODE_STD) and state[PHASE] == PH_PICK:
        best += (2 - state[PICKS_MADE + p]) * POT_PICK[0 if m == MODE_2P else 1,
                                                     1 if _round_is_duplex(state, state[ROUND]) else 0]
    return best - score


@njit(cache=True)
def potential(state, p):
    """Points seat ``p``'s position promises beyond its live score (greedy baseline): see
    :func:`_potential`."""
    return _potential(state, p, POT_RHO, 0.0, 0.0)


@njit(cache=True)
def feature_potential(state, p):
    """:func:`potential` with every further building arriving (FEATURE_RHO), a
    two-player pick charged FEATURE_DENIAL x the best two gains it leaves the opponent,
    and FEATURE_CENTRE x the spread of the seat's cities taken off (:func:`_potential`):
    the potential behind the action values a learning policy
    observes (:mod:`kernels.outcome`), stronger than greedy's as a one-ply choice."""
    return _potential(state, p, FEATURE_RHO, FEATURE_DENIAL, FEATURE_CENTRE)

