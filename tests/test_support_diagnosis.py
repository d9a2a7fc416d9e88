"""The full diagnosis (retrieval x correctness x support) and support judges measured against people (issue 35)."""

import itertools
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.experiment.answer_support import (
    DIAGNOSES,
    diagnose_answers,
    diagnosis_change,
    diagnosis_of,
    measure_judges,
    read_support_set,
    stops_short,
)
from rag_metrics.core.errors import NotComparableError
from rag_metrics.io.corpus import load_answers
from rag_metrics.answers.correctness import meaning_match
from rag_metrics.answers.support import OfflineSupportJudge, answer_support, context_passages, support_of_answer

DATA = Path(__file__).resolve().parents[1] / "data"
SUPPORT_SET = DATA / "support" / "claims.jsonl"

# the module docstring's table, written out as data: (retrieval hit, correct, support, stops short) -> diagnosis
TABLE = {}
for hit, support, short in itertools.product((True, False), ("full", "partial", "none", "no claims"), (True, False)):
    TABLE[(hit, True, support, short)] = {"full": "passed" if hit else "label_gap",
                                          "partial": "partially_supported"}.get(support, "answered_from_memory")
    TABLE[(hit, False, support, short)] = ("incomplete" if short else "misled") if support == "full" else (
        "retrieval_failure" if not hit else ("hallucinated" if support == "none" else "generation_failure"))


@pytest.mark.parametrize("key", sorted(TABLE))
def test_diagnosis_of_every_cell(key):
    assert diagnosis_of(*key) == TABLE[key]


def test_every_diagnosis_is_reachable_and_bad_support_refused():
    assert set(TABLE.values()) == set(DIAGNOSES)
    with pytest.raises(InputError, match="support"):
        diagnosis_of(True, True, "some")


@pytest.fixture(scope="module")
def answers():
    return load_answers(sample=True)


@pytest.fixture(scope="module")
def diagnoses(golden, answers, corpus):
    return {g: diagnose_answers(golden, answers[answers["generator"] == g], corpus) for g in ("gen_a", "gen_b")}


