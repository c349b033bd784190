#!/usr/bin/env python3
"""A bot program that misbehaves on purpose, for the driver's tests: `hostile_bot.py MODE [N]`.

It plays the first legal action, except at its N-th act request (default 1), where MODE says
what it does instead: slow (answers after 0.6 s), illegal, garbage, huge (a 200 KB line), twice
(answers twice), crash (exits with code 3), forfeit_me (same as illegal), stale (garbage, then at
the next request first the answer to the one before), chatty (a message of a type the protocol
does not know before its answer), hello_p1s (hello with "protocol": "1"). Whatever the mode:
hang_quit ignores quit and SIGTERM; spawn starts a child that sleeps, then hangs on quit too;
no_hello never says hello; protocol2 says hello in protocol 2; perudo_only plays perudo alone.
If $HOSTILE_PIDS is a folder, it writes its pid (and its child's) there, so a test can check
that none is left running; if $HOSTILE_RECORD is a folder, it writes every line it is sent to
PID.jsonl there. `plain` (or any other mode) just plays.
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
nth = int(sys.argv[2]) if len(sys.argv) > 2 else 1
pids = os.environ.get("HOSTILE_PIDS")
record = os.environ.get("HOSTILE_RECORD")


def note_pid(pid):
    if pids:
        with open(os.path.join(pids, str(pid)), "w") as f:
            f.write(mode)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


note_pid(os.getpid())
if mode in ("hang_quit", "spawn"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "spawn":
    child = subprocess.Popen(["sleep", "300"])
    note_pid(child.pid)

acts = 0
for line in sys.stdin:
    if record:
        with open(os.path.join(record, f"{os.getpid()}.jsonl"), "a") as f:
            f.write(line)
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        if mode == "no_hello":
            time.sleep(60)
        version = {"protocol2": 2, "hello_p1s": "1"}.get(mode, 1)
        hello = {"type": "hello", "protocol": version, "name": f"hostile-{mode}"}
        if mode == "perudo_only":
            hello["presets"] = ["perudo"]
        send(hello)
    elif kind == "act":
        acts += 1
        answer = {"type": "action", "id": message["id"], "action": message["legal"][0]}
        if acts == nth and mode == "slow":
            time.sleep(0.6)
            send(answer)
        elif acts == nth and mode in ("illegal", "forfeit_me"):
            send({"type": "action", "id": message["id"], "action": ["bid", 999, 1]})
        elif acts == nth + 1 and mode == "stale":
            send({"type": "action", "id": message["id"] - 1, "action": message["legal"][0]})
            send(answer)
        elif acts == nth and mode == "chatty":
            send({"type": "thinking", "id": message["id"], "depth": 3})
            send(answer)
        elif acts == nth and mode in ("garbage", "stale"):
            sys.stdout.write("this is not JSON\n")
            sys.stdout.flush()
        elif acts == nth and mode == "huge":
            sys.stdout.write("x" * 200_000 + "\n")
            sys.stdout.flush()
        elif acts == nth and mode == "twice":
            send(answer)
            send(answer)
        elif acts == nth and mode == "crash":
            print("crashing on purpose", file=sys.stderr)
            sys.exit(3)
        else:
            send(answer)
    elif kind == "quit":
        if mode in ("hang_quit", "spawn"):
            time.sleep(300)
        break
