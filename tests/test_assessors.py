"""Assessors for unlabelled items: the protocol offline end to end, and the LLM assessors through their clients' own
stubs (httpx.MockTransport for openai, botocore's Stubber for Bedrock) -- never the network."""

import copy
import importlib
import json
from pathlib import Path

import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.labels.assessor_agreement import agreement, assessed_figures, hit_with_pages
from rag_metrics.labels.assessors import (ASSESSED_COLUMNS, Assessor, OfflineAssessor, assess_items, assessment_items,
                                          check_grade)
from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.labels.llm_assessors import (ASSESS_PROMPT_VERSION, BedrockAssessor, OpenAIAssessor, load_assessor,
                                              parse_grade, render_assessment)
from rag_metrics.labels.decisions import human_labels
from rag_metrics.llm.clients import RateLimited
from rag_metrics.llm.prompts import MalformedResponse
from rag_metrics.io.corpus import data_dir
from rag_metrics.io.logs import load_log

FIXTURES = Path(__file__).parent / "fixtures" / "llm"
RECORDED_OPENAI = json.loads((FIXTURES / "openai_chat_completion.json").read_text(encoding="utf-8"))
RECORDED_BEDROCK = json.loads((FIXTURES / "bedrock_converse.json").read_text(encoding="utf-8"))
PAGE = "Claims must be filed within 30 days of the expense date. Late claims are refused."
QUESTION = "What is the deadline for an expense claim?"


def openai_reply(content: str, prompt_tokens=230, completion_tokens=17) -> dict:
    body = copy.deepcopy(RECORDED_OPENAI)
    body["choices"][0]["message"]["content"] = content
    body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                     "total_tokens": prompt_tokens + completion_tokens}
    return body


def bedrock_reply(content: str) -> dict:
    body = copy.deepcopy(RECORDED_BEDROCK)
    body["output"]["message"]["content"] = [{"text": content}]
    body["usage"] = {"inputTokens": 260, "outputTokens": 21, "totalTokens": 281}
    return body


def _openai_client(handler):
    import openai

    http = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])

    def respond(request):
        status, body, headers = handler(request)
        return http.Response(status, json=body, headers=headers or {})

    return openai.OpenAI(api_key="test-key", base_url="http://llm.test/v1", max_retries=0,
                         http_client=openai.DefaultHttpxClient(transport=http.MockTransport(respond)))


# ---- the prompt and the strict parser -------------------------------------------------------------------------

def test_the_prompt_is_versioned_graded_and_in_the_page_language():
    system, user = render_assessment(QUESTION, "30 days", PAGE)
    assert "0 to 3" in user and "3 = the passage is dedicated to the question" in user
    assert "Reference answer: 30 days" in user and PAGE in user and user.rstrip().endswith(">>>")
    assert '{"grade": 0, "reason": "one short sentence"}' in user
    _, ja = render_assessment("経費の締め切りは？", None, "経費は翌月5日までに申請する。", language="ja")
    assert "参考解答: (なし)" in ja and "0から3" in ja
    assert ASSESS_PROMPT_VERSION == "assess-v1"
    with pytest.raises(InputError, match="no assessment prompt for language 'fr'"):
        render_assessment("q", "a", "t", language="fr")


@pytest.mark.parametrize("reply, grade", [('{"grade": 3}', 3), ('{"grade": 0, "reason": "unrelated"}', 0),
                                          ('```json\n{"grade": 2, "reason": "partial"}\n```', 2)])
def test_parse_grade_reads_the_json(reply, grade):
    assert parse_grade(reply) == grade


@pytest.mark.parametrize("reply, message", [
    ("", "empty reply"), ("Grade: 3", "not JSON"), ('{"score": 3}', 'expected an object {"grade": 0-3}'),
    ('{"grade": 4}', "must be an integer 0, 1, 2 or 3"), ('{"grade": true}', "must be an integer"),
    ('{"grade": 2.0}', "must be an integer"), ('{"grade": "3"}', "must be an integer"),
    ('{"grade": 3, "confidence": 0.9}', r"unexpected key\(s\) \['confidence'\]"), ('{"grade": 3, "reason": 5}',
                                                                                 "'reason' must be a string"),
    ('[{"grade": 3}]', "expected an object"), ('{"grade": NaN}', "not JSON"),
])
def test_parse_grade_is_strict(reply, message):
    with pytest.raises(MalformedResponse, match=message):
        parse_grade(reply)


