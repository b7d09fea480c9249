"""Rating ladders: fixed reference agents per game, rated once on one anchored Elo scale.

A ladder is a game, a table (the options it is played with: two seats for the games with
several players, or the game's solo mode) and a list of *rungs*: reference agents, each
defined by an agent name, its options and a version, with budgets in iterations (never in
seconds), so a rung plays the same moves on any machine.  :func:`build` rates the rungs by
a round robin with seats rotated and a Bradley-Terry fit (:mod:`agents.rating.elo`), with
``greedy`` fixed at 1000 Elo; the result is stored in the package
(``agents/rating/ladders/<ladder>.json``: ratings, 95 % intervals, every pairing's games
and points, seconds per move, date, code revision, machine) and read back by
:func:`load`.  The scorecard (:mod:`agents.rating.scorecard`) rates any other agent against
the stored rungs.

Two kinds of table:

* ``"table"``: two seats; a game's result is which seat finished ahead (ties 1/2).
* ``"solo"``: one seat (with the game's automata, if any).  Every rung plays the same game
  seeds; two rungs are compared seed by seed on their solo *result* (:func:`solo_result`:
  the final score, or, against automata, the margin by which the seat wins or loses) --
  the higher one counting as a win (equal: 1/2).  Intervals come from a bootstrap over the
  seeds, since one game enters a comparison with every other rung.

A ladder's name is ``<game>`` for its two-seat table and ``<game>/solo`` for its solo mode,
and its version is raised when its ratings change meaning (another solo result, say); cite
a rating as, e.g., "1,240 on cityzoo ladder kingdomino_duel_v0 v1".  A ladder file records
its version and the rules revision it was played under; :func:`load` refuses a file of
another version, or whose game rules have changed since.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.rating import elo

LADDERS_DIR = Path(__file__).resolve().parent / "ladders"
ANCHOR = "greedy"
ANCHOR_RATING = 1000.0
MODES = ("table", "solo")
TARGET_HALFWIDTH = 30.0         # Elo, 95 %: every rung ...
SLOW_HALFWIDTH = 50.0           # ... but those slower than SLOW_SECONDS a move
SLOW_SECONDS = 0.3
_MASK63 = (1 << 63) - 1


@dataclass(frozen=True)
class Rung:
    """A reference agent: ``agents.make(agent, **options)``.  ``version`` is raised when the
    agent's code would play other moves with the same options and seed."""

    label: str
    agent: str
    options: dict = field(default_factory=dict)
    version: int = 1

    def as_dict(self):
        return {"label": self.label, "agent": self.agent, "options": dict(self.options),
                "version": self.version}


@dataclass(frozen=True)
class LadderSpec:
    """How a ladder is made: its game, table mode and options, and its rungs (weakest
    first)."""

    game: str
    mode: str
    options: dict
    rungs: tuple
    version: int = 1

    @property
    def name(self):
        return self.game if self.mode == "table" else f"{self.game}/solo"

    def rung(self, label):
        for r in self.rungs:
            if r.label == label:
                return r
        raise ValueError(f"ladder {self.name} has no rung {label!r}")


def _greedy(noise):
    return Rung(f"greedy_{int(round(noise * 100)):02d}", "greedy", {"noise": noise})


def _mcts(simulations):
    return Rung(f"mcts_{simulations}", "mcts", {"simulations": simulations})


# The rungs of every ladder, weakest first.  Chosen from pilot round robins
# (benchmarks/results/ladder/pilots/) so that each neighbour pair lies about 100-300 Elo
# apart; the top rung is the strongest agent whose games the build can afford on two cores.
SPECS = {}


def _define(game, mode, options, rungs, version=1):
    spec = LadderSpec(game, mode, dict(options), tuple(rungs), version)
    labels = [r.label for r in spec.rungs]
    assert len(set(labels)) == len(labels) and ANCHOR in labels, spec
    SPECS[spec.name] = spec


_RANDOM = Rung("random", "random")
_GREEDY = Rung(ANCHOR, "greedy")
_TWO_SEATS = {"num_players": 2}

# Kingdomino Duel: MCTS stops gaining at about 100 simulations (100, 400 and 1,500 play
# alike in the pilot), so mcts_100 is the top.
_define("kingdomino_duel_v0", "table", _TWO_SEATS,
        [_RANDOM, _greedy(0.75), _greedy(0.5), _greedy(0.25), _GREEDY, _mcts(100)])

# Tiny Towns: MCTS at 300 simulations plays ~135 Elo above greedy; 1,000 did no better in
# the pilot.
_define("tiny_towns_v0", "table", _TWO_SEATS,
        [_RANDOM, _greedy(0.7), _greedy(0.4), _greedy(0.2), _GREEDY, _mcts(300)])

