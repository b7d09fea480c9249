"""Masked self-play training of a cityzoo game with sb3-contrib's MaskablePPO: ``train.py``'s machinery.

    python train.py --game kingdomino_duel_v0                      # the game's default budget
    python train.py --game kingdomino_duel_v0 --timesteps 200000 --opponents mix --out runs/kd

One seat of the game learns; the other seats are played by opponents.  By default
(``--env batched``) the ``--n-envs`` games of a rollout are one batch stepped inside numba
(:class:`envs.vector_sb3.SB3SeatVecEnv`): baseline opponents play inside the same call and
self-play snapshots are called once per batch for every game waiting on them; the
learner's seat rotates from game to game.  ``--env aec`` runs one
:class:`envs.SingleAgentEnv` per game over the AEC environment instead (the path the
batched one is measured against).  Opponents:

``random`` / ``greedy``
    the baseline agents (``agents.make(name)``);
``self``
    frozen snapshots of the learner, saved to ``OUT/pool/`` every ``--snapshot-every``
    steps; each episode draws the newest snapshot or one of the ``--pool-size`` newest
    (:class:`agents.players.policy.SnapshotPool`; random play until the first snapshot exists);
``mix`` (default, unless the game's defaults say otherwise)
    the snapshot pool plus, with probability ``--baseline-prob``, a random or greedy seat.

``--warm-start greedy`` first trains the new policy to play greedy's moves, from
``--warm-start-samples`` decisions of batched games labelled in numba with greedy's
choice (and its value head on the returns those games pay), before PPO takes over
(:mod:`agents.learning.imitation`).  ``--warm-start mcts`` distils the search instead: games
between ``MCTSAgent(simulations=--warm-start-simulations)`` seats, played in
``--warm-start-workers`` processes, and the actor fitted to the visit shares at each
decision (``--warm-start-target move``: to the move the search plays).  With ``--policy
values`` the search's samples carry the env's action values, as the policy reads them; a
greedy warm start is refused there, as that policy starts as greedy's choice.

Every ``--eval-every`` steps the current policy (deterministic, seats rotating) plays
``--eval-games`` games against RandomAgent and against GreedyAgent; win rates, mean rank
rewards and score margins go to ``OUT/eval.csv``, to TensorBoard (``OUT/tb/`` when the
``tensorboard`` package is installed) and to the console, with the learner's rating on
the game's ladder scale when the game has a ladder for the run's table (:mod:`.ladder_rating`:
the opponents that are rungs keep their published ratings).  A checkpoint is saved at every
evaluation (``OUT/checkpoints/``), the best one by mean win rate as ``OUT/best_model.zip``.
At the end: ``OUT/final_model.zip`` (play it with ``agents.make("policy", path=...)``; the
same actor as ``OUT/final_model.npz`` plays without torch), a
final evaluation over ``--final-eval-games`` games, ``OUT/learning_curve.png`` and
``OUT/summary.json``.  ``OUT/policy.json`` describes the network (game, options, network
and its arguments), so that every model of the run loads without unpickling
(:mod:`agents.players.policy_files`); ``--init-model`` reads a model that way too, unless
``--trust-pickle`` is given for a trusted file saved without one.

Solo games (``--num-players 1`` in Tiny Towns, Between Two Cities and Smartphone Inc.)
have no other seat: the learner plays alone, the game's automata (Between Two Cities'
two, Steve) inside the game, so ``--opponents`` is ``none`` (any other value is an
error) and there are no baseline opponents to evaluate against.  The evaluation plays
the solo game itself and reports the rulebook's yardstick (:mod:`agents.yardstick`): the
mean score, in Tiny Towns the distribution of rating titles, against automata the win
rate and the margin over the best automaton.  ``defaults_for(game, num_players=1)``
(``SOLO_DEFAULTS``) gives each solo mode its own defaults, rewards included.

Every setting of a run is a field of :class:`TrainConfig` (type, default, help); the
command line is generated from it, and the per-game defaults are ``TrainConfig`` instances
in ``GAME_DEFAULTS`` (every one can be overridden on the command line).  With ``--env aec``,
``--n-envs`` > 1 runs the games in ``SubprocVecEnv`` worker processes, or all in the
training process with ``--vec-env dummy``.

Modules, one job each: :mod:`.config` (the settings), :mod:`.recipes` (per-game defaults),
:mod:`.command` (the command line, its checks and the plan it prints), :mod:`.evaluation`,
:mod:`.ladder_rating`, :mod:`.callbacks`, :mod:`.environments` (the training VecEnv), :mod:`.model` (the network and
its optimiser settings), :mod:`.warm_start`, :mod:`.plots`, :mod:`.run` (:func:`~.run.train`),
:mod:`.export` (a run as the package's pretrained policy).
"""
