"""Concord: offline clinical review of local-LLM agents and judges."""

__version__ = "0.1.0"
