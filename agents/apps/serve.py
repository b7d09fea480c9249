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
``GET  /api/games/{id}/record``     the record, once the game is over (a download)

``counter`` is the number of moves played when the client last looked: a request made
with an older one is refused (409), so a double click or a second tab cannot play a move
the person did not see.  Games live in memory, each under a random id, and are
independent; agents think in a worker thread so the server keeps answering.

The page never shows what the person's seat could not see at the table: the picture is
drawn for that seat, and another seat's move is listed as that seat sees it played
(``env.action_label(action, observer=seat)``: a secret choice such as a kept card or a pick
shows as its phase only) until the game ends, when every label is shown.  Nothing served
before the end rebuilds the hidden state: the seed (drawn from the operating system, 63
bits, unless the person gave one) and the record appear only once the game is over.

The app is for local play (docs/security.md).  It listens on 127.0.0.1 and answers only
requests addressed to the address it serves (the ``Host`` header; ``--allow-host`` adds
names for deliberate use on a LAN) and, when they carry an ``Origin``, sent from its own
page; POST bodies are JSON (``application/json``, else 415) of at most 64 KiB (413) and
limited nesting (400).  Pages may not frame it.  A browser is told apart by an opaque
cookie: each one keeps at most :data:`GAMES_PER_CLIENT` games and sees only its own; a new
game replaces that browser's oldest, never another's (when the table is full of others'
games, 429).  A request never names a file to open (options of kind ``"path"`` are refused).
"""
from __future__ import annotations

import argparse
import asyncio
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from importlib import resources

import envs
from agents import base
from envs import records, safe_json
from envs.options import refuse_file_options
from envs.registry import spec_for
from envs.registry import title as game_title

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route
except ImportError as exc:   # the optional extra is missing
    raise ImportError('agents.apps.serve needs the "web" extra: pip install -e ".[web]"') from exc

PERSON = "human"   # the person's seat in the record's players (as agents.apps.play writes it)
# Agents a person can pick as opponents: those that need no file ("policy" needs a path).
OPPONENTS = ("random", "greedy", "mcts", "az", "az_policy")
LEARNED = ("az", "az_policy")   # need the game's shipped network (catalog: each game's "learned")
MAX_GAMES = 64          # games held at once, so memory stays bounded
GAMES_PER_CLIENT = 8    # one browser's games; its next one replaces its oldest
IDLE_SECONDS = 3600     # a game untouched this long may make room for anyone's new game
OPTION_KINDS = ("int", "bool", "choice")   # the options the page offers; others keep defaults
MAX_BODY = 64 * 1024    # bytes of a request body
MAX_DEPTH = 8           # nesting of a request body's JSON
CLIENT_COOKIE = "cityzoo_client"
_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
DEFAULT_HOSTS = ("127.0.0.1", "localhost", "[::1]")
SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
     b"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
     b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]


class RequestError(Exception):
    """A request the server refuses: ``status`` and a message for the JSON error."""

    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


@dataclass
class Game:
    """One game in the server: the env, the agent of each seat (None: the person), the
    record and the move counter, with a lock so that one request at a time changes it;
    ``owner``: the browser (its cookie) the game belongs to."""

    env: object
    seat: int
    seat_agents: list
    record: dict
    owner: str = ""
    moves_seen: list = field(default_factory=list)   # (label, seat, label the person saw) per move
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    touched: float = field(default_factory=time.monotonic)

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
        raise RequestError(400, f"{name} must be an integer, got {records._short(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise RequestError(400, f"{name} must be in [{low}, {high}], got {value}")
    return value


async def _body(request):
    """The JSON object of a POST body: ``application/json`` (else 415), at most
    :data:`MAX_BODY` bytes (else 413, read no further), nesting at most :data:`MAX_DEPTH`."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(415, "the request body must be JSON, sent as application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestError(413, f"the request body is larger than {MAX_BODY} bytes")
    try:
        body = safe_json.loads(bytes(data), "the request body", MAX_DEPTH)
    except ValueError as exc:
        raise RequestError(400, f"the request body must be a JSON object: {exc}") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return body


