"""The page index at array speed equals the definitions written plainly: normalization of many texts at once,
minimizers, the boilerplate rule and the overlap judge -- on several documents, with their pages together or
interleaved, and with blocks, slices and rounds made small so that every boundary of the array paths is crossed."""

import random
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_metrics.judging import minimizers as minimizers_module
from rag_metrics.judging import judges as judges_module
from rag_metrics.judging.boilerplate import DEFAULT_BOILERPLATE
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.minimizers import _minimizers, fragment_plan
from rag_metrics.judging.judges import OverlapJudge
from rag_metrics.core.text import codes_of, decode, hash_powers, normalize, normalize_codes
from test_experiment import naive_boilerplate, naive_overlap

TEXT = st.text("ab 12\u3000５\n[p.]経", max_size=30)


@given(st.lists(st.text(max_size=20), max_size=6))
def test_normalize_codes_is_normalize_text_by_text(texts):
    codes, offsets = normalize_codes(texts)
    assert decode(codes, offsets) == [normalize(t) for t in texts]
    assert offsets[0] == 0 and offsets.shape[0] == len(texts) + 1


@given(st.one_of(st.text(max_size=30), st.text(st.characters(max_codepoint=0x7F), max_size=30),
                 st.lists(st.sampled_from(["a", " ", "  ", "\t", "\n", "\x00", "\x7f", "\x1f", "[p.", "3]", "ｂ",
                                           "\u3000"]), max_size=12).map("".join)))
def test_normalize_is_its_definition(text):
    """The fast path for text already normal (printable ASCII, single inner spaces) gives what the definition gives:
    NFKC, page markers removed, whitespace collapsed, stripped."""
    import unicodedata

    from rag_metrics.core.text import PAGE_MARKER

    assert normalize(text) == " ".join(PAGE_MARKER.sub(" ", unicodedata.normalize("NFKC", text)).split())


@given(st.lists(st.text("ab", max_size=8), max_size=5))
def test_ascii_texts_are_one_byte_per_character(texts):
    codes, offsets = codes_of(texts)
    assert codes.dtype == np.uint8 and decode(codes, offsets) == texts


@given(st.lists(st.integers(0, 5), min_size=1, max_size=60), st.integers(1, 8), st.data())
def test_minimizers_cover_every_window_and_follow_the_content(values, w, data):
    values = np.array(values, dtype=np.uint32)
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values))))
    chosen = set(_minimizers(values, valid, w).tolist())
    assert all(valid[i] for i in chosen)
    for j in range(len(values) - w + 1):
        window = range(j, j + w)
        if all(valid[i] for i in window):  # the window's smallest value is chosen wherever it is
            low = min(values[i] for i in window)
            assert {i for i in window if values[i] == low} <= chosen


