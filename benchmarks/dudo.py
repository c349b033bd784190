"""Master against dudo.ai's self-play networks, on dudo.ai's own game: one round, two players, ones wild.

    git clone https://github.com/thomasahle/liars-dice /tmp/liars-dice     # or any copy of it
    git -C /tmp/liars-dice archive HEAD models | (mkdir -p /tmp/dudo && tar -x -C /tmp/dudo)
    .venv/bin/pip install onnxruntime       # not a dependency of the package: this script's alone
    python benchmarks/dudo.py --models /tmp/dudo/models [--sizes 2v2,3v3,5v5] [--rounds 2000] [--seed 1]

Nothing of thomasahle/liars-dice (MIT, the code and networks behind dudo.ai) is in this
repository: `--models DIR` is a folder holding its `model_{d1}{d2}_joker.onnx` (the networks the
page loads, exported by its `code/convert_to_onnx.py`: inputs "priv" and "pub", output "value").

Master is the `duel` bot (`liarsdice.bots.duel.DuelBot`) with a new empty data directory
(`LIARSDICE_DATA` is pointed at one before `liarsdice` is imported), so that it plays the
strategies shipped in the package (`src/liarsdice/duel/shipped/`, here `ones-AvB.duel`) and
nothing trained on this machine; the script prints which file it plays at each size.

## The game, theirs and ours

dudo's game (`code/snyd.py`, `Game` with `variant="joker"`; `static/script.js`, `endGame`): two
players roll d1 and d2 six-sided dice; player 0 (d1 dice) bids first, then the players alternate;
a bid (n, d) is "at least n dice show d", where a 1 counts for every other face and a bid on
ones counts only ones (`evaluate_call`: `cnt[d] + cnt[1] if d != 1 else cnt[d]`); each bid must
be a higher action id than the last, ids up to (d1 + d2) sixes; the other player may instead call
"liar": the bid is then checked against both cups, the caller wins if it is false and loses if
it is true. The winner scores +1 and the loser -1 (`train.py`'s `res`; the page takes a die from
the winner, which is a new round, not this benchmark's game).

Ours: `liarsdice.rules` with the `classic` preset and `num_players=2`, `dice_per_player=[d1,
d2]`, `wild_face=1`, `rounds=single`, `first_starter=0`; the rest is classic's:
`wild_bid_rule=plain` (a bid on ones counts ones, and ranks as any face), `bid_order=quantity_major`
(quantity first, then face, ones lowest), `wild_opening=true` (ones may open),
`max_quantity=dice_in_play`, `exact=none`, `pass=none`, `push=false`. These are exactly the
options of `liarsdice.exploit.duel.duel_options((d1, d2), wild="1")` (the test checks it), the
game of `liarsdice exploit --wild 1` and of the shipped `ones-*` strategies. A single-round game
returns +1 to the winner of the liar call and -1 to the loser.

The action ids map one to one: our bid (n, d) is dudo's id (n - 1) * 6 + (d - 1) (0 = one 1,
5 = one 6, 6 = two 1s, ...; dudo's `divmod(id, 6)` plus one), our ladder in order is the ids in
order, our legal raises after a bid are exactly the ids above it, and our `Challenge` of the
standing bid is dudo's `LIE_ACTION`, (d1 + d2) * 6 (tests/test_dudo_benchmark.py checks every
bid of 2v2 both ways and the legal moves at every standing bid). Our engine decides every round;
each round dudo's `evaluate_call` (re-implemented here, `call_is_good`) is asked too and the
script stops if the two disagree on the winner.

One difference in the moves: dudo lets the opener say "liar" before any bid (its `policy` ranges
over every id above `last_call = -1`, `LIE_ACTION` included; `evaluate_call(-1)` is True, so the
caller loses), which our game has no move for. It is a certain loss, so it changes nothing of
value, and the networks never make it: before the rounds, the script computes the page's chance
of it for every hand the opener may hold and prints the largest (0 for every model of 1 to 5
dice a side, checked). If a network ever did draw it, the move would be illegal in our engine and
the script stops (every move of either side is checked against `legal_actions()`); it is not
mapped to anything.

## How the networks play: as dudo.ai's page

`static/script.js`, `sampleCallFromPolicy`, which the page runs for the robot's every move: the
value v of the current public state from the robot's private state, the value v_i of the state
after each action above the last bid (the liar call included), regret r_i = max(v_i - v, 0), the
policy r_i / sum(r) (uniform over those actions when every r_i is 0), and one action *drawn*
from it (`weightedChoice` with `Math.random()`), not the best one; no epsilon (the 0.01 of
`train.py` is added only in self-play training; `play_model.py` also plays `eps=0`). Here the
same, the draw from a seeded `random.Random` (the first action whose running sum passes the
draw). The networks run as the page runs them, one state per call (the export takes unbatched
inputs): `priv` = `make_priv` (for each face f, the first k of max(d1, d2) slots of that face
set when the cup holds k of f; then one slot for the player, 0 or 1), `pub` = `make_state` and
`_apply_action` for each move of the round (each player's own half: its actions and a "to act"
flag). The model for a d1 vs d2 round is `model_{d1}{d2}_joker.onnx`, d1 the opener's dice
(player 0), whichever side Master sits.

## What is measured

At each size (`--sizes`, AvB: A the opener's dice), `--rounds` rounds; round i seats Master in
seat i % 2 (seat 0 opens) and dudo's network in the other, rolls from the engine's chance node
with its own seed, and gives Master and the network their own seeds (all from `--seed`, size
and i). Printed per size: Master's mean return a round with a 95% interval (normal
approximation: mean +- 1.96 sample sd / sqrt(rounds)), the same for each seat, Master's win
rate, what played Master's moves (the shipped strategy: "duel"), and the time of each side's
decisions (Master: `act`; dudo: from the view to the move, the network's evaluations
included), mean, p50, p99 and maximum.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from liarsdice.bots.base import Bot
    from liarsdice.rules import Action, Bid, Game, GameState, Options, PlayerView

SIDES = 6  # dudo.ai's dice; its page and networks know no other
DEFAULT_SIZES = "2v2,3v3,5v5"

Vector = npt.NDArray[np.float32]
# A value network as the page calls it: (private state, public state) -> value for the private
# state's player, in [-1, 1].
ValueNet = Callable[[Vector, Vector], float]


class IllegalMove(RuntimeError):
    """A side made a move our engine refuses: the two games differ there, and the figures would not hold."""


class Disagreement(RuntimeError):
    """dudo's `evaluate_call` and our engine named different winners of a round."""


