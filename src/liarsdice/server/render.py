"""The site's pages from the templates in server/templates: one layout (base.html: the head,
the header and its navigation, the footer) that every page extends, so the header is written once.

A page template sets, before its blocks, what the layout reads:
`title` (before " · Liar's Dice"), `current` (the address its navigation link marks),
`script` (its module under static/js), `skip_to` and `skip_text` (the skip link).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from .assets import STYLESHEETS, import_map, static_url
from .signedin import signed_in_name

TEMPLATES = Path(__file__).parent / "templates"


def escaped(value: object) -> object:
    """A value as the pages have always escaped it (Python's html.escape: `&#x27;`, `&quot;`),
    not markupsafe's spelling (`&#39;`, `&#34;`); HTML already marked safe goes as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


environment = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=True,
    finalize=escaped,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
environment.globals.update(
    static=static_url,
    import_map=lambda: Markup(import_map()),
    stylesheets=STYLESHEETS,
    signed_in_name=signed_in_name,  # the navigation's account link (signedin.py)
)


def render(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The page `template` filled with `context`. A refusal (status 400 and up) is not stored by
    any cache: the same address may be a page a moment later."""
    text = environment.get_template(template).render(**context)
    return HTMLResponse(text, status_code=status, headers={"Cache-Control": "no-store"} if status >= 400 else None)
