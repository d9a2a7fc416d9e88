"""The diagnosis of patterns (rag_metrics.experiment.diagnosis), finding by finding on small hand-made runs: each
pattern at its threshold and one step either side."""

from types import SimpleNamespace

import pandas as pd
import pytest

from rag_metrics.experiment.diagnosis import (CONCENTRATED_SHARE, DOMINANT_SHARE, MIN_SAME, diagnose, language,
                                            ranked_lists, same_rankings)


def _run(name, lists, *, ks=(1, 3), depth=None):
    """A fake evaluated run: ``lists`` = {question: [(doc, pages, text, score), ...]} in rank order."""
    rows = [{"question_id": q, "rank": r, "doc_id": d, "pages": p, "text": t, "score": s}
            for q, items in lists.items() for r, (d, p, t, s) in enumerate(items, start=1)]
    run = pd.DataFrame(rows, columns=["question_id", "rank", "doc_id", "pages", "text", "score"])
    per_question = pd.DataFrame(index=pd.Index(list(lists), name="question_id"))
    deepest = max((len(v) for v in lists.values()), default=0)
    return SimpleNamespace(name=name, run=run, ks=ks, depth=deepest if depth is None else depth,
                           evaluation=SimpleNamespace(per_question=per_question))


def _golden(texts, types=None, gold=None):
    questions = pd.DataFrame({"question": texts, "type": types or {q: "fact" for q in texts}})
    gold = gold or {q: [("doc_a", 1)] for q in texts}
    return SimpleNamespace(questions=questions, answerable=list(texts), pages_by_question=lambda: gold)


NO_MOVES = pd.DataFrame(columns=["question_id", "change"])


def _distinct(n):
    """``n`` questions, each with its own list of three items (distinct documents, scores, texts)."""
    return {f"q{i}": [(f"d{i}", (1,), f"text {i} a", 3.0), (f"e{i}", (2,), f"text {i} b", 2.0),
                      (f"f{i}", (3,), f"text {i} c", 1.0)] for i in range(n)}


def _kinds(findings):
    return [f.kind for f in findings]


def test_a_list_returned_for_min_same_questions_is_named_with_its_count_and_its_zero_scores():
    same = [("travel", (7,), "t7", 0.0), ("travel", (8,), "t8", 0.0), ("travel", (9,), "t9", 0.0)]
    lists = _distinct(6) | {f"j{i}": list(same) for i in range(MIN_SAME)}
    run = _run("llamaindex", lists)
    found = [f for f in diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists})) if f.kind == "same ranking"]
    assert len(found) == 1 and found[0].count == MIN_SAME and found[0].questions == ("j0", "j1", "j2")
    assert found[0].sentence == ("llamaindex: 3 questions got the same list of 3 item(s) (travel p.7–9), "
                                 "all scores 0.000.")
    # one question fewer: two questions can share a list by chance, no pattern
    lists.pop("j2")
    run = _run("llamaindex", lists)
    assert "same ranking" not in _kinds(diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists})))
    assert same_rankings(run, min_questions=2)[0]["questions"] == ["j0", "j1"]


def test_same_rankings_lists_the_largest_group_first():
    """A list repeated for 4 questions comes before one repeated for 3, whichever was seen first."""
    three = [("travel", (7,), "t7", 0.5), ("travel", (8,), "t8", 0.4)]
    four = [("expenses", (2,), "e2", 0.6), ("expenses", (3,), "e3", 0.3)]
    lists = {**{f"t{i}": list(three) for i in range(3)}, **{f"f{i}": list(four) for i in range(4)}}
    groups = same_rankings(_run("r", lists), min_questions=3)
    assert [g["questions"] for g in groups] == [["f0", "f1", "f2", "f3"], ["t0", "t1", "t2"]]


def test_scores_that_differ_are_not_written_as_all_equal():
    same = [("travel", (7,), "t7", 0.5), ("travel", (8,), "t8", 0.0)]
    lists = {f"j{i}": list(same) for i in range(3)}
    run = _run("r", lists)
    (found,) = [f for f in diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists})) if f.kind == "same ranking"]
    assert "all scores" not in found.sentence and "travel p.7–8" in found.sentence


def test_constant_scores_need_every_score_equal():
    lists = _distinct(3)
    flat = {q: [(d, p, t, 0.0) for d, p, t, _ in items] for q, items in lists.items()}
    run = _run("flat", flat)
    found = [f for f in diagnose([run], run, NO_MOVES, _golden({q: "x" for q in flat})) if f.kind == "constant scores"]
    assert [f.sentence for f in found] == ["flat: every one of its 9 scores is 0.000 -- the ranking carries no score "
                                           "information."]
    flat["q0"][0] = flat["q0"][0][:3] + (0.1,)  # one score differs
    run = _run("flat", flat)
    assert "constant scores" not in _kinds(diagnose([run], run, NO_MOVES, _golden({q: "x" for q in flat})))


