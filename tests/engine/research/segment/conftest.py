"""The segmentation tests' corpora and small trained model, shared with the research tests."""

from tests.engine.segment.conftest import newsscape_days, small_model  # noqa: F401
