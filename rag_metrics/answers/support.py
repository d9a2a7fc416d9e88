"""Is each claim of an answer supported by the context the generator read? An offline judge, no model needed.

The context: the top ``context_k`` items of the answer's log, each a ``{"doc_id", "pages", "text"}`` mapping
(:func:`context_passages`): an item with text is judged on its text (an item with text but no document is placed
on the pages first, :func:`~rag_metrics.judging.locate.locate_items`); an item with pages but no text on those
pages' text; an item with a document only (the sample's ``retrieved_ids``) on every page of that document -- the
log does not say which part of it the generator read, so a document-level log judges more generously than a
chunk-level one.

:class:`OfflineSupportJudge` cuts each context page into sentences and looks, for each claim
(:func:`~rag_metrics.answers.claims.split_claims`), for a span -- one sentence or two adjacent ones; a ``#`` heading
or a question (an FAQ's question line) asserts nothing and counts only as the first of two, where it gives the next
line its subject (``assertions``) -- that

1. holds at least ``min_overlap`` of the claim's content words: with ``lemmas`` (the default; the ``lemmas`` extra)
   English lemmas from simplemma and Japanese dictionary forms from SudachiPy
   (:func:`~rag_metrics.answers.claims.lemma_tokens`), falling back without them to
   :func:`~rag_metrics.answers.claims.content_tokens` (plural ``s`` dropped, Japanese character bigrams);
2. states every number, date and amount of the claim with the same value and unit
   (:func:`~rag_metrics.answers.claims.quantities_agree`): 翌月5日 is not supported by 翌月10日, 30 days not by 13,
   1,500 EUR not by 15,000; in a span of two sentences, each part of the claim takes its numbers from the sentence
   that carries more of its words (``parts``): "escalates after five days" is not supported by "act within five
   days. ... escalates after ten days";
3. has the claim's polarity (:func:`~rag_metrics.answers.claims.negated` of the clauses sharing the claim's words,
   cut at conjunctions too with ``scope``: a "not" of another condition of the sentence is not the claim's):
   "allowed" is not supported by "not allowed".

Numbers are compared in one unit per dimension (:func:`~rag_metrics.answers.claims.canonical_quantities`, the reader
the correctness judge uses too): "more than 14 days" agrees with "two weeks", 二十日 with 20日. A refusal ("The
documents do not say how long SMS codes are valid.", 「資料には記載がありません」,
:func:`~rag_metrics.answers.claims.refusal_rest`) is an *absence claim*: supported when no span holds ``min_overlap``
of what it says is missing (a bare "I don't know": the question's topic words), unsupported when one does.

The first span (in context order) passing all three supports the claim: its document, page and text are reported.
Otherwise the claim is unsupported and the reason names the closest span's failing test.

**What the offline judge cannot see**: a paraphrase sharing too few words with the page ("cheapest ticket" for
"lowest fare"); world knowledge and arithmetic ("half a year" = 6 months, a total of two amounts); a claim whose
words and numbers all occur in a span that says something else (word order, who does what to whom: "the approver
escalates after five days" when five days is the approval delay, unless the two are in two sentences); a claim that
adds a subject to a page's sentence ("Alcohol is reimbursed at client meals" against "Client meals are reimbursed");
negation carried by words outside its list
("prohibited", "blocked" against "allowed"); support spread over more than two sentences or two items; a claim in one
language against a page in another. Its agreement with people is measured on ``data/support/claims.jsonl`` (its
development set, :func:`rag_metrics.experiment.answer_support.measure_judges`) and on a held-out set it was not built on
(``benchmarks/support_heldout.md``), not assumed.
"""

from __future__ import annotations

import functools
import inspect
import re
import unicodedata
from dataclasses import dataclass

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import CJK, HIRAGANA
from rag_metrics.answers.claims import (canonical_quantities, content_tokens, identifiers, lemma_tokens,
                                       lemmas_available, negated, other_identifier, other_value, quantities,
                                       quantities_agree, quantity_words, refusal_rest, split_claims, synonym_groups,
                                       unstated_by_form)
