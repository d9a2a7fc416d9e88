"""Golden-set files that survive damage and spreadsheets: broken cache entries regenerated, a failed re-run never
replaces a draft, formula cells neutralized in review.csv and restored on accept, `module:callable` found in the
current folder; and the command line's shared vocabulary (KEY=VALUE, measure names, --version)."""

from __future__ import annotations

import csv
import importlib
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics.cli import main
from rag_metrics.core.errors import InputError
from rag_metrics.golden.generate import Draft, generate_questions, read_draft, write_draft
from rag_metrics.llm.page import Page
from rag_metrics.llm.clients import OpenAIClient
from rag_metrics.core.serialize import csv_text, neutralize_cell, restore_cell
from rag_metrics.golden.review_file import read_decisions, review_draft, write_review
from rag_metrics.golden.sampler import sample_pages
from rag_metrics.io.corpus import load_corpus
from rag_metrics.measures.registry import parse_measure
from rag_metrics.core.options import load_callable, parse_key_values, parse_value

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = load_corpus(sample=True)
RECORDED = json.loads((FIXTURES / "llm" / "openai_chat_completion.json").read_text(encoding="utf-8"))
PAGE = Page("expense_policy", 2, CORPUS.page_text("expense_policy", 2), "Expense Reimbursement Policy", language="en")


def _client(handler):
    import openai

    http = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
    return openai.OpenAI(api_key="k", base_url="http://llm.test/v1", max_retries=0, http_client=openai.DefaultHttpxClient(
        transport=http.MockTransport(lambda request: (handler(request), http.Response(200, json=RECORDED))[1])))


# ---- the LLM response cache -------------------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["", '{"reply": "Here are', '{"usage": {}}', '{"reply": "not json at all"}'])
def test_a_broken_cache_entry_is_named_discarded_and_asked_again(tmp_path, damage):
    calls = []
    gen = OpenAIClient("m", client=_client(calls.append), cache_dir=tmp_path)
    first = gen(PAGE)
    (entry,) = tmp_path.glob("*.json")
    entry.write_text(damage, encoding="utf-8")  # cut off by a kill, or edited
    again = OpenAIClient("m", client=_client(calls.append), cache_dir=tmp_path)
    estimate = again.estimate([PAGE])
    assert (estimate["calls"], estimate["cached"]) == (1, 0) and again.broken_entries([PAGE]) == [str(entry)]
    assert entry.read_text() == damage  # an estimate changes nothing
    with pytest.warns(UserWarning, match=rf"{re.escape(str(entry))}: broken cache entry .*removed, the page is asked"):
        assert again(PAGE) == first
    assert len(calls) == 2 and again.usage["broken_cache"] == 1
    assert json.loads(entry.read_text())["reply"]  # regenerated
    assert OpenAIClient("m", client=_client(calls.append), cache_dir=tmp_path).estimate([PAGE])["cached"] == 1


