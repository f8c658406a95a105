"""Evidence: alignment of extracts to the record (what "verified" means), negation cues and
prompt-injection detection.

Submodules are imported where they are used; nothing heavy is loaded here.
"""
