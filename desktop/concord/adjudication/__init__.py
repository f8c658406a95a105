"""Deterministic adjudication: item matching, five sub-scores, caps, grade, disagreements.

An LLM may only *propose* item matches (marked as such); every number is computed here,
with a trace of its inputs and formula.
"""
