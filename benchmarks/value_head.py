"""How well the learned search's value network judges positions, beside the heuristic the
search mixes it with.

    python -m benchmarks.value_head [--game GAME ...] [--games 200] [--players az_policy]
        [--path NETWORK.npz] [--seed 0] [--out benchmarks/results/az/value_head.md]
    python -m benchmarks.value_head --game GAME --fit TRAIN_GAMES [--games 150] [--epochs 3]
        [--hidden 256 128]

Two copies of ``--players`` (default ``az_policy``, so the positions are those the learned
search meets) play ``--games`` games at the table of the game's shipped network.  At every
decision with more than one legal action, for the seat to move, it records

- the network's value of the position (its value head, the mover's entry);
- the heuristic's: the search's ``outcome_vector`` of the position (the score margin plus
  potential, squashed), which the search's leaves blend in at ``heuristic_mix``;
- and, once the game is over, the outcome on the same scale: the value target self-play
  trains on.

It reports, over the whole game and over each third of it, how each predicts the outcome:
the correlation, the mean squared error (beside the outcome's variance, the error of always
guessing its mean) and, over the games somebody won, the share of positions whose sign
names the winner.  A value head whose error is above the variance judges positions worse
than a constant.  Writes one markdown table (revision, date, machine) to ``--out``.

``--fit`` asks whether the network could learn better from the same kind of data: it fits
fresh value networks to the outcomes of ``TRAIN_GAMES`` games' positions, from the
observation alone and with the heuristic as an input, and judges them on ``--games`` other
games (:func:`fit_value_network`).  An error on its own positions far below the held-out
one means the network learns the games by heart, not how to judge a position.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

import agents
import envs
from envs import cli

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "az" / "value_head.md"
PHASES = (("whole game", 0.0, 1.0), ("first third", 0.0, 1 / 3), ("middle third", 1 / 3, 2 / 3),
          ("last third", 2 / 3, 1.0))


def make_player(name, game, path, seed):
    """The agent ``name``; the learned agents (``az``, ``az_policy``) play ``path``'s network
    when one is given, else the game's shipped one."""
    if name in ("az", "az_policy"):
        return agents.make(name, seed=seed, **({"path": path} if path else {"game": game}))
    return agents.make(name, seed=seed)


def collect(game, games, players="az_policy", path=None, seed=0, observations=None):
    """Per position: ``(network value, heuristic value, outcome, share of the game played)``
    of the seat to move, as four arrays, over ``games`` games of ``players`` against itself.
    A list given as ``observations`` receives each position's observation (float16)."""
    from agents.players import az_net
    from agents.players.az import load_network
    from agents.players.az_search import Workspace, default_params, search_functions
    from benchmarks.az import network_options

    arrays = load_network(game=game)[0] if path is None else load_network(path=path)[0]
    options = network_options(game)
    params = default_params(game)
    vector = params.vector()
    env = envs.make(game, **options)
    raw = env.unwrapped
    fns = search_functions(raw.spec.kernel)
    ws = Workspace(raw.cfg, raw.spec.num_actions, (1, 1), capacity=1)
    n_seats = raw.cfg.num_players
    heur = np.zeros(n_seats)
    final = np.zeros(n_seats)
    net_v, heur_v, target, progress = [], [], [], []
    for g in range(games):
        env.reset(seed=seed + g)
        bots = [make_player(players, game, path, seed + g * n_seats + i) for i in range(n_seats)]
        rows = []
        for who in env.agent_iter():
            if env.terminations[who] or env.truncations[who]:
                env.step(None)
                continue
            seat = raw.possible_agents.index(who)
            obs = env.observe(who)
            mask = obs["action_mask"]
            if mask.sum() > 1:
                values = raw.observe_action_values(who) if params.use_action_values else np.zeros(mask.shape[0])
                _, v = az_net.batch_forward(arrays, obs["observation"][None], values[None], mask[None],
                                            params.value_scale)
                fns.outcome_vector(raw.kernel_state, vector, ws.sc, ws.vals, ws.rk, heur)
                rows.append((seat, float(v[0, 0]), float(heur[seat])))
                if observations is not None:
                    observations.append(np.asarray(obs["observation"], np.float16))
            env.step(bots[seat].act(env, who))
        fns.outcome_vector(raw.kernel_state, vector, ws.sc, ws.vals, ws.rk, final)
        for i, (seat, v, h) in enumerate(rows):
            net_v.append(v)
            heur_v.append(h)
            target.append(final[seat])
            progress.append(i / len(rows))
    return tuple(np.asarray(x, np.float64) for x in (net_v, heur_v, target, progress))


