"""The label audit: planted answer pages nobody labelled are found (and nothing that lacks the answer), accepted with
provenance, and the history keeps the old and new golden sets apart."""

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_metrics import InputError, NotComparableError
from rag_metrics.labels.assessors import find_answer
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.experiment.history import diff, experiment_history, history_table, save_experiment
from rag_metrics.cli import main
from rag_metrics.labels.label_audit import AUDIT_COLUMNS, audit_labels, labels_summary
from rag_metrics.labels.decisions import accept_labels, human_labels, load_judgments, read_audit_decisions
from rag_metrics.io.corpus import corpus_from_pages, load_corpus
from rag_metrics.io.golden import golden_from_records, load_golden
from rag_metrics.io.jsonl import write_jsonl
from rag_metrics.io.logs import load_log

# ---- a corpus written by reportlab: running footers, a blank (scanned) page -----------------------------------------

DOCUMENTS = {
    "hr_handbook": ("HR Expense Handbook", [
        "Welcome to the handbook.\nThis guide covers expenses, travel and leave for every employee.",
        "Expense claims\nClaims must be filed within 45 days of the expense date.\nAttach every receipt to the claim.",
        "Claims processing\nClaims are processed by the finance team\nwithin 145 days of the fiscal year end.",  # 45 in 145
        "Reminder for travellers\nPlease note: travel claims are also due within 45 days of the trip.",  # PLANTED q1
        "Booking travel\nAll flights are booked through Wayfarer Travel, our agency.",  # PLANTED q2
    ]),
    "faq": ("Frequently Asked Questions", [
        "How are claims paid?\nClaims are paid by bank transfer on the 25th of the month.",
        "Where do I find the forms?\nAll forms are on the intranet under Finance.",
        "How long do I have to submit a claim?\n45 days, counted from the expense date.",  # PLANTED q1
        "",  # a scanned page: no text layer
    ]),
    "travel_guide": ("Travel Guide", [
        "Agency\nThe company travel agency is Wayfarer Travel.",
        "Clubs\nWayfarer Travelers Club membership is optional and unrelated to bookings.",  # "Wayfarer Travel" + ers
        "Insurance\nTravel insurance is provided by Mutual Assurance for every trip.",
    ]),
}
PLANTED = {("q1", "hr_handbook", 4), ("q1", "faq", 3), ("q2", "hr_handbook", 5)}
QUESTIONS = [
    {"question_id": "q1", "question": "How many days do I have to file an expense claim?", "answer": "45 days",
     "gold_pages": [["hr_handbook", 2]], "type": "fact"},
    {"question_id": "q2", "question": "Which travel agency books our flights?", "answer": "Wayfarer Travel",
     "gold_pages": [["travel_guide", 1]], "type": "fact"},
    {"question_id": "q3", "question": "Who provides travel insurance?", "answer": "Mutual Assurance",
     "gold_pages": [["travel_guide", 3]], "type": "fact"},
    {"question_id": "q4", "question": "How many days do I have to file my expense claim?", "answer": "45 days",
     "gold_pages": [["hr_handbook", 2]], "type": "fact"},
    {"question_id": "q5", "question": "Which form replaces a lost receipt?", "answer": "form EX-9",
     "gold_pages": [["faq", 4]], "type": "fact"},
    {"question_id": "q6", "question": "What is the daily allowance abroad?", "answer": "60 EUR per day",
     "gold_pages": [["travel_guide", 3]], "type": "fact"},
    {"question_id": "q7", "question": "Can I fly first class?", "type": "no_answer"},
]


