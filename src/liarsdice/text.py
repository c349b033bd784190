"""Plain-text descriptions of rounds and games, shared by the terminal, replays and logs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .rules import (
    Accuse,
    AllIn,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Exact,
    Fold,
    GameResult,
    Options,
    Pass,
    RoundOutcome,
    Turn,
    Vote,
    format_action,
)


def exact_word(options: Options) -> str:
    """What the exact call is named at this table."""
    if options.exact == "others_lose":
        return "spot-on"
    if options.exact == "gain_die" and options.pass_rule == "none":
        return "calza"
    return "exact"


_IRREGULAR = {"is": "are", "has": "have", "goes": "go", "does": "do"}


def verb(subject: str, third_person: str) -> str:
    """`third_person` agreed with `subject`: "Ann bids" but "You bid"."""
    if subject.lower() != "you":
        return third_person
    if third_person in _IRREGULAR:
        return _IRREGULAR[third_person]
    if third_person.endswith(("sses", "shes", "ches", "xes")):
        return third_person[:-2]
    return third_person[:-1] if third_person.endswith("s") else third_person


def plural(count: int, one: str, many: str | None = None) -> str:
    """The count and the noun: 1 chip, 2 chips; 1 die, 3 dice (with `many` given)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def stop_message(stopped: str, who: str | None, moves: int) -> str:
    """What is said when a game ends before its result: why, and how far it got."""
    after = f"after {plural(moves, 'move')}" if moves else "before anyone moved"
    if stopped == "quit":
        return f"{who or 'A player'} quit the game {after}."
    if stopped == "the input ended":
        return f"The input ended, so the game stopped {after}."
    if stopped == "interrupted":
        return f"The game was interrupted (Ctrl-C) {after}."
    if stopped == "a bot failed":
        return f"A bot failed, so the game stopped {after}."
    return f"The game stopped {after} ({stopped})."


def whose(name: str) -> str:
    """The possessive: "Ann's", but "Your"."""
    return "Your" if name.lower() == "you" else f"{name}'s"


def says(subject: str, third_person: str, rest: str = "") -> str:
    """`subject verb rest`, the verb agreed with the subject."""
    return f"{subject} {verb(subject, third_person)}{' ' + rest if rest else ''}"


def challenge_word(options: Options) -> str:
    """What calling a lie is named at this table."""
    if options.economy is not None:
        return "accuse"
    if options.exact == "others_lose":
        return "call bluff"
    if options.exact == "gain_die" and options.pass_rule == "none":
        return "dudo"
    if options.challenge_mode == "siding_vote" or options.rounds == "single":
        return "liar"
    return "challenge"


def exact_effects(options: Options) -> tuple[str, str]:
    """What an exact does to the caller's side, if right and if wrong (addressed to the caller)."""
    if options.goal == "shedding":
        return "you shed a die", "everyone else sheds one"
    if options.exact == "others_lose":
        return "everyone else loses a die", "you lose one"
    return "you win a die back (up to your starting dice)", "you lose one"


def faces_text(faces: Sequence[int]) -> str:
    return " ".join(str(f) for f in faces) if faces else "-"


def bid_words(bid: Bid) -> str:
    """A bid as the browser writes it: "3 × 5s", "1 × 6"."""
    return f"{bid.quantity} × {bid.face}{'' if bid.quantity == 1 else 's'}"


def object_name(name: str) -> str:
    """A seat's name where it is the object of a verb: "you", not "You", mid-sentence."""
    return "you" if name == "You" else name


def describe_turn(turn: Turn, seats: Sequence[str], options: Options, bid_text: Callable[[Bid], str] = str) -> str:
    """A move in words; `bid_text` writes a bid (the terminal's "3x5" unless told)."""
    who = seats[turn.seat]
    a = turn.action
    if isinstance(a, BidAction):
        push = f", pushing {faces_text(a.push)}" if a.push else ""
        return says(who, "bids", f"{bid_text(a.bid)}{push}")
    if isinstance(a, Claim):
        parts = [says(who, "claims", bid_text(a.bid))]
        if a.raise_to is not None:
            parts.append(f"raising the bet to {a.raise_to}")
        if a.push:
            parts.append(f"pushing {faces_text(a.push)}")
        return ", ".join(parts)
    if isinstance(a, Pass):
        return says(who, "passes") + (f", pushing {faces_text(a.push)}" if a.push else "")
    if isinstance(a, Challenge):
        word = "calls" if options.exact == "others_lose" else "challenges"
        return says(who, word, object_name(seats[a.target]))
    if isinstance(a, Exact):
        return says(who, "calls", exact_word(options))
    if isinstance(a, Vote):
        return says(who, "believes" if a.believe else "doubts", "the bid")
    if isinstance(a, Accuse):
        return says(who, "accuses") + (f", raising the bet to {a.raise_to}" if a.raise_to is not None else "")
    if isinstance(a, AllIn):
        return says(who, "goes", "all-in and accuses" if who.lower() != "you" else "all-in and accuse")
    if isinstance(a, Fold):
        return says(who, "folds")
    return f"{who}: {format_action(a, seats)}"


