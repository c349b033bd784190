"""Soar's rules: the pass, the push, challenging through a pass, and the one-die round."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

SOAR = Lesson(
    name="soar",
    title="Pass, push and the one-die round",
    teaches="Pass when all your dice match, challenge a pass, push dice out of your cup to reroll the rest, "
    "and play the one-die round, where nothing is wild.",
    preset="soar",
    presets=("soar",),
    steps=(
        Step(
            title="Pass",
            dice={"You": (4, 4, 4), "Ana": (2, 3, 5, 1), "Ben": (3, 6, 6, 2)},
            starter="Ana",
            before=(("Ana", "bid", 2, 3), ("Ben", "bid", 3, 6)),
            instruction=(
                "In Soar's rules you may pass instead of bidding: a claim that every die in your hand shows the "
                "same face (ones are not wild for this). The bid stays as it is for the next player. All three of "
                "your dice are 4s: pass."
            ),
            accept=(("pass",),),
            right=(
                "Right: your pass is true, so whoever challenges it loses a die, and Ben's three 6s is now Ana's "
                "to beat. You may pass once with the same dice."
            ),
            wrong={
                "challenge": "Ben's three 6s holds (there are three, with the wild 1): challenging it costs you a die.",
                "bid": "A bid is allowed, but with every die alike a pass is a claim you know is true.",
            },
            choices=(
                Choice(("pass",), "Pass"),
                Choice(("challenge",), "Challenge Ben"),
                Choice(("bid", 4, 4), "Bid four 4s"),
            ),
            counts=(Count(6, 3), Count(4, 3, "You")),
        ),
        Step(
            title="Challenge a pass",
            dice={"You": (2, 5, 6), "Ben": (3, 3, 1, 4), "Ana": (2, 2, 5)},
            starter="Ben",
            before=(("Ben", "bid", 3, 3), ("Ana", "pass")),
            instruction=(
                "Ben bid three 3s, then Ana passed: she claims all three of her dice show one face, which "
                "happens about once in 36 rolls. You may challenge the pass, or Ben's bid behind it. Challenge Ana."
            ),
            accept=(("challenge", {"target": "Ana"}),),
            right="Right: Ana's dice are 2, 2 and 5, so her pass was not valid, and Ana loses a die.",
            wrong={
                "challenge Ben": "Ben's three 3s holds (his two 3s and his wild 1): challenging it costs you a die.",
                "bid": "A bid lets Ana's doubtful pass go by: challenge it while you can.",
            },
            choices=(
                Choice(("challenge", {"target": "Ana"}), "Challenge Ana's pass"),
                Choice(("challenge", {"target": "Ben"}), "Challenge Ben's bid"),
                Choice(("bid", 4, 3), "Bid four 3s"),
            ),
            counts=(Count(3, 3, "Ben"), Count(3, 3)),
        ),
        Step(
            title="Push",
            dice={"You": (5, 5, 1, 2, 6), "Ana": (3, 5, 4), "Ben": (6, 2, 2)},
            starter="Ana",
            before=(("Ana", "bid", 2, 5), ("Ben", "bid", 3, 5)),
            then=(("Ana", "challenge"),),
            reroll=(5, 3),
            reveal_count=5,
            instruction=(
                "With a bid or a pass you may push: put some of your dice out of the cup, face up, and reroll "
                "the rest. Pushing dice that match your bid shows it is true and gives the others a new roll. "
                "Bid four 5s and push your two 5s and your 1 (ones are wild)."
            ),
            accept=(("bid", 4, 5, {"push": [1, 5, 5]}),),
            right=(
                "Right: your 1, 5 and 5 stand face up, and your other two dice were rerolled: a 5 and a 3. Ana "
                "challenged anyway, and with the pushed dice there are five 5s, so Ana loses a die."
            ),
            wrong={
                "4x5": "That bid is fine, but this step is about the push: bid 4x5 and push 1, 5, 5.",
                "illegal": "At least one die must stay under your cup to be rerolled.",
                "challenge": "Ben's three 5s holds: your two 5s and your 1 alone make three.",
            },
            choices=(
                Choice(("bid", 4, 5, {"push": [1, 5, 5]}), "Bid four 5s, push 1 5 5"),
                Choice(("bid", 4, 5), "Bid four 5s, no push"),
                Choice(("bid", 4, 5, {"push": [1, 2, 5, 5, 6]}), "Bid four 5s, push all five dice"),
            ),
            counts=(Count(5, 3, "You"), Count(5, 4)),
        ),
        Step(
            title="The one-die round",
            dice={"You": (3,), "Ana": (6, 2, 1), "Ben": (3, 4)},
            starter="Ana",
            state={"special_round": True, "special_done": ("You",)},
            before=(("Ana", "bid", 2, 6), ("Ben", "bid", 3, 6)),
            instruction=(
                "You just dropped to one die, so this round is the one-die round: ones are not wild, and only a "
                "player holding one die may change the face of the bid. Ana bid two 6s, and Ben, with two dice, "
                "had to stay on 6s: three 6s. Without wild ones, that is a stretch. Challenge Ben."
            ),
            accept=(("challenge",),),
            right="Right: only Ana holds a 6, and her 1 does not count this round. Ben loses a die.",
            wrong={
                "bid": (
                    "With one die you may change the face, but four 3s needs four of six dice to be 3s: there are two."
                ),
            },
            choices=(
                Choice(("challenge",), "Challenge Ben"),
                Choice(("bid", 4, 3), "Bid four 3s"),
            ),
            counts=(Count(6, 1), Count(3, 2)),
        ),
        Step(
            title="Two dice stay on the face",
            dice={"You": (2, 5), "Ben": (4,), "Ana": (5, 5, 3)},
            starter="Ben",
            state={"special_round": True, "special_done": ("Ben",)},
            before=(("Ben", "bid", 1, 5), ("Ana", "bid", 2, 5)),
            instruction=(
                "Ben holds one die, so this is a one-die round again. You hold two dice: you may not change the "
                "face of the bid, only raise its count, or challenge. Ana bid two 5s; you hold one 5. Bid three 5s."
            ),
            accept=(("bid", 3, 5),),
            right="Right: with more than one die you may only raise the count on the bid's face. There are three 5s.",
            wrong={
                "illegal": "With two dice you may not change the face in a one-die round.",
                "challenge": "Ana's two 5s is likely true: she bid 5s twice in a row. There are three.",
            },
            choices=(
                Choice(("bid", 3, 5), "Bid three 5s"),
                Choice(("bid", 3, 2), "Bid three 2s"),
                Choice(("challenge",), "Challenge Ana"),
            ),
            counts=(Count(5, 3),),
        ),
    ),
)
