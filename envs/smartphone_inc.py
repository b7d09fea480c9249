"""Smartphone Inc. (``smartphone_inc_v0``)
=======================================

Run a smartphone company for five rounds.  Each of 2 to 5 companies lays its two
double-sided pads (and the improvement tiles it owns) in secret; the visible icons set
its price, production, research and logistics for the round.  Then, in turn order
(cheapest first), companies take new tiles, research technologies (first to finish takes
the patent), expand their offices across a world map of 12 regions and sell their goods
to the buyers there.  Rules: ``docs/rules/smartphone_inc.md``; the kernel is
:mod:`kernels.smartphone_inc` (its docstring details the observation and the planning
encoding).

=================  ======================================================================
Import             ``envs.make("smartphone_inc_v0")`` / ``envs.smartphone_inc_v0.env()``
Agents             ``player_0`` .. ``player_{n-1}``, n = ``num_players`` 1-5 (default 2),
                   plus Steve (an automaton company, never an agent) when he plays
Actions            ``Discrete(715)``
Observation        ``Box(8198,)`` float32 + ``action_mask`` int8 (715)
=================  ======================================================================

Options
-------
Declared as a table in ``Spec.options`` (name, type, allowed values, default); wrong
types or values raise ``ValueError`` naming the option.

* ``num_players`` 1-5 (default 2): agent seats.
* ``steve`` ``None`` (default) / ``True`` / ``False``: adds Steve, the automaton company,
  played by the environment.  ``None`` means ``True`` with 1 agent, else ``False``.
  ``True`` with 5 agents and ``False`` with 1 agent are errors.  Steve counts for turn
  order, leadership, retailer layout and ranks (``GameConfig.num_participants``) but is
  never an agent; ``infos["winners"]`` is empty when Steve finishes first alone.
* ``tech_sides`` ``"front"`` (default), ``"back"``, ``"random"`` or a mapping from
  technology id (``gps``, ``wifi``, ``gamepad``, ``li_ion``, ``nfc``, ``4g``) to
  ``"front"``/``"back"``/``"random"`` (missing ids: front).
* ``colours``: ``None`` (random, default) or a list (or tuple) of N distinct colours out
  of green, blue, black, yellow, red, in seat order (Steve's last); fixes start VP and
  home regions.  A set is refused: its order would depend on the process's hash seed.

The shell adds ``render_mode``, ``reward_mode`` and ``illegal_action`` (:mod:`envs.shell`).

Decisions (phases)
------------------
A round runs through the phases planning .. scoring (``K.PH_*``, named in
``K.PHASE_NAMES``; observed in the ``phase`` part).  The agents plan one after another
in seat order, each making all its planning steps (SIDES, ARRANGE, then TILE_PICK /
TILE_PLACE per tile, TILE_PICK 9 to commit) before the next begins; when the last agent
commits, every plan is revealed (Steve's plan is fixed).  No agent acts in the pricing,
production and scoring phases; in the improvement, research, logistics and selling
phases ``agent_selection`` follows the phase's turn order, steps where nothing is legal
are skipped and Steve's decisions are taken by the environment.  In the improvement phase
each company takes exactly one action: a company with an active IMP icon picks one display
tile (IMPROVE_PICK); any other gets a goods token without being asked.  The decision owed is
one action block (the kernel's ``PENDING``); ``env.phase`` is that block's name in lower
case (``"sides"``, ``"tile_place"``, ...; ``"game_over"`` at the end).

Action encoding (``docs/rules/smartphone_inc.md``, section 11.3)
----------------------------------------------------------------
One flat space split in blocks (offset, size), declared in
``kernels.smartphone_inc.ACTIONS``: SIDES (0, 4) ``2*W_side + B_side``; ARRANGE (4, 120)
``60*t + i`` (t 0 = W on top; i indexes ``geometry.top_pad_positions``); TILE_PICK (124,
10) owned tile to place next, 9 = the rest face down and commit; TILE_PLACE (134, 509)
``4*domino + 2*orient + level`` (level 0 over, 1 under the top pad), 508 = face down;
IMPROVE_PICK (643, 5) display slot; RESEARCH (648, 7) technology or 6 = stop; LOGISTICS
(655, 13) region or 12 = stop; OFFICE_TARGET (668, 12) region for Wi-Fi / Gamepad-back /
extra office / move destination; MOVE_SOURCE (680, 12); NFC_SELL (692, 3) k = 1..3
goods; SELL (695, 12) region of the next good (forced choices are resolved by the
environment); BONUS_TECH (707, 6); BONUS_PRICE (713, 2) -1 / +1.  Only the block of the
pending decision is ever legal; ``action_label`` spells actions (and, on commit, the
whole plan) out in words.

Observation
-----------
Flat ``float32`` vector declared piece by piece in ``kernels.smartphone_inc.OBS``
(``observation_layout`` names every piece, ``observation_bounds`` gives each piece its
declared bounds; ``env.unwrapped.split_observation(obs)`` returns the pieces by name),
8198 values whatever the options, in [-1, 4]: global pieces, each named (round, phase,
own pending block, reveal flag, technology sides and costs, patent holders, display,
token supply, stack size, a retailer bonus in progress with the technology markers it
still owes, the office-target kind while one is pending, the chosen move-office source),
``regions``: 12 region records (retailer, its bonus kind and amount, office slots,
retailer slots, progress markers, buyers filled this round, the printed buyers, size,
cost), ``companies``: 5 company records ego-centric (self first: presence, Steve flag,
committed, to move, VP, start VP, price, ready goods, tokens, tiles by type and in
acquisition order -- the order ``TILE_PICK`` counts in --, whether its display pick is
owed now, technologies, research markers and locks, markers to spend, offices used, goods sold,
revealed plan outcome, colour, turn-order slot, and the plan: pad sides, arrangement,
and per owned tile whether it is the tile picked for placement, placed, face down, over
or under, its placement order, cells and orientation), and ``plans``: 5 plan planes of
8x9 cells x 13 channels (visible icon one-hot, bottom / top / tile layer, under- and
over-tiles covering the cell).  The records' fields are the kernel's ``REGION_OBS``,
``COMPANY_OBS`` and ``PLANE`` layouts (``K.COMPANY_OBS.view(record, "vp")``).  One's own
plan is shown at every moment, others' only once revealed, so the player to move can
tell apart every position it can tell apart at the table.

Rewards
-------
At the end only, by the shell's ``reward_mode``: ``"rank"`` (default) among all
companies including Steve, or ``"score"``.  Final score = VP track + patent VP +
retailer VP; ties: more technologies, then more patents, else shared -- with Steve
too: an agent still tied with Steve for first of 3 companies gets +0.5, a solo agent
tied with Steve 0.0 (and is listed in ``winners``, Steve never is).  With Steve,
``infos`` at the end add ``steve_score`` and ``steve_rank``.

Hidden information
------------------
Hidden: the other companies' plans until the reveal, the order of the stack, and the
generator's state (``docs/rules/smartphone_inc.md``, section 11.5).  Both re-draws are
numba functions of the kernel.  ``kernels.smartphone_inc.reseed`` re-keys the
generator: refills are drawn from it when they happen, so the future tiles change while
nothing seen does.  ``determinize`` also replaces what the observer cannot see of the
planning: other companies' committed but unrevealed plans become random legal plans,
and a plan still being built by another company starts over.

Scoring helpers
---------------
No pure scoring helper; the pure helper :func:`pad_outcome_table` lists the 480
tile-less pad plans and their 80 distinct outcome vectors.

Baselines
---------
Greedy (one-ply), MCTS's cut-off playouts and reward shaping share one evaluation,
:mod:`kernels.outcome` (also ``Spec.evaluate``): a seat's score plus
``kernels.smartphone_inc.potential``, minus the mean of every other company's value,
Steve's (his score) included.  The potential is needed since VP arrive only at selling
and scoring time: this round's sales and leadership (every company's plan outcome, or
goods and price once produced, sold cheapest first to the buyers its offices reach), the
round's research, logistics and IMP icons not spent yet, markers on technologies and
regions as shares of what completing them is worth, and each later round valued at the
best pad outcome for the offices, technologies, tiles and tokens held now.  Against
``RandomAgent`` greedy finishes ahead in 100% of 200 two-player games (tournament seeds
7 and 8, rules revision 2; about 62% without the potential under revision 1), at about
0.001 s per move.  MCTS's settings
for this game are in ``agents/settings.py`` (not on the spec): the leaf is scored by
that evaluation at once (no playout moves), a lead of 10 VP counting as tanh(1).

Data and provenance
-------------------
Every table is in ``kernels/data/smartphone_inc.yaml`` with its provenance, validated at
import; much of the printed component data (map buyers, costs, VP values, tiles,
retailers, Steve) is reconstructed and can be corrected there without code changes.

Version history
---------------
* v0: initial.
* v0 (issues 14/15): observation gains the own plan in full (sides, arrangement, every
  tile's placement, the picked tile, tiles in acquisition order) and the public bonus
  state (kind, amount, markers left, office-target kind, move source): 8,198 values;
  under-tiles need no cell beneath the top pad (every physical stacking reachable);
  ``colours`` must be a list or tuple and ``tech_sides`` a mapping of strings
  (``ValueError`` otherwise); the data file is validated at import.
* v0, rev. 3: declared layouts (state, observation, actions), options table, phase names
  in snake_case, re-draws in the kernel; no rule change.
* v0, rev. 4: the kernel's working arrays (painted pad, icon counts, cells under the top
  pad, leadership gains, re-drawn plans) moved into a scratch tail of the state, so
  ``step``, ``legal_mask`` and ``observe`` allocate nothing; no rule or observation change.
* v0, rules revision 2 (the same seed and actions give a different game):

  - phase 4 is exactly one action per company, as the rulebook says (ruling 6): a display
    tile of its choice with at least one active IMP icon, otherwise a goods token, handed
    out without a decision.  Before, every IMP icon resolved separately (active: a tile,
    covered: a token), so 120 of the 480 pad plans got nothing and 120 got two;
  - Steve re-reconstructed to the rulebook's strength (ruling 43): a 3 x 4 pad
    (``CHEAP PROD CHEAP PROD / RES LOG RES IMP / LOG RES LOG PUP``) whose marker walks the
    top row and down the right edge.  Per round his pad gives 4-5 goods, 3 research, 3
    logistics at price 4-5, against a company's means of 3.425, 2.45, 2.45 and 5.0; in 200
    games of two greedy companies and Steve each finished first 64-69 times
    (``benchmarks/steve_strength.py``).  The old 2 x 3 pad made 2-3 goods a round and
    Steve finished first in none of 20 such games;
  - observation: same size and layout; a company's ``improve_left`` is now 1 while its
    display pick is owed (it was picks owed / 3), and Steve's plan plane shows his 3 x 4
    pad (rows 3-5, columns 3-6).
"""
import functools
from collections.abc import Mapping

