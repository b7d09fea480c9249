"""Smartphone Inc. (``smartphone_inc_v0``): run a smartphone company for five rounds.

Each of 2 to 5 companies lays its two double-sided pads (and the improvement tiles it
owns) in secret; the visible icons set its price, production, research and
logistics for the round.  Then, in turn order (cheapest first), companies take new
tiles, research technologies (first to finish takes the patent), expand their offices
across a world map of 12 regions and sell their goods to the buyers there.  The kernel
is :mod:`kernels.smartphone_inc` (its docstring details the observation and the
planning encoding).

Agents and options
------------------
Agents ``player_0`` .. ``player_{n-1}``.  Options:

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

Wrong types or values raise ``ValueError`` naming the option.

Actions
-------
``Discrete(715)``, one flat space split in blocks (offset, size):
SIDES (0, 4) ``2*W_side + B_side``; ARRANGE (4, 120) ``60*t + i`` (t 0 = W on top; i
indexes ``geometry.top_pad_positions``); TILE_PICK (124, 10) owned tile to place next,
9 = the rest face down and commit; TILE_PLACE (134, 509) ``4*domino + 2*orient +
level`` (level 0 over, 1 under the top pad), 508 = face down; IMPROVE_PICK (643, 5)
display slot; RESEARCH (648, 7) technology or 6 = stop; LOGISTICS (655, 13) region or
12 = stop; OFFICE_TARGET (668, 12) region for Wi-Fi / Gamepad-back / extra office /
move destination; MOVE_SOURCE (680, 12); NFC_SELL (692, 3) k = 1..3 goods; SELL (695,
12) region of the next good (forced choices are resolved by the environment);
BONUS_TECH (707, 6); BONUS_PRICE (713, 2) -1 / +1.  Only the block of the pending
decision is ever legal; ``action_label`` spells actions (and, on commit, the whole
plan) out in words.  :func:`pad_outcome_table` lists the 480 tile-less pad plans and
their 80 distinct outcome vectors.

Observation
-----------
Flat ``float32`` vector (``observation_layout`` names every segment), values in
[-1, 4]: global (round, phase, own pending block, reveal flag, technology sides and
costs, patent holders, display, token supply, stack size, a retailer bonus in progress
with the technology markers it still owes, the office-target kind while one is pending,
the chosen move-office source), 12 regions (retailer, its bonus kind and amount, office
slots, retailer slots, progress markers, buyers filled this round, the static buyers,
size, cost), 5 companies ego-centric (self first: VP, start VP, price, ready goods,
tokens, tiles by type and in acquisition order -- the order ``TILE_PICK`` counts in --,
improvement picks owed, technologies, research markers and locks, markers to spend,
offices used, goods sold, revealed plan outcome, colour, turn-order slot, and the plan:
pad sides, arrangement, and per owned tile whether it is the tile picked for placement,
placed, face down, over or under, its placement order, cells and orientation), and 5
plan planes of 8x9 cells x 13 channels (visible icon one-hot, bottom / top / tile
layer, under- and over-tiles covering the cell).  One's own plan is shown at every
moment, others' only once revealed, so the player to move can tell apart every
position it can tell apart at the table.

Rewards
-------
At the end only, by the shell's ``reward_mode``: ``"rank"`` (default) among all
companies including Steve, or ``"score"``.  Final score = VP track + patent VP +
retailer VP; ties: more technologies, then more patents, else shared -- with Steve
too: an agent still tied with Steve for first of 3 companies gets +0.5, a solo agent
tied with Steve 0.0 (and is listed in ``winners``, Steve never is).

Greedy baseline
---------------
``Spec.evaluate`` (one-ply greedy) adds ``kernels.smartphone_inc.potential`` to the live
score, since VP arrive only at selling and scoring time: this round's sales and leadership
(every company's plan outcome, or goods and price once produced, sold cheapest first to the
buyers its offices reach), the round's research, logistics and IMP icons not spent yet,
markers on technologies and regions as shares of what completing them is worth, and each
later round valued at the best pad outcome for the offices, technologies, tiles and tokens
held now.  Against ``RandomAgent`` greedy finishes ahead in 100% of 200 two-player games
(tournament seeds 7 and 8; about 62% without the potential), at about 0.001 s per move.

Data
----
Every table is in ``kernels/data/smartphone_inc.yaml`` with its provenance; much of the
printed component data (map buyers, costs, VP values, tiles, retailers, Steve) is
reconstructed and can be corrected there without code changes.

Version history
---------------
v0: initial.
v0 (issues 14/15): observation gains the own plan in full (sides, arrangement, every
tile's placement, the picked tile, tiles in acquisition order) and the public bonus
state (kind, amount, markers left, office-target kind, move source): 8,198 values;
under-tiles need no cell beneath the top pad (every physical stacking reachable);
``colours`` must be a list or tuple and ``tech_sides`` a mapping of strings
(``ValueError`` otherwise); the data file is validated at import.
"""
import functools
from collections.abc import Mapping

