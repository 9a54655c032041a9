"""The passage-search tests' Lee sources, shared with the test-collection tests."""

from tests.engine.search.conftest import lee_sources  # noqa: F401
