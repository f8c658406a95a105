"""llama-cpp-python's `Llama` with the weights loaded as Concord's runtime loads them: not
repacked (llama.cpp's `use_extra_bufts` off, which `Llama` has no argument for).

Repacked Q4_K kernels use the CPU's AMX instructions where the CPU lists them; a virtual
machine that lists AMX but does not grant it kills the process with SIGILL (exit 132) on
the first decode. Every `Llama` Concord makes (the embedder, the benchmark's naive peer)
is made here, so none of them repacks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from concord.errors import ModelError

_PATCH_LOCK = threading.Lock()


@contextmanager
def default_params_unpacked() -> Iterator[None]:
    """While inside, `llama_model_default_params()` (what `Llama` calls) says no repacking."""
    import llama_cpp.llama_cpp as bindings  # the module `Llama` reads its defaults from

    with _PATCH_LOCK:
        original = bindings.llama_model_default_params

        def unpacked() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        bindings.llama_model_default_params = unpacked
        try:
            yield
        finally:
            bindings.llama_model_default_params = original


def unpacked_llama(model_path: str, **kwargs: Any) -> Any:
    """`llama_cpp.Llama(model_path, **kwargs)` without repacked weights; `ModelError` if
    llama-cpp-python is missing or llama.cpp cannot load the file."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelError("llama-cpp-python is not installed", subject=model_path) from exc
    with default_params_unpacked():
        try:
            return llama_cpp.Llama(model_path=model_path, **kwargs)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"llama.cpp could not load the model: {exc}", subject=model_path
            ) from exc
