"""The experiment report's ruler section, value by value, on what the world writes: reportlab PDFs with a running
footer, LangChain top-3 and top-5 logs over their pages, a log whose pages are 1-based under the 0-based preset,
and a scanned gold page. Each figure is checked against a count made from the judged rows or the log itself."""

import json
from pathlib import Path

import pandas as pd
import pytest

from producers import corpus_pdfs, langchain_log
from rag_metrics.experiment.experiment_report import experiment_report
from rag_metrics.experiment.rulers import RAW_OVERLAP
from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log

pytest.importorskip("reportlab")
pytest.importorskip("langchain_community")

MEASURES = ["hit@1", "hit@3", "hit@5", "mrr", "recall@5"]


@pytest.fixture(scope="module")
def footer(tmp_path_factory):
    """Footer PDFs, a LangChain top-3 and top-5 log, and the report of the two (top-5 the subject)."""
    folder = tmp_path_factory.mktemp("footer-report")
    pdfs = corpus_pdfs(folder / "pdf")
    corpus = load_corpus(pdfs)
    golden = load_golden(corpus=corpus, sample=True)
    logs = {k: langchain_log(pdfs, golden, folder / f"top{k}.jsonl", k=k) for k in (3, 5)}
    report = experiment_report(golden, [load_log(logs[k], preset="langchain") for k in (3, 5)], corpus,
                               order="given", history_dir=folder / "history", n_resamples=500)
    return folder, corpus, golden, logs, report


def _one_based(corpus, src: Path, dst: Path) -> Path:
    """The log with 1-based page metadata (as langchain-aws writes it) kept under the 0-based langchain preset."""
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    last = corpus.documents["n_pages"]
    for r in rows:  # a last page + 1 would be refused outright: leave those items out
        r["source_documents"] = [d for d in r["source_documents"]
                                 if d["metadata"]["page"] + 1 < last[Path(d["metadata"]["source"]).stem]]
        for d in r["source_documents"]:
            d["metadata"]["page"] += 1
    dst.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return dst


def test_ruler_table_covers_every_measure_and_k_under_every_ruler(footer):
    *_, report = footer
    table = report.ruler_table()
    assert {"document", "page", "overlap", RAW_OVERLAP, "document level (gold documents)"} <= set(table.index)
    assert set(MEASURES) <= set(table.columns)
    for ruler in ("page", "overlap", "document"):  # the same numbers as each ruler's own evaluation
        summary = report.subject.pages[ruler].summary_dict()
        for m in MEASURES:
            assert table.at[ruler, m] == summary[m]["mean"]
    raw = report.subject.raw_overlap()[1].summary_dict()
    assert [table.at[RAW_OVERLAP, m] for m in MEASURES] == [raw[m]["mean"] for m in MEASURES]


def test_ruler_spread_reads_the_table(footer):
    *_, report = footer
    s = report.ruler_spread("hit@1")
    column = report.ruler_table().drop(index="document level (gold documents)")["hit@1"]
    assert (s["low_value"], s["high_value"]) == (column.min(), column.max())
    assert s["spread"] == pytest.approx(column.max() - column.min()) and s["rulers"] == len(column)
    # page furniture credits whole documents: the ruler that keeps it reads hit@1 like the document judge
    assert s["high_value"] == pytest.approx(column["document"]) and s["spread"] >= 0.1
    iv = report.subject_record["intervals"]["hit@1"]  # the yardstick: the subject's own 95% interval
    assert s["width"] == pytest.approx(iv["high"] - iv["low"]) and 0 < s["width"] < 1


def test_changes_per_ruler_show_top3_to_top5_where_the_footer_hid_it(footer):
    *_, report = footer
    changes = report.ruler_changes()
    assert changes.at["overlap", "hit@5"] > 0.03 and changes.at["overlap", "recall@5"] > 0.03
    assert changes.at[RAW_OVERLAP, "hit@5"] == 0  # the footer credits the whole document at both depths
    assert abs(changes.at["overlap", "hit@5"] - changes.at["page", "hit@5"]) <= 0.02
    # the same numbers as each run's own ruler table (a second path to the same figure)
    before, after = report.baseline.ruler_table(), report.subject.ruler_table()
    for ruler in changes.index:
        for m in MEASURES:
            assert changes.at[ruler, m] == pytest.approx(after.at[ruler, m] - before.at[ruler, m])
    assert list(changes.columns) == MEASURES


def test_a_report_without_the_baselines_log_has_no_change_per_ruler(footer, tmp_path):
    _, corpus, golden, logs, report = footer
    history = tmp_path / "history"
    experiment_report(golden, [load_log(logs[3], preset="langchain")], corpus, history_dir=history, n_resamples=200)
    alone = experiment_report(golden, [load_log(logs[5], preset="langchain")], corpus, history_dir=history,
                              n_resamples=200)
    assert alone.baseline_record is not None and alone.baseline is None and alone.ruler_changes() is None


