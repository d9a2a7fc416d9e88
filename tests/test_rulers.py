"""Rulers on what the world writes: reportlab PDFs with running footers/headers, logs from LangChain, LlamaIndex,
Bedrock (botocore Stubber) and ragas, each ruler checked against a count made by hand from the log itself."""

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from producers import bedrock_log, corpus_pdfs, langchain_log, llamaindex_log
from rag_metrics import InputError
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.cli import main
from rag_metrics.io.corpus import corpus_from_pages, load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log
from rag_metrics.judging.page_audit import audit_pages
from rag_metrics.judging.boilerplate import boilerplate_lines
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging import locate as locate_module
from rag_metrics.judging.locate import locate_items

pytest.importorskip("reportlab")
pytest.importorskip("langchain_community")

MEASURES = ["hit@1", "hit@3", "hit@5", "mrr", "recall@5"]


def by_hand_page_hits(path, golden, k, *, base=0, window=1):
    """Page hit@k counted from the log file itself: the Document's metadata.page (0-based) within the window."""
    gold = {q: list(zip(g["doc_id"], g["page"])) for q, g in golden.gold_pages.groupby("question_id")}
    hits = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        found = False
        for d in rec["source_documents"][:k]:
            doc, page = Path(d["metadata"]["source"]).stem, d["metadata"]["page"] + 1 - base
            found |= any(doc == gd and abs(page - gp) <= window for gd, gp in gold.get(rec["question_id"], []))
        if rec["question_id"] in gold:
            hits[rec["question_id"]] = float(found)
    return pd.Series(hits, index=pd.Index(list(hits), dtype=object)).sort_index()  # IDs as the package holds them


@pytest.fixture(scope="module")
def footer_run(tmp_path_factory):
    """PDFs with the running footer "<title> <page>", a LangChain top-3 and top-5 run over their pages."""
    folder = tmp_path_factory.mktemp("footer")
    pdfs = corpus_pdfs(folder / "pdf")
    corpus = load_corpus(pdfs)
    golden = load_golden(corpus=corpus, sample=True)
    logs = {k: langchain_log(pdfs, golden, folder / f"top{k}.jsonl", k=k) for k in (3, 5)}
    results = {k: evaluate_log(golden, load_log(p, preset="langchain"), corpus) for k, p in logs.items()}
    return corpus, golden, logs, results


def _close(result, tolerance=0.02):
    table = result.ruler_table()
    return (table.loc["overlap", MEASURES] - table.loc["page", MEASURES]).abs().max() <= tolerance


def test_overlap_agrees_with_page_metadata_on_footer_pdfs(footer_run):
    _, golden, logs, results = footer_run
    for k, result in results.items():
        table = result.ruler_table()
        assert result.primary == "overlap"
        assert _close(result), table
        for cut in (1, 3, 5):  # the page ruler is the count made by hand from the log
            hand = by_hand_page_hits(logs[k], golden, cut)
            got = result.pages["page"].per_question[f"hit@{cut}"].dropna().sort_index()
            pd.testing.assert_series_equal(got, hand, check_names=False)
        # boilerplate kept, the footer credits whole documents: the footer effect
        assert table.loc["overlap, boilerplate kept", "hit@1"] >= table.loc["overlap", "hit@1"] + 0.1
        assert table.loc["overlap, boilerplate kept", "hit@1"] == pytest.approx(table.loc["document", "hit@1"])
    furniture = results[5].boilerplate()
    assert {"expense_policy", "travel_policy"} <= set(furniture["doc_id"])
    row = furniture[furniture["doc_id"] == "expense_policy"].iloc[0]
    assert "Expense Reimbursement Policy #" in row["text"] and row["pages"] == row["n_pages"] == 12


def test_top3_to_top5_change_shows_under_the_default_ruler(footer_run):
    _, _, _, results = footer_run
    change = results[5].ruler_changes(results[3])["change"]
    assert change["overlap", "hit@5"] > 0.03 and change["overlap", "recall@5"] > 0.03
    assert abs(change["overlap", "hit@5"] - change["page", "hit@5"]) <= 0.02
    assert change["overlap, boilerplate kept", "hit@5"] == 0  # what the footer made the report say
    assert change["overlap", "hit@1"] == change["overlap", "hit@3"] == 0


