"""`labels audit / sample / assess / accept` under hostile and contradictory input: what they write they read back
(formula-neutralized IDs included), they refuse before writing, and they say what happens."""

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir
from rag_metrics.io.csvfile import read_csv
from rag_metrics.core.errors import InputError
from rag_metrics.core.serialize import csv_text

DATA = data_dir()
CORPUS = str(DATA / "corpus")
LOGS = [DATA / "examples" / "bm25_c300o50.jsonl", DATA / "examples" / "bm25_c400o100.jsonl"]
HOSTILE = "-=+@"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, command, *needles):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rag-metrics {command}: error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def rewrite_csv(path, edit):
    """Read a CSV the tool wrote as cells (no restoring), edit its rows, write it back (a spreadsheet round trip)."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
    body = edit(body) or body
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows([r.get(h, "") for h in header] for r in body)


def hostile_id(qid: str) -> str:
    return HOSTILE[int(qid[1:]) % len(HOSTILE)] + qid


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The sample golden set and two logs with every question ID starting with - = + or @."""
    root = tmp_path_factory.mktemp("hostile")
    lines = []
    for line in (DATA / "golden.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        rec["question_id"] = hostile_id(rec["question_id"])
        lines.append(json.dumps(rec, ensure_ascii=False))
    golden = root / "golden.jsonl"
    golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    logs = []
    for log in LOGS:
        out = []
        for line in log.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            rec["question_id"] = hostile_id(rec["question_id"])
            out.append(json.dumps(rec, ensure_ascii=False))
        path = root / log.name
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        logs.append(path)
    foreign = root / "foreign.jsonl"
    foreign.write_text("".join(json.dumps({"question_id": f"x{i}", "question": f"Unrelated question {i}?",
                                           "retrieved": [{"doc_id": "expense_policy", "page": 1, "text": "x"}]}) + "\n"
                               for i in range(3)), encoding="utf-8")
    return {"root": root, "golden": golden, "logs": logs, "foreign": foreign}


# ---- 1. what the tool writes, it reads back -----------------------------------------------------------------------

@given(st.lists(st.text(alphabet="'=+-@\t\r\n\",ab q0", min_size=1, max_size=10), min_size=1, max_size=5))
def test_every_csv_cell_written_reads_back_unchanged(tmp_path_factory, cells):
    path = tmp_path_factory.mktemp("rt") / "t.csv"
    header = [f"c{i}" for i in range(len(cells))]
    path.write_text(csv_text(header, [cells]), encoding="utf-8-sig", newline="")
    with open(path, encoding="utf-8-sig", newline="") as f:
        raw = list(csv.reader(f))[1]
    assert not [c for c in raw if c[:1] in ("=", "+", "-", "@", "\t", "\r")], raw  # nothing a spreadsheet would run
    header_read, rows = read_csv(path, "a test table")
    assert header_read == header
    if any(c.strip() for c in cells):  # (an all-blank row is skipped by the reader)
        assert [rows[0][1][h] for h in header] == cells


@pytest.mark.parametrize("qid", ["-q002", "=q002", "+q002", "@q002", "'-q002", "\tq002"])
def test_a_hostile_id_survives_the_review_file(tmp_path, qid):
    import pandas as pd

    from rag_metrics.labels.decisions import read_audit_decisions
    from rag_metrics.golden.review_file import write_review

    table = pd.DataFrame([{"candidate_id": f"{qid}|d|p1", "question_id": qid, "doc_id": "=d", "page": 1,
                           "decision": "accept"}])
    path = write_review(table, tmp_path / "review.csv")
    back = read_audit_decisions(path)  # (IDs are stripped of surrounding blanks, as a person's edits are)
    assert (back.at[0, "candidate_id"], back.at[0, "question_id"], back.at[0, "doc_id"]) == \
        (f"{qid}|d|p1".strip(), qid.strip(), "=d")


@pytest.mark.parametrize("cell, read", [("", "pending"), ("   ", "pending"), (" Accept ", "accept"),
                                        ("REJECT", "reject"), ("pending", "pending")])
def test_a_decision_cell_as_a_person_leaves_it(tmp_path, cell, read):
    """Cleared (empty or spaces only) is pending; any case and surrounding spaces are read; an unknown word is refused
    naming the file, the line, the field and the closest decision."""
    from rag_metrics.labels.decisions import read_audit_decisions

    path = tmp_path / "review.csv"
    path.write_text(f"candidate_id,question_id,doc_id,page,decision\r\nc1,q1,d,2,{cell}\r\n", encoding="utf-8-sig")
    assert read_audit_decisions(path).at[0, "decision"] == read
    path.write_text("candidate_id,question_id,doc_id,page,decision\nc1,q1,d,2,acept\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"review\.csv:2: candidate 'c1': decision 'acept'; expected one of .*"
                                         r"Did you mean 'accept'\?") as e:
        read_audit_decisions(path)
    assert e.value.field == "decision"


def test_audit_then_accept_with_hostile_ids(hostile, tmp_path, capsys):
    audit = tmp_path / "audit"
    code, out, err = run(capsys, "labels", "audit", "--golden", hostile["golden"], "--pages", CORPUS,
                         *sum((["--run", p] for p in hostile["logs"]), []), "-o", audit)
    assert code == 0, err
    with open(audit / "review.csv", encoding="utf-8-sig", newline="") as f:
        written = [r["question_id"] for r in csv.DictReader(f)]
    assert written and all(q.startswith("'") for q in written)  # neutralized for spreadsheets

    def accept(rows):
        for r in rows:
            r["decision"] = "accept"
    rewrite_csv(audit / "review.csv", accept)
    new = tmp_path / "new.jsonl"
    code, out, err = run(capsys, "labels", "accept", "--golden", hostile["golden"], "--decisions",
                         audit / "review.csv", "-o", new, "--by", "Aiko")
    assert code == 0, err
    assert f"{len(written)} page(s) accepted as gold" in out


def test_sample_then_assess_with_hostile_ids(hostile, tmp_path, capsys):
    sheet = tmp_path / "sheet.csv"
    code, out, err = run(capsys, "labels", "sample", "--golden", hostile["golden"], "--pages", CORPUS, "--run",
                         hostile["logs"][0], "-n", "4", "-o", sheet)
    assert code == 0, err

    def judge(rows):
        for r in rows:
            if r["doc_id"] and not r["relevant"]:
                r["relevant"] = "no"
    rewrite_csv(sheet, judge)
    code, out, err = run(capsys, "labels", "assess", "--golden", hostile["golden"], "--pages", CORPUS, "--run",
                         hostile["logs"][0], "--sample", sheet, "-o", tmp_path / "assess", "--force")
    assert code == 0, err
    assert (tmp_path / "assess" / "assessed.jsonl").is_file()


# ---- 2. assess --sample refuses before writing ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    root = tmp_path_factory.mktemp("sheet")
    path = root / "sheet.csv"
    assert main(["labels", "sample", "--golden", str(DATA / "golden.jsonl"), "--pages", CORPUS, "--run",
                 str(LOGS[0]), "-n", "3", "-o", str(path)]) == 0

    def judge(rows):
        for r in rows:
            if r["doc_id"] and not r["relevant"]:
                r["relevant"] = "no"
    rewrite_csv(path, judge)
    return path


def _assess(capsys, sheet_path, out):
    return run(capsys, "labels", "assess", "--golden", DATA / "golden.jsonl", "--pages", CORPUS, "--run", LOGS[0],
               "--sample", sheet_path, "-o", out, "--force")


@pytest.mark.parametrize("qid,message", [("q999", "question_id 'q999' is not in the golden set"),
                                         ("q066", "question_id 'q066' has no answer in the golden set")])
def test_assess_refuses_a_sheet_question_before_writing(sheet, tmp_path, capsys, qid, message):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(sheet.read_bytes())
    first = {}

    def rename(rows):
        first["q"] = rows[0]["question_id"]
        for r in rows:
            if r["question_id"] == first["q"]:
                r["question_id"] = qid
    rewrite_csv(bad, rename)
    out = tmp_path / "assess"
    code, stdout, err = _assess(capsys, bad, out)
    one_line_error(code, err, "labels", "bad.csv:2", message)
    assert not out.exists() and "wrote" not in stdout


# ---- 3. one page decided both ways ----------------------------------------------------------------------------------

@pytest.fixture()
def audited(tmp_path, capsys):
    audit = tmp_path / "audit"
    code, out, err = run(capsys, "labels", "audit", "--golden", DATA / "golden.jsonl", "--pages", CORPUS,
                         *sum((["--run", p] for p in LOGS), []), "-o", audit)
    assert code == 0, err
    return audit / "review.csv"


def test_one_page_accepted_and_rejected_is_refused_naming_both_rows(audited, tmp_path, capsys):
    def contradict(rows):
        twin = dict(rows[0], candidate_id=rows[0]["candidate_id"] + "#2", decision="reject")
        rows[0]["decision"] = "accept"
        rows.insert(1, twin)
    rewrite_csv(audited, contradict)
    new = tmp_path / "new.jsonl"
    code, out, err = run(capsys, "labels", "accept", "--golden", DATA / "golden.jsonl", "--decisions", audited,
                         "-o", new, "--by", "A")
    one_line_error(code, err, "labels", "review.csv:3", "given decision reject here and accept at line 2")
    assert not new.exists() and not Path(str(new) + ".judgments.jsonl").exists()


def test_one_page_decided_the_same_way_twice_is_one_judgment(audited, tmp_path, capsys):
    def twice(rows):
        rows[0]["decision"] = "accept"
        rows.insert(1, dict(rows[0], candidate_id=rows[0]["candidate_id"] + "#2"))
    rewrite_csv(audited, twice)
    new = tmp_path / "new.jsonl"
    code, out, err = run(capsys, "labels", "accept", "--golden", DATA / "golden.jsonl", "--decisions", audited,
                         "-o", new, "--by", "A")
    assert code == 0, err
    assert "1 page(s) accepted as gold" in out
    # the judgments file it wrote is read by the next command (no "judged twice")
    again = tmp_path / "again.jsonl"
    code, out, err = run(capsys, "labels", "accept", "--golden", new, "--decisions", audited, "-o", again, "--by", "A")
    assert code == 0, err


# ---- 4. contradictions with gold ----------------------------------------------------------------------------------

def test_rejecting_a_gold_page_is_refused(audited, tmp_path, capsys):
    def reject_gold(rows):
        rows[0].update(candidate_id="q001|expense_policy|p3", question_id="q001", doc_id="expense_policy", page="3",
                       decision="reject")
    rewrite_csv(audited, reject_gold)
    new = tmp_path / "new.jsonl"
    code, out, err = run(capsys, "labels", "accept", "--golden", DATA / "golden.jsonl", "--decisions", audited,
                         "-o", new, "--by", "A")
    one_line_error(code, err, "labels", "review.csv:2", "is a gold page of 'q001', so decision reject")
    assert not new.exists()


def test_a_sheet_marking_a_gold_page_no_is_refused(sheet, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(sheet.read_bytes())
    where = {}

    def ungold(rows):
        for i, r in enumerate(rows):
            if r["gold"] == "True":
                r["relevant"] = "no"
                where["line"] = i + 2
                return
    rewrite_csv(bad, ungold)
    out = tmp_path / "assess"
    code, stdout, err = _assess(capsys, bad, out)
    one_line_error(code, err, "labels", f"bad.csv:{where['line']}", "is a gold page, marked relevant 'no'")
    assert not out.exists()


# ---- 5. accept on its own output ----------------------------------------------------------------------------------

def test_accept_on_its_own_output_changes_nothing(audited, tmp_path, capsys):
    def decide(rows):
        rows[0]["decision"] = "accept"
        rows[1]["decision"] = "reject"
    rewrite_csv(audited, decide)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert run(capsys, "labels", "accept", "--golden", DATA / "golden.jsonl", "--decisions", audited, "-o", first,
               "--by", "A")[0] == 0
    code, out, err = run(capsys, "labels", "accept", "--golden", first, "--decisions", audited, "-o", second,
                         "--by", "A")
    assert code == 0, err
    assert "0 page(s) accepted as gold, 0 rejected" in out and "2 decided so already" in out
    assert "nothing changed" in out and "->" not in out
    assert second.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")  # no provenance added twice
    assert Path(str(second) + ".judgments.jsonl").read_text() == Path(str(first) + ".judgments.jsonl").read_text()


# ---- 6. the three files appear together ----------------------------------------------------------------------------

def test_accept_publishes_its_files_together(audited, tmp_path, capsys, monkeypatch):
    import os

    def decide(rows):
        rows[0]["decision"] = "accept"
    rewrite_csv(audited, decide)
    new = tmp_path / "new.jsonl"
    moved = []
    real = os.replace

    def dying_replace(src, dst):
        moved.append(Path(dst).name)
        if len(moved) == 2:
            raise KeyboardInterrupt("killed between two files")
        return real(src, dst)
    monkeypatch.setattr(os, "replace", dying_replace)
    code = main(["labels", "accept", "--golden", str(DATA / "golden.jsonl"), "--decisions", str(audited), "-o",
                 str(new), "--by", "A"])
    monkeypatch.setattr(os, "replace", real)
    assert code == 130 and capsys.readouterr().err == "rag-metrics labels: interrupted.\n"  # one line, no traceback
    assert moved[-1] != new.name and not new.exists()  # the golden set, published last, never appears alone
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]  # no staging folder left behind
    assert run(capsys, "labels", "accept", "--golden", DATA / "golden.jsonl", "--decisions", audited, "-o", new,
               "--by", "A")[0] == 0
    assert {p.name for p in tmp_path.iterdir() if p.name.startswith("new")} == \
        {"new.jsonl", "new.jsonl.judgments.jsonl", "new.jsonl.meta.json"}


def test_the_audit_folder_appears_whole(tmp_path, capsys, monkeypatch):
    from rag_metrics.labels import label_audit as labels

    real = labels.LabelAudit.to_html

    def broken(self, *a, **k):
        raise RuntimeError("died while rendering the page")
    monkeypatch.setattr(labels.LabelAudit, "to_html", broken)
    audit = tmp_path / "audit"
    with pytest.raises(RuntimeError):
        main(["labels", "audit", "--golden", str(DATA / "golden.jsonl"), "--pages", CORPUS, "--run", str(LOGS[0]),
              "-o", str(audit)])
    monkeypatch.setattr(labels.LabelAudit, "to_html", real)
    assert not audit.exists() and not list(tmp_path.iterdir())


# ---- 7. a log matching no golden question --------------------------------------------------------------------------

@pytest.mark.parametrize("action", ["audit", "sample", "assess"])
def test_a_log_of_another_golden_set_is_refused(hostile, tmp_path, capsys, action):
    out = tmp_path / "out"
    code, stdout, err = run(capsys, "labels", action, "--golden", DATA / "golden.jsonl", "--pages", CORPUS,
                            "--run", hostile["foreign"], "-o", out)
    one_line_error(code, err, "labels", "foreign.jsonl", "none of the 3 logged questions is in the golden set")
    assert not out.exists()


def test_a_new_audit_folder_appears_in_one_rename(tmp_path, monkeypatch):
    import os

    real, moved = os.replace, []

    def dying_replace(src, dst):
        moved.append(dst)
        if len(moved) == 2:
            raise RuntimeError("killed between two files")
        return real(src, dst)
    monkeypatch.setattr(os, "replace", dying_replace)
    audit = tmp_path / "audit"
    assert main(["labels", "audit", "--golden", str(DATA / "golden.jsonl"), "--pages", CORPUS, "--run", str(LOGS[0]),
                 "-o", str(audit)]) == 0
    assert not moved  # no file moved one by one: the folder appeared whole
    assert {p.name for p in audit.iterdir()} == {"review.csv", "findings.csv", "audit.html", "audit.json"}