# ---- OpenAI-compatible, through httpx's MockTransport ---------------------------------------------------------

def test_openai_request_shape_grade_and_cache(tmp_path):
    requests = []

    def handler(request):
        requests.append(request)
        return 200, openai_reply('{"grade": 3, "reason": "states the deadline"}'), None

    a = OpenAIAssessor("gpt-4o-mini", client=_openai_client(handler), cache_dir=tmp_path)
    assert isinstance(a, Assessor)
    assert a.assess(QUESTION, "30 days", PAGE) == 3
    (request,) = requests
    body = json.loads(request.content)
    assert request.url.path == "/v1/chat/completions" and body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0.0 and body["response_format"] == {"type": "json_object"}
    assert QUESTION in body["messages"][1]["content"] and PAGE in body["messages"][1]["content"]
    assert a.usage == {"calls": 1, "cached": 0, "retries": 0, "input_tokens": 230, "output_tokens": 17}
    again = OpenAIAssessor("gpt-4o-mini", client=_openai_client(handler), cache_dir=tmp_path)
    assert again.assess(QUESTION, "30 days", PAGE) == 3 and len(requests) == 1 and again.usage["cached"] == 1
    assert again.assess(QUESTION, "thirty days", PAGE) == 3 and len(requests) == 2, "another answer, another key"
    OpenAIAssessor("llama3.1:8b", client=_openai_client(handler), cache_dir=tmp_path).assess(QUESTION, "30 days", PAGE)
    assert len(requests) == 3, "another model, another key"
    # a broken cache entry is discarded and asked again, not a failure forever
    for entry in tmp_path.glob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    assert again.assess(QUESTION, "30 days", PAGE) == 3 and len(requests) == 4


def test_openai_retries_a_rate_limit_then_fails_after_the_last_retry(tmp_path):
    limit = (429, {"error": {"message": "Rate limit reached", "type": "requests"}}, {"retry-after": "2"})
    replies = [limit, (200, openai_reply('{"grade": 1}'), None)]
    waits = []
    a = OpenAIAssessor("m", client=_openai_client(lambda r: replies.pop(0)), backoff=0.5, sleep=waits.append)
    assert a.assess(QUESTION, "30 days", PAGE) == 1 and waits == [2.0] and a.usage["retries"] == 1
    calls = []
    stuck = OpenAIAssessor("m", client=_openai_client(lambda r: calls.append(1) or limit), retries=2, backoff=0,
                           sleep=lambda s: None, cache_dir=tmp_path)
    with pytest.raises(RateLimited, match="after 3 attempt"):
        stuck.assess(QUESTION, "30 days", PAGE)
    assert len(calls) == 3 and not list(tmp_path.glob("*.json"))


def test_openai_malformed_reply_is_an_error_and_not_cached(tmp_path):
    a = OpenAIAssessor("m", client=_openai_client(lambda r: (200, openai_reply("The passage is relevant (3)."), None)),
                       cache_dir=tmp_path)
    with pytest.raises(MalformedResponse, match="not JSON"):
        a.assess(QUESTION, "30 days", PAGE)
    assert not list(tmp_path.glob("*.json"))


def test_cost_estimate_before_any_call(tmp_path):
    calls = []
    a = OpenAIAssessor("m", client=_openai_client(lambda r: calls.append(r) or (200, openai_reply('{"grade": 2}'),
                                                                                None)), cache_dir=tmp_path)
    items = pd.DataFrame({"question": [QUESTION, QUESTION, "Who approves?"], "answer": ["30 days", None, "x"],
                          "text": [PAGE, PAGE, "Approvals need a manager."]})
    est = a.estimate(items, price_in=0.15, price_out=0.60)
    assert (est["calls"], est["cached"]) == (3, 0) and not calls
    from rag_metrics.llm.clients import estimate_tokens

    expected_in = sum(estimate_tokens(m) for r in items.to_dict("records")
                      for m in a.assessment_messages(r["question"], r["answer"], r["text"]))
    assert est["input_tokens"] == expected_in and est["output_tokens"] == 3 * 40
    assert est["cost"] == pytest.approx(expected_in * 0.15e-6 + 120 * 0.60e-6)
    a.assess(QUESTION, "30 days", PAGE)
    assert a.estimate(items)["calls"] == 2 and a.estimate(items)["cached"] == 1 and a.estimate(items)["cost"] is None