def catalog():
    """The games (ids, player counts, the options the page offers) and the opponents."""
    from agents.pretrained import AZ_PREFIX, available_games
    from agents.players.az import load_network
    # a shipped network plays the seat count it was trained for (its record's options)
    learned = {g: [int(load_network(g)[1].get("options", {}).get("num_players", 0))]
               for g in available_games(prefix=AZ_PREFIX)}
    games = []
    for game_id in envs.GAMES:
        spec = spec_for(game_id)
        options = [{"name": o.name, "label": o.label, "kind": o.kind, "default": o.default,
                    "choices": list(o.choices),
                    "low": o.low, "high": o.high, "none_ok": o.none_ok, "doc": o.doc}
                   for o in spec.options if o.kind in OPTION_KINDS and o.name != "num_players"]
        games.append({"id": game_id, "title": game_title(game_id),
                      "player_counts": list(spec.player_counts), "options": options,
                      "learned": game_id in learned, "learned_seats": learned.get(game_id, [])})
    return {"games": games, "opponents": [name for name in OPPONENTS if name in base.known_agents()]}


def new_game(body, agent_options):
    """A :class:`Game` from a request body ``{game, options, seat, opponents, seed}``.
    Builds the env (which may read files of the package): call it off the event loop."""
    game_id = body.get("game")
    if not isinstance(game_id, str) or game_id not in envs.GAMES:
        raise RequestError(400, f"game must be one of {list(envs.GAMES)}, got {records._short(game_id)}")
    options = body.get("options", {})
    if not isinstance(options, dict) or "render_mode" in options:
        raise RequestError(400, "options must be a JSON object of the game's options (no render_mode)")
    try:   # before anything else: the answer must not depend on the path
        refuse_file_options(spec_for(game_id).options, options, "a request to the web app",
                            "the web app never opens files: play such a game in the terminal "
                            "(python -m agents.play --env-options ...)")
    except ValueError as exc:
        raise RequestError(400, str(exc)) from None
    seed = body.get("seed")
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)   # the page sends the digits typed: a JavaScript number rounds 63 bits
    seed = base.new_game_seed() if seed is None else _int(seed, "seed", 0, 2**63 - 1)
    try:
        env = envs.make(game_id, **options)
    except (TypeError, ValueError) as exc:
        raise RequestError(400, f"bad options for {game_id}: {exc}") from None
    n = len(env.possible_agents)
    seat = _int(body.get("seat", 0), "seat", 0, n - 1)
    opponents = body.get("opponents")
    if not isinstance(opponents, list) or len(opponents) != n - 1:
        raise RequestError(400, f"opponents must be a list of {n - 1} agent name(s), one per other "
                                f"seat, got {records._short(opponents)}")
    known = catalog()["opponents"]
    for name in opponents:
        if not isinstance(name, str) or name not in known:
            raise RequestError(400, f"unknown opponent {records._short(name)}; choose from {known}")
    names = list(opponents)
    names.insert(seat, None)
    agent_seeds = base.seat_seeds(seed, n)
    seat_agents = []
    for k, name in enumerate(names):
        if name is None:
            seat_agents.append(None)
            continue
        try:
            bot = base.make(name, **{"seed": agent_seeds[k], **agent_options.get(name, {})})
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
    """The game as the person sees it (what the page draws).  Until the game is over it
    holds nothing the person's seat could not see: no seed, no other seat's secret move."""
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
           "moves": moves, "final": None, "record": None}
    if game.over:
        out["final"] = {"scores": game.record["scores"], "ranks": game.record["ranks"],
                        "winners": game.record["winners"]}
        out["record"] = f"/api/games/{game_id}/record"
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