def describe_outcome(
    outcome: RoundOutcome, seats: Sequence[str], options: Options, bid_text: Callable[[Bid], str] = str
) -> list[str]:
    """The reveal and its consequences, one line each; `bid_text` as in `describe_turn`."""
    lines: list[str] = []
    name = seats.__getitem__
    for seat in outcome.active:
        pushed = outcome.pushed[seat]
        extra = f"  (pushed {faces_text(pushed)})" if pushed else ""
        lines.append(f"  {name(seat):>10}: {faces_text(outcome.hands[seat])}{extra}")
    wild = None if outcome.one_die_round else options.wild
    if outcome.bid is not None and outcome.count is not None:
        f = outcome.bid.face
        counted = f"{f}s" + (f" (with wild {wild}s)" if wild is not None and f != wild else "")
        what = "claim" if options.economy is not None else "bid"
        lines.append(f"Counted {counted}: {outcome.count} against the {what} {bid_text(outcome.bid)}.")
    if outcome.kind == "challenge" and outcome.caller is not None and outcome.target is not None:
        if outcome.pass_valid is not None:
            verdict = "valid" if outcome.pass_valid else "not valid"
            lines.append(f"{whose(name(outcome.target))} pass was {verdict}.")
        else:
            verdict = "true" if outcome.claim_true else "a lie"
            lines.append(f"{whose(name(outcome.target))} bid was {verdict}.")
    elif outcome.kind == "exact" and outcome.caller is not None:
        lines.append(
            f"{whose(name(outcome.caller))} {exact_word(options)} "
            + ("hit: the count is exactly right." if outcome.exact_hit else "missed.")
        )
    elif outcome.kind == "accusation" and outcome.caller is not None and outcome.target is not None:
        verdict = "true" if outcome.claim_true else "a lie"
        lines.append(f"{whose(name(outcome.target))} claim was {verdict}.")
    elif outcome.kind == "folds" and outcome.target is not None:
        lines.append(f"Everyone else folded: {says(name(outcome.target), 'is', 'the last one in')}.")
    changes = []
    for seat in outcome.active:
        d = outcome.dice_after[seat] - outcome.dice_before[seat]
        if d:
            change = "gains" if d > 0 else ("sheds" if options.goal == "shedding" else "loses")
            changes.append(says(name(seat), change, plural(abs(d), "die", "dice")))
    if changes:
        lines.append("; ".join(changes) + ".")
    elif options.rounds != "single":
        lines.append("No dice change hands.")
    if outcome.out:
        if len(outcome.out) == 1:
            word = "finishes" if options.goal == "shedding" else "is"
            lines.append(says(name(outcome.out[0]), word, "" if options.goal == "shedding" else "out") + ".")
        else:
            word = "finish" if options.goal == "shedding" else "are out"
            lines.append(f"{' and '.join(name(s) for s in outcome.out)} {word}.")
    if outcome.pot is not None:
        taker = outcome.winner
        share = outcome.pot_share or 0
        rest = outcome.pot - share
        if outcome.pot == 0:
            lines.append("The pot was empty.")
        elif taker is not None:
            lines.append(f"Pot {outcome.pot}: {says(name(taker), 'takes', str(share))}, {rest} to the running pot.")
        lines.append(f"Running pot: {outcome.running_pot_after}.")
    return lines


def describe_result(result: GameResult, seats: Sequence[str]) -> list[str]:
    lines = []
    for group in result.ranking():
        place = result.places[group[0]]
        tie = " (shared)" if len(group) > 1 else ""
        lines.append(f"{place}. {', '.join(seats[s] for s in group)}{tie}")
    if result.returns is not None:
        lines.append("Returns: " + ", ".join(f"{seats[s]} {r:+g}" for s, r in enumerate(result.returns)))
    if result.running_pot_award is not None:
        seat, amount = result.running_pot_award
        lines.append(says(seats[seat], "takes", f"the running pot of {amount}."))
    if result.chips is not None:
        lines.append("Chips: " + ", ".join(f"{seats[s]} {c}" for s, c in enumerate(result.chips)))
    return lines