# ---- Bedrock, through botocore's Stubber ----------------------------------------------------------------------------

def _bedrock():
    import boto3
    from botocore.stub import Stubber

    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    return client, Stubber(client)


def test_bedrock_request_shape_retry_grade_and_cache(tmp_path):
    client, stub = _bedrock()
    model = "anthropic.claude-3-5-haiku-20241022-v1:0"
    waits = []
    a = BedrockAssessor(model, client=client, cache_dir=tmp_path, backoff=0.25, sleep=waits.append)
    text = "経費は翌月5日に振り込まれます。"
    system, user = a.assessment_messages("経費はいつ振り込まれますか。", "翌月5日", text)
    assert "検索品質" in system, "a Japanese page gets the Japanese prompt"
    expected = {"modelId": model, "system": [{"text": system}],
                "messages": [{"role": "user", "content": [{"text": user}]}], "inferenceConfig": {"temperature": 0.0}}
    stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429,
                          expected_params=expected)
    stub.add_response("converse", bedrock_reply('```json\n{"grade": 3, "reason": "答えを含む"}\n```'), expected)
    with stub:
        assert a.assess("経費はいつ振り込まれますか。", "翌月5日", text) == 3
        stub.assert_no_pending_responses()
    assert waits == [0.25] and a.usage["input_tokens"] == 260 and a.usage["output_tokens"] == 21
    with stub:  # nothing queued: a call would fail, the cache answers
        assert BedrockAssessor(model, client=client, cache_dir=tmp_path).assess("経費はいつ振り込まれますか。", "翌月5日",
                                                                                 text) == 3


def test_bedrock_other_errors_are_not_retried():
    client, stub = _bedrock()
    a = BedrockAssessor("m", client=client, retries=3, backoff=0, sleep=lambda s: None)
    stub.add_client_error("converse", service_error_code="AccessDeniedException", http_status_code=403)
    from botocore.exceptions import ClientError

    with stub, pytest.raises(ClientError, match="AccessDeniedException"):
        a.assess(QUESTION, "30 days", PAGE)


# ---- only unjudged items are assessed; labels kept apart -------------------------------------------------------

def _items():
    return pd.DataFrame({"question_id": ["q1", "q1", "q2"], "doc_id": ["d", "e", "d"], "page": [1, 2, 3],
                         "question": [QUESTION, QUESTION, "Who approves?"], "answer": ["30 days", "30 days", "a manager"],
                         "text": [PAGE, "Unrelated text about parking.", "A manager approves the claim."]})


def test_only_unjudged_items_are_assessed_and_the_labels_say_where_they_come_from():
    calls = []

    def handler(request):
        calls.append(json.loads(request.content)["messages"][1]["content"])
        return 200, openai_reply('{"grade": 0}'), None

    human = pd.DataFrame({"question_id": ["q1"], "doc_id": ["d"], "page": [1], "relevant": [True]})
    a = OpenAIAssessor("m", client=_openai_client(handler))
    labels = assess_items(_items(), a, human=human)
    assert len(calls) == 2 and all(PAGE not in c for c in calls), "the labelled item is never sent"
    assert list(labels.columns) == ASSESSED_COLUMNS and set(labels["source"]) == {"assessed"}
    assert set(labels["prompt_version"]) == {ASSESS_PROMPT_VERSION} and set(labels["assessor"]) == {"openai"}
    assert sorted(zip(labels["question_id"], labels["page"])) == [("q1", 2), ("q2", 3)]