# -------------------------------------------------------------- front door
def _host_name(value):
    """``"name"`` of a ``Host``/``Origin`` authority ``"name[:port]"`` (IPv6 in brackets), lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[:value.find("]") + 1]
    return value.rsplit(":", 1)[0] if ":" in value else value


class FrontDoor:
    """ASGI middleware: refuses requests not addressed to the served address (``Host``) or
    sent by another site's page (``Origin``, ``Sec-Fetch-Site``) with 403, gives every
    browser an opaque client cookie, and adds the anti-framing and other security headers
    to every response."""

    def __init__(self, app, hosts):
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {}
        for key, value in scope["headers"]:
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        problem = self.refusal(scope, headers)
        client, new_client = self.client(headers)
        scope["cityzoo.client"] = client

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
                if new_client:
                    message["headers"].append((b"set-cookie", (
                        f"{CLIENT_COOKIE}={client}; Path=/; HttpOnly; SameSite=Strict").encode()))
            await send(message)

        if problem:
            response = JSONResponse({"error": problem}, status_code=403)
            return await response(scope, receive, send_with_headers)
        return await self.app(scope, receive, send_with_headers)

    def refusal(self, scope, headers):
        host = headers.get("host", "")
        if _host_name(host) not in self.hosts:
            return (f"this server answers requests for {', '.join(sorted(self.hosts))} only, not "
                    f"{records._short(host)} (start it with --allow-host NAME to serve that name)")
        origin = headers.get("origin")
        if origin is not None:
            scheme, _, authority = origin.partition("://")
            if scheme not in ("http", "https") or authority.lower() != host.strip().lower():
                return "requests from another site's page are refused"
        site = headers.get("sec-fetch-site")
        if scope["path"].startswith("/api/") and site not in (None, "same-origin", "none"):
            return "requests from another site's page are refused"
        return None

    @staticmethod
    def client(headers):
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:   # a malformed Cookie header: a new client
            cookie = {}
        morsel = cookie.get(CLIENT_COOKIE)
        if morsel is not None and _CLIENT_ID.fullmatch(morsel.value):
            return morsel.value, False
        return secrets.token_urlsafe(18), True


# ------------------------------------------------------------------- the app
def json_endpoint(work):
    """An endpoint from ``async work(request)`` returning a JSON-able result (or a ready
    response); a :class:`RequestError` becomes a JSON error with its status."""
    async def endpoint(request):
        try:
            result = await work(request)
        except RequestError as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)
        return result if isinstance(result, Response) else JSONResponse(result)
    return endpoint


def create_app(agent_options=None, hosts=DEFAULT_HOSTS):
    """The Starlette app, behind its :class:`FrontDoor`.  ``agent_options``: keyword options
    per agent name for ``agents.make`` (the default keeps MCTS to a short think);
    ``hosts``: the names requests may be addressed to (the ``Host`` header without port)."""
    agent_options = {"mcts": {"simulations": 200}, "az": {"simulations": 200}, **(agent_options or {})}
    games: OrderedDict[str, Game] = OrderedDict()
    web = resources.files("agents.apps").joinpath("web")
    # Read once, here: no request waits on a file.
    page = web.joinpath("index.html").read_text()
    assets = {name: (web.joinpath(name).read_text(), kind)
              for name, kind in {"app.js": "text/javascript", "style.css": "text/css"}.items()}

    def client_of(request):
        return request.scope["cityzoo.client"]

    def lookup(request):
        game_id = request.path_params["game_id"]
        game = games.get(game_id)
        if game is None or game.owner != client_of(request):   # others' games do not exist for you
            raise RequestError(404, f"no game with id {records._short(game_id)}: games live in memory "
                                    f"until the server stops, each browser keeps its "
                                    f"{GAMES_PER_CLIENT} most recent, and a game is seen only from "
                                    "the browser that started it")
        game.touched = time.monotonic()
        return game_id, game

    def room_for(client, drop):
        """Make room for a new game of ``client``: drop its oldest when it holds its share,
        or when the table is full; else a game idle for an hour; else refuse (429)."""
        mine = [gid for gid, g in games.items() if g.owner == client]
        if len(mine) < GAMES_PER_CLIENT and len(games) < MAX_GAMES:
            return
        if mine:
            victim = mine[0]
        else:
            now = time.monotonic()
            idle = [gid for gid, g in games.items() if now - g.touched > IDLE_SECONDS]
            if not idle:
                raise RequestError(429, f"the server holds its {MAX_GAMES} games, all of other "
                                        "players; try again later", headers={"Retry-After": "60"})
            victim = idle[0]
        if drop:
            del games[victim]

    def check_counter(game, body):
        counter = _int(body.get("counter"), "counter")
        if counter != game.counter:
            raise RequestError(409, f"stale request: it was made after move {counter}, but the game "
                                    f"is at move {game.counter}; reload the game")

    async def index(request):
        return HTMLResponse(page)

    @json_endpoint
    async def asset(request):
        name = request.path_params["name"]
        if name not in assets:
            raise RequestError(404, f"no asset {records._short(name)}")
        text, kind = assets[name]
        return Response(text, media_type=kind)

    @json_endpoint
    async def get_catalog(request):
        return catalog()

    @json_endpoint
    async def start(request):
        client = client_of(request)
        body = await _body(request)
        room_for(client, drop=False)   # refuse early when the table is full of others' games
        # Off the event loop: building a game may read files (and compile on a first run).
        game = await run_in_threadpool(new_game, body, agent_options)
        game.owner = client
        room_for(client, drop=True)
        game_id = secrets.token_urlsafe(12)
        games[game_id] = game
        return await run_in_threadpool(view, game_id, game)

    @json_endpoint
    async def show(request):
        game_id, game = lookup(request)
        async with game.lock:   # not halfway through a move
            return await run_in_threadpool(view, game_id, game)

    @json_endpoint
    async def move(request):
        body = await _body(request)
        game_id, game = lookup(request)
        async with game.lock:
            check_counter(game, body)
            if game.to_move != game.seat:
                raise RequestError(409, "the game is over" if game.over else "it is not your turn")
            action = _int(body.get("action"), "action")
            legal = game.env.legal_actions()
            if action not in legal:
                raise RequestError(400, f"action {action} is not legal now (phase "
                                        f"{game.env.phase!r}); legal actions: {legal}")

            def play_and_view():
                play(game, action)
                return view(game_id, game)
            return await run_in_threadpool(play_and_view)

    @json_endpoint
    async def advance(request):
        body = await _body(request)
        game_id, game = lookup(request)
        async with game.lock:
            check_counter(game, body)
            if game.over or game.to_move == game.seat:
                raise RequestError(409, "no agent is to move: " +
                                   ("the game is over" if game.over else "it is your turn"))
            bot = game.seat_agents[game.to_move]

            def think_play_and_view():   # in a worker thread: the server keeps answering
                play(game, int(bot.act(game.env, game.env.agent_selection)))
                return view(game_id, game)
            return await run_in_threadpool(think_play_and_view)

    @json_endpoint
    async def download(request):
        _, game = lookup(request)
        async with game.lock:
            if not game.over:   # the record holds the seed and every secret move
                raise RequestError(409, "the record can be downloaded once the game is over: it "
                                        "holds the seed and every move, which would show the "
                                        "hidden cards")
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
    door = FrontDoor(app, hosts)
    door.state = app.state   # tests look at the games through the outer app
    return door


def port_number(text):
    """argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, got {text!r}")
    return port