def _independent_counts(generator, corpus):
    """The diagnosis recounted from the raw files: gold from golden.jsonl, the top 3 logged documents, the offline
    judges called directly, the table above."""
    golden = {r["question_id"]: r for r in map(json.loads, (DATA / "golden.jsonl").read_text("utf-8").splitlines())}
    counts = Counter()
    for line in (DATA / "answers.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        gold = golden[row["question_id"]]
        if row["generator"] != generator or gold["type"] == "no_answer" or not gold.get("gold_docs") \
                or not gold.get("answer"):
            continue
        docs = row["retrieved_ids"][:3]
        hit = bool(set(docs) & set(gold["gold_docs"]))
        correct = meaning_match(row["generated_answer"], gold["answer"])["correct"]
        claims = support_of_answer(row["generated_answer"], context_passages(docs, corpus), OfflineSupportJudge())
        short = stops_short(row["generated_answer"], gold["answer"])
        counts[TABLE[(hit, correct, answer_support(claims), short)]] += 1
    return counts


@pytest.mark.parametrize("generator", ["gen_a", "gen_b"])
def test_diagnosis_counts_equal_an_independent_count_on_the_sample(diagnoses, corpus, generator):
    got = diagnoses[generator].counts()
    expected = _independent_counts(generator, corpus)
    assert got == {d: expected.get(d, 0) for d in DIAGNOSES}
    assert sum(got.values()) == 65


def test_sample_cases_read_by_a_person(diagnoses):
    rec = diagnoses["gen_a"].records
    # 150 EUR: the general hotel cap, retrieved, while the question asked for capital cities (200 EUR)
    assert rec.at["q017", "diagnosis"] == "misled"
    # "a vice president" for a question asking for two approvals: true, and only half the expected answer
    assert rec.at["q063", "diagnosis"] == "incomplete"
    # "On the 25th of each month" with the expense policy retrieved: unsupported and wrong
    assert rec.at["q010", "diagnosis"] == "hallucinated"
    # right answer, but the FAQ and onboarding guide retrieved do not say it: a person reads "answered from memory".
    # The judge errs here since issue 46: with dictionary forms, the short clause 「経費精算規程で精算し」 finds two of
    # its three words (経費, 精算) in the onboarding guide's heading "4.1 経費精算" with the sentence after it
    assert rec.at["q064", "diagnosis"] == "partially_supported" and not rec.at["q064", "retrieval_ok"]
    assert diagnoses["gen_b"].records.at["q010", "diagnosis"] == "passed"
    claims = diagnoses["gen_a"].claims
    q017 = claims[claims["question_id"] == "q017"].iloc[0]
    assert (q017["doc_id"], q017["page"]) == ("travel_policy", 7) and "150 EUR" in q017["span"]


def test_rates_and_exclusions(diagnoses):
    d = diagnoses["gen_a"]
    rates = d.rates()
    assert list(rates["Diagnosis"]) == list(DIAGNOSES) and rates["Questions"].sum() == 65
    passed = rates.set_index("Diagnosis").loc["passed"]
    assert passed["Low"] < passed["Share"] < passed["High"]
    assert len(d.excluded["no_answer"]) == 6 and len(d.excluded["unlabelled"]) == 4 and d.excluded["no_log"] == []
    assert d.judges["support"]["judge"] == "offline" and d.judges["lexical"] == "contains"
    assert set(d.records["retrieval_level"]) == {"document"}


def test_diagnosis_change_is_paired(diagnoses):
    change = diagnosis_change(diagnoses["gen_a"], diagnoses["gen_b"])
    a, b = diagnoses["gen_a"].records["diagnosis"], diagnoses["gen_b"].records["diagnosis"]
    wins = int(((b == "passed") & (a != "passed")).sum())
    losses = int(((a == "passed") & (b != "passed")).sum())
    assert (change["wins"], change["losses"], change["n"]) == (wins, losses, 65)
    assert change["change"] == pytest.approx((wins - losses) / 65) and change["low"] <= change["change"] <= change["high"]
    assert int(change["table"].to_numpy().sum()) == 65
    same = diagnosis_change(diagnoses["gen_a"], diagnoses["gen_a"])
    assert same["change"] == 0 and same["p"] == 1.0
    with pytest.raises(NotComparableError):
        smaller = diagnoses["gen_b"]
        diagnosis_change(diagnoses["gen_a"], type(smaller)(smaller.records.iloc[1:], smaller.claims, {}, {}))


def test_page_level_retrieval_and_a_given_ruler(golden, corpus):
    text = corpus.page_text("expense_policy", 9)
    answers = pd.DataFrame({"question_id": ["q010"], "generated_answer": ["5th day of the month following approval"],
                            "retrieved": [[{"doc_id": "expense_policy", "pages": [8], "text": corpus.page_text(
                                "expense_policy", 8)}, {"doc_id": "expense_policy", "pages": [9], "text": text}]]})
    d = diagnose_answers(golden, answers, corpus)
    assert d.records.at["q010", "retrieval_level"] == "page" and d.records.at["q010", "diagnosis"] == "passed"
    d1 = diagnose_answers(golden, answers, corpus, context_k=1)
    assert not d1.records.at["q010", "retrieval_ok"] and d1.records.at["q010", "diagnosis"] == "answered_from_memory"
    wrong = diagnose_answers(golden, answers.assign(generated_answer=["the 10th"]), corpus, context_k=1)
    assert wrong.records.at["q010", "diagnosis"] == "retrieval_failure"
    given = diagnose_answers(golden, answers, corpus, retrieval={"q010": False})
    assert given.records.at["q010", "diagnosis"] == "label_gap"
    with pytest.raises(InputError, match="no verdict for question 'q010'"):
        diagnose_answers(golden, answers, corpus, retrieval={})


def test_diagnose_refuses_bad_answers(golden, corpus, answers):
    with pytest.raises(InputError, match="two answers"):
        diagnose_answers(golden, answers, corpus)
    with pytest.raises(InputError, match="not in the golden set"):
        diagnose_answers(golden, pd.DataFrame({"question_id": ["zzz"], "generated_answer": ["x"],
                                               "retrieved_ids": [["a"]]}), corpus)
    with pytest.raises(InputError, match="missing column"):
        diagnose_answers(golden, pd.DataFrame({"question_id": ["q001"]}), corpus)


# --- the labelled support set and the judges' agreement ----------------------------------------------------------

def test_the_shipped_support_set(corpus):
    claims = read_support_set(SUPPORT_SET)
    assert 80 <= len(claims) <= 150 and set(claims["language"]) == {"en", "ja"}
    assert set(claims["kind"]) == {"verbatim", "paraphrase", "number", "date", "amount", "negation",
                                   "not_in_context", "not_in_corpus", "partial"}
    for span, ctx in zip(claims["span"].dropna(), claims.loc[claims["span"].notna(), "context"]):
        s = json.loads(span)
        assert (s["doc_id"], s["page"]) in ctx
        assert all(part in corpus.page_text(s["doc_id"], s["page"]) for part in s["text"].split("。予約"))


def test_judges_measured_against_people(corpus):
    claims = read_support_set(SUPPORT_SET)
    agreement = measure_judges(claims, corpus, {
        "offline": OfflineSupportJudge(),
        "token overlap": OfflineSupportJudge(check_numbers=False, check_negation=False, lemmas=False, assertions=False,
                                             scope=False, parts=False, name="token overlap")})
    summary = agreement.summary().set_index("Judge")
    # the figures are computed, not written here: the offline judge's point estimate clears the stated bar, the
    # baseline's does not. This is the set the judge was tuned on (issue 46): its interval clears the bar here, and
    # the rule (its lower end) accepts it on this set -- on the held-out set it does not (benchmarks/support_heldout.md)
    assert summary.at["offline", "Kappa"] >= 0.6 > summary.at["token overlap", "Kappa"]
    assert summary.at["offline", "Low"] >= 0.6 and summary.at["offline", "Usable for headlines"]
    assert not summary.at["token overlap", "Usable for headlines"]
    assert summary.at["offline", "Claims"] == len(claims)
    by_kind = agreement.by_kind()
    assert list(by_kind.index)[:2] == ["verbatim", "paraphrase"] and by_kind["Claims"].sum() == len(claims)
    assert by_kind.at["number", "offline"] > by_kind.at["number", "token overlap"]
    agreement.require("offline")
    with pytest.raises(InputError, match="refused for headline figures"):
        agreement.require("token overlap")
    agreement.require("token overlap", force=True)
    with pytest.raises(InputError, match="no agreement measured"):
        agreement.require("llm")


@pytest.mark.parametrize("line, field", [
    ({"claim_id": "", "claim": "x"}, "claim_id"),
    ({"claim": " "}, "claim"),
    ({"kind": "other"}, "kind"),
    ({"language": "fr"}, "language"),
    ({"supported": "yes"}, "supported"),
    ({"context": [["expense_policy", "3"]]}, "context"),
    ({"context": []}, "context"),
    ({"span": None}, "span"),
])
def test_read_support_set_names_file_line_and_field(tmp_path, line, field):
    good = json.loads(SUPPORT_SET.read_text("utf-8").splitlines()[0])
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good | {"claim_id": "c2"} | line) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_support_set(path)
    assert f"field '{field}'" in str(e.value) and ":2" in str(e.value) and "claims.jsonl" in str(e.value)