def test_the_offline_assessor_grades_by_answer_evidence_and_tokens():
    a = OfflineAssessor()
    assert a.assess(QUESTION, "30 days", PAGE) == 3
    assert a.assess(QUESTION, "45 days", PAGE) == 1  # "days" only: related, not the answer
    assert a.assess(QUESTION, "45 days", "Parking is free.") == 0
    evidence = "Claims must be filed within 30 days of the expense date, with every receipt attached."
    assert a.assess(QUESTION, "thirty days", "Claims must be filed within 30 days of the expense date, see above.",
                    evidence=evidence) == 2
    assert load_assessor("offline", min_evidence_chars=30).min_evidence_chars == 30
    with pytest.raises(InputError, match="unknown assessor 'gpt'"):
        load_assessor("gpt")
    with pytest.raises(InputError, match="returned grade 5"):
        check_grade(5, "x")

    class Bad:
        def assess(self, *args, **kwargs):
            return "3"

    with pytest.raises(InputError, match="Bad returned grade '3'"):
        assess_items(_items(), Bad())


def test_the_protocol_runs_offline_end_to_end(golden, corpus):
    """A run of the sample's retriever, its retrieved pages graded by the offline assessor: unjudged items labelled,
    labelled items measuring it, the agreement shown, then the figures with assessed labels and PPI."""
    from rag_metrics.labels.judging_sheet import judging_sample

    result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), corpus, ks=(1, 3))
    items = assessment_items(result, k=3)
    # people judge a random sample of 30 questions completely; here the closed-world reading of the hand-written set
    # stands in for them: every retrieved page that is not gold is marked "no"
    sheet = judging_sample(result, 30, seed=0, k=3)
    sample = list(dict.fromkeys(sheet["question_id"]))
    judgments = sheet[sheet["doc_id"].notna()].assign(relevant=lambda t: t["gold"].astype(bool))
    human = human_labels(golden, judgments[["question_id", "doc_id", "page", "relevant"]].assign(source="sheet"))
    assessor = OfflineAssessor()
    labelled = items.merge(human[["question_id", "doc_id", "page"]], on=["question_id", "doc_id", "page"])
    measured = assess_items(labelled, assessor)  # to measure it: never used as labels
    labels = assess_items(items, assessor, human=human)  # the unjudged items only
    assert not set(zip(labels["question_id"], labels["doc_id"], labels["page"])) & \
        set(zip(human["question_id"], human["doc_id"], human["page"])), "assessed labels never cover a human label"
    agr = agreement(measured, human, assessor="offline")
    assert agr.n == len(labelled) and agr.kappa.low <= agr.kappa.kappa <= agr.kappa.high
    grades = pd.concat([measured, labels], ignore_index=True)
    figures = assessed_figures(result, grades, human, agr, k=3, force=not agr.usable, sample=sample)
    table = figures.table()
    assert list(table.index) == ["human labels only", "human-judged sample only", "assessed labels added",
                                 "prediction-powered (PPI)"]
    pq = figures.per_question
    assert pq["human"].equals(hit_with_pages(result, None, 3)), "no positive judgment: the report's own figure"
    assert (pq["human"] == result.evaluation.per_question.loc[pq.index, "hit@3"]).all()
    assert (pq["assessed_added"] >= pq["human"]).all(), "labels only added"
    assert int(pq["sampled"].sum()) == figures.ppi.n == 30
    assert table.loc["human-judged sample only", "questions"] == 30
    assert table.loc["prediction-powered (PPI)", "low"] <= figures.ppi.estimate <= table.loc["prediction-powered (PPI)",
                                                                                              "high"]
    without = assessed_figures(result, grades, human, agr, k=3, force=True)
    assert without.ppi is None and "prediction-powered (PPI)" not in without.table().index
    with pytest.raises(InputError, match="no prediction-powered figure"):
        without.headline(force=True)
    incomplete = [q for q in golden.answerable if q not in sample][:1]
    with pytest.raises(InputError, match=f"sampled question '{incomplete[0]}' is not judged completely"):
        assessed_figures(result, grades, human, agr, k=3, force=True, sample=sample + incomplete)


def test_a_refused_assessor_does_not_reach_the_figures(golden, corpus):
    result = evaluate_log(golden, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), corpus, ks=(3,))
    items = assessment_items(result)
    human = human_labels(golden)
    measured = assess_items(items[items["gold"]].head(5), OfflineAssessor())
    human = human.assign(relevant=[i % 2 == 0 for i in range(len(human))])
    agr = agreement(measured.assign(grade=[3, 0, 3, 0, 3]), human)
    assert not agr.usable
    with pytest.raises(InputError, match="refused: only 5 labelled items"):
        assessed_figures(result, measured, human, agr)


