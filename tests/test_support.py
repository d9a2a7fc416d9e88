"""Claims and their support in the context: splitting, numbers, negation, the offline judge (issue 35)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics import InputError
from rag_metrics.answers.claims import content_tokens, negated, quantities, quantities_agree, split_claims
from rag_metrics.answers.support import (
    OfflineSupportJudge,
    answer_support,
    context_passages,
    sentences,
    support_of_answer,
)

JUDGE = OfflineSupportJudge()
BASELINE = OfflineSupportJudge(check_numbers=False, check_negation=False)


def _passages(*texts):
    return [{"rank": i, "doc_id": f"d{i}", "page": 1, "text": t} for i, t in enumerate(texts, start=1)]


# --- claims -------------------------------------------------------------------------------------------------------

def test_split_claims_english_sentences_and_clauses():
    assert split_claims("Yes. Schedules are kept; they are stored on the thermostat.") == [
        "Yes. Schedules are kept", "they are stored on the thermostat."]
    assert split_claims("Taxis need a receipt, and hotels need one too.") == [
        "Taxis need a receipt", "and hotels need one too."]
    assert split_claims("Taxis, buses and trains are fine.") == ["Taxis, buses and trains are fine."]


def test_split_claims_japanese():
    assert split_claims("経費精算規程で精算し、食事は1日45ユーロの定額。また、タクシーは実費です。") == [
        "経費精算規程で精算し", "食事は1日45ユーロの定額。", "また、タクシーは実費です。"]
    assert split_claims("承認された経費は、翌月５日に振り込まれます。") == ["承認された経費は、翌月５日に振り込まれます。"]
    assert split_claims("はい、使えます。") == ["はい、使えます。"]


def test_split_claims_nothing_to_judge():
    assert split_claims("") == [] and split_claims(None) == []
    assert split_claims("No.") == []
    assert split_claims("I don't know") == ["I don't know"]


def test_quantities_units_and_number_forms():
    assert quantities("１,５００ EUR and 15,000 EUR") == [(1500.0, "eur"), (15000.0, "eur")]
    assert quantities("50万円以上") == [(500000.0, "円")]
    assert quantities("３か月後, 6ヶ月後") == [(3.0, "か月"), (6.0, "か月")]
    assert quantities("the 5th day, the fifth day, five days") == [(5.0, "day")] * 3
    assert quantities("70 percent") == [(70.0, "%")]
    assert quantities("error E4 on the CR2032") == []
    assert quantities("0.30 EUR per kilometre") == [(0.3, "eur")]


def test_quantities_agree_needs_value_and_unit():
    assert quantities_agree([(5.0, "日")], [(5.0, "日"), (10.0, "日")])
    assert not quantities_agree([(10.0, "日")], [(5.0, "日")])
    assert not quantities_agree([(30.0, "day")], [(30.0, "eur")])
    assert quantities_agree([(30.0, None)], [(30.0, "eur")])
    assert quantities_agree([], [(1.0, None)])


def test_negated():
    assert negated("Alcohol is not reimbursable.") and negated("Alcohol isn't reimbursable.")
    assert negated("Non-reimbursable items") and negated("No receipt is required.")
    assert not negated("Alcohol is reimbursable.") and not negated("Schedules keep working without internet access.")
    assert negated("お酒の代金は会社負担になりません。") and negated("発注者が直接発注することは認めない。")
    assert not negated("３社以上から見積もりを取得しなければならない。")
    assert not negated("お酒の代金は会社負担になります。")


def test_content_tokens():
    assert content_tokens("The passwords are long") == ["password", "long"]
    assert content_tokens("error E4") == ["error", "e4"]
    assert content_tokens("翌月５日") == ["翌月", "日"]


def test_content_tokens_do_not_strip_the_s_of_a_double_s():
    """'access' and 'process' are not plurals: only a single trailing s is taken off."""
    assert content_tokens("access process") == ["access", "process"]


# --- the offline judge ---------------------------------------------------------------------------------------------

PAY_EN = "Approved claims are paid with the payroll run on the 5th day of the month following approval."
PAY_JA = "承認された経費は、翌月５日の給与と一緒に振り込まれます。５日が銀行の休業日のときは前の営業日になります。"


def test_the_seed_case_a_date_that_differs_is_not_supported():
    ctx = _passages(PAY_JA)
    v = JUDGE.judge("承認された経費は、翌月10日の給与と一緒に振り込まれます。", ctx)
    assert v["supported"] is False and v["reason"].startswith("a number differs: 10 日")
    assert BASELINE.judge("承認された経費は、翌月10日の給与と一緒に振り込まれます。", ctx)["supported"] is True
    ok = JUDGE.judge("承認された経費は翌月5日の給与と一緒に振り込まれます。", ctx)
    assert ok["supported"] is True and ok["doc_id"] == "d1" and ok["span"].startswith("承認された経費は")


def test_an_unsupported_claim_reports_the_first_of_equally_close_spans():
    """Two spans fail with the same closeness (all words, a different number): the one earlier in the context is
    reported, with its own reason."""
    v = JUDGE.judge("Claims are paid within 5 days.",
                    _passages("Claims are paid within 7 days.", "Claims are paid within 9 days."))
    assert v["supported"] is False and v["doc_id"] == "d1" and v["rank"] == 1
    assert v["span"] == "Claims are paid within 7 days." and v["reason"] == "a number differs: 5 day vs 7 day"


@pytest.mark.parametrize("claim, supported", [
    ("Claims are paid on the 5th day of the month following approval.", True),
    ("Claims are paid on the 10th day of the month following approval.", False),
    ("Claims are paid on the fifth day of the month following approval.", True),
])
def test_english_dates(claim, supported):
    assert JUDGE.judge(claim, _passages(PAY_EN))["supported"] is supported


def test_negation_flip_is_not_supported():
    ctx = _passages("Alcohol is not reimbursable, including at client meals.")
    assert JUDGE.judge("Alcohol is not reimbursable.", ctx)["supported"] is True
    v = JUDGE.judge("Alcohol is reimbursable at client meals.", ctx)
    assert v["supported"] is False and v["reason"] == "negation differs"
    assert BASELINE.judge("Alcohol is reimbursable at client meals.", ctx)["supported"] is True


def test_negation_elsewhere_in_the_sentence_does_not_flip():
    ctx = _passages("Schedules are created in the app and stored on the thermostat, so they keep working, "
                    "but not offline backups.")
    assert JUDGE.judge("Schedules are stored on the thermostat.", ctx)["supported"] is True


def test_support_names_the_item_page_and_span_in_context_order():
    ctx = _passages("Unrelated text about parking.", "Passwords must be at least 14 characters long.",
                    "Passwords must be at least 14 characters long, says the FAQ.")
    v = JUDGE.judge("Passwords must be at least 14 characters long.", ctx)
    assert (v["rank"], v["doc_id"], v["page"], v["span"]) == (2, "d2", 1, "Passwords must be at least 14 characters long.")


def test_too_few_words_and_empty_context():
    v = JUDGE.judge("The Lumo power adapter costs 29 EUR.", _passages("The box contains two screws."))
    assert v["supported"] is False and v["reason"] == "too few of the claim's words"
    assert JUDGE.judge("Anything at all.", [])["reason"] == "no context"
    assert JUDGE.judge("Yes.", _passages("Yes."))["supported"] is None


def test_overlap_threshold_boundary():
    ctx = _passages("alpha beta gamma delta epsilon")
    claim = "alpha beta gamma zeta eta"  # 3 of 5 words: 0.6
    assert OfflineSupportJudge(0.6).judge(claim, ctx)["supported"] is True
    assert OfflineSupportJudge(0.61).judge(claim, ctx)["supported"] is False
    with pytest.raises(InputError, match="min_overlap"):
        OfflineSupportJudge(0)


def test_answer_support_levels():
    ctx = _passages("Passwords must be at least 14 characters long. Passwords do not expire on a schedule.")
    claims = support_of_answer("Passwords must be at least 14 characters long; they expire every 90 days.", ctx, JUDGE)
    assert [c["supported"] for c in claims] == [True, False]
    assert answer_support(claims) == "partial"
    assert answer_support(claims[:1]) == "full" and answer_support(claims[1:]) == "none"
    assert answer_support([]) == "no claims"
    assert answer_support([{"supported": None}]) == "no claims"


def test_context_passages_from_ids_pages_and_text(corpus):
    by_doc = context_passages(["expense_policy"], corpus)
    assert [p["page"] for p in by_doc] == list(range(1, 13)) and {p["rank"] for p in by_doc} == {1}
    paged = context_passages([{"doc_id": "faq_ja", "pages": [2]}, "travel_policy"], corpus)
    assert paged[0]["page"] == 2 and paged[0]["text"] == corpus.page_text("faq_ja", 2) and paged[1]["rank"] == 2
    text = corpus.page_text("it_security", 2)[:120]
    placed = context_passages([{"doc_id": None, "text": text}], corpus)
    assert placed == [{"rank": 1, "doc_id": "it_security", "page": 2, "text": text}]
    with pytest.raises(InputError, match="'nope' is not in the corpus"):
        context_passages(["nope"], corpus)


def test_sentences():
    assert sentences("## 2.1 Deadline\nEvery claim. Then more!") == ["2.1 Deadline", "Every claim.", "Then more!"]
    assert sentences("はい。いいえ。") == ["はい。", "いいえ。"]


# --- properties: numbers, dates, amounts and negations are never supported when they differ --------------------

UNITS = ["days", "EUR", "percent", "minutes", "weeks", "characters"]
JA_UNITS = ["日", "円", "か月", "回", "週間", "日前"]


def _fmt(n: int, style: int) -> str:
    if style == 1:
        return f"{n:,}"
    if style == 2:
        return str(n).translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    return str(n)


@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(UNITS), st.integers(0, 2), st.integers(0, 2))
def test_property_english_numbers(a, b, unit, style_a, style_b):
    passage = f"Every request must be filed within {_fmt(b, style_b)} {unit} of the event."
    claim = f"Every request must be filed within {_fmt(a, style_a)} {unit} of the event."
    assert JUDGE.judge(claim, _passages(passage))["supported"] is (a == b)


@given(st.integers(1, 31), st.integers(1, 31), st.integers(0, 2), st.integers(0, 2))
def test_property_japanese_dates(a, b, style_a, style_b):
    passage = f"承認された経費は、翌月{_fmt(b, style_b)}日の給与と一緒に振り込まれます。"
    claim = f"承認された経費は、翌月{_fmt(a, style_a)}日の給与と一緒に振り込まれます。"
    assert JUDGE.judge(claim, _passages(passage))["supported"] is (a == b)


@given(st.integers(1, 10**5), st.integers(1, 10**5), st.sampled_from(JA_UNITS), st.booleans())
def test_property_japanese_amounts(a, b, unit, man):
    scale = "万" if man else ""
    passage = f"購入金額が{b}{scale}{unit}以上の場合は部門長が承認する。"
    claim = f"購入金額が{a}{scale}{unit}以上の場合は部門長が承認する。"
    assert JUDGE.judge(claim, _passages(passage))["supported"] is (a == b)


NEGATIONS_EN = [("Alcohol is reimbursable at client meals.", "Alcohol is not reimbursable at client meals."),
                ("Contractors are covered by this policy.", "Contractors are never covered by this policy."),
                ("Public computers may be used to access company systems.",
                 "Public computers cannot be used to access company systems."),
                ("Passwords expire on a schedule.", "Passwords don't expire on a schedule.")]
NEGATIONS_JA = [("お酒の代金は会社負担になります。", "お酒の代金は会社負担になりません。"),
                ("会社のパソコンではUSBメモリが使えます。", "会社のパソコンではUSBメモリは使えません。"),
                ("発注者が直接発注することを認める。", "発注者が直接発注することは認めない。"),
                ("支払済みの料金は返金します。", "支払済みの料金は返金しません。")]


@given(st.sampled_from(NEGATIONS_EN + NEGATIONS_JA), st.booleans(), st.booleans(), st.sampled_from(
    ["", "See the policy for details. ", "The office opens at nine. "]))
def test_property_negation(pair, claim_negative, passage_negative, before):
    claim = pair[claim_negative]
    passage = before + pair[passage_negative]
    assert JUDGE.judge(claim, _passages(passage))["supported"] is (claim_negative == passage_negative)


# --- answers judged by meaning (offline) -------------------------------------------------------------------------

from rag_metrics.answers.claims import canonical_quantities
from rag_metrics.answers.correctness import MeaningJudge, meaning_match  # noqa: E402


@pytest.mark.parametrize("predicted, expected, correct, reason", [
    ("You have two weeks.", "14 days", True, "same numbers and units"),
    ("２週間前まで", "14日前", True, "same numbers and units"),
    ("500,000円以上", "50万円以上", True, "same numbers and units"),
    ("翌月10日", "翌月5日", False, "a number differs"),
    ("13 days", "30 days", False, "a number differs"),
    ("15,000 EUR", "1,500 EUR", False, "a number differs"),
    ("within 30 minutes or 45 minutes", "within 30 minutes", False, "a number differs"),
    ("no heating response, 30 minutes", "no heating response within 30 minutes", True, "same numbers and units"),
    ("the boiler answers within 30 minutes", "heating response within 30 minutes", False,
     "too few of the expected words"),
    ("Not 30 days", "30 days", False, "negation differs"),
    ("The receipt must be itemised proof of the payment.", "itemised proof of payment", True, "same words"),
    ("Alcohol is reimbursable.", "not reimbursable", False, "negation differs"),
    ("I don't know", "30 days", False, "no answer"),
    ("On the 25th of each month", "5th day of the month following approval", False, "a number differs"),
    ("It is 30 days.", "30 days", True, "contains the expected answer"),
])
def test_meaning_match(predicted, expected, correct, reason):
    assert meaning_match(predicted, expected) == {"correct": correct, "reason": reason}


def test_meaning_match_overlap_boundary_and_bad_input():
    # 4 of the 5 expected words: 0.8
    assert MeaningJudge(0.8)("alpha beta gamma delta", "alpha beta gamma delta epsilon")
    assert not MeaningJudge(0.81)("alpha beta gamma delta", "alpha beta gamma delta epsilon")
    with pytest.raises(InputError, match="expected answer"):
        meaning_match("x", None)
    assert canonical_quantities("3 hours") == [(180.0, "minute")]


def test_meaning_match_with_the_right_number_needs_only_half_the_other_words():
    """The expected answer's number plus 'refund' and 'take': the right number and 'refund' alone (exactly half of
    the other words) is at least half, so correct."""
    assert meaning_match("The refund arrives after 30 days.", "Refunds take 30 days.") == {
        "correct": True, "reason": "same numbers and units"}


def test_a_short_japanese_answer_is_found_inside_longer_words():
    ctx = _passages("年次有給休暇は、入社から6か月後に10日付与されます。")
    assert JUDGE.judge("10日", ctx)["supported"] is True
    assert JUDGE.judge("12日", ctx)["supported"] is False
    assert JUDGE.judge("翌月", ctx)["supported"] is False


# ---- claims at their edges: each rule with the input on either side of it -----------------------------------------

def test_a_three_letter_word_is_content_and_a_unit_of_up_to_three_letters_is_kept():
    assert content_tokens("bus") == ["bus"]
    assert quantities("3 hrs") == [(3.0, "hrs")]


@pytest.mark.parametrize("text, expected", [
    ("2億円", [(2e8, "円")]),  # 億 is 10^8, not 10^4
    ("section 3.2.1", [(3.2, None)]),  # a dotted section number is one number, not 3.2 and 0.1
    ("1,50", [(1.0, None), (50.0, None)]),  # a thousands comma takes exactly three digits
    ("five days then 30 days", [(5.0, "day"), (30.0, "day")]),  # in the order they are written
    ("5営業日", [(5.0, "営業日")]),  # a Japanese unit of three characters
])
def test_quantities_read_at_their_edges(text, expected):
    assert quantities(text) == expected


def test_a_quantity_without_a_unit_agrees_with_the_same_number_with_one():
    assert quantities_agree([(30.0, "day")], [(30.0, None)])


def test_negation_at_a_clause_end_and_only_as_a_whole_word():
    assert negated("返金せず") and not negated("Play the piano.")


def test_clauses_split_at_a_japanese_conjunction_and_not_at_an_english_comma_without_one():
    assert split_claims("申請が必要ですが、上限はありません。") == ["申請が必要ですが", "上限はありません。"]
    assert split_claims("Use the app, android phones included.") == ["Use the app, android phones included."]


def test_min_overlap_is_a_share_up_to_and_including_one():
    """``0 < min_overlap <= 1``: 1 is taken (every word of the claim in the span), just above 1 and 0 are refused."""
    ctx = _passages("alpha beta gamma delta")
    assert OfflineSupportJudge(1).judge("alpha beta gamma delta", ctx)["supported"] is True
    assert OfflineSupportJudge(1).judge("alpha beta gamma zeta", ctx)["supported"] is False
    for bad in (1.0001, 0, -0.5, "0.6"):
        with pytest.raises(InputError, match="min_overlap"):
            OfflineSupportJudge(bad)


def test_sentences_end_at_each_mark_english_and_full_width():
    """English sentences end at ``.``, ``!`` or ``?`` followed by a space, Japanese ones at ``。``, ``！`` or ``？``
    with no space; a point inside a number or a word is not an end."""
    assert sentences("Is it due? Yes! In 3.5 days. e.g.x stays") == ["Is it due?", "Yes!", "In 3.5 days.", "e.g.x stays"]
    assert sentences("本当ですか？はい！締切は5日です。") == ["本当ですか？", "はい！", "締切は5日です。"]


def test_a_claim_is_supported_by_two_adjacent_sentences_but_not_by_two_apart():
    """Spans are single sentences and pairs of neighbours: a claim whose words lie in two adjacent sentences is
    supported, the same words two sentences apart are not."""
    claim = "Receipts are scanned daily and approvals arrive weekly by email."  # 3 + 4 of its 7 words
    adjacent = _passages("Receipts are scanned daily. Approvals arrive weekly by email. Parking is free.")
    apart = _passages("Receipts are scanned daily. Parking is free. Approvals arrive weekly by email.")
    v = JUDGE.judge(claim, adjacent)
    assert v["supported"] is True and v["span"] == "Receipts are scanned daily. Approvals arrive weekly by email."
    assert JUDGE.judge(claim, apart)["supported"] is False


def test_a_negation_in_a_clause_after_a_colon_or_semicolon_that_shares_no_word_does_not_flip():
    """The span's polarity is read from the clauses (split at ``,;:`` and their full-width forms) sharing a word
    with the claim; a negative clause about something else, after any of these marks, leaves the claim supported."""
    for mark in (":", ";", ",", "、", "；"):
        ctx = _passages(f"Laptops are replaced every four years{mark} monitors not at all.")
        assert JUDGE.judge("Laptops are replaced every four years.", ctx)["supported"] is True, mark
    ctx = _passages("Laptops are replaced every four years. Monitors are not replaced.")
    assert JUDGE.judge("Monitors are replaced.", ctx)["reason"] == "negation differs"


def test_a_text_item_over_two_pages_is_placed_on_its_first_page(corpus):
    """A text-only context item that runs over a page break is placed on the first of its pages."""
    first, second = corpus.page_text("expense_policy", 3), corpus.page_text("expense_policy", 4)
    text = first[-150:] + "\n" + second[:150]
    placed = context_passages([{"doc_id": None, "text": text}], corpus)
    assert [(p["doc_id"], p["page"]) for p in placed] == [("expense_policy", 3)]


def test_a_trailing_word_without_content_joins_the_last_claim_with_one_space():
    """A leading "Yes." joins the claim after it, a trailing one the claim before it (English: one space between);
    a bare yes/no/OK is no claim at all."""
    assert split_claims("Taxis need a receipt. Yes.") == ["Taxis need a receipt. Yes."]
    assert split_claims("Taxis need a receipt; hotels too. OK!") == ["Taxis need a receipt", "hotels too. OK!"]
    assert split_claims("OK.") == [] and split_claims("Yes") == []


def test_converted_units_compare_equal_despite_float_rounding():
    """0.1 weeks is 0.7000000000000001 days in floating point: the conversion rounds, so it equals 0.7 days."""
    assert canonical_quantities("0.1 weeks") == canonical_quantities("0.7 days") == [(0.7, "day")]
    assert meaning_match("0.1 weeks", "0.7 days")["correct"] is True
    assert meaning_match("0.1 weeks", "0.8 days")["correct"] is False


# ---- the quantity reader the support and correctness judges share; refusals as absence claims (issue 46) ----------

from rag_metrics.experiment.answer_support import diagnosis_of  # noqa: E402
from rag_metrics.answers.claims import refusal_rest  # noqa: E402


@pytest.mark.parametrize("text,expected", [
    ("十日", [(10.0, "日")]), ("十五文字", [(15.0, "文字")]), ("二十日", [(20.0, "日")]), ("百円", [(100.0, "円")]),
    ("三百二十円", [(320.0, "円")]), ("千五百円", [(1500.0, "円")]), ("五万円", [(50000.0, "円")]),
    ("二〇二六年", [(2026.0, "年")]), ("十二か月", [(12.0, "か月")]), ("十分後に", [(10.0, "分")]),
    ("一般的に", []), ("十分です", []), ("十分な", []), ("九日と十一日", [(9.0, "日"), (11.0, "日")]),
])
def test_kanji_numerals_are_read_before_a_unit_only(text, expected):
    assert quantities(text) == expected


@pytest.mark.parametrize("claim,page,supported", [
    ("Submit it within more than 14 days.", "Submit it within two weeks.", True),
    ("Submit it within 15 days.", "Submit it within two weeks.", False),
    ("申請は二十日までです。", "申請は20日までです。", True),
    ("申請は二十日までです。", "申請は１０日までです。", False),
    ("パスワードは十五文字以上です。", "パスワードは15文字以上です。", True),
    ("パスワードは十四文字以上です。", "パスワードは15文字以上です。", False),
])
def test_numbers_are_compared_in_one_unit_whatever_their_script(claim, page, supported):
    assert OfflineSupportJudge().judge(claim, _passages(page))["supported"] is supported


PAGE = "SMS codes are accepted as a temporary fallback for seven days. Passwords do not expire on a schedule."


@pytest.mark.parametrize("claim,supported", [
    ("The documents do not say how long SMS codes are accepted.", False),  # the page says it
    ("The documents do not say who pays for the phone.", True),
    ("資料には、電話代を誰が払うかの記載はありません。", True),
    ("This is not mentioned in the context.", None),  # a bare refusal, no question: nothing to judge
])
def test_a_refusal_is_an_absence_claim(claim, supported):
    assert refusal_rest(claim) is not None
    verdict = OfflineSupportJudge().judge(claim, _passages(PAGE))
    assert verdict["supported"] is supported
    if supported is False:
        assert verdict["reason"] == "a refusal, but a passage states it" and verdict["span"].startswith("SMS codes")


def test_a_bare_refusal_takes_what_is_missing_from_the_question():
    judge = OfflineSupportJudge()
    asked = judge.judge("I don't know.", _passages(PAGE), question="How long are SMS codes accepted as a fallback?")
    assert asked["supported"] is False
    other = judge.judge("I don't know.", _passages(PAGE), question="Who pays for the company phone?")
    assert other["supported"] is True


@pytest.mark.parametrize("claim", ["Private extensions of a trip are not covered.",
                                   "The insurance does not cover private extensions.",
                                   "Alcohol is not reimbursable.", "The policy does not pay for taxis.",
                                   "私的な延長は保険の対象外です。"])
def test_a_negative_statement_is_not_a_refusal(claim):
    assert refusal_rest(claim) is None


@pytest.mark.parametrize("retrieval_ok,expected", [(False, "retrieval_failure"), (True, "generation_failure")])
@pytest.mark.parametrize("support", ["full", "none", "no claims"])
def test_a_refusal_is_diagnosed_by_retrieval_not_as_hallucinated_or_misled(retrieval_ok, expected, support):
    assert diagnosis_of(retrieval_ok, False, support, refused=True) == expected
    if support == "full":  # the same levels without the refusal flag: misled, as before
        assert diagnosis_of(retrieval_ok, False, support) == "misled"


# --- issue 46: lemmas, assertions, negation scope, claims combining two sentences ----------------------------------

@pytest.fixture
def no_lemma_libraries(monkeypatch):
    """simplemma and SudachiPy as if not installed (the `lemmas` extra missing)."""
    import rag_metrics.answers.claims as claims_module
    from rag_metrics.answers import support as support_module

    support_module._tokens.cache_clear()
    monkeypatch.setattr(claims_module, "_NORMALIZERS", {"en": None, "ja": None})
    yield
    support_module._tokens.cache_clear()


def test_lemmas_reduce_inflections_when_the_libraries_are_installed():
    pytest.importorskip("simplemma")
    pytest.importorskip("sudachipy")
    from rag_metrics.answers.claims import lemma_tokens, lemmas_available

    assert lemmas_available() == {"en": True, "ja": True}
    assert lemma_tokens("Approved requests were paid.") == ["approve", "request", "pay"]
    assert "支払う" in lemma_tokens("給与は毎月25日に支払われます。") and "は毎" not in lemma_tokens("給与は毎月")
    claim, page = "Approved requests were paid.", "Managers approve requests and pay them."
    assert JUDGE.judge(claim, _passages(page))["supported"] is True
    assert OfflineSupportJudge(lemmas=False).judge(claim, _passages(page))["supported"] is False
    assert JUDGE.params()["lemmas"] == "en,ja"


def test_without_the_lemma_libraries_the_judge_falls_back_to_plural_s_and_bigrams(no_lemma_libraries):
    from rag_metrics.answers.claims import lemma_tokens, lemmas_available

    assert lemmas_available() == {"en": False, "ja": False}
    assert lemma_tokens("Approved requests were paid.") == content_tokens("Approved requests were paid.")
    assert lemma_tokens("給与は毎月") == content_tokens("給与は毎月")
    assert OfflineSupportJudge().params()["lemmas"] == "unavailable"
    assert JUDGE.judge("Approved requests were paid.", _passages("Managers approve requests and pay them."))[
        "supported"] is False
    assert JUDGE.judge("Receipts are needed.", _passages("Receipts are needed for every claim."))["supported"] is True


def test_a_question_or_heading_asserts_nothing_but_gives_the_next_line_its_subject():
    faq = "## Q11 USBメモリは使えますか\n会社のパソコンでは使えません。\n## Q8 ホテル代の上限はいくらですか\n１泊１５０ユーロまでです。"
    assert JUDGE.judge("USBメモリは使えますか", _passages("## Q11 USBメモリは使えますか"))["supported"] is False
    assert OfflineSupportJudge(assertions=False).judge("USBメモリは使えますか", _passages(faq))["supported"] is True
    assert JUDGE.judge("USBメモリは使えます。", _passages(faq))["supported"] is False
    assert JUDGE.judge("ホテル代の上限は１泊１５０ユーロまでです。", _passages(faq))["supported"] is True
    verdict = JUDGE.judge("Home office equipment.", _passages("# 4.4 Home office equipment"))
    assert verdict["supported"] is False and verdict["reason"] == "no sentence of the context asserts anything"


def test_a_negation_of_another_condition_of_the_sentence_is_not_the_claims():
    page = "Taxis are reimbursed at night when no bus runs."
    claim = "Taxis are reimbursed at night."
    assert JUDGE.judge(claim, _passages(page))["supported"] is True
    assert OfflineSupportJudge(scope=False).judge(claim, _passages(page))["reason"] == "negation differs"
    assert JUDGE.judge("Taxis are not reimbursed at night.", _passages(page))["supported"] is False
    page = "IT equipment such as laptops is provided by the IT department and cannot be claimed."
    assert JUDGE.judge("Laptops can be claimed.", _passages(page))["supported"] is False


def test_a_claim_combining_two_sentences_takes_each_number_from_the_sentence_of_its_words():
    page = ("Approvers should act on a claim within five working days. The system reminds them after three working "
            "days and escalates to their own manager after ten working days.")
    claim = "The system escalates a claim to the approver's manager after five working days."
    assert JUDGE.judge(claim, _passages(page))["supported"] is False
    assert OfflineSupportJudge(parts=False).judge(claim, _passages(page))["supported"] is True
    assert JUDGE.judge("The system escalates to the manager after ten working days.", _passages(page))["supported"]
    faq = "領収書を紛失した場合は、様式EX-7を提出してください。年に３回まで利用できます。"
    assert JUDGE.judge("領収書の紛失届は年に３回まで利用できます。", _passages(faq))["supported"] is True


@pytest.mark.parametrize("field", ["assertions", "scope", "parts", "subject", "each_part", "synonyms", "contradiction",
                                   "vocabulary"])
def test_switches_must_be_booleans(field):
    with pytest.raises(InputError, match=f"{field} must be true or false"):
        OfflineSupportJudge(**{field: "yes"})


@pytest.mark.parametrize("bad", ["yes", 2, 1, None, "fr"])
def test_lemmas_is_true_false_or_one_language(bad):
    with pytest.raises(InputError, match="lemmas must be true, false, 'en' or 'ja'"):
        OfflineSupportJudge(lemmas=bad)
    assert OfflineSupportJudge(lemmas="ja").params()["lemmas"] in ("ja", "unavailable")


def test_japanese_synonyms_from_sudachis_dictionary_when_asked():
    pytest.importorskip("sudachipy")
    from rag_metrics.answers.claims import lemma_tokens, synonym_groups

    lemma_tokens("給料と給与")
    assert synonym_groups("給料") & synonym_groups("給与") and not synonym_groups("pay")
    claim, page = "給料日は毎月25日です。", "給与は毎月25日に支払われます。"
    assert OfflineSupportJudge(synonyms=True).judge(claim, _passages(page))["supported"] is True
    # off by default (no gain on the first held-out set); without the vocabulary, which also knows 給料 = 給与
    assert OfflineSupportJudge(vocabulary=False).judge(claim, _passages(page))["supported"] is False
    assert OfflineSupportJudge(synonyms=True).judge("給料日は毎月26日です。", _passages(page))["supported"] is False
