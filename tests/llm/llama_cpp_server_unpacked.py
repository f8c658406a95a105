"""llama-cpp-python's OpenAI-compatible server with the weights loaded as Concord loads them:
not repacked (`use_extra_bufts` off, which `llama_cpp.server` has no option for).

Repacked Q4_K kernels use the CPU's AMX instructions where the CPU lists them; a virtual
machine that lists AMX but does not grant it kills the server with SIGILL as the model
loads. Concord's own runtime never repacks (`LlamaCppRuntime(repack=False)`), so the test
servers do not either: `python -m tests.llm.llama_cpp_server_unpacked --model ... --port ...`.
"""

from __future__ import annotations

import runpy

from concord.llm.unpacked import default_params_unpacked

if __name__ == "__main__":
    with default_params_unpacked():  # the server loads the model inside
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
