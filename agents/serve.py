"""A small local web app to play any cityzoo game against agents: ``python -m agents.serve``.

Open http://127.0.0.1:8000/, pick a game, its options, your seat and the agents in the other
seats, and play by clicking a legal move (a labelled button, or the board where the
picture marks it).  The agents' moves are shown one after another; at the end the final
scores appear and the game record (the :mod:`envs.records` format, replayable with
``envs.records.replay`` and viewable with ``python -m envs.view``) can be downloaded.
Needs the optional extra ``web`` (Starlette and uvicorn): ``pip install -e ".[web]"``.

The JSON API the page uses (every error is a 4xx with ``{"error": "..."}`` and leaves the
game as it was):

``GET  /api/catalog``               the games, their options and player counts, the agents
``POST /api/games``                 ``{game, options, seat, opponents, seed}`` -> a new game
``GET  /api/games/{id}``            the game as the person's seat sees it
``POST /api/games/{id}/move``       ``{counter, action}``: the person plays ``action``
``POST /api/games/{id}/advance``    ``{counter}``: the agent to move plays one move
``GET  /api/games/{id}/record``     the record so far (a download)

``counter`` is the number of moves played when the client last looked: a request made
with an older one is refused (409), so a double click or a second tab cannot play a move
the person did not see.  Games live in memory, each under a random id, and are
independent; agents think in a worker thread so the server keeps answering.

The page never shows what the person's seat could not see at the table: the picture is
drawn for that seat, and another seat's move is listed as that seat sees it played
(``env.action_label(action, observer=seat)``: a secret choice such as a kept card or a pick
shows as its phase only) until the game ends, when every label is shown.
"""
from __future__ import annotations

import argparse
import asyncio
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources

import envs
from agents import base
from envs import records
from envs.registry import spec_for

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route
except ImportError as exc:   # the optional extra is missing
    raise ImportError('agents.serve needs the "web" extra: pip install -e ".[web]"') from exc

PERSON = "human"   # the person's seat in the record's players (as agents.play writes it)
# Agents a person can pick as opponents: those that need no file ("policy" needs a path).
OPPONENTS = ("random", "greedy", "mcts", "az", "az_policy")
LEARNED = ("az", "az_policy")   # need the game's shipped network (catalog: each game's "learned")
MAX_GAMES = 64   # the oldest game is dropped beyond this many, so memory stays bounded
OPTION_KINDS = ("int", "bool", "choice")   # the options the page offers; others keep defaults


