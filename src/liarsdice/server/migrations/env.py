"""Alembic environment: run with the connection the store hands over (see storage.migrate), or
from a URL given as `sqlalchemy.url` when Alembic is run by hand."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from liarsdice.server.storage import Base, normalise_url

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set sqlalchemy.url, or let liarsdice.server.storage.migrate run the migrations")
    engine = create_engine(normalise_url(url))
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
