"""The web app's JSON API (agents/serve.py), through Starlette's TestClient.

Skipped when the optional extra "web" (Starlette, httpx) is not installed.  The page
itself is driven in a real browser by tests/test_browser.py.
"""
import re
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():   # Starlette 1.x prefers the httpx2 fork; httpx works alike
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from agents.serve import create_app  # noqa: E402
from envs import records  # noqa: E402


@pytest.fixture
def client():
    return TestClient(create_app())


def start(client, game="kingdomino_duel_v0", seat=0, opponents=("random",), seed=11, **options):
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
    tiny_towns = next(g for g in catalog["games"] if g["id"] == "tiny_towns_v0")
    assert tiny_towns["player_counts"] == [1, 2, 3, 4, 5, 6]
    assert "monuments" in [o["name"] for o in tiny_towns["options"]]


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
    ({"game": "expancity_v0", "seat": 0, "opponents": ["az"]}, "no network of the learned search"),
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

    import agents.serve as serve
    from agents.base import Agent, _REGISTRY
    from agents.random_agent import RandomAgent

    thinking, may_answer = threading.Event(), threading.Event()

    class Pondering(Agent):
        """Thinks until the test lets it answer."""

        def act(self, env, agent):
            thinking.set()
            assert may_answer.wait(30)
            return RandomAgent(seed=0).act(env, agent)

    monkeypatch.setitem(_REGISTRY, "pondering", Pondering)
    monkeypatch.setattr(serve, "OPPONENTS", serve.OPPONENTS + ("pondering",))
    with TestClient(create_app()) as client:
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
