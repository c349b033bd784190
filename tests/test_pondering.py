"""Thinking on the others' time (bots/pondering.py) and the reader's use of it: after its move
the reader works out its model's answers at the next player's turn in the background; the
decision that reads that move finds them kept, and a game plays the same with it as without."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from liarsdice.bots import reader as reader_module
from liarsdice.bots.duel import DuelBot
from liarsdice.bots.pondering import Pondering
from liarsdice.bots.reader import ReaderBot
from liarsdice.bots.strong import StrongBot
from liarsdice.bots.strong_belief import Round
from liarsdice.bots.strong_counts import hand_space
from liarsdice.match import play_game
from liarsdice.rules import BidAction, Game, preset_options


def test_work_runs_in_the_background_until_settled() -> None:
    pondering = Pondering()
    go, done = threading.Event(), []

    def work() -> None:
        go.wait(5)
        done.append(threading.current_thread().name)

    pondering.start(work)
    assert pondering.busy and not done  # the caller goes on while the work waits
    go.set()
    pondering.settle()
    assert done == ["liarsdice-pondering"] and not pondering.busy
    pondering.settle()  # nothing under way: nothing to wait for


def test_one_thread_does_the_work_asked_for_over_a_game() -> None:
    pondering = Pondering()
    threads: list[threading.Thread] = []
    for _ in range(3):  # a bot asks after each move, and its decisions settle in between
        pondering.start(lambda: threads.append(threading.current_thread()))
        pondering.settle()
    assert len(set(threads)) == 1 and threads[0].name == "liarsdice-pondering"
    pondering.close()  # the bot's game is over: the thread ends now
    threads[0].join(5)
    assert not threads[0].is_alive()
    pondering.start(lambda: threads.append(threading.current_thread()))  # and a new one begins
    pondering.close()
    assert len(threads) == 4 and threads[3] is not threads[0]


def test_an_error_in_the_background_is_raised_by_settle() -> None:
    pondering = Pondering()

    def broken() -> None:
        raise ZeroDivisionError("in the background")

    pondering.start(broken)
    with pytest.raises(ZeroDivisionError, match="in the background"):
        pondering.settle()
    pondering.settle()  # raised once


EXIT_SCRIPT = """
import atexit, threading, time

def check():  # registered first, so it runs last: after the package's own exit handlers
    from liarsdice.bots.trained import TrainedDuels
    fetcher = [t for t in threading.enumerate() if t.name == "duel strategies ahead"]
    print("pondered", done, "fetching", bool(fetcher and fetcher[0].is_alive()), flush=True)

atexit.register(check)
from liarsdice.bots.pondering import Pondering
from liarsdice.bots.trained import TrainedDuels
from liarsdice.rules import preset_options

done = []
pondering = Pondering()


def under_way():  # until the exit stops it, however long the fetcher's lookup keeps the exit
    deadline = time.monotonic() + 60
    while not pondering._ending and time.monotonic() < deadline:
        time.sleep(0.01)
    done.append("under way")


pondering.start(under_way)
pondering.start(lambda: done.append("queued"))
TrainedDuels.fetch(preset_options("perudo"), [(a, b) for a in range(1, 6) for b in range(1, 6)])
time.sleep(0.05)
"""


def test_background_work_ends_before_the_interpreter_does(tmp_path: Path) -> None:
    """A daemon thread still working when Python finalizes can abort the process (`liarsdice play`
    ended with "terminate called without an active exception" once in CI): at exit the work under
    way ends first, and what is queued is dropped."""
    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    ended = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.split() == ["pondered", "['under", "way']", "fetching", "False"]


def test_a_bot_that_ponders_can_be_sent_to_another_process() -> None:
    bot = ReaderBot(1)
    bot._pondering.start(lambda: None)
    copy = pickle.loads(pickle.dumps(bot))
    assert not copy._pondering.busy and not bot._pondering.busy
    assert copy.answers is reader_module.ANSWERS  # the table of the process it plays in
    own = ReaderBot(2)
    own.answers = reader_module.KeptChances(10)
    own.answers.row(("a move",), 3)[:] = 1.0
    moved = pickle.loads(pickle.dumps(own)).answers
    assert moved is not reader_module.ANSWERS and moved.size == 10 and np.isnan(moved.row(("a move",), 3)).all()


def _counting(monkeypatch: pytest.MonkeyPatch, reader: ReaderBot) -> list[int]:
    """A list that grows by one each time `reader` asks its model (`hand_chances`)."""
    calls: list[int] = []
    chances = reader.model.hand_chances

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return chances(*args, **kwargs)

    monkeypatch.setattr(reader.model, "hand_chances", counted)
    return calls


def _after_our_bid(ponders: bool) -> tuple[ReaderBot, Game, object]:
    """A 5 v 5 Perudo round where the reader opens; its bid's answer by the other seat."""
    options = preset_options("perudo", {"num_players": 2, "dice_per_player": 5})
    game = Game(options)
    state = game.position([(1, 2, 3, 5, 5), (2, 4, 4, 6, 6)], starter=0, round_no=1)
    reader = ReaderBot(4)
    reader.ponders = ponders
    ours = state.view(0)
    action = reader.act(ours)
    assert isinstance(action, BidAction)
    state, _ = state.apply(action, 0)
    state, _ = state.apply(StrongBot(7).act(state.view(1)), 1)
    return reader, game, state


