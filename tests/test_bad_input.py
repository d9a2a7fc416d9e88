"""Bad input is refused before anything is written: exit 2 and one line naming the file, the line (or item) and the
field -- never a traceback, a half-built report, or a number computed from a silently wrong reading."""

import io
import json
import random
import re
import unicodedata
from pathlib import Path

import pytest

from rag_metrics import InputError
from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.csvfile import MAX_CELL
from rag_metrics.io.golden import load_golden
from rag_metrics.io.jsonl import MAX_DEPTH
from rag_metrics.io.log_matching import match_log, resolve_documents
from rag_metrics.io.logs import load_log
from rag_metrics.io.pages import read_pdf

EXAMPLES = data_dir() / "examples"
GOLDEN = str(data_dir() / "golden.jsonl")
CORPUS = str(data_dir() / "corpus")


def refused(capsys, tmp_path, args, message, command="report"):
    """The command exits 2 with one line matching ``message``, and writes nothing: ``report`` and ``run`` are pointed
    at ``tmp_path/written`` here, ``answers``, ``labels`` and ``gate`` by their ``args`` (:func:`written`)."""
    out = tmp_path / "written"
    extra = {"report": ["--experiment", "bad", "--reports-dir", str(out)],
             "run": ["--runs-dir", str(out), "--no-progress"]}.get(command, [])
    code = main([command, *extra, *args])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"rag-metrics {command}: error: "), err
    assert re.search(message, lines[0]), lines[0]
    assert not out.exists()
    return lines[0]


def written(tmp_path, name) -> str:
    """Where a command of the catalog writes: in ``tmp_path/written``, which :func:`refused` checks is not made."""
    return str(tmp_path / "written" / name)


def log_file(tmp_path, *records, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records),
                    encoding="utf-8")
    return str(path)


def golden_csv(tmp_path, text):
    path = tmp_path / "g.csv"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


OK_LOG = str(EXAMPLES / "bm25_c300o50.jsonl")


# ---- golden sets as CSV, read strictly --------------------------------------------------------------------------

def test_unterminated_quote(tmp_path, capsys):
    g = golden_csv(tmp_path, 'question_id,question,doc_id,page\nq001,"What is X?,expense_policy,3\n'
                             'q002,B?,faq_ja,2\nq003,C?,faq_ja,3\n')
    refused(capsys, tmp_path, ["--golden", g, "--run", OK_LOG],
            r"g.csv:2: a quoted cell opened on this row is never closed")


def test_duplicated_header_column(tmp_path, capsys):
    g = golden_csv(tmp_path, "question_id,question,doc_id,page,doc_id\nq001,A?,expense_policy,3,faq_ja\n")
    refused(capsys, tmp_path, ["--golden", g, "--run", OK_LOG],
            r"g.csv:1: column 'doc_id' appears twice in the header \(cells 3 and 5\)")


def test_a_huge_cell(tmp_path, capsys):
    g = golden_csv(tmp_path, 'question_id,question,doc_id,page\nq001,"' + "x" * (MAX_CELL + 1) + '",expense_policy,3\n')
    refused(capsys, tmp_path, ["--golden", g, "--run", OK_LOG], r"g.csv:2: a cell is longer than 131,072 characters")


def test_text_after_a_closing_quote(tmp_path, capsys):
    g = golden_csv(tmp_path, 'question_id,question,doc_id,page\nq001,"A"?,expense_policy,3\n')
    refused(capsys, tmp_path, ["--golden", g, "--run", OK_LOG], r"g.csv:2: text after a closing quote")


def test_cr_line_ends_read_like_lf(tmp_path):
    rows = ["question_id,question,doc_id,page", "q001,A?,expense_policy,3", 'q002,"B,\nstill B?",faq_ja,2',
            "q003,C?,faq_ja,3"]
    lf, cr, crlf = (golden_csv(tmp_path / name, end.join(rows) + end) for name, end in
                    (("lf", "\n"), ("cr", "\r"), ("crlf", "\r\n")) if (tmp_path / name).mkdir() is None)
    a, b, c = load_golden(lf), load_golden(cr), load_golden(crlf)
    assert len(a.questions) == 3 and a.fingerprint() == b.fingerprint() == c.fingerprint()
    with pytest.raises(InputError, match=r"g.csv:5: question 'q003': page 'x'"):  # physical lines, in a CR file too
        load_golden(golden_csv(tmp_path, "\r".join(rows[:3] + ["q003,C?,faq_ja,x"])))


# ---- logs -------------------------------------------------------------------------------------------------------

def test_deep_nesting(tmp_path, capsys):
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    log = log_file(tmp_path, f'{{"question_id": "q001", "retrieved": [{{"doc_id": "faq_ja", "x": {deep}}}]}}')
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            r"log.jsonl:1: nested deeper than 64 levels \(at retrieved.0.x...\)")
    very = log_file(tmp_path, "[" * 100_000 + "]" * 100_000, name="very.jsonl")  # deeper than Python's parser goes
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", very], r"very.jsonl:1: nested deeper than 64 levels")


