"""Question generators: one protocol, an offline extractive generator, and the loader of any other.

The protocol: a callable that takes a :class:`Page` and returns a list of dicts, one per question::

    {"question": "...", "type": "definition", "answer": "..." or None,
     "evidence": "the sentence it comes from" or None,                       (optional)
     "evidence_start": 120, "evidence_end": 181}                             (optional offsets in page.text)

It may carry ``name``, ``model``, ``prompt_version`` and ``extractive`` attributes (stored with
every question as provenance; ``extractive`` means its answers are copied from the page, so an
answer that is not on the page is flagged in review). Built in, by name (:func:`load_generator`):

* ``extractive`` -- :class:`ExtractiveGenerator`, below: no service, no network, deterministic.
* ``openai`` -- :class:`~rag_metrics.llm.clients.OpenAIClient`, any OpenAI-compatible chat endpoint.
* ``bedrock`` -- :class:`~rag_metrics.llm.clients.BedrockClient`, Amazon Bedrock's Converse API.
* ``package.module:callable`` -- anything else (a class is instantiated with the options).

What :class:`ExtractiveGenerator` extracts, in English and Japanese, from one page:

* **definitions** -- a sentence ``"Term" means ...`` / ``Term refers to ...`` / ``Term is defined
  as ...``, or ``「用語」とは、...をいう。`` (also ``をいいます``, ``のことです``, ``を指す``) ->
  *What does "Term" mean?* / *「用語」とは何ですか。*, answered by the definition;
* **question headings** (FAQ style: ``## Q4 経費はいつ振り込まれますか``, ``## How do I ...?``) -> the
  heading as the question, answered by the first sentence under it;
* **procedure headings** (``Submitting a claim``, ``Reporting an incident``, ``...の手順``, ``...とき``)
  -> *What is the procedure for submitting a claim?* / *...の手順を教えてください。*;
* any other **section heading** -> *What are the rules on <heading>?* / *<見出し>について教えてください。*

The answer (and the evidence span, with offsets) always comes from the same page. Per page it
takes, in this order, one definition (else a question heading, else a section), then one
procedure (else the next unused candidate), up to ``n`` questions. Its questions are as good as
the page's headings: a heading such as "Why this guide exists" gives a question that points at
the page, which is what review is for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.core.options import load_callable
from rag_metrics.core.text import CJK_CHAR, PAGE_MARKER
from rag_metrics.llm.page import Page

__all__ = ["QuestionGenerator", "ExtractiveGenerator", "load_generator", "check_questions",
           "GeneratorOutputError", "BUILTIN_GENERATORS", "generator_info"]

BUILTIN_GENERATORS = ("extractive", "openai", "bedrock")


@runtime_checkable
class QuestionGenerator(Protocol):
    """``generator(page) -> [{"question", "type", "answer", "evidence"?, "evidence_start"?, "evidence_end"?}]``."""

    def __call__(self, page: Page) -> list[dict]: ...  # pragma: no cover - a protocol


class GeneratorOutputError(InputError):
    """A generator returned something that is not a list of question dicts."""


def check_questions(items, page: Page) -> list[dict]:
    """Validate a generator's output for ``page``; :class:`GeneratorOutputError` naming the page otherwise."""
    where = f"{page.doc_id} page {page.page}: "
    if not isinstance(items, list):
        raise GeneratorOutputError(where + f"the generator returned {type(items).__name__}, expected a list of dicts.")
    out = []
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise GeneratorOutputError(where + f"question {i} is {type(item).__name__}, expected a dict.")
        question, typ, answer = item.get("question"), item.get("type") or "", item.get("answer")
        if not isinstance(question, str) or not question.strip():
            raise GeneratorOutputError(where + f"question {i}: 'question' must be a non-empty string, got {question!r}.")
        if not isinstance(typ, str):
            raise GeneratorOutputError(where + f"question {i}: 'type' must be a string, got {typ!r}.")
        if answer is not None and not isinstance(answer, str):
            raise GeneratorOutputError(where + f"question {i}: 'answer' must be a string or None, got {answer!r}.")
        evidence = item.get("evidence")
        if evidence is not None and not isinstance(evidence, str):
            raise GeneratorOutputError(where + f"question {i}: 'evidence' must be a string or None, got {evidence!r}.")
        start, end = item.get("evidence_start"), item.get("evidence_end")
        if (start is None) != (end is None):
            raise GeneratorOutputError(where + f"question {i}: give both evidence_start and evidence_end, or neither.")
        if start is not None:
            ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
            if not ok or not 0 <= start < end <= len(page.text):
                raise GeneratorOutputError(where + f"question {i}: evidence offsets {start!r}..{end!r} are not a span "
                                           f"of the page text (0..{len(page.text)}).")
        out.append({"question": question.strip(), "type": typ, "answer": answer.strip() if answer else answer,
                    "evidence": evidence, "evidence_start": start, "evidence_end": end})
    return out


