"""LLM clients: a prompt -> a cached, retried, costed reply.

Takes prompts (question generation, graded relevance, answer support) and a service's settings; hands on replies
through one client shape with a disk cache, retries and a cost estimate (:mod:`.clients`: OpenAI-compatible
servers and Amazon Bedrock), the prompts and the parsing of their replies (:mod:`.prompts`) and the page handed to a
question generator (:mod:`.page`).
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