def test_disagreements_list_false_hits_and_misses_with_their_text(footer):
    *_, report = footer
    assert report.ruler_pairs()[0] == ("overlap", "page") and report.ruler_pairs()[-1] == ("overlap", "document")
    d = report.ruler_disagreements()
    k = max(report.subject.ks)
    # counted independently from the two rulers' judged rows
    mine = report.subject.judged["overlap"]
    raw = report.subject.raw_overlap()[2]
    key = ["question_id", "rank"]
    both = mine[mine["rank"] <= k][key + ["hit"]].merge(raw[raw["rank"] <= k][key + ["hit"]], on=key)
    raw_only = int((both["hit_y"] & ~both["hit_x"]).sum())
    pair = d[(d["credited_by"] == RAW_OVERLAP) & (d["not_credited_by"] == "overlap")]
    assert len(pair) == raw_only >= 8 and report.furniture_hits() == raw_only
    # credited through furniture alone: all the text they share with the gold page is furniture
    assert pair["only_boilerplate"].mean() > 0.8 and pair["shared_text"].str.len().gt(0).all()
    counts = report.disagreement_counts()
    row = counts.loc[f"overlap vs {RAW_OVERLAP}"]
    assert row["credited by the second only"] == raw_only and row["credited by the first only"] == 0
    # the counts (from the judged rows) and the full list (item by item) are two paths to the same numbers
    for (a, b), (_, r) in zip(report.ruler_pairs(), counts.iterrows()):
        assert r["credited by the first only"] == int(((d["credited_by"] == a) & (d["not_credited_by"] == b)).sum())
        assert r["credited by the second only"] == int(((d["credited_by"] == b) & (d["not_credited_by"] == a)).sum())


def test_the_list_of_disagreements_is_capped_per_pair(footer):
    *_, report = footer
    full, capped = report.ruler_disagreements(), report.ruler_disagreements(limit=2)
    for a, b in report.ruler_pairs():
        first = full[((full["credited_by"] == a) & (full["not_credited_by"] == b))
                     | ((full["credited_by"] == b) & (full["not_credited_by"] == a))]
        mine = capped[((capped["credited_by"] == a) & (capped["not_credited_by"] == b))
                      | ((capped["credited_by"] == b) & (capped["not_credited_by"] == a))]
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), first.head(2).reset_index(drop=True))


def test_no_furniture_comparison_when_the_headline_is_not_the_overlap_judge(footer, tmp_path):
    _, corpus, golden, logs, _ = footer
    report = experiment_report(golden, [load_log(logs[5], preset="langchain")], corpus, judge="page",
                               history_dir=tmp_path / "h", n_resamples=200)
    assert report.ruler_pairs()[0][0] == "page" and report.furniture_hits() is None


def test_boilerplate_lines_per_document(footer):
    _, corpus, *_, report = footer
    lines = report.boilerplate()
    assert {"expense_policy", "travel_policy"} <= set(lines["doc_id"]) <= set(corpus.documents.index)
    assert lines.equals(report.subject.boilerplate())
    row = lines[lines["doc_id"] == "expense_policy"].iloc[0]
    assert row["text"].endswith("Expense Reimbursement Policy #") and row["pages"] == row["n_pages"] == 12


def test_page_audit_per_log_and_the_page_base_warning(footer, tmp_path):
    folder, corpus, golden, logs, report = footer
    audits = report.page_audits()
    assert list(audits.index) == ["top3", "top5"] and (audits["equal share"] == 1.0).all()
    assert report.page_warnings() == []
    wrong = _one_based(corpus, logs[5], tmp_path / "one_based.jsonl")
    shifted = experiment_report(golden, [load_log(logs[3], preset="langchain"), load_log(wrong, preset="langchain")],
                                corpus, order="given", history_dir=tmp_path / "history", n_resamples=200)
    audits = shifted.page_audits()
    assert audits.at["one_based", "+1 share"] == 1.0 and audits.at["one_based", "equal"] == 0
    assert audits.at["top3", "equal share"] == 1.0
    by_hand = sum(len(json.loads(line)["source_documents"]) for line in wrong.read_text().splitlines())
    assert audits.at["one_based", "audited"] == by_hand
    [warning] = shifted.page_warnings()
    assert warning.startswith("one_based: the logged page is one more") and "--page-base 1" in warning


def test_placements_and_items_placed_by_text(footer, tmp_path):
    *_, report = footer
    table = report.placements()
    assert list(table.index) == ["top3", "top5"] and set(table["placed_by"]) == {"logged"}
    assert table.loc["top5", "items"] == len(report.subject.run)
    assert report.placed_by_text() == {}