# Smartphone Inc.: MCTS keeps gaining with its budget (1,000 simulations played about 220
# Elo above 300 in the pilot, ~155 in the build); mcts_1000 is the top rung, added to the
# stored ladder by a build that went on from its games (~1.4 core-hours for the rung).
# The shipped policy is no rung: it beat mcts_300 in 94 % of 404 games but scored only
# 0.81 against greedy (pilots/smartphone_inc_v0-pretrained.md), too far from one Elo scale.
_define("smartphone_inc_v0", "table", _TWO_SEATS,
        [_RANDOM, _greedy(0.9), _greedy(0.65), _greedy(0.4), _greedy(0.2), _GREEDY, _mcts(300),
         _mcts(1000)])

# Expancity: the whole range from random to greedy is only ~450 Elo (a first build with
# greedy at noise 0.9, 0.65 and 0.4 put neighbours 77 and 89 Elo apart), so it holds three
# steps of ~150; mcts_80 (the baseline tournaments' budget) is ~200 above greedy.  Above it
# MCTS gains slowly (pilots: 250-300 simulations ~+90, 1,000 ~+130 over 80), so the top is
# mcts_500, which the build put ~150 above mcts_80 at half the cost of 1,000.
_define("expancity_v0", "table", _TWO_SEATS,
        [_RANDOM, _greedy(0.8), _greedy(0.55), _GREEDY, _mcts(80), _mcts(500)])

# Between Two Cities: MCTS needs about 100 simulations to beat greedy (10 and 25 play below
# it); mcts_100 then scores ~0.75 against greedy and 400 simulations play alike (pilot), so
# mcts_100 is the top rung.  The shipped policy plays only ~45 Elo above greedy (measured
# with it as a seventh rung), too close for a rung.
_define("between_two_cities_v0", "table", _TWO_SEATS,
        [_RANDOM, _greedy(0.8), _greedy(0.6), _greedy(0.4), _greedy(0.2), _GREEDY, _mcts(100)])


# Solo modes: the rungs play the same game seeds and are compared seed by seed on the solo
# result (see solo_result).
_ONE_SEAT = {"num_players": 1}

# Smartphone Inc. solo (a company against Steve): MCTS saturates at about 300 simulations
# (1,000 play alike in the pilot), ~120 Elo above greedy; greedy's noise levels lie close
# together near random, where a small share of greedy moves already sells.
_define("smartphone_inc_v0", "solo", _ONE_SEAT,
        [_RANDOM, _greedy(0.8), _greedy(0.6), _greedy(0.4), _greedy(0.25), _greedy(0.12), _GREEDY,
         _mcts(300)])


# Between Two Cities solo (against the automata, at the default difficulty level 2),
# compared on the score against the Deep Learning City (see solo_result): random lies
# ~380 Elo below greedy and greedy at noise 0.6 and 0.3 ~240 and ~140 below it (a first
# build put 0.6 and 0.3 only 103 apart, so the lower one is 0.7); MCTS gains ~105 Elo
# from greedy to 10 simulations and stops gaining at about 100 (30 and 300 play alike),
# ~260 above greedy, so the step between is 15.  Version 1 compared the margin over the
# best automaton, which squeezed the range to ~400 Elo and so to four rungs.
_define("between_two_cities_v0", "solo", _ONE_SEAT,
        [_RANDOM, _greedy(0.7), _greedy(0.3), _GREEDY, _mcts(15), _mcts(100)], version=2)


# Tiny Towns solo (the score): MCTS keeps gaining at least up to 200 simulations (~140 Elo
# above mcts_30), but a solo game is long (~100 moves; ~40 s at 200 simulations on one core).
# mcts_200 is slower than 0.3 s a move, so its target is the wider one and it plays only
# the build's first seeds; mcts_100 (~120 above mcts_30 in the pilot, as strong within
# noise) is under 0.3 s and would need twice the seeds.  mcts_10 lies only ~100 above
# greedy, and greedy at noise 0.1 only ~100 above noise 0.2.
_define("tiny_towns_v0", "solo", _ONE_SEAT,
        [_RANDOM, _greedy(0.7), _greedy(0.4), _greedy(0.2), _GREEDY, _mcts(30), _mcts(200)])


