"""The sentences notebooks 08 and 09 choose from their numbers: each branch and each side of its boundary."""

from __future__ import annotations

import pandas as pd
import pytest

from rag_metrics.labels.assessor_agreement import agreement
from rag_metrics.lab.labels_lesson import accepted_in_labels, agreement_by_kind, answer_length_claim, assessor_against_people_claim, audit_moved_claim, candidates_sentence, disagreements_claim, labelled_beside, retriever_misses_claim, unrecovered_claim, weakest_kind_claim
from rag_metrics.core.errors import InputError
from rag_metrics.lab.golden_lesson import TEMPLATE_GAP, kept_set_claim, templates_vs_hand_claim


def _iv(mean, low, high, n):
    from rag_metrics.stats.intervals import MeanInterval
    return MeanInterval(mean=mean, low=low, high=high, n=n, excluded=0, confidence=0.95, method="Clopper-Pearson",
                        n_resamples=None)


HAND = {"bm25": _iv(0.985, 0.917, 1.0, 65), "dense": _iv(0.985, 0.917, 1.0, 65), "hybrid": _iv(0.985, 0.917, 1.0, 65)}


def test_templates_lower_than_hand_by_the_gap_names_the_retrievers_for_which_fishers_test_holds():
    from scipy.stats import fisher_exact

    t = {"bm25": _iv(26 / 34, 0.588, 0.893, 34), "dense": _iv(29 / 34, 0.689, 0.950, 34),
         "hybrid": _iv(27 / 34, 0.621, 0.913, 34)}
    hand = {r: _iv(64 / 65, 0.917, 1.0, 65) for r in HAND}  # hit@k is 0/1: the Fisher test reads 64 hits of 65
    c = templates_vs_hand_claim(t, hand, 3)
    assert c["condition"] and c["headline"] and c["name"] == "templates_below_hand"
    p = [fisher_exact([[a, 34 - a], [64, 1]]).pvalue for a in (26, 29, 27)]
    assert c["figures"]["p"] == pytest.approx(p) and c["figures"]["p_holm"] == pytest.approx([3 * p[0], p[1], 2 * p[2]])
    assert c["text_if_true"] == (
        "The 34 heading-template questions score **0.181 lower** than the 65 hand-written ones (0.804 against 0.985, "
        "page hit@3, mean over the retrievers): a retriever misses about 1 in 5 of them, about 1 in 65 of the "
        "hand-written ones. Fisher's exact test per retriever (unpaired: the two sets are different questions, Holm "
        "over the 3 retrievers): bm25 26 of 34 against 64 of 65, Holm p = 0.002; dense 29 of 34 against 64 of 65, "
        "Holm p = 0.017; hybrid 27 of 34 against 64 of 65, Holm p = 0.004 -- the gap holds at 0.05 for every "
        "retriever.")
    assert c["figures"]["holds"] == ["bm25", "dense", "hybrid"] and c["figures"]["hits_templates"] == [26, 29, 27]
    # dense at 31 of 34: Fisher p = 0.11, not below 0.05 -- the gap is named for the other two only
    c = templates_vs_hand_claim(dict(t, dense=_iv(31 / 34, 0, 1, 34)), hand, 3)
    assert c["figures"]["holds"] == ["bm25", "hybrid"]
    assert c["text_if_true"].endswith("-- the gap holds at 0.05 for bm25 and hybrid, not for dense.")
    # Holm matters: alone, 29 of 34 against 64 of 65 is p = 0.017; over three retrievers all as close it is not
    close = {r: _iv(29 / 34, 0, 1, 34) for r in HAND}
    alone = templates_vs_hand_claim({"bm25": close["bm25"]}, {"bm25": hand["bm25"]}, 3)
    assert alone["figures"]["holds"] == ["bm25"] and "(unpaired: the two sets are different questions): bm25" in \
        alone["text_if_true"] and ", p = 0.017 -- the gap holds at 0.05 for every retriever." in alone["text_if_true"]
    c = templates_vs_hand_claim(close, hand, 3)
    assert c["figures"]["holds"] == [] and c["figures"]["p_holm"] == pytest.approx([3 * 0.0173414] * 3, abs=1e-6)
    assert c["condition"] and c["text_if_true"].endswith("-- no single retriever shows the gap beyond noise at 0.05.")
    # the templates above the hand-written set never count as the gap holding, however small p
    c = templates_vs_hand_claim({"bm25": _iv(1.0, 0, 1, 34)}, {"bm25": _iv(0.5, 0, 1, 64)}, 3)
    assert not c["condition"] and c["figures"]["holds"] == []
    with pytest.raises(InputError, match="0/1 measure"):
        templates_vs_hand_claim({"bm25": _iv(0.51, 0, 1, 34)}, {"bm25": _iv(0.5, 0, 1, 64)}, 3)


def test_templates_within_the_gap_of_hand_or_above_are_not_called_lower():
    hand = {"bm25": _iv(TEMPLATE_GAP, 0.0, 0.2, 20)}
    c = templates_vs_hand_claim({"bm25": _iv(0.0, 0.0, 0.1, 34)}, hand, 3)  # exactly the gap (exact in binary): lower
    assert c["condition"] and "**0.050 lower**" in c["text_if_true"]
    for t in (0.0001, 0.05, 1.0):
        c = templates_vs_hand_claim({"bm25": _iv(t, 0.0, 1.0, 10000)}, hand, 3)
        assert not c["condition"] and c["text_if_false"].startswith("The heading-template questions do not score")


