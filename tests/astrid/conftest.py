"""Fixtures for this folder's tests, defined with its helpers in `tests.astrid.helpers`."""

from tests.astrid.helpers import (  # noqa: F401 - fixtures are found by name
    demo_items,
    scripted,
)
