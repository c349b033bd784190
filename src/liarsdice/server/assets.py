"""The addresses of the static files a page names (stylesheets, scripts, the icon), each with
the version of its bytes, so a browser never keeps a stylesheet or a script older than the page
that names it, however long it caches /static.

A version is the start of the file's SHA-256: a file that changes gets a new address, one that
does not keeps its address and stays cached. The table page's scripts are ES modules that import
each other by relative address ("./common.js"); an import map gives each of those its version too.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).parent / "static"
PREFIX = "/static/"

# Every page links these, in this order: the cascade is the one stylesheet's they were cut from
# (each file says what it holds).
STYLESHEETS = (
    "css/base.css",
    "css/pages.css",
    "css/dice.css",
    "css/table.css",
    "css/moves.css",
    "css/reveal.css",
    "css/replay.css",
    "css/analysis.css",
    "css/learn.css",
)


@lru_cache(maxsize=256)
def _digest(path: Path, mtime_ns: int, size: int) -> str:
    # Keyed by the file's time and size too: a file edited while the server runs gets its new
    # version on the next page, without reading every file for every page.
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def version(name: str) -> str:
    """The version of the static file `name` (a path under static/, such as "js/table.js")."""
    path = STATIC / name
    stat = path.stat()
    return _digest(path, stat.st_mtime_ns, stat.st_size)


def static_url(name: str) -> str:
    """The address of the static file `name` with its version: "/static/js/table.js?v=…"."""
    return f"{PREFIX}{name}?v={version(name)}"


def import_map() -> str:
    """The JSON of an import map that sends each module's plain address to its versioned one."""
    modules = sorted(p.relative_to(STATIC).as_posix() for p in (STATIC / "js").glob("*.js"))
    return json.dumps({"imports": {f"{PREFIX}{name}": static_url(name) for name in modules}}, separators=(",", ":"))


# A versioned address never changes its bytes: a browser may keep it as long as it likes. Any
# other address of /static (an old version, or none) is checked with the server each time.
FOREVER = "public, max-age=31536000, immutable"
CHECK = "no-cache"


class VersionedStaticFiles(StaticFiles):
    """/static, telling browsers to keep a file named with its current version for good, and to
    check any other address of it with the server before using a copy."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v", [""])[0]
            current = asked != "" and asked == version(Path(path).as_posix())
            response.headers["Cache-Control"] = FOREVER if current else CHECK
        return response
