"""A memo for the jitted closures built over a kernel's functions.

Greedy play, MCTS, the batch and the outcome helpers compile closures specialised on one
kernel's functions; compiling costs about a second, so each is built once per kernel,
options and process.
"""
import functools
import inspect


def per_kernel(build):
    """Decorator: ``build(kernel, *options)`` -- which compiles jitted closures over a
    kernel's functions -- runs once per kernel, options and process; later calls return the
    same result (an option left out and the same option passed at its default are one call)."""
    built = {}
    signature = inspect.signature(build)

    @functools.wraps(build)
    def get(kernel, *options):
        as_called = (kernel.__name__,) + options
        fn = built.get(as_called)          # agents ask once a move: one lookup
        if fn is None:
            bound = signature.bind(kernel, *options)
            bound.apply_defaults()
            key = (kernel.__name__,) + tuple(bound.arguments.values())[1:]
            fn = built.get(key)
            if fn is None:
                fn = build(kernel, *options)
            built[key] = built[as_called] = fn
        return fn

    return get