import numpy as np

from envs.options import Option
from envs.spec import GameConfig, GameSpec
from envs.smartphone_inc_readouts import STEVE_COVERED, plan_cells  # noqa: F401  (public here too)
from kernels import smartphone_inc as K

ICON_SHORT = {K.BLANK: "..", K.IMP: "IM", K.CHEAP: "Ch", K.PRICE_UP: "P+", K.RES: "Re", K.LOG: "Lo",
              K.PROD: "Pr", K.PRICE_DOWN: "P-"}
_SIDE_MODE = {"front": 0, "back": 1, "random": 2}
_SIDE_WORDS = "'front', 'back' or 'random'"


class _TechSidesOption(Option):
    """``tech_sides``: one of :data:`_SIDE_MODE` for every technology, or a mapping from
    technology id to one of them (missing ids: front).  Validated to a string or a dict
    in technology order."""

    def describe(self):
        return f"{_SIDE_WORDS} or a mapping from technology id to one of them"

    def validate(self, value):
        if isinstance(value, Mapping):
            for tid, v in sorted(value.items(), key=lambda kv: str(kv[0])):
                if not isinstance(tid, str) or tid not in K.TECH_IDS:
                    raise ValueError(f"{self.name}: unknown technology {tid!r} (ids: {', '.join(K.TECH_IDS)})")
                if not isinstance(v, str) or v not in _SIDE_MODE:
                    raise ValueError(f"{self.name}[{tid!r}] must be {_SIDE_WORDS}, got {v!r}")
            return {tid: value[tid] for tid in K.TECH_IDS if tid in value}
        return super().validate(value)    # a string out of the choices (sets refused as unordered)


