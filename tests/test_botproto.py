"""The bot protocol: its messages (schema, no leak, exact round trip), the driver against example
and hostile programs, `--bots` lists with exec: entries, and the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from liarsdice.botproto import messages as m
from liarsdice.botproto.channel import ProcessChannel
from liarsdice.botproto.driver import (
    BotSession,
    BotStartError,
    BotUnsupported,
    ExecBot,
    ExecSettings,
    probe,
)
from liarsdice.botproto.spec import check_bot_spec, parse_bot_list, program_label, split_bot_list
from liarsdice.bots import Forfeit
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import (
    PRESETS,
    BidAction,
    Challenge,
    DiceRerolled,
    Game,
    HandsRolled,
    Options,
    preset_options,
    redact,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "bots"
HOSTILE = Path(__file__).with_name("hostile_bot.py")
LIARSDICE = Path(sys.executable).parent / "liarsdice"
SCHEMA = json.loads((ROOT / "src" / "liarsdice" / "botproto" / "schema.json").read_text())
NODE = "node"

needs_node = pytest.mark.skipif(
    subprocess.run(["sh", "-c", "command -v node"], capture_output=True).returncode != 0,
    reason="no node on PATH (.ci/run installs Debian's nodejs): the JavaScript example bot is not tested",
)


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


TO_BOT, FROM_BOT = validator("to_bot"), validator("from_bot")


def small_options(preset: str, players: int = 3, dice: int = 2) -> Options:
    if preset == "openspiel":
        return preset_options(preset, {"dice_per_player": dice})
    return preset_options(preset, {"num_players": players, "dice_per_player": dice})


def random_states(preset: str, seed: int = 1, players: int = 3) -> Iterator[tuple[Game, Any]]:
    game = Game(small_options(preset, players, 3))
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal:
        if state.is_chance:
            state, _ = state.apply(state.sample_chance(rng))
            continue
        yield game, state
        state, _ = state.apply(rng.choice(state.legal_actions()))


def check_transcripts(folder: Path) -> dict[str, set[str]]:
    """Validate every line of every transcript in `folder`; the message types and events seen."""
    seen: dict[str, set[str]] = {"to_bot": set(), "from_bot": set(), "events": set()}
    files = sorted(folder.glob("*.jsonl"))
    assert files, f"no transcripts in {folder}"
    for path in files:
        for line in path.read_text().splitlines():
            ((direction, text),) = json.loads(line).items()
            message = json.loads(text)
            (TO_BOT if direction == "to_bot" else FROM_BOT).validate(message)
            seen[direction].add(message["type"])
            seen["events"].update(e["event"] for e in message.get("events", []))
    return seen


# ----- messages -----


def test_the_schema_is_a_valid_json_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert {"hello", "new_game", "act", "refused", "game_over", "quit", "bot_hello", "action_message"} <= set(
        SCHEMA["$defs"]
    )


DOC = ROOT / "docs" / "bot-protocol.md"
ACTION_KINDS = {"bid", "claim", "pass", "challenge", "exact", "vote", "accuse", "all_in", "fold"}


def doc_examples() -> list[tuple[str, Any]]:
    """Every JSON example of docs/bot-protocol.md with the schema it must meet: the ```json
    blocks (a message, the driver's or the bot's by the section it is in) and each inline code
    that is JSON (an event, a message, or an action as a bot may write it)."""
    import re

    found: list[tuple[str, Any]] = []
    side: str | None = None
    fence: str | None = None  # the language of the fenced block we are in
    lines: list[str] = []
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):
            side = {"## Messages from the driver": "to_bot", "## Messages from the bot": "from_bot"}.get(line)
        if line.lstrip().startswith("```"):
            if fence == "json":
                assert side is not None, "a JSON example outside the message sections"
                found.append((side, json.loads("\n".join(lines))))
            fence = line.lstrip()[3:].strip() if fence is None else None
            lines = []
            continue
        if fence is not None:
            lines.append(line)
            continue
        for code in re.findall(r"`([^`]+)`", line):
            try:
                value = json.loads(code)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict) and "event" in value:
                found.append(("event", value))
            elif isinstance(value, dict) and "type" in value:
                found.append((side or "to_bot", value))
            elif isinstance(value, list) and value and value[0] in ACTION_KINDS:
                found.append(("answer", value))
    return found


