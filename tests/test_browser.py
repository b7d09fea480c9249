"""The web app and the replay viewer in a real headless Chromium (slow: run in CI's second stage).

Chromium is driven over its DevTools protocol with a tiny client (``websocket-client``, of
the "web" extra): the test clicks the page's legal-move buttons until the game ends, as a
person would, and presses the arrow keys in the viewer.  Without a ``chromium`` on PATH
the tests are skipped -- except when ``CITYZOO_REQUIRE_BROWSER=1`` (set by ``.ci/run``),
where a missing browser is a failure.

The screenshots of the README and docs (``docs/images/play-<game>.png``, ``view-<game>.png``) are
taken by the same code::

    python tests/test_browser.py --screenshots docs/images
"""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("CITYZOO_REQUIRE_BROWSER") == "1"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until(check, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


class Browser:
    """One headless Chromium page, driven over the DevTools protocol."""

    def __init__(self, width=1300, height=900):
        import websocket   # websocket-client

        self.profile = tempfile.mkdtemp(prefix="cityzoo-chromium-")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--remote-debugging-port=0", "--remote-allow-origins=*",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Chromium writes the port it chose into its profile directory.
        port_file = Path(self.profile) / "DevToolsActivePort"
        port = _wait_until(lambda: port_file.exists() and port_file.read_text().split("\n")[0],
                           30, "Chromium's DevTools port")
        targets = _wait_until(lambda: self._pages(port), 30, "Chromium's first page")
        self.socket = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=60)
        self.next_id = 0
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    @staticmethod
    def _pages(port):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                return [t for t in json.load(r) if t.get("type") == "page"]
        except OSError:
            return []

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:   # events arrive in between; the answer carries our id
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def js(self, expression):
        """The value of a JavaScript expression (promises awaited)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript error in {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression, timeout=30):
        return _wait_until(lambda: self.js(expression), timeout, expression)

    def open(self, url):
        self.call("Page.navigate", url=url)
        time.sleep(0.2)
        self.wait("document.readyState === 'complete'")

    def click(self, selector):
        """A real mouse click in the middle of the first element matching ``selector``."""
        box = self.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: "center"}});
            const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        if box is None:
            raise LookupError(f"nothing matches {selector!r}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)

    def press(self, key, key_code):
        """Press and release ``key`` (e.g. "ArrowRight", key code 39)."""
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                      windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)

    def screenshot(self, path):
        """A PNG of the page, reduced to 256 colours (a third of the size, same look)."""
        from PIL import Image

        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        Image.open(io.BytesIO(data)).convert("RGB").quantize(colors=256).save(path, optimize=True)

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


class Server:
    """``python -m agents.serve`` on a free port, in a subprocess."""

    def __init__(self):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "agents.serve", "--port", str(self.port), "--mcts-simulations", "50"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _wait_until(self._up, 120, "the web app to answer")

    def _up(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"agents.serve exited: {self.process.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(self.url + "/api/catalog", timeout=5):
                return True
        except OSError:
            return False

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# ------------------------------------------------------------------- actions
def start_game(browser, server, game, options=None, opponents=None, delay=0):
    """Open the play page and start ``game`` from the setup form, as a person would."""
    browser.open(f"{server.url}/?delay={delay}")
    browser.wait("document.body.dataset.ready === '1'")
    browser.js(f"""(() => {{ const g = document.getElementById("game"); g.value = {json.dumps(game)};
        g.dispatchEvent(new Event("change")); }})()""")
    for name, value in (options or {}).items():
        target = "num-players" if name == "num_players" else None
        selector = f"#{target}" if target else f"[data-option={json.dumps(name)}]"
        encoded = str(value) if target else json.dumps(value)
        browser.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            e.value = {json.dumps(encoded)}; e.dispatchEvent(new Event("change")); }})()""")
    for k, name in enumerate(opponents or []):
        browser.js(f"""(() => {{ const e = document.querySelectorAll("select.opponent")[{k}];
            e.value = {json.dumps(name)}; }})()""")
    browser.js("document.getElementById('seed').value = '7'")
    browser.click("#start")
    browser.wait("['you', 'over'].includes(document.body.dataset.state)", timeout=120)


def play_by_clicking(browser, max_moves=400):
    """Click the first legal-move button until the game ends; the number of clicks."""
    clicks = 0
    while browser.js("document.body.dataset.state") != "over":
        assert clicks < max_moves, "the game did not end"
        counter = browser.js("document.body.dataset.counter")
        browser.click("#legal button.cz-move")
        clicks += 1
        browser.wait(f"document.body.dataset.counter !== {json.dumps(counter)} && "
                     "['you', 'over'].includes(document.body.dataset.state)", timeout=120)
    return clicks