import numpy as np

from envs.spec import GameConfig, GameSpec
from kernels import smartphone_inc as K

ICON_SHORT = {K.BLANK: "..", K.IMP: "IM", K.CHEAP: "Ch", K.PUP: "P+", K.RES: "Re", K.LOG: "Lo",
              K.PROD: "Pr", K.PDOWN: "P-"}
_SIDE_MODE = {"front": 0, "back": 1, "random": 2}


def _cell(i):
    return f"({i // K.CANVAS_C},{i % K.CANVAS_C})"


@functools.lru_cache(maxsize=1)
def _pad_table():
    plans = np.zeros((4 * K.NARR, 9), dtype=np.int64)
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
    kernel = K
    num_actions = K.NUM_ACTIONS
    # MCTSAgent scores a leaf by the greedy evaluation at once (no random moves), a
    # lead of margin_scale points counting as tanh(1):
    # scores run to ~200 VP but rounds swing them by 10-20.
    mcts_playout_depth = 0
    margin_scale = 10.0
    player_counts = (1, 2, 3, 4, 5)
    default_num_players = 2
    metadata_name = "smartphone_inc_v0"
    max_steps = 20_000

    # ---------------------------------------------------------------- options
    def configure(self, **options):
        known = {"num_players", "steve", "tech_sides", "colours"}
        for k in options:
            if k not in known:
                raise ValueError(f"unknown option {k!r} for smartphone_inc_v0 (options: {', '.join(sorted(known))})")
        n = options.get("num_players", self.default_num_players)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= int(n) <= 5:
            raise ValueError(f"num_players must be an integer 1-5, got {n!r}")
        n = int(n)
        steve = options.get("steve", None)
        if steve is not None and not isinstance(steve, (bool, np.bool_)):
            raise ValueError(f"steve must be None, True or False, got {steve!r}")
        if steve is None:
            steve = n == 1
        steve = bool(steve)
        if steve and n == 5:
            raise ValueError("steve=True is impossible with num_players=5 (at most 5 companies)")
        if not steve and n == 1:
            raise ValueError("steve=False is impossible with num_players=1 (Steve is mandatory solo)")
        ts = options.get("tech_sides", "front")
        sides = [0] * K.NTECH
        choice = "'front', 'back' or 'random'"
        if isinstance(ts, str):
            if ts not in _SIDE_MODE:
                raise ValueError(f"tech_sides must be {choice} or a mapping, got {ts!r}")
            sides = [_SIDE_MODE[ts]] * K.NTECH
        elif isinstance(ts, Mapping):
            for tid, v in sorted(ts.items(), key=lambda kv: str(kv[0])):
                if not isinstance(tid, str) or tid not in K.TECH_IDS:
                    raise ValueError(f"tech_sides: unknown technology {tid!r} (ids: {', '.join(K.TECH_IDS)})")
                if not isinstance(v, str) or v not in _SIDE_MODE:
                    raise ValueError(f"tech_sides[{tid!r}] must be {choice}, got {v!r}")
                sides[K.TECH_IDS.index(tid)] = _SIDE_MODE[v]
            ts = {tid: ts[tid] for tid in K.TECH_IDS if tid in ts}
        else:
            raise ValueError(f"tech_sides must be {choice} or a mapping from technology id to one of "
                             f"them, got {ts!r}")
        ncomp = n + steve
        cols = options.get("colours", None)
        colv = [-1] * K.MAX_CO
        if cols is not None:
            # An ordered sequence only: seat i takes colour i, so a set (whose order
            # depends on the hash seed) would give a different game in each process.
            bad = (not isinstance(cols, (list, tuple)) or len(cols) != ncomp
                   or any(not isinstance(c, str) or c not in K.COLOURS for c in cols)
                   or len(set(cols)) != ncomp)
            if bad:
                raise ValueError(f"colours must be None or a list of {ncomp} distinct colours from "
                                 f"{K.COLOURS} (seat order, Steve's last), got {cols!r}")
            for i, c in enumerate(cols):
                colv[i] = K.COLOURS.index(c)
            cols = list(cols)
        config = np.array([n, int(steve)] + sides + colv, dtype=np.int64)
        norm = {"num_players": n, "steve": steve, "tech_sides": ts, "colours": cols}
        return GameConfig(num_players=n, config=config, state_size=K.STATE_SIZE, obs_size=K.OBS_SIZE,
                          options=norm, num_participants=ncomp)

    # ------------------------------------------------------------ observation
    def observation_layout(self, cfg):
        return [("global", (K.G_SIZE,)), ("regions", (K.NREG, K.R_SZ)), ("companies", (K.MAX_CO, K.K_SZ)),
                ("plans", (K.MAX_CO, K.CANVAS_R, K.CANVAS_C, K.PLANE_CH))]

    def observation_bounds(self, cfg):
        return K.OBS_LOW, K.OBS_HIGH

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        if state[K.OVER]:
            return "game_over"
        p = int(state[K.PEND])
        return f"round {int(state[K.ROUND])} {K.PHASE_NAMES[int(state[K.PHASE])]}: {K.BLOCK_NAMES[p]}"

    def _company(self, state, c):
        name = K.COLOURS[int(state[K.cb(c) + K.C_COL])]
        return f"{name}{' (Steve)' if c == state[K.STEVE] else ''}"

    def action_label(self, state, cfg, action):
        a = int(action)
        blk = int(K.BLOCK_OF[a])
        x = a - K.BLOCK_OFF[blk]
        c = int(state[K.CUR])
        if blk == K.P_SIDES:
            return f"pad sides W{x // 2} B{x % 2}"
        if blk == K.P_ARR:
            top = "W" if x // 60 == 0 else "B"
            i = x % 60
            r, col = K.ARR_RC[i]
            return f"{top} on top, {int(K.ARR_K[i]) * 90} deg clockwise, top-left at ({r},{col})"
        if blk == K.P_PICK:
            if x == K.MAX_TILES:
                return "remaining tiles face down; commit plan: " + self.plan_text(state, c)
            return f"place tile {x} [{self._tile_name(state, c, x)}] next"
        if blk == K.P_PLACE:
            if x == K.FACE_DOWN:
                return "tile face down (+1 good)"
            d, o, lv = x >> 2, (x >> 1) & 1, x & 1
            tname = ""
            if 0 <= c < K.MAX_CO and state[K.PSTAGE] == 3:
                tt = int(state[K.cb(c) + K.C_TILES + state[K.PTILE]])
                i0, i1 = K.TT_ICONS[tt, o], K.TT_ICONS[tt, 1 - o]
                tname = f" {K.ICON_NAMES[i0]} on {_cell(K.DOM_A[d])}, {K.ICON_NAMES[i1]} on {_cell(K.DOM_B[d])}"
            return f"tile {'over' if lv == 0 else 'under'}{tname} (domino {d}, orient {o})"
        if blk == K.P_IMPR:
            t = int(state[K.DISP + x])
            return f"take display slot {x} [{'-' if t < 0 else '/'.join(K.TILE_TYPES[t])}]"
        if blk == K.P_RES:
            return "stop research" if x == K.NTECH else f"research marker on {K.TECH_NAMES[x]}"
        if blk == K.P_LOG:
            return "stop logistics" if x == K.NREG else f"logistics marker on {K.REGION_NAMES[x]}"
        if blk == K.P_OFF:
            kind = {1: "Wi-Fi office", 2: "Gamepad office", 3: "extra office", 4: "move office to"}.get(
                int(state[K.OTK]), "office")
            return f"{kind} {K.REGION_NAMES[x]}"
        if blk == K.P_MSRC:
            return f"move an office away from {K.REGION_NAMES[x]}"
        if blk == K.P_NFC:
            return f"NFC direct sale of {x + 1} goods"
        if blk == K.P_SELL:
            return f"sell a good in {K.REGION_NAMES[x]}"
        if blk == K.P_BTECH:
            return f"bonus marker on {K.TECH_NAMES[x]}"
        return "price -1" if x == 0 else "price +1"

    def _tile_name(self, state, c, k):
        if not 0 <= c < K.MAX_CO or k >= state[K.cb(c) + K.C_NT]:
            return "?"
        return "/".join(K.TILE_TYPES[int(state[K.cb(c) + K.C_TILES + k])])

    def plan_text(self, state, c):
        p = K.pb(c)
        if state[p + K.PL_SW] < 0:
            return "(no plan)"
        parts = [f"W{int(state[p + K.PL_SW])} B{int(state[p + K.PL_SB])}"]
        if state[p + K.PL_ARR] >= 0:
            parts.append(self.action_label(state, None, K.A_ARR + int(state[p + K.PL_ARR])))
        for k in range(int(state[p + K.PL_N])):
            u = int(state[p + K.PL_ORDT + k])
            code = int(state[p + K.PL_ORDC + k])
            tt = int(state[K.cb(c) + K.C_TILES + u])
            if code == K.FACE_DOWN:
                parts.append(f"[{'/'.join(K.TILE_TYPES[tt])}] face down")
            else:
                d, o, lv = code >> 2, (code >> 1) & 1, code & 1
                parts.append(f"[{K.ICON_NAMES[K.TT_ICONS[tt, o]]}@{_cell(K.DOM_A[d])} "
                             f"{K.ICON_NAMES[K.TT_ICONS[tt, 1 - o]]}@{_cell(K.DOM_B[d])} "
                             f"{'over' if lv == 0 else 'under'}]")
        return "; ".join(parts)

    # ---------------------------------------------------------------- render
    def _canvas(self, state, c):
        icon = np.zeros(K.NCELL, dtype=np.int64)
        src = np.zeros(K.NCELL, dtype=np.int64)
        if c == state[K.STEVE]:
            icon[:] = -1
            cov = K.STEVE_CYCLE[(int(state[K.ROUND]) - 1) % len(K.STEVE_CYCLE)]
            for v in range(6):
                icon[K.BOTTOM_CELLS[v]] = K.STEVE_PAD[v]
                src[K.BOTTOM_CELLS[v]] = 2 if v == cov else 1
            return icon, src
        K.paint(state, c, icon, src, int(state[K.pb(c) + K.PL_N]))
        return icon, src

    def render_ansi(self, state, cfg):
        n = int(state[K.NCO])
        lines = []
        if state[K.OVER]:
            lines.append("Smartphone Inc. -- game over")
        else:
            lines.append(f"Smartphone Inc. -- round {int(state[K.ROUND])}, phase "
                         f"{K.PHASE_NAMES[int(state[K.PHASE])]}; to move: "
                         f"{self._company(state, int(state[K.CUR]))} ({K.BLOCK_NAMES[int(state[K.PEND])]})")
        lines.append("Technologies: " + ", ".join(
            f"{K.TECH_NAMES[t]}[{'front' if state[K.TSIDE + t] == 0 else 'back'}, cost {int(K.TECH_COST[t])}"
            f"{'' if state[K.PATENT + t] < 0 else ', patent ' + self._company(state, int(state[K.PATENT + t]))}]"
            for t in range(K.NTECH)))
        lines.append("Display: " + " ".join(
            "--" if state[K.DISP + s] < 0 else "/".join(K.TILE_TYPES[int(state[K.DISP + s])])
            for s in range(K.DISPLAY_SIZE)) + f"   stack {int(state[K.STACKN])}, tokens {int(state[K.TOK])}")
        lines.append("Regions:")
        for r in range(K.NREG):
            offs = [int(state[K.OFFS + r * K.MAX_SLOTS + s]) for s in range(int(K.REG_NSLOT[r]))]
            txt = " ".join("-" if o < 0 else K.COLOURS[int(state[K.cb(o) + K.C_COL])][:3] for o in offs)
            t = int(state[K.RET + r])
            if t >= 0:
                side = int(state[K.RSIDE + r])
                ro = [int(state[K.ROFF + r * K.MAX_RSLOT + s]) for s in range(int(K.RT_NSLOT[K.RT_SIZE[t]]))]
                txt += (f" | retailer {K.RETAILER_IDS[t]}{'ab'[side]} ({K.BONUS_KINDS[K.RT_BONUS[t, side]]}) "
                        + " ".join("-" if o < 0 else K.COLOURS[int(state[K.cb(o) + K.C_COL])][:3] for o in ro))
            buys = []
            for b in range(int(K.REG_NBUY[r])):
                code = int(K.REG_BUY[r, b])
                nm = str(code) if code < 100 else K.TECH_IDS[code - 100]
                who = int(state[K.BUY + r * K.MAX_BUY + b])
                buys.append(nm + ("" if who < 0 else "*" + K.COLOURS[int(state[K.cb(who) + K.C_COL])][:3]))
            marks = " ".join(f"{K.COLOURS[int(state[K.cb(c) + K.C_COL])][:3]}:{int(state[K.MARK + r * K.MAX_CO + c])}"
                             for c in range(n) if state[K.MARK + r * K.MAX_CO + c])
            lines.append(f"  {K.REGION_NAMES[r]:<14}{K.SIZES[K.REG_SIZE[r]]} cost {int(K.REG_COST[r])} "
                         f"offices [{txt}] buyers [{' '.join(buys)}]" + (f" markers {marks}" if marks else ""))
        lines.append("Companies:")
        sc = np.zeros(n, dtype=np.int64)
        K.scores(state, sc)
        for c in range(n):
            b = K.cb(c)
            techs = ",".join(K.TECH_IDS[t] for t in range(K.NTECH) if state[b + K.C_OWN + t])
            tm = ",".join(f"{K.TECH_IDS[t]}:{int(state[b + K.C_TM + t])}" for t in range(K.NTECH)
                          if state[b + K.C_TM + t])
            tiles = " ".join("/".join(K.TILE_TYPES[int(state[b + K.C_TILES + k])])
                             for k in range(int(state[b + K.C_NT])))
            lines.append(f"  {self._company(state, c):<14} VP {int(state[b + K.C_VP])} (score {int(sc[c])}) "
                         f"price {int(state[b + K.C_PRICE])} ready {int(state[b + K.C_READY])} "
                         f"tokens {int(state[b + K.C_TOK])} techs [{techs}] markers [{tm}] tiles [{tiles}]"
                         f"{' committed' if state[b + K.C_COMMIT] and not state[K.REVEALED] else ''}")
            if state[K.REVEALED]:
                if c != state[K.STEVE]:
                    lines.append("      plan: " + self.plan_text(state, c))
                icon, src = self._canvas(state, c)
                rows = [r for r in range(K.CANVAS_R) if any(icon[r * K.CANVAS_C + j] >= 0 for j in range(K.CANVAS_C))]
                for r in rows:
                    cells = []
                    for j in range(K.CANVAS_C):
                        i = icon[r * K.CANVAS_C + j]
                        cells.append("  " if i < 0 else ("xx" if src[r * K.CANVAS_C + j] == 2 and c == state[K.STEVE]
                                                         else ICON_SHORT[int(i)]))
                    lines.append("      " + " ".join(cells))
                o = state[b + K.C_OUT:b + K.C_OUT + 7]
                lines.append(f"      outcome: C+d {o[0]} prod {o[1]} IMP {o[2]}/{o[3]} shift {o[4]} RES {o[5]} LOG {o[6]}")
        return "\n".join(lines)

    def render_rgb(self, state, cfg):
        from PIL import Image, ImageDraw
        W, H = 960, 640
        img = Image.new("RGB", (W, H), (245, 245, 240))
        dr = ImageDraw.Draw(img)
        rgb = {"green": (40, 160, 60), "blue": (40, 80, 200), "black": (30, 30, 30), "yellow": (220, 190, 30),
               "red": (200, 40, 40)}
        n = int(state[K.NCO])
        # regions laid out on a 4 x 3 grid
        pos = {}
        for r in range(K.NREG):
            x = 20 + (r % 4) * 150
            y = 20 + (r // 4) * 120
            pos[r] = (x + 65, y + 50)
        for r in range(K.NREG):
            for q in range(r + 1, K.NREG):
                if K.LINK[r, q]:
                    dr.line([pos[r], pos[q]], fill=(190, 190, 190), width=1)
        for r in range(K.NREG):
            x = 20 + (r % 4) * 150
            y = 20 + (r // 4) * 120
            ret = int(state[K.RET + r])
            dr.rectangle([x, y, x + 130, y + 100], fill=(255, 240, 210) if ret >= 0 else (225, 235, 250),
                         outline=(80, 80, 80))
            dr.text((x + 4, y + 2), f"{K.REGION_NAMES[r]} {K.SIZES[K.REG_SIZE[r]]}", fill=(0, 0, 0))
            slots = ([int(state[K.ROFF + r * K.MAX_RSLOT + s]) for s in range(int(K.RT_NSLOT[K.RT_SIZE[ret]]))]
                     if ret >= 0 else [int(state[K.OFFS + r * K.MAX_SLOTS + s]) for s in range(int(K.REG_NSLOT[r]))])
            for s, o in enumerate(slots):
                col = (255, 255, 255) if o < 0 else rgb[K.COLOURS[int(state[K.cb(o) + K.C_COL])]]
                dr.rectangle([x + 4 + s * 20, y + 20, x + 20 + s * 20, y + 36], fill=col, outline=(0, 0, 0))
            for b in range(int(K.REG_NBUY[r])):
                who = int(state[K.BUY + r * K.MAX_BUY + b])
                code = int(K.REG_BUY[r, b])
                fill = (255, 255, 255) if who < 0 else rgb[K.COLOURS[int(state[K.cb(who) + K.C_COL])]]
                dr.ellipse([x + 4 + b * 20, y + 45, x + 20 + b * 20, y + 61], fill=fill,
                           outline=(200, 0, 0) if code < 100 else (130, 0, 160))
                dr.text((x + 8 + b * 20, y + 63), str(code) if code < 100 else K.TECH_IDS[code - 100][:2],
                        fill=(0, 0, 0))
            mk = [(c, int(state[K.MARK + r * K.MAX_CO + c])) for c in range(n) if state[K.MARK + r * K.MAX_CO + c]]
            for i, (c, m) in enumerate(mk):
                dr.text((x + 4 + i * 25, y + 80), f"+{m}", fill=rgb[K.COLOURS[int(state[K.cb(c) + K.C_COL])]])
        # tracks and companies
        sc = np.zeros(n, dtype=np.int64)
        K.scores(state, sc)
        y0 = 390
        dr.text((20, y0 - 18), f"Round {int(state[K.ROUND])}  phase {K.PHASE_NAMES[int(state[K.PHASE])]}",
                fill=(0, 0, 0))
        for c in range(n):
            b = K.cb(c)
            col = rgb[K.COLOURS[int(state[b + K.C_COL])]]
            y = y0 + c * 48
            dr.rectangle([20, y, 30, y + 10], fill=col)
            techs = ",".join(K.TECH_IDS[t] for t in range(K.NTECH) if state[b + K.C_OWN + t])
            dr.text((36, y - 2), f"{self._company(state, c)} VP {int(state[b + K.C_VP])} score {int(sc[c])} "
                                 f"price {int(state[b + K.C_PRICE])} ready {int(state[b + K.C_READY])} [{techs}]",
                    fill=(0, 0, 0))
            dr.rectangle([36, y + 14, 36 + int(state[b + K.C_VP]) * 3, y + 20], fill=col)
            dr.rectangle([36, y + 24, 36 + int(state[b + K.C_PRICE]) * 10, y + 30], fill=(120, 120, 120))
        # revealed plans
        if state[K.REVEALED]:
            icol = {K.BLANK: (250, 250, 250), K.IMP: (150, 90, 40), K.CHEAP: (60, 170, 60), K.PUP: (220, 60, 60),
                    K.RES: (60, 120, 220), K.LOG: (230, 160, 30), K.PROD: (30, 120, 30), K.PDOWN: (120, 200, 120)}
            for c in range(n):
                icon, src = self._canvas(state, c)
                ox = 620 + (c % 2) * 170
                oy = 20 + (c // 2) * 110
                dr.text((ox, oy), self._company(state, c), fill=(0, 0, 0))
                for i in range(K.NCELL):
                    if icon[i] < 0:
                        continue
                    r, j = divmod(i, K.CANVAS_C)
                    x, y = ox + j * 16, oy + 12 + r * 11
                    dr.rectangle([x, y, x + 15, y + 10], fill=icol[int(icon[i])],
                                 outline=(0, 0, 0) if src[i] >= 3 else (140, 140, 140))
        return np.asarray(img, dtype=np.uint8)

    def end_infos(self, state, cfg):
        """With Steve: his final score and rank (he is no agent, so not in ``scores``)."""
        st = int(state[K.STEVE])
        if st < 0:
            return {}
        rk = np.zeros(int(state[K.NCO]), dtype=np.int64)
        K.ranks(state, rk)
        return {"steve_score": int(K.total_score(state, st)), "steve_rank": int(rk[st])}

    # ------------------------------------------------------- hidden information
    def reseed(self, state, cfg, seed):
        K.reseed(state, int(seed))

    def determinize(self, state, cfg, observer, seed):
        K.determinize(state, int(observer), int(seed))
