"""Pictures of the tables (``envs/pictures``): the shared canvas, and for every game the SVG and
RGB pictures of random games -- well-formed, showing the phase and the scores, clickable only
on legal actions, and never showing a seat what it cannot see.

The cases come from the case table of ``envs.testing`` (every registered game); a game whose
picture writes scores otherwise than as the bare number adds its pattern to ``SCORE_TEXT``.
"""
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import envs
from envs import testing
from envs.pictures.canvas import Canvas, contrast, text_width

SVG = "{http://www.w3.org/2000/svg}"

# Every case of the case table (envs.testing): each player count the picture has to lay out,
# and the variants that may change what is drawn.
CASES = testing.cases()
# How each picture writes a seat's score.
SCORE_TEXT = {
    "kingdomino_duel_v0": "{} points",
    "tiny_towns_v0": "{} VP",
    "between_two_cities_v0": "{} points",
    "expancity_v0": "{} VP",
    "smartphone_inc_v0": "score {}",
}
SNAPSHOTS = 5          # states looked at per game, spread over the whole game


def strings(svg):
    """Every text and tooltip of an SVG document (parsing it checks it is well-formed)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and float(root.get("width")) > 0 and float(root.get("height")) > 0
    return [el.text or "" for el in root.iter() if el.tag in (f"{SVG}text", f"{SVG}title")]


def clickable_actions(svg):
    root = ET.fromstring(svg)
    found = [el for el in root.iter() if el.get("data-action") is not None]
    assert all("cz-action" in el.get("class", "").split() for el in found)
    return [int(el.get("data-action")) for el in found]


def play_to_end(env, seed, visit):
    """Random play; ``visit(raw_env, move)`` at the start and every few moves, and at the end."""
    rs = np.random.default_rng(seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    length = _game_length(env, seed)
    every = max(1, length // (SNAPSHOTS - 1))
    move = 0
    while not all(env.terminations.values()):
        if move % every == 0:
            visit(raw, move)
        env.step(int(rs.choice(raw.legal_actions())))
        move += 1
    visit(raw, move)


def _game_length(env, seed):
    twin = env.unwrapped.clone()
    rs = np.random.default_rng(seed)
    n = 0
    while not all(twin.terminations.values()):
        twin.step(int(rs.choice(twin.legal_actions())))
        n += 1
    return n


@pytest.mark.parametrize("case", **testing.params(CASES))
def test_pictures_of_random_games(case):
    """Every snapshot: omniscient and per-seat SVG parse, show the phase and every score,
    mark only legal actions; the raster has the picture's size; a seat's picture does not
    change when everything it cannot see is re-drawn (determinize)."""
    game = case.game
    env = case.make(render_mode="rgb_array")
    clicked = []

    def visit(raw, move):
        seats = raw.cfg.num_players
        over = all(raw.terminations.values())
        everything = raw.svg()
        texts = " | ".join(strings(everything))
        assert raw.phase in texts, f"move {move}: phase {raw.phase!r} not shown"
        for score in raw.scores():
            assert SCORE_TEXT.get(game, "{}").format(score) in texts, f"move {move}: score {score} not shown"
        picture = raw.render()
        root = ET.fromstring(everything)
        assert picture.dtype == np.uint8 and picture.shape == (int(root.get("height")), int(root.get("width")), 3)
        legal = set(raw.legal_actions())
        marked = clickable_actions(raw.svg(clickable=True))
        assert set(marked) <= legal and (not over or not marked)
        clicked.extend(marked)
        assert clickable_actions(everything) == []
        mover = None if over else raw._seat[raw.agent_selection]
        for seat in range(seats):
            view = raw.svg(observer=seat, clickable=True)
            marked = clickable_actions(view)
            assert set(marked) <= legal and (seat == mover or not marked), f"seat {seat} may click {marked}"
            if seat == mover:
                assert raw.phase in " | ".join(strings(view))
            hidden_redrawn = raw.determinize(seat, 1000 + move)
            assert hidden_redrawn.svg(observer=seat, clickable=True) == view, \
                f"move {move}: seat {seat}'s picture shows something it cannot see"

    play_to_end(env, 5, visit)
    assert clicked, "no picture of the game ever offered a clickable move"


def test_svg_arguments_are_checked():
    env = envs.make("tiny_towns_v0", num_players=2)
    with pytest.raises(AssertionError, match="reset"):
        env.unwrapped.svg()
    env.reset(seed=1)
    raw = env.unwrapped
    for bad in (2, -1, True, 0.0, "player_9", "0"):
        with pytest.raises(ValueError, match="observer"):
            raw.svg(observer=bad)
    with pytest.raises(ValueError, match="clickable"):
        raw.svg(clickable="yes")
    assert raw.svg(observer="player_1") == raw.svg(observer=1)


# ---------------------------------------------------------------- hidden information
def test_tiny_towns_secret_monuments_only_in_their_owners_view():
    from kernels import tiny_towns as K
    env = envs.make("tiny_towns_v0", num_players=2, monuments=True)
    env.reset(seed=3)
    raw = env.unwrapped

    def dealt(p):
        b = K._player_base(p)
        return [K.CARD_NAMES[int(m)] for m in raw._state[b + K.O_DEALT: b + K.O_DEALT + 2] if m >= 0]

    def shown(observer):
        return " | ".join(strings(raw.svg(observer=observer)))

    mine, theirs = dealt(0), dealt(1)
    assert len(mine) == len(theirs) == 2 and not set(mine) & set(theirs)
    for name in mine + theirs:
        assert name in shown(None)
    for name in theirs:
        assert name not in shown(0) and name in shown(1)
    for name in mine:
        assert name in shown(0) and name not in shown(1)
    while raw.phase == "keep":    # both keep their first card; the other one leaves the game
        env.step(K.A_KEEP)
    kept = {p: K.CARD_NAMES[int(raw._state[K._player_base(p) + K.O_KEPT])] for p in (0, 1)}
    assert kept[0] in shown(0) and kept[1] in shown(1) and set(kept.values()) <= set(mine + theirs)
    assert kept[1] not in shown(0) and kept[0] not in shown(1)
    assert kept[0] in shown(None) and kept[1] in shown(None)
    assert "monument: secret (face down)" in shown(0)


def test_tiny_towns_score_breakdown_adds_up_to_the_score():
    """Each town lists what every building and the empty squares score ("VP: Co 6, ..."):
    the parts add up to the seat's score, and every Cottage says whether it is fed."""
    env = envs.make("tiny_towns_v0", num_players=3)
    env.reset(seed=4)
    rs = np.random.default_rng(4)
    while not all(env.terminations.values()):
        env.step(int(rs.choice(env.unwrapped.legal_actions())))
    texts = strings(env.unwrapped.svg())
    breakdowns = []
    for i, text in enumerate(texts):   # "VP: Co 6, Fo 2," may go on in the next text
        if text.startswith("VP: "):
            breakdowns.append(text[4:] + (" " + texts[i + 1] if text.endswith(",") else ""))
    assert len(breakdowns) == 3
    for line, score in zip(breakdowns, env.unwrapped.scores()):
        assert sum(int(part.rsplit(" ", 1)[1]) for part in line.split(", ")) == score
    cottages = sum(t.startswith("square") and t.endswith(": Cottage") for t in texts)
    assert texts.count("fed") + texts.count("unfed") >= cottages


