"""The sentences notebooks 08 and 09 choose from their numbers: each branch and each side of its boundary."""

from __future__ import annotations

from rag_metrics.labels.audit import (SMALL_BIAS, accepted_hits_claim, either_page_claim, little_to_correct_claim,
                                       stand_in_errors_claim)
from rag_metrics.golden.review import TEMPLATE_GAP, heading_templates_claim


def test_templates_lower_by_the_gap_or_more_is_called_lower():
    c = heading_templates_claim(0.0, TEMPLATE_GAP, 34, 9)  # exactly the gap: lower
    assert c["condition"] and "**0.050 lower**" in c["text_if_true"]
    c = heading_templates_claim(0.804, 1.0, 34, 9)
    assert c["condition"] and "**0.196 lower**" in c["text_if_true"] and "0.804 against 1.000" in c["text_if_true"]
    assert c["text_if_true"].startswith("The 34 heading-template questions") and "than the 9 questions" in c["text_if_true"]
    assert c["figures"] == {"templates": 0.804, "other": 1.0, "n_templates": 34, "n_other": 9}


def test_templates_within_the_gap_or_higher_are_not_called_lower():
    for templates, other in ((0.0, 0.0499), (0.9, 0.9), (1.0, 0.8)):
        c = heading_templates_claim(templates, other, 5, 5)
        assert not c["condition"] and c["text_if_false"].startswith("The heading-template questions do not score")


def test_one_kind_of_question_only_sets_nothing_side_by_side():
    for n_t, n_o in ((0, 9), (34, 0)):
        c = heading_templates_claim(0.0, 1.0, n_t, n_o)  # a large difference, but one group is empty (a NaN mean)
        assert not c["condition"] and c["text_if_false"].startswith(f"Only one kind of question is here ({n_t} ")


FOUR = ("human labels only", "human-judged sample only", "assessed labels added", "prediction-powered (PPI)")


def test_little_to_correct_below_the_small_bias_and_spread():
    c = little_to_correct_claim(0.985, dict(zip(FOUR, (0.969, 0.967, 0.969, 0.969))))
    assert c["condition"] and "0.967–0.969" in c["text_if_true"] and "costs only 0.016" in c["text_if_true"]
    assert c["figures"]["bias"] == 0.985 - 0.969
    assert little_to_correct_claim(1.0, dict.fromkeys(FOUR, 1.0))["condition"]  # no bias at all


def test_little_to_correct_not_at_the_small_bias_nor_with_ways_apart():
    assert not little_to_correct_claim(SMALL_BIAS, dict.fromkeys(FOUR, 0.0))["condition"]  # exactly the threshold
    apart = dict(zip(FOUR, (0.969, 0.969 - SMALL_BIAS, 0.969, 0.969)))  # spread exactly the threshold
    c = little_to_correct_claim(0.985, apart)
    assert not c["condition"] and "short by 0.016" in c["text_if_false"]
    assert not little_to_correct_claim(0.9, dict.fromkeys(FOUR, 0.5))["condition"]


def test_accepted_pages_of_questions_already_hit_cannot_move_hit():
    pages = [("hand-written", "q1", "faq", 2), ("hand-written", "q1", "faq", 3), ("hand-written", "q2", "hr", 5)]
    c = accepted_hits_claim(pages, {("hand-written", "q1"): 1.0, ("hand-written", "q2"): 1.0}, 3)
    assert c["condition"] and "The 3 accepted page(s) -- q1 (faq p.2)" in c["text_if_true"]
    assert c["figures"] == {"pages": 3, "questions": 2, "already": 2}
    c = accepted_hits_claim(pages, {("hand-written", "q1"): 1.0, ("hand-written", "q2"): 0.0}, 3)
    assert not c["condition"] and "1 of them misses before the audit" in c["text_if_false"]
    c = accepted_hits_claim(pages, {("generated", "q2"): 1.0, ("hand-written", "q1"): 1.0}, 3)  # the set counts
    assert not c["condition"]
    assert accepted_hits_claim([], {}, 3)["text_if_false"] == "No page was accepted: hit@k cannot move."


def test_stand_in_errors_only_when_every_disputed_page_is_a_candidate():
    assert stand_in_errors_claim(4, 4)["condition"]
    c = stand_in_errors_claim(4, 3)
    assert not c["condition"] and "the other 1 are the assessor's" in c["text_if_false"]
    c = stand_in_errors_claim(0, 0)
    assert not c["condition"] and c["text_if_false"].startswith("The assessor grades no page relevant")


def test_either_page_needs_a_question():
    c = either_page_claim(["q1", "q2", "q3", "q4", "q5", "q6"], 3)
    assert c["condition"] and "for 6 question(s) (q1, q2, q3, q4, q5, …)" in c["text_if_true"]
    assert not either_page_claim([], 3)["condition"]


def test_review_drops_few_at_two_or_a_tenth_and_many_above():
    from rag_metrics.golden.review import review_drops_claim
    for dropped, generated in ((2, 5), (4, 40), (0, 0)):  # at the boundaries: 2, and a tenth of 40
        c = review_drops_claim(dropped, generated, 0, 1.5)
        assert c["condition"] and c["text_if_true"].startswith(f"Review drops few questions here too ({dropped} of ")
    for dropped, generated in ((3, 5), (5, 40), (36, 45)):
        c = review_drops_claim(dropped, generated, 35, 1.88)
        assert not c["condition"] and f"Review drops {dropped} of {generated} questions here, far more" in c["text_if_false"]
        assert c["figures"] == {"dropped": dropped, "generated": generated, "templated": 35}
