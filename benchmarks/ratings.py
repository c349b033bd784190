"""How long rating a finished rated game takes (ratingrows.rate_game: the claim, the OpenSkill
update of every account at the table, the rows of the change), at tables of 2 to 6 accounts.

    python benchmarks/ratings.py [--games 200] [--people 40] [--database sqlite|postgresql]

A fresh database (SQLite in a temporary directory, or a throw-away PostgreSQL server's, the one
the tests use) gets `--people` accounts; each game seats a random few of them with
random places, is stored finished as a rated table's game is, and is rated, as the process that
finishes a game does in the transaction that stores its end. Prints, per table size, the median,
p95 and max milliseconds of the rating job (run on the store's thread, as the server runs it).
Nothing is asserted (tests/test_ratings.py checks what a rating does).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from load_services import new_database, postgres_cluster
from sqlalchemy.orm import Session

from liarsdice.server.peoplerows import create_person
from liarsdice.server.ratingrows import rate_game
from liarsdice.server.storage import GamePersonRow, GameRow, Store, TableRow


def store_game(session: Session, code: str, people: list[int], places: list[int]) -> int:
    """A finished game of a rated perudo table, its accounts by seat (as a game's start records them)."""
    table = TableRow(code=code, preset="perudo", options={}, status="finished", rated=True)
    session.add(table)
    session.flush()
    seats = [f"P{p}" for p in people]
    game = GameRow(
        table_id=table.id,
        preset="perudo",
        options={},
        seats=seats,
        players=[],
        seed=1,
        status="finished",
        record={"result": {"places": dict(zip(seats, places, strict=True))}},
        rating_family="perudo",
    )
    session.add(game)
    session.flush()
    for seat, person in enumerate(people):
        session.add(GamePersonRow(game_id=game.id, seat_no=seat, person_id=person))
    return int(game.id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games rated per table size (default 200)")
    parser.add_argument("--people", type=int, default=40, help="accounts that play them (default 40)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with ExitStack() as stack:
        if args.database == "postgresql":
            cluster, _ = stack.enter_context(postgres_cluster())
            url = new_database(cluster)
        else:
            url = f"sqlite:///{Path(stack.enter_context(tempfile.TemporaryDirectory())) / 'ratings.sqlite3'}"
        store = Store(url)
        try:
            rng = random.Random(args.seed)
            people = [
                store.call_sync(lambda s, i=i: create_person(s, f"Rated {i}", "not a hash").id)
                for i in range(args.people)
            ]
            print(f"database: {url.split(':', 1)[0]}, {args.people} accounts, {args.games} games per size")
            print("accounts  median ms  p95 ms  max ms")
            for size in range(2, 7):
                times: list[float] = []
                for g in range(args.games):
                    at_table = rng.sample(people, size)
                    places = list(range(1, size + 1))
                    rng.shuffle(places)
                    code = f"B{size}{g:05d}"
                    game = store.call_sync(lambda s, c=code, a=at_table, p=places: store_game(s, c, a, p))
                    started = time.perf_counter()
                    rated = store.call_sync(lambda s, game=game: rate_game(s, game))
                    times.append((time.perf_counter() - started) * 1000)
                    assert rated == size
                times.sort()
                p95 = times[int(0.95 * (len(times) - 1))]
                print(f"{size:8d}  {statistics.median(times):9.2f}  {p95:6.2f}  {times[-1]:6.2f}")
        finally:
            store.close()


if __name__ == "__main__":
    main()