def test_disagreements_list_false_hits_with_their_text(footer_run):
    _, _, _, results = footer_run
    d = results[5].ruler_disagreements("overlap, boilerplate kept", "page", k=1)
    false_hits = d[d["credited_by"] == "overlap, boilerplate kept"]
    assert len(false_hits) >= 8 and false_hits["only_boilerplate"].mean() > 0.8
    assert false_hits["shared_text"].str.len().gt(0).all()
    both = results[5].ruler_disagreements("overlap", "page", k=5)
    assert set(both["credited_by"]) <= {"overlap", "page"} and len(both) <= 6


@pytest.mark.parametrize("header, footer", [
    ("Printed 2026-11-30 | {title}", "Page {page} of {pages}"),
    ("{title} -- Confidential", None),
])
def test_other_furniture_the_rule_was_not_tuned_on(tmp_path, header, footer):
    pdfs = corpus_pdfs(tmp_path / "pdf", header=header, footer=footer)
    corpus = load_corpus(pdfs)
    golden = load_golden(corpus=corpus, sample=True)
    path = langchain_log(pdfs, golden, tmp_path / "log.jsonl", k=5)
    result = evaluate_log(golden, load_log(path, preset="langchain"), corpus)
    assert _close(result), result.ruler_table()
    assert len(result.boilerplate()) >= 4


def test_page_base_mistake_is_named(footer_run, tmp_path):
    corpus, golden, logs, _ = footer_run
    rows = [json.loads(line) for line in logs[5].read_text(encoding="utf-8").splitlines()]
    last = corpus.documents["n_pages"]
    for r in rows:  # 1-based page metadata (as langchain-aws writes it) under the 0-based langchain preset
        r["source_documents"] = [d for d in r["source_documents"]  # (a last page + 1 would be refused outright)
                                 if d["metadata"]["page"] + 1 < last[Path(d["metadata"]["source"]).stem]]
        for d in r["source_documents"]:
            d["metadata"]["page"] += 1
    path = tmp_path / "one_based.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    wrong = evaluate_log(golden, load_log(path, preset="langchain"), corpus)
    audit = wrong.page_audit()
    assert audit.counts["+1"] == audit.located == len(audit.items) and audit.offset == 1
    assert "--page-base 1" in audit.warning and audit.warning in wrong.notices()
    # the ±1 window hides most of it in hit@k; window 0 does not
    assert wrong.pages["page"].summary.at["hit@5", "mean"] > 0.5
    right = evaluate_log(golden, load_log(logs[5], preset="langchain"), corpus).page_audit()
    assert right.counts["equal"] == right.located == len(right.items) and right.warning is None


def test_bedrock_responses_through_the_stubber(footer_run, tmp_path):
    corpus, golden, logs, results = footer_run
    path = bedrock_log(Path(corpus.source), golden, tmp_path / "kb.jsonl", k=5)
    kb = evaluate_log(golden, load_log(path, preset="bedrock"), corpus)
    for m in MEASURES:  # the same retrieval as the LangChain log, read from another shape
        assert kb.pages["page"].summary.at[m, "mean"] == results[5].pages["page"].summary.at[m, "mean"]
        assert kb.pages["overlap"].summary.at[m, "mean"] == results[5].pages["overlap"].summary.at[m, "mean"]
    assert kb.page_audit().warning is None
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    last = corpus.documents["n_pages"]
    for r in rows:  # leave out last pages: read 0-based they would lie beyond the document, an error of its own
        r["retrievalResults"] = [x for x in r["retrievalResults"] if x["metadata"][
            "x-amz-bedrock-kb-document-page-number"] < last[Path(x["location"]["s3Location"]["uri"]).stem]]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    as_zero = evaluate_log(golden, load_log(path, preset="bedrock", fields={"page": "metadata.x-amz-bedrock-kb-"
                                                                                   "document-page-number",
                                                                           "page_base": 0}), corpus)
    assert as_zero.page_audit().offset == 1 and "--page-base 1" in as_zero.page_audit().warning


