"""The pieces of a text a support or correctness judge compares: claims, quantities, polarity and content tokens.

* :func:`split_claims` -- an answer cut into claims: sentences (``. ! ?`` and ``。！？``, line breaks), then clauses
  (``;`` and ``；``; a Japanese ``、`` after a conjunctive form -- ``し、`` ``て、`` ``で、`` ``が、`` ``り、`` -- or
  before a conjunction -- ``また`` ``さらに`` ``ただし`` ``なお``; English ``, and`` / ``, but`` / ``; and`` before a new
  clause). A fragment without content (a bare "Yes", "No", "はい", "いいえ") is joined to the claim after it.
* :func:`quantities` -- every number of a text as ``(value, unit)``: NFKC first (full-width digits, ``４,８００``),
  thousands separators (``1,500`` = 1500), decimals, Japanese ``万`` / ``億`` multipliers (``50万円`` = 500000 円),
  English number words up to twenty and the tens (``five``, ``fourteen``, ``thirty``) and ordinals (``5th``,
  ``fifth``), kanji numerals before a Japanese unit (``二十日`` = 20 日, ``十五文字``, ``三百万円``). The unit is the word after the number (plural ``s`` dropped) or, in Japanese, the character(s) after it
  (``日``, ``か月``, ``円``); None when what follows is not a unit word.
* :func:`canonical_quantities` -- the same with units converted to one unit per dimension (``two weeks`` = ``14
  days`` = ``２週間`` = ``14日``), read by the support and the correctness judges alike.
* :func:`refusal_rest` -- whether a claim says the documents do not state something (``The documents do not say
  ...``, ``資料には...の記載はありません``), and what it says they do not state.
* :func:`negated` -- whether a text states a negation: ``not``, ``no``, ``never``, ``cannot``, ``n't``, ``neither``,
  ``nor``; ``ない``, ``ません``, ``ず``, ``不可``, ``認めない``... with the Japanese double negatives of obligation
  (``なければならない``, ``なくてはならない``: "must") read as positive.
* :func:`content_tokens` -- what a claim says in words: English words (lower case, a plural ``s`` dropped) without
  stop words and numbers; Japanese as character bigrams of its kana/kanji runs, digits removed.
* :func:`lemma_tokens` -- the same with dictionary forms from maintained libraries where installed (the ``lemmas``
  extra): simplemma's English lemmas, SudachiPy's normalized forms of Japanese content words; :func:`lemmas_available`
  says which are.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from rag_metrics.core.text import CJK

__all__ = ["split_claims", "quantities", "canonical_quantities", "negated", "content_tokens", "quantities_agree",
           "refusal_rest", "bands", "exact_quantities", "quantity_words", "identifiers", "other_identifier",
           "other_value", "unstated_by_form", "lemma_tokens", "lemmas_available",
           "synonym_groups", "STOPWORDS", "UNITS"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])|\n+")
_CLAUSE_EN = re.compile(r"\s*;\s*|,\s+(?=(?:and|but|while|whereas)\s)")
_CONJUNCTIONS = ("また", "さらに", "ただし", "なお", "そして", "しかし")
_CLAUSE_JA = re.compile(r"(?<=[してでがり])、|、(?=(?:" + "|".join(_CONJUNCTIONS) + "))|[;；]")
_EMPTY_ANSWERS = {"yes", "no", "はい", "いいえ", "ok"}

STOPWORDS = frozenset("""a an the of to in on at by for from with and or but if then than as is are was were be been
being it its this that these those there their they them he she you your we our i me my do does did can could may
might must shall should will would has have had not no nor never so such only also any every each all per up which
who whom what when where why how about into over under after before between more most less least other same very
just too yes ok""".split())

_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                    "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_WORDS |= {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
           "hundred": 100}
_ORDINALS = {w: i + 1 for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth eleventh "
                                            "twelfth".split())}
_NUMBER = re.compile(r"(?<![0-9A-Za-z.])(\d+(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(st|nd|rd|th)\b)?\s*([万億])?")
_WORD = re.compile(r"[a-z][a-z0-9]*(?:'[a-z]+)?")
_NEXT_EN = re.compile(r"\s*(?:-\s*)?([a-z%€$]+)")
_JA_UNITS = ("か月", "ヶ月", "カ月", "ヵ月", "営業日", "週間", "時間", "文字", "年", "月", "日", "週", "時", "分", "秒",
             "回", "円", "社", "泊", "件", "歳", "度", "人", "台", "枚", "%", "％")
_EN_UNIT_STOP = STOPWORDS - {"per"}
_NEGATION_EN = re.compile(r"\b(?:not|no|never|cannot|neither|nor|none|nothing|prohibited|forbidden|banned|"
                          r"excluded|disallowed)\b|n't\b|\bnon-")
_OBLIGATION_JA = re.compile(r"(?:なければ|なくては|なくちゃ|ねば)(?:なら|なり|いけ)(?:ない|ません|ず)")
_NEGATION_JA = re.compile(r"ない|ません|ず(?:に|、|。|$)|不可|禁止|認めない|できぬ|なし|対象外|不要")
_CJK_RUN = re.compile(rf"[{CJK}ー]+")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", str(text))


def split_claims(text: str) -> list[str]:
    """The claims of an answer, in order (module docstring): sentences, then clauses.

    >>> split_claims("No, alcohol is not reimbursable. Taxis need a receipt; hotels too.")
    ['No, alcohol is not reimbursable.', 'Taxis need a receipt', 'hotels too.']
    >>> split_claims("経費精算規程で精算し、食事は1日45ユーロの定額です。")
    ['経費精算規程で精算し', '食事は1日45ユーロの定額です。']
    """
    if not isinstance(text, str):
        return []
    claims: list[str] = []
    pending = ""
    for sentence in _SENTENCE_END.split(text.strip()):
        for clause in _CLAUSE_JA.split(sentence):
            for part in _CLAUSE_EN.split(clause):
                part = part.strip()
                if not part:
                    continue
                if (not content_tokens(part) and not quantities(part)) or _FILLER.fullmatch(part):
                    pending = f"{pending} {part}".strip() if pending else part
                    continue
                claims.append(f"{pending} {part}".strip() if pending and not _is_ja(part) else pending + part)
                pending = ""
    if pending and claims:
        claims[-1] = claims[-1] + (" " if not _is_ja(pending) else "") + pending
    elif pending and _nfkc(pending).casefold().strip(" .,!?。、！？") not in _EMPTY_ANSWERS:
        claims.append(pending)
    return claims


_FILLER = re.compile(r"(?i)\s*(?:(?:i'm|i\s+am|we're|we\s+are)\s+(?:very\s+|so\s+)?sorry|sorry|unfortunately|"
                     r"申し訳(?:ありません|ございません)(?:が)?|残念ながら|恐れ入りますが?|あいにく)[\s,.、。!！]*")
"""An apology or a hedge said before a refusal ("I'm sorry, but the documents do not say ..."): no claim."""


def _is_ja(text: str) -> bool:
    return bool(re.search(rf"[{CJK}]", text))


def quantities(text: str) -> list[tuple[float, str | None]]:
    """Every number of ``text`` with its unit (module docstring), in order.

    >>> quantities("翌月５日と50万円")
    [(5.0, '日'), (500000.0, '円')]
    >>> quantities("within 30 days, up to 1,500 EUR, the fifth day")
    [(30.0, 'day'), (1500.0, 'eur'), (5.0, 'day')]
    """
    return list(_quantities(str(text)))


@functools.lru_cache(maxsize=65536)
def _quantities(text: str) -> tuple:
    """:func:`quantities`, cached: a judge reads the same pages for every answer."""
    text = _nfkc(text).casefold()
    found: list[tuple[int, float, str | None]] = []
    for m in _NUMBER.finditer(text):
        value = float(m.group(1).replace(",", ""))
        if m.group(3):
            value *= 1e4 if m.group(3) == "万" else 1e8
        found.append((m.start(), value, _unit(text, m.end())))
    for m in _WORD.finditer(text):
        word = m.group(0)
        value = _WORDS.get(word, _ORDINALS.get(word))
        if value is not None:
            unit = _unit(text, m.end())
            if word == "one" and unit not in UNITS:
                continue  # "in one case", "the one who": a pronoun more often than a count
            found.append((m.start(), float(value), unit))
    for m in _HALF.finditer(text):
        found.append((m.start(), *_HALF_VALUES[m.group(1) or m.group(2) or m.group(0)]))
    for m in _KANJI_NUMBER.finditer(text):
        unit = _unit(text, m.end())
        after = text[m.end() + len(unit or ""):m.end() + len(unit or "") + 1]
        if unit is None or unit not in _JA_UNIT_NAMES or (m.group(0) == "十" and unit == "分" and after in _ADVERB):
            continue  # 一般 has no unit; 十分に / 十分な / 十分です is "enough", not ten minutes
        found.append((m.start(), float(_kanji_value(m.group(0))), unit))
    return tuple((v, u) for _, v, u in sorted(found, key=lambda x: x[0]))


_HALF = re.compile(r"\bhalf[\s-]+(?:an?\s+)?(year|day|hour)\b|\ba\s+(fortnight)\b|半年|半日")
_HALF_VALUES = {"year": (6.0, "month"), "半年": (6.0, "month"), "day": (0.5, "day"), "半日": (0.5, "day"),
                "hour": (30.0, "minute"), "fortnight": (14.0, "day")}
"""Quantities said without a digit: half a year = 6 months, half a day, half an hour, a fortnight = 14 days."""
_ADVERB = frozenset("になでだとすか")
_KANJI_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "両": 2}
_KANJI_POWERS = {"十": 10, "百": 100, "千": 1000}
_KANJI_NUMBER = re.compile(r"(?<![〇一二三四五六七八九十百千万億零])[〇一二三四五六七八九十百千零両]+(?:[万億][〇一二三四五六七八九十百千]*)*")


def _kanji_value(text: str) -> int:
    """A number written in kanji: 十五 = 15, 二十 = 20, 三百二十 = 320, 千五百 = 1500, 五万 = 50000, and digit by digit
    (二〇二六 = 2026)."""
    if all(c in _KANJI_DIGITS for c in text):
        return int("".join(str(_KANJI_DIGITS[c]) for c in text))
    total, section, digit = 0, 0, 0
    for c in text:
        if c in _KANJI_DIGITS:
            digit = _KANJI_DIGITS[c]
        elif c in _KANJI_POWERS:
            section += (digit or 1) * _KANJI_POWERS[c]
            digit = 0
        else:  # 万, 億
            total += (section + digit) * (10_000 if c == "万" else 100_000_000)
            section = digit = 0
    return total + section + digit


def _unit(text: str, end: int) -> str | None:
    rest = text[end:end + 6]
    for unit in _JA_UNITS:
        if rest.startswith(unit):
            return {"ヶ月": "か月", "カ月": "か月", "ヵ月": "か月", "％": "%"}.get(unit, unit)
    m = _NEXT_EN.match(text, end)
    if not m:
        return None
    word = m.group(1)
    if word in ("working", "business", "calendar") and re.match(r"\s+days?\b", text[m.end():]):
        return "working day" if word != "calendar" else "day"
    if word in _EN_UNIT_STOP or word in _WORDS or word in _ORDINALS:
        return None
    if word in ("percent", "per", "%"):
        return "%" if word != "per" else None
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


UNITS = {
    "day": ("day", 1), "working day": ("working day", 1), "日": ("day", 1), "日間": ("day", 1), "日前": ("day", 1),
    "営業日": ("working day", 1),
    "week": ("day", 7), "週間": ("day", 7), "週": ("day", 7),
    "month": ("month", 1), "か月": ("month", 1), "year": ("month", 12), "年": ("month", 12),
    "hour": ("minute", 60), "時間": ("minute", 60), "minute": ("minute", 1), "分": ("minute", 1),
    "second": ("second", 1), "秒": ("second", 1),
    "eur": ("eur", 1), "euro": ("eur", 1), "ユーロ": ("eur", 1), "yen": ("yen", 1), "円": ("yen", 1),
    "time": ("time", 1), "回": ("time", 1), "%": ("%", 1), "character": ("character", 1), "文字": ("character", 1),
}
"""Units converted to one unit per dimension (:func:`canonical_quantities`): English and Japanese names mapped to one
another, weeks to days, years to months, hours to minutes."""
_JA_UNIT_NAMES = frozenset(_JA_UNITS) | {"か月"}


def quantity_words(text: str) -> set:
    """The words that give the quantities of ``text`` their unit ("days", "working day", "half a year"): the number
    check reads them, so the word overlap need not.

    >>> sorted(quantity_words("Keep it for half a year and 3 working days."))
    ['half a year', 'month', 'working day']
    """
    low = _nfkc(text).casefold()
    return {u for _, u in quantities(text) if u is not None} | {m.group(0) for m in _HALF.finditer(low)}


def canonical_quantities(text: str) -> list[tuple[float, str | None]]:
    """:func:`quantities` with units converted to one unit per dimension (:data:`UNITS`): the one quantity reader of
    the support and the correctness judges.

    >>> canonical_quantities("two weeks") == canonical_quantities("14日") == canonical_quantities("十四日")
    True
    >>> canonical_quantities("3 hours")
    [(180.0, 'minute')]
    """
    return list(_canonical(str(text)))


@functools.lru_cache(maxsize=65536)
def _canonical(text: str) -> tuple:
    out = []
    for value, unit in _quantities(text):
        name, factor = UNITS.get(unit, (unit, 1)) if unit is not None else (None, 1)
        out.append((round(value * factor, 9), name))
    return tuple(out)


def quantities_agree(claim: list, passage: list) -> bool:
    """Whether every quantity of a claim is stated by the passage: the same value, with the same unit when both
    name one. A claim without numbers agrees with any passage."""
    for value, unit in claim:
        if not any(v == value and (unit is None or u is None or u == unit) for v, u in passage):
            return False
    return True


def negated(text: str) -> bool:
    """Whether ``text`` states a negation (module docstring).

    >>> negated("Alcohol is not reimbursable."), negated("Alcohol is reimbursable.")
    (True, False)
    >>> negated("見積もりを取得しなければならない。"), negated("返金しません。")
    (False, True)
    """
    text = _nfkc(text).casefold()
    if _NEGATION_EN.search(_BOUND_EN.sub(" ", text)):
        return True
    return bool(_NEGATION_JA.search(_NOUN_NEGATION_JA.sub("", _OBLIGATION_JA.sub("", text))))


_NOUN_NEGATION_JA = re.compile(r"(?:ない|ません)こと(?=の|を(?:証明|確認|誓約|確約|表明))")
"""A negation inside a noun phrase: 「反社会的勢力でないことの確認書」 is a document, not a negated statement (a rule's
「使用しないこと。」 stays a negation)."""


_BOUND_EN = re.compile(r"\b(?:no|not)\s+(?:later|earlier|more|less|fewer|sooner|longer|older)\s+than\b")
"""A bound, not a negation: "no later than two weeks before" = "at least two weeks before"."""
_LOWER = re.compile(r"(?:above|over|more\s+than|from|between|exceeding|at\s+least)\s*$")
_LOWER_AFTER = re.compile(r"^\s*(?:以上|超|から|を超え)")
_UPPER = re.compile(r"(?:up\s+to|below|under|less\s+than|to|and|-|~|〜)\s*$")
_UPPER_AFTER = re.compile(r"^\s*(?:未満|以下|まで|or\s+less|or\s+below)")


def bands(text: str) -> list[tuple[float, float, str | None]]:
    """The ranges a text states as ``(low, high, unit)`` in canonical units (:func:`canonical_quantities`): a number
    marked as a lower bound (``above 500 EUR``, ``１０万円以上``) followed in the same sentence by a larger one of the
    same unit marked as an upper bound (``up to 2,000 EUR``, ``１００万円未満``). A claim's amount inside a band is stated
    by it: "a 1,500 EUR claim" by "claims above 500 EUR and up to 2,000 EUR".

    >>> bands("Claims above 500 EUR and up to 2,000 EUR also need the cost-centre owner.")
    [(500.0, 2000.0, 'eur')]
    >>> bands("１０万円以上１００万円未満の場合は部門長が承認する。")
    [(100000.0, 1000000.0, 'yen')]
    """
    return list(_bands(str(text)))


@functools.lru_cache(maxsize=16384)
def _bands(text: str) -> tuple:
    text = _nfkc(text).casefold()
    out = []
    for sentence in _SENTENCE_END.split(text):
        found = []
        for m in _NUMBER.finditer(sentence):
            qs = canonical_quantities(m.group(0) + sentence[m.end():m.end() + 12])
            if qs:
                found.append((m.start(), m.end() + len(_unit_text(sentence, m.end())), qs[0]))
        for (s1, e1, (v1, u1)), (s2, e2, (v2, u2)) in zip(found, found[1:]):
            if u1 is None or u1 != u2 or not v1 < v2:
                continue
            lower = _LOWER.search(sentence[max(0, s1 - 16):s1]) or _LOWER_AFTER.match(sentence[e1:])
            upper = _UPPER_AFTER.match(sentence[e2:]) or _UPPER.search(sentence[e1:s2].replace("以上", "")
                                                                       .replace("and up to", "up to"))
            if lower and upper:
                out.append((v1, v2, u1))
    return tuple(out)


_BOUND_BEFORE = re.compile(r"(?:above|over|more\s+than|from|between|exceeding|at\s+(?:least|most)|up\s+to|below|under|"
                           r"less\s+than|within|to|and|-|~|〜)\s*$")
_BOUND_AFTER = re.compile(r"^\s*(?:以上|超|未満|以下|まで|以内|から|を超え|or\s+(?:more|less|above|below))")


def exact_quantities(text: str) -> list[tuple[float, str | None]]:
    """The canonical quantities of ``text`` stated as values, not as bounds: "a 1,500 EUR claim" gives 1500 EUR,
    "claims above 500 EUR" and "５０万円以上" give nothing. Only such a value can fall inside a span's band
    (:func:`bands`): a threshold the claim states must be the page's own."""
    text = _nfkc(text).casefold()
    out = []
    for m in _NUMBER.finditer(text):
        after = text[m.end() + len(_unit_text(text, m.end())):]
        if _BOUND_BEFORE.search(text[max(0, m.start() - 16):m.start()]) or _BOUND_AFTER.match(after):
            continue
        out.extend(canonical_quantities(m.group(0) + text[m.end():m.end() + 12])[:1])
    return out