def main(argv=None):
    from envs import cli

    parser = cli.ArgumentParser(
        prog="python -m agents.serve",
        description="Play cityzoo games against agents in the browser (local play: "
                    "docs/security.md).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests addressed to NAME (this machine's LAN address "
                             "or name, when listening beyond 127.0.0.1 on purpose); repeatable")
    parser.add_argument("--mcts-simulations", type=cli.positive_int, default=200,
                        help="MCTS's search budget per move (default 200: a second or less)")
    args = parser.parse_args(argv)
    for name in args.allow_host:
        if not _host_name(name):
            parser.error(f"argument --allow-host: not a host name: {name!r}")
    hosts = list(DEFAULT_HOSTS) + [_host_name(h) for h in args.allow_host]
    if args.host not in ("127.0.0.1", "localhost", "::1") and not args.allow_host:
        print(f"cityzoo: listening on {args.host}, but only requests addressed to "
              f"{', '.join(DEFAULT_HOSTS)} are answered; add --allow-host NAME for the name "
              "other machines use (see docs/security.md)", flush=True)
    import uvicorn

    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"cityzoo: open http://{shown}:{args.port}/ in a browser (Ctrl-C stops)", flush=True)
    print("cityzoo: the first game of each title against greedy or mcts waits 20 s to a minute "
          "while their search kernels compile (once per title while the server runs)", flush=True)
    uvicorn.run(create_app({"mcts": {"simulations": args.mcts_simulations}}, hosts=hosts),
                host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