def test_the_next_players_answers_are_foreseen_and_read_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    reader_module.ANSWERS.clear()
    reader, game, state = _after_our_bid(ponders=True)
    reader._pondering.settle()
    view = state.view(0)
    made = view.history[1]
    space = hand_space(5, 6)
    kept = reader_module.ANSWERS.row((*reader_module._position(view, 1, 1), made.action), len(space.prior))
    assert not np.isnan(kept).any()  # every hand of the next player, before its move was made

    asked = _counting(monkeypatch, reader)
    reader.new_decision(view)
    foreseen = reader.read(game, view, Round(view, {}), 1)
    assert not asked  # the decision found the answers kept

    reader_module.ANSWERS.clear()
    other, _, _ = _after_our_bid(ponders=False)
    assert not other._pondering.busy
    other.new_decision(view)
    asked_fresh = other.read(game, view, Round(view, {}), 1)
    np.testing.assert_allclose(foreseen, asked_fresh, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("preset", "seats"), [("perudo", 2), ("soar", 2), ("perudo", 4)])
def test_a_game_plays_the_same_with_pondering_as_without(preset: str, seats: int) -> None:
    """Master (its duels from strategies, the reader elsewhere) against Expert: the same record,
    move for move, whether the next player's turn is foreseen or not."""
    game = Game(preset_options(preset, {"num_players": seats, "dice_per_player": 3}))

    def record(ponders: bool) -> dict[str, object]:
        reader_module.ANSWERS.clear()
        master = DuelBot(3)
        assert isinstance(master.fallback, ReaderBot)
        master.fallback.ponders = ponders
        agents = [master, *(StrongBot(10 + s) for s in range(seats - 1))]
        _, recorder = play_game(game, agents, seed=11, preset=preset)
        played = recorder.to_json()
        played.pop("meta", None)
        return played

    assert record(ponders=True) == record(ponders=False)


def test_at_a_table_the_moves_read_were_foreseen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four seats, Master at one of them, told each step (`observe`) and each round's start: its
    decisions find the model's answers at the other players' turns kept, where without pondering
    they ask the model."""
    game = Game(preset_options("perudo", {"num_players": 4, "dice_per_player": 3}))

    def asked(ponders: bool) -> int:
        reader_module.ANSWERS.clear()
        master = DuelBot(3)
        reader = master.fallback
        assert isinstance(reader, ReaderBot)
        reader.ponders = ponders
        calls = _counting(monkeypatch, reader)
        play_game(game, [master, *(StrongBot(20 + s) for s in range(3))], seed=5, preset="perudo")
        return len(calls)

    without = asked(ponders=False)
    assert without > 20
    assert asked(ponders=True) <= without // 10


def test_our_own_turn_is_not_foreseen(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the move of the player before us there is nothing to foresee (our decision comes
    next, and waits for whatever was asked): no work is queued for it."""
    from liarsdice.bots.strong_duel import earlier_view, game_of

    game = Game(preset_options("perudo", {"num_players": 3, "dice_per_player": 4}))
    reader = ReaderBot(4)
    turns: list[int | None] = []
    foresee_at = ReaderBot._foresee_at

    def noted(self: ReaderBot, after):  # type: ignore[no-untyped-def]
        if after.history and isinstance(after.history[-1].action, BidAction) and reader_module._readable(after):
            turns.append(earlier_view(game_of(after.options, after.seats), after, len(after.history), after.cup).to_act)
        foresee_at(self, after)

    monkeypatch.setattr(ReaderBot, "_foresee_at", noted)
    play_game(game, [StrongBot(30), reader, StrongBot(31)], seed=2, preset="perudo")
    assert len(turns) > 10 and 1 not in turns, turns
