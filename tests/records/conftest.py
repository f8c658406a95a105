"""Fixtures for this folder's tests, defined with its helpers in `tests.records.helpers`."""

from tests.records.helpers import (  # noqa: F401 - fixtures are found by name
    fixtures_dir,
    pdf_record_path,
    pdf_writer,
)