def test_no_template_or_no_hand_question_sets_nothing_side_by_side():
    nan = float("nan")
    c = templates_vs_hand_claim({"bm25": _iv(nan, nan, nan, 0)}, {"bm25": _iv(0.9, 0.8, 0.95, 65)}, 3)
    assert not c["condition"] and c["text_if_false"] == ("Nothing to set side by side: 0 heading-template questions, "
                                                         "65 hand-written ones.")
    assert c["figures"]["templates"] is None and c["figures"]["holds"] == []
    c = templates_vs_hand_claim({"bm25": _iv(0.5, 0.1, 0.9, 1)}, {"bm25": _iv(nan, nan, nan, 0)}, 3)
    assert not c["condition"] and "1 heading-template question, 0 hand-written ones" in c["text_if_false"]
    with pytest.raises(InputError, match="same retrievers"):
        templates_vs_hand_claim({"bm25": _iv(0.5, 0.1, 0.9, 1)}, {"dense": _iv(0.5, 0.1, 0.9, 1)}, 3)


def test_the_audit_moved_sentence_says_the_share_of_the_shortfall_recovered():
    c = audit_moved_claim(0.692, 0.969, 0.985, 31, 3)
    assert c["condition"] and c["headline"] and c["name"] == "audit_moved"
    assert "raises page hit@3 from 0.692 to **0.969**; the complete labels give 0.985" in c["text_if_true"]
    assert "recovers (0.969 − 0.692) / (0.985 − 0.692) = **95% of what the missing labels cost**" in c["text_if_true"]
    assert c["figures"]["closed"] == pytest.approx((0.969 - 0.692) / (0.985 - 0.692))
    c = audit_moved_claim(0.5, 0.75, 0.75, 3, 1)  # all of it
    assert c["condition"] and "= **100% of" in c["text_if_true"] and c["figures"]["closed"] == 1.0
    c = audit_moved_claim(0.5, 0.8, 0.75, 3, 1)  # accepted pages the complete labels lack: capped at all of it
    assert c["condition"] and c["figures"]["closed"] == 1.0 and "(capped at 100%)" in c["text_if_true"]


