"""The fast canonical text of tables against its reference (``_canonical`` + one ``json.dumps``): byte for byte.

Digests are stored in run histories and compared across runs, so the column-wise writer of
:func:`rag_metrics.core.fingerprint.digest` must produce exactly the reference's text for every input.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_metrics.core.fingerprint import _canonical, _pieces, _reference_text, digest, fingerprint
from rag_metrics.io.logs import load_log

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"


def _reference_digest(value) -> str:
    return hashlib.sha256(_reference_text(value).encode("utf-8")).hexdigest()[:16]


def same_as_reference(value) -> None:
    assert "".join(_pieces(value)) == _reference_text(value)
    assert digest(value) == _reference_digest(value)


# Characters json escapes differently in its two modes (DEL, non-ASCII), escapes in both (quote, backslash,
# control characters), line separators, Japanese, emoji outside the BMP (surrogate pairs in ASCII mode).
SPECIAL = ['"', "\\", "\x00", "\x01", "\x08", "\t", "\n", "\x0c", "\r", "\x1f", "\x7f", "\x80", "\xe9", "\u2028",
           "\u3042", "\u65e5", "\U0001f600", "\U0001f1ef", " ", ",", "[", "]", ":", "0", "1"]
strings = st.one_of(st.text(st.sampled_from(SPECIAL), max_size=4),
                    st.text(st.one_of(st.sampled_from(SPECIAL), st.characters(exclude_categories=["Cs"])), max_size=12))
ints = st.one_of(st.integers(-12, 12), st.sampled_from([10, 100, 101, 1000, -10]),
                 st.integers(-2**63, 2**63 - 1))
floats = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, -0.0]),
                   st.sampled_from([0.0, 1.0, 10.0, 1.5, 1e16, 1e-7, 5e-324, 1.7976931348623157e308, 0.1, 2.5]),
                   st.floats(allow_nan=True))
leaves = st.one_of(st.none(), strings, ints, floats, st.booleans(), st.just(pd.NA), st.just(np.int64(7)),
                   st.just(np.float64(math.nan)), st.just(pd.Timestamp("2024-01-02")))
objects = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.tuples(inner, inner),
    st.dictionaries(st.one_of(strings, st.integers(0, 3)), inner, max_size=3)), max_leaves=6)


@st.composite
def columns(draw, n: int):
    """One column of ``n`` cells drawn from a small pool (so rows repeat and sort keys tie)."""
    kind = draw(st.sampled_from(["str", "str", "int", "float", "bool", "object", "str_or_none", "uint", "float32",
                                 "string_dtype"]))
    element = {"str": strings, "str_or_none": st.one_of(st.none(), strings), "int": ints, "float": floats,
               "bool": st.booleans(), "object": objects, "uint": st.integers(0, 2**64 - 1), "float32": floats,
               "string_dtype": st.one_of(st.none(), strings)}[kind]
    pool = draw(st.lists(element, min_size=1, max_size=4))
    cells = [pool[i] for i in draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))]
    if kind in ("int", "uint"):
        dtype = np.int64 if kind == "int" else np.uint64
        if kind == "int" and not all(-2**63 <= c < 2**63 for c in cells):
            dtype = object
        return pd.Series(cells, dtype=dtype)
    if kind in ("float", "float32"):
        with np.errstate(over="ignore"):  # large doubles become inf in float32
            return pd.Series(cells, dtype=np.float64 if kind == "float" else np.float32)
    if kind == "bool":
        return pd.Series(cells, dtype=bool)
    if kind == "string_dtype":
        return pd.Series(cells, dtype="string")
    series = pd.Series(cells + [None], dtype=object).iloc[:n]  # object dtype even for all-int cells
    return series.reset_index(drop=True)


NAMES = ["text", "rank", "doc_id", 1, "10", "a", "Z", "\u3042", "b c"]


@st.composite
def frames(draw):
    n = draw(st.integers(0, 7))
    names = draw(st.lists(st.sampled_from(NAMES), unique_by=str, max_size=5))
    frame = pd.DataFrame({name: draw(columns(n)) for name in names}, index=pd.RangeIndex(n))
    if not names:
        frame = pd.DataFrame(index=pd.RangeIndex(n))
    index = draw(st.sampled_from(["range", "unnamed", "named", "multi", "multi_unnamed"]))
    if index == "unnamed":
        frame.index = pd.Index(draw(st.lists(strings, min_size=n, max_size=n)), dtype=object)
    elif index == "named":
        frame.index = pd.Index(draw(st.lists(ints, min_size=n, max_size=n)), name="question_id")
    elif index in ("multi", "multi_unnamed"):
        names_ = ["q", "k"] if index == "multi" else [None, None]
        frame.index = pd.MultiIndex.from_arrays([list(range(n)), draw(st.lists(strings, min_size=n, max_size=n))],
                                                names=names_)
    return frame


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_tables_write_the_reference_text(frame):
    same_as_reference(frame)
    if frame.shape[1]:
        same_as_reference(frame.iloc[:, 0])  # a Series: as its one-column frame


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.one_of(strings, st.integers(0, 3)), st.one_of(frames(), objects,
                                                                        st.lists(frames(), max_size=2)), max_size=4),
       objects)
def test_tables_nested_in_values_write_the_reference_text(parts, other):
    same_as_reference(parts)
    same_as_reference([parts, other, (other,)])
    same_as_reference(other)
    assert fingerprint(a=parts, b=other) == {"a": _reference_digest(parts), "b": _reference_digest(other)}


def test_rows_are_ordered_by_the_whole_json_row():
    """Numbers are the JSON values one of which can begin another: ``1`` is a prefix of ``10``, so their rows
    order by the character after them in ``json.dumps(row)`` (``,`` or ``]``), not by the number alone."""
    for frame in (pd.DataFrame({"a": [10, 1, 1, 10], "b": ["y", "x", "z", "w"]}),
                  pd.DataFrame({"a": ["x", "x", "x"], "b": [10, 1, 100]}),
                  pd.DataFrame({"a": [1.5, 1.0, 1.25, -0.0, 0.0, math.inf]}),
                  pd.DataFrame({"a": pd.Series([10, "1", 1, None, (1, 2), [1]], dtype=object), "b": 0}),
                  pd.DataFrame({"a": ["\u00e9", "e", "\x7f", "~", "\U0001f600", "\uffff"]})):
        same_as_reference(frame)
    text = "".join(_pieces(pd.DataFrame({"a": ["x", "x"], "b": [1, 10]})))
    assert text == '{"columns":["a","b"],"rows":[["x",10],["x",1]]}'  # '["x", 10]' < '["x", 1]' as json writes them


CELLS = ["", "a", "ab", "a b", 'q"', "\\", "\x7f", "\x01", "\n", "~", "\u00e9", "\u3042", "\U0001f600", "1", "10",
         1, 10, -1, 0, 1.0, 1.5, -0.0, math.nan, math.inf, -math.inf, True, False, None, pd.NA, (1,), (1, 2), [10],
         ("\u00e9",), ("~",), {"k": 1}, {"k": "\u00e9"}, {1: "x", "1": "y"}, np.int64(10), np.float64(math.nan)]


@pytest.mark.parametrize("second", ["object", "str", "int", "float", "bool"])
def test_every_pair_of_cells(second):
    """Every pair of the cells above in one row: each sort-key comparison the writer takes a short cut on (a
    number that begins another, DEL and non-ASCII text written differently in key and text, ties in the first
    column) against the reference, with the other column of each kind."""
    other = {"object": CELLS, "str": ["", "1", "10", "\u00e9", "~", "\x7f", 'q"'], "int": [1, 10, -1, 0, 100],
             "float": [1.0, 10.0, math.nan, math.inf, -0.0, 0.5], "bool": [True, False]}[second]
    first, then = zip(*[(a, b) for a in CELLS for b in other])
    frame = pd.DataFrame({"a": pd.Series(first, dtype=object), "b": pd.Series(then, dtype=object)})
    if second != "object":
        frame["b"] = frame["b"].astype({"str": object, "int": np.int64, "float": np.float64, "bool": bool}[second])
    same_as_reference(frame)
    same_as_reference(frame[["b", "a"]].rename(columns={"b": "a", "a": "b"}))  # the other column first


def test_cell_values_as_jsonable_writes_them():
    frame = pd.DataFrame({"f": [math.nan, math.inf, -math.inf, -0.0, 1e16], "b": [True, False, True, True, False],
                          "o": [None, pd.NA, np.int64(3), (1, "\u3042"), {"k": math.nan, 2: "v"}],
                          "s": ['q"uote', "back\\slash", "ctl\x01\x7f", "\u65e5\u672c", "\U0001f600"]})
    same_as_reference(frame)
    # rows ordered by json.dumps(row): "[false, 1e+16" < "[false, Infinity" < "[true, -0.0" < "[true, -Infinity" ...
    assert "".join(_pieces(frame)) == (
        '{"columns":["b","f","o","s"],"rows":[[false,1e+16,{"2":"v","k":null},"\U0001f600"],'
        '[false,Infinity,null,"back\\\\slash"],[true,-0.0,[1,"\u3042"],"\u65e5\u672c"],'
        '[true,-Infinity,3,"ctl\\u0001\x7f"],[true,null,null,"q\\"uote"]]}')


def test_edge_shapes():
    for frame in (pd.DataFrame(), pd.DataFrame(index=[1, 2, 3]), pd.DataFrame({"a": []}),
                  pd.DataFrame({"a": [1, 1, 1]}), pd.DataFrame({"a": ["x"] * 3, "b": ["y"] * 3}),
                  pd.DataFrame({"a": [1, 2]}, index=pd.Index(["x", "y"], name="a_index")),
                  pd.DataFrame({"a": pd.to_datetime(["2024-01-01", None])}),
                  pd.DataFrame({"a": pd.Series([1, None], dtype="Int64"), "b": pd.Categorical(["x", "y"])}),
                  pd.DataFrame({"a": np.array([1.5, 2.5], dtype=np.longdouble), "c": [1 + 2j, 3j]}),
                  pd.DataFrame({"a": np.array([0.1, np.nan], dtype=np.float16)})):
        same_as_reference(frame)


def test_refuses_as_the_reference_does():
    with pytest.raises(UnicodeEncodeError):
        _reference_digest(pd.DataFrame({"a": ["lone \ud800 surrogate"]}))
    with pytest.raises(UnicodeEncodeError):
        digest(pd.DataFrame({"a": ["lone \ud800 surrogate"]}))
    clash = pd.DataFrame({"a": [1]}, index=pd.Index([2], name="a"))  # the named index cannot become a column
    with pytest.raises(ValueError):
        _canonical(clash)
    with pytest.raises(ValueError):
        digest(clash)


def _log_frame(rng, n_questions: int) -> pd.DataFrame:
    """A retrieval log as RetrievalLog.fingerprint hashes it: 20 items per question, texts of ~300 characters with
    newlines, quotes, Japanese and emoji, repeated items, chunk IDs "None" where the log has none."""
    words = ["policy", "travel", "\u65c5\u8cbb", "\u898f\u5b9a", 'the "limit"', "C:\\path", "\U0001f600", "tab\t",
             "line\n", "\x7f", "caf\u00e9", "100", "[p.3]"]
    rows = []
    for q in range(n_questions):
        for rank in range(1, 21):
            doc = int(rng.integers(0, 40))
            text = " ".join(rng.choice(words, size=int(rng.integers(20, 60))))
            rows.append({"question_id": f"q{q:04d}", "rank": str(rank), "doc_id": f"doc{doc}",
                         "chunk_id": f"doc{doc}#{int(rng.integers(0, 30)):04d}" if rng.random() < 0.8 else "None",
                         "pages": str([int(rng.integers(1, 9))]), "text": text})
    rows += rows[:25]  # a log may repeat items
    return pd.DataFrame(rows)


def test_a_realistic_log_frame():
    frame = _log_frame(np.random.default_rng(7), 60)
    same_as_reference(frame)
    same_as_reference(frame.sample(frac=1, random_state=3).reset_index(drop=True))  # row order does not count
    assert digest(frame) == digest(frame.sample(frac=1, random_state=3))


def test_digests_of_the_sample_data_are_those_recorded(golden, corpus):
    """The fingerprints users have in their run histories: the sample golden set and logs read as before."""
    assert golden.fingerprint() == "3e25fee2f5f5facd"
    native = load_log(EXAMPLES / "bm25_c400o100.jsonl", golden=golden, corpus=corpus)
    langchain = load_log(EXAMPLES / "langchain_bm25_c400o100.jsonl", preset="langchain", golden=golden,
                         corpus=corpus)
    assert (native.fingerprint(), langchain.fingerprint()) == ("5e95f2dd95e1749e", "89e00b0ce68fe20a")
    for part in (golden.questions, golden.gold, golden.gold_pages, native.run, langchain.questions):
        same_as_reference(part)


def test_a_golden_set_digests_its_tables_once(golden, monkeypatch):
    """Reading, matching, preparing, evaluating and saving a run each ask for the golden set's fingerprint."""
    import rag_metrics.io.golden as module

    fresh = dataclasses.replace(golden)  # the same tables, nothing computed yet
    calls = []
    monkeypatch.setattr(module, "digest", lambda parts: calls.append(parts) or digest(parts))
    assert fresh.fingerprint() == fresh.fingerprint() == "3e25fee2f5f5facd" and len(calls) == 1
    edited = dataclasses.replace(fresh, questions=fresh.questions.assign(question=fresh.questions["question"] + "?"))
    assert edited.fingerprint() != fresh.fingerprint() and len(calls) == 2  # a changed set is a new set
    assert edited.fingerprint() == digest(calls[1]) and len(calls) == 2  # asked again: not digested again
    assert pickle.loads(pickle.dumps(fresh)).fingerprint() == "3e25fee2f5f5facd"


def test_a_component_recorded_by_one_run_only_makes_them_not_comparable():
    from rag_metrics.core.errors import NotComparableError
    from rag_metrics.core.fingerprint import check_comparable

    a, b = {"k": "1", "corpus": "c1"}, {"k": "1"}
    with pytest.raises(NotComparableError, match=r"corpus \(c1 vs missing\)"):
        check_comparable(a, b)
    assert check_comparable(a, b, force=True) == ["corpus"]
    assert check_comparable({"k": "1", "judge": "j1"}, {"k": "1", "judge": "j2"}, refuse_on=("corpus",)) == ["judge"]
    with pytest.raises(NotComparableError, match=r"judge \(j1 vs j2\)"):
        check_comparable({"k": "1", "judge": "j1"}, {"k": "1", "judge": "j2"}, refuse_on=("judge",))
