"""Where the shell keeps its files: records now, the database later."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """`$LIARSDICE_DATA`, else `$XDG_DATA_HOME/liarsdice`, else `~/.local/share/liarsdice`."""
    env = os.environ.get("LIARSDICE_DATA")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "liarsdice"


def records_dir() -> Path:
    return data_dir() / "records"
