import os

from hypothesis import settings

# CI gets a fixed, moderate budget; locally the default profile is the same, so runs are comparable.
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
