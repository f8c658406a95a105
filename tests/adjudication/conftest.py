"""Fixtures for this folder's tests, defined with its helpers in `tests.adjudication.helpers`."""

from tests.adjudication.helpers import (  # noqa: F401 - fixtures are found by name
    config,
    lexicon,
    record,
)