from rag_metrics.answers.concepts import concept_words, concepts

__all__ = ["OfflineSupportJudge", "context_passages", "support_of_answer", "answer_support", "SUPPORT_LEVELS",
           "sentences"]

SUPPORT_LEVELS = ("full", "partial", "none", "no claims")
"""An answer's support: every claim supported, some, none, or no claim to judge (an empty answer, a refusal)."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])|\n+")
_CJK_TOKEN = re.compile(rf"^[{CJK}ー]+$")
_CLAUSE = re.compile(r"[,;:、；]\s*")


def sentences(text: str) -> list[str]:
    """A page's sentences (and heading lines), stripped, empty ones dropped."""
    return [s.strip(" #\t") for s in _SENTENCE.split(text or "") if s.strip(" #\t")]


def context_passages(items, corpus, *, index=None) -> list[dict]:
    """The passages a generator read: one ``{"rank", "doc_id", "page", "text"}`` per page of each item (module
    docstring). ``items``: mappings with ``doc_id`` (or None), optional ``page`` or ``pages`` and ``text``, or bare
    document IDs, read as a retrieval log's items are (:func:`rag_metrics.io.logs.read_context`);
    ``corpus``: a :class:`~rag_metrics.io.corpus.Corpus`; ``index``: a PageIndex to place text-only items
    (built on demand)."""
    from rag_metrics.io.logs import read_context

    pages = corpus.pages
    by_doc = {d: g.sort_values("page") for d, g in pages.groupby("doc_id", sort=False)}
    out = []
    for rank, item in enumerate(read_context(items), start=1):  # read as a retrieval log's items are
        doc, text, wanted = item["doc_id"], item["text"], item["pages"]
        if isinstance(text, str) and text.strip():
            if doc is None:
                from rag_metrics.judging.locate import locate_items
                from rag_metrics.judging.page_index import PageIndex

                where = locate_items([text], index if index is not None else PageIndex(corpus)).iloc[0]
                doc, wanted = where["doc_id"], where["pages"]
            page = int(wanted[0]) if wanted else None
            out.append({"rank": rank, "doc_id": doc, "page": page, "text": text})
            continue
        if doc not in by_doc:
            raise InputError(f"context item {rank}: document {doc!r} is not in the corpus.")
        rows = by_doc[doc]
        if wanted:
            rows = rows[rows["page"].isin([int(p) for p in wanted])]
        out.extend({"rank": rank, "doc_id": doc, "page": int(p), "text": t}
                   for p, t in zip(rows["page"], rows["text"]))
    return out