def test_plan_splits_a_fragment_into_one_window():
    for n in (1, 2, 3, 8, 24, 25, 192):
        m, w = fragment_plan(n)
        assert m >= 1 and w >= 1 and m + w - 1 == n


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few characters, slices of a few hits, a short first round: every boundary is crossed (the same
    constants for every example: nothing else is set)."""
    monkeypatch.setattr(minimizers_module, "BLOCK", 7)
    monkeypatch.setattr(minimizers_module, "HITS", 3)
    monkeypatch.setattr(judges_module, "PREFIX", 1)
    monkeypatch.setattr(judges_module, "BATCH", 9)


DOCS = st.lists(st.tuples(st.sampled_from("xyz"), TEXT), min_size=1, max_size=12)


def _pages(entries, shuffle_seed=None):
    numbered, count = [], {}
    for doc, text in entries:
        count[doc] = count.get(doc, 0) + 1
        numbered.append({"doc_id": doc, "page": count[doc], "text": text})
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(numbered)
    return pd.DataFrame(numbered, columns=["doc_id", "page", "text"])


def _boilerplate_by_index(index, n):
    """The boilerplate fragments the index found, as folded strings per document."""
    mask = index.boilerplate_mask(n, DEFAULT_BOILERPLATE)
    found = {}
    off = index.offsets
    for r, (doc, _) in enumerate(index.keys):
        text = index.norm[r]
        for i in np.flatnonzero(mask[off[r]:off[r + 1]]):
            found.setdefault(doc, set()).add(re.sub("[0-9]", "0", text[i:i + n]))
    return found


SHARED_FIXTURE = settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SHARED_FIXTURE
@given(DOCS, st.integers(1, 6), st.booleans(), st.integers(0, 3))
def test_boilerplate_equals_the_rule_on_several_documents(small_blocks, entries, n, together, seed):
    pages = _pages(entries, None if together else seed)
    index = PageIndex(pages)
    normalized = {(d, p): normalize(t) for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}
    expected = {d: naive_boilerplate(normalized, d, n) for d in set(pages["doc_id"])}
    found = _boilerplate_by_index(index, n)
    assert {d: found.get(d, set()) for d in expected} == expected


@SHARED_FIXTURE
@given(DOCS, st.lists(st.tuples(st.sampled_from("xyz"), TEXT, st.integers(1, 5)), min_size=1, max_size=8),
       st.integers(1, 7), st.integers(0, 2), st.booleans(), st.booleans())
def test_overlap_judge_equals_the_definition_across_documents(small_blocks, entries, items, f, window, together,
                                                              rule):
    pages = _pages(entries, None if together else 7)
    normalized = {(d, p): normalize(t) for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}
    judge = OverlapJudge(min_chars=f, window=window, **({} if rule else {"boilerplate": None}))
    gold = {f"q{i}": [(doc, page), ("y", 1)] for i, (doc, _, page) in enumerate(items)}
    frame = pd.DataFrame({"question_id": list(gold), "doc_id": [d for d, _, _ in items],
                          "text": [t for _, t, _ in items]})
    expected = [frozenset(naive_overlap(normalize(t), d, gold[q], normalized, f, window, boilerplate=rule)
                          | naive_overlap(normalize(t), d, [("y", 1)], normalized, f, window, boilerplate=rule))
                for q, d, t in zip(frame["question_id"], frame["doc_id"], frame["text"])]
    assert judge.satisfy(frame, gold, PageIndex(pages)) == expected


@SHARED_FIXTURE
@given(DOCS, st.lists(st.tuples(st.sampled_from("xyz"), TEXT, st.integers(1, 5)), min_size=1, max_size=8),
       st.integers(1, 7), st.integers(0, 2), st.booleans())
def test_one_pass_gives_the_furniture_kept_answer_too(small_blocks, entries, items, f, window, rule):
    """``kept=True``: the second answer is the judge with boilerplate kept, the first the judge as configured."""
    gold = {f"q{i}": [(doc, page), ("y", 1)] for i, (doc, _, page) in enumerate(items)}
    _both_answers_are_the_definition(_pages(entries), items, gold, f, window, rule)


def _both_answers_are_the_definition(pages, items, gold, f, window, rule):
    """``satisfy(kept=True)`` over ``items`` (doc, text, _) with ``gold`` per question ``q0, q1, ...``: the first
    answer is the definition with the judge's rule, the second with boilerplate kept."""
    normalized = {(d, p): normalize(t) for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}
    judge = OverlapJudge(min_chars=f, window=window, **({} if rule else {"boilerplate": None}))
    frame = pd.DataFrame({"question_id": list(gold), "doc_id": [d for d, _, _ in items],
                          "text": [t for _, t, _ in items]})

    def definition(boilerplate):
        return [frozenset(naive_overlap(normalize(t), d, gold[q], normalized, f, window, boilerplate=boilerplate))
                for q, d, t in zip(frame["question_id"], frame["doc_id"], frame["text"])]

    ruled, kept = judge.satisfy(frame, gold, PageIndex(pages), kept=True)
    assert ruled == definition(rule)
    assert kept == definition(False)


def _by_the_definition(normalized, items, gold, window, n=24):
    """The overlap judge's definition written plainly, with its sets made once per page (for realistic lengths):
    boilerplate is a fragment (digits folded) on more than half of its document's pages; returns the gold pages each
    item satisfies with boilerplate left out and kept, and the boilerplate per document."""
    fold = lambda s: re.sub("[0-9]", "0", s)  # noqa: E731
    grams = {key: {t[i:i + n] for i in range(len(t) - n + 1)} for key, t in normalized.items()}
    furniture = {}
    for doc in {d for d, _ in normalized}:
        folded = [{fold(g) for g in grams[key]} for key in normalized if key[0] == doc]
        furniture[doc] = {g for g in set().union(*folded) if sum(g in f for f in folded) > len(folded) / 2}
    body = {}
    for (doc, p), t in normalized.items():
        dirty = [False] * len(t)
        for i in range(len(t) - n + 1):
            if fold(t[i:i + n]) in furniture[doc]:
                dirty[i:i + n] = [True] * n
        body[doc, p] = {t[i:i + n] for i in range(len(t) - n + 1) if not any(dirty[i:i + n])}
    expected, raw = [], []
    for q, d, t in zip(items["question_id"], items["doc_id"], items["text"]):
        mine = {normalize(t)[i:i + n] for i in range(len(normalize(t)) - n + 1)}
        for sets, into in ((body, expected), (grams, raw)):
            into.append(frozenset((gd, gp) for gd, gp in gold[q] if gd == d and any(
                mine & sets.get((d, x), set()) for x in range(gp - window, gp + window + 1))))
    return expected, raw, furniture


