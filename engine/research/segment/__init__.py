"""Training the story-segmentation HMM (:mod:`.fit`, :mod:`.tuning`), held-out experiments
(:mod:`.experiments`) and explanations of its decisions (:mod:`.explain`, :mod:`.plots`)."""