@dataclass(frozen=True)
class OfflineSupportJudge:
    """The offline support judge (module docstring). ``check_numbers=False, check_negation=False`` with the switches
    below off gives the token-overlap baseline the judge is compared with (``load_judge("token-overlap")``).

    The switches of issue 46, each measured on the development and the held-out sets
    (``benchmarks/support_heldout.md``): ``lemmas`` (True, or ``"en"`` / ``"ja"`` for one language), ``assertions``,
    ``scope`` and ``parts`` are on; ``subject`` (the claim's subject -- its words before the first verb, or before
    は / が -- must be in the span), ``each_part`` (every part of a claim joining facts supported on its own) and
    ``synonyms`` (a Japanese word matches one sharing a SudachiPy synonym group: 給料 = 給与) helped on the development
    set only and are off."""

    min_overlap: float = 0.6
    check_numbers: bool = True
    check_negation: bool = True
    lemmas: bool | str = True
    assertions: bool = True
    scope: bool = True
    parts: bool = True
    subject: bool = False
    each_part: bool = False
    synonyms: bool = False
    contradiction: bool = True
    vocabulary: bool = True
    name: str = "offline"

    def __post_init__(self):
        for field in ("check_numbers", "check_negation", "assertions", "scope", "parts", "subject", "each_part",
                      "synonyms", "contradiction", "vocabulary"):
            if not isinstance(getattr(self, field), bool):
                raise InputError(f"{field} must be true or false; got {getattr(self, field)!r}.")
        if not (isinstance(self.lemmas, bool) or self.lemmas in ("en", "ja")):
            raise InputError(f"lemmas must be true, false, 'en' or 'ja'; got {self.lemmas!r}.")
        if isinstance(self.min_overlap, bool) or not isinstance(self.min_overlap, (int, float)) \
                or not 0 < self.min_overlap <= 1:
            raise InputError(f"min_overlap must be a share in (0, 1]; got {self.min_overlap!r}.")

    def params(self) -> dict:
        """The judge's settings, recorded beside its verdicts; ``lemmas`` names the dictionary forms really used
        (``"unavailable"`` when the extra is not installed)."""
        out = {"judge": self.name, "min_overlap": self.min_overlap, "check_numbers": self.check_numbers,
               "check_negation": self.check_negation, "assertions": self.assertions, "scope": self.scope,
               "parts": self.parts, "subject": self.subject, "each_part": self.each_part, "synonyms": self.synonyms,
               "contradiction": self.contradiction, "vocabulary": self.vocabulary}
        out["lemmas"] = False
        if self.lemmas:
            have = lemmas_available()
            wanted = ("en", "ja") if self.lemmas is True else (self.lemmas,)
            out["lemmas"] = ",".join(k for k in wanted if have[k]) or "unavailable"
        return out

    def _vocabulary(self) -> bool:
        """Whether :data:`~rag_metrics.answers.concepts.CONCEPTS` is read: asked for, and both languages' dictionary
        forms available (its entries are keyed by them; the fallback's plural-s words and bigrams are not)."""
        return self.vocabulary and self.lemmas is True and all(lemmas_available().values())

    def judge(self, claim: str, passages: list[dict], question: str | None = None) -> dict:
        """One claim against the passages: ``supported`` (bool, None when the claim has no content to judge),
        ``doc_id``, ``page``, ``rank``, ``span``, ``overlap`` (share of the claim's words in the span) and ``reason``.

        A refusal ("The documents do not say X") is an absence claim: supported when no passage states X,
        unsupported when one does (:meth:`_absence`); ``question``, the question the answer replies to, says what a
        bare refusal ("I don't know.") says is missing."""
        rest = refusal_rest(claim)
        if rest is not None:
            return self._absence(claim, rest, passages, question)
        words = _tokens(claim, self.lemmas)
        if self.check_numbers and self.lemmas:  # the number check reads a number's unit; linking words say nothing
            units = {w for u in quantity_words(claim) for w in (u, *_tokens(u, self.lemmas))} | _DISCOURSE
            words = frozenset(w for w in words if w not in units) or words
        numbers = canonical_quantities(claim)
        result = {"claim": claim, "supported": None, "doc_id": None, "page": None, "rank": None, "span": None,
                  "overlap": 0.0, "reason": "nothing to judge"}
        if not words and not numbers:
            return result
        if not passages:
            return result | {"supported": False, "reason": "no context"}
        polarity = negated(claim)
        codes = (identifiers(claim) or identifiers(question)) if self.check_numbers else frozenset()
        hit, best = self._find(claim, words, numbers, polarity, passages, codes=codes)
        missing = self._unsupported_part(claim, passages) if hit is not None and self.each_part else None
        if hit is not None and missing is None:
            passage, span, overlap = hit
            return result | {"supported": True, "doc_id": passage["doc_id"], "page": passage["page"],
                             "rank": passage["rank"], "span": span, "overlap": overlap, "reason": "supported"}
        if hit is not None:
            passage, span, overlap = hit
            return result | {"supported": False, "doc_id": passage["doc_id"], "page": passage["page"],
                             "rank": passage["rank"], "span": span, "overlap": overlap,
                             "reason": f"a part of the claim is not supported: {missing}"}
        if best is None:  # every sentence of the context is a heading or a question
            return result | {"supported": False, "reason": "no sentence of the context asserts anything"}
        (_, overlap), passage, span, reason = best
        return result | {"supported": False, "doc_id": passage["doc_id"], "page": passage["page"],
                         "rank": passage["rank"], "span": span, "overlap": overlap, "reason": reason}

    def _unsupported_part(self, claim: str, passages: list[dict]) -> str | None:
        """The first part of a claim joining facts (:func:`_parts`) that no span supports on its own words, numbers
        and polarity, or None: "approved by the approver alone and paid within a week" is not supported by a page
        that says nothing of the payment, however many of the claim's words its first part brings."""
        parts = _parts(claim, self.lemmas)
        if len(parts) < 2:
            return None
        for part in parts:
            words = _tokens(part, self.lemmas)
            if words and self._find(part, words, canonical_quantities(part), negated(part), passages)[0] is None:
                return part.strip()
        return None

    def _find(self, claim, words, numbers, polarity, passages, codes=frozenset()):
        """``(hit, closest)``: the first span supporting the claim as ``(passage, span, overlap)`` (None when none
        does) and the closest span as ``(key, passage, span, reason)``. ``codes``: the identifiers the claim is about
        (its own, else its question's, :func:`~rag_metrics.answers.claims.identifiers`); a span whose sentence
        carrying the claim's words names another identifier of the same letters and not the claim's (E3 for E4) is about something else."""
        vocabulary = self._vocabulary()
        refutable = self.contradiction and len(words) >= 3  # a claim of one or two words matches too many sentences
        best = hit = contradiction = other_number = None
        top = top_single = 0.0
        subject = _subject(claim, self.lemmas) if self.subject else frozenset()
        for passage, span, sents in _spans(passages, assertions=self.assertions):
            overlap = _overlap(words, span, self.lemmas, self.synonyms, vocabulary) if words else 1.0
            reason = "too few of the claim's words" if overlap < self.min_overlap else None
            home = max(sents, key=lambda x: _overlap(words, x, self.lemmas) if words else 0.0) if codes else span
            if reason is None and codes and other_identifier(codes, home):
                reason = "the span is about another identifier"
            if reason is None and subject and _overlap(subject, span, self.lemmas) < 0.5:
                reason = "the claim's subject is not in the span"
            if reason is None and self.check_numbers and not _numbers_agree(claim, numbers, span, sents, self):
                reason = "a number differs: " + _numbers(quantities(claim)) + " vs " + (_numbers(quantities(span)) or "none")
                if refutable and len(sents) == 1 and overlap == 1.0 and other_value(numbers, span) \
                        and (other_number is None or overlap > other_number[0]):
                    other_number = (overlap, passage, span)
            elif reason is None and self.check_negation and _polarity_differs(claim, polarity, span, words, self):
                reason = "negation differs"
                if refutable and len(sents) == 1 and (contradiction is None or overlap > contradiction[0]):
                    contradiction = (overlap, passage, span)
            if reason is None:
                if not self.contradiction:
                    return (passage, span, overlap), None
                if hit is None:
                    hit, top = (passage, span, overlap), overlap
                top = max(top, overlap)
                top_single = max(top_single, overlap if len(sents) == 1 else 0.0)
            key = (overlap >= self.min_overlap, overlap)  # the closest span: enough words first, then most
            if reason is not None and (best is None or key > best[0]):
                best = (key, passage, span, reason)
        if hit is not None and contradiction is not None and contradiction[0] >= top:
            overlap, passage, span = contradiction  # a span closer to the claim says the opposite
            return None, ((True, overlap), passage, span, "a closer span states the opposite")
        if hit is not None and other_number is not None and other_number[0] > top_single:
            overlap, passage, span = other_number  # a sentence holding all the claim's words gives another value
            return None, ((True, overlap), passage, span, "a closer span states another number")
        return hit, best

    def _absence(self, claim: str, rest: str, passages: list[dict], question: str | None) -> dict:
        """A refusal judged as an absence claim: what it says is missing (the claim's own words, else the question's)
        is looked for; a span holding at least ``min_overlap`` of those words states it."""
        asked = _asked_quantity(claim if _tokens(rest, self.lemmas) else f"{claim} {question or ''}")
        words = {w for w in (_tokens(rest, self.lemmas) or _topic(question, self.lemmas)) if w not in _ASKING}
        result = {"claim": claim, "supported": None, "doc_id": None, "page": None, "rank": None, "span": None,
                  "overlap": 0.0, "reason": "nothing to judge"}
        if not words:
            return result
        best = None
        for passage, span, _ in _spans(passages, assertions=self.assertions):
            overlap = _overlap(words, span, self.lemmas, self.synonyms, self._vocabulary())
            if asked is not None and not any(asked == "any" or u in asked for _, u in canonical_quantities(span)):
                overlap = min(overlap, self.min_overlap / 2)  # it names the topic but not the quantity asked for
            if best is None or overlap > best[0]:
                best = (overlap, passage, span)
        if best is None or best[0] < self.min_overlap:
            return result | {"supported": True, "overlap": 0.0 if best is None else best[0],
                             "reason": "a refusal: no passage states it"}
        overlap, passage, span = best
        return result | {"supported": False, "doc_id": passage["doc_id"], "page": passage["page"],
                         "rank": passage["rank"], "span": span, "overlap": overlap,
                         "reason": "a refusal, but a passage states it"}


