"""Story segmentation of word sequences with a fine-grained HMM (Greiff et al., MITRE).

Public API::

    from engine.segment import segment_words, SegmentationModel
    result = segment_words(words, starts=starts, ends=ends)
    result.story_starts, result.confidence

See ``docs/segmentation.md`` for the model, training and evaluation.
"""

from engine.segment.model import Hyperparameters, SegmentationModel
from engine.segment.segmenter import Segmentation, segment_words

__all__ = ["Hyperparameters", "Segmentation", "SegmentationModel", "segment_words"]
