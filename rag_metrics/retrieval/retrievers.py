"""Retrievers for experiments: BM25 (bm25s), dense (FAISS inner product), hybrid (RRF), with filters.

Every retriever scores *all* chunks for a question (the sample corpus has a few hundred),
applies an optional restriction to a set of documents, and returns the same tidy table
that :func:`rag_metrics.evaluate` consumes:

===========  ==================================================================
question_id  question
rank         1 = best; ties in score are broken by chunk order (stable, documented)
chunk_id     the chunk
doc_id       its document
score        the retriever's score (BM25 score, cosine, or RRF score)
pages        tuple of the pages the chunk spans (start_page..end_page)
===========  ==================================================================

Filters (``allowed``): a mapping ``question_id -> set of doc_ids`` that a question may
retrieve from (``None``: unrestricted; a question missing from the mapping is an error). :func:`genre_filter` and :func:`document_filter` build ordinary metadata
filters; :func:`oracle_gold_genre` and :func:`oracle_gold_documents` build the *oracle*
filters that restrict each question to the genre(s) / document(s) of its gold -- not
something a deployed system can do, but the ceiling of an idea such as "organize the
documents by genre", measured before building it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_k
from rag_metrics.core.text import tokenize
from rag_metrics.retrieval.chunking import chunk_by_heading, chunk_fixed, indexed_text

__all__ = [
    "BM25Retriever",
    "DenseRetriever",
    "HybridRetriever",
    "tfidf_svd_embedder",
    "rrf",
    "genre_filter",
    "document_filter",
    "oracle_gold_genre",
    "oracle_gold_documents",
    "oracle_runs",
    "ORACLE_CONDITIONS",
    "make_retriever",
    "search_configuration",
    "RETRIEVERS",
    "RESULT_COLUMNS",
]

RESULT_COLUMNS = ["question_id", "rank", "chunk_id", "doc_id", "score", "pages"]


def _questions(questions) -> pd.DataFrame:
    if isinstance(questions, pd.DataFrame):
        q = questions.reset_index() if "question_id" not in questions.columns else questions
        if "question" not in q.columns:
            raise InputError("questions: expected columns 'question_id' and 'question'.")
        return q[["question_id", "question"]]
    if isinstance(questions, Mapping):
        return pd.DataFrame({"question_id": list(questions), "question": list(questions.values())})
    raise TypeError("questions: expected a DataFrame (question_id, question) or a mapping id -> text.")


class _Base:
    """Shared search: score every chunk, mask by the allowed documents, take the top k."""

    chunks: pd.DataFrame

    def _setup(self, chunks: pd.DataFrame):
        if chunks.empty:
            raise InputError("cannot index an empty chunk table.")
        if chunks["chunk_id"].duplicated().any():
            raise InputError(f"duplicate chunk_id {chunks.loc[chunks['chunk_id'].duplicated(), 'chunk_id'].iloc[0]!r}.")
        self.chunks = chunks.reset_index(drop=True)
        self._pages = [tuple(range(s, e + 1)) for s, e in zip(self.chunks["start_page"], self.chunks["end_page"])]

    def scores(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def search(self, questions, k: int = 10, *, allowed: Mapping | None = None) -> pd.DataFrame:
        """Top ``k`` chunks per question, optionally restricted to ``allowed[question_id]`` documents."""
        k = check_k(k, func="search")
        q = _questions(questions)
        texts = q["question"].tolist()
        matrix = self.scores(texts) if texts else np.zeros((0, len(self.chunks)))  # an embedder may refuse no texts
        docs = self.chunks["doc_id"].to_numpy(dtype=object)
        chunk_ids = self.chunks["chunk_id"].to_numpy(dtype=object)
        columns = {name: [] for name in RESULT_COLUMNS}
        for i, qid in enumerate(q["question_id"]):
            score = matrix[i].astype(np.float64)
            candidates = np.arange(len(score))
            if allowed is not None:
                if qid not in allowed:
                    raise InputError(f"search: question {qid!r} has no entry in 'allowed'.")
                if allowed[qid] is not None:  # None: no restriction for this question
                    candidates = candidates[np.isin(docs, list(allowed[qid]))]
            order = candidates[np.lexsort((candidates, -score[candidates]))][:k]
            columns["question_id"] += [qid] * len(order)
            columns["rank"] += range(1, len(order) + 1)
            columns["chunk_id"] += chunk_ids[order].tolist()
            columns["doc_id"] += docs[order].tolist()
            columns["score"] += score[order].tolist()
            columns["pages"] += [self._pages[j] for j in order]
        return pd.DataFrame(columns if columns["rank"] else [], columns=RESULT_COLUMNS)


class BM25Retriever(_Base):
    """BM25 over :func:`rag_metrics.core.text.tokenize` tokens (Latin words + CJK bigrams), with ``bm25s``."""

    def __init__(self, chunks: pd.DataFrame, *, k1: float = 1.5, b: float = 0.75):
        import warnings

        with warnings.catch_warnings():
            # bm25s imports tqdm.auto, which warns inside notebooks without ipywidgets.
            warnings.filterwarnings("ignore", message="IProgress not found")
            import bm25s

        self._setup(chunks)
        self.model = bm25s.BM25(k1=k1, b=b)
        self.model.index([tokenize(t) or [""] for t in indexed_text(self.chunks)], show_progress=False)
        self.vocab = self.model.vocab_dict

    def scores(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.chunks)), dtype=np.float64)
        for i, text in enumerate(texts):
            tokens = [t for t in tokenize(text) if t in self.vocab]
            if tokens:
                out[i] = self.model.get_scores(tokens)
        return out


def tfidf_svd_embedder(texts: list[str], *, dim: int = 256, seed: int = 0) -> Callable[[list[str]], np.ndarray]:
    """Fit an offline embedding on ``texts``: TF-IDF of character 2-4-grams, reduced by TruncatedSVD.

    Runs on a CPU with nothing downloaded. Returns ``embed(list_of_texts) -> array (n, d)``
    (not normalized; :class:`DenseRetriever` L2-normalizes). Character n-grams work for
    Japanese and English alike; NFKC is applied first.
    """
    import unicodedata

    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    prep = lambda t: unicodedata.normalize("NFKC", t).lower()  # noqa: E731
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, preprocessor=prep)
    matrix = vectorizer.fit_transform(texts)
    n_components = max(1, min(dim, matrix.shape[0] - 1, matrix.shape[1] - 1))
    svd = TruncatedSVD(n_components=n_components, random_state=seed, algorithm="arpack")
    svd.fit(matrix)
    return lambda batch: svd.transform(vectorizer.transform(batch)).astype(np.float32)


class DenseRetriever(_Base):
    """Dense retrieval: L2-normalized embeddings in a FAISS ``IndexFlatIP`` (inner product = cosine).

    ``embed``: any callable ``list[str] -> array (n, d)``, e.g. a sentence-transformers
    model's ``encode``. Default: :func:`tfidf_svd_embedder` fitted on the chunks.
    """

    def __init__(self, chunks: pd.DataFrame, *, embed: Callable | None = None, dim: int = 256):
        import faiss

        self._setup(chunks)
        texts = indexed_text(self.chunks)
        self.embed = embed if embed is not None else tfidf_svd_embedder(texts, dim=dim)
        vectors = self._normalized(self.embed(texts))
        self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)
        self.vectors = vectors

    @staticmethod
    def _normalized(vectors) -> np.ndarray:
        vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32))
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    def scores(self, texts: list[str]) -> np.ndarray:
        queries = self._normalized(self.embed(texts))
        n = len(self.chunks)
        sims, ids = self.index.search(queries, n)
        out = np.full((len(texts), n), -np.inf, dtype=np.float64)
        np.put_along_axis(out, ids, sims.astype(np.float64), axis=1)
        return out


def rrf(rankings: list[pd.DataFrame], *, k_rrf: int = 60) -> pd.DataFrame:
    """Reciprocal rank fusion: ``score(c) = sum_i 1 / (k_rrf + rank_i(c))`` per question.

    Each input is a result table; a chunk missing from one input adds nothing for it.
    Ties are broken by chunk_id (ascending) so the fused order is deterministic.
    """
    frames = [r[["question_id", "chunk_id", "doc_id", "pages", "rank"]] for r in rankings]
    allr = pd.concat(frames, ignore_index=True)
    allr["score"] = 1.0 / (k_rrf + allr["rank"])
    fused = allr.groupby(["question_id", "chunk_id"], sort=False).agg(
        doc_id=("doc_id", "first"), pages=("pages", "first"), score=("score", "sum")).reset_index()
    fused = fused.sort_values(["question_id", "score", "chunk_id"], ascending=[True, False, True], kind="stable")
    fused["rank"] = fused.groupby("question_id", sort=False).cumcount() + 1
    return fused[RESULT_COLUMNS].reset_index(drop=True)


class HybridRetriever:
    """RRF of several retrievers (default BM25 + dense); each contributes its top ``depth`` chunks."""

    def __init__(self, retrievers, *, k_rrf: int = 60, depth: int = 50):
        self.retrievers = list(retrievers)
        self.k_rrf, self.depth = k_rrf, depth
        self.chunks = self.retrievers[0].chunks

    def search(self, questions, k: int = 10, *, allowed: Mapping | None = None) -> pd.DataFrame:
        parts = [r.search(questions, max(self.depth, k), allowed=allowed) for r in self.retrievers]
        fused = rrf(parts, k_rrf=self.k_rrf)
        return fused[fused["rank"] <= k].reset_index(drop=True)


def genre_filter(questions, corpus, genres) -> dict:
    """Every question may retrieve only from documents of ``genres``."""
    docs = set(corpus.documents.index[corpus.documents["genre"].isin(set(genres))])
    return {qid: docs for qid in _questions(questions)["question_id"]}


def document_filter(questions, doc_ids) -> dict:
    """Every question may retrieve only from ``doc_ids``."""
    return {qid: set(doc_ids) for qid in _questions(questions)["question_id"]}


def oracle_gold_documents(golden) -> dict:
    """ORACLE: each question restricted to its own gold documents (the ceiling of perfect routing).

    Questions without gold (no_answer) map to ``None``: there is nothing to restrict them to.
    """
    gold = golden.gold[golden.gold["doc_id"].notna()]
    by_question = {qid: set(g["doc_id"]) for qid, g in gold.groupby("question_id")}
    return {qid: by_question.get(qid) for qid in golden.gold["question_id"].unique()}


def oracle_gold_genre(golden, corpus) -> dict:
    """ORACLE: each question restricted to all documents sharing a genre with its gold documents."""
    genre_of = corpus.documents["genre"]
    by_genre = corpus.documents.groupby("genre").groups
    out = {}
    for qid, docs in oracle_gold_documents(golden).items():
        out[qid] = None if docs is None else {d for g in {genre_of[d] for d in docs} for d in by_genre[g]}
    return out


ORACLE_CONDITIONS = ("no filter", "gold genre only (upper bound)", "gold document only (upper bound)")
"""The searches of :func:`oracle_runs`: unfiltered, then restricted by the two oracles above."""


def oracle_runs(retriever, golden, corpus, k: int) -> dict:
    """``{condition: run}``: ``retriever`` searching the labelled questions of ``golden`` for ``k`` results with no
    filter, restricted to the gold genre (:func:`oracle_gold_genre`) and to the gold documents
    (:func:`oracle_gold_documents`), in the order of :data:`ORACLE_CONDITIONS`."""
    questions = golden.labelled.reset_index()
    allowed = (None, oracle_gold_genre(golden, corpus), oracle_gold_documents(golden))
    return {label: retriever.search(questions, k, allowed=a) for label, a in zip(ORACLE_CONDITIONS, allowed)}


RETRIEVERS = ("bm25", "dense", "hybrid")
"""The built-in retrievers by name: BM25, dense (TF-IDF + SVD) and hybrid (reciprocal rank fusion of both)."""


def make_retriever(name: str, chunks: pd.DataFrame) -> BM25Retriever | DenseRetriever | HybridRetriever:
    """``"bm25"``, ``"dense"`` or ``"hybrid"`` (RRF of both) over ``chunks``."""
    from rag_metrics.core.errors import check_choice

    check_choice(name, RETRIEVERS, "retriever", func="make_retriever")
    if name == "bm25":
        return BM25Retriever(chunks)
    if name == "dense":
        return DenseRetriever(chunks)
    return HybridRetriever([BM25Retriever(chunks), DenseRetriever(chunks)])


def search_configuration(corpus, questions, k: int, *, retriever: str = "bm25", size=None, overlap=None,
                         unit: str = "char", heading: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(chunks, run)``: ``corpus`` chunked (by heading, or ``size``/``overlap`` in ``unit``), indexed with the
    built-in ``retriever`` and searched for ``k`` results per question."""
    chunks = chunk_by_heading(corpus) if heading else chunk_fixed(corpus, size, overlap, unit=unit)
    return chunks, make_retriever(retriever, chunks).search(questions, k)