def test_page_beyond_the_document_is_refused_before_anything_is_written(footer_run, tmp_path, capsys):
    corpus, golden, _, _ = footer_run
    path = bedrock_log(Path(corpus.source), golden, tmp_path / "kb.jsonl", k=5, page_offset=20)
    with pytest.raises(InputError, match=r"retrieved item 1: page \d+ of '\w+' is beyond its last page"):
        evaluate_log(golden, load_log(path, preset="bedrock"), corpus)
    code = main(["report", "--experiment", "x", "--golden", str(golden.source), "--pages", str(corpus.source),
                 "--run", str(path), "--preset", "bedrock", "--reports-dir", str(tmp_path / "reports")])
    assert code == 2 and not (tmp_path / "reports").exists()
    assert "is beyond its last page" in capsys.readouterr().err


@pytest.mark.llamaindex_files
def test_llamaindex_page_labels_are_never_pages(tmp_path):
    corpus = load_corpus(sample=True)
    labels = {doc: [(0, "/r", 1), (2, "/D", 1)] for doc in corpus.documents.index}  # i, ii, 1, 2, ...
    pdfs = corpus_pdfs(tmp_path / "pdf", labels=labels)
    pdf = load_corpus(pdfs)
    golden = load_golden(corpus=pdf, sample=True)
    path = llamaindex_log(pdfs, golden, tmp_path / "li.jsonl", k=5)
    log = load_log(path, preset="llamaindex")
    assert set(log.run["page_label"]) >= {"i", "ii", "1"} and log.run["pages"].map(len).eq(0).all()
    result = evaluate_log(golden, log, pdf)
    assert (result.run["pages_from"] == "located").all() and (result.run["placed_by"] == "exact page").all()
    # by hand: each node's text is one PDF page's text; its physical page is where that text is
    pages = {(d, p): t for d, p, t in zip(pdf.pages["doc_id"], pdf.pages["page"], pdf.pages["text"])}
    for row in result.run.itertuples():
        physical = [p for (d, p), t in pages.items() if d == row.doc_id and t.strip() == row.text.strip()]
        assert row.pages == tuple(physical)
    assert any("page_label is the label printed" in n for n in result.notices())


def test_ragas_rows_hold_text_only_and_are_placed(footer_run, tmp_path):
    ragas = pytest.importorskip("ragas")
    corpus, golden, logs, results = footer_run
    rows = [json.loads(line) for line in logs[5].read_text(encoding="utf-8").splitlines()]
    samples = [ragas.SingleTurnSample(user_input=golden.questions.at[r["question_id"], "question"],
                                      retrieved_contexts=[d["page_content"] for d in r["source_documents"]])
               for r in rows]
    path = tmp_path / "ragas.jsonl"
    ragas.EvaluationDataset(samples=samples).to_jsonl(str(path))
    log = load_log(path, preset="ragas")
    assert log.run["doc_id"].isna().all()
    with pytest.raises(InputError, match="give --pages"):
        evaluate_log(golden, log, None)
    placed = evaluate_log(golden, log, corpus)
    assert set(placed.run["placed_by"]) <= {"exact page", "several candidates"}
    for m in MEASURES:  # placed by text, the figures of the log that named its pages
        assert placed.pages["overlap"].summary.at[m, "mean"] == results[5].pages["overlap"].summary.at[m, "mean"]
        assert placed.pages["page"].summary.at[m, "mean"] == results[5].pages["page"].summary.at[m, "mean"]


def test_scanned_gold_page_is_flagged(tmp_path):
    corpus = load_corpus(sample=True)
    pdfs = corpus_pdfs(tmp_path / "pdf", empty={"expense_policy": (3,)})
    pdf = load_corpus(pdfs)
    golden = load_golden(corpus=pdf, sample=True)
    path = langchain_log(pdfs, golden, tmp_path / "log.jsonl", k=3)
    result = evaluate_log(golden, load_log(path, preset="langchain"), pdf)
    flagged = result.unfindable_gold()
    expected = golden.gold_pages[(golden.gold_pages["doc_id"] == "expense_policy") & (golden.gold_pages["page"] == 3)]
    assert sorted(flagged["question_id"]) == sorted(expected["question_id"]) and len(flagged)
    q = flagged["question_id"].iloc[0]
    assert result.explain_data(q)["unfindable"] == [("expense_policy", 3)]
    assert any("have no text" in n for n in result.notices())
    assert len(corpus.documents) == len(pdf.documents)


