"""liarsdice: the reference Liar's Dice system. The rules live in `liarsdice.rules`."""

__version__ = "0.1.0"
