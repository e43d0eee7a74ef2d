"""The modules of scripts/ as the tests import them."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def import_script(monkeypatch, name: str):
    """``scripts/<name>.py``, imported afresh by name with scripts/ on sys.path (undone after
    the test), so that pool workers started by "spawn" or "forkserver" (other tests may set
    either) can import it too."""
    monkeypatch.syspath_prepend(str(SCRIPTS))
    sys.modules.pop(name, None)
    return importlib.import_module(name)
