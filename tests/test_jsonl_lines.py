"""Reading a text file line by line (rag_metrics.io.jsonl.iter_lines) equals decoding it whole and splitting it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rag_metrics import InputError
from rag_metrics.io.jsonl import iter_jsonl, read_lines

BYTES = st.binary(max_size=40) | st.text(alphabet="ab\n\r\ufeff é日", max_size=30).map(lambda t: t.encode())


@settings(max_examples=300, deadline=None)
@given(BYTES)
def test_lines_read_one_at_a_time_equal_the_whole_file_split(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("lines") / "f.txt"
    path.write_bytes(data)
    try:
        expected, error = data.decode("utf-8").removeprefix("\ufeff").split("\n"), None
    except UnicodeDecodeError as e:
        expected, error = None, (data[:e.start].count(b"\n") + 1, f"byte {e.start}:")
    try:
        got, raised = read_lines(path, "a text"), None
    except InputError as e:
        got, raised = None, e
    assert got == expected
    if error is not None:
        assert raised.line == error[0] and error[1] in str(raised)


def test_a_large_log_is_read_without_holding_the_file(tmp_path):
    """A 60 MB file of JSON lines is parsed a line at a time: the generator never holds more than one line's text."""
    import tracemalloc

    path = tmp_path / "big.jsonl"
    line = '{"question_id": "q", "text": "' + "x" * 6000 + '"}\n'
    path.write_text(line * 10_000, encoding="utf-8")
    tracemalloc.start()
    count = sum(1 for _ in iter_jsonl(path, "a log"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 10_000 and peak < 5 * 2**20  # the whole file would be 60 MB twice over
