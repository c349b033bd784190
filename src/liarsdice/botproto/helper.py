"""Write a protocol bot in a few lines of Python, with this package's own types.

    from liarsdice.botproto.helper import run_bot

    def decide(view, seconds):              # a liarsdice.rules.PlayerView; return one of its legal actions
        return view.legal_actions[0]

    run_bot(decide, name="lowest", author="Ann")

`run_bot` does the protocol: the handshake, rebuilding the exact `PlayerView` of every request
(options, history, the legal actions), the answer, and quit. `python -m liarsdice.botproto.helper
LEVEL` serves a built-in bot over the protocol (a reference to test a driver or a bot against).
A bot that must not depend on this package can follow `examples/bots/minimal.py` instead.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from ..rules import Action, Game, Options, PlayerView
from . import messages as m

Decide = Callable[[PlayerView, float], Action]


def run_bot(
    decide: Decide,
    *,
    name: str,
    author: str = "",
    presets: Sequence[str] | None = None,
    options: Mapping[str, Sequence[Any]] | None = None,
    on_message: Callable[[dict[str, Any]], None] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> None:
    """Play over stdin/stdout until quit (or the end of stdin). `on_message` sees every message
    the driver sends (new_game, game_over with its events, refused), for a bot that keeps state."""
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout

    def send(message: Mapping[str, Any]) -> None:
        sink.write(m.dumps(message))
        sink.flush()

    game: Options | None = None
    for line in source:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if on_message is not None:
            on_message(message)
        if kind == "hello":
            hello: dict[str, Any] = {"type": "hello", "protocol": m.PROTOCOL_VERSION, "name": name, "author": author}
            if presets is not None:
                hello["presets"] = list(presets)
            if options is not None:
                hello["options"] = {k: list(v) for k, v in options.items()}
            send(hello)
        elif kind == "new_game":
            game = Options.from_dict(message["options"])
        elif kind == "act":
            if game is None:
                raise RuntimeError("an act request came before new_game")
            view = m.decode_view(message["view"], game, message["legal"], message["moves"])
            action = decide(view, float(message["time"]))
            send({"type": "action", "id": message["id"], "action": m.encode_action(action)})
        elif kind == "quit":
            return


def serve_level(level: str) -> None:
    """Serve a built-in bot level over the protocol: a new bot, seeded by the game, per game."""
    from ..bots import Limit, make_builtin
    from ..levels import resolve

    try:
        level = resolve(level)
    except ValueError as e:
        raise SystemExit(str(e)) from None
    bot = make_builtin(level, 0)

    def on_message(message: dict[str, Any]) -> None:
        nonlocal bot
        if message.get("type") == "new_game":
            bot = make_builtin(level, message.get("seed"))
            game = Game(Options.from_dict(message["options"]), message["seats"])
            bot.start(game, message["seat"], message.get("preset"))

    def decide(view: PlayerView, seconds: float) -> Action:
        return bot.act(view, Limit(seconds))

    run_bot(decide, name=level, author="liarsdice", on_message=on_message)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m liarsdice.botproto.helper LEVEL")
    serve_level(sys.argv[1])
