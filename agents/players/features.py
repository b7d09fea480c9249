"""Inputs the action-values networks compute from the environments' ``action_values``,
written once for torch (training) and numpy (the shipped actors)."""

VALUE_CLIP = 5.0


def action_value_features(values, value_scale):
    """The two per-action inputs of :class:`agents.players.networks.ActionValuesExtractor` from
    ``values`` (a torch tensor or numpy array; each legal action's value below the best):
    the value in units of ``value_scale`` clipped to ``[-VALUE_CLIP, 0]``, and 1 for the
    best actions (0 below)."""
    return (values / value_scale).clip(-VALUE_CLIP, 0.0), (values >= -1e-6) * 1.0
