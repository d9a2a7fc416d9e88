"""Analysis: per-question values -> comparisons, confidence intervals, statuses, history.

Takes evaluations (and logged answers); hands on statistics (:mod:`.stats`), failure attribution
(:mod:`.attribution`, :mod:`.failures`), saved and diffed runs (:mod:`.history`) and experiment grids.
"""
