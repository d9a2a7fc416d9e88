"""The experiment loop: a retriever run and logged, the log judged (text, pages, IDs), the experiment report."""

import json
import re
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics import InputError
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.logs import load_log
from rag_metrics.judging.judges import OverlapJudge
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.measures.page_level import evaluate_pages
from rag_metrics.retrieval.chunking import chunk_fixed
from rag_metrics.retrieval.retrievers import BM25Retriever
from rag_metrics.retrieval.run_retriever import builtin_search, run_retriever
from rag_metrics.core.text import normalize

EXAMPLES = data_dir() / "examples"


# ---- the overlap judge on hashes equals the definition ------------------------------------------

def naive_boilerplate(pages, doc, f, share=0.5, min_pages=3):
    """The boilerplate rule, written plainly: F-character fragments (digits read as 0) on more than ``share`` of the
    document's pages and on at least ``min_pages`` of them."""
    fold = lambda s: re.sub("[0-9]", "0", s)  # noqa: E731
    texts = [t for (d, _), t in pages.items() if d == doc]
    if len(texts) < min_pages or share >= 1:
        return set()
    need = max(min_pages, int(share * len(texts)) + 1)
    found = {fold(t[i:i + f]) for t in texts for i in range(len(t) - f + 1)}
    return {g for g in found if sum(any(fold(t[i:i + f]) == g for i in range(len(t) - f + 1)) for t in texts) >= need}


def naive_overlap(text, doc, gold, pages, f, window, boilerplate=True):
    """The definition, written plainly: a shared F-character substring with a gold page +- window that holds no
    character of the document's boilerplate."""
    furniture = naive_boilerplate(pages, doc, f) if boilerplate else set()
    grams = {text[i:i + f] for i in range(len(text) - f + 1)}

    def body_fragments(page):  # fragments of the page with no character inside a furniture fragment
        dirty = [False] * len(page)
        for i in range(len(page) - f + 1):
            if re.sub("[0-9]", "0", page[i:i + f]) in furniture:
                dirty[i:i + f] = [True] * f
        return {page[i:i + f] for i in range(len(page) - f + 1) if not any(dirty[i:i + f])}

    out = set()
    for d, p in gold:
        if d != doc or not grams:
            continue
        for q in range(p - window, p + window + 1):
            page = pages.get((d, q))
            if page is not None and grams & body_fragments(page):
                out.add((d, p))
    return out


ALPHABET = "ab 経費精算５5\u3000\n"


@given(st.lists(st.text(ALPHABET, max_size=40), min_size=1, max_size=6),
       st.text(ALPHABET, max_size=60), st.integers(1, 6), st.integers(0, 2), st.integers(1, 6), st.booleans())
def test_overlap_judge_equals_the_definition(page_texts, chunk, f, window, gold_page, rule):
    pages_df = pd.DataFrame({"doc_id": "d", "page": range(1, len(page_texts) + 1), "text": page_texts})
    normalized = {("d", i + 1): normalize(t) for i, t in enumerate(page_texts)}
    gold = [("d", gold_page), ("e", 1)]
    judge = OverlapJudge(min_chars=f, window=window, **({} if rule else {"boilerplate": None}))
    expected = naive_overlap(normalize(chunk), "d", gold, normalized, f, window, boilerplate=rule)
    assert judge.satisfied({"doc_id": "d", "text": chunk}, gold, judge.index(pages_df)) == expected
    items = pd.DataFrame({"question_id": ["q", "q"], "doc_id": ["d", "e"], "text": [chunk, chunk]})
    assert judge.satisfy(items, {"q": gold}, PageIndex(pages_df)) == [frozenset(expected), frozenset()]


@given(st.lists(st.text("ab12 ", max_size=30), min_size=3, max_size=8), st.lists(st.text("ab12 ", max_size=40),
       min_size=1, max_size=5), st.integers(1, 9), st.integers(0, 1))
