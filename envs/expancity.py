"""Expancity (``expancity_v0``): grow one shared city from City Hall, raise buildings, roof them.

2-4 players lay zoning tiles edge-to-edge around City Hall, spend three actions a turn
on BUILD (start a building on a vacant lot / add one floor to an own unfinished
building) and GATHER (reserve -> supply), roof any of their finishable buildings for
immediate points, draw secret contracts (draw 2 keep 1 per roofed building) that are
revealed automatically once met, and refill their hand (draw 2 keep 1).  After the 60th
turn three public goals are scored.  Rules: ``docs/rules/expancity.md``; the
kernel is :mod:`kernels.expancity`, the data :file:`kernels/data/expancity.yaml`.

Agents
    ``player_0 .. player_{N-1}``; seat 0 starts, play goes up by seat.  The active
    player takes several consecutive steps per turn (at most 11): PLACE, up to 3
    ACTION steps (remaining actions are skipped when nothing is legal), ROOF (repeat,
    or STOP; skipped when nothing can be roofed and ended automatically when nothing
    more can), one CONTRACT_KEEP per roofed building, TILE_KEEP (whenever the bag held
    2 or more tiles; when both drawn tiles have the same type only ``614`` is legal -- the
    step is still asked so that the others, who see whose turn and which phase it is,
    learn nothing about the secret pair).  Contract reveals are automatic.  At most 660
    steps.

Actions (``Discrete(616)``, masked; tiles are named by placement index, City Hall 0)
    ``0..487``   place hand slot ``s`` next to tile ``a`` in direction ``d`` (0 N, 1 E,
                 2 S, 3 W): ``s*244 + a*4 + d``.  The hand is sorted by type id; slot 1
                 is masked when it holds the same type as slot 0.  Each empty cell is
                 offered only through its lowest-index placed neighbour.
    ``488``      GATHER
    ``489+t``    BUILD on tile ``t`` (start or raise)
    ``550+t``    ROOF building on tile ``t``
    ``611``      STOP roofing
    ``612/613``  keep contract 0 / 1 of the drawn pair
    ``614/615``  keep tile 0 / 1 of the drawn pair (sorted by type id; ``615`` masked
                 when both have the same type)

Observation (``float32``, rotated so that the observer is player 0; see
``Spec.observation_layout``)
    ``tiles`` (61 x 25), one row per tile index: placed, x, y, type one-hot (12: city
    hall, residential, commercial, then the nine specials in data order), has building,
    owner one-hot (4, relative seat), floors, completed, raised this turn, frozen
    score, vacant lot.
    ``players`` (4 x 63), relative seat order, zero rows for absent seats: score,
    supply, reserve, unfinished count U, R (tallest completed residential), C (tallest
    completed commercial), completed residential, completed commercial, completed
    floors, contracts held (count), contracts revealed (count), hand size, active
    flag, then the 50 revealed-contract bits.
    ``globals`` (31): phase one-hot (place, action, roof, contract_keep, tile_keep,
    over), actions left, turn, bag size, contract deck size, roofs left (res, com),
    goals in play (6 bits), unseen tiles per type (bag + others' hands, from the
    observer's knowledge), contract draws pending (during ROOF: buildings roofed so far
    this turn; during CONTRACT_KEEP: draws still owed, the current one included; 0
    otherwise) -- 31 values.
    private parts (248): ``hand`` own hand (2 slots x 12 one-hot), ``contracts`` own
    unrevealed contracts (50 bits), ``contract_pair`` the drawn contract pair (2 x 50
    one-hot, only while the observer keeps one), ``tile_pair`` the drawn tile pair (2 x 12
    one-hot, only during the observer's tile keep), ``bottom_cards`` the cards the
    observer put at the bottom of the deck that are still there (50 bits).
    ``window_info`` (3) and ``window`` (14 x K x K), only when ``obs_window`` = K > 0
    (default 21): a crop of the grid centred on the centre of the city's bounding box
    (row 0 = north, column 0 = west); window_info = (some tile lies outside the crop,
    centre x, centre y); planes residential, commercial, special, city hall, the
    tile's per-floor modifier for residential / commercial buildings, owner one-hot
    (4, relative seat), floors, completed, vacant lot, legal placement cell.  The tile
    table stays the exact record whatever the city's shape.
    Other players' hands, contracts, drawn pairs and the bag/deck order never appear.

Rewards
    Set by the shell's ``reward_mode``: ``"rank"`` (default; final VP, then most
    completed buildings, then a shared rank) or ``"score"`` (final VP difference).

Options
    ``num_players`` 2, 3, 4 (default 2); ``goal_ids`` ``None`` (3 random goals) or a list
    or tuple of 3 distinct goal ids of the data file (``"G1"`` .. ``"G6"``; sets and other
    unordered containers are refused); ``data_path`` a corrected copy of the data file
    (same schema and counts; checked field by field at load, a ``ValueError`` names the
    first bad field, e.g. ``tile_types[3].count``); ``obs_window`` 0 or an odd crop size
    5..121 (default 21).

Hidden information
    ``determinize(observer, seed)`` re-deals the bag and the other hands (tiles), and the
    other players' contracts, the never-drawn pool and the bottom-of-deck cards others
    put there, consistently with what the observer knows: cards it saw never return to
    the never-drawn pool, and a contract another player still holds from an earlier
    turn is one that was not met at that player's last step 4 (reveals are automatic).
    A determinized copy is itself a consistent game (it determinizes again).

Data provenance
    Tile counts, the rulebook's park / shopping mall / stadium values and all rules
    numbers come from the rulebook; the other special-tile values, City Hall's value,
    the 50 contracts and the 6 goals are reconstructed (``provenance`` of each entry in
    the YAML).  Contract conditions are written in the small condition language of
    ``docs/rules/expancity.md`` (section 6.2) and compiled at import into integer rows
    evaluated by the kernel.

Version history
    v0: initial.
    v0 (issues 14/15): globals gain the pending contract draws (31 values) and the private
    block the own bottom-of-deck cards (248); TILE_KEEP is asked whenever the bag held 2+
    tiles; determinize deals held contracts consistently with the automatic reveals and
    copies determinize again; options, ``building_score``, ``determinize`` and ``reseed``
    validate their arguments (``ValueError`` naming the argument); the data file is
    checked at load.
"""
from __future__ import annotations

