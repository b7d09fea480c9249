"""Play a game against agents in the terminal.

    python -m agents.play --game tiny_towns_v0 --opponents mcts greedy \\
        [--num-players N] [--seat K] [--seed S] [--env-options JSON] \\
        [--agent-options JSON] [--trust-pickle] [--save DIR|FILE]

You play seat ``--seat`` (default 0); the opponents, agents named as ``agents.make`` knows
them (``random``, ``greedy``, ``mcts``, ...), play the other seats in order.  Their number
fixes the player count unless ``--num-players`` is given (the list is then repeated to
fill the seats); no opponents at all is a solo game where the game has one.

On your turn the table is shown as your seat sees it (``env.text(observer=seat)``: the
public table, then what only you know -- your hidden hand, secret cards or the choices of
a move not yet revealed), with whose turn it is, the phase, the scores and your legal
moves, numbered (a move on one square of a board by the number the table prints on that
square, see :func:`numbered_moves`).  Type a move's number to play it, ``?``
for help, ``l`` to show the table and moves again, ``u`` to take back your last move
(with the agents' moves after it), ``q`` to quit.  The agents' moves are printed as they
are played, as your seat sees them: a secret choice (a kept card, a pick) shows as its
phase only (``env.action_label(action, observer=seat)``).  At the end the final scores and the winners are shown and the game's record
(:mod:`envs.records`) is saved: ``--save FILE`` (``.json``), ``--save DIR`` (as
``DIR/<game>-<seed>.json``) or by default ``runs/games/<game>-<seed>.json``.  A game you
quit is saved too, unfinished.

Without ``--seed`` the game's seed is drawn from the operating system (63 bits) and shown
only when the game ends: the seed fixes every hidden card and future draw, so knowing it
during the game would show them all.  Each agent's seed is derived from the game's seed
(:func:`agents.base.seat_seeds`).  ``--trust-pickle`` lets a ``policy`` agent load a
policy file that needs unpickling (docs/security.md).
"""
from __future__ import annotations

import sys
from pathlib import Path

import agents
import envs
from agents.base import new_game_seed, seat_seeds
from agents.cli import AgentFailure, Blamed
from envs import records
from envs.spec import as_seat

HELP = """\
Commands:
  NUMBER  play the move with that number in the list
  l       show the table and your legal moves again
  u       undo: take back your last move and the agents' moves after it
  ?       this help
  q       quit (the unfinished game's record is saved)"""


def numbered_moves(env):
    """{number: action} of the legal moves, as the terminal lists them.  A move naming one
    board square alone gets the number the table prints on that square (when no two moves
    name the same one); the other moves follow from the board's size on.  Without such moves:
    1, 2, 3, ..."""
    raw = env.unwrapped
    legal = env.legal_actions()
    state = raw.game_state()
    squares = [raw.spec.action_square(state, raw.cfg, a) for a in legal]
    named = [s for s in squares if s is not None]
    if not named or len(set(named)) < len(named):
        return dict(enumerate(legal, 1))
    others = iter(range(raw.spec.board_squares, raw.spec.board_squares + len(legal)))
    return dict(sorted((next(others) if s is None else s, a) for s, a in zip(squares, legal)))