def test_every_json_example_in_the_doc_meets_the_schema() -> None:
    examples = doc_examples()
    kinds = {name for name, _ in examples}
    assert kinds == {"to_bot", "from_bot", "event", "answer"}, kinds
    assert len(examples) >= 30
    for name, value in examples:
        validator(name).validate(value)
    # and the doc's new_game shows the options exactly as they are sent for that table
    (new_game,) = [v for name, v in examples if name == "to_bot" and v["type"] == "new_game"]
    options = preset_options("perudo", {"num_players": 2, "dice_per_player": 2})
    assert new_game["options"] == options.to_dict()


def test_the_docs_hello_options_keep_a_bot_out_of_soar_and_tavern() -> None:
    import re

    (shown,) = re.findall(r'`(\{"push": [^`]*\})` keeps you\s+out of `soar` and `tavern`', DOC.read_text())
    hello = {"type": "hello", "protocol": 1, "name": "x", "options": json.loads(shown)}
    assert "push" in (m.unsupported(hello, "soar", preset_options("soar")) or "")
    assert "economy" in (m.unsupported(hello, "tavern", preset_options("tavern")) or "")
    assert m.unsupported(hello, "perudo", preset_options("perudo")) is None


def test_the_schema_refuses_what_is_never_sent() -> None:
    given: dict[str, Any] = {"game": 1, "preset": "perudo", "seats": ["A", "B"], "seat": 0, "seed": 1}
    given |= {"time": 1.0, "fallback": "probability"}
    message = m.new_game_message(**given, options=preset_options("perudo"))
    TO_BOT.validate(json.loads(m.dumps(message)))
    for name, wrong in (("max_dice", None), ("wild_face", "1"), ("wild_bid_rule", "perudo"), ("economy", None)):
        bad = json.loads(m.dumps(message))
        bad["options"][name] = wrong
        assert not TO_BOT.is_valid(bad), name
    bad = json.loads(m.dumps(message))
    del bad["options"]["one_die_round"]["exact_allowed"]
    assert not TO_BOT.is_valid(bad)
    # custom rules are sent as they are: per-seat dice, a chip economy with a fixed bet
    for preset, overrides in (
        ("classic", {"num_players": 2, "dice_per_player": [2, 3], "max_dice": [3, 4], "first_starter": 1}),
        ("tavern", {"num_players": 2, "economy": {"min_bet": 2, "stake": "per_turn"}}),
    ):
        custom = m.new_game_message(**(given | {"preset": None, "options": preset_options(preset, overrides)}))
        TO_BOT.validate(json.loads(m.dumps(custom)))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_message_a_program_is_sent_in_a_real_game_meets_the_schema(preset: str, tmp_path: Path) -> None:
    players = 2 if preset == "openspiel" else 3
    game = Game(small_options(preset, players, 2))
    bot = make_bot(f"exec:{EXAMPLES / 'minimal.py'}", 1, settings=settings(tmp_path, move_time=5.0, transcript=True))
    others = [make_bot("random", s) for s in range(players - 1)]
    play_game(game, [bot, *others], seed=4, preset=preset)
    seen = check_transcripts(tmp_path / "logs")
    assert seen["to_bot"] == {"hello", "new_game", "act", "game_over", "quit"}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_act_messages_validate_and_give_back_the_exact_view(preset: str) -> None:
    for game, state in random_states(preset):
        seat = state.to_act
        view = state.view(seat)
        message = json.loads(m.dumps(m.act_message(7, 1, view, [], 2.0)))
        TO_BOT.validate(message)
        options = Options.from_dict(json.loads(json.dumps(game.options.to_dict())))
        assert m.decode_view(message["view"], options, message["legal"], message["moves"]) == view
        for action in view.legal_actions[:50]:
            assert m.decode_answer(m.encode_action(action), view) == action
            FROM_BOT.validate({"type": "action", "id": 7, "action": m.encode_action(action)})


def test_private_events_are_refused_and_redacted_ones_validate() -> None:
    with pytest.raises(ValueError, match="redact"):
        m.encode_event(HandsRolled(1, ((1, 2), (3, 4))), 0)
    with pytest.raises(ValueError, match="may not see"):
        m.encode_event(DiceRerolled(1, (5, 6)), 0)
    assert m.encode_event(redact(HandsRolled(1, ((1, 2), (3, 4))), 0), 0) == {
        "event": "rolled",
        "round_no": 1,
        "cup": [1, 2],
    }
    assert m.encode_event(redact(DiceRerolled(1, (5, 6)), 0), 0) == {"event": "rerolled", "seat": 1, "count": 2}
    assert m.encode_event(DiceRerolled(0, (5, 6)), 0)["faces"] == [5, 6]