def test_the_depth_limit_is_exact(tmp_path):
    def line(depth):  # the deepest value sits `depth` keys down: "x", then depth - 1 list indexes
        return '{"question_id": "q1", "retrieved": [{"doc_id": "d"}], "x": ' + "[" * (depth - 1) + "1" + \
            "]" * (depth - 1) + "}"

    assert len(load_log(log_file(tmp_path, line(MAX_DEPTH))).questions) == 1
    with pytest.raises(InputError, match=r"log.jsonl:1: nested deeper than 64 levels"):
        load_log(log_file(tmp_path, line(MAX_DEPTH + 1)))


def test_a_lone_surrogate(tmp_path, capsys):
    log = log_file(tmp_path, '{"question_id": "q001", "retrieved": [{"doc_id": "faq\\ud800ja"}]}')
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            r"log.jsonl:1: retrieved.0.doc_id 'faq\\ud800ja' holds a lone surrogate")
    paired = log_file(tmp_path, '{"question_id": "q001", "retrieved": [{"doc_id": "faq_ja", "text": "\\ud83d\\ude00"}]}',
                      name="paired.jsonl")
    assert load_log(paired).run["text"].iloc[0] == "\U0001F600"  # a surrogate pair is one character


@pytest.mark.parametrize("empty", ["", "   "])
def test_empty_document_ids(tmp_path, capsys, empty):
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"doc_id": empty, "page": 3}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            rf"log.jsonl:1: question 'q001', retrieved item 1: doc_id {empty!r} is empty")


def test_the_same_question_by_id_and_by_text(tmp_path, capsys, golden):
    text = golden.questions.at["q001", "question"]
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"doc_id": "expense_policy", "page": 3}]},
                   {"question": "  " + text, "retrieved": [{"doc_id": "faq_ja", "page": 2}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            r"log.jsonl:2: question 'q001' is logged twice: by ID at line 1 and by its text here")


def test_overlap_judge_without_pages(tmp_path, capsys):
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", OK_LOG, "--judge", "overlap"],
            r"bm25_c300o50.jsonl: judge 'overlap' does not apply to this log: the documents are not given \(--pages\)")


def test_page_judge_on_a_log_without_pages(tmp_path, capsys):
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"doc_id": "expense_policy", "text": "x"}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--pages", CORPUS, "--run", log, "--judge", "page"],
            r"log.jsonl: judge 'page' does not apply to this log: the log has no page numbers")


def test_a_chunk_id_without_a_document(tmp_path, capsys):
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"doc_id": "faq_ja"}]},
                   {"question_id": "q002", "retrieved": [{"chunk_id": "c1"}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            r"log.jsonl:2: question 'q002', retrieved item 1: a chunk_id \('c1'\) and no document, and the golden "
            r"set has no gold chunk IDs")


def test_a_field_path_that_matches_nothing(tmp_path, capsys):
    lc = str(EXAMPLES / "langchain_bm25_c400o100.jsonl")
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", lc, "--preset", "langchain", "--field", "page@0=metadata.nope"],
            r"langchain_bm25_c400o100.jsonl: field mapping page=metadata.nope: no retrieved item of the log has "
            r"'metadata.nope'")
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", OK_LOG, "--field", "question_id=qid"],
            r"field mapping question_id=qid: no record of the log has 'qid'")


def test_text_only_without_pages(tmp_path, capsys):
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"text": "Claims are due within 30 days."}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", log],
            r"log.jsonl:1: text-only log: give --pages so each text is located on the pages")


def test_a_log_that_names_no_document_of_the_corpus(tmp_path, capsys):
    log = log_file(tmp_path, {"question_id": "q001", "retrieved": [{"doc_id": "s3://b/other/manual.pdf", "page": 1}]})
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--pages", CORPUS, "--run", log],
            r"log.jsonl:1: no retrieved item names a document of the corpus")


def test_answers_of_a_generator_that_is_not_there(tmp_path, capsys):
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--run", OK_LOG, "--answers", str(data_dir() / "answers.jsonl"),
                               "--generator", "gen_z"], r"answers.jsonl: no answer of generator 'gen_z'")


# ---- documents matched by path suffix ---------------------------------------------------------------------------

@pytest.fixture()
def two_policies(tmp_path):
    docs = tmp_path / "docs"
    for folder in ("hr", "it"):
        (docs / folder).mkdir(parents=True)
        (docs / folder / "policy.md").write_text(f"{folder} policy\fpage two of the {folder} policy\n",
                                                 encoding="utf-8")
    (docs / "hr" / "ガイド.md").write_text("guide\n", encoding="utf-8")
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"question_id": "q1", "question": "HR?", "gold_pages": [["hr/policy", 2]]}) + "\n")
    return docs, golden


