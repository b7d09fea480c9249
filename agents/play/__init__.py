"""Entry point of ``python -m agents.play``; the code is :mod:`agents.apps.play`."""
from agents.apps.play import main  # noqa: F401