@pytest.mark.parametrize("preset", ["perudo", "soar", "tavern"])
def test_what_a_seat_is_sent_does_not_depend_on_the_other_cups(preset: str) -> None:
    # Two tables that differ only in seat 1's cup: seat 0's requests and events must be equal.
    game = Game(small_options(preset, 3, 3))
    mine = (2, 2, 5)
    sent = []
    for other in ((1, 1, 1), (6, 4, 3)):
        state = game.position([mine, other, (3, 3, 4)], starter=0)
        view = state.view(0)
        bid = next(a for a in view.legal_actions if not getattr(a, "push", ()))
        state, events = state.apply(bid)
        lines = [m.encode_event(redact(e, 0), 0) for e in events]
        view1 = state.view(1)
        state, events = state.apply(next(a for a in view1.legal_actions if not getattr(a, "push", ())))
        lines += [m.encode_event(redact(e, 0), 0) for e in events]
        state, events = state.apply(next(a for a in state.view(2).legal_actions if not getattr(a, "push", ())))
        lines += [m.encode_event(redact(e, 0), 0) for e in events]
        sent.append(m.dumps(m.act_message(1, 1, state.view(0), lines, 1.0)))
    assert sent[0] == sent[1]
    assert "[2,2,5]" in sent[0]  # its own cup is there


def test_answers_that_name_no_legal_action_are_refused_with_the_reason() -> None:
    game = Game(small_options("perudo", 2, 2))
    state = game.position([(2, 3), (4, 5)], starter=0)
    state, _ = state.apply(BidAction(m.Bid(2, 3)))
    view = state.view(1)
    with pytest.raises(m.IllegalAnswer, match=r"1x3 is not a legal action now: answer with one of `legal`"):
        m.decode_answer(["bid", 1, 3], view)
    with pytest.raises(m.IllegalAnswer, match="not an action"):
        m.decode_answer(["shout"], view)
    with pytest.raises(m.IllegalAnswer, match="reroll is chance"):
        m.decode_answer(["bid", 3, 3, {"reroll": [1]}], view)
    assert m.decode_answer(["challenge"], view) == Challenge(0)  # the most recent action
    assert m.decode_answer(["challenge", {"target": "P0"}], view) == Challenge(0)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("hello", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"id": 1, "action": ["exact"]}', "a message needs a type"),
        ('{"type": "action", "action": ["exact"]}', "needs the id"),
        ('{"type": "action", "id": 3, "action": "exact"}', "as a list"),
        ('{"type": "hello", "protocol": 2, "name": "x"}', "protocol version 2, which is not supported: this driver"),
        ('{"type": "hello", "protocol": "1", "name": "x"}', r'protocol must be the integer 1, not "1" \(a string\)'),
        ('{"type": "hello", "name": "x"}', 'must give the protocol version it speaks: "protocol": 1'),
        ('{"type": "hello", "protocol": 1}', "must give the bot's name"),
    ],
)
def test_bad_lines_say_what_was_wrong(line: str, error: str) -> None:
    with pytest.raises(m.BadMessage, match=error):
        m.parse_bot_line(line)


def test_a_message_of_a_type_the_driver_does_not_know_is_given_back_to_be_ignored() -> None:
    assert m.parse_bot_line('{"type": "thinking", "depth": 3}') == {"type": "thinking", "depth": 3}


# ----- --bots lists -----


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        ("strong", ["strong"]),
        ("strong,exec:./mybot --deep", ["strong", "exec:./mybot --deep"]),
        ("exec:./mybot --levels 1,2,random", ["exec:./mybot --levels 1,2", "random"]),
        ("exec:./a,exec:./b", ["exec:./a", "exec:./b"]),
        ("exec:\"./my bot\" --x 'a,b',strong", ["exec:\"./my bot\" --x 'a,b'", "strong"]),
        (" Strong , probability ", ["Strong", "probability"]),
    ],
)
def test_bot_lists_split_where_a_new_entry_starts(text: str, entries: list[str]) -> None:
    assert split_bot_list(text) == entries


