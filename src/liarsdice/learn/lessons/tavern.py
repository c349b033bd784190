"""The tavern's chips: meet the bet, claim (higher face first), raise, accuse, fold and all-in."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

TAVERN = Lesson(
    name="tavern",
    title="The tavern's chips",
    teaches="Meet the bet and claim (a higher face beats any count), raise the bet, accuse a claim, "
    "go all-in when you cannot meet, or fold.",
    preset="tavern",
    presets=("tavern",),
    steps=(
        Step(
            title="Meet the bet and claim",
            dice={"You": (7, 7, 3), "Ana": (2, 5, 8), "Ben": (7, 1, 4)},
            starter="You",
            instruction=(
                "At the tavern everyone has chips and dice with eight faces. Each round has a bet (1 chip in round "
                "1): on your turn you meet it, paying up to it, then make a claim, like a bid. You hold two 7s: "
                "claim two 7s."
            ),
            accept=(("claim", 2, 7), ("claim", 1, 7)),
            right="Right: you paid the bet of 1 chip into the round's pot and claimed two 7s. There are three 7s.",
            wrong={
                "fold": "Folding leaves the round and costs you a die at its end: never fold a hand you like.",
                "illegal": "There is no claim yet to accuse: the first player of a round claims.",
                "claim": "A claim on a face you hold is the safe start: two 7s.",
            },
            choices=(
                Choice(("claim", 2, 7), "Claim two 7s"),
                Choice(("fold",), "Fold"),
                Choice(("accuse",), "Accuse"),
            ),
            counts=(Count(7, 2, "You"), Count(7, 3)),
        ),
        Step(
            title="A higher face beats any count",
            dice={"You": (6, 6, 2), "Ana": (3, 3, 3), "Ben": (4, 4, 8)},
            starter="Ana",
            before=(("Ana", "claim", 3, 3), ("Ben", "claim", 2, 4)),
            instruction=(
                "Ben claimed two 4s. At the tavern claims order by face first: any claim on a higher face beats a "
                "lower face, whatever the count, so one 6 beats two 4s. You hold two 6s: claim two 6s."
            ),
            accept=(("claim", 2, 6), ("claim", 1, 6)),
            right="Right: 6 is a higher face than 4, so two 6s beats two 4s, and you know it is true.",
            wrong={
                "illegal": "A lower face never beats a higher one at the tavern, whatever the count.",
                "claim": "That claim is allowed, but you hold two 6s: claim those.",
                "accuse": "Ben's two 4s holds (he holds two): accusing it costs you a die.",
            },
            choices=(
                Choice(("claim", 2, 6), "Claim two 6s"),
                Choice(("claim", 3, 2), "Claim three 2s"),
                Choice(("accuse",), "Accuse Ben"),
            ),
            counts=(Count(6, 2, "You"), Count(4, 2)),
        ),
        Step(
            title="Raise the bet",
            dice={"You": (8, 8, 5), "Ana": (8, 2, 1), "Ben": (3, 6, 6)},
            starter="Ana",
            before=(("Ana", "claim", 1, 6), ("Ben", "claim", 2, 6)),
            then=(("Ana", "accuse"),),
            instruction=(
                "When you like your hand, raise the bet: everyone who stays in must pay up to it, and the winner "
                "of the round takes half the pot. You hold two 8s, the highest face. Claim three 8s and raise the "
                "bet to 3 chips."
            ),
            accept=(("claim", 3, 8, {"raise_to": 3}),),
            right=(
                "Right: you paid 3 chips and claimed three 8s. Ana met the new bet and accused you: there are three "
                "8s, so your claim was true. Ana loses a die and you take half the pot; the other half goes to the "
                "running pot, which the last player holding dice takes."
            ),
            wrong={
                "3x8": "A claim without a raise is allowed, but raise the bet to 3 when your hand is this good.",
                "claim": "Claim three 8s and raise the bet to 3.",
                "accuse": "Ben's two 6s holds (he holds two): accusing it costs you a die.",
            },
            choices=(
                Choice(("claim", 3, 8, {"raise_to": 3}), "Claim three 8s, raise to 3"),
                Choice(("claim", 3, 8), "Claim three 8s"),
                Choice(("accuse",), "Accuse Ben"),
            ),
            counts=(Count(8, 2, "You"), Count(8, 3)),
        ),
        Step(
            title="Accuse",
            dice={"You": (2, 5, 5), "Ana": (1, 4, 4), "Ben": (3, 7, 2)},
            starter="Ana",
            before=(("Ana", "claim", 2, 4), ("Ben", "claim", 3, 7)),
            instruction=(
                "Ben claimed three 7s. You hold no 7: three of the other six dice would have to be 7s. Meet the bet "
                "and accuse him."
            ),
            accept=(("accuse",),),
            right="Right: there is one 7. Ben loses a die and you take half the pot.",
            wrong={
                "claim": "Claiming over a claim you believe is a lie makes the lie yours.",
                "fold": "Folding costs you a die, while Ben's claim is very likely a lie.",
            },
            choices=(
                Choice(("accuse",), "Accuse Ben"),
                Choice(("claim", 1, 8), "Claim one 8"),
                Choice(("fold",), "Fold"),
            ),
            counts=(Count(7, 0, "You"), Count(7, 1)),
        ),
        Step(
            title="All-in or fold",
            dice={"You": (4, 6, 6), "Ana": (8, 8, 2), "Ben": (1, 3, 5)},
            starter="Ana",
            state={"round_no": 3, "chips": {"You": 1, "Ana": 10, "Ben": 10}},
            before=(("Ana", "claim", 2, 8), ("Ben", "claim", 3, 8)),
            instruction=(
                "Round 3: the bet is 3 chips and you hold only 1, so you cannot meet it. You may go all-in: bet "
                "every chip you hold and accuse the last claim. Or fold: leave the round and lose a die. Ben "
                "claimed three 8s and you hold none: go all-in."
            ),
            accept=(("all_in",),),
            right=(
                "Right: only Ana's two 8s. Ben's claim was a lie, so Ben loses a die and you take half the pot, "
                "though you put in a single chip."
            ),
            wrong={
                "fold": "Folding costs you a die at the end of the round, and Ben's claim is likely a lie.",
                "illegal": "You cannot meet a bet of 3 with 1 chip: go all-in or fold.",
            },
            choices=(
                Choice(("all_in",), "All-in and accuse"),
                Choice(("fold",), "Fold"),
                Choice(("accuse",), "Accuse"),
            ),
            counts=(Count(8, 2),),
        ),
    ),
)