def _check_colours(cols):
    """``colours`` items: distinct colour names (the count is checked with ``num_players``)."""
    if cols is not None and (any(not isinstance(c, str) or c not in K.COLOURS for c in cols)
                             or len(set(cols)) != len(cols)):
        raise ValueError(f"colours must be None or a list of distinct colours from {K.COLOURS} "
                         f"(seat order, Steve's last), got {cols!r}")
    return cols


def _cell(i):
    return f"({i // K.CANVAS_C},{i % K.CANVAS_C})"


@functools.lru_cache(maxsize=1)
def _pad_table():
    plans = np.zeros((4 * K.NUM_ARRANGEMENTS, 9), dtype=np.int64)
    K.pad_plan_outcomes(plans)
    plans.setflags(write=False)
    return plans


def pad_outcome_table():
    """``(plans, outcomes)``: ``plans`` int64[480, 9] rows (sides, arrange, C+d, PROD+CHEAP,
    IMP active, IMP covered, price shift, RES, LOG) for every tile-less pad plan, and
    ``outcomes``: dict outcome vector -> first (sides, arrange) giving it (80 entries
    with the data-block pads)."""
    plans = _pad_table().copy()
    outcomes = {}
    for row in plans:
        outcomes.setdefault(tuple(int(x) for x in row[2:]), (int(row[0]), int(row[1])))
    return plans, outcomes


