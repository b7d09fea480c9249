"""Terminal play (python -m agents.play), used as a person would: through a pseudo-terminal,
answering the prompts (a bad answer, ?, an undo), to the end of a game; then the saved
record must replay to the scores the terminal showed."""
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents.apps import play
from envs import records

REPO = Path(__file__).resolve().parent.parent
PROMPT = r"Your move \((\d+)-(\d+), \? for help\): "


class Terminal:
    """A child process on a pseudo-terminal: ``send`` a line, ``expect`` a pattern."""

    def __init__(self, args, cwd):
        master, slave = os.openpty()
        env = dict(os.environ, TERM="dumb", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "agents.play", *args], cwd=cwd, env=env,
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.master, self.pending = master, ""

    def expect(self, pattern, timeout=90):
        """The text up to and including the first match of ``pattern`` (consumed), and the match."""
        regex, deadline = re.compile(pattern), time.monotonic() + timeout
        while True:
            match = regex.search(self.pending)
            if match:
                text, self.pending = self.pending[:match.end()], self.pending[match.end():]
                return text, match
            left = deadline - time.monotonic()
            ready = select.select([self.master], [], [], max(left, 0))[0]
            data = b""
            if ready:
                try:
                    data = os.read(self.master, 1 << 16)
                except OSError:   # EIO: the child closed the terminal
                    pass
            if not data:
                raise AssertionError(f"no {pattern!r} ({'timed out' if left <= 0 else 'exited'}); "
                                     f"last output:\n{self.pending[-3000:]}")
            self.pending += data.decode(errors="replace").replace("\r\n", "\n")

    def send(self, line):
        os.write(self.master, (line + "\n").encode())

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self.master)


def first_listed(prompt):
    """The answer that plays the first listed move: the lowest number of the prompt's range."""
    return re.search(r"\((\d+)-", prompt).group(1)


def _turn(text):
    """The last turn screen in ``text`` (from its ==== rule to the prompt) and its moves,
    ``[(number, label)]``."""
    screen = text[text.rindex("=" * 72):]
    moves = re.findall(r"^\s+(\d+)\. (.*)$", screen.split("Your legal moves:")[-1], re.M)
    return screen, [(int(number), label) for number, label in moves]


def test_play_a_game_through_a_terminal(tmp_path):
    saved = tmp_path / "game.json"
    term = Terminal(["--game", "kingdomino_duel_v0", "--opponents", "random", "--seed", "5",
                     "--save", str(saved)], cwd=REPO)
    try:
        text, match = term.expect(PROMPT)
        assert "you are player_0 (you) against player_1 (random)" in text
        screen, moves = _turn(text)
        assert moves and (moves[0][0], moves[-1][0]) == (int(match.group(1)), int(match.group(2)))
        assert "phase:" in screen and "Scores:" in screen

        term.send("seven")
        term.expect(r"'seven' is not a move: type a number of the list \(\d+-\d+\)")
        term.expect(PROMPT)
        term.send("?")
        term.expect(r"Commands:(.|\n)*u +undo")
        term.expect(PROMPT)
        term.send("u")
        term.expect("Nothing to undo")
        term.expect(PROMPT)

        chosen, undone = [], False
        while True:
            number, label = moves[(len(chosen) + undone) % len(moves)]   # vary the choices
            term.send(str(number))
            text, match = term.expect(PROMPT + "|Final scores: (?P<scores>.*)\n")
            assert f"You play: {label}" in text
            chosen.append(label)
            if match.group("scores") is not None:
                break
            if not undone and "player_1 (random) plays:" in text:
                # take the move back, with the opponent's reply: the screen before it returns
                term.send("u")
                text, _ = term.expect(PROMPT)
                assert re.search(rf"Undone: your move '{re.escape(chosen.pop())}' and the \d+ "
                                 r"move\(s\) after it\.", text)
                assert _turn(text)[0] == screen
                undone = True
            screen, moves = _turn(text)
        assert undone
        final_scores = match.group("scores")
        text, match = term.expect(r"Record saved to (\S+);")
        assert "Winners: " in text
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()

    record = records.load(match.group(1))
    assert Path(match.group(1)) == saved
    shown = [int(v) for v in re.findall(r"\) (-?\d+)", final_scores)]
    assert record["scores"] == shown and record["players"] == ["human", "random"]
    # the record replays to the shown scores, and the person's moves are the ones typed
    mine = []
    for index, env in records.replay_steps(record):
        if index < len(record["actions"]) and env.agent_selection == "player_0":
            mine.append(record["labels"][index])
    assert mine == chosen
    assert env.phase == "game_over" and env.scores() == shown


