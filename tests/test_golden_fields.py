"""Issue 48, slices: every field of a golden set is kept on reading (a team's own ``language``, ``product``), a
misspelled known field is kept with a warning, and results slice by any of them -- and by the gold documents and
their fields in the corpus -- at every level; ``subset`` refuses IDs the set does not hold."""

import json
import warnings

import pytest

import rag_metrics as rm
from rag_metrics import InputError
from rag_metrics.io.corpus import data_dir

DATA = data_dir()
LOG = str(DATA / "examples" / "bm25_c400o100.jsonl")


def _language(question: str) -> str:
    return "ja" if any(ord(c) > 0x3000 for c in question) else "en"


@pytest.fixture(scope="module")
def own_fields(tmp_path_factory):
    """The sample golden set with a team's own fields: ``language`` on every question, ``product`` on some."""
    rows = [json.loads(line) for line in (DATA / "golden.jsonl").read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["language"] = _language(row["question"])
        if row["question_id"] in ("q034", "q035", "q036"):
            row["product"] = "thermostat"
    path = tmp_path_factory.mktemp("golden") / "golden.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def result(own_fields, corpus):
    return rm.evaluate_log(rm.load_golden(own_fields, corpus=corpus), LOG, corpus)


def test_every_field_is_kept(own_fields):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # language and product are no near-miss of a known field
        golden = rm.load_golden(own_fields)
    q = golden.questions
    assert q.loc["q001", "language"] == "en" and q.loc["q044", "language"] == "ja"
    assert q.loc["q034", "product"] == "thermostat" and q.loc["q001", "product"] is None
    assert golden.fingerprint() == rm.load_golden(DATA / "golden.jsonl").fingerprint()  # attributes are no gold


def test_a_near_miss_of_a_known_field_warns_once_and_is_kept(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"question_id": "a", "question": "x?", "tpye": "fact", "gold_docs": ["d"]}\n'
                    '{"question_id": "b", "question": "y?", "tpye": "fact", "gold_docs": ["d"], "answers": "z"}\n')
    with pytest.warns(UserWarning) as caught:
        golden = rm.load_golden(path)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert messages[0].startswith(f"{path}:1: golden set field 'tpye' is not one of its fields; did you mean 'type'?")
    assert f"{path}:2: golden set field 'answers'" in messages[1] and "did you mean 'answer'?" in messages[1]
    assert list(golden.questions["tpye"]) == ["fact", "fact"] and list(golden.questions["type"]) == ["", ""]


def test_a_csv_keeps_its_own_columns_and_they_must_agree(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("question_id,question,doc_id,page,product\nq1,x?,d,1,lumo\nq1,x?,d,2,lumo\nq2,y?,e,1,\n")
    golden = rm.load_golden(path)
    assert golden.questions.loc["q1", "product"] == "lumo" and golden.questions.loc["q2", "product"] is None
    path.write_text("question_id,question,doc_id,page,product\nq1,x?,d,1,lumo\nq1,x?,d,2,other\n")
    with pytest.raises(InputError, match=r"g\.csv:3: question 'q1': product differs from line 2"):
        rm.load_golden(path)


def test_subset_refuses_questions_it_does_not_hold(golden):
    with pytest.raises(InputError, match=r"subset: question ID\(s\) \['q999'\] are not in the golden set "
                                         r"\(75 questions, 'q001' to 'q075'\)\.$"):
        golden.subset(["q999", "q001"])
    with pytest.raises(InputError, match=r"\['Q001'\] are not in the golden set.*Did you mean 'q001'\?"):
        golden.subset(["Q001"])
    assert list(golden.subset(["q002", "q001"]).questions.index) == ["q001", "q002"]


def test_slices_by_a_teams_field_at_every_level(result):
    for level in ("page", "document"):
        table = result.by("language", level=level)
        per_question = result.at(level).per_question
        for lang in ("en", "ja"):
            ids = [q for q in per_question.index if _language(result.golden.questions.at[q, "question"]) == lang]
            values = per_question.loc[ids, "hit@5"].dropna()
            row = table.loc[(lang, "hit@5")]
            assert row["n"] == len(values) and row["mean"] == pytest.approx(values.mean())
            assert row["ci_low"] <= row["mean"] <= row["ci_high"]
    products = result.by("product")
    assert products.loc[("thermostat", "mrr"), "n"] == 3 and "(none)" in products.index.get_level_values("product")


def test_slices_by_gold_document_and_the_corpus_fields(result):
    by_doc = result.by("document", measures=["hit@5"])
    gold = result.golden.gold.dropna(subset=["doc_id"])
    faq = set(gold.loc[gold["doc_id"] == "faq_ja", "question_id"])
    assert by_doc.loc[("faq_ja", "hit@5"), "n"] == len(faq)  # a question counts for each of its gold documents
    assert by_doc["n"].sum() > result.summary().loc["hit@5", "n"]
    languages = result.by("document.language", measures=["hit@5"])
    assert set(languages.index.get_level_values("document.language")) == {"en", "ja"}
    with pytest.raises(InputError, match=r"'langauge' is not a question attribute.*Did you mean 'language'\?"):
        result.by("langauge")


def test_slices_by_several_fields_and_by_a_series(result):
    both = result.by(["type", "language"], measures=["mrr"])
    assert both.index.names == ["type", "language", "measure"]
    adhoc = result.by(result.golden.questions["language"].rename("lang"), measures=["mrr"])
    assert adhoc.droplevel("lang").equals(result.by("language", measures=["mrr"]).droplevel("language"))