def test_empty_and_duplicated_texts_are_counted():
    lists = _distinct(4)
    lists["q0"][1] = ("e0", (2,), "  ", 2.0)
    lists["q1"][2] = ("f1", (3,), None, 1.0)
    lists["q2"][2] = ("f2", (3,), "text 2 a", 1.0)  # the text of its first item again
    run = _run("r", lists)
    found = {f.kind: f for f in diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists}))}
    assert found["empty texts"].count == 2 and found["empty texts"].questions == ("q0", "q1")
    assert found["duplicated texts"].count == 1 and found["duplicated texts"].questions == ("q2",)
    clean = _run("r", _distinct(4))
    assert not {"empty texts", "duplicated texts"} & set(_kinds(diagnose([clean], clean, NO_MOVES,
                                                                         _golden({q: "x" for q in _distinct(4)}))))


def test_a_document_dominates_above_half_of_the_items_not_at_half():
    lists = {"q0": [("big", (1,), "a", 3.0), ("big", (2,), "b", 2.0)], "q1": [("big", (3,), "c", 3.0),
                                                                             ("other", (1,), "d", 1.0)]}
    run = _run("r", lists)
    (found,) = [f for f in diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists}))
                if f.kind == "dominant document"]
    assert found.count == 3 and found.sentence == "r: big holds 3 of its 4 top-3 items (75%)."
    lists["q0"][1] = ("other", (2,), "b", 2.0)  # 2 of 4: exactly DOMINANT_SHARE
    assert 2 / 4 == DOMINANT_SHARE
    run = _run("r", lists)
    assert "dominant document" not in _kinds(diagnose([run], run, NO_MOVES, _golden({q: "x" for q in lists})))


def _losses(ids):
    return pd.DataFrame({"question_id": ids, "change": ["newly missed"] * len(ids)})


def test_losses_concentrated_in_a_language_are_stated_against_all_questions():
    texts = {f"q{i}": f"What is rule {i}?" for i in range(7)} | {f"j{i}": f"規則{i}は何ですか。" for i in range(3)}
    run = _run("new", {q: [("doc_a", (1,), "x", 1.0)] for q in texts})
    found = [f for f in diagnose([run], run, _losses(["j0", "j1", "j2"]), _golden(texts))
             if f.kind == "concentrated losses"]
    assert [f.sentence for f in found] == ["3 of 3 newly missed questions are Japanese (3 of 10 questions overall)."]
    assert found[0].questions == ("j0", "j1", "j2")
    # two losses: too few to speak of a concentration
    assert "concentrated losses" not in _kinds(diagnose([run], run, _losses(["j0", "j1"]), _golden(texts)))
    # 3 of 4 losses Japanese: below CONCENTRATED_SHARE
    assert 3 / 4 < CONCENTRATED_SHARE
    found = diagnose([run], run, _losses(["j0", "j1", "j2", "q0"]), _golden(texts))
    assert not [f for f in found if "Japanese" in f.sentence]


def test_losses_concentrated_at_exactly_the_share_are_a_concentration():
    texts = {f"q{i}": f"What is rule {i}?" for i in range(8)} | {f"j{i}": f"規則{i}は何ですか。" for i in range(4)}
    run = _run("new", {q: [("doc_a", (1,), "x", 1.0)] for q in texts})
    assert 4 / 5 == CONCENTRATED_SHARE
    found = [f.sentence for f in diagnose([run], run, _losses(["j0", "j1", "j2", "j3", "q0"]), _golden(texts))
             if f.kind == "concentrated losses"]
    assert found == ["4 of 5 newly missed questions are Japanese (4 of 12 questions overall)."]


def test_a_group_no_more_frequent_among_losses_than_overall_is_not_a_concentration():
    texts = {f"q{i}": f"What is rule {i}?" for i in range(10)}
    types = {q: "fact" for q in texts} | {"q9": "procedure"}
    run = _run("new", {q: [("doc_a", (1,), "x", 1.0)] for q in texts})
    found = diagnose([run], run, _losses(["q0", "q1", "q2"]), _golden(texts, types))
    # 3 of 3 are of type fact but 9 of 10 questions are: no concentration; all Latin-script: none either
    assert not [f for f in found if f.kind == "concentrated losses"]


def test_losses_concentrated_on_one_gold_document():
    texts = {f"q{i}": f"Rule {i}?" for i in range(8)}
    gold = {q: [("doc_a", 1)] for q in texts} | {q: [("doc_b", 2)] for q in ("q0", "q1", "q2")}
    run = _run("new", {q: [("doc_a", (1,), "x", 1.0)] for q in texts})
    found = [f.sentence for f in diagnose([run], run, _losses(["q0", "q1", "q2"]), _golden(texts, gold=gold))
             if f.kind == "concentrated losses"]
    assert found == ["3 of 3 newly missed questions have doc_b as gold document (3 of 8 questions overall)."]