# ---- unit tests by value --------------------------------------------------------------------------

def _pages(doc, texts):
    return [{"doc_id": doc, "page": i + 1, "text": t} for i, t in enumerate(texts)]


TINY = corpus_from_pages(
    _pages("a", ["alpha body text one is here. Acme Handbook 1", "bravo body text two is here. Acme Handbook 2",
                 "charlie body text three here. Acme Handbook 3", "delta body text four is here. Acme Handbook 4"])
    + _pages("b", ["the same passage twice over", "the same passage twice over"]))


def test_boilerplate_lines_by_value():
    table = boilerplate_lines(PageIndex(TINY), 12)
    # "is here. Acme Handbook N" ends pages 1, 2 and 4; page 3 ends "three here. Acme Handbook 3": there only
    # " here. Acme Handbook 3" is on more than half of the pages -- another cut of the same text, counted with it
    # (a row on one page would contradict the rule of at least three pages)
    assert table[["doc_id", "text", "pages", "n_pages"]].values.tolist() == [["a", "is here. Acme Handbook #", 4, 4]]
    assert set(table["doc_id"]) == {"a"}  # two pages: below min_pages, nothing is boilerplate of "b"


def test_locate_items_by_value():
    where = locate_items(["bravo body text two is here", "the same passage twice", "nothing like this anywhere at all",
                          "two is here. Acme Handbook 2 charlie body text"], TINY, min_chars=8)
    assert where["placed_by"].tolist() == ["exact page", "several candidates", "not found", "exact page"]
    assert where.loc[0, ["doc_id", "pages"]].tolist() == ["a", (2,)]
    assert where.loc[1, "doc_id"] == "b" and where.loc[1, "pages"] == (1, 2)
    assert where.loc[1, "candidates"] == (("b", 1, 1), ("b", 2, 2))
    assert where.loc[3, "pages"] == (2, 3)  # across a page break


@pytest.mark.parametrize("chunk", [2, 1 << 16])
def test_audit_verdicts_by_value(chunk, monkeypatch):
    """Items located a run at a time (two here) or all at once: the same verdicts in the same order."""
    from rag_metrics.judging import page_audit as audit_module

    monkeypatch.setattr(audit_module, "CHUNK", chunk)
    run = pd.DataFrame({"question_id": "q", "rank": [1, 2, 3, 4, 5], "doc_id": "a",
                        "pages": [(2,), (3,), (1,), (4,), (1,)],
                        "text": ["bravo body text two", "bravo body text two", "bravo body text two",
                                 "bravo body text two", "zzzz not there zzzz"]})
    audit = audit_pages(run, TINY, min_chars=8, page_base=0)
    assert audit.items["verdict"].tolist() == ["equal", "+1", "-1", "elsewhere", "not located"]
    assert audit.items["located"].tolist() == [(2,)] * 4 + [()]
    assert audit.counts.tolist() == [1, 1, 1, 1, 1] and audit.located == 4 and audit.offset is None
    shifted = run.assign(pages=[(3,)] * 5)
    audit = audit_pages(shifted, TINY, min_chars=8, page_base=0)
    assert audit.offset == 1 and "--page-base 1" in audit.warning and "100% of 4 located items" in audit.warning
    audit = audit_pages(run.assign(pages=[(1,)] * 5), TINY, min_chars=8, page_base=1)
    assert audit.offset == -1 and "--page-base 0" in audit.warning


def test_page_mapping_states_its_base(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"question_id": "q1", "retrieved": [{"doc_id": "a", "meta": {"p": 3}}]}) + "\n")
    with pytest.raises(InputError, match="must state where its page numbers start"):
        load_log(path, fields={"page": "meta.p"})
    assert load_log(path, fields={"page": "meta.p", "page_base": 1}).run["pages"].tolist() == [(3,)]
    assert load_log(path, fields={"page": "meta.p"}, page_base=0).run["pages"].tolist() == [(4,)]