def test_the_longest_unique_path_suffix(two_policies, tmp_path):
    docs, golden_path = two_policies
    corpus = load_corpus(docs)
    golden = load_golden(golden_path, corpus=corpus)
    nfd = unicodedata.normalize("NFD", "/Users/me/docs/hr/ガイド.pdf")  # a macOS file name
    assert nfd != unicodedata.normalize("NFC", nfd)
    log = log_file(tmp_path, {"question_id": "q1", "retrieved": [
        {"doc_id": "/srv/docs/hr/policy.pdf", "page": 2}, {"doc_id": "file:///srv/docs/it/policy.pdf", "page": 1},
        {"doc_id": nfd, "page": 1}, {"doc_id": "s3://b/elsewhere.pdf", "page": 1},
        {"doc_id": "s3://flat-bucket/%E3%82%AC%E3%82%A4%E3%83%89.pdf", "page": 1}]})  # a flattened upload
    read = load_log(log, golden=golden, corpus=corpus)
    assert read.run["doc_id"].tolist() == ["hr/policy", "it/policy", "hr/ガイド", "s3://b/elsewhere.pdf", "hr/ガイド"]
    assert read.run["logged_doc_id"].tolist()[0] == "/srv/docs/hr/policy.pdf"
    assert (read.documents["by_path_suffix"], read.documents["unmatched"], read.documents["unmatched_items"],
            read.documents["items"]) == (4, 1, 1, 5)  # a partly matched log says how many items matched nothing
    assert load_log(log).fingerprint() == read.fingerprint()  # the log as logged, matched or not


def test_an_ambiguous_name_lists_the_candidates(two_policies, tmp_path, capsys):
    docs, golden_path = two_policies
    log = log_file(tmp_path, {"question_id": "q1", "retrieved": [{"doc_id": "hr/policy", "page": 1}]},
                   {"question_id": "q2", "retrieved": [{"doc_id": "policy.pdf", "page": 2}]})
    refused(capsys, tmp_path, ["--golden", str(golden_path), "--pages", str(docs), "--run", log],
            r"log.jsonl:2: document 'policy.pdf' fits 2 documents equally well: hr/policy, it/policy")
    with pytest.raises(InputError, match="fits 2 documents equally well"):  # against the gold documents alone too
        resolve_documents(["/srv/docs/policy.pdf"], ["hr/policy", "it/policy"])
    mapping, _ = resolve_documents(["policy.pdf", "x/hr/policy.md"], ["hr/policy", "policy"])
    assert mapping == {"policy.pdf": "policy", "x/hr/policy.md": "hr/policy"}  # the longest suffix wins


def test_matching_needs_something_to_match_to(tmp_path):
    log = load_log(log_file(tmp_path, {"question_id": "q1", "retrieved": [{"doc_id": "d"}]}))
    with pytest.raises(InputError, match="give the golden set, the corpus, or both"):
        match_log(log)


# ---- run: parameters checked before anything is written ---------------------------------------------------------

@pytest.mark.parametrize("option, value, message", [
    ("--backoff", "-1", r"'backoff' parameter must be a finite number of seconds >= 0. Got -1.0"),
    ("--backoff", "nan", r"'backoff' parameter must be a finite number of seconds >= 0. Got nan"),
    ("--timeout", "0", r"'timeout' parameter must be a finite number of seconds > 0 or None. Got 0.0"),
    ("--timeout", "inf", r"'timeout' parameter must be a finite number of seconds > 0"),
])
def test_run_refuses_bad_timing(tmp_path, capsys, option, value, message):
    refused(capsys, tmp_path, ["--retriever", "bm25", "--pages", CORPUS, "--golden", GOLDEN, option, value], message,
            command="run")


# ---- PDFs: any failure of the parser is named ------------------------------------------------------------------

def _reportlab_pdf() -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=1)
    for text in ("Expense claims are due within 30 days.", "Receipts above 25 EUR."):
        c.drawString(72, 750, text)
        c.showPage()
    c.save()
    return buf.getvalue()