def test_identical_logs_and_short_depth():
    lists = _distinct(3)
    a, b = _run("a", lists), _run("b", lists)
    found = diagnose([a, b], b, NO_MOVES, _golden({q: "x" for q in lists}))
    assert [f.sentence for f in found if f.kind == "identical logs"] == [
        "a and b returned identical items for every question: their logs hold the same content."]
    lists["q0"] = lists["q0"][:2]
    c = _run("c", lists, ks=(1, 5))
    found = diagnose([a, c], c, NO_MOVES, _golden({q: "x" for q in lists}))
    assert "identical logs" not in _kinds(found)
    assert [f.sentence for f in found if f.kind == "short depth"] == [
        "c logged at most 3 item(s) per question, fewer than k = 5."]


def test_language_is_told_by_the_script():
    assert [language(t) for t in ("经费报销", "経費の締め切り", "경비 청구", "报销", "Expense claim", None)] == [
        "Chinese", "Japanese", "Korean", "Chinese", "Latin-script", "Latin-script"]


def test_ranked_lists_compare_document_pages_and_text_in_rank_order():
    lists = {"q0": [("a", (1,), "x", 1.0), ("b", (2,), "y", 0.5)], "q1": [("b", (2,), "y", 1.0), ("a", (1,), "x", 0.5)],
             "q2": [("a", (1,), "x", 9.0), ("b", (2,), "y", 8.0)]}
    got = ranked_lists(_run("r", lists))
    assert got["q0"] == got["q2"] != got["q1"]  # scores do not matter, order does
    assert ranked_lists(_run("r", lists), questions=["q2", "q1"]) == {"q1": got["q1"], "q2": got["q2"]}
    assert got["q0"] == (("a", (1,), "x"), ("b", (2,), "y"))


@pytest.mark.parametrize("share", [0.5])
def test_thresholds_are_what_the_docstring_says(share):
    assert DOMINANT_SHARE == share and MIN_SAME == 3


def _same_list(docs):
    """Three questions that all got one list of one item per document in ``docs`` (page i+1 for the i-th)."""
    items = [(d, (i + 1,), f"text {d}", 1.0 - i / 10) for i, d in enumerate(docs)]
    return _run("r", {f"j{i}": list(items) for i in range(MIN_SAME)}, ks=(1, 5), depth=5)


def _same_sentence(docs):
    run = _same_list(docs)
    (sentence,) = [f.sentence for f in diagnose([run], run, NO_MOVES, _golden({f"j{i}": "x" for i in range(MIN_SAME)}))
                   if f.kind == "same ranking"]
    return sentence


def test_a_same_list_names_its_first_three_documents_and_counts_the_rest():
    three = _same_sentence(["a", "b", "c"])
    assert "(a p.1, b p.2, c p.3)" in three and "more documents" not in three
    assert "(a p.1, b p.2, c p.3 and 1 more documents)" in _same_sentence(["a", "b", "c", "d"])


def test_a_single_score_is_not_called_constant():
    one = _run("one", {"q0": [("d", (1,), "t", 0.5)]})
    assert "constant scores" not in _kinds(diagnose([one], one, NO_MOVES, _golden({"q0": "x"})))
    two = _run("two", {"q0": [("d", (1,), "t", 0.5)], "q1": [("e", (1,), "u", 0.5)]})
    assert "constant scores" in _kinds(diagnose([two], two, NO_MOVES, _golden({"q0": "x", "q1": "x"})))


def test_findings_come_for_the_subject_first_then_the_other_runs_newest_first():
    lists = _distinct(3)
    runs = [_run(name, {q: items[:2] for q, items in lists.items()}, ks=(1, 3)) for name in ("old", "mid", "new")]
    for subject, order in ((runs[2], ["new", "mid", "old"]), (runs[0], ["old", "new", "mid"])):
        found = diagnose(runs, subject, NO_MOVES, _golden({q: "x" for q in lists}))
        assert [f.run for f in found if f.kind == "short depth"] == order


@pytest.mark.parametrize("japanese, found", [(60, True), (61, False), (59, True)])
def test_a_concentration_must_exceed_the_share_overall_by_the_stated_margin(japanese, found):
    """4 of 5 losses Japanese (0.8): a concentration when Japanese questions are at most 0.8 - CONCENTRATION_EXCESS
    of all questions (exactly 0.2 more counts), not when they are 0.61."""
    from rag_metrics.experiment.diagnosis import CONCENTRATION_EXCESS

    assert CONCENTRATION_EXCESS == 0.2
    texts = {f"j{i}": f"規則{i}は何ですか。" for i in range(japanese)} | \
        {f"q{i}": f"What is rule {i}?" for i in range(100 - japanese)}
    run = _run("new", {q: [("doc_a", (1,), "x", 1.0)] for q in texts})
    sentences = [f.sentence for f in diagnose([run], run, _losses(["j0", "j1", "j2", "j3", "q0"]), _golden(texts))
                 if f.kind == "concentrated losses" and "Japanese" in f.sentence]
    assert bool(sentences) is found, sentences
