"""LLM judges of answers: is a claim supported by the context, is an answer correct -- through the project's clients.

:class:`LLMJudge` wraps an :class:`~rag_metrics.llm.clients.OpenAIClient` or
:class:`~rag_metrics.llm.clients.BedrockClient` (their client, model, endpoint, temperature 0, retry loop and the
one cached call, :meth:`~rag_metrics.llm.clients.ChatClient.cached_call`) and asks two versioned prompts
(:data:`JUDGE_PROMPT_VERSION`):

* **support** -- the question the answer replies to (it gives a short claim its subject), the claim and the numbered
  context passages; the reply must be exactly ``{"supported": true|false, "item": <passage number>|null, "quote":
  "<the supporting text copied from that passage>"}``;
* **correctness** -- the question, the expected answer and the generated one; the reply must be exactly
  ``{"correct": true|false, "reason": "<short text>"}``.

**The quote is checked, not trusted** (:func:`parse_support`): a "supported" verdict counts only when its quote occurs
in the passage it names (or, numbered wrongly, in another passage of the context), compared after NFKC and without
whitespace (full-width and half-width characters, line breaks: :func:`quote_in`). A quote that is in no passage --
made up, or reworded -- or an empty one means **not supported** (reason ``the judge's quote is not in the context``): a judge
that cannot point at its evidence has not shown it. Strict JSON otherwise: other keys, a number where a boolean
belongs, an ``item`` that is not a passage number or null are refused with
:class:`~rag_metrics.core.errors.InputError` and not cached, so a re-run asks again. Accepted replies are cached
(keyed by prompt version, task, messages, model, endpoint, temperature and max_tokens), so a re-run is free and its
verdicts identical. :meth:`LLMJudge.estimate` gives the calls, tokens and cost of a list of tasks before any call.

An LLM judge gives ``support_of_answer`` and the diagnosis the same verdict shape as the offline judge
(:class:`~rag_metrics.answers.support.OfflineSupportJudge`), so either is measured against people the same way:
``benchmarks/support_heldout.py --judge openai --option model=NAME ...`` on the held-out set.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import normalize
from rag_metrics.llm.clients import estimate_tokens

__all__ = ["LLMJudge", "load_judge", "JUDGES", "parse_support", "parse_correct", "JUDGE_PROMPT_VERSION",
           "support_messages", "correct_messages", "quote_in"]

JUDGE_PROMPT_VERSION = "answer-judge-2"
OUTPUT_TOKENS = 60
"""Estimated output tokens per verdict (the JSON object and a copied quote)."""

_SUPPORT_SYSTEM = (
    "You check whether a claim from an answer to a question is supported by the passages the answering system was "
    "given. Read the claim together with the question: a short claim takes its subject from the question. A claim is "
    "supported only when the passages state it: every number, date, amount, unit and negation must agree, and the "
    "claim must add nothing; other words, units or a translation of the same fact are fine. A claim that the passages "
    "do not state something is supported when no passage states it. Do not use your own knowledge. Reply with one "
    'JSON object and nothing else: {"supported": true or false, "item": the number of the passage that supports the '
    'claim, or null, "quote": the sentence of that passage that supports it, copied exactly, or ""}.')
_CORRECT_SYSTEM = (
    "You check whether a generated answer gives the expected answer to a question. It is correct when it states the "
    "same facts (other words, units or number formats are fine; a different number, date or negation is not). Reply "
    'with one JSON object and nothing else: {"correct": true or false, "reason": a short reason}.')


def support_messages(claim: str, passages: list[dict], question: str | None = None) -> tuple[str, str]:
    """``(system, user)`` of the support prompt: the question (when known), the claim, then the passages numbered
    from 1."""
    lines = ([f"Question: {question}"] if question else []) + [f"Claim: {claim}", "", "Passages:"]
    lines += [f"[{i}] ({p.get('doc_id')}, page {p.get('page')})\n{p['text']}" for i, p in enumerate(passages, start=1)]
    return _SUPPORT_SYSTEM, "\n".join(lines)


def correct_messages(question: str, expected: str, predicted: str) -> tuple[str, str]:
    """``(system, user)`` of the correctness prompt."""
    return _CORRECT_SYSTEM, f"Question: {question}\nExpected answer: {expected}\nGenerated answer: {predicted}"


def _object(reply: str, keys: tuple) -> dict:
    try:
        value = json.loads(reply)
    except (TypeError, ValueError) as e:
        raise InputError(f"the judge's reply is not JSON ({e}): {str(reply)[:120]!r}") from None
    if not isinstance(value, dict) or set(value) != set(keys):
        found = sorted(value) if isinstance(value, dict) else type(value).__name__
        raise InputError(f"the judge's reply must be an object with exactly the keys {list(keys)}; got {found}.")
    return value


def quote_in(quote: str, text: str) -> bool:
    """Whether ``quote`` occurs in ``text`` once both are NFKC-normalized and stripped of whitespace (full-width
    ``１０日`` = ``10日``; a line break or a space the model added or dropped between words does not count). An empty
    quote occurs nowhere.

    >>> quote_in("翌月５日の給与", "承認された経費は、翌月5日の給与と一緒に"), quote_in("翌月10日", "翌月5日")
    (True, False)
    """
    quote = "".join(normalize(quote).split()) if isinstance(quote, str) else ""
    return bool(quote) and quote in "".join(normalize(text or "").split())


def parse_support(reply: str, passages: list[dict]) -> dict:
    """The verdict of a support reply (module docstring): ``{"supported", "passage", "quote", "reason"}``. A
    supported verdict whose quote is in no passage is returned as not supported; a malformed reply raises."""
    value = _object(reply, ("supported", "item", "quote"))
    supported, item, quote = value["supported"], value["item"], value["quote"]
    if not isinstance(supported, bool):
        raise InputError(f"the judge's 'supported' must be true or false; got {supported!r}.")
    if not isinstance(quote, str):
        raise InputError(f"the judge's 'quote' must be text; got {quote!r}.")
    if item is not None and (isinstance(item, bool) or not isinstance(item, int)):
        raise InputError(f"the judge's 'item' must be a passage number or null; got {item!r}.")
    if not supported:
        return {"supported": False, "passage": None, "quote": quote or None, "reason": "the judge found no support"}
    order = ([item] if isinstance(item, int) and 1 <= item <= len(passages) else []) + list(range(1, len(passages) + 1))
    for number in order:
        if quote_in(quote, passages[number - 1]["text"]):
            return {"supported": True, "passage": number, "quote": quote, "reason": "supported"}
    return {"supported": False, "passage": None, "quote": quote or None,
            "reason": "the judge's quote is not in the context" if quote.strip() else "the judge gave no quote"}


def parse_correct(reply: str) -> dict:
    """The verdict of a correctness reply (module docstring)."""
    value = _object(reply, ("correct", "reason"))
    if not isinstance(value["correct"], bool) or not isinstance(value["reason"], str):
        raise InputError(f"the judge's reply needs 'correct' true/false and 'reason' text; got {value!r}.")
    return value


class LLMJudge:
    """Support and correctness verdicts from an LLM (module docstring).

    ``chat``: an ``OpenAIClient`` or ``BedrockClient`` (its ``n`` and page prompt are not used);
    ``cache_dir``: the verdict cache (set on ``chat``), or None to keep the client's.
    """

    def __init__(self, chat, *, cache_dir=None, name: str | None = None):
        if not callable(getattr(chat, "cached_call", None)) or not hasattr(chat, "model"):
            raise InputError(f"LLMJudge: expected an OpenAIClient or BedrockClient, got {type(chat).__name__}.")
        self.chat = chat
        if cache_dir is not None:
            chat.cache_dir = Path(cache_dir)
        self.name = name or f"llm:{chat.model}"

    @property
    def cache_dir(self):
        return self.chat.cache_dir

    @property
    def usage(self) -> dict:
        return self.chat.usage

    def params(self) -> dict:
        return {"judge": self.name, "model": self.chat.model, "endpoint": self.chat.endpoint,
                "prompt_version": JUDGE_PROMPT_VERSION, "temperature": self.chat.temperature}

    def _key(self, task: str, system: str, user: str) -> str:
        return self.chat.request_key(system, user, prompt_version=JUDGE_PROMPT_VERSION, task=task)

    def _ask(self, task: str, system: str, user: str, parse):
        return self.chat.cached_call(system, user, parse, key=self._key(task, system, user),
                                     record={"prompt_version": JUDGE_PROMPT_VERSION, "task": task})

    def judge(self, claim: str, passages: list[dict], question: str | None = None) -> dict:
        """One claim (read with ``question`` when given) against the passages, in
        :meth:`OfflineSupportJudge.judge`'s shape; ``span`` is the judge's quote, checked to be in the passage."""
        result = {"claim": claim, "supported": False, "doc_id": None, "page": None, "rank": None, "span": None,
                  "overlap": None, "reason": "no context"}
        if not passages:
            return result
        system, user = support_messages(claim, passages, question)
        verdict = self._ask("support", system, user, lambda reply: parse_support(reply, passages))
        if not verdict["supported"]:
            return result | {"span": verdict["quote"], "reason": verdict["reason"]}
        p = passages[verdict["passage"] - 1]
        return result | {"supported": True, "doc_id": p.get("doc_id"), "page": p.get("page"), "rank": p.get("rank"),
                         "span": verdict["quote"], "reason": "supported"}

    def correct(self, predicted: str, expected: str, question: str = "") -> dict:
        """``{"correct", "reason"}`` from the correctness prompt."""
        return self._ask("correct", *correct_messages(question, expected, predicted), parse_correct)

    def estimate(self, tasks, *, price_in: float | None = None, price_out: float | None = None) -> dict:
        """Calls, tokens and cost (USD per million tokens) of ``tasks`` before any call: each task is
        ``("support", claim, passages)`` or ``("support", claim, passages, question)`` or ``("correct", predicted,
        expected, question)``; cached ones cost nothing, and a request repeated among ``tasks`` is counted once
        (``repeated``: the cache answers it the second time)."""
        calls = cached = repeated = tokens_in = 0
        seen = set()
        for task in tasks:
            if task[0] == "support":
                system, user = support_messages(task[1], task[2], task[3] if len(task) > 3 else None)
            elif task[0] == "correct":
                system, user = correct_messages(task[3], task[2], task[1])
            else:
                raise InputError(f"estimate: a task is ('support', claim, passages[, question]) or ('correct', "
                                 f"predicted, expected, question); got {task[0]!r}.")
            key = self._key(task[0], system, user)
            if key in seen:  # the same request twice is asked once: the cache answers the second
                repeated += 1
                continue
            seen.add(key)
            if self.chat.has_cached(key):
                cached += 1
                continue
            calls += 1
            tokens_in += estimate_tokens(system) + estimate_tokens(user)
        tokens_out = calls * OUTPUT_TOKENS
        cost = None
        if price_in is not None or price_out is not None:
            cost = tokens_in / 1e6 * (price_in or 0.0) + tokens_out / 1e6 * (price_out or 0.0)
        return {"judge": self.name, "calls": calls, "cached": cached, "repeated": repeated, "input_tokens": tokens_in,
                "output_tokens": tokens_out, "cost": cost}


JUDGES = ("offline", "token-overlap", "openai", "bedrock")
"""The support judges :func:`load_judge` makes by name."""


def load_judge(name: str, *, cache_dir=None, **options):
    """A support judge by name: ``offline`` (:class:`~rag_metrics.answers.support.OfflineSupportJudge`, options
    ``min_overlap``), ``token-overlap`` (its baseline without number and negation checks), ``openai`` / ``bedrock``
    (:class:`LLMJudge` over the client of that name; options ``model`` and the client's: ``base_url``, ``region``,
    ``retries``, ``backoff``, ``max_tokens``...)."""
    from rag_metrics.core.options import check_keys, keywords_of
    from rag_metrics.answers.support import OfflineSupportJudge
    from rag_metrics.llm.clients import BedrockClient, OpenAIClient

    if name == "offline":
        check_keys(options, keywords_of(OfflineSupportJudge), owner="offline judge")
        return OfflineSupportJudge(**options)
    if name == "token-overlap":
        plain = {"check_numbers": False, "check_negation": False, "lemmas": False, "assertions": False,
                 "scope": False, "parts": False, "subject": False, "each_part": False, "synonyms": False}
        check_keys(options, keywords_of(OfflineSupportJudge, skip=(*plain, "name")), owner="token-overlap judge")
        return OfflineSupportJudge(**options, **plain, name="token-overlap")
    if name in ("openai", "bedrock"):
        check_keys(options, keywords_of(OpenAIClient if name == "openai" else BedrockClient),
                   owner=f"{name} judge")
        options = dict(options)
        model = options.pop("model", None)
        chat = (OpenAIClient if name == "openai" else BedrockClient)(model, **options)
        return LLMJudge(chat, cache_dir=cache_dir)
    raise InputError(f"unknown judge {name!r}; expected one of {list(JUDGES)}.")
