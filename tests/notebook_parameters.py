"""Non-default parameter values for every notebook: each parameter is moved at least once (a test checks it).

Each entry is one papermill run. The runs reach the regimes where a notebook's lesson does not show (k where both
collapsing orders agree, a threshold where both normalizations pass the same candidates, an F where overlap judging
is stricter than markers, a measure whose differences hardly vary...), where the notebook must say so instead of
failing or printing stale prose. ``{tmp}`` in a value stands for the test's temporary folder.
"""

NOTEBOOK_RUNS = {
    "notebooks/01_duplicate_chunks_recall.ipynb": [{"k": 5}, {"k": 2}],
    "notebooks/02_chunking_grid.ipynb": [
        {"retriever": "dense", "sizes": "[300, 600]", "overlaps": [50], "ks": [2, 4], "unit": "token",
         "compare_size": 300, "compare_overlap": 50, "compare_k": 2, "progress": True},
    ],
    "notebooks/03_marker_vs_overlap_judging.ipynb": [
        {"min_chars": 192, "k": 5, "window": 0},
        {"retriever": "hybrid", "size": 500, "overlap": 0},
        {"size": 1500, "overlap": 300, "k": 1, "min_chars": 8},
    ],
    "notebooks/04_upper_bound_filters.ipynb": [
        {"k": 1, "window": 0, "min_chars": 48, "retriever": "dense", "size": 500, "overlap": 100},
    ],
    "notebooks/05_retrieval_vs_generation.ipynb": [
        {"generator": "gen_b", "match": "contains"},
        {"rule": "any", "k": 2, "match": "token_f1", "faithfulness_threshold": 0.95, "no_answer_threshold": 3.0},
    ],
    "notebooks/06_normalization_threshold.ipynb": [
        {"threshold": 0.5, "query_scale": 1.0, "real_threshold": 0.5, "stale_document": "faq_ja"},
    ],
    "notebooks/07_small_sample_noise.ipynb": [
        {"measure": "recall@3", "retriever_b": "dense", "overlap_b": 0, "n_resamples": 2000},
        {"retriever_a": "hybrid", "size": 300, "overlap_a": 50, "target_gain": 0.2, "n_resamples": 1000,
         "alpha": 0.1, "simulated_sets": 500},
        {"measure": "mrr", "simulated_sets": 500},
    ],
    "notebooks/08_building_a_golden_set.ipynb": [
        {"per_document": 2, "min_chars": 300, "seed": 5, "questions_per_page": 3, "duplicate_threshold": 0.5,
         "llm_model": "llama3.1:8b", "price_in": 0.0, "price_out": 0.0, "retrievers": ["bm25"], "size": 300,
         "overlap": 50, "k": 5, "elsewhere_share": 0.5},
        {"per_document": 1, "retrievers": ["dense", "hybrid"], "elsewhere_share": 1.0, "k": 1},
    ],
    "notebooks/09_labels_you_can_trust.ipynb": [
        {"retriever": "dense", "k": 5, "per_document": 2, "min_chars": 300, "seed": 5, "questions_per_page": 3,
         "size": 300, "overlap": 50, "min_evidence_chars": 32, "sample_size": 20, "sample_seed": 3,
         "llm_model": "llama3.1:8b", "price_in": 0.0, "price_out": 0.0},
        {"k": 1, "retriever": "hybrid", "sample_size": 65},
    ],
    "rag_metrics/report/experiment.ipynb": [
        {"experiment": "langchain", "runs": ["../../data/examples/langchain_bm25_c400o100.jsonl"], "preset": "langchain",
         "answers": None, "generator": None, "ks": [1, 10], "min_chars": 40, "window": 0, "primary": "document",
         "fields": {"page": "metadata.page"}, "page_base": 0, "pages": "../../data/corpus",
         "golden": "../../data/golden.jsonl", "history_dir": "{tmp}/history", "n_resamples": 1000,
         "measure": "mrr", "order": "given", "alpha": 0.1, "drilldowns": 1, "inputs": "{tmp}/not-handed-over.pickle"},
        {"runs": ["../../data/examples/bm25_c400o100.jsonl", "../../data/examples/bm25_c300o50.jsonl"], "ks": [10],
         "answers": None, "generator": None, "history_dir": "{tmp}/history", "n_resamples": 500},
    ],
}
