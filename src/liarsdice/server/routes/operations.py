"""For load balancers, supervisors and Prometheus (docs/deploy.md): `/healthz` and `/metrics`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..manager import RoomManager
from ..metrics import CONTENT_TYPE_LATEST, DatabaseCheck, health
from ..storage import Store
from .shared import StrictJSONRoute, metrics_of, settings_of

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/healthz", include_in_schema=False)
async def healthz(request: Request) -> JSONResponse:
    state = request.app.state
    store: Store | None = getattr(state, "store", None)
    database_check: DatabaseCheck = state.database_check
    problem = "the server is starting or stopping" if store is None else await database_check(store.engine)
    manager: RoomManager | None = getattr(state, "rooms", None)
    cluster = manager.cluster if manager is not None else None
    redis_problem = None
    if cluster is not None and not cluster.safe():
        # It cannot hold a table's lease: a load balancer should send people elsewhere.
        redis_problem = "Redis has not answered for a while: this process runs no table until it does"
    started: float = state.started
    status, body = health(started, problem, redis_problem, redis=settings_of(request).redis_url is not None)
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    return Response(metrics_of(request).exposition(), media_type=CONTENT_TYPE_LATEST)
