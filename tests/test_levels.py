"""The bot levels players choose from (`liarsdice.levels`): names, order, default, older names,
any case, one whole sentence each; and every place that takes a level takes them alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from liarsdice.arena import ArenaInputError, parse_lineup
from liarsdice.botproto.spec import parse_bot_list
from liarsdice.bots import BOT_LEVELS, BeginnerBot, CasualBot, DuelBot, ProbabilityBot, StrongBot
from liarsdice.bots.careless import hunches
from liarsdice.levels import DEFAULT, LADDER, OTHER_BOTS, STRONGEST_FIRST, label, resolve
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import Game, preset_options
from liarsdice.server.ladder import LadderError, parse_ladder
from positions import position
from test_server import connect, create, serving

IN_ORDER = "Beginner, Casual, Skilled, Expert or Master"


def test_the_ladder_is_ordered_weakest_first_and_the_strongest_is_the_default() -> None:
    assert [level.name for level in LADDER] == ["Beginner", "Casual", "Skilled", "Expert", "Master"]
    assert [level.bot for level in LADDER] == ["beginner", "casual", "probability", "strong", "duel"]
    assert LADDER[-1].key == DEFAULT == "master" and STRONGEST_FIRST[0] is LADDER[-1]
    assert tuple(reversed(LADDER)) == STRONGEST_FIRST


def test_every_bot_is_reachable_and_the_older_names_play_their_own_bot() -> None:
    assert {level.bot for level in (*LADDER, *OTHER_BOTS)} == set(BOT_LEVELS)
    for name in BOT_LEVELS:  # each bot by its own name: scripts, records and stored seats
        assert resolve(name) == name
    assert {a: resolve(a) for level in LADDER for a in level.aliases} == {
        "probability": "probability",
        "strong": "strong",
        "duel": "duel",
    }
    assert type(make_bot("duel", 1)) is DuelBot and type(make_bot("strong", 1)) is StrongBot


@pytest.mark.parametrize(
    ("name", "bot"),
    [("Master", "duel"), ("MASTER", "duel"), (" expert ", "strong"), ("Skilled", "probability"), ("DUEL", "duel")],
)
def test_names_are_taken_in_any_case(name: str, bot: str) -> None:
    assert resolve(name) == bot
    assert type(make_bot(name, 0)) is BOT_LEVELS[bot]


def test_an_unknown_level_is_refused_with_the_levels_in_order() -> None:
    with pytest.raises(ValueError, match=rf"unknown bot level 'genius': the levels are {IN_ORDER} \(weakest"):
        resolve("genius")
    with pytest.raises(ValueError, match=f"{IN_ORDER}.*exec:COMMAND"):
        make_bot("genius")


def test_each_level_is_one_whole_sentence_that_names_it() -> None:
    for level in (*LADDER, *OTHER_BOTS):
        assert level.sentence.startswith(level.name + " ") and level.sentence.endswith(".")
        assert not re.search(r"[.!?] ", level.sentence), level.sentence  # one sentence
        assert label(level.bot) == level.name
    assert label("duel") == "Master" and label("operator:Mini") == "operator:Mini"


def test_the_command_line_and_the_arena_and_the_ladder_take_levels_and_older_names() -> None:
    assert parse_bot_list("Master,EXPERT,probability,random") == ["duel", "strong", "probability", "random"]
    assert parse_lineup("beginner,Casual") == ("beginner", "casual")
    with pytest.raises(ArenaInputError, match=IN_ORDER):
        parse_lineup("master,genius")
    assert parse_ladder("perudo", "Beginner,SKILLED,random").entrants == ("beginner", "probability", "random")
    with pytest.raises(LadderError, match=IN_ORDER):
        parse_ladder("perudo", "Skilled,clever")


def test_careless_levels_slip_at_their_rate_and_play_the_same_from_the_same_seed() -> None:
    assert (BeginnerBot.rate, CasualBot.rate) == (0.5, 0.2)

    def game(level: str, seed: int) -> list[object]:
        bots = [make_bot(level, seed), make_bot("skilled", seed + 1)]
        _, record = play_game(Game(preset_options("perudo", {"num_players": 2})), bots, seed=seed)
        return list(record.data["steps"])

    assert game("beginner", 3) == game("beginner", 3)
    # the slips are the only difference from the Skilled level's play, and they happen
    assert any(game("beginner", s) != game("skilled", s) for s in range(3))
    view = position("perudo", [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6)]).view(0)
    assert hunches(view) and set(hunches(view)) <= set(view.legal_actions)
    assert issubclass(BeginnerBot, ProbabilityBot)


def test_the_server_seats_bots_by_level_or_older_name_in_any_case(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path}/db.sqlite3") as client:
        table = create(client, "perudo", options={"num_players": 6})
        with connect(client, table["code"], table["token"]) as host:
            for level in ("MASTER", "duel", "Beginner", "probability"):
                host.send(type="fill_bots", level=level)
                seats = host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
                assert seats["table"]["seats"][1]["bot_level"] == resolve(level)
                host.send(type="clear_bots")
                host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "empty")
            host.send(type="fill_bots")  # the default: the strongest
            seats = host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
            assert {s["bot_level"] for s in seats["table"]["seats"][1:]} == {"duel"}
            host.send(type="fill_bots", level="genius")
            assert IN_ORDER in host.error("bad_message")["message"]