def test_overlap_judge_equals_the_definition_on_many_items_at_once(page_texts, chunks, f, window):
    """The batched path (every item of every question in one call) on texts with shared digits and repeats."""
    pages_df = pd.DataFrame({"doc_id": "d", "page": range(1, len(page_texts) + 1), "text": page_texts})
    normalized = {("d", i + 1): normalize(t) for i, t in enumerate(page_texts)}
    gold = {f"q{i}": [("d", 1 + i % len(page_texts))] for i in range(len(chunks))}
    judge = OverlapJudge(min_chars=f, window=window)
    items = pd.DataFrame({"question_id": list(gold), "doc_id": "d", "text": chunks})
    expected = [frozenset(naive_overlap(normalize(c), "d", gold[q], normalized, f, window)) for q, c in
                zip(gold, chunks)]
    assert judge.satisfy(items, gold, PageIndex(pages_df)) == expected


def test_logged_text_is_judged_as_the_chunk_table_is(corpus, golden):
    """A run judged from the chunk table and the same run with its text logged give identical numbers."""
    chunks = chunk_fixed(corpus, 300, 50)
    run = BM25Retriever(chunks).search(golden.labelled.reset_index(), 5)
    logged = run.assign(text=run["chunk_id"].map(chunks.set_index("chunk_id")["text"]))
    judge = OverlapJudge()
    a = evaluate_pages(golden, run, ["hit@1", "hit@3", "mrr", "recall@5"], judge=judge, corpus=corpus, chunks=chunks)
    b = evaluate_pages(golden, logged, ["hit@1", "hit@3", "mrr", "recall@5"], judge=judge, corpus=corpus)
    pd.testing.assert_frame_equal(a.per_question, b.per_question)
    assert a.summary.loc["hit@3", "mean"] > 0.9


def test_the_langchain_log_gives_the_native_numbers(corpus, golden):
    native = evaluate_log(golden, load_log(EXAMPLES / "bm25_c400o100.jsonl"), corpus)
    foreign = evaluate_log(golden, load_log(EXAMPLES / "langchain_bm25_c400o100.jsonl", preset="langchain"), corpus)
    assert foreign.documents["by_file_name"] == 8 and foreign.documents["unmatched"] == 0
    for judge in ("overlap", "marker", "document"):
        pd.testing.assert_frame_equal(native.pages[judge].per_question, foreign.pages[judge].per_question)
    assert list(foreign.answers().items())[:1] == [("q001", "30 days")]


def test_which_judges_apply(corpus, golden, tmp_path):
    path = tmp_path / "ids_only.jsonl"
    rows = [json.loads(line) for line in (EXAMPLES / "bm25_c400o100.jsonl").read_text().splitlines()]
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps({"question_id": r["question_id"], "retrieved": [
                {"doc_id": i["doc_id"], "chunk_id": i["chunk_id"]} for i in r["retrieved"]]}) + "\n")
    ids_only = evaluate_log(golden, load_log(path), corpus)
    assert list(ids_only.judges) == ["document"] and ids_only.primary == "document"
    no_corpus = evaluate_log(golden, load_log(EXAMPLES / "bm25_c400o100.jsonl"), None)
    assert list(no_corpus.judges) == ["document", "page", "marker"] and no_corpus.primary == "page"
    with pytest.raises(InputError, match="judge 'overlap' does not apply to this log"):
        evaluate_log(golden, load_log(path), corpus, primary="overlap")


def test_questions_by_text_unknown_missing_and_failed(corpus, golden, tmp_path):
    path = tmp_path / "log.jsonl"
    q = golden.questions
    lines = [
        {"question": "  " + q.at["q001", "question"].replace(" ", "  "), "retrieved": [
            {"doc_id": "s3://kb/docs/expense_policy.pdf", "text": corpus.page_text("expense_policy", 3)}]},
        {"question_id": "q002", "retrieved": [], "error": "TimeoutError: 30 s"},
        {"question_id": "zz9", "retrieved": [{"doc_id": "faq_ja"}]},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines))
    r = evaluate_log(golden, load_log(path), corpus)
    assert r.evaluation.per_question.at["q001", "hit@1"] == 1.0  # matched by its text, document by file name
    assert r.unknown_questions == ["zz9"] and r.failed_questions == ["q002"]
    assert "q003" in r.missing_questions and "q001" not in r.missing_questions
    assert r.evaluation.per_question.at["q002", "hit@5"] == 0.0  # a failure is an empty ranking
    assert r.evaluation.per_question.at["q003", "hit@5"] == 0.0