_TIME_UNITS = frozenset({"day", "working day", "month", "minute", "second"})
_ASKED = (
    (re.compile(r"\bhow\s+(?:much|many)\s+(?:time|days?|weeks?|months?|years?|hours?|minutes?)\b|\bhow\s+long\b|"
                r"\bhow\s+soon\b|\b(?:deadline|period|duration|validity|valid\s+for)\b|期間|期限|何日|何時間|何か月|何年|"
                r"何週間|いつまで|どのくらいの間|有効期"), _TIME_UNITS),
    (re.compile(r"\bhow\s+much\b|\b(?:cost|costs|price|fee|fees|amount)\b|いくら|料金|金額|費用|価格|値段"),
     frozenset({"eur", "yen"})),
    (re.compile(r"\bhow\s+many\b|\bhow\s+often\b|何回|何人|何件|何文字|何社"), "any"),
)
_ASKING = frozenset("much many long soon often time cost price fee amount deadline period duration validity "
                    "期間 期限 料金 金額 費用 価格 値段 何 いくら".split())


def _asked_quantity(text: str):
    """What kind of quantity an absence claim says is missing: a set of canonical units (a duration: "how long",
    期間; an amount: "how much", 料金), ``"any"`` (a count: "how many"), or None (not a quantity). A passage states
    such a fact only when it gives a quantity of that kind: "the adapter is sold separately" does not state its
    price."""
    text = unicodedata.normalize("NFKC", text).casefold()
    for pattern, units in _ASKED:
        if pattern.search(text):
            return units
    return None


