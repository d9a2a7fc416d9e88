"""Retrieval for experiments: pages -> chunks -> ranked runs.

Takes a corpus; hands on chunk tables (:mod:`.chunking`), ranked result tables from the built-in
retrievers (:mod:`.retrievers`) and vector normalization and threshold audits (:mod:`.vectors`).
"""
