"""Expancity (``expancity_v0``)
============================

Grow one shared city from City Hall, raise buildings, roof them.  2-4 players lay zoning
tiles edge-to-edge around City Hall, spend three actions a turn on BUILD (start a
building on a vacant lot / add one floor to an own unfinished building) and GATHER
(reserve -> supply), roof any of their finishable buildings for immediate points, draw
secret contracts (draw 2 keep 1 per roofed building) that are revealed automatically
once met, and refill their hand (draw 2 keep 1).  After the 60th turn three public goals
are scored.  Rules: ``docs/rules/expancity.md``; the kernel is :mod:`kernels.expancity`,
the data :file:`kernels/data/expancity.yaml`.

=================  ==============================================================
Import             ``envs.make("expancity_v0")`` / ``envs.expancity_v0.env()``
Agents             ``player_0 .. player_{N-1}``, N = ``num_players`` 2-4 (default 2)
Actions            ``Discrete(616)``
Observation        ``Box(8233,)`` float32 + ``action_mask`` int8 (616)
=================  ==============================================================

Options
-------
Declared as a table in ``Spec.options`` (name, type, allowed values, default); a refusal
is a ``ValueError`` naming the option:

``num_players``
    2, 3, 4 (default 2).
``goal_ids``
    ``None`` (default: 3 random goals) or a list or tuple of 3 distinct goal ids of the
    data file (``"G1"`` .. ``"G6"``; sets and other unordered containers are refused).
``data_path``
    ``None`` (default) or a corrected copy of the data file (same schema and counts;
    checked field by field at load, a ``ValueError`` names the first bad field, e.g.
    ``tile_types[3].count``).
``obs_window``
    0 (no crop) or an odd crop size 5..121 (default 21); it sets the observation size.

The shell adds ``render_mode``, ``reward_mode`` and ``illegal_action`` (:mod:`envs.shell`).

Decisions (phases)
------------------
``PLACE``, ``ACTION``, ``ROOF``, ``CONTRACT_KEEP``, ``TILE_KEEP`` and ``GAME_OVER``
(``K.PH_*``, named in ``K.PHASE_NAMES``; ``env.phase`` is the lower-case name,
``"place"`` .. ``"game_over"``).  Seat 0 starts (the data file's ``first_player``), play
goes up by seat.  The active player takes several consecutive steps per turn (at most
11): PLACE, up to 3 ACTION steps (remaining actions are skipped when nothing is legal),
ROOF (repeat, or STOP; skipped when nothing can be roofed and ended automatically when
nothing more can), one CONTRACT_KEEP per roofed building, TILE_KEEP (whenever the bag
held 2 or more tiles; when both drawn tiles have the same type only ``614`` is legal --
the step is still asked so that the others, who see whose turn and which phase it is,
learn nothing about the secret pair).  Contract reveals are automatic.  At most 660
steps.

Action encoding (``docs/rules/expancity.md``, section 11.2)
-----------------------------------------------------------
Masked; tiles are named by placement index, City Hall 0.  Declared as blocks in
``kernels.expancity.ACTIONS`` (``place``, ``gather``, ``build``, ``roof``, ``stop``,
``keep_contract``, ``keep_tile``), from which ``action_label`` reads them:

=============  ==================================================================
ids            action
=============  ==================================================================
``0..487``     place hand slot ``s`` next to tile ``a`` in direction ``d`` (0 N, 1 E,
               2 S, 3 W): ``s*244 + a*4 + d``.  The hand is sorted by type id; slot 1
               is masked when it holds the same type as slot 0 (or the hand holds one
               tile).  Each empty cell is offered only through its lowest-index placed
               neighbour.
``488``        GATHER
``489+t``      BUILD on tile ``t`` (start or raise)
``550+t``      ROOF building on tile ``t``
``611``        STOP roofing
``612/613``    keep contract 0 / 1 of the drawn pair
``614/615``    keep tile 0 / 1 of the drawn pair (sorted by type id; ``615`` masked
               when both have the same type)
=============  ==================================================================

Observation
-----------
``float32``, rotated so that the observer is player 0.  Declared part by part with its
bounds in the kernel: ``kernels.expancity.observation_layout(cfg.config)``, whose
``parts()`` / ``bounds()`` are ``Spec.observation_layout`` / ``observation_bounds``
(``env.unwrapped.split_observation(obs)`` returns the parts by name); the columns of a
``tiles`` / ``players`` / ``globals`` row are named in the kernel's ``TILE_ROW`` /
``PLAYER_ROW`` / ``GLOBAL_ROW``.  The size depends on ``obs_window`` = K: 2056 values
without the crop (K = 0), 2056 + 3 + 14 K^2 with it (8233 for the default 21); the
player count does not change it.

* ``tiles`` (61 x 25), one row per tile index: placed, x, y, type one-hot (12: city
  hall, residential, commercial, then the nine specials in data order), has building,
  owner one-hot (4, relative seat), floors, completed, raised this turn, frozen
  score, vacant lot.
* ``players`` (4 x 63), relative seat order, zero rows for absent seats: score,
  supply, reserve, unfinished count U, R (tallest completed residential), C (tallest
  completed commercial), completed residential, completed commercial, completed
  floors, contracts held (count), contracts revealed (count), hand size, active
  flag, then the 50 revealed-contract bits.
* ``globals`` (31): phase one-hot (place, action, roof, contract_keep, tile_keep,
  game_over), actions left, turn, bag size, contract deck size, roofs left (res, com),
  goals in play (6 bits), unseen tiles per type (bag + others' hands, from the
  observer's knowledge), contract draws pending (during ROOF: buildings roofed so far
  this turn; during CONTRACT_KEEP: draws still owed, the current one included; 0
  otherwise) -- 31 values.
* private parts (248): ``hand`` own hand (2 slots x 12 one-hot), ``contracts`` own
  unrevealed contracts (50 bits), ``contract_pair`` the drawn contract pair (2 x 50
  one-hot, only while the observer keeps one), ``tile_pair`` the drawn tile pair (2 x 12
  one-hot, only during the observer's tile keep), ``bottom_cards`` the cards the
  observer put at the bottom of the deck that are still there (50 bits).
* ``window_info`` (3) and ``window`` (14 x K x K), only when ``obs_window`` = K > 0
  (default 21): a crop of the grid centred on the centre of the city's bounding box
  (row 0 = north, column 0 = west); window_info = (some tile lies outside the crop,
  centre x, centre y); planes residential, commercial, special, city hall, the
  tile's per-floor modifier for residential / commercial buildings, owner one-hot
  (4, relative seat), floors, completed, vacant lot, legal placement cell.  The tile
  table stays the exact record whatever the city's shape.

Rewards
-------
Set by the shell's ``reward_mode``: ``"rank"`` (default; by final VP, players tied on VP
sharing the rank: the rulebook names no tie-break, so tied top scores share the win --
reward 0 each in a 2-player game) or ``"score"`` (final VP difference).  ``infos`` at the
end also hold ``goal_points`` (each player's goal VP) and ``completed_buildings`` (each
player's completed buildings; no longer a tie-break).

Hidden information
------------------
Other players' hands, contracts, drawn pairs and the bag/deck order never appear.  Both
re-draws run in the kernel (``kernels.expancity.reseed`` / ``determinize``, numba) and
depend on the seed and the observer's information only (hidden items are gathered into
sorted pools first).  ``reseed(seed)`` re-keys the generator: every future draw (bag,
never-drawn contracts) changes, nothing seen does.  ``determinize(observer, seed)``
re-deals the bag and the other hands (tiles), and the other players' contracts, the
never-drawn pool and the bottom-of-deck cards others put there, consistently with what
the observer knows: cards it saw never return to the never-drawn pool, and a contract
another player still holds from an earlier turn is one that was not met at that
player's last step 4 (reveals are automatic).  A determinized copy is itself a
consistent game (it determinizes again).

Scoring helpers
---------------
``building_score(kind, floors, neighbours)``: the pure score of a building at the moment
it is roofed (rules section 6.1), from the default data file; it validates its
arguments (``ValueError`` naming the argument).

Baselines
---------
Greedy (one-ply), MCTS's cut-off playouts and reward shaping share one evaluation,
:mod:`kernels.outcome` (also ``Spec.evaluate``): a seat's score plus
``kernels.expancity.potential`` (what its unfinished buildings would score if roofed
now, commercial ones below the completion height counted at that height) weighted by
the kernel's ``POTENTIAL_WEIGHT`` = 0.5 (they may never be finished), minus the mean of
every other seat's.  MCTS's settings for this game are in ``agents/settings.py`` (not on
the spec): the leaf is scored by that evaluation at once (no playout moves), a lead of
10 points counting as tanh(1).

Data and provenance
-------------------
Tile counts, the rulebook's park / shopping mall / stadium values and all rules
numbers come from the rulebook; the other special-tile values, City Hall's value,
the 50 contracts and the 6 goals are reconstructed (``provenance`` of each entry in
the YAML).  Contract conditions are written in the small condition language of
``docs/rules/expancity.md`` (section 6.2) and compiled at import into integer rows
evaluated by the kernel.  A corrected copy is used through the ``data_path`` option.

Version history
---------------
* v0: initial.
* v0 (issues 14/15): globals gain the pending contract draws (31 values) and the private
  block the own bottom-of-deck cards (248); TILE_KEEP is asked whenever the bag held 2+
  tiles; determinize deals held contracts consistently with the automatic reveals and
  copies determinize again; options, ``building_score``, ``determinize`` and ``reseed``
  validate their arguments (``ValueError`` naming the argument); the data file is
  checked at load.
* v0 ("one way to write a game"): declared layouts (state, observation, actions), options
  table, phase names in snake_case, re-draws in the kernel; no rule change.  In detail:
  options declared as a table (``Spec.options``), observation layout and bounds read
  from the kernel's declaration, action labels from the kernel's action blocks,
  ``phase_name`` the decision's name (``"place"`` .. ``"game_over"``), determinization in
  the kernel; no rule or observation change.
* v0, rules revision 2 ("Rules, third pass", ruling 21 revised): no final tie-break.
  Players tied on the highest final VP share the win (both rank 1; with 2 players reward 0
  each and both in ``winners``), and any other tie on VP shares its rank.  Why: the
  rulebook's only winning rule is "the player with the highest final score wins" and it
  names no tie-break; "most completed buildings" was our invention, and with 2 players it
  turned a shared win (reward 0) into a loss (-1).  Same seed and actions, same game, but
  ties end differently (``rules_revision = 2``).
"""
from __future__ import annotations


