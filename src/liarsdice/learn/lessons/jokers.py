"""The jokers' game: joker bids that count double, the siding vote, and shedding your dice."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

JOKERS = Lesson(
    name="jokers",
    title="Jokers, the vote and shedding",
    teaches="Ones are jokers that count double when bid; after a liar call everyone sides with the accuser or "
    "the accused, and the correct side sheds a die: the first to empty their cup wins.",
    preset="jokers",
    presets=("jokers",),
    game={"num_players": 3, "dice_per_player": 3},
    steps=(
        Step(
            title="Jokers count double",
            dice={"You": (1, 1, 3, 5), "Ana": (2, 4, 4, 6), "Ben": (1, 5, 5, 3)},
            starter="Ana",
            before=(("Ana", "bid", 3, 4), ("Ben", "bid", 4, 5)),
            instruction=(
                "Here the 1s are jokers: they count for every face, and a bid on jokers counts double when "
                "raising: two jokers rank like four dice, just below four 2s. Ben bid four 5s, so a joker bid must "
                "be three jokers (worth six). You hold two: bid three jokers."
            ),
            accept=(("bid", 3, 1),),
            right="Right: three jokers rank like six dice, above four 5s, and there are three jokers on the table.",
            wrong={
                "2x1": "Two jokers rank like four dice, just below four 2s, so below four 5s too: bid three.",
                "illegal": "A bid on jokers counts double: it must beat the last bid at twice its count.",
                "challenge": "Ben's four 5s holds: there are six 5s, jokers included. Calling liar would be wrong.",
            },
            choices=(
                Choice(("bid", 3, 1), "Bid three jokers"),
                Choice(("bid", 2, 1), "Bid two jokers"),
                Choice(("challenge",), "Liar! (challenge Ben)"),
            ),
            counts=(Count(1, 2, "You"), Count(1, 3), Count(5, 6)),
        ),
        Step(
            title="The siding vote",
            dice={"You": (2, 3, 3, 6), "Ana": (4, 1, 2, 6), "Ben": (5, 5, 2, 3)},
            starter="Ana",
            before=(("Ana", "bid", 5, 6), ("Ben", "challenge")),
            instruction=(
                "Ana bid five 6s and Ben called her a liar. Now everyone else sides with one of them: believe (the "
                "bid is true) or doubt (it is a lie). You hold one 6 and no joker, so five 6s needs four more among "
                "Ana's and Ben's eight dice. Doubt."
            ),
            accept=(("vote", "doubt"),),
            right=(
                "Right: there are three 6s, jokers included. Ben and you were correct, so each of you sheds a die: "
                "in this game losing dice is good, as the first to empty their cup wins."
            ),
            wrong={
                "believe": (
                    "Believing puts you on Ana's side, and her bid was a lie (three 6s): only the doubters shed a die."
                ),
            },
            choices=(
                Choice(("vote", "doubt"), "Doubt (side with Ben)"),
                Choice(("vote", "believe"), "Believe (side with Ana)"),
            ),
            counts=(Count(6, 1, "You"), Count(6, 3)),
        ),
        Step(
            title="Shed your last die",
            dice={"You": (3,), "Ana": (2, 2, 4), "Ben": (6, 6)},
            starter="Ana",
            before=(("Ana", "bid", 2, 2), ("Ben", "bid", 4, 6)),
            then=(("Ana", "vote", "believe"),),
            instruction=(
                "You hold one die: shed it and you have finished first. Ben bid four 6s, with six dice on the "
                "table and no joker in your cup. Call him a liar."
            ),
            accept=(("challenge",),),
            right=(
                "Right: there are only two 6s. You were correct and shed your last die: you finished first, so you "
                "win. Ana believed Ben, so she keeps her dice."
            ),
            wrong={
                "bid": "Five 6s is even less likely than four: you would be the liar, and keep your die.",
            },
            choices=(
                Choice(("challenge",), "Liar! (challenge Ben)"),
                Choice(("bid", 5, 6), "Bid five 6s"),
            ),
            counts=(Count(6, 2),),
        ),
    ),
)