import os

import numpy as np
import yaml

from envs.spec import GameConfig, GameSpec
from kernels import expancity as K
from kernels import rng as krng

DIR_NAMES = ("N", "E", "S", "W")
PHASE_LABELS = ("PLACE", "ACTION", "ROOF", "CONTRACT_KEEP", "TILE_KEEP", "GAME_OVER")
_SIDE_KEYS = ("none", "vacant", "building")
_MAX_FLOORS = 1000   # far above any reachable height (56 blocks a colour)


# ------------------------------------------------------------------ pure helpers

def building_score(kind, floors, neighbours):
    """Score of a building at the moment it is roofed (rules section 6.1).

    ``kind``: ``"residential"`` or ``"commercial"``; ``floors``: int; ``neighbours``: the
    4 sides, each ``"none"``, ``"vacant"``, ``"building"``, ``"city_hall"`` or a special
    tile key of the data file (``park``, ``shopping_mall``, ...).
    """
    if not isinstance(kind, str) or kind not in ("residential", "commercial"):
        raise ValueError(f"kind must be 'residential' or 'commercial', got {kind!r}")
    if isinstance(floors, (bool, np.bool_)) or not isinstance(floors, (int, np.integer)) \
            or not 0 <= int(floors) <= _MAX_FLOORS:
        raise ValueError(f"floors must be an integer in [0, {_MAX_FLOORS}], got {floors!r}")
    if isinstance(neighbours, np.ndarray):
        neighbours = neighbours.tolist()
    if not isinstance(neighbours, (list, tuple)):
        raise ValueError(f"neighbours must be a list of the 4 sides, got {type(neighbours).__name__}")
    if len(neighbours) != 4:
        raise ValueError(f"neighbours must name the 4 sides, got {len(neighbours)}")
    blob = K.DEFAULT_BLOB
    ids = K.DEFAULT_INFO["type_ids"]
    k = 0 if kind == "residential" else 1
    per = int(blob[K.B_RULES + K.RU_BASE])
    for n in neighbours:
        if not isinstance(n, str):
            raise ValueError(f"neighbours: each side must be a string, got {n!r}")
        if n in _SIDE_KEYS:
            if n == "vacant":
                per += int(blob[K.B_RULES + K.RU_VACANT])
            continue
        if n not in ids or n in ("residential", "commercial"):
            raise ValueError(f"neighbours: unknown side {n!r}")
        per += int(blob[K.B_MOD + 2 * ids[n] + k])
    return int(floors) * per


