"""Operations: /healthz, the Prometheus /metrics and the reverse-proxy options of `liarsdice serve`."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from typer.testing import CliRunner
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from liarsdice.server.app import create_app
from liarsdice.server.metrics import server_version
from liarsdice.server.settings import Settings
from test_server import connect, create, join

SETTINGS = {"grace": 30.0, "bot_delay": 0.0, "rate": 1e6, "burst": 1e6}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", Settings(**SETTINGS))) as c:
        yield c


def samples(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, by name and labels; the text must parse as Prometheus's."""
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain; version=")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def value(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


# ----- /healthz -----


def test_healthz_says_ok_with_the_version_and_uptime(client: TestClient) -> None:
    first = client.get("/healthz")
    assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
    body = first.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["version"] == server_version()
    time.sleep(0.05)
    assert client.get("/healthz").json()["uptime_seconds"] > body["uptime_seconds"] >= 0


def test_healthz_is_503_when_the_database_cannot_be_reached(tmp_path: Path, client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    working = store.engine
    # a database file in a folder that does not exist: every connection fails
    store.engine = create_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'db.sqlite3'}")
    try:
        r = client.get("/healthz")
    finally:
        store.engine.dispose()
        store.engine = working
    assert r.status_code == 503, r.text
    assert r.json()["status"] == "unavailable" and "unable to open database file" in r.json()["database"]
    assert client.get("/healthz").status_code == 200  # and well again once it answers


