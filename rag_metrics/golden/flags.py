"""Flag rules for a draft golden set: questions that only make sense with the page in view, and near-duplicates.

:func:`flag_context_dependent` returns the reasons a question looks context-dependent (an empty
list when none), from these rules, English and Japanese (:data:`PATTERNS`):

list when none), from these rules, English and Japanese (:data:`PATTERNS`):

============================  ====================================================================
``points_at_page``            deixis aimed at the text: *this page/section/script/table*, *the
                              present document*; この・その・当該・本・同 + ページ/節/章/条/文書/
                              規程/スクリプト/表/図…, 本書, 同書
``above_below``               *the above*, *the table below*, *the following*, *as described*,
                              *mentioned above*; 上記,
                              下記, 前述, 後述, 上述, 以下の (not after an amount: 3万円以下の is "or less")
``here``                      *here*, *herein*, *in this context*, *in the text/passage*; ここで, ここでは,
                              本文, 文中, 文脈
``quoted_expression``         a quoted expression asked about as wording: *the expression "defence
                              base"*; 「…」という表現・言葉・用語・記述・言い回し
``numbered_reference``        figure, table, page, section, step, clause numbers: *Table 2*, *page 4*,
                              *section 3.1*; 図1, 表２, 3ページ, 第4条, 第2章
``according_to_the_document`` *according to the document/text/policy/manual/guide*
``the_author``                *the author*, *the writer*; 筆者, 著者, 作成者
``pronoun_without_antecedent`` a question that opens with *this/that/it/they* (not *this year*) or asks
                              *what does it say/mean*; a question that opens with この・その・あの・これ・それ
``names_the_document``        the document's title (or its ID written as words) in the question;
                              for a Japanese title, any 6 consecutive kana/kanji of it
``answer_not_on_page``        an extractive generator's answer, or an LLM's quoted evidence, that does
                              not occur on its page after normalization (NFKC, whitespace, case)
============================  ====================================================================

:func:`near_duplicates` flags a question whose character-trigram Jaccard similarity with an
earlier one (NFKC, lower-case, spaces and punctuation removed) reaches ``threshold``.

:func:`heading_template` flags a question that is a heading of its own page wrapped in a template --
*What are the rules on <heading>?*, *What is the procedure for <heading>?*, *Tell me about <heading>*,
*<見出し>について教えてください。*, *<見出し>の手順を教えてください。* -- the filler an extractive generator
writes when a section has no better question. The wrapped words must be a whole heading line of the page
(a Markdown ``#`` line, its numbering such as ``2.1`` removed; NFKC, case folded), not a part of one: such a
question asks for a section by its title ("What are the rules on deadline?" -- whose deadline?) and no user
would type it.

:func:`heading_copy` tells whether a question IS a heading of its own page (an FAQ's "Q3 駐車場は使えますか",
asked as 駐車場は使えますか？), compared the same way with the closing ?/？/。 ignored: not a reason to drop it, but a
retriever finds such a page by its heading, so these questions score higher than a user's own wording would.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import CJK_CHAR, normalize

__all__ = ["Pattern", "PATTERNS", "HEADING_TEMPLATE", "flag_context_dependent", "heading_template", "heading_copy",
           "near_duplicates"]


@dataclass(frozen=True)
class Pattern:
    """One rule of :func:`flag_context_dependent`: ``name``, ``language`` ("en"/"ja"), the regex and the reason."""

    name: str
    language: str
    regex: re.Pattern
    reason: str


_EN_TEXT_NOUNS = (r"page|section|chapter|paragraph|passage|excerpt|text|document|table|figure|diagram|chart|list|"
                  r"script|code|snippet|command|example|clause|article|appendix|guide|manual|policy|handbook|memo|"
                  r"report|file|sentence|definition")
_JA_TEXT_NOUNS = (r"ページ|頁|節|章|条|項|段落|文書|資料|ガイド|規程|規約|規則|マニュアル|手引き|スクリプト|コード|"
                  r"プログラム|コマンド|表|図|例|手順書|記述|説明|文章|箇所|一文|部分|書類|抜粋|定義")

PATTERNS: tuple[Pattern, ...] = (
    Pattern("points_at_page", "en", re.compile(
        rf"\b(?:this|that|these|those|the present|the current)\s+(?:{_EN_TEXT_NOUNS})s?\b", re.I),
        "points at the page"),
    Pattern("above_below", "en", re.compile(
        r"\b(?:the above|above-mentioned|aforementioned|(?:mentioned|described|shown|listed|stated|given) (?:above|below)"
        r"|the following|below-mentioned|as (?:shown|described|mentioned|stated|listed)|the preceding|the previous "
        rf"(?:section|page|paragraph|step)|(?:{_EN_TEXT_NOUNS})s? (?:above|below))\b", re.I),
        "refers to text above or below"),
    Pattern("here", "en", re.compile(
        r"\b(?:here|herein|hereafter|hereunder|in this context|in (?:the|this) (?:text|passage|excerpt)|on (?:the|this) "
        r"page)\b", re.I),
        "asks about 'here'"),
    Pattern("quoted_expression", "en", re.compile(
        r"\b(?:expression|phrase|wording|sentence|statement|quote)\s+[\"“'‘][^\"”'’]+[\"”'’]"
        r"|[\"“'‘][^\"”'’]+[\"”'’]\s+(?:expression|phrase|wording)\b", re.I),
        "asks about a quoted expression of the text"),
    Pattern("numbered_reference", "en", re.compile(
        r"(?:\b(?:figure|fig\.|table|page|p\.|pp\.|section|chapter|appendix|annex|step|item|line|paragraph|para\.|"
        r"clause|article|exhibit)|§)\s*\(?(?:\d+(?:\.\d+)*|[IVX]+)\b", re.I),
        "cites a figure, table, page or section number"),
    Pattern("according_to_the_document", "en", re.compile(
        r"\baccording to (?:the|this|that) (?:document|text|page|passage|policy|manual|guide|handbook|excerpt|article|"
        r"author|report|script|section)\b", re.I),
        "refers to the document"),
    Pattern("the_author", "en", re.compile(r"\b(?:the|this) (?:author|writer)s?\b", re.I),
            "refers to the text's author"),
    Pattern("pronoun_without_antecedent", "en", re.compile(
        r"^(?:this|that|it|they|these|those)\b(?!\s+(?:year|month|week|quarter)\b)|\bwhat (?:does|do|did) (?:it|this|that|they) "
        r"(?:say|mean|describe|show|state|recommend|require)\b", re.I),
        "a pronoun with nothing it could refer to in the question"),
    Pattern("points_at_page", "ja", re.compile(
        rf"(?:(?:この|その|あの|当該|本|同)(?:{_JA_TEXT_NOUNS})|本書|同書)"),
        "points at the page"),
    Pattern("above_below", "ja", re.compile(
        r"(?:上記|下記|前記|後記|上述|前述|後述|右記|左記|(?<![0-9０-９円万千百十歳日件人個点%％])以下の|次の(?:うち|中|記述|項目|表|図|条件))"),
        "refers to text above or below"),
    Pattern("here", "ja", re.compile(r"(?:ここ(?:で|では|に|の|でいう|で言う)|本文|文中|文脈)"),
        "asks about 'here'"),
    Pattern("quoted_expression", "ja", re.compile(
        r"「[^」]+」(?:という|との|と言う|って)(?:表現|言葉|語|用語|文|記述|言い回し|一文|フレーズ)"),
        "asks about a quoted expression of the text"),
    Pattern("the_author", "ja", re.compile(r"(?:筆者|著者|作成者|執筆者|作者)"), "refers to the text's author"),
    Pattern("pronoun_without_antecedent", "ja", re.compile(r"^(?:この|その|あの|これ|それ|あれ)(?!から|まで)"),
            "a pronoun with nothing it could refer to in the question"),
    Pattern("numbered_reference", "ja", re.compile(
        r"(?:(?:図|表|別表|別紙|付録|ステップ)\s*[0-9０-９]+|[0-9０-９]+\s*(?:ページ|頁)"
        r"|第\s*[0-9０-９一二三四五六七八九十百]+\s*(?:章|節|条|項|号|ページ)|[pP]\.\s*[0-9]+)"),
        "cites a figure, table, page or section number"),
)



def _fold(text: str) -> str:
    return normalize(text).casefold()


def _names_document(question: str, title: str | None, doc_id: str | None) -> str | None:
    q = _fold(question)
    for name in (title, None if doc_id is None else re.sub(r"[_\-/]+", " ", doc_id)):
        if not name or len(name.strip()) < 4:
            continue
        folded = _fold(name)
        if folded in q:
            return name
        if CJK_CHAR.search(folded) and len(folded) > 6:
            for i in range(len(folded) - 5):
                window = folded[i:i + 6]
                if len(CJK_CHAR.findall(window)) == 6 and window in q:
                    return window
    return None


def flag_context_dependent(question: str, *, title: str | None = None, doc_id: str | None = None,
                           page_text: str | None = None, answer: str | None = None, evidence: str | None = None,
                           extractive: bool = False) -> list[str]:
    """Why ``question`` looks like it only makes sense with its page in view (module docstring); [] if no reason.

    Parameters
    ----------
    question : str
    title, doc_id : the source document's title and ID (a question naming them is flagged)
    page_text, answer, evidence : the page and what the generator took from it; with
        ``extractive=True`` an answer not on the page is flagged, otherwise a quoted ``evidence``
        not on the page is
    """
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}.")
    text = unicodedata.normalize("NFKC", question)
    reasons = []
    for pattern in PATTERNS:
        m = pattern.regex.search(text)
        if m:
            reasons.append(f"{pattern.reason}: '{m.group(0).strip()}'")
    leaked = _names_document(question, title, doc_id)
    if leaked:
        reasons.append(f"names the document: '{leaked}'")
    if page_text is not None:
        page = _fold(page_text)
        checked = answer if extractive else evidence
        if checked and _fold(checked) not in page:
            what = "the answer" if extractive else "the quoted evidence"
            reasons.append(f"{what} does not occur on its page")
    return list(dict.fromkeys(reasons))


HEADING_TEMPLATE = "a page heading wrapped in a template"  # how every reason of heading_template opens
_TEMPLATES = (
    re.compile(r"^what are the rules (?:on|for|about) (?P<topic>.+?)\s*\?$"),
    re.compile(r"^what is the procedure (?:for|to) (?P<topic>.+?)\s*\?$"),
    re.compile(r"^tell me about (?P<topic>.+?)\s*[.?!]?$"),
    re.compile(r"^(?P<topic>.+?)について教えて(?:ください|下さい)[。.]?$"),
    re.compile(r"^(?P<topic>.+?)の手順を教えて(?:ください|下さい)[。.]?$"),
    re.compile(r"^(?P<topic>.+?)はどうすればよいですか[。.?]?$"),
)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*$", re.M)
# applied to case-folded text, so "Q3" arrives as "q3": case-insensitive
_HEADING_NUMBER = re.compile(r"^(?:Q\s*\d+|第\s*[0-9一二三四五六七八九十]+\s*[章節条]|[0-9]+(?:\.[0-9]+)*\.?)\s*", re.I)


def _page_headings(page_text: str) -> set[str]:
    return {_fold(_HEADING_NUMBER.sub("", _fold(m.group(1))).strip()) for m in _HEADING.finditer(page_text)} - {""}


def heading_template(question: str, page_text: str | None) -> str | None:
    """The reason when ``question`` is a heading of ``page_text`` wrapped in a template (module docstring), else None.

    Without the page text nothing is flagged: the rule needs the page's headings.
    """
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}.")
    if not page_text:
        return None
    folded = _fold(question).strip()
    headings = _page_headings(page_text)
    for template in _TEMPLATES:
        m = template.match(folded)
        if m:
            topic = m.group("topic").strip()
            variants = {topic, topic.removeprefix("the ").strip(), topic + "について", topic + "の手順"}
            if variants & headings:
                return f"{HEADING_TEMPLATE}: '{m.group('topic').strip()}'"
    return None


_CLOSING = re.compile(r"[\s?？。.!！]+$")


def heading_copy(question: str, page_text: str | None) -> bool:
    """True when ``question`` is a whole heading line of ``page_text`` (module docstring): numbering, case, width
    and the closing ?/？/。 ignored. Without the page text, False."""
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}.")
    if not page_text:
        return False
    headings = {_CLOSING.sub("", _HEADING_NUMBER.sub("", _fold(m.group(1))).strip())
                for m in _HEADING.finditer(page_text)}
    return _CLOSING.sub("", _fold(question).strip()) in headings - {""}


_STRIP = re.compile(r"[\s\W_]+", re.U)


def _trigrams(text: str) -> set[str]:
    s = _STRIP.sub("", unicodedata.normalize("NFKC", text).casefold())
    return {s[i:i + 3] for i in range(max(len(s) - 2, 1))} if s else set()


def near_duplicates(questions, threshold: float = 0.7) -> list[tuple[int, int, float]]:
    """``(i, j, similarity)`` for every pair ``i < j`` whose character-trigram Jaccard similarity is >= ``threshold``.

    ``similarity = |A & B| / |A | B|`` over the two questions' trigram sets (module docstring), rounded to 3 decimals;
    two questions without any trigram (empty after folding) have similarity 1.0, one of them and a question with
    trigrams 0. Pairs are ordered by ``j``, then ``i``.

    Exact, without comparing every pair (prefix filtering, as in AllPairs and PPJoin): trigrams are ordered rarest
    first over all questions. A pair of sizes ``|A| >= |B|`` with similarity >= t has ``|B| >= t|A|`` and shares a
    trigram that is among the first ``|A| - ceil(t|A|) + 1`` of A and among the first ``|B| - ceil(2t/(1+t)|B|) + 1``
    of B; only such pairs are counted, dropped once the position of their shared trigrams bounds the overlap below
    ``t/(1+t) (|A| + |B|)``, and the survivors compared with the formula. The filters use a threshold lowered by a
    relative 1e-9 so that float rounding never drops a pair; the formula alone decides.

    Cost: one step per pair sharing a prefix trigram, plus one set intersection per survivor -- few pairs when
    prefixes hold rare trigrams, as in questions written from a corpus (on 2 cores, benchmarks/near_duplicates.md:
    8,000 such questions 0.7 s against 82 s for all pairs; 50,000 from one small corpus, 80,000 pairs of them
    near-duplicates, 19 s). When every trigram is common (a vocabulary of a few dozen words) the work grows with
    the square of the questions again, at about 1/25 of the all-pairs work (8,000: 5 s against 130 s). Empty
    questions pair with each other only.
    """
    if not 0 < threshold <= 1:
        raise InputError(f"threshold must be in (0, 1]; got {threshold!r}.")
    return _similar_pairs([_trigrams(q) for q in questions], threshold)


_SLACK = 1e-9  # relative: the filters' threshold is t * (1 - _SLACK), never the final decision


def _similar_pairs(grams: list[set], threshold: float) -> list[tuple[int, int, float]]:
    """Every ``(i, j, round(|a & b| / |a | b|, 3))``, ``i < j``, reaching ``threshold`` (1.0 for two empty sets)."""
    lo = threshold * (1 - _SLACK)
    overlap_share = lo / (1 + lo)  # a pair of sizes (s, r) shares >= (s + r) * t / (1 + t) trigrams
    frequency = Counter(g for s in grams for g in s)
    rank = {g: r for r, g in enumerate(sorted(frequency, key=lambda g: (frequency[g], g)))}
    tokens = [sorted(rank[g] for g in s) for s in grams]
    empty = [i for i, t in enumerate(tokens) if not t]
    pairs = [(i, j, 1.0) for n, j in enumerate(empty) for i in empty[:n]]
    # trigram rank -> (question, trigrams after this one, size) of the indexed prefixes, in the order indexed: by size
    index: dict[int, list[tuple[int, int, int]]] = {}
    for x in sorted((i for i, t in enumerate(tokens) if t), key=lambda i: (len(tokens[i]), i)):
        tx, sx = tokens[x], len(tokens[x])
        min_size = lo * sx  # every indexed question is no larger than x
        need = [math.ceil(overlap_share * (sx + sy)) for sy in range(sx + 1)]  # shared trigrams needed, by size
        found: dict[int, int] = {}  # candidate -> shared prefix trigrams so far; -1 once the bound rules it out
        for p in range(sx - math.ceil(lo * sx) + 1):
            entries = index.get(tx[p])
            if not entries:
                continue
            small = 0
            while small < len(entries) and entries[small][2] < min_size:
                small += 1
            if small:  # too small for x, and for every later (larger) question
                del entries[:small]
            rest_x = sx - p - 1
            for y, rest_y, sy in entries:
                c = found.get(y, 0)
                if c >= 0:
                    # every shared trigram before these two was counted: c + 1 now, at most the rest still to come
                    found[y] = c + 1 if c + 1 + (rest_x if rest_x < rest_y else rest_y) >= need[sy] else -1
        gx = grams[x]
        for y, c in found.items():
            if c > 0:
                gy = grams[y]
                union = len(gx | gy)
                sim = len(gx & gy) / union if union else 1.0
                if sim >= threshold:
                    pairs.append((y, x, round(sim, 3)) if y < x else (x, y, round(sim, 3)))
        for p in range(sx - math.ceil(2 * overlap_share * sx) + 1):
            index.setdefault(tx[p], []).append((x, sx - p - 1, sx))
    pairs.sort(key=lambda pair: (pair[1], pair[0]))
    return pairs
