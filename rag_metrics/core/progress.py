"""Progress bars on stderr for the long commands (``rag-metrics run``, ``rag-metrics golden generate``)."""

from __future__ import annotations

import sys

__all__ = ["progress_bar"]


def progress_bar(**options):
    """A tqdm bar on stderr, or None where tqdm (it comes with the report extra) is not installed."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - without the report extra: no bar
        return None
    return tqdm(file=sys.stderr, **options)