def _spans(passages: list[dict], *, pairs: bool = True, assertions: bool = False):
    """``(passage, span, sentences)``: each sentence of each passage, then (``pairs``) each two adjacent ones, in
    context order. With ``assertions``, a heading or a question (an FAQ's question line) is no span on its own --
    it asserts nothing -- but opens a pair with the sentence after it (the FAQ's answer, whose subject it gives)."""
    for passage in passages:
        if assertions:
            parts, asserts = _assertion_list(passage["text"])
        else:
            parts = sentences(passage["text"])
            asserts = (True,) * len(parts)
        for span, ok in zip(parts, asserts):
            if ok:
                yield passage, span, (span,)
        if pairs:
            for (a, ok_a), (b, ok_b) in zip(zip(parts, asserts), zip(parts[1:], asserts[1:])):
                if ok_b:
                    yield passage, f"{a} {b}", (a, b)


_QUESTION_END = re.compile(r"(?:[?？]|(?:です|ます|ません|でしょう|ない)か)[\s。]*$")


@functools.lru_cache(maxsize=4096)
def _assertion_list(text: str) -> tuple:
    """``(sentences, asserts)``: a page's sentences and whether each asserts something (not a ``#`` heading, not a
    question)."""
    out, asserts = [], []
    for line in (text or "").splitlines():
        heading = line.lstrip().startswith("#")
        for sentence in sentences(line):
            out.append(sentence)
            asserts.append(not heading and not _QUESTION_END.search(sentence))
    return tuple(out), tuple(asserts)


