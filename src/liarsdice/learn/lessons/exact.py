"""Exact calls: Red Dead's spot-on (everyone else loses a die) and Perudo's calza (win a die back)."""

from __future__ import annotations

from ..lesson import Choice, Count, Lesson, Step

EXACT = Lesson(
    name="exact",
    title="Spot-on and calza",
    teaches="Say a bid is exactly right: a spot-on costs everyone else a die, a calza wins one back; "
    "when it is not exact, you lose one.",
    preset="red-dead",
    presets=("red-dead",),
    steps=(
        Step(
            title="Spot-on",
            dice={"You": (5, 5, 2, 3), "Ana": (5, 1, 4, 6), "Ben": (5, 2, 2, 6)},
            starter="Ana",
            before=(("Ana", "bid", 3, 5), ("Ben", "bid", 4, 5)),
            instruction=(
                "In Red Dead's rules you may raise, call a bluff, or declare the bid spot-on: exactly right. If it "
                "is, everyone else loses a die; if not, you lose one. Nothing is wild here. Ana bid three 5s and "
                "Ben raised to four: each seems to hold a 5, and you hold two. That makes four: call spot-on."
            ),
            accept=(("exact",),),
            right="Spot on: there are exactly four 5s. Ana and Ben each lose a die, and you lose none.",
            wrong={
                "challenge": "Four 5s is true (there are four): calling a bluff on a true bid costs you a die.",
                "bid": "Five 5s is one more than there are (four): the next player would call your bluff.",
            },
            choices=(
                Choice(("exact",), "Spot-on!"),
                Choice(("challenge",), "Call bluff"),
                Choice(("bid", 5, 5), "Raise to five 5s"),
            ),
            counts=(Count(5, 2, "You"), Count(5, 4)),
        ),
        Step(
            title="Only when it is exact",
            dice={"You": (3, 3, 3, 6), "Ana": (2, 3, 4, 4), "Ben": (1, 5, 6, 3)},
            starter="Ana",
            before=(("Ana", "bid", 1, 4), ("Ben", "bid", 2, 3)),
            instruction=(
                "Ben bid two 3s. You hold three 3s, so there are at least three: his bid is true, and it cannot be "
                "exactly right. Neither call pays here: raise to four 3s."
            ),
            accept=(("bid", 4, 3), ("bid", 3, 3), ("bid", 5, 3)),
            right=(
                "Right: spot-on needs the count to be exactly the bid. With three 3s in your own cup, two 3s "
                "could never be exact; there are five."
            ),
            wrong={
                "exact": "There are five 3s, not two: a spot-on that misses costs you a die.",
                "challenge": "Two 3s is true (you hold three yourself): calling a bluff costs you a die.",
            },
            choices=(
                Choice(("bid", 4, 3), "Raise to four 3s"),
                Choice(("exact",), "Spot-on!"),
                Choice(("challenge",), "Call bluff"),
            ),
            counts=(Count(3, 3, "You"), Count(3, 5)),
        ),
        Step(
            title="Calza",
            preset="perudo",
            dice={"You": (4, 1, 6), "Ana": (4, 4, 2, 5), "Ben": (1, 3, 6, 6)},
            starter="Ana",
            before=(("Ana", "bid", 4, 4), ("Ben", "bid", 5, 4)),
            instruction=(
                "In Perudo the exact call is calza, and ones are wild. If the bid is exactly right you win back a "
                "die (up to five); if not, you lose one. You are down to three dice. Ben bid five 4s: your 4 and "
                "your 1 make two, Ana bid 4s so she holds some, and Ben raised them. Call calza."
            ),
            accept=(("exact",),),
            right="Calza! There are exactly five 4s, counting the ones: you win a die back and hold four again.",
            wrong={
                "challenge": "Five 4s is true (there are five, ones included): dudo would cost you a die.",
                "bid": "Six 4s is one more than there are (five): that bid would be the lie.",
            },
            choices=(
                Choice(("exact",), "Calza!"),
                Choice(("challenge",), "Dudo! (challenge Ben)"),
                Choice(("bid", 6, 4), "Raise to six 4s"),
            ),
            counts=(Count(4, 2, "You"), Count(4, 5)),
        ),
    ),
)
