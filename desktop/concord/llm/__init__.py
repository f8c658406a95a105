"""Model runtimes behind one protocol, and the local GGUF model store.

Heavy imports (llama_cpp) happen only inside the llama.cpp runtime's constructor.
"""

from concord.llm.runtime import Generation, GenerationRequest, Runtime
from concord.llm.scripted import ScriptedRuntime

__all__ = ["Generation", "GenerationRequest", "Runtime", "ScriptedRuntime"]