@dataclass(frozen=True)
class DudoCodec:
    """dudo's encoding of a d1 vs d2 round (`code/snyd.py`, `calc_args`, `make_priv`, `make_state`,
    `_apply_action`) and the map between its action ids and our actions."""

    d1: int
    d2: int
    sides: int = SIDES

    @property
    def lie(self) -> int:
        """`LIE_ACTION`: the liar call, after the (d1 + d2) * sides bids."""
        return (self.d1 + self.d2) * self.sides

    @property
    def n_actions(self) -> int:
        return self.lie + 1

    @property
    def cur_index(self) -> int:
        return self.n_actions

    @property
    def per_player(self) -> int:
        """`D_PUB_PER_PLAYER`: a player's actions and its to-act flag."""
        return self.n_actions + 1

    @property
    def d_pub(self) -> int:
        return 2 * self.per_player

    @property
    def width(self) -> int:
        """Slots per face in the private state: max(d1, d2)."""
        return max(self.d1, self.d2)

    @property
    def pri_index(self) -> int:
        return self.width * self.sides

    @property
    def d_pri(self) -> int:
        return self.pri_index + 2

    @property
    def model_name(self) -> str:
        return f"model_{self.d1}{self.d2}_joker.onnx"

    # The actions.

    def bid_id(self, bid: Bid) -> int:
        if not (1 <= bid.face <= self.sides and 1 <= bid.quantity <= self.d1 + self.d2):
            raise ValueError(f"{bid} has no id in dudo's {self.d1} vs {self.d2} game")
        return (bid.quantity - 1) * self.sides + (bid.face - 1)

    def action_id(self, action: Action) -> int:
        """dudo's id of our action: a bid's (n - 1) * sides + (d - 1), the challenge `LIE_ACTION`."""
        from liarsdice.rules import BidAction, Challenge

        if isinstance(action, BidAction) and not action.push:
            return self.bid_id(action.bid)
        if isinstance(action, Challenge):
            return self.lie
        raise ValueError(f"{action!r} is no move of dudo's game")

    def action_of(self, action_id: int, seat: int) -> Action:
        """Our action for dudo's id, made by `seat`: a bid, or the challenge of the other seat's bid."""
        from liarsdice.rules import Bid, BidAction, Challenge

        if action_id == self.lie:
            return Challenge(1 - seat)
        if not 0 <= action_id < self.lie:
            raise ValueError(f"{action_id} is no action id of dudo's {self.d1} vs {self.d2} game")
        quantity, face = divmod(action_id, self.sides)
        return BidAction(Bid(quantity + 1, face + 1))

    # The states.

    def priv(self, hand: Sequence[int], player: int) -> Vector:
        """`make_priv(roll, player)`."""
        out = np.zeros(self.d_pri, dtype=np.float32)
        out[self.pri_index + player] = 1
        for face, count in Counter(hand).items():
            for i in range(count):
                out[(face - 1) * self.width + i] = 1
        return out

    def initial_pub(self) -> Vector:
        """`make_state()`: no action yet, player 0 to act."""
        out = np.zeros(self.d_pub, dtype=np.float32)
        out[self.cur_index] = 1
        return out

    def current(self, pub: Vector) -> int:
        """`get_cur(state)`."""
        return 1 - int(pub[self.cur_index])

    def apply(self, pub: Vector, action_id: int) -> None:
        """`_apply_action(state, action)`, in place."""
        cur = self.current(pub)
        pub[action_id + cur * self.per_player] = 1
        pub[self.cur_index + cur * self.per_player] = 0
        pub[self.cur_index + (1 - cur) * self.per_player] = 1

    def pub_of(self, ids: Sequence[int]) -> Vector:
        pub = self.initial_pub()
        for action_id in ids:
            self.apply(pub, action_id)
        return pub

    def call_is_good(self, r1: Sequence[int], r2: Sequence[int], last_call: int) -> bool:
        """`evaluate_call` of the joker variant: True when the bid `last_call` holds (the caller of
        "liar" loses), False when it is a bluff (the caller wins). A call before any bid (-1) is
        "good": the caller loses."""
        if last_call == -1:
            return True
        n, d = divmod(last_call, self.sides)
        n, d = n + 1, d + 1
        counts = Counter([*r1, *r2])
        actual = counts[d] + counts[1] if d != 1 else counts[d]
        return actual >= n