def _unit_text(text: str, end: int) -> str:
    """The unit's characters right after a number (for the bound word after it: ``１０万円以上``)."""
    rest = text[end:end + 6]
    for unit in _JA_UNITS:
        if rest.startswith(unit):
            return unit
    m = _NEXT_EN.match(text, end)
    return m.group(0) if m else ""


def content_tokens(text: str) -> list[str]:
    """What ``text`` says in words (module docstring): English content words and Japanese character bigrams.

    >>> content_tokens("Passwords must be 14 characters long.")
    ['password', 'character', 'long']
    >>> content_tokens("翌月５日の給与")
    ['翌月', '日の', 'の給', '給与']
    """
    text = _nfkc(text).casefold()
    out = []
    for word in _WORD.findall(text):
        if word in STOPWORDS or word in _WORDS or word in _ORDINALS or len(word) < 2:
            continue
        out.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.append(run)
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
    return out


_DOCS = r"(?:documents?|context|sources?|pages?|texts?|materials?|information|passages?)"
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s+not|don't)\s+know|no\s+(?:information|mention|details?)\b|"
    r"(?:not|never|nowhere)\s+(?:mentioned|stated|specified|described|documented)\b|"
    rf"{_DOCS}\s+(?:provided\s+)?(?:(?:does|do|did)\s+not|doesn't|don't)\s+(?:say|state|mention|specify|contain|"
    r"describe|provide|give|include|cover|address)|(?:cannot|can't|could\s+not|couldn't|unable\s+to)\s+"
    r"(?:find|answer|tell|determine|say)\b|(?:is|are)\s+(?:not|n't)\s+(?:known|clear)\s+from)"
    r"|記載(?:は|が)?(?:あり|ござい|見当たり|見つかり)ません|記載されていません|記されていません|書かれていません|"
    r"明記されていません|記述(?:は|が)?(?:あり|見当たり)ません|情報(?:は|が)?(?:あり|見当たり|見つかり)ません|"
    r"見当たりません|わかりません|分かりません|触れられていません|言及(?:は|が)?(?:あり|され)ません|"
    r"(?:判断|確認|特定)(?:は|が)?できません|示されていません|載っていません")