def test_long_texts_through_every_block_and_round(monkeypatch):
    """Realistic lengths: pages of a few hundred characters with a running footer, items cut across page breaks,
    blocks smaller than a page, items in batches; the array path equals the definition item by item."""
    monkeypatch.setattr(minimizers_module, "BLOCK", 500)
    monkeypatch.setattr(minimizers_module, "HITS", 50)
    monkeypatch.setattr(judges_module, "BATCH", 700)  # items judged in runs of a few texts
    rng = random.Random(3)
    words = [f"w{i}" for i in range(40)] + ["policy", "claims", "経費", "精算"]
    pages = []
    for doc in ("alpha", "beta"):
        for p in range(1, 7):
            body = " ".join(rng.choice(words) for _ in range(60))
            pages.append({"doc_id": doc, "page": p, "text": f"{body}\n{doc.title()} Handbook page {p} of 6"})
    frame = pd.DataFrame(pages)
    normalized = {(d, p): normalize(t) for d, p, t in zip(frame["doc_id"], frame["page"], frame["text"])}
    joined = {d: " ".join(normalized[d, p] for p in range(1, 7)) for d in ("alpha", "beta")}
    items, gold = [], {}
    for i in range(40):
        doc = rng.choice(("alpha", "beta"))
        start = rng.randrange(0, len(joined[doc]) - 80)
        items.append({"question_id": f"q{i}", "doc_id": doc, "text": joined[doc][start:start + rng.randrange(20, 300)]})
        gold[f"q{i}"] = [(doc, rng.randrange(1, 7))]
    items = pd.DataFrame(items)
    judge = OverlapJudge()
    expected, raw, furniture = _by_the_definition(normalized, items, gold, window=1)
    assert furniture["alpha"] and furniture["beta"]  # the footer is boilerplate
    assert judge.satisfy(items, gold, PageIndex(frame)) == expected
    assert judge.satisfy(items, gold, PageIndex(frame), kept=True) == (expected, raw)
    assert sum(bool(r) for r in raw) > sum(bool(e) for e in expected)  # the footer credits some
    assert 5 <= sum(bool(e) for e in expected) <= 35  # neither case is vacuous


@SHARED_FIXTURE
@given(DOCS, st.data(), st.integers(1, 7), st.integers(0, 2), st.booleans())
def test_excerpts_of_pages_are_judged_as_the_definition_says(small_blocks, entries, data, f, window, rule):
    """Items cut from a page (the common case, judged against other pages through the source page's minimizers that
    another page shares: PageIndex.excerpts), some changed by a character, some paired with their own page: both
    answers equal the definition."""
    pages = _pages(entries)
    normalized = {(d, p): normalize(t) for d, p, t in zip(pages["doc_id"], pages["page"], pages["text"])}
    keys = list(normalized)
    items = []
    for _ in range(data.draw(st.integers(1, 8))):
        d, p = data.draw(st.sampled_from(keys))
        page = normalized[d, p]
        a = data.draw(st.integers(0, len(page)))
        text = page[a:data.draw(st.integers(a, len(page)))]
        if text and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(text) - 1))
            text = text[:i] + data.draw(st.sampled_from("a経5")) + text[i + 1:]
        items.append((d, text, data.draw(st.integers(1, 5))))
    gold = {f"q{i}": [(doc, page)] for i, (doc, _, page) in enumerate(items)}
    _both_answers_are_the_definition(pages, items, gold, f, window, rule)


