"""EVAL: golden labels, similarity screening, reward model, rejection sampling (seed 003)."""
