"""Importers: each format loads with exact text; every bad input is one InputError line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from concord.domain import Record
from concord.errors import InputError
from concord.records import MAX_RECORD_BYTES, load_record, locator_for
from concord.records.pdf import PAGE_SEPARATOR


def test_txt_is_one_document_with_exact_text(fixtures_dir: Path) -> None:
    path = fixtures_dir / "patient_a.txt"
    record = load_record(path)
    (doc,) = record.documents
    assert (doc.source_id, doc.kind, record.name) == ("patient_a.txt", "txt", "patient_a.txt")
    assert doc.text == path.read_text(encoding="utf-8")


def test_md_keeps_unicode(fixtures_dir: Path) -> None:
    record = load_record(fixtures_dir / "clinic_letter.md")
    (doc,) = record.documents
    assert doc.kind == "md"
    assert "AVA 0.7 cm²" in doc.text


def test_json_record_with_documents(fixtures_dir: Path) -> None:
    record = load_record(fixtures_dir / "multi_document.json")
    assert record.name == "Patient B"
    assert record.operation == "total knee replacement"
    assert [d.source_id for d in record.documents] == ["gp_letter", "bloods"]
    assert record.document("bloods").title == "Bloods 02/04"
    assert record.document("bloods").text.splitlines()[1] == "Platelets 45,000/µL"
    assert {d.kind for d in record.documents} == {"json"}


def test_json_top_level_list_of_documents(fixtures_dir: Path) -> None:
    record = load_record(fixtures_dir / "document_list.json")
    assert record.name == "document_list.json"
    assert record.operation is None
    assert record.document("note2").title == "Obs"


def test_pdf_pages_and_locators(pdf_record_path: Path) -> None:
    record = load_record(pdf_record_path)
    (doc,) = record.documents
    assert doc.kind == "pdf" and len(doc.page_starts) == 2
    assert doc.page_starts[0] == 0
    assert doc.text[doc.page_starts[1] - len(PAGE_SEPARATOR) : doc.page_starts[1]] == PAGE_SEPARATOR
    at = doc.text.index("LVEF 25-30%")
    assert doc.page_of(at) == 2
    locator = locator_for(record, doc.source_id, at)
    line = record.line_index[locator.split()[0]]
    assert line.start <= at <= line.end and "LVEF" in line.text
    assert locator.endswith(" p2")
    assert locator_for(record, doc.source_id, doc.text.index("K+ 6.3")).endswith(" p1")


def test_locator_for_text_record(fixtures_dir: Path) -> None:
    record = load_record(fixtures_dir / "patient_a.txt")
    text = record.documents[0].text
    at = text.index("Denies chest pain")
    locator = locator_for(record, "patient_a.txt", at)
    assert locator.startswith("L") and " p" not in locator
    assert record.line_index[locator].text.startswith("Denies chest pain")


def test_crlf_becomes_lf_and_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes(b"\xef\xbb\xbfLine one\r\nK+ 4.1 mmol/L\r\nlone\rcr\n")
    text = load_record(path).documents[0].text
    assert text == "Line one\nK+ 4.1 mmol/L\nlone\rcr\n"


def test_upper_case_suffix(tmp_path: Path) -> None:
    path = tmp_path / "NOTE.TXT"
    path.write_text("hello", encoding="utf-8")
    assert load_record(path).documents[0].kind == "txt"


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


BAD_INPUTS: list[tuple[str, bytes | str, str]] = [
    ("empty.txt", b"", "empty"),
    ("blank.md", "  \n\n\t", "empty"),
    ("binary.txt", b"abc\x00\x01\x02", "not UTF-8 text (NUL byte at byte offset 3)"),
    ("latin1.txt", "caf\xe9".encode("latin-1"), "not UTF-8 text (byte 0xe9 at byte offset 3)"),
    ("bom_latin1.txt", b"\xef\xbb\xbfab\xff", "byte offset 5"),
    ("bad.json", '{"documents": [', "malformed JSON at line 1 column"),
    ("bad_lines.json", '{\n  "name": "x",\n  "documents": [}\n', "line 3"),
    ("shape.json", '{"name": "x", "documents": [{"title": "t"}]}', "documents.0.source_id"),
    ("shape_extra.json", '{"name": "x", "documents": [], "foo": 1}', "not a record"),
    ("scalar.json", "42", "not a record"),
    ("no_docs.json", '{"documents": []}', "documents"),
    ("dup.json", '[{"source_id": "a", "text": "x"}, {"source_id": "a", "text": "y"}]', "unique"),
    ("blank_docs.json", '[{"source_id": "a", "text": "  "}]', "no text"),
    ("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("deep_obj.json", '{"documents": ' + "[" * 5000 + "]" * 5000 + "}", "json"),
    ("bigint.json", "[" + "9" * 5000 + "]", "json"),
    ("broken.pdf", b"%PDF-1.4\n%garbage that is not a pdf at all\n", "PDF"),
    ("fake.pdf", b"just text", "not a PDF file"),
    ("notes.docx", "hello", "unsupported file type .docx"),
    ("noext", "hello", "unsupported file type (none)"),
]


@pytest.mark.parametrize(("name", "data", "expected"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_one_clear_input_error(
    tmp_path: Path, name: str, data: bytes | str, expected: str
) -> None:
    path = _write(tmp_path, name, data)
    with pytest.raises(InputError) as caught:
        load_record(path)
    message = str(caught.value)
    assert name in message
    assert expected.lower() in message.lower()
    assert "\n" not in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.txt: file not found"):
        load_record(tmp_path / "missing.txt")


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    with pytest.raises(InputError, match="folder.txt: not a regular file"):
        load_record(folder)


def test_file_over_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # sparse: no 64 MiB written to disk
        handle.seek(MAX_RECORD_BYTES)
        handle.write(b"x")
    with pytest.raises(InputError, match=r"huge\.txt: .*over the .*limit"):
        load_record(path)


def test_pdf_with_blank_pages_only(
    tmp_path: Path, pdf_writer: Callable[[Path, list[list[str]]], Path]
) -> None:
    """No text layer and nothing for OCR to read: refused, not imported empty."""
    path = pdf_writer(tmp_path / "scan.pdf", [[], []])
    with pytest.raises(InputError, match=r"scan\.pdf: scanned PDF has no text \(OCR read"):
        load_record(path)


def test_truncated_pdf(tmp_path: Path, pdf_record_path: Path) -> None:
    path = tmp_path / "truncated.pdf"
    path.write_bytes(pdf_record_path.read_bytes()[:300])
    with pytest.raises(InputError) as info:
        load_record(path)
    assert "truncated.pdf" in str(info.value)


def test_json_record_round_trip(tmp_path: Path) -> None:
    payload = {"name": "C", "documents": [{"source_id": "s", "text": "a\r\nb"}]}
    path = _write(tmp_path, "c.json", json.dumps(payload))
    record = load_record(path)
    assert isinstance(record, Record)
    assert record.document("s").text == "a\nb"
