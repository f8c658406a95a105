import json
import os
import time
from pathlib import Path

import pytest

from concord.errors import ModelError
from concord.llm.default_model import (
    DEFAULT_MODEL_FILE,
    DEFAULT_MODEL_NAME,
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
)
from concord.llm.gguf_meta import context_length, read_gguf_metadata
from concord.llm.hashing import sha256_file
from concord.llm.registry import MANIFEST_NAME, ModelRole, ModelStore, load_runtime
from tests.llm.helpers import write_fake_gguf

REPO_MANIFEST = Path(__file__).resolve().parents[2] / "models" / "manifest.json"


def test_gguf_header_is_read_without_llama_cpp(tmp_path: Path) -> None:
    path = write_fake_gguf(tmp_path / "toy.gguf", context_length=3072)
    assert context_length(path) == 3072
    meta = read_gguf_metadata(path)
    assert meta["general.architecture"] == "toy"
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 32)
    with pytest.raises(ModelError, match="not a GGUF"):
        read_gguf_metadata(bad)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(path.read_bytes()[:40])
    with pytest.raises(ModelError, match="truncated"):
        read_gguf_metadata(cut)


def test_add_resolve_verify_round_trip(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    model = write_fake_gguf(tmp_path / "toy.gguf", context_length=3072)
    entry = store.add(model, role=["agent", "judge"], licence="test")
    assert entry.name == "toy" and entry.file == "toy.gguf" and entry.n_ctx == 3072
    assert entry.roles == (ModelRole.AGENT, ModelRole.JUDGE) and entry.sha256 == sha256_file(model)
    reopened = ModelStore.open(tmp_path)
    assert reopened.resolve("toy") == entry
    assert reopened.resolve(str(model)) == entry
    assert reopened.default() == entry
    reopened.verify(entry)
    saved = json.loads((tmp_path / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert saved["models"][0]["file"] == "toy.gguf" and "path" not in saved["models"][0]


def test_context_is_capped_and_can_be_given(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    big = store.add(write_fake_gguf(tmp_path / "big.gguf", context_length=131072), "agent")
    assert big.n_ctx == 8192
    given = store.add(tmp_path / "big.gguf", "judge", name="big-judge", n_ctx=1024)
    assert given.n_ctx == 1024 and store.default().name == "big"


def test_unknown_model_and_role(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    with pytest.raises(ModelError, match="not registered"):
        store.resolve("no-such-model")
    with pytest.raises(ModelError, match="no default model"):
        store.default()
    with pytest.raises(ModelError, match="unknown model role"):
        store.add(write_fake_gguf(tmp_path / "t.gguf"), "oracle")


def test_truncated_file_is_refused(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    entry = store.add(write_fake_gguf(tmp_path / "toy.gguf"), "agent")
    data = (tmp_path / "toy.gguf").read_bytes()
    (tmp_path / "toy.gguf").write_bytes(data[:-100])
    with pytest.raises(ModelError, match="SHA-256 does not match the manifest: refusing to load"):
        store.verify(entry)
    with pytest.raises(ModelError, match="refusing to load"):
        load_runtime(entry)


def test_modified_file_is_refused_even_after_a_cached_check(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    path = write_fake_gguf(tmp_path / "toy.gguf")
    entry = store.add(path, "agent")
    store.verify(entry)  # hash now cached for (path, size, mtime)
    with open(path, "r+b") as handle:
        handle.seek(-10, os.SEEK_END)
        handle.write(b"\x01")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(ModelError) as info:
        store.verify(entry)
    assert "toy.gguf" in str(info.value) and "refusing to load" in str(info.value)


def test_altered_file_with_size_and_mtime_restored_is_refused(tmp_path: Path) -> None:
    """Someone who alters a verified model and sets its modification time back must not
    get past the per-process hash cache (its key includes the change time and inode)."""
    store = ModelStore.open(tmp_path)
    path = write_fake_gguf(tmp_path / "toy.gguf")
    entry = store.add(path, "agent")
    store.verify(entry)
    before = path.stat()
    time.sleep(0.05)  # let the file system's coarse clock tick past the creation time
    with open(path, "r+b") as handle:
        handle.seek(-10, os.SEEK_END)
        handle.write(b"\x01")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    with pytest.raises(ModelError, match="refusing to load"):
        store.verify(entry)


def test_missing_file_and_bad_manifest(tmp_path: Path) -> None:
    store = ModelStore.open(tmp_path)
    entry = store.add(write_fake_gguf(tmp_path / "toy.gguf"), "agent")
    (tmp_path / "toy.gguf").unlink()
    with pytest.raises(ModelError, match="missing"):
        store.verify(entry)
    (tmp_path / MANIFEST_NAME).write_text("{broken", encoding="utf-8")
    with pytest.raises(ModelError, match="invalid model manifest"):
        ModelStore.open(tmp_path)


def test_committed_manifest_pins_the_default_model() -> None:
    manifest = json.loads(REPO_MANIFEST.read_text(encoding="utf-8"))
    entry = next(m for m in manifest["models"] if m["name"] == DEFAULT_MODEL_NAME)
    assert manifest["default"] == DEFAULT_MODEL_NAME
    assert entry["sha256"] == DEFAULT_MODEL_SHA256 and entry["size"] == DEFAULT_MODEL_SIZE
    assert entry["file"] == DEFAULT_MODEL_FILE
    assert set(entry["roles"]) == {"agent", "judge"}
    assert entry["licence"] == "Gemma Terms of Use"


def test_swapped_default_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / MANIFEST_NAME).write_text(REPO_MANIFEST.read_text(encoding="utf-8"))
    write_fake_gguf(tmp_path / DEFAULT_MODEL_FILE, payload=b"\0" * 100)
    store = ModelStore.open(tmp_path)
    with pytest.raises(ModelError, match="refusing to load"):
        store.verify(store.default())


def test_an_altered_default_model_is_refused_not_silently_rebuilt(tmp_path, monkeypatch, capsys):
    from concord.cli import main
    from concord.llm import default_model
    from concord.llm.default_model import install_default

    (tmp_path / "package").mkdir()
    packaged = write_fake_gguf(tmp_path / "package" / "chunk.gguf")
    monkeypatch.setattr(default_model, "DEFAULT_MODEL_SHA256", sha256_file(packaged))
    monkeypatch.setattr(default_model, "DEFAULT_MODEL_SIZE", packaged.stat().st_size)
    monkeypatch.setattr(default_model, "_chunk_paths", lambda: [packaged])
    monkeypatch.setenv("CONCORD_MODELS", str(tmp_path / "store"))
    store = ModelStore.open(tmp_path / "store")
    entry = install_default(store)  # assembled from the package the first time
    target = entry.resolved_path()
    data = bytearray(target.read_bytes())
    data[-1] ^= 0xFF  # same size, altered
    target.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="does not match the manifest") as caught:
        install_default(store)
    assert str(target) in str(caught.value) and "concord models install-default" in str(
        caught.value
    )
    assert main(["demo", "--patients", "1"]) == 1  # the demo refuses it too, in one line
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"concord: error: {target}: SHA-256 does not match"), err
    assert sha256_file(target) != default_model.DEFAULT_MODEL_SHA256  # left for inspection
    assert main(["models", "install-default"]) == 0  # the administrator restores it
    assert sha256_file(target) == default_model.DEFAULT_MODEL_SHA256


def test_installing_the_default_model_reads_the_assembled_file_once(tmp_path, monkeypatch):
    """The file is hashed while it is assembled; registering and verifying it do not read
    all of it again (253 MB on a workstation)."""
    from concord.llm import default_model, hashing

    (tmp_path / "package").mkdir()
    packaged = write_fake_gguf(tmp_path / "package" / "chunk.gguf", payload=b"\1" * 4096)
    monkeypatch.setattr(default_model, "DEFAULT_MODEL_SHA256", sha256_file(packaged))
    monkeypatch.setattr(default_model, "DEFAULT_MODEL_SIZE", packaged.stat().st_size)
    monkeypatch.setattr(default_model, "_chunk_paths", lambda: [packaged])
    store = ModelStore.open(tmp_path / "store")
    target = (tmp_path / "store" / default_model.DEFAULT_MODEL_FILE).resolve()
    reads: list[Path] = []

    def counting_open(file, *args, **kwargs):
        if Path(file).resolve() == target:
            reads.append(Path(file))
        return open(file, *args, **kwargs)

    monkeypatch.setattr(hashing, "open", counting_open, raising=False)
    entry = default_model.install_default(store)
    assert entry.resolved_path() == target and entry.sha256 == sha256_file(packaged)
    assert default_model.install_default(store) == entry  # verified again: from the cache
    assert reads == []  # never hashed apart from the pass that wrote it
    hashing.forget_cached_hashes()
    store.verify(entry)  # a new process would read it (the cache is per process)
    assert len(reads) == 1
