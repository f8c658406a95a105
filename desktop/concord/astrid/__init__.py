"""ASTRID: judging RAG clinical question answering (Conversational Faithfulness, Refusal
Accuracy, Context Relevance), agreement with human labels, and clinical-label prediction.

Deliberately empty of imports: `concord.store.migrations` imports `concord.astrid.schema`,
and the store must not pull in the judge, the model runtime or scikit-learn.
"""
