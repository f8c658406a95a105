"""The input-format registry: each format Concord imports is one entry.

An entry names the format, the file suffixes it reads, the label a file dialog shows and
the function that turns one file into a Record. A loader module registers itself with the
`input_format` decorator; `concord.records.load` imports the built-in loader modules and
derives everything else from the registry: `load_record`'s choice of loader, which files a
folder import picks up, the desktop's file-dialog filter and the error that lists what is
accepted. How to add a format: README, "How to add an input format".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from concord.domain import Record

Loader = Callable[[Path], Record]


@dataclass(frozen=True)
class InputFormat:
    """One importable file format."""

    name: str  # stable id, e.g. "pdf"
    label: str  # what a file dialog calls it, e.g. "PDF documents"
    suffixes: tuple[str, ...]  # lower-case, with the dot: (".pdf",)
    load: Loader  # reads one file; raises InputError naming the file on bad input

    def __post_init__(self) -> None:
        if not self.suffixes:
            raise ValueError(f"input format {self.name!r} names no suffix")
        for suffix in self.suffixes:
            if not suffix.startswith(".") or suffix != suffix.lower() or len(suffix) < 2:
                raise ValueError(
                    f"input format {self.name!r}: suffix {suffix!r} must be lower-case "
                    "and start with a dot"
                )

    @property
    def patterns(self) -> str:
        """The suffixes as file-dialog patterns: "*.png *.jpg"."""
        return " ".join(f"*{s}" for s in self.suffixes)


_REGISTRY: dict[str, InputFormat] = {}


def register_format(fmt: InputFormat) -> InputFormat:
    """Add `fmt`; a name or suffix that another format already has is refused."""
    if fmt.name in _REGISTRY:
        raise ValueError(f"input format {fmt.name!r} is already registered")
    taken = {s: f.name for f in _REGISTRY.values() for s in f.suffixes}
    clash = [s for s in fmt.suffixes if s in taken]
    if clash:
        raise ValueError(f"input format {fmt.name!r}: {clash[0]} is read by {taken[clash[0]]!r}")
    _REGISTRY[fmt.name] = fmt
    return fmt


def unregister_format(name: str) -> None:
    """Remove a registered format (tests and plug-ins that are unloaded)."""
    _REGISTRY.pop(name, None)


def input_format(name: str, *, label: str, suffixes: tuple[str, ...]) -> Callable[[Loader], Loader]:
    """Decorator: register the decorated function as the loader of format `name`."""

    def register(load: Loader) -> Loader:
        register_format(InputFormat(name=name, label=label, suffixes=suffixes, load=load))
        return load

    return register


def registered_formats() -> tuple[InputFormat, ...]:
    """Every registered format, in registration order (built-ins first)."""
    return tuple(_REGISTRY.values())
