"""The HTTP API and the websockets (docs/protocol.md), one FastAPI router per concern: tables,
bots, finished games, the ladder, operations, the table websocket. `app.create_app` includes
them; the pages people open are pages.py's."""