_REFUSAL_WORDS = frozenset("document documents source sources context page pages text information policy guide "
                           "manual say state mention specify provided given answer find know tell contain contains "
                           "include includes detail details whether".split())
_REFUSAL_JA = re.compile(r"資料|文書|ドキュメント|記載|情報|について|には|では|の中")


def refusal_rest(claim: str) -> str | None:
    """None when ``claim`` is not a refusal; else what it says the documents do not state: the claim without its
    refusal phrase, stop words and the words that name the documents (``"The documents do not say how long SMS codes
    are valid."`` -> ``"long sms codes valid"``; an empty string for a bare "I don't know").

    >>> refusal_rest("The documents do not say how long SMS codes are valid.")
    'long sms codes valid'
    >>> refusal_rest("Alcohol is not reimbursable.") is None
    True
    """
    text = _nfkc(claim).casefold()
    m = _REFUSAL.search(text)
    if m is None:
        return None
    rest = (text[:m.start()] + " " + text[m.end():]).strip()
    rest = " ".join(w for w in rest.split() if w.strip(".,;:!?") not in _REFUSAL_WORDS and w not in STOPWORDS)
    return _REFUSAL_JA.sub(" ", rest).strip(" 、。,.!?")


# --- lemmas and morphological normalization (optional: the `lemmas` extra) ---------------------------------------

