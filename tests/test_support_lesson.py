"""Notebook 11's (and 05's second look's) sentences on the diagnosis (rag_metrics.lab.support_lesson): a `misled`
answer that stops short is called incomplete, a right answer refused only for a negation it does not hold is called a
judge error, and kappa is "established" (and the judge accepted) only when its interval clears the bar -- each side of
each boundary."""

import pandas as pd
import pytest

from rag_metrics.experiment.answer_support import stops_short
from rag_metrics.lab.support_lesson import judge_error_claim, judge_errors, kappa_claim, misled_claim


def shown(c):
    return c["text_if_true"] if c["condition"] else c["text_if_false"]


@pytest.mark.parametrize("answer, expected, short", [
    ("a vice president", "a vice president for business class; the line manager for the trip", True),
    ("内線4444に電話してください", "内線4444のセキュリティホットライン、1か月以内に情報セキュリティ研修", True),
    ("No, the warranty does not cover incorrect wiring.",
     "No: neither the warranty nor the cloud terms cover damage from incorrect wiring", True),
    ("150 EUR", "200 EUR", False),                       # another number: contradicts
    ("12か月", "24か月", False),
    ("the CFO", "a vice president for business class", False),   # nothing shared: something else
    ("Alcohol is reimbursable.", "Alcohol is not reimbursable", False),   # the other polarity
    ("200 EUR and 150 EUR", "200 EUR", False),           # one number too many
])
def test_stops_short_on_each_side(answer, expected, short):
    assert stops_short(answer, expected) is short


def test_stops_short_needs_half_of_its_words_in_the_expected_answer():
    # two content words, one shared: exactly half counts; one of three does not
    assert stops_short("president approval", "a vice president")
    assert not stops_short("president approval required", "a vice president")


def records(rows):
    return pd.DataFrame(rows, columns=["question_id", "diagnosis", "correct", "support"]).set_index("question_id")


def test_misled_claim_names_misled_and_incomplete_from_the_diagnosis():
    r = records([("a", "misled", False, "full"), ("b", "incomplete", False, "full"), ("c", "hallucinated", False, "none"),
                 ("d", "incomplete", False, "full")])
    c = misled_claim(r)
    assert c["figures"] == {"misled": ["a"], "incomplete": ["b", "d"]}
    assert c["condition"] and "3 wrong answers" in shown(c) and "1 are `misled` (a)" in shown(c)
    assert "**2 are `incomplete`** (b, d)" in shown(c)


def test_misled_claim_without_an_incomplete_answer_says_what_holds():
    c = misled_claim(records([("a", "misled", False, "full")]))
    assert not c["condition"] and "1 are `misled` (a)" in shown(c) and "None is `incomplete`." in shown(c)
    c = misled_claim(records([("b", "incomplete", False, "full")]))
    assert c["condition"] and "None is `misled`." in shown(c)
    assert shown(misled_claim(records([("c", "passed", True, "full")]))) == \
        "No wrong answer here has every claim supported."


def claims_table(rows):
    return pd.DataFrame(rows, columns=["question_id", "claim", "supported", "span", "reason"])


def test_judge_errors_are_right_answers_refused_only_for_negation():
    r = records([("q047", "answered_from_memory", True, "none"), ("n", "answered_from_memory", True, "none"),
                 ("w", "hallucinated", False, "none"), ("m", "partially_supported", True, "partial"),
                 ("neg", "answered_from_memory", True, "none")])
    span = "登録には登記事項証明書と反社会的勢力でないことの確認書が必要である。"
    c = claims_table([("q047", "登記事項証明書", False, span, "negation differs"),
                      ("n", "x", False, "y", "too few of the claim's words"),        # another reason: not a judge error
                      ("w", "x", False, "y", "negation differs"),                      # a wrong answer
                      ("m", "a", True, "a", "supported"), ("m", "b", False, "c", "negation differs"),
                      ("m", "d", False, "e", "a number differs"),                      # one claim for another reason
                      ("neg", "It is not allowed.", False, "It is allowed.", "negation differs")])  # the claim negates
    errors = judge_errors(r, c)
    assert errors == {"q047": span}
    text = shown(judge_error_claim(errors, r["diagnosis"].to_dict()))
    assert "q047 (diagnosed `answered_from_memory`)" in text and "inside a noun phrase" in text
    other = shown(judge_error_claim({"x": "It is not the case."}, {"x": "answered_from_memory"}))
    assert "noun phrase" not in other
    none = judge_error_claim({}, {})
    assert not none["condition"] and "No right answer" in shown(none)


@pytest.mark.parametrize("kappa, low, n, holds, established, accepted", [
    (0.742, 0.588, 110, True, False, False),   # the sample: point clears 0.6, interval does not -- the gate refuses
    (0.742, 0.600, 110, True, True, True),     # the lower end exactly at the bar: established, accepted
    (0.600, 0.500, 110, True, False, False),   # the point exactly at the bar
    (0.599, 0.450, 110, False, False, False),
    (0.950, 0.700, 19, True, True, False),     # established on 19 claims, but the gate asks for 20
])
def test_kappa_claim_reads_point_and_interval_as_the_gate_does(kappa, low, n, holds, established, accepted):
    c = kappa_claim(kappa, low, 0.85, 0.6, n)
    assert c["condition"] is holds and c["figures"]["interval_clears"] is established
    text = shown(c)
    assert f"{kappa:.3f}" in text and f"[{low:.3f}, 0.850]" in text
    assert ("is established" in text) is established and ("accepts the judge" in text) is accepted
    if holds and not established:
        assert "not established" in text and "refuses the judge" in text and "reads the lower end" in text
    if not holds:
        assert "below the stated 0.6" in text and "established" not in text and "refuses it" in text


def test_kappa_claim_undefined():
    c = kappa_claim(None, None, None, 0.6, 3)
    assert not c["condition"] and "undefined" in shown(c)



@pytest.mark.parametrize("held_low, trusted", [(0.444, False), (0.6, True)])
def test_kappa_claim_defers_to_the_held_out_figure(held_low, trusted):
    """Agreement that clears the bar on the claims the judge was tuned on is not called established when the held-out
    figure does not: notebook 11's headline and its trust sentence can no longer contradict each other."""
    from rag_metrics.experiment.support_trust import JudgeTrust
    from rag_metrics.stats.agreement import Kappa, headline_refusal

    held = Kappa(kappa=0.575, low=held_low, high=0.691, observed=0.8, expected=0.5, n=202)
    trust = JudgeTrust("offline", Kappa(0.799, 0.658, 0.895, 0.9, 0.5, 110), held, headline_refusal(held))
    text = shown(kappa_claim(0.799, 0.658, 0.895, 0.6, 110, trust))
    assert ("is established" in text) is trusted
    if not trusted:
        # the held-out figure and "not yet trusted" are the trust sentence's, printed first: this one defers to it
        assert "202 held-out claims above decide" in text and "tuned on" in text and "accepts the judge" not in text
