"""What each named claim of notebook 03 means, restated from its sentence over the figures it recorded (the form of
tests/notebook_claims.py: ``rule(f, h) -> bool``, ``f`` the claim's figures, ``h`` the notebook's headlines). A rule
may raise AssertionError when the figures disagree with each other (a figure taken from the wrong column).

Used by tests/test_rulers.py on the committed notebook, and by the notebook parameter test for every run.
"""

from __future__ import annotations

import math


def that(condition, message: str = "the claim's figures disagree with each other") -> bool:
    if not condition:
        raise AssertionError(message)
    return True


def close(a, b, tol=1e-9) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _grid(f):
    """The four cells of the source's comparison and the three differences between them agree."""
    return that(close(f["total"], f["o1"] - f["m0"]) and close(f["window_alone"], f["m1"] - f["m0"])
                and close(f["judge_alone"], f["o0"] - f["m0"]), "total, window and judge effects are not the grid's")


def _near(fs, min_chars, longest):
    """The chosen F and the F next to it on either side of the curve, among those a chunk can hold."""
    fits = sorted(x for x in fs if x <= longest)
    if min_chars not in fits:
        return [min_chars]
    i = fits.index(min_chars)
    return fits[max(i - 1, 0):i + 2]


def _at(f, x):
    return f["values"][f["fs"].index(x)]


MARKER_VS_OVERLAP = {
    "source_direction": lambda f, h: that(close(f["total"], f["o1"] - f["m0"])) and f["total"] > 0,
    # both changes alone move hit@3 by at least a question, and they overlap (rag_metrics.lab.ruler_lesson.gap_claims)
    "both_changes_overlap": lambda f, h: (_grid(f) and f["fits"] and round(f["window_alone"] * f["n_eval"]) >= 1
                                          and round(f["judge_alone"] * f["n_eval"]) >= 1
                                          and round((f["window_alone"] + f["judge_alone"] - f["total"])
                                                    * f["n_eval"]) >= 1),
    "gap_vs_source": lambda f, h: f["total"] > 0.775 - 0.69,
    "tiny_lost_marker": lambda f, h: (f["lost"] == 1 and not f["marker"][f["at"]] and f["overlap"][f["at"]]
                                      and len(f["held"]) > 0),
    "ruler_moves_figure": lambda f, h: (that(f["moved"] == round((f["overlap"] - f["marker"]) * f["n_eval"])
                                             and (f["min_chars"] <= f["longest"] or f["overlap"] == 0)  # F > chunks
                                             and f["document"] >= max(f["marker"], f["overlap"]) - 1e-12)
                                        and f["overlap"] > f["marker"]),
    "both_at_ceiling": lambda f, h: f["overlap"] == f["marker"] == f["document"],
    "few_markers_lost": lambda f, h: (f["overlap"] <= f["marker"] and not f["overlap"] == f["marker"] == f["document"]
                                      and f["min_chars"] <= 48),
    # an F no chunk can hold is not "strict": it credits nothing by construction (rag_metrics.lab.ruler_lesson)
    "large_f_is_strict": lambda f, h: f["overlap"] < f["marker"] and 48 < f["min_chars"] <= f["longest"],
    "marker_only": lambda f, h: that((f["failed_by_overlap"] > 0) >= (f["overlap"] < f["marker"]),
                                     "overlap below marker needs a chunk only the marker credits")
                                and f["overlap"] < f["marker"],
    "where_marker_fails": lambda f, h: (that(f["gold page"] + f["within the window"] + f["elsewhere"] == f["total"])
                                        and f["total"] > 0),
    # the notebook's F against its neighbours on the curve (not a fixed 16..48: F=48 beside a drop at F=96 was called
    # flat), low / high the curve's extremes over them, and the exact paired test between those two within noise
    "flat_near_f": lambda f, h: (that(f["near"] == _near(f["fs"], f["min_chars"], f["longest"])
                                      and close(f["low"], min(_at(f, x) for x in f["near"]))
                                      and close(f["high"], max(_at(f, x) for x in f["near"])),
                                      "the F values compared are not the chosen F and its neighbours")
                                 and that(f["spread"] == round((f["high"] - f["low"]) * f["n_eval"])
                                          and 0 <= f["p"] <= 1 and (f["spread"] > 0 or f["p"] == 1))
                                 and f["p"] >= f["alpha"]),
    "extremes_of_f": lambda f, h: (that(all(b > f["longest"] for b in f["beyond"])
                                        and (f["large_f"] > f["longest"]) == bool(f["beyond"]),
                                        "the F values named beyond the longest chunk are not those")
                                   and f["small"] > f["large"] and f["large_f"] <= f["longest"]),
    "window_widens": lambda f, h: f["marker"][1] > f["marker"][0] or f["overlap"][1] > f["overlap"][0],
    "footer_false_hits": lambda f, h: (that(f["false_hits"] == round((f["kept"] - f["default"]) * f["n_eval"]))
                                       and f["false_hits"] > 0),
    "audit_names_fix": lambda f, h: that(0 <= f["plus_one"] <= f["located"]) and f["offset"] == 1 and f["names_fix"],
}
