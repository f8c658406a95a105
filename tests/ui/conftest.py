"""Fixtures for this folder's tests, defined with its helpers in `tests.ui.helpers`."""

from tests.ui.helpers import (  # noqa: F401 - fixtures are found by name
    case_window,
    make_window,
    stored_case,
)
