"""Pictures of the games a person can read, drawn once for SVG (browser) and RGB (``render()``).

:mod:`envs.pictures.canvas` holds the shared :class:`~envs.pictures.canvas.Canvas`; each game
has ``envs/pictures/<game>.py`` with ``draw(state, cfg, observer=None, clickable=False) ->
Canvas``.  ``observer=None`` draws everything (replays, ``render()``); ``observer=k`` draws
only what seat ``k`` sees at the table.  ``clickable=True`` marks the shapes that play a
legal action when clicked; pictures that title those shapes with the move's words take
``action_label=`` (the adapter's ``action_label``) from the caller.  The adapters reach them through ``GameSpec.picture``.
"""
import numpy as np


def legal_for_viewer(kernel, state, observer, clickable):
    """The legal-action mask when the picture is to be clickable and its viewer owes the
    decision (anyone, for the omniscient picture); None otherwise, and once the game is over."""
    mover = int(kernel.current_player(state))
    if not clickable or mover < 0 or (observer is not None and observer != mover):
        return None
    mask = np.zeros(kernel.NUM_ACTIONS, dtype=np.int8)
    kernel.legal_mask(state, mask)
    return mask


def if_legal(mask, action):
    """``action`` when ``mask`` allows it (a shape to make clickable), else None."""
    return int(action) if mask is not None and mask[action] else None