class Spec(GameSpec):
    game_id = "smartphone_inc_v0"
    rules_revision = 2      # phase 4 one action per company (ruling 6); Steve re-reconstructed (43)
    kernel = K
    num_actions = K.NUM_ACTIONS
    player_counts = (1, 2, 3, 4, 5)
    max_steps = 20_000
    # every step of a plan is secret until all plans are revealed together
    secret_phases = {p: "planning" for p in ("sides", "arrange", "tile_pick", "tile_place")}

    # ---------------------------------------------------------------- options
    variant_options = ("steve", "tech_sides")
    options = (
        Option("num_players", "int", 2, "agent seats", low=1, high=5),
        Option("steve", "bool", None, "add Steve, the automaton company (None: only with 1 agent)",
               none_ok=True),
        _TechSidesOption("tech_sides", "choice", "front", "technology sides: front, back, random, or a "
                         "mapping from technology id to one of them (missing ids: front)",
                         choices=tuple(_SIDE_MODE)),
        Option("colours", "list", None, "colour of every company in seat order, Steve's last (None: random)",
               none_ok=True, check=_check_colours),
    )

    def build_config(self, opts):
        n = opts["num_players"]
        steve = opts["steve"]
        if steve is None:
            steve = n == 1
        if steve and n == 5:
            raise ValueError("steve=True is impossible with num_players=5 (at most 5 companies)")
        if not steve and n == 1:
            raise ValueError("steve=False is impossible with num_players=1 (Steve is mandatory solo)")
        ts = opts["tech_sides"]
        if isinstance(ts, str):
            sides = [_SIDE_MODE[ts]] * K.NUM_TECHS
        else:
            sides = [_SIDE_MODE[ts.get(tid, "front")] for tid in K.TECH_IDS]
        ncomp = n + steve
        cols = opts["colours"]
        colv = [-1] * K.MAX_SEATS
        if cols is not None:
            if len(cols) != ncomp:
                raise ValueError(f"colours must be None or a list of {ncomp} distinct colours from "
                                 f"{K.COLOURS} (seat order, Steve's last), got {cols!r}")
            for i, c in enumerate(cols):
                colv[i] = K.COLOURS.index(c)
        config = np.zeros(K.CONFIG_SIZE, dtype=np.int64)
        config[K.CFG_NUM_PLAYERS] = n
        config[K.CFG_STEVE] = int(steve)
        config[K.CFG_TECH_SIDES:K.CFG_TECH_SIDES + K.NUM_TECHS] = sides
        config[K.CFG_COLOURS:K.CFG_COLOURS + K.MAX_SEATS] = colv
        norm = {"num_players": n, "steve": steve, "tech_sides": ts, "colours": cols}
        return GameConfig(num_players=n, config=config, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=norm, num_participants=ncomp, scratch=K.STATE.scratch_size)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return K.OBS.parts()

    def observation_bounds(self, cfg):
        return K.OBS.bounds()

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        st = K.STATE.fields(state)
        if st.over:
            return "game_over"
        return K.BLOCK_NAMES[int(st.pending)]

    @staticmethod
    def _colour(state, c):
        st = K.STATE.fields(state)
        return K.COLOURS[int(K.COMPANY.fields(st.companies[c]).colour)]

    def _company(self, state, c):
        st = K.STATE.fields(state)
        name = self._colour(state, c)
        return f"{name}{' (Steve)' if c == st.steve else ''}"

    def action_label(self, state, cfg, action):
        st = K.STATE.fields(state)
        blk, x = K.ACTIONS.decode(action)
        c = int(st.current)
        if blk == "sides":
            return f"pad sides W{x // 2} B{x % 2}"
        if blk == "arrange":
            top = "W" if x // 60 == 0 else "B"
            i = x % 60
            r, col = K.ARR_RC[i]
            return f"{top} on top, {int(K.ARR_K[i]) * 90} deg clockwise, top-left at ({r},{col})"
        if blk == "tile_pick":
            if x == K.MAX_TILES:
                return "remaining tiles face down; commit plan: " + self.plan_text(state, c)
            return f"place tile {x} [{self._tile_name(state, c, x)}] next"
        if blk == "tile_place":
            if x == K.FACE_DOWN:
                return "tile face down (+1 good)"
            d, o, lv = x >> 2, (x >> 1) & 1, x & 1
            tname = ""
            if 0 <= c < K.MAX_SEATS and st.plan_stage == K.P_TILE_PLACE:
                tt = int(K.COMPANY.fields(st.companies[c]).tiles[st.picked_tile])
                i0, i1 = K.TT_ICONS[tt, o], K.TT_ICONS[tt, 1 - o]
                tname = f" {K.ICON_NAMES[i0]} on {_cell(K.DOM_A[d])}, {K.ICON_NAMES[i1]} on {_cell(K.DOM_B[d])}"
            return f"tile {'over' if lv == 0 else 'under'}{tname} (domino {d}, orient {o})"
        if blk == "improve_pick":
            t = int(st.display[x])
            return f"take display slot {x} [{'-' if t < 0 else '/'.join(K.TILE_TYPES[t])}]"
        if blk == "research":
            return "stop research" if x == K.NUM_TECHS else f"research marker on {K.TECH_NAMES[x]}"
        if blk == "logistics":
            return "stop logistics" if x == K.NUM_REGIONS else f"logistics marker on {K.REGION_NAMES[x]}"
        if blk == "office_target":
            kind = {K.OT_WIFI: "Wi-Fi office", K.OT_GAMEPAD: "Gamepad office", K.OT_EXTRA: "extra office",
                    K.OT_MOVE: "move office to"}.get(
                int(st.office_kind), "office")
            return f"{kind} {K.REGION_NAMES[x]}"
        if blk == "move_source":
            return f"move an office away from {K.REGION_NAMES[x]}"
        if blk == "nfc_sell":
            return f"NFC direct sale of {x + 1} goods"
        if blk == "sell":
            return f"sell a good in {K.REGION_NAMES[x]}"
        if blk == "bonus_tech":
            return f"bonus marker on {K.TECH_NAMES[x]}"
        return "price -1" if x == 0 else "price +1"   # bonus_price

    def _tile_name(self, state, c, k):
        st = K.STATE.fields(state)
        if not 0 <= c < K.MAX_SEATS or k >= K.COMPANY.fields(st.companies[c]).num_tiles:
            return "?"
        return "/".join(K.TILE_TYPES[int(K.COMPANY.fields(st.companies[c]).tiles[k])])

    def _plan_lines(self, state, c):
        """Company ``c``'s plan of the round: its choices in words, then the icons seen from
        above (two letters a cell, ``xx`` the cell Steve's marker covers), the rows that hold
        any led by their row number under a header of column numbers: the ``(row,col)`` the
        moves name."""
        st = K.STATE.fields(state)
        lines = [] if c == st.steve else ["plan: " + self.plan_text(state, c)]
        icon, src = plan_cells(state, c)
        rows = []
        for r in range(K.CANVAS_R):
            row = icon[r * K.CANVAS_C:(r + 1) * K.CANVAS_C]
            if (row >= 0).any():
                rows.append(f"{r:>2} " + " ".join("  " if i < 0 else ("xx" if src[r * K.CANVAS_C + j] == STEVE_COVERED
                                                                      else ICON_SHORT[int(i)])
                                                  for j, i in enumerate(row)).rstrip())
        if rows:
            lines.append("   " + " ".join(f"{j:<2}" for j in range(K.CANVAS_C)).rstrip())
        return lines + rows

    def private_text(self, state, cfg, seat):
        """``seat``'s plan of the round while the plans are still secret."""
        st = K.STATE.fields(state)
        if st.over or st.revealed or K.PLAN.fields(st.plans[seat]).w_side < 0:
            return []
        return self._plan_lines(state, seat)

    def plan_text(self, state, c):
        st = K.STATE.fields(state)
        pl = K.PLAN.fields(st.plans[c])
        if pl.w_side < 0:
            return "(no plan)"
        parts = [f"W{int(pl.w_side)} B{int(pl.b_side)}"]
        if pl.arrange >= 0:
            parts.append(self.action_label(state, None, K.A_ARRANGE + int(pl.arrange)))
        for k in range(int(pl.count)):
            u = int(pl.order_tile[k])
            code = int(pl.order_code[k])
            tt = int(K.COMPANY.fields(st.companies[c]).tiles[u])
            if code == K.FACE_DOWN:
                parts.append(f"[{'/'.join(K.TILE_TYPES[tt])}] face down")
            else:
                d, o, lv = code >> 2, (code >> 1) & 1, code & 1
                parts.append(f"[{K.ICON_NAMES[K.TT_ICONS[tt, o]]}@{_cell(K.DOM_A[d])} "
                             f"{K.ICON_NAMES[K.TT_ICONS[tt, 1 - o]]}@{_cell(K.DOM_B[d])} "
                             f"{'over' if lv == 0 else 'under'}]")
        return "; ".join(parts)

    # ---------------------------------------------------------------- render
    def render_ansi(self, state, cfg):
        st = K.STATE.fields(state)
        n = int(st.num_companies)
        lines = []
        if st.over:
            lines.append("Smartphone Inc. -- game over")
        else:
            lines.append(f"Smartphone Inc. -- round {int(st.round)}, phase "
                         f"{K.PHASE_NAMES[int(st.phase)]}; to move: "
                         f"{self._company(state, int(st.current))} ({K.BLOCK_NAMES[int(st.pending)]})")
        lines.append("Technologies: " + ", ".join(
            f"{K.TECH_NAMES[t]}[{'front' if st.tech_side[t] == 0 else 'back'}, cost {int(K.TECH_COST[t])}"
            f"{'' if st.patent[t] < 0 else ', patent ' + self._company(state, int(st.patent[t]))}]"
            for t in range(K.NUM_TECHS)))
        lines.append("Display: " + " ".join(
            "--" if st.display[s] < 0 else "/".join(K.TILE_TYPES[int(st.display[s])])
            for s in range(K.DISPLAY_SIZE))
            + f"   stack {int(st.stack_size)}, tokens {int(st.tokens_left)}")
        lines.append("Regions:")
        for r in range(K.NUM_REGIONS):
            offs = [int(st.offices[r, s]) for s in range(int(K.REG_NSLOT[r]))]
            txt = " ".join("-" if o < 0 else self._colour(state, o)[:3] for o in offs)
            t = int(st.retailer[r])
            if t >= 0:
                side = int(st.retailer_side[r])
                ro = [int(st.retailer_offices[r, s])
                      for s in range(int(K.RT_NSLOT[K.RT_SIZE[t]]))]
                txt += (f" | retailer {K.RETAILER_IDS[t]}{'ab'[side]} ({K.BONUS_KINDS[K.RT_BONUS[t, side]]}) "
                        + " ".join("-" if o < 0 else self._colour(state, o)[:3] for o in ro))
            buys = []
            for b in range(int(K.REG_NBUY[r])):
                code = int(K.REG_BUY[r, b])
                nm = str(code) if code < 100 else K.TECH_IDS[code - 100]
                who = int(st.buyers[r, b])
                buys.append(nm + ("" if who < 0 else "*" + self._colour(state, who)[:3]))
            marks = " ".join(f"{self._colour(state, c)[:3]}:{int(st.markers[r, c])}"
                             for c in range(n) if st.markers[r, c])
            lines.append(f"  {K.REGION_NAMES[r]:<14}{K.SIZES[K.REG_SIZE[r]]} cost {int(K.REG_COST[r])} "
                         f"offices [{txt}] buyers [{' '.join(buys)}]" + (f" markers {marks}" if marks else ""))
        lines.append("Companies:")
        sc = np.zeros(n, dtype=np.int64)
        K.scores(state, sc)
        for c in range(n):
            co = K.COMPANY.fields(st.companies[c])
            techs = ",".join(K.TECH_IDS[t] for t in range(K.NUM_TECHS) if co.owns[t])
            tm = ",".join(f"{K.TECH_IDS[t]}:{int(co.tech_markers[t])}" for t in range(K.NUM_TECHS)
                          if co.tech_markers[t])
            tiles = " ".join("/".join(K.TILE_TYPES[int(co.tiles[k])])
                             for k in range(int(co.num_tiles)))
            lines.append(f"  {self._company(state, c):<14} VP {int(co.vp)} (score {int(sc[c])}) "
                         f"price {int(co.price)} ready {int(co.ready_goods)} "
                         f"tokens {int(co.tokens)} techs [{techs}] markers [{tm}] tiles [{tiles}]"
                         f"{' committed' if co.committed and not st.revealed else ''}")
            if st.revealed:
                lines += ["      " + line for line in self._plan_lines(state, c)]
                o = co.outcome
                lines.append(f"      outcome: C+d {o[K.PO_GOODS]} prod {o[K.PO_PROD]} IMP {o[K.PO_IMP]}/"
                             f"{o[K.PO_IMP_COVERED]} shift {o[K.PO_PRICE_SHIFT]} RES {o[K.PO_RES]} LOG {o[K.PO_LOG]}")
        return "\n".join(lines)

    def picture(self, state, cfg, observer=None, clickable=False):
        from envs.pictures.smartphone_inc import draw
        return draw(state, cfg, observer, clickable, action_label=self.action_label)

    def end_infos(self, state, cfg):
        """With Steve: his final score and rank (he is no agent, so not in ``scores``)."""
        st = K.STATE.fields(state)
        steve = int(st.steve)
        if steve < 0:
            return {}
        rk = np.zeros(int(st.num_companies), dtype=np.int64)
        K.ranks(state, rk)
        return {"steve_score": int(K.total_score(state, steve)), "steve_rank": int(rk[steve])}