def test_accepted_pages_in_the_complete_labels_are_counted_per_question():
    class Golden:  # only what accepted_in_labels reads
        gold_pages = pd.DataFrame({"question_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "page": [1, 2, 3]})

    candidates = pd.DataFrame({"question_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["b", "a", "a", "a", "a"],
                               "page": [2, 2, 3, 1, 1], "answer_found": [True, True, False, True, True]})
    # q1 b p.2 is gold; q1 a p.2 is not (page); q2 a p.3 is gold but not accepted; q2 a p.1 is q1's page, not q2's
    assert accepted_in_labels(candidates, Golden) == 1
    assert accepted_in_labels(candidates.assign(answer_found=True), Golden) == 2  # the last gold row counts too
    assert accepted_in_labels(candidates.assign(answer_found=False), Golden) == 0
    c = audit_moved_claim(0.692, 0.969, 0.985, 31, 3, confirmed=30)
    assert c["text_if_true"].endswith("fault. 30 of the 31 accepted pages are in the complete labels; the other 1 holds "
                                      "the expected answer word for word on a page the hand-written set does not "
                                      "list: candidates for its labels too, for a person to confirm, since the "
                                      "stand-in accepts on a string match.")
    assert audit_moved_claim(0.692, 0.969, 0.985, 31, 3, confirmed=31)["text_if_true"].endswith(
        "fault. 31 of the 31 accepted pages are in the complete labels.")
    assert c["figures"]["confirmed"] == 30 and "accepted pages are" not in audit_moved_claim(0.6, 0.7, 0.8, 2, 3)["text_if_true"]


def test_an_audit_that_moves_nothing_or_has_nothing_to_recover_says_so():
    c = audit_moved_claim(0.6, 0.6, 0.8, 0, 3)  # a shortfall, nothing recovered
    assert not c["condition"] and c["text_if_true"] == "" and c["figures"]["closed"] == 0.0
    assert c["text_if_false"].startswith("Accepting the audit's 0 pages leaves page hit@3 at 0.600, short of the 0.800")
    assert audit_moved_claim(0.6, 0.6, 0.8, 1, 3)["text_if_false"].startswith("Accepting the audit's 1 page leaves")
    assert "Accepting the audit's 2 pages raises" in audit_moved_claim(0.6, 0.7, 0.8, 2, 3)["text_if_true"]
    for after in (0.9, 0.95):  # no shortfall (the kept page is always found): nothing to recover, whatever was added
        c = audit_moved_claim(0.9, after, 0.9, 2, 5)
        assert not c["condition"] and c["figures"]["closed"] is None
        assert c["text_if_false"].startswith("Here the missing labels cost nothing: page hit@5 is 0.900")


def _agreed(pairs, min_kappa=0.6):
    """An Agreement of an assessor with people over (people, assessor) relevant flags, one item per pair."""
    rows = [{"question_id": f"c{i}", "doc_id": "d", "page": 1} for i in range(len(pairs))]
    grades = pd.DataFrame([{**r, "grade": 3 if a else 0} for r, (_, a) in zip(rows, pairs)])
    people = pd.DataFrame([{**r, "relevant": h} for r, (h, _) in zip(rows, pairs)])
    return agreement(grades, people, assessor="offline", min_kappa=min_kappa)


def test_the_assessor_is_refused_below_the_bar_and_usable_at_or_above_it():
    pairs = [(True, True)] * 20 + [(True, False)] * 29 + [(False, False)] * 61  # notebook 09's table: kappa 0.43
    refused = assessor_against_people_claim(_agreed(pairs), 110)
    assert not refused["condition"] and refused["name"] == "assessor_vs_people"
    assert refused["text_if_false"].startswith("Against 110 human labels, the offline assessor is **refused** "
                                               "(kappa 0.43, 95% interval [")
    # the point estimate above the bar, the interval's lower end below it: refused, and the sentence says why
    unsure = assessor_against_people_claim(_agreed(pairs, min_kappa=0.4), 110)
    assert not unsure["condition"] and "the point estimate clears it, the interval does not" in unsure["text_if_false"]
    low = _agreed(pairs).kappa.low
    assert assessor_against_people_claim(_agreed(pairs, min_kappa=low), 110)["condition"]  # lower end exactly at the bar
    assert not assessor_against_people_claim(_agreed(pairs, min_kappa=low + 1e-9), 110)["condition"]
    clear = assessor_against_people_claim(_agreed([(True, True)] * 40 + [(False, False)] * 40 + [(True, False)]), 81)
    assert clear["condition"] and clear["text_if_true"].endswith("its labels may fill gaps, kept apart from people's.")


def test_the_weakest_kind_is_named_only_when_it_stands_alone():
    pairs = [(True, False)] * 3 + [(True, True)] * 4 + [(False, False)] * 3 + [(True, True), (True, False)]
    claims = pd.DataFrame({"claim_id": [f"c{i}" for i in range(12)],
                           "kind": ["paraphrase"] * 3 + ["verbatim"] * 4 + ["not_in_context"] * 3 + ["number"] * 2})
    kinds = agreement_by_kind(_agreed(pairs), claims)
    assert list(kinds.index) == ["paraphrase", "number", "verbatim", "not_in_context"]  # worst first, ties: larger
    assert kinds.loc["paraphrase"].tolist() == [3, 3, 0.0] and kinds.loc["number", "agree"] == 0.5
    c = weakest_kind_claim(kinds)
    assert c["condition"] and c["text_if_true"].startswith("It is weakest on **paraphrase** claims: it agrees with "
                                                           "people on 0% of the 3 (3 of them supported)")
    tied = weakest_kind_claim(kinds.assign(agree=[0.5, 0.5, 1.0, 1.0]))
    assert not tied["condition"] and tied["text_if_false"].startswith("No kind of claim stands out")
    alone = weakest_kind_claim(kinds.iloc[:1])
    assert not alone["condition"] and alone["text_if_false"] == "One kind of claim only (paraphrase): agreement 0%."


def test_unrecovered_questions_are_those_the_complete_labels_hit_and_the_audit_does_not():
    per_question = pd.DataFrame({"after the audit": [1.0, 0.0, 0.0, 1.0], "complete labels": [1.0, 1.0, 0.0, 1.0]},
                                index=["q1", "q2", "q3", "q4"])  # q3: missed either way, not lost by the audit
    questions = pd.DataFrame({"question": ["a", "Does *x* cover it?", "c", "d"], "type": ["fact", "multi_hop"] * 2,
                              "answer": ["1", "No: neither", "3", "4"]}, index=["q1", "q2", "q3", "q4"])
    c = unrecovered_claim(per_question, questions, 3)
    assert c["condition"] and c["figures"]["questions"] == ["q2"]
    assert c["text_if_true"].startswith('The audit cannot recover 1 question (multi-hop): "Does \\*x\\* cover it?" '
                                        '(expected answer: "No: neither"). A page that answers it is in the top 3')
    two = unrecovered_claim(per_question.assign(**{"after the audit": 0.0}), questions, 5)
    assert two["figures"]["questions"] == ["q1", "q2", "q4"] and "3 questions (fact, multi-hop)" in two["text_if_true"]
    assert "answers each is in the top 5" in two["text_if_true"]
    none = unrecovered_claim(per_question.assign(**{"after the audit": per_question["complete labels"]}), questions, 3)
    assert not none["condition"] and none["text_if_true"] == "" and none["figures"]["questions"] == []


def test_retriever_misses_are_the_questions_without_a_hit_even_with_complete_labels():
    per_question = pd.DataFrame({"after the audit": [1.0, 0.0, 0.0, 1.0], "complete labels": [1.0, 1.0, 0.0, 1.0]},
                                index=["q1", "q2", "q3", "q4"])  # q2: lost by the audit only; q3: missed either way
    questions = pd.DataFrame({"question": ["a", "b", "Does *x* cover it?", "d"], "type": ["fact", "multi_hop"] * 2,
                              "answer": ["1", "2", "No: neither", "4"]}, index=["q1", "q2", "q3", "q4"])
    c = retriever_misses_claim(per_question, questions, 3)
    assert c["condition"] and c["figures"]["questions"] == ["q3"] and c["text_if_false"] is None
    assert c["text_if_true"] == ('Even with complete labels the retriever misses 1 question (fact): "Does \\*x\\* '
                                 'cover it?" (expected answer: "No: neither"). None of the pages the complete labels '
                                 "list for it is in the top 3: that is the retriever's real failure, and what remains "
                                 "to blame.")
    two = retriever_misses_claim(per_question.assign(**{"complete labels": [0.0, 0.0, 1.0, 1.0]}), questions, 5)
    assert two["figures"]["questions"] == ["q1", "q2"] and "2 questions (fact, multi-hop)" in two["text_if_true"]
    assert "list for them is in the top 5" in two["text_if_true"]
    none = retriever_misses_claim(per_question.assign(**{"complete labels": 1.0}), questions, 3)
    assert not none["condition"] and none["text_if_true"] == "" and none["figures"]["questions"] == []


def test_three_named_questions_are_all_of_them_and_a_fourth_adds_and_more():
    ids = ["q1", "q2", "q3", "q4"]
    questions = pd.DataFrame({"question": ["a?", "b?", "c?", "d?"], "type": ["fact"] * 4, "answer": list("1234")},
                             index=ids)
    for n, more in ((3, False), (4, True)):
        hit = [0.0] * n + [1.0] * (4 - n)
        lost = unrecovered_claim(pd.DataFrame({"after the audit": hit, "complete labels": 1.0}, index=ids), questions, 3)
        missed = retriever_misses_claim(pd.DataFrame({"complete labels": hit}, index=ids), questions, 3)
        for text in (lost["text_if_true"], missed["text_if_true"]):
            assert ('"c?" (expected answer: "3")' in text) and ('"d?"' not in text)
            assert ("and more." in text) == more


def test_disagreements_all_misses_mean_under_filling_and_other_patterns_say_so():
    misses = disagreements_claim(_agreed([(True, True)] * 20 + [(True, False)] * 29 + [(False, False)] * 61))
    assert misses["condition"] and misses["figures"] == {"both_relevant": 20, "missed": 29, "false_accepts": 0,
                                                         "both_not": 61, "n": 110}
    assert misses["text_if_true"].startswith("This is which way the rule errs here: it misses. "
                                             "Every disagreement is a miss (29 items people call relevant and the "
                                             "assessor does not); on these 110 claims it accepted no page people "
                                             "reject (0 of 61), so all 20 items it accepts are right.")
    assert "hit@k biased down." in misses["text_if_true"] and "never up" not in misses["text_if_true"]
    assert "precision of its accepts" in misses["text_if_true"]
    one = disagreements_claim(_agreed([(True, True), (True, False), (False, False), (False, False)]))
    assert one["condition"] and "(1 item people" in one["text_if_true"] and "the one item it accepts is right" in one["text_if_true"]
    nothing = disagreements_claim(_agreed([(True, False)] * 2 + [(False, False)] * 2))
    assert nothing["condition"] and "it accepts nothing." in nothing["text_if_true"]
    a_false_accept = disagreements_claim(_agreed([(True, True)] * 20 + [(True, False)] * 29 + [(False, True)]
                                                 + [(False, False)] * 60))
    assert not a_false_accept["condition"] and a_false_accept["text_if_true"] == ""
    assert a_false_accept["text_if_false"].startswith("Its disagreements go both ways: 29 misses (people: relevant, "
                                                      "assessor: not) and 1 false accept (the reverse), so 20 of its 21")
    over = disagreements_claim(_agreed([(True, True)] * 3 + [(False, True)] * 2 + [(False, False)] * 3))
    assert not over["condition"] and "biased up" in over["text_if_false"] and "(3 of 5 right)" in over["text_if_false"]
    perfect = disagreements_claim(_agreed([(True, True)] * 3 + [(False, False)] * 3))
    assert not perfect["condition"] and perfect["text_if_false"] == "It agrees with people on all 6 items: no miss, no false accept."


def test_answer_length_caveat_from_twice_the_median_words():
    claims = pd.Series(["the cap is two hundred euros", "a b c d"])  # median 5 words
    c = answer_length_claim(claims, pd.Series(["30 days", "form EX-7 now", None]))  # median 2.5: exactly twice
    assert c["condition"] and c["figures"] == {"claim_words": 5.0, "answer_words": 2.5}
    assert "a median of 5 words, against 2.5 for part 1's answers" in c["text_if_true"]
    c = answer_length_claim(claims, pd.Series(["30 days", "form EX-7 now", "one two three"]))  # median 3: under twice
    assert not c["condition"] and c["text_if_true"] == ""
    assert c["text_if_false"].startswith("The claims are about as short as part 1's answers (a median of 5 words")


def test_candidates_beside_their_labelled_page_and_the_sentence_counting_them():
    class Golden:
        gold_pages = pd.DataFrame({"question_id": ["q1", "q2", "q2"], "doc_id": ["faq", "faq", "policy"],
                                   "page": [3, 4, 1]})
    found = pd.DataFrame({"question_id": ["q2", "q1"], "question": ["Q2?", "Q1?"], "answer": ["b", "a"],
                          "doc_id": ["travel", "expense"], "page": [4, 3], "best_rank": [1, 2],
                          "answer_found": [True, False]})
    table = labelled_beside(found, Golden())
    assert table.to_dict("list") == {"question": ["Q2?", "Q1?"], "expected answer": ["b", "a"],
                                     "labelled page": ["faq p.4, policy p.1", "faq p.3"],
                                     "retrieved page holding the answer": ["travel p.4", "expense p.3"],
                                     "its rank": [1, 2]}
    assert candidates_sentence(found, 5, 48) == ("2 candidate pages: 1 holds the expected answer, 1 only shares at "
                                                 "least 48 characters with the gold evidence (rejected below); all of "
                                                 "them above.")
    assert candidates_sentence(found.assign(answer_found=True), 1, 48) == (
        "2 candidate pages, each holding the expected answer; the first 1 above.")
    assert candidates_sentence(found.assign(answer_found=True), 2, 48).endswith("; all of them above.")
    assert candidates_sentence(found.head(1), 1, 48) == "1 candidate page, holding the expected answer; it is above."
    assert candidates_sentence(found.head(0), 5, 48).startswith("The audit lists no candidate page")


def test_review_drops_few_at_two_or_a_tenth_and_many_above():
    from rag_metrics.lab.golden_lesson import review_drops_claim
    for dropped, generated in ((2, 5), (4, 40), (0, 0)):  # at the boundaries: 2, and a tenth of 40
        c = review_drops_claim(dropped, generated, 0, 1.5)
        assert c["condition"] and c["text_if_true"].startswith(f"Review drops few questions here too ({dropped} of ")
    for dropped, generated in ((3, 5), (5, 40), (36, 45)):
        c = review_drops_claim(dropped, generated, 35, 1.88)
        assert not c["condition"] and f"Review drops {dropped} of {generated} questions here, far more" in c["text_if_false"]
        assert c["figures"] == {"dropped": dropped, "generated": generated, "templated": 35}
        assert "far more than the source's 2 of 42. 35 of them are dropped only for being a page heading" in c["text_if_false"]


# notebook 08: the heading copies among the kept questions, and the sentences moved out of its cells

def test_heading_copy_is_a_whole_heading_numbering_case_and_closing_mark_ignored():
    import pytest

    from rag_metrics.core.errors import InputError
    from rag_metrics.golden.flags import heading_copy
    faq = "# 第1章 オフィス\n## Q1 来客用のWi-Fiはありますか\nはい。\n## Q2 会議室の予約方法は\n予約します。"
    assert heading_copy("来客用のWi-Fiはありますか？", faq)  # the FAQ's question number "Q1" is not part of it
    assert heading_copy("会議室の予約方法は", faq) and heading_copy("ｏｆｆｉｃｅ?", "## 3 Office\n")  # width, case
    assert heading_copy("What to attach?", "## 2.2 What to attach\nOne receipt per line.")
    assert not heading_copy("来客用のWi-Fi", faq)  # a part of a heading is not the heading
    assert not heading_copy("What does \"Green\" mean?", "## 1.2 What is in the box\n\"Green\" means ready.")
    assert not heading_copy("Q1 来客用のWi-Fiはありますか", "はい。")  # no heading line at all
    assert not heading_copy("anything", None) and not heading_copy("", "## \n")
    with pytest.raises(InputError):
        heading_copy(None, faq)


def _review_and_sample():
    import pandas as pd

    from rag_metrics.golden.sampler import PageSample
    pages = pd.DataFrame({"doc_id": ["faq", "faq"], "page": [1, 2],
                          "text": ["## Q1 駐車場は使えますか\n使えます。", "## Overview\n\"Green\" means ready."]})
    review = pd.DataFrame({"question_id": ["a", "b", "c", "d"], "decision": ["keep", "keep", "drop", "keep"],
                           "question": ["駐車場は使えますか？", "What does \"Green\" mean?", "Overview?", "Overview"],
                           "doc_id": ["faq"] * 4, "page": [1, 2, 2, 2]})
    return review, PageSample(pages, pd.DataFrame(columns=["doc_id", "eligible"]))


def test_kept_heading_copies_only_the_kept_and_only_their_own_page():
    import pytest

    from rag_metrics.core.errors import InputError
    from rag_metrics.lab.golden_lesson import kept_heading_copies
    review, sample = _review_and_sample()
    assert kept_heading_copies(review, sample) == {"a": "駐車場は使えますか？", "d": "Overview"}  # c is dropped
    review.loc[0, "page"] = 2  # the same question on a page without that heading: not a copy
    assert kept_heading_copies(review, sample) == {"d": "Overview"}
    review.loc[0, "page"] = 9
    with pytest.raises(InputError, match="outside the sample"):
        kept_heading_copies(review, sample)


def test_kept_set_claim_says_the_bias_flips_only_when_every_kept_interval_lies_above_the_hand_written_one():
    kept = {"bm25": _iv(1.0, 0.664, 1.0, 9), "dense": _iv(1.0, 0.7, 1.0, 9), "hybrid": _iv(1.0, 0.664, 1.0, 9)}
    c = kept_set_claim(kept, HAND, ["What to attach?"] + ["x"] * 7)  # notebook 08's defaults: above, but overlapping
    assert not c["condition"] and c["name"] == "kept_set_flatters"
    assert c["text_if_false"] == ("The 9 questions review kept score 1.000 against the hand-written 0.985, and **8 of "
                                  "the 9** are their page's own heading word for word (e.g. *What to attach?*), which "
                                  "a retriever can find by the heading. Heading copies can push a generated set's "
                                  "score up; here 9 questions are too few to show it: the 95% interval as wide as "
                                  "0.66–1.00 overlaps the hand-written one.")
    assert c["figures"] == {"copies": 8, "kept": 9, "kept_mean": 1.0, "hand_mean": 0.985, "low": 0.664, "high": 1.0,
                            "kept_low": [0.664, 0.7, 0.664], "hand_high": [1.0, 1.0, 1.0]}
    low_hand = {r: _iv(0.5, 0.4, 0.6, 65) for r in HAND}
    apart = {r: _iv(0.99, 0.61, 1.0, 300) for r in HAND}  # every kept interval wholly above the hand-written one
    c = kept_set_claim(apart, low_hand, ["What to attach?"])
    assert c["condition"] and "**1 of the 300** is its page's own heading" in c["text_if_true"]
    assert "So the bias changes sign: heading templates pull a generated set's score **down**" in c["text_if_true"]
    touching = dict(apart, dense=_iv(0.99, 0.6, 1.0, 300))  # one retriever's bottom equals the hand-written top
    assert not kept_set_claim(touching, low_hand, ["q"])["condition"]
    assert not kept_set_claim(apart, low_hand, [])["condition"]  # apart, but no heading copy
    one = {r: _iv(1.0, 0.025, 1.0, 1) for r in HAND}
    c = kept_set_claim(one, HAND, ["*a*"])  # singular, escaped
    assert c["text_if_false"].startswith("The 1 question review kept scores 1.000 against the hand-written 0.985, "
                                         "and **1 of the 1** is its page's own heading word for word (e.g. *\\*a\\**)")
    assert "here 1 question is too few to show it" in c["text_if_false"]
    at_hand = {r: _iv(0.985, 0.6, 1.0, 9) for r in HAND}  # copies, but not above the hand-written figure
    c = kept_set_claim(at_hand, HAND, ["q"] * 8)
    assert not c["condition"] and c["text_if_false"].startswith("**8 of the 9** are their page's own heading")
    assert c["text_if_false"].endswith("yet the 9 kept questions score 0.985 (95% interval as wide as 0.60–1.00), "
                                       "not above the hand-written 0.985.")


def _hits(n, hit):
    """Per-question hit@k of ``n`` template questions, the first ``hit`` of them hit."""
    return pd.Series([float(i < hit) for i in range(n)], index=[f"t{i}" for i in range(n)])


def test_template_cost_differs_only_when_the_paired_test_says_so():
    """Issue 49: bm25 0.22 against dense 0.13 was 3 of 34 questions, untested, and called "a generated set can move a
    comparison": the claim holds only when the exact paired test of the two on the template questions rejects."""
    from rag_metrics.lab.golden_lesson import template_cost_claim
    hand = {"bm25": _iv(0.985, 0.9, 1.0, 65), "dense": _iv(0.985, 0.9, 1.0, 65), "hybrid": _iv(0.985, 0.9, 1.0, 65)}
    t = {"bm25": _iv(0.765, 0.6, 0.9, 34), "dense": _iv(0.855, 0.7, 0.95, 34), "hybrid": _iv(0.795, 0.6, 0.9, 34)}
    per_q = {"bm25": _hits(34, 26), "dense": _hits(34, 29), "hybrid": _hits(34, 27)}  # 3 questions apart
    c = template_cost_claim(t, hand, 3, per_q)
    assert not c["condition"] and c["name"] == "template_cost_differs" and c["figures"]["moved"] == 3
    assert c["text_if_false"].startswith("The templates cost bm25 0.22 of page hit@3 and dense only 0.13 (hybrid "
                                         "0.19): dense minus bm25 is +0.09 on the 34 templates (3 of them answered "
                                         "differently by the two), +0.00 on the hand-written set.")
    assert ("within noise (exact paired test of dense against bm25 on the template questions, p = 0.250; "
            "[notebook 10](10_comparing_two_systems.ipynb) explains the test)") in \
        c["text_if_false"] and "can move a comparison" not in c["text_if_false"]
    far = {"bm25": _iv(0.5, 0.3, 0.7, 34), "dense": _iv(0.85, 0.7, 0.95, 34), "hybrid": _iv(0.6, 0.4, 0.8, 34)}
    c = template_cost_claim(far, hand, 3, {"bm25": _hits(34, 17), "dense": _hits(34, 29), "hybrid": _hits(34, 20)})
    assert c["condition"] and "beyond noise" in c["text_if_true"] and "can move a comparison" in c["text_if_true"]
    assert not template_cost_claim(far, hand, 3)["condition"]  # untested: never called a moved comparison
    two = {"bm25": _iv(0.75, 0, 1, 4), "dense": _iv(0.8, 0, 1, 4)}
    hand2 = {"bm25": _iv(1.0, 0, 1, 8), "dense": _iv(1.0, 0, 1, 8)}
    close = dict(two, dense=_iv(0.7625, 0, 1, 4))  # costs 0.25 and 0.2375: closer than the gap
    c = template_cost_claim(close, hand2, 3)
    assert not c["condition"] and c["text_if_false"].startswith("The templates cost every retriever about the same")
    c = template_cost_claim({"bm25": _iv(0.5, 0, 1, 4)}, {"bm25": _iv(1.0, 0, 1, 8)}, 3)
    assert not c["condition"] and c["text_if_false"] == "With one retriever (bm25) there is no comparison for the templates to move."
    nan = float("nan")
    c = template_cost_claim({r: _iv(nan, nan, nan, 0) for r in hand2}, hand2, 3)
    assert not c["condition"] and c["text_if_false"].startswith("Nothing to compare") and c["figures"]["templates"] == []
    with pytest.raises(InputError, match="same retrievers"):
        template_cost_claim(two, hand, 3)


def test_kept_questions_marks_the_heading_copies():
    from rag_metrics.lab.golden_lesson import kept_questions
    review = pd.DataFrame({"question_id": ["a", "b", "c"], "question": ["What to attach?", "Why this guide?", "Q?"],
                           "doc_id": ["d", "d", "e"], "page": [3, 4, 5], "decision": ["keep", "drop", "keep"]})
    table = kept_questions(review, {"a": "What to attach?"})
    assert table.to_dict("list") == {"question": ["What to attach?", "Q?"], "page": ["d p. 3", "e p. 5"],
                                     "heading copy?": ["yes", "no"]}
    assert kept_questions(review.assign(decision="drop"), {}).empty


def test_kept_set_claim_without_copies_or_without_kept_questions():
    c = kept_set_claim({r: _iv(1.0, 0.664, 1.0, 9) for r in HAND}, HAND, [])
    assert not c["condition"] and c["text_if_false"].startswith("None of the 9 kept questions is its page's own")
    c = kept_set_claim({r: _iv(1.0, 0.025, 1.0, 1) for r in HAND}, HAND, [])
    assert c["text_if_false"].endswith("word for word; it scores 1.000 (95% interval as wide as 0.03–1.00) against "
                                       "the hand-written 0.985.")
    nan = float("nan")
    c = kept_set_claim({r: _iv(nan, nan, nan, 0) for r in HAND}, HAND, [])
    assert not c["condition"] and c["text_if_false"] == "No question is kept: there is no kept figure."
    assert c["figures"]["kept_mean"] is None and c["figures"]["low"] is None  # no NaN in the recorded figures
    with pytest.raises(InputError, match="same retrievers"):
        kept_set_claim({"bm25": _iv(1.0, 0.6, 1.0, 9)}, HAND, [])


def test_why_flagged_counts_each_dropped_question_once():
    from rag_metrics.golden.flags import HEADING_TEMPLATE
    from rag_metrics.lab.golden_lesson import why_flagged
    review = pd.DataFrame({
        "question_id": ["a", "b", "c", "d", "e"], "decision": ["drop", "drop", "keep", "drop", "drop"],
        "question": ["What are the rules on x?", "このガイドについて教えてください。", "ok?", "Why this guide?", "dup"],
        "reasons": [f"{HEADING_TEMPLATE}: 'x'", f"points at the page: 'このガイド'; {HEADING_TEMPLATE}: 'このガイド'",
                    "", "points at the page: 'this guide'",
                    f"{HEADING_TEMPLATE}: 'dup'; near-duplicate of a (similarity 0.90)"]})  # e: dropped either way
    table = why_flagged(review, {"a"})
    assert table.to_dict("list") == {
        "why flagged": ["points at the page", HEADING_TEMPLATE, "near-duplicate"], "questions": [2, 1, 1],
        "examples": ["このガイドについて教えてください。 · Why this guide?", "What are the rules on x?", "dup"]}
    assert why_flagged(review.assign(decision="keep"), set()).empty


def test_why_flagged_shows_three_examples_of_a_reason_and_no_more():
    from rag_metrics.lab.golden_lesson import why_flagged

    review = pd.DataFrame({"question_id": list("abcd"), "decision": ["drop"] * 4, "question": ["A?", "B?", "C?", "D?"],
                           "reasons": ["points at the page: 'x'"] * 4})
    assert why_flagged(review, set()).to_dict("list") == {
        "why flagged": ["points at the page"], "questions": [4], "examples": ["A? · B? · C?"]}


def test_sample_claim_complete_or_naming_each_shortfall():
    from rag_metrics.lab.golden_lesson import sample_claim
    c = sample_claim(24, 8, 3, 75, 83, 200, [])
    assert c["condition"] and c["text_if_true"].startswith("24 pages from 8 documents, 3 each; 75 of the corpus's 83")
    c = sample_claim(5, 2, 3, 5, 9, 300, [("faq_*ja*", 2)])
    assert not c["condition"] and c["figures"]["shortfalls"] == 1
    assert r"and 1 document has fewer than 3 and gave what it has: faq\_\*ja\* (2)." in c["text_if_false"]
    c = sample_claim(5, 2, 3, 5, 9, 300, [("a", 2), ("b", 1)])
    assert "and 2 documents have fewer than 3 and gave what they have: a (2), b (1)." in c["text_if_false"]


def test_flagged_claim_none_or_some():
    from rag_metrics.lab.golden_lesson import flagged_claim
    c = flagged_claim(36, 45, 34, 0)
    assert c["condition"] and c["text_if_true"].startswith("**36 of 45** generated questions (80%) are flagged")
    assert "(34 of them only for being a heading template, 0 as near-duplicates); 9 are kept." in c["text_if_true"]
    assert flagged_claim(1, 1, 0, 1)["condition"]
    c = flagged_claim(0, 0, 0, 0)
    assert not c["condition"] and c["text_if_false"].startswith("No generated question is flagged")


def test_enough_questions_from_ten_kept():
    from rag_metrics.lab.golden_lesson import ENOUGH_KEPT, enough_questions_claim
    assert ENOUGH_KEPT == 10
    assert enough_questions_claim(10)["condition"] and enough_questions_claim(40)["condition"]
    c = enough_questions_claim(9)
    assert not c["condition"] and c["text_if_false"].startswith("Only 9 generated questions survive review")
    assert not enough_questions_claim(0)["condition"]


def test_hit_by_group_means_and_whiskers_in_the_plot_shape():
    import pandas as pd
    import pytest

    from rag_metrics.stats.intervals import mean_interval
    from rag_metrics.core.errors import InputError
    from rag_metrics.lab.golden_lesson import bars, hit_by_group
    a, b = pd.Series([1.0, 0.0, 1.0, 1.0]), pd.Series([1.0] * 9)
    groups = hit_by_group({"templates": {"bm25": a, "dense": b}, "kept": {"bm25": b, "dense": a}})
    assert groups["templates"]["bm25"] == mean_interval(a) and groups["kept"]["bm25"] == mean_interval(b)
    means, yerr = bars(groups)
    assert list(means.columns) == ["templates (4)", "kept (9)"] and list(means.index) == ["bm25", "dense"]
    assert means.loc["bm25", "templates (4)"] == 0.75 and means.loc["bm25", "kept (9)"] == 1.0
    iv = mean_interval(a)
    assert yerr[0] == [[0.75 - iv.low, 1.0 - mean_interval(b).low], [iv.high - 0.75, 0.0]]  # group 0: below, above
    assert yerr[1][0][1] == 0.75 - iv.low  # group 1, dense (= a), below
    with pytest.raises(InputError, match="same retrievers"):
        hit_by_group({"templates": {"bm25": a}, "kept": {"dense": a}})


def test_templates_vs_hand_says_the_miss_share_as_one_in_n():
    from rag_metrics.lab.golden_lesson import _one_in
    assert [_one_in(x) for x in (1.0, 0.0, 0.8, 0.985, 0.5)] == ["none", "all", "about 1 in 5", "about 1 in 67",
                                                                  "about 1 in 2"]
    c = templates_vs_hand_claim({r: _iv(0.8, 0.6, 0.9, 35) for r in HAND},
                                {r: _iv(1.0, 0.9, 1.0, 65) for r in HAND}, 3)
    assert "misses about 1 in 5 of them, none of the hand-written ones" in c["text_if_true"]


def _miss_inputs(question="What are the rules on misuse?", chunk="## 2.1 Password rules\nPasswords must be long."):
    review = pd.DataFrame({"question_id": ["a", "b", "c"], "question": ["What to attach?", question, "What are the rules on x?"],
                           "doc_id": ["exp", "exp", "exp"], "page": [3, 11, 12],
                           "reasons": ["", f"a page heading wrapped in a template: '{question.split()[-1][:-1]}'",
                                       "a page heading wrapped in a template: 'x'"]})
    hits = {"bm25": pd.Series({"a": 1.0, "b": 0.0, "c": 0.0}), "dense": pd.Series({"a": 1.0, "b": 1.0, "c": 1.0})}
    run = pd.DataFrame({"question_id": ["b", "b", "c"], "rank": [2, 1, 1], "chunk_id": ["k2", "k1", "k2"],
                        "doc_id": ["sec", "sec", "x<y"], "pages": [(4,), (1, 2), (5,)]})
    chunks = pd.DataFrame({"chunk_id": ["k1", "k2"], "text": [chunk, "nothing"]})
    return review, {"b", "c"}, hits, {"bm25": run, "dense": run}, chunks


def test_template_miss_first_missed_template_its_gold_and_the_chunk_ranked_first():
    from rag_metrics.lab.golden_lesson import template_miss
    review, templated, hits, runs, chunks = _miss_inputs()
    c = template_miss(review, templated, hits, runs, chunks, 3)
    assert c["condition"] and c["figures"]["question"] == "What are the rules on misuse?"  # b before c; a not a template
    assert "(gold page: exp p. 11)" in c["text_if_true"] and "ranks first a chunk of sec p. 1–2," in c["text_if_true"]
    assert c["figures"]["shared"] == ["rules"] and not c["figures"]["has_topic"]  # 'what' is not in the chunk
    assert "does not contain the heading *misuse* but does contain the template's word *rules*" in c["text_if_true"]
    # the chunk holds the heading too
    c = template_miss(*_miss_inputs(chunk="Misuse of a claim. Password rules."), 3)
    assert c["figures"]["has_topic"] and "contains the heading *misuse* too" in c["text_if_true"]
    assert c["figures"]["shared"] == ["rules"]  # the heading's own word is not a frame word
    # neither heading nor frame words
    review, templated, hits, runs, chunks = _miss_inputs(chunk="Passwords must be long.")
    c = template_miss(review, templated, hits, runs, chunks, 3)
    assert c["figures"]["shared"] == [] and "contains neither the heading" in c["text_if_true"]


def test_template_miss_escapes_and_says_so_when_nothing_is_missed():
    from rag_metrics.lab.golden_lesson import template_miss
    review, templated, hits, runs, chunks = _miss_inputs()
    hits["bm25"]["b"] = 1.0  # now c is the first miss, ranked first in document 'x<y'
    c = template_miss(review, templated, hits, runs, chunks, 3)
    assert c["figures"]["question"] == "What are the rules on x?" and "x&lt;y p. 5" in c["text_if_true"]
    hits["bm25"]["c"] = 1.0  # the second retriever misses nothing either
    c = template_miss(review, templated, hits, runs, chunks, 3)
    assert not c["condition"] and "top 3 for every retriever" in c["text_if_false"]


def test_generated_count_explains_a_shortfall_from_the_pages():
    from rag_metrics.lab.golden_lesson import generated_count
    q = pd.DataFrame({"doc_id": ["d", "d", "d", "e"], "page": [1, 1, 2, 1]})
    assert generated_count(q, 3, 2) == ("4 questions from 3 pages (not 6: on 2 pages the generator found fewer than "
                                        "2 headings or definitions to turn into questions)")
    assert generated_count(q, 4, 2).startswith("4 questions from 4 pages (not 8: on 3 pages")  # a page with none
    assert generated_count(q, 3, 1) == "4 questions from 3 pages"
    assert generated_count(q.iloc[:1], 1, 1) == "1 question from 1 page"


def test_template_miss_finds_a_japanese_frame_inside_a_longer_run():
    from rag_metrics.lab.golden_lesson import template_miss
    review, templated, hits, runs, chunks = _miss_inputs(chunk="支払について教えてください。")
    review.loc[1, ["question", "reasons"]] = ["発注について教えてください。", "a page heading wrapped in a template: '発注'"]
    c = template_miss(review, templated, hits, runs, chunks, 3)
    assert c["figures"]["shared"] == ["について教えてください"] and not c["figures"]["has_topic"]
