"""The question-writing prompt (versioned, English and Japanese) and the strict parser of its answers.

:data:`PROMPT_VERSION` names the template below; it is stored with every generated question and is
part of the cache key, so changing a word of the prompt means a new version and new calls.

The model is asked for JSON only::

    {"questions": [{"question": "...", "type": "definition", "answer": "...", "evidence": "..."}]}

:func:`parse_response` reads it strictly: the whole reply must be that JSON object (one surrounding
Markdown code fence, which many local models add, is the only thing removed); ``question`` and
``answer`` non-empty strings, ``type`` one of :data:`LLM_TYPES`, ``evidence`` (a sentence copied
from the page) a string when present; between 1 and the number asked for. Anything else is a
:class:`MalformedResponse` that quotes the beginning of the reply.
"""

from __future__ import annotations

import json
import re

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.core.text import cjk_count

__all__ = ["PROMPT_VERSION", "PROMPTS", "LLM_TYPES", "render_prompt", "parse_response", "MalformedResponse",
           "prompt_language"]

PROMPT_VERSION = "golden-v1"
LLM_TYPES = ("definition", "reason", "procedure", "fact")

PROMPTS = {
    "en": {
        "system": "You write evaluation questions for a search system over a company's documents. "
                  "You reply with JSON only.",
        "user": """Below is one page of a document. Write {n} questions that this page alone answers.

Rules:
- Never mention the document's name, its title, a page, section, figure or table number.
- Phrase each question the way an employee would ask it without the page in front of them: no "this", \
"here", "the above", "the following".
- One question asks for a definition; the other asks for a reason or a procedure.
- "answer" is the short answer, copied word for word from the page.
- "evidence" is the sentence of the page that contains the answer, copied word for word.

Reply with this JSON object and nothing else:
{{"questions": [{{"question": "...", "type": "definition|reason|procedure|fact", "answer": "...", \
"evidence": "..."}}]}}

Page:
<<<
{text}
>>>""",
    },
    "ja": {
        "system": "あなたは社内文書の検索システムを評価するための質問を作成します。回答はJSONのみで返します。",
        "user": """以下は文書の1ページです。このページだけで答えられる質問を{n}個作成してください。

ルール:
- 文書名、タイトル、ページ番号、章・節・図・表の番号に触れないこと。
- ページを見ていない社員が実際に尋ねるような言い方にすること（「この」「ここ」「上記」「以下の」などを使わない）。
- 1つは定義を尋ね、もう1つは理由または手順を尋ねること。
- "answer" はページから一字一句そのまま抜き出した短い答えとすること。
- "evidence" は答えを含むページの文を一字一句そのまま抜き出すこと。

次のJSONオブジェクトだけを返してください:
{{"questions": [{{"question": "...", "type": "definition|reason|procedure|fact", "answer": "...", \
"evidence": "..."}}]}}

ページ:
<<<
{text}
>>>""",
    },
}


class MalformedResponse(InputError):
    """A model reply that is not the JSON the prompt asks for."""


_FENCE = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(.*)\n```\Z", re.S)


def prompt_language(language: str | None, text: str) -> str:
    """``en`` or ``ja``: the page's ``language`` field when it is one of them, else ``ja`` when kana/kanji
    make up over a fifth of the page's letters, else ``en``."""
    if language in PROMPTS:
        return language
    letters = [c for c in text if c.isalpha()]
    cjk = cjk_count("".join(letters))
    return "ja" if letters and cjk / len(letters) > 0.2 else "en"


def render_prompt(text: str, *, n: int = 2, language: str = "en") -> tuple[str, str]:
    """``(system, user)`` messages of the versioned template for a page's text."""
    check_choice(language, sorted(PROMPTS), "prompt for language", what="no")
    template = PROMPTS[language]
    return template["system"], template["user"].format(n=n, text=text)


def excerpt(text: str, n: int = 120) -> str:
    """The start of a reply, quoted, for an error message."""
    text = text.strip().replace("\n", " ")
    return repr(text[:n] + ("…" if len(text) > n else ""))


def reply_json(text: str | None):
    """A model reply read as strict JSON (one ```json fence allowed around it; NaN/Infinity refused);
    :class:`MalformedResponse` naming an excerpt otherwise."""
    if not isinstance(text, str) or not text.strip():
        raise MalformedResponse("the model returned an empty reply.")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        return json.loads(body, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (json.JSONDecodeError, ValueError) as e:
        raise MalformedResponse(f"the reply is not JSON ({e}): {excerpt(text)}.") from None


def parse_response(text: str | None, n: int = 2) -> list[dict]:
    """The questions of a model reply, validated (module docstring); :class:`MalformedResponse` otherwise."""
    data = reply_json(text)
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise MalformedResponse(f'expected an object {{"questions": [...]}}, got {excerpt(text)}.')
    items = data["questions"]
    if not 1 <= len(items) <= n:
        raise MalformedResponse(f"expected 1 to {n} questions, got {len(items)}.")
    out = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise MalformedResponse(f"question {i} is {type(item).__name__}, expected an object.")
        for key in ("question", "answer"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise MalformedResponse(f"question {i}: {key!r} must be a non-empty string, got {item.get(key)!r}.")
        if item.get("type") not in LLM_TYPES:
            raise MalformedResponse(f"question {i}: 'type' must be one of {list(LLM_TYPES)}, got {item.get('type')!r}.")
        evidence = item.get("evidence")
        if evidence is not None and not isinstance(evidence, str):
            raise MalformedResponse(f"question {i}: 'evidence' must be a string, got {evidence!r}.")
        out.append({"question": item["question"].strip(), "type": item["type"], "answer": item["answer"].strip(),
                    "evidence": (evidence or "").strip() or None})
    return out
