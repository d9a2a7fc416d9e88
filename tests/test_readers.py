"""One reading of every TREC input: the same odd files through every path give the same numbers or the same refusal.

Paths: the general line-validating reader (``--engine general``), the default route (``auto``: the small-file
reader up to 16 MB, the polars block reader above), the block reader forced on small files with tiny blocks,
and Dask. Every odd file is tried small and padded beyond 16 MB.
"""

import json

import pytest

from rag_metrics.cli import main
from rag_metrics.io import trec_fast as fast

QRELS = "q1 0 d1 1\nq1 0 d2 1\nq2 0 d9 2\n"
RUN_OK = "q1 Q0 d1 1 5.0 t\nq1 Q0 d3 2 4.0 t\nq2 Q0 d9 1 1.0 t\n"

# (name, qrels bytes, run bytes): odd-yet-real files (the list and their relatives)
CASES = [
    ("plain", QRELS.encode(), RUN_OK.encode()),
    ("quote spanning lines", QRELS.encode(), b'q1 Q0 "x 1 5.0 t\nq1 Q0 d1 2 4.0 t\nq1 Q0 y" 3 3.0 t\n'),
    ("quoted id", QRELS.encode(), b'q1 Q0 "d1" 1 5.0 t\nq1 Q0 d2 2 4.0 t\n'),
    ("BOM in run", QRELS.encode(), b"\xef\xbb\xbf" + RUN_OK.encode()),
    ("BOM in qrels", b"\xef\xbb\xbf" + QRELS.encode(), RUN_OK.encode()),
    ("BOM inside", QRELS.encode(), RUN_OK.encode() + "q2 Q0 \ufeffd8 2 0.5 t\n".encode()),
    ("latin-1 id", QRELS.encode(), b"q1 Q0 d\xe91 1 5.0 t\nq1 Q0 d1 2 4.0 t\n"),
    ("latin-1 question", QRELS.encode(), b"q\xe91 Q0 d1 1 5.0 t\n"),
    ("vertical tab", QRELS.encode(), b"q1 Q0 x 1 5.0 t\x0bq1 Q0 d1 2 4.0 t\n"),
    ("form feed", QRELS.encode(), b"q1 Q0 x 1 5.0 t\nq1\x0cQ0 d1 2 4.0 t\n"),
    ("no-break space", QRELS.encode(), "q1 Q0 d\u00a01 1 5.0 t\nq1 Q0 d2 2 4.0 t\n".encode()),
    ("ideographic space", QRELS.encode(), "q1 Q0 d\u30001 1 5.0 t\n".encode()),
    ("zero-width space", "q1 0 d1\u200b 1\n".encode(), RUN_OK.encode()),
    ("CRLF", QRELS.replace("\n", "\r\n").encode(), RUN_OK.replace("\n", "\r\n").encode()),
    ("lone CR", QRELS.encode(), b"q1 Q0 d1 1 5.0 t\rq1 Q0 d2 2 4.0 t\n"),
    ("tabs", QRELS.replace(" ", "\t").encode(), RUN_OK.replace(" ", "\t").encode()),
    ("blank and indented lines", QRELS.encode(), b"\n  q1 Q0 d1 1 5.0 t  \n\n\tq1 Q0 d2 2 4.0 t\n"),
    ("double space for a missing field", QRELS.encode(), b"q1  d1 1 5.0 t\nq1 Q0 d2 2 4.0 t\n"),
    ("double spaces between fields", QRELS.encode(), b"q1 Q0  d1 1 5.0 t\nq1  Q0 d2 2 4.0  t\n"),
    ("trailing space", QRELS.encode(), b"q1 Q0 d1 1 5.0 t \nq1 Q0 d2 2 4.0 t\n"),
    ("blank lines only between", QRELS.encode(), b"q1 Q0 d1 1 5.0 t\n\n\nq1 Q0 d2 2 4.0 t\n"),
    ("empty qrels field", b"q1 0  1\n", RUN_OK.encode()),
    ("no final newline", QRELS.encode(), RUN_OK.rstrip("\n").encode()),
    ("underscore score", QRELS.encode(), b"q1 Q0 d1 1 1_0 t\nq1 Q0 d2 2 4.0 t\n"),
    ("underscore label", b"q1 0 d1 1_0\n", RUN_OK.encode()),
    ("underscore rank", QRELS.encode(), b"q1 Q0 d1 1_0 5.0 t\n"),
    ("full-width label", "q1 0 d1 \uff11\n".encode(), RUN_OK.encode()),
    ("full-width score", QRELS.encode(), "q1 Q0 d1 1 \uff15.0 t\n".encode()),
    ("arabic-indic rank", QRELS.encode(), "q1 Q0 d1 \u0661 5.0 t\n".encode()),
    ("exponent and signs", QRELS.encode(), b"q1 Q0 d1 +1 5e0 t\nq1 Q0 d2 2 .5E+1 t\nq1 Q0 d3 3 -1. t\n"),
    ("inf score", QRELS.encode(), b"q1 Q0 d1 1 inf t\n"),
    ("nan score", QRELS.encode(), b"q1 Q0 d1 1 NaN t\n"),
    ("overflowing score", QRELS.encode(), b"q1 Q0 d1 1 1e400 t\n"),
    ("hex score", QRELS.encode(), b"q1 Q0 d1 1 0x10 t\n"),
    ("ties", QRELS.encode(), b"q1 Q0 d1 1 2.0 t\nq1 Q0 d3 2 2.0 t\nq1 Q0 d2 3 2.0 t\n"),
    ("duplicate document", QRELS.encode(), b"q1 Q0 d1 1 5.0 t\nq1 Q0 d1 2 4.0 t\n"),
    ("non-contiguous question", QRELS.encode(), b"q1 Q0 d3 1 5.0 t\nq2 Q0 d9 1 1.0 t\nq1 Q0 d1 2 4.0 t\n"),
    ("too few fields", QRELS.encode(), b"q1 Q0 d1 1 5.0\n"),
    ("too many fields", QRELS.encode(), b"q1 Q0 d1 1 5.0 t extra\n"),
    ("fields shifted between lines", QRELS.encode(), b"q1 Q0 d1 1 5.0\nt q1 Q0 d2 2 4.0 t\n"),
    ("lone sign rank", QRELS.encode(), b"q1 Q0 d1 + 5.0 t\n"),
    ("sign inside a score", QRELS.encode(), b"q1 Q0 d1 1 5-0 t\n"),
    ("exponent without digits", QRELS.encode(), b"q1 Q0 d1 1 5e t\n"),
    ("empty run", QRELS.encode(), b""),
    ("whitespace-only run", QRELS.encode(), b" \n\t\n"),
    ("non-ascii ids", "q1 0 文書1 1\n".encode(), "q1 Q0 文書2 1 5.0 t\nq1 Q0 文書1 2 4.0 t\n".encode()),
]
PAD_BYTES = (16 << 20) + (1 << 16)


