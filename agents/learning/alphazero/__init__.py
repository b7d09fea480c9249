"""Self-play training of the learned search (Expert Iteration / AlphaZero with a Gumbel root).

    python -m agents.learning.alphazero --game kingdomino_duel_v0 --out runs/az/kingdomino_duel_v0 \\
        [--generations G] [--games-per-generation N] [--simulations S] [--workers W] \\
        [--backend process|ray] [--resume] [--export]

Modules, one job each: :mod:`.network` (the torch network), :mod:`.selfplay` (self-play
games in numba, worker pool), :mod:`.replay` (samples and targets), :mod:`.training` (the
loop, rating, checkpoints and resume, the curve), :mod:`.export` (ship a network with its
record), :mod:`.__main__` (the command line).  Play time needs none of them (no torch):
:mod:`agents.players.az`.
"""
