"""The JSON-lines reader (rag_metrics.io.jsonl) on hand-edited files: BOM (on the first line only), CRLF, blank
and whitespace-only lines, a missing final newline, bad UTF-8 named by line and byte, strict JSON, MAX_DEPTH at
and above, lone surrogates (issue 50: hand-edited inputs in every reader)."""

import json

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.io.jsonl import (
    MAX_DEPTH, check_file, iter_jsonl, iter_lines, jsonl_text, loads_line, read_lines, write_jsonl,
)


def _file(tmp_path, data: bytes, name="f.jsonl"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("data, lines", [
    (b"a\nb\n", ["a", "b", ""]),
    (b"a\nb", ["a", "b"]),
    (b"", [""]),
    (b"\xef\xbb\xbfa\nb\n", ["a", "b", ""]),
    (b"a\n\xef\xbb\xbfb\n", ["a", "\ufeffb", ""]),          # a BOM is skipped on the first line only
    (b"a\r\nb\r\n", ["a\r", "b\r", ""]),                      # split on \n only, as str.split
])
def test_lines_are_the_text_split_on_newlines_with_the_bom_skipped(tmp_path, data, lines):
    p = _file(tmp_path, data)
    assert read_lines(p, "x") == lines == list(iter_lines(p, "x"))


def test_bad_utf8_names_its_line_and_byte(tmp_path):
    with pytest.raises(InputError) as e:
        read_lines(_file(tmp_path, b"ok\nalso ok\nbad \xff here\n"), "a log")
    assert e.value.line == 3 and "byte 15" in str(e.value) and "a log" in str(e.value)


def test_a_missing_file_or_a_directory_is_refused_saying_what_was_expected(tmp_path):
    with pytest.raises(InputError, match="file not found; expected a log"):
        check_file(tmp_path / "nope.jsonl", "a log")
    with pytest.raises(InputError, match="is a directory; expected a log"):
        check_file(tmp_path, "a log")
    assert check_file(_file(tmp_path, b"{}"), "a log").name == "f.jsonl"


def test_objects_come_with_their_line_past_blank_crlf_and_bom_lines(tmp_path):
    data = '\ufeff{"id": "q1"}\r\n\r\n   \n\t\n{"id": "q2", "t": "é"}\r\n \r\n'.encode()
    assert list(iter_jsonl(_file(tmp_path, data), "a log")) == [(1, {"id": "q1"}), (5, {"id": "q2", "t": "é"})]


@pytest.mark.parametrize("data, line, words", [
    (b"\n  \n\r\n", None, "file is empty; expected a log, one JSON object per line"),
    (b'{"a": 1}\n[1, 2]\n', 2, "expected a JSON object per line, got list"),
    (b'{"a": 1}\n"text"\n', 2, "got str"),
    (b'{"a": 1}\n{"a": NaN}\n', 2, "finite numbers only"),
    (b'{"a": Infinity}\n', 1, "finite numbers only"),
    (b'{"a": 1,}\n', 1, "malformed JSON"),
    (b"{'a': 1}\n", 1, "malformed JSON"),
])
def test_refusals_name_the_line(tmp_path, data, line, words):
    with pytest.raises(InputError) as e:
        list(iter_jsonl(_file(tmp_path, data), "a log"))
    assert words in str(e.value) and e.value.line == line


def test_nesting_of_exactly_max_depth_is_read_and_one_more_level_refused():
    def nested(levels):
        return "[" * levels + "]" * levels

    # depth is the length of a value's key path: the innermost list of {"a": [[...]]} with L lists is at L
    assert loads_line('{"a": ' + nested(MAX_DEPTH) + "}") is not None
    with pytest.raises(InputError, match=f"nested deeper than {MAX_DEPTH}") as e:
        loads_line('{"a": ' + nested(MAX_DEPTH + 1) + "}", "f", 7)
    assert e.value.line == 7


def test_a_lone_surrogate_is_refused_naming_the_field_and_a_pair_is_read():
    with pytest.raises(InputError, match="lone surrogate") as e:
        loads_line('{"retrieved": [{"doc_id": "a\\ud800b"}]}', "f", 3)
    assert e.value.field == "retrieved.0.doc_id" and e.value.line == 3
    with pytest.raises(InputError, match="lone surrogate"):
        loads_line('{"\\uDC00": 1}')
    assert loads_line('{"t": "\\ud83d\\ude00"}') == {"t": "\U0001F600"}


def test_written_lines_read_back_and_keep_non_ascii(tmp_path):
    rows = [{"id": "q1", "t": "日本語 é"}, {"id": "q2", "n": 1.5}]
    path = write_jsonl(rows, tmp_path / "out.jsonl")
    assert path.read_bytes().decode("utf-8") == jsonl_text(rows)
    assert "日本語" in jsonl_text(rows) and jsonl_text(rows).count("\n") == 2
    assert [r for _, r in iter_jsonl(path, "x")] == rows
    with pytest.raises(ValueError):
        jsonl_text([{"x": float("nan")}])
    assert json.loads(jsonl_text([{"a": 1}])) == {"a": 1}
