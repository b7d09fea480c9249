"""The web app's JSON API (agents/apps/serve.py), through Starlette's TestClient.

Skipped when the optional extra "web" (Starlette, httpx) is not installed.  The page
itself is driven in a real browser by tests/test_browser.py.
"""
import json
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():   # Starlette 1.x prefers the httpx2 fork; httpx works alike
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from agents.apps.serve import create_app  # noqa: E402
from envs import records  # noqa: E402

LOCAL = "http://127.0.0.1:8000"   # the address the app serves by default


@pytest.fixture
def client():
    return TestClient(create_app(), base_url=LOCAL)


def start(client, game="kingdomino_duel_v0", seat=0, opponents=("random",), seed=11, **options):
    """A new game (``seed=None``: the server draws one)."""
    response = client.post("/api/games", json={"game": game, "options": options, "seat": seat,
                                               "opponents": list(opponents), "seed": seed})
    assert response.status_code == 200, response.json()
    return response.json()


def advance_to_person(client, view):
    """Let the agents move until it is the person's turn (or the game is over)."""
    while not view["over"] and not view["your_turn"]:
        response = client.post(f"/api/games/{view['id']}/advance", json={"counter": view["counter"]})
        assert response.status_code == 200, response.json()
        view = response.json()
    return view


def play_out(client, view, pick=lambda legal: legal[-1]["action"], seen=lambda view: None):
    """Play the game to its end: the person takes ``pick(legal)``, the agents move;
    ``seen`` gets every view the person's turns show."""
    while not view["over"]:
        view = advance_to_person(client, view)
        seen(view)
        if view["over"]:
            break
        response = client.post(f"/api/games/{view['id']}/move",
                               json={"counter": view["counter"], "action": pick(view["legal"])})
        assert response.status_code == 200, response.json()
        view = response.json()
    return view


def test_catalog_lists_every_game_and_the_opponents(client):
    import envs

    catalog = client.get("/api/catalog").json()
    assert [g["id"] for g in catalog["games"]] == list(envs.GAMES)
    assert set(catalog["opponents"]) == {"random", "greedy", "mcts", "az", "az_policy"}
    from agents.pretrained import AZ_PREFIX, available_games
    learned = set(available_games(prefix=AZ_PREFIX))
    assert {g["id"] for g in catalog["games"] if g["learned"]} == learned
    from agents.players.az import load_network
    for g in catalog["games"]:       # the page offers az only at the seat count of the network
        assert g["learned_seats"] == ([load_network(g["id"])[1]["options"]["num_players"]] if g["learned"] else [])
    tiny_towns = next(g for g in catalog["games"] if g["id"] == "tiny_towns_v0")
    assert tiny_towns["player_counts"] == [1, 2, 3, 4, 5, 6]
    assert "monuments" in [o["name"] for o in tiny_towns["options"]]


def test_the_setup_form_gets_readable_names(client):
    """Game titles and option labels, not ids: the form shows ``Kingdomino Duel`` and
    ``Cave rule``, and the ids stay what the form sends."""
    games = {g["id"]: g for g in client.get("/api/catalog").json()["games"]}
    assert {gid: g["title"] for gid, g in games.items()} == {
        "kingdomino_duel_v0": "Kingdomino Duel", "tiny_towns_v0": "Tiny Towns",
        "between_two_cities_v0": "Between Two Cities", "expancity_v0": "Expancity",
        "smartphone_inc_v0": "Smartphone Inc."}
    labels = {o["name"]: o["label"] for o in games["tiny_towns_v0"]["options"]}
    assert labels["cave_rule"] == "Cave rule" and labels["first_player"] == "First player"
    assert all("_" not in o["label"] for g in games.values() for o in g["options"])
    script = client.get("/static/app.js").text
    assert "g.title" in script and "option.label" in script
    assert re.search(r"#options input\[type=number\] \{ width: \d+em; \}", client.get("/static/style.css").text)