_HIRAGANA = re.compile(f"[{HIRAGANA}]")
_QUESTION_WORDS = frozenset("many much long often can may could should would does how what when where which who whom "
                            "why need whether".split())


@functools.lru_cache(maxsize=65536)
def _tokens(text: str, lemmas) -> frozenset:
    """The content words of ``text`` as a set: :func:`~rag_metrics.answers.claims.lemma_tokens` with ``lemmas``
    (True: both languages; ``"en"`` or ``"ja"``: that one), else :func:`~rag_metrics.answers.claims.content_tokens`
    (cached: the same pages are read for every answer)."""
    if not lemmas:
        return frozenset(content_tokens(text))
    return frozenset(lemma_tokens(text) if lemmas is True else lemma_tokens(text, languages=(lemmas,)))


def _topic(question: str | None, lemmas: bool = False) -> set:
    """The question's topic words: its content words without question words, and of Japanese only the bigrams
    without hiragana (the particles and endings of ``...ですか`` say nothing of the subject)."""
    if not isinstance(question, str):
        return set()
    return {w for w in _tokens(question, lemmas) if w not in _QUESTION_WORDS and not _HIRAGANA.search(w)}


def _overlap(words: set, span: str, lemmas=False, synonyms: bool = False, vocabulary: bool = False) -> float:
    """Share of the claim's words in the span (:func:`_share`), cached for a claim's frozen set of words."""
    if isinstance(words, frozenset):
        return _share_cached(words, span, lemmas, synonyms, vocabulary)
    return _share(words, span, lemmas, synonyms, vocabulary)


@functools.lru_cache(maxsize=262144)
def _share_cached(words: frozenset, span: str, lemmas, synonyms: bool, vocabulary: bool) -> float:
    return _share(words, span, lemmas, synonyms, vocabulary)


def _share(words: set, span: str, lemmas=False, synonyms: bool = False, vocabulary: bool = False) -> float:
    """Share of the claim's words in the span: an English word among the span's words, a Japanese word (or bigram,
    or single kana/kanji) inside its text; with ``synonyms``, a Japanese word sharing a synonym group with a word of
    the span (:func:`~rag_metrics.answers.claims.synonym_groups`); with ``vocabulary``, a word sharing a concept of
    :data:`~rag_metrics.answers.concepts.CONCEPTS` with the span (a synonym, or a translation across languages)."""
    span_words = _tokens(span, lemmas)
    text = unicodedata.normalize("NFKC", span).casefold()
    groups = _groups(span_words) if synonyms else frozenset()
    named = _concepts_of(span) if vocabulary else frozenset()
    return sum(w in span_words or (_CJK_TOKEN.match(w) is not None and w in text)
               or (len(w) > 5 and w.endswith("ly") and w[:-2] in span_words)  # incorrectly = incorrect
               or bool(groups and synonym_groups(w) & groups) or bool(named and concepts(w) & named)
               for w in words) / len(words)


@functools.lru_cache(maxsize=65536)
def _concepts_of(span: str) -> frozenset:
    return concept_words(span)


@functools.lru_cache(maxsize=65536)
def _groups(words: frozenset) -> frozenset:
    return frozenset().union(*(synonym_groups(w) for w in words)) if words else frozenset()


def _numbers(qs) -> str:
    return ", ".join(f"{v:g}{'' if u is None else ' ' + u}" for v, u in qs)


