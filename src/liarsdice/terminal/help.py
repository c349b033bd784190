"""What `help` shows at a person's turn: the rules of this table in a few lines, its moves as they
are typed, and the commands besides moves."""

from __future__ import annotations

from ..rules import Options, OptionsError, find_preset, ladder
from ..text import challenge_word, exact_effects, exact_word, plural

COMMANDS: tuple[str, ...] = (
    "help                these rules and the move syntax",
    "moves               every legal move right now",
    "look                the table again",
    "odds                show or hide the odds: how likely the standing bid and your next bids are to hold",
    "hint (h)            what would the best bot do? its move or mix, and what each move is worth",
    "quit                stop the game (the record of the game so far is still written)",
)


def move_syntax(options: Options, target: str = "NAME") -> list[tuple[str, str]]:
    """The moves of this table as (what to type, what it does), for `help`: each text is typed
    exactly as shown, and a move the table does not have is not shown. `target` names a seat in
    the example of a challenge with a target."""
    o = options
    lines: list[tuple[str, str]] = []
    if o.economy is not None:
        lines.append(("3x5", "claim three fives: at least three dice show 5"))
        if o.push:
            lines.append(("3x5 push 5,5", "claim and push two fives out of your cup (the rest of it is rerolled)"))
        fold = "you keep your dice" if o.goal == "shedding" else "you lose a die at its end"
        lines += [
            ("3x5 raise 4", "claim and raise the bet to 4 chips"),
            ("accuse", "call the standing claim a lie"),
            ("accuse raise 4", "raise the bet to 4 chips and accuse"),
            ("all-in", "bet every chip you hold and accuse (only when you cannot meet the bet)"),
            ("fold", f"leave the round; {fold}"),
        ]
        return lines
    lines.append(("3x5", "bid three fives: at least three dice show 5"))
    if o.push:
        lines.append(("3x5 push 5,5", "bid and push two fives out of your cup (the rest of it is rerolled)"))
    if o.pass_rule != "none":
        lines.append(("pass", "claim every die in your hand shows one face"))
        if o.push:
            lines.append(("pass push 2,2", "pass and push two of your dice"))
    word = challenge_word(o)
    also = f" (also {word})" if word != "challenge" else ""
    then = "; every other player then votes" if o.challenge_mode == "siding_vote" else ""
    lines.append(("challenge", f"call the last bid a lie{also}{then}"))
    if o.pass_rule != "none":
        lines.append((f"challenge {target}", "call that player's last bid or pass a lie (the one behind a pass)"))
    if o.exact != "none":
        word = exact_word(o)
        lines.append((word, "say the bid is exactly right" + (" (also exact)" if word != "exact" else "")))
    if o.challenge_mode == "siding_vote":
        lines += [
            ("believe", "your vote after a liar call: the bid is true"),
            ("doubt", "your vote after a liar call: the bid is a lie"),
        ]
    return lines


def rules_summary(preset: str, options: Options, one_die_round: bool = False) -> list[str]:
    """The rules of this table in a few lines, for `help`."""
    o = options
    lines: list[str] = []
    try:
        p = find_preset(preset)
        lines.append(f"{p.title}: {p.description}")
    except OptionsError:
        lines.append(f"Custom rules ({preset}).")
    d = o.dice_per_player
    dice = plural(d, "die", "dice") if isinstance(d, int) else "/".join(map(str, d)) + " dice"
    lines.append(f"{o.num_players} players, {dice} each, dice with faces 1 to {o.faces}.")
    wild = o.wild
    if wild is None:
        lines.append("Nothing is wild: a bid on a face counts only dice showing it.")
    else:
        lines.append(f"{wild}s are wild: they count toward every other face; a bid on {wild}s counts only {wild}s.")
        if not o.wild_opening:
            lines.append(f"A round may not open on {wild}s.")
    round_wild = None if one_die_round else wild
    rule = "plain" if one_die_round else o.wild_bid_rule
    order = ladder(o.faces, round_wild, rule, o.bid_order, 1).describe_order()
    lines.append(f"Raising: {order}.")
    if o.max_quantity == "dice_in_play":
        lines.append("No bid may claim more dice than are in play.")
    if o.economy is not None:
        e = o.economy
        start = "the round number" if e.min_bet == "round_number" else plural(e.min_bet, "chip")
        lines.append(
            f"Chips: everyone starts with {e.starting_chips}. Each round the bet starts at {start}; on your turn "
            "meet it (pay up to it), then claim higher or accuse the last claim; you may raise the bet. "
            "If you cannot meet it you may go all-in and accuse; you may always fold (and lose a die)."
        )
        lines.append(
            "The winner of an accusation takes half the round's pot, the rest goes to the running pot, "
            "which the last player with dice takes."
        )
        if not e.folded_dice_count:
            lines.append("Folded players' dice do not count.")
    elif o.challenge_mode == "siding_vote":
        lines.append(
            "Challenge the last bid when you think it is a lie; every other player then votes believe or doubt."
        )
    else:
        through = " (through one pass)" if o.pass_rule != "none" else ""
        lines.append(f"Challenge the last bid{through} when you think it is a lie; the wrong one loses a die.")
    if o.goal == "shedding":
        lines.append("Everyone on the correct side sheds a die. The first to empty their cup wins.")
    elif o.rounds == "single":
        lines.append("One round decides the game: the winner of the challenge scores +1, the loser -1.")
    else:
        lines.append("The last player holding dice wins.")
    if o.exact != "none":
        word = exact_word(o)
        right, wrong = exact_effects(o)
        once = " Once per game for each player." if o.exact_limit == "once_per_game" else ""
        lines.append(f"{word.capitalize()}: say the bid is exactly right; if so {right}, if not {wrong}.{once}")
    if o.pass_rule != "none":
        lines.append(
            "Pass: claim every die in your hand shows one face (ones are not wild for this); "
            "needs two dice, once per set of dice."
        )
    if o.push:
        lines.append(
            "Push: with a bid or pass, show some cup dice and reroll the rest; at least one die stays under the cup."
        )
    if o.one_die_round is not None:
        odr = o.one_die_round
        who = "only players holding one die may" if odr.face_change == "one_die_players" else "nobody may"
        exact_note = "" if odr.exact_allowed or o.exact == "none" else f" No {exact_word(o)} in it."
        lines.append(
            f"One-die round: the first time a player drops to one die (with {odr.min_players} or more players left), "
            f"nothing is wild the next round and {who} change the face of the bid.{exact_note}"
        )
    return lines
