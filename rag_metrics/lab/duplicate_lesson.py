"""Notebook 01's step 3 (duplicate chunks): which gold documents reach the LLM's top k chunks, and the sentence on
the two collapsing orders chosen from those numbers (tests/test_duplicate_lesson.py, each branch)."""

from __future__ import annotations

from rag_metrics.measures.collapse import collapse_to_documents
from rag_metrics.measures.metrics import recall_at_k

__all__ = ["context_check", "naive_claim", "orders_claim", "recall_curve_figure"]


def _recall(ranked_chunks, doc_of, gold, k, order):
    return recall_at_k(collapse_to_documents(ranked_chunks, doc_of, k, order=order), gold, k)


def context_check(ranked_chunks: list, doc_of: dict, gold: set, k: int) -> dict:
    """Each gold document's first-chunk rank, the ones outside the top ``k`` chunks, Recall@k under both orders, and
    every cutoff of the ranking at which the two orders differ."""
    first_rank = {d: next(i for i, c in enumerate(ranked_chunks, start=1) if doc_of[c] == d) for d in sorted(gold)}
    differ = [c for c in range(1, len(ranked_chunks) + 1)
              if _recall(ranked_chunks, doc_of, gold, c, "cut_then_dedup")
              != _recall(ranked_chunks, doc_of, gold, c, "dedup_then_cut")]
    missing = [d for d, rank in first_rank.items() if rank > k]
    return {"k": k, "first_rank": first_rank, "missing": missing, "in_context": len(gold) - len(missing),
            "n_gold": len(gold), "differ": differ, "cut": _recall(ranked_chunks, doc_of, gold, k, "cut_then_dedup"),
            "dedup": _recall(ranked_chunks, doc_of, gold, k, "dedup_then_cut")}


def naive_claim(*, naive: float, gold_chunks: int, manual_chunks: int, n_gold: int, k: int) -> dict:
    """Step 1's sentence: the naive count is ``gold_chunks`` (every top-k chunk whose document is gold, the manual's
    and the faq's alike) over ``n_gold`` documents; impossible for a recall when above 1."""
    others = gold_chunks - manual_chunks
    parts = f"{manual_chunks} of the manual" + (f", {others} of the faq" if others else "")
    return {"condition": naive > 1, "headline": True, "name": "naive_above_one",
            "figures": {"naive": naive, "gold_chunks": gold_chunks, "manual_chunks": manual_chunks, "n_gold": n_gold,
                        "k": k},
            "text_if_true": (f"**{naive:.2f} is impossible for a recall**: the numerator counts *chunks* -- "
                             f"{gold_chunks} gold chunks in the top {k} ({parts}) -- the denominator *documents* "
                             f"({n_gold}): {gold_chunks} / {n_gold} = {naive:.2f}."),
            "text_if_false": (f"At k={k} the naive count is {gold_chunks} / {n_gold} = {naive:.2f}, not above 1, so its "
                              "error does not show as an impossible value -- it still counts the manual once per "
                              f"chunk ({manual_chunks} chunk{'s' if manual_chunks != 1 else ''} of it here).")}


def orders_claim(c: dict) -> dict:
    """cut_then_dedup is right and dedup_then_cut credits unseen documents, when the two differ at ``k``."""
    names = ", ".join(repr(d) for d in c["missing"])
    return {"condition": c["cut"] != c["dedup"], "name": "orders_differ", "headline": False,
            "figures": {key: c[key] for key in ("cut", "dedup", "missing", "in_context", "n_gold", "k", "differ")},
            "text_if_true": (
                f"* **cut_then_dedup = {c['cut']:.2f}** is right: {c['in_context']} of the {c['n_gold']} gold "
                f"documents reached the context; {names} did not.\n"
                f"* **dedup_then_cut = {c['dedup']:.2f}** credits {names} although the LLM never saw it. It answers "
                "another question -- \"are the gold documents among the first k *distinct* documents of the "
                "ranking?\" -- which matters only when whole documents, not chunks, are handed on."),
            "text_if_false": (
                f"At k={c['k']} the two orders agree ({c['cut']:.2f}): "
                + ("every gold document reaches the context" if not c["missing"]
                   else "neither order reaches every gold document")
                + f", so the pitfall does not show. On this seed they differ at k = "
                f"{', '.join(map(str, c['differ']))}.")}


def recall_curve_figure(curve, k: int):
    """Notebook 01's figure: the three Recall@k readings of the seed ranking (``curve``: one column each, indexed by
    k) against k, the notebook's ``k`` dashed, 1 dotted; equal points are drawn slightly apart. Returns the figure."""
    import matplotlib.pyplot as plt

    styles = {"naive chunk counting": ("-", "o", 0.06), "cut_then_dedup": ("--", "s", 0.0),
              "dedup_then_cut": (":", "^", -0.06)}  # offsets keep equal points apart
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, (line, marker, dx) in styles.items():
        ax.plot(curve.index + dx, curve[name], linestyle=line, marker=marker, linewidth=2, label=name)
    ax.set_title("Recall@k on the seed question")
    ax.set_ylim(bottom=0)
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.axvline(k, color="grey", linestyle="--", linewidth=1, label=f"k = {k}")
    ax.set_xticks(list(curve.index))
    ax.set(xlabel="k (chunks handed to the LLM)", ylabel="Recall@k")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
