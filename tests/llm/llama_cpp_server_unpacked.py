"""llama-cpp-python's OpenAI-compatible server with the weights loaded as Concord loads them:
not repacked (`use_extra_bufts` off, which `llama_cpp.server` has no option for).

Repacked Q4_K kernels use the CPU's AMX instructions where the CPU lists them; a virtual
machine that lists AMX but does not grant it kills the server with SIGILL as the model
loads. Concord's own runtime never repacks (`LlamaCppRuntime(repack=False)`), so the test
servers do not either: `python -m tests.llm.llama_cpp_server_unpacked --model ... --port ...`.
"""

from __future__ import annotations

import runpy

import llama_cpp.llama_cpp as bindings  # what `Llama` calls (llama_cpp/llama.py)


def _unpacked_default_params() -> bindings.llama_model_params:
    params = _default_params()
    params.use_extra_bufts = False
    return params


_default_params = bindings.llama_model_default_params
bindings.llama_model_default_params = _unpacked_default_params

if __name__ == "__main__":
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