# --------------------------------------------------------------------- tests
@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        if REQUIRED:
            pytest.fail("CITYZOO_REQUIRE_BROWSER=1 but no chromium on PATH")
        pytest.skip("no chromium on PATH")
    for module in ("websocket", "starlette", "uvicorn"):   # the "web" extra
        if REQUIRED:
            __import__(module)
        else:
            pytest.importorskip(module, reason='the "web" extra is not installed')
    b = Browser()
    yield b
    b.close()


@pytest.fixture(scope="module")
def server(browser):
    s = Server()
    yield s
    s.close()


pytestmark = pytest.mark.slow


def test_play_a_game_by_clicking_until_the_final_scores(browser, server):
    start_game(browser, server, "kingdomino_duel_v0", opponents=["random"])
    assert browser.js("document.querySelectorAll('#legal button.cz-move').length") > 0
    assert browser.js("document.querySelector('#picture svg') !== null")
    # The record (seed and every move) is offered only once the game is over.
    assert browser.js("document.getElementById('download-box').hidden") is True
    assert browser.js("document.getElementById('download').getAttribute('href')") == "#"
    clicks = play_by_clicking(browser)
    assert clicks > 20
    assert browser.js("document.getElementById('final').hidden") is False
    rows = browser.js("[...document.querySelectorAll('#final-table tr.final-row')]"
                      ".map(r => [...r.cells].map(c => c.textContent))")
    assert [row[1] for row in rows] == ["you", "random"]
    # The page's scores are the game's: the downloaded record replays to them.  The page
    # fetches it (a game is served only to the browser that started it: its cookie).
    assert browser.js("document.getElementById('download-box').hidden") is False
    href = browser.js("document.getElementById('download').href")
    record = json.loads(browser.js(f"fetch({json.dumps(href)}).then(r => r.text())"))
    with pytest.raises(urllib.error.HTTPError) as refused:   # without the cookie: not yours
        urllib.request.urlopen(href, timeout=30)
    assert refused.value.code == 404
    from envs import records
    env = records.replay(record)
    assert [int(row[2]) for row in rows] == env.scores()
    assert [int(row[3]) for row in rows] == env.infos["player_0"]["ranks"]
    assert browser.js("document.querySelectorAll('#moves li').length") == len(record["actions"])


def test_the_setup_form_reads_well(browser, server):
    """Game titles and option labels in the form, and a number box wide enough for its
    placeholder."""
    browser.open(f"{server.url}/")
    browser.wait("document.body.dataset.ready === '1'")
    titles = browser.js("[...document.getElementById('game').options].map(o => o.textContent)")
    assert titles[:2] == ["Kingdomino Duel", "Tiny Towns"]
    browser.js("""(() => { const g = document.getElementById("game"); g.value = "tiny_towns_v0";
        g.dispatchEvent(new Event("change")); })()""")
    label = browser.js("document.querySelector('[data-option=\"first_player\"]').parentElement.textContent")
    assert label.startswith("First player")
    fits = browser.js("""(() => { const box = document.querySelector('[data-option="first_player"]');
        const probe = document.createElement("span"); probe.style.font = getComputedStyle(box).font;
        probe.textContent = box.placeholder; document.body.append(probe);
        const room = box.clientWidth - probe.offsetWidth; probe.remove(); return room; })()""")
    assert fits > 0, "the first_player box is narrower than its placeholder"


def test_clicking_the_board_plays_the_move(browser, server):
    start_game(browser, server, "kingdomino_duel_v0", opponents=["random"])
    before = browser.js("document.body.dataset.counter")
    action = browser.js("document.querySelector('#picture .cz-action').dataset.action")
    label = browser.js(f"document.querySelector('#legal button[data-action=\"{action}\"]').textContent")
    browser.click("#picture .cz-action")
    browser.wait(f"document.body.dataset.counter !== {json.dumps(before)}")
    assert browser.js(f"document.querySelector('#moves li:nth-child({int(before) + 1})').textContent") \
        == f"you: {label}"


def test_the_viewer_steps_with_the_arrow_keys(browser, tmp_path):
    from envs import records
    from envs.view import main
    from test_viewer import random_record

    record = random_record("tiny_towns_v0", seed=5, num_players=2)
    path, page = tmp_path / "game.json", tmp_path / "game.html"
    records.save(record, path)
    assert main([str(path), "-o", str(page)]) == 0
    browser.open(page.as_uri())
    assert browser.js("document.getElementById('counter').textContent") == \
        f"move 0 / {len(record['actions'])}"
    first = browser.js("document.getElementById('picture').innerHTML")
    browser.press("ArrowRight", 39)
    browser.press("ArrowRight", 39)
    assert browser.js("document.getElementById('counter').textContent").startswith("move 2 /")
    assert browser.js("document.querySelector('#moves li.current').textContent").endswith(record["labels"][1])
    assert browser.js("document.getElementById('picture').innerHTML") != first
    browser.press("ArrowLeft", 37)
    assert browser.js("document.getElementById('counter').textContent").startswith("move 1 /")
    browser.click("#moves li:nth-child(5)")
    assert browser.js("document.getElementById('slider').value") == "5"
    # A seat's view: every move as that seat saw it played, no score chart.
    browser.js("(() => { const s = document.getElementById('seat'); s.value = '0';"
               " s.dispatchEvent(new Event('change')); })()")
    items = browser.js("[...document.querySelectorAll('#moves li')].map(li => li.textContent)")
    moves = embedded_moves(page)
    for text, move, label in zip(items, moves, record["labels"]):
        assert text.endswith(move["seen"][0])
        assert move["seat"] != 0 or move["seen"][0] == label
    assert browser.js("document.getElementById('chart').innerHTML") == ""


