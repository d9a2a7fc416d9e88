"""Question lists as a generator writes them, for the near-duplicate tests and benchmarks/near_duplicates.py."""

from __future__ import annotations

import random
import re

from rag_metrics.io.corpus import load_corpus


def realistic_questions(n: int, seed: int) -> list[str]:
    """Questions as a generator writes them from the sample corpus's pages: a phrase of the page in a question
    template (English, or Japanese characters), and one in eight an edited copy of an earlier question."""
    rng = random.Random(seed)
    pages = load_corpus(sample=True).pages
    pages = list(zip(pages["text"], pages["language"]))
    english = ["What does the policy say about {}?", "How do I {}?", "When is {} required?", "Who decides on {}?",
               "Is {} allowed?", "What happens to {}?"]
    japanese = ["{}について教えてください", "{}とは何ですか", "{}はいつ必要ですか"]
    out: list[str] = []
    for _ in range(n):
        if out and rng.random() < 0.125:
            q = rng.choice(out)
            edit = rng.randrange(3)
            if edit == 0:
                words = q.split()
                q = " ".join(w for i, w in enumerate(words) if i != rng.randrange(len(words))) or q
            elif edit == 1:
                q = q.upper() if rng.random() < 0.5 else q.rstrip("?？") + " ?"
            else:
                i = rng.randrange(len(q))
                q = q[:i] + rng.choice("aeiouの") + q[i + 1:]
            out.append(q)
            continue
        text, language = rng.choice(pages)
        if language == "ja":
            chars = re.sub(r"[\s#\[\]]+", "", text)
            start = rng.randrange(max(1, len(chars) - 16))
            out.append(rng.choice(japanese).format(chars[start:start + rng.randint(4, 16)]))
        else:
            words = re.findall(r"[A-Za-z][A-Za-z'-]*", text)
            start = rng.randrange(max(1, len(words) - 9))
            out.append(rng.choice(english).format(" ".join(words[start:start + rng.randint(2, 9)]).lower()))
    return out
