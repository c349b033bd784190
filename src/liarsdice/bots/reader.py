"""The reader: Expert's play, with the other cups read by a model of each player, learnt from the
reveals.

Expert reads a cup from its owner's bids by a generic model of bidding (`strong_belief.beliefs`:
a bidder likes the faces its hand makes likely). A player whose bids follow a known policy gives
far more away: asked for every hand it may hold, that policy says how likely each hand made each
of its moves, and Bayes' rule then finds its cup almost exactly. Played against Expert itself
this way (its own policy as the model), a local best response wins most rounds (docs/exploit.md).

The reader keeps, for every other seat, how well that seat's play fits the model, from the
moves shown at the reveals (`bots/reader_trust.py`: `misfit`, and where Expert would mix an
equilibrium into a duel, `evidence` that the rounds are Expert's rather than that equilibrium's
alone). Its belief over a cup is the two readings mixed: the model's with weight 1 - 2 misfit,
Expert's generic one with the rest. A seat that plays like the model is soon read by it; one
that does not (a person, another program) is read as Expert reads it, so the reader plays as
Expert does against it.

The model is Expert's own policy: at each earlier turn of the round it is asked the chance of
the move the seat made, for the likeliest hands of the seat (`StrongBot.hand_chances`, every
hand at once). A decision adds at most ASK_BUDGET's worth of hands to those read so far this
round, the likeliest first, so its time stays bounded; a hand not yet read at a move takes
Expert's generic reading of that move, scaled to the model's chance of it among the hands read.
Which hands are read depends on the round alone, so a seeded game plays the same in every
process; the answers are also kept for the whole process (the first moves of a round recur from
game to game), which only saves time. Where Expert would play the round by an equilibrium with
chance DUEL_SHARE (a heads-up round whose equilibrium is at hand), each hand is also weighed by
that equilibrium's chance of the moves, read for every hand at once (`bots/reader_mixture.py`),
and the two readings are mixed by how likely each made the moves, as Expert weighs its own two
at its turns. Read by the model alone, a bid the equilibrium makes from a cup and Expert's own
play never does all but ruled that cup out, in the rounds (6 of 10) Expert played by the
equilibrium (Master against Expert in `classic`, 6,000 games: 0.506 read so, 0.521 with both).
Rounds with a push (Soar), where the pushing cup is rolled again, and one-die rounds (Perudo's
palifico), whose positions the public facts alone do not set up again, are read as Expert reads
them. In Soar the model is asked as if it could not push (READ_PUSH): scoring each hand's
pushes took three quarters of a read, and in a round without a push a push only says which
hands would not have made the move read. It weighs its pass (READ_PASS): asked about a pass
without it, the model finds every pass surprising.

In a duel against a player the reveals say it may trust (`Trust.trusts`; Master hands the duel
to the reader then), the reader plays Expert's own play, without the equilibrium Expert
mixes in (`hides_in_duel`): that mixing hides Expert's cup from a reader, and this player reads
nothing; against anyone else it mixes it in as Expert does.

The next player's turn is set by the moves made so far: once the reader (or Master, in the duel
it plays from a strategy) has moved, and after each move of another player where it is told of
each step (`observe`; a round from its start, `start` having given it the game), the model's
answers there, for every move and every hand of that player, are worked out in the background
while the others think (`bots/pondering.py`, `foresee`), and kept with the rest. The decision
that reads that player's move, and the check of it after the reveal, then find them kept: the
same answers, sooner. Each decision first waits for that work to end.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict, deque
from collections.abc import Hashable, Sequence
from dataclasses import replace
from functools import partial

import numpy as np

from ..rules import Action, BidAction, Game, OwnHandRolled, Pass, PlayerView, RoundStarted, SetupError, Turn
from .base import Limit
from .pondering import Pondering
from .reader_mixture import equilibrium_chance, equilibrium_column, mixed, mixes_in
from .reader_trust import FLOOR, Trust, checkable
from .strong import StrongBot, new_game
from .strong_belief import Floats, Round, beliefs, move_likelihoods
from .strong_counts import Ints, hand_faces, hand_numbers, hand_space
from .strong_duel import as_seat, earlier_view, earlier_views, game_of

# The model's reading weighs 1 - MISFIT_SCALE * misfit in the belief over a cup (none from a
# misfit of 0.5 up), Expert's generic reading the rest.
MISFIT_SCALE = 2.0
# The model is asked about the likeliest hands after the move (by Expert's generic reading of
# it) that hold all but this share of the weight; the rest take Expert's reading of the move
# (asking the model is most of a decision's time, and after a move or two of a player it fits,
# few hands are left worth asking about).
NEGLIGIBLE = 1e-3
# At most this many hands are asked about at one move (a cup of 5 dice has 252): the likeliest.
MAX_ASKED = 96
# What one decision may add to the hands read at one player's moves this round, in hands, the
# likeliest first; the next decision of the round reads on. It bounds a decision's time. Reading
# fewer than MAX_ASKED at a new move cost games: heads-up Perudo against the reference, 200
# games, 0.975 with 120 and 0.83 with 72 (docs/strength.md).
ASK_BUDGET = 120
# What asking the model at one more position costs besides its hands, in hands: setting the
# position up and the model's look at the next player's answers (about 2.5 ms, a hand 0.05 ms).
POSITION_COST = 24
# The moves shown at a reveal are checked against the model, up to CHECKS_AT_A_DECISION at each
# decision after it (a check asks the model at one more position, about 1 ms), the oldest first;
# at most CHECKS_KEPT wait, the oldest dropped (a table of six shows more moves than the reader
# has decisions). Heads-up, CHECKS_HEADS_UP: the duel goes to the reader once the checks trust
# the opponent, and three a decision bring that a round sooner (against the reference, 1,000
# games: Perudo 0.809 with 3, 0.764 with 1, 0.805 with every check at once; no slower at p99).
# At six seats three a decision won 59 of 200 games, one 69 (docs/strength.md).
CHECKS_AT_A_DECISION = 1
CHECKS_HEADS_UP = 3
CHECKS_KEPT = 24
# Whether the model weighs its pass and its pushes when asked about a move (Soar). A move read is
# never a push (a round with one is not read); a push only makes the moves read less likely from
# the hands whose best move it is. Scoring every hand's pushes is most of the time of a Soar read
# (the belief after a move moved by 0.1 of its weight at one position in ten): left out. The
# pass's look-ahead costs a sixth of it, and without it a pass is a move the model never makes:
# every pass shown at a reveal surprised it (misfit), and a pass read told nothing.
READ_PASS = True
READ_PUSH = False
# The model's answers kept for the whole process: the latest moves asked about, each with the
# chances of every hand asked (a move foreseen keeps a row for each move the model weighs there,
# some 20 to 60).
KEPT_MOVES = 12_000
# Whether the reader foresees the next player's turn on the others' time (module docstring).
PONDER = True
# The next player's turn is foreseen for cups of up to this many hands (5 dice of 6 faces): every
# hand at once, about 5 ms in the background.
FORESEEN_HANDS = 252

PositionKey = tuple[object, ...]


class KeptChances:
    """The model's chance of moves made, per hand (`hand_space` order, NaN: not asked yet), kept
    for the latest `size` moves asked about. The server's bots act in threads: the table of moves
    is locked; a row is only ever filled in, each entry once with the same number by anyone."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, Floats] = OrderedDict()
        self._lock = threading.Lock()

    def row(self, key: Hashable, hands: int) -> Floats:
        """The chances kept of the move `key` (its position and itself), one entry a hand."""
        with self._lock:
            got = self._kept.get(key)
            if got is None or len(got) != hands:
                got = self._kept[key] = np.full(hands, np.nan)
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
            return got

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # A bot sent to another process keeps the table of that process, or a fresh one of its own.
        return (_process_answers, ()) if self is ANSWERS else (KeptChances, (self.size,))


