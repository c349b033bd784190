"""No message to a seat or a spectator holds another seat's hidden die before that round's reveal.

Random games of every preset are played through real rooms (the code behind the websocket), with
two people played by the protocol player, bots in the other seats, and a spectator. Dice have
hundreds of faces, so a die's face is a number that has no business in a message unless it was
shown: every message each connection is sent is searched for the faces still hidden under the
other cups at that moment (faces that were made public, in bids, pushes or a reveal, in this
round or an earlier one (the reveal lists the last round's moves), are not searched for, and
neither are small numbers, which counts and quantities use).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from liarsdice.rules import PRESETS
from liarsdice.server import limits
from liarsdice.server.connection import Connection
from liarsdice.server.manager import RoomManager
from liarsdice.server.rooms import Room
from liarsdice.server.settings import Settings
from liarsdice.server.storage import Store
from liarsdice.server.wsplayer import random_move

SMALL = 150  # counts, quantities, chips and round numbers stay below this in these games


def numbers(value: Any) -> Iterator[int]:
    """Every whole number in a message, but for the table of legal bids, which lists every face
    (public by definition: which bids raise the standing one depends on no cup), and the rules."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k == "bids" and "voting" in value:
                yield from (q for _face, low, high in v for q in (low, high))
                continue
            if k == "options":  # the table's rules are public: `faces` is the top face itself
                continue
            if k == "bid" and "holds" in value:  # an odds row: the standing bid or a legal bid
                yield v[0]
                continue
            yield from numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers(v)


def _faces_named(action: Any) -> Iterator[int]:
    bid = getattr(action, "bid", None)
    if bid is not None:
        yield bid.face
    yield from getattr(action, "push", ())


class Watcher(Connection):
    """A connection that checks every message it is sent against the cups hidden from it."""

    def __init__(self, room_ref: list[Room], named: set[int]) -> None:
        async def nothing(*_: Any) -> None:
            return None

        super().__init__(nothing, nothing, 1e9, 1e9)
        self.room_ref = room_ref
        self.named = named  # faces named in bids and pushes so far this game, shared by the watchers
        self.view: dict[str, Any] | None = None
        self.messages = 0
        self.checked = 0

    def send(self, message: dict[str, Any] | str) -> None:
        data = json.loads(message) if isinstance(message, str) else message
        self.messages += 1
        room = self.room_ref[0]
        state = room.state
        if state is not None and state.phase in ("turn", "vote"):
            hidden: set[int] = set()
            for other in state.active_seats:
                if other != self.seat:
                    hidden |= set(state.view(other).cup)
            # faces named in bids and pushes, this round's and earlier rounds', are public
            self.named.update(face for t in state.history for face in _faces_named(t.action))
            public = set(self.named)
            for pushed in state.pushed:
                public |= set(pushed)
            if state.last_outcome is not None:
                for hand in state.last_outcome.hands:
                    public |= set(hand)
            # The wild face is the rules' (the top face itself where the top face is wild), not a die's.
            wild = state.view(state.active_seats[0]).wild
            if wild is not None:
                public.add(wild)
            mine = set(state.view(self.seat).cup) if self.seat is not None else set()
            secret = {d for d in hidden - public - mine if d > SMALL}
            leaked = secret & set(numbers(data))
            assert not leaked, f"seat {self.seat} was sent hidden dice {sorted(leaked)}: {data}"
            self.checked += 1
        if data.get("type") == "state" and data.get("state"):
            self.view = data["state"]


async def play(tmp: Path, preset: str, players: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    faces = 300 if preset == "soar" else 1000
    overrides: dict[str, Any] = {"num_players": players, "faces": faces}
    if preset in ("soar", "tavern"):
        overrides["dice_per_player"] = 2
    elif preset != "openspiel":
        overrides["dice_per_player"] = rng.randint(1, 3)
    store = await asyncio.to_thread(Store, f"sqlite:///{tmp / f'{preset}-{seed}.sqlite3'}")
    manager = RoomManager(store, Settings(grace=1000.0, bot_delay=0.0, rate=1e9, burst=1e9))
    try:
        room, host_token = await manager.create(preset, "P0", overrides, 0)
        ref = [room]
        tokens = {0: host_token}
        for seat in range(1, min(2, players)):
            got, token = await room.join(f"P{seat}")
            tokens[got] = token
        named: set[int] = set()
        conns = {seat: Watcher(ref, named) for seat in tokens}
        spectator = Watcher(ref, named)
        for seat, conn in conns.items():
            await room.attach(conn, tokens[seat])
        await room.attach(spectator, None)
        if players > len(tokens):
            await room.fill_bots(conns[0], rng.choice(["random", "probability"]))
        await room.start(conns[0])
        waited = 0
        while room.status == "playing":
            state = room.state
            assert state is not None
            seat = state.to_act
            if seat in conns:
                view = conns[seat].view
                assert view is not None and view["to_act"] == seat
                move = random_move(view, rng)
                assert move is not None, view
                await room.act(conns[seat], move, None)
                waited = 0
            else:
                await asyncio.sleep(0)
                waited += 1
                assert waited < 100_000, "the bots stopped playing"
        assert room.state is not None and room.state.is_terminal
        watchers = [*conns.values(), spectator]
        return sum(w.messages for w in watchers), sum(w.checked for w in watchers)
    finally:
        manager.close()
        await asyncio.to_thread(store.close)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_message_holds_another_seats_hidden_die(
    preset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # faces in the hundreds make a die's face a number no message has a reason to hold: beyond
    # what a table offers players, so the limits are lifted for this test
    monkeypatch.setattr(limits, "MAX_FACES", 1000)
    monkeypatch.setattr(limits, "MAX_MOVES", 10**7)
    total = checked = 0
    games = 3 if preset == "soar" else 6
    for game in range(games):
        players = 2 if preset == "openspiel" else 2 + game % 4
        sent, looked = asyncio.run(play(tmp_path, preset, players, seed=game))
        total += sent
        checked += looked
    assert checked > 20, f"only {checked} messages were checked"
    assert total >= checked
