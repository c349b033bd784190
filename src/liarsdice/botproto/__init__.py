"""The bot protocol: bots in any language, one JSON object per line (docs/bot-protocol.md).

`messages` builds and reads the messages (and `schema.json` describes them), `driver` runs a
program and speaks the protocol (`ExecBot`, seated by `players.make_bot("exec:COMMAND")`) over
the program's pipes (`channel`), `spec` reads `--bots` lists, and `helper` lets a Python bot be
written in a few lines.
"""