def spec_for(game, mode="table"):
    """The :class:`LadderSpec` of ``game``'s table (``mode="table"``) or solo mode."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    name = game if mode == "table" else f"{game}/solo"
    if name not in SPECS:
        have = ", ".join(sorted(SPECS)) or "none"
        raise ValueError(f"no rating ladder for {name!r}; ladders: {have}")
    return SPECS[name]


# ----------------------------------------------------------------- the ladder file
@dataclass
class Ladder:
    """A fitted ladder as stored in the package (see the module docstring)."""

    spec: LadderSpec
    ratings: dict                 # label -> Elo
    halfwidths: dict              # label -> 95 % half-width (0 for the anchor)
    seconds_per_move: dict        # label -> measured on the build machine
    pairs: list                   # table: [{"a", "b", "games", "points"}]
    seed_results: dict            # solo: label -> [result per seed]
    seeds: list                   # solo: the game seeds every rung played
    meta: dict                    # games, seconds, date, revision, machine, rules_revision

    def rating(self, label):
        return float(self.ratings[label])

    def labels(self):
        return [r.label for r in self.spec.rungs]

    def mean_result(self, label):
        """Solo: a rung's mean result over the seeds it played (a dear rung may play fewer)."""
        played = [v for v in self.seed_results[label] if v is not None]
        return sum(played) / len(played)

    def sorted_rungs(self):
        """The rungs by rating, weakest first."""
        return sorted(self.spec.rungs, key=lambda r: self.ratings[r.label])

    def rung_matching(self, agent, options):
        """The rung played by ``agents.make(agent, **options)``, or None."""
        for r in self.spec.rungs:
            if r.agent == agent and dict(r.options) == dict(options or {}):
                return r
        return None

    def to_json(self):
        return {
            "ladder": self.spec.name, "ladder_version": self.spec.version, "game": self.spec.game,
            "mode": self.spec.mode, "options": self.spec.options, "anchor": ANCHOR,
            "anchor_rating": ANCHOR_RATING,
            "rungs": [{**r.as_dict(), "rating": round(self.ratings[r.label], 1),
                       "halfwidth": round(self.halfwidths[r.label], 1),
                       "seconds_per_move": self.seconds_per_move.get(r.label)}
                      for r in self.spec.rungs],
            "pairs": self.pairs, "seeds": self.seeds, "seed_results": self.seed_results,
            **self.meta,
        }


def path_for(name):
    return LADDERS_DIR / (name.replace("/", "-") + ".json")


def load(game, mode="table", directory=None, rungs_added=False):
    """The stored ladder of ``game``'s table or solo mode.  ``ValueError`` when there is none,
    when it was built from other rungs than the code defines, or under other game rules.
    ``rungs_added=True`` (a build going on): the code may define rungs the stored ladder
    lacks; the ladder returned has the stored rungs."""
    from envs.registry import spec_for as game_spec

    spec = spec_for(game, mode)
    path = (Path(directory) if directory else LADDERS_DIR) / path_for(spec.name).name
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"ladder {spec.name} has not been built yet (python -m benchmarks.ladder "
                         f"--game {game}{' --solo' if mode == 'solo' else ''})") from None
    stored = [{k: r[k] for k in ("label", "agent", "options", "version")} for r in data["rungs"]]
    defined = [r.as_dict() for r in spec.rungs]
    if rungs_added:
        defined = [r for r in defined if r["label"] in {d["label"] for d in stored}]
        spec = LadderSpec(spec.game, spec.mode, spec.options, tuple(Rung(**d) for d in stored),
                          spec.version)
    if data.get("ladder_version") != spec.version:
        raise ValueError(f"ladder {spec.name}: the stored file is version "
                         f"{data.get('ladder_version')}, this code defines version {spec.version}; "
                         "rebuild it")
    if stored != defined or data["options"] != spec.options:
        raise ValueError(f"ladder {spec.name}: the stored file was built from other rungs or "
                         "options than this version defines; rebuild it")
    revision = game_spec(game).rules_revision
    if data.get("rules_revision") != revision:
        raise ValueError(f"ladder {spec.name} was built under rules revision "
                         f"{data.get('rules_revision')} of {game}, which now plays revision "
                         f"{revision}; rebuild it")
    meta = {k: v for k, v in data.items() if k not in (
        "ladder", "ladder_version", "game", "mode", "options", "anchor", "anchor_rating", "rungs",
        "pairs", "seeds", "seed_results")}
    return Ladder(spec=spec,
                  ratings={r["label"]: float(r["rating"]) for r in data["rungs"]},
                  halfwidths={r["label"]: float(r["halfwidth"]) for r in data["rungs"]},
                  seconds_per_move={r["label"]: r.get("seconds_per_move") for r in data["rungs"]},
                  pairs=data.get("pairs", []), seed_results=data.get("seed_results", {}),
                  seeds=data.get("seeds", []), meta=meta)


# ------------------------------------------------------------------- playing games
def agent_seed(seed, *words):
    """A 63-bit seed drawn from ``numpy.random.SeedSequence([seed, *words])``: independent
    streams for every game and seat, never ``seed + k``."""
    state = np.random.SeedSequence([int(seed) & _MASK63, *[int(w) for w in words]]).generate_state(
        2, dtype=np.uint32)
    return (int(state[0]) << 32 | int(state[1])) & _MASK63


