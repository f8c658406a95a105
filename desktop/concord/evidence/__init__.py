"""Evidence: alignment of extracts to the record (what "verified" means) and negation cues
(prompt-injection detection reads the record as the screen does: `concord.screen.injection`).

Submodules are imported where they are used; nothing heavy is loaded here.
"""
