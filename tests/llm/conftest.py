"""Fixtures for this folder's tests, defined with its helpers in `tests.llm.helpers`."""

from tests.llm.helpers import (  # noqa: F401 - fixtures are found by name
    _fresh_hash_cache,
)
