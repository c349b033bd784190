"""Play in the terminal: people at this keyboard against bots, hot-seat, or bots alone as a demo.

The rules engine and `match.play_game` run the game; this package is the shell around them
(`run_play`, in play.py). People are agents (person.py) whose `act` shows the table through
their `PlayerView` on the screen (screen.py) and reads a typed move, and whose `refused` prints
the engine's reason before they are asked again. The narrator (narrator.py) prints every move as
it happens, the reveal at the end of each round and the final ranking; the recorder keeps the
steps, so that a game stopped after some moves still leaves a record. Once the people at the
keyboard are out, they may skip the bots' remaining rounds straight to the final ranking. What
the screen says is computed from a view with no I/O: the moves a seat may make (moves.py) and
what `help` shows (help.py). A lesson (`liarsdice learn`, lesson.py) shows its steps on the same
screen and reads the same moves, then plays its short game through `run_play`.
"""

from .help import move_syntax, rules_summary
from .moves import bet_status, every_move, move_summary
from .narrator import REVEAL_PROMPT
from .person import read_move
from .play import run_play, seat_names

__all__ = [
    "REVEAL_PROMPT",
    "bet_status",
    "every_move",
    "move_summary",
    "move_syntax",
    "read_move",
    "rules_summary",
    "run_play",
    "seat_names",
]
