"""Core: plain values -> checked parameters, normalized text, fingerprints, files and escaped HTML.

Takes nothing from the rest of the package; hands on to every later step the one error type and its parameter
checks (:mod:`.errors`), text normalization and hashing (:mod:`.text`), fingerprints (:mod:`.fingerprint`),
JSON/CSV serialization (:mod:`.serialize`), atomic file writes (:mod:`.files`), ``key=value`` options
(:mod:`.options`), the progress bar (:mod:`.progress`) and autoescaped Jinja2 rendering (:mod:`.html`).
"""