def test_drilldown_escapes_logged_text(corpus, golden, tmp_path):
    path = tmp_path / "log.jsonl"
    evil = "<script>alert('x')</script> " + corpus.page_text("expense_policy", 3)[:200]
    path.write_text(json.dumps({"question_id": "q001", "retrieved": [{"doc_id": "travel_policy", "text": evil,
                                                                      "score": 1}]}))
    r = evaluate_log(golden, load_log(path), corpus)
    html = r.explain("q001")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<mark>" in html  # the text shared with the gold page is highlighted, although the document is wrong
    assert "miss in the top 5" in html


def test_drilldown_marks_only_the_match_that_decides(corpus, golden, tmp_path):
    """A fragment as long as the overlap judge needs is marked; a shorter one is shown as context, never marked (both
    on the item's own document: another document's gold page is no evidence, test_explore checks)."""
    gold = corpus.page_text("expense_policy", 3)
    start = next(i for i in range(300, len(gold)) if "\n" not in gold[i:i + 100] and "  " not in gold[i:i + 100])
    long_piece, short_piece = gold[start:start + 80], gold[start + 2:start + 18]  # 80 and 16 characters (needs 24)
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"question_id": "q001", "retrieved": [
        {"doc_id": "expense_policy", "text": "zq " + short_piece + " zq", "score": 2},  # its own document's gold page
        {"doc_id": "expense_policy", "text": "zq " + long_piece + " zq", "score": 1}]}))
    r = evaluate_log(golden, load_log(path), corpus)
    items = r.explain_data("q001")["items"]
    assert [kind for _, kind in items[0]["segments"] if kind] == ["context"] and not items[0]["hit"]
    assert "decides" in [kind for _, kind in items[1]["segments"]] and items[1]["hit"]
    html = r.explain("q001")._repr_html_()
    first, second = html.split("<strong>#1</strong>")[1].split("<strong>#2</strong>")
    assert "<mark>" not in first and 'class="rm-context"' in first and "<mark>" in second


# ---- the runner --------------------------------------------------------------------------------

def test_runner_retries_logs_failures_and_resumes(golden, tmp_path):
    calls = []
    questions = list(golden.labelled.index)[:6]

    def search(question, k):
        calls.append(question)
        qid = golden.questions.index[golden.questions["question"] == question][0]
        if qid == questions[1]:
            raise ConnectionError("the index is down")
        if qid == questions[2] and calls.count(question) == 1:
            raise TimeoutError("slow")  # succeeds on the retry
        return [{"doc_id": "expense_policy", "page": 1, "text": "x", "score": 1.0}] * min(k, 2)

    out = tmp_path / "run.jsonl"
    summary = run_retriever(search, golden, 3, out, settings={"retriever": "test"}, workers=2, retries=2,
                            backoff=0.0, progress=False, questions=questions)
    assert summary["failed"] == [questions[1]] and summary["questions"] == 6
    log = load_log(out)
    assert log.failed == [questions[1]]
    assert log.questions.set_index("question_id").at[questions[1], "error"] == "ConnectionError: the index is down"
    assert calls.count(golden.questions.at[questions[1], "question"]) == 3  # 1 + 2 retries
    settings = json.loads(Path(f"{out}.settings.json").read_text())
    assert settings["retriever"] == "test" and settings["k"] == 3 and settings["failed"] == [questions[1]]
    assert list(log.questions["question_id"]) == questions  # golden order, whatever order they finished in