def test_a_seed_typed_as_digits_is_kept_exactly(client):
    seed = 1234567890123209511            # above 2**53: a JavaScript number would round it
    view = start(client, seed=str(seed))
    assert client.app.state.games[view["id"]].record["seed"] == seed
    response = client.post("/api/games", json={"game": "kingdomino_duel_v0", "seat": 0,
                                               "opponents": ["random"], "seed": "12x"})
    assert response.status_code == 400 and "seed" in response.json()["error"]


def test_the_page_and_its_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/../serve.py").status_code == 404


def test_start_and_a_legal_move(client):
    view = start(client, seat=1)
    assert view["counter"] == 0 and view["players"] == ["random", "you"]
    assert view["picture"].lstrip().startswith("<svg")
    view = advance_to_person(client, view)
    assert view["your_turn"] and view["legal"]
    choice = view["legal"][0]
    response = client.post(f"/api/games/{view['id']}/move",
                           json={"counter": view["counter"], "action": choice["action"]})
    assert response.status_code == 200
    after = response.json()
    assert after["counter"] == view["counter"] + 1
    assert after["moves"][-1] == {"n": after["counter"], "seat": 1, "player": "you",
                                  "label": choice["label"]}


def test_the_person_picture_is_clickable_on_its_turn_only(client):
    view = advance_to_person(client, start(client, seat=0))
    assert 'class="cz-action"' in view["picture"]
    legal = {m["action"] for m in view["legal"]}
    clickable = {int(a) for a in re.findall(r'data-action="(\d+)"', view["picture"])}
    assert clickable and clickable <= legal
    view = client.post(f"/api/games/{view['id']}/move",
                       json={"counter": view["counter"], "action": view["legal"][0]["action"]}).json()
    if not view["your_turn"]:
        assert "cz-action" not in view["picture"] and view["legal"] == []


def unchanged(client, view):
    now = client.get(f"/api/games/{view['id']}").json()
    return now == view


def test_stale_counter_is_refused_and_changes_nothing(client):
    view = advance_to_person(client, start(client))
    action = view["legal"][0]["action"]
    for counter in (view["counter"] + 1, view["counter"] - 1):
        response = client.post(f"/api/games/{view['id']}/move", json={"counter": counter, "action": action})
        assert response.status_code == 409
        assert "stale" in response.json()["error"]
    assert unchanged(client, view)


def test_illegal_or_malformed_moves_are_refused_and_change_nothing(client):
    view = advance_to_person(client, start(client))
    legal = {m["action"] for m in view["legal"]}
    illegal = next(a for a in range(10_000) if a not in legal)
    url = f"/api/games/{view['id']}/move"
    for body in ({"counter": view["counter"], "action": illegal},
                 {"counter": view["counter"], "action": -1},
                 {"counter": view["counter"], "action": str(min(legal))},
                 {"counter": view["counter"], "action": float(min(legal))},
                 {"counter": view["counter"], "action": True},
                 {"counter": view["counter"]},
                 {"action": min(legal)},
                 [view["counter"], min(legal)]):
        response = client.post(url, json=body)
        assert response.status_code == 400, body
        assert response.json()["error"]
    response = client.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "JSON" in response.json()["error"]
    assert "not legal" in client.post(url, json={"counter": view["counter"], "action": illegal}).json()["error"]
    assert unchanged(client, view)


def test_moves_out_of_turn_are_refused(client):
    view = start(client, seat=0)
    view = advance_to_person(client, view)
    response = client.post(f"/api/games/{view['id']}/advance", json={"counter": view["counter"]})
    assert response.status_code == 409 and "your turn" in response.json()["error"]
    assert unchanged(client, view)