def test_read_support_set_duplicate_and_empty(tmp_path):
    good = SUPPORT_SET.read_text("utf-8").splitlines()[0]
    path = tmp_path / "c.jsonl"
    path.write_text(good + "\n" + good + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="earlier line"):
        read_support_set(path)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="file is empty"):
        read_support_set(path)


def test_diagnose_log_picks_the_generator_and_the_logged_context(golden, answers, corpus, diagnoses):
    from rag_metrics.experiment.answer_support import diagnose_log

    d = diagnose_log(golden, answers, corpus, generator="gen_b")
    assert d.counts() == diagnoses["gen_b"].counts() and d.judges["context_k"] == 3
    with pytest.raises(InputError, match="choose one"):
        diagnose_log(golden, answers, corpus)
    with pytest.raises(InputError, match="no answer of generator 'gen_z'"):
        diagnose_log(golden, answers, corpus, generator="gen_z")
    short = answers[answers["generator"] == "gen_a"].assign(retrieved_ids=lambda t: [ids[:1] for ids in t["retrieved_ids"]])
    assert diagnose_log(golden, short, corpus).judges["context_k"] == 1
    missed = {q: q != "q001" for q in d.records.index}
    ruled = diagnose_log(golden, answers, corpus, generator="gen_b", retrieval=missed).records
    assert ruled.at["q001", "retrieval_level"] == "given" and ruled.at["q001", "diagnosis"] == "label_gap"


