"""Files people edit by hand read as they meant them (issue 50): every reader given the sample file as written and the
same file as an editor or a spreadsheet saves it -- a byte-order mark, CRLF line ends, blank and whitespace-only
lines, spaces around CSV cells, capitalized yes/no -- reads the same content. Each edit is one the project's
producers never make, so the plain reading is the reference."""

import json

import pandas as pd
import pytest

from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir, load_answers, load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log
from rag_metrics.io.sheets import YES, read_sheet, yes_no

DATA = data_dir()


def _lines(text: str) -> list[str]:
    return text.split("\n")


EDITS = {  # name -> how an editor rewrites a text file of lines
    "bom": lambda t: "\ufeff" + t,
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "blank lines": lambda t: "\n" + t.replace("\n", "\n\n", 3) + "\n\n",
    "whitespace-only lines": lambda t: " \t\n" + t.replace("\n", "\n   \n", 3),
    "all at once": lambda t: "\ufeff" + ("\n \n" + t + "\n\t\n").replace("\n", "\r\n"),
}


def _edited(tmp_path, source, edit: str, name: str):
    text = source.read_text(encoding="utf-8") if hasattr(source, "read_text") else source
    path = tmp_path / f"{edit.replace(' ', '_')}_{name}"
    path.write_bytes(EDITS[edit](text).encode("utf-8"))
    return path


def _same(a: pd.DataFrame, b: pd.DataFrame, edit: str):
    """The same rows; a ``line`` column (where each row stood, for error messages) follows inserted lines, and is
    equal where the edit inserts none."""
    moved = edit not in ("bom", "crlf")
    a, b = (t.reset_index(drop=True).drop(columns=["line"] if moved and "line" in t.columns else []) for t in (a, b))
    pd.testing.assert_frame_equal(a, b)


def _same_golden(a, b, edit):
    pd.testing.assert_frame_equal(a.questions, b.questions)
    _same(a.gold, b.gold, edit)
    _same(a.gold_pages, b.gold_pages, edit)


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_golden_set_in_json_lines(tmp_path, edit):
    source = DATA / "golden.jsonl"
    plain = load_golden(source)
    _same_golden(load_golden(_edited(tmp_path, source, edit, "golden.jsonl")), plain, edit)


def _golden_csv() -> str:
    return ("question_id,question,doc_id,page,type\n"
            "q001,What is the deadline?,expense_policy,3,fact\n"
            "q001,What is the deadline?,expense_policy,4,fact\n"
            'q005,"Who approves 1,500 EUR?",expense_policy,5,procedure\n')


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_golden_set_in_a_spreadsheet(tmp_path, edit):
    plain_path = tmp_path / "plain.csv"
    plain_path.write_text(_golden_csv(), encoding="utf-8")
    plain = load_golden(plain_path)
    _same_golden(load_golden(_edited(tmp_path, _golden_csv(), edit, "golden.csv")), plain, edit)
    assert plain.gold_pages.groupby("question_id").size().to_dict() == {"q001": 2, "q005": 1}


def test_spaces_around_spreadsheet_cells_are_not_part_of_an_id(tmp_path):
    padded = "\n".join(",".join(f" {c} " if i != 1 else c for i, c in enumerate(line.split(",", 4)))
                       if line and not line.startswith("q005") else line for line in _lines(_golden_csv()))
    path = tmp_path / "padded.csv"
    path.write_text(padded, encoding="utf-8")
    golden = load_golden(path)
    assert sorted(golden.questions.index) == ["q001", "q005"]
    assert set(golden.gold_pages["doc_id"]) == {"expense_policy"}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_retrieval_log(tmp_path, edit):
    source = DATA / "examples" / "bm25_c400o100.jsonl"
    plain, edited = load_log(source), load_log(_edited(tmp_path, source, edit, "log.jsonl"))
    _same(edited.run, plain.run, edit)


@pytest.mark.parametrize("edit", list(EDITS))
def test_answers(tmp_path, edit):
    source = DATA / "answers.jsonl"
    _same(load_answers(_edited(tmp_path, source, edit, "answers.jsonl")), load_answers(source), edit)


@pytest.fixture(scope="module")
def pages_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pages") / "pages.jsonl"
    assert main(["pages", str(DATA / "corpus"), "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_pages_file(tmp_path, pages_file, edit):
    plain, edited = load_corpus(pages_file), load_corpus(_edited(tmp_path, pages_file, edit, "pages.jsonl"))
    _same(edited.pages, plain.pages, edit)


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_sheet_handed_back(tmp_path, edit):
    text = "claim_id,verdict,note\nc1,yes,\nc2,no,looked twice\n"
    columns, rows = read_sheet(_edited(tmp_path, text, edit, "sheet.csv"), expected="a sheet",
                               required=["claim_id", "verdict"], key="claim_id", noun="claim")
    assert {"claim_id", "verdict", "note"} <= set(columns)
    got = [(line, cid, row["verdict"]) for line, cid, row in rows]
    assert [(cid, v) for _, cid, v in got] == [("c1", "yes"), ("c2", "no")]


@pytest.mark.parametrize("cell, expected", [("yes", True), ("Yes", True), (" YES ", True), ("y", True),
                                            ("True", True), ("1", True), ("No", False), (" n ", False),
                                            ("FALSE", False), ("0", False), ("", None), ("   ", None)])
def test_yes_and_no_as_people_type_them(cell, expected):
    assert yes_no(cell) is expected
    assert "yes" in YES and "no" not in YES


def test_a_line_of_only_spaces_inside_a_json_lines_file_is_not_a_record(tmp_path):
    rows = [json.loads(line) for line in (DATA / "answers.jsonl").read_text(encoding="utf-8").splitlines()[:2]]
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n    \n\t\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    assert len(load_answers(path)) == 2