def test_excerpts_are_found_and_judged_through_the_minimizers_other_pages_share(monkeypatch):
    """Realistic pages (a small vocabulary: many fragments recur across pages, a running footer) and items cut from
    one page: most are found as excerpts; a sentence planted on two pages is found through the source page's
    shared minimizers alone; and the judge equals the definition with and without boilerplate."""
    monkeypatch.setattr(judges_module, "BATCH", 900)
    rng = random.Random(5)
    words = [f"w{i}" for i in range(30)] + ["policy", "claims", "経費", "精算"]
    planted = "the travel allowance is paid within thirty days"
    pages = []
    for doc in ("alpha", "beta"):
        for p in range(1, 9):
            body = " ".join(rng.choice(words) for _ in range(50))
            if (doc, p) in (("alpha", 2), ("alpha", 6)):
                body = f"{body} {planted} {body[:40]}"
            pages.append({"doc_id": doc, "page": p, "text": f"{body}\n{doc.title()} Handbook page {p} of 8"})
    frame = pd.DataFrame(pages)
    normalized = {(d, p): normalize(t) for d, p, t in zip(frame["doc_id"], frame["page"], frame["text"])}
    items, gold = [], {}
    for i in range(60):
        doc, p = rng.choice(("alpha", "beta")), rng.randrange(1, 9)
        t = normalized[doc, p]
        start = rng.randrange(0, len(t) - 60)
        items.append({"question_id": f"q{i}", "doc_id": doc, "text": t[start:start + rng.randrange(30, 250)]})
        gold[f"q{i}"] = [(doc, rng.randrange(1, 9))]
    at = normalized["alpha", 2].index(planted)
    items.append({"question_id": "planted", "doc_id": "alpha", "text": normalized["alpha", 2][at - 30:at + 60]})
    gold["planted"] = [("alpha", 6)]  # shares the planted sentence only
    b3, b5 = normalized["beta", 3], normalized["beta", 5]  # opens like page 3, goes on like page 5: no excerpt
    items.append({"question_id": "spliced", "doc_id": "beta", "text": b3[10:70] + " " + b5[100:160]})
    gold["spliced"] = [("beta", 5)]
    items = pd.DataFrame(items)
    index = PageIndex(frame)
    judge = OverlapJudge(window=0)
    found = []
    real = PageIndex.excerpts

    def spy(self, *args):
        out = real(self, *args)
        found.append(out)
        return out

    monkeypatch.setattr(PageIndex, "excerpts", spy)
    ruled, kept = judge.satisfy(items, gold, index, kept=True)
    expected, raw, furniture = _by_the_definition(normalized, items, gold, window=0)
    assert furniture["alpha"] and furniture["beta"]  # the footer is boilerplate
    assert (ruled, kept) == (expected, raw)
    assert ruled[-2] == {("alpha", 6)} and ruled[-1] == {("beta", 5)}
    sources = np.concatenate([source for source, _ in found])
    assert (sources >= 0).mean() > 0.8  # most open pairs are excerpts judged through the shared minimizers
    given = sum(g[0].shape[0] for _, g in found)
    assert 0 < given < sum(len(normalize(t)) for t in items["text"]) * 2 / 11  # fewer than the texts' own minimizers
    assert 3 <= sum(bool(e) for e in expected) <= 55
    # the contract, text by text: the source page, and every one of its cross minimizers inside the excerpt
    codes, offsets = normalize_codes(items["text"])
    m = fragment_plan(24)[0]
    cross_pos, cross_hash = index.cross_minimizers(24)
    other = {"alpha": index.row["alpha", 1], "beta": index.row["beta", 1]}
    near_end = 0
    for i, (d, t) in enumerate(zip(items["doc_id"], items["text"])):
        source, (g_text, g_offset, g_hash) = real(index, (codes, offsets), [i], [other[d]], 24)
        if i == len(items) - 1:
            assert source.tolist() == [-1]  # the spliced text is no page's excerpt
            continue
        t = normalize(t)
        x = next(r for r, (dd, _) in enumerate(index.keys) if dd == d and t in index.norm[r])
        assert source.tolist() == [x]
        a = int(index.offsets[x]) + index.norm[x].index(t)
        inside = (cross_pos >= a) & (cross_pos <= a + len(t) - m)
        assert g_offset.tolist() == (cross_pos[inside] - a).tolist() and g_hash.tolist() == cross_hash[inside].tolist()
        near_end += int(((cross_pos > a + len(t) - 24) & inside).sum())
    assert near_end  # some lie in the last characters, where a fragment's minimizer may be