# ---- whose answers are judged (rag_metrics.experiment.answer_support.answer_runs) ---------------------------------

def _answers(*generators):
    import pandas as pd

    return pd.DataFrame({"question_id": [f"q{i}" for i in range(len(generators))],
                         "generated_answer": ["a"] * len(generators), "generator": list(generators)})


def test_answer_runs_choose_the_one_generator_there_is_or_those_named():
    import pandas as pd

    from rag_metrics.experiment.answer_support import answer_runs

    one = answer_runs(_answers("g", "g"))
    assert [name for name, _ in one] == ["g"] and len(one[0][1]) == 2
    two = _answers("b", "a", "b")
    assert [(n, len(f)) for n, f in answer_runs(two, ["b", "a"])] == [("b", 2), ("a", 1)], "in the order named"
    assert [n for n, _ in answer_runs(two, ["a"])] == ["a"]
    plain = pd.DataFrame({"question_id": ["q1"], "generated_answer": ["x"]})
    assert [n for n, _ in answer_runs(plain)] == ["answers"] and [n for n, _ in answer_runs(plain, ["z"])] == ["answers"]


def test_answer_runs_refuse_several_generators_none_named_an_unknown_one_or_three():
    import pandas as pd

    from rag_metrics import InputError
    from rag_metrics.experiment.answer_support import answer_runs

    two = _answers("b", "a")
    with pytest.raises(InputError, match=r"^ans\.jsonl: answers of 2 generators \(a, b\); choose one with "
                                         r"--generator\.$"):
        answer_runs(two, source="ans.jsonl")
    with pytest.raises(InputError, match=r"--generator \(twice to compare two\)\.$"):
        answer_runs(two, source="ans.jsonl", pair=True)
    with pytest.raises(InputError, match=r"expected one or two of \['a', 'b'\], got \['c'\]"):
        answer_runs(two, ["c"])
    with pytest.raises(InputError, match="expected one or two"):
        answer_runs(_answers("a", "b", "c"), ["a", "b", "c"])
    with pytest.raises(InputError, match="expected one or two"):  # three names without a generator column too
        answer_runs(pd.DataFrame({"question_id": ["q1"]}), ["a", "b", "c"])


@pytest.mark.parametrize("pages, hit", [([8, 9], True), ([9, 8], True), ([9], True), ([8, 10], False)])
def test_an_item_over_several_pages_is_a_hit_when_any_of_them_is_gold(golden, corpus, pages, hit):
    """q010's gold page is expense_policy p. 9: a chunk spanning pages 8-9 holds it, whichever page is listed first."""
    text = corpus.page_text("expense_policy", 8) + "\n" + corpus.page_text("expense_policy", 9)
    answers = pd.DataFrame({"question_id": ["q010"], "generated_answer": ["5th day of the month following approval"],
                            "retrieved": [[{"doc_id": "expense_policy", "pages": pages, "text": text}]]})
    d = diagnose_answers(golden, answers, corpus, context_k=1)
    assert bool(d.records.at["q010", "retrieval_ok"]) is hit
    assert d.records.at["q010", "retrieval_level"] == "page"
    if hit:
        assert d.records.at["q010", "diagnosis"] == "passed"


def test_a_right_answer_read_without_gold_is_named_by_its_support_not_retrieval_failure():
    """The report's q064: no gold document in the context, the answer right, some claims supported. It is
    partially_supported; retrieval_failure asks for a wrong answer (or a refusal) as well as the miss."""
    assert diagnosis_of(False, True, "partial") == "partially_supported"
    assert diagnosis_of(False, True, "full") == "label_gap"
    assert diagnosis_of(False, True, "none") == "answered_from_memory"
    assert diagnosis_of(False, False, "partial") == "retrieval_failure"
    assert diagnosis_of(False, False, "none", refused=True) == "retrieval_failure"
