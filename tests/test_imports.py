"""The house kept straight: imports run one way.

The import graph of `src/liarsdice` is read from the source, file by file: every `import` and
`from ... import` anywhere in a file (module level, inside functions, under TYPE_CHECKING), since
a lazy import that breaks a loop at run time still ties the two files. The graph must have

- no files that import each other in a loop (a circle);
- no loop between the package's top-level parts, its subpackages and root modules (a layer circle:
  some import runs back up a layer);
- a core, `liarsdice.rules`, that imports nothing but the standard library and itself.

Each failure names the files and the import statements that tie them. The checker is the same as
`shared/tools/import_graph.py` (how a name resolves to a file), kept here so the suite needs only
the standard library; its own tests build small packages with and without a loop.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "liarsdice"
CORE = "rules"


@dataclass(frozen=True)
class Tie:
    """One import statement that makes a file depend on another."""

    line: int
    statement: str  # as written, e.g. `from .rooms import Room`


@dataclass(frozen=True)
class ImportGraph:
    root: Path  # the folder that holds the package
    package: str
    files: dict[str, Path]  # module name -> its file
    arrows: dict[str, dict[str, list[Tie]]]  # module -> the modules it imports -> the statements

    def where(self, module: str) -> str:
        return self.files[module].relative_to(self.root).as_posix()

    def ties(self, source: str, target: str) -> str:
        return "; ".join(f"line {t.line}: `{t.statement}`" for t in self.arrows[source][target])


def module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve(name: str, modules: Set[str]) -> str | None:
    """The longest prefix of a dotted name that is a module of the package."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(path: Path, module: str, modules: Set[str], package: str) -> dict[str, list[Tie]]:
    """The package's modules that the file imports, each with the statements that import it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    base = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: dict[str, list[Tie]] = {}

    def add(target: str | None, node: ast.Import | ast.ImportFrom) -> None:
        if target is None or target == module:
            return
        tie = Tie(node.lineno, ast.unparse(node))
        ties = out.setdefault(target, [])
        if tie not in ties:
            ties.append(tie)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == package:
                    add(resolve(alias.name, modules), node)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
                if target.split(".")[0] != package:
                    continue
            for alias in node.names:  # `from pkg import submodule` names a file
                named = f"{target}.{alias.name}"
                if alias.name != "*" and resolve(named, modules) == named:
                    add(named, node)
                else:
                    add(resolve(target, modules), node)
    return out


def import_graph(root: Path, package: str) -> ImportGraph:
    files = {module_of(p, root): p for p in sorted((root / package).rglob("*.py"))}
    arrows = {m: imports_of(p, m, files.keys(), package) for m, p in files.items()}
    return ImportGraph(root, package, files, arrows)


def loops(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more nodes, each sorted (Kosaraju, without
    recursion: the order of a depth-first search, then the reversed graph in reverse order)."""
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})
    after: dict[str, list[str]] = {n: sorted(graph.get(n, ())) for n in nodes}
    before: dict[str, list[str]] = {n: [] for n in nodes}
    for n in nodes:
        for t in after[n]:
            before[t].append(n)
    seen: set[str] = set()
    finished: list[str] = []
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(after[start]))]
        while stack:
            node, rest = stack[-1]
            step = next((t for t in rest if t not in seen), None)
            if step is None:
                stack.pop()
                finished.append(node)
            else:
                seen.add(step)
                stack.append((step, iter(after[step])))
    placed: set[str] = set()
    groups: list[list[str]] = []
    for start in reversed(finished):
        if start in placed:
            continue
        group, todo = [], [start]
        placed.add(start)
        while todo:
            node = todo.pop()
            group.append(node)
            for t in before[node]:
                if t not in placed:
                    placed.add(t)
                    todo.append(t)
        if len(group) > 1:
            groups.append(sorted(group))
    return sorted(groups)


def layer_of(module: str) -> str:
    """The top-level part of the package a module belongs to: a subpackage or a root module."""
    return ".".join(module.split(".")[:2])


def file_circles(g: ImportGraph) -> list[str]:
    """Each loop of files, with the imports inside it."""
    out = []
    for group in loops({m: set(ts) for m, ts in g.arrows.items()}):
        inside = set(group)
        lines = [f"{len(group)} files import each other in a loop: {', '.join(g.where(m) for m in group)}"]
        for m in group:
            for t in sorted(set(g.arrows[m]) & inside):
                lines.append(f"    {g.where(m)} -> {g.where(t)}: {g.ties(m, t)}")
        out.append("\n".join(lines))
    return out


def layer_circles(g: ImportGraph) -> list[str]:
    """Each loop of top-level parts, with the file imports that make its arrows."""
    layers: dict[str, set[str]] = {layer_of(m): set() for m in g.files}
    for m, ts in g.arrows.items():
        layers[layer_of(m)] |= {layer_of(t) for t in ts if layer_of(t) != layer_of(m)}
    out = []
    for group in loops(layers):
        inside = set(group)
        lines = [f"{len(group)} top-level parts import each other in a loop: {', '.join(group)}"]
        for part in group:
            for other in sorted(layers[part] & inside):
                lines.append(f"  {part} -> {other}:")
                for m in sorted(x for x in g.arrows if layer_of(x) == part):
                    for t in sorted(t for t in g.arrows[m] if layer_of(t) == other):
                        lines.append(f"    {g.where(m)} -> {g.where(t)}: {g.ties(m, t)}")
        out.append("\n".join(lines))
    return out


