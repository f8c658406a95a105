"""Write a file so that it is either complete or absent: temp file, fsync, os.replace."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def write_atomically(path: Path, write: Callable[[IO[str]], None], *, newline: str = "") -> str:
    """Call `write` on a temporary file beside `path`, then move it into place.

    On any error the temporary file is removed and `path` is left as it was.
    Returns the SHA-256 of the bytes written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        digest = hashlib.sha256(Path(temp_name).read_bytes()).hexdigest()
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return digest