def page_policy(net: ValueNet, codec: DudoCodec, priv: Vector, pub: Vector, last_call: int) -> list[float]:
    """The page's policy (`sampleCallFromPolicy`) over the ids last_call + 1 .. LIE_ACTION: regret
    matching on the network's values of each child state against the current one, uniform when
    no child is worth more."""
    v = net(priv, pub)
    regrets = []
    for action_id in range(last_call + 1, codec.n_actions):
        child = pub.copy()
        codec.apply(child, action_id)
        regrets.append(max(net(priv, child) - v, 0.0))
    total = sum(regrets)
    if total == 0:
        return [1 / len(regrets)] * len(regrets)
    return [r / total for r in regrets]


def weighted_choice(chances: Sequence[float], r: float) -> int:
    """The page's `weightedChoice`: the first index where the running sum of the chances passes `r`
    (r in [0, 1)). Where rounding leaves the sum short of r (the page then returns `undefined`),
    the last index with a chance."""
    for i, p in enumerate(chances):
        r -= p
        if r < 0:
            return i
    return max(i for i, p in enumerate(chances) if p > 0)


class DudoPlayer:
    """dudo.ai's robot in one seat of our round: it reads the round from our view, encodes it as
    dudo's state, draws its move as the page does, and answers with our action."""

    def __init__(self, net: ValueNet, codec: DudoCodec, seat: int, seed: int) -> None:
        self.net = net
        self.codec = codec
        self.seat = seat
        self.rng = random.Random(seed)

    def act(self, view: PlayerView) -> Action:
        codec = self.codec
        ids = []
        for i, turn in enumerate(view.history):
            if turn.seat != i % 2:
                raise IllegalMove(f"turn {i} of the round was seat {turn.seat}'s: dudo's players alternate from 0")
            ids.append(codec.action_id(turn.action))
        pub = codec.pub_of(ids)
        if codec.current(pub) != self.seat:
            raise IllegalMove(f"dudo's state says player {codec.current(pub)} acts, our engine seat {self.seat}")
        last_call = ids[-1] if ids else -1
        chances = page_policy(self.net, codec, codec.priv(view.cup, self.seat), pub, last_call)
        return codec.action_of(last_call + 1 + weighted_choice(chances, self.rng.random()), self.seat)