def generator_info(generator) -> dict:
    """Provenance of a generator: name, model, prompt_version, extractive."""
    name = getattr(generator, "name", None) or getattr(generator, "__name__", None) or type(generator).__name__
    return {"generator": str(name), "model": getattr(generator, "model", None),
            "prompt_version": getattr(generator, "prompt_version", None),
            "extractive": bool(getattr(generator, "extractive", False))}


# --- the offline extractive generator ---------------------------------------------------------------

_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*$", re.M)
_SENTENCE = re.compile(r"[^\s].*?(?:[.!?](?=\s|$)|[。！？]|$)", re.S)
_NUMBERING = re.compile(r"^(?:Q\s*\d+|第\s*[0-9０-９一二三四五六七八九十]+\s*[章節条]|[0-9０-９]+(?:[.．][0-9０-９]+)*[.．]?)\s*")
_DEF_EN = re.compile(r'^["“]?(?P<term>[A-Z][A-Za-z0-9\-]*(?: [A-Za-z0-9\-]+){0,4}?)["”]? (?:means|refers to|is defined as) '
                     r"(?P<definition>.+?)[.;]?$", re.S)
_DEF_JA = re.compile(r"「(?P<term>[^」]{1,30})」とは、?(?P<definition>[^。]+?)(?:をいう|をいいます|のことです|のことをいう|を指す|を指します)。")
_QUESTION_HEADING = re.compile(r"(?:[?？]|(?:か|は|ますか|ですか|には|したら|とき))$")
_PROCEDURE_EN = re.compile(r"^(?:how\b|to\b|steps?\b)|\b(?:procedure|process|steps|submitting|reporting|booking|requesting|"
                           r"applying|returning|resetting|installing|setting up|cancell?ing|changing|registering)\b", re.I)
