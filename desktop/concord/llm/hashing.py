"""SHA-256 of model files, computed in chunks and cached per process by (path, size, mtime)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from concord.errors import ModelError

HASH_CHUNK_BYTES = 4 * 1024 * 1024

_Key = tuple[str, int, int, int, int]
_cache: dict[_Key, str] = {}
_lock = threading.Lock()


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of `path`; a file unchanged since the last call is not read again.

    "Unchanged" includes the inode and the change time (ctime), which every write and every
    timestamp reset moves and which user space cannot set back: an altered file whose size
    and modification time were restored is hashed again, and refused."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelError(f"model file is missing: {exc.strerror or exc}", subject=path) from exc
    key = _key(path, stat)
    with _lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(HASH_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        raise ModelError(f"cannot read model file: {exc.strerror or exc}", subject=path) from exc
    value = digest.hexdigest()
    with _lock:
        _cache[key] = value
    return value


def remember_hash(path: Path, value: str) -> None:
    """Record the hash of a file the caller has just written and hashed as it wrote it."""
    with _lock:
        _cache[_key(path, path.stat())] = value


def forget_cached_hashes() -> None:
    """Drop the in-memory cache (tests)."""
    with _lock:
        _cache.clear()


def _key(path: Path, stat: os.stat_result) -> _Key:
    return (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
