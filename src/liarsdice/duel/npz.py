"""Reading the .npz files of the duel: saved strategies and training checkpoints."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np


def open_npz(path: str | Path, what: str) -> np.lib.npyio.NpzFile:
    """The .npz file at `path`, opened; ValueError saying it is no readable `what` if not."""
    try:
        opened = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
        # np.load reads a file that is not a zip as a pickle, and refuses it as one.
        raise ValueError(f"{path} is not a readable {what}: {e}") from e
    if not isinstance(opened, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not a readable {what}: it holds one array, not an .npz")
    return opened