_JA_CONTENT_POS = frozenset({"名詞", "動詞", "形容詞", "形状詞", "副詞"})
_JA_LIGHT = frozenset("する 為る ある 有る いる 居る なる 成る できる 出来る こと 事 もの 物 ため 為 よう 様 ところ 所 場合 "
                      "とき 時 れる られる せる させる".split())
_JA_UNIT_FORMS = frozenset(_JA_UNITS) | {"箇月", "ヶ月", "日間", "間"}
_NORMALIZERS: dict = {}


def _english_lemma():
    """simplemma's English lemmatizer, or None when it is not installed."""
    if "en" not in _NORMALIZERS:
        try:
            import simplemma
        except ImportError:
            _NORMALIZERS["en"] = None
        else:
            _NORMALIZERS["en"] = lambda word: simplemma.lemmatize(word, lang="en")
    return _NORMALIZERS["en"]


def _japanese_tokenizer():
    """A SudachiPy tokenizer (split mode A, the shortest units) on sudachidict-core, or None when either is
    missing."""
    if "ja" not in _NORMALIZERS:
        try:
            from sudachipy import Dictionary, SplitMode
            dictionary = Dictionary(dict="core")
            make = getattr(dictionary, "tokenizer", None) or dictionary.create  # create(): SudachiPy before 0.7
            tokenizer = make(mode=SplitMode.A)
        except Exception:  # not installed, or the dictionary package missing: the bigram fallback
            _NORMALIZERS["ja"] = None
        else:
            _NORMALIZERS["ja"] = tokenizer
    return _NORMALIZERS["ja"]


