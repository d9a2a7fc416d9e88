"""Strings from a user's files reach every HTML page escaped (stored XSS).

A golden set, pages and a log whose every string field carries script payloads -- ``<script>``, ``<img onerror>``,
``"><svg onload>`` and ``javascript:`` links -- go through each page the project writes: the experiment report (and
the index that lists it), the golden-set review page and the ``_repr_html_`` of result objects. Every payload, when it
runs, sets an attribute on ``<body>``. Two checks: the HTML text parsed (no element or attribute the payloads would
create, no active ``javascript:`` link; runs everywhere) and, where Debian's chromium is installed, the page loaded
in a real browser with its scripts running.
"""

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

SET = "document.body.setAttribute('data-pwned',{})"
PAYLOADS = [
    f"<script>{SET.format(1)}</script>",
    f"<img src=x onerror={SET.format(2)}>",
    f"\"><svg onload={SET.format(3)}>",
    f"[link](javascript:{SET.format(4)})",
    f"<a href=\"javascript:{SET.format(5)}\">click</a>",
]


def hostile(i: int, base: str = "") -> str:
    """A string carrying payload ``i`` (cycling), with a readable prefix."""
    return f"{base}{PAYLOADS[i % len(PAYLOADS)]}"


class _Scan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self._in_script = [], False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") and "data-pwned" in value:
                self.problems.append(f"<{tag} {name}=...> from a payload")
            if name in ("href", "src", "action", "formaction") and value.strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value[:40]!r}> is an active javascript: link")
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and "data-pwned" in data:
            self.problems.append("a <script> holds a payload")


def html_problems(page: str) -> list[str]:
    scan = _Scan()
    scan.feed(page)
    return scan.problems