class OnnxNet:
    """A network of dudo.ai run by onnxruntime, one state a call as the page runs it."""

    def __init__(self, path: Path) -> None:
        import onnxruntime  # type: ignore[import-untyped]

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # one state at a time: threads only cost here
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        shapes = {i.name: i.shape for i in self.session.get_inputs()}
        self.shapes = (shapes["priv"], shapes["pub"])

    def __call__(self, priv: Vector, pub: Vector) -> float:
        return float(self.session.run(["value"], {"priv": priv, "pub": pub})[0][0])


def opening_call_chance(net: ValueNet, codec: DudoCodec) -> float:
    """The largest chance, over every hand the opener may hold, that the page's policy calls "liar"
    before any bid (a move of dudo's game that ours lacks)."""
    pub = codec.initial_pub()
    return max(
        page_policy(net, codec, codec.priv(hand, 0), pub, -1)[-1]
        for hand in itertools.combinations_with_replacement(range(1, codec.sides + 1), codec.d1)
    )


def duel_options(dice: tuple[int, int]) -> Options:
    """Our rules for dudo's game: `classic`, two players, one round, ones wild, seat 0 opens."""
    from liarsdice.rules import preset_options

    overrides = {
        "num_players": 2,
        "dice_per_player": list(dice),
        "wild_face": 1,
        "rounds": "single",
        "first_starter": 0,
    }
    return preset_options("classic", overrides)


@dataclass
class RoundResult:
    master_seat: int
    master_return: float
    moves: int
    master_times: list[float] = field(default_factory=list)
    dudo_times: list[float] = field(default_factory=list)
    master_sources: list[str] = field(default_factory=list)


def round_seeds(seed: int, dice: tuple[int, int], i: int) -> tuple[int, int, int]:
    """The seeds of round i at this size: the roll's, dudo's draws', Master's."""
    state = np.random.SeedSequence([seed, dice[0], dice[1], i]).generate_state(3)
    return int(state[0]), int(state[1]), int(state[2])


