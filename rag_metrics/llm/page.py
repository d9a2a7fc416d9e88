"""The page handed to a question generator: one small type that the offline and the LLM generators both import."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Page"]


@dataclass(frozen=True)
class Page:
    """One page handed to a generator."""

    doc_id: str
    page: int
    text: str
    title: str = ""
    genre: str = ""
    language: str = ""
