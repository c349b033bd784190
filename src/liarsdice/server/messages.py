"""The messages clients send, as typed models (docs/protocol.md): on a table's websocket (a
browser, or a bot account's program playing its seat) and on a bot account's event socket
(`/ws/bot`). Each frame is read into one of them (frames.py) and handed to the handler of its
type (dispatch.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..levels import DEFAULT as DEFAULT_LEVEL


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: int | None = None  # echoed in the answer, to match it with this message

    def answer_ref(self) -> int | None:
        """The ref its answer, or its refusal, carries."""
        return self.ref


# ----- on a table's websocket (/ws/{code}) -----


class Hello(Message):
    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=200)
    name: str | None = Field(default=None, max_length=200)  # a spectator's name in the chat


class Act(Message):
    type: Literal["act"]
    action: list[Any] = Field(min_length=1, max_length=8)


class ChatIn(Message):
    type: Literal["chat"]
    text: str = Field(max_length=2000)


class Ping(Message):
    type: Literal["ping"]
    t: Any = None


class FillBots(Message):
    type: Literal["fill_bots"]
    level: str = DEFAULT_LEVEL  # any level's name or older name, in any case (liarsdice.levels)


class ClearBots(Message):
    type: Literal["clear_bots"]


class Configure(Message):
    type: Literal["configure"]
    preset: str | None = None
    options: dict[str, Any] | None = None
    turn_seconds: int | None = None


class Start(Message):
    type: Literal["start"]


class Rematch(Message):
    type: Literal["rematch"]


class Leave(Message):
    type: Literal["leave"]


class Seen(Message):
    type: Literal["seen"]
    round: int  # the round whose reveal this person has seen


class InviteBot(Message):
    type: Literal["invite_bot"]
    bot: str = Field(max_length=200)  # an operator's bot or an online bot account, by name
    seat: int | None = Field(default=None, ge=0, le=64)  # an empty seat (None: the first)


class CallBots(Message):
    type: Literal["call_bots"]


class Rename(Message):
    type: Literal["rename"]
    name: str = Field(max_length=200)  # checked as a name at join is


class Finish(Message):
    type: Literal["finish"]  # skip to the end: only bots are still in


class ForfeitGame(Message):
    type: Literal["forfeit"]  # a bot account's program failed a move (`bot connect --bot-fallback forfeit`)
    reason: str = Field(default="", max_length=500)


class ShowOdds(Message):
    type: Literal["odds"]  # send this seat its odds panel with its turns (show), or stop (docs/protocol.md)
    show: bool


class AskHint(Message):
    type: Literal["hint"]  # what the best bot would do in this seat now: answered to this socket (docs/protocol.md)


ClientMessage: TypeAlias = (
    Hello
    | Act
    | ChatIn
    | Ping
    | FillBots
    | ClearBots
    | Configure
    | Start
    | Rematch
    | Leave
    | Seen
    | InviteBot
    | CallBots
    | Rename
    | Finish
    | ForfeitGame
    | ShowOdds
    | AskHint
)
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(Annotated[ClientMessage, Field(discriminator="type")])
MESSAGE_TYPES = (
    "hello, act, chat, ping, fill_bots, clear_bots, configure, start, rematch, leave, seen, invite_bot, call_bots, "
    "rename, finish, forfeit, odds, hint"
)


# ----- on a bot account's event socket (/ws/bot, botsocket.py) -----


class BotHello(Message):
    type: Literal["hello"]
    token: str = Field(max_length=200)


class Accept(Message):
    type: Literal["accept"]
    id: int

    def answer_ref(self) -> int | None:
        """An acceptance without a ref is answered with its invitation's id."""
        return self.id if self.ref is None else self.ref


class Decline(Message):
    type: Literal["decline"]
    id: int
    reason: str = Field(default="", max_length=200)


class BotPing(Message):
    type: Literal["ping"]
    t: Any = None


BotMessage: TypeAlias = BotHello | Accept | Decline | BotPing
BOT_MESSAGE: TypeAdapter[BotMessage] = TypeAdapter(Annotated[BotMessage, Field(discriminator="type")])
BOT_MESSAGE_TYPES = "hello (first, without an Authorization header), accept, decline, ping"
