"""The rules of a table in a player's words, whole, derived from its options.

Every sentence follows from an option of RULES.md 2.1, so a custom mix of options reads right
as well as a preset does. The table page's Rules box and the `/rules` pages show these sections.
Examples of raises are worked out on the game's own bid ladder, never written by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rules import PRESETS, Bid, Options, OptionsError, find_preset, ladder
from .text import challenge_word, exact_effects, exact_word, plural


@dataclass(frozen=True)
class Section:
    title: str
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Rulebook:
    """A table's rules: a title, one line saying what the game is, and the rules by section."""

    preset: str
    title: str
    summary: str
    sections: list[Section]

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "title": self.title,
            "summary": self.summary,
            "url": f"/rules/{self.preset}",
            "sections": [{"title": s.title, "lines": list(s.lines)} for s in self.sections],
        }


def _dice(options: Options) -> str:
    d = options.dice_per_player
    if isinstance(d, tuple):
        if len(set(d)) == 1:
            return plural(d[0], "die", "dice") + " each"
        return "dice by seat: " + ", ".join(str(x) for x in d)
    return plural(d, "die", "dice") + " each"


def _faces(f: int) -> str:
    return f"{f}s"


def _call_name(options: Options) -> str:
    """The liar call as a player says it, capitalised for the start of a sentence."""
    word = challenge_word(options)
    return {
        "dudo": 'Say "dudo" (I doubt it)',
        "call bluff": "Call bluff",
        "liar": "Call the last bidder a liar",
        "accuse": "Accuse the last claimer",
    }.get(word, "Challenge")