def play_round(
    game: Game,
    codec: DudoCodec,
    net: ValueNet,
    master: Bot,
    master_seat: int,
    seeds: tuple[int, int, int],
) -> RoundResult:
    """One round of `game` (seat 0 opens), Master in `master_seat` and dudo's network in the other;
    every move checked legal; the winner our engine's, checked against dudo's `evaluate_call`."""
    from liarsdice.rules import BidAction, Challenge

    roll_seed, dudo_seed, _ = seeds
    state = game.new_initial_state()
    rng = random.Random(roll_seed)
    while state.is_chance:
        state, _ = state.apply(state.sample_chance(rng))
    hands = (state.view(0).cup, state.view(1).cup)
    dudo = DudoPlayer(net, codec, 1 - master_seat, dudo_seed)
    master.start(game, master_seat)
    result = RoundResult(master_seat=master_seat, master_return=0.0, moves=0)
    last_bid = -1
    while not state.is_terminal:
        seat = state.to_act
        if seat is None:
            raise RuntimeError(f"no seat to act in a round not over: {state}")
        view = state.view(seat)
        started = time.perf_counter()
        if seat == master_seat:
            action = master.act(view)
            result.master_times.append(time.perf_counter() - started)
            result.master_sources.append(getattr(master, "source", "") or type(master).__name__)
        else:
            action = dudo.act(view)
            result.dudo_times.append(time.perf_counter() - started)
        side = "Master" if seat == master_seat else "dudo"
        if action not in state.legal_actions():
            raise IllegalMove(
                f"{side} in seat {seat} made {action!r} after {list(view.history)}: not legal in our game"
            )
        if isinstance(action, BidAction):
            last_bid = codec.action_id(action)
        elif not isinstance(action, Challenge):
            raise IllegalMove(f"{side} in seat {seat} made {action!r}: no move of dudo's game")
        state, _ = state.apply(action)
        result.moves += 1
        if isinstance(action, Challenge):
            caller_wins = not codec.call_is_good(hands[0], hands[1], last_bid)
            ours = returns_of(state)[seat] > 0
            if caller_wins != ours:
                raise Disagreement(
                    f"hands {hands}, bid id {last_bid} called by seat {seat}: "
                    f"the caller wins by dudo's rule {caller_wins}, by our engine {ours}"
                )
    result.master_return = returns_of(state)[master_seat]
    return result


def returns_of(state: GameState) -> tuple[float, ...]:
    returns = state.returns()
    if returns is None:
        raise RuntimeError("the round is over but has no returns")
    return returns


@dataclass
class SizeResult:
    dice: tuple[int, int]
    rounds: list[RoundResult]
    seconds: float