def test_undo_restores_the_exact_state():
    """Undo goes back to the state before the person's last move, the agents' replies
    taken back too: the kernel state is identical to the one the person saw."""
    seen, shown = [], []
    answers = iter(["1", "2", "1", "u", "q"])

    def read(prompt):
        seen.append((session.env.game_state(), len(session.record["actions"]), len(shown)))
        return next(answers)

    session = play.TerminalGame("tiny_towns_v0", ["random"], seed=4, options={"num_players": 2},
                                read=read, write=shown.append)
    session.run()
    # prompts: 0 "1", 1 "2", 2 "1" (the move undone), 3 "u", 4 "q"
    state_before, moves_before, _ = seen[2]
    state_undone, moves_undone, _ = seen[4]
    reply = "\n".join(map(str, shown[seen[2][2]:seen[3][2]]))
    assert "player_1 (random) plays:" in reply    # so the undo takes back an agent's move too
    assert "Undone: your move" in "\n".join(map(str, shown[seen[3][2]:seen[4][2]]))
    assert moves_undone == moves_before
    assert (state_undone == state_before).all()
    assert session.quit and session.record["ranks"] is None
    assert (records.replay(session.record).game_state() == state_undone).all()


def test_bad_command_lines_get_a_message(capsys):
    with pytest.raises(SystemExit, match="unknown agent 'nobody'"):
        play.main(["--game", "kingdomino_duel_v0", "--opponents", "nobody"])
    with pytest.raises(SystemExit, match="seat must be a seat in"):
        play.main(["--game", "kingdomino_duel_v0", "--opponents", "random", "--seat", "2"])
    with pytest.raises(SystemExit, match="unknown game"):
        play.main(["--game", "chess", "--opponents", "random"])
    with pytest.raises(SystemExit, match="bad JSON"):
        play.main(["--game", "tiny_towns_v0", "--env-options", "{oops"])
    with pytest.raises(SystemExit, match="2 opponents for 1 other seat"):
        play.main(["--game", "tiny_towns_v0", "--num-players", "2", "--opponents", "random", "random"])


def test_record_path():
    assert play.record_path(None, "tiny_towns_v0", 7) == Path("runs/games/tiny_towns_v0-7.json")
    assert play.record_path("out", "tiny_towns_v0", 7) == Path("out/tiny_towns_v0-7.json")
    assert play.record_path("a/b.jsonl", "tiny_towns_v0", 7) == Path("a/b.jsonl")


def test_second_seat_and_solo_games_play_to_the_end(tmp_path):
    """Seat 1 against an agent, and a solo game without opponents, answered by a script that
    always takes the first listed move: the saved record holds exactly those moves."""
    for argv, human in ((["--game", "kingdomino_duel_v0", "--opponents", "random", "--seat", "1"],
                         "player_1"),
                        (["--game", "tiny_towns_v0"], "player_0")):
        shown = []
        path = tmp_path / f"{argv[1]}.json"
        record = play.main(argv + ["--seed", "3", "--save", str(path)],
                           read=first_listed, write=shown.append)
        text = "\n".join(map(str, shown))
        assert "Final scores: " in text and f"Record saved to {path}" in text
        assert records.load(path) == record and record["ranks"] is not None
        for index, env in records.replay_steps(record):
            if index < len(record["actions"]) and env.agent_selection == human:
                assert record["actions"][index] == next(iter(play.numbered_moves(env).values()))
    assert record["players"] == ["human"] and "title: " in text   # Tiny Towns' solo title


