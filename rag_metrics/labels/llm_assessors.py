"""LLM assessors: graded relevance of a retrieved page, asked of the golden builder's clients (OpenAI-compatible,
Bedrock), for the items nobody labelled.

They follow :class:`~rag_metrics.labels.assessors.Assessor` (``assess(question, expected_answer, text) -> 0..3``)
and share the golden builder's machinery (:mod:`rag_metrics.llm.clients`): the vendor's own client (optional extras
``openai`` / ``bedrock``), temperature 0, the client's retries switched off and one loop retrying rate limits and
transient failures with exponential backoff, a disk cache and a cost estimate before any call.

**The prompt** (:data:`ASSESS_PROMPT_VERSION`, English or Japanese by the page) is written in the style of TREC's
LLM relevance assessments (UMBRELA, Upadhyay et al. 2024, after Thomas et al. 2023): the four grades of
:data:`~rag_metrics.labels.assessors.GRADES`, the instruction to consider the searcher's intent and how well the
passage answers it, and -- as the golden set has it -- the expected answer as a reference, with the warning that the
passage may word it differently. Changing a word of it means a new version (the version is in the cache key).

**Strict JSON** (:func:`parse_grade`): the whole reply must be ``{"grade": 0|1|2|3}``, optionally with a short
``"reason"`` string (one surrounding Markdown code fence is the only thing removed); anything else is a
:class:`~rag_metrics.llm.prompts.MalformedResponse` quoting the reply, and is never cached.

**Cache**: ``cache_dir/<key>.json``, the key a SHA-256 of (prompt version, rendered messages -- question, expected
answer and page text included --, model, endpoint, temperature, max_tokens). **Cost** (:meth:`ChatAssessor.estimate`):
the calls needed (items not cached), estimated input tokens of the rendered messages and
:data:`OUTPUT_TOKENS_PER_ASSESSMENT` output tokens per call, priced per million tokens.
"""

from __future__ import annotations

from rag_metrics.labels.assessors import GRADES
from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.llm.clients import BedrockClient, ChatClient, OpenAIClient, estimate_calls
from rag_metrics.llm.prompts import MalformedResponse, excerpt, prompt_language, reply_json

__all__ = ["ASSESS_PROMPT_VERSION", "ASSESS_PROMPTS", "render_assessment", "parse_grade", "ChatAssessor",
           "OpenAIAssessor", "BedrockAssessor", "PromptAssessor", "load_assessor", "OUTPUT_TOKENS_PER_ASSESSMENT", "BUILTIN_ASSESSORS"]

ASSESS_PROMPT_VERSION = "assess-v1"
OUTPUT_TOKENS_PER_ASSESSMENT = 40
"""Estimated output tokens of one reply (the JSON object with a one-sentence reason)."""
BUILTIN_ASSESSORS = ("offline", "openai", "bedrock")

ASSESS_PROMPTS = {
    "en": {
        "system": "You are a search quality rater judging how well a passage answers a question asked of a company's "
                  "documents. You reply with JSON only.",
        "user": """Given a question and a passage, give the passage a grade on an integer scale of 0 to 3:
3 = the passage is dedicated to the question and contains the exact answer.
2 = the passage contains an answer to the question, but it is partial, unclear, or mixed with other information.
1 = the passage is related to the question but does not answer it.
0 = the passage has nothing to do with the question.

Consider the intent behind the question and how well the passage meets it. A reference answer written by the \
question's author is given; the passage may word the answer differently, and a passage that merely repeats words of \
the question without answering it gets at most 1.

Reply with this JSON object and nothing else: {{"grade": 0, "reason": "one short sentence"}}

Question: {question}
Reference answer: {answer}
Passage:
<<<
{text}
>>>""",
    },
    "ja": {
        "system": "あなたは社内文書の検索品質を評価する評価者です。文章が質問にどれだけ答えているかを判定します。回答はJSONのみで返します。",
        "user": """質問と文章が与えられます。文章に0から3の整数で評価をつけてください。
3 = 文章はその質問のためのもので、正確な答えを含む。
2 = 文章は質問への答えを含むが、部分的・不明確、または他の情報に埋もれている。
1 = 文章は質問に関係するが、答えていない。
0 = 文章は質問と無関係である。

質問の意図と、文章がそれにどれだけ応えているかを考えてください。質問の作成者が書いた参考解答を示します。文章の言い回しは参考解答と\
異なることがあります。質問の語句を繰り返すだけで答えていない文章は最大で1とします。

次のJSONオブジェクトだけを返してください: {{"grade": 0, "reason": "短い一文"}}

質問: {question}
参考解答: {answer}
文章:
<<<
{text}
>>>""",
    },
}


def render_assessment(question: str, answer: str | None, text: str, *, language: str = "en") -> tuple[str, str]:
    """``(system, user)`` messages of the versioned assessment prompt."""
    check_choice(language, sorted(ASSESS_PROMPTS), "assessment prompt for language", what="no")
    template = ASSESS_PROMPTS[language]
    none = "(なし)" if language == "ja" else "(none given)"
    return template["system"], template["user"].format(question=question, answer=answer or none, text=text)