def test_last_page_is_fine_and_one_more_is_refused():
    from rag_metrics.judging.page_audit import check_pages_in_documents

    run = pd.DataFrame({"question_id": ["q", "q"], "rank": [1, 2], "doc_id": ["a", "b"], "pages": [(4,), (2,)],
                        "line": [7, 7]})
    check_pages_in_documents(run, {"a": 4, "b": 2})
    with pytest.raises(InputError, match=r"log.jsonl:7: question 'q', retrieved item 2: page 3 of 'b' is beyond its "
                                         r"last page \(2\)"):
        check_pages_in_documents(run.assign(pages=[(4,), (3,)]), {"a": 4, "b": 2}, source="log.jsonl")


# ---- the notebook's stand-ins for PDFs, checked against PDFs -------------------------------------------------

@pytest.mark.parametrize("header, footer", [(None, "{title} {page}"), ("Printed 2026-11-30 | {title}", "Page {page} of {pages}")])
def test_running_text_is_what_a_pdf_reader_gives_back(tmp_path, header, footer):
    """with_running_text(corpus) holds, page by page, the characters the package's PDF reader reads from reportlab
    PDFs drawn with that header and footer (whitespace aside: the PDF wraps lines)."""
    from rag_metrics.experiment.rulers import with_running_text
    from rag_metrics.core.text import normalize

    corpus = load_corpus(sample=True)
    pdf = load_corpus(corpus_pdfs(tmp_path / "pdf", header=header, footer=footer))
    made = with_running_text(corpus, header=header, footer=footer)
    squeeze = lambda text: "".join(normalize(text).split())  # noqa: E731
    read = {(d, p): squeeze(t) for d, p, t in zip(pdf.pages["doc_id"], pdf.pages["page"], pdf.pages["text"])}
    ours = {(d, p): squeeze(t) for d, p, t in zip(made.pages["doc_id"], made.pages["page"], made.pages["text"])}
    assert ours == read
    assert made.pages[["doc_id", "page"]].equals(corpus.pages[["doc_id", "page"]])
    assert made.documents["title"].equals(corpus.documents["title"])


def test_pages_as_chunks_is_one_chunk_per_page():
    from rag_metrics.experiment.rulers import pages_as_chunks
    from rag_metrics.retrieval.chunking import CHUNK_COLUMNS

    corpus = load_corpus(sample=True)
    chunks = pages_as_chunks(corpus)
    assert list(chunks.columns) == CHUNK_COLUMNS and len(chunks) == len(corpus.pages)
    assert (chunks["start_page"] == corpus.pages["page"]).all() and (chunks["end_page"] == chunks["start_page"]).all()
    assert chunks["text"].tolist() == corpus.pages["text"].tolist() and chunks["chunk_id"].is_unique
    for row in chunks.sample(10, random_state=0).itertuples():  # offsets point into the document's text
        assert corpus.text(row.doc_id)[row.start:row.end] == row.text


def test_notebook_03_says_only_what_its_figures_support():
    """Every claim the committed notebook 03 makes is the one its rule computes from the claim's figures (the same
    check the notebook parameter test makes on every run), and its headline claims hold at the defaults."""
    from notebook_claims_judging import MARKER_VS_OVERLAP
    from rag_metrics.report.kernel import claims

    found = claims(Path(__file__).resolve().parent.parent / "notebooks" / "03_marker_vs_overlap_judging.ipynb")
    assert {c["name"] for c in found} == set(MARKER_VS_OVERLAP)
    for c in found:
        assert MARKER_VS_OVERLAP[c["name"]](c["figures"], {}) == c["holds"], c["name"]
        assert (c["shown"] or None) == ((c["text_if_true"] if c["holds"] else c["text_if_false"]) or None)
    assert all(c["holds"] for c in found if c["headline"]) and sum(c["headline"] for c in found) == 2


def test_audit_offset_at_its_threshold():
    """One offset holding for exactly offset_share of the located items, and for more of them than 'equal', is called
    constant; one item less is not."""
    run = pd.DataFrame({"question_id": "q", "rank": [1, 2, 3, 4], "doc_id": "a", "pages": [(3,), (3,), (2,), (4,)],
                        "text": ["bravo body text two"] * 4})
    audit = audit_pages(run, TINY, min_chars=8, page_base=0)
    assert audit.counts[["equal", "+1", "elsewhere"]].tolist() == [1, 2, 1] and audit.offset == 1
    audit = audit_pages(run.assign(pages=[(3,), (4,), (2,), (4,)]), TINY, min_chars=8, page_base=0)
    assert audit.counts["+1"] == 1 and audit.offset is None and audit.warning is None


