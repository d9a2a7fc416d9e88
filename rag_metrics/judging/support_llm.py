"""LLM judges of answers: is a claim supported by the context, is an answer correct -- through the project's clients.

:class:`LLMJudge` wraps an :class:`~rag_metrics.llm.clients.OpenAIGenerator` or
:class:`~rag_metrics.llm.clients.BedrockGenerator` (their client, model, endpoint, temperature 0 and retry loop) and
asks two versioned prompts (:data:`JUDGE_PROMPT_VERSION`):

* **support** -- the claim and the numbered context passages; the reply must be exactly
  ``{"supported": true|false, "item": <passage number>|null, "span": "<text copied from that passage>"}``;
* **correctness** -- the question, the expected answer and the generated one; the reply must be exactly
  ``{"correct": true|false, "reason": "<short text>"}``.

Strict parsing (:func:`parse_support`, :func:`parse_correct`): anything else -- other keys, a supported claim
without a passage, a span that is not in the passage it names, a number where a boolean belongs -- is refused with
:class:`~rag_metrics.core.errors.InputError` and is not cached, so a re-run asks again. A disk cache
(``cache_dir/<sha256>.json``, keyed by prompt version, messages, model, endpoint and temperature) makes a re-run
free and its verdicts identical. :meth:`LLMJudge.estimate` gives the calls, tokens and cost of a list of tasks
before any call is made. :attr:`LLMJudge.usage` is the wrapped client's usage.

An LLM judge gives ``support_of_answer`` and the diagnosis the same verdict shape as the offline judge
(:class:`~rag_metrics.judging.support.OfflineSupportJudge`), so either is measured against people the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import normalize
from rag_metrics.llm.clients import estimate_tokens

__all__ = ["LLMJudge", "load_judge", "JUDGES", "parse_support", "parse_correct", "JUDGE_PROMPT_VERSION", "support_messages",
           "correct_messages"]

JUDGE_PROMPT_VERSION = "answer-judge-1"
OUTPUT_TOKENS = 60
"""Estimated output tokens per verdict (the JSON object and a copied span)."""

_SUPPORT_SYSTEM = (
    "You check whether a claim is supported by the passages a system was given. A claim is supported only when one "
    "passage states it: every number, date, amount, unit and negation must agree, and the claim must add nothing. "
    "Do not use your own knowledge. Reply with one JSON object and nothing else: "
    '{"supported": true or false, "item": the number of the supporting passage or null, '
    '"span": the supporting sentence copied exactly from that passage, or ""}.')
_CORRECT_SYSTEM = (
    "You check whether a generated answer gives the expected answer to a question. It is correct when it states the "
    "same facts (other words, units or number formats are fine; a different number, date or negation is not). Reply "
    'with one JSON object and nothing else: {"correct": true or false, "reason": a short reason}.')


def support_messages(claim: str, passages: list[dict]) -> tuple[str, str]:
    """``(system, user)`` of the support prompt: the claim, then the passages numbered from 1."""
    lines = [f"Claim: {claim}", "", "Passages:"]
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


def parse_support(reply: str, passages: list[dict]) -> dict:
    """The verdict of a support reply (module docstring), checked strictly against the passages."""
    value = _object(reply, ("supported", "item", "span"))
    supported, item, span = value["supported"], value["item"], value["span"]
    if not isinstance(supported, bool):
        raise InputError(f"the judge's 'supported' must be true or false; got {supported!r}.")
    if not isinstance(span, str):
        raise InputError(f"the judge's 'span' must be text; got {span!r}.")
    if not supported:
        return {"supported": False, "passage": None, "span": None}
    if isinstance(item, bool) or not isinstance(item, int) or not 1 <= item <= len(passages):
        raise InputError(f"the judge's 'item' must be a passage number from 1 to {len(passages)} for a supported "
                         f"claim; got {item!r}.")
    if not span.strip() or normalize(span) not in normalize(passages[item - 1]["text"]):
        raise InputError(f"the judge's span is not in passage {item}: {span[:120]!r}")
    return {"supported": True, "passage": item, "span": span}


def parse_correct(reply: str) -> dict:
    """The verdict of a correctness reply (module docstring)."""
    value = _object(reply, ("correct", "reason"))
    if not isinstance(value["correct"], bool) or not isinstance(value["reason"], str):
        raise InputError(f"the judge's reply needs 'correct' true/false and 'reason' text; got {value!r}.")
    return value


class LLMJudge:
    """Support and correctness verdicts from an LLM (module docstring).

    ``chat``: an ``OpenAIGenerator`` or ``BedrockGenerator`` (its ``n`` and page prompt are not used);
    ``cache_dir``: the verdict cache, or None.
    """

    def __init__(self, chat, *, cache_dir=None, name: str | None = None):
        if not hasattr(chat, "_call") or not hasattr(chat, "model"):
            raise InputError(f"LLMJudge: expected an OpenAIGenerator or BedrockGenerator, got {type(chat).__name__}.")
        self.chat = chat
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.name = name or f"llm:{chat.model}"
        self._lock = threading.Lock()

    @property
    def usage(self) -> dict:
        return self.chat.usage

    def params(self) -> dict:
        return {"judge": self.name, "model": self.chat.model, "endpoint": self.chat.endpoint,
                "prompt_version": JUDGE_PROMPT_VERSION, "temperature": self.chat.temperature}

    def _key(self, system: str, user: str) -> str:
        blob = json.dumps({"prompt_version": JUDGE_PROMPT_VERSION, "system": system, "user": user,
                           "model": self.chat.model, "endpoint": self.chat.endpoint,
                           "temperature": self.chat.temperature}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, system: str, user: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{self._key(system, user)}.json"

    def _ask(self, system: str, user: str, parse):
        path = self._path(system, user)
        if path is not None and path.is_file():
            try:
                verdict = parse(json.loads(path.read_text(encoding="utf-8"))["reply"])
                with self._lock:
                    self.chat.usage["cached"] += 1
                return verdict
            except (OSError, ValueError, KeyError, TypeError):  # a broken entry: removed and asked again
                with contextlib.suppress(OSError):
                    path.unlink()
        reply, usage = self.chat._call(system, user)
        with self._lock:
            self.chat.usage["calls"] += 1
            self.chat.usage["input_tokens"] += int(usage.get("input_tokens") or 0)
            self.chat.usage["output_tokens"] += int(usage.get("output_tokens") or 0)
        verdict = parse(reply)  # refused before caching: a re-run asks again
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps({"reply": reply, "usage": usage, "model": self.chat.model,
                                       "prompt_version": JUDGE_PROMPT_VERSION}, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        return verdict

    def judge(self, claim: str, passages: list[dict]) -> dict:
        """One claim against the passages, in :meth:`OfflineSupportJudge.judge`'s shape."""
        result = {"claim": claim, "supported": False, "doc_id": None, "page": None, "rank": None, "span": None,
                  "overlap": None, "reason": "no context"}
        if not passages:
            return result
        system, user = support_messages(claim, passages)
        verdict = self._ask(system, user, lambda reply: parse_support(reply, passages))
        if not verdict["supported"]:
            return result | {"reason": "the judge found no support"}
        p = passages[verdict["passage"] - 1]
        return result | {"supported": True, "doc_id": p.get("doc_id"), "page": p.get("page"), "rank": p.get("rank"),
                         "span": verdict["span"], "reason": "supported"}

    def correct(self, predicted: str, expected: str, question: str = "") -> dict:
        """``{"correct", "reason"}`` from the correctness prompt."""
        return self._ask(*correct_messages(question, expected, predicted), parse_correct)

    def estimate(self, tasks, *, price_in: float | None = None, price_out: float | None = None) -> dict:
        """Calls, tokens and cost (USD per million tokens) of ``tasks`` before any call: each task is
        ``("support", claim, passages)`` or ``("correct", predicted, expected, question)``; cached ones cost
        nothing."""
        calls = cached = tokens_in = 0
        for task in tasks:
            if task[0] == "support":
                system, user = support_messages(task[1], task[2])
            elif task[0] == "correct":
                system, user = correct_messages(task[3], task[2], task[1])
            else:
                raise InputError(f"estimate: a task is ('support', claim, passages) or ('correct', predicted, "
                                 f"expected, question); got {task[0]!r}.")
            path = self._path(system, user)
            if path is not None and path.is_file():
                cached += 1
                continue
            calls += 1
            tokens_in += estimate_tokens(system) + estimate_tokens(user)
        tokens_out = calls * OUTPUT_TOKENS
        cost = None
        if price_in is not None or price_out is not None:
            cost = tokens_in / 1e6 * (price_in or 0.0) + tokens_out / 1e6 * (price_out or 0.0)
        return {"judge": self.name, "calls": calls, "cached": cached, "input_tokens": tokens_in,
                "output_tokens": tokens_out, "cost": cost}


