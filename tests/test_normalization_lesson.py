"""Notebook 06's sentences (rag_metrics.lab.normalization_lesson): each claim's condition on both sides of its
boundary, and every shown sentence true of the figures it carries."""

import numpy as np
import pytest

from rag_metrics.lab.normalization_lesson import (SOURCE, audit_claim, pass_count_claim, raw_queries_claim,
                                                     real_vectors_claim, seed_step_claims, source_check)
from rag_metrics.retrieval.vectors import threshold_audit

QUERY, DOCS = np.array([2.0, 0.0]), np.array([[1.0, 0.0], [3.0, 4.0], [2.0, 3.0]])


def seed(threshold, query=QUERY):
    audit = threshold_audit(query, DOCS, threshold, ids=["A", "B", "C"])
    t = audit.table
    regime = {r: t[t.regime == r].set_index("id") for r in ("raw", "documents_normalized", "both_normalized")}
    ours = {r: [[i, round(float(v), 3)] for i, v in regime[r]["score"].items()] for r in regime}
    return audit, regime, ours


def shown(c):
    return c["text_if_true"] if c["condition"] else c["text_if_false"]


def test_source_check_per_regime_and_its_sentence():
    audit, _, ours = seed(0.8)
    same, c = source_check(ours, audit.pass_counts, 0.8)
    assert same == dict.fromkeys(ours, True) and c["condition"] and "every score and pass count" in shown(c)
    audit, _, ours = seed(0.5)  # documents_normalized and both: 3 pass; the source says 1 for both
    same, c = source_check(ours, audit.pass_counts, 0.5)
    assert same == {"raw": True, "documents_normalized": True, "both_normalized": False}  # 3 pass, not 1
    assert not c["condition"] and "the pass counts differ because the threshold does (0.5 here" in shown(c)
    audit, _, ours = seed(0.8, query=np.array([1.0, 0.0]))
    same, c = source_check(ours, audit.pass_counts, 0.8)
    assert not same["raw"] and shown(c) == "The scores differ from the source's."
    assert SOURCE["both_normalized"][1] == 1


@pytest.mark.parametrize("threshold, lesson", [(0.8, True), (1.0, True), (0.5, False), (2.1, False)])
def test_pass_count_claim_on_each_side(threshold, lesson):
    audit, _, _ = seed(threshold)
    c = pass_count_claim(audit.pass_counts, threshold)
    assert c["condition"] is lesson and c["headline"]
    assert ("did not" in shown(c)) is lesson


def test_seed_steps_name_the_broken_and_the_fixed_ranking():
    audit, regime, _ = seed(0.8)
    ratio = (regime["documents_normalized"]["score"] / regime["both_normalized"]["score"]).tolist()
    raw, fixed, cos = seed_step_claims(regime, audit.pass_counts, 0.8, audit.query_norm, ratio)
    assert raw["condition"] and "B ranks first with 6.000" in shown(raw)
    assert fixed["condition"] and "times the query's length** (2)" in shown(fixed)
    assert "1 of 3 pass" in shown(cos)
    _, fixed, _ = seed_step_claims(regime, audit.pass_counts, 0.8, 3.0, ratio)  # a ratio that is not |q|
    assert not fixed["condition"]
    only_a = np.array([[1.0, 0.0], [0.1, 0.1], [0.2, 0.3]])
    a = threshold_audit(QUERY, only_a, 0.8, ids=["A", "B", "C"])
    reg = {r: a.table[a.table.regime == r].set_index("id") for r in regime}
    raw, _, _ = seed_step_claims(reg, a.pass_counts, 0.8, a.query_norm, [2.0, 2.0, 2.0])
    assert not raw["condition"] and "A ranks first" in shown(raw)


def test_real_vectors_claim_needs_the_same_top_and_a_moved_count():
    assert real_vectors_claim(71, 71, 0.5, 11.9, 39.9, 0.3, 2.0)["condition"]
    assert not real_vectors_claim(71, 71, 0.49, 11.9, 12.3, 0.3, 2.0)["condition"]
    c = real_vectors_claim(70, 71, 5.0, 11.9, 39.9, 0.3, 2.0)
    assert not c["condition"] and "same for 70 of 71" in shown(c)
    assert shown(real_vectors_claim(71, 71, 0.0, 11.9, 11.9, 0.3, 1.0)).endswith("a unit vector.")


def test_raw_queries_and_audit_claims():
    assert raw_queries_claim(0.12, 0.57, 0.8, 11.9, 35, 71, 2.0)["condition"]
    c = raw_queries_claim(0.9, 1.2, 14.0, 11.9, 0, 71, 2.0)
    assert not c["condition"] and "lengths 0.90-1.20" in shown(c)
    assert audit_claim(14, 14, True, "faq")["condition"]
    assert not audit_claim(14, 14, False, "faq")["condition"] and not audit_claim(13, 14, True, "faq")["condition"]
    assert "they are not the same rows" in shown(audit_claim(13, 14, True, "faq"))


@pytest.mark.parametrize("scale, lead", [(2.0, "The error also goes the other way"),
                                          (0.5, "The same direction as the query of length 0.5 above"),
                                          (0.37, "The same direction as the query of length 0.37 above"),
                                          (1.0, "Unnormalized queries can also be too short")])
def test_raw_queries_claim_says_the_other_way_only_after_a_longer_query(scale, lead):
    """Issue 49: at query_scale 0.5 (and 0.37) the page said "the error also goes the other way" after the x0.5
    query had already shown that same direction."""
    c = raw_queries_claim(0.12, 0.57, 0.8, 11.9, 35, 71, scale)
    assert c["condition"] and shown(c).startswith(lead) and c["figures"]["other_way"] is (scale > 1)
    assert ("other way" in shown(c)) is (scale > 1)


def test_pass_count_figure_draws_every_series_at_the_threshold_from_zero():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from rag_metrics.lab.normalization_lesson import pass_count_figure

    curve = pd.DataFrame({"unit": [5.0, 3.0, 1.0], "x2": [5.0, 4.0, 3.0]}, index=[0.0, 0.3, 0.6])
    scores = {"unit": np.array([0.1, 0.2, 0.25]), "x2": np.array([0.2, 0.4, 0.5])}
    fig = pass_count_figure(curve, scores, 0.3, 7)
    left, right = fig.axes
    assert [line.get_label() for line in left.get_lines()][:2] == ["unit", "x2"] and left.get_ylim()[0] == 0
    assert all(line.get_xdata()[0] == 0.3 for line in (left.get_lines()[2], right.get_lines()[0]))
    steps = [p for p in right.patches if p.get_label() in scores]
    assert len(steps) == 2 and not any(p.get_fill() for p in steps), "step outlines: no series hides another"
    assert "7 pairs" in right.get_title()
    plt.close(fig)