_SUBCLAUSE = re.compile(r"[,;:、；]\s*|\s+(?=(?:unless|except|if|when|where|while|because|provided|or|and|but)\s)"
                        r"|(?<=場合)|(?<=ときは)|(?<=ので)|(?<=ため)|(?<=けれど)|(?<=けど)|(?<=[てで]も)|(?<=が)、")


def _span_negated(span: str, words: set, lemmas: bool = False, *, scoped: bool = False) -> bool:
    """The polarity of the clauses of ``span`` that share a word with the claim (all of it when none does); with
    ``scoped``, the span is cut at conjunctions too ("unless", "if", "when", "or", "and", 場合, ので...), so that a
    "not" of another condition of the sentence, in a clause without the claim's words, is not read."""
    if not scoped:
        clauses = [c for c in _CLAUSE.split(span) if _tokens(c, lemmas) & words]
        return negated(" ".join(clauses) if clauses else span)
    clauses = [c for c in _SUBCLAUSE.split(span) if c and c.strip() and _tokens(c, lemmas) & words]
    return negated(" ".join(clauses) if clauses else span)


_UNLESS = re.compile(r"\b(?:unless|except\s+(?:if|when|where))\b|(?:場合|とき)を?除(?:き|いて)")
_IF = re.compile(r"\b(?:if|when|where|provided)\b|場合|とき")
_WITH = re.compile(r"\b(with|without)\b")
_WITHOUT = re.compile(r"\bwithout\b")


_DISCOURSE = frozenset("however even therefore thus though although still yet indeed moreover furthermore "
                       "additionally sorry unfortunately please otherwise instead".split())
"""Words that link a claim to the one before it and say nothing a page must hold ("Even so, ...", "..., however,")."""
_CONDITION_EN = re.compile(r"\b(?:(unless|except\s+(?:if|when|where))|if|when|where|provided)\b")


def _condition(text: str):
    """``(main clause, condition, is an exception)`` of an English sentence with one condition ("X if Y", "X unless
    Y"), or None (no condition, several, or a Japanese sentence, whose condition comes first)."""
    found = list(_CONDITION_EN.finditer(text))
    if len(found) != 1 or _SENTENCE.search(text.strip()):
        return None
    m = found[0]
    if not text[:m.start()].strip(" \"'(-"):  # "If Y, X": the condition first, up to its comma
        comma = text.find(",", m.end())
        if comma < 0:
            return None
        return text[comma + 1:], text[m.end():comma], m.group(1) is not None
    return text[:m.start()], text[m.end():], m.group(1) is not None


def _polarity_differs(claim: str, polarity: bool, span: str, words: set, judge) -> bool:
    """Whether the span's polarity (:func:`_span_negated`, read in the clauses carrying the claim's words) differs
    from the claim's. With ``judge.scope`` two equivalences of polarity are read too: "X unless Y" states "not X if
    Y" (a condition turned into an exception flips the polarity of what it conditions), and "without Y" is the
    negation of "with Y" ("may be used without the VPN" is not supported by "may be used with the VPN on")."""
    if not judge.scope:
        return polarity != _span_negated(span, words, judge.lemmas)
    claim_text, span_text = (unicodedata.normalize("NFKC", t).casefold() for t in (claim, span))
    if (_WITH.search(claim_text) is None or _WITH.search(span_text) is None) \
            and _WITHOUT.search(claim_text + " " + span_text):  # one side says "without X", the other "no X"
        claim_text, span_text = _WITHOUT.sub("with no", claim_text), _WITHOUT.sub("with no", span_text)
        polarity = negated(claim_text)
    span_negative = _span_negated(span_text, words, judge.lemmas, scoped=True)
    conditioned = _condition(claim_text), _condition(span_text)
    if all(conditioned):  # both "X if/unless Y": compare X with X (an "unless" flips it) and Y with Y
        (main_c, cond_c, unless_c), (main_s, cond_s, unless_s) = conditioned
        return negated(main_c) != (negated(main_s) ^ (unless_c != unless_s)) or negated(cond_c) != negated(cond_s)
    unless_claim, unless_span = bool(_UNLESS.search(claim_text)), bool(_UNLESS.search(span_text))
    if unless_claim != unless_span and _IF.search(span_text if unless_claim else claim_text):
        span_negative = not span_negative
    with_claim = {m.group(1) for m in _WITH.finditer(claim_text)}
    with_span = {m.group(1) for m in _WITH.finditer(span_text)}
    if with_claim and with_span and with_claim.isdisjoint(with_span):
        return True
    return polarity != span_negative