def test_bot_specs_are_checked_with_clear_errors(tmp_path: Path) -> None:
    assert parse_bot_list("Strong,exec:" + str(HOSTILE) + " twice") == ["strong", f"exec:{HOSTILE} twice"]
    with pytest.raises(ValueError, match=r"unknown bot level 'genius'.*or exec:COMMAND"):
        check_bot_spec("genius")
    with pytest.raises(ValueError, match="names no program"):
        check_bot_spec("exec:  ")
    with pytest.raises(ValueError, match="close every quote"):
        check_bot_spec('exec:"./mybot')
    with pytest.raises(ValueError, match=r"there is no program \./nope"):
        check_bot_spec("exec:./nope")
    script = tmp_path / "bot.py"
    script.write_text("print()")
    with pytest.raises(ValueError, match="is not executable: chmod"):
        check_bot_spec(f"exec:{script}")
    with pytest.raises(ValueError, match="no program 'surely-no-such-bot' on PATH"):
        check_bot_spec("exec:surely-no-such-bot")
    assert program_label(["node", "--stack-size=9", "bots/minimal.js"]) == "minimal.js"
    assert program_label(["/usr/bin/python3.11", "x/y.py"]) == "y.py"
    assert program_label(["./mybot", "--deep"]) == "mybot"


# ----- the driver -----


def settings(tmp_path: Path, **kw: Any) -> ExecSettings:
    base: dict[str, Any] = {"move_time": 0.3, "quit_time": 0.3, "start_time": 10.0, "log_dir": tmp_path / "logs"}
    return ExecSettings(**(base | kw))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent has not asked for its status yet
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.fixture
def pids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder where hostile bots write their pids (and their children's)."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv("HOSTILE_PIDS", str(folder))
    return folder


def assert_none_left(folder: Path) -> None:
    pids = [int(p.name) for p in folder.iterdir()]
    assert pids, "the bot wrote no pid"
    deadline = time.monotonic() + 3
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if alive(p)] == []


def hostile(mode: str, nth: int = 1) -> str:
    return f"exec:{sys.executable} {HOSTILE} {mode} {nth}"


@pytest.mark.parametrize(
    ("mode", "kinds"),
    [
        ("slow", {"timeout", "late"}),
        ("illegal", {"illegal"}),
        ("garbage", {"garbage"}),
        ("huge", {"huge_line"}),
        ("twice", {"extra"}),
        ("crash", {"crash"}),
        ("hang_quit", {"quit_hang"}),
        ("spawn", {"quit_hang"}),
    ],
)
def test_a_hostile_bot_never_stops_the_game_and_leaves_no_process(
    mode: str, kinds: set[str], tmp_path: Path, pids: Path
) -> None:
    game = Game(small_options("perudo", 2, 3))
    bot = make_bot(hostile(mode, 2), 5, settings=settings(tmp_path))
    assert isinstance(bot, ExecBot)
    state, recorder = play_game(game, [bot, make_bot("probability", 1)], seed=3, preset="perudo")
    assert state.is_terminal and recorder.data["result"] is not None
    assert set(bot.failures) == kinds, bot.failures
    # a slow bot may still be asleep at the next request too; every other failure happens once
    assert all(bot.failures[k] == 1 or mode == "slow" for k in kinds), bot.failures
    assert_none_left(pids)
    log = (tmp_path / "logs" / "hostile_bot.py.log").read_text()
    assert f"[pid {bot.pid}] liarsdice: {sorted(kinds)[0]}" in log
    if mode == "crash":
        assert "crashing on purpose" in log and "exited with code 3" in log


def test_an_answer_to_a_refused_request_is_late_and_the_next_answer_still_counts(tmp_path: Path, pids: Path) -> None:
    # Garbage ends request 1's wait; the bot's answer to request 1 then comes while request 2
    # waits: it is dropped as late, and the answer to request 2 that follows is the move.
    game = Game(small_options("perudo", 2, 3))
    bot = make_bot(hostile("stale", 1), 5, settings=settings(tmp_path, move_time=5.0))
    assert isinstance(bot, ExecBot)
    play_game(game, [bot, make_bot("probability", 1)], seed=3, preset="perudo")
    assert bot.failures == {"garbage": 1, "late": 1}, bot.failures
    log = (tmp_path / "logs" / "hostile_bot.py.log").read_text()
    assert "late: an answer to request 1 after it was refused (garbage), dropped" in log
    assert_none_left(pids)