import numpy as np
import yaml

from envs.options import Option
from envs.spec import GameConfig, GameSpec
from envs.expancity_readouts import bottom_cards  # noqa: F401  (public here too)
from kernels import expancity as K

DIR_NAMES = ("N", "E", "S", "W")
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
    k = K.KIND_RES if kind == "residential" else K.KIND_COM
    per = int(blob[K.B_RULES + K.RU_BASE_PER_FLOOR])
    for n in neighbours:
        if not isinstance(n, str):
            raise ValueError(f"neighbours: each side must be a string, got {n!r}")
        if n in _SIDE_KEYS:
            if n == "vacant":
                per += int(blob[K.B_RULES + K.RU_VACANT_PER_FLOOR])
            continue
        if n not in ids or n in ("residential", "commercial"):
            raise ValueError(f"neighbours: unknown side {n!r}")
        per += int(blob[K.B_MODIFIER + 2 * ids[n] + k])
    return int(floors) * per


def _load_blob(data_path):
    if data_path is None:
        return K.DEFAULT_BLOB, K.DEFAULT_INFO
    try:
        with open(data_path, "rb") as f:
            data = yaml.safe_load(f)
        return K.compile_data(data)
    except (OSError, KeyError, TypeError, ValueError, AttributeError, IndexError, yaml.YAMLError) as e:
        raise ValueError(f"data_path: cannot use {data_path!r}: {e}") from e


