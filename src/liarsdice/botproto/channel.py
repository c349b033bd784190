"""A bot program's pipes as a channel of lines: its stdin and stdout, its stderr kept in a log,
lines longer than the protocol allows refused, and the program ended with its whole process group.
`driver.BotSession` speaks the protocol over it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections import deque
from collections.abc import Sequence
from typing import IO

STDERR_CAP = 1 << 20  # bytes of one process's stderr kept in the log; a chatty bot cannot fill the disk
CHUNK = 1 << 16


class LineTooLong(Exception):
    pass


class ProcessChannel:
    """A bot program: lines go to its stdin and come from its stdout; stderr goes to `log`."""

    def __init__(self, process: asyncio.subprocess.Process, log: IO[str] | None, max_line: int) -> None:
        self.process = process
        self.log = log
        self.max_line = max_line
        self.stderr_tail: deque[str] = deque(maxlen=3)
        self._buffer = bytearray()
        self._discarding = False
        self._logged = 0
        self._stderr_task = asyncio.create_task(self._pump_stderr())

    @classmethod
    async def start(cls, argv: Sequence[str], log: IO[str] | None, max_line: int) -> ProcessChannel:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: close() can end whatever it started
        )
        return cls(process, log, max_line)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def _pump_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while True:
            try:
                raw = await stream.readline()
            except ValueError:  # a line past the stream's limit: keep the part we have
                raw = b"(an overlong stderr line)\n"
            if not raw:
                return
            text = raw.decode("utf-8", errors="replace").rstrip("\n")
            self.stderr_tail.append(text[:200])
            self.note(text)

    def note(self, text: str) -> None:
        """A line in this process's log (its stderr, and what the driver says about it)."""
        if self.log is None or self._logged > STDERR_CAP:
            return
        line = f"[pid {self.pid}] {text}\n"
        self._logged += len(line)
        if self._logged > STDERR_CAP:
            line = f"[pid {self.pid}] (log cut: more than {STDERR_CAP} bytes)\n"
        with contextlib.suppress(OSError, ValueError):
            self.log.write(line)
            self.log.flush()

    async def send(self, line: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(line.encode())
        await stdin.drain()

    async def receive(self) -> str | None:
        """The next line (without its newline), None at the end; LineTooLong for an overlong one,
        whose rest is skipped up to its newline."""
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            i = self._buffer.find(b"\n")
            if i >= 0:
                line = bytes(self._buffer[:i])
                del self._buffer[: i + 1]
                if self._discarding:
                    self._discarding = False
                    continue
                if len(line) > self.max_line:
                    raise LineTooLong
                return line.decode("utf-8", errors="replace")
            if len(self._buffer) > self.max_line:
                self._buffer.clear()
                if not self._discarding:
                    self._discarding = True
                    raise LineTooLong
            chunk = await stdout.read(CHUNK)
            if not chunk:
                if self._buffer and not self._discarding:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line.decode("utf-8", errors="replace")
                return None
            self._buffer += chunk

    async def exit_reason(self, wait: float = 1.0, running: str = "it closed its stdout") -> str:
        """How the program ended, waiting up to `wait` s for it; `running` if it has not."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), wait)
        code = self.process.returncode
        said = f"; its stderr ended: {' | '.join(self.stderr_tail)}" if self.stderr_tail else ""
        if code is None:
            return f"{running}{said}"
        how = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        return f"the program {how}{said}"

    async def close(self, quit_time: float) -> bool:
        """End the process (it was sent quit): True if it exited by itself within `quit_time`."""
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                stdin.close()
        exited = True
        try:
            await asyncio.wait_for(self.process.wait(), quit_time)
        except TimeoutError:
            exited = False
            signal_group(self.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 0.5)
            except TimeoutError:
                signal_group(self.pid, signal.SIGKILL)
                await self.process.wait()
        # Whatever it started in its group goes with it (a shell script's children, say).
        signal_group(self.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        self._stderr_task.cancel()
        return exited


def signal_group(pid: int, sig: int) -> None:
    """Send `sig` to the process group `pid` leads, if it is still there."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
