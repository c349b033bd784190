"""Wild dice: ones wild, bids on ones at half the count (Perudo's pacos), and the top face wild
(OpenSpiel's rules)."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

WILDS = Lesson(
    name="wilds",
    title="Wild ones",
    teaches="Ones count for every face; a bid on ones needs half the dice, and leaving them double plus one; "
    "in OpenSpiel's rules the top face is wild instead.",
    preset="perudo",
    presets=("perudo", "perudo_basic", "openspiel"),
    steps=(
        Step(
            title="Ones are wild",
            dice={"You": (1, 1, 4, 4), "Ana": (4, 2, 6, 3), "Ben": (5, 1, 2, 6)},
            starter="Ana",
            before=(("Ana", "bid", 3, 6), ("Ben", "bid", 4, 4)),
            instruction=(
                "In Perudo the ones (pacos) are wild: a 1 counts as whatever face is bid. Ben bid four 4s. Your "
                "two 4s and your two 1s make four 4s already, so his bid is true before anyone else's dice are "
                "counted. Raise to five 4s."
            ),
            accept=(("bid", 5, 4), ("bid", 6, 4)),
            right=(
                "Right: counting the ones, there are six 4s on the table, so five 4s is true. Whenever you count, "
                "add the ones to the face."
            ),
            wrong={
                "challenge": (
                    "Dudo (calling the bid a lie) would cost you a die: your own cup holds four 4s counting the "
                    "ones, and the whole table six."
                ),
                "bid": "That raise is allowed, but five 4s is the one your cup backs up.",
            },
            choices=(
                Choice(("bid", 5, 4), "Bid five 4s"),
                Choice(("challenge",), "Dudo! (challenge Ben)"),
            ),
            counts=(Count(4, 4, "You"), Count(4, 6)),
        ),
        Step(
            title="A bid on ones: half the count",
            dice={"You": (1, 1, 1, 3), "Ana": (5, 2, 6, 1), "Ben": (5, 5, 3, 2)},
            starter="Ana",
            before=(("Ana", "bid", 4, 5), ("Ben", "bid", 6, 5)),
            instruction=(
                "Ben bid six 5s. Ones count for every face, so they are rarer: a bid on ones needs only half the "
                "number of dice, rounded up. After six 5s, three 1s is enough. You hold three 1s: bid three 1s."
            ),
            accept=(("bid", 3, 1),),
            right="Right: three 1s beats six 5s, and with your three there are four 1s on the table.",
            wrong={
                "2x1": "Two 1s is less than half of six: the rule is half, rounded up, so three 1s at least.",
                "illegal": "A bid on ones needs at least half the count of the bid before it, rounded up.",
                "bid": "Seven 5s is allowed (there are seven, ones included), but this step is about bidding ones.",
                "challenge": "Ben's six 5s is a lie only if fewer than six dice show 5 or 1; there are seven.",
            },
            choices=(
                Choice(("bid", 3, 1), "Bid three 1s"),
                Choice(("bid", 2, 1), "Bid two 1s"),
                Choice(("bid", 7, 5), "Bid seven 5s"),
            ),
            counts=(Count(1, 3, "You"), Count(1, 4), Count(5, 7)),
        ),
        Step(
            title="Leaving ones: double plus one",
            dice={"You": (6, 6, 6, 1), "Ana": (2, 1, 3, 4), "Ben": (6, 5, 1, 2)},
            starter="Ana",
            before=(("Ana", "bid", 4, 6), ("Ben", "bid", 3, 1)),
            instruction=(
                "Ben bid three 1s. To go back to another face you must bid double the ones, plus one: seven. "
                "You hold four 6s, counting your 1. Bid seven 6s."
            ),
            accept=(("bid", 7, 6),),
            right="Right: 3 × 2 + 1 = 7. There are seven 6s on the table, ones included.",
            wrong={
                "6x6": "Six 6s is only double the three 1s: leaving ones takes double plus one, seven.",
                "illegal": "Leaving ones takes double their count plus one.",
                "challenge": "There are three 1s on the table: Ben's bid holds, and dudo would cost you a die.",
            },
            choices=(
                Choice(("bid", 7, 6), "Bid seven 6s"),
                Choice(("bid", 6, 6), "Bid six 6s"),
                Choice(("challenge",), "Dudo! (challenge Ben)"),
            ),
            counts=(Count(6, 4, "You"), Count(6, 7), Count(1, 3)),
        ),
        Step(
            title="The top face wild",
            preset="openspiel",
            dice={"You": (6,), "Ana": (3,)},
            starter="You",
            then=(("Ana", "challenge"),),
            instruction=(
                "In OpenSpiel's rules the top face, 6, is wild instead of the 1, and the game is one round with "
                "one die each. You rolled a 6: it counts as every face, so a bid of one die of any face is sure. "
                "Open with one 5."
            ),
            accept=(("bid", 1, 5), ("bid", 1, 4), ("bid", 1, 3), ("bid", 1, 2)),
            right="Right. Ana called liar, but your 6 counts as a 5: the bid holds and you win the game.",
            wrong={
                "bid": (
                    "Two dice of a face needs Ana's die to be that face or a 6 as well: a guess. One 5 is sure, "
                    "thanks to your wild 6."
                ),
            },
            choices=(
                Choice(("bid", 1, 5), "Bid one 5"),
                Choice(("bid", 2, 2), "Bid two 2s"),
            ),
            counts=(Count(5, 1, "You"), Count(2, 1)),
        ),
    ),
)
