"""Building a golden set: sampler, generators (offline and LLM through their clients' stubs), review, accept, CLI."""

from __future__ import annotations

import csv
import importlib
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_metrics.cli import main
from rag_metrics.core.errors import InputError
from rag_metrics.golden.generate import Draft, estimate_cost, generate_questions, read_draft, write_draft
from rag_metrics.golden.generators import ExtractiveGenerator, check_questions, load_generator
from rag_metrics.llm.page import Page
from rag_metrics.llm.clients import BedrockClient, OpenAIClient, RateLimited, estimate_tokens
from rag_metrics.llm.prompts import PROMPT_VERSION, MalformedResponse, parse_response, render_prompt
from rag_metrics.golden.flags import PATTERNS, flag_context_dependent, near_duplicates
from rag_metrics.golden.review import accept, find_span, review_html
from rag_metrics.golden.review_file import read_decisions, review_draft, write_review
from rag_metrics.golden.sampler import PageSample, page_size, read_sample, sample_pages, write_sample
from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.jsonl import write_jsonl
from rag_metrics.io.corpus import corpus_from_pages

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = load_corpus(sample=True)


def _pages(spec: dict[str, list[int]]) -> list[dict]:
    """Synthetic pages: ``{"doc": [size of body in characters per page]}``."""
    return [{"doc_id": doc, "page": i, "text": f"[p.{i}]\n# Heading\n" + "x" * n, "title": doc, "language": "en"}
            for doc, sizes in spec.items() for i, n in enumerate(sizes, start=1)]


# --- sampler ----------------------------------------------------------------------------------------------

def test_sample_is_seeded_distinct_and_per_document():
    a = sample_pages(CORPUS, 3, seed=7)
    b = sample_pages(CORPUS, 3, seed=7)
    pd.testing.assert_frame_equal(a.pages, b.pages)
    assert a.pages.groupby("doc_id").size().eq(3).all()
    assert not a.pages.duplicated(["doc_id", "page"]).any()
    others = {tuple(sample_pages(CORPUS, 3, seed=s).pages[["doc_id", "page"]].itertuples(index=False))
              for s in range(5)}
    assert len(others) > 1, "different seeds should draw different pages"


def test_sample_of_a_document_does_not_depend_on_the_others():
    pages = _pages({"a": [400] * 8, "b": [400] * 8})
    alone = sample_pages(_pages({"a": [400] * 8}), 3, seed=3).pages
    both = sample_pages(pages, 3, seed=3).pages
    assert list(both[both["doc_id"] == "a"]["page"]) == list(alone["page"])


def test_sample_prefers_longer_pages_in_proportion():
    # one document, a page of 300 and one of 900 weighted characters: drawn 1 in 4 and 3 in 4
    pages = _pages({"d": [300, 900]})
    n = 600  # binomial sd of the share 0.018: the bounds are 2.8 sd away (and the seeds are fixed)
    counts = Counter(int(sample_pages(pages, 1, seed=s, min_chars=1).pages["page"].iloc[0]) for s in range(n))
    assert 0.70 < counts[2] / n < 0.80, counts


def test_sample_eligibility_and_shortfalls():
    pages = _pages({"long": [500, 500, 500, 500], "short": [500, 50, 0], "none": [10, 20]})
    pages.append({"doc_id": "long", "page": 5, "text": "", "title": "long"})  # a page without text
    s = sample_pages(pages, 3, min_chars=200, seed=0)
    assert set(s.pages["doc_id"]) == {"long", "short"}
    assert (s.pages["size"] >= 200).all()
    short = s.shortfalls.set_index("doc_id")
    assert short.loc["short", "eligible"] == 1 and short.loc["short", "drawn"] == 1
    assert short.loc["none", "eligible"] == 0 and short.loc["none", "drawn"] == 0
    assert "long" not in short.index


def test_japanese_characters_weigh_three():
    assert page_size("[p.1]\n# 見出し\n規程") == 6
    assert page_size("abc def") == 7


def test_sample_refusals(tmp_path):
    with pytest.raises(InputError, match="no page to sample"):
        sample_pages([], 3)
    with pytest.raises(InputError, match="lower min_chars"):
        sample_pages(_pages({"d": [100, 150]}), 1, min_chars=1000)
    with pytest.raises(InputError, match="per_document"):
        sample_pages(CORPUS, 0)
    empty = tmp_path / "pages.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="pages.jsonl"):
        sample_pages(empty)


def test_sample_file_round_trip_and_errors(tmp_path):
    s = sample_pages(CORPUS, 2, seed=1)
    path = write_sample(s, tmp_path / "sample.jsonl")
    back = read_sample(path)
    pd.testing.assert_frame_equal(back.pages, s.pages)
    assert back.settings["seed"] == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc_id": "a", "page": 1, "text": "some text"}\n{"doc_id": "a", "page": 2, "text": "  "}\n',
                   encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: page 2 of 'a' has no text"):
        read_sample(bad)
    bad.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="file is empty; expected a page sample"):
        read_sample(bad)


# --- the extractive generator ------------------------------------------------------------------------------

def test_extractive_definitions_headings_procedures():
    gen = ExtractiveGenerator(n=4)
    en = Page("policy", 2, '[p.2]\n## 1.3 Definitions\n"Claimant" means the employee who paid the expense. Other text.\n'
                           "## 2.1 Submitting a claim\nUse the expense system. Attach receipts.\n")
    got = gen(en)
    assert got[0]["question"] == 'What does "Claimant" mean?' and got[0]["answer"] == "the employee who paid the expense"
    assert got[0]["type"] == "definition"
    assert {"type": "procedure", "question": "What is the procedure for submitting a claim?"}.items() <= got[1].items()
    ja = Page("faq", 1, "[p.1]\n## Q4 経費はいつ振り込まれますか\n承認された経費は、翌月５日に振り込まれます。\n"
                        "## 1.2 用語\n「発注者」とは購入を依頼する従業員をいう。\n", language="ja")
    got = gen(ja)
    assert got[0] == {**got[0], "question": "「発注者」とは何ですか。", "answer": "購入を依頼する従業員", "type": "definition"}
    assert got[1]["question"] == "経費はいつ振り込まれますか？" and got[1]["answer"].startswith("承認された経費")