class TerminalGame:
    """One game between a person at ``seat`` and agents, driven through ``read``/``write``
    (``input``/``print`` by default, replaceable for other front ends)."""

    def __init__(self, game, opponents, seat=0, seed=0, options=None, agent_options=None,
                 read=input, write=print):
        options = {k: v for k, v in (options or {}).items() if k != "render_mode"}
        self.env = envs.make(game, render_mode="ansi", **options)
        self.num_players = len(self.env.possible_agents)
        self.seat = as_seat(seat, self.num_players, "seat")
        self.read, self.write = read, write
        agent_options = dict(agent_options or {})
        others = [s for s in range(self.num_players) if s != self.seat]
        if others and not opponents:
            raise ValueError(f"{game} with {self.num_players} players needs opponents")
        if len(opponents) > len(others):
            raise ValueError(f"{len(opponents)} opponents for {len(others)} other seat(s); "
                             "use --num-players to seat more")
        agent_seeds = seat_seeds(seed, self.num_players)
        self.names = ["you"] * self.num_players
        self.bots = [None] * self.num_players
        for k, s in enumerate(others):
            name = opponents[k % len(opponents)]
            self.names[s] = name
            # an agent's error is one line naming it (agents.cli.AgentFailure)
            self.bots[s] = Blamed(agents.make(name, **{"seed": agent_seeds[s],
                                                       **agent_options.get(name, {})}), name)
        self.record = records.new_record(game, options, seed,
                                         players=["human" if b is None else n
                                                  for n, b in zip(self.names, self.bots)])
        self.movers = []   # the seat that played each recorded action
        self.env.reset(seed=seed)
        for bot in {id(b): b for b in self.bots if b is not None}.values():
            if hasattr(bot, "reset"):
                bot.reset()
            if hasattr(bot, "warm_up"):
                bot.warm_up(self.env)
        self.quit = False

    # ------------------------------------------------------------------ display
    def who(self, seat):
        return f"{self.env.possible_agents[seat]} ({self.names[seat]})"

    def scores_line(self):
        return ", ".join(f"{self.who(s)} {v}" for s, v in enumerate(self.env.scores()))

    def show_turn(self):
        env = self.env
        self.write("\n" + "=" * 72)
        self.write(env.text(observer=self.seat))
        self.write(f"Move {len(self.record['actions']) + 1}: your turn, {self.who(self.seat)}; "
                   f"phase: {env.phase}")
        self.write(f"Scores: {self.scores_line()}")
        self.write("Your legal moves:")
        for number, action in numbered_moves(env).items():
            self.write(f"  {number:3d}. {env.action_label(action)}")

    # ----------------------------------------------------------------- playing
    def play(self, seat, action):
        label = self.env.action_label(action)
        records.add_action(self.record, self.env, action)
        self.movers.append(seat)
        self.env.step(action)
        return label

    def agent_turn(self, seat):
        """An agent's move, described as the person's seat sees it played (a secret choice
        shows as its phase only)."""
        action = int(self.bots[seat].act(self.env, self.env.possible_agents[seat]))
        seen = self.env.action_label(action, observer=self.seat)
        self.play(seat, action)
        self.write(f"{self.who(seat)} plays: {seen}")

    def human_turn(self):
        """Ask until a move is played, the last move is undone or the player quits."""
        self.show_turn()
        menu = numbered_moves(self.env)
        numbers = f"{min(menu)}-{max(menu)}"
        while True:
            try:
                text = self.read(f"Your move ({numbers}, ? for help): ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                text = "q"
            if text in ("q", "quit", "exit"):
                self.quit = True
                return
            if text in ("?", "h", "help"):
                self.write(HELP)
            elif text in ("l", "list"):
                self.show_turn()
            elif text in ("u", "undo"):
                if self.undo():
                    return
            elif text.isascii() and text.isdigit() and int(text) in menu:
                label = self.play(self.seat, menu[int(text)])
                self.write(f"You play: {label}")
                return
            else:
                self.write(f"{text!r} is not a move: type a number of the list ({numbers}), "
                           "or ? for help.")

    def undo(self):
        """Take back the person's last move and every move after it, by replaying the record
        up to it (the exact earlier state).  False when there is nothing to undo."""
        mine = [i for i, s in enumerate(self.movers) if s == self.seat]
        if not mine:
            self.write("Nothing to undo: you have not moved yet.")
            return False
        keep = mine[-1]
        taken = self.record["labels"][keep:]
        self.record = records.truncated(self.record, keep)
        self.movers = self.movers[:keep]
        # the person's own game: the files its options name were opened at the start
        self.env = records.replay(self.record, render_mode="ansi", allow_files=True)
        self.write(f"Undone: your move {taken[0]!r}"
                   + (f" and the {len(taken) - 1} move(s) after it." if len(taken) > 1 else "."))
        return True

    def run(self):
        """Play until the game ends or the person quits; returns the record (finished)."""
        try:
            while not self.quit and self.env.phase != "game_over":
                seat = self.env.possible_agents.index(self.env.agent_selection)
                if seat == self.seat:
                    self.human_turn()
                else:
                    self.agent_turn(seat)
        except KeyboardInterrupt:   # Ctrl-C while an agent thinks: quit, keep the record
            self.quit = True
        records.finish(self.record, self.env)
        if self.quit:
            self.write(f"\nYou quit after {len(self.record['actions'])} moves. "
                       f"Scores so far: {self.scores_line()}")
            return self.record
        self.write("\n" + "=" * 72)
        self.write(self.env.text(observer=self.seat))
        self.write("Game over.")
        self.write(f"Final scores: {self.scores_line()}")
        winners = [self.who(s) for s in self.record["winners"]]
        self.write("Winners: " + (", ".join(winners) if winners
                                  else "none (an automaton finished first)"))
        info = self.env.infos[self.env.possible_agents[self.seat]]
        for key, value in info.items():   # a game's own extras, e.g. a solo title
            if key not in ("scores", "winners", "ranks", "end_reason"):
                self.write(f"{key}: {value}")
        return self.record


def record_path(save, game, seed):
    """Where ``--save`` puts the record: a ``.json``/``.jsonl`` path as given, a directory
    gets ``<game>-<seed>.json``, nothing gives ``runs/games/<game>-<seed>.json``."""
    if save and Path(save).suffix.lower() in (".json", ".jsonl"):
        return Path(save)
    return Path(save or Path("runs") / "games") / f"{game}-{seed}.json"


def trusting_pickle(agent_options, names):
    """``agent_options`` with ``trust_pickle=True`` added for every ``policy`` agent among
    ``names`` (``--trust-pickle``); an explicit ``trust_pickle`` option is kept."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in agent_options.items()}
    if "policy" in names:
        out["policy"] = {"trust_pickle": True, **out.get("policy", {})}
    return out


def build_parser():
    from envs import cli

    parts = __doc__.split("\n\n")
    p = cli.ArgumentParser(prog="python -m agents.play", description=parts[0],
                           epilog="\n\n".join(parts[2:]))
    p.add_argument("--game", required=True, type=cli.game_id, help="game id (see envs.GAMES)")
    p.add_argument("--opponents", nargs="*", default=[], metavar="AGENT",
                   help="agents for the other seats, in seat order (random, greedy, mcts, ...)")
    p.add_argument("--num-players", type=cli.positive_int, default=None,
                   help="seats (default: you plus one per opponent)")
    p.add_argument("--seat", type=cli.non_negative_int, default=0,
                   help="the seat you play, from 0 (default 0)")
    p.add_argument("--seed", type=int, default=None,
                   help="game seed (default: a random one, shown when the game ends)")
    p.add_argument("--env-options", type=cli.json_object, default={},
                   help="JSON: game options (variants)")
    p.add_argument("--agent-options", type=cli.json_object, default={},
                   help='JSON: agent name -> constructor options, e.g. \'{"mcts": {"simulations": 200}}\'')
    p.add_argument("--trust-pickle", action="store_true",
                   help="let policy agents load files that need unpickling (SB3 zips without "
                        "their policy.json): only for files you trust, as unpickling runs code")
    p.add_argument("--save", default=None, metavar="DIR|FILE",
                   help="where to save the record (default runs/games/<game>-<seed>.json)")
    return p


def check_arguments(args, prog="python -m agents.play"):
    """The game's options and player count, the seat, the opponents and their options,
    checked before the game starts (a refusal: one line, exit 2).  Returns
    ``(options, agent_options)``."""
    from agents import cli as agent_cli
    from envs import cli

    options = dict(args.env_options)
    if args.num_players is not None:
        options["num_players"] = args.num_players
    elif args.opponents or "num_players" not in options:
        options["num_players"] = len(args.opponents) + 1
    cfg = cli.check_game_options(args.game, options, prog)
    try:
        as_seat(args.seat, cfg.num_players, "seat")
    except ValueError as exc:
        cli.fail(f"--seat: {exc}", prog)
    others = cfg.num_players - 1
    if others and not args.opponents:
        cli.fail(f"{args.game} with {cfg.num_players} players needs --opponents", prog)
    if len(args.opponents) > others:
        cli.fail(f"{len(args.opponents)} opponents for {others} other seat(s); use "
                 "--num-players to seat more", prog)
    agent_cli.check_agent_names(args.opponents, prog, "--opponents")
    agent_options = dict(args.agent_options)
    unknown = sorted(set(agent_options) - set(args.opponents))
    if unknown:
        cli.fail(f"--agent-options names agent(s) {unknown} that are not among the opponents", prog)
    if args.trust_pickle:
        agent_options = trusting_pickle(agent_options, args.opponents)
    agent_cli.check_agents_build([(name, name, agent_options.get(name, {}))
                                  for name in dict.fromkeys(args.opponents)], prog)
    return options, agent_options


def main(argv=None, read=input, write=print):
    from agents import cli as agent_cli
    from envs import cli

    prog = "python -m agents.play"
    args = build_parser().parse_args(argv)
    options, agent_options = check_arguments(args, prog)
    seed = args.seed if args.seed is not None else new_game_seed()
    agent_cli.say(agent_cli.compile_notice(args.opponents, args.game))
    try:
        session = TerminalGame(args.game, args.opponents, seat=args.seat, seed=seed,
                               options=options, agent_options=agent_options,
                               read=read, write=write)
    except (TypeError, ValueError) as exc:   # TypeError: an option the agent does not take
        cli.fail(f"cannot start the game: {exc}", prog)
    except AgentFailure as exc:
        cli.fail(exc, prog, status=1)
    # The seed shows every hidden card: only a seed the person chose is shown before the end.
    shown_seed = f", seed {seed}" if args.seed is not None else ""
    write(f"{args.game}{shown_seed}: you are {session.who(session.seat)} against "
          + (", ".join(session.who(s) for s in range(session.num_players) if s != session.seat)
             or "the game's solo rules") + ".  Type ? for help.")
    try:
        record = session.run()
    except AgentFailure as exc:
        cli.fail(exc, prog, status=1)
    write(f"The game's seed was {seed}.")
    path = records.save(record, record_path(args.save, args.game, seed))
    write(f"Record saved to {path}; watch it with: python -m envs.view {path} -o game.html")
    return record


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