def test_a_message_of_an_unknown_type_from_the_bot_is_ignored(tmp_path: Path, pids: Path) -> None:
    game = Game(small_options("perudo", 2, 3))
    bot = make_bot(hostile("chatty", 1), 5, settings=settings(tmp_path, move_time=5.0))
    assert isinstance(bot, ExecBot)
    play_game(game, [bot, make_bot("probability", 1)], seed=3, preset="perudo")
    assert not bot.failures, bot.failures
    assert "ignored a message of unknown type 'thinking'" in (tmp_path / "logs" / "hostile_bot.py.log").read_text()
    assert_none_left(pids)


def test_the_bot_is_told_why_a_move_was_refused_and_what_was_played(tmp_path: Path) -> None:
    game = Game(small_options("perudo", 2, 3))
    bot = make_bot(hostile("illegal", 1), 5, settings=settings(tmp_path, transcript=True))
    play_game(game, [bot, make_bot("probability", 1)], seed=3, preset="perudo")
    check_transcripts(tmp_path / "logs")
    (transcript,) = (tmp_path / "logs").glob("*.jsonl")
    sent = [json.loads(v) for line in transcript.read_text().splitlines() for k, v in json.loads(line).items()]
    refused = [s for s in sent if s["type"] == "refused"]
    assert len(refused) == 1
    assert refused[0]["failure"] == "illegal" and "999x1 is not a legal action now" in refused[0]["reason"]
    assert refused[0]["played"] is not None and refused[0]["forfeit"] is False


def test_with_fallback_forfeit_the_bot_loses_and_everyone_is_told(tmp_path: Path, pids: Path) -> None:
    game = Game(small_options("perudo", 3, 2))
    s = settings(tmp_path, fallback="forfeit", transcript=True)
    bots = [
        make_bot(hostile("forfeit_me", 2), 5, settings=s),
        make_bot(f"exec:{EXAMPLES / 'minimal.py'}", 6, settings=s),
    ]
    with pytest.raises(Forfeit, match=r"hostile_bot\.py forfeits: illegal") as caught:
        play_game(game, [*bots, make_bot("probability", 1)], seed=3, preset="perudo")
    assert caught.value.seat == 0
    seen = check_transcripts(tmp_path / "logs")
    assert "forfeit" in seen["events"] and "game_over" in seen["to_bot"]
    (minimal,) = (tmp_path / "logs").glob("minimal.py-*.jsonl")
    last = json.loads(json.loads(minimal.read_text().splitlines()[-2])["to_bot"])
    assert last["type"] == "game_over" and last["result"]["places"] == [3, 1, 1]
    assert_none_left(pids)


def test_a_bot_gone_before_its_hello_is_written_says_how_it_ended() -> None:
    # The race a busy machine loses: the program has exited before the driver writes its hello,
    # so the write fails before the end of its output is read.
    async def handshake() -> None:
        channel = await ProcessChannel.start([sys.executable, "-c", "import sys; sys.exit(3)"], None, 1 << 16)
        await channel.process.wait()
        await asyncio.sleep(0.1)  # let the loop see the pipes close
        await BotSession(channel, lambda kind, reason: None).handshake("test", 5.0)

    with pytest.raises(BotStartError, match="ended before saying hello: the program exited with code 3"):
        asyncio.run(handshake())


def test_a_bot_that_cannot_start_says_why(tmp_path: Path, pids: Path) -> None:
    with pytest.raises(BotStartError, match=r"did not say hello within 0\.5 s"):
        probe([sys.executable, str(HOSTILE), "no_hello"], settings(tmp_path, start_time=0.5))
    with pytest.raises(
        BotStartError, match="its hello is refused: the bot speaks protocol version 2, which is not supported"
    ):
        probe([sys.executable, str(HOSTILE), "protocol2"], settings(tmp_path))
    with pytest.raises(BotStartError, match='its hello is refused: hello\'s protocol must be the integer 1, not "1"'):
        probe([sys.executable, str(HOSTILE), "hello_p1s"], settings(tmp_path))
    with pytest.raises(BotStartError, match="ended before saying hello: the program exited with code 1"):
        probe([sys.executable, "-c", "import sys; sys.exit(1)"], settings(tmp_path))
    with pytest.raises(BotStartError, match="cannot start"):
        probe([str(tmp_path / "missing")], settings(tmp_path))
    assert_none_left(pids)