def test_an_interrupted_run_resumes(golden, tmp_path):
    questions = list(golden.labelled.index)[:5]
    seen = []

    def flaky(question, k):
        seen.append(question)
        if len(seen) == 3:
            raise KeyboardInterrupt  # the user stops the run
        return [{"doc_id": "faq_ja", "page": 2}]

    out = tmp_path / "run.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_retriever(flaky, golden, 2, out, settings={"retriever": "flaky"}, workers=1, progress=False,
                      questions=questions)
    partial = Path(f"{out}.partial")
    assert partial.exists() and not out.exists()
    assert len(partial.read_text().splitlines()) == 2
    with pytest.raises(InputError, match="a partial log from a run with other settings exists"):
        run_retriever(flaky, golden, 3, out, settings={"retriever": "flaky"}, progress=False, questions=questions)
    seen.clear()
    summary = run_retriever(lambda q, k: [{"doc_id": "faq_ja", "page": 2}], golden, 2, out,
                            settings={"retriever": "flaky"}, workers=1, progress=False, questions=questions)
    assert summary["resumed"] == 2 and summary["questions"] == 5 and out.exists() and not partial.exists()
    assert load_log(out).questions["question_id"].tolist() == questions


def test_bad_retriever_output_is_logged_not_fatal(golden, tmp_path):
    out = tmp_path / "run.jsonl"
    summary = run_retriever(lambda q, k: [{"page": 1}], golden, 2, out, settings={}, retries=0, progress=False,
                            questions=list(golden.labelled.index)[:2])
    assert len(summary["failed"]) == 2
    assert "retrieved item 1 has no document" in load_log(out).questions["error"].iloc[0]


