"""EVAL: golden labels, similarity screening, reward model, rejection sampling (seed 003).

Kept import-light on purpose: the store imports `concord.expert.schema` for its migration.
"""
