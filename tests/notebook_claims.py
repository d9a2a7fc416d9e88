"""What each named claim of a notebook means, restated from its sentence: the truth condition, over the figures the
claim recorded (``claim(..., name=..., figures=...)``) and the notebook's headline figures (``record``).

tests/test_notebooks.py re-evaluates every rule on every run of every notebook (the fixed table and the random draws)
and compares it with the condition the notebook computed: a notebook whose condition does not say what its sentence
says -- a comparison flipped, a threshold moved, a figure taken from the wrong column -- fails, whatever the
parameters. A rule may also assert that its figures agree with each other or with a headline figure.

``RULES[notebook stem][claim name] = rule(f, h) -> bool``: ``f`` the claim's figures, ``h`` the notebook's headlines
(``{name: {"mean": ..., ...}}``). A notebook listed here is held to "claims, not prose": every claim it makes has a
rule here, and every Markdown output of its code cells is a claim or a banner. Notebooks not listed yet are checked
for the rest (no shown text of a condition that does not hold; headline claims hold at the defaults).
"""

from __future__ import annotations

import math


def that(condition, message: str = "the claim's figures disagree with each other") -> bool:
    """A consistency check inside a rule: raises (the test fails) instead of voting on the claim's truth."""
    if not condition:
        raise AssertionError(message)
    return True


def close(a, b, tol=1e-9) -> bool:
    """Two recorded numbers equal up to rounding (``None`` stands for NaN)."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


FIRST, DEDUP = "first chunk's position", "de-duplicated rank"

GLOSSARY = {
    "one_rank_rule": lambda f, h: (all(FIRST in r for r in f["reads"]["cut_then_dedup"].values())
                                   and all(DEDUP in r for r in f["reads"]["dedup_then_cut"].values())),
    "mrr_depends_on_depth": lambda f, h: (that((f["rr"] == 0) == (f["depth"] < f["gold_at"]), "MRR at a depth above "
                                               "the relevant document's rank must be 1/rank")
                                          and f["rr"] != f["rr_deep"]),
    "ndcg_is_not_recall": lambda f, h: f["ndcg1"] == 1 and f["recall1"] == 0.5,
    "judged_is_a_precision": lambda f, h: f["labels_only_relevant"] and f["same_as_share"],
    "no_answer_lowers_judged": lambda f, h: f["answerable"] > f["all"],
}

RULES = {
    "00_glossary": GLOSSARY,
}
