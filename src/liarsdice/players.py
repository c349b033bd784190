"""Who can take a seat: a built-in bot of a level, or a program that speaks the bot protocol.

Above both `liarsdice.bots` and `liarsdice.botproto`, so that neither imports the other's face.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .botproto.spec import exec_command, is_exec
from .bots import Bot, make_builtin

if TYPE_CHECKING:
    from .botproto.driver import ExecSettings


def make_bot(level: str, seed: int | None = None, *, settings: ExecSettings | None = None) -> Bot:
    """A bot of the named level (`liarsdice.levels`: any case, older names too), drawing its
    randomness from `seed`; or, for `exec:COMMAND`, the program COMMAND (split like a shell would,
    never run by one), driven as `settings` say."""
    if is_exec(level):
        from .botproto.driver import ExecBot  # its asyncio machinery only when a program sits

        return ExecBot(exec_command(level), seed, settings)
    try:
        return make_builtin(level, seed)
    except ValueError as e:
        raise ValueError(f"{e}, or exec:COMMAND") from None


__all__ = ["make_bot"]
