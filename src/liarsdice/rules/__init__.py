"""The rules of Liar's Dice: pure, standard library only, no I/O, no clock, no hidden randomness.

>>> from liarsdice.rules import Game, preset_options
>>> game = Game(preset_options("perudo", {"num_players": 3}))
>>> state = game.new_initial_state()          # luck picks the opener, then rolls
>>> import random; rng = random.Random(7)
>>> while state.is_chance:
...     state, events = state.apply(state.sample_chance(rng))
>>> state.phase
'turn'
"""

from .actions import (
    Accuse,
    Action,
    AllIn,
    AnyAction,
    BidAction,
    Challenge,
    ChanceAction,
    Claim,
    DrawStarter,
    Exact,
    Fold,
    ListAction,
    Pass,
    Reroll,
    Roll,
    Vote,
    action_from_list,
    action_to_list,
    format_action,
    parse_action,
)
from .bids import Bid, BidLadder, InvalidText, ladder
from .encoding import Encoding, EncodingError
from .events import (
    CupRerolled,
    DiceRerolled,
    Event,
    GameOver,
    GameResult,
    HandsRolled,
    OwnHandRolled,
    RoundOutcome,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
    redact,
)
from .options import (
    OPTION_NAMES,
    PRESETS,
    Economy,
    OneDieRound,
    Options,
    OptionsError,
    Preset,
    find_preset,
    merge_overrides,
    preset_options,
)
from .state import ChanceSpec, Game, GameState, IllegalAction, SetupError
from .views import LegalMoves, PlayerView

__all__ = [
    "Accuse",
    "Action",
    "AllIn",
    "AnyAction",
    "Bid",
    "BidAction",
    "BidLadder",
    "ChanceAction",
    "ChanceSpec",
    "Challenge",
    "Claim",
    "CupRerolled",
    "DiceRerolled",
    "DrawStarter",
    "Economy",
    "Encoding",
    "EncodingError",
    "Event",
    "Exact",
    "Fold",
    "Game",
    "GameOver",
    "GameResult",
    "GameState",
    "HandsRolled",
    "IllegalAction",
    "InvalidText",
    "LegalMoves",
    "ListAction",
    "OPTION_NAMES",
    "OneDieRound",
    "Options",
    "OptionsError",
    "OwnHandRolled",
    "PRESETS",
    "Pass",
    "PlayerView",
    "Preset",
    "Reroll",
    "Roll",
    "RoundOutcome",
    "RoundResolved",
    "RoundStarted",
    "SetupError",
    "StarterDrawn",
    "Turn",
    "Vote",
    "action_from_list",
    "action_to_list",
    "find_preset",
    "format_action",
    "ladder",
    "merge_overrides",
    "parse_action",
    "preset_options",
    "redact",
]