def test_between_two_cities_hands_only_in_their_owners_view():
    """In the duplex round a tile's name is unique to the hand holding it: seat 0 must not
    see a duplex only seat 1 holds, nor which tiles seat 1 has already picked."""
    from envs.pictures.between_two_cities import tile_words
    from kernels import between_two_cities as K
    env = envs.make("between_two_cities_v0", num_players=3)
    env.reset(seed=2)
    raw = env.unwrapped
    rs = np.random.default_rng(0)

    def hand(seat):   # the tiles a seat holds or has picked this turn
        st = raw._state
        return {t for t in range(K.NUM_TILE_CODES)
                if st[K.HANDS + seat * K.NUM_TILE_CODES + t] or t in st[K.CHOSEN + 2 * seat: K.CHOSEN + 2 * seat + 2]}

    while not (int(raw._state[K.ROUND]) == 1 and raw.phase == "pick" and raw.agent_selection == "player_2"):
        env.step(int(rs.choice(raw.legal_actions())))
    secret = sorted(t for t in hand(1) - hand(0) - hand(2) if t >= K.NUM_KINDS)
    picked = [int(t) for t in raw._state[K.CHOSEN + 2: K.CHOSEN + 4] if t >= 0]
    assert secret and len(picked) == 2           # seat 1 has picked; seat 2 has not yet
    everything = " | ".join(strings(raw.svg()))
    seat0 = " | ".join(strings(raw.svg(observer=0)))
    seat1 = " | ".join(strings(raw.svg(observer=1)))
    for t in secret:
        assert tile_words(t) in everything and tile_words(t) in seat1 and tile_words(t) not in seat0
    for t in set(picked) - hand(0) - hand(2):
        assert tile_words(t) not in seat0 and tile_words(t) in everything
    # seat 0 sees how many tiles the other two have picked, not which; the full view hides nothing
    assert seat0.count("of 2 picked, hidden") == 2 and "2 of 2 picked, hidden" in seat0
    assert "picked, hidden" not in everything


