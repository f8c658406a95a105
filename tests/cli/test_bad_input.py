"""Bad input: one clear line naming the file and the problem, non-zero exit, nothing written."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from concord import paths
from concord.cli import main


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("concord: error: ")
    return err[0]


def record_count() -> int:
    db = paths.database_path()
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("missing.txt", None, "not found"),
        ("empty.txt", b"", "empty"),
        ("binary.txt", b"\x00\x01\x02PK\x03\x04", "UTF-8"),
        ("latin1.txt", "caf\xe9 K+ 6.3".encode("latin-1"), "UTF-8"),
        ("broken.json", b'{"documents": [', "JSON"),
        ("shape.json", b'{"documents": "not a list"}', "documents"),
        ("notes.docx", b"PK\x03\x04", "file type"),
        ("fake.pdf", b"this is not a pdf", "PDF"),
    ],
)
def test_import_refuses_bad_files(tmp_path, capsys, name, content, problem):
    good = tmp_path / "good.txt"
    good.write_text("K+ 6.3 mmol/L\n")
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert main(["import", str(good), str(path)]) == 1
    line = one_error_line(capsys)
    assert name in line and problem.lower() in line.lower(), line
    assert record_count() == 0  # the good file was not imported either: nothing half done


def test_pdf_without_text(tmp_path, capsys):
    from reportlab.pdfgen import canvas

    pdf = tmp_path / "blank.pdf"
    c = canvas.Canvas(str(pdf))
    c.showPage()
    c.save()
    assert main(["screen", str(pdf), "--json"]) == 1
    line = one_error_line(capsys)
    assert "blank.pdf" in line and "text" in line


def test_bad_evidence_jsonl_names_file_and_line(tmp_path, capsys):
    record = tmp_path / "r.txt"
    record.write_text("Potassium 6.3 mmol/L\n")
    ev = tmp_path / "ev.jsonl"
    ev.write_text(
        '{"source_id": "r.txt", "locator": "L1", "extract_text": "K", "tag": "LABS"}\n{not json\n'
    )
    assert main(["verify-extracts", str(record), str(ev), "--json"]) == 1
    line = one_error_line(capsys)
    assert "ev.jsonl" in line and "line 2" in line


def test_verify_extracts_never_verifies_a_changed_number(tmp_path, capsys):
    record = tmp_path / "r.txt"
    record.write_text("Bloods 01/11: K+ 6.3 mmol/L, Na 139.\nNo history of bleomycin.\n")
    ev = tmp_path / "ev.jsonl"
    lines = [
        {"source_id": "r.txt", "locator": "L1", "extract_text": t, "tag": "LABS", "comment": ""}
        for t in ("K+ 6.3 mmol/L", "K+ 3.6 mmol/L", "bleomycin")
    ]
    ev.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["verify-extracts", str(record), str(ev), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["lines"]
    assert rows[0]["status"] == "EXACT" and rows[0]["verified"]
    assert rows[1]["verified"] is False and "number_mismatch" in rows[1]["flags"]
    assert rows[2]["verified"] is False and "negation_mismatch" in rows[2]["flags"]
    text = record.read_text()
    assert text[rows[0]["start"] : rows[0]["end"]] == "K+ 6.3 mmol/L"


def test_unknown_case_and_target(capsys):
    assert main(["show", "C-nope", "--json"]) == 1
    assert "C-nope" in one_error_line(capsys)


def test_model_with_wrong_hash_is_refused(tmp_path, capsys, monkeypatch):
    store = tmp_path / "models"
    store.mkdir()
    monkeypatch.setenv("CONCORD_MODELS", str(store))
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\x00" * 64)
    assert (
        main(["models", "add", str(gguf), "--role", "agent", "--name", "tiny", "--n-ctx", "512"])
        == 0
    )
    capsys.readouterr()
    gguf.write_bytes(b"GGUF" + b"\x01" * 64)  # swapped after registration
    assert main(["models", "verify", "tiny"]) == 1
    line = one_error_line(capsys)
    assert "tiny.gguf" in line and "SHA-256" in line
    record = tmp_path / "r.txt"
    record.write_text("K+ 6.3\n")
    assert main(["run", str(record), "--model", "tiny", "--judges", "0"]) == 1
    assert "SHA-256" in one_error_line(capsys)


def test_missing_model_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CONCORD_MODELS", str(tmp_path / "store"))
    assert main(["models", "add", str(tmp_path / "absent.gguf"), "--role", "agent"]) == 1
    assert "absent.gguf" in one_error_line(capsys)


def test_console_script_prints_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "concord", "screen", str(tmp_path / "nope.txt")],
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "CONCORD_HOME": str(tmp_path / "home")},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "nope.txt" in result.stderr


def test_scripted_runtime_output_that_never_fits_becomes_a_failed_brief(tmp_path):
    from concord.agents.profiles import load_profiles
    from concord.agents.runner import run_agent
    from concord.llm.scripted import ScriptedRuntime
    from concord.records import load_record

    record_path = tmp_path / "r.txt"
    record_path.write_text("K+ 6.3 mmol/L\n")
    record = load_record(record_path)
    runtime = ScriptedRuntime(lambda request: '{"top_risks": "not a list"}')
    brief = run_agent(runtime, load_profiles()["renal"], record, operation="TURP")
    assert brief.status.value == "failed" and brief.failure_reason
    assert brief.attempts >= 2 and brief.raw_output


@pytest.mark.parametrize("supported", [False, True])
def test_gpu_layers_without_a_gpu_build_are_a_warning(tmp_path, capsys, monkeypatch, supported):
    import concord.llm.llama_cpp_runtime as llama_runtime

    monkeypatch.setenv("CONCORD_MODELS", str(tmp_path / "store"))
    monkeypatch.setattr(llama_runtime, "gpu_offload_supported", lambda: supported)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\x00" * 64)
    assert (
        main(
            [
                "models",
                "add",
                str(gguf),
                "--role",
                "agent",
                "--name",
                "tiny",
                "--n-ctx",
                "512",
                "--n-gpu-layers",
                "-1",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert ("built without GPU support" in err) is not supported
