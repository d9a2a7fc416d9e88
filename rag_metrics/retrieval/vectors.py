"""Vector normalization, norm audits, inner-product search and score-threshold audits.

Inner product equals cosine only when *both* the stored vectors and the query have unit
length. Normalizing only the stored vectors fixes the ranking (every score is then
``|q| * cos``, the query length is a common factor) but not the scores: a threshold tuned
for cosine lets through whatever has ``cos >= threshold / |q|``. :func:`threshold_audit`
shows the three regimes side by side, with the pass count of each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError

__all__ = [
    "l2_normalize", "norm_audit", "NormAudit", "inner_product_search", "threshold_audit", "ThresholdAudit",
    "pass_counts", "REGIMES",
]

REGIMES = ("raw", "documents_normalized", "both_normalized")


def _matrix(vectors, name="vectors") -> np.ndarray:
    arr = np.asarray(vectors, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise InputError(f"{name}: expected a 2-D array (n, d) with d >= 1, got shape {np.shape(vectors)}.")
    return arr


def _ids(ids, n):
    if ids is None:
        return list(range(n))
    ids = list(ids)
    if len(ids) != n:
        raise InputError(f"ids: expected {n} IDs (one per row), got {len(ids)}.")
    return ids


def l2_normalize(vectors, ids=None) -> np.ndarray:
    """Divide each row by its L2 norm.

    A zero row, or a row with a NaN or infinite value, has no direction: it raises
    ``ValueError`` naming the row (its ID when ``ids`` is given), never returns NaN.
    A 1-D input is one vector and returns a 1-D result.
    """
    one = np.ndim(vectors) == 1
    arr = _matrix(vectors)
    names = _ids(ids, arr.shape[0])
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise InputError(f"l2_normalize: row {names[i]!r} has a non-finite value (NaN or inf); it cannot be normalized.")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        i = int(np.flatnonzero(norms == 0)[0])
        raise InputError(f"l2_normalize: row {names[i]!r} is a zero vector; it has no direction to normalize.")
    out = arr / norms[:, None]
    return out[0] if one else out


@dataclass(frozen=True)
class NormAudit:
    """Norm statistics of stored vectors: is the index really unit-length?"""

    count: int
    min_norm: float
    max_norm: float
    mean_norm: float
    tolerance: float
    off_unit: int
    zero: int
    non_finite: int
    off_unit_ids: tuple

    @property
    def ok(self) -> bool:
        return self.off_unit == 0 and self.zero == 0 and self.non_finite == 0

    def to_frame(self) -> pd.DataFrame:
        fields = ["count", "min_norm", "max_norm", "mean_norm", "tolerance", "off_unit", "zero", "non_finite"]
        return pd.DataFrame({"value": [getattr(self, f) for f in fields]}, index=fields)


def norm_audit(vectors, ids=None, *, tolerance: float = 1e-3) -> NormAudit:
    """Count, min/max/mean L2 norm, and the rows whose norm deviates from 1 by more than ``tolerance``.

    Zero rows and rows with NaN/inf are counted separately (and also listed as off-unit);
    statistics are over the finite rows.
    """
    arr = _matrix(vectors)
    names = _ids(ids, arr.shape[0])
    finite = np.isfinite(arr).all(axis=1)
    norms = np.full(arr.shape[0], np.nan)
    norms[finite] = np.linalg.norm(arr[finite], axis=1)
    off = ~finite | (np.abs(norms - 1.0) > tolerance)
    good = norms[finite]
    return NormAudit(
        count=int(arr.shape[0]),
        min_norm=float(good.min()) if good.size else float("nan"),
        max_norm=float(good.max()) if good.size else float("nan"),
        mean_norm=float(good.mean()) if good.size else float("nan"),
        tolerance=float(tolerance),
        off_unit=int(off.sum()),
        zero=int((norms[finite] == 0).sum()),
        non_finite=int((~finite).sum()),
        off_unit_ids=tuple(names[i] for i in np.flatnonzero(off)),
    )


def inner_product_search(query, vectors, k=None, *, ids=None, backend: str = "numpy") -> pd.DataFrame:
    """Rank ``vectors`` by inner product with ``query``: columns ``rank, id, score``.

    ``backend="numpy"`` computes ``vectors @ query`` in float64; ``backend="faiss"`` uses
    a FAISS ``IndexFlatIP`` (float32 scores). Equal scores are ordered by row index in
    both, so the two give the same order. Nothing is normalized here: that is the caller's
    choice, and the point of :func:`threshold_audit`.
    """
    q = _matrix(query, "query")
    if q.shape[0] != 1:
        raise InputError(f"query: expected one vector, got {q.shape[0]}.")
    arr = _matrix(vectors)
    if arr.shape[1] != q.shape[1]:
        raise InputError(f"query has dimension {q.shape[1]}, vectors have {arr.shape[1]}.")
    names = _ids(ids, arr.shape[0])
    n = arr.shape[0]
    k = n if k is None else min(int(k), n)
    if backend == "numpy":
        scores = arr @ q[0]
        order = np.lexsort((np.arange(n), -scores))[:k]
        top = scores[order]
    elif backend == "faiss":
        import faiss

        index = faiss.IndexFlatIP(arr.shape[1])
        index.add(np.ascontiguousarray(arr, dtype=np.float32))
        sims, found = index.search(np.ascontiguousarray(q, dtype=np.float32), n)
        sims, found = sims[0].astype(np.float64), found[0]
        resort = np.lexsort((found, -sims))
        order, top = found[resort][:k], sims[resort][:k]
    else:
        raise InputError(f"The 'backend' parameter must be 'numpy' or 'faiss'. Got {backend!r} instead.")
    return pd.DataFrame({"rank": np.arange(1, len(order) + 1), "id": [names[i] for i in order], "score": top})


@dataclass(frozen=True)
class ThresholdAudit:
    """``table``: regime, rank, id, score, passes; ``pass_counts``: regime -> number passing."""

    table: pd.DataFrame
    pass_counts: dict
    threshold: float
    query_norm: float


def threshold_audit(query, vectors, threshold: float, *, ids=None, backend: str = "numpy") -> ThresholdAudit:
    """Ranking, scores and threshold passes under three regimes.

    * ``raw``: stored vectors and query as given;
    * ``documents_normalized``: stored vectors L2-normalized, query as given
      (scores are ``|q| * cos``: the ranking is right, the threshold is not);
    * ``both_normalized``: cosine similarity, what a cosine threshold assumes.

    A candidate passes when ``score >= threshold``, compared on unrounded scores.
    """
    q = _matrix(query, "query")
    arr = _matrix(vectors)
    names = _ids(ids, arr.shape[0])
    docs_n = l2_normalize(arr, names)
    q_n = l2_normalize(q, ["query"])
    parts = []
    for regime, d, qq in (("raw", arr, q), ("documents_normalized", docs_n, q), ("both_normalized", docs_n, q_n)):
        ranked = inner_product_search(qq, d, ids=names, backend=backend)
        ranked.insert(0, "regime", regime)
        ranked["passes"] = ranked["score"] >= threshold
        parts.append(ranked)
    table = pd.concat(parts, ignore_index=True)
    counts = {r: int(table.loc[table["regime"] == r, "passes"].sum()) for r in REGIMES}
    return ThresholdAudit(table, counts, float(threshold), float(np.linalg.norm(q)))


def pass_counts(queries, vectors, thresholds, *, normalize_queries: bool = True, normalize_vectors: bool = True,
                query_ids=None) -> pd.DataFrame:
    """Number of stored vectors with ``score >= threshold``, per query and threshold (whole arrays).

    Scores are inner products after the chosen normalizations, compared unrounded.
    Returns a DataFrame indexed by query ID with one column per threshold.
    """
    qs = _matrix(queries, "queries")
    arr = _matrix(vectors)
    names = _ids(query_ids, qs.shape[0])
    if normalize_queries:
        qs = l2_normalize(qs, names)
    if normalize_vectors:
        arr = l2_normalize(arr)
    scores = qs @ arr.T
    th = np.asarray(list(thresholds), dtype=np.float64)
    counts = (scores[:, :, None] >= th[None, None, :]).sum(axis=1)
    return pd.DataFrame(counts, index=pd.Index(names, name="query"), columns=th)
