"""Fixtures for this folder's tests, defined with its helpers in `tests.eval.helpers`."""

from tests.eval.helpers import (  # noqa: F401 - fixtures are found by name
    question_file,
    set_id,
    store,
)