ANSWERS = KeptChances(KEPT_MOVES)  # the model's chance of each move made, per hand, for the process


def _process_answers() -> KeptChances:
    return ANSWERS


def _position(view: PlayerView, seat: int, turn: int) -> PositionKey:
    """What the model's policy for `seat` at its turn after the first `turn` actions of the round
    depends on, besides its hand (the round's number only where chips make it count)."""
    return (
        view.options,
        seat,
        view.dice,
        view.starter,
        view.round_no if view.options.economy is not None else None,
        view.chips,
        view.history[:turn],
    )


class ReaderBot(StrongBot):
    level = "reader"
    description = "plays as Expert does, reading each other player by a model of Expert's play where its reveals fit"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model = StrongBot(seed)  # asked for its policy only: its learning stays at the prior
        self.trust = Trust()  # what the reveals taught of each other seat
        self._seen: PlayerView | None = None  # the last view of ours, for the reveal after it
        self.ask_budget: int | None = ASK_BUDGET  # None: every hand worth asking, at once (analysis)
        self._budget = 0  # hands still to be added for the player being read
        # this round's moves read: the model's chance of each from each hand read (`hand_space`
        # order, NaN: not read), how many legal moves there were, and the mover's view then (with
        # one of its hands: the model asks it for every hand)
        self._read: dict[PositionKey, tuple[Floats, int, PlayerView]] = {}
        # this round's moves read from the equilibrium Expert mixes in: its chance of each from
        # every hand (NaN: none there, Expert plays its own), None where it has no answer at all
        self._read_equilibrium: dict[PositionKey, Floats | None] = {}
        self._round: tuple[object, ...] | None = None
        # the moves shown at the reveals and not yet checked against the model (the newest kept)
        self._checks: deque[tuple[PlayerView, int, tuple[int, ...]]] = deque(maxlen=CHECKS_KEPT)
        self.ponders = PONDER  # foresee the next player's turn in the background (`foresee`)
        self._pondering = Pondering()
        self._public: PlayerView | None = None  # our last view, with the moves made since
        self._table: tuple[Game, int] | None = None  # the game we play and our seat (`start`)
        # The model's answers kept: the process's, or a table of its own where the answers must
        # owe nothing to what the process did before (an analysis: kept answers may differ from
        # fresh ones in the last digits, and a check near SURPRISE may then count otherwise).
        self.answers = ANSWERS

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        self._pondering.settle()
        action = super().act(view, limit)
        self.foresee(view, action)
        return action

    def trusts_in_duel(self, view: PlayerView) -> bool:
        """Whether `view` is a duel whose other player has shown it plays as the model does."""
        if view.seat is None:
            return False
        others = [s for s, active in enumerate(view.active) if active and s != view.seat]
        return len(others) == 1 and self.trust.trusts(others[0])

    def hides_in_duel(self, view: PlayerView) -> bool:
        """Not against a player it trusts: the equilibrium Expert mixes into a duel hides its cup
        from a reader, and one that plays as the model does reads nothing; it gives up the rounds
        it plays instead (heads-up against the reference, 200 games: `perudo` 0.740 with it and
        0.945 without, `red-dead` 0.615 and 0.725)."""
        return not self.trusts_in_duel(view)

    def start(self, game: Game, seat: int, preset: str | None = None) -> None:
        super().start(game, seat, preset)
        self._table = (game, seat)  # each round of it foreseen from its start (`observe`)
        self._public = None

    def close(self) -> None:
        self._pondering.close()
        super().close()

    # ----- the next player's turn, on the others' time -----

    def foresee(self, view: PlayerView, action: Action) -> None:
        """After our `action` at `view`: the model's answers at the next player's turn, every
        move and every hand, worked out in the background and kept (`answers`) for the decision
        that reads that move and the check of it. The next decision waits for them."""
        if view.seat is None:
            return
        self._public = replace(view, history=(*view.history, Turn(view.seat, action)))
        if self.ponders:
            self._pondering.start(partial(self._foresee_at, self._public))

    def observe(self, events: Sequence[object]) -> None:
        """Another player's move (`match.play_game` tells us each step): its next player's turn
        foreseen as after ours. A new round of the game is set up from its start (who opens,
        the dice) as `earlier_view` sets up any round, so its first moves are foreseen too."""
        for event in events:
            public = self._public
            if isinstance(event, Turn):
                if public is not None and event.seat != public.seat:  # ours: added by `foresee`
                    self._public = replace(public, history=(*public.history, event))
                    if self.ponders and not _ours_next(public, event.seat):
                        self._pondering.start(partial(self._foresee_at, self._public))
            elif isinstance(event, RoundStarted):
                self._public = _round_start(self._table, event)
                if self._public is not None and self.ponders:
                    self._pondering.start(partial(self._foresee_at, self._public))  # the opener's turn
            elif isinstance(event, OwnHandRolled) and public is not None and event.seat == public.seat:
                self._public = replace(public, cup=event.hand)
            else:
                self._public = None  # the round ended, or a cup was rolled again: nothing to foresee

    def _foresee_at(self, after: PlayerView) -> None:
        """The model's answers at the turn that follows `after`'s last move (our view, with the
        moves made since), or at the round's first turn."""
        made = after.history[-1].action if after.history else None
        if (made is not None and (not isinstance(made, (BidAction, Pass)) or made.push)) or not _readable(after):
            return  # the round ends, or cannot be read after a push
        game = game_of(after.options, after.seats)
        turn = len(after.history)
        seat = earlier_view(game, after, turn, after.cup).to_act
        if seat is None or seat == after.seat or after.pushed[seat]:
            return
        size, faces = after.dice[seat], after.options.faces
        space = hand_space(size, faces)
        if len(space.prior) > FORESEEN_HANDS:
            return
        first = earlier_view(game, as_seat(after, seat), turn, hand_faces(size, faces)[0])
        found = self.model.hand_policies(first, space.counts, READ_PASS, READ_PUSH)
        if found is None:
            return
        moves, chances = found
        position = _position(after, seat, turn)
        for j, move in enumerate(moves):
            self.answers.row((*position, move), len(space.prior))[:] = chances[:, j]

    # ----- learning from the reveals -----

    def evidence(self, seat: int) -> float | None:
        return self.trust.evidence(seat)

    def misfit(self, seat: int) -> float:
        return self.trust.misfit(seat)

    def learn(self, view: PlayerView) -> None:
        self._pondering.settle()  # what it works out is read from here on
        super().learn(view)
        before, self._seen = self._seen, view
        if before is view:
            return  # the same decision, asked again (Master asks before its reader plays)
        outcome = view.last_outcome
        if new_game(before, view):
            self.trust.clear()
            self._checks.clear()
            self._round = None
        revealed = before is not None and outcome is not None and outcome.round_no == before.round_no
        if revealed and before is not None and outcome is not None and before.seat is not None:
            for i, hand in checkable(before, outcome.hands):
                self._checks.append((before, i, hand))
        checks = CHECKS_HEADS_UP if sum(view.active) == 2 else CHECKS_AT_A_DECISION
        for _ in range(min(checks, len(self._checks))):
            self._check(*self._checks.popleft())

    def _check(self, view: PlayerView, turn: int, hand: tuple[int, ...]) -> None:
        """Count whether the model finds the move at `turn` surprising from the cup it came from."""
        which = np.array([hand_numbers(len(hand), view.options.faces)[hand]])
        game = game_of(view.options, view.seats)
        chance = float(self._answers(game, view, turn, which)[0])
        self.trust.count(view, turn, chance, equilibrium_chance(game, view, turn, hand))

    # ----- the belief -----

    def belief(self, r: Round) -> dict[int, Floats] | None:
        view = r.view
        if not _readable(view):
            return None
        moves = move_likelihoods(r)
        generic = beliefs(r, moves)
        game = game_of(view.options, view.seats)
        out = dict(generic)
        for seat in r.opponents:
            trust = 1.0 - MISFIT_SCALE * self.misfit(seat)
            if trust <= 0 or r.cup_size[seat] != view.dice[seat]:
                continue
            self.new_decision(view)  # each player read has its own budget
            read = self.read(game, view, r, seat, moves)
            out[seat] = trust * read + (1 - trust) * generic[seat]
        return out

    def new_decision(self, view: PlayerView) -> None:
        """Start reading a player for a decision at `view`: the budget afresh (`ASK_BUDGET`), and
        what was read at this round's moves forgotten if the round is another."""
        self._budget = self.ask_budget if self.ask_budget is not None else 1 << 30
        round_of = (view.round_no, view.starter, view.dice)
        if self._round != round_of:
            self._round, self._read, self._read_equilibrium = round_of, {}, {}

    def read(
        self, game: Game, view: PlayerView, r: Round, seat: int, generic: dict[int, Floats] | None = None
    ) -> Floats:
        """The weight of every hand of `seat` (`hand_space` order) by the model's reading of its
        moves this round. `generic`: Expert's own reading of each move (`move_likelihoods`), the
        shape given to the hands the model is not asked about."""
        if generic is None:
            generic = move_likelihoods(r)
        space = hand_space(r.cup_size[seat], r.faces)
        hands = hand_faces(r.cup_size[seat], r.faces)
        w = space.prior.copy()
        # Where Expert would play this round by an equilibrium with chance DUEL_SHARE: each hand
        # weighed by the moves' chance from the equilibrium too, and the two chains mixed by how
        # likely each made all the moves (`_mixed`), as Expert weighs its own two at its turns.
        mixing = mixes_in(game, view, seat)
        w_eq = space.prior.copy() if mixing else None
        log_own = log_eq = 0.0
        for i, turn in enumerate(view.history):
            if turn.seat != seat:
                continue
            shape = generic.get(i)
            after = w * shape if shape is not None else w  # the likeliest hands after the move, as Expert reads it
            if after.sum() <= 0:
                after = w
            alive = _likeliest(after / after.sum(), NEGLIGIBLE)
            if len(alive) > MAX_ASKED:
                alive = alive[np.argsort(-after[alive], kind="stable")[:MAX_ASKED]]
            key = (*_position(view, seat, i), turn.action)
            if key not in self._read:
                earlier = earlier_view(game, as_seat(view, seat), i, hands[int(alive[0])])
                self._read[key] = (np.full(len(w), np.nan), max(len(earlier.legal_actions), 1), earlier)
            read, legal, earlier = self._read[key]
            room = max(self._budget - POSITION_COST, 0)
            if room:
                by_weight = alive[np.argsort(-after[alive], kind="stable")]
                new = by_weight[np.isnan(read[by_weight])][:room]
                if len(new):
                    self._budget -= POSITION_COST + len(new)
                    read[new] = self._answers(game, view, i, new, earlier)
            asked = alive[~np.isnan(read[alive])]
            if not len(asked):
                # none read at this move yet: Expert's reading of it, whose scale is not the
                # model's (so it weighs the two chains alike)
                likelihood = shape if shape is not None else np.ones(len(w))
                if w_eq is not None:
                    step, w_eq = self._equilibrium_step(game, view, i, key, w_eq, likelihood, legal, scaled=False)
                    log_eq += step
                    log_own += step
                w = after / after.sum()
                continue
            likelihood = np.full(len(w), FLOOR / legal)
            likelihood[asked] += (1 - FLOOR) * read[asked]
            rest = w > 0
            rest[asked] = False
            if rest.any():
                # A hand not asked about: Expert's reading of the move, scaled to the model's
                # chance of it among the hands asked.
                shaped = float(np.dot(w[asked], shape[asked])) if shape is not None else 0.0
                if shape is not None and shaped > 0:
                    likelihood[rest] = float(np.dot(w[asked], likelihood[asked])) / shaped * shape[rest]
                else:
                    likelihood[rest] = float(np.average(likelihood[asked], weights=w[asked]))
            if w_eq is not None:
                step, w_eq = self._equilibrium_step(game, view, i, key, w_eq, likelihood, legal)
                log_eq += step
            w = w * likelihood
            total = w.sum()
            if total <= 0:
                if w_eq is None:
                    return space.prior.copy()
                w, log_own = w_eq.copy(), -math.inf  # only the equilibrium made these moves
                continue
            log_own += math.log(total)
            w = w / total
        if w_eq is None:
            return w
        return mixed(w, log_own, w_eq, log_eq, self.trust.share(seat))

    def _equilibrium_step(
        self,
        game: Game,
        view: PlayerView,
        turn: int,
        key: PositionKey,
        w: Floats,
        own: Floats,
        legal: int,
        scaled: bool = True,
    ) -> tuple[float, Floats | None]:
        """The equilibrium chain's weights `w` after the move at `turn`, and the log of the
        chance it gave the move; None (and 0) if no hand left made it. `own`: the model's chance
        of the move from each hand, what Expert plays where the equilibrium has no answer;
        `scaled`: False where `own` is right only up to a factor."""
        if key not in self._read_equilibrium:
            self._read_equilibrium[key] = equilibrium_column(game, view, turn)
        column = self._read_equilibrium[key]
        if column is None:
            likelihood = own
        else:
            known = ~np.isnan(column)
            likelihood = np.where(known, FLOOR / legal + (1 - FLOOR) * np.nan_to_num(column), own)
            if not scaled and (~known).any():
                # the hands the equilibrium leaves to Expert's own play, at the scale of the rest
                at = float(np.dot(w[known], own[known]))
                if at > 0:
                    likelihood[~known] *= float(np.dot(w[known], likelihood[known])) / at
        w = w * likelihood
        total = float(w.sum())
        if total <= 0:
            return 0.0, None
        return math.log(total), w / total

    def _answers(
        self, game: Game, view: PlayerView, turn: int, which: Ints, earlier: PlayerView | None = None
    ) -> Floats:
        """The model's chance of the move made at `turn` of this round, from each hand `which`
        names (`hand_space` indices) of the seat that made it: kept, or asked of the model for
        all the missing hands at once. `earlier`: the seat's view at that turn, if at hand."""
        made = view.history[turn]
        size, faces = view.dice[made.seat], view.options.faces
        kept = self.answers.row((*_position(view, made.seat, turn), made.action), len(hand_space(size, faces).prior))
        missing = which[np.isnan(kept[which])]
        if len(missing):
            hands = hand_faces(size, faces)
            seat_view = as_seat(view, made.seat)
            first = earlier if earlier is not None else earlier_view(game, seat_view, turn, hands[int(missing[0])])
            chances = self.model.hand_chances(
                first, hand_space(size, faces).counts[missing], made.action, READ_PASS, READ_PUSH
            )
            if chances is None:
                views = earlier_views(game, seat_view, turn, [hands[j] for j in missing.tolist()])
                chances = self.model.move_chances(views, made.action)
            kept[missing] = chances
        out: Floats = kept[which]
        return out