# ---- the command line ------------------------------------------------------------------------------------------

def test_the_command_line_measures_first_then_shows_the_figures(golden, tmp_path, capsys):
    from rag_metrics.cli import main

    log = data_dir() / "examples" / "bm25_c300o50.jsonl"
    inputs = ["--golden", str(data_dir() / "golden.jsonl"), "--pages", str(data_dir() / "corpus"), "--run", str(log)]
    base = ["labels", "assess", *inputs, "-k", "3", "-o", str(tmp_path / "a")]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "no compared item is labelled 'not relevant'" in out and "figures with assessed labels are not shown" in out
    assessed = [json.loads(line) for line in (tmp_path / "a" / "assessed.jsonl").read_text().splitlines()]
    assert assessed and {r["source"] for r in assessed} == {"assessed"}
    gold = set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"]))
    assert not {(r["question_id"], r["doc_id"], r["page"]) for r in assessed} & gold
    # people judge a random sample of questions completely (here: every page that is not gold is marked no)
    sheet = tmp_path / "sheet.csv"
    assert main(["labels", "sample", *inputs, "-n", "30", "-k", "3", "-o", str(sheet)]) == 0
    assert "30 questions drawn at random (seed 0)" in capsys.readouterr().out
    table = pd.read_csv(sheet, encoding="utf-8-sig", dtype=str, keep_default_na=False)
    blank = table[(table["doc_id"] != "") & (table["relevant"] == "")].index[0]
    table.to_csv(sheet, index=False, encoding="utf-8-sig")
    assert main(base + ["--sample", str(sheet)]) == 2, "an unjudged page in the sheet is an error"
    assert f"sheet.csv:{blank + 2}: question" in capsys.readouterr().err
    table.loc[(table["doc_id"] != "") & (table["relevant"] == ""), "relevant"] = "no"
    table.to_csv(sheet, index=False, encoding="utf-8-sig")
    assert main(base + ["--sample", str(sheet)]) == 0
    out = capsys.readouterr().out
    agreement_line = next(line for line in out.splitlines() if line.startswith("agreement with people"))
    assert out.index(agreement_line) < out.index("prediction-powered (PPI)"), "the agreement is shown first"
    assert "usable: kappa" in out and "human labels only" in out and "human-judged sample only" in out
    saved = json.loads((tmp_path / "a" / "agreement.json").read_text())
    assert saved["usable"] and saved["n"] >= 30