JUDGES = ("offline", "token-overlap", "openai", "bedrock")


def load_judge(name: str, *, cache_dir=None, **options):
    """A support judge by name: ``offline`` (:class:`~rag_metrics.judging.support.OfflineSupportJudge`, options
    ``min_overlap``), ``token-overlap`` (its baseline without number and negation checks), ``openai`` / ``bedrock``
    (:class:`LLMJudge` over the client of that name; options ``model`` and the client's: ``base_url``, ``region``,
    ``retries``, ``backoff``, ``max_tokens``...)."""
    from rag_metrics.core.options import check_keys, keywords_of
    from rag_metrics.judging.support import OfflineSupportJudge
    from rag_metrics.llm.clients import BedrockGenerator, OpenAIGenerator

    if name == "offline":
        check_keys(options, keywords_of(OfflineSupportJudge), owner="offline judge")
        return OfflineSupportJudge(**options)
    if name == "token-overlap":
        plain = {"check_numbers": False, "check_negation": False, "lemmas": False, "assertions": False,
                 "scope": False, "parts": False, "subject": False}
        check_keys(options, keywords_of(OfflineSupportJudge, skip=(*plain, "name")), owner="token-overlap judge")
        return OfflineSupportJudge(**options, **plain, name="token-overlap")
    if name in ("openai", "bedrock"):
        check_keys(options, keywords_of(OpenAIGenerator if name == "openai" else BedrockGenerator),
                   owner=f"{name} judge")
        options = dict(options)
        model = options.pop("model", None)
        chat = (OpenAIGenerator if name == "openai" else BedrockGenerator)(model, **options)
        return LLMJudge(chat, cache_dir=cache_dir)
    raise InputError(f"unknown judge {name!r}; expected one of {list(JUDGES)}.")