def make_pdf(path, title, pages):
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle(title)
    for number, text in enumerate(pages, start=1):
        y = 800
        for line in text.split("\n") if text else []:
            c.drawString(50, y, line)
            y -= 14
        if text:  # the scanned page has nothing, not even its footer
            c.drawString(50, 30, f"{title} - Company confidential - page {number}")
        c.showPage()
    c.save()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("labels")
    docs = root / "docs"
    docs.mkdir()
    for doc, (title, pages) in DOCUMENTS.items():
        make_pdf(docs / f"{doc}.pdf", title, pages)
    corpus = load_corpus(docs)
    golden_path = write_jsonl(QUESTIONS, root / "golden.jsonl")
    golden = load_golden(golden_path, corpus=corpus)
    text = {(d, p): t for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
    # one log of text only (items placed on their page by their text), one with page metadata
    text_only = {"q1": [("hr_handbook", 3), ("hr_handbook", 4), ("faq", 1), ("faq", 3), ("hr_handbook", 2)],
                 "q3": [("travel_guide", 2), ("hr_handbook", 1), ("travel_guide", 3)],
                 "q7": [("hr_handbook", 5)]}
    with_pages = {"q2": [("hr_handbook", 5), ("travel_guide", 2), ("travel_guide", 1)],
                  "q4": [("hr_handbook", 2), ("hr_handbook", 3)], "q5": [("faq", 1)], "q6": [("travel_guide", 3)]}
    logs = {}
    for name, items, pages in (("text_only", text_only, False), ("with_pages", with_pages, True)):
        rows = [{"question_id": q, "retrieved": [{"doc_id": f"s3://bucket/{d}.pdf", "text": text[d, p],
                                                  **({"page": p} if pages else {})} for d, p in its]}
                for q, its in items.items()]
        logs[name] = write_jsonl(rows, root / f"{name}.jsonl")
    return {"root": root, "docs": docs, "corpus": corpus, "golden": golden, "golden_path": golden_path, "logs": logs}


def _audit(world, **kw):
    logs = [load_log(p) for p in world["logs"].values()]
    return audit_labels(world["golden"], world["corpus"], logs, **kw)


def test_the_audit_finds_the_planted_pages_and_nothing_that_lacks_the_answer(world):
    audit = _audit(world)
    found = set(zip(audit.candidates["question_id"], audit.candidates["doc_id"], audit.candidates["page"]))
    assert found == PLANTED
    text = {(d, p): t for d, p, t in zip(world["corpus"].pages["doc_id"], world["corpus"].pages["page"],
                                         world["corpus"].pages["text"])}
    for row in audit.candidates.itertuples():
        assert find_answer(text[row.doc_id, row.page], row.answer), row.candidate_id
        assert row.answer_found and "contains the expected answer" in row.reasons
        assert [seg for seg, kind in row.segments if kind == "answer"], "the answer is highlighted"
    # the distractors were retrieved and are not candidates: '45 days' inside '145 days', 'Wayfarer Travelers'
    retrieved = set(zip(audit.pages["question_id"], audit.pages["doc_id"], audit.pages["page"]))
    assert {("q1", "hr_handbook", 3), ("q2", "travel_guide", 2), ("q1", "faq", 1)} <= retrieved
    # every item was placed on its page, by metadata or by text (footers shared with every page do not mislead)
    assert audit.settings["unplaced_items"] == 0
    located = audit.pages.set_index(["question_id", "doc_id", "page"])["located"]
    assert located[("q1", "faq", 3)] == "text" and located[("q2", "hr_handbook", 5)] == "metadata"
    assert set(audit.pages["question_id"]) <= {"q1", "q2", "q3", "q4", "q5", "q6"}, "no_answer questions are not audited"


def test_candidates_are_ranked_answer_first_then_rank_and_runs(world):
    audit = _audit(world)
    assert list(audit.candidates.columns[: len(AUDIT_COLUMNS)]) == AUDIT_COLUMNS
    assert audit.candidates["best_rank"].tolist() == sorted(audit.candidates["best_rank"])
    assert audit.candidates.iloc[0]["candidate_id"] == "q2|hr_handbook|p5"  # rank 1
    assert (audit.candidates["decision"] == "pending").all()


def test_the_other_findings(world):
    audit = _audit(world)
    c = audit.counts()
    assert (c["near_duplicates"], c["duplicates"]) == (1, 0)
    assert audit.duplicates.iloc[0][["question_id", "duplicate_of"]].tolist() == ["q4", "q1"]
    assert set(audit.answer_not_on_gold["question_id"]) == {"q5", "q6"}
    assert audit.empty_gold_pages[["question_id", "doc_id", "page"]].values.tolist() == [["q5", "faq", 4]]
    kinds = audit.findings()["kind"].value_counts().to_dict()
    assert kinds == {"answer_not_on_gold_page": 2, "near_duplicate": 1, "gold_page_without_text": 1}


def test_judged_share_counts_the_labelled_retrieved_pages(world):
    audit = _audit(world)
    # per question, distinct retrieved pages with a human label (gold pages here) / distinct retrieved pages:
    # q1 1/5, q2 1/3, q3 1/3, q4 1/2, q5 0/1, q6 1/1
    expected = (1 / 5 + 1 / 3 + 1 / 3 + 1 / 2 + 0 + 1) / 6
    assert audit.judged_share() == pytest.approx(expected)
    assert audit.judged_share("with_pages") == pytest.approx((1 / 3 + 1 / 2 + 0 + 1) / 4)


def test_evidence_sharing_pages_without_the_answer_are_weaker_candidates():
    evidence = "Claims must be filed with the finance department within 45 days of the expense date, receipts attached."
    pages = [{"doc_id": "a", "page": 1, "text": evidence},
             {"doc_id": "b", "page": 1, "text": "Note: claims must be filed with the finance department within "
                                                "forty-five days of the expense date, receipts attached."},
             {"doc_id": "b", "page": 2, "text": "Claims must be filed with the finance team."}]
    corpus = corpus_from_pages(pages)
    golden = golden_from_records([(1, {"question_id": "q", "question": "Deadline?", "answer": "45 days",
                                       "gold_pages": [["a", 1]]})], corpus=corpus)
    from rag_metrics.experiment.evaluate import ExperimentResult  # noqa: F401 - the audit takes logs or results

    log = pd.DataFrame({"question_id": ["q", "q"], "question": [None, None], "rank": [1, 2], "doc_id": ["b", "b"],
                        "chunk_id": [None, None], "pages": [(1,), (2,)], "text": [None, None], "score": [1.0, 0.5],
                        "line": [1, 1]})
    from rag_metrics.io.logs import RunLog

    run = RunLog(log, pd.DataFrame({"question_id": ["q"], "question": [None], "answer": [None], "latency_ms": [None],
                                    "error": [None], "line": [1]}), "mem.jsonl")
    audit = audit_labels(golden, corpus, [run], min_evidence_chars=40)
    (row,) = audit.candidates.itertuples()
    assert (row.doc_id, row.page, row.answer_found) == ("b", 1, False) and row.shared_chars >= 40
    assert "shares" in row.reasons and [s for s, k in row.segments if k == "evidence"]
    assert not len(audit_labels(golden, corpus, [run], min_evidence_chars=80).candidates)


def test_find_answer_normalizes_like_answer_matching():
    assert find_answer("振込は翌月５日です。", "翌月5日") == [(3, 7)]
    assert find_answer("Due within 30\n days.", "30 days") == [(11, 19)]
    assert find_answer("within 145 days", "45 days") == []
    assert find_answer("EUROPE", "EUR") == [] and find_answer("25 EUR.", "EUR") == [(3, 6)]
    assert find_answer("text", None) == [] and find_answer("text", " ... ") == []


def test_an_answer_at_the_very_start_or_end_of_the_text_is_found():
    assert find_answer("30 days are allowed", "30 days") == [(0, 7)]
    assert find_answer("allowed: 30", "30") == [(9, 11)]
    assert find_answer("30", "30") == [(0, 2)]


def test_runs_of_whitespace_fold_to_one_space_wherever_they_are():
    assert find_answer("Due  in 30   days", "30 days") == [(8, 17)]
    assert find_answer("  \n 30\t\t days", "30 days") == [(4, 13)]


def test_an_accented_latin_letter_counts_as_a_word_character_at_the_answer_edges():
    assert find_answer("cafés", "café") == [] and find_answer("Écus", "écu") == []
    assert find_answer("un café.", "café") == [(3, 7)] and find_answer("Écu d'or", "écu") == [(0, 3)]


def test_overlapping_occurrences_of_the_answer_are_each_found():
    assert find_answer("1-1-1", "1-1") == [(0, 3), (2, 5)]


def test_answer_sentences_end_at_the_mark_that_closes_them():
    from rag_metrics.labels.assessors import answer_sentences

    assert answer_sentences("Scope. Claims are due within 30 days. Late claims are refused.", "30 days") == [
        "Claims are due within 30 days."]
    assert answer_sentences("申請は5日以内。遅れは不可。", "5日") == ["申請は5日以内。"]
    assert answer_sentences("Is it 30 days? Yes", "30 days") == ["Is it 30 days?"]
    assert answer_sentences("first line\nwithin 30 days\nlast", "30 days") == ["within 30 days"]


# ---- review, accept, provenance, history --------------------------------------------------------------------

def _decide(world, tmp_path, decisions: dict, **extra):
    audit = _audit(world)
    paths = audit.write(tmp_path / "audit")
    review = pd.read_csv(paths["review"], encoding="utf-8-sig", dtype=str, keep_default_na=False)
    for cid, decision in decisions.items():
        review.loc[review["candidate_id"] == cid, "decision"] = decision
    for column, values in extra.items():
        for cid, value in values.items():
            review.loc[review["candidate_id"] == cid, column] = value
    review.to_csv(paths["review"], index=False, encoding="utf-8-sig")
    return paths


def test_accept_adds_the_pages_as_gold_with_provenance_and_changes_the_fingerprint(world, tmp_path):
    paths = _decide(world, tmp_path, {"q1|hr_handbook|p4": "accept", "q1|faq|p3": "accept",
                                      "q2|hr_handbook|p5": "reject"},
                    why={"q1|faq|p3": "the FAQ answers it word for word"})
    decisions = read_audit_decisions(paths["review"])
    import datetime as dt

    now = dt.datetime(2026, 12, 2, 9, 30, tzinfo=dt.timezone.utc)
    golden, out, jpath = accept_labels(world["golden_path"], decisions, tmp_path / "golden2.jsonl", by="Aiko",
                                       corpus=world["corpus"], decisions_source=paths["review"], now=now)
    gold = set(map(tuple, golden.gold_pages[golden.gold_pages["question_id"] == "q1"][["doc_id", "page"]].values.tolist()))
    assert gold == {("hr_handbook", 2), ("hr_handbook", 4), ("faq", 3)}
    assert "faq" in set(golden.gold.loc[golden.gold["question_id"] == "q1", "doc_id"])
    record = next(json.loads(line) for line in out.read_text().splitlines() if '"q1"' in line)
    prov = {(p["doc_id"], p["page"]): p for p in record["label_provenance"]}
    assert prov["faq", 3]["why"] == "the FAQ answers it word for word" and prov["faq", 3]["added_by"] == "Aiko"
    assert prov["faq", 3]["added_at"] == "2026-12-02T09:30:00Z"
    assert "contains the expected answer" in prov["hr_handbook", 4]["why"]  # no why given: the audit's reasons
    judgments = load_judgments(jpath)
    assert sorted(zip(judgments["doc_id"], judgments["page"], judgments["relevant"])) == \
        [("faq", 3, True), ("hr_handbook", 4, True), ("hr_handbook", 5, False)]
    meta = json.loads(Path(str(out) + ".meta.json").read_text())
    assert meta["previous_fingerprint"] == world["golden"].fingerprint() != meta["fingerprint"] == golden.fingerprint()
    assert (meta["accepted"], meta["rejected"], meta["pending"]) == (2, 1, 0)
    # the labels are human labels now; audited again, nothing is left to review
    labels = human_labels(golden, judgments)
    assert set(labels["source"]) == {"gold", "judgment"} and len(labels) == len(golden.gold_pages) + 1
    again = audit_labels(golden, world["corpus"], [load_log(p) for p in world["logs"].values()], judgments=judgments)
    assert not len(again.candidates) and again.judged_share() > _audit(world).judged_share()


def test_the_history_keeps_runs_on_the_old_and_new_set_apart(world, tmp_path):
    paths = _decide(world, tmp_path, {"q1|hr_handbook|p4": "accept"})
    new, _, _ = accept_labels(world["golden_path"], read_audit_decisions(paths["review"]), tmp_path / "g2.jsonl",
                              by="Aiko", corpus=world["corpus"])
    log = load_log(world["logs"]["text_only"])
    history = tmp_path / "history"
    import datetime as dt

    t0 = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    old_path, _ = save_experiment(evaluate_log(world["golden"], log, world["corpus"]), history, now=t0)
    new_path, status = save_experiment(evaluate_log(new, log, world["corpus"]), history, now=t0 + dt.timedelta(hours=1))
    assert status == "saved", "the same log judged against the new set is a new record"
    with pytest.raises(NotComparableError, match="golden"):
        diff(old_path, new_path)
    table = history_table(experiment_history(history), ["hit@1"], n_resamples=200)
    assert table["comparable"].tolist() == [False, True]


def test_accept_refusals_write_nothing(world, tmp_path):
    paths = _decide(world, tmp_path, {})
    decisions = read_audit_decisions(paths["review"])
    out = tmp_path / "new.jsonl"
    with pytest.raises(InputError, match="nothing to write"):
        accept_labels(world["golden_path"], decisions, out, by="A")
    with pytest.raises(InputError, match="overwrite the golden set"):
        accept_labels(world["golden_path"], decisions, world["golden_path"], by="A")
    with pytest.raises(InputError, match="say who reviewed"):
        accept_labels(world["golden_path"], decisions, out, by=" ")
    bad = decisions.assign(decision="accept", question_id="q999")
    with pytest.raises(InputError, match="question 'q999' is not in the golden set"):
        accept_labels(world["golden_path"], bad, out, by="A")
    off = decisions.assign(decision="accept", page=99)
    with pytest.raises(InputError, match="page 99 of 'hr_handbook' is not in the corpus"):
        accept_labels(world["golden_path"], off.iloc[[0]], out, by="A", corpus=world["corpus"])
    assert not out.exists() and not Path(str(out) + ".judgments.jsonl").exists()


def test_a_grouped_question_needs_the_group(world, tmp_path):
    records = [dict(q) for q in QUESTIONS]
    records[1] = {**records[1], "gold_groups": [[["travel_guide", 1]], [["travel_guide", 3]]]}
    records[1].pop("gold_pages")
    grouped = write_jsonl(records, tmp_path / "grouped.jsonl")
    decisions = pd.DataFrame([{"candidate_id": "q2|hr_handbook|p5", "question_id": "q2", "doc_id": "hr_handbook",
                               "page": 5, "decision": "accept", "why": None, "reasons": "r", "group": None, "line": 2}])
    with pytest.raises(InputError, match=r"2 evidence groups: give the group \(1..2\)"):
        accept_labels(grouped, decisions, tmp_path / "o.jsonl", by="A")
    golden, _, _ = accept_labels(grouped, decisions.assign(group=1), tmp_path / "o.jsonl", by="A")
    assert golden.groups()["q2"] == [frozenset({("travel_guide", 1), ("hr_handbook", 5)}),
                                     frozenset({("travel_guide", 3)})]


def test_a_csv_golden_set_is_accepted_into_json_lines(world, tmp_path):
    csv_path = tmp_path / "golden.csv"
    rows = ["question_id,question,answer,type,doc_id,page"]
    for q in QUESTIONS:
        for d, p in q.get("gold_pages", [[None, None]]):
            rows.append(",".join([q["question_id"], q["question"].replace(",", " "), q.get("answer") or "", q["type"],
                                  d or "", str(p or "")]))
    csv_path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    decisions = pd.DataFrame([{"candidate_id": "q1|faq|p3", "question_id": "q1", "doc_id": "faq", "page": 3,
                               "decision": "accept", "why": "x", "reasons": None, "group": None, "line": 2}])
    golden, out, _ = accept_labels(csv_path, decisions, tmp_path / "g.jsonl", by="A", corpus=world["corpus"])
    assert ("faq", 3) in set(zip(golden.gold_pages["doc_id"], golden.gold_pages["page"]))
    assert out.suffix == ".jsonl" and len(golden.questions) == len(QUESTIONS)


@pytest.mark.parametrize("edit, message", [
    ({"decision": "maybe"}, r":2: candidate .*: decision 'maybe'; expected one of pending, accept, reject"),
    ({"page": "0"}, ":2: candidate .*: page 0 is not an integer >= 1"),
    ({"group": "x"}, ":2: candidate .*: group 'x' is not an integer >= 1"),
    ({"doc_id": ""}, ":2: candidate .*: doc_id '' is empty"),
])
def test_decision_errors_name_the_line(world, tmp_path, edit, message):
    paths = _audit(world).write(tmp_path / "a")
    review = pd.read_csv(paths["review"], encoding="utf-8-sig", dtype=str, keep_default_na=False)
    for column, value in edit.items():
        review.loc[0, column] = value
    review.to_csv(paths["review"], index=False, encoding="utf-8-sig")
    with pytest.raises(InputError, match=message):
        read_audit_decisions(paths["review"])


def test_the_command_line_audits_and_accepts(world, tmp_path, capsys):
    out = tmp_path / "audit"
    args = ["labels", "audit", "--golden", str(world["golden_path"]), "--pages", str(world["docs"]), "-o", str(out)]
    for log in world["logs"].values():
        args += ["--run", str(log)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "3 candidate page(s) for 2 question(s) (3 hold the expected answer)" in printed
    assert {p.name for p in out.iterdir()} == {"review.csv", "findings.csv", "audit.html", "audit.json"}
    review = pd.read_csv(out / "review.csv", encoding="utf-8-sig", dtype=str, keep_default_na=False)
    review["decision"] = "accept"
    review.to_csv(out / "review.csv", index=False, encoding="utf-8-sig")
    new = tmp_path / "new.jsonl"
    assert main(["labels", "accept", "--golden", str(world["golden_path"]), "--decisions", str(out / "review.csv"),
                 "-o", str(new), "--by", "Aiko", "--pages", str(world["docs"])]) == 0
    printed = capsys.readouterr().out
    assert "3 page(s) accepted as gold, 0 rejected, 0 pending" in printed and "->" in printed
    # bad input: exit 2, one line naming the file, nothing written
    review.loc[1, "decision"] = "yes"
    review.to_csv(out / "review.csv", index=False, encoding="utf-8-sig")
    assert main(["labels", "accept", "--golden", str(world["golden_path"]), "--decisions", str(out / "review.csv"),
                 "-o", str(tmp_path / "other.jsonl"), "--by", "A"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "review.csv:3: candidate" in err and not (tmp_path / "other.jsonl").exists()


def test_user_strings_are_escaped_in_the_page(tmp_path):
    hostile = "<script>alert(1)</script>"
    pages = [{"doc_id": "a", "page": 1, "text": "The code is X-1."},
             {"doc_id": "b", "page": 1, "text": f"{hostile} The code is X-1."}]
    corpus = corpus_from_pages(pages)
    golden = golden_from_records([(1, {"question_id": f"q{hostile}", "question": f"What {hostile}?",
                                       "answer": "X-1", "gold_pages": [["a", 1]]})], corpus=corpus)
    from rag_metrics.io.logs import RunLog

    run = RunLog(pd.DataFrame({"question_id": [f"q{hostile}"], "question": [None], "rank": [1], "doc_id": ["b"],
                               "chunk_id": [None], "pages": [(1,)], "text": [None], "score": [1.0], "line": [1]}),
                 pd.DataFrame({"question_id": [f"q{hostile}"], "question": [None], "answer": [None],
                               "latency_ms": [None], "error": [None], "line": [1]}), "m.jsonl")
    page = audit_labels(golden, corpus, [run]).to_html()
    assert hostile not in page and "&lt;script&gt;" in page


def test_labels_summary_for_the_experiment_report(golden, corpus):
    from rag_metrics.io.corpus import data_dir

    result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), corpus)
    summary = labels_summary(result)
    assert summary["k"] == 5 and 0 < summary["judged_share"] < 1
    assert summary["candidates"] >= 1 and summary["unjudged_pages"] <= summary["retrieved_pages"]
    assert set(summary) >= {"candidates", "near_duplicates", "answer_not_on_gold_page", "gold_pages_without_text",
                            "judged_share", "unjudged_pages"}


# ---- golden sets rewritten in memory, judging sheets --------------------------------------------------------------

def test_rewritten_golden_sets(golden):
    from rag_metrics.labels.decisions import _records_of, one_gold_page_only, with_evidence_groups

    assert golden_from_records(_records_of(golden)).fingerprint() == golden.fingerprint(), "a faithful round trip"
    grouped = with_evidence_groups(golden)
    multi = golden.questions.index[golden.questions["type"] == "multi_hop"]
    assert set(grouped.gold_groups["question_id"]) == set(multi)
    assert grouped.groups()["q061"] == [frozenset({("expense_policy", 9)}), frozenset({("travel_policy", 7)})]
    assert grouped.groups()["q001"] == golden.groups()["q001"] and grouped.fingerprint() != golden.fingerprint()
    thin = one_gold_page_only(golden)
    assert (thin.gold_pages.groupby("question_id").size() == 1).all()
    assert thin.gold_pages.set_index("question_id").loc["q001"].tolist() == ["expense_policy", 3]
    assert thin.gold.set_index("question_id").loc["q001", "relevance"] == 2.0
    assert list(thin.questions.index) == list(golden.questions.index) and thin.backlog == golden.backlog
    last = one_gold_page_only(golden, keep="last")
    pages = golden.gold_pages.groupby("question_id").tail(1).set_index("question_id")
    assert last.gold_pages.set_index("question_id")[["doc_id", "page"]].equals(pages[["doc_id", "page"]])
    assert last.gold_pages.set_index("question_id").loc["q001"].tolist() != ["expense_policy", 3]  # q001 has several
    with pytest.raises(InputError, match="keep"):
        one_gold_page_only(golden, keep="middle")


def test_one_gold_page_only_writes_what_it_returns(golden, corpus, tmp_path):
    from rag_metrics.labels.decisions import one_gold_page_only

    written = one_gold_page_only(golden, keep="last", out=tmp_path / "one.jsonl", corpus=corpus)
    assert written.source == tmp_path / "one.jsonl" or str(written.source) == str(tmp_path / "one.jsonl")
    assert written.fingerprint() == load_golden(tmp_path / "one.jsonl", corpus=corpus).fingerprint()
    assert written.fingerprint() == one_gold_page_only(golden, keep="last").fingerprint()


def test_a_support_set_read_as_page_labels(corpus):
    from rag_metrics.experiment.answer_support import read_support_set
    from rag_metrics.lab.labels_lesson import support_set_items
    from rag_metrics.io.corpus import data_dir

    claims = read_support_set(data_dir() / "support" / "claims.jsonl")
    items, people = support_set_items(claims, corpus)
    assert len(items) == len(people) == len(claims) and list(items["question_id"]) == list(claims["claim_id"])
    assert (items["answer"] == claims["claim"]).all() and (people["relevant"] == claims["supported"]).all()
    two = claims.index[claims["context"].map(len) == 2][0]  # a claim with two context pages: both texts, first key
    (d1, p1), (d2, p2) = claims.at[two, "context"]
    texts = corpus.pages.set_index(["doc_id", "page"])["text"]
    assert items.at[two, "text"] == texts[d1, p1] + "\n\n" + texts[d2, p2]
    assert (items.at[two, "doc_id"], items.at[two, "page"]) == (d1, p1)
    bad = claims.head(1).assign(context=[[("expense_policy", 999)]])
    with pytest.raises(InputError, match="expense_policy p.999"):
        support_set_items(bad, corpus)


def test_closed_world_judgments_and_the_judging_sheet(world, tmp_path):
    from rag_metrics.labels.judging_sheet import judging_sample, read_judging_sheet
    from rag_metrics.labels.decisions import closed_world_judgments

    result = evaluate_log(world["golden"], load_log(world["logs"]["text_only"]), world["corpus"], ks=(5,))
    cw = closed_world_judgments(result, ["q1"])
    assert sorted(zip(cw["doc_id"], cw["page"])) == [("faq", 1), ("faq", 3), ("hr_handbook", 3), ("hr_handbook", 4)]
    assert not cw["relevant"].any()
    sheet = judging_sample(result, 3, seed=1)
    assert sheet["question_id"].nunique() == 3 and set(sheet.loc[sheet["gold"], "relevant"]) <= {"yes"}
    assert judging_sample(result, 3, seed=1).equals(sheet), "seeded"
    path = tmp_path / "sheet.csv"
    sheet["relevant"] = sheet["relevant"].fillna("no")
    from rag_metrics.golden.review_file import write_review

    write_review(sheet, path)
    judgments, sample = read_judging_sheet(path, by="Aiko")
    assert sample == list(dict.fromkeys(sheet["question_id"])) and set(judgments["by"]) == {"Aiko"}
    assert len(judgments) == int(sheet["doc_id"].notna().sum())
    bad = pd.read_csv(path, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    row = bad[bad["doc_id"] != ""].index[0]
    bad.loc[row, "relevant"] = "maybe"
    bad.to_csv(path, index=False, encoding="utf-8-sig")
    with pytest.raises(InputError, match=f"sheet.csv:{row + 2}: .*relevant 'maybe'; write yes or no"):
        read_judging_sheet(path)
    with pytest.raises(InputError, match="7 questions asked, the golden set has 6 answerable"):
        judging_sample(result, 7)


# ---- the audit's single pass against the group-by-group definition ----------------------------------------------

def _candidates_group_by_group(golden, corpus, runs, *, k=None, min_evidence_chars=48, judgments=None):
    """The candidate pages as the audit first computed them: one pandas group per retrieved (question, doc, page) of
    every answerable question, each searched for the answer and the evidence. The reference for the single pass."""
    from rag_metrics.labels.assessors import answer_sentences, retrieved_pages
    from rag_metrics.labels.label_audit import _as_results, _segments
    from rag_metrics.judging.judges import shared_spans
    from rag_metrics.core.text import normalize

    pages, _ = retrieved_pages(_as_results(golden, corpus, runs), corpus, k=k)
    texts = {(d, int(p)): t for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
    q = golden.questions
    gold = {qid: list(zip(g["doc_id"], g["page"].astype(int))) for qid, g in golden.gold_pages.groupby("question_id")}
    answerable = [qid for qid in golden.answerable if qid in gold]
    judged = set() if judgments is None else \
        set(zip(judgments["question_id"], judgments["doc_id"], judgments["page"].astype(int)))
    evidence = {}
    for qid in answerable:
        answer = q.at[qid, "answer"]
        if answer is not None and str(answer).strip():
            found = [s for d, p in gold[qid] for s in answer_sentences(texts.get((d, p), ""), answer)]
            if found:
                evidence[qid] = found
    candidates = []
    pages = pages[pages["question_id"].isin(answerable)]
    for (qid, d, p), hits in pages.groupby(["question_id", "doc_id", "page"], sort=False):
        if (d, p) in gold[qid] or (qid, d, p) in judged:
            continue
        text, answer = texts.get((d, p), ""), q.at[qid, "answer"]
        answer_spans = find_answer(text, answer)
        norm = normalize(text)
        ev_spans = shared_spans(norm, [normalize(e) for e in evidence[qid]], min_evidence_chars) \
            if evidence.get(qid) else []
        shared = max((b - a for a, b in ev_spans), default=0)
        if not answer_spans and not ev_spans:
            continue
        reasons = []
        if answer_spans:
            reasons.append(f"contains the expected answer {str(answer)!r}" +
                           (f" ({len(answer_spans)} times)" if len(answer_spans) > 1 else ""))
        if ev_spans:
            reasons.append(f"shares {shared} characters with the gold evidence")
        runs_here, best = sorted(set(hits["run"])), int(hits["rank"].min())
        reasons.append(f"retrieved at rank {best} by {', '.join(runs_here)}")
        adjacent = [f"{gd} p.{gp}" for gd, gp in gold[qid] if gd == d and abs(gp - p) == 1]
        if adjacent:
            reasons.append(f"next to gold page {', '.join(adjacent)} (a ±1 page window already credits it)")
        marks = [(a, b, "answer") for a, b in find_answer(norm, answer)] + [(a, b, "evidence") for a, b in ev_spans]
        candidates.append({
            "candidate_id": f"{qid}|{d}|p{p}", "question_id": qid, "decision": "pending", "reasons": "; ".join(reasons),
            "question": q.at[qid, "question"], "answer": answer, "doc_id": d, "page": int(p), "group": None,
            "why": None, "answer_found": bool(answer_spans), "shared_chars": int(shared), "best_rank": best,
            "runs": len(runs_here), "gold_pages": ", ".join(f"{gd} p.{gp}" for gd, gp in gold[qid]),
            "adjacent": bool(adjacent), "segments": _segments(norm, marks)})
    cand = pd.DataFrame(candidates, columns=[*AUDIT_COLUMNS, "gold_pages", "adjacent", "segments"])
    if len(cand):
        cand = cand.assign(_neg_runs=-cand["runs"]).sort_values(
            ["answer_found", "shared_chars", "best_rank", "_neg_runs", "question_id", "doc_id", "page"],
            ascending=[False, False, True, True, True, True, True], kind="stable").drop(columns="_neg_runs")
    return cand.reset_index(drop=True)


def _sample_runs(golden, corpus):
    from rag_metrics.io.corpus import data_dir

    return [load_log(data_dir() / "examples" / name, golden=golden, corpus=corpus)
            for name in ("bm25_c300o50.jsonl", "bm25_c400o100.jsonl")]


@pytest.mark.parametrize("k, min_evidence_chars", [(None, 48), (3, 48), (5, 16), (1, 8)])
def test_the_single_pass_finds_the_candidates_of_the_group_by_group_definition(golden, corpus, k, min_evidence_chars):
    runs = _sample_runs(golden, corpus)
    audit = audit_labels(golden, corpus, runs, k=k, min_evidence_chars=min_evidence_chars)
    expected = _candidates_group_by_group(golden, corpus, runs, k=k, min_evidence_chars=min_evidence_chars)
    pd.testing.assert_frame_equal(audit.candidates, expected)
    assert len(expected) >= 3 and expected["runs"].max() == 2  # pages of both runs, found by answer and evidence
    if min_evidence_chars <= 16:
        assert ((expected["shared_chars"] > 0) & ~expected["answer_found"]).any()
    # judged pages are not candidates again: judge half of them
    judgments = expected.iloc[::2][["question_id", "doc_id", "page"]].assign(relevant=False)
    audit = audit_labels(golden, corpus, runs, k=k, min_evidence_chars=min_evidence_chars, judgments=judgments)
    expected = _candidates_group_by_group(golden, corpus, runs, k=k, min_evidence_chars=min_evidence_chars,
                                          judgments=judgments)
    pd.testing.assert_frame_equal(audit.candidates, expected)


def test_the_single_pass_on_planted_pages_and_text_only_logs(world):
    logs = [load_log(p) for p in world["logs"].values()]
    for kw in ({}, {"min_evidence_chars": 8}, {"k": 2}):
        expected = _candidates_group_by_group(world["golden"], world["corpus"], logs, **kw)
        pd.testing.assert_frame_equal(audit_labels(world["golden"], world["corpus"], logs, **kw).candidates, expected)


_WORDS = ["45 days", "Days", "４５", "claims", "are", "due", "within", "the", "trip", "Wayfarer", "EUR", "eur."]


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_single_pass_on_random_pages(data, tmp_path_factory):
    # answers anywhere on a page (its first characters too), folded (full-width digits, case, line breaks), and
    # evidence shared in fragments of 8 to 12 characters
    words = {(d, p): data.draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=10))
             for d in ("a", "b") for p in (1, 2, 3)}
    pages = [{"doc_id": d, "page": p, "text": "".join(w + data.draw(st.sampled_from([" ", "  ", "\n", ". "]))
                                                      for w in ws)} for (d, p), ws in words.items()]
    corpus = corpus_from_pages(pages)
    where = st.sampled_from(sorted(words))
    records, log = [], []
    for i in range(4):
        gold = data.draw(where)
        answer = data.draw(st.one_of(st.none(), st.sampled_from(words[gold]),
                                     st.sampled_from(["eur", "claims are due"])))
        records.append((i + 1, {"question_id": f"q{i}", "question": f"question {i}?", "answer": answer,
                                "gold_pages": [list(gold)]}))
        log.append({"question_id": f"q{i}", "retrieved": [{"doc_id": d, "page": p, "text": None}
                                                          for d, p in data.draw(st.lists(where, max_size=6))]})
    golden = golden_from_records(records, corpus=corpus)
    path = write_jsonl(log, tmp_path_factory.mktemp("random") / "log.jsonl")
    runs = [load_log(path, golden=golden, corpus=corpus)]
    min_chars = data.draw(st.sampled_from([8, 9, 12]))
    audit = audit_labels(golden, corpus, runs, min_evidence_chars=min_chars)
    pd.testing.assert_frame_equal(audit.candidates,
                                  _candidates_group_by_group(golden, corpus, runs, min_evidence_chars=min_chars))


def test_a_human_judgment_raises_the_judged_share_above_the_gold_share(world):
    gold_only = _audit(world)
    assert gold_only.counts()["candidates_with_answer"] == len(PLANTED) == 3
    one = pd.DataFrame({"question_id": ["q1"], "doc_id": ["faq"], "page": [3], "relevant": [False]})
    mixed = _audit(world, judgments=one)
    assert mixed.settings["human_judgments"] == 1 and mixed.judged_share() > gold_only.judged_share()


# ---- what `labels accept` says it did (rag_metrics.labels.decisions.accept_summary) ---------------------------------

def _meta(accepted=0, rejected=0, pending=0, unchanged=0, before="aaa", after="aaa"):
    return {"accepted": accepted, "rejected": rejected, "pending": pending, "unchanged": unchanged,
            "previous_fingerprint": before, "fingerprint": after}


def test_accept_summary_says_nothing_changed_only_when_nothing_was_decided_anew():
    from rag_metrics.labels.decisions import accept_summary

    first, second = accept_summary(_meta(pending=2, unchanged=1), "g.jsonl", "new.jsonl", "new.jsonl.judgments.jsonl")
    assert first == ("wrote new.jsonl: 0 page(s) accepted as gold, 0 rejected, 2 pending, 1 decided so already; "
                     "human judgments in new.jsonl.judgments.jsonl")
    assert second == "nothing changed: every decision is in g.jsonl already (fingerprint aaa)"
    assert "decided so already" not in accept_summary(_meta(), "g", "n", "j")[0]
    _, one_rejection = accept_summary(_meta(rejected=1), "g", "n", "j")
    assert one_rejection.startswith("fingerprint aaa unchanged: no page became gold (only rejections)")
    _, accepted = accept_summary(_meta(accepted=1, before="aaa", after="bbb"), "g", "n", "j")
    assert accepted == ("fingerprint aaa -> bbb: runs judged against the old set are not compared with runs judged "
                        "against the new one")
    _, changed_without_decision = accept_summary(_meta(before="aaa", after="bbb"), "g", "n", "j")
    assert changed_without_decision.startswith("fingerprint aaa -> bbb"), "a changed fingerprint is always said"


def test_where_the_answer_and_the_evidence_overlap_the_answer_is_marked():
    from rag_metrics.labels.label_audit import _segments

    for marks in ([(0, 4, "answer"), (2, 6, "evidence")], [(2, 6, "evidence"), (0, 4, "answer")]):
        assert _segments("abcdefgh", marks) == [("abcd", "answer"), ("ef", "evidence"), ("gh", None)]
    assert _segments("abc", [(1, 10, "evidence")]) == [("a", None), ("bc", "evidence")]  # a mark past the end