def test_unknown_game_id(client):
    for method, path, body in (("get", "/api/games/nope", None),
                               ("post", "/api/games/nope/move", {"counter": 0, "action": 0}),
                               ("post", "/api/games/nope/advance", {"counter": 0}),
                               ("get", "/api/games/nope/record", None)):
        response = getattr(client, method)(path, **({} if body is None else {"json": body}))
        assert response.status_code == 404
        assert "nope" in response.json()["error"]


@pytest.mark.parametrize("body, words", [
    ({"game": "chess_v0", "seat": 0, "opponents": ["random"]}, "game must be"),
    ({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"], "options": {"num_players": 3}},
     "num_players"),
    ({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"], "options": {"colour": 1}}, "colour"),
    ({"game": "kingdomino_duel_v0", "seat": 2, "opponents": ["random"]}, "seat"),
    ({"game": "kingdomino_duel_v0", "seat": 0, "opponents": []}, "opponents"),
    ({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["policy"]}, "unknown opponent"),
    ({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"], "seed": "x"}, "seed"),
    ({"game": "between_two_cities_v0", "seat": 0, "opponents": ["az", "greedy"]}, "seats"),
])
def test_bad_new_game_requests(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert len(client.app.state.games) == 0


def test_the_learned_search_plays_where_it_has_a_network(client):
    from agents.pretrained import AZ_PREFIX, available_games
    if "kingdomino_duel_v0" not in available_games(prefix=AZ_PREFIX):
        pytest.skip("no shipped network")
    for name in ("az", "az_policy"):
        view = advance_to_person(client, start(client, seat=1, opponents=(name,), seed=3))
        assert view["legal"], name


def test_two_games_stay_independent(client):
    first = advance_to_person(client, start(client, seed=5))
    second = advance_to_person(client, start(client, seed=5))
    assert first["id"] != second["id"]
    assert first["picture"] == second["picture"]   # same seed, same position
    action = first["legal"][-1]["action"]
    moved = client.post(f"/api/games/{first['id']}/move",
                        json={"counter": first["counter"], "action": action}).json()
    assert moved["counter"] == first["counter"] + 1
    assert unchanged(client, second)
    # The second game's counter is its own: the first game's does not apply to it.
    response = client.post(f"/api/games/{second['id']}/move",
                           json={"counter": moved["counter"], "action": action})
    assert response.status_code == 409


def test_a_finished_game_shows_final_scores_and_its_record_replays(client):
    view = play_out(client, start(client, seat=1, opponents=("random",), seed=3))
    assert view["over"] and view["legal"] == [] and not view["your_turn"]
    response = client.get(f"/api/games/{view['id']}/record")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    record = response.json()
    assert record["players"] == ["random", "human"] and record["seed"] == 3
    assert len(record["actions"]) == view["counter"]
    env = records.replay(record)   # raises if an action or label does not replay
    assert env.phase == "game_over"
    assert env.scores() == view["final"]["scores"] == record["scores"]
    assert env.infos["player_0"]["ranks"] == view["final"]["ranks"]
    assert [m["label"] for m in view["moves"]] == record["labels"]
    response = client.post(f"/api/games/{view['id']}/move", json={"counter": view["counter"], "action": 0})
    assert response.status_code == 409 and "over" in response.json()["error"]


def test_other_seats_secret_choices_are_not_listed_until_the_end(client):
    # Between Two Cities: tiles are chosen in secret and revealed together.
    views = []
    view = start(client, game="between_two_cities_v0", seat=0, opponents=("random",), seed=2,
                 num_players=2)
    view = play_out(client, view, pick=lambda legal: legal[0]["action"], seen=views.append)
    record = client.get(f"/api/games/{view['id']}/record").json()
    assert [m["label"] for m in view["moves"]] == record["labels"]   # all shown at the end
    phases = [env.phase for _, env in records.replay_steps(record)]
    hidden = shown = 0
    for during in views[:-1]:
        assert not during["over"]
        for n, (move, label) in enumerate(zip(during["moves"], record["labels"])):
            if move["seat"] == 0:
                assert move["label"] == label
            elif phases[n] == "pick":   # a secret pick: listed by its phase only
                hidden += 1
                assert move["label"] == "(pick)" != label
            else:                       # placing a revealed tile: seen by all
                shown += 1
                assert move["label"] == label
    assert hidden > 0 and shown > 0


def test_the_server_answers_while_an_agent_thinks(monkeypatch):
    import threading

    import agents.apps.serve as serve
    from agents.base import Agent, _REGISTRY
    from agents.players.random_agent import RandomAgent

    thinking, may_answer = threading.Event(), threading.Event()

    class Pondering(Agent):
        """Thinks until the test lets it answer."""

        def act(self, env, agent):
            thinking.set()
            assert may_answer.wait(30)
            return RandomAgent(seed=0).act(env, agent)

    monkeypatch.setitem(_REGISTRY, "pondering", Pondering)
    monkeypatch.setattr(serve, "OPPONENTS", serve.OPPONENTS + ("pondering",))
    with TestClient(create_app(), base_url=LOCAL) as client:
        slow = start(client, seat=1, opponents=("pondering",), seed=8)   # seat 0 moves first
        other = start(client, seat=0, opponents=("random",), seed=8)
        if slow["your_turn"]:   # seat 0 may not start: hand the turn to the agent first
            slow = client.post(f"/api/games/{slow['id']}/move",
                               json={"counter": 0, "action": slow["legal"][0]["action"]}).json()
        answers = {}
        worker = threading.Thread(target=lambda: answers.update(advance=client.post(
            f"/api/games/{slow['id']}/advance", json={"counter": slow["counter"]})))
        worker.start()
        assert thinking.wait(30)
        # While the agent thinks, other requests are answered.
        assert client.get("/api/catalog").status_code == 200
        assert client.get(f"/api/games/{other['id']}").json()["counter"] == other["counter"]
        assert worker.is_alive()
        may_answer.set()
        worker.join(30)
        assert answers["advance"].status_code == 200
        assert answers["advance"].json()["counter"] == slow["counter"] + 1


# ------------------------------------------------------------- hidden state
def test_the_record_is_refused_until_the_game_is_over(client):
    """Mid-game, the record (the seed and every secret move) is refused, and nothing served
    holds the seed; the record appears with the end of the game."""
    view = advance_to_person(client, start(client, game="between_two_cities_v0", seed=None,
                                           num_players=3, opponents=("random", "random")))
    served = [view]
    for _ in range(3):   # a few moves in
        view = client.post(f"/api/games/{view['id']}/move",
                           json={"counter": view["counter"], "action": view["legal"][0]["action"]}).json()
        view = advance_to_person(client, view)
        served.append(view)
    assert not view["over"] and view["record"] is None
    response = client.get(f"/api/games/{view['id']}/record")
    assert response.status_code == 409 and "once the game is over" in response.json()["error"]
    served.append(client.get(f"/api/games/{view['id']}").json())
    seed = client.app.state.games[view["id"]].record["seed"]
    assert all(str(seed) not in json.dumps(v) for v in served)
    view = play_out(client, view)
    assert view["record"] == f"/api/games/{view['id']}/record"
    assert client.get(view["record"]).json()["seed"] == seed


def test_nothing_served_mid_game_rebuilds_the_servers_state(client):
    """Whatever a person can fetch while the game runs does not replay to the server's
    state (on the old app, the record download rebuilt it exactly: every hidden hand, the
    future deck)."""
    view = advance_to_person(client, start(client, game="tiny_towns_v0", seed=None, num_players=2))
    view = client.post(f"/api/games/{view['id']}/move",
                       json={"counter": view["counter"], "action": view["legal"][0]["action"]}).json()
    server_state = client.app.state.games[view["id"]].env.game_state().copy()
    for path in (f"/api/games/{view['id']}", f"/api/games/{view['id']}/record"):
        response = client.get(path)
        if "actions" in response.text:   # a record: it must not replay to the server's state
            try:
                rebuilt = records.replay(response.json()).game_state()
            except ValueError:
                continue
            assert not np.array_equal(rebuilt, server_state), path


def test_seeds_come_from_the_os_and_agent_seeds_are_independent(client):
    from agents.base import seat_seeds

    seeds = []
    for _ in range(6):
        view = start(client, seed=None)
        game = client.app.state.games[view["id"]]
        seed = game.record["seed"]
        seeds.append(seed)
        assert 0 <= seed < 2**63
        assert [None if a is None else a.seed for a in game.seat_agents] == \
            [None if a is None else s for a, s in zip(game.seat_agents, seat_seeds(seed, 2))]
        assert all(a is None or a.seed not in (seed, seed + 1) for a in game.seat_agents)
    assert max(seeds) >= 2**31   # 63 bits, not 31 (all six below: a chance of 2**-192)
    # a given seed gives the same game, agents included
    game = client.app.state.games[start(client, seed=12)["id"]]
    assert game.seat_agents[1].seed == seat_seeds(12, 2)[1] != 13


# ----------------------------------------------------------------- files
@pytest.mark.timeout(120)
def test_options_naming_files_are_refused_whatever_the_path(client, tmp_path):
    import shutil

    from kernels.data_files import DATA_DIR

    good = tmp_path / "expancity.yaml"
    shutil.copy(DATA_DIR / "expancity.yaml", good)
    messages = set()
    for path in (str(good), "/dev/stdin", str(tmp_path / "missing.yaml"), str(tmp_path), 7):
        response = client.post("/api/games", json={"game": "expancity_v0", "seat": 0,
                                                   "opponents": ["random"], "seed": 1,
                                                   "options": {"data_path": path}})
        assert response.status_code == 400, path
        error = response.json()["error"]
        assert "data_path" in error and "never opens files" in error
        assert str(path) not in error and "tmp" not in error
        messages.add(error)
    assert len(messages) == 1   # the answer tells nothing about the path
    assert len(client.app.state.games) == 0


# ------------------------------------------------------------- front door
def test_an_oversized_body_is_refused(client):
    big = json.dumps({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"],
                      "pad": "x" * (80 << 10)})
    response = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and "larger than" in response.json()["error"]

    def chunks():   # no Content-Length: the server counts as it reads
        for _ in range(100):
            yield b" " * 4096
    response = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert len(client.app.state.games) == 0


@pytest.mark.parametrize("body", ["[" * 30_000 + "]" * 30_000,
                                  '{"game": ' + "[" * 50 + "]" * 50 + "}",
                                  '{"options": {"a": [[[[[[[[[1]]]]]]]]]}}'])
def test_deeply_nested_json_is_a_400(client, body):
    for path in ("/api/games", "/api/games/x/move"):
        response = client.post(path, content=body.encode(), headers={"Content-Type": "application/json"})
        assert response.status_code == 400, path
        assert "deep" in response.json()["error"]


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", None])
def test_only_json_bodies_are_accepted(client, kind):
    body = json.dumps({"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"]})
    headers = {} if kind is None else {"Content-Type": kind}
    response = client.post("/api/games", content=body.encode(), headers=headers)
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    assert len(client.app.state.games) == 0


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:9999",
                                    "http://localhost:8000"])
def test_requests_from_another_origin_are_refused(client, origin):
    body = {"game": "kingdomino_duel_v0", "seat": 0, "opponents": ["random"]}
    response = client.post("/api/games", json=body, headers={"Origin": origin})
    assert response.status_code == 403
    assert len(client.app.state.games) == 0
    response = client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403 and len(client.app.state.games) == 0
    # the app's own page is welcome
    response = client.post("/api/games", json=body, headers={"Origin": LOCAL,
                                                             "Sec-Fetch-Site": "same-origin"})
    assert response.status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "192.168.1.20:8000", ""])
def test_requests_for_another_host_are_refused(host):
    client = TestClient(create_app(), base_url="http://127.0.0.1:8000")
    for method, path in (("get", "/"), ("get", "/api/catalog"), ("post", "/api/games")):
        response = getattr(client, method)(path, headers={"Host": host},
                                           **({"json": {}} if method == "post" else {}))
        assert response.status_code == 403, (method, path)
        assert "--allow-host" in response.json()["error"]
    for local in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert client.get("/api/catalog", headers={"Host": local}).status_code == 200
    # --allow-host NAME: that name is served too, on purpose
    lan = TestClient(create_app(hosts=("127.0.0.1", "192.168.1.20")), base_url="http://192.168.1.20:8000")
    assert lan.get("/api/catalog").status_code == 200


def test_pages_cannot_frame_the_app(client):
    for response in (client.get("/"), client.get("/api/catalog"), client.get("/static/app.js"),
                     client.get("/api/games/nope"), client.get("/", headers={"Host": "evil.example"})):
        assert response.headers["x-frame-options"] == "DENY"
        policy = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"


def test_the_client_cookie(client):
    cookie = client.get("/").headers["set-cookie"]
    assert cookie.startswith("cityzoo_client=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "set-cookie" not in client.get("/").headers   # kept: the browser is known now


def test_one_browser_cannot_evict_anothers_games(monkeypatch):
    import agents.apps.serve as serve

    monkeypatch.setattr(serve, "MAX_GAMES", 4)
    monkeypatch.setattr(serve, "GAMES_PER_CLIENT", 2)
    app = create_app()
    alice, bob, carol = (TestClient(app, base_url=LOCAL) for _ in range(3))
    mine = start(alice, seed=1)
    for seed in range(10):   # bob starts many games: each replaces only bob's own oldest
        start(bob, seed=seed)
        assert alice.get(f"/api/games/{mine['id']}").status_code == 200
    assert len(app.state.games) == 3
    # another browser does not see alice's game, and cannot play in it
    assert bob.get(f"/api/games/{mine['id']}").status_code == 404
    assert bob.post(f"/api/games/{mine['id']}/advance", json={"counter": 0}).status_code == 404
    second = start(alice, seed=2)   # the table is full: 2 of alice, 2 of bob
    third = start(carol, seed=3) if len(app.state.games) < 4 else None
    assert third is None
    response = carol.post("/api/games", json={"game": "kingdomino_duel_v0", "seat": 0,
                                              "opponents": ["random"], "seed": 4})
    assert response.status_code == 429 and "other players" in response.json()["error"]
    assert response.headers["retry-after"]
    ids = set(app.state.games)
    assert {mine["id"], second["id"]} <= ids and len(ids) == 4
    start(alice, seed=5)   # alice's third replaces alice's oldest
    assert alice.get(f"/api/games/{mine['id']}").status_code == 404
    assert alice.get(f"/api/games/{second['id']}").status_code == 200
    # a game nobody touched for an hour makes room for anyone
    for game in app.state.games.values():
        game.touched -= serve.IDLE_SECONDS + 1
    assert start(carol, seed=6)["id"] in app.state.games


def test_no_request_makes_the_server_fail(client):
    """Whatever a request's options hold, the answer is a game or a 400, never a 500."""
    import envs
    from envs.registry import spec_for

    weird = [[[[[[]]]]]], {"a": 1}, "x" * 2000, 1e308, -1, 10**30, True, None, [], ["G1"] * 3,
    for game in envs.GAMES:
        n = 2
        for option in spec_for(game).options:
            for value in weird:
                response = client.post("/api/games", json={
                    "game": game, "seat": 0, "opponents": ["random"] * (n - 1), "seed": 1,
                    "options": {"num_players": n, option.name: value}})
                assert response.status_code in (200, 400), (game, option.name, value, response.text)