def _load_blob(data_path):
    if data_path is None:
        return K.DEFAULT_BLOB, K.DEFAULT_INFO
    if isinstance(data_path, bytes) or not isinstance(data_path, (str, os.PathLike)):
        raise ValueError(f"data_path must be None or a file path (str or os.PathLike), got {data_path!r}")
    try:
        with open(data_path, "rb") as f:
            data = yaml.safe_load(f)
        return K.compile_data(data)
    except (OSError, KeyError, TypeError, ValueError, AttributeError, IndexError, yaml.YAMLError) as e:
        raise ValueError(f"data_path: cannot use {data_path!r}: {e}") from e


class Spec(GameSpec):
    game_id = "expancity_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    # MCTSAgent scores a leaf by the greedy evaluation at once (no random moves), a
    # lead of margin_scale points counting as tanh(1):
    # final scores of a few dozen points.
    mcts_playout_depth = 0
    margin_scale = 10.0
    player_counts = (2, 3, 4)
    default_num_players = 2
    metadata_name = "expancity_v0"
    max_steps = 60 * 11

    # ---------------------------------------------------------------- options
    def configure(self, num_players=2, goal_ids=None, data_path=None, obs_window=21, **unknown):
        if unknown:
            raise ValueError(f"unknown option(s) for expancity: {', '.join(sorted(unknown))}")
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
                or int(num_players) not in self.player_counts:
            raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if isinstance(obs_window, bool) or not isinstance(obs_window, (int, np.integer)) \
                or not (obs_window == 0 or (5 <= obs_window <= 2 * K.R + 1 and obs_window % 2 == 1)):
            raise ValueError(f"obs_window must be 0 (no crop) or an odd size 5..121, got {obs_window!r}")
        obs_window = int(obs_window)
        blob, info = _load_blob(data_path)
        first = int(blob[K.B_RULES + K.RU_FIRST])
        if first >= int(num_players):
            raise ValueError(f"data_path: field 'first_player' ({first}) is not a seat of a "
                             f"{int(num_players)}-player game")
        goals = None
        goal_list = None
        if goal_ids is not None:
            ids = info["goal_ids"]
            # order decides nothing, but an unordered container would still make the option
            # depend on the process's hash seed: only lists and tuples of id strings
            if not isinstance(goal_ids, (list, tuple)):
                raise ValueError(f"goal_ids must be None or a list of 3 goal ids (not a "
                                 f"{type(goal_ids).__name__}), got {goal_ids!r}")
            goal_list = list(goal_ids)
            if len(goal_list) != 3 or any(not isinstance(g, str) or g not in ids for g in goal_list) \
                    or len(set(goal_list)) != 3:
                raise ValueError(f"goal_ids must be 3 distinct ids among {ids}, got {goal_ids!r}")
            goals = [ids.index(g) for g in goal_list]
        cfg = GameConfig(
            num_players=int(num_players),
            config=K.make_config(int(num_players), goals, blob, obs_window),
            state_size=K.STATE_SIZE,
            obs_size=K.obs_size(obs_window),
            options={"num_players": int(num_players), "goal_ids": goal_list,
                     "data_path": data_path, "obs_window": obs_window},
        )
        cfg.info = info
        return cfg

    @staticmethod
    def _info(cfg):
        return getattr(cfg, "info", K.DEFAULT_INFO)

    # ------------------------------------------------------------ observation
    # the private block's parts, in the kernel's order (P_HAND, P_HELD, P_CPAIR, P_TPAIR, P_BOTTOM)
    _PRIVATE_PARTS = (("hand", (2, K.NTYPES)), ("contracts", (K.NCON,)), ("contract_pair", (2, K.NCON)),
                      ("tile_pair", (2, K.NTYPES)), ("bottom_cards", (K.NCON,)))
    assert [K.P_HAND, K.P_HELD, K.P_CPAIR, K.P_TPAIR, K.P_BOTTOM, K.OBS_PRIVATE] == list(
        np.cumsum([0] + [int(np.prod(sh)) for _, sh in _PRIVATE_PARTS])), "private layout out of date"

    def observation_layout(self, cfg):
        win = int(cfg.config[K.CFG_WIN])
        crop = [("window_info", (K.W_INFO,)), ("window", (K.N_WIN_PLANES, win, win))] if win else []
        return [("tiles", (K.MAX_T, K.F_TILE)),
                ("players", (K.MAX_P, K.F_PLAYER + K.NCON)),
                ("globals", (K.OBS_GLOBAL,))] + list(self._PRIVATE_PARTS) + crop

    def observation_bounds(self, cfg):
        blob = cfg.config[K.CFG_BLOB:]
        rules = blob[K.B_RULES:K.B_RULES + len(K.RULE_KEYS)]
        blocks = int(rules[K.RU_SUPPLY] + rules[K.RU_RESERVE])
        mods = np.abs(blob[K.B_MOD:K.B_MOD + 2 * K.NTYPES]).max()
        per = abs(int(rules[K.RU_BASE])) + 4 * (int(mods) + abs(int(rules[K.RU_VACANT])))
        bscore = blocks * per
        total = bscore + int(np.abs(blob[K.B_CVP:K.B_CVP + K.NCON]).sum()) \
            + int(np.abs(blob[K.B_GVP:K.B_GVP + K.NGOALS]).sum())
        counts = blob[K.B_COUNT:K.B_COUNT + K.NTYPES]
        maxu = max(1, int(rules[K.RU_MAXU]))
        win = int(cfg.config[K.CFG_WIN])
        low = np.zeros(cfg.obs_size, dtype=np.float32)
        high = np.ones(cfg.obs_size, dtype=np.float32)
        tiles_lo = low[:K.OBS_TILES].reshape(K.MAX_T, K.F_TILE)
        tiles_hi = high[:K.OBS_TILES].reshape(K.MAX_T, K.F_TILE)
        for col in (K.FT_X, K.FT_Y):
            tiles_lo[:, col] = -K.R
            tiles_hi[:, col] = K.R
        tiles_hi[:, K.FT_FLOORS] = blocks
        tiles_lo[:, K.FT_SCORE] = -bscore
        tiles_hi[:, K.FT_SCORE] = bscore
        pl_lo = low[K.O_OBS_PLAYERS:K.O_OBS_GLOBAL].reshape(K.MAX_P, -1)
        pl_hi = high[K.O_OBS_PLAYERS:K.O_OBS_GLOBAL].reshape(K.MAX_P, -1)
        pl_lo[:, K.FP_SCORE] = -total
        pl_hi[:, K.FP_SCORE] = total
        for col in (K.FP_SUPPLY, K.FP_RESERVE, K.FP_R, K.FP_C, K.FP_DFLOORS):
            pl_hi[:, col] = blocks
        pl_hi[:, K.FP_U] = maxu
        pl_hi[:, K.FP_DRES] = K.MAX_T
        pl_hi[:, K.FP_DCOM] = K.MAX_T
        pl_hi[:, K.FP_NHELD] = K.NCON
        pl_hi[:, K.FP_NREV] = K.NCON
        pl_hi[:, K.FP_HAND] = 2
        g = K.O_OBS_GLOBAL
        high[g + K.G_ACTLEFT] = max(1, int(rules[K.RU_ACTIONS]))
        high[g + K.G_TURN] = K.MAX_T
        high[g + K.G_BAG] = K.MAX_T
        high[g + K.G_DECK] = K.NCON
        high[g + K.G_ROOFS] = max(1, int(rules[K.RU_ROOFRES]))
        high[g + K.G_ROOFS + 1] = max(1, int(rules[K.RU_ROOFCOM]))
        high[g + K.G_UNSEEN:g + K.G_UNSEEN + K.NTYPES] = np.maximum(counts, 1)
        high[g + K.G_PEND] = maxu          # one draw per building roofed this turn
        if win:
            w = K.O_OBS_WINDOW
            for col in (K.W_CX, K.W_CY):
                low[w + col] = -K.R
                high[w + col] = K.R
            planes_lo = low[w + K.W_INFO:].reshape(K.N_WIN_PLANES, win * win)
            planes_hi = high[w + K.W_INFO:].reshape(K.N_WIN_PLANES, win * win)
            mods = blob[K.B_MOD:K.B_MOD + 2 * K.NTYPES].reshape(K.NTYPES, 2)
            for k, plane in enumerate((K.WP_MOD_RES, K.WP_MOD_COM)):
                planes_lo[plane] = min(0, int(mods[:, k].min()))
                planes_hi[plane] = max(1, int(mods[:, k].max()))
            planes_hi[K.WP_FLOORS] = blocks
        return low, high

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        return PHASE_LABELS[int(state[K.H_PHASE])]

    def _tile_desc(self, state, cfg, t):
        keys = self._info(cfg)["type_keys"]
        return f"{keys[int(state[K.O_TTYPE + t])]} #{t} at ({int(state[K.O_TX + t])},{int(state[K.O_TY + t])})"

    def action_label(self, state, cfg, action):
        info = self._info(cfg)
        keys = info["type_keys"]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= int(action) < K.NUM_ACTIONS:
            raise ValueError(f"action must be an integer in [0, {K.NUM_ACTIONS}), got {action!r}")
        a = int(action)
        p = int(state[K.H_CUR])
        nt = int(state[K.H_NT])
        if a < K.A_GATHER:
            s, r = divmod(a, K.PLACE_SLOT)
            anchor, d = divmod(r, 4)
            typ = int(state[K.O_HAND + 2 * p + s]) if p >= 0 else -1
            name = keys[typ] if typ >= 0 else "(empty slot)"
            if anchor < nt:
                x = int(state[K.O_TX + anchor]) + int(K.DX[d])
                y = int(state[K.O_TY + anchor]) + int(K.DY[d])
                return f"place {name} (slot {s}) at ({x},{y}) [{DIR_NAMES[d]} of tile #{anchor}]"
            return f"place {name} (slot {s}) {DIR_NAMES[d]} of unplaced tile #{anchor}"
        if a == K.A_GATHER:
            return "gather (reserve -> supply)"
        if a < K.A_ROOF:
            t = a - K.A_BUILD
            if t >= nt:
                return f"build on unplaced tile #{t}"
            f = int(state[K.O_TFLOORS + t])
            verb = "start" if state[K.O_TOWNER + t] < 0 else f"floor {f + 1} on"
            return f"build: {verb} {self._tile_desc(state, cfg, t)}"
        if a < K.A_STOP:
            t = a - K.A_ROOF
            if t >= nt:
                return f"roof unplaced tile #{t}"
            return f"roof {int(state[K.O_TFLOORS + t])}-floor building on {self._tile_desc(state, cfg, t)}"
        if a == K.A_STOP:
            return "stop roofing"
        if a < K.A_KEEPT:
            i = a - K.A_KEEPC
            c = int(state[K.H_CP + i])
            if c >= 0 and state[K.H_PHASE] == K.PH_CKEEP:
                return f"keep contract {c + 1} '{info['contract_names'][c]}'"
            return f"keep contract {i} of the pair"
        i = a - K.A_KEEPT
        typ = int(state[K.H_TP + i])
        if typ >= 0 and state[K.H_PHASE] == K.PH_TKEEP:
            return f"keep tile {keys[typ]}"
        return f"keep tile {i} of the pair"

    # -------------------------------------------------------------- rendering
    _CODES = {"city_hall": "H", "residential": "r", "commercial": "c", "cathedral": "Ca",
              "police_station": "Po", "school": "Sc", "hospital": "Ho", "park": "Pa",
              "wine_bar": "Wb", "bank": "Ba", "shopping_mall": "Ma", "stadium": "St"}

    def _bbox(self, state):
        nt = int(state[K.H_NT])
        xs = state[K.O_TX:K.O_TX + nt]
        ys = state[K.O_TY:K.O_TY + nt]
        return int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())

    def _cell_text(self, state, cfg, t):
        keys = self._info(cfg)["type_keys"]
        key = keys[int(state[K.O_TTYPE + t])]
        code = self._CODES.get(key, key[:2])
        own = int(state[K.O_TOWNER + t])
        if own >= 0:
            done = "*" if state[K.O_TDONE + t] else ""
            return f"{code}{own}:{int(state[K.O_TFLOORS + t])}{done}"
        return code

    def render_ansi(self, state, cfg):
        info = self._info(cfg)
        n = int(state[K.H_NP])
        x0, x1, y0, y1 = self._bbox(state)
        lines = []
        phase = PHASE_LABELS[int(state[K.H_PHASE])]
        cur = int(state[K.H_CUR])
        lines.append(f"Expancity  turn {int(state[K.H_TURN])}/60  phase {phase}"
                     + (f"  player_{cur} to move" if cur >= 0 else ""))
        lines.append("cells: r/c zone lot, H City Hall, specials Ca Po Sc Ho Pa Wb Ba Ma St; "
                     "building = kind+owner:floors, * = roofed")
        lines.append("      " + "".join(f"{x:>7}" for x in range(x0, x1 + 1)))
        for y in range(y1, y0 - 1, -1):
            row = []
            for x in range(x0, x1 + 1):
                t = int(K.tile_at(state, x, y))
                row.append(f"{self._cell_text(state, cfg, t) if t >= 0 else '.':>7}")
            lines.append(f"{y:>5} " + "".join(row))
        goals = [int(state[K.H_GOALS + k]) for k in range(3)]
        lines.append("goals: " + "; ".join(f"{info['goal_ids'][g]} {info['goal_names'][g]}" for g in goals))
        lines.append(f"bag {int(state[K.H_BAGN])} tiles, contract deck "
                     f"{int(state[K.H_POOLN] + state[K.H_QLEN])}, roofs left res "
                     f"{int(state[K.H_ROOFS])} com {int(state[K.H_ROOFS + 1])}")
        for p in range(n):
            rev = [c + 1 for c in range(K.NCON) if state[K.O_REV + p * K.NCON + c]]
            hs = sum(1 for s in range(2) if state[K.O_HAND + 2 * p + s] >= 0)
            goal = f" (goals {int(state[K.O_GOALVP + p])})" if state[K.H_PHASE] == K.PH_OVER else ""
            lines.append(
                f"player_{p}: {int(state[K.O_SCORE + p])} VP{goal}, supply {int(state[K.O_SUPPLY + p])}, "
                f"reserve {int(state[K.O_RESERVE + p])}, unfinished {int(state[K.O_U + p])}, "
                f"R {int(state[K.O_R + p])} C {int(state[K.O_C + p])}, hand {hs} tiles, "
                f"contracts held {int(state[K.O_NHELD + p])}, revealed {rev}")
        return "\n".join(lines)

    _COLOURS = {"city_hall": (200, 200, 200), "residential": (150, 210, 130), "commercial": (130, 170, 230),
                "special": (240, 190, 170)}
    _PLAYER_COLOURS = ((220, 40, 40), (230, 200, 30), (90, 190, 240), (20, 140, 130))

    def render_rgb(self, state, cfg):
        from PIL import Image, ImageDraw
        keys = self._info(cfg)["type_keys"]
        x0, x1, y0, y1 = self._bbox(state)
        cs = 36
        cols, rows = x1 - x0 + 3, y1 - y0 + 3
        img = Image.new("RGB", (cols * cs, rows * cs + 24), (40, 40, 40))
        dr = ImageDraw.Draw(img)
        nt = int(state[K.H_NT])
        for t in range(nt):
            x = int(state[K.O_TX + t]) - x0 + 1
            y = y1 - int(state[K.O_TY + t]) + 1
            key = keys[int(state[K.O_TTYPE + t])]
            cls = int(state[K.O_DATA + K.B_CLASS + int(state[K.O_TTYPE + t])])
            col = self._COLOURS.get(key, self._COLOURS["special"] if cls == K.CLS_SPECIAL else (180, 180, 180))
            box = (x * cs, y * cs, x * cs + cs - 2, y * cs + cs - 2)
            dr.rectangle(box, fill=col, outline=(220, 40, 40) if cls == K.CLS_SPECIAL else (0, 0, 0))
            own = int(state[K.O_TOWNER + t])
            if own >= 0:
                f = int(state[K.O_TFLOORS + t])
                h = min(cs - 8, 4 * f + 2)
                bx = x * cs + cs // 2 - 6
                dr.rectangle((bx, y * cs + cs - 4 - h, bx + 12, y * cs + cs - 4),
                             fill=self._PLAYER_COLOURS[own % 4], outline=(0, 0, 0))
                if state[K.O_TDONE + t]:
                    dr.polygon([(bx - 2, y * cs + cs - 4 - h), (bx + 14, y * cs + cs - 4 - h),
                                (bx + 6, y * cs + cs - 10 - h)], fill=(60, 60, 60))
                dr.text((x * cs + 2, y * cs + 1), str(f), fill=(0, 0, 0))
            else:
                dr.text((x * cs + 3, y * cs + 3), self._CODES.get(key, key[:2]), fill=(0, 0, 0))
        n = int(state[K.H_NP])
        txt = "  ".join(f"P{p}:{int(state[K.O_SCORE + p])}" for p in range(n))
        dr.text((4, rows * cs + 6), f"turn {int(state[K.H_TURN])}  {txt}", fill=(255, 255, 255))
        return np.asarray(img, dtype=np.uint8).copy()

    # ------------------------------------------------------- hidden information
    @staticmethod
    def _seed(seed):
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        return int(seed) % (1 << 63)

    def reseed(self, state, cfg, seed):
        krng.seed_rng(state, K.H_RNG, self._seed(seed))

    def determinize(self, state, cfg, observer, seed):
        """Re-deal, in place, what ``observer`` has not seen, then re-key the generator.

        Tiles: the other players' hand tiles, another player's drawn tile pair and the bag
        are one multiset, re-dealt at random.  Contracts: the other players' unrevealed
        contracts, another player's drawn contract pair, the never-drawn pool and the
        bottom-of-deck places filled by other players are one set of cards, dealt at
        random subject to what the observer knows:

        * a card the observer has seen in one of its pairs never goes back to the
          never-drawn pool;
        * a contract another player still holds from an earlier turn was not met at that
          player's last step 4 (ruling 18 reveals every met card then, and the board was
          public): only such cards are dealt to it.  Cards it kept in the draws of the
          turn under way (before its step 4) are unconstrained.

        The deal (``kernels.expancity.deal_contracts``) is a random perfect matching of
        cards to places (one always exists: the real deal is one), found from a canonical
        order of the cards, then mixed by random exchanges, so it depends on the seed and
        the observer's information only.  The
        copy records what each other player has seen as what it now holds, revealed or put
        at the bottom, so the copy is itself a consistent game that determinizes again.
        Public counts are kept.  Simplification: the observer's memory of the tile types
        it returned to the bag is not used."""
        n = int(state[K.H_NP])
        if isinstance(observer, (bool, np.bool_)) or not isinstance(observer, (int, np.integer)) \
                or not 0 <= int(observer) < n:
            raise ValueError(f"observer must be a seat in [0, {n}), got {observer!r}")
        observer = int(observer)
        r = np.random.default_rng(self._seed(seed))
        cur = int(state[K.H_CUR])
        phase = int(state[K.H_PHASE])
        # --- tiles
        pool = []
        for typ in range(K.NTYPES):
            pool += [typ] * int(state[K.O_BAG + typ])
        slots = []
        for p in range(n):
            if p == observer:
                continue
            for s in range(2):
                if state[K.O_HAND + 2 * p + s] >= 0:
                    pool.append(int(state[K.O_HAND + 2 * p + s]))
                    slots.append(("hand", p))
        tpair = phase == K.PH_TKEEP and cur != observer
        if tpair:
            pool += [int(state[K.H_TP]), int(state[K.H_TP + 1])]
        # sorted first: the draw must depend on the seed only, not on where the hidden
        # tiles sat (a search on two states that differ only in hidden tiles must match)
        pool = list(r.permutation(np.sort(np.array(pool, dtype=np.int64))))
        for p in range(n):
            if p != observer:
                state[K.O_HAND + 2 * p: K.O_HAND + 2 * p + 2] = -1
        for _, p in slots:
            K.hand_add(state, p, int(pool.pop()))
        if tpair:
            a, b = int(pool.pop()), int(pool.pop())
            state[K.H_TP], state[K.H_TP + 1] = min(a, b), max(a, b)
        state[K.O_BAG:K.O_BAG + K.NTYPES] = np.bincount(np.array(pool, dtype=np.int64), minlength=K.NTYPES)
        state[K.H_BAGN] = len(pool)
        # --- contracts (kernel: a random deal consistent with what the observer knows)
        key = np.zeros(2, dtype=np.int64)
        krng.seed_rng(key, 0, int(r.integers(1 << 62)))
        if not K.deal_contracts(state, observer, key, np.empty(K.STATE_SIZE, dtype=np.int64)):
            raise ValueError("no deal of the hidden contracts is consistent with the public record")
        self.reseed(state, cfg, int(r.integers(1 << 62)))

    # ------------------------------------------------------------- baselines
    # Greedy play counts half of what unfinished buildings would score if roofed now
    # (``kernel.potential``): they may never be finished.
    potential_weight = 0.5

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg):
        n = int(state[K.H_NP])
        return {"goal_points": [int(state[K.O_GOALVP + p]) for p in range(n)],
                "completed_buildings": [int(state[K.O_DRES + p] + state[K.O_DCOM + p]) for p in range(n)]}
