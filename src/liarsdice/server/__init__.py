"""Play in the browser: `liarsdice serve` (FastAPI + uvicorn + websockets + SQLAlchemy)."""