def play_match(job):
    """Play one game of a job: ``{"game", "options", "players": [{"spec", "options"}, ...]
    (one per seat), "env_seed", "agent_seeds"}``.  Returns ``{"ranks", "scores",
    "result" (solo: the seat's solo result), "moves", "think"}`` per seat and the game's
    ``"seconds"`` (wall, in the worker: what the game cost one core)."""
    import envs
    from agents import specs
    from agents.cli import build_blamed
    from agents.loop import play_game
    from agents.yardstick import solo_outcome

    started = time.perf_counter()
    env = envs.make(job["game"], **job["options"])
    where = f"the game of seed {job['env_seed']}"    # an agent's error: one line naming it
    bots = [build_blamed(p["spec"], where,
                         lambda p=p, seed=seed: specs.build(p["spec"], p.get("options"), seed, job["game"]))
            for p, seed in zip(job["players"], job["agent_seeds"])]
    record = play_game(env, bots, seed=job["env_seed"])
    out = {"ranks": [int(r) for r in record.info["ranks"]],
           "scores": [int(s) for s in record.info["scores"]],
           "moves": list(record.moves), "think": [float(t) for t in record.think_seconds]}
    if len(bots) == 1:
        out["outcome"] = solo_outcome(env, record)
        out["result"] = solo_result(out["outcome"])
    out["seconds"] = time.perf_counter() - started
    return out


def solo_result(outcome):
    """What a solo game is compared on: by how much the seat beat (or missed) what it had to
    beat -- the best automaton's score -- or its score where there is no automaton.

    Between Two Cities is the exception: its score against the Deep Learning City.  An
    automaton there scores the lower of a city it shares with the seat and the Deep Learning
    City, so while both of the seat's cities trail that city the automata score the seat's
    own cities and the margin over the best of them is minus the gap between those cities --
    it rewards keeping them level, not scoring (random play often "beat" greedy on it).  The
    seat wins exactly when its score reaches the Deep Learning City's (ties aside), at every
    level, so that difference says how far it is from winning."""
    if outcome.get("deep_learning_city") is not None:
        return outcome["score"] - outcome["deep_learning_city"]
    return outcome["margin"] if outcome["margin"] is not None else outcome["score"]


def table_points(result, seat):
    """The points of ``seat`` (0 or 1) in a two-seat game: 1 ahead, 1/2 tied, 0 behind."""
    mine, theirs = result["ranks"][seat], result["ranks"][1 - seat]
    return 1.0 if mine < theirs else (0.5 if mine == theirs else 0.0)


def pair_jobs(spec, a, b, games, seed, first_index):
    """``games`` jobs of rung ``a`` against rung ``b`` (even count; seats alternate)."""
    jobs = []
    ia, ib = [r.label for r in spec.rungs].index(a.label), [r.label for r in spec.rungs].index(b.label)
    for k in range(first_index, first_index + games):
        seats = (a, b) if k % 2 == 0 else (b, a)
        jobs.append({"game": spec.game, "options": dict(spec.options),
                     "players": [{"spec": r.agent, "options": dict(r.options)} for r in seats],
                     "labels": [r.label for r in seats],
                     "env_seed": agent_seed(seed, ia, ib, k, 0),
                     "agent_seeds": [agent_seed(seed, ia, ib, k, 1), agent_seed(seed, ia, ib, k, 2)]})
    return jobs