def test_the_command_line_estimates_an_llm_run_before_any_call(tmp_path, capsys):
    from rag_metrics.cli import main

    args = ["labels", "assess", "--golden", str(data_dir() / "golden.jsonl"), "--pages", str(data_dir() / "corpus"),
            "--run", str(data_dir() / "examples" / "bm25_c300o50.jsonl"), "-k", "2", "--assessor", "openai",
            "--option", "model=llama3.1:8b", "--option", "base_url=http://127.0.0.1:9/v1", "--cache",
            str(tmp_path / "cache"), "--dry-run", "--price-in", "0.15", "--price-out", "0.6"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "call(s) to make, 0 cached" in out and "cost $" in out and not (tmp_path / "a").exists()
    assert main(args[:-5] + ["--assessor", "nope"]) == 2
    assert "unknown assessor 'nope'" in capsys.readouterr().err


# ---- labels assess as plain steps (rag_metrics.labels.assess) ---------------------------------------------------

def _judgments_file(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_people_judgments_take_the_golden_sets_own_file_only_when_it_exists(tmp_path):
    from rag_metrics.labels.assess import people_judgments

    golden_path = tmp_path / "g.jsonl"
    assert people_judgments(golden_path) == (None, None), "no judgments file, no sheet: nobody judged"
    _judgments_file(tmp_path / "g.jsonl.judgments.jsonl",
                    [{"question_id": "q1", "doc_id": "d", "page": 2, "relevant": False}])
    found, sample = people_judgments(golden_path)
    assert sample is None and list(zip(found["doc_id"], found["page"], found["relevant"])) == [("d", 2, False)]
    other = _judgments_file(tmp_path / "other.jsonl", [{"question_id": "q1", "doc_id": "e", "page": 1,
                                                        "relevant": True}])
    found, _ = people_judgments(golden_path, judgments=other)
    assert list(found["doc_id"]) == ["e"], "a named file replaces the default one"
    with pytest.raises(InputError, match="missing.jsonl"):  # a named file must exist
        people_judgments(golden_path, judgments=tmp_path / "missing.jsonl")


def test_a_judging_sheet_wins_over_the_judgments_file_on_the_same_page(tmp_path, golden):
    from rag_metrics.labels.assess import people_judgments

    q = golden.answerable[0]
    _judgments_file(tmp_path / "g.jsonl.judgments.jsonl",
                    [{"question_id": q, "doc_id": "zz", "page": 7, "relevant": True},
                     {"question_id": q, "doc_id": "yy", "page": 1, "relevant": True}])
    sheet = tmp_path / "sheet.csv"
    pd.DataFrame({"question_id": [q], "doc_id": ["zz"], "page": [7], "relevant": ["no"]}).to_csv(sheet, index=False)
    found, sample = people_judgments(tmp_path / "g.jsonl", sheet=sheet, golden=golden)
    assert sample == [q]
    merged = {(d, p): r for d, p, r in zip(found["doc_id"], found["page"], found["relevant"])}
    assert merged == {("zz", 7): False, ("yy", 1): True}, "one row per page, the sheet's label kept"


def test_the_plan_marks_exactly_the_retrieved_pages_people_labelled(golden, corpus):
    from rag_metrics.labels.assess import plan_assessment

    log = load_log(data_dir() / "examples" / "bm25_c300o50.jsonl")
    plan = plan_assessment(golden, corpus, log, k=3)
    gold = set(zip(golden.gold_pages["question_id"], golden.gold_pages["doc_id"], golden.gold_pages["page"]))
    keys = list(zip(plan.items["question_id"], plan.items["doc_id"], plan.items["page"]))
    assert len(plan.labelled) == len(keys) and plan.labelled == [t in gold for t in keys]
    assert 0 < sum(plan.labelled) < len(keys)
    first_other = next(t for t, known in zip(keys, plan.labelled) if not known)
    judged = pd.DataFrame([dict(zip(["question_id", "doc_id", "page"], first_other), relevant=False)])
    again = plan_assessment(golden, corpus, log, k=3, judgments=judged)
    assert sum(again.labelled) == sum(plan.labelled) + keys.count(first_other), "a judgment labels its page too"
    assert plan_assessment(golden, corpus, log, k=1).items["question_id"].value_counts().max() <= \
        plan.items["question_id"].value_counts().max()


def test_assessed_figures_are_computed_only_for_a_usable_or_forced_assessor(golden, corpus):
    from rag_metrics.labels.assess import assess_plan, plan_assessment

    plan = plan_assessment(golden, corpus, load_log(data_dir() / "examples" / "bm25_c300o50.jsonl"), k=3)
    done = assess_plan(plan, OfflineAssessor(), name="offline")
    assert not done.agreement.usable and not done.shown and done.figures is None  # only gold pages labelled: refused
    assert len(done.measured) == sum(plan.labelled) and len(done.labels) == len(plan.items) - sum(plan.labelled)
    forced = assess_plan(plan, OfflineAssessor(), name="offline", force=True)
    assert forced.shown and "assessed labels added" in forced.figures.table().index


def test_an_llm_assessor_caches_in_the_default_folder_unless_an_option_names_one(tmp_path):
    client = _openai_client(lambda request: (200, openai_reply('{"grade": 0}'), None))
    assert load_assessor("openai", default_cache=tmp_path / "d", model="m", client=client).cache_dir == tmp_path / "d"
    named = load_assessor("openai", default_cache=tmp_path / "d", model="m", client=client, cache_dir=tmp_path / "o")
    assert named.cache_dir == tmp_path / "o", "an option naming the cache wins"
    assert load_assessor("openai", model="m", client=client).cache_dir is None
    assert isinstance(load_assessor("offline", default_cache=tmp_path / "d"), OfflineAssessor), "no cache offline"
