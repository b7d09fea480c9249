"""Jitted functions specialised on one kernel, compiled once and cached on disk.

Greedy play, MCTS, the learned search, the batches and the outcome helpers each need a loop
that calls one game's kernel functions.  Passing those functions as arguments costs ~25 us a
call; binding them as compile-time constants makes the call free.  A closure would bind them,
but numba cannot cache a closure over jitted functions on disk (its cache key hashes a
pickle of the closed-over dispatchers, which differs in every process), so every process
-- each test worker, each training or tournament worker -- would compile them again, up to a
minute a game.

:func:`specialise` binds them as *globals* instead: a function written at module level reads
``k_step``, ``values_of``, ... as globals, and each kernel gets a copy of it whose globals
name that kernel's functions, with a name (``__qualname__``) unique to what it was bound to
and to the source it was compiled from.  ``njit(cache=True)`` then caches each copy on disk
under its own name.  :func:`per_kernel` memoizes the builders within a process.  An edit to
the sources gives new names, so copies compiled before it are no longer read (they stay in
numba's cache directory until it is cleared).
"""
import functools
import hashlib
import inspect
import pathlib
import types

import numba
from numba import njit


def per_kernel(build):
    """Decorator: ``build(kernel, *options)`` -- which returns jitted functions specialised
    on a kernel -- runs once per kernel, options and process; later calls return the same
    result (an option left out and the same option passed at its default are one call)."""
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


def specialise(template, jit_options=None, **bindings):
    """``njit(cache=True, **jit_options)`` of a copy of ``template`` (a function defined at
    module level) whose globals named in ``bindings`` are the values given: jitted functions
    (the kernel's, or other specialisations) or numbers (compile-time constants).

    The copy's name carries a digest of the bindings and of the source files its compiled code
    can depend on (the template's module, the modules of the functions bound or read as
    globals, every module it reads, and the ``kernels`` package), so a cached copy is reused
    only for the same bindings of the same source.  (numba's own cache check looks at the
    template's file alone.)"""
    code = template.__code__
    if template.__closure__ is not None or "<locals>" in template.__qualname__:
        raise TypeError(f"specialise: {template.__qualname__} must be defined at module level")
    unread = sorted(set(bindings) - set(code.co_names))
    if unread:
        raise TypeError(f"specialise: {template.__qualname__} reads no global named {unread}")
    namespace = dict(template.__globals__)
    namespace.update(bindings)
    digest = hashlib.sha256(template.__qualname__.encode())
    files = {inspect.getfile(template)}
    for name, value in sorted(bindings.items()):
        digest.update(f"{name}={_identity(value, files)};".encode())
    for name in code.co_names:        # the other jitted functions and modules it reads
        value = namespace.get(name)
        if isinstance(value, numba.core.registry.CPUDispatcher):
            files.add(inspect.getfile(value.py_func))
        elif isinstance(value, types.ModuleType) and getattr(value, "__file__", None):
            files.add(value.__file__)
    for path in sorted(files):
        digest.update(_file_digest(path))
    digest.update(_package_digest())
    fn = types.FunctionType(code, namespace, template.__name__, template.__defaults__)
    fn.__qualname__ = f"{template.__qualname__}__{digest.hexdigest()[:16]}"
    fn.__module__, fn.__doc__ = template.__module__, template.__doc__
    return njit(cache=True, **(jit_options or {}))(fn)


def _identity(value, files):
    """A text that names ``value`` the same way in every process; adds a jitted function's
    source file to ``files``."""
    if isinstance(value, numba.core.registry.CPUDispatcher):
        if "<locals>" in value.py_func.__qualname__:
            raise TypeError(f"specialise: cannot bind a nested function ({value.py_func.__qualname__}):"
                            " its name does not say which one it is")
        files.add(inspect.getfile(value.py_func))
        return f"{value.py_func.__module__}.{value.py_func.__qualname__}"
    if isinstance(value, (bool, int, float)):
        return repr(value)
    raise TypeError(f"specialise: cannot bind {type(value).__name__} (a jitted function or a number)")


@functools.cache
def _file_digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).digest()


@functools.cache
def _package_digest():
    """The ``kernels`` package's sources: every kernel calls into its shared modules."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(_file_digest(str(path)))
    return digest.digest()
