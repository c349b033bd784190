"""The core of Liar's Dice: bid, raise, challenge, counting, losing a die (the `classic` rules)."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

CORE = Lesson(
    name="core",
    title="The core: bid, raise, challenge",
    teaches="What a bid claims, how to raise it, when to challenge, how the dice are counted and how a die is lost.",
    preset="classic",
    presets=("classic",),
    steps=(
        Step(
            title="Your first bid",
            dice={"You": (3, 3, 5, 2), "Ana": (6, 3, 1, 4), "Ben": (2, 5, 5, 6)},
            starter="You",
            instruction=(
                "Everyone has rolled four dice under a cup, and you see only your own. You open the round with a "
                "bid: a guess that at least so many dice on the whole table show one face. You hold two 3s, so "
                "'two 3s' is already true. Bid two 3s."
            ),
            accept=(("bid", 2, 3), ("bid", 1, 3), ("bid", 3, 3)),
            right=(
                "Right. A bid is about every die on the table, not only yours: 'at least two 3s among all twelve "
                "dice'. You know it is true, since you hold two (in fact there are three 3s in all). The next "
                "player must now bid higher, or call your bid a lie."
            ),
            wrong={
                "10x6": (
                    "Ten 6s out of twelve dice is almost surely a lie, and you hold no 6 yourself: the next player "
                    "would call it, and you would lose a die."
                ),
                "bid": "A bid on a face you hold is the safe start: you hold two 3s, so bid 2x3.",
                "illegal": "The first player of a round must bid: there is nothing to challenge yet.",
            },
            choices=(
                Choice(("bid", 2, 3), "Bid two 3s"),
                Choice(("bid", 10, 6), "Bid ten 6s"),
                Choice(("challenge",), "Challenge"),
            ),
            counts=(Count(3, 2, "You"), Count(3, 3)),
        ),
        Step(
            title="Raise the bid",
            dice={"You": (4, 4, 2, 6), "Ana": (4, 1, 3, 5), "Ben": (6, 4, 2, 2)},
            starter="Ana",
            before=(("Ana", "bid", 2, 4), ("Ben", "bid", 3, 2)),
            instruction=(
                "Ana bid two 4s, then Ben raised to three 2s. A raise is more dice of any face, or the same number "
                "of dice on a higher face. You hold two 4s: raise to three 4s."
            ),
            accept=(("bid", 3, 4), ("bid", 4, 4)),
            right=(
                "Right: three 4s beats three 2s (the same number, a higher face). With your two 4s, only one more "
                "is needed among the other eight dice, and there are four 4s in all."
            ),
            wrong={
                "2x6": (
                    "Two of anything is lower than three 2s, however high the face: a raise needs more dice, or the "
                    "same number on a higher face."
                ),
                "illegal": "A raise needs more dice, or the same number of dice on a higher face.",
                "challenge": "Ben's three 2s is true (there are three 2s), so calling it a lie costs you a die.",
                "bid": "That raise is allowed, but three 4s is the one your own two 4s back up.",
            },
            choices=(
                Choice(("bid", 3, 4), "Bid three 4s"),
                Choice(("bid", 2, 6), "Bid two 6s"),
                Choice(("challenge",), "Challenge Ben"),
            ),
            counts=(Count(4, 2, "You"), Count(4, 4), Count(2, 3)),
        ),
        Step(
            title="Call a lie",
            dice={"You": (1, 3, 3, 5), "Ana": (2, 6, 4, 4), "Ben": (6, 1, 5, 2)},
            starter="Ana",
            before=(("Ana", "bid", 3, 5), ("Ben", "bid", 6, 6)),
            instruction=(
                "Ben bid six 6s. You hold no 6, so six of the other eight dice would have to be 6s. When you "
                "think a bid is a lie, challenge it: every cup is lifted and the dice are counted."
            ),
            accept=(("challenge",),),
            right=(
                "Right: the cups are lifted and there are only two 6s. Ben's bid was a lie, so Ben loses a die. "
                "Whoever loses a challenge starts the next round."
            ),
            wrong={
                "bid": (
                    "Raising a bid you believe is a lie makes the lie yours: the next player challenges you, and you "
                    "lose the die."
                ),
            },
            choices=(
                Choice(("challenge",), "Challenge Ben: Liar!"),
                Choice(("bid", 7, 6), "Bid seven 6s"),
            ),
            counts=(Count(6, 0, "You"), Count(6, 2)),
        ),
        Step(
            title="A bid means 'at least'",
            dice={"You": (5, 5, 2, 3), "Ana": (5, 1, 6, 2), "Ben": (4, 5, 3, 3)},
            starter="Ana",
            before=(("Ana", "bid", 2, 3), ("Ben", "bid", 3, 5)),
            then=(("Ana", "challenge"),),
            instruction=(
                "Ben bid three 5s. You hold two 5s yourself, so just one more 5 among the other eight dice makes "
                "his bid true: a bid holds when at least that many dice show the face. Don't challenge a bid that "
                "is likely true. Raise it: bid four 5s."
            ),
            accept=(("bid", 4, 5),),
            right=(
                "Right. Ana challenged your four 5s, and there are exactly four: a bid holds when the count is at "
                "least the bid, so Ana loses a die. Challenging Ben would have cost you one."
            ),
            wrong={
                "challenge": (
                    "There are four 5s, at least the three Ben bid, so his bid was true and you would lose a die."
                ),
                "bid": "Four 5s is the raise your two 5s back up.",
            },
            choices=(
                Choice(("bid", 4, 5), "Bid four 5s"),
                Choice(("challenge",), "Challenge Ben"),
            ),
            counts=(Count(5, 2, "You"), Count(5, 4)),
        ),
        Step(
            title="The last die",
            dice={"You": (4, 4), "Ana": (2,), "Ben": ()},
            starter="Ana",
            before=(("Ana", "bid", 3, 4),),
            instruction=(
                "A player who loses every die is out, and the last player holding dice wins. Ben is out; Ana has "
                "one die left and you have two. Ana bid three 4s: every die on the table would have to be a 4. "
                "Challenge her."
            ),
            accept=(("challenge",),),
            right=(
                "Right: Ana held a 2, so only your two 4s count. Ana loses her last die and is out: you are the "
                "last player holding dice, and you win. That is the whole game: bid, raise, challenge."
            ),
            wrong={
                "bid": "Three 5s would need all three dice to be 5s, and you hold two 4s: that is the lie now.",
            },
            choices=(
                Choice(("challenge",), "Challenge Ana: Liar!"),
                Choice(("bid", 3, 5), "Bid three 5s"),
            ),
            counts=(Count(4, 2),),
        ),
    ),
)
