"""Benchmarks and reports of cityzoo (``python -m benchmarks.<name>``)."""

def _check_import_names(names):
    """Stop at once, in one line, when a module of the user's hides one of ``names``
    (envs/import_names.py; loaded by its path, as ``envs`` may be the hidden name)."""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "envs",
                        "import_names.py")
    spec = importlib.util.spec_from_file_location("cityzoo_import_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check(names)


_check_import_names(("agents", "envs", "kernels"))