def test_gold_pages_without_text_are_flagged_per_question(tmp_path):
    pdfs = corpus_pdfs(tmp_path / "pdf", empty={"expense_policy": (3,)})
    corpus = load_corpus(pdfs)
    golden = load_golden(corpus=corpus, sample=True)
    path = langchain_log(pdfs, golden, tmp_path / "log.jsonl", k=3)
    report = experiment_report(golden, [load_log(path, preset="langchain")], corpus, history_dir=tmp_path / "h",
                               n_resamples=200)
    table = report.unfindable()
    gp = golden.gold_pages
    expected = sorted(gp.loc[(gp["doc_id"] == "expense_policy") & (gp["page"] == 3), "question_id"])
    assert sorted(table["question_id"]) == expected and len(expected)
    assert set(table["pages without text"]) == {"expense_policy p.3"}
    assert (table["question"] == table["question_id"].map(golden.questions["question"])).all()
    html = report.explain(expected[0])._repr_html_()
    assert "unfindable by text judges" in html


def test_the_report_notebook_shows_the_ruler_section(footer, tmp_path, capsys, warm_kernels):
    """End to end: the report of the top-3 log and the 1-based top-5 log (its own shape given per run) names the
    page-base fix at the top and in the audit, and lists the footer it left out, escaped."""
    from rag_metrics.io.corpus import data_dir
    from rag_metrics.report.kernel import EXPERIMENT_KEY
    from rag_metrics.report.experiment_build import build_experiment_report

    folder, corpus, golden, logs, _ = footer
    wrong = _one_based(corpus, logs[5], tmp_path / "one_based.jsonl")
    golden_path = data_dir() / "golden.jsonl"  # the golden set the PDFs were written for
    run = build_experiment_report("footer", golden=golden_path, runs=[f"langchain:{logs[3]}", f"langchain:{wrong}"],
                                  pages=folder / "pdf", order="given", reports_dir=tmp_path / "reports",
                                  progress_bar=False)
    html = (run / "experiment.html").read_text(encoding="utf-8")
    assert html.count("--page-base 1") >= 2  # at the top and in the audit
    assert "Expense Reimbursement Policy #" in html
    assert RAW_OVERLAP in html and "credited by the first only" in html
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary[EXPERIMENT_KEY]["subject"] == "one_based"


def test_a_log_without_text_has_no_audit_row(footer, tmp_path):
    """Nothing to locate without text: the audit lists only the logs whose items it could place, never a row of
    undefined shares."""
    _, corpus, golden, logs, _ = footer
    rows = [json.loads(line) for line in logs[5].read_text(encoding="utf-8").splitlines()]
    for r in rows:
        for d in r["source_documents"]:
            d["page_content"] = ""
    bare = tmp_path / "no_text.jsonl"
    bare.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = experiment_report(golden, [load_log(logs[3], preset="langchain"), load_log(bare, preset="langchain")],
                               corpus, order="given", history_dir=tmp_path / "history", n_resamples=200)
    audit = report.subject.page_audit()
    assert audit is not None and audit.located == 0
    assert list(report.page_audits().index) == ["top3"] and report.page_warnings() == []


def test_raw_overlap_judges_again_only_what_the_ruled_judge_left_short(footer):
    """Three paths to the furniture-kept judgments: all rows judged again; the answers the headline judge kept from
    its own pass (``satisfies_kept``, what the report uses); only the rows the headline judge credits with fewer than
    all gold pages of their document judged again (without them). Same rows, same gold pages credited."""
    from dataclasses import replace

    from rag_metrics.experiment.rulers import _judge_raw
    from rag_metrics.judging.judges import judge_run

    *_, report = footer
    subject = report.subject
    raw = replace(subject.judges["overlap"], boilerplate=None)
    with_doc = subject.run[subject.run["doc_id"].notna()]
    everything = judge_run(with_doc, None, subject.golden.gold_pages, raw, subject.page_index)
    ruled = subject.judged["overlap"]
    assert "satisfies_kept" in ruled.columns
    shortcut = subject.raw_overlap()[2]
    again = _judge_raw(with_doc, ruled.drop(columns="satisfies_kept"), subject.golden.gold_pages, raw,
                       subject.page_index)
    for path in (shortcut, again):
        assert path["satisfies"].tolist() == everything["satisfies"].tolist()
        assert path["hit"].tolist() == everything["hit"].tolist()
    ruled = subject.judged["overlap"]["satisfies"]
    assert (everything["hit"] & ~ruled.map(bool)).sum() >= 8  # furniture credits rows the ruled judge does not
