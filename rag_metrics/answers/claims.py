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

import re
import unicodedata

from rag_metrics.core.text import CJK

__all__ = ["split_claims", "quantities", "canonical_quantities", "negated", "content_tokens", "quantities_agree",
           "refusal_rest", "lemma_tokens", "lemmas_available", "synonym_groups", "STOPWORDS", "UNITS"]

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
_NEGATION_EN = re.compile(r"\b(?:not|no|never|cannot|neither|nor|none|nothing)\b|n't\b|\bnon-")
_OBLIGATION_JA = re.compile(r"(?:なければ|なくては|なくちゃ|ねば)(?:なら|いけ)(?:ない|ません|ず)")
_NEGATION_JA = re.compile(r"ない|ません|ず(?:に|、|。|$)|不可|禁止|認めない|できぬ|なし")
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
                if not content_tokens(part) and not quantities(part):
                    pending = f"{pending} {part}".strip() if pending else part
                    continue
                claims.append(f"{pending} {part}".strip() if pending and not _is_ja(part) else pending + part)
                pending = ""
    if pending and claims:
        claims[-1] = claims[-1] + (" " if not _is_ja(pending) else "") + pending
    elif pending and _nfkc(pending).casefold().strip(" .,!?。、！？") not in _EMPTY_ANSWERS:
        claims.append(pending)
    return claims


def _is_ja(text: str) -> bool:
    return bool(re.search(rf"[{CJK}]", text))


def quantities(text: str) -> list[tuple[float, str | None]]:
    """Every number of ``text`` with its unit (module docstring), in order.

    >>> quantities("翌月５日と50万円")
    [(5.0, '日'), (500000.0, '円')]
    >>> quantities("within 30 days, up to 1,500 EUR, the fifth day")
    [(30.0, 'day'), (1500.0, 'eur'), (5.0, 'day')]
    """
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
            found.append((m.start(), float(value), _unit(text, m.end())))
    for m in _KANJI_NUMBER.finditer(text):
        unit = _unit(text, m.end())
        after = text[m.end() + len(unit or ""):m.end() + len(unit or "") + 1]
        if unit is None or unit not in _JA_UNIT_NAMES or (m.group(0) == "十" and unit == "分" and after in _ADVERB):
            continue  # 一般 has no unit; 十分に / 十分な / 十分です is "enough", not ten minutes
        found.append((m.start(), float(_kanji_value(m.group(0))), unit))
    return [(v, u) for _, v, u in sorted(found, key=lambda x: x[0])]


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
    if word in _EN_UNIT_STOP or word in _WORDS or word in _ORDINALS:
        return None
    if word in ("percent", "per", "%"):
        return "%" if word != "per" else None
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


UNITS = {
    "day": ("day", 1), "日": ("day", 1), "日間": ("day", 1), "日前": ("day", 1), "営業日": ("working day", 1),
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


def canonical_quantities(text: str) -> list[tuple[float, str | None]]:
    """:func:`quantities` with units converted to one unit per dimension (:data:`UNITS`): the one quantity reader of
    the support and the correctness judges.

    >>> canonical_quantities("two weeks") == canonical_quantities("14日") == canonical_quantities("十四日")
    True
    >>> canonical_quantities("3 hours")
    [(180.0, 'minute')]
    """
    out = []
    for value, unit in quantities(text):
        name, factor = UNITS.get(unit, (unit, 1)) if unit is not None else (None, 1)
        out.append((round(value * factor, 9), name))
    return out


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
    if _NEGATION_EN.search(text):
        return True
    return bool(_NEGATION_JA.search(_OBLIGATION_JA.sub("", text)))


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
    r"\b(?:i\s+(?:do\s+not|don't)\s+know|no\s+(?:information|mention)\b|not\s+(?:mentioned|stated|specified)\b|"
    rf"{_DOCS}\s+(?:provided\s+)?(?:(?:does|do|did)\s+not|doesn't|don't)\s+(?:say|state|mention|specify|contain|"
    r"describe|provide|give)|(?:cannot|can't|unable\s+to)\s+(?:find|answer|tell)\b)"
    r"|記載(?:は|が)?(?:あり|ござい)ません|記載されていません|記されていません|書かれていません|明記されていません|"
    r"記述(?:は|が)?(?:あり|見当たり)ません|情報(?:は|が)?(?:あり|見当たり|見つかり)ません|見当たりません|"
    r"わかりません|分かりません|触れられていません|言及(?:は|が)?(?:あり|され)ません")
_REFUSAL_WORDS = frozenset("document documents source sources context page pages text information policy guide "
                           "manual say state mention specify provided given answer find know tell".split())
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
