"""The pages' templates and the static files they name.

- Every page extends one layout: the header and its navigation are written once, in base.html.
- Each stylesheet, script and the icon is named with the version of its bytes, and an import map
  gives the modules the scripts import theirs, so a browser never keeps a file older than its page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.server import assets
from liarsdice.server.render import TEMPLATES
from test_server import serving


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def test_the_header_is_written_once_in_the_layout_every_page_extends() -> None:
    pages = sorted(p.name for p in TEMPLATES.glob("*.html"))
    assert "base.html" in pages and len(pages) > 6
    for name in pages:
        text = (TEMPLATES / name).read_text()
        if name == "base.html":
            assert text.count("<header") == 1 and text.count('<nav aria-label="Site">') == 1
        else:
            assert '{% extends "base.html" %}' in text and "<header" not in text and "<head>" not in text, name


def test_every_static_file_a_page_names_carries_its_version_and_is_served(client: TestClient) -> None:
    page = client.get("/t/ABCDEF").text
    named = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    sheets = [u for u in named if u.endswith(".css", 0, u.index("?"))]
    assert [u.split("?")[0] for u in sheets] == [f"/static/{s}" for s in assets.STYLESHEETS]
    assert "/static/js/table.js?v=" in page
    for url in named:
        path, _, version = url.partition("?v=")
        assert version == assets.version(path.removeprefix("/static/")), url
        assert client.get(url).status_code == 200, url
    # The modules the page's script imports by relative address get their versions from the map.
    found = re.search(r'<script type="importmap">(.*?)</script>', page)
    assert found is not None
    imports = json.loads(found.group(1))["imports"]
    modules = {f"/static/js/{p.name}" for p in (assets.STATIC / "js").glob("*.js")}
    assert set(imports) == modules and "/static/js/common.js" in imports
    assert all(target.startswith(source + "?v=") for source, target in imports.items())


def test_a_files_version_follows_its_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assets, "STATIC", tmp_path)
    (tmp_path / "a.css").write_text("p { color: red; }")
    first = assets.static_url("a.css")
    assert first == assets.static_url("a.css")
    (tmp_path / "a.css").write_text("p { color: blue; }")
    assert assets.static_url("a.css") != first


def test_a_page_without_a_script_has_no_import_map(client: TestClient) -> None:
    for path in ("/rules", "/rules/perudo", "/nowhere"):
        page = client.get(path).text
        assert "importmap" not in page and "<script" not in page, path
        assert page.count("<header") == 1, path


def test_a_versioned_file_is_kept_for_good_and_any_other_address_is_checked(client: TestClient) -> None:
    name = "css/base.css"
    current = client.get(assets.static_url(name))
    assert current.status_code == 200 and current.headers["cache-control"] == assets.FOREVER
    for address in (f"/static/{name}", f"/static/{name}?v=000000000000", f"/static/{name}?v="):
        response = client.get(address)
        assert response.status_code == 200 and response.headers["cache-control"] == assets.CHECK, address
    assert client.get("/static/css/nothing.css?v=1").status_code == 404