def _numbers_agree(claim: str, numbers: list, span: str, sents: tuple, judge) -> bool:
    """Whether the span states the claim's numbers. In a span of two sentences with ``judge.parts``, each part of
    the claim (:func:`_parts`) is read against the sentence that carries more of that part's words, which must not
    state another value of the same unit: "escalates after five days" is not supported by "act within five days. ...
    escalates after ten days"."""
    numbers = unstated_by_form(claim, numbers, span)
    if not quantities_agree(numbers, canonical_quantities(span)):
        return False
    if len(sents) < 2 or not judge.parts or not numbers:
        return True
    for part in _parts(claim, judge.lemmas) or [claim]:
        words = _tokens(part, judge.lemmas)
        home = max(sents, key=lambda s: _overlap(words, s, judge.lemmas) if words else 0.0)
        stated = canonical_quantities(home)
        for value, unit in unstated_by_form(part, canonical_quantities(part), home):
            same_unit = [v for v, u in stated if unit is not None and u == unit]
            if same_unit and value not in same_unit:  # that sentence states another value of this quantity
                return False
    return True


_PART = re.compile(r",\s+|;\s*|\s+and\s+|\s+but\s+|、|；")
_SUBJECT_END = re.compile(r"\b(?:is|are|was|were|must|can|cannot|can't|may|might|should|will|would|has|have|had|need|"
                          r"needs|do|does|did|get|gets|require|requires)\b|(?<=[^\s])(?:は|が)")


def _parts(claim: str, lemmas: bool = False) -> list[str]:
    """A claim cut where it joins facts (``, `` ``and`` ``but`` ``;`` ``、``); a piece with fewer than two content
    words (or none and no number) stays with the one before it."""
    pieces = [p for p in _PART.split(claim) if p and p.strip()]
    out: list[str] = []
    for piece in pieces:
        if out and len(_tokens(piece, lemmas)) < 2:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    if len(out) > 1 and len(_tokens(out[0], lemmas)) < 2:
        out[1] = f"{out[0]} {out[1]}"
        out = out[1:]
    return out


def _subject(claim: str, lemmas: bool = False) -> frozenset:
    """The content words before the claim's first verb or auxiliary (English) or its first は / が (Japanese): what
    the claim is about. Empty when there is no such boundary."""
    m = _SUBJECT_END.search(unicodedata.normalize("NFKC", claim).casefold())
    return _tokens(claim[:m.start()], lemmas) if m and m.start() > 0 else frozenset()


def support_of_answer(answer: str, passages: list[dict], judge, question: str | None = None) -> list[dict]:
    """Every claim of ``answer`` judged by ``judge`` (``judge.judge(claim, passages)``, with ``question=`` when given
    and the judge takes it), in order."""
    takes = question is not None and "question" in inspect.signature(judge.judge).parameters
    return [judge.judge(claim, passages, question=question) if takes else judge.judge(claim, passages)
            for claim in split_claims(answer)]


def answer_support(claims: list[dict]) -> str:
    """An answer's support level from its judged claims (:data:`SUPPORT_LEVELS`); claims without content are left
    out."""
    verdicts = [c["supported"] for c in claims if c["supported"] is not None]
    if not verdicts:
        return "no claims"
    if all(verdicts):
        return "full"
    return "partial" if any(verdicts) else "none"
