"""A pytest plugin that registers the toy game of ``tests/toy_game.py`` as ``toy_race_v0``
before collection, so that every generic suite (they all read the case table of
:mod:`envs.testing`) runs on it too::

    python -m pytest -p tests.toy_registration -k toy_race tests/test_conformance.py

``tests/test_case_table.py`` runs the generic suites this way to show that a new game is
tested automatically."""
from envs import registry

TOY_GAME = "toy_race_v0"

if TOY_GAME not in registry.ADAPTERS:
    registry.register(TOY_GAME, "tests.toy_game:ToySpec")