def _occurrences_by_hand(text, pages, doc=None):
    """Every (doc, pages) where ``text`` lies in a document's pages joined by one space, found by slicing."""
    out = []
    for d in dict.fromkeys(pages["doc_id"]):
        if doc is not None and d != doc:
            continue
        mine = pages[pages["doc_id"] == d].sort_values("page")
        spans, pos, parts = [], 0, []
        for p, t in zip(mine["page"], mine["text"]):
            if not t:
                continue
            if parts:
                pos += 1
            spans.append((p, pos, pos + len(t)))
            parts.append(t)
            pos += len(t)
        whole = " ".join(parts)
        for s in range(len(whole) - len(text) + 1):
            if whole[s:s + len(text)] == text:
                out.append((d, tuple(p for p, a, b in spans if a < s + len(text) and b > s)))
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_locate_items_finds_every_occurrence(data):
    """Exact placement equals slicing the documents' texts by hand: with the text's document and without, across page
    breaks, with repeats (a two-word vocabulary makes texts recur)."""
    words = st.sampled_from(["ab", "ba", "abba", "b"])
    page = st.lists(words, min_size=0, max_size=12).map(" ".join)
    docs = data.draw(st.lists(st.lists(page, min_size=1, max_size=4), min_size=1, max_size=3))
    pages = pd.DataFrame([{"doc_id": f"d{i}", "page": p + 1, "text": t} for i, doc in enumerate(docs)
                          for p, t in enumerate(doc)])
    index = PageIndex(pages)
    whole = [" ".join(t for t in doc if t) for doc in docs]
    picks = data.draw(st.lists(st.tuples(st.integers(0, len(docs) - 1), st.integers(0, 60), st.integers(6, 30)),
                               min_size=1, max_size=6))
    texts, in_doc = [], []
    for i, a, length in picks:
        texts.append(whole[i][a:a + length] if whole[i][a:a + length].strip() else "ab ba abba")
        in_doc.append(f"d{i}")
    for restrict, block in ((True, 1 << 20), (False, 1 << 20), (True, 9), (False, 9)):
        index._sorted.clear()  # the fragment table again, hashed in blocks of a document or a few (block 9)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(locate_module, "BLOCK", block)
            where = locate_items(texts, index, min_chars=6, docs=in_doc if restrict else None)
        for text, doc, (_, row) in zip(texts, in_doc, where.iterrows()):
            text = text.strip()
            found = _occurrences_by_hand(text, pages, doc if restrict else None) if len(text) >= 6 else []
            if not found:
                assert row["placed_by"] in ("overlap", "not found")
                continue
            assert row["placed_by"] == ("exact page" if len(found) == 1 else "several candidates"), (text, found)
            assert sorted(row["candidates"]) == sorted((d, p[0], p[-1]) for d, p in found if p)  # one per occurrence
            if len({d for d, _ in found}) == 1:
                assert row["doc_id"] == found[0][0]
                assert row["pages"] == tuple(sorted({q for _, p in found for q in p}))
            else:
                assert row["doc_id"] is None


def test_occurrences_kept_per_text_are_the_first_ones(monkeypatch):
    """At most MAX_CANDIDATES occurrences are kept per text, the first ones in the documents' order; a text with
    more keeps exactly that many (a header on every page must not list every page)."""
    pages = corpus_from_pages(_pages("a", ["intro page", "repeated header line", "repeated header line",
                                            "repeated header line", "repeated header line"]))
    monkeypatch.setattr(locate_module, "MAX_CANDIDATES", 3)
    where = locate_items(["repeated header line"], PageIndex(pages), min_chars=8)
    assert where.loc[0, "placed_by"] == "several candidates"
    assert where.loc[0, "candidates"] == (("a", 2, 2), ("a", 3, 3), ("a", 4, 4))
    assert where.loc[0, "pages"] == (2, 3, 4)


