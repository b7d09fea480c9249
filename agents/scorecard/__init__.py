"""Entry point of ``python -m agents.scorecard``; the code is :mod:`agents.apps.scorecard`
(``agents.scorecard.rate``: :func:`agents.rating.scorecard.rate`)."""
from agents.apps.scorecard import main  # noqa: F401
from agents.rating.scorecard import rate  # noqa: F401
