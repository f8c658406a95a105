"""Where Concord finds its resources, model store and home folder. No I/O beyond path lookups."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT_ROOT = _PACKAGE_DIR.parent.parent  # desktop/concord -> repository root


def _first_existing(*candidates: Path) -> Path | None:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


RESOURCES_ENV = "CONCORD_RESOURCES"
"""The environment variable that names another resources folder."""


def resources_dir() -> Path:
    """The `resources/` folder: $CONCORD_RESOURCES, the checkout's, or the installed copy."""
    env = os.environ.get(RESOURCES_ENV)
    if env:
        return Path(env)
    found = _first_existing(
        _CHECKOUT_ROOT / "resources", Path(sys.prefix) / "share" / "concord" / "resources"
    )
    if found is None:
        raise FileNotFoundError("Concord resources folder not found (set CONCORD_RESOURCES)")
    return found


def concord_home(*, create: bool = True) -> Path:
    """$CONCORD_HOME, else the platform's user data folder. Created on first use unless
    `create` is False (for code that only looks, such as the network guard at start-up)."""
    env = os.environ.get("CONCORD_HOME")
    if env:
        home = Path(env)
    else:
        from platformdirs import user_data_dir

        home = Path(user_data_dir("concord", appauthor=False))
    if create:
        home.mkdir(parents=True, exist_ok=True)
    return home


def model_store_dir() -> Path:
    """The local GGUF store: $CONCORD_MODELS, the checkout's `models/`, or CONCORD_HOME/models."""
    env = os.environ.get("CONCORD_MODELS")
    if env:
        path = Path(env)
    elif (_CHECKOUT_ROOT / "models").is_dir() and os.access(_CHECKOUT_ROOT / "models", os.W_OK):
        path = _CHECKOUT_ROOT / "models"
    else:
        path = concord_home() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def database_path() -> Path:
    return concord_home() / "concord.sqlite"