def test_the_viewer_shows_the_exact_seed_and_one_colour_per_seat(browser, tmp_path):
    from envs import records
    from envs.view import main
    from test_viewer import random_record

    seed = 1234567890123209511            # above 2**53: a JavaScript number ends in ...209500
    players = ["greedy", "mcts"]
    record = random_record("kingdomino_duel_v0", seed=seed, players=players)
    path, page = tmp_path / "game.json", tmp_path / "game.html"
    records.save(record, path)
    assert main([str(path), "-o", str(page)]) == 0
    browser.open(page.as_uri())
    assert browser.js("document.getElementById('title').textContent").split("seed ")[1] == str(record["seed"])
    seen = set()
    for k, name in enumerate(players):
        # Kingdomino Duel's picture: the seat's disc, then its name in bold
        picture = browser.js(f"""(() => {{
            const t = [...document.querySelectorAll('#picture svg text')].find(e =>
                e.getAttribute('font-weight') === 'bold' && e.textContent.startsWith({json.dumps(name)}));
            return getComputedStyle(t.previousElementSibling).fill; }})()""")
        listed = browser.js(f"getComputedStyle(document.querySelector('#moves li .seat[data-seat=\"{k}\"]'))"
                            ".backgroundColor")
        charted = browser.js(f"getComputedStyle(document.querySelector('#chart polyline[data-seat=\"{k}\"]'))"
                             ".stroke")
        assert picture == listed == charted, (name, picture, listed, charted)
        seen.add(picture)
    assert len(seen) == 2
    # A seat's view keeps the final result back until the last position.
    browser.js("(() => { const s = document.getElementById('seat'); s.value = '1';"
               " s.dispatchEvent(new Event('change')); })()")
    assert browser.js("document.getElementById('final').hidden") is True
    browser.press("End", 35)
    assert browser.js("document.getElementById('final').hidden") is False


def embedded_moves(page):
    from test_viewer import embedded_data

    return embedded_data(page.read_text())["moves"]


# ---------------------------------------------------------------- screenshots
SCREENSHOT_GAMES = {   # game -> options of a short, readable example
    "kingdomino_duel_v0": {},
    "tiny_towns_v0": {"num_players": 2},
    "between_two_cities_v0": {"num_players": 3},
    "expancity_v0": {"num_players": 2},
    "smartphone_inc_v0": {"num_players": 2},
}


def take_screenshots(directory):
    """``play-<game>.png`` (the play page a few moves in) and ``view-<game>.png`` (the viewer
    in the middle of a recorded game) of every game, into ``directory``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_viewer import random_record
    from envs import records
    from envs.view import main as view_main

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    browser, server = Browser(width=1280, height=820), Server()
    try:
        for game, options in SCREENSHOT_GAMES.items():
            short = game.rsplit("_v", 1)[0]
            n = options.get("num_players", 2)
            start_game(browser, server, game, options=options, opponents=["greedy"] * (n - 1))
            for _ in range(4):   # a few moves in, so the table has something on it
                if browser.js("document.body.dataset.state") != "you":
                    break
                counter = browser.js("document.body.dataset.counter")
                browser.click("#legal button.cz-move")
                browser.wait(f"document.body.dataset.counter !== {json.dumps(counter)} && "
                             "['you', 'over'].includes(document.body.dataset.state)", timeout=120)
            browser.screenshot(directory / f"play-{short}.png")
            with tempfile.TemporaryDirectory() as tmp:
                record = random_record(game, seed=2, **options)
                records.save(record, Path(tmp) / "game.json")
                view_main([str(Path(tmp) / "game.json"), "-o", str(Path(tmp) / "game.html")])
                browser.open((Path(tmp) / "game.html").as_uri())
                for _ in range(len(record["actions"]) // 2):
                    browser.press("ArrowRight", 39)
                browser.screenshot(directory / f"view-{short}.png")
            print("screenshots of", game)
    finally:
        browser.close()
        server.close()


if __name__ == "__main__":
    if sys.argv[1:2] != ["--screenshots"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/test_browser.py --screenshots DIRECTORY")
    take_screenshots(sys.argv[2])
