"""Bot specs as the command line gives them: a level (`Master`, `strong`) or a program (`exec:./mybot`).

A list is comma-separated: `strong,exec:./mybot --deep,random`. The shell has already eaten the
quotes of `--bots strong,exec:"./mybot --deep"`, so a comma starts a new entry only where what
follows is a bot level or another `exec:`; any other comma belongs to the command before it
(`exec:./mybot --levels 1,2` is one entry). Quotes that reach us (`'exec:"./my bot" -x'`) are
honoured: commas inside them never split, and the command is split into words like a shell does
(`shlex`), without running a shell.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..levels import all_names, allowed, resolve

EXEC_PREFIX = "exec:"
_INTERPRETERS = {"python", "python3", "node", "nodejs", "ruby", "perl", "sh", "bash", "java", "deno", "bun", "env"}


def is_exec(spec: str) -> bool:
    return spec.strip().lower().startswith(EXEC_PREFIX)


def exec_command(spec: str) -> list[str]:
    """The argv of an `exec:` spec; ValueError if there is no command or its quotes do not close."""
    text = spec.strip()[len(EXEC_PREFIX) :]
    try:
        argv = shlex.split(text)
    except ValueError as e:
        raise ValueError(f"cannot read the command of {spec!r}: {e} (close every quote)") from None
    if not argv:
        raise ValueError(f'{spec!r} names no program: write exec:COMMAND, e.g. exec:./mybot or exec:"node bot.js"')
    return argv


def _split_outside_quotes(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def split_bot_list(text: str) -> list[str]:
    """The entries of a `--bots` list (see the module's doc for commas inside commands)."""
    levels = set(all_names())
    entries: list[str] = []
    for part in _split_outside_quotes(text):
        stripped = part.strip()
        starts_entry = is_exec(stripped) or stripped.lower() in levels or not entries
        if not starts_entry and is_exec(entries[-1]):
            entries[-1] += "," + part
        else:
            entries.append(stripped)
    return [e.strip() for e in entries]


def check_bot_spec(spec: str) -> str:
    """The spec as used from here on (a level as the bot that plays it: "Master" is "duel"), or
    ValueError saying what is wrong."""
    spec = spec.strip()
    if is_exec(spec):
        argv = exec_command(spec)
        program = argv[0]
        if "/" in program:
            path = Path(program).expanduser()
            if not path.is_file():
                raise ValueError(f"{spec!r}: there is no program {program} (from {os.getcwd()})")
            if not os.access(path, os.X_OK):
                raise ValueError(
                    f"{spec!r}: {program} is not executable: chmod +x it, or name its interpreter "
                    f'(exec:"python3 {program}")'
                )
        elif shutil.which(program) is None:
            raise ValueError(f"{spec!r}: no program {program!r} on PATH (give a path, e.g. exec:./{program})")
        return EXEC_PREFIX + spec.strip()[len(EXEC_PREFIX) :].strip()
    try:
        return resolve(spec)
    except ValueError as e:
        raise ValueError(
            f"{e}, or exec:COMMAND for a program that speaks the bot protocol (docs/bot-protocol.md)"
        ) from None


def parse_bot_list(text: str) -> list[str]:
    """Every entry of a `--bots` list, checked; ValueError names the first bad one."""
    entries = [e for e in split_bot_list(text) if e]
    if not entries:
        raise ValueError(f"name at least one bot: {allowed()}, or exec:COMMAND")
    return [check_bot_spec(e) for e in entries]


def program_label(argv: Sequence[str]) -> str:
    """A short name for a program's seat: its file name (the script's, behind an interpreter)."""
    words = list(argv)
    name = Path(words[0]).name
    if name.rstrip("0123456789.") in _INTERPRETERS:
        for word in words[1:]:
            if not word.startswith("-"):
                return Path(word).name or name
    return name


def spec_label(spec: str) -> str:
    """How a spec is shown in a seat name: a level as itself, a program by `program_label`."""
    if is_exec(spec):
        return program_label(exec_command(spec))
    return spec