def core_leaks(g: ImportGraph, core: str) -> list[str]:
    """Every import of the core (`package.core`) that reaches outside it: another part of the
    package, or anything that is not the standard library."""
    prefix = f"{g.package}.{core}"

    def in_core(module: str) -> bool:
        return module == prefix or module.startswith(prefix + ".")

    out = []
    for m in sorted(g.files):
        if not in_core(m):
            continue
        for t in sorted(g.arrows[m]):
            if not in_core(t):
                out.append(f"{g.where(m)} imports {g.where(t)} (outside {prefix}): {g.ties(m, t)}")
        tree = ast.parse(g.files[m].read_text(encoding="utf-8"), str(g.files[m]))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                if top != g.package and top not in sys.stdlib_module_names:
                    out.append(
                        f"{g.where(m)} imports {top}, not the standard library: "
                        f"line {node.lineno}: `{ast.unparse(node)}`"
                    )
    return out


# ----- the package -----


@pytest.fixture(scope="module")
def house() -> ImportGraph:
    return import_graph(SRC, PACKAGE)


def test_the_graph_is_read(house: ImportGraph) -> None:
    assert f"{PACKAGE}.{CORE}" in house.files
    assert sum(len(ts) for ts in house.arrows.values()) > len(house.files)  # not an empty reading


def test_no_files_import_each_other_in_a_loop(house: ImportGraph) -> None:
    found = file_circles(house)
    if found:
        pytest.fail("\n".join(found), pytrace=False)


def test_no_top_level_parts_import_each_other_in_a_loop(house: ImportGraph) -> None:
    found = layer_circles(house)
    if found:
        pytest.fail("\n".join(found), pytrace=False)


def test_the_rules_import_only_the_standard_library_and_themselves(house: ImportGraph) -> None:
    found = core_leaks(house, CORE)
    if found:
        pytest.fail("\n".join(found), pytrace=False)


# ----- the checker itself, on small packages -----


def make_package(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_loop_of_files_is_found_and_named_with_its_imports(tmp_path: Path) -> None:
    root = make_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/table.py": "from .seat import Seat\n",
            # lazy, inside a function: it still ties the files
            "pkg/seat.py": "class Seat:\n    def table(self):\n        from . import table\n        return table\n",
            "pkg/cup.py": "import pkg.seat\n",
        },
    )
    found = file_circles(import_graph(root, "pkg"))
    assert len(found) == 1
    (text,) = found
    assert "2 files import each other in a loop: pkg/seat.py, pkg/table.py" in text
    assert "pkg/table.py -> pkg/seat.py: line 1: `from .seat import Seat`" in text
    assert "pkg/seat.py -> pkg/table.py: line 3: `from . import table`" in text
    assert "cup" not in text  # it imports into the loop, it is not part of it


def test_files_importing_one_way_pass(tmp_path: Path) -> None:
    root = make_package(
        tmp_path,
        {
            "pkg/__init__.py": "from .table import Table\n",
            "pkg/table.py": "from .seat import Seat\nfrom pkg.cup import Cup\n",
            "pkg/seat.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .cup import Cup\n",
            "pkg/cup.py": "import json\n",
        },
    )
    g = import_graph(root, "pkg")
    assert g.arrows["pkg"].keys() == {"pkg.table"}
    assert g.arrows["pkg.table"].keys() == {"pkg.seat", "pkg.cup"}
    assert g.arrows["pkg.seat"].keys() == {"pkg.cup"}  # under TYPE_CHECKING too
    assert file_circles(g) == []
    assert layer_circles(g) == []


def test_a_loop_of_top_level_parts_is_found_without_a_loop_of_files(tmp_path: Path) -> None:
    root = make_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/bots/__init__.py": "",
            "pkg/bots/strong.py": "from ..server.rooms import Room\n",
            "pkg/server/__init__.py": "",
            "pkg/server/rooms.py": "",
            "pkg/server/app.py": "def serve():\n    from pkg.bots import strong\n",
        },
    )
    g = import_graph(root, "pkg")
    assert file_circles(g) == []
    (text,) = layer_circles(g)
    assert "2 top-level parts import each other in a loop: pkg.bots, pkg.server" in text
    up = "  pkg.bots -> pkg.server:\n    pkg/bots/strong.py -> pkg/server/rooms.py: line 1: `from ..server.rooms"
    down = "  pkg.server -> pkg.bots:\n    pkg/server/app.py -> pkg/bots/strong.py: line 2: `from pkg.bots import"
    assert up in text
    assert down in text


def test_a_core_reaching_outside_itself_is_named(tmp_path: Path) -> None:
    root = make_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/rules/__init__.py": "from .bids import Bid\n",
            "pkg/rules/bids.py": "from __future__ import annotations\nimport json\nimport numpy as np\n",
            "pkg/rules/state.py": "def f():\n    from ..bots import Bot\n",
            "pkg/bots.py": "from .rules import Bid\n",
        },
    )
    found = core_leaks(import_graph(root, "pkg"), "rules")
    assert found == [
        "pkg/rules/bids.py imports numpy, not the standard library: line 3: `import numpy as np`",
        "pkg/rules/state.py imports pkg/bots.py (outside pkg.rules): line 2: `from ..bots import Bot`",
    ]


def test_a_core_of_the_standard_library_passes(tmp_path: Path) -> None:
    root = make_package(
        tmp_path,
        {
            "pkg/__init__.py": "from .rules import Bid\n",
            "pkg/rules/__init__.py": "from .bids import Bid\nfrom pkg.rules import state\n",
            "pkg/rules/bids.py": "import itertools\nfrom collections.abc import Sequence\n",
            "pkg/rules/state.py": "import os.path\n",
        },
    )
    assert core_leaks(import_graph(root, "pkg"), "rules") == []


def test_the_groups_are_the_strongly_connected_ones() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert loops(graph) == [["a", "b", "c"], ["d", "e"]]
    assert loops({"a": {"b"}, "b": set()}) == []
