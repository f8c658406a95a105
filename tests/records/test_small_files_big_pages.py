"""Small files cannot take the machine (issue 28, item 7): a PDF of 10,000 blank pages or a
TIFF of 200 large frames, a few hundred kB each, is refused with one clear line before any
page is decoded, under a memory limit the uncapped decoding would blow through many times;
the decompression-bomb limit is the one the docstring states; no error shows Python's
object representations.

The bombs are made here with pypdf and Pillow; each import runs in a child process whose
address space is capped with RLIMIT_AS."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfWriter

from concord.errors import InputError
from concord.records import load_record
from concord.records.ocr.images import MAX_PIXELS, image_pages

MEMORY_LIMIT = 1536 * 1024 * 1024
"""The child's address space: well under what the old code needed for either bomb
(about 43 GB for the PDF, 10 GB for the TIFF), enough for Python and the imports."""
ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys
from concord.errors import InputError
from concord.records import load_record
try:
    load_record(sys.argv[1])
except InputError as exc:
    print(json.dumps({"refused": exc.one_line()}))
else:
    print(json.dumps({"refused": None}))
"""


def _import_capped(path: Path) -> dict:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = dict(os.environ, PYTHONPATH=str(ROOT / "desktop"), OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]  # no MemoryError, no traceback
    assert "Traceback" not in done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def page_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    writer = PdfWriter()
    for _ in range(10_000):
        writer.add_blank_page(width=595, height=842)
    path = tmp_path_factory.mktemp("bombs") / "blank-10000.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    assert path.stat().st_size < 2_000_000
    return path


@pytest.fixture(scope="module")
def frame_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = Image.new("1", (7000, 7000), 1)  # 49 megapixels, each under the page limit
    path = tmp_path_factory.mktemp("bombs") / "frames-200.tif"
    frame.save(path, save_all=True, append_images=[frame] * 199, compression="group4")
    assert path.stat().st_size < 1_500_000
    return path


def test_a_pdf_of_ten_thousand_blank_pages_is_refused_within_the_memory_limit(
    page_bomb: Path,
) -> None:
    result = _import_capped(page_bomb)
    assert result["refused"] is not None
    assert str(page_bomb) in result["refused"] and "10,000 pages" in result["refused"]
    assert "page limit" in result["refused"]


def test_a_tiff_of_200_large_frames_is_refused_within_the_memory_limit(frame_bomb: Path) -> None:
    result = _import_capped(frame_bomb)
    assert result["refused"] is not None
    assert str(frame_bomb) in result["refused"] and "pixels" in result["refused"]


def test_the_decompression_bomb_limit_is_the_stated_one(tmp_path: Path) -> None:
    """Pillow only refuses at twice its MAX_IMAGE_PIXELS (it merely warns below): a 100 MP
    image was decoded although the stated limit is 60 MP."""
    path = tmp_path / "big.png"
    Image.new("1", (10_000, 10_000), 1).save(path)
    assert MAX_PIXELS < 10_000 * 10_000
    with pytest.raises(InputError, match=r"page 1 is too large to read .*60,000,000"):
        load_record(path)
    just_over = tmp_path / "just-over.png"
    Image.new("1", (8000, 7501), 1).save(just_over)
    with pytest.raises(InputError, match="too large"):
        load_record(just_over)


def test_pages_are_decoded_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "three.tif"
    frame = Image.new("L", (300, 200), 255)
    frame.save(path, save_all=True, append_images=[frame, frame])
    pages = image_pages(path.read_bytes(), path)
    assert isinstance(pages, Iterator)  # a generator: nothing decoded until asked for
    assert [image.size for image, _dpi in pages] == [(300, 200)] * 3


@pytest.mark.parametrize("suffix", [".png", ".tif", ".jpg"])
def test_an_unreadable_image_names_the_file_not_a_python_object(
    tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"scan{suffix}"
    path.write_bytes(b"this is not an image at all" * 10)
    with pytest.raises(InputError) as caught:
        load_record(path)
    line = caught.value.one_line()
    assert str(path) in line and "not a readable image" in line
    assert "0x" not in line and "BytesIO" not in line and "<" not in line