def test_boilerplate_cuts_fold_into_their_text_and_other_texts_stay():
    """A cut below the rule's page count joins the repeated text containing it; a repeated text of its own (here a
    header on every page) stays a row; no row is on fewer pages than the rule needs unless nothing contains it."""
    from rag_metrics.judging.boilerplate import _fold_cuts

    found = {("a", "is here. Acme Handbook #"): {"pages": {0, 1, 3}, "example": "x"},
             ("a", "here. Acme Handbook #"): {"pages": {2}, "example": "y"},
             ("a", "Chapter #"): {"pages": {0, 1, 2, 3}, "example": "z"},
             ("a", "odd span"): {"pages": {1}, "example": "w"},
             ("b", "here. Acme"): {"pages": {0}, "example": "v"}}
    folded = _fold_cuts(found, {"a": 3, "b": None})
    assert {k: v["pages"] for k, v in folded.items()} == {
        ("a", "is here. Acme Handbook #"): {0, 1, 2, 3}, ("a", "Chapter #"): {0, 1, 2, 3},
        ("a", "odd span"): {1},  # contains no kept text and is contained in none: kept, not hidden
        ("b", "here. Acme"): {0}}  # a document below the rule's minimum: nothing to fold into


def test_shared_text_reads_the_gold_page_and_the_pages_within_the_window_either_side():
    from types import SimpleNamespace

    from rag_metrics.experiment.rulers import _shared

    asked = []
    index = SimpleNamespace(row={("d", p): p for p in range(1, 10)} | {("e", 5): 99},
                            shared_spans=lambda norm, rows, n, rule: asked.append(sorted(rows)) or [(0, 4, False)])
    assert _shared(None, index, "some text", [("d", 5), ("e", 5)], "d", 1, 8, "rule") == ("some", False)
    assert _shared(None, index, "some text", [("d", 5)], "d", 0, 8, "rule") == ("some", False)
    assert asked == [[4, 5, 6], [5]]


def test_shared_text_is_the_longest_evidence_span_and_furniture_only_when_alone():
    from types import SimpleNamespace

    from rag_metrics.experiment.rulers import _shared

    text = "aaa bbbbbbb cccccccccccccccc"

    def index(spans):
        return SimpleNamespace(row={("d", 1): 0}, shared_spans=lambda norm, rows, n, rule: spans)

    spans = [(0, 3, False), (4, 11, False), (12, 28, True)]
    assert _shared(None, index(spans), text, [("d", 1)], "d", 0, 8, "rule") == ("bbbbbbb", False)
    furniture = [(0, 3, True), (12, 28, True), (4, 11, True)]
    assert _shared(None, index(furniture), text, [("d", 1)], "d", 0, 8, "rule") == ("cccccccccccccccc", True)


def test_a_text_found_in_several_documents_goes_to_its_gold_document_else_the_first():
    """``place_text_only``: a passage printed on page 1 of document b and page 2 of document a (b indexed first) is
    placed in a -- the first by name, as candidates are listed -- when the question names no gold among them, and in
    the gold one when it does."""
    from rag_metrics.judging.locate import place_text_only

    same = "the same passage appears in both documents here"
    pages = pd.DataFrame({"doc_id": ["b", "a", "a"], "page": [1, 1, 2],
                          "text": [same, "an unrelated first page of document a", same]})
    index = PageIndex(pages)
    run = pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": [None], "pages": [None], "text": [same]})
    first = place_text_only(run, index)
    assert (first.at[0, "doc_id"], first.at[0, "pages"], first.at[0, "placed_by"]) == ("a", (2,), "several candidates")
    for doc, page in (("a", 2), ("b", 1)):
        placed = place_text_only(run, index, gold={"q": [(doc, page)]})
        assert (placed.at[0, "doc_id"], tuple(placed.at[0, "pages"])) == (doc, (page,))


def test_a_logged_page_is_kept_up_to_the_documents_last_page():
    from rag_metrics.judging.locate import item_pages

    index = PageIndex(pd.DataFrame({"doc_id": ["a"] * 5, "page": [1, 2, 3, 4, 5], "text": ["x"] * 5}))
    assert item_pages("a", [5], None, index, {"a": 5}, 24) == ([5], "metadata")
    assert item_pages("a", [1], None, index, {"a": 5}, 24) == ([1], "metadata")
    assert item_pages("a", [0, 6, 3], None, index, {"a": 5}, 24) == ([3], "metadata")
    assert item_pages("a", [0, 6], None, index, {"a": 5}, 24) == ([], "metadata")
