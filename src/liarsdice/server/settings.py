"""What one server process is told to be: its timings, rate limits, bots, ladder and Redis
(`liarsdice serve`'s options, docs/deploy.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .connection import RATE_BURST, RATE_PER_SECOND
from .ladder import LadderConfig


@dataclass
class Settings:
    grace: float = 30.0  # seconds an away player's turn waits before a bot plays it
    bot_delay: float = 0.8  # seconds a bot waits before it moves (so people can follow)
    rate: float = RATE_PER_SECOND  # messages a second a connection may send...
    burst: float = RATE_BURST  # ...in bursts of at most this many
    public_url: str | None = None  # the address invitations give (else the first request's)
    # A table not in play that nobody has watched or asked for in this many seconds is dropped
    # from memory (it stays in the database and is loaded again when asked for).
    unload_after: float = 600.0
    # Seconds the reveal of a round is shown before the next round's turn timer and bots start,
    # unless every connected player says `seen` first (`liarsdice serve --reveal-pause`: 5).
    reveal_pause: float = 0.0
    # Programs the operator offers as bots (`liarsdice serve --bot NAME=COMMAND`): name -> command.
    operator_bots: dict[str, str] = field(default_factory=dict)
    # The bot ladder (`liarsdice serve --ladder PRESETS`), if this server runs one.
    ladder: LadderConfig | None = None
    # Bot accounts made by anyone on the /bots page (`liarsdice serve --no-bot-signup`: off),
    # at most this many an hour from one client address.
    bot_signup: bool = True
    bot_signups_per_hour: int = 10
    # Seconds between checks for bot accounts revoked elsewhere (`liarsdice bot revoke`, another
    # process): a revoked bot online or seated here is let go within this time.
    revocation_check: float = 2.0
    # Several processes share the tables through this Redis (`liarsdice serve --redis-url`); None:
    # this process is the whole server.
    redis_url: str | None = None