def play_size(
    dice: tuple[int, int],
    net: ValueNet,
    rounds: int,
    seed: int,
    make_master: Callable[[int], Bot] | None = None,
    progress: Callable[[int], None] | None = None,
) -> SizeResult:
    """`rounds` rounds of dudo's d1 vs d2 game; round i seats Master (a fresh one, `make_master(seed)`,
    default the duel bot) in seat i % 2."""
    from liarsdice.bots.duel import DuelBot
    from liarsdice.rules import Game

    make = make_master if make_master is not None else DuelBot
    game = Game(duel_options(dice), seats=["seat 0", "seat 1"])
    codec = DudoCodec(*dice)
    started = time.perf_counter()
    results = []
    for i in range(rounds):
        seeds = round_seeds(seed, dice, i)
        results.append(play_round(game, codec, net, make(seeds[2]), i % 2, seeds))
        if progress is not None:
            progress(i + 1)
    return SizeResult(dice, results, time.perf_counter() - started)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% interval (normal approximation, the sample standard deviation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan"), float("nan")
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile by the nearest rank of the sorted values (NaN for none)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def describe_times(times: Sequence[float]) -> str:
    ms = [t * 1000 for t in times]
    return (
        f"{len(ms):,} decisions, mean {statistics.fmean(ms):.2f} ms, p50 {percentile(ms, 50):.2f}, "
        f"p99 {percentile(ms, 99):.2f}, max {max(ms):.2f}"
    )


def report(size: SizeResult) -> list[str]:
    """The lines printed for one size."""
    rounds = size.rounds
    lines = []
    returns = [r.master_return for r in rounds]
    mean, low, high = mean_interval(returns)
    wins = sum(r > 0 for r in returns) / len(returns)
    lines.append(
        f"  Master's mean return a round: {mean:+.3f} [{low:+.3f}, {high:+.3f}] ({len(returns):,} rounds; "
        f"win rate {wins:.3f})"
    )
    for seat, name in ((0, "seat 0, Master opens"), (1, "seat 1, dudo opens")):
        own = [r.master_return for r in rounds if r.master_seat == seat]
        if own:
            m, lo, hi = mean_interval(own)
            lines.append(f"    {name}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] ({len(own):,} rounds)")
    moves = [r.moves for r in rounds]
    lines.append(f"  moves a round: mean {statistics.fmean(moves):.2f}, max {max(moves)}")
    sources = Counter(s for r in rounds for s in r.master_sources)
    total = sum(sources.values())
    lines.append("  Master's moves played by: " + ", ".join(f"{k} {v / total:.1%}" for k, v in sources.most_common()))
    lines.append("  Master: " + describe_times([t for r in rounds for t in r.master_times]))
    lines.append("  dudo:   " + describe_times([t for r in rounds for t in r.dudo_times]))
    lines.append(f"  {len(rounds):,} rounds in {size.seconds:.1f} s")
    return lines


def parse_sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        a, sep, b = part.partition("v")
        if not sep or not a.isdigit() or not b.isdigit():
            raise ValueError(f"{part!r} is not a size such as 3v3 (the opener's dice, v, the other's)")
        dice = (int(a), int(b))
        if not (1 <= dice[0] <= 5 and 1 <= dice[1] <= 5):
            raise ValueError(f"{part}: dudo.ai's networks are of 1 to 5 dice a player")
        sizes.append(dice)
    if not sizes:
        raise ValueError("no size given")
    return sizes


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", type=Path, required=True, help="the folder of model_{d1}{d2}_joker.onnx")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help=f"AvB, A the opener's dice (default {DEFAULT_SIZES})")
    parser.add_argument("--rounds", type=int, default=2000, help="rounds a size (default 2000), seats alternating")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        args.sizes = parse_sizes(args.sizes)
    except ValueError as e:
        parser.error(f"--sizes: {e}")
    if args.rounds < 1:
        parser.error(f"--rounds must be 1 or more, not {args.rounds}")
    for d1, d2 in args.sizes:
        path = args.models / DudoCodec(d1, d2).model_name
        if not path.is_file():
            parser.error(f"no {path}: extract dudo's models there (see the docstring)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    data = tempfile.TemporaryDirectory(prefix="dudo-master-")
    os.environ["LIARSDICE_DATA"] = data.name  # before liarsdice is imported: shipped strategies only
    try:
        import onnxruntime
    except ImportError:
        raise SystemExit("onnxruntime is not installed: pip install onnxruntime") from None
    from liarsdice.bots.duel import DuelBot

    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(["benchmarks/dudo.py", *argv])
    print(f"command: {command}")
    print(f"python {platform.python_version()}, onnxruntime {onnxruntime.__version__}, {platform.machine()}")
    print(f"Master: the duel bot, data directory {data.name} (new and empty: the shipped strategies only)")
    print("dudo: each move drawn from regret matching on its network's values, no epsilon, as dudo.ai's page")
    began = time.perf_counter()
    for dice in args.sizes:
        codec = DudoCodec(*dice)
        net = OnnxNet(args.models / codec.model_name)
        if net.shapes != ([codec.d_pri], [codec.d_pub]):
            raise SystemExit(
                f"{codec.model_name} takes priv and pub of {net.shapes}, not dudo's {dice[0]}v{dice[1]} encoding"
            )
        options = duel_options(dice)
        loading = time.perf_counter()
        strategy = DuelBot().strategy_for(options, dice, train_small=False)
        loaded = time.perf_counter() - loading
        if strategy is None:
            played = "no shipped strategy: Master plays the exact solution if it solves one, else its fallback"
        else:
            shipped = strategy.meta.get("shipped")
            played = f"shipped {shipped}, k={strategy.k}" if shipped else f"NOT shipped (k={strategy.k})"
        chance = opening_call_chance(net, codec)
        print(
            f"\n{dice[0]}v{dice[1]}: dudo's {codec.model_name}; Master's strategy: {played} (loaded in {loaded:.2f} s)"
        )
        print(
            f"  dudo's chance of a liar call before any bid (no move of ours), most over the opener's hands: {chance:g}"
        )
        result = play_size(dice, net, args.rounds, args.seed)
        for line in report(result):
            print(line)
        sys.stdout.flush()
    left = sorted(p.relative_to(data.name).as_posix() for p in Path(data.name).rglob("*") if p.is_file())
    if left:
        print(f"\nMaster wrote into its data directory (not shipped strategies): {', '.join(left)}")
    print(f"\ntotal {time.perf_counter() - began:.1f} s")
    data.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