def judge(prediction, outcome):
    """How ``prediction`` foretells ``outcome``: correlation, mean squared error, the
    outcome's variance, and the share of positions of decided games whose sign is the
    outcome's."""
    decided = outcome != 0.0
    same_sign = np.sign(prediction[decided]) == np.sign(outcome[decided])
    spread = prediction.std() > 0 and outcome.std() > 0
    return {"positions": int(outcome.size),
            "correlation": float(np.corrcoef(prediction, outcome)[0, 1]) if spread else 0.0,
            "mse": float(np.mean((prediction - outcome) ** 2)),
            "outcome_variance": float(outcome.var()),
            "sign_matches": float(same_sign.mean()) if same_sign.size else float("nan")}


def summarise(net_v, heur_v, target, progress):
    """``{phase: {"network": judge(...), "heuristic": judge(...)}}`` for :data:`PHASES`."""
    out = {}
    for name, lo, hi in PHASES:
        sel = (progress >= lo) & (progress < hi)        # progress < 1: a game's last position is i/n, i < n
        out[name] = {"network": judge(net_v[sel], target[sel]), "heuristic": judge(heur_v[sel], target[sel])}
    return out


def fit_value_network(game, train_games, test_games, players="az_policy", seed=0, epochs=3,
                      with_heuristic=False, hidden=(256, 128)):
    """Fit a fresh value network to the outcomes of ``train_games`` games' positions and judge
    it on ``test_games`` other games (:func:`judge`), beside its error on its own positions.
    The network is the learned search's trunk (``hidden``, the observation scaled as in
    training) with one value output; ``with_heuristic`` adds the heuristic's value as an input
    (``tanh(network + c * atanh(heuristic))``, ``c`` learned from 1), so the network learns a
    correction to it.  Needs torch."""
    import torch

    from agents.learning.alphazero.network import observation_scale
    from benchmarks.az import network_options

    def positions(games, first_seed):
        obs = []
        _, heur, outcome, progress = collect(game, games, players, None, first_seed, observations=obs)
        return (torch.as_tensor(np.stack(obs).astype(np.float32)), torch.as_tensor(heur, dtype=torch.float32),
                torch.as_tensor(outcome, dtype=torch.float32), progress)

    train, test = positions(train_games, seed), positions(test_games, seed + 1_000_000)
    raw = envs.make(game, **network_options(game)).unwrapped
    torch.manual_seed(seed)
    scale = torch.as_tensor(observation_scale(raw.spec, raw.cfg))
    trunk = torch.nn.Sequential(torch.nn.Linear(train[0].shape[1], hidden[0]), torch.nn.ReLU(),
                                torch.nn.Linear(hidden[0], hidden[1]), torch.nn.ReLU(), torch.nn.Linear(hidden[1], 1))
    with torch.no_grad():       # the output starts at 0: the plain network at "no idea", the other at the heuristic
        trunk[-1].weight.zero_()
        trunk[-1].bias.zero_()
    lean = torch.nn.Parameter(torch.tensor(1.0 if with_heuristic else 0.0), requires_grad=with_heuristic)
    params = list(trunk.parameters()) + ([lean] if with_heuristic else [])
    opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-4)

    def value(x, h):
        return torch.tanh(trunk(x / scale)[:, 0] + lean * torch.atanh(h.clamp(-0.999, 0.999)))

    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(train[2]))
        for i in range(0, len(order), 256):
            b = torch.as_tensor(order[i:i + 256])
            loss = ((value(train[0][b], train[1][b]) - train[2][b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        own = value(train[0], train[1]).numpy().astype(np.float64)
        held = value(test[0], test[1]).numpy().astype(np.float64)
    outcome = test[2].numpy().astype(np.float64)
    late = test[3] >= 2 / 3
    return {"train_positions": int(len(train[2])), "train_mse": float(np.mean((own - train[2].numpy()) ** 2)),
            "held_out": judge(held, outcome), "held_out_last_third": judge(held[late], outcome[late]),
            "heuristic_held_out": judge(test[1].numpy().astype(np.float64), outcome)}


def report(results, header):
    lines = [header, "",
             "| game | part of the game | positions | outcome variance | network: correlation | network: squared error "
             "| network: sign right | heuristic: correlation | heuristic: squared error | heuristic: sign right |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for game, phases in results.items():
        for phase, row in phases.items():
            n, h = row["network"], row["heuristic"]
            lines.append(f"| {game} | {phase} | {n['positions']} | {n['outcome_variance']:.3f} | {n['correlation']:.3f} "
                         f"| {n['mse']:.3f} | {n['sign_matches']:.3f} | {h['correlation']:.3f} | {h['mse']:.3f} "
                         f"| {h['sign_matches']:.3f} |")
    return "\n".join(lines) + "\n"


def build_parser():
    p = cli.ArgumentParser(prog="python -m benchmarks.value_head", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", type=cli.game_id, nargs="+", default=None, help="default: every game")
    p.add_argument("--games", type=cli.positive_int, default=200)
    p.add_argument("--players", default="az_policy", help="the agent both seats play (an agents.make name)")
    p.add_argument("--path", default=None, help="a network file instead of the shipped network (one game)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--fit", type=cli.positive_int, default=None, metavar="TRAIN_GAMES",
                   help="instead: fit fresh value networks (observation alone; with the heuristic as an input) "
                        "to TRAIN_GAMES games' outcomes and judge them on --games other games (needs torch; "
                        "prints JSON, writes nothing)")
    p.add_argument("--epochs", type=cli.positive_int, default=3, help="--fit: passes over the positions")
    p.add_argument("--hidden", type=cli.positive_int, nargs=2, default=[256, 128], metavar=("H1", "H2"),
                   help="--fit: the fitted networks' two layer sizes (the search's network: 256 128)")
    return p


def main(argv=None):
    from benchmarks.az import machine, revision

    parser = build_parser()
    args = parser.parse_args(argv)
    games = args.game or list(envs.GAMES)
    if args.path is not None and len(games) != 1:
        parser.error("--path: give exactly one --game with it")
    try:
        make_player(args.players, games[0], args.path, 0)
    except ValueError as exc:
        parser.error(f"--players: {exc}")
    if args.fit is not None:
        for game in games:
            for with_heuristic in (False, True):
                fitted = fit_value_network(game, args.fit, args.games, args.players, args.seed, args.epochs,
                                           with_heuristic, tuple(args.hidden))
                print(json.dumps({"game": game, "hidden": args.hidden, "with_heuristic": with_heuristic, **fitted}),
                      flush=True)
        return
    results = {}
    start = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    for game in games:
        t = time.perf_counter()
        results[game] = summarise(*collect(game, args.games, args.players, args.path, args.seed))
        print(f"{game}: {time.perf_counter() - t:.0f} s", flush=True)
    header = (f"# Value network against the heuristic\n\nRevision {revision()}, {start}, machine {machine()}; "
              f"`python -m benchmarks.value_head --games {args.games} --players {args.players} --seed {args.seed}"
              f"{' --path ' + args.path if args.path else ''}`: {args.games} games of `{args.players}` against "
              "itself a game, at the table of the game's shipped network; every position with more than one "
              "legal move, seen by the seat to move.")
    text = report(results, header)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