def _revision():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def machine():
    """A one-line description of this machine (for the files that hold measurements)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


# -------------------------------------------------------------------- building
class Tally:
    """Points and games per rung pair, and think time per rung, as results arrive."""

    def __init__(self, labels):
        self.labels = list(labels)
        n = len(labels)
        self.points = np.zeros((n, n))
        self.games = np.zeros((n, n))
        self.think = {lab: [0.0, 0] for lab in labels}
        self.core_seconds = 0.0

    def add(self, job, result):
        i, j = (self.labels.index(x) for x in job["labels"])
        p = table_points(result, 0)
        self.points[i, j] += p
        self.points[j, i] += 1.0 - p
        self.games[i, j] += 1
        self.games[j, i] += 1
        for lab, t, m in zip(job["labels"], result["think"], result["moves"]):
            self.think[lab][0] += t
            self.think[lab][1] += m
        self.core_seconds += result.get("seconds", 0.0)

    def seconds_per_move(self):
        return {lab: (t / m if m else None) for lab, (t, m) in self.think.items()}


def _targets(spec, seconds_per_move):
    return {r.label: (0.0 if r.label == ANCHOR else SLOW_HALFWIDTH
                      if (seconds_per_move.get(r.label) or 0.0) > SLOW_SECONDS else TARGET_HALFWIDTH)
            for r in spec.rungs}


def initial_schedule(n, base):
    """Games per rung pair ``(i, j)`` of a round robin of ``n`` rungs in order of
    strength: ``base`` for neighbours, half for rungs two apart, a quarter beyond (every
    pair at least 4; even counts, so seats alternate evenly)."""
    plan = {}
    for i in range(n):
        for j in range(i + 1, n):
            d = j - i
            games = base if d == 1 else base // 2 if d == 2 else base // 4
            plan[(i, j)] = max(4, games + games % 2)
    return plan


def build_table(spec, base_games=100, batch=40, max_games=20000, seed=0, workers=1,
                backend="process", progress=True, log=print, previous=None, checkpoint=None):
    """Rate ``spec``'s rungs by a round robin (see :func:`initial_schedule`), then add games
    between neighbours until every rung's interval meets its target (or ``max_games``).

    ``previous``: a stored :class:`Ladder` built with the same seed from the same rungs, or
    from some of them (a rung added to the ladder): its games are kept and the build goes on
    from them (new games get new seeds), the added rungs first playing their round-robin
    games.  ``checkpoint``: called with the :class:`Ladder` so far after every round of
    games, so that an interrupted build can go on from the last one (as ``previous``)."""
    from agents.runner import Runner

    labels = [r.label for r in spec.rungs]
    tally = Tally(labels)
    if previous is not None:
        _resume(tally, previous, spec, seed)
    start = time.perf_counter()     # the wall time stored is this run's; core-seconds add up

    def so_far():
        fit = elo.fit(labels, tally.points, tally.games, {ANCHOR: ANCHOR_RATING})
        pairs = [{"a": labels[i], "b": labels[j], "games": int(tally.games[i, j]),
                  "points": float(tally.points[i, j])}
                 for i in range(len(labels)) for j in range(i + 1, len(labels)) if tally.games[i, j]]
        return _ladder(spec, fit, tally.seconds_per_move(), pairs, {}, [], int(tally.games.sum() / 2),
                       time.perf_counter() - start, seed, tally.core_seconds)

    with Runner(workers=workers, backend=backend) as runner:
        def play(plan):
            if not plan:
                return
            play_plan(spec, plan, tally, runner, seed, progress)
            if checkpoint is not None:
                checkpoint(so_far())

        added = [i for i, lab in enumerate(labels) if previous is None or lab not in previous.ratings]
        play({pair: n for pair, n in initial_schedule(len(labels), base_games).items()
              if pair[0] in added or pair[1] in added})
        while True:
            fit = elo.fit(labels, tally.points, tally.games, {ANCHOR: ANCHOR_RATING})
            targets = _targets(spec, tally.seconds_per_move())
            over = {lab: fit.halfwidth(lab) / targets[lab] for lab in labels if lab != ANCHOR
                    and fit.halfwidth(lab) > targets[lab]}
            total = int(tally.games.sum() / 2)
            log(f"{spec.name}: {total} games; worst interval "
                + (", ".join(f"{k} ±{fit.halfwidth(k):.0f}" for k in sorted(over, key=over.get)[-3:])
                   or "all within target"))
            if not over or total >= max_games:
                break
            plan = _refinement(fit, labels, over, tally, batch)
            play(plan)
    return so_far()


def play_plan(spec, plan, tally, runner, seed, progress=False):
    """Play ``plan`` (``{(i, j): games}`` between rungs ``i < j`` of ``spec``) on ``runner``
    and add the results to ``tally``.  A pair's games are numbered on from those it has
    played, so every game gets its own seeds."""
    from agents.runner import progress_bar

    jobs = []
    for (i, j), games in plan.items():
        jobs += pair_jobs(spec, spec.rungs[i], spec.rungs[j], games, seed, int(tally.games[i, j]))
    bar = progress_bar(len(jobs), spec.name, progress)
    try:
        results = runner.map(play_match, jobs, bar)
    finally:
        bar.close()
    for job, res in zip(jobs, results):
        tally.add(job, res)


def _resume(tally, previous, spec, seed):
    """Load ``previous``'s games (and the core-seconds they cost) into ``tally``."""
    mine = {r.label: r.as_dict() for r in spec.rungs}
    if any(mine.get(r.label) != r.as_dict() for r in previous.spec.rungs) \
            or previous.spec.options != spec.options or previous.spec.mode != "table":
        raise ValueError(f"previous: ladder {previous.spec.name} was built from other rungs or "
                         "options; it cannot be continued")
    if previous.meta.get("seed") != seed:
        raise ValueError(f"previous: ladder {previous.spec.name} was built with seed "
                         f"{previous.meta.get('seed')}, not {seed}")
    labels = tally.labels
    for pair in previous.pairs:
        i, j = labels.index(pair["a"]), labels.index(pair["b"])
        tally.points[i, j] += pair["points"]
        tally.points[j, i] += pair["games"] - pair["points"]
        tally.games[i, j] += pair["games"]
        tally.games[j, i] += pair["games"]
    for lab, spm in previous.seconds_per_move.items():
        if spm is not None:               # the stored average, weighted as 1,000 moves
            tally.think[lab] = [spm * 1000.0, 1000]
    tally.core_seconds = float(previous.meta.get("core_seconds", 0.0))


