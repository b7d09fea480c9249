"""Entry point of ``python -m agents.tournament``; the code is :mod:`agents.apps.tournament`."""
from agents.apps.tournament import main, run_tournament  # noqa: F401
