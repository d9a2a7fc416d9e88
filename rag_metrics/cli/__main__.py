"""``python -m rag_metrics.cli``: the same as the ``rag-metrics`` command."""

import sys

from rag_metrics.cli import main

sys.exit(main())
