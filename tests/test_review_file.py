"""The golden-set review file read back (rag_metrics.golden.review_file.read_decisions) as people hand it back:
capitalised and padded decisions, BOM and CRLF, whitespace-only edits, a JSON-lines review; each refusal names its
line (issue 50: hand-edited inputs in every reader)."""

import pandas as pd
import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.golden.review_file import DECISIONS, read_decisions


def _review(tmp_path, text, name="review.csv"):
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8"))
    return p


def test_decisions_in_any_case_with_spaces_bom_and_crlf_are_read(tmp_path):
    text = ("\ufeffquestion_id,decision,question,answer\r\n"
            "q1,Keep,,\r\n"
            " q2 , DROP ,  ,\t\r\n"
            "q3,keep , Edited question? , New answer \r\n"
            "\r\n , \r\n")
    out = read_decisions(_review(tmp_path, text))
    assert DECISIONS == ("keep", "drop")
    assert out["question_id"].tolist() == ["q1", "q2", "q3"]
    assert out["decision"].tolist() == ["keep", "drop", "keep"]
    assert out["line"].tolist() == [2, 3, 4]
    assert out["question"].isna().tolist() == [True, True, False]   # empty and whitespace-only edits are no edits
    assert out["answer"].isna().tolist() == [True, True, False]
    assert out.loc[2, "question"] == "Edited question?" and out.loc[2, "answer"] == "New answer"


def test_a_review_without_question_and_answer_columns_reads_none_for_them(tmp_path):
    out = read_decisions(_review(tmp_path, "question_id,decision\nq1,drop\n"))
    assert out.to_dict("records") == [{"question_id": "q1", "decision": "drop", "line": 2, "question": None,
                                       "answer": None}]


@pytest.mark.parametrize("text, line, words", [
    ("question_id,decision\nq1,keep\nq2,\n", 3, "decision"),
    ("question_id,decision\nq1,keep\nq2,   \n", 3, "decision"),
    ("question_id,decision\nq1,maybe\n", 2, "keep"),
    ("question_id,decision\nq1,keep\nq1,drop\n", 3, "listed twice (also at line 2)"),
    ("question_id,decision\n  ,keep\n", 2, "is empty"),
    ("question_id,decisions\nq1,keep\n", 1, "golden review"),
])
def test_refusals_name_the_line(tmp_path, text, line, words):
    with pytest.raises(InputError) as e:
        read_decisions(_review(tmp_path, text))
    assert e.value.line == line and words in str(e.value)


def test_a_json_lines_review_is_read_and_an_edit_that_is_not_text_refused(tmp_path):
    p = _review(tmp_path, '{"question_id": "q1", "decision": "KEEP", "question": " New? "}\n', name="r.jsonl")
    out = read_decisions(p)
    assert out.loc[0, "decision"] == "keep" and out.loc[0, "question"] == "New?" and pd.isna(out.loc[0, "answer"])
    bad = _review(tmp_path, '{"question_id": "q1", "decision": "keep"}\n{"question_id": "q2", "decision": "drop", '
                            '"answer": 5}\n', name="bad.jsonl")
    with pytest.raises(InputError) as e:
        read_decisions(bad)
    assert e.value.line == 2 and e.value.field == "answer" and "must be text" in str(e.value)
