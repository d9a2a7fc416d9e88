"""Core: plain values -> checked parameters, normalized text, fingerprints, files and escaped HTML.

Takes nothing from the rest of the package; hands on to every later step the one error type and its parameter
checks (:mod:`.errors`), text normalization and hashing (:mod:`.text`), fingerprints (:mod:`.fingerprint`),
JSON/CSV serialization (:mod:`.serialize`), atomic file writes (:mod:`.files`), ``key=value`` options
(:mod:`.options`), the progress bar (:mod:`.progress`) and autoescaped Jinja2 rendering (:mod:`.html`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
