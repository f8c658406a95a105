"""EVAL: golden labels, similarity screening, reward model, rejection sampling (after
Giuffrè et al., "Expert-of-Experts Verification and Alignment (EVAL)").
"""
