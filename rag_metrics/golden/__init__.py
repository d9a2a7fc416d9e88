"""Pages -> a reviewed golden set: sample pages, generate questions, flag the context-dependent ones, accept.

``sampler`` (seeded page sample), ``generators`` (the protocol, the offline extractive generator,
the loader), ``prompts`` + ``llm`` (OpenAI-compatible and Bedrock generators: cache, retries, cost
estimate), ``generate`` (the draft), ``review`` (flags, review file and page, accept); ``labels`` (audit a golden
set's labels against retrieved pages, accept the pages it missed, judging sheets) and ``assessors`` (LLM graded
relevance on the same clients).
"""