def _check_goal_ids(goal_ids):
    """3 distinct id strings (whether the data file has them is checked with it)."""
    if goal_ids is None:
        return None
    if len(goal_ids) != K.GOALS_IN_PLAY or any(not isinstance(g, str) for g in goal_ids) \
            or len(set(goal_ids)) != K.GOALS_IN_PLAY:
        raise ValueError(f"goal_ids must be {K.GOALS_IN_PLAY} distinct goal ids, got {goal_ids!r}")
    return goal_ids


def _check_obs_window(obs_window):
    if not (obs_window == 0 or (obs_window >= 5 and obs_window % 2 == 1)):
        raise ValueError(f"obs_window must be 0 (no crop) or an odd size 5..{K.GRID_SIDE}, got {obs_window!r}")
    return obs_window


class Spec(GameSpec):
    game_id = "expancity_v0"
    kernel = K
    num_actions = K.NUM_ACTIONS
    player_counts = (2, 3, 4)
    max_steps = 60 * 11
    secret_phases = {"contract_keep": "keep a contract", "tile_keep": "keep a tile"}
    rules_revision = 2   # final ties shared (see Version history)

    # ---------------------------------------------------------------- options
    test_options = ({"obs_window": 0},)     # the uncropped observation
    options = (
        Option("num_players", "int", 2, "number of seats", low=2, high=4),
        Option("goal_ids", "list", None, "the 3 goals in play, ids of the data file "
               "(\"G1\" .. \"G6\"); None: 3 at random", none_ok=True, check=_check_goal_ids),
        Option("data_path", "path", None, "a corrected copy of the data file (same schema, "
               "checked field by field at load)", none_ok=True),
        Option("obs_window", "int", 21, "side of the observation's spatial crop (odd, >= 5); "
               "0: no crop", low=0, high=K.GRID_SIDE, check=_check_obs_window),
    )

    def build_config(self, opts):
        num_players, goal_list = opts["num_players"], opts["goal_ids"]
        blob, info = _load_blob(opts["data_path"])
        first = int(blob[K.B_RULES + K.RU_FIRST_PLAYER])
        if first >= num_players:
            raise ValueError(f"data_path: field 'first_player' ({first}) is not a seat of a "
                             f"{num_players}-player game")
        goals = None
        if goal_list is not None:
            ids = info["goal_ids"]
            if any(g not in ids for g in goal_list):
                raise ValueError(f"goal_ids must be 3 distinct ids among {ids}, got {goal_list!r}")
            goals = [ids.index(g) for g in goal_list]
        config = K.make_config(num_players, goals, blob, opts["obs_window"])
        cfg = GameConfig(
            num_players=num_players,
            config=config,
            state_size=K.STATE_SIZE,
            obs_size=K.observation_layout(config).size,
            options=dict(opts),
            scratch=K.SCRATCH_SIZE,
        )
        cfg.info = info
        return cfg

    @staticmethod
    def _info(cfg):
        return getattr(cfg, "info", K.DEFAULT_INFO)

    # ------------------------------------------------------------ observation
    # declared in the kernel (names, shapes and bounds), per configuration
    def observation_layout(self, cfg):
        return K.observation_layout(cfg.config).parts()

    def observation_bounds(self, cfg):
        return K.observation_layout(cfg.config).bounds()

    # ------------------------------------------------------------ description
    def phase_name(self, state, cfg):
        st = K.STATE.fields(state)
        return K.PHASE_NAMES[int(st.phase)]

    def _tile_desc(self, state, cfg, t):
        st = K.STATE.fields(state)
        keys = self._info(cfg)["type_keys"]
        return f"{keys[int(st.tile_type[t])]} #{t} at ({int(st.tile_x[t])},{int(st.tile_y[t])})"

    def action_label(self, state, cfg, action):
        st = K.STATE.fields(state)
        block, i = K.ACTIONS.decode(action)      # ValueError for an id outside the game
        info = self._info(cfg)
        keys = info["type_keys"]
        p = int(st.current)
        nt = int(st.num_tiles)
        if block == "place":
            s, r = divmod(i, K.PLACE_SLOT)
            anchor, d = divmod(r, K.NUM_DIRS)
            typ = int(st.hand[p, s]) if p >= 0 else -1
            name = keys[typ] if typ >= 0 else "(empty slot)"
            if anchor < nt:
                x = int(st.tile_x[anchor]) + int(K.DX[d])
                y = int(st.tile_y[anchor]) + int(K.DY[d])
                return f"place {name} (slot {s}) at ({x},{y}) [{DIR_NAMES[d]} of tile #{anchor}]"
            return f"place {name} (slot {s}) {DIR_NAMES[d]} of unplaced tile #{anchor}"
        if block == "gather":
            return "gather (reserve -> supply)"
        if block == "build":
            if i >= nt:
                return f"build on unplaced tile #{i}"
            f = int(st.tile_floors[i])
            verb = "start" if st.tile_owner[i] < 0 else f"floor {f + 1} on"
            return f"build: {verb} {self._tile_desc(state, cfg, i)}"
        if block == "roof":
            if i >= nt:
                return f"roof unplaced tile #{i}"
            return f"roof {int(st.tile_floors[i])}-floor building on {self._tile_desc(state, cfg, i)}"
        if block == "stop":
            return "stop roofing"
        if block == "keep_contract":
            c = int(st.contract_pair[i])
            if c >= 0 and st.phase == K.PH_CONTRACT_KEEP:
                return f"keep contract {c + 1} '{info['contract_names'][c]}'"
            return f"keep contract {i} of the pair"
        typ = int(st.tile_pair[i])       # keep_tile
        if typ >= 0 and st.phase == K.PH_TILE_KEEP:
            return f"keep tile {keys[typ]}"
        return f"keep tile {i} of the pair"

    # -------------------------------------------------------------- rendering
    _CODES = {"city_hall": "H", "residential": "r", "commercial": "c", "cathedral": "Ca",
              "police_station": "Po", "school": "Sc", "hospital": "Ho", "park": "Pa",
              "wine_bar": "Wb", "bank": "Ba", "shopping_mall": "Ma", "stadium": "St"}

    def _bbox(self, state):
        st = K.STATE.fields(state)
        nt = int(st.num_tiles)
        xs = st.tile_x[:nt]
        ys = st.tile_y[:nt]
        return int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())

    def _cell_text(self, st, cfg, t):
        keys = self._info(cfg)["type_keys"]
        key = keys[int(st.tile_type[t])]
        code = self._CODES.get(key, key[:2])
        own = int(st.tile_owner[t])
        if own >= 0:
            done = "*" if st.tile_done[t] else ""
            return f"{code}{own}:{int(st.tile_floors[t])}{done}"
        return code

    def private_text(self, state, cfg, seat):
        """``seat``'s hand, its secret contracts, the cards it put under the deck, and the
        drawn pair it is choosing from (what its observation shows and the table does not)."""
        st = K.STATE.fields(state)
        info = self._info(cfg)
        keys, names = info["type_keys"], info["contract_names"]

        def contract(c):
            return f"{c + 1} '{names[c]}' ({int(K.DATA_BLOB.fields(st.blob).contract_vp[c])} VP): {info['contract_texts'][c]}"

        hand = [keys[int(t)] for t in st.hand[seat] if t >= 0]
        lines = ["hand: " + (", ".join(hand) or "empty")]
        lines += ["secret contract " + contract(c) for c in range(K.NUM_CONTRACTS) if st.held[seat, c]]
        lines += ["put under the deck: contract " + contract(c) for c in bottom_cards(state, seat)]
        if int(st.current) == seat and int(st.phase) == K.PH_CONTRACT_KEEP:
            lines += [f"drawn, keep one: contract {contract(int(c))}" for c in st.contract_pair
                      if c >= 0]
        if int(st.current) == seat and int(st.phase) == K.PH_TILE_KEEP:
            lines.append("drawn, keep one: " + ", ".join(keys[int(t)] for t in st.tile_pair
                                                          if t >= 0))
        return lines

    def render_ansi(self, state, cfg):
        st = K.STATE.fields(state)
        info = self._info(cfg)
        n = int(st.num_players)
        x0, x1, y0, y1 = self._bbox(state)
        lines = []
        phase = K.PHASE_NAMES[int(st.phase)].upper()
        cur = int(st.current)
        lines.append(f"Expancity  turn {int(st.turn)}/60  phase {phase}"
                     + (f"  player_{cur} to move" if cur >= 0 else ""))
        lines.append("cells: r/c zone lot, H City Hall, specials Ca Po Sc Ho Pa Wb Ba Ma St; "
                     "building = kind+owner:floors, * = roofed")
        lines.append("      " + "".join(f"{x:>7}" for x in range(x0, x1 + 1)))
        for y in range(y1, y0 - 1, -1):
            row = []
            for x in range(x0, x1 + 1):
                t = int(K.tile_at(state, x, y))
                row.append(f"{self._cell_text(st, cfg, t) if t >= 0 else '.':>7}")
            lines.append(f"{y:>5} " + "".join(row))
        goals = [int(st.goals[k]) for k in range(K.GOALS_IN_PLAY)]
        lines.append("goals: " + "; ".join(f"{info['goal_ids'][g]} {info['goal_names'][g]}" for g in goals))
        lines.append(f"bag {int(st.bag_size)} tiles, contract deck "
                     f"{int(st.pool_size + st.queue_len)}, roofs left res "
                     f"{int(st.roofs_left[K.KIND_RES])} com {int(st.roofs_left[K.KIND_COM])}")
        for p in range(n):
            rev = [c + 1 for c in range(K.NUM_CONTRACTS) if st.revealed[p, c]]
            hs = sum(1 for s in range(K.HAND_SLOTS) if st.hand[p, s] >= 0)
            goal = f" (goals {int(st.goal_points[p])})" if st.phase == K.PH_GAME_OVER else ""
            lines.append(
                f"player_{p}: {int(st.score[p])} VP{goal}, supply {int(st.supply[p])}, "
                f"reserve {int(st.reserve[p])}, unfinished {int(st.unfinished[p])}, "
                f"R {int(st.tallest_res[p])} C {int(st.tallest_com[p])}, hand {hs} tiles, "
                f"contracts held {int(st.num_held[p])}, revealed {rev}")
        return "\n".join(lines)

    def picture(self, state, cfg, observer=None, clickable=False):
        from envs.pictures.expancity import draw
        return draw(state, cfg, observer, clickable, action_label=self.action_label)

    # ------------------------------------------------------- hidden information
    # Both re-draws are the kernel's (``kernels.expancity.reseed`` / ``determinize``, documented
    # there), called by GameSpec's defaults: they depend on the seed and the observer's
    # information only.

    # --------------------------------------------------------------- game end
    def end_infos(self, state, cfg):
        st = K.STATE.fields(state)
        n = int(st.num_players)
        return {"goal_points": [int(st.goal_points[p]) for p in range(n)],
                "completed_buildings": [int(st.done_res[p] + st.done_com[p]) for p in range(n)]}
