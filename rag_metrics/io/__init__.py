"""Reading inputs: files -> validated tables.

Takes TREC qrels and runs, the sample corpus and golden set (and other files teams bring);
hands on pandas tables with every bad line reported as ``FILE:LINE: what was expected``.
"""