def test_hashes_of_many_texts_equal_the_single_text_hash():
    codes, offsets = codes_of(["abcabcab", "xyz", "", "bcab", "経費0精算12"])
    text = decode(codes, np.array([0, offsets[-1]]))[0]
    base = int(hash_powers(2, bits=32)[0][1])  # B itself; the sums below are written out independently
    for folded in (False, True):
        seen = []
        for lo, h, valid in minimizers_module.block_hashes(codes, offsets, 3, folded=folded,
                                                           bounds=np.array([0, 11, 15, int(offsets[-1])])):
            for i in np.flatnonzero(valid):
                fragment = text[lo + i:lo + i + 3]
                if folded:
                    fragment = re.sub("[0-9]", "0", fragment)
                assert h[i] == sum(ord(c) * base ** k for k, c in enumerate(fragment)) % 2**32
                seen.append(lo + int(i))
        # every fragment inside one text, and no other: 6 + 1 + 0 + 2 + 5
        assert seen == [0, 1, 2, 3, 4, 5, 8, 11, 12, 15, 16, 17, 18, 19]


def test_rows_of_finds_each_page_and_nothing_else():
    pages = pd.DataFrame({"doc_id": ["b", "a", "a", "b"], "page": [2, 1, 3, 1], "text": ["x", "y", "z", "w"]})
    index = PageIndex(pages)
    codes = [index.doc_code[d] for d in ("a", "a", "a", "b", "b", "b")]
    assert index.rows_of(codes + [-1], [1, 2, 3, 1, 2, 3, 1]).tolist() == [1, -1, 2, 3, 0, -1, -1]
    assert index.rows_of([index.doc_code["a"]] * 3, [0, 4, 99]).tolist() == [-1, -1, -1]


@SHARED_FIXTURE
@given(DOCS, st.integers(1, 6), st.integers(0, 3))
def test_one_documents_boilerplate_equals_its_part_of_the_corpus_pass(small_blocks, entries, n, seed):
    pages = _pages(entries, seed)
    whole = PageIndex(pages)
    starts = whole.boilerplate_starts(n, DEFAULT_BOILERPLATE)
    row_of = np.searchsorted(whole.offsets, starts, side="right") - 1
    alone = PageIndex(pages)  # no corpus pass yet: each document from its own pages
    for doc, rows in whole.docs.items():
        expected = np.sort(starts[np.isin(row_of, rows)])
        assert alone.doc_boilerplate_starts(doc, n, DEFAULT_BOILERPLATE).tolist() == expected.tolist()
        assert whole.doc_boilerplate_starts(doc, n, DEFAULT_BOILERPLATE).tolist() == expected.tolist()


@SHARED_FIXTURE
@given(DOCS, st.lists(TEXT, min_size=1, max_size=4), st.integers(1, 6), st.integers(0, 3), st.booleans())
def test_shared_spans_are_those_of_every_fragment(small_blocks, entries, texts, n, seed, rule):
    """Spans by definition: every n-fragment of the text found on one of the rows, furniture when every page
    occurrence of it holds a boilerplate character (the corpus pass's mask), merged per kind."""
    pages = _pages(entries, seed)
    index = PageIndex(pages)
    bp = DEFAULT_BOILERPLATE if rule else None
    mask = index.boilerplate_mask(n, bp)
    fresh = PageIndex(pages)  # the drill-down path: no corpus pass
    off = index.offsets
    for text in texts:
        text = normalize(text)
        for rows in ([0], list(range(len(index.keys)))):
            plain, furniture = set(), set()
            for r in rows:
                page = index.norm[r]
                for i in range(len(page) - n + 1):
                    dirty = mask[max(off[r], off[r] + i - n + 1):off[r] + i + n].any()  # a furniture character
                    (furniture if dirty else plain).add(page[i:i + n])
            kinds = [(i, text[i:i + n] not in plain) for i in range(len(text) - n + 1)
                     if text[i:i + n] in plain or text[i:i + n] in furniture]
            expected = []
            for kind in (False, True):
                mine = []
                for i, k in kinds:
                    if k != kind:
                        continue
                    if mine and i <= mine[-1][1]:
                        mine[-1][1] = max(mine[-1][1], i + n)
                    else:
                        mine.append([i, i + n, kind])
                expected += mine
            expected = sorted((a, b, k) for a, b, k in expected)
            assert fresh.shared_spans(text, rows, n, bp) == expected
            assert index.shared_spans(text, rows, n, bp) == expected