def _example_faces(options: Options) -> tuple[int, int, int]:
    """Faces that are not wild to make examples with: the lowest, and a lower and a higher one
    from the middle of the die (3 and 5 on a six-sided die)."""
    plain = [f for f in range(1, options.faces + 1) if f != options.wild] or [1]
    n = len(plain)
    return plain[0], plain[n // 3], plain[max(n // 3, (2 * n) // 3)]


def _bidding(options: Options) -> Section:
    o = options
    economy = o.economy is not None
    bid = "claim" if economy else "bid"
    lad = ladder(o.faces, o.wild, o.wild_bid_rule, o.bid_order, 1)
    lo, a, b = _example_faces(o)
    lines = [
        f"A {bid} says how many dice on the whole table, every cup counted, show one face: "
        f'"4 × {_faces(b)}" means at least four {_faces(b)}. You may {bid} anything, whatever your own dice show.',
    ]
    higher = f" (after 3 × {_faces(a)}: 3 × {_faces(b)}, or 4 of any face)" if a < b else ""
    if o.bid_order == "quantity_major":
        lines.append(
            f"Each {bid} must beat the last one: as many dice of a higher face, or more dice of any face{higher}."
        )
    else:
        higher = f" (after 4 × {_faces(a)}: 1 × {_faces(b)}, or 5 × {_faces(a)})" if a < b else ""
        lines.append(
            f"Each {bid} must beat the last one by face first: a higher face with any number of dice, or "
            f"the same face with more dice{higher}."
        )
    w = o.wild
    if w is None:
        lines.append("Nothing is wild: only dice showing the face count.")
    else:
        lines.append(f"{_faces(w)} are wild: they count toward whatever face is {'claimed' if economy else 'bid on'}.")
        if o.wild_bid_rule == "joker_double":
            to = lad.lowest_raise_on(w, Bid(3, b))
            back = lad.lowest_raise_on(lo, Bid(2, w))
            lines.append(
                f"{_faces(w)} are jokers, and a joker bid counts double against other bids: "
                f"after 3 × {_faces(b)}, {to} × {_faces(w)} is enough; after 2 × {_faces(w)}, it takes "
                f"{back} × {_faces(lo)}. A bid on {_faces(w)} still claims only that many {_faces(w)}."
            )
        elif o.wild_bid_rule == "perudo_half":
            to = lad.lowest_raise_on(w, Bid(5, b))
            back = lad.lowest_raise_on(lo, Bid(3, w))
            lines.append(
                f"Going to {_faces(w)} takes half the dice, rounded up (after 5 × {_faces(b)}: {to} × {_faces(w)}); "
                f"coming back from {_faces(w)} takes twice as many plus one (after 3 × {_faces(w)}: "
                f"{back} × {_faces(lo)}). A bid on {_faces(w)} counts only {_faces(w)}."
            )
        else:
            lines.append(f"A {bid} on {_faces(w)} counts only {_faces(w)}, and ranks like any other face.")
        if not o.wild_opening:
            lines.append(
                f"A round may not open on {_faces(w)}"
                + (" (except in the special round below)." if o.one_die_round is not None else ".")
            )
    if o.max_quantity == "dice_in_play":
        lines.append(f"No {bid} may be for more dice than are on the table.")
    return Section("Bidding" if not economy else "Claims", lines)


def _pass_and_push(options: Options) -> list[str]:
    o = options
    lines: list[str] = []
    if o.pass_rule != "none":
        when = "as they were when you passed" if o.pass_rule == "at_pass" else "as they are at the reveal"
        lines.append(
            "Pass: instead of bidding, claim that every die in your hand shows the same face (1s are not "
            f"wild for this), judged on your dice {when}. You need at least 2 dice, and may pass only once "
            "with the same dice (again after a push rerolls them). A pass may open a round and leaves the "
            "last bid standing."
        )
    if o.push:
        with_what = "a claim" if o.economy is not None else "a bid or a pass" if o.pass_rule != "none" else "a bid"
        lines.append(
            f"Push: with {with_what} you may put some of your dice in front of your cup, face up for "
            "everyone, and reroll the rest. At least one die stays under the cup; pushed dice stay out "
            "until the round ends and count like the others."
        )
    return lines


def _calling(options: Options) -> Section:
    o = options
    lines: list[str] = []
    word = exact_word(o)
    if o.challenge_mode == "siding_vote":
        lines.append(
            "Instead of bidding, call the last bidder a liar. Then every other player still in, clockwise "
            "from the caller's left, says in turn whether they believe the bid or doubt it."
        )
        lines.append(
            "Everyone lifts their cup and the dice are counted. If there are at least as many as bid, the "
            "bid was true: the bidder and everyone who believed were right. If there are fewer, the caller "
            "and everyone who doubted were right."
        )
        if o.goal == "shedding":
            lines.append("Everyone who was right sheds one die.")
        else:
            lines.append("Everyone who was wrong loses one die.")
    else:
        ask = (
            f"{_call_name(o)} instead of bidding, if you think the last bid is too high: everyone lifts their "
            "cup and the dice are counted."
        )
        if o.rounds == "single":
            lines.append(f"{ask} If there are at least as many as bid, the bidder wins; if fewer, the caller wins.")
        elif o.goal == "shedding":
            lines.append(
                f"{ask} If there are at least as many as bid, the bidder was right; if fewer, the caller was. "
                "Whoever was right sheds a die."
            )
        else:
            lines.append(
                f"{ask} If there are at least as many as bid, the caller loses a die; if fewer, the bidder does."
            )
    if o.exact != "none":
        right, wrong = exact_effects(o)
        if o.rounds == "single":
            right, wrong = "you win the game", "you lose it"
        elif o.exact == "gain_die" and o.goal == "elimination":
            cap = o.max_dice
            most = plural(cap, "die", "dice") if isinstance(cap, int) else "your starting dice"
            right = f"you win a die back (never more than {most})"
        target = " (the last bid, even behind passes, and never your own)" if o.pass_rule != "none" else ""
        lines.append(
            f"{word.capitalize()}: instead of bidding, say the standing bid is exactly right{target}. "
            f"If the count is exactly the bid, {right}; if not, {wrong}."
            + (" Nobody else gains or loses." if o.exact == "gain_die" and o.rounds != "single" else "")
        )
        if o.exact_limit == "once_per_game":
            lines.append(f"Each player may call {word} only once per game; a miss uses it up too.")
    lines += _pass_and_push(o)
    if o.pass_rule != "none" and o.challenge_mode == "duel":
        lines.append(
            "After a pass you may challenge that pass, or the move just before it if it is not yours "
            "(through one pass). A challenged pass is wrong if the passer's dice were not all one face."
        )
    return Section("Calling", lines)


def _economy(options: Options) -> Section:
    o = options
    e = o.economy
    assert e is not None
    start = "the round number (1 in round 1, 2 in round 2, ...)" if e.min_bet == "round_number" else f"{e.min_bet}"
    meet = (
        "pay what you still owe to bring what you have paid this round up to the bet"
        if e.stake == "call_to_level"
        else "pay the whole bet again (each turn costs the bet)"
    )
    lines = [
        f"Everyone starts with {plural(e.starting_chips, 'chip')}. Each round has its own pot, and a bet that "
        f"starts at {start}.",
        f"On your turn, first meet the bet: {meet}. Then claim higher, or accuse the last claimer of lying. "
        "Before either you may raise the bet to any amount above it that you can pay.",
        "If you cannot meet the bet, you may go all in: pay every chip you have and accuse the last claim"
        + (" (even with no chips left)." if e.zero_chip_all_in else " (not with no chips left)."),
        "You may always fold instead: you are out of the round, lose a die at its end, and what you paid "
        "stays in the pot." + ("" if e.folded_dice_count else " Folded players' dice do not count."),
    ]
    half = (
        "half the round's pot (rounded down; the odd chip goes to the running pot)"
        if e.odd_remainder == "running_pot"
        else "half the round's pot (rounded up)"
    )
    if o.goal == "shedding":
        lines.append(
            f"An accusation: everyone lifts their cup and the dice are counted. The one proven right sheds a "
            f"die and wins {half}; the rest of the pot goes to the running pot."
        )
    else:
        lines.append(
            "An accusation: everyone lifts their cup and the dice are counted. If there are at least as many "
            "as claimed, the claim was true: the accuser loses a die and the claimer wins "
            f"{half}. If fewer, the claimer loses a die and the accuser wins it. The rest of the pot goes to "
            "the running pot."
        )
    lines.append(
        "If everyone else folds, the last player in wins half the pot at once, and the last to fold lost the round."
    )
    lines.append("The last player with dice wins the running pot; players who are out keep the chips they hold.")
    return Section("Chips and the pot", lines)


def _special_round(options: Options) -> Section | None:
    o = options
    odr = o.one_die_round
    if odr is None:
        return None
    w = o.wild
    who = (
        "only players holding a single die may change the face; everyone else must bid more of the same face"
        if odr.face_change == "one_die_players"
        else "nobody may change the face: every bid raises the count of the opening face"
    )
    lines = [
        f"The first time a player drops to 1 die, while {odr.min_players} or more players are still in, "
        "the next round is special. Each player sets this off only once per game.",
    ]
    if w is not None:
        lines.append(
            f"In it {_faces(w)} are not wild: a bid on {_faces(w)} is an ordinary bid, and any face may open the round."
        )
    else:
        lines.append("Any face may open it.")
    lines.append(f"After the opening bid, {who}.")
    if o.exact != "none":
        if odr.exact_allowed:
            lines.append(f"{exact_word(o).capitalize()} may still be called in it.")
        else:
            lines.append(f"No {exact_word(o)} in it.")
    return Section("When someone drops to 1 die", lines)


def _rounds(options: Options) -> Section:
    o = options
    lines: list[str] = []
    first = (
        "A player chosen at random opens the first round."
        if o.first_starter == "random"
        else f"Seat {int(o.first_starter) + 1} opens the first round."
    )
    lines.append(f"Every round everyone shakes their dice under their cup and looks only at their own. {first}")
    lines.append("Play goes clockwise.")
    if o.rounds == "single":
        lines.append(
            "One round decides the game: whoever is proven right scores +1, the other -1, everyone else 0; "
            "nobody loses dice."
        )
        return Section("Rounds", lines)
    if o.next_starter == "opener_ccw":
        lines.append(
            "The opening bid passes counter-clockwise: the next round is opened by the player to the right of "
            "the last round's opener (skipping players who are out)."
        )
    else:
        if o.economy is not None:
            loser = "The loser of the accusation (or the last to fold) opens the next round"
        elif o.challenge_mode == "siding_vote":
            loser = "Of the caller and the bidder, the one who was wrong opens the next round"
        else:
            loser = "The loser of a challenge opens the next round"
        if o.exact != "none":
            loser += f"; after {exact_word(o)}, its caller does"
        if o.eliminated_starter == "next_clockwise":
            fallback = " If that player is out, the next player clockwise opens."
        else:
            fallback = (
                " If that player is out, the player with the fewest dice opens (then the fewest chips, then "
                "chosen at random)."
            )
        lines.append(loser + "." + ("" if o.goal == "shedding" and o.challenge_mode == "siding_vote" else fallback))
    lines.append("All the dice lost or won in a round change at once, at its end.")
    return Section("Rounds", lines)


def _goal(options: Options) -> str:
    o = options
    if o.rounds == "single":
        return "One round, one liar call: the winner of the call wins the game."
    if o.goal == "shedding":
        return (
            "Get rid of your dice: the first to empty their cup wins. Play goes on to rank everyone else; "
            "the one left holding dice comes last."
        )
    wrong = "you are wrong or fold" if o.economy is not None else "you are wrong"
    return f"Lose a die each time {wrong}; a player with no dice left is out. The last player with dice wins."


def rulebook(options: Options, preset: str = "custom") -> Rulebook:
    """The whole rules of a game with these options (named after `preset`, if it is one)."""
    o = options
    try:
        p = find_preset(preset)
        name, title = p.name, p.title
    except OptionsError:
        name, title = preset, "Custom rules"
    setup = Section(
        "The game",
        [
            f"{o.num_players} players, {_dice(o)}, dice numbered 1 to {o.faces}.",
            _goal(o),
        ],
    )
    sections = [setup, _rounds(o), _bidding(o)]
    if o.economy is not None:
        sections.append(_economy(o))
        extra = _pass_and_push(o)
        if extra:
            sections.append(Section("Pushing", extra))
    else:
        sections.append(_calling(o))
    special = _special_round(o)
    if special is not None:
        sections.append(special)
    summary = f"{o.num_players} players · {_dice(o)} · " + (
        "nothing wild" if o.wild is None else f"{_faces(o.wild)} wild"
    )
    return Rulebook(name, title, summary, sections)


def preset_rulebooks() -> list[Rulebook]:
    """Every preset's rules at its usual table size, in the order of PRESETS."""
    return [rulebook(p.build({"num_players": p.default_players}), p.name) for p in PRESETS.values()]
