"""ASTRID: judging RAG clinical question answering (Conversational Faithfulness, Refusal
Accuracy, Context Relevance), agreement with human labels, and clinical-label prediction.

Submodules are imported where they are used: the package itself loads nothing heavy.
"""
