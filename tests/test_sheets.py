"""The one reader of sheets people fill in (rag_metrics.io.sheets) on hand-edited sheets: capitalised words,
spaces around cells, whitespace-only IDs, BOM and CRLF, a JSON-lines sheet, each refused or read as documented
(issue 50: hand-edited inputs in every reader)."""

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.io.sheets import NO, YES, choice_cell, positive_int_cell, read_sheet, text_cell, yes_no


def _sheet(tmp_path, text, name="sheet.csv"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


def _read(path, label="question"):
    columns, rows = read_sheet(path, expected="the sheet of `rag-metrics labels sample`", required=["question_id",
                               "grade"], key="question_id", label=label, noun="labelled rows")
    return columns, list(rows)


@pytest.mark.parametrize("edit", ["plain", "bom_crlf", "spaces", "blank_rows"])
def test_a_hand_edited_sheet_reads_its_ids_stripped_with_their_lines(tmp_path, edit):
    text = {"plain": "question_id,grade\nq1,2\nq2,0\n",
            "bom_crlf": "\ufeffquestion_id,grade\r\nq1,2\r\nq2,0\r\n",
            "spaces": " question_id , grade \n  q1 ,2\n\tq2\t,0\n",
            "blank_rows": "question_id,grade\n\n , \nq1,2\n   \nq2,0\n"}[edit]
    columns, rows = _read(_sheet(tmp_path, text))
    assert columns == {"question_id", "grade"}
    assert [qid for _, qid, _ in rows] == ["q1", "q2"]
    lines = {"plain": [2, 3], "bom_crlf": [2, 3], "spaces": [2, 3], "blank_rows": [4, 6]}[edit]
    assert [line for line, _, _ in rows] == lines


def test_a_missing_column_is_refused_on_line_one_naming_the_command(tmp_path):
    with pytest.raises(InputError) as e:
        _read(_sheet(tmp_path, "question_id,grades\nq1,2\n"))
    assert e.value.line == 1 and "['grade']" in str(e.value) and "labels sample" in str(e.value)


@pytest.mark.parametrize("cell", ["", "   ", "\t"])
def test_an_empty_or_whitespace_only_id_is_refused_with_its_line(tmp_path, cell):
    with pytest.raises(InputError) as e:
        _read(_sheet(tmp_path, f"question_id,grade\nq1,2\n{cell},1\n"))
    assert e.value.line == 3 and "is empty" in str(e.value)


def test_an_id_listed_twice_names_both_lines_even_with_spaces_and_only_when_a_label_is_given(tmp_path):
    path = _sheet(tmp_path, "question_id,grade\nq1,2\nq2,1\n q1 ,0\n")
    with pytest.raises(InputError) as e:
        _read(path)
    assert e.value.line == 4 and "question 'q1' is listed twice (also at line 2)" in str(e.value)
    _, rows = _read(path, label=None)                     # an ID may name several rows: no refusal
    assert [qid for _, qid, _ in rows] == ["q1", "q2", "q1"]


def test_a_sheet_without_rows_is_refused(tmp_path):
    with pytest.raises(InputError, match="no labelled rows found"):
        _read(_sheet(tmp_path, "question_id,grade\n\n  \n"))


def test_a_json_lines_sheet_is_read_by_its_suffix(tmp_path):
    path = _sheet(tmp_path, '\ufeff{"question_id": " q1 ", "grade": 2}\r\n{"question_id": "q2", "grade": 0}\n',
                  name="SHEET.JSONL")
    columns, rows = _read(path)
    assert [qid for _, qid, _ in rows] == ["q1", "q2"] and rows[0][2]["grade"] == 2
    with pytest.raises(InputError) as e:
        _read(_sheet(tmp_path, '{"question_id": 7, "grade": 2}\n', name="n.jsonl"))
    assert "is empty" in str(e.value) and e.value.line == 1          # an ID must be text


@pytest.mark.parametrize("value, expected", [(" a why ", "a why"), ("x", "x"), ("", None), ("   ", None),
                                             ("\t\n", None), (None, None), (3, None)])
def test_text_cell(value, expected):
    assert text_cell(value) == expected


@pytest.mark.parametrize("value, expected", [("yes", "yes"), ("YES", "yes"), (" No ", "no"), ("\tskip\t", "skip")])
def test_choice_cell_reads_any_case_and_surrounding_spaces(value, expected):
    assert choice_cell(value, ["yes", "no", "skip"], "accept", who="review", path="f.csv", line=3) == expected


@pytest.mark.parametrize("value", ["", "  ", None])
def test_choice_cell_blank_is_taken_only_when_given(value):
    assert choice_cell(value, ["yes", "no"], "accept", who="review", path="f.csv", line=3, blank="no") == "no"
    with pytest.raises(InputError) as e:
        choice_cell(value, ["yes", "no"], "accept", who="review", path="f.csv", line=3)
    assert e.value.line == 3 and e.value.field == "accept"


def test_choice_cell_blank_replaces_only_an_empty_cell():
    assert choice_cell("yes", ["yes", "no"], "accept", who="review", path="f.csv", line=3, blank="no") == "yes"
    assert choice_cell(" YES ", ["yes", "no"], "accept", who="review", path="f.csv", line=3, blank="no") == "yes"


def test_choice_cell_refuses_another_word_naming_the_closest_choice():
    with pytest.raises(InputError) as e:
        choice_cell("yess", ["yes", "no"], "accept", who="review", path="f.csv", line=5)
    assert "yes" in str(e.value) and e.value.line == 5


@pytest.mark.parametrize("value, expected", [("3", 3), (" 3 ", 3), (3, 3), (3.0, 3), ("1", 1), (1, 1)])
def test_positive_int_cell_takes(value, expected):
    got = positive_int_cell(value, "f.csv", 2, "page", "review")
    assert got == expected and type(got) is int


@pytest.mark.parametrize("value", ["0", 0, -1, "-1", "3.5", 3.5, "", "  ", True, "٣", "x", None])
def test_positive_int_cell_refuses(value):
    with pytest.raises(InputError) as e:
        positive_int_cell(value, "f.csv", 2, "page", "review")
    assert e.value.line == 2 and e.value.field == "page"


@pytest.mark.parametrize("value", ["yes", "Yes", "YES", " y ", "Y", "true", "TRUE", "1", " 1", 1, True])
def test_yes_no_reads_yes_in_any_case(value):
    assert yes_no(value) is True


@pytest.mark.parametrize("value", ["no", "No", "NO", " n ", "N", "false", "False", "0", 0, False])
def test_yes_no_reads_no_in_any_case(value):
    assert yes_no(value) is False


@pytest.mark.parametrize("value", ["", "  ", None, "maybe", "yes no", 2])
def test_yes_no_is_none_for_anything_else(value):
    assert yes_no(value) is None


def test_yes_no_takes_its_own_words():
    assert YES == {"yes", "y", "true", "1"} and NO == {"no", "n", "false", "0"}
    assert yes_no(" Supported ", yes={"supported"}, no={"unsupported"}) is True
    assert yes_no("UNSUPPORTED", yes={"supported"}, no={"unsupported"}) is False
    assert yes_no("yes", yes={"supported"}, no={"unsupported"}) is None
