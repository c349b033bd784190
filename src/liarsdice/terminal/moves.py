"""A seat's turn in words, computed from its view (no I/O): the moves it may make now, in a few
lines or every one of them, and the bet it has to meet."""

from __future__ import annotations

from ..rules import Action, BidAction, Challenge, Pass, PlayerView, Turn, format_action
from ..text import exact_effects, exact_word, faces_text, plural


def challenged_turn(view: PlayerView, target: int) -> Turn:
    """The action a challenge of `target` is about: the last action, or the one behind a pass."""
    history = view.history
    return history[-1] if history[-1].seat == target else history[-2]


def _what(turn: Turn) -> str:
    action = turn.action
    if isinstance(action, BidAction):
        return f"bid {action.bid}"
    if isinstance(action, Pass):
        return "pass"
    return format_action(action, ())


def _accusation(view: PlayerView) -> tuple[int, int] | None:
    """(accuser, accused) of the liar call now being voted on."""
    for turn in reversed(view.history):
        if isinstance(turn.action, Challenge):
            return turn.seat, turn.action.target
    return None


def _plain(action: Action) -> bool:
    """An action without a push or a raise."""
    return not getattr(action, "push", ()) and getattr(action, "raise_to", None) is None


def move_summary(view: PlayerView) -> list[str]:
    """The legal moves of the seat to act, in a few lines."""
    legal = view.legal
    if legal is None:
        return []
    seats = view.seats
    lines: list[str] = []
    if legal.voting:
        pair = _accusation(view)
        bid = view.standing_bid
        if pair is not None and bid is not None:
            accuser, accused = pair
            lines.append(
                f"vote: believe (side with {seats[accused]}: the bid {bid} is true) "
                f"or doubt (side with {seats[accuser]}: it is a lie)"
            )
        else:
            lines.append("vote: believe or doubt")
        return lines
    verb = "claim" if legal.economy else "bid"
    if legal.bids:
        # `bids` run lowest first, so the first of each face is its lowest, and listing them in
        # that order shows where each face enters the ladder (soar's 1x1 comes after 2x6)
        lowest: dict[int, str] = {}
        top = max(b.quantity for b in legal.bids)
        for bid in legal.bids:
            lowest.setdefault(bid.face, str(bid))
        first = legal.bids[0]
        if len(lowest) == 1:
            lines.append(f"{verb}: {first} or higher ({first.face}s only, at most {top})")
        else:
            each = ", ".join(lowest.values())
            cap = plural(top, "die", "dice")
            lines.append(f"{verb}: {first} or higher (the lowest on each face, lowest first: {each}; at most {cap})")
    if legal.can_pass:
        lines.append("pass: claim every die in your hand shows one face")
    if legal.pushes:
        most = max(len(p) for p in legal.pushes)
        example = f"{legal.bids[0]}" if legal.bids else "pass"
        lines.append(
            f"push: any {'die' if most == 1 else f'1 to {most} dice'} of your cup ({faces_text(sorted(view.cup))}) "
            f"with a {verb}{' or pass' if legal.can_pass else ''}, e.g. {example} push "
            + ",".join(map(str, legal.pushes[0]))
        )
    for target in legal.challenge_targets:
        lines.append(f"challenge {seats[target]}: call {seats[target]}'s {_what(challenged_turn(view, target))} a lie")
    if legal.can_exact and view.standing_bid is not None:
        o = view.options
        right, wrong = exact_effects(o)
        payoff = f"if right {right}, if wrong {wrong}"
        once = "; once per game" if o.exact_limit == "once_per_game" else ""
        lines.append(f"{exact_word(o)}: the bid {view.standing_bid} is exactly right ({payoff}{once})")
    if legal.raise_min is not None and legal.raise_max is not None:
        to = "a claim or accuse" if legal.can_accuse else "a claim"
        lines.append(f"raise: add 'raise N' to {to}, N from {legal.raise_min} to {legal.raise_max}")
    if legal.can_accuse and view.standing_bid is not None and view.standing_bidder is not None:
        lines.append(f"accuse: call {seats[view.standing_bidder]}'s claim {view.standing_bid} a lie")
    if legal.can_all_in and view.chips is not None and view.standing_bidder is not None:
        lines.append(
            f"all-in: bet all your {plural(view.chips[legal.seat], 'chip')} and accuse "
            f"{seats[view.standing_bidder]}'s claim {view.standing_bid}"
        )
    if legal.can_fold:
        keep = "you keep your dice" if view.options.goal == "shedding" else "you lose a die at its end"
        lines.append(f"fold: leave the round ({keep})")
    return lines


def every_move(view: PlayerView) -> list[str]:
    """Every legal move: the plain ones written out, then the pushes and raises any may carry."""
    legal = view.legal
    if legal is None:
        return []
    plain = [format_action(a, view.seats) for a in view.legal_actions if _plain(a)]
    lines = [f"{plural(len(view.legal_actions), 'legal move')}:"]
    row: list[str] = []
    for text in plain:
        row.append(text)
        if len(row) == 10:
            lines.append("  " + "  ".join(row))
            row = []
    if row:
        lines.append("  " + "  ".join(row))
    if legal.pushes:
        lines.append(
            "each bid"
            + (" or pass" if legal.can_pass else "")
            + " may also push one of: "
            + " | ".join(",".join(map(str, p)) for p in legal.pushes)
        )
    if legal.raise_min is not None and legal.raise_max is not None:
        lines.append(
            "each claim"
            + (" or accuse" if legal.can_accuse else "")
            + f" may also raise the bet to any amount from {legal.raise_min} to {legal.raise_max}"
        )
    return lines


def bet_status(view: PlayerView) -> str:
    """The bet as it stands for the seat to act: meeting it is not a move of its own but
    what a claim or an accusation pays first."""
    legal = view.legal
    seat = view.seat
    chips = view.chips[seat] if view.chips is not None and seat is not None else 0
    bet = f"The bet is {view.current_bet}; you hold {plural(chips, 'chip')}"
    if legal is None or legal.voting:
        return bet + "."
    owed = legal.owed or 0
    if not owed:
        return bet + " and have met it."
    if legal.can_meet:
        return bet + f" and owe {owed}: your claim or accusation pays it first."
    return bet + f" and owe {owed}, more than you hold: go all-in or fold."
