"""The strict CSV reader (rag_metrics.io.csvfile) on files as people hand-edit them: BOM, CRLF and CR line ends,
spaces around header names, whitespace-only rows, trailing empty cells, capitalised suffixes, and each refusal
named with its line (issue 50: hand-edited inputs in every reader)."""

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.io.csvfile import MAX_CELL, read_csv, read_rows


def _write(tmp_path, text, name="sheet.csv", encoding="utf-8"):
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


PLAIN = "question_id,question\nq1,What is it?\nq2,Who signs?\n"
EXPECTED = (["question_id", "question"], [(2, {"question_id": "q1", "question": "What is it?"}),
                                          (3, {"question_id": "q2", "question": "Who signs?"})])


@pytest.mark.parametrize("edit", ["plain", "bom", "crlf", "cr", "bom_crlf", "blank_lines", "spaced_header",
                                  "tabbed_header", "no_final_newline"])
def test_hand_edited_forms_of_one_file_read_the_same(tmp_path, edit):
    text = {
        "plain": PLAIN,
        "bom": "\ufeff" + PLAIN,
        "crlf": PLAIN.replace("\n", "\r\n"),
        "cr": PLAIN.replace("\n", "\r"),
        "bom_crlf": "\ufeff" + PLAIN.replace("\n", "\r\n"),
        "blank_lines": "\n   \nquestion_id,question\n \t \nq1,What is it?\n,\nq2,Who signs?\n\n",
        "spaced_header": "question_id , question\nq1,What is it?\nq2,Who signs?\n",
        "tabbed_header": "\tquestion_id,question \nq1,What is it?\nq2,Who signs?\n",
        "no_final_newline": PLAIN.rstrip("\n"),
    }[edit]
    header, rows = read_csv(_write(tmp_path, text), "a golden set")
    assert header == EXPECTED[0]
    assert [r for _, r in rows] == [r for _, r in EXPECTED[1]]
    if edit in ("plain", "bom", "crlf", "cr", "bom_crlf", "spaced_header", "no_final_newline"):
        assert [line for line, _ in rows] == [2, 3]
    if edit == "blank_lines":
        assert [line for line, _ in rows] == [5, 7]       # the lines as an editor numbers them


def test_cells_keep_their_spaces_and_case_callers_decide(tmp_path):
    _, rows = read_csv(_write(tmp_path, "id,answer\n q1 , Yes \n"), "x")
    assert rows == [(2, {"id": " q1 ", "answer": " Yes "})]


def test_a_short_row_gets_none_and_trailing_empty_cells_are_dropped(tmp_path):
    _, rows = read_csv(_write(tmp_path, "a,b,c\n1\n1,2,3,,  \n"), "x")
    assert rows == [(2, {"a": "1", "b": None, "c": None}), (3, {"a": "1", "b": "2", "c": "3"})]


def test_a_quoted_cell_over_two_lines_keeps_the_line_it_starts_on(tmp_path):
    _, rows = read_csv(_write(tmp_path, 'a,b\n1,"two\nlines"\n2,x\n'), "x")
    assert rows == [(2, {"a": "1", "b": "two\nlines"}), (4, {"a": "2", "b": "x"})]


def test_a_neutralized_formula_cell_is_restored(tmp_path):
    _, rows = read_csv(_write(tmp_path, "id,q\n'-q002,'=1+1\n"), "x")
    assert rows == [(2, {"id": "-q002", "q": "=1+1"})]


@pytest.mark.parametrize("text, line, words", [
    ("a,,c\n1,2,3\n", 1, "header cell 2 is empty"),
    ("a, ,c\n1,2,3\n", 1, "header cell 2 is empty"),
    ("\n\na,b,a\n", 3, "'a' appears twice"),
    ("a,b\n1,2,3\n", 2, "more cells (3)"),
    ("a,b\n1,2\n3,\"open\n4,5\n", 3, "never closed"),
    ('a,b\n1,"x"y\n', 2, "text after a closing quote"),
    ("", None, "file is empty"),
    ("  \n\n \t\n", None, "file is empty"),
])
def test_refusals_name_the_line_and_the_fault(tmp_path, text, line, words):
    with pytest.raises(InputError) as e:
        read_csv(_write(tmp_path, text), "a golden set")
    assert words in str(e.value)
    assert e.value.line == line


def test_a_header_named_twice_once_with_spaces_is_refused(tmp_path):
    with pytest.raises(InputError, match="'question' appears twice"):
        read_csv(_write(tmp_path, "question, question\n1,2\n"), "x")


def test_a_cell_of_exactly_max_cell_characters_is_read_and_one_more_is_refused(tmp_path):
    _, rows = read_csv(_write(tmp_path, "a\n" + "x" * MAX_CELL + "\n"), "x")
    assert len(rows[0][1]["a"]) == MAX_CELL
    with pytest.raises(InputError, match="longer than"):
        read_csv(_write(tmp_path, "a\n" + "x" * (MAX_CELL + 1) + "\n"), "x")


@pytest.mark.parametrize("name", ["sheet.jsonl", "SHEET.JSONL", "sheet.JsonL"])
def test_read_rows_takes_json_lines_by_their_suffix_in_any_case(tmp_path, name):
    p = _write(tmp_path, '\ufeff{"id": "q1", "x": 1}\r\n\r\n{"id": "q2", "y": 2}\r\n', name=name)
    columns, rows = read_rows(p, jsonl="a sheet (JSON lines)", csv_what="a sheet (CSV)")
    assert columns == {"id", "x", "y"}
    assert [r["id"] for _, r in rows] == ["q1", "q2"]


def test_read_rows_reads_any_other_suffix_as_csv_and_says_which_it_expected(tmp_path):
    columns, rows = read_rows(_write(tmp_path, " id ,x\nq1,1\n", name="sheet.txt"), jsonl="J", csv_what="C")
    assert columns == {"id", "x"} and rows == [(2, {"id": "q1", "x": "1"})]
    with pytest.raises(InputError, match="expected C"):
        read_rows(_write(tmp_path, "", name="empty.csv"), jsonl="J", csv_what="C")
    with pytest.raises(InputError, match="expected J"):
        read_rows(_write(tmp_path, "\n \n", name="empty.jsonl"), jsonl="J", csv_what="C")
