"""The agent protocol and the by-name registry."""

_REGISTRY = {}


class Agent:
    """Plays one seat: ``act(env, agent)`` returns a legal action for ``agent``, the agent
    to move in ``env``.  ``reset()`` is called before each new game (optional)."""

    name = "agent"

    def act(self, env, agent) -> int:
        raise NotImplementedError

    def reset(self):
        pass

    def __repr__(self):
        return f"{type(self).__name__}()"


def register(name):
    """Class decorator: make the agent buildable with ``agents.make(name, ...)``."""

    def deco(cls):
        _REGISTRY[name] = cls
        cls.name = name
        return cls

    return deco


def make(name, **options):
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name](**options)


def action_mask(env, agent):
    """The legal-action mask of ``agent`` (the agent to move)."""
    return env.observe(agent)["action_mask"]
