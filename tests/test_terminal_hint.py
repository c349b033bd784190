"""`hint` in the terminal: what the best bot would do, from the person's own view."""

from __future__ import annotations

import re
from pathlib import Path

from liarsdice.review import judge
from liarsdice.rules import Bid, BidAction, Game, preset_options
from liarsdice.terminal.hintpanel import NAMED, hint_lines, percent
from liarsdice.terminal.screen import Screen
from test_terminal import Script, make_console, output, play


def test_hint_shows_the_best_bots_mix_and_the_worth_of_each_move() -> None:
    game = Game(preset_options("perudo", {"num_players": 3}))
    state = game.position([(1, 5, 2, 3, 4), (2, 2, 2, 2, 2), (3, 3, 3, 3, 3)], starter=2)
    state, _ = state.apply(BidAction(Bid(4, 3)))
    view = state.view(0)
    console = make_console()
    Screen(console, game, "perudo", [0], None).show_hint(view)
    lines = output(console).splitlines()
    judgement = judge(view)
    assert lines == hint_lines(judgement)
    assert lines[0].startswith("What would the best bot do? (an estimate: the multi-seat")
    mix = judgement.mix()
    said = lines[1]
    assert len(mix) > 1
    for m in mix:
        if m.chance >= NAMED:
            assert f"{m.text} {percent(m.chance)}" in said
    rows = [line for line in lines if re.match(r"    \S.*?  [+-]\d\.\d\d", line)]
    best = judgement.best()
    assert rows[0].split()[0] == best.text and f"{best.value:+.2f}" in rows[0]
    challenge = next(line for line in rows if line.strip().startswith("challenge"))
    assert "holds" in challenge  # the chance the standing 4x3 holds, from Ann's cup


def test_hint_in_a_duel_says_it_is_exact() -> None:
    game = Game(preset_options("red-dead", {"num_players": 2, "dice_per_player": 2}))
    state = game.position([(2, 3), (5, 5)], starter=0)
    state, _ = state.apply(BidAction(Bid(1, 5)))
    lines = hint_lines(judge(state.view(1)))
    assert lines[0].startswith("What would the best bot do? (exact: this two-player round's trained duel strategy")
    assert any(line.strip().startswith("challenge P0") and "-1.00" in line for line in lines)


class HintScript(Script):
    """A person who asks for a hint (and its short key) at their first turns, then plays on."""

    def __init__(self, console: object) -> None:
        super().__init__(console, ("hint", "h", "help"))  # type: ignore[arg-type]


def test_a_person_asks_for_hints_in_a_game(tmp_path: Path) -> None:
    console = make_console()
    script = HintScript(console)
    assert play(console, tmp_path, "perudo", {"num_players": 3}, seed=3, read_line=script) == 0
    text = output(console)
    assert text.count("What would the best bot do?") == 2
    assert "hint (h)            what would the best bot do?" in text  # in help
    assert "Type a move, or help, moves, look, odds, hint, quit." in text
