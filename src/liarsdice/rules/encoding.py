"""Dense integer actions, fixed-size observations and returns: what research tools need.

OpenSpiel and PettingZoo/Gymnasium want every action of a game to be an integer below a bound
fixed by the game's parameters, and every observation a vector of fixed length. `Encoding`
gives both for any options: the OpenSpiel adapter (`liarsdice.openspiel`) and the PettingZoo and
Gymnasium ones (`liarsdice.pettingzoo`, `liarsdice.gym`) use it, so one id means one move in all.

Action ids, block after block (a block is absent when the options leave it out):

    bid            B     BidAction(bid) (Claim(bid) in an economy game), bids in ladder order
    challenge      1     challenge the most recent action (absent in an economy game)
    challenge_back 1     challenge the action before it, through a pass (pass != none)
    exact          1     exact / spot-on / calza (exact != none)
    pass           1     pass without a push (pass != none)
    bid_push       B*(P-1)  bid b with push p: base + b*(P-1) + (p-1) (push on)
    pass_push      P-1   pass with push p: base + (p-1) (push and pass)
    vote           2     believe, doubt (challenge_mode = siding_vote)
    accuse         1     accuse without a raise (economy)
    all_in         1     (economy)
    fold           1     (economy)
    accuse_raise   T     Accuse(raise_to=r), r = 1..T: base + r-1 (economy)
    claim_raise    B*T*P Claim(bid b, raise_to r, push p): base + (b*T + r-1)*P + p (economy)

B is the number of bids of a normal round at the full table: quantities 1 to the most dice the
table can hold (every seat at `max_dice`) times the faces, numbered as `rules.fast` numbers them
(the bid ladder, lowest first). For the `openspiel` preset these are OpenSpiel's `liars_dice`
ids exactly: `(q-1)*F + (f-1)` (`reset-face`) or `(f-1)*Q + (q-1)` (`reset-quantity`), then
"Liar" = Q*F. In a one-die round the wild face is not wild and raises follow the plain order,
so an id keeps its bid but ids no longer ascend with the raises.

A push is a multiset of faces of 1 to D-1 dice (D = the largest `max_dice` of any seat: one die
stays under the cup); P-1 is the number of such multisets, numbered shortest first, then by
faces (`pushes()`), and push index 0 means no push. T is every chip in the game
(`num_players * starting_chips`): chips are conserved, so no bet can rise above it.

Returns: a single-round game gives the engine's returns (+1 to the winner of the check, -1 to
its loser, 0 to others). A longer game is scored by places: the k-th of N positions is worth
1 - 2(k-1)/(N-1), from +1 for first to -1 for last, seats sharing a place share the average of
the positions they fill; so returns always sum to zero.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from .actions import Accuse, Action, AllIn, BidAction, Challenge, Claim, Exact, Fold, Pass, Vote
from .bids import Bid, BidLadder, ladder
from .events import Turn
from .options import Options
from .views import PlayerView

# Rounds allowed when nothing bounds a game's length: an exact that gains a die, unlimited
# (Perudo's calza), can undo any loss, so the game has no finite bound of its own.
ROUNDS_PER_DIE = 10


class EncodingError(ValueError):
    """An id that names no action of this game, or an action the encoding cannot number."""


@dataclass(frozen=True)
class _Block:
    name: str
    start: int
    size: int


def pushes(faces: int, most: int) -> tuple[tuple[int, ...], ...]:
    """Every push of 1 to `most` dice, as sorted faces, shortest first, then by faces."""
    out: list[tuple[int, ...]] = []
    for k in range(1, most + 1):
        out.extend(itertools.combinations_with_replacement(range(1, faces + 1), k))
    return tuple(out)


class Encoding:
    """The dense action ids and the observation vectors of one set of options."""

    def __init__(self, options: Options) -> None:
        o = options
        n = o.num_players
        self.options = o
        self.num_players = n
        self.faces = o.faces
        self.max_cup = max(o.dice_cap(s) for s in range(n))
        self.max_total = sum(o.dice_cap(s) for s in range(n))
        self.ladder: BidLadder = ladder(o.faces, o.wild, o.wild_bid_rule, o.bid_order, self.max_total)
        self.num_bids = len(self.ladder.bids)
        self.pushes: tuple[tuple[int, ...], ...] = pushes(o.faces, self.max_cup - 1) if o.push else ()
        self.push_index = {p: i + 1 for i, p in enumerate(self.pushes)}
        self.chips_total = n * o.economy.starting_chips if o.economy is not None else 0
        economy = o.economy is not None
        B, P, T = self.num_bids, len(self.pushes) + 1, self.chips_total
        sizes = [
            ("bid", B),
            ("challenge", 0 if economy else 1),
            ("challenge_back", 1 if o.pass_rule != "none" else 0),
            ("exact", 1 if o.exact != "none" else 0),
            ("pass", 1 if o.pass_rule != "none" else 0),
            ("bid_push", B * (P - 1)),
            ("pass_push", P - 1 if o.pass_rule != "none" else 0),
            ("vote", 2 if o.challenge_mode == "siding_vote" else 0),
            ("accuse", 1 if economy else 0),
            ("all_in", 1 if economy else 0),
            ("fold", 1 if economy else 0),
            ("accuse_raise", T if economy else 0),
            ("claim_raise", B * T * P if economy else 0),
        ]
        blocks: dict[str, _Block] = {}
        start = 0
        for name, size in sizes:
            blocks[name] = _Block(name, start, size)
            start += size
        self.blocks = blocks
        self.num_distinct_actions = start

    def __repr__(self) -> str:
        used = ", ".join(f"{b.name} {b.start}..{b.start + b.size - 1}" for b in self.blocks.values() if b.size)
        return f"<Encoding {self.num_distinct_actions} actions: {used}>"

    # ----- actions -----

    def _start(self, name: str) -> int:
        block = self.blocks[name]
        if not block.size:
            raise EncodingError(f"this game has no {name.replace('_', ' ')} actions")
        return block.start

    def _bid(self, bid: Bid) -> int:
        i = self.ladder.index.get(bid)
        if i is None:
            raise EncodingError(
                f"{bid} is not numbered: bids run from 1 to {self.max_total} dice and faces 1 to {self.faces}"
            )
        return i

    def _push(self, push: tuple[int, ...]) -> int:
        if not push:
            return 0
        i = self.push_index.get(push)
        if i is None:
            raise EncodingError(
                f"push {','.join(map(str, push))} is not numbered: a push is 1 to {self.max_cup - 1} dice"
                + ("" if self.pushes else " (this game has no push)")
            )
        return i

    def encode(self, action: Action, history: Sequence[Turn] = ()) -> int:
        """The id of `action`. A challenge needs the round's `history` to tell its target."""
        if isinstance(action, BidAction):
            b, p = self._bid(action.bid), self._push(action.push)
            if self.options.economy is not None:
                raise EncodingError("an economy game bids with claims (Claim), not BidAction")
            return b if p == 0 else self._start("bid_push") + b * len(self.pushes) + p - 1
        if isinstance(action, Claim):
            if self.options.economy is None:
                raise EncodingError("claims belong to economy games: bid with BidAction")
            b, p = self._bid(action.bid), self._push(action.push)
            if action.raise_to is None:
                return b if p == 0 else self._start("bid_push") + b * len(self.pushes) + p - 1
            r = self._raise(action.raise_to)
            return self._start("claim_raise") + (b * self.chips_total + r - 1) * (len(self.pushes) + 1) + p
        if isinstance(action, Pass):
            p = self._push(action.push)
            return self._start("pass") if p == 0 else self._start("pass_push") + p - 1
        if isinstance(action, Challenge):
            if history and history[-1].seat == action.target:
                return self._start("challenge")
            if len(history) >= 2 and history[-2].seat == action.target:
                return self._start("challenge_back")
            raise EncodingError(f"seat {action.target} made neither of the last two actions of the round")
        if isinstance(action, Exact):
            return self._start("exact")
        if isinstance(action, Vote):
            return self._start("vote") + (0 if action.believe else 1)
        if isinstance(action, Accuse):
            if action.raise_to is None:
                return self._start("accuse")
            return self._start("accuse_raise") + self._raise(action.raise_to) - 1
        if isinstance(action, AllIn):
            return self._start("all_in")
        if isinstance(action, Fold):
            return self._start("fold")
        raise EncodingError(f"{action!r} is not a player's action")

    def _raise(self, raise_to: int) -> int:
        if not 1 <= raise_to <= self.chips_total:
            raise EncodingError(f"a raise to {raise_to} is not numbered: raises run from 1 to {self.chips_total}")
        return raise_to

    def decode(self, action_id: int, history: Sequence[Turn] = ()) -> Action:
        """The action with id `action_id`. A challenge needs the round's `history` for its target."""
        for block in self.blocks.values():
            if block.start <= action_id < block.start + block.size:
                return self._decode(block.name, action_id - block.start, history)
        raise EncodingError(f"{action_id} is not an action id: ids run from 0 to {self.num_distinct_actions - 1}")

    def _decode(self, name: str, k: int, history: Sequence[Turn]) -> Action:
        economy = self.options.economy is not None
        bids = self.ladder.bids
        P = len(self.pushes) + 1
        if name == "bid":
            return Claim(bids[k]) if economy else BidAction(bids[k])
        if name in ("challenge", "challenge_back"):
            back = 1 if name == "challenge" else 2
            if len(history) < back:
                raise EncodingError(f"{name.replace('_', ' ')} needs {back} action(s) this round to target")
            return Challenge(history[-back].seat)
        if name == "exact":
            return Exact()
        if name == "pass":
            return Pass()
        if name == "bid_push":
            bid, push = bids[k // (P - 1)], self.pushes[k % (P - 1)]
            return Claim(bid, None, push) if economy else BidAction(bid, push)
        if name == "pass_push":
            return Pass(self.pushes[k])
        if name == "vote":
            return Vote(k == 0)
        if name == "accuse":
            return Accuse()
        if name == "all_in":
            return AllIn()
        if name == "fold":
            return Fold()
        if name == "accuse_raise":
            return Accuse(k + 1)
        b, rest = divmod(k, self.chips_total * P)
        r, p = divmod(rest, P)
        return Claim(bids[b], r + 1, self.pushes[p - 1] if p else ())

    def legal_ids(self, legal: Sequence[Action], history: Sequence[Turn]) -> list[int]:
        """The ids of `legal` (a state's `legal_actions()`), ascending."""
        return sorted(self.encode(a, history) for a in legal)

    def describe(self, action_id: int, history: Sequence[Turn] = ()) -> str:
        """The move in words, e.g. `3x5`, `3x5 push 5,5`, `challenge`, `challenge back`."""
        for block in self.blocks.values():
            if block.start <= action_id < block.start + block.size:
                if block.name in ("challenge", "challenge_back") and len(history) < (
                    1 if block.name == "challenge" else 2
                ):
                    return block.name.replace("_", " ")
                return _words(self._decode(block.name, action_id - block.start, history))
        raise EncodingError(f"{action_id} is not an action id: ids run from 0 to {self.num_distinct_actions - 1}")

    # ----- bounds -----

    @cached_property
    def max_round_actions(self) -> int:
        """The most player actions one round can take.

        Every bid (claim) raises the last; a seat passes at most once per set of dice, and each
        of its pushes (at most D-1: one die stays under the cup) gives it a new set; a vote or a
        fold at most once per seat; one action ends the round."""
        o = self.options
        n = self.num_players
        passes = n * self.max_cup if o.pass_rule != "none" else 0
        votes = n if o.challenge_mode == "siding_vote" else 0
        folds = n if o.economy is not None else 0
        return self.num_bids + passes + votes + folds + 1

    @cached_property
    def max_round_chance_nodes(self) -> int:
        """Chance nodes of one round, one die per node: a starter draw, the roll, the rerolls."""
        rerolls = self.num_players * (self.max_cup - 1) * self.max_cup if self.options.push else 0
        return 1 + self.max_total + rerolls

    def natural_rounds(self) -> int | None:
        """The most rounds a game can last, or None when nothing bounds it.

        Every round costs some seat a die except an exact that gains one; once per game those are
        at most one per seat (and each gained die is one more to lose)."""
        o = self.options
        if o.rounds == "single":
            return 1
        start = sum(o.starting_dice(s) for s in range(self.num_players))
        if o.exact != "gain_die":
            return start
        if o.exact_limit == "once_per_game":
            return start + 2 * self.num_players
        return None

    def rounds_bound(self, max_rounds: int = 0) -> int:
        """The rounds a game may last: `max_rounds` when given (> 0) and lower, else the natural
        bound, else ROUNDS_PER_DIE rounds per starting die."""
        natural = self.natural_rounds()
        start = sum(self.options.starting_dice(s) for s in range(self.num_players))
        bound = natural if natural is not None else ROUNDS_PER_DIE * start
        return min(bound, max_rounds) if max_rounds > 0 else bound

    # ----- returns -----

    def returns(self, places: Sequence[int], single: Sequence[float] | None = None) -> list[float]:
        """Zero-sum returns: `single` (a single-round game's) when given, else by `places`."""
        if single is not None:
            return [float(x) for x in single]
        n = len(places)
        out = []
        for p in places:
            shared = sum(1 for q in places if q == p)
            position = p + (shared - 1) / 2
            out.append(1.0 - 2.0 * (position - 1) / (n - 1))
        return out

    def provisional_places(self, dice: Sequence[int], out_round: Sequence[int | None]) -> list[int]:
        """Places of a game stopped before its end: seats out keep the engine's order (by the
        round they went out), seats still in rank by dice (more is better under elimination,
        fewer under shedding), ahead of (elimination) or behind (shedding) every seat out."""
        shedding = self.options.goal == "shedding"
        big = 1 << 30
        keys: list[float] = []
        for d, r in zip(dice, out_round, strict=True):
            if r is None:
                keys.append(big + d if shedding else -big - d)
            else:
                keys.append(r if shedding else -r)
        return [1 + sum(1 for k in keys if k < mine) for mine in keys]

    # ----- observations -----

    @cached_property
    def observation_size(self) -> int:
        n, f, b = self.num_players, self.faces, self.num_bids
        size = 2 * n + 4  # seat, to act, phase
        size += f * (self.max_cup + 1)  # own cup: how many of each face, one-hot
        size += n * f  # pushed dice of each seat
        size += 6 * n  # dice held, active, passed, exact used, special done, folded
        size += 2  # one-die round, wild active
        size += b + 1 + n  # standing bid (or none), its bidder
        size += n * b  # each seat's last bid this round
        size += 2 * n + n  # votes cast (believe, doubt), voters still to vote
        size += f  # the last reveal: dice of each face
        if self.options.economy is not None:
            size += 2 * n + 4  # chips, paid; round pot, running pot, bet, owed by the viewer
        return size

    @cached_property
    def action_feature_size(self) -> int:
        return self.num_players + len(_KINDS) + self.num_bids + self.faces + 1

    @cached_property
    def information_state_size(self) -> int:
        return self.observation_size + self.max_round_actions * self.action_feature_size

    def observation(self, view: PlayerView) -> list[float]:
        """What `view`'s seat sees now, as numbers in [0, 1] (length `observation_size`).

        Built from the view alone, so it holds no other seat's cup."""
        o = self.options
        n, f, b = self.num_players, self.faces, self.num_bids
        out: list[float] = []
        out += _one_hot(view.seat, n)
        out += _one_hot(view.to_act, n)
        out += _one_hot(_PHASES.get(view.phase, 3), 4)
        cap = self.max_cup
        for face in range(1, f + 1):
            out += _one_hot(min(view.cup.count(face), cap), cap + 1)
        for seat in range(n):
            pushed = view.pushed[seat] if seat < len(view.pushed) else ()
            out += [pushed.count(face) / cap for face in range(1, f + 1)]
        out += [d / cap for d in view.dice]
        out += [1.0 if a else 0.0 for a in view.active]
        out += [1.0 if x else 0.0 for x in view.passed]
        out += [1.0 if x else 0.0 for x in view.exact_used]
        out += [1.0 if x else 0.0 for x in view.special_done]
        out += [1.0 if x else 0.0 for x in view.folded]
        out += [1.0 if view.one_die_round else 0.0, 1.0 if view.wild is not None else 0.0]
        standing = self.ladder.index.get(view.standing_bid) if view.standing_bid is not None else None
        out += _one_hot(b if standing is None else standing, b + 1)
        out += _one_hot(view.standing_bidder, n)
        last = [-1] * n
        votes = [0.0] * (2 * n)
        for turn in view.history:
            bid = getattr(turn.action, "bid", None)
            if bid is not None:
                last[turn.seat] = self.ladder.index.get(bid, -1)
            if isinstance(turn.action, Vote):
                votes[2 * turn.seat + (0 if turn.action.believe else 1)] = 1.0
        for i in last:
            out += _one_hot(i if i >= 0 else None, b)
        out += votes
        out += [1.0 if s in view.voters_left else 0.0 for s in range(n)]
        reveal = view.last_outcome.hands if view.last_outcome is not None else ()
        shown = [d for hand in reveal for d in hand]
        out += [shown.count(face) / self.max_total for face in range(1, f + 1)]
        if o.economy is not None:
            total = max(self.chips_total, 1)
            chips = view.chips or (0,) * n
            paid = view.paid or (0,) * n
            out += [c / total for c in chips]
            out += [p / total for p in paid]
            owed = 0
            if view.legal is not None and view.legal.owed is not None:
                owed = view.legal.owed
            out += [min(1.0, x / total) for x in (view.round_pot or 0, view.running_pot or 0, view.current_bet or 0)]
            out.append(min(1.0, owed / total))
        return out

    def action_features(self, turn: Turn) -> list[float]:
        """One public action as numbers: its seat, its kind, its bid, its push, its raise."""
        a = turn.action
        kind = _kind(a)
        bid = getattr(a, "bid", None)
        push: tuple[int, ...] = getattr(a, "push", ())
        raise_to = getattr(a, "raise_to", None)
        out = _one_hot(turn.seat, self.num_players) + _one_hot(_KINDS.index(kind), len(_KINDS))
        out += _one_hot(self.ladder.index.get(bid) if bid is not None else None, self.num_bids)
        out += [push.count(face) / self.max_cup for face in range(1, self.faces + 1)]
        out.append(min(1.0, raise_to / self.chips_total) if raise_to and self.chips_total else 0.0)
        return out

    def information_state(self, view: PlayerView) -> list[float]:
        """The observation followed by this round's public actions in order, one slot each
        (length `information_state_size`): perfect recall within the round."""
        out = self.observation(view)
        for turn in view.history[: self.max_round_actions]:
            out += self.action_features(turn)
        out += [0.0] * (self.information_state_size - len(out))
        return out


_PHASES = {"turn": 0, "vote": 1, "over": 2}
_KINDS = ("bid", "pass", "challenge", "exact", "believe", "doubt", "claim", "accuse", "all_in", "fold")


def _kind(action: Action) -> str:
    if isinstance(action, Vote):
        return "believe" if action.believe else "doubt"
    return {
        BidAction: "bid",
        Pass: "pass",
        Challenge: "challenge",
        Exact: "exact",
        Claim: "claim",
        Accuse: "accuse",
        AllIn: "all_in",
        Fold: "fold",
    }[type(action)]


def _one_hot(i: int | None, n: int) -> list[float]:
    out = [0.0] * n
    if i is not None and 0 <= i < n:
        out[i] = 1.0
    return out


def _words(action: Action) -> str:
    push = getattr(action, "push", ())
    tail = f" push {','.join(map(str, push))}" if push else ""
    if isinstance(action, BidAction):
        return f"{action.bid}{tail}"
    if isinstance(action, Claim):
        raised = f" raise {action.raise_to}" if action.raise_to is not None else ""
        return f"{action.bid}{raised}{tail}"
    if isinstance(action, Pass):
        return f"pass{tail}"
    if isinstance(action, Challenge):
        return f"challenge P{action.target}"
    if isinstance(action, Exact):
        return "exact"
    if isinstance(action, Vote):
        return "believe" if action.believe else "doubt"
    if isinstance(action, Accuse):
        return "accuse" + (f" raise {action.raise_to}" if action.raise_to is not None else "")
    if isinstance(action, AllIn):
        return "all-in"
    return "fold"
