"""The LLM answer judges through the project's clients: OpenAI-compatible (httpx MockTransport) and Bedrock (botocore
Stubber) -- request shape, strict replies, cache, retries and the cost estimate before any call (issue 35)."""

import importlib
import json

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.llm.clients import BedrockClient, OpenAIClient
from rag_metrics.answers.support_llm import JUDGE_PROMPT_VERSION, LLMJudge, parse_correct, parse_support
from rag_metrics.answers.support import support_of_answer

PASSAGES = [{"rank": 1, "doc_id": "faq_ja", "page": 2,
             "text": "承認された経費は、翌月５日の給与と一緒に振り込まれます。"},
            {"rank": 2, "doc_id": "expense_policy", "page": 9,
             "text": "Approved claims are paid with the payroll run on the 5th day of the month following approval."}]


def _completion(content: str) -> dict:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1764460800, "model": "judge-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content, "refusal": None}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}}


def _openai_client(handler):
    import openai

    http = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])

    def respond(request):
        status, body, headers = handler(request)
        return http.Response(status, json=body, headers=headers or {})

    return openai.OpenAI(api_key="test-key", base_url="http://llm.test/v1", max_retries=0,
                         http_client=openai.DefaultHttpxClient(transport=http.MockTransport(respond)))


def test_parse_support_is_strict_on_the_shape_and_checks_the_quote():
    ok = parse_support('{"supported": true, "item": 2, "quote": "paid with the payroll run"}', PASSAGES)
    assert ok == {"supported": True, "passage": 2, "quote": "paid with the payroll run", "reason": "supported"}
    assert parse_support('{"supported": false, "item": null, "quote": ""}', PASSAGES)["supported"] is False
    # the quote compared after NFKC and with whitespace collapsed: half-width digits, a line break
    assert parse_support('{"supported": true, "item": 1, "quote": "翌月5日の\\n給与"}', PASSAGES)["supported"] is True
    # numbered wrongly, found in another passage of the context: that passage supports it
    assert parse_support('{"supported": true, "item": 1, "quote": "payroll run"}', PASSAGES)["passage"] == 2
    # a quote in no passage (made up, reworded) or none at all: not supported, not an error
    for reply, reason in [('{"supported": true, "item": 1, "quote": "翌月１０日"}', "not in the context"),
                          ('{"supported": true, "item": 7, "quote": "paid on the 10th"}', "not in the context"),
                          ('{"supported": true, "item": 1, "quote": " "}', "no quote")]:
        verdict = parse_support(reply, PASSAGES)
        assert verdict["supported"] is False and reason in verdict["reason"]
    for bad, message in [
        ("not json", "not JSON"),
        ('{"supported": true, "item": 1}', "exactly the keys"),
        ('{"supported": true, "item": 1, "span": "x"}', "exactly the keys"),
        ('{"supported": "yes", "item": 1, "quote": "x"}', "true or false"),
        ('{"supported": true, "item": true, "quote": "x"}', "passage number or null"),
        ('{"supported": true, "item": "1", "quote": "x"}', "passage number or null"),
        ('{"supported": true, "item": 1, "quote": 5}', "must be text"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_support(bad, PASSAGES)


def test_parse_correct_is_strict():
    assert parse_correct('{"correct": false, "reason": "10th, not 5th"}')["correct"] is False
    with pytest.raises(InputError):
        parse_correct('{"correct": 1, "reason": "x"}')
    with pytest.raises(InputError):
        parse_correct('{"correct": true}')


def test_openai_support_judge_request_cache_and_estimate(tmp_path):
    requests = []
    replies = iter([(429, {"error": {"message": "slow down"}}, {"retry-after": "2"}),
                    (200, _completion('{"supported": true, "item": 1, "quote": "翌月５日の給与と一緒に振り込まれます"}'), None)])

    def handler(request):
        requests.append(request)
        return next(replies)

    waits = []
    chat = OpenAIClient("judge-model", client=_openai_client(handler), backoff=0.5, sleep=waits.append)
    judge = LLMJudge(chat, cache_dir=tmp_path / "verdicts")
    claim = "経費は翌月5日に振り込まれます。"
    before = judge.estimate([("support", claim, PASSAGES)], price_in=1.0, price_out=2.0)
    assert before["calls"] == 1 and before["cached"] == 0 and before["input_tokens"] > 0 and not requests
    assert before["cost"] == pytest.approx(before["input_tokens"] / 1e6 + 60 * 2 / 1e6)
    verdict = judge.judge(claim, PASSAGES)
    assert verdict["supported"] is True and (verdict["doc_id"], verdict["page"], verdict["rank"]) == ("faq_ja", 2, 1)
    assert waits == [2.0] and judge.usage["retries"] == 1 and judge.usage["input_tokens"] == 120
    body = json.loads(requests[-1].content)
    assert body["temperature"] == 0.0 and body["response_format"] == {"type": "json_object"}
    assert claim in body["messages"][1]["content"] and PASSAGES[1]["text"] in body["messages"][1]["content"]
    # the cache answers a re-run: no request, same verdict, and the estimate counts it as cached
    assert judge.judge(claim, PASSAGES) == verdict and len(requests) == 2 and judge.usage["cached"] == 1
    assert judge.estimate([("support", claim, PASSAGES)])["calls"] == 0
    entry = json.loads(next((tmp_path / "verdicts").glob("*.json")).read_text(encoding="utf-8"))
    assert entry["prompt_version"] == JUDGE_PROMPT_VERSION


def test_a_malformed_reply_is_refused_and_not_cached(tmp_path):
    def handler(request):
        return 200, _completion('{"supported": "yes", "item": 1, "quote": "翌月５日"}'), None

    judge = LLMJudge(OpenAIClient("judge-model", client=_openai_client(handler)), cache_dir=tmp_path)
    with pytest.raises(InputError, match="true or false"):
        judge.judge("翌月10日に振り込まれます。", PASSAGES)
    assert not list(tmp_path.glob("*.json"))


def test_a_quote_not_in_the_context_is_no_support_end_to_end(tmp_path):
    requests = []

    def handler(request):
        requests.append(json.loads(request.content))
        return 200, _completion('{"supported": true, "item": 1, "quote": "経費は翌月10日に振り込まれます"}'), None

    judge = LLMJudge(OpenAIClient("judge-model", client=_openai_client(handler)), cache_dir=tmp_path)
    question = "経費はいつ振り込まれますか。"
    verdict = judge.judge("翌月10日です。", PASSAGES, question=question)
    assert verdict["supported"] is False and verdict["reason"] == "the judge's quote is not in the context"
    assert verdict["span"] == "経費は翌月10日に振り込まれます"
    user = requests[0]["messages"][1]["content"]
    assert user.startswith(f"Question: {question}\nClaim: 翌月10日です。") and "copied exactly" in \
        requests[0]["messages"][0]["content"]
    # a valid reply: cached with its task and prompt version, and the re-run gives the same verdict without a call
    entry = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    assert (entry["task"], entry["prompt_version"]) == ("support", JUDGE_PROMPT_VERSION)
    assert judge.judge("翌月10日です。", PASSAGES, question=question) == verdict and len(requests) == 1
    # the question is part of what is asked: without it, another request
    judge.judge("翌月10日です。", PASSAGES)
    assert len(requests) == 2 and not requests[1]["messages"][1]["content"].startswith("Question:")


def test_a_broken_cache_entry_is_named_removed_and_asked_again(tmp_path):
    calls = []

    def handler(request):
        calls.append(1)
        return 200, _completion('{"supported": false, "item": null, "quote": ""}'), None

    judge = LLMJudge(OpenAIClient("judge-model", client=_openai_client(handler)), cache_dir=tmp_path)
    judge.judge("Claims are paid on the 10th.", PASSAGES)
    path = next(tmp_path.glob("*.json"))
    path.write_text('{"reply": "{\\"supported\\": 1', encoding="utf-8")
    with pytest.warns(UserWarning, match="broken cache entry"):
        assert judge.judge("Claims are paid on the 10th.", PASSAGES)["supported"] is False
    assert len(calls) == 2 and judge.usage["broken_cache"] == 1 and json.loads(path.read_text("utf-8"))["reply"]


def test_llm_judge_plugs_into_claim_support_and_correctness():
    replies = iter(['{"supported": true, "item": 2, "quote": "on the 5th day of the month following approval"}',
                    '{"supported": false, "item": null, "quote": ""}',
                    '{"correct": false, "reason": "the 10th is not the 5th"}'])

    def handler(request):
        return 200, _completion(next(replies)), None

    judge = LLMJudge(OpenAIClient("judge-model", client=_openai_client(handler)))
    claims = support_of_answer("Claims are paid on the 5th day. Taxis are free.", PASSAGES, judge, question="When?")
    assert [c["supported"] for c in claims] == [True, False] and claims[0]["doc_id"] == "expense_policy"
    assert judge.correct("the 10th", "the 5th", "When?") == {"correct": False, "reason": "the 10th is not the 5th"}
    assert judge.judge("anything", [])["reason"] == "no context"


def test_bedrock_support_judge_with_stubber(tmp_path):
    import boto3
    from botocore.stub import ANY, Stubber

    client = boto3.client("bedrock-runtime", region_name="eu-west-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    stub = Stubber(client)
    chat = BedrockClient("anthropic.claude-3-5-haiku-20241022-v1:0", client=client, sleep=lambda s: None)
    judge = LLMJudge(chat, cache_dir=tmp_path)
    expected = {"modelId": chat.model, "system": ANY, "messages": ANY, "inferenceConfig": {"temperature": 0.0}}
    stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429,
                          expected_params=expected)
    stub.add_response("converse", {"output": {"message": {"role": "assistant", "content": [
        {"text": '{"supported": false, "item": null, "quote": ""}'}]}}, "stopReason": "end_turn",
        "usage": {"inputTokens": 90, "outputTokens": 12, "totalTokens": 102}, "metrics": {"latencyMs": 10}}, expected)
    with stub:
        verdict = judge.judge("Claims are paid on the 10th day of the month following approval.", PASSAGES)
        stub.assert_no_pending_responses()
    assert verdict["supported"] is False and judge.usage["retries"] == 1 and judge.usage["output_tokens"] == 12
    with stub:  # nothing queued: the cache answers
        assert judge.judge("Claims are paid on the 10th day of the month following approval.", PASSAGES) == verdict


def test_the_held_out_benchmark_measures_an_llm_judge_end_to_end(tmp_path, capsys):
    """benchmarks/support_heldout.py --judge openai, against a fake model (a client class answering in-process, as
    the stubs above do over HTTP) that quotes the first passage's opening words for a claim sharing a word with it and
    says "not supported" otherwise: the estimate first, every request answered once, the figures printed, and then
    every request in the cache."""
    import importlib.util
    import re
    from pathlib import Path

    from rag_metrics.llm.clients import ChatClient

    spec = importlib.util.spec_from_file_location(
        "support_heldout", Path(__file__).resolve().parents[1] / "benchmarks" / "support_heldout.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    asked = []

    class FakeModel(ChatClient):
        name, endpoint = "fake", "fake://judge"

        def _complete(self, system, user):
            asked.append(user)
            claim = re.search(r"^Claim: (.*)$", user, re.M).group(1)
            first = user.split("\n[1] ", 1)[1].split("\n", 1)[1].split("\n[2] ", 1)[0]
            shared = set(re.findall(r"\w{4,}", claim.lower())) & set(re.findall(r"\w{4,}", first.lower()))
            reply = {"supported": bool(shared), "item": 1 if shared else None, "quote": first[:12] if shared else ""}
            return json.dumps(reply, ensure_ascii=False), {"input_tokens": 100, "output_tokens": 20}

        def _retryable(self, error):
            return None, None

    real = bench.load_judge

    def load_judge(name, **options):
        if name != "openai":
            return real(name, **options)
        return LLMJudge(FakeModel(options.pop("model")), cache_dir=options["cache_dir"])

    bench.load_judge = load_judge
    argv = ["--judge", "openai", "--option", "model=fake", "--cache", str(tmp_path)]
    assert bench.main(argv + ["--dry-run"]) == 0 and not asked  # 513 over heldout2 and both development sets
    assert "'calls': 513, 'cached': 0, 'repeated': 141" in capsys.readouterr().out
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    assert len(asked) == 513 == len(set(asked)) and "| figure | judge: openai |" in out
    assert re.search(r"claim kappa \(held-out\) \| -?[01]\.\d{3} \[", out)
    assert any(u.startswith("Question: ") for u in asked)  # held-out claims are asked with their question
    assert bench.main(argv + ["--dry-run"]) == 0 and len(asked) == 513  # a re-run would be answered by the cache
    assert "'calls': 0, 'cached': 513" in capsys.readouterr().out
