"""LLM chat clients: OpenAI-compatible chat endpoints and Amazon Bedrock's Converse API.

A client called on a page asks for questions about it (golden-set generation); its one cached call
(:meth:`ChatClient.cached_call`) also serves the relevance assessors (:mod:`rag_metrics.labels.llm_assessors`) and
the answer judges (:mod:`rag_metrics.answers.support_llm`).

Each uses its vendor's own client library, an optional extra: ``pip install 'rag_metrics[openai]'``
(hosted OpenAI, or any server that speaks its chat API: vLLM, Ollama, llama.cpp server -- give
``base_url``) or ``pip install 'rag_metrics[bedrock]'`` (``boto3``; credentials and region as boto3
finds them). What they share (:class:`ChatClient`):

* **the question prompt** -- :mod:`rag_metrics.llm.prompts`, versioned (``PROMPT_VERSION``), in English or
  Japanese by the page's language; temperature 0.
* **strict parsing** -- :func:`~rag_metrics.llm.prompts.parse_response`; a malformed reply fails
  that page (recorded with its error) and is not cached, so a re-run asks again.
* **a disk cache** -- ``cache_dir/<key>.json``, the key a SHA-256 of (prompt version, rendered
  messages -- the page text included --, model, endpoint, temperature, max_tokens). A re-run over
  the same pages makes no call and costs nothing. A broken entry (cut off, edited) is named in a
  warning, removed and asked again; the cost estimate does not count it as cached.
* **retries** -- the client's own retries are switched off and one loop retries rate limits (HTTP
  429, Bedrock ``ThrottlingException``), server errors and dropped connections ``retries`` times with
  exponential backoff (``backoff * 2**attempt`` seconds, or the server's ``Retry-After`` when longer),
  then fails the page with :class:`RateLimited` / :class:`ServiceError`.
* **a cost estimate before any call** -- :meth:`ChatClient.estimate`: calls needed (pages not in
  the cache), estimated input tokens (:func:`estimate_tokens` of the rendered messages) and output
  tokens (:data:`OUTPUT_TOKENS_PER_QUESTION` per question asked), and their cost at the prices given.
  After a run, :attr:`ChatClient.usage` holds the tokens the service reported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import threading
import time
import warnings
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice, check_int
from rag_metrics.core.text import cjk_count
from rag_metrics.llm.page import Page
from rag_metrics.llm.prompts import PROMPT_VERSION, parse_response, prompt_language, render_prompt

__all__ = ["ChatClient", "OpenAIClient", "BedrockClient", "estimate_tokens", "estimate_calls", "RateLimited",
           "ServiceError", "OUTPUT_TOKENS_PER_QUESTION"]

OUTPUT_TOKENS_PER_QUESTION = 80
"""Estimated output tokens per question asked (question, answer, evidence sentence and JSON)."""


def estimate_tokens(text: str) -> int:
    """Rough token count: one per kana/kanji character plus one per 4 other characters (rounded up).

    The usual rule of thumb of BPE tokenizers (about 4 characters of English per token; Japanese
    about one token per character). An estimate for a budget, not a bill: the service's reported
    usage (:attr:`ChatClient.usage`) is the real figure.
    """
    cjk = cjk_count(text)
    return cjk + math.ceil((len(text) - cjk) / 4)



def estimate_calls(requests, *, output_tokens: int, price_in: float | None = None,
                   price_out: float | None = None) -> dict:
    """What a run of ``requests`` would cost: each request the messages a call would send, or None when the cache
    answers it. ``calls`` and ``cached`` counted, input tokens estimated (:func:`estimate_tokens`), ``output_tokens``
    per call, and the cost in USD at the prices per million tokens given (``cost`` None without a price)."""
    calls = cached = tokens_in = 0
    for messages in requests:
        if messages is None:
            cached += 1
            continue
        calls += 1
        tokens_in += sum(estimate_tokens(m) for m in messages)
    tokens_out = calls * output_tokens
    cost = None
    if price_in is not None or price_out is not None:
        cost = tokens_in / 1e6 * (price_in or 0.0) + tokens_out / 1e6 * (price_out or 0.0)
    return {"calls": calls, "cached": cached, "input_tokens": tokens_in, "output_tokens": tokens_out,
            "price_in": price_in, "price_out": price_out, "cost": cost}

class RateLimited(InputError):
    """The service kept refusing with a rate limit after every retry."""


class ServiceError(InputError):
    """The service failed (server error, dropped connection, truncated reply) after every retry."""


class ChatClient:
    """What the LLM clients share (module docstring); called on a page, a client asks for ``n`` questions about it.
    Subclasses implement :meth:`_complete`.

    Parameters
    ----------
    model : str
    n : int >= 1, questions asked per page
    language : "en", "ja" or None (the page's ``language``, else detected from its text)
    cache_dir : folder of the response cache, or None for no cache
    retries : int >= 0, retries after a rate limit or a transient failure
    backoff : float, seconds before the first retry (doubling after each)
    temperature : float
    max_tokens : int or None (None: the service's default, not sent)
    sleep : the function that waits (tests pass one that does not)
    """

    name = "chat"
    endpoint = ""
    prompt_version = PROMPT_VERSION
    extractive = False

    def __init__(self, model: str, *, n: int = 2, language: str | None = None, cache_dir=None, retries: int = 4,
                 backoff: float = 1.0, temperature: float = 0.0, max_tokens: int | None = None, sleep=time.sleep):
        if not isinstance(model, str) or not model.strip():
            raise InputError(f"{self.name}: a model is required (got {model!r}); e.g. --option model=NAME.")
        self.model = model
        self.n = check_int(n, "n", func=type(self).__name__)
        check_choice(language, (None, "en", "ja"), "language", func=type(self).__name__)
        self.language = language
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.retries = check_int(retries, "retries", low=0, func=type(self).__name__)
        if not isinstance(backoff, (int, float)) or backoff < 0:
            raise InputError(f"backoff must be a number of seconds >= 0; got {backoff!r}.")
        self.backoff = float(backoff)
        self.temperature = float(temperature)
        self.max_tokens = None if max_tokens is None else check_int(max_tokens, "max_tokens")
        self.sleep = sleep
        self.usage = {"calls": 0, "cached": 0, "retries": 0, "input_tokens": 0, "output_tokens": 0}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, endpoint={self.endpoint!r})"

    # --- prompt and cache ---
    def messages(self, page: Page) -> tuple[str, str]:
        """``(system, user)`` for a page."""
        return render_prompt(page.text, n=self.n, language=self.language or prompt_language(page.language, page.text))

    def cache_key(self, page: Page) -> str:
        return self.request_key(*self.messages(page))

    def request_key(self, system: str, user: str, *, prompt_version: str | None = None, **extra) -> str:
        """The cache key of one request: a SHA-256 of the prompt version (this client's unless given), the messages,
        model, endpoint, temperature, max_tokens and ``extra`` (a task name: what else tells two prompts apart)."""
        blob = json.dumps({"prompt_version": prompt_version or self.prompt_version, "system": system, "user": user,
                           "model": self.model, "endpoint": self.endpoint, "temperature": self.temperature,
                           "max_tokens": self.max_tokens, **extra}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _cache_path(self, key: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{key}.json"

    def cached(self, page: Page) -> bool:
        """Whether the page's reply is in the cache, readable (a broken entry does not count: it is asked again)."""
        path = self._cache_path(self.cache_key(page))
        return path is not None and path.is_file() and _cache_problem(path, self.n) is None

    # --- calling ---
    def _complete(self, system: str, user: str) -> tuple[str, dict]:  # pragma: no cover - abstract
        """One call: ``(reply text, {"input_tokens", "output_tokens"})``; the service's errors propagate."""
        raise NotImplementedError

    def _retryable(self, error: Exception) -> tuple[str | None, float | None]:  # pragma: no cover - abstract
        """``("rate_limit" | "transient" | None, server's retry-after seconds or None)``."""
        raise NotImplementedError

    def _call(self, system: str, user: str) -> tuple[str, dict]:
        attempt = 0
        while True:
            try:
                return self._complete(system, user)
            except Exception as e:  # the client's errors: classified, retried or re-raised
                kind, after = self._retryable(e)
                if kind is None:
                    raise
                if attempt >= self.retries:
                    cls = RateLimited if kind == "rate_limit" else ServiceError
                    what = "rate limited" if kind == "rate_limit" else "the service failed"
                    raise cls(f"{what} after {attempt + 1} attempt(s): {type(e).__name__}: {e}") from None
                wait = self.backoff * 2 ** attempt
                self.sleep(max(wait, after or 0.0))
                attempt += 1
                with self._lock:
                    self.usage["retries"] += 1

    def has_cached(self, key: str) -> bool:
        """Whether the cache holds an entry under ``key`` (:meth:`request_key`); whether it is readable is known when
        it is read (:meth:`cached_call`)."""
        path = self._cache_path(key)
        return path is not None and path.is_file()

    def cached_call(self, system: str, user: str, parse, *, key: str, record: dict | None = None):
        """``parse(reply)`` of one request, through the cache: the one home of the project's cached LLM call (question
        generation, relevance assessment and answer judging all go through it).

        A cached entry whose reply ``parse`` accepts answers without a call (``usage["cached"]``); a broken one (cut
        off, edited, refused by ``parse``) is named in a warning, removed and asked again (``usage["broken_cache"]``).
        Otherwise one call through the retry loop, its tokens added to :attr:`usage`; ``parse`` refuses a malformed
        reply by raising *before* anything is written, so a re-run asks again. An accepted reply is written
        atomically with its usage, model, endpoint and ``record`` (the prompt version, what it was about)."""
        path = self._cache_path(key)
        if path is not None and path.is_file():
            try:
                value = parse(json.loads(path.read_text(encoding="utf-8"))["reply"])
            except Exception as e:  # unreadable, not JSON, no reply, or a reply the parser refuses: unusable
                what = "the page" if "page" in (record or {}) else "the request"
                warnings.warn(f"{path}: broken cache entry ({type(e).__name__}: {str(e)[:160]}); removed, {what} is "
                              "asked again.", stacklevel=3)
                with contextlib.suppress(OSError):
                    path.unlink()
                with self._lock:
                    self.usage["broken_cache"] = self.usage.get("broken_cache", 0) + 1
            else:
                with self._lock:
                    self.usage["cached"] += 1
                return value
        reply, usage = self._call(system, user)
        with self._lock:
            self.usage["calls"] += 1
            self.usage["input_tokens"] += int(usage.get("input_tokens") or 0)
            self.usage["output_tokens"] += int(usage.get("output_tokens") or 0)
        value = parse(reply)  # malformed: raised before caching, so a re-run asks again
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            entry = {"reply": reply, "usage": usage, "model": self.model, "endpoint": self.endpoint,
                     "prompt_version": self.prompt_version, **(record or {})}
            tmp.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        return value

    def __call__(self, page: Page) -> list[dict]:
        system, user = self.messages(page)
        return self.cached_call(system, user, lambda reply: parse_response(reply, self.n), key=self.cache_key(page),
                                record={"doc_id": page.doc_id, "page": page.page})

    def estimate(self, pages, *, price_in: float | None = None, price_out: float | None = None) -> dict:
        """Calls and tokens a run over ``pages`` would need, and their cost (USD per million tokens given).

        Pages already in the cache cost nothing and are counted apart. ``cost`` is None when no
        price is given.
        """
        # a broken entry is not cached: it costs a call (broken_entries names them)
        requests = (None if self.cached(page) else self.messages(page) for page in pages)
        return {"generator": self.name, "model": self.model, "endpoint": self.endpoint,
                **estimate_calls(requests, output_tokens=self.n * OUTPUT_TOKENS_PER_QUESTION, price_in=price_in,
                                 price_out=price_out)}

    def broken_entries(self, pages) -> list[str]:
        """The cache files of ``pages`` that exist but cannot be used (they will be removed and asked again)."""
        out = []
        for page in pages:
            path = self._cache_path(self.cache_key(page))
            if path is not None and path.is_file() and _cache_problem(path, self.n) is not None:
                out.append(str(path))
        return out


def _cache_problem(path: Path, n: int) -> str | None:
    """Why a cache entry cannot be used (None when it can): unreadable, not JSON, no ``reply`` text, or a reply
    the strict parser refuses (entries are written only after it accepted them, so the file was damaged)."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"[:200]
    if not isinstance(entry, dict) or not isinstance(entry.get("reply"), str):
        return "no 'reply' text in it"
    try:
        parse_response(entry["reply"], n)
    except Exception as e:  # any refusal of the parser: the entry is unusable
        return f"the reply is not readable: {e}"[:200]
    return None


class OpenAIClient(ChatClient):
    """Questions from an OpenAI-compatible chat completions endpoint, through the ``openai`` client.

    Parameters
    ----------
    model : the endpoint's model name
    base_url : None for OpenAI, else the server's ``/v1`` URL (vLLM ``http://localhost:8000/v1``, Ollama
        ``http://localhost:11434/v1``, llama.cpp server ``http://localhost:8080/v1``)
    api_key : None reads ``$OPENAI_API_KEY``; local servers that need none get a placeholder
    json_mode : send ``response_format={"type": "json_object"}`` (servers without it: False)
    client : an ``openai.OpenAI`` to use instead (tests pass one on ``httpx.MockTransport``)
    timeout : seconds per call
    **options : :class:`ChatClient`'s
    """

    name = "openai"

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None, json_mode: bool = True,
                 client=None, timeout: float = 60.0, **options):
        super().__init__(model, **options)
        try:
            import openai
        except ImportError:  # pragma: no cover - the openai extra
            raise InputError("the openai generator needs the openai client: pip install 'rag_metrics[openai]'.") from None
        self._openai = openai
        if client is None:
            key = api_key or os.environ.get("OPENAI_API_KEY")
            if key is None and base_url is None:
                raise InputError("the openai generator needs an API key: set OPENAI_API_KEY, or give base_url for a "
                                 "local server.")
            client = openai.OpenAI(base_url=base_url, api_key=key or "not-needed", max_retries=0, timeout=timeout)
        self.client = client
        self.endpoint = str(getattr(client, "base_url", base_url or ""))
        self.json_mode = bool(json_mode)

    def _complete(self, system, user):
        kwargs = {"model": self.model, "temperature": self.temperature,
                  "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        response = self.client.chat.completions.create(**kwargs)
        if not response.choices:
            raise ServiceError("the service returned no choice.")
        choice = response.choices[0]
        if choice.finish_reason == "length":
            raise ServiceError("the reply was cut off (finish_reason 'length'): raise max_tokens.")
        usage = response.usage
        return choice.message.content or "", {"input_tokens": getattr(usage, "prompt_tokens", 0) if usage else 0,
                                               "output_tokens": getattr(usage, "completion_tokens", 0) if usage else 0}

    def _retryable(self, error):
        o = self._openai
        if isinstance(error, o.RateLimitError):
            return "rate_limit", _retry_after(getattr(error.response, "headers", {}))
        if isinstance(error, (o.InternalServerError, o.APIConnectionError)):
            return "transient", None
        return None, None


def _retry_after(headers) -> float | None:
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        if headers.get("retry-after"):
            return float(headers["retry-after"])
    except (TypeError, ValueError):
        return None
    return None


_BEDROCK_THROTTLE = {"ThrottlingException", "TooManyRequestsException"}
_BEDROCK_TRANSIENT = {"ServiceUnavailableException", "InternalServerException", "ModelNotReadyException"}


class BedrockClient(ChatClient):
    """Questions from a model on Amazon Bedrock, through boto3's ``bedrock-runtime`` Converse API.

    Parameters
    ----------
    model : a Bedrock model ID or inference profile (``anthropic.claude-3-5-haiku-20241022-v1:0``...)
    region : AWS region (None: boto3's configuration)
    client : a ``bedrock-runtime`` client to use instead (tests pass one under botocore's ``Stubber``)
    **options : :class:`ChatClient`'s
    """

    name = "bedrock"

    def __init__(self, model: str, *, region: str | None = None, client=None, **options):
        super().__init__(model, **options)
        try:
            import boto3
            from botocore.config import Config
            from botocore.exceptions import BotoCoreError, ClientError
        except ImportError:  # pragma: no cover - the bedrock extra
            raise InputError("the bedrock generator needs boto3: pip install 'rag_metrics[bedrock]'.") from None
        self._errors = (ClientError, BotoCoreError)
        if client is None:
            client = boto3.client("bedrock-runtime", region_name=region,
                                  config=Config(retries={"max_attempts": 1, "mode": "standard"}))
        self.client = client
        self.endpoint = f"bedrock-runtime:{client.meta.region_name}"

    def _complete(self, system, user):
        config = {"temperature": self.temperature}
        if self.max_tokens is not None:
            config["maxTokens"] = self.max_tokens
        response = self.client.converse(modelId=self.model, system=[{"text": system}],
                                        messages=[{"role": "user", "content": [{"text": user}]}],
                                        inferenceConfig=config)
        if response.get("stopReason") == "max_tokens":
            raise ServiceError("the reply was cut off (stopReason 'max_tokens'): raise max_tokens.")
        blocks = response.get("output", {}).get("message", {}).get("content", [])
        text = "".join(b.get("text", "") for b in blocks)
        usage = response.get("usage", {})
        return text, {"input_tokens": usage.get("inputTokens", 0), "output_tokens": usage.get("outputTokens", 0)}

    def _retryable(self, error):
        client_error, core_error = self._errors
        if isinstance(error, client_error):
            code = error.response.get("Error", {}).get("Code", "")
            if code in _BEDROCK_THROTTLE:
                return "rate_limit", None
            if code in _BEDROCK_TRANSIENT:
                return "transient", None
            return None, None
        if isinstance(error, core_error):  # connection errors, read timeouts
            return "transient", None
        return None, None