def test_a_bot_is_not_seated_at_a_game_its_hello_refuses(tmp_path: Path, pids: Path) -> None:
    bot = make_bot(hostile("perudo_only"), 1, settings=settings(tmp_path))
    game = Game(small_options("soar", 2, 2))
    with pytest.raises(BotUnsupported, match="cannot play: it plays perudo, not the preset soar"):
        play_game(game, [bot, make_bot("random", 1)], seed=1, preset="soar")
    assert_none_left(pids)


def test_one_program_plays_game_after_game(tmp_path: Path) -> None:
    bot = make_bot(f"exec:{EXAMPLES / 'minimal.py'}", 1, settings=settings(tmp_path, move_time=5.0, transcript=True))
    assert isinstance(bot, ExecBot)
    try:
        for seed in range(3):
            game = Game(small_options("classic", 2, 2))
            play_game(game, [bot, make_bot("random", seed)], seed=seed, preset="classic", close_agents=False)
        assert bot.game_no == 3 and not bot.failures
    finally:
        bot.close()
    assert not alive(bot.pid)
    check_transcripts(tmp_path / "logs")


# ----- the examples through the command line -----


def example_specs() -> list[str]:
    return [
        f"exec:{EXAMPLES / 'minimal.py'}",
        f'exec:{NODE} "{EXAMPLES / "minimal.js"}"',
        f"exec:{sys.executable} {EXAMPLES / 'with_helper.py'}",
    ]


@needs_node
@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_example_bots_play_every_preset_in_the_terminal(preset: str, tmp_path: Path) -> None:
    players = 2 if preset == "openspiel" else 3
    specs = example_specs()[:players]
    logs = tmp_path / "logs"
    done = subprocess.run(
        [str(LIARSDICE), "play", "--preset", preset, "--humans", "0", "--seed", "5", "--dice", "2"]
        + ([] if preset == "openspiel" else ["--players", str(players)])
        + ["--bots", ",".join(specs), "--bot-log", str(logs), "--bot-transcript", "--record-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Final ranking" in done.stdout or "wins" in done.stdout.lower()
    seen = check_transcripts(logs)
    assert seen["to_bot"] == {"hello", "new_game", "act", "game_over", "quit"}
    assert seen["from_bot"] == {"hello", "action"}
    assert {"rolled", "turn", "round_over", "game_over"} <= seen["events"]
    assert len(list(logs.glob("*.jsonl"))) == players
    (record,) = tmp_path.glob("*.json")
    data = json.loads(record.read_text())
    assert data["result"] is not None
    assert [p["level"] for p in data["players"]] == [s for s in specs]


def test_play_refuses_bad_bot_settings_clearly() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(LIARSDICE), "play", "--humans", "0", *args], capture_output=True, text=True)

    done = run("--bots", "random,genius")
    assert done.returncode == 2 and "unknown bot level 'genius'" in done.stderr
    done = run("--bots", "exec:./no-such-bot")
    assert done.returncode == 2 and "there is no program ./no-such-bot" in done.stderr
    done = run("--bot-fallback", "nobody")
    assert done.returncode == 2 and "--bot-fallback is a bot level" in done.stderr
    done = run("--players", "3", "--bots", "random,random,random,random")
    assert done.returncode == 2 and "4 bots listed for 3 bot seats" in done.stderr


def test_play_with_a_forfeiting_bot_ends_the_game_and_says_why(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            *[str(LIARSDICE), "play", "--humans", "0", "--players", "2", "--dice", "2", "--seed", "1"],
            *["--bots", f"exec:{sys.executable} {HOSTILE} forfeit_me 1", "--bot-fallback", "forfeit"],
            *["--bot-log", str(tmp_path / "logs"), "--record-dir", str(tmp_path)],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "forfeits: illegal" in done.stdout
    (record,) = tmp_path.glob("*.json")
    meta = json.loads(record.read_text())["meta"]
    assert meta["forfeit"]["seat"] == "Bot 1" and meta["forfeit"]["reason"].startswith("illegal")