def test_the_scanner_sees_each_payload_unescaped():
    """The check itself: each raw payload is caught, and each escaped payload passes."""
    import html

    for p in PAYLOADS[:3] + PAYLOADS[4:]:
        assert html_problems(f"<p>{p}</p>"), p
        assert not html_problems(f"<p>{html.escape(p)}</p>"), p
    assert html_problems('<a href="javascript:x">a</a>')


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Golden set, pages and a log (with answers) whose string fields all carry payloads."""
    from rag_metrics.io.corpus import load_corpus

    d = tmp_path_factory.mktemp("hostile")
    sample = load_corpus(sample=True).pages
    docs = list(dict.fromkeys(sample["doc_id"]))[:2]
    names = {doc: hostile(i, f"doc{i}") for i, doc in enumerate(docs)}
    rows = []
    for i, r in enumerate(sample[sample["doc_id"].isin(docs)].itertuples()):
        rows.append({"doc_id": names[r.doc_id], "page": int(r.page),  # a running footer carrying a payload too
                     "text": r.text + "\n" + hostile(i, "page text ") + "\n" + hostile(0, "running footer "),
                     "title": hostile(docs.index(r.doc_id) + 1, "title ")})
    (d / "pages.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    golden, log = [], []
    pages_of = {doc: [r["page"] for r in rows if r["doc_id"] == names[doc]] for doc in docs}
    for i in range(10):
        doc = docs[i % 2]
        qid = hostile(i, f"q{i}")
        page = pages_of[doc][i % len(pages_of[doc])]
        text = next(r["text"] for r in rows if r["doc_id"] == names[doc] and r["page"] == page)
        golden.append({"question_id": qid, "question": hostile(i + 2, f"question {i} "), "type": hostile(i, "t"),
                       "gold_pages": [[names[doc], page]], "answer": None if i % 3 == 0 else hostile(i + 3, "answer ")})
        other = docs[(i + 1) % 2]
        log.append({"question_id": qid, "answer": hostile(i + 4, "generated "), "retrieved": [
            {"doc_id": names[other if i % 4 == 0 else doc], "pages": [page], "chunk_id": hostile(i, "chunk"),
             "text": text[:300] + hostile(i + 1, " "), "score": 1.0},
            {"doc_id": names[other], "pages": [1], "chunk_id": hostile(i + 1, "chunk2"), "text": hostile(i + 2),
             "score": 0.5}]})
    (d / "golden.jsonl").write_text("".join(json.dumps(r) + "\n" for r in golden))
    run_name = PAYLOADS[1].replace("/", "")  # the run's name is its file's name
    (d / f"{run_name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log))
    (d / "older.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log[::-1]))
    # answers made from the run's top documents (section 6: claims, their support, the change between the runs)
    answers = [{"question_id": r["question_id"], "generator": hostile(0, "gen"),
                "retrieved_ids": [it["doc_id"] for it in r["retrieved"]],
                "generated_answer": r["answer"] + ". " + r["retrieved"][0]["text"][:80]} for r in log]
    (d / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in answers))
    return d, d / f"{run_name}.jsonl"


@pytest.fixture(scope="module")
def experiment_pages(inputs, tmp_path_factory, kernel_pool):
    pytest.importorskip("papermill")
    from rag_metrics.report.experiment_build import build_experiment_report

    d, log = inputs
    reports = tmp_path_factory.mktemp("reports")
    with kernel_pool.serving():
        run = build_experiment_report("hostile", golden=d / "golden.jsonl", runs=[d / "older.jsonl", log],
                                      pages=d / "pages.jsonl", answers=d / "answers.jsonl", reports_dir=reports,
                                      progress_bar=False)
    return run / "experiment.html", reports / "index.html"


def test_experiment_report_and_index_escape_every_payload(experiment_pages):
    for page in experiment_pages:
        text = page.read_text(encoding="utf-8")
        assert "data-pwned" in text  # the payloads did reach the page, as text
        assert html_problems(text) == [], page.name
    report = experiment_pages[0].read_text(encoding="utf-8")
    assert "running footer &lt;script&gt;" in report  # the furniture left out, listed per document, escaped
    assert 'id="rm-support-claims"' in report  # section 6's claims reached the page, escaped with the rest


def test_result_objects_render_escaped(inputs):
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import load_log

    d, log = inputs
    corpus = load_corpus(d / "pages.jsonl")
    golden, run_log = load_golden(d / "golden.jsonl", corpus=corpus), load_log(log)
    result = evaluate_log(golden, run_log, corpus)
    pages = [result._repr_html_()] + [result.explain(q)._repr_html_() for q in result.golden.answerable]
    pages += [golden._repr_html_(), corpus._repr_html_(), run_log._repr_html_()]
    for page in pages:
        assert "data-pwned" in page
        assert html_problems(page) == []


def test_golden_review_page_escapes_every_payload(inputs):
    from rag_metrics.golden.generate import Draft
    from rag_metrics.golden.review import review_html
    from rag_metrics.golden.review_file import review_draft
    from rag_metrics.golden.sampler import sample_pages

    import pandas as pd

    d, _ = inputs
    from rag_metrics.io.corpus import load_corpus

    sample = sample_pages(load_corpus(d / "pages.jsonl"), 2, min_chars=50, seed=0)
    rows = []
    for i, p in enumerate(sample.pages.itertuples()):
        rows.append({"question_id": hostile(i, f"g{i}"), "question": hostile(i + 1, "What "),
                     "answer": hostile(i + 2, "ans "), "type": hostile(i + 3, "type"), "evidence": hostile(i + 4),
                     "doc_id": p.doc_id, "page": int(p.page), "generator": hostile(i, "gen"), "prompt_version": "x"})
    draft = Draft(pd.DataFrame(rows), pd.DataFrame(columns=["doc_id", "page", "error"]), {})
    review = review_draft(draft, sample)
    for page in (review_html(review, draft, sample, title=hostile(0, "title ")), draft._repr_html_(),
                 sample._repr_html_()):
        assert "data-pwned" in page
        assert html_problems(page) == []


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not _chromium(), reason="Debian chromium is not installed (apt-get install -y chromium); the "
                                            "HTML text checks above still run")
def test_no_payload_runs_in_a_real_browser(experiment_pages, tmp_path):
    from tests.test_report import CHROMIUM_FLAGS

    for page in experiment_pages:
        dom = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                              "--virtual-time-budget=3000", "--dump-dom", Path(page).resolve().as_uri()],
                             capture_output=True, text=True, timeout=120)
        assert dom.returncode == 0, dom.stderr[-2000:]
        body = dom.stdout[dom.stdout.find("<body"):]
        assert body.startswith("<body")
        assert "data-pwned=" not in body.split(">", 1)[0], f"a payload ran in {page.name}"
        assert html_problems(dom.stdout) == [], page.name


def test_gate_summary_and_junit_escape_every_payload(inputs, tmp_path, capsys):
    """The gate's Markdown summary rendered as a CI page renders it (raw HTML allowed), and its JUnit XML parsed."""
    import xml.etree.ElementTree as ET

    import mistune

    from rag_metrics.cli import main

    d, log = inputs
    lost = tmp_path / "lost \x01 <b>.jsonl"  # a control character XML cannot hold, and markup, in the run's name
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    lost.write_text("".join(json.dumps({**r, "retrieved": []}) + "\n" for r in rows), encoding="utf-8")
    md, junit = tmp_path / "summary.md", tmp_path / "gate.xml"
    code = main(["gate", "--golden", str(d / "golden.jsonl"), "--pages", str(d / "pages.jsonl"), "--baseline",
                 str(log), "--run", str(lost), "--markdown", str(md), "--junit", str(junit), "--max-drop", "0"])
    assert code == 1, capsys.readouterr().err
    summary = md.read_text(encoding="utf-8")
    assert "pwned" in summary and "Regressed questions (" in summary
    page = mistune.create_markdown(escape=False, plugins=["table"])(summary)
    assert "<table>" in page and html_problems(page) == []
    root = ET.parse(junit).getroot()  # well-formed although the name holds \x01 and markup
    assert {e.tag for e in root.iter()} == {"testsuites", "testsuite", "testcase", "failure"}  # the summary once
    failure = root.find("testsuite/testcase/failure")
    assert "data-pwned" in failure.text and "<b>" in root.find("testsuite/testcase").get("name")
    for payload in PAYLOADS:  # the question IDs come back as text, whole
        assert any(payload in (e.text or "") for e in root.iter()), payload


def test_support_drilldown_escapes_every_payload(inputs):
    """The report's per-question claims (section 6): questions, answers, claims, documents and spans all carry
    payloads."""
    import pandas as pd

    from rag_metrics.experiment.answer_support import diagnose_answers, support_drilldown
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.jsonl import iter_jsonl

    d, log = inputs
    corpus = load_corpus(d / "pages.jsonl")
    golden = load_golden(d / "golden.jsonl", corpus=corpus)
    rows = [{"question_id": r["question_id"], "generated_answer": r["answer"] + ". " + r["retrieved"][0]["text"][:80],
             "retrieved": r["retrieved"]} for _, r in iter_jsonl(log, "log")]
    diagnosis = diagnose_answers(golden, pd.DataFrame(rows), corpus, context_k=2)
    assert diagnosis.claims["supported"].any() and (diagnosis.claims["supported"] == False).any()  # noqa: E712
    page = support_drilldown(diagnosis, golden.questions["question"])._repr_html_()
    assert "data-pwned" in page and "&lt;script&gt;" in page
    assert html_problems(page) == []