def _refinement(fit, labels, over, tally, batch):
    """The next games: ``batch`` for each rung over its target, spread over links between
    rating neighbours and, for each rung over target, its direct link to the anchor.  A
    rung's rating hangs on the chain of links between it and the anchor, and its variance
    is about the sum of theirs, so a link's share grows with the number of over-target
    rungs it serves and with the variance one more game removes from it (``var / games``,
    where ``var = (Elo per nat)^2 / (games p (1-p))`` at the fitted expected score ``p``)
    per second of play (its two rungs' seconds a move).  The direct link serves one rung
    and pays where the chain runs through dear rungs (a cheap top rung above MCTS);
    direct links whose expected score is beyond 0.03-0.97 teach too little to be added."""
    order = sorted(range(len(labels)), key=lambda i: fit.ratings[i])
    pos = {i: k for k, i in enumerate(order)}
    anchor = labels.index(ANCHOR)
    home = pos[anchor]
    spm = tally.seconds_per_move()

    def gain(i, j):
        games = max(tally.games[i, j], 1.0)
        p = elo.expected_score(fit.ratings[i], fit.ratings[j])
        variance = elo.ELO_PER_NAT ** 2 / (games * max(p * (1.0 - p), 0.01))
        cost = sum(max(spm[labels[x]] or 0.0, 1e-4) for x in (i, j))
        return variance / games / cost

    links = {}
    for k in range(len(order) - 1):
        i, j = order[k], order[k + 1]
        crossing = sum(1 for lab in over if min(pos[labels.index(lab)], home) <= k
                       < max(pos[labels.index(lab)], home))
        if crossing:
            links[(min(i, j), max(i, j))] = crossing * gain(i, j)
    for lab in over:
        i = labels.index(lab)
        p = elo.expected_score(fit.ratings[i], fit.ratings[anchor])
        if abs(pos[i] - home) > 1 and 0.03 <= p <= 0.97:
            links[(min(i, anchor), max(i, anchor))] = gain(i, anchor)
    total = sum(links.values())
    plan = {}
    for pair, w in links.items():
        share = int(round(batch * len(over) * w / total))
        if share >= 1:                 # a link worth less than a game this round waits
            plan[pair] = share + share % 2
    if not plan:
        plan[max(links, key=links.get)] = 2
    return plan


def _rung_key(rung):
    """A number naming what a rung plays (agent, options, version; not its label)."""
    text = json.dumps([rung.agent, rung.options, rung.version], sort_keys=True)
    return zlib.crc32(text.encode())