def padded(run: bytes) -> bytes:
    """The run preceded by valid lines of a question unknown to the qrels, beyond the 16 MB small-file limit
    (long tags keep the line count small, so the general reader stays quick)."""
    tag = b"t" * 8000
    lines = [b"zzpad Q0 p%06d 1 1.0 %s\n" % (i, tag) for i in range(PAD_BYTES // 8000 + 1)]
    return b"".join(lines) + run


def outcome(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    if code != 0:
        return code, err.strip().split(": error: ", 1)[-1]
    data = json.loads(out)
    del data["settings"]
    return code, data


@pytest.mark.parametrize("size", ["small", "padded"])
@pytest.mark.parametrize("name, qrels, run", CASES, ids=[c[0] for c in CASES])
def test_every_path_reads_the_same(tmp_path, capsys, monkeypatch, name, qrels, run, size):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(qrels)
    r.write_bytes(run if size == "small" else padded(run))
    argv = ["evaluate", str(q), str(r), "-m", "mrr", "-m", "recall@2", "-m", "ndcg@3", "--format", "json", "--per-question"]
    general = outcome(capsys, [*argv, "--engine", "general"])
    auto = outcome(capsys, argv)  # small: the small-file reader; padded: the block reader
    assert auto == general, name
    if size == "small":
        monkeypatch.setattr(fast, "SMALL_FILE_BYTES", 0)  # force the block reader, in blocks of a line or two
        monkeypatch.setattr(fast, "BLOCK_BYTES", 64)
        assert outcome(capsys, argv) == general, name
    if general[0] == 0 and size == "small":
        assert general[1]["summary"]["mrr"]["evaluated"] >= 1


def test_the_fast_routes_do_serve_the_plain_files(tmp_path, capsys, monkeypatch):
    """The differential test is not vacuous: the plain files are evaluated by the fast routes themselves."""
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN_OK)
    assert main(["evaluate", str(q), str(r), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["engine"] == "fast/small"
    r.write_bytes(padded(RUN_OK.encode()))
    assert main(["evaluate", str(q), str(r), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["engine"] == "fast"


def test_the_rules_are_stated_once():
    """Forbidden characters: every control, space-like and invisible character of Unicode, per the rule."""
    import sys
    import unicodedata

    from rag_metrics.io.trec import FORBIDDEN

    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        if unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp") and ch not in " \t\n":
            assert FORBIDDEN.match(ch), f"U+{cp:04X}"
    for ch in "a1._-#:/é文\u00e9":
        assert not FORBIDDEN.match(ch)


def test_directories_and_missing_files(tmp_path, capsys):
    (tmp_path / "q").write_text(QRELS)
    for argv, message in (([str(tmp_path), str(tmp_path / "q")], "is a directory; expected a TREC qrels file"),
                          ([str(tmp_path / "q"), str(tmp_path)], "is a directory; expected a TREC run file"),
                          ([str(tmp_path / "q"), str(tmp_path / "nope")], "file not found; expected a TREC run file")):
        for engine in ("auto", "general", "fast"):
            assert main(["evaluate", *argv, "--engine", engine]) == 2
            assert message in capsys.readouterr().err


@pytest.mark.parametrize("size", ["small", "padded"])
def test_gzip_files_on_every_path(tmp_path, capsys, size):
    import gzip

    q, r = tmp_path / "qrels.txt.gz", tmp_path / "run.txt.gz"
    q.write_bytes(gzip.compress(QRELS.encode()))
    run = RUN_OK.encode() if size == "small" else padded(RUN_OK.encode())
    r.write_bytes(gzip.compress(run))
    (tmp_path / "plain.txt").write_bytes(run)
    argv = ["-m", "mrr", "-m", "recall@2", "--format", "json", "--per-question"]
    expected = outcome(capsys, ["evaluate", str(q), str(tmp_path / "plain.txt"), *argv, "--engine", "general"])
    for engine in ("auto", "general"):
        assert outcome(capsys, ["evaluate", str(q), str(r), *argv, "--engine", engine]) == expected
    assert main(["evaluate", str(q), str(r), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["engine"] == ("fast/small" if size == "small" else "fast")
    r.write_bytes(gzip.compress(run)[:-20])  # truncated
    for engine in ("auto", "general"):
        assert main(["evaluate", str(q), str(r), "--engine", engine]) == 2
        assert "not a readable gzip file" in capsys.readouterr().err


NUMBERISH = "0123456789+-.eE_xXinfaINFAd ,\u0661\uff11"


@pytest.mark.parametrize("kind", ["score", "rank", "label"])
def test_polars_parses_numbers_exactly_as_the_trec_syntax(kind):
    """The block reader lets polars parse numbers; it must accept exactly the TREC syntax (plus inf/nan for
    scores, refused afterwards as not finite) -- otherwise the block and general paths would read differently."""
    import io
    import math
    import re

    import polars as pl
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    from rag_metrics.io.trec import INT_SYNTAX, SCORE_SYNTAX

    syntax = re.compile(SCORE_SYNTAX if kind == "score" else INT_SYNTAX, re.ASCII)
    dtype = pl.Float64 if kind == "score" else pl.Int64

    @settings(max_examples=400, deadline=None)
    @given(st.text(NUMBERISH, min_size=1, max_size=8).filter(lambda t: " " not in t and "," not in t))
    @example("1_0")
    @example("+.5")
    @example("5.")
    @example("0x10")
    def check(token):
        try:
            df = pl.read_csv(io.BytesIO(f"{token}\n".encode()), has_header=False, schema={"v": dtype}, quote_char=None)
            value = df["v"][0]
        except pl.exceptions.PolarsError:
            value = None
        accepted = value is not None and (kind != "score" or math.isfinite(value))
        wanted = syntax.fullmatch(token) is not None and (kind != "score" or math.isfinite(float(token)))
        assert accepted == wanted, (token, value)
        if accepted and kind == "score":
            assert value == float(token)  # the same double, to the last bit
        if accepted and kind != "score":
            assert value == int(token)

    check()
