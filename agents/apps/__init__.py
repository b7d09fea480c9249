"""The commands built on the agents: ``python -m agents.tournament`` (round-robin tournaments),
``agents.play`` (a person plays in the terminal), ``agents.serve`` (the web app) and
``agents.scorecard`` (rate an agent on a game's ladder).  Each command's code is a module here;
``agents/<command>/`` is only its entry point."""
