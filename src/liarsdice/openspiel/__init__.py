"""Every preset of `liarsdice.rules` as an OpenSpiel game: importing this registers it.

    import pyspiel
    import liarsdice.openspiel  # registers "python_liarsdice"

    game = pyspiel.load_game("python_liarsdice", {"preset": "soar", "players": 3, "dice_per_player": 2})

Every option of RULES.md 2.1 is a game parameter (see `parameters.PARAMETERS`); a parameter left
at its default keeps the preset's value. Action ids are `liarsdice.rules.Encoding`'s; chance nodes
roll one die each. `docs/research.md` describes the ids, the tensors and the returns.
"""

from .game import GAME_TYPE, LiarsDiceGame, LiarsDiceObserver, LiarsDiceState
from .parameters import PARAMETERS, options_from_parameters

__all__ = [
    "GAME_TYPE",
    "PARAMETERS",
    "LiarsDiceGame",
    "LiarsDiceObserver",
    "LiarsDiceState",
    "options_from_parameters",
]
