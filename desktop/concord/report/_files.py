"""Small file helpers for the report package: atomic writes and owner-only permissions."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

OWNER_ONLY_FILE = 0o600
OWNER_ONLY_DIR = 0o700


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) and restrict it to the owner where the OS supports it."""
    path.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):  # e.g. filesystems without POSIX modes
        os.chmod(path, OWNER_ONLY_DIR)
    return path


@contextlib.contextmanager
def atomic_output(out: Path, *, private: bool = False) -> Iterator[IO[bytes]]:
    """Write to a temporary file beside `out`; move it into place only if the block succeeds.

    On any exception the temporary file is removed and `out` is left untouched, so a reader
    never sees a half-written file.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    tmp = Path(tmp_name)
    try:
        if private:
            with contextlib.suppress(OSError):
                os.chmod(tmp, OWNER_ONLY_FILE)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, out)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_atomic(out: Path, data: bytes, *, private: bool = False) -> None:
    with atomic_output(out, private=private) as handle:
        handle.write(data)
