"""The sentences notebooks 08 and 09 choose from their numbers: each branch and each side of its boundary."""

from __future__ import annotations

from rag_metrics.golden.labels import SMALL_BIAS, little_to_correct_claim
from rag_metrics.golden.review import TEMPLATE_GAP, heading_templates_claim


def test_templates_lower_by_the_gap_or_more_is_called_lower():
    c = heading_templates_claim(0.0, TEMPLATE_GAP, 34, 9)  # exactly the gap: lower
    assert c["condition"] and "**0.050 lower**" in c["text_if_true"]
    c = heading_templates_claim(0.804, 1.0, 34, 9)
    assert c["condition"] and "**0.196 lower**" in c["text_if_true"] and "0.804 against 1.000" in c["text_if_true"]
    assert c["figures"] == {"templates": 0.804, "other": 1.0, "n_templates": 34, "n_other": 9}


def test_templates_within_the_gap_or_higher_are_not_called_lower():
    for templates, other in ((0.0, 0.0499), (0.9, 0.9), (1.0, 0.8)):
        c = heading_templates_claim(templates, other, 5, 5)
        assert not c["condition"] and c["text_if_false"].startswith("The heading-template questions do not score")


def test_one_kind_of_question_only_sets_nothing_side_by_side():
    for n_t, n_o in ((0, 9), (34, 0)):
        c = heading_templates_claim(0.0, 1.0, n_t, n_o)  # a large difference, but one group is empty (a NaN mean)
        assert not c["condition"] and c["text_if_false"].startswith(f"Only one kind of question is here ({n_t} ")


def test_little_to_correct_below_the_small_bias_and_every_interval_holding():
    c = little_to_correct_claim(0.985, 0.969, True)
    assert c["condition"] and "A bias of 0.016" in c["text_if_true"]
    assert c["figures"]["bias"] == 0.985 - 0.969 and c["figures"]["holds"] is True
    assert little_to_correct_claim(1.0, 1.0, True)["condition"]  # no bias at all


def test_little_to_correct_not_at_the_small_bias_nor_when_an_interval_misses():
    assert not little_to_correct_claim(SMALL_BIAS, 0.0, True)["condition"]  # exactly the threshold: not small
    assert not little_to_correct_claim(0.9, 0.5, True)["condition"]
    assert not little_to_correct_claim(0.985, 0.969, False)["condition"]
    assert "text_if_false" not in little_to_correct_claim(0.9, 0.5, True)  # nothing printed then
