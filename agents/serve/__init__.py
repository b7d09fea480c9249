"""Entry point of ``python -m agents.serve``; the code is :mod:`agents.apps.serve`."""