class RequestError(Exception):
    """A request the server refuses: ``status`` and a message for the JSON error."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Game:
    """One game in the server: the env, the agent of each seat (None: the person), the
    record and the move counter, with a lock so that one request at a time changes it."""

    env: object
    seat: int
    seat_agents: list
    record: dict
    moves_seen: list = field(default_factory=list)   # (label, seat, label the person saw) per move
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def counter(self):
        return len(self.record["actions"])

    @property
    def over(self):
        return self.env.phase == "game_over"

    @property
    def to_move(self):
        return None if self.over else self.env.possible_agents.index(self.env.agent_selection)


# ------------------------------------------------------------------ requests
def _int(value, name, low=None, high=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(400, f"{name} must be an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise RequestError(400, f"{name} must be in [{low}, {high}], got {value}")
    return value


async def _body(request):
    try:
        body = await request.json()
    except ValueError:
        raise RequestError(400, "the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return body


def catalog():
    """The games (ids, player counts, the options the page offers) and the opponents."""
    from agents.pretrained import AZ_PREFIX, available_games
    learned = set(available_games(prefix=AZ_PREFIX))
    games = []
    for game_id in envs.GAMES:
        spec = spec_for(game_id)
        options = [{"name": o.name, "kind": o.kind, "default": o.default, "choices": list(o.choices),
                    "low": o.low, "high": o.high, "none_ok": o.none_ok, "doc": o.doc}
                   for o in spec.options if o.kind in OPTION_KINDS and o.name != "num_players"]
        games.append({"id": game_id, "player_counts": list(spec.player_counts), "options": options,
                      "learned": game_id in learned})
    return {"games": games, "opponents": [name for name in OPPONENTS if name in base._REGISTRY]}


def new_game(body, agent_options):
    """A :class:`Game` from a request body ``{game, options, seat, opponents, seed}``."""
    game_id = body.get("game")
    if game_id not in envs.GAMES:
        raise RequestError(400, f"game must be one of {list(envs.GAMES)}, got {game_id!r}")
    options = body.get("options", {})
    if not isinstance(options, dict) or "render_mode" in options:
        raise RequestError(400, "options must be a JSON object of the game's options (no render_mode)")
    seed = body.get("seed")
    seed = secrets.randbits(31) if seed is None else _int(seed, "seed", 0, 2**63 - 1)
    try:
        env = envs.make(game_id, **options)
    except (TypeError, ValueError) as exc:
        raise RequestError(400, f"bad options for {game_id}: {exc}") from None
    n = len(env.possible_agents)
    seat = _int(body.get("seat", 0), "seat", 0, n - 1)
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or len(opponents) != n - 1:
        raise RequestError(400, f"opponents must be a list of {n - 1} agent name(s), one per other "
                                f"seat, got {opponents!r}")
    known = catalog()["opponents"]
    for name in opponents:
        if name not in known:
            raise RequestError(400, f"unknown opponent {name!r}; choose from {known}")
    names = list(opponents)
    names.insert(seat, None)
    seat_agents = []
    for k, name in enumerate(names):
        if name is None:
            seat_agents.append(None)
            continue
        try:
            bot = base.make(name, seed=seed + k, **agent_options.get(name, {}))
            if name in LEARNED:
                bot.bind(env)       # the game (and its options) must have a shipped network
        except ValueError as exc:
            raise RequestError(400, f"opponent {name!r}: {exc}") from None
        seat_agents.append(bot)
    players = [PERSON if name is None else name for name in names]
    env.reset(seed=seed)
    return Game(env=env, seat=seat, seat_agents=seat_agents,
                record=records.new_record(game_id, options, seed, players=players))


def view(game_id, game):
    """The game as the person sees it (what the page draws)."""
    env, seat = game.env, game.seat
    yours = game.to_move == seat
    players = list(game.record["players"])
    players[seat] = "you"
    moves = []
    for n, (label, mover, seen) in enumerate(game.moves_seen, 1):
        shown = label if game.over else seen
        moves.append({"n": n, "seat": mover, "player": players[mover], "label": shown})
    out = {"id": game_id, "game": game.record["game"], "counter": game.counter, "seat": seat,
           "players": players, "to_move": game.to_move, "your_turn": yours,
           "over": game.over, "phase": env.phase,
           "picture": env.svg(observer=seat, clickable=yours),
           "legal": [{"action": a, "label": env.action_label(a)} for a in env.legal_actions()] if yours else [],
           "moves": moves, "final": None}
    if game.over:
        out["final"] = {"scores": game.record["scores"], "ranks": game.record["ranks"],
                        "winners": game.record["winners"]}
    return out


def play(game, action):
    """Record and play ``action`` for the seat to move (legal: checked by the caller)."""
    env = game.env
    mover, seen = game.to_move, env.action_label(action, observer=game.seat)
    records.add_action(game.record, env, action)
    game.moves_seen.append((game.record["labels"][-1], mover, seen))
    env.step(action)
    if game.over:
        records.finish(game.record, env)


# ------------------------------------------------------------------- the app
def json_endpoint(work):
    """An endpoint from ``async work(request)`` returning a JSON-able result (or a ready
    response); a :class:`RequestError` becomes a JSON error with its status."""
    async def endpoint(request):
        try:
            result = await work(request)
        except RequestError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return result if isinstance(result, Response) else JSONResponse(result)
    return endpoint


def create_app(agent_options=None):
    """The Starlette app.  ``agent_options``: keyword options per agent name for
    ``agents.make`` (the default keeps MCTS to a short think)."""
    agent_options = {"mcts": {"simulations": 200}, "az": {"simulations": 200}, **(agent_options or {})}
    games: OrderedDict[str, Game] = OrderedDict()
    web = resources.files("agents").joinpath("web")
    assets = {"app.js": "text/javascript", "style.css": "text/css"}

    def lookup(request):
        game_id = request.path_params["game_id"]
        if game_id not in games:
            raise RequestError(404, f"no game with id {game_id!r}: games live in memory until the "
                                    f"server stops, and only the {MAX_GAMES} most recent are kept")
        return game_id, games[game_id]

    def check_counter(game, body):
        counter = _int(body.get("counter"), "counter")
        if counter != game.counter:
            raise RequestError(409, f"stale request: it was made after move {counter}, but the game "
                                    f"is at move {game.counter}; reload the game")

    async def index(request):
        return HTMLResponse(web.joinpath("index.html").read_text())

    @json_endpoint
    async def asset(request):
        name = request.path_params["name"]
        if name not in assets:
            raise RequestError(404, f"no asset {name!r}")
        return Response(web.joinpath(name).read_text(), media_type=assets[name])

    @json_endpoint
    async def get_catalog(request):
        return catalog()

    @json_endpoint
    async def start(request):
        game = new_game(await _body(request), agent_options)
        game_id = secrets.token_urlsafe(12)
        games[game_id] = game
        while len(games) > MAX_GAMES:
            games.popitem(last=False)
        return view(game_id, game)

    @json_endpoint
    async def show(request):
        game_id, game = lookup(request)
        async with game.lock:   # not halfway through a move
            return view(game_id, game)

    @json_endpoint
    async def move(request):
        game_id, game = lookup(request)
        body = await _body(request)
        async with game.lock:
            check_counter(game, body)
            if game.to_move != game.seat:
                raise RequestError(409, "the game is over" if game.over else "it is not your turn")
            action = _int(body.get("action"), "action")
            legal = game.env.legal_actions()
            if action not in legal:
                raise RequestError(400, f"action {action} is not legal now (phase "
                                        f"{game.env.phase!r}); legal actions: {legal}")
            play(game, action)
            return view(game_id, game)

    @json_endpoint
    async def advance(request):
        game_id, game = lookup(request)
        body = await _body(request)
        async with game.lock:
            check_counter(game, body)
            if game.over or game.to_move == game.seat:
                raise RequestError(409, "no agent is to move: " +
                                   ("the game is over" if game.over else "it is your turn"))
            bot = game.seat_agents[game.to_move]
            # The agent thinks in a worker thread, so the server keeps answering meanwhile.
            action = await run_in_threadpool(bot.act, game.env, game.env.agent_selection)
            play(game, int(action))
            return view(game_id, game)

    @json_endpoint
    async def download(request):
        _, game = lookup(request)
        async with game.lock:
            name = f"{game.record['game']}-seed{game.record['seed']}.json"
            return JSONResponse(game.record,
                                headers={"Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", index),
        Route("/static/{name}", asset),
        Route("/api/catalog", get_catalog),
        Route("/api/games", start, methods=["POST"]),
        Route("/api/games/{game_id}", show),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
        Route("/api/games/{game_id}/record", download),
    ]
    app = Starlette(routes=routes)
    app.state.games = games
    return app


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m agents.serve",
                                     description="Play cityzoo games against agents in the browser.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--mcts-simulations", type=int, default=200,
                        help="MCTS's search budget per move (default 200: a second or less)")
    args = parser.parse_args(argv)
    if args.mcts_simulations < 1:
        parser.error("--mcts-simulations must be at least 1")
    import uvicorn

    print(f"cityzoo: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)", flush=True)
    uvicorn.run(create_app({"mcts": {"simulations": args.mcts_simulations}}),
                host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
