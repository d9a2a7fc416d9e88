"""Issue 48, one way in: evaluate_log takes any measure at any k, at page, document or chunk level, a judge by name or
as an object, and its one result holds the summary with intervals, per-question values with every attribute, the long
(measure, k, value) table, TREC files that trec_eval / pytrec_eval / ranx read back to the same numbers, and -- with
other results -- a ranx-like comparison table."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import rag_metrics as rm
from rag_metrics import InputError
from rag_metrics.core.errors import InputTypeError
from rag_metrics.io.corpus import data_dir
from rag_metrics.judging.judges import OverlapJudge
from rag_metrics.measures.page_level import evaluate_pages

DATA = data_dir()
GOLDEN, CORPUS = str(DATA / "golden.jsonl"), str(DATA / "corpus")
LOG_A, LOG_B = str(DATA / "examples" / "bm25_c300o50.jsonl"), str(DATA / "examples" / "bm25_c400o100.jsonl")
MEASURES = ["hit@1", "hit@5", "mrr", "recall@5", "ndcg@10", "precision@5", "map"]


@pytest.fixture(scope="module")
def result(golden, corpus):
    return rm.evaluate_log(golden, LOG_B, corpus, measures=["ndcg@k", "recall", "mrr", "map"], ks=(1, 3, 5, 10))


def test_measures_are_taken_at_every_k_and_every_level(result):
    expected = ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "recall@1", "recall@3", "recall@5", "recall@10", "mrr", "map"]
    assert result.headline_measures == expected
    for level in ("page", "document"):
        assert set(expected) <= set(result.at(level).measures)
    for judge in result.judges:
        assert set(expected) <= set(result.at("page", judge).measures)
    assert list(result.headline(n_resamples=200).columns[:3]) == ["n", "ndcg@1", "ndcg@1 low"]
    assert set(expected) <= set(result.ruler_table().columns)  # the furniture-kept ruler holds them too


def test_values_of_a_measure_not_evaluated_equal_an_evaluation_of_it(result, golden):
    direct = rm.evaluate(golden, result.run[result.run["doc_id"].notna()], ["ndcg@7"])
    assert np.allclose(result.values("ndcg@7", "document"), direct.values["ndcg@7"], equal_nan=True)
    page = evaluate_pages(golden, result.run[result.run["doc_id"].notna()], ["precision@2"], judge="overlap",
                             corpus=result.page_index)
    assert np.allclose(result.values("precision@2"), page.values["precision@2"], equal_nan=True)


def test_the_level_sets_the_headline(golden, corpus):
    doc = rm.evaluate_log(golden, LOG_B, corpus, level="document")
    assert doc.evaluation is doc.document and doc.level == "document" and doc.settings["level"] == "document"
    assert doc.misses(1) == [q for q, v in doc.document.per_question["hit@1"].items() if v == 0]
    with pytest.raises(InputError, match=r"level='chunk' counts gold chunk IDs, and this golden set gives none"):
        rm.evaluate_log(golden, LOG_B, corpus, level="chunk")
    with pytest.raises(InputError, match=r"a judge decides which pages count: it applies at level='page'"):
        doc.at("document", "overlap")


def test_a_judge_by_name_or_as_an_object(golden, corpus):
    by_name = rm.evaluate_log(golden, LOG_B, corpus, judge="marker")
    assert by_name.primary == "marker" and by_name.evaluation is by_name.pages["marker"]
    strict = rm.evaluate_log(golden, LOG_B, corpus, judge=OverlapJudge(min_chars=60, window=0))
    assert strict.judges["overlap"].min_chars == 60 and strict.settings["judge"]["min_chars"] == 60
    default = rm.evaluate_log(golden, LOG_B, corpus)
    assert strict.summary().loc["hit@1", "mean"] <= default.summary().loc["hit@1", "mean"]
    with pytest.raises(InputError, match=r"judge='marker' and primary='page' name two judges"):
        rm.evaluate_log(golden, LOG_B, corpus, judge="marker", primary="page")


def test_the_summary_has_intervals_and_per_question_has_every_attribute(result):
    summary = result.summary()
    assert list(summary.columns) == ["ruler", "n", "mean", "ci_low", "ci_high", "excluded", "method"]
    assert (summary["ci_low"] <= summary["mean"]).all() and (summary["mean"] <= summary["ci_high"]).all()
    assert summary.loc["mrr", "mean"] == pytest.approx(result.evaluation.summary.loc["mrr", "mean"])
    table = result.per_question
    assert {"type", "document", "document.language", "document.genre"} <= set(table.columns)
    assert table.loc["q044", "document.language"] == ("ja",)


def test_the_long_table_is_one_row_per_level_judge_and_measure(result):
    long = result.long(n_resamples=200)
    assert list(long.columns[:7]) == ["run", "ruler", "level", "judge", "measure", "k", "name"]
    assert {"value", "ci_low", "ci_high", "n"} <= set(long.columns)
    assert (long["run"] == result.name).all() and long["ruler"].notna().all()
    assert str(long["k"].dtype) == "Int64"  # a cutoff is an integer, not 5.0
    rows = long[(long["level"] == "page") & (long["judge"] == "overlap") & (long["measure"] == "ndcg")]
    assert list(rows["k"]) == [1, 3, 5, 10]
    assert list(rows["value"]) == pytest.approx([result.summary().loc[f"ndcg@{k}", "mean"] for k in (1, 3, 5, 10)])
    assert long.loc[long["name"] == "mrr", "k"].isna().all()  # over the whole ranking: no cutoff
    # the pivot the docs show keeps every ruler, the document level (whose judge is None) among them
    curve = long[long["measure"] == "recall"].pivot(index="k", columns="ruler", values="value")
    assert curve.shape[0] == 4 and curve.index.is_monotonic_increasing
    assert {"document level", "overlap", "marker", "page", "document"} <= set(curve.columns)
    assert curve.loc[5, "document level"] == pytest.approx(result.summary(level="document").loc["recall@5", "mean"])


def test_every_table_names_its_level_and_judge(result):
    page, doc = result.summary(), result.summary(level="document")
    assert set(page["ruler"]) == {"page level, overlap judge (min_chars=24, window=1, boilerplate_share=0.5, "
                                  "boilerplate_min_pages=3)"} == {page.attrs["ruler"]}
    assert set(doc["ruler"]) == {"document level (gold documents)"}
    assert set(result.summary(judge="marker")["ruler"]) == {"page level, marker judge (window=1)"}
    sliced = result.by("type", measures=["mrr"], level="document")
    assert set(sliced["ruler"]) == {"document level (gold documents)"}
    wide = result.by("type", measures=["mrr", "ndcg@5"], wide=True)
    assert wide.columns.name == page.attrs["ruler"] and list(wide.columns) == ["n", "mrr", "ndcg@5"]
    table = result.ruler_table()
    assert table.loc["document", "level"] == "page" and table.loc["document level (gold documents)", "level"] == \
        "document"


def test_by_wide_is_the_mean_per_slice_of_the_long_form(result):
    wide = result.by("type", measures=["mrr", "recall@5"], wide=True)
    long = result.by("type", measures=["mrr", "recall@5"], n_resamples=200)
    for t in wide.index:
        assert wide.loc[t, "mrr"] == pytest.approx(long.loc[(t, "mrr"), "mean"])
        assert wide.loc[t, "n"] == long.loc[(t, "mrr"), "n"]
    assert "no_answer" not in wide.index and "no_answer" in long.index.get_level_values(0)  # nothing defined there
    assert int(wide["n"].sum()) == int(result.summary().loc["mrr", "n"])


@pytest.mark.parametrize("call", ["summary", "by", "compare", "paired_verdict"])
def test_one_measure_as_a_string_is_one_measure(result, call):
    if call == "summary":
        assert list(result.summary(measures="mrr").index) == ["mrr"]
    elif call == "by":
        assert set(result.by("type", measures="mrr").index.get_level_values("measure")) == {"mrr"}
    elif call == "compare":
        assert list(rm.compare([result, result], "ndcg@5").wide().columns) == ["ndcg@5", "ndcg@5 W/T/L"]
    else:
        assert [t.measure for t in rm.stats.paired_verdict(result, result, "mrr").tests] == ["mrr"]


@pytest.mark.parametrize("bad", [5, [1, 2], {"mrr": 1}, [None]])
def test_measures_of_the_wrong_kind_say_what_was_expected(result, bad):
    for call in (lambda: result.summary(measures=bad), lambda: rm.compare([result, result], bad),
                 lambda: rm.stats.paired_verdict(result, result, bad)):
        with pytest.raises(InputTypeError, match=r"'measures' parameter .* must be one of the measure names as a "
                                                  r"string, or a list of them"):
            call()


def test_compare_takes_results_and_says_how_to_make_them_from_paths(result):
    with pytest.raises(InputTypeError, match=r"results of evaluate_log .* Got '.*bm25_c300o50.jsonl' instead\. "
                                              r"Evaluate each log first"):
        rm.compare([LOG_A, LOG_B])
    with pytest.raises(InputTypeError, match=r"a list of results of evaluate_log"):
        rm.compare(LOG_A)
    with pytest.raises(InputTypeError, match=r"Got a DataFrame instead"):
        rm.compare([result, result.run])


# ---- TREC files ------------------------------------------------------------------------------------------------

def _back(run, qrels, measures):
    return rm.evaluate_trec(qrels, run, measures)


@pytest.mark.parametrize("level", ["document", "page"])
def test_trec_files_read_back_to_the_same_numbers(result, tmp_path, level):
    run, qrels = result.to_trec(tmp_path, level)
    assert run.name == f"bm25_c400o100.{level}.run" and qrels.name == f"qrels.{level}.txt"
    back = _back(run, qrels, MEASURES).per_question
    answerable = result.golden.answerable  # a question without gold has no qrels line: trec_eval leaves it out
    for m in MEASURES:
        if level == "page" and m.startswith("recall"):
            continue  # a chunk satisfying two gold pages counts both here, once in a TREC run (stated)
        assert np.allclose(back.loc[answerable, m], result.values(m, level).loc[answerable]), m


def test_the_collapsing_order_is_written_and_stated(result, tmp_path):
    cut, qrels = result.to_trec(tmp_path / "cut", "document")
    dedup, _ = result.to_trec(tmp_path / "dedup", "document", order="dedup_then_cut")
    first = cut.read_text().splitlines()[0].split()
    assert first[5] == "bm25_c400o100.document.cut_then_dedup"
    assert dedup.read_text().splitlines()[0].split()[5] == "bm25_c400o100.document.dedup_then_cut"
    assert any("#dup@" in line for line in cut.read_text().splitlines())  # a later chunk of a listed document
    ours = result.values("ndcg@10", "document").loc[result.golden.answerable]
    as_cut, as_dedup = (_back(path, qrels, ["ndcg@10"]).per_question["ndcg@10"] for path in (cut, dedup))
    deduped = rm.evaluate(result.golden, result.run, ["ndcg@10"], order="dedup_then_cut").per_question["ndcg@10"]
    assert np.allclose(as_cut.loc[ours.index], ours, equal_nan=True)
    assert np.allclose(as_dedup.loc[ours.index], deduped.loc[ours.index], equal_nan=True)
    assert not np.allclose(as_dedup.dropna(), as_cut.dropna())  # numbering documents 1..n is the other order


def test_a_run_written_by_hand_and_its_qrels(golden, tmp_path):
    run = pd.DataFrame({"question_id": ["q001"] * 4, "rank": [1, 2, 3, 4],
                        "doc_id": ["faq_ja", "faq_ja", "expense_policy", "faq_ja"]})
    text = rm.trec_run(run, name="my run")
    assert text.splitlines() == ["q001 Q0 faq_ja 1 4 my_run.document.cut_then_dedup",
                                 "q001 Q0 faq_ja#dup@2 2 3 my_run.document.cut_then_dedup",
                                 "q001 Q0 expense_policy 3 2 my_run.document.cut_then_dedup",
                                 "q001 Q0 faq_ja#dup@4 4 1 my_run.document.cut_then_dedup"]
    assert rm.trec_run(run, order="dedup_then_cut").splitlines()[1].split()[2:4] == ["expense_policy", "2"]
    qrels = rm.trec_qrels(golden)
    assert qrels.splitlines()[:2] == ["q001 0 expense_policy 2", "q001 0 onboarding_ja 1"]
    assert "q066" not in qrels  # no_answer: no gold, no line
    with pytest.raises(InputError, match=r"trec_run: question 'q1' lists chunk 'c' twice"):
        rm.trec_run(pd.DataFrame({"question_id": ["q1", "q1"], "rank": [1, 2], "chunk_id": ["c", "c"]}), level="chunk")


def _pytrec_eval(qrels_text: str, run_text: str, measures: set) -> dict:
    """pytrec_eval in a fresh process (it keeps state between evaluators: tests/test_trec_oracle.py)."""
    qrels, run = {}, {}
    for line in qrels_text.splitlines():
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
    for line in run_text.splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    code = ("import json, sys, pytrec_eval\na = json.load(sys.stdin)\n"
            "print(json.dumps(pytrec_eval.RelevanceEvaluator(a['q'], set(a['m'])).evaluate(a['r'])))\n")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps({"q": qrels, "r": run, "m": sorted(measures)}),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("level", ["document", "page"])
def test_pytrec_eval_reads_the_files_back_to_the_same_numbers(result, tmp_path, level):
    pytest.importorskip("pytrec_eval")
    run, qrels = result.to_trec(tmp_path, level)
    got = _pytrec_eval(qrels.read_text(), run.read_text(), {"recip_rank", "ndcg_cut.10", "P.5", "success.1", "map"})
    pairs = {"mrr": "recip_rank", "ndcg@10": "ndcg_cut_10", "precision@5": "P_5", "hit@1": "success_1", "map": "map"}
    for q in result.golden.answerable:
        for ours, theirs in pairs.items():
            assert result.values(ours, level)[q] == pytest.approx(got[q][theirs], abs=1e-4), (q, ours)


def test_ranx_reads_the_files_back_to_the_same_numbers(result, tmp_path):
    ranx = pytest.importorskip("ranx")
    run, qrels = result.to_trec(tmp_path, "document")
    qrels, run = ranx.Qrels.from_file(str(qrels), kind="trec"), ranx.Run.from_file(str(run), kind="trec")
    # a question without gold has no qrels line; ranx, like trec_eval, then leaves it out (make_comparable)
    scores = ranx.evaluate(qrels, run, ["ndcg@10", "mrr", "hit_rate@1"], make_comparable=True, return_mean=False)
    gold = result.golden.gold
    ids = list(qrels.keys())
    assert sorted(ids) == sorted(set(gold.loc[gold["doc_id"].notna(), "question_id"]))
    assert set(ids) <= set(run.keys())
    for theirs, ours in (("ndcg@10", "ndcg@10"), ("mrr", "mrr"), ("hit_rate@1", "hit@1")):
        assert list(scores[theirs]) == pytest.approx(list(result.values(ours, "document").loc[ids]), abs=1e-6)


# ---- several runs ----------------------------------------------------------------------------------------------

def test_compare_is_a_runs_by_measures_table_with_marks_and_wins(golden, corpus, result):
    a = rm.evaluate_log(golden, LOG_A, corpus)
    comparison = rm.compare([a, result], ["hit@1", "mrr", "ndcg@10"])
    wide = comparison.wide()
    assert list(wide.index) == ["bm25_c300o50", "bm25_c400o100"]
    assert list(wide.columns) == ["hit@1", "hit@1 W/T/L", "mrr", "mrr W/T/L", "ndcg@10", "ndcg@10 W/T/L"]
    t = rm.stats.paired_test(a.values("mrr"), result.values("mrr"))
    assert wide.loc["bm25_c400o100", "mrr W/T/L"] == f"{t.wins}/{t.ties}/{t.losses}"
    assert wide.loc["bm25_c400o100", "mrr"] == f"{t.mean_b:.3f}" + ("▲" if t.verdict == "better" else "")
    assert wide.loc["bm25_c300o50", "mrr W/T/L"] == ""
    assert len(repr(comparison)) < 500 and "<table" in comparison._repr_html_()
    marked = rm.experiment.compare.comparison_table(
        {"a": {"m": pd.Series([0.0] * 30)}, "b": {"m": pd.Series([1.0] * 30)}})
    assert marked.loc[("b", "m"), "verdict"] == "better"
    with pytest.raises(InputError, match="compare needs at least two results"):
        rm.compare([a])


def test_the_report_takes_any_measure_for_its_verdict_and_moved_questions(golden, corpus):
    from rag_metrics.experiment.experiment_report import experiment_report

    report = experiment_report(golden, [LOG_A, LOG_B], corpus, measure="ndcg@10", n_resamples=500)
    assert report.verdict.measure == "ndcg@10" and report.measure == "ndcg@10"  # was refused: not a headline measure
    t = rm.stats.paired_test(report.baseline.values("ndcg@10"), report.subject.values("ndcg@10"))
    assert (report.verdict.wins, report.verdict.losses) == (t.wins, t.losses)
    assert set(report.moved()["change"]) <= {"improved", "worsened", "newly hit", "newly missed"}
    assert len(report.moved()) == t.wins + t.losses


def test_answers_of_two_generators_name_the_generators(result):
    answers = rm.load_answers(DATA / "answers.jsonl")
    with pytest.raises(InputError, match=r"the answers come from 2 generators \(gen_a, gen_b\): name one, e\.g\. "
                                         r"generation\(answers, generator='gen_a'\)"):
        result.generation(answers)
    with pytest.raises(InputError, match=r"The 'generator' parameter of generation must be one of \('gen_a', 'gen_b'\)"):
        result.generation(answers, generator="gen_c")


# ---- drill-downs that do not mislead ---------------------------------------------------------------------------

def test_a_drill_down_marks_only_what_decided_on_the_items_own_document(result):
    """An item is compared with the gold pages of its own document only (what the judges do): text it shares with
    another document's gold page is no evidence, and "the match that decides" is marked only on an item the overlap
    judge credited."""
    seen_foreign = seen_decides = 0
    for q in result.golden.answerable:
        data = result.explain_data(q, k=5)
        gold_docs = {d for d, _ in data["gold"]}
        for item in data["items"]:
            kinds = {kind for _, kind in item["segments"] if kind}
            if item["doc_id"] not in gold_docs:
                seen_foreign += 1
                assert not kinds and item["longest"] == 0, (q, item["rank"])
            if "decides" in kinds:
                seen_decides += 1
                assert item["verdicts"]["overlap"], (q, item["rank"])
    assert seen_foreign > 20 and seen_decides > 50  # both cases occur on the sample run


def test_the_longest_shared_fragment_is_contiguous_on_one_page():
    from rag_metrics.experiment.drilldown import longest_common

    text = "abcdefghijkl XYZ mnopqrstuvwx"
    pages = ["... abcdefghijkl XY ...", "... Z mnopqrstuvwx ..."]  # every 12-character piece is on a page, apart
    assert longest_common(text, [(0, len(text))], pages) == len("abcdefghijkl XY")  # not the 29 of the span
    assert longest_common(text, [(0, len(text))], [text]) == len(text)
    assert longest_common(text, [(0, 5), (17, 29)], pages) == 12
    assert longest_common(text, [], pages) == 0


def test_the_marker_judges_page_markers_are_shown(result):
    data = result.explain_data("q011", k=5)
    marked = [item for item in data["items"] if item["markers"]]
    assert marked and all(f"[p.{n}]" not in "".join(t for t, _ in item["segments"]) for item in marked
                          for n in item["markers"])  # removed from the normalized text...
    html = result.explain("q011", k=5)._repr_html_()
    for item in marked:  # ... and listed apart, where the marker judge's verdict can be read against them
        for n in item["markers"]:
            assert f"<code>[p.{n}]</code>" in html
