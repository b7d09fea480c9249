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

from agents import play
from envs import records

REPO = Path(__file__).resolve().parent.parent
PROMPT = r"Your move \(1-(\d+), \? for help\): "


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


def _turn(text):
    """The last turn screen in ``text`` (from its ==== rule to the prompt) and its numbered moves."""
    screen = text[text.rindex("=" * 72):]
    moves = re.findall(r"^\s+(\d+)\. (.*)$", screen.split("Your legal moves:")[-1], re.M)
    return screen, [label for _, label in moves]


def test_play_a_game_through_a_terminal(tmp_path):
    saved = tmp_path / "game.json"
    term = Terminal(["--game", "kingdomino_duel_v0", "--opponents", "random", "--seed", "5",
                     "--save", str(saved)], cwd=REPO)
    try:
        text, match = term.expect(PROMPT)
        assert "you are player_0 (you) against player_1 (random)" in text
        screen, labels = _turn(text)
        assert len(labels) == int(match.group(1)) > 0 and "phase:" in screen and "Scores:" in screen

        term.send("seven")
        term.expect(r"'seven' is not a move: type a number from 1 to \d+")
        term.expect(PROMPT)
        term.send("?")
        term.expect(r"Commands:(.|\n)*u +undo")
        term.expect(PROMPT)
        term.send("u")
        term.expect("Nothing to undo")
        term.expect(PROMPT)

        chosen, undone = [], False
        while True:
            number = (len(chosen) + undone) % len(labels) + 1   # vary the choices
            term.send(str(number))
            text, match = term.expect(PROMPT + "|Final scores: (?P<scores>.*)\n")
            assert f"You play: {labels[number - 1]}" in text
            chosen.append(labels[number - 1])
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
            screen, labels = _turn(text)
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
                           read=lambda prompt: "1", write=shown.append)
        text = "\n".join(map(str, shown))
        assert "Final scores: " in text and f"Record saved to {path}" in text
        assert records.load(path) == record and record["ranks"] is not None
        for index, env in records.replay_steps(record):
            if index < len(record["actions"]) and env.agent_selection == human:
                assert record["actions"][index] == env.legal_actions()[0]
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