def test_extractive_answers_and_spans_come_from_their_page():
    gen = ExtractiveGenerator(n=6)
    total = 0
    for row in CORPUS.pages.to_dict("records"):
        page = Page(row["doc_id"], int(row["page"]), row["text"], language=row["language"])
        for q in check_questions(gen(page), page):
            total += 1
            assert page.text[q["evidence_start"]:q["evidence_end"]] == q["evidence"], q
            assert q["answer"] in q["evidence"], q
    assert total > 150, "the extractive generator should find questions on most sample pages"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(list("ab #\n.。「」とは」をいう?？Q1") + ["## ", '"X" means ', "[p.2]"]), max_size=80)
       .map("".join))
def test_extractive_never_fails_and_spans_hold(text):
    page = Page("d", 1, text)
    for q in check_questions(ExtractiveGenerator(n=3)(page), page):
        assert text[q["evidence_start"]:q["evidence_end"]] == q["evidence"]


# --- generator protocol, runner, loader -----------------------------------------------------------------------

def _sample(n_docs=2, per=2) -> PageSample:
    return sample_pages(CORPUS.pages[CORPUS.pages["doc_id"].isin(CORPUS.documents.index[:n_docs])], per, seed=0)


def test_failures_are_recorded_per_page_and_the_run_goes_on(tmp_path):
    sample = _sample()
    first = sample.pages.iloc[0]

    def flaky(page):
        if (page.doc_id, page.page) == (first["doc_id"], first["page"]):
            raise RuntimeError("service down")
        if page.page % 2 == 0:
            return [{"question": "", "type": "fact", "answer": None}]  # malformed: empty question
        return [{"question": f"What is on page {page.page}?", "type": "fact", "answer": None}]

    draft = generate_questions(sample, flaky, workers=3)
    failed = {(r["doc_id"], r["page"]): r["error"] for r in draft.failures.to_dict("records")}
    assert failed[first["doc_id"], first["page"]] == "RuntimeError: service down"
    malformed = {(d, p) for d, p in zip(sample.pages["doc_id"], sample.pages["page"])
                 if p % 2 == 0 and (d, p) != (first["doc_id"], first["page"])}
    assert malformed  # the seeded sample has even pages: the malformed-answer path is exercised, not skipped
    assert set(failed) == malformed | {(first["doc_id"], first["page"])}
    assert all("'question' must be a non-empty string" in failed[key] for key in malformed)
    ok = len(sample) - len(failed)
    assert len(draft) == ok and draft.info["failed_pages"] == len(failed)
    path = write_draft(draft, tmp_path / "draft.jsonl")
    errors = tmp_path / "draft.errors.jsonl"
    assert errors.is_file() and len(errors.read_text(encoding="utf-8").splitlines()) == len(failed)
    assert read_draft(path).failures.shape[0] == len(failed)


def test_question_ids_are_stable_whatever_the_order(tmp_path):
    sample = _sample(3, 3)
    a = generate_questions(sample, ExtractiveGenerator(), workers=1)
    b = generate_questions(sample, ExtractiveGenerator(), workers=8)
    pd.testing.assert_frame_equal(a.questions, b.questions)
    assert a.questions["question_id"].is_unique
    assert a.questions["question_id"].str.fullmatch(r".+-p\d+-q\d").all()


@pytest.mark.parametrize("output, message", [
    ("not a list", "returned str, expected a list"),
    ([1], "question 1 is int"),
    ([{"question": "q?", "type": 3}], "'type' must be a string"),
    ([{"question": "q?", "answer": 5}], "'answer' must be a string or None"),
    ([{"question": "q?", "evidence_start": 0}], "both evidence_start and evidence_end"),
    ([{"question": "q?", "evidence_start": 0, "evidence_end": 999}], "not a span of the page text"),
])
def test_generator_output_is_checked(output, message):
    with pytest.raises(InputError, match=message):
        check_questions(output, Page("d", 3, "short text"))


def test_load_generator():
    assert isinstance(load_generator("extractive", n=1), ExtractiveGenerator)
    assert isinstance(load_generator("rag_metrics.golden.generators:ExtractiveGenerator", n=3), ExtractiveGenerator)
    with pytest.raises(InputError, match="unknown generator 'gpt'"):
        load_generator("gpt")
    with pytest.raises(InputError, match="cannot import"):
        load_generator("no_such_module_xyz:gen")
    with pytest.raises(InputError, match="has no attribute"):
        load_generator("rag_metrics.golden.generators:nothing")
    with pytest.raises(InputError, match="is not a class"):
        load_generator("rag_metrics.golden.generators:check_questions", n=2)


# --- prompt and strict parsing ------------------------------------------------------------------------------------

def test_prompt_is_versioned_and_in_the_page_language():
    system, user = render_prompt("PAGE TEXT", n=2, language="en")
    assert "PAGE TEXT" in user and "JSON" in system and "2 questions" in user
    _, ja = render_prompt("本文", n=2, language="ja")
    assert "本文" in ja and "2個" in ja
    assert PROMPT_VERSION == "golden-v1"


VALID = '{"questions": [{"question": "Q?", "type": "definition", "answer": "A", "evidence": "E"}]}'


