"""``python -m rag_metrics.cli``: the same as the ``rag-metrics`` command."""

import sys

from rag_metrics.cli import main

if __name__ == "__main__":  # importing the module (doctest, pkgutil.walk_packages) must not run the command
    sys.exit(main())
