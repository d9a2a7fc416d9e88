"""Lab: the sample data -> the teaching notebooks' lessons, as tested functions.

Takes the sample corpus, golden set and runs (or a team's own); hands on, per notebook, the figures it plots and the
sentences it prints, each chosen by a function a unit test checks (chunking grids, upper bounds, noise, planning,
rulers, duplicates, normalization, attribution, answer support).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