@pytest.mark.parametrize("reply, message", [
    ("", "empty reply"),
    ("Sure! " + VALID, "not JSON"),
    (VALID + " Hope this helps", "not JSON"),
    ('{"questions": [{"question": "Q?", "type": "definition", "answer": NaN}]}', "not JSON"),
    ('[{"question": "Q?"}]', 'expected an object {"questions"'),
    ('{"questions": []}', "expected 1 to 2 questions, got 0"),
    ('{"questions": [' + ",".join(['{"question": "Q?", "type": "fact", "answer": "A"}'] * 3) + "]}", "got 3"),
    ('{"questions": [{"question": "Q?", "type": "opinion", "answer": "A"}]}', "'type' must be one of"),
    ('{"questions": [{"question": " ", "type": "fact", "answer": "A"}]}', "'question' must be a non-empty"),
    ('{"questions": [{"question": "Q?", "type": "fact", "answer": "A", "evidence": 3}]}', "'evidence' must be"),
])
def test_parse_response_is_strict(reply, message):
    with pytest.raises(MalformedResponse, match=message):
        parse_response(reply, n=2)


def test_parse_response_accepts_the_json_and_one_fence():
    assert parse_response(VALID)[0] == {"question": "Q?", "type": "definition", "answer": "A", "evidence": "E"}
    assert parse_response("```json\n" + VALID + "\n```") == parse_response(VALID)


def test_token_estimate():
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("規程") == 2
    assert estimate_tokens("規程abcde") == 4


# --- the OpenAI-compatible generator, through httpx's MockTransport ----------------------------------------------

RECORDED_OPENAI = json.loads((FIXTURES / "llm" / "openai_chat_completion.json").read_text(encoding="utf-8"))
EXPENSE_P2 = Page("expense_policy", 2, CORPUS.page_text("expense_policy", 2), "Expense Reimbursement Policy",
                  language="en")


def _openai_client(handler):
    import openai

    # the HTTP library the installed openai client is built on (httpx, or its fork httpx2)
    http = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])

    def respond(request):
        status, body, headers = handler(request)
        return http.Response(status, json=body, headers=headers or {})

    return openai.OpenAI(api_key="test-key", base_url="http://llm.test/v1", max_retries=0,
                         http_client=openai.DefaultHttpxClient(transport=http.MockTransport(respond)))


def test_openai_request_shape_parsing_and_cache(tmp_path):
    requests = []

    def handler(request):
        requests.append(request)
        return 200, RECORDED_OPENAI, None

    gen = OpenAIClient("gpt-4o-mini", client=_openai_client(handler), cache_dir=tmp_path / "cache")
    questions = gen(EXPENSE_P2)
    assert [q["type"] for q in questions] == ["definition", "reason"]
    assert questions[0]["answer"].startswith("an itemised proof of payment")
    (request,) = requests
    assert request.method == "POST" and request.url.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer test-key"
    body = json.loads(request.content)
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert EXPENSE_P2.text in body["messages"][1]["content"]
    assert gen.usage["calls"] == 1 and gen.usage["input_tokens"] == 412 and gen.usage["output_tokens"] == 118
    # a second generator on the same cache: no request, same questions
    again = OpenAIClient("gpt-4o-mini", client=_openai_client(handler), cache_dir=tmp_path / "cache")
    assert again(EXPENSE_P2) == questions and len(requests) == 1 and again.usage["cached"] == 1
    # another model is another cache key
    other = OpenAIClient("llama3.1:8b", client=_openai_client(handler), cache_dir=tmp_path / "cache")
    other(EXPENSE_P2)
    assert len(requests) == 2


def test_openai_retries_a_rate_limit_then_succeeds():
    replies = [(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
                {"retry-after-ms": "1500"}), (200, RECORDED_OPENAI, None)]
    waits = []
    gen = OpenAIClient("gpt-4o-mini", client=_openai_client(lambda request: replies.pop(0)), backoff=0.25,
                          sleep=waits.append)
    assert len(gen(EXPENSE_P2)) == 2
    assert waits == [1.5], "the server's retry-after (1.5 s) is longer than the backoff (0.25 s)"
    assert gen.usage["retries"] == 1 and gen.usage["calls"] == 1


def test_openai_rate_limit_that_persists_fails_the_page_only(tmp_path):
    limit = (429, {"error": {"message": "Rate limit reached", "type": "requests"}}, None)
    calls = []

    def handler(request):
        calls.append(1)
        return limit

    gen = OpenAIClient("m", client=_openai_client(handler), retries=2, backoff=0.0, sleep=lambda s: None,
                          cache_dir=tmp_path)
    with pytest.raises(RateLimited, match="rate limited after 3 attempt"):
        gen(EXPENSE_P2)
    assert len(calls) == 3
    draft = generate_questions(_sample(1, 1), gen, workers=1)
    assert len(draft) == 0 and "RateLimited: rate limited after 3 attempt" in draft.failures["error"].iloc[0]
    assert not list(tmp_path.glob("*.json")), "a failure is not cached"


def test_openai_malformed_reply_fails_the_page_and_is_not_cached(tmp_path):
    bad = {**RECORDED_OPENAI, "choices": [{**RECORDED_OPENAI["choices"][0],
                                           "message": {"role": "assistant", "content": "Here are questions: 1. ..."}}]}
    gen = OpenAIClient("m", client=_openai_client(lambda r: (200, bad, None)), cache_dir=tmp_path)
    draft = generate_questions(_sample(1, 2), gen, workers=2)
    assert len(draft.failures) == 2 and draft.failures["error"].str.contains("MalformedResponse").all()
    assert not list(tmp_path.glob("*.json"))