def test_cli_run_with_a_module_retriever_and_a_builtin(golden, tmp_path, monkeypatch, capsys):
    (tmp_path / "my_search.py").write_text(textwrap.dedent("""
        def search(question, k):
            return [{"doc_id": "expense_policy", "page": 3, "text": question, "score": 1.0}][:k]
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    golden_path = str(data_dir() / "golden.jsonl")
    assert main(["run", "--retriever", "my_search:search", "--golden", golden_path, "--experiment", "mine", "-k", "3",
                 "--no-progress"]) == 0
    logs = list((tmp_path / "runs" / "mine").glob("*.jsonl"))
    assert len(logs) == 1 and len(load_log(logs[0]).questions) == 71
    assert main(["run", "--retriever", "nosuch:search", "--golden", golden_path]) == 2
    assert "cannot import 'nosuch'" in capsys.readouterr().err
    search = builtin_search("bm25", load_corpus(sample=True), size=400, overlap=100)
    items = search("How many days do I have to submit an expense claim?", 3)
    assert len(items) == 3 and {"doc_id", "pages", "chunk_id", "text", "score"} <= set(items[0])


# ---- the experiment report ---------------------------------------------------------------------

def test_bad_report_inputs_exit_2_and_write_nothing(tmp_path, capsys):
    reports = tmp_path / "reports"
    bad_log = tmp_path / "bad.jsonl"
    bad_log.write_text('{"question_id": "q001", "retrieved": [{"doc_id": "x", "page": "p3"}]}\n')
    golden_path = str(data_dir() / "golden.jsonl")
    cases = [
        (["--golden", golden_path, "--run", str(bad_log)], r"bad.jsonl:1: question 'q001', retrieved item 1: page 'p3'"),
        (["--golden", str(tmp_path / "none.jsonl"), "--run", str(EXAMPLES / "bm25_c300o50.jsonl")], "file not found"),
        (["--run", str(EXAMPLES / "bm25_c300o50.jsonl")], "needs the golden set"),
        (["--golden", golden_path, "--run", str(EXAMPLES / "bm25_c300o50.jsonl"), "--preset", "lucene"],
         "unknown log preset 'lucene'"),
        (["--golden", golden_path, "--run", str(EXAMPLES / "langchain_bm25_c400o100.jsonl")],
         r"no list of retrieved items at retrieved"),
        (["--golden", golden_path, "--run", str(EXAMPLES / "bm25_c300o50.jsonl"), "--pages", str(tmp_path / "nowhere")],
         "not found; expected a folder of documents"),
        (["--golden", golden_path, "--run", str(EXAMPLES / "bm25_c300o50.jsonl"), "--answers",
          str(data_dir() / "answers.jsonl")], "several generators"),
    ]
    for args, message in cases:
        code = main(["report", "--experiment", "bad", "--reports-dir", str(reports), *args])
        err = capsys.readouterr().err
        assert code == 2 and re.search(message, err), (args, err)
    assert not reports.exists()



def test_experiment_report_end_to_end(tmp_path, capsys, warm_kernels):
    """Logs given newest first: every section, summary.json and the index describe the newest run."""
    from rag_metrics.report.experiment_build import build_experiment_report

    reports = tmp_path / "reports"
    kwargs = dict(golden=data_dir() / "golden.jsonl", pages=data_dir() / "corpus", reports_dir=reports,
                  progress_bar=False)
    old, new = EXAMPLES / "bm25_c300o50.jsonl", EXAMPLES / "bm25_c400o100.jsonl"
    first = build_experiment_report("exp", runs=[old], **kwargs)
    page = (first / "experiment.html").read_text()
    assert "is the first run of this experiment" in page and "In&nbsp;[" not in page  # code hidden
    executed = json.loads((first / "experiment.ipynb").read_text())
    assert not [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("name") == "stderr"]  # no warning
    second = build_experiment_report("exp", runs=[new, old], **kwargs)
    page = (second / "experiment.html").read_text()
    verdict = "Run <strong>bm25_c400o100</strong> (newest) against <strong>bm25_c300o50</strong> (baseline)."
    assert verdict in page and page.index(verdict) < page.index("1. The runs and what changed")
    assert "hit@5 0.954 → 0.985" in page and "Change <strong>+0.031</strong>" in page
    assert "<strong>within noise</strong>: <strong>bm25_c400o100</strong> against" not in page  # said once, by the banner
    assert "Every section below describes run <strong>bm25_c400o100</strong>" in page
    assert "inputs handed over by" not in page and "headline hit@1 (overlap judge) =" not in page  # no stray output
    assert page.index('class="rm-verdict" data-outcome="within noise"') < page.index(verdict)  # the banner first
    assert page.count("Every section below describes run <strong>bm25_c400o100</strong>") == 1  # said once
    assert "This section describes run" not in page and "describes run <strong>bm25_c300o50" not in page
    assert "char 300/50" in page and "char 400/100" in page
    assert "setting(s) differ between the two runs (the table); the same in both: " in page
    assert "<strong>2</strong> newly hit on hit@5 since bm25_c300o50" in page
    body = page.split("<body", 1)[1]  # (nbconvert's own style sheet mentions a <br> in a comment)
    assert body.count('class="rm-explain"') == 3 and "<br" not in body  # q014, q015, then the miss q064
    summary = json.loads((second / "summary.json").read_text())
    assert summary["_experiment"]["subject"] == "bm25_c400o100" and summary["_experiment"]["baseline"] == "bm25_c300o50"
    assert summary["experiment"]["hit@5 (overlap judge)"]["mean"] == pytest.approx(64 / 65)
    # judged@5 over the answerable questions only (the no_answer ones have no label), counted here from the raw files
    # (not with the evaluate() the report uses): the distinct documents of each question's top 5 that it judges
    judgments = {}
    for line in (data_dir() / "golden.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("gold_docs"):
            judgments[rec["question_id"]] = set(rec["gold_docs"])
    shares = []
    for line in Path(new).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        top = list(dict.fromkeys(item["doc_id"] for item in rec["retrieved"][:5]))
        if rec["question_id"] in judgments and top:
            shares.append(sum(d in judgments[rec["question_id"]] for d in top) / len(top))
    assert len(shares) == 65
    assert f"judged@5 = <strong>{sum(shares) / len(shares):.3f}</strong> over 65 answerable questions" in page
    history = sorted((reports / "exp" / "history").glob("*.json"))
    assert sorted(p.stem.split("_", 1)[1] for p in history) == ["bm25_c300o50", "bm25_c400o100"]  # saved once each
    build_experiment_report("exp", runs=[old, new], **kwargs)  # the same logs again: the same verdict
    index = (reports / "index.html").read_text()
    assert index.count(">experiment</a>") == 3 and "hit@1 (overlap judge)" in index
    assert "Within noise: bm25_c400o100 against bm25_c300o50 on hit@5, 0.954 → 0.985 (change +0.031" in index
    assert "+0.000 within noise" not in index and str(tmp_path) not in index  # no build-to-build delta, no absolute path
    assert index.count("<code>runs</code>: bm25_c400o100.jsonl, bm25_c300o50.jsonl") == 1
    for run in ("bm25_c300o50", "bm25_c400o100"):  # the trend: each run with its interval, linked to a report
        assert re.search(rf'<a href="exp/[0-9TZ-]+/experiment.html">{run}</a></td><td>2026-11-30 20:48:5\d UTC</td>', index), run


def test_the_command_says_when_most_logged_questions_are_unused(tmp_path, capsys, warm_kernels):
    log = tmp_path / "mostly_unknown.jsonl"
    rows = [json.loads(line) for line in (EXAMPLES / "bm25_c400o100.jsonl").read_text().splitlines()]
    log.write_text("".join(json.dumps({**r, "question_id": f"x{r['question_id']}"}) + "\n" for r in rows[2:])
                   + "".join(json.dumps(r) + "\n" for r in rows[:2]))
    code = main(["report", "--experiment", "unused", "--golden", str(data_dir() / "golden.jsonl"), "--run", str(log),
                 "--reports-dir", str(tmp_path / "r")])
    assert code == 0
    assert f"{log}: 69 of 71 logged questions are not in the golden set and are not used" in capsys.readouterr().err



@pytest.mark.parametrize("unknown, said", [(1, False), (2, False), (3, True), (4, True)])
def test_the_unused_questions_warning_needs_more_than_half_of_the_log(capsys, unknown, said):
    """The terminal warns when *most* of a log's questions are not in the golden set: 2 of 4 is half, not most."""
    from rag_metrics.report.experiment_build import _say_what_was_read

    info = {"logs": [{"source": "a.jsonl", "unknown": unknown, "questions": 4, "fingerprint": "f"}], "order": []}
    _say_what_was_read(info, progress_bar=False)
    assert ("4 logged questions are not in the golden set" in capsys.readouterr().err) is said


@pytest.mark.parametrize("runs, progress_bar, said", [(1, False, False), (1, True, True), (2, False, True),
                                                      (2, True, True), (3, False, True)])
def test_the_run_order_is_said_for_several_runs_and_for_one_only_beside_the_progress_bar(capsys, runs, progress_bar,
                                                                                           said):
    from rag_metrics.report.experiment_build import _say_what_was_read

    order = [{"source": f"/logs/r{i}.jsonl", "made_at": f"2026-12-0{i + 1}T00:00:00Z", "ordered_by": "settings"}
             for i in range(runs)]
    logs = [{"source": o["source"], "unknown": 0, "questions": 4, "fingerprint": str(i)} for i, o in enumerate(order)]
    _say_what_was_read({"logs": logs, "order": order}, progress_bar=progress_bar)
    err = capsys.readouterr().err
    assert ("runs oldest first: r0.jsonl (2026-12-01T00:00:00Z)" in err) is said, err


@pytest.mark.parametrize("measure, taken", [("recall@5", True), ("hit@3", True), ("mrr", True), ("recall@1", False),
                                            ("hit@4", False)])
def test_the_compared_measure_is_a_headline_measure_at_the_largest_cutoff_for_recall(measure, taken):
    """With ks (1, 3, 5): hit@k at each k, MRR and recall at the largest k may carry the comparison; others are
    refused before anything is read."""
    from rag_metrics.report.experiment_build import _check_comparison

    if taken:
        _check_comparison(drilldowns=20, order="made", alpha=0.05, measure=measure, ks=[1, 3, 5])
    else:
        with pytest.raises(InputError, match="measure"):
            _check_comparison(drilldowns=20, order="made", alpha=0.05, measure=measure, ks=[1, 3, 5])


def test_an_experiment_report_takes_paths_relative_to_where_it_is_started(tmp_path, monkeypatch, warm_kernels):
    """The notebook runs in its report folder, so the golden set and the logs given relative to the caller's folder
    reach it as absolute paths."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "golden.jsonl").write_text((data_dir() / "golden.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    (work / "run.jsonl").write_text((EXAMPLES / "bm25_c400o100.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(work)
    code = main(["report", "--experiment", "relative", "--golden", "golden.jsonl", "--run", "run.jsonl",
                 "--reports-dir", "reports"])
    assert code == 0
    assert list((work / "reports" / "relative").glob("*/experiment.html"))

def test_sample_examples_are_what_the_runner_writes(golden, corpus):
    """data/examples holds logs of `rag-metrics run` with the built-in BM25 (only latency and times differ)."""
    search = builtin_search("bm25", corpus, size=400, overlap=100)
    for line in (EXAMPLES / "bm25_c400o100.jsonl").read_text(encoding="utf-8").splitlines()[:10]:
        rec = json.loads(line)
        assert search(rec["question"], 5) == rec["retrieved"]
    settings = json.loads((EXAMPLES / "bm25_c400o100.jsonl.settings.json").read_text())
    assert settings["golden"] == golden.fingerprint() and settings["options"]["size"] == 400


def _numpy_search(question, k):
    """What FAISS-backed retrievers return: numpy scores and pages."""
    import numpy as np

    return [{"doc_id": "expense_policy", "page": np.int64(3), "score": np.float32(0.75), "chunk_id": "c1"},
            {"doc_id": "faq_ja", "pages": np.array([1, 2]), "score": np.float64(0.5), "rank_hint": np.int32(2)}][:k]


def test_numpy_values_are_written_as_json_numbers(golden, tmp_path):
    from rag_metrics.io.logs import load_log

    out = tmp_path / "numpy.jsonl"
    summary = run_retriever(_numpy_search, golden, 2, out, settings={"retriever": "faiss-like"}, retries=0,
                            progress=False, questions=["q001", "q002"])
    assert summary["failed"] == []
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["retrieved"][0]["page"] == 3 and type(rows[0]["retrieved"][0]["page"]) is int
    assert rows[0]["retrieved"][0]["score"] == 0.75 and rows[0]["retrieved"][1]["pages"] == [1, 2]
    log = load_log(out)
    assert log.run["pages"].tolist()[:2] == [(3,), (1, 2)]


@pytest.mark.parametrize("bad, error", [
    ({"tags": {"a", "b"}}, "set is not JSON serializable"),
    ({"text": "lone \ud800 surrogate"}, "surrogate"),
    ({"score": float("nan")}, "NaN"),
])
def test_a_value_that_cannot_be_written_is_that_questions_error(golden, tmp_path, bad, error):
    """Never a crash of the run: the question is logged with its error (once: retrying cannot help), the others go on."""
    from rag_metrics.io.logs import load_log

    calls = []

    def search(question, k):
        calls.append(question)
        item = {"doc_id": "expense_policy", "page": 3, "score": 1.0}
        return [{**item, **bad}] if question == golden.questions.at["q002", "question"] else [item]

    out = tmp_path / "bad.jsonl"
    summary = run_retriever(search, golden, 2, out, settings={}, retries=2, backoff=0, progress=False,
                            questions=["q001", "q002", "q003"])
    assert summary["failed"] == ["q002"] and len(calls) == 3
    rows = {r["question_id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert error in rows["q002"]["error"] and rows["q002"]["retrieved"] == []
    assert rows["q001"]["retrieved"] and rows["q003"]["retrieved"]
    assert load_log(out).failed == ["q002"]