def test_the_table_shows_what_only_the_person_knows():
    """The person's screen has its own hidden holdings (Tiny Towns: the dealt monuments, then
    the kept one) and never the opponent's."""
    from kernels import tiny_towns as K
    shown = []
    answers = iter(["1", "q"])
    session = play.TerminalGame("tiny_towns_v0", ["random"], seed=3, options={"num_players": 2},
                                read=lambda prompt: next(answers), write=shown.append)
    session.run()
    state = session.env.unwrapped.game_state()

    def monuments(p):
        b = K._player_base(p)
        return [K.CARD_NAMES[int(m)] for m in state[b + K.O_DEALT: b + K.O_DEALT + 2] if m >= 0]

    screens = "\n".join(map(str, shown)).split("=" * 72)[1:]
    first, second = screens[0], screens[1]
    # each dealt monument with its pattern (rows of the data, cells spaced, rows split by " / ")
    dealt = [f"{name} (pattern {' / '.join(' '.join(row) for row in K.PATTERNS[K.CARD_NAMES.index(name)])})"
             for name in monuments(0)]
    assert "Only you know:" in first and "dealt monuments (keep one): " + ", ".join(dealt) in first
    kept = K.CARD_NAMES[int(state[K._player_base(0) + K.O_KEPT])]
    assert f"secret monument: {kept}" in second
    assert not any(name in first + second for name in monuments(1))


def test_the_seed_is_shown_only_at_the_end_unless_given(tmp_path, monkeypatch):
    """Without --seed the seed (which fixes every hidden card) is drawn from the OS, 63 bits,
    and shown only once the game is over (here: quit at once); a given seed is shown at the start."""
    monkeypatch.chdir(tmp_path)
    seeds = []
    for _ in range(3):
        shown = []
        record = play.main(["--game", "kingdomino_duel_v0", "--opponents", "random", "--seat", "1"],
                           read=lambda prompt: "q", write=shown.append)
        seed = record["seed"]
        seeds.append(seed)
        assert 0 <= seed < 2**63
        first, text = str(shown[0]), "\n".join(map(str, shown))
        assert "seed" not in first and str(seed) not in first
        ended = text.index("You quit")
        assert str(seed) not in text[:ended]
        assert f"The game's seed was {seed}." in text[ended:]
    assert max(seeds) >= 2**31   # 63 bits, not 31 (all three below: a chance of 2**-96)
    shown = []
    play.main(["--game", "kingdomino_duel_v0", "--opponents", "random", "--seed", "77"],
              read=lambda prompt: "q", write=shown.append)
    assert "seed 77" in str(shown[0])


def test_agent_seeds_are_derived_independently():
    from agents.base import seat_seeds

    session = play.TerminalGame("tiny_towns_v0", ["random", "random"], seat=1, seed=40,
                                options={"num_players": 3}, read=lambda p: "q", write=lambda t: None)
    expected = seat_seeds(40, 3)
    assert [b.seed for b in session.bots if b is not None] == [expected[0], expected[2]]
    # not seed + k: the seeds of neighbouring games and seats share nothing
    near = {s for g in range(38, 43) for s in seat_seeds(g, 3)}
    assert len(near) == 15 and not near & set(range(30, 50))
    assert all(0 <= s < 2**63 for s in near) and max(near) >= 2**62
    assert seat_seeds(40, 3) == expected   # the same seed, the same seeds
    with pytest.raises(ValueError, match="game_seed"):
        seat_seeds(1.5, 2)


def _drive_until(session, want, seed, limit=2000):
    """Random moves for every seat of ``session``'s game until ``want(env)`` holds on the
    person's turn; the env there (or None after ``limit`` moves)."""
    import numpy as np
    rs = np.random.default_rng(seed)
    env = session.env
    for _ in range(limit):
        if env.phase == "game_over":
            return None
        if env.agent_selection == env.possible_agents[session.seat] and want(env):
            return env
        env.step(int(rs.choice(env.legal_actions())))
    return None


