"""How a seat's `bot_level` says who plays it: a built-in level ("probability"), an operator's
program ("operator:NAME", `liarsdice serve --bot NAME=COMMAND`) or a bot account ("account:NAME",
whose seat is played over the table's websocket like a person's).

Plain names and one test, in a module of their own that imports nothing of the server, so that
any module may ask without importing the modules that run tables and accounts.
"""

from __future__ import annotations

ACCOUNT_LEVEL = "account:"  # a seat's bot_level for a bot account's seat: "account:NAME"
OPERATOR_LEVEL = "operator:"  # a seat's bot_level for an operator's program: "operator:NAME"


def account_of(bot_level: str | None) -> str | None:
    """The account name a seat's bot_level names, if it is an account's seat."""
    if bot_level is not None and bot_level.startswith(ACCOUNT_LEVEL):
        return bot_level[len(ACCOUNT_LEVEL) :]
    return None
