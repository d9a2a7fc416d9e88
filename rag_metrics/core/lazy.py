"""A package's modules as attributes, imported on first use (PEP 562): ``rm.judging.judges``, ``rm.stats.paired``.

Each subpackage's ``__init__`` ends with ``__getattr__, __dir__ = submodules(__name__, __path__)``; nothing is
imported (nor listed) until a name is asked for, so ``import rag_metrics`` stays as light as it was.
"""

from __future__ import annotations

import importlib
import os
import sys

__all__ = ["submodules"]


def submodules(package: str, path) -> tuple:
    """``(__getattr__, __dir__)`` for the package ``package`` whose folder is ``path`` (its ``__path__``)."""
    found: list = []

    def names() -> list:
        if not found:
            found.extend(sorted({os.path.splitext(f)[0] for folder in path for f in os.listdir(folder)
                                 if (f.endswith(".py") and f != "__init__.py")
                                 or os.path.isfile(os.path.join(folder, f, "__init__.py"))}))
        return found

    def __getattr__(name: str):
        if not name.startswith("_") and name in names():
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list:
        return sorted(set(vars(sys.modules[package])) | set(names()))

    return __getattr__, __dir__