_PROCEDURE_JA = re.compile(r"(?:手順|方法|流れ|手続き|申請|届出|とき|場合|したら)$")


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans within ``text[start:end]`` (ending at ``.``/``!``/``?`` + space, ``。！？``, or the end)."""
    spans = []
    for m in _SENTENCE.finditer(text, start, end):
        s, e = m.span()
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s and not PAGE_MARKER.fullmatch(text[s:e]):
            spans.append((s, e))
    return spans


def _lines_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out = []
    pos = start
    for line in text[start:end].split("\n"):
        line_start = pos
        pos += len(line) + 1
        if line.strip() and not PAGE_MARKER.fullmatch(line.strip()):
            out.extend(_sentences(text, line_start, line_start + len(line)))
    return out


def _clean_heading(title: str) -> str:
    return _NUMBERING.sub("", title.strip()).strip()


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


class ExtractiveGenerator:
    """Questions, answers and evidence spans extracted from the page itself (module docstring).

    Parameters
    ----------
    n : int >= 1, questions per page at most
    """

    name = "extractive"
    model = None
    prompt_version = None
    extractive = True

    def __init__(self, n: int = 2):
        self.n = check_int(n, "n", func="ExtractiveGenerator")

    def __repr__(self) -> str:
        return f"ExtractiveGenerator(n={self.n})"

    def candidates(self, page: Page) -> list[dict]:
        """Every question the rules find on the page, in page order, each with its slot
        (``definition``, ``heading_question``, ``procedure``, ``section``)."""
        text = page.text
        headings = [(m.start(), m.end(), m.group(2)) for m in _HEADING_LINE.finditer(text)]
        bounds = [(0, None, None)] + [(e, s, title) for s, e, title in headings]
        out = []
        for i, (body_start, _, title) in enumerate(bounds):
            body_end = headings[i][0] if i < len(headings) else len(text)
            sentences = _lines_sentences(text, body_start, body_end)
            for s, e in sentences:
                sentence = text[s:e]
                m = _DEF_EN.match(sentence)
                if m:
                    term = m.group("term")
                    definition = re.split(r",\s+(?:and\s+)?\w+ means\b", m.group("definition"))[0].strip()
                    out.append(self._item("definition", f'What does "{term}" mean?', definition,
                                          text, s, e, slot="definition"))
                for m in _DEF_JA.finditer(sentence):
                    out.append(self._item("definition", f"「{m.group('term')}」とは何ですか。",
                                          m.group("definition").strip(), text, s, e, slot="definition"))
            if title is None or not sentences:
                continue
            heading = _clean_heading(title)
            if not heading:
                continue
            s, e = sentences[0]
            if e - s < 12 and len(sentences) > 1:  # "Yes." / 「はい。」: the answer is in the next sentence too
                e = sentences[1][1]
            first = text[s:e]
            japanese = bool(CJK_CHAR.search(heading))
            if re.match(r"Q\s*\d", title.strip()) or _QUESTION_HEADING.search(heading) or heading.lower().startswith(("how ", "what ", "when ", "who ",
                                                                                  "why ", "can ", "where ")):
                question = heading if heading.endswith(("?", "？")) else heading + ("？" if japanese else "?")
                out.append(self._item("fact", question, first, text, s, e, slot="heading_question"))
            elif (_PROCEDURE_JA if japanese else _PROCEDURE_EN).search(heading):
                question = (f"{heading}の手順を教えてください。" if not heading.endswith(("とき", "場合", "したら"))
                            else f"{heading}はどうすればよいですか。") if japanese else \
                    f"What is the procedure for {_lower_first(heading)}?"
                out.append(self._item("procedure", question, first, text, s, e, slot="procedure"))
            else:
                question = (f"{heading}{'' if heading.endswith('について') else 'について'}教えてください。") if japanese else \
                    f"What are the rules on {_lower_first(heading)}?"
                out.append(self._item("fact", question, first, text, s, e, slot="section"))
        return out

    @staticmethod
    def _item(typ, question, answer, text, s, e, *, slot):
        return {"question": question, "type": typ, "answer": answer, "evidence": text[s:e], "evidence_start": s,
                "evidence_end": e, "slot": slot}

    def __call__(self, page: Page) -> list[dict]:
        found = self.candidates(page)
        chosen: list[dict] = []

        def take(slots):
            for item in found:
                if item["slot"] in slots and item not in chosen and \
                        item["question"] not in {c["question"] for c in chosen}:
                    chosen.append(item)
                    return True
            return False

        if self.n >= 1:
            take(("definition",)) or take(("heading_question",)) or take(("section",))
        if self.n >= 2:
            take(("procedure",)) or take(("heading_question", "section", "definition"))
        while len(chosen) < self.n and take(("definition", "heading_question", "procedure", "section")):
            pass
        return [{k: v for k, v in item.items() if k != "slot"} for item in chosen]


# --- loading -------------------------------------------------------------------------------------------

def load_generator(spec, *, default_cache=None, **options) -> Callable:
    """A generator from a name (``extractive``, ``openai``, ``bedrock``), ``module:callable``, or a callable.

    ``options`` go to the built-in generator's constructor, or to a ``module:Class``'s; ``default_cache``: the
    response cache folder of an LLM generator (``openai``, ``bedrock``) unless ``options`` name a ``cache_dir``.
    """
    if callable(spec) and not isinstance(spec, str):
        if options:
            raise InputError("options are for a generator given by name; configure a callable yourself.")
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"generator {spec!r}: expected one of {list(BUILTIN_GENERATORS)} or 'module:callable'.")
    if spec == "extractive":
        return ExtractiveGenerator(**options)
    if spec in ("openai", "bedrock"):
        from rag_metrics.llm import clients as llm

        if default_cache is not None:
            options.setdefault("cache_dir", default_cache)
        return (llm.OpenAIClient if spec == "openai" else llm.BedrockClient)(**options)
    if ":" not in spec:
        raise InputError(f"unknown generator {spec!r}; expected one of {list(BUILTIN_GENERATORS)} or "
                         "'package.module:callable'.")
    obj = load_callable(spec, what="generator", field="generator", example="mypkg.questions:generate")
    if isinstance(obj, type):
        return obj(**options)
    if options:
        raise InputError(f"generator {spec!r} is not a class: options ({sorted(options)}) cannot be passed to it.")
    if not callable(obj):
        raise InputError(f"generator {spec!r} is not callable.")
    return obj