def test_shared_spans_tell_the_footer_from_the_body():
    bodies = ["kiwi orchards grow", "plum harvests vary", "figs harvests vary. and dry slowly", "limes need sun"]
    pages = pd.DataFrame({"doc_id": ["d"] * 4, "page": [1, 2, 3, 4],
                          "text": [f"{b}. Acme Policy page {p}" for p, b in zip(range(1, 5), bodies)]})
    text = normalize("plum harvests vary. Acme Policy page 7")
    fresh, whole = PageIndex(pages), PageIndex(pages)
    whole.boilerplate_starts(8, DEFAULT_BOILERPLATE)
    for index in (fresh, whole):
        assert [(text[a:b], k) for a, b, k in index.shared_spans(text, [1], 8)] == [
            ("plum harvests vary", False), ("ts vary. Acme Policy page ", True)]  # fragments holding footer characters
        # "s vary. " holds a footer character on page 2 and none on page 3: with both pages it is plain text
        assert [(text[a:b], k) for a, b, k in index.shared_spans(text, [1, 2], 8)] == [
            ("plum harvests vary. ", False), (" vary. Acme Policy page ", True)]


def test_the_hash_powers_are_inverse_pairs_for_both_widths_and_grow_on_demand():
    """One table per width: B**m * B**-m == 1 modulo 2**bits at every m, a longer request extends the cached table
    without changing its start, and a width other than 32 or 64 is refused."""
    import numpy as np
    import pytest


    for bits, dtype in ((64, np.uint64), (32, np.uint32)):
        up, down = hash_powers(5, bits=bits)
        assert up.dtype == dtype and len(up) == 5 and int(up[0]) == 1
        assert all(int(u) * int(d) % 2**bits == 1 for u, d in zip(up, down))
        longer, _ = hash_powers(3000, bits=bits)
        assert len(longer) == 3000 and (longer[:5] == up).all()
        assert int(longer[2999]) == pow(int(longer[1]), 2999, 2**bits)
    with pytest.raises(ValueError, match="64 or 32"):
        hash_powers(3, bits=16)


def test_only_a_literal_page_marker_is_stripped():
    from rag_metrics.core.text import strip_page_markers

    out = strip_page_markers("a [p.3] b [px3] c [p-12] d")
    assert "[p.3]" not in out and "[px3]" in out and "[p-12]" in out


def test_adjacent_shared_fragments_merge_into_one_span():
    from rag_metrics.judging.judges import shared_spans

    # "abc" and "xyz" each occur in a page and touch at position 3: one span, not two
    assert [(int(a), int(b)) for a, b in shared_spans("abcxyz", ["abc", "xyz"], 3)] == [(0, 6)]


def test_a_text_of_exactly_n_characters_has_one_fragment_start_and_a_shorter_one_none():
    from rag_metrics.core.text import Concat, gram_hashes

    concat = Concat(["abc", "ab", "abcd", ""])
    assert concat.starts(3).tolist() == [0, 5, 6]  # "abc" once, "ab" none, "abcd" at 0 and 1
    assert concat.starts(3, step=2).tolist() == [0, 5]
    assert concat.starts(2, step=2).tolist() == [0, 3, 5, 7]
    assert len(gram_hashes("abc", 3)) == 1 and len(gram_hashes("ab", 3)) == 0
    assert concat.hashes(np.array([0, 5]), 3).tolist() == [gram_hashes("abc", 3)[0]] * 2


def test_text_blocks_start_a_new_block_at_the_first_text_ending_beyond_the_block():
    from rag_metrics.core.text import text_blocks

    offsets = np.array([0, 4, 8, 12])  # three texts of 4 characters
    assert text_blocks(offsets, block=8).tolist() == [0, 8]  # 0..8 fills the block exactly; the third starts anew
    assert text_blocks(offsets, block=7).tolist() == [0, 4, 8]
    assert text_blocks(offsets, block=12).tolist() == [0]


def test_an_excerpt_of_exactly_n_characters_is_found_and_a_changed_last_character_is_not():
    """``excerpts`` places a text of exactly ``n`` characters cut from a page (one less is too short to place), and
    compares the whole text: a text that matches the page but for its last character is no excerpt."""
    rng = random.Random(3)
    pages = [{"doc_id": "alpha", "page": p, "text": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz  ") for _ in range(600))}
             for p in (1, 2)]
    index, n = PageIndex(pd.DataFrame(pages)), 24
    page = normalize(pages[1]["text"])
    cut = page[100:160]
    changed = cut[:-1] + ("x" if cut[-1] != "x" else "y")
    texts = [page[100:100 + n], cut, changed, page[100:100 + n - 1]]
    source, _ = index.excerpts(normalize_codes(texts), [0, 1, 2, 3], [1, 1, 1, 1], n)
    assert source.tolist() == [1, 1, -1, -1]