def _round_start(table: tuple[Game, int] | None, started: RoundStarted) -> PlayerView | None:
    """The view of our seat at the first turn of the round `started` (who opens, the dice, the
    seats in: what `earlier_view` reads of a round, set up as it sets one up), or None where a
    turn there depends on more (chips), we are out, or we were not told our game (`start`)."""
    if table is None:
        return None
    game, seat = table
    if game.options.economy is not None or not started.dice[seat]:
        return None
    hands = [(1,) * n for n in started.dice]
    try:
        state = game.position(
            hands, starter=started.starter, round_no=started.round_no, special_round=started.one_die_round
        )
    except SetupError:
        return None
    return state.view(seat)


def _ours_next(view: PlayerView, seat: int) -> bool:
    """Whether our seat plays next after `seat` at `view`'s table, where nobody folds: nothing to
    foresee then, and setting the round up again to find that out (`_foresee_at`) took some
    0.6 ms of the decision that waited for it."""
    if view.options.economy is not None:
        return False
    n = len(view.active)
    following = next(((seat + k) % n for k in range(1, n + 1) if view.active[(seat + k) % n]), seat)
    return following == view.seat


def _readable(view: PlayerView) -> bool:
    """Whether the model can be asked about this round: the positions of its moves can be set up
    again from the public facts. Not after a push (the pushing cup is rolled again), nor in a
    one-die round (the table alone does not say that a round is one)."""
    return not view.one_die_round and not any(getattr(t.action, "push", ()) for t in view.history)


def _likeliest(w: Floats, negligible: float) -> np.ndarray:
    """The indices of the likeliest entries of `w` (normalised) that hold all but `negligible` of
    its sum, in index order."""
    order = np.argsort(-w, kind="stable")
    held = np.cumsum(w[order])
    n = int(np.searchsorted(held, 1.0 - negligible)) + 1
    return np.sort(order[: min(n, len(w))])
