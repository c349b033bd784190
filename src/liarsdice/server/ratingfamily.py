"""People's ratings in the players' numbers (docs/ratings.md): which presets share a rating
(a family), and the shown rating, an int like lichess's, with its uncertainty.

Plain names and sums, in a module that imports nothing of the server, so that any module may ask.
"""

from __future__ import annotations

from ..rules import PRESETS

SCALE = 60  # shown = round(mu * SCALE): OpenSkill's defaults (mu 25, sigma 25/3) show 1500 ± 500
PROVISIONAL_SIGMA = 5.0  # a rating less sure than this (shown ± above 300) is provisional: "1500?"
START_SHOWN = 1500  # the shown rating of someone with no rated game in a family yet

# Perudo's basic rules are Perudo without its special round: one family, one rating.
_SHARED = {"perudo_basic": "perudo"}


def family_of(preset: str) -> str:
    """The family whose rating a game of `preset` changes: perudo and perudo_basic are "perudo";
    every other preset is its own family, named as the preset."""
    return _SHARED.get(preset, preset)


def families() -> list[str]:
    """Every family, in the order of the presets."""
    out: list[str] = []
    for name in PRESETS:
        family = family_of(name)
        if family not in out:
            out.append(family)
    return out


def family_title(family: str) -> str:
    """A family's name for people: its preset's title ("Perudo")."""
    preset = PRESETS.get(family)
    return preset.title if preset is not None else family


def shown(mu: float) -> int:
    return round(mu * SCALE)


def shown_sigma(sigma: float) -> int:
    return round(sigma * SCALE)


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def shown_text(mu: float, sigma: float) -> str:
    """The rating as a page shows it: "1562" or, while provisional, "1562?"."""
    return f"{shown(mu)}{'?' if provisional(sigma) else ''}"