def test_healthz_is_503_when_the_database_hangs_and_checks_do_not_pile_up(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    check = client.app.state.database_check  # type: ignore[attr-defined]
    working = store.engine

    def slow_connection() -> sqlite3.Connection:
        time.sleep(1.0)
        return sqlite3.connect(":memory:")

    check.timeout = 0.1
    store.engine = create_engine("sqlite://", creator=slow_connection)
    try:
        hung = client.get("/healthz")
        behind = client.get("/healthz")  # the first check still waits on its connection
        time.sleep(1.2)
    finally:
        store.engine.dispose()
        store.engine = working
    assert hung.status_code == 503 and "no answer within 0.1 s" in hung.json()["database"]
    assert behind.status_code == 503 and "previous check" in behind.json()["database"]
    assert client.get("/healthz").status_code == 200


def test_healthz_is_503_before_the_app_has_started(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", Settings(**SETTINGS))
    client = TestClient(app)  # not entered: the lifespan (opening the database) has not run
    r = client.get("/healthz")
    assert r.status_code == 503 and "starting" in r.json()["database"]


# ----- /metrics -----


def test_metrics_count_tables_connections_moves_latency_and_errors(client: TestClient) -> None:
    before = samples(client)
    assert value(before, "liarsdice_actions_total") == 0
    assert value(before, "liarsdice_action_latency_seconds_count") == 0
    assert value(before, "process_cpu_seconds_total") > 0  # the process collector is there
    table = create(client, "classic", options={"num_players": 2, "first_starter": 0})
    code = table["code"]
    bo = join(client, code, "Bo")
    with (
        connect(client, code, table["token"]) as ann,
        connect(client, code, bo["token"]) as bob,
        connect(client, code, None),
    ):
        ann.send(type="start")
        ann.state()
        bob.send(type="act", action=["bid", 1, 2], ref=1)
        bob.error("not_your_turn")
        ann.send(type="act", action=["bid", 99, 2], ref=2)
        ann.error("illegal")
        ann.send(type="act", action=["bid", 1, 2], ref=3)
        ann.until(lambda m: m["type"] == "state" and m["ref"] == 3)
        during = samples(client)
    assert value(during, "liarsdice_tables", status="playing") == 1
    assert value(during, "liarsdice_connections", kind="seat") == 2
    assert value(during, "liarsdice_connections", kind="spectator") == 1
    assert value(during, "liarsdice_connections", kind="bot_account") == 0
    assert value(during, "liarsdice_actions_total") == 1  # Ann's bid; the refused moves and the deal are not
    assert value(during, "liarsdice_errors_total", code="not_your_turn") == 1
    assert value(during, "liarsdice_errors_total", code="illegal") == 1
    assert value(during, "liarsdice_action_latency_seconds_count") == 1
    assert 0 < value(during, "liarsdice_action_latency_seconds_sum") < 10
    assert value(during, "liarsdice_action_latency_seconds_bucket", le="+Inf") == 1

    assert client.get("/api/tables/ABCDEF").status_code == 404
    after = samples(client)
    assert (
        value(after, "liarsdice_http_errors_total", status="404")
        == value(before, "liarsdice_http_errors_total", status="404") + 1
    )
    assert value(after, "liarsdice_connections", kind="seat") == 0  # everyone has left


def test_bot_moves_are_counted_without_a_latency(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as ann:
        ann.send(type="fill_bots", level="random")
        ann.of("table")
        ann.send(type="start")
        first = ann.state(lambda s: s["to_act"] == 0 and s["legal"] is not None)
        mine = 0
        if not first["history"]:  # Ann opens (the starter is drawn): her bid, then the bot's answer
            ann.send(type="act", action=["bid", 1, 2], ref=1)
            mine = 1
            ann.state(lambda s: any(h["seat"] == 1 for h in s["history"]) or s["last_round"] is not None)
    found = samples(client)
    # every move is counted; only a person's has a latency (from the move received to its update)
    assert value(found, "liarsdice_action_latency_seconds_count") == mine
    assert value(found, "liarsdice_actions_total") - mine >= 1


def test_each_app_has_its_own_registry(tmp_path: Path) -> None:
    with (
        TestClient(create_app(f"sqlite:///{tmp_path / 'a.sqlite3'}", Settings(**SETTINGS))) as a,
        TestClient(create_app(f"sqlite:///{tmp_path / 'b.sqlite3'}", Settings(**SETTINGS))) as b,
    ):
        create(a, "classic")
        assert value(samples(a), "liarsdice_tables", status="open") == 1
        assert value(samples(b), "liarsdice_tables", status="open") == 0


# ----- behind a reverse proxy -----


def test_invitation_links_follow_the_proxys_scheme_and_host(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", Settings(**SETTINGS))
    # what uvicorn puts in front of the app: nginx on the same machine is believed by default
    proxied: Any = ProxyHeadersMiddleware(app, trusted_hosts="127.0.0.1")
    with TestClient(proxied, client=("127.0.0.1", 40000)) as client:
        headers = {"Host": "dice.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
        r = client.post("/api/tables", json={"preset": "classic", "name": "Ann"}, headers=headers)
        assert r.status_code == 200, r.text
        assert r.json()["url"] == f"https://dice.example/t/{r.json()['code']}"


def test_serve_passes_the_trusted_proxies_to_uvicorn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from liarsdice.cli import app
    from liarsdice.server import run

    configs: list[Any] = []
    monkeypatch.setattr(run._Server, "run", lambda self, sockets=None: configs.append(self.config))
    # serve sets up logging on its stderr, which is CliRunner's buffer here, closed after the call:
    # a root handler left on it would break every later log line of the test session
    monkeypatch.setattr(run.logging, "basicConfig", lambda **kw: None)
    monkeypatch.setattr(run.uvicorn.Config, "configure_logging", lambda self: None)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    given = CliRunner().invoke(app, ["serve", "--database-url", url, "--forwarded-allow-ips", "10.0.0.5,10.0.0.6"])
    assert given.exit_code == 0, given.output
    default = CliRunner().invoke(app, ["serve", "--database-url", url])
    assert default.exit_code == 0, default.output
    assert [c.proxy_headers for c in configs] == [True, True]
    assert configs[0].forwarded_allow_ips == "10.0.0.5,10.0.0.6"
    assert configs[1].forwarded_allow_ips == "127.0.0.1,::1"  # uvicorn's default: a proxy on this machine


def test_serve_reads_the_database_url_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from liarsdice.cli import app
    from liarsdice.server import run

    # what a systemd EnvironmentFile gives: the URL (and any password in it) stays off the command line
    urls: list[str | None] = []
    monkeypatch.setattr(run, "run_server", lambda host, port, database_url, **kw: urls.append(database_url))
    from_env = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    monkeypatch.setenv("LIARSDICE_DATABASE_URL", from_env)
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    given = f"sqlite:///{tmp_path / 'given.sqlite3'}"
    assert CliRunner().invoke(app, ["serve", "--database-url", given]).exit_code == 0
    assert urls == [from_env, given]
