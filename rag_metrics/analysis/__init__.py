"""Analysis: per-question values -> comparisons, confidence intervals, statuses, history.

Takes evaluations (and logged answers); hands on statistics (:mod:`.stats`), failure attribution
(:mod:`.attribution`, :mod:`.failures`), saved and diffed runs (:mod:`.history`), chunking grids (:mod:`.grid`), automatic
assessors of unlabelled pages (:mod:`.assessors`) and their agreement with people, with figures that account for
assessed labels (:mod:`.agreement`).
"""
