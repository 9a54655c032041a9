"""Training the named-entity tagger (:mod:`.train`) and reading and scoring CoNLL-2003 data
(:mod:`.conll`)."""