def test_kingdomino_question_mark_names_only_in_the_namers_view():
    from kernels import kingdomino_duel as K
    for seed in range(40):
        env = envs.make("kingdomino_duel_v0")
        env.reset(seed=seed)
        raw = env.unwrapped
        rs = np.random.default_rng(seed)
        while not all(env.terminations.values()):
            namer = int(raw._state[K.MOVER])
            if namer >= 0 and (raw._state[K.WILD_NAME + 2 * namer: K.WILD_NAME + 2 * namer + 2] >= 0).any():
                assert "? named" in " | ".join(strings(raw.svg()))
                assert "? named" in " | ".join(strings(raw.svg(observer=namer)))
                assert "? named" not in " | ".join(strings(raw.svg(observer=1 - namer)))
                return
            env.step(int(rs.choice(raw.legal_actions())))
    pytest.fail("no random game named a '?' face")


def _random_states(game, seed, every, **options):
    """The raw env of one random game at every ``every``-th move and at its end (copies)."""
    env = envs.make(game, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    rs = np.random.default_rng(seed)
    out, move = [], 0
    while not all(env.terminations.values()):
        if move % every == 0:
            out.append(raw.clone())
        env.step(int(rs.choice(raw.legal_actions())))
        move += 1
    return out + [raw]


def test_expancity_secret_contracts_only_in_their_holders_view():
    from kernels import expancity as K
    for raw in _random_states("expancity_v0", 5, 61, num_players=3):
        names = raw.cfg.info["contract_names"]
        shown = {viewer: " | ".join(strings(raw.svg(observer=viewer))) for viewer in (None, 0, 1, 2)}
        for seat in range(3):
            held = [names[c] for c in range(K.NUM_CONTRACTS) if raw._state[K.HELD + seat * K.NUM_CONTRACTS + c]]
            for viewer, texts in shown.items():
                for name in held:
                    assert (name in texts) == (viewer in (None, seat)), (name, seat, viewer)


def test_expancity_every_legal_move_is_clickable_in_the_movers_view():
    """Placements on empty cells, build and roof on tiles, gather / stop buttons, the drawn
    pairs: the mover's view offers every legal action, whatever the step of its turn."""
    steps = set()
    for raw in _random_states("expancity_v0", 8, 9, num_players=2):
        if all(raw.terminations.values()):
            continue
        mover = raw._seat[raw.agent_selection]
        assert sorted(set(clickable_actions(raw.svg(observer=mover, clickable=True)))) == \
            sorted(raw.legal_actions()), f"phase {raw.phase}"
        steps.add(raw.phase)
    assert {"place", "action", "roof", "contract_keep", "tile_keep"} <= steps


def test_smartphone_inc_plans_secret_until_revealed_and_clickable_but_geometry():
    """A company's plan in progress, and how far it got, shows in its own view only; every
    legal move but laying the top pad and placing a tile face up (chosen in the move list)
    is clickable."""
    from kernels import smartphone_inc as K
    geometry = set(range(K.A_ARRANGE, K.A_TILE_PICK)) | set(range(K.A_TILE_PLACE, K.A_TILE_PLACE + K.FACE_DOWN))
    decisions = set()
    for raw in _random_states("smartphone_inc_v0", 4, 5, num_players=2):
        if all(raw.terminations.values()):
            continue
        mover = raw._seat[raw.agent_selection]
        legal = set(raw.legal_actions())
        assert legal - set(clickable_actions(raw.svg(observer=mover, clickable=True))) <= geometry
        decisions.add(raw.phase)
        if raw.phase in ("sides", "arrange", "tile_pick", "tile_place"):
            other = " | ".join(strings(raw.svg(observer=1 - mover)))
            assert raw.phase not in other and "phase: planning" in other and "secret plan" in other
            if raw.phase != "sides":    # the mover's plan is laid out, in its own view only
                assert "plan (in progress, secret)" in strings(raw.svg(observer=mover))
                assert "plan (in progress, secret)" in strings(raw.svg())
                assert "plan (in progress, secret)" not in other
    assert {"sides", "tile_pick", "tile_place", "improve_pick", "research", "logistics"} <= decisions


def test_smartphone_inc_solo_picture_names_steve_and_the_winner():
    from kernels import smartphone_inc as K
    raw = _random_states("smartphone_inc_v0", 2, 1000, num_players=1)[-1]
    steve = int(raw._state[K.STEVE])
    ranks = np.zeros(2, dtype=np.int64)
    K.ranks(raw._state, ranks)
    texts = " | ".join(strings(raw.svg()))
    assert f"Steve ({K.COLOURS[int(raw._state[K.company_base(steve) + K.C_COLOUR])]})" in texts
    assert f"score {int(K.total_score(raw._state, steve))}" in texts
    assert f"won by {'Steve' if ranks[steve] == 1 else 'player_0'}" in texts


# ---------------------------------------------------------------------- the canvas
def test_canvas_svg_escapes_text_and_marks_actions():
    c = Canvas(120, 80, background="#ffffff")
    c.rect(10, 10, 40, 30, fill="#ff0000", stroke="#000000", rx=4, action=7, title='a <b> & "c"')
    c.rect(60, 10, 20, 20, stroke="#000000", action=8)
    c.text(60, 70, "1 < 2 & 3 > 2", size=14, anchor="middle", bold=True)
    root = ET.fromstring(c.to_svg())
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("120", "80", "0 0 120 80")
    rects = [el for el in root.iter(f"{SVG}rect") if el.get("data-action")]
    assert [r.get("data-action") for r in rects] == ["7", "8"]
    assert rects[0].find(f"{SVG}title").text == 'a <b> & "c"'
    assert rects[1].get("fill") == "none" and rects[1].get("pointer-events") == "all"
    text = root.find(f"{SVG}text")
    assert text.text == "1 < 2 & 3 > 2" and text.get("text-anchor") == "middle"
    assert text.get("font-weight") == "bold" and text.get("pointer-events") == "none"
    assert c.actions() == [7, 8] and "1 < 2 & 3 > 2" in c.texts()


def test_canvas_raster_draws_the_same_shapes():
    c = Canvas(100, 60, background="#ffffff")
    c.rect(10, 10, 30, 20, fill="#ff0000")
    c.circle(70, 20, 8, fill="#0000ff")
    c.line(0, 50, 100, 50, "#00ff00", width=3)
    c.polygon([(80, 40), (95, 40), (95, 55)], fill="#000000")
    img = c.to_rgb()
    assert img.shape == (60, 100, 3) and img.dtype == np.uint8
    assert tuple(img[20, 25]) == (255, 0, 0) and tuple(img[20, 70]) == (0, 0, 255)
    assert tuple(img[50, 5]) == (0, 255, 0) and tuple(img[5, 5]) == (255, 255, 255)
    assert c.to_rgb(scale=2).shape == (120, 200, 3)
    blank = Canvas(100, 30).to_rgb()
    t = Canvas(100, 30)
    t.text(5, 20, "Cottage", size=16)
    assert (t.to_rgb() != blank).any()


def test_canvas_rejects_bad_arguments():
    c = Canvas(10, 10)
    for call, word in ((lambda: c.rect(0, 0, 5, 5, fill="red"), "fill"),
                       (lambda: c.circle(0, 0, 2, stroke="#12345"), "stroke"),
                       (lambda: c.text(0, 0, "x", anchor="left"), "anchor"),
                       (lambda: c.polygon([(0, 0), (1, 1)]), "points"),
                       (lambda: c.rect(0, 0, 5, 5, action=-1), "action"),
                       (lambda: c.rect(float("nan"), 0, 5, 5), "x"),
                       (lambda: c.to_rgb(scale=0), "scale"),
                       (lambda: Canvas(0, 10), "width")):
        with pytest.raises(ValueError, match=word):
            call()
    assert c.shapes == []


def test_fit_text_and_contrast():
    c = Canvas(200, 40)
    size = c.fit_text(0, 20, "Grand Mausoleum of the Rodina", 60, size=14)
    shown = c.texts()[0]
    assert text_width(shown, size) <= 60 and shown.endswith("...") and size >= 8
    assert contrast("#ffffff") == "#000000" and contrast("#202020") == "#ffffff"
    assert re.fullmatch(r"#[0-9a-f]{6}", contrast("#E6C832"))