def lemmas_available() -> dict:
    """Which normalizers :func:`lemma_tokens` has here: ``{"en": bool, "ja": bool}`` (simplemma; SudachiPy with
    sudachidict-core)."""
    return {"en": _english_lemma() is not None, "ja": _japanese_tokenizer() is not None}


def lemma_tokens(text: str, *, languages=("en", "ja")) -> list[str]:
    """:func:`content_tokens` with words reduced to their dictionary form where a maintained library is installed:
    English lemmas from simplemma (``paid`` -> ``pay``, ``expires`` -> ``expire``), Japanese content words (nouns,
    verbs, adjectives, adverbs; numerals, particles, auxiliaries and light verbs dropped) in SudachiPy's normalized
    form (``支払われます`` -> ``支払う``, ``もらえ`` -> ``貰う``). Without a library, or for a language not in
    ``languages``, that language falls back to :func:`content_tokens` (plural ``s`` dropped; character bigrams).

    >>> set(lemma_tokens("Passwords do not expire.")) <= {"password", "expire", "passwords"}
    True
    """
    text = _nfkc(text).casefold()
    lemma = _english_lemma() if "en" in languages else None
    out = []
    for word in _WORD.findall(text):
        if word in STOPWORDS or word in _WORDS or word in _ORDINALS or len(word) < 2:
            continue
        if lemma is not None:
            out.append(lemma(word))
        else:
            out.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    runs = _CJK_RUN.findall(text)
    if not runs:
        return out
    tokenizer = _japanese_tokenizer() if "ja" in languages else None
    if tokenizer is None:
        for run in runs:
            out.extend([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
        return out
    for m in tokenizer.tokenize(text):
        pos = m.part_of_speech()
        form = m.normalized_form()
        if pos[0] in _JA_CONTENT_POS and pos[1] != "数詞" and form not in _JA_LIGHT and form not in _JA_UNIT_FORMS \
                and _CJK_RUN.fullmatch(form):
            out.append(form)
            if form not in _SYNONYMS:
                _SYNONYMS[form] = frozenset(m.synonym_group_ids() or ())
    return out


_SYNONYMS: dict = {}


def synonym_groups(word: str) -> frozenset:
    """The synonym groups of a Japanese word as SudachiPy's dictionary lists them (給料 and 給与 share one), for a
    word :func:`lemma_tokens` has met; empty otherwise (English words, or SudachiPy not installed)."""
    return _SYNONYMS.get(word, frozenset())


# --- quantities and identifiers stated in another form (the support judge's third round of issue 46) ----------

_CODE = re.compile(r"(?<![0-9a-z])[a-z]{1,3}-?[0-9]{1,4}(?![0-9a-z])")


def identifiers(text) -> frozenset:
    """The identifiers a text names: letters then digits (an error code E4, a model X2, a form EX-7)."""
    if not isinstance(text, str):
        return frozenset()
    return frozenset(m.group(0).replace("-", "") for m in _CODE.finditer(_nfkc(text).casefold()))


def other_identifier(codes: frozenset, span: str) -> bool:
    """Whether the span names an identifier with the letters of one of ``codes`` but not that one (E3 for E4)."""
    named = identifiers(span)
    prefix = lambda code: code.rstrip("0123456789")  # noqa: E731
    return any(code not in named and any(prefix(n) == prefix(code) for n in named) for code in codes)


def other_value(numbers: list, span: str) -> bool:
    """Whether the span states, for a unit of the claim's quantities, only other values: "eight hours" against the
    claim's "two hours"."""
    stated = canonical_quantities(span)
    return any(unit is not None and any(u == unit for _, u in stated) and (value, unit) not in stated
               for value, unit in numbers)


_RATE = re.compile(r"(?:1|一)\s*(週間|週|日|か月|ヶ月|カ月|年|時間)\s*(?:に|あたり|当たり|につき|ごと)")


def unstated_by_form(claim: str, numbers: list, span: str) -> list:
    """The claim's quantities less those the span states in another form: an amount inside a band the span gives
    (:func:`bands`: 1,500 EUR inside "above 500 EUR and up to 2,000 EUR", the claim's amount being a value, not a
    bound of its own), and a rate's "one week" (「1週間に2日」) when the span names the unit without a number
    (「週２日」)."""
    if not numbers:
        return numbers
    out = list(numbers)
    ranges = bands(span)
    if ranges:
        for value, unit in exact_quantities(claim):
            if (value, unit) in out and not quantities_agree([(value, unit)], canonical_quantities(span)) \
                    and any(low < value < high and unit == u for low, high, u in ranges):
                out.remove((value, unit))
    text, span_text = _nfkc(claim).casefold(), _nfkc(span).casefold()
    for m in _RATE.finditer(text):
        word = m.group(1)
        (value, unit), = canonical_quantities("1" + word)
        per = re.search(rf"毎{word[0]}|{word[0]}(?:\s*[0-9]|に|あたり|当たり|ごと|額)", span_text)
        if (value, unit) in out and per and not quantities_agree([(value, unit)], canonical_quantities(span)):
            out.remove((value, unit))
    return out
