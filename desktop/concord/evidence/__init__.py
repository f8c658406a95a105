"""Evidence: alignment of extracts to the record, negation, the lexicon and the record screen.

Submodules are imported where they are used; nothing heavy is loaded here.
"""