def _board_numbers(lines, header):
    """{square number: cell text} read off one board of the terminal table: ``header`` is the
    line of column offsets/numbers, the rows under it start with the number of their first
    square; square = row's number + column's number."""
    cols = [(m.start(), int(m.group(1))) for m in re.finditer(r"\+?(\d+)", header)]
    out = {}
    for line in lines:
        first = int(line[:cols[0][0]].replace(":", "").split()[-1])
        for i, (start, offset) in enumerate(cols):
            end = cols[i + 1][0] if i + 1 < len(cols) else None
            out[first + offset] = line[start:end].strip()
    return out


def test_tiny_towns_squares_are_numbered_on_the_board_and_in_the_menu():
    """Issue: menu numbers drifted from square numbers ("6. SQUARE 5").  A move onto one square
    is listed under the number the board prints on that square; other moves after 15."""
    from kernels import tiny_towns as K
    shown = []
    session = play.TerminalGame("tiny_towns_v0", ["random"], seed=2, options={"num_players": 2},
                                write=shown.append)
    env = _drive_until(session, lambda e: any(K.ACTIONS.decode(a)[0] == "square" for a in e.legal_actions()), 2)
    assert env is not None
    menu = play.numbered_moves(env)
    for number, action in menu.items():
        block, i = K.ACTIONS.decode(action)
        if block == "square":
            assert number == i and env.action_label(action) == f"SQUARE {number}"
        else:
            assert number >= 16
    # the board: every square's text where its printed number says, read off the table
    text = env.text(observer=0).splitlines()
    state = env.game_state()
    b = K._player_base(0)
    at = text.index(next(line for line in text if line.startswith("player_0:")))
    board = _board_numbers(text[at + 2:at + 6], text[at + 1])
    assert sorted(board) == list(range(16))
    for q, cell in board.items():
        cube, card = int(state[b + K.O_CUBE + q]), int(state[b + K.O_BUILDING + q])
        expected = "." if cube < 0 and card < 0 else ("whbgs"[cube] if card < 0 else None)
        assert expected is None or cell == expected, (q, cell)
    # typing a square's number plays that square
    square = min(n for n, a in menu.items() if K.ACTIONS.decode(a)[0] == "square")
    answers = iter([str(square)])
    session.read = lambda prompt: next(answers)
    session.human_turn()
    assert session.record["actions"][-1] == K.A_SQUARE + square
    assert f"You play: SQUARE {square}" in shown[-1]


def test_kingdomino_cells_are_numbered_on_the_map_and_in_the_menu():
    """A CELL move (split, add a cross) is listed under the cell's number, which the map prints
    as its row's first number plus its column; PLACE moves (several per cell) keep 1, 2, 3..."""
    from kernels import kingdomino_duel as K
    for seed in range(3, 12):
        session = play.TerminalGame("kingdomino_duel_v0", ["random"], seed=seed, write=lambda line: None)
        env = _drive_until(session, lambda e: any(K.ACTIONS.decode(a)[0] == "cell" for a in e.legal_actions()),
                           seed)
        if env is not None:
            break
    assert env is not None, "no CELL decision for the person in nine games"
    menu = play.numbered_moves(env)
    for number, action in menu.items():
        block, i = K.ACTIONS.decode(action)
        if block == "cell":
            assert number == i and env.action_label(action).startswith(f"CELL({i // K.COLS},{i % K.COLS})")
        else:
            assert number >= K.NUM_CELLS
    text = env.text().splitlines()
    at = next(k for k, line in enumerate(text) if line.startswith("player_0 (score"))
    header = text[at + 1][:40]
    board = _board_numbers([line[:40] for line in text[at + 2:at + 2 + K.ROWS]], header)
    assert sorted(board) == list(range(K.NUM_CELLS))
    state = env.game_state()
    for c, cell in board.items():
        f = int(state[K.MAP_FAMILY + c])
        assert cell.startswith("CC" if f == K.CASTLE_CODE else "." if f < 0 else str(f)), (c, cell)
    # before any such move the menu is numbered 1, 2, 3, ...
    fresh = play.TerminalGame("kingdomino_duel_v0", ["random"], seed=3, write=lambda line: None)
    assert list(play.numbered_moves(fresh.env)) == list(range(1, len(fresh.env.legal_actions()) + 1))