def build_solo(spec, seeds=200, seed=0, workers=1, backend="process", progress=True, log=print,
               bootstrap=400, games_file=None, max_seeds=None):
    """Play every rung of a solo ladder on the same ``seeds`` game seeds and rate them from
    the seed-by-seed comparisons (bootstrap intervals over the seeds).

    ``max_seeds`` (more than ``seeds``): while some rung's interval is over its target, add
    seeds (half as many again each round, up to ``max_seeds``) -- played only by the rungs
    whose ratings lie between an over-target rung and the anchor, the ones its rating hangs
    on: a dear rung already within target (MCTS at the top) plays no more games while the
    cheap ones narrow the bottom of the ladder.  A rung's comparisons use the seeds both
    played.

    ``games_file``: a ``.jsonl`` file that keeps every finished game (one line each) and
    from which games already played -- same game, options, agent, options, version and
    seeds -- are taken instead of being played again: a stopped build goes on, and a pilot
    with more candidate rungs serves the ladder of the ones chosen."""
    from agents.runner import Runner

    labels = [r.label for r in spec.rungs]
    max_seeds = max(seeds, max_seeds or seeds)
    game_seeds = [agent_seed(seed, 0, k) for k in range(max_seeds)]
    index = {s: k for k, s in enumerate(game_seeds)}
    reach = {lab: 0 for lab in labels}          # a rung has played seeds 0 .. reach - 1
    results = {lab: [None] * max_seeds for lab in labels}
    seconds, core_seconds, from_file = 0.0, 0.0, 0
    think = {lab: [0.0, 0] for lab in labels}
    active, n = list(spec.rungs), seeds
    with Runner(workers=workers, backend=backend) as runner:
        while True:
            jobs = [_solo_job(spec, r, k, game_seeds[k], seed)
                    for k in range(min(reach.values()), n) for r in active if k >= reach[r.label]]
            played, took, reused = _play_solo(jobs, runner, games_file, workers, len(spec.rungs),
                                              f"{spec.name} ({n} seeds)", progress)
            seconds += took
            from_file += reused
            for job, res in zip(jobs, played):
                lab = job["labels"][0]
                results[lab][index[job["env_seed"]]] = solo_result(res["outcome"])
                think[lab][0] += res["think"][0]
                think[lab][1] += res["moves"][0]
                core_seconds += res.get("seconds", 0.0)
            for r in active:
                reach[r.label] = n
            per = {lab: results[lab][:n] for lab in labels}
            fit, halfwidths = solo_fit(labels, per, {ANCHOR: ANCHOR_RATING}, bootstrap, seed)
            spm = {lab: (t / m if m else None) for lab, (t, m) in think.items()}
            targets = _targets(spec, spm)
            over = [lab for lab, h in zip(labels, halfwidths) if lab != ANCHOR and h > targets[lab]]
            log(f"{spec.name}: {n} seeds, {sum(reach.values())} games; intervals "
                + ", ".join(f"{lab} ±{h:.0f}" for lab, h in zip(labels, halfwidths)))
            if not over or n >= max_seeds:
                break
            rank = {lab: k for k, lab in enumerate(sorted(labels, key=fit.rating))}
            spans = [sorted((rank[lab], rank[ANCHOR])) for lab in over]
            active = [r for r in spec.rungs if any(lo <= rank[r.label] <= hi for lo, hi in spans)]
            n = min(max_seeds, n + max(1, n // 2))
    fit.halfwidths = halfwidths
    games = sum(reach.values())
    log(f"{spec.name}: {games} games ({from_file} from {games_file})")
    per = {lab: results[lab][:n] for lab in labels}
    return _ladder(spec, fit, spm, [], per, game_seeds[:n], games, seconds, seed, core_seconds)


def _solo_job(spec, rung, k, env_seed, seed):
    return {"game": spec.game, "options": dict(spec.options),
            "players": [{"spec": rung.agent, "options": dict(rung.options)}],
            "labels": [rung.label], "version": rung.version, "env_seed": env_seed,
            "agent_seeds": [agent_seed(seed, 1, _rung_key(rung), k)]}


def _play_solo(jobs, runner, games_file, workers, rungs, title, progress):
    """The results of ``jobs`` in order, those in ``games_file`` taken from it, the others
    played and appended to it after every chunk; also the wall seconds and how many came
    from the file."""
    from agents.runner import progress_bar

    done = _read_games(games_file, jobs)
    todo = [job for job in jobs if _job_key(job) not in done]
    start = time.perf_counter()
    chunk = 8 * workers * rungs              # games kept in games_file after every chunk
    bar = progress_bar(len(todo), title, progress)
    try:
        for first in range(0, len(todo), chunk):
            part = todo[first:first + chunk]
            fresh = runner.map(play_match, part, bar)
            _append_games(games_file, part, fresh)
            done.update((_job_key(job), res) for job, res in zip(part, fresh))
    finally:
        bar.close()
    return [done[_job_key(job)] for job in jobs], time.perf_counter() - start, len(jobs) - len(todo)


def _append_games(path, jobs, results):
    if path is not None and jobs:
        with open(path, "a") as f:
            for job, res in zip(jobs, results):
                f.write(json.dumps({"key": _job_key(job), "result": res}) + "\n")


def _job_key(job):
    p = job["players"][0]
    return json.dumps([job["game"], job["options"], p["spec"], p["options"], job["version"],
                       job["env_seed"], job["agent_seeds"][0]], sort_keys=True)


def _read_games(path, jobs):
    """The finished games of ``path`` (if it exists) that ``jobs`` would play."""
    wanted = {_job_key(job) for job in jobs}
    done = {}
    if path is None or not os.path.exists(path):
        return done
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                key, result = entry["key"], entry["result"]
                float(solo_result(result["outcome"])), float(result["think"][0]), int(result["moves"][0])
            except (ValueError, KeyError, TypeError, IndexError):
                raise ValueError(f"games file {path}, line {n}: not a finished solo game") from None
            if key in wanted:
                done[key] = result
    return done


def solo_tally(labels, per_seed, seed_index=None):
    """``(points, games)`` of seed-by-seed comparisons: ``per_seed[label][k]`` is a rung's
    result on seed ``k`` (None: not played); ``seed_index`` (optional) the seeds to use
    (with repeats).  Two rungs are compared on the seeds both played."""
    n = len(labels)
    values = np.array([[np.nan if v is None else v for v in per_seed[lab]] for lab in labels],
                      dtype=float)                                       # (n, seeds)
    if seed_index is not None:
        values = values[:, seed_index]
    a, b = values[:, None, :], values[None, :, :]
    both = ~np.isnan(a) & ~np.isnan(b)
    points = ((a > b) & both).sum(axis=2) + 0.5 * ((a == b) & both).sum(axis=2)
    games = both.sum(axis=2).astype(float)
    np.fill_diagonal(points, 0.0)
    np.fill_diagonal(games, 0.0)
    return points.astype(float), games


def solo_fit(labels, per_seed, fixed, bootstrap=400, seed=0, prior_sd=None):
    """The Bradley-Terry fit of seed-by-seed comparisons, and bootstrap 95 % half-widths
    (half the 2.5-97.5 percentile range over ``bootstrap`` resamples of the seeds)."""
    points, games = solo_tally(labels, per_seed)
    fit = elo.fit(labels, points, games, fixed, prior_sd=prior_sd)
    seeds = len(next(iter(per_seed.values())))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(bootstrap):
        idx = rng.integers(0, seeds, seeds)
        p, g = solo_tally(labels, per_seed, idx)
        try:
            draws.append(elo.fit(labels, p, g, fixed, prior_sd=prior_sd or 2000.0).ratings)
        except ValueError:
            continue
    draws = np.array(draws)
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    return fit, (hi - lo) / 2.0


def _ladder(spec, fit, spm, pairs, per_seed, seeds, games, seconds, seed, core_seconds):
    from envs.registry import spec_for as game_spec

    labels = [r.label for r in spec.rungs]
    return Ladder(spec=spec,
                  ratings={lab: float(fit.ratings[i]) for i, lab in enumerate(labels)},
                  halfwidths={lab: float(fit.halfwidths[i]) for i, lab in enumerate(labels)},
                  seconds_per_move={lab: (round(v, 5) if v is not None else None) for lab, v in spm.items()},
                  pairs=pairs, seed_results=per_seed, seeds=seeds,
                  meta={"games": games, "seconds": round(seconds, 1),
                        "core_seconds": round(core_seconds, 1), "seed": seed,
                        "date": datetime.date.today().isoformat(), "revision": _revision(),
                        "machine": machine(), "rules_revision": game_spec(spec.game).rules_revision})


def save(ladder, directory=None):
    directory = Path(directory) if directory else LADDERS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / path_for(ladder.spec.name).name
    part = path.with_name(path.name + ".part")       # replaced whole: a reader never sees half a file
    part.write_text(json.dumps(ladder.to_json(), indent=1) + "\n")
    os.replace(part, path)
    return path


def rate_tournament(lad, result):
    """Ratings on ``lad``'s scale of the agents of a two-seat tournament ``result``
    (:func:`agents.apps.tournament.run_tournament`): agents that are rungs of the ladder (same
    agent name and options) keep their published rating, the others are fitted from their
    games (:func:`agents.rating.elo.fit`).  Returns ``{label: {"rating", "halfwidth",
    "rung"}}`` for every agent whose rating is finite; ``ValueError`` when the tournament
    was not played at the ladder's table or has no rung to anchor it."""
    if lad.spec.mode != "table" or result["num_players"] != 2 or result["game"] != lad.spec.game:
        raise ValueError(f"ladder {lad.spec.name} rates two-seat games of {lad.spec.game}")
    options = {k: v for k, v in result.get("env_options", {}).items() if k != "num_players"}
    wanted = {k: v for k, v in lad.spec.options.items() if k != "num_players"}
    if options != wanted:
        raise ValueError(f"ladder {lad.spec.name} is played with options {wanted}, the tournament "
                         f"with {options}")
    labels = [a["label"] for a in result["agents"]]
    fixed = {}
    for a in result["agents"]:
        rung = lad.rung_matching(a["name"], a.get("options", {}))
        if rung is not None:
            fixed[a["label"]] = lad.rating(rung.label)
    if not fixed:
        raise ValueError(f"no agent of the tournament is a rung of ladder {lad.spec.name} (rungs: "
                         + ", ".join(f"{r.agent} {r.options or ''}".strip() for r in lad.spec.rungs) + ")")
    triples = [(res["seats"][0], res["seats"][1], table_points(res, 0)) for res in result["results"]]
    points, games = elo.tally(labels, triples)
    fit = elo.fit(labels, points, games, fixed, prior_sd=800.0, prior_mean=ANCHOR_RATING)
    return {lab: {"rating": fit.rating(lab), "halfwidth": fit.halfwidth(lab), "rung": lab in fixed}
            for lab in labels}
