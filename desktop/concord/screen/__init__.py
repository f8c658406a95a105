"""The record screen: quality gates evaluated on the record itself by code (no LLM) - gate
files, the synonym lexicon, units, dates and context (negation, history, family).
"""
