"""The lessons' scripts, one file per rule family."""

from .core import CORE
from .exact import EXACT
from .jokers import JOKERS
from .soar import SOAR
from .tavern import TAVERN
from .wilds import WILDS

__all__ = ["CORE", "EXACT", "JOKERS", "SOAR", "TAVERN", "WILDS"]