def test_an_unsupported_stream_filter_is_named(tmp_path, capsys):
    """pypdf raises NotImplementedError for a stream filter it does not know: the page is named, exit 2."""
    from pypdf import PdfReader

    data = _reportlab_pdf()
    assert b"/FlateDecode" in data
    bad = tmp_path / "docs" / "bad.pdf"
    bad.parent.mkdir()
    bad.write_bytes(data.replace(b"/FlateDecode", b"/FlatXDecode"))
    with pytest.raises(NotImplementedError):  # what the parser itself does
        [p.extract_text() for p in PdfReader(str(bad)).pages]
    code = main(["pages", str(bad.parent), "-o", str(tmp_path / "pages.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and "bad.pdf: page 1: the text layer cannot be read (NotImplementedError: Unsupported filter" in err
    assert not (tmp_path / "pages.jsonl").exists()


def test_fuzzed_pdfs_are_read_or_named(tmp_path):
    """A seeded fuzz: random bytes changed in a real PDF give pages or an InputError naming the file, never
    another exception."""
    data = _reportlab_pdf()
    rng = random.Random(7)
    outcomes = set()
    for i in range(120):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        path = tmp_path / f"fuzz{i}.pdf"
        path.write_bytes(bytes(mutated))
        try:
            read_pdf(path)
            outcomes.add("read")
        except InputError as e:
            assert str(e).startswith(str(path)), e
            outcomes.add("refused")
    assert outcomes == {"read", "refused"}


def test_pdf_pages_carry_their_language(tmp_path):
    from reportlab.pdfgen import canvas

    declared = tmp_path / "declared.pdf"
    c = canvas.Canvas(str(declared), invariant=1, lang="en-US")
    c.drawString(72, 750, "Expense claims are due within 30 days.")
    c.showPage()
    c.save()
    assert {p["language"] for p in read_pdf(declared)} == {"en"}
    plain = tmp_path / "plain.pdf"
    plain.write_bytes(_reportlab_pdf())
    assert {p["language"] for p in read_pdf(plain)} == {""}  # Latin letters alone: no language claimed
    import pdf_maker

    ja = tmp_path / "ja.pdf"
    pdf_maker.make_pdf(["経費精算は翌月5日までに提出してください。"], ja)
    assert {p["language"] for p in read_pdf(ja)} == {"ja"}


def test_check_choice_names_the_parameter_or_the_place():
    from rag_metrics.core.errors import check_choice

    assert check_choice("dask", ("local", "dask"), "engine") == "dask"
    with pytest.raises(InputError, match=r"^The 'engine' parameter of evaluate_log must be one of \('local', 'dask'\)\. "
                                         r"Got 'Dask' instead\. Did you mean 'dask'\?$"):
        check_choice("Dask", ("local", "dask"), "engine", func="evaluate_log")
    with pytest.raises(InputError, match=r"^r\.csv:3: question 'q1': decision 'maybe'; expected one of keep, drop\.$") as e:
        check_choice("maybe", ("keep", "drop"), "decision", what="question 'q1':", path="r.csv", line=3,
                     field="decision", question="q1")
    assert (e.value.line, e.value.field, e.value.question) == (3, "decision", "q1")
    with pytest.raises(InputError, match=r"^unknown judge 'x'; expected one of page, overlap\.$"):
        check_choice("x", {"page": 1, "overlap": 2}, "judge", what="unknown")
    with pytest.raises(InputError, match="Got \\['a'\\] instead"):  # unhashable: refused, not a TypeError
        check_choice(["a"], frozenset({"a"}), "x")


@pytest.mark.parametrize("value, bounds, expected", [
    (0.5, {"low": 0.5, "high": 1, "high_open": True}, None),
    (0.9999, {"low": 0.5, "high": 1, "high_open": True}, None),
    (1, {"low": 0.5, "high": 1, "high_open": True}, r"in \[0\.5, 1\)\. Got 1 instead\."),
    (0.4999, {"low": 0.5, "high": 1, "high_open": True}, r"in \[0\.5, 1\)\. Got 0\.4999 instead\."),
    (0, {"low": 0, "high": 1, "low_open": True}, r"in \(0, 1\]\. Got 0 instead\."),
    (1, {"low": 0, "high": 1, "low_open": True}, None),
    (1e-12, {"low": 0, "low_open": True}, None),
    (0.0, {"low": 0, "low_open": True}, r"> 0\. Got 0\.0 instead\."),
    (0, {"low": 0}, None),
    (-1, {"low": 0}, r">= 0\. Got -1 instead\."),
    (2, {"high": 2}, None),
    (3, {"high": 2}, r"<= 2\. Got 3 instead\."),
    (float("nan"), {}, r"a finite number\. Got nan instead\."),
    (float("inf"), {"low": 0}, r">= 0\. Got inf instead\."),
    (True, {"low": 0}, r">= 0\. Got True instead\."),
    ("0.5", {"low": 0}, r">= 0\. Got '0\.5' instead\."),
])
def test_check_number_says_the_range_at_and_beside_each_end(value, bounds, expected):
    from rag_metrics.core.errors import check_number

    if expected is None:
        got = check_number(value, "x", **bounds)
        assert got == value and type(got) is float
        return
    with pytest.raises(InputError, match=r"^The 'x' parameter of f must be " + expected + "$") as e:
        check_number(value, "x", func="f", field="x", **bounds)
    assert e.value.field == "x"


@pytest.mark.parametrize("call, expected", [
    (lambda s: s.mean_interval([0.0, 1.0], confidence=1.0), r"'confidence' parameter must be in \[0\.5, 1\)"),
    (lambda s: s.mean_interval([0.2, 0.4], n_resamples=99), r"'n_resamples' parameter must be an int >= 100"),
    (lambda s: s.paired_test([0.2, 0.4], [0.3, 0.5], n_resamples=99), r"'n_resamples' parameter must be an int"),
    (lambda s: s.questions_needed(0.05, discordant_rate=0.2, power=1), r"'power' parameter must be in \(0, 1\)"),
    (lambda s: s.questions_needed(0.05, discordant_rate=0.0), r"'discordant_rate' parameter must be in \(0, 1\]"),
    (lambda s: s.questions_needed(0.05, sd_diff=0.0), r"'sd_diff' parameter must be > 0\. Got 0\.0 instead\. "
                                                      r"It is the spread"),
    (lambda s: s.minimum_detectable_difference(1, 0.3), r"'n' parameter must be an int >= 2"),
])
def test_the_statistics_range_checks_are_the_shared_ones(call, expected):
    """stats/ writes no range message of its own: core/errors' checks refuse the value, the option in ``field``."""
    import rag_metrics.stats as stats

    with pytest.raises(InputError, match=expected) as e:
        call(stats)
    assert e.value.field is not None


def test_a_log_that_shares_no_question_with_the_golden_set(tmp_path, capsys):
    """Every logged question is unknown to the golden set (by ID and by text): refused before the notebook runs
    (it used to crash in a late cell and leave a partial report)."""
    first = json.loads(open(OK_LOG, encoding="utf-8").readline())
    log = log_file(tmp_path, {**first, "question_id": "x-q001", "question": "A question the golden set lacks?"},
                   {**first, "question_id": "x-q002", "question": "Another one?"})
    line = refused(capsys, tmp_path, ["--golden", GOLDEN, "--pages", CORPUS, "--run", OK_LOG, "--run", log],
                   r"log\.jsonl: none of the log's 2 questions is in the golden set")
    assert "the log's first: 'x-q001', 'x-q002'" in line


def test_a_log_sharing_one_question_is_read(tmp_path):
    """The boundary: one shared question is enough for a report (the others are counted as unknown)."""
    from rag_metrics.report.report_inputs import read_inputs

    first = json.loads(open(OK_LOG, encoding="utf-8").readline())
    log = log_file(tmp_path, first, {**first, "question_id": "x-q002", "question": "Another one?"})
    inputs = read_inputs(golden=GOLDEN, runs=[log], pages=CORPUS)
    assert inputs.unknown == [1] and len(inputs.logs) == 1


# ---- the labels and gate commands, as `report`: exit 2, one line naming file and field, nothing written ------------

def _foreign_log(tmp_path):
    records = [json.loads(line) for line in open(OK_LOG, encoding="utf-8")]
    return log_file(tmp_path, *({**r, "question_id": "x" + r["question_id"], "question": "other " + r["question"]}
                                for r in records), name="foreign.jsonl")


def _catalog(tmp_path):
    """(command, arguments, message): ``written`` is where each command would write; ``afile`` and ``adir`` exist."""
    written, afile, adir = tmp_path / "written", tmp_path / "afile", tmp_path / "adir"
    afile.write_text("kept\n")
    adir.mkdir()
    labels = ["--golden", GOLDEN, "--pages", CORPUS, "--run", OK_LOG]
    gate = ["--golden", GOLDEN, "--baseline", OK_LOG, "--run", str(EXAMPLES / "bm25_c400o100.jsonl")]
    review = tmp_path / "review.csv"
    review.write_text("candidate_id,question_id,doc_id,page,decision\nq001|faq|p2,q001,faq,2,maybe\n", encoding="utf-8")
    broken = golden_csv(tmp_path, 'question_id,question,doc_id,page\nq001,"What is X?,expense_policy,3\n')
    return [
        ("labels", ["audit", *labels, "-o", str(afile)], r"afile: -o: is a file; expected a folder"),
        ("labels", ["audit", *labels[:4], "--run", _foreign_log(tmp_path), "-o", str(written)],
         r"foreign\.jsonl: none of the 71 logged questions is in the golden set"),
        ("labels", ["sample", *labels, "-o", str(adir)], r"adir: -o: is a folder; expected a file"),
        ("labels", ["sample", "--golden", broken, "--pages", CORPUS, "--run", OK_LOG, "-o", str(written / "s.csv")],
         r"g\.csv:2: a quoted cell"),
        ("labels", ["assess", *labels, "-o", str(afile)], r"afile: -o: is a file; expected a folder"),
        ("labels", ["accept", "--golden", GOLDEN, "--decisions", str(review), "-o", str(adir), "--by", "A"],
         r"adir: -o: is a folder; expected a file"),
        ("labels", ["accept", "--golden", GOLDEN, "--decisions", str(review), "-o", str(written / "g.jsonl"), "--by",
                    "A"], r"review\.csv:2: candidate 'q001\|faq\|p2': decision 'maybe'"),
        ("gate", [*gate, "--markdown", str(afile / "x.md")], r"x\.md: --markdown: .*afile is a file"),
        ("gate", [*gate, "--junit", str(adir)], r"adir: --junit: is a folder; expected a file"),
        ("gate", [*gate, "--max-drop", "1.5", "--markdown", str(written / "x.md")],
         r"--max-drop 1\.5: expected a number from 0 to 1"),
        ("gate", ["--golden", GOLDEN, "--baseline", _foreign_log(tmp_path), "--run", OK_LOG, "--junit",
                  str(written / "j.xml")], r"foreign\.jsonl: none of the 71 logged questions"),
        ("gate", ["--golden", GOLDEN, "--baseline", OK_LOG, "--run", f"native(page@0=x):{OK_LOG}"],
         r"option 'page@0=x'; expected FIELD=PATH with FIELD one of .* \(a log with its own shape is written"),
        ("gate", ["--golden", GOLDEN, "--baseline", OK_LOG, "--run", f"native(doc_id=meta.src:{OK_LOG}"],
         r"'\)' is missing; a log with its own shape is written PRESET:LOG"),
        ("report", ["--experiment", "bad", "--reports-dir", str(afile), "--golden", GOLDEN, "--run", OK_LOG],
         r"afile: --reports-dir: is a file; expected a folder"),
        ("report", ["--experiment", "bad", "--reports-dir", str(written), "--golden", GOLDEN, "--run",
                    f"native(doc_id=meta.src){OK_LOG}"], r"':' after '\)' is missing"),
    ]


@pytest.mark.parametrize("case", range(15))
def test_labels_and_gate_refuse_before_writing(tmp_path, capsys, case):
    cases = _catalog(tmp_path)
    assert len(cases) == 15
    command, args, message = cases[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code = main([command, *args])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"rag-metrics {command}: error: "), err
    assert re.search(message, lines[0]), lines[0]
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written, nothing created
    assert (tmp_path / "afile").read_text() == "kept\n" and not list((tmp_path / "adir").iterdir())


def test_a_broken_pdf_is_one_line_without_the_parsers_noise(tmp_path, capsys):
    data = _reportlab_pdf()
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(data[: len(data) // 2] + b"garbage" + data[len(data) // 2 + 40:])
    out = tmp_path / "pages.jsonl"
    import subprocess
    import sys

    # a process of its own, as a user runs it (pytest's log capture would hide what the terminal shows)
    done = subprocess.run([sys.executable, "-m", "rag_metrics.cli", "pages", str(broken), "-o", str(out)],
                          capture_output=True, text=True)
    err = done.stderr
    assert done.returncode == 2 and err.count("\n") == 1 and err.startswith("rag-metrics pages: error: ") and "broken.pdf" in err, err
    assert not out.exists()


def test_a_name_of_exactly_name_max_characters_is_taken_one_more_is_refused():
    from rag_metrics.core.errors import NAME_MAX, check_name

    assert check_name("a" * NAME_MAX) == "a" * NAME_MAX
    with pytest.raises(InputError):
        check_name("a" * (NAME_MAX + 1))


@pytest.mark.parametrize("name", ["run-a", "bm25_c300.o50", "a-b_c.d"])
def test_a_name_with_dash_dot_underscore_is_taken(name):
    from rag_metrics.core.errors import check_name

    assert check_name(name) == name


@pytest.mark.parametrize("name", ["a/b", "a:b", "a@b", "a\\b", "a?b"])
def test_a_name_with_a_path_or_punctuation_character_is_refused(name):
    from rag_metrics.core.errors import check_name

    with pytest.raises(InputError):
        check_name(name)


# ---- answers: the context an answer was made from, read as a retrieval log's items (issue 45) --------------------

ANSWERS = str(data_dir() / "answers.jsonl")
Q010 = {"question_id": "q010", "generator": "gen_a", "generated_answer": "5th day of the month following approval"}


def answers_judge(path, *extra, command="judge"):
    return [command, "--golden", GOLDEN, "--pages", CORPUS, "--answers", path, *extra]


@pytest.mark.parametrize("change, message", [
    ({"retrieved": [{"doc_id": "expense_policy", "pages": [9.7]}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: page 9\.7 \(field pages\) is not an integer >= 1"),
    ({"retrieved": [{"doc_id": "expense_policy", "pages": [-1]}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: page -1 \(field pages\) is not an integer >= 1"),
    ({"retrieved": [{"doc_id": "expense_policy", "pages": [99]}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: page 99 of 'expense_policy' is beyond its last page \(12\)"),
    ({"retrieved": [{"doc_id": "expense_policy", "pages": ["x"]}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: page 'x' \(field pages\) is not an integer >= 1"),
    ({"retrieved": [{"doc_id": "expense_policy", "pages": 3}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: pages 3 is not a list of page numbers"),
    ({"retrieved": [3]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: expected a document ID or an object \(doc_id, page or pages, "
     r"text\), got 3"),
    ({"retrieved_ids": "expense_policy"},
     r"a\.jsonl:1: question 'q010': retrieved_ids 'expense_policy' is not a list of document IDs"),
    ({"retrieved_ids": ["expense_policy"], "generated_answer": 30},
     r"a\.jsonl:1: question 'q010': generated_answer 30 is not text"),
    ({"retrieved_ids": ["expense_policy"], "generated_answer": ["on the 5th"]},
     r"a\.jsonl:1: question 'q010': generated_answer \['on the 5th'\] is not text"),
    ({"retrieved": [{"doc_id": "nope", "pages": [1]}]},
     r"a\.jsonl:1: question 'q010', retrieved item 1: document 'nope' is not in the corpus"),
    ({"retrieved_ids": ["expense_policy", "nope"]},
     r"a\.jsonl:1: question 'q010', retrieved_ids item 2: document 'nope' is not in the corpus"),
])
def test_an_answers_context_is_read_as_a_log_is(tmp_path, capsys, change, message):
    path = log_file(tmp_path, {**Q010, **change}, name="a.jsonl")
    refused(capsys, tmp_path, answers_judge(path, "--context-k", "1", "-o", written(tmp_path, "d.json")), message,
            command="answers")


def test_a_context_item_with_one_page_is_that_page(tmp_path, capsys):
    """``"page": 8`` (as most logs write it) is page 8 -- not the whole document, which holds the answer on p.9."""
    path = log_file(tmp_path, {**Q010, "retrieved": [{"doc_id": "expense_policy", "page": 8}]}, name="a.jsonl")
    out = tmp_path / "d.json"
    assert main(["answers", *answers_judge(path, "--context-k", "1", "-o", str(out))]) == 0, capsys.readouterr().err
    q010, = json.loads(out.read_text(encoding="utf-8"))["runs"]["gen_a"]["questions"]
    assert (q010["retrieval_level"], q010["retrieval_ok"], q010["context"]) == ("page", False, "expense_policy p.8")
    assert q010["support"] == "none"


def test_answers_name_file_line_and_question(tmp_path, capsys):
    lines = open(ANSWERS, encoding="utf-8").read().splitlines()
    twice = log_file(tmp_path, lines[0], lines[1], lines[0], name="twice.jsonl")
    refused(capsys, tmp_path, answers_judge(twice, "-o", written(tmp_path, "d.json")),
            r"twice\.jsonl:3: question 'q001' has two answers \(also at line 1\)", command="answers")
    unknown = log_file(tmp_path, lines[0], {**json.loads(lines[1]), "question_id": "zzz"}, name="unknown.jsonl")
    refused(capsys, tmp_path, answers_judge(unknown, "-o", written(tmp_path, "d.json")),
            r"unknown\.jsonl:2: question 'zzz' is not in the golden set", command="answers")


@pytest.mark.parametrize("context, message", [
    ([["nope", 3]], r"claims\.jsonl:2: claim 'c002': context document 'nope' is not in the corpus"),
    ([["expense_policy", 99]], r"claims\.jsonl:2: claim 'c002': context page 99 of 'expense_policy' is beyond its "
                               r"last page \(12\)"),
])
def test_a_labelled_support_set_is_checked_against_the_documents(tmp_path, capsys, context, message):
    lines = open(data_dir() / "support" / "claims.jsonl", encoding="utf-8").read().splitlines()[:3]
    labels = log_file(tmp_path, lines[0], {**json.loads(lines[1]), "context": context}, lines[2], name="claims.jsonl")
    refused(capsys, tmp_path, answers_judge(ANSWERS, "--generator", "gen_a", "--labels", labels, "-o",
                                            written(tmp_path, "d.json")), message, command="answers")


@pytest.mark.parametrize("setting, now, message", [  # each recorded setting, changed alone (audit K16: the judge)
    (["--context-k", "1"], "gen_a", r"sheet\.csv:2: context_k: the sheet was drawn with context_k 3, not 1 as now"),
    (["--judge", "token-overlap"], "gen_a", r"sheet\.csv:2: judge: the sheet was drawn with judge offline, not "
                                            r"token-overlap"),
    ([], "gen_b", r"sheet\.csv:2: generator: the sheet was drawn with generator gen_a, not gen_b"),
])
def test_a_support_sheet_is_assessed_under_the_settings_it_was_drawn_with(tmp_path, capsys, setting, now, message):
    import csv

    sheet = tmp_path / "sheet.csv"
    assert main(["answers", *answers_judge(ANSWERS, "--generator", "gen_a", "-n", "5", "-o", str(sheet),
                                          command="sample")]) == 0
    with open(sheet, encoding="utf-8-sig", newline="") as f:
        rows = [{**row, "supported": "yes"} for row in csv.DictReader(f)]
    with open(sheet, "w", encoding="utf-8", newline="") as f:
        csv.DictWriter(f, fieldnames=list(rows[0])).writerows([dict(zip(rows[0], rows[0])), *rows])
    refused(capsys, tmp_path, answers_judge(ANSWERS, "--generator", now, *setting, "--sheet", str(sheet),
                                            "-o", written(tmp_path, "a.json"), command="assess"),
            message, command="answers")


def test_a_claim_cell_in_another_unicode_form_reads_as_the_same_claim(tmp_path, capsys):
    nfd = unicodedata.normalize("NFD", "週2日まで")
    assert nfd != "週2日まで"
    sheet = tmp_path / "sheet.csv"
    sheet.write_text(f"claim_id,claim,supported\nq001#1,30 days,yes\nq051#1,{nfd},yes\n", encoding="utf-8")
    out = tmp_path / "a.json"
    code = main(["answers", *answers_judge(ANSWERS, "--generator", "gen_a", "--sheet", str(sheet), "-o", str(out),
                                          command="assess")])
    assert code == 0, capsys.readouterr().err
    assert "2 labelled of 67 judged claims" in capsys.readouterr().out and out.exists()


LABELS_RUN = ["--golden", GOLDEN, "--pages", CORPUS, "--run", OK_LOG]


@pytest.mark.parametrize("row, message", [
    ("q001,expense_policy,99,no", r"js\.csv:3: question 'q001': page 99 of 'expense_policy' is beyond its last page "
                                  r"\(12\)"),
    ("q001,EXPENSE_POLICY,4,no", r"js\.csv:3: question 'q001': document 'EXPENSE_POLICY' is not in the corpus "
                                 r"\(did you mean 'expense_policy'\?\)"),
])
def test_a_judging_sheet_is_checked_against_the_documents(tmp_path, capsys, row, message):
    sheet = golden_csv(tmp_path, f"question_id,doc_id,page,relevant\nq001,expense_policy,3,yes\n{row}\n")
    sheet = str(Path(sheet).rename(Path(sheet).with_name("js.csv")))
    refused(capsys, tmp_path, ["assess", *LABELS_RUN, "--sample", sheet, "-o", written(tmp_path, "assess")], message,
            command="labels")


@pytest.mark.parametrize("command", [["answers", "sample", "--golden", GOLDEN, "--pages", CORPUS, "--answers", ANSWERS,
                                      "--generator", "gen_a"], ["labels", "sample", *LABELS_RUN]])
def test_a_negative_seed_is_refused(tmp_path, capsys, command):
    refused(capsys, tmp_path, [*command[1:], "--seed", "-1", "-o", written(tmp_path, "sheet.csv")],
            r"--seed: expected a whole number >= 0, got -1", command=command[0])


def test_a_misspelled_option_names_the_keys_taken(tmp_path, capsys):
    refused(capsys, tmp_path, answers_judge(ANSWERS, "--generator", "gen_a", "--option", "min_overlp=0.5", "-o",
                                            written(tmp_path, "d.json")),
            r"option 'min_overlp': unknown key for the offline judge; did you mean 'min_overlap'\? It takes "
            r"min_overlap, ", command="answers")
    refused(capsys, tmp_path, ["assess", *LABELS_RUN, "--option", "min_evidence_charz=3", "-o",
                               written(tmp_path, "assess")],
            r"option 'min_evidence_charz': unknown key for the offline assessor; did you mean 'min_evidence_chars'\? "
            r"It takes min_evidence_chars, related_share", command="labels")


@pytest.mark.parametrize("command, option, value", [
    (["answers", "judge", "--golden", GOLDEN, "--pages", CORPUS, "--answers", ANSWERS, "--generator", "gen_a"],
     "--price-in", "-1"),
    (["labels", "assess", *LABELS_RUN], "--price-out", "nan"),
    (["golden", "generate"], "--price-in", "1e309"),
])
def test_a_price_that_is_negative_or_not_finite_is_refused_when_parsed(tmp_path, capsys, command, option, value):
    with pytest.raises(SystemExit) as e:
        main([*command, option, value, "--dry-run", "--cache", written(tmp_path, "cache")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and not (tmp_path / "written").exists()
    prog = f"rag-metrics {' '.join(command[:2])}"
    assert err == [f"{prog}: error: argument {option}: {value!r}: expected a finite number >= 0 (USD per million "
                   f"tokens) (see {prog} --help)"]  # one line: no usage block above it


def test_two_logs_of_one_name_are_refused(tmp_path, capsys):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    a, b = tmp_path / "a" / "run.jsonl", tmp_path / "b" / "run.jsonl"
    a.write_bytes(open(OK_LOG, "rb").read())
    b.write_bytes(open(EXAMPLES / "bm25_c400o100.jsonl", "rb").read())
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--pages", CORPUS, "--run", str(a), "--run", str(b)],
            rf"--run: {re.escape(str(a))} and {re.escape(str(b))} are both run 'run' \(a run is named after its log's "
            r"file name, without the extension\); give one of them another file name")


def test_a_report_refuses_answers_naming_an_unknown_document(tmp_path, capsys):
    first, *rest = open(ANSWERS, encoding="utf-8").read().splitlines()
    answers = log_file(tmp_path, {**json.loads(first), "retrieved_ids": ["nope"]}, *rest, name="a.jsonl")
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--pages", CORPUS, "--run", OK_LOG, "--answers", answers,
                               "--generator", "gen_a"],
            r"a\.jsonl:1: question 'q001', retrieved_ids item 1: document 'nope' is not in the corpus")


@pytest.mark.parametrize("link", ["//host/x", "\\\\host\\x"])
def test_the_gate_refuses_a_report_link_to_another_host(tmp_path, capsys, link):
    refused(capsys, tmp_path, ["--golden", GOLDEN, "--baseline", OK_LOG, "--run", str(EXAMPLES / "bm25_c400o100.jsonl"),
                               "--markdown", written(tmp_path, "x.md"), "--report-link", link],
            rf"report link {re.escape(repr(link))}: a network-path reference", command="gate")



@pytest.mark.parametrize("value", ["", 0, False, {}])
def test_a_falsy_context_that_is_not_null_is_refused_when_read(tmp_path, value):
    """Audit K15: `"retrieved": ""` passed a truthiness check; only a missing or null context means none."""
    from rag_metrics.io.corpus import load_answers

    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"question_id": "q010", "generator": "g", "generated_answer": "x", "retrieved": value})
                    + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"a\.jsonl:1: question 'q010': retrieved .* is not a list of items"):
        load_answers(path)


@pytest.mark.parametrize("price", ["0", "0.0", "2.5"])
def test_a_price_of_zero_or_more_is_taken(tmp_path, capsys, price):
    """Audit K13: a free local model costs 0; the parser takes it (and says so in the cost line)."""
    code = main(["labels", "assess", *LABELS_RUN, "--price-in", price, "--price-out", price, "--dry-run", "--cache",
                 written(tmp_path, "cache"), "-o", written(tmp_path, "assess")])
    assert code == 0, capsys.readouterr().err
