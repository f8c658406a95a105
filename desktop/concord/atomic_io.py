"""Files written whole or not at all (a temporary file beside the target, fsync, rename), and
folders and files only their owner can read. The review PDF, the keys and credentials and
the label export all write through here."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
from collections.abc import Callable, Iterator
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
    """`data` at `out`, whole or not at all (owner-only when `private`)."""
    with atomic_output(out, private=private) as handle:
        handle.write(data)


def write_text_atomically(
    path: Path, write: Callable[[IO[str]], None], *, newline: str = ""
) -> str:
    """Call `write` on a text stream, then put its UTF-8 bytes in place with `write_atomic`;
    on any error `path` is left as it was. Returns the SHA-256 of the bytes written."""
    buffer = io.StringIO(newline=newline)
    write(buffer)
    data = buffer.getvalue().encode("utf-8")
    write_atomic(Path(path), data)
    return hashlib.sha256(data).hexdigest()
