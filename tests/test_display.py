"""Issue 48, display: every public result type renders in JupyterLab as HTML of fewer than 30 table rows that says
its level and judge where it has them, and prints as one line of fewer than 500 characters (an experiment report
printed 189,000-316,000 characters of dataclass text; overlap 0.862, marker 0.815 and document 0.923 looked alike)."""

import pytest

import rag_metrics as rm
from rag_metrics.experiment.experiment_report import experiment_report
from rag_metrics.io.corpus import data_dir

DATA = data_dir()
LOG_A, LOG_B = str(DATA / "examples" / "bm25_c300o50.jsonl"), str(DATA / "examples" / "bm25_c400o100.jsonl")


@pytest.fixture(scope="module")
def shown(golden, corpus):
    a, b = rm.evaluate_log(golden, LOG_A, corpus), rm.evaluate_log(golden, LOG_B, corpus)
    report = experiment_report(golden, [LOG_A, LOG_B], corpus, n_resamples=500)
    return {"golden set": golden, "corpus": corpus, "log": b.log, "result": b, "page evaluation": b.evaluation,
            "marker evaluation": b.at("page", "marker"), "document evaluation": b.document, "report": report,
            "verdict": report.verdict, "generation": b.generation(rm.load_answers(DATA / "answers.jsonl"),
                                                                  generator="gen_a"),
            "no generation": b.generation(), "paired test": rm.stats.paired_test(a, b, measure="mrr"),
            "paired verdict": rm.stats.paired_verdict(a, b), "comparison": rm.compare([a, b]),
            "drill-down": b.explain("q001"), "diagnosis": report.diagnosis(), "banner": report.banner(),
            "question view": report.question_view()}


def test_every_result_prints_in_one_short_line(shown):
    for name, obj in shown.items():
        text = repr(obj)
        assert len(text) < 500 and "\n" not in text, (name, len(text), text[:200])


def test_every_result_renders_as_html_of_fewer_than_30_rows(shown):
    """The report's every-question table (question_view: one row per answerable question, with a filter to the
    changed ones) is a section of the report page, not a result: it is left whole."""
    for name, obj in shown.items():
        if name == "question view":
            continue
        html = obj._repr_html_()
        assert html.strip() and html.count("<tr") < 30, (name, html.count("<tr"))


def test_an_evaluation_says_its_level_and_judge(shown):
    expected = {"page evaluation": "page level under the overlap judge (min_chars=24, window=1)",
                "marker evaluation": "page level under the marker judge (window=1)",
                "document evaluation": "document level (cut_then_dedup)"}
    for name, says in expected.items():
        assert says in repr(shown[name]) and says in shown[name]._repr_html_(), name
    for name in ("result", "report"):
        assert "page level under the overlap judge" in repr(shown[name])
        assert "page level under the overlap judge" in shown[name]._repr_html_()
    assert "under the overlap judge" in repr(shown["drill-down"])


def test_a_log_shows_its_text_on_one_line(shown):
    html = shown["log"]._repr_html_()
    assert "\\n" not in html and "Claims are paid in the currency" in html


def test_the_banner_is_no_longer_called_a_drilldown(shown):
    assert repr(shown["banner"]).startswith("<verdict banner: Within noise: bm25_c400o100 against bm25_c300o50")
    assert repr(shown["question view"]).startswith("<question view: 65 questions")