def parse_grade(text: str | None) -> int:
    """The grade of a model reply, read strictly (module docstring); :class:`MalformedResponse` otherwise."""
    data = reply_json(text)
    if not isinstance(data, dict) or "grade" not in data:
        raise MalformedResponse(f'expected an object {{"grade": 0-3}}, got {excerpt(text)}.')
    extra = sorted(set(data) - {"grade", "reason"})
    if extra:
        raise MalformedResponse(f"unexpected key(s) {extra} in {excerpt(text)}.")
    grade = data["grade"]
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in GRADES:
        raise MalformedResponse(f"'grade' must be an integer 0, 1, 2 or 3, got {grade!r}.")
    if "reason" in data and not isinstance(data["reason"], str):
        raise MalformedResponse(f"'reason' must be a string, got {data['reason']!r}.")
    return int(grade)


class ChatAssessor:
    """What the LLM assessors share (module docstring); mixed into a golden-builder client class, whose retry loop
    (``_call``), service call and error classification they use."""

    prompt_version = ASSESS_PROMPT_VERSION
    language: str | None = None

    def assessment_messages(self, question: str, answer: str | None, text: str) -> tuple[str, str]:
        return render_assessment(question, answer, text, language=self.language or prompt_language(None, text))

    def assessment_key(self, question: str, answer: str | None, text: str) -> str:
        return self.request_key(*self.assessment_messages(question, answer, text), task="assess")

    def is_cached(self, question: str, answer: str | None, text: str) -> bool:
        path = self._cache_path(self.assessment_key(question, answer, text))
        return path is not None and path.is_file()

    def assess(self, question: str, expected_answer: str | None, text: str, *, evidence: str | None = None) -> int:
        """The page's grade 0..3 (cached; a malformed reply raises and is not cached). ``evidence`` is not sent."""
        if not isinstance(question, str) or not isinstance(text, str):
            raise InputError(f"{self.name} assessor: question and text must be strings.")
        system, user = self.assessment_messages(question, expected_answer, text)
        return self.cached_call(system, user, parse_grade, key=self.assessment_key(question, expected_answer, text))

    __call__ = assess

    def estimate(self, items, *, price_in: float | None = None, price_out: float | None = None) -> dict:
        """Calls and tokens assessing ``items`` would need, and their cost (USD per million tokens given), before any
        call. ``items``: a DataFrame with question, answer, text (or an iterable of such dicts); cached items cost
        nothing and are counted apart."""
        rows = items.to_dict("records") if hasattr(items, "to_dict") else list(items)
        requests = (None if self.is_cached(row["question"], row.get("answer"), row["text"])
                    else self.assessment_messages(row["question"], row.get("answer"), row["text"]) for row in rows)
        return {"assessor": self.name, "model": self.model, "endpoint": self.endpoint,
                **estimate_calls(requests, output_tokens=OUTPUT_TOKENS_PER_ASSESSMENT, price_in=price_in,
                                 price_out=price_out)}


class OpenAIAssessor(ChatAssessor, OpenAIClient):
    """Grades from an OpenAI-compatible chat endpoint (options as :class:`~rag_metrics.llm.clients.OpenAIClient`:
    ``base_url``, ``api_key``, ``json_mode``, ``client``, ``timeout``, ``cache_dir``, ``retries``, ``backoff``,
    ``max_tokens``, ``sleep``; ``language`` forces the prompt's)."""

    def __init__(self, model: str, **options):
        super().__init__(model, n=1, **options)


class BedrockAssessor(ChatAssessor, BedrockClient):
    """Grades from a model on Amazon Bedrock's Converse API (options as
    :class:`~rag_metrics.llm.clients.BedrockClient`: ``region``, ``client``, ``cache_dir``, ``retries``...)."""

    def __init__(self, model: str, **options):
        super().__init__(model, n=1, **options)


class PromptAssessor(ChatAssessor, ChatClient):
    """An LLM assessor without a client: renders the versioned prompt and estimates what a run would cost
    (:meth:`estimate`), with no vendor package installed and no network. It cannot grade."""

    name = "prompt-only"

    def __init__(self, model: str, **options):
        super().__init__(model, n=1, **options)

    def _complete(self, system, user):
        raise InputError("this assessor has no client: it renders the prompt and estimates the cost; use "
                         "OpenAIAssessor or BedrockAssessor to grade.")

    def _retryable(self, error):
        return None, None


def load_assessor(spec, *, default_cache=None, **options):
    """An assessor by name: ``offline`` (:class:`~rag_metrics.labels.assessors.OfflineAssessor`), ``openai``,
    ``bedrock``, or an object with ``assess`` (returned as it is); ``default_cache``: the response cache folder of an
    LLM assessor unless ``options`` name a ``cache_dir``."""
    if not isinstance(spec, str):
        if options or not callable(getattr(spec, "assess", None)):
            raise InputError(f"assessor {spec!r}: expected one of {list(BUILTIN_ASSESSORS)} or an object with "
                             "assess(question, expected_answer, text).")
        return spec
    from rag_metrics.core.options import check_keys, keywords_of

    if spec == "offline":
        from rag_metrics.labels.assessors import OfflineAssessor

        check_keys(options, keywords_of(OfflineAssessor), owner="offline assessor")
        return OfflineAssessor(**options)
    if spec in ("openai", "bedrock"):
        check_keys(options, keywords_of(OpenAIAssessor if spec == "openai" else BedrockAssessor, skip=("n",)),
                   owner=f"{spec} assessor")
    if spec in ("openai", "bedrock") and default_cache is not None:
        options.setdefault("cache_dir", default_cache)
    if spec == "openai":
        return OpenAIAssessor(**options)
    if spec == "bedrock":
        return BedrockAssessor(**options)
    raise InputError(f"unknown assessor {spec!r}; expected one of {list(BUILTIN_ASSESSORS)}.")