def test_dry_run_does_not_count_a_broken_entry_as_cached(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["golden", "sample", "--pages", str(CORPUS.source), "--per-document", "1"]) == 0
    from rag_metrics.golden.generate import sampled_pages
    from rag_metrics.golden.sampler import read_sample

    page = sampled_pages(read_sample(tmp_path / "golden-work" / "sample.jsonl"))[0]
    gen = OpenAIClient("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    cache = tmp_path / "golden-work" / "cache"
    cache.mkdir(parents=True)
    (cache / f"{gen.cache_key(page)}.json").write_text('{"reply": ', encoding="utf-8")
    capsys.readouterr()
    code = main(["golden", "generate", "--generator", "openai", "--option", "model=gpt-4o-mini", "--option",
                 "base_url=http://127.0.0.1:9/v1", "--option", "api_key=k", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and "8 pages: 8 call(s) to make, 0 cached" in out
    assert "1 broken cache entry (counted as calls; would be removed and asked again)" in out


# ---- drafts -----------------------------------------------------------------------------------------------------

def test_a_failed_rerun_never_overwrites_a_draft(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["golden", "sample", "--pages", str(CORPUS.source), "--per-document", "1"]) == 0
    assert main(["golden", "generate", "--no-progress"]) == 0
    draft = tmp_path / "golden-work" / "draft.jsonl"
    before = draft.read_bytes()
    (tmp_path / "down_gen.py").write_text("def generate(page):\n    raise ConnectionError('service down')\n")
    capsys.readouterr()
    assert main(["golden", "generate", "--generator", "down_gen:generate", "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "no page gave a question (8 of 8 failed); golden-work/draft.jsonl is left as it was" in err
    assert "ConnectionError: service down" in err
    assert draft.read_bytes() == before and read_draft(draft).questions.shape[0] > 0
    with pytest.raises(InputError, match="the draft holds no question .* nothing written; the previous draft is kept"):
        write_draft(Draft(read_draft(draft).questions.iloc[:0], read_draft(draft).failures), draft)
    assert draft.read_bytes() == before


def test_generator_module_in_the_current_folder(tmp_path, monkeypatch, capsys):
    """`golden generate --generator mod:fn` finds mod.py in the current folder (through the loader `run` uses)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    (tmp_path / "local_gen.py").write_text(
        "def generate(page):\n    return [{'question': 'What does page %d of %s say?' % (page.page, page.doc_id),"
        " 'type': 'fact', 'answer': None}]\n")
    assert main(["golden", "sample", "--pages", str(CORPUS.source), "--per-document", "1"]) == 0
    assert main(["golden", "generate", "--generator", "local_gen:generate", "--no-progress"]) == 0
    assert len(read_draft(tmp_path / "golden-work" / "draft.jsonl")) == 8
    assert callable(load_callable("local_gen:generate"))


# ---- review.csv in spreadsheets ---------------------------------------------------------------------------------

HOSTILE = ['=HYPERLINK("http://evil.test","click")', "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1", "'=already", "''+x",
           "plain", "it's fine", "- a dash list"]


def test_formula_cells_are_neutralized_in_review_csv_and_restored_on_accept(tmp_path):
    sample = sample_pages(CORPUS.pages[CORPUS.pages["doc_id"] == "expense_policy"], 3, seed=0)
    draft = generate_questions(sample, lambda page: [{"question": q, "type": "fact", "answer": q}
                                                     for q in HOSTILE[page.page % 3::3]])
    review = review_draft(draft, sample)
    path = write_review(review, tmp_path / "review.csv")
    with open(path, encoding="utf-8-sig", newline="") as f:
        cells = [c for row in csv.reader(f) for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t")]  # nothing a spreadsheet would run
    assert "'=HYPERLINK(\"http://evil.test\",\"click\")" in cells and "''=already" in cells
    decisions = read_decisions(path)
    assert sorted(decisions["question"]) == sorted(review["question"])  # restored exactly
    assert sorted(decisions["answer"]) == sorted(review["answer"])


@given(st.text(alphabet="'=+-@\t\rab ", max_size=8))
def test_neutralize_then_restore_is_the_identity(text):
    written = neutralize_cell(text)
    assert restore_cell(written) == text
    assert written[:1] not in ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("text", ["5 days", "0.5 EUR", ".5", ",", "/tmp", ":x", ";", "<b>", ">", "?", "A1", "'5",
                                  "'a", "*", ")", "~", "[", "{"])
def test_only_the_formula_characters_get_a_quote(text):
    """A cell starting with a character other than ``= + - @``, a tab or a carriage return (after any quotes) is
    written as it is: the characters between ``+`` and ``@`` in ASCII order -- digits, ``. , / : ; < > ?`` -- are
    not formula starts, however the character class is spelled."""
    assert neutralize_cell(text) == text
    assert csv_text(["id", "cell"], [["q1", text]]).splitlines()[1] in (f"q1,{text}", f'q1,"{text}"')


# ---- the shared vocabulary --------------------------------------------------------------------------------------

def test_one_key_value_rule():
    assert parse_key_values(["size=400", "x=0.5", "flag=TRUE", "n=none", "ks=[1, 3]", "name=bm25", "neg=-3",
                             'code="007"', "e=1e-3"]) == {
        "size": 400, "x": 0.5, "flag": True, "n": None, "ks": [1, 3], "name": "bm25", "neg": -3, "code": "007",
        "e": 0.001}
    assert parse_value(" spaced out ") == "spaced out" and parse_value("[1,") == "[1,"
    with pytest.raises(InputError, match="'size' is given twice"):
        parse_key_values(["size=1", "size=2"])
    with pytest.raises(InputError, match="expected KEY=VALUE"):
        parse_key_values(["size"])
    with pytest.raises(InputError, match=r"unknown key 'colour'; expected one of doc_id, page"):
        parse_key_values(["colour=red"], keys=("doc_id", "page"))


def test_a_value_with_a_plus_sign_or_a_leading_dot_is_a_number():
    assert parse_value("+5") == 5 and isinstance(parse_value("+5"), int)
    assert parse_value(".5") == 0.5 and parse_value("-.5") == -0.5 and parse_value(".5e1") == 5.0
    assert parse_value("5.") == 5.0 and isinstance(parse_value("5."), float)
    assert parse_value("+") == "+" and parse_value(".") == "." and parse_value("1.2.3") == "1.2.3"


def test_one_callable_loader(tmp_path):
    with pytest.raises(InputError, match=r"retriever 'nocolon': expected MODULE:NAME"):
        load_callable("nocolon", what="retriever")
    with pytest.raises(InputError, match=r"cannot import 'no_such_module_xyz'"):
        load_callable("no_such_module_xyz:f")
    with pytest.raises(InputError, match=r"'json' has no attribute 'nothing'"):
        load_callable("json:nothing")
    assert load_callable("json:decoder.JSONDecoder") is json.decoder.JSONDecoder


@pytest.mark.parametrize("typed, message", [
    ("recal@5", r"Did you mean 'recall@5'\?"),
    ("mmr", r"Did you mean 'mrr'\?"),
    ("precison(rel=2)@5", r"Did you mean 'precision\(rel=2\)@5'\?"),
    ("ndcg@10(rel=x)", r"the relevance level 'x' must be an int >= 1, e.g. ndcg\(rel=2\)"),
    ("P(rel=two)@5", r"the relevance level 'two' must be an int >= 1"),
])
def test_measure_names_that_do_not_parse(typed, message):
    with pytest.raises(InputError, match=message) as err:
        parse_measure(typed)
    hint = str(err.value).partition("Did you mean")[2]
    names = re.findall(r"'([^']*)'", hint)
    assert len(names) == len(set(names)) and all(parse_measure(n) for n in names)  # once each, every one valid


def test_evaluate_looks_up_the_version_only_when_asked(tmp_path):
    """`rag-metrics evaluate` never imports importlib.metadata (~50 ms, a third of a small run's process): the
    version is read by --version alone."""
    import subprocess

    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 2.0 x\n")
    code = ("import sys; from rag_metrics.cli import main; main(['evaluate', sys.argv[1], sys.argv[2], '-m', 'mrr']); "
            "print('importlib.metadata' in sys.modules, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")],
                          capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "False" and "mrr" in done.stdout


def test_version_and_help_text(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and re.fullmatch(r"rag-metrics \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = capsys.readouterr().out
    assert re.search(r"95%\s+interval", out) and "%%" not in out


@pytest.mark.parametrize("cell", ["a\rb", "a\nb", "a,b", 'a"b', "a\r\nb"])
def test_a_cell_with_a_line_break_comma_or_quote_is_quoted_and_reads_back_unchanged(tmp_path, cell):
    from rag_metrics.core.serialize import csv_text
    from rag_metrics.io.csvfile import read_csv

    text = csv_text(["id", "note"], [["q1", cell], ["q2", "plain"]])
    assert text.startswith("id,note\nq1,\"")
    path = tmp_path / "cells.csv"
    path.write_bytes(text.encode("utf-8"))
    header, rows = read_csv(path, "a test file")
    assert header == ["id", "note"] and [row["note"] for _, row in rows] == [cell, "plain"]