def test_openai_cost_estimate_before_any_call(tmp_path):
    calls = []
    gen = OpenAIClient("m", client=_openai_client(lambda r: calls.append(r) or (200, RECORDED_OPENAI, None)),
                          cache_dir=tmp_path)
    sample = _sample(2, 3)
    est = estimate_cost(sample, gen, price_in=0.15, price_out=0.60)
    assert est["calls"] == 6 and est["cached"] == 0 and not calls
    pages = [Page(r["doc_id"], r["page"], r["text"], r["title"], r["genre"], r["language"])
             for r in sample.pages.to_dict("records")]
    expected_in = sum(estimate_tokens(m) for p in pages for m in gen.messages(p))
    assert est["input_tokens"] == expected_in and est["output_tokens"] == 6 * 2 * 80
    assert est["cost"] == pytest.approx(expected_in * 0.15e-6 + 960 * 0.60e-6)
    gen(pages[0])
    after = estimate_cost(sample, gen, price_in=0.15, price_out=0.60)
    assert after["calls"] == 5 and after["cached"] == 1
    assert estimate_cost(sample, gen)["cost"] is None
    assert estimate_cost(sample, ExtractiveGenerator())["calls"] == 0


def test_openai_needs_a_key_or_a_local_server(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        OpenAIClient("gpt-4o-mini")
    local = OpenAIClient("llama3.1:8b", base_url="http://localhost:11434/v1")
    assert "localhost:11434" in local.endpoint
    with pytest.raises(InputError, match="a model is required"):
        OpenAIClient("", base_url="http://localhost:11434/v1")


# --- the Bedrock generator, through botocore's Stubber -------------------------------------------------------------

RECORDED_BEDROCK = json.loads((FIXTURES / "llm" / "bedrock_converse.json").read_text(encoding="utf-8"))
FAQ_P2 = Page("faq_ja", 2, CORPUS.page_text("faq_ja", 2), "社内FAQ", language="ja")


def _bedrock():
    import boto3
    from botocore.stub import Stubber

    client = boto3.client("bedrock-runtime", region_name="eu-west-1", aws_access_key_id="test",
                          aws_secret_access_key="test")
    return client, Stubber(client)


def test_bedrock_request_shape_parsing_retry_and_cache(tmp_path):
    client, stub = _bedrock()
    model = "anthropic.claude-3-5-haiku-20241022-v1:0"
    gen = BedrockClient(model, client=client, cache_dir=tmp_path, backoff=0.5, sleep=(waits := []).append)
    system, user = gen.messages(FAQ_P2)
    assert "日本語" not in system and "社内文書" in system, "a Japanese page gets the Japanese prompt"
    expected = {"modelId": model, "system": [{"text": system}],
                "messages": [{"role": "user", "content": [{"text": user}]}], "inferenceConfig": {"temperature": 0.0}}
    stub.add_client_error("converse", service_error_code="ThrottlingException", service_message="Too many requests",
                          http_status_code=429, expected_params=expected)
    stub.add_response("converse", RECORDED_BEDROCK, expected)
    with stub:
        questions = gen(FAQ_P2)
        stub.assert_no_pending_responses()
    assert [q["type"] for q in questions] == ["definition", "procedure"]
    assert waits == [0.5] and gen.usage["retries"] == 1
    assert gen.usage["input_tokens"] == 388 and gen.usage["output_tokens"] == 131
    with stub:  # no response queued: a call would fail; the cache answers
        assert BedrockClient(model, client=client, cache_dir=tmp_path)(FAQ_P2) == questions


def test_bedrock_throttling_that_persists_and_other_errors():
    client, stub = _bedrock()
    gen = BedrockClient("m", client=client, retries=1, backoff=0, sleep=lambda s: None)
    for _ in range(2):
        stub.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    stub.add_client_error("converse", service_error_code="ValidationException", service_message="bad model",
                          http_status_code=400)
    with stub:
        with pytest.raises(RateLimited, match="after 2 attempt"):
            gen(FAQ_P2)
        from botocore.exceptions import ClientError

        with pytest.raises(ClientError, match="ValidationException"):
            gen(FAQ_P2)  # not retried
    truncated = {**RECORDED_BEDROCK, "stopReason": "max_tokens"}
    stub.add_response("converse", truncated)
    with stub, pytest.raises(InputError, match="cut off"):
        gen(FAQ_P2)


# --- review ----------------------------------------------------------------------------------------------------

# (pattern name, language) -> (a question the rule flags, a question it leaves alone)
EXAMPLES = {
    ("points_at_page", "en"): ("What exit code does this script return?", "What exit code does the backup job return?"),
    ("above_below", "en"): ("Which of the above applies to interns?", "Who approves claims above 500 EUR?"),
    ("here", "en"): ("What does 'base' mean here?", "Where is the nearest office?"),
    ("quoted_expression", "en"): ('What does the expression "defence base" mean?', 'What does "Claimant" mean?'),
    ("numbered_reference", "en"): ("What does Table 2 list?", "How many pages can I print per day?"),
    ("according_to_the_document", "en"): ("According to the text, who signs?", "According to HR, who signs?"),
    ("the_author", "en"): ("What does the author recommend?", "Who authorizes a refund?"),
    ("pronoun_without_antecedent", "en"): ("What does it say about refunds?", "This year, how many leave days do I get?"),
    ("points_at_page", "ja"): ("このスクリプトの終了コードは何ですか。", "当社の有給休暇は何日ですか。"),
    ("above_below", "ja"): ("上記の条件を満たすのは誰ですか。", "3万円以下の経費は誰が承認しますか。"),
    ("here", "ja"): ("ここでいう拠点とは何ですか。", "ここ数年で規程は変わりましたか。"),
    ("quoted_expression", "ja"): ("「防衛拠点」という表現は何を意味しますか。", "「発注者」とは誰ですか。"),
    ("numbered_reference", "ja"): ("第5条で禁止されている行為は何ですか。", "ホームページのURLは何ですか。"),
    ("the_author", "ja"): ("筆者が勧めている方法は何ですか。", "申請者は誰に提出しますか。"),
    ("pronoun_without_antecedent", "ja"): ("その理由は何ですか。", "経費はいつ振り込まれますか。"),
}


@pytest.mark.parametrize("name, language", [(p.name, p.language) for p in PATTERNS])
def test_every_pattern_has_a_positive_and_a_negative_example(name, language):
    positive, negative = EXAMPLES[name, language]
    pattern = next(p for p in PATTERNS if (p.name, p.language) == (name, language))
    assert pattern.regex.search(positive), f"{name}/{language} should flag {positive!r}"
    assert flag_context_dependent(positive), positive
    assert not flag_context_dependent(negative), (negative, flag_context_dependent(negative))


def test_names_the_document_and_answer_on_page():
    assert flag_context_dependent("Under the Expense Reimbursement Policy, who approves?",
                                  title="Expense Reimbursement Policy")
    assert flag_context_dependent("What does the travel policy say about taxis?", doc_id="travel_policy")
    assert not flag_context_dependent("What does the policy say about taxis?", doc_id="travel_policy",
                                      title="Business Travel Policy")
    assert flag_context_dependent("オンボーディングガイドでは面談は何回ですか。", title="新入社員オンボーディングガイド")
    assert not flag_context_dependent("Lumoクラウドの料金はいくらですか。", title="Lumoクラウドサービス利用規約")
    text = "[p.3]\nClaims are paid within ３０ days."
    assert not flag_context_dependent("When?", page_text=text, answer="within 30 DAYS", extractive=True)
    assert flag_context_dependent("When?", page_text=text, answer="within 60 days", extractive=True) == \
        ["the answer does not occur on its page"]
    assert flag_context_dependent("When?", page_text=text, answer="a paraphrase", evidence="Not on the page.") == \
        ["the quoted evidence does not occur on its page"]


def test_hand_made_context_dependent_questions():
    rows = [json.loads(line) for line in (FIXTURES / "context_dependent_questions.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) >= 20 and {r["language"] for r in rows} == {"en", "ja"}
    assert sum(r["language"] == "ja" for r in rows) >= 10 and sum(r["language"] == "en" for r in rows) >= 10
    for r in rows:  # `caught` records what the detector does today, misses included (they are documented)
        flags = flag_context_dependent(r["question"], title=r.get("title"))
        assert bool(flags) == r["caught"], (r["question"], flags)


def test_the_hand_written_golden_set_is_almost_never_flagged():
    golden = load_golden(sample=True)
    flagged = []
    for qid, row in golden.questions.iterrows():
        docs = golden.gold_pages.loc[golden.gold_pages["question_id"] == qid, "doc_id"].unique()
        for doc in docs:
            if flag_context_dependent(row["question"], title=CORPUS.documents.at[doc, "title"], doc_id=doc):
                flagged.append(qid)
    # the two that name their document ("under the expense policy"): the rule is meant to catch them
    assert sorted(set(flagged)) == ["q011", "q012"]


def test_near_duplicates():
    qs = ["When are expenses paid out?", "When are expenses paid?", "Who approves travel?", "経費はいつ振り込まれますか",
          "経費はいつ振り込まれますか？"]
    pairs = {(i, j) for i, j, _ in near_duplicates(qs, 0.7)}
    assert pairs == {(0, 1), (3, 4)}
    with pytest.raises(InputError):
        near_duplicates(qs, 0)


def _draft_and_sample():
    sample = sample_pages(CORPUS, 3, seed=0)
    return generate_questions(sample, ExtractiveGenerator()), sample


def test_review_flags_and_prefills(tmp_path):
    draft, sample = _draft_and_sample()
    dup = draft.questions.iloc[[0]].assign(question_id="dup-1")
    draft = Draft(pd.concat([draft.questions, dup], ignore_index=True), draft.failures, draft.info)
    review = review_draft(draft, sample)
    flagged = review.set_index("question_id")
    assert flagged.loc["dup-1", "decision"] == "drop"
    assert "near-duplicate of" in flagged.loc["dup-1", "reasons"]
    assert flagged.loc["it_security-p1-q1", "reasons"] == "points at the page: 'this guide'"
    assert (review["decision"] == "drop").eq(review["reasons"] != "").all()
    for name in ("review.csv", "review.jsonl"):
        path = write_review(review, tmp_path / name)
        back = read_decisions(path)
        assert list(back["decision"]) == list(review["decision"])
    assert (tmp_path / "review.csv").read_bytes().startswith(b"\xef\xbb\xbf"), "a BOM, for spreadsheet programs"


def test_review_html_escapes_and_highlights():
    draft, sample = _draft_and_sample()
    q = draft.questions.copy()
    q.loc[0, "question"] = "<script>alert(1)</script> what?"
    draft = Draft(q, draft.failures, draft.info)
    html = review_html(review_draft(draft, sample), draft, sample)
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    first = q.iloc[0]
    assert f"<mark>{first['answer']}</mark>" in html


def test_the_review_page_shows_dropped_questions_first_each_part_in_review_order():
    draft, sample = _draft_and_sample()
    review = review_draft(draft, sample)
    html = review_html(review, draft, sample)
    ids = list(review["question_id"])
    where = {q: re.search(rf"(?<![\w-]){re.escape(q)}(?![\w-])", html).start() for q in ids}
    dropped = [q for q, d in zip(ids, review["decision"]) if d == "drop"]
    kept = [q for q, d in zip(ids, review["decision"]) if d != "drop"]
    assert dropped and kept
    assert sorted(ids, key=where.get) == dropped + kept


def test_review_page_opens_with_counts_and_the_pages_that_gave_none():
    from rag_metrics.golden.review import pages_without_questions

    draft, sample = _draft_and_sample()
    asked = set(zip(draft.questions["doc_id"], draft.questions["page"]))
    sampled = list(zip(sample.pages["doc_id"], sample.pages["page"]))
    keep = draft.questions[draft.questions["doc_id"] + draft.questions["page"].astype(str) !=
                           sampled[0][0] + str(sampled[0][1])]  # the first sampled page now gives none
    failures = pd.DataFrame([{"doc_id": sampled[-1][0], "page": sampled[-1][1], "error": "TimeoutError: <slow>"}])
    keep = keep[keep["doc_id"] + keep["page"].astype(str) != sampled[-1][0] + str(sampled[-1][1])]
    draft = Draft(keep.reset_index(drop=True), failures, draft.info)
    got = pages_without_questions(draft, sample)
    none = [(d, p) for d, p in sampled if (d, p) not in set(zip(keep["doc_id"], keep["page"]))]
    assert got["sampled"] == len(sampled) and got["written"] == len(keep) and [x[:2] for x in got["pages"]] == none
    assert (sampled[-1][0], sampled[-1][1], "failed: TimeoutError: <slow>") in got["pages"]
    assert (sampled[0][0], sampled[0][1], "the generator wrote no question") in got["pages"]
    assert len(none) >= 2 and len(asked) >= len(none)
    html = review_html(review_draft(draft, sample), draft, sample)
    head = html.split('<div class="item', 1)[0]
    assert (f"<strong>{len(sampled)}</strong> pages sampled · <strong>{len(keep)}</strong> questions written · "
            f"<strong>{len(none)}</strong> pages gave none") in head
    assert "TimeoutError: &lt;slow&gt;" in head and not re.search(r"\b1 (questions|pages)\b", html)


def test_find_span():
    text = "Claims are paid within ３０ days,\n  every month."
    assert find_span(text, "paid within") == (11, 22)
    assert find_span(text, "CLAIMS") == (0, 6)
    s, e = find_span(text, "within 30 days, every month")
    assert text[s:e] == "within ３０ days,\n  every month"
    assert find_span(text, "nowhere") is None


def _review_file(tmp_path, rows, fields=("question_id", "decision", "question", "answer")):
    path = tmp_path / "decisions.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(fields))
        w.writeheader()
        w.writerows(rows)
    return path


def test_accept_writes_a_valid_golden_set_with_provenance(tmp_path):
    draft, sample = _draft_and_sample()
    review = review_draft(draft, sample)
    review.loc[review.index[0], "decision"] = "drop"
    # the second, a heading template ("What are the rules on deadline?"), rewritten the way a user asks and kept
    review.loc[review.index[1], ["question", "decision"]] = ["What must a claim include?", "keep"]
    path = write_review(review, tmp_path / "review.csv")
    golden, out = accept(draft, read_decisions(path), tmp_path / "golden.jsonl", corpus=CORPUS)
    kept = review[review["decision"] == "keep"]
    assert list(golden.questions.index) == list(kept["question_id"])
    rec = json.loads((tmp_path / "golden.jsonl").read_text("utf-8").splitlines()[0])
    assert rec["question"] == "What must a claim include?" and rec["provenance"]["edited"] is True
    assert rec["provenance"] == {**rec["provenance"], "generator": "extractive", "seed": 0, "reviewed": True}
    assert rec["gold_pages"] == [[rec["provenance"]["doc_id"], rec["provenance"]["page"]]]
    meta = json.loads(Path(str(out) + ".meta.json").read_text("utf-8"))
    assert meta["fingerprint"] == load_golden(out).fingerprint() and meta["edited"] == 1
    assert meta["dropped"] == int((review["decision"] == "drop").sum())


def test_accept_refusals(tmp_path):
    draft, _ = _draft_and_sample()
    ids = list(draft.questions["question_id"])
    every = [{"question_id": q, "decision": "keep"} for q in ids]
    with pytest.raises(InputError, match=r"decisions.csv:3: question .*decision ''"):
        read_decisions(_review_file(tmp_path, [every[0], {**every[1], "decision": ""}]))
    with pytest.raises(InputError, match="decision 'maybe'"):
        read_decisions(_review_file(tmp_path, [{**every[0], "decision": "maybe"}]))
    with pytest.raises(InputError, match="listed twice"):
        read_decisions(_review_file(tmp_path, [every[0], every[0]]))
    with pytest.raises(InputError, match=r"missing column\(s\) \['decision'\]"):
        read_decisions(_review_file(tmp_path, [{"question_id": ids[0]}], fields=("question_id",)))
    with pytest.raises(InputError, match="has no decision"):
        accept(draft, read_decisions(_review_file(tmp_path, every[:-1])), tmp_path / "g.jsonl")
    with pytest.raises(InputError, match="'nope' is not in the draft"):
        accept(draft, read_decisions(_review_file(tmp_path, every + [{"question_id": "nope", "decision": "keep"}])),
               tmp_path / "g.jsonl")
    with pytest.raises(InputError, match="every question was dropped"):
        accept(draft, read_decisions(_review_file(tmp_path, [{**r, "decision": "DROP"} for r in every])),
               tmp_path / "g.jsonl")


def test_read_draft_errors(tmp_path):
    path = tmp_path / "draft.jsonl"
    write_jsonl([{"question_id": "a", "question": "Q?", "doc_id": "d", "page": 1},
                 {"question_id": "a", "question": "Q?", "doc_id": "d", "page": 2}], path)
    with pytest.raises(InputError, match=r"draft.jsonl:2: question 'a' is listed twice"):
        read_draft(path)
    write_jsonl([{"question_id": "a", "question": "Q?", "doc_id": "d", "page": 0}], path)
    with pytest.raises(InputError, match=r"draft.jsonl:1: question 'a': page 0"):
        read_draft(path)


# --- the command line ----------------------------------------------------------------------------------------------

def test_cli_builds_a_golden_set_offline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["golden", "sample", "--pages", str(CORPUS.source), "--seed", "2"]) == 0
    assert main(["golden", "generate", "--no-progress"]) == 0
    assert main(["golden", "review"]) == 0
    assert main(["golden", "accept"]) == 0
    out = capsys.readouterr().out
    work = tmp_path / "golden-work"
    assert {p.name for p in work.iterdir()} >= {"sample.jsonl", "draft.jsonl", "review.csv", "review.html",
                                                 "golden.jsonl", "golden.jsonl.meta.json"}
    golden = load_golden(work / "golden.jsonl", corpus=CORPUS)
    assert f"fingerprint {golden.fingerprint()}" in out
    assert "makes no call and costs nothing" in out


def test_cli_dry_run_prints_the_cost_and_calls_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["golden", "sample", "--pages", str(CORPUS.source), "--per-document", "2"]) == 0
    # base_url points at a closed port: any call would fail; a dry run makes none
    code = main(["golden", "generate", "--generator", "openai", "--option", "model=gpt-4o-mini", "--option",
                 "base_url=http://127.0.0.1:9/v1", "--dry-run", "--price-in", "0.15", "--price-out", "0.6"])
    out = capsys.readouterr().out
    assert code == 0 and "16 pages: 16 call(s) to make, 0 cached; estimated" in out and "cost $0.00" in out
    assert not (tmp_path / "golden-work" / "draft.jsonl").exists()


def test_cli_errors_name_what_is_wrong(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["golden", "generate", "--sample", "missing.jsonl"]) == 2
    assert "missing.jsonl: file not found" in capsys.readouterr().err
    main(["golden", "sample", "--pages", str(CORPUS.source)])
    assert main(["golden", "generate", "--generator", "gpt5"]) == 2
    assert "unknown generator 'gpt5'" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    assert main(["golden", "sample", "--pages", "empty.jsonl"]) == 2
    assert "empty.jsonl" in capsys.readouterr().err


def test_cli_generate_reports_failed_pages(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flaky_gen.py").write_text(
        "def generate(page):\n"
        "    if page.page % 2:\n"
        "        raise ValueError('model returned nonsense')\n"
        "    return [{'question': 'What is on page %d?' % page.page, 'type': 'fact', 'answer': None}]\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    main(["golden", "sample", "--pages", str(CORPUS.source)])
    sample = read_sample(tmp_path / "golden-work" / "sample.jsonl")
    odd = int((sample.pages["page"] % 2 == 1).sum())
    code = main(["golden", "generate", "--generator", "flaky_gen:generate", "--no-progress"])
    captured = capsys.readouterr()
    assert code == (0 if odd < len(sample) else 1)
    assert f"{odd} page(s) failed, recorded in golden-work/draft.errors.jsonl" in captured.err
    assert "ValueError: model returned nonsense" in captured.err


# --- the limits of a generated set, and a reported cost beside an estimate --------------------------------------

def test_answered_elsewhere_finds_other_documents_holding_the_answer():
    from rag_metrics.golden.review import answered_elsewhere
    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.io.golden import golden_from_records

    corpus = corpus_from_pages([
        {"doc_id": "policy", "page": 1, "text": "Approved claims are paid with the salary on the fifth."},
        {"doc_id": "policy", "page": 2, "text": "Approved claims are paid with the salary on the fifth, again."},
        {"doc_id": "faq", "page": 1, "text": "Approved claims are paid with the salary on the fifth."},
        {"doc_id": "guide", "page": 1, "text": "Claims are paid monthly."},
    ])
    rows = [{"question_id": "q1", "question": "When?", "type": "fact", "gold_docs": ["policy"],
             "gold_pages": [["policy", 1]], "answer": "Approved claims are paid with the salary on the fifth."},
            {"question_id": "q2", "question": "Short?", "type": "fact", "gold_docs": ["guide"],
             "gold_pages": [["guide", 1]], "answer": "Monthly."}]
    golden = golden_from_records(enumerate(rows, start=1), corpus=corpus)
    # the policy's own second page is not "elsewhere"; the guide holds 3 of the 9 answer tokens
    assert answered_elsewhere(golden, corpus) == {"q1": [("faq", 1)]}
    assert answered_elsewhere(golden, corpus, share=0.3) == {"q1": [("faq", 1), ("guide", 1)]}
    assert answered_elsewhere(golden, corpus, min_tokens=1, share=1.0) == {"q1": [("faq", 1)]}  # "monthly": own doc
    with pytest.raises(InputError, match="share"):
        answered_elsewhere(golden, corpus, share=0)
    # q1's answer has 9 distinct tokens: a minimum of 9 still checks it, a minimum of 10 skips it; share 1 is allowed
    assert answered_elsewhere(golden, corpus, min_tokens=9, share=1.0) == {"q1": [("faq", 1)]}
    assert answered_elsewhere(golden, corpus, min_tokens=10) == {}


def test_reconcile_cost_sets_a_reported_cost_beside_the_estimate():
    from rag_metrics.golden.generate import reconcile_cost

    est = {"calls": 24, "cost": 0.0036, "input_tokens": 8_760, "output_tokens": 3_840, "price_in": 0.15,
           "price_out": 0.60}
    r = reconcile_cost(est, cost=0.2, calls=21)
    assert r["per_call"] == pytest.approx(0.2 / 21) and r["estimate_per_call"] == pytest.approx(0.0036 / 24)
    assert r["ratio"] == pytest.approx((0.2 / 21) / (0.0036 / 24))
    assert r["input_tokens_per_call"] == pytest.approx(365)
    # 0.2/21 USD per call, minus 160 output tokens at 0.60/M, paid for by input tokens at 0.15/M
    assert r["implied_input_tokens_per_call"] == pytest.approx((0.2 / 21 - 160 * 0.6e-6) / 0.15e-6)
    free = reconcile_cost({**est, "cost": 0.0, "price_in": 0.0, "price_out": 0.0}, cost=0.2, calls=21)
    assert free["ratio"] is None and free["implied_input_tokens_per_call"] is None
    with pytest.raises(InputError, match="no call"):
        reconcile_cost({**est, "calls": 0}, cost=0.2, calls=21)
    with pytest.raises(InputError, match="calls must be"):
        reconcile_cost(est, cost=0.2, calls=0)


# ---- at the edges, by value ----------------------------------------------------------
# The golden-set review at its edges, by value: a similarity exactly at the threshold, a folded answer's last
# character, a four-character document name, and markup in the page text and the answer of the review page.


def test_a_similarity_equal_to_the_threshold_is_a_near_duplicate():
    # trigrams {abc, bcd, cde} and {abc, bcd, cdf}: 2 shared of 4, Jaccard exactly 0.5
    assert near_duplicates(["abcde", "abcdf"], 0.5) == [(0, 1, 0.5)]
    assert near_duplicates(["abcde", "abcdf"], 0.51) == []
    assert near_duplicates(["Same question?", "same  QUESTION"], 1.0) == [(0, 1, 1.0)]


def test_a_folded_match_spans_the_whole_answer():
    text = "Refunds: within  THIRTY\n days of the claim."
    s, e = find_span(text, "thirty days")
    assert text[s:e] == "THIRTY\n days"
    s, e = find_span("ａｂｃ def", "abc def")  # full-width letters fold to ASCII (NFKC)
    assert (s, e) == (0, 7)


def test_a_four_character_document_name_in_the_question_is_flagged():
    assert flag_context_dependent("What does the Memo say about parking?", title="Memo") == \
        ["names the document: 'Memo'"]
    assert flag_context_dependent("Is there a FAQ about parking?", title="FAQ") == []  # 3 characters: too common


PAYLOAD = '<img src=x onerror="alert(1)">'


def test_the_review_page_escapes_the_page_text_and_the_question():
    page = ("The parking garage opens at 7 am. " + PAYLOAD + " Visitors park on level two, "
            "and employees use levels three and four with their badge.")
    corpus = corpus_from_pages([{"doc_id": "facilities", "page": 1, "text": page, "title": "Facilities"}])
    sample = sample_pages(corpus, 1, min_chars=20, seed=0)
    rows = [{"question_id": "g1", "question": "Where do visitors park? " + PAYLOAD, "answer": "level two",
             "type": "fact", "evidence": "Visitors park on level two", "doc_id": "facilities", "page": 1,
             "generator": "hand", "prompt_version": "x"},
            {"question_id": "g2", "question": "What does the garage sign say?", "answer": PAYLOAD, "type": "fact",
             "evidence": PAYLOAD, "doc_id": "facilities", "page": 1, "generator": "hand", "prompt_version": "x"}]
    draft = Draft(pd.DataFrame(rows), pd.DataFrame(columns=["doc_id", "page", "error"]), {})
    html = review_html(review_draft(draft, sample), draft, sample)
    assert "<img" not in html
    escaped = "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;"
    # g1: in its question and in its page text; g2: in its answer line and highlighted in its page text
    assert html.count(escaped) == 4
    assert "<mark>level two</mark>" in html and f"<mark>{escaped}</mark>" in html


def test_an_llm_generator_caches_in_the_default_folder_unless_an_option_names_one(tmp_path):
    pytest.importorskip("openai")
    import openai

    client = openai.OpenAI(api_key="test-key", base_url="http://llm.test/v1")
    made = load_generator("openai", default_cache=tmp_path / "d", model="m", client=client)
    assert made.cache_dir == tmp_path / "d"
    named = load_generator("openai", default_cache=tmp_path / "d", model="m", client=client, cache_dir=tmp_path / "o")
    assert named.cache_dir == tmp_path / "o", "an option naming the cache wins"
    assert load_generator("openai", model="m", client=client).cache_dir is None
    assert isinstance(load_generator("extractive", default_cache=tmp_path / "d", n=1), ExtractiveGenerator), \
        "an offline generator has no cache: the default is not passed on"


def test_names_are_joined_as_a_sentence_lists_them():
    from rag_metrics.lab.golden_lesson import _join

    assert [_join(["bm25"]), _join(["bm25", "dense"]), _join(["bm25", "dense", "hybrid"]),
            _join(list("abcd"))] == ["bm25", "bm25 and dense", "bm25, dense and hybrid", "a, b, c and d"]


@pytest.mark.parametrize("text, taken", [("abcdefghij", True), ("abcdefghi", False)])
def test_a_page_of_exactly_min_chars_can_be_sampled_and_one_character_less_cannot(text, taken):
    pages = [{"doc_id": "d", "page": 1, "text": text}]
    if taken:
        assert len(sample_pages(pages, per_document=1, min_chars=10).pages) == 1
    else:
        with pytest.raises(InputError, match="min_chars"):
            sample_pages(pages, per_document=1, min_chars=10)
