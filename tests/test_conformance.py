"""The conformance scenarios: the published ones (vendored from shared/conformance) and this
project's own, each run through the scenario runner and through the `liarsdice scenario` command
with the published checker."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from liarsdice.scenario import run_scenario

HERE = Path(__file__).parent / "conformance"
PUBLISHED = HERE / "cases.yaml"
EXTRA = HERE / "extra_cases.yaml"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "conformance"


def _load_checker() -> Any:
    spec = importlib.util.spec_from_file_location("conformance_check", HERE / "check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check = _load_checker()


def _cases(path: Path) -> list[dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, list) and data
    return data


def _stripped(case: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in case.items() if k not in ("expect", "title", "expect_setup_error", "expect_absent")}


@pytest.mark.parametrize("case", _cases(PUBLISHED), ids=lambda c: c["id"])
def test_published_case(case: dict[str, Any]) -> None:
    line = json.loads(json.dumps(run_scenario(_stripped(case))))
    assert check.compare(case, line) == []


@pytest.mark.parametrize("case", _cases(EXTRA), ids=lambda c: c["id"])
def test_extra_case(case: dict[str, Any]) -> None:
    line = json.loads(json.dumps(run_scenario(_stripped(case))))
    assert line["id"] == case["id"]
    wanted_error = case.get("expect_setup_error")
    if wanted_error:
        assert "observed" not in line, line
        assert line["error"].strip()
        if isinstance(wanted_error, str):
            assert wanted_error in line["error"], line
        return
    assert check.compare(case, line) == []
    # The published checker cannot say that a key is left out; FORMAT.md often demands it.
    present = [key for key in case.get("expect_absent", []) if key in line["observed"]]
    assert present == [], f"{present} should be left out: {line}"


def test_ids_are_unique() -> None:
    ids = [c["id"] for c in _cases(PUBLISHED) + _cases(EXTRA)]
    assert len(ids) == len(set(ids))


@pytest.mark.skipif(not SHARED.exists(), reason="shared/conformance is not beside this checkout")
def test_vendored_copy_matches_shared() -> None:
    for name in ("cases.yaml", "check.py", "FORMAT.md"):
        assert (HERE / name).read_bytes() == (SHARED / name).read_bytes(), f"{name} differs from shared/"


def _without_extensions(case: dict[str, Any]) -> dict[str, Any]:
    """A case as the published format has it: without this project's extra expectation keys."""
    return {k: v for k, v in case.items() if k not in ("expect_setup_error", "expect_absent")}


def _command() -> list[str]:
    exe = Path(sys.executable).with_name("liarsdice")
    if exe.exists():
        return [str(exe), "scenario"]
    return [sys.executable, "-m", "liarsdice.cli", "scenario"]


@pytest.mark.parametrize("path", [PUBLISHED, EXTRA], ids=["published", "extra"])
def test_scenario_command_with_published_checker(path: Path, tmp_path: Path) -> None:
    cases = [_without_extensions(c) for c in _cases(path) if not c.get("expect_setup_error")]
    file = tmp_path / "cases.yaml"
    file.write_text(yaml.safe_dump(cases), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(HERE / "check.py"), str(file), "--", *_command()],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith(f"{len(cases)} passed, 0 failed")


def test_scenario_command_reports_setup_errors_and_goes_on(tmp_path: Path) -> None:
    cases = [
        {"id": "bad", "preset": "nonesuch", "seats": ["A", "B"], "dice": {"A": [1], "B": [2]}, "starter": "A"},
        {
            "id": "good",
            "preset": "classic",
            "seats": ["A", "B"],
            "dice": {"A": [1], "B": [2]},
            "starter": "A",
            "actions": [["A", "bid", 1, 2]],
        },
    ]
    file = tmp_path / "cases.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    run = subprocess.run([*_command(), str(file)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0
    lines = [json.loads(x) for x in run.stdout.splitlines()]
    assert lines[0]["id"] == "bad" and "nonesuch" in lines[0]["error"]
    assert lines[1] == {"id": "good", "observed": {"result": "legal"}}


@pytest.mark.parametrize("content", ["{not yaml: [", "42"])
def test_scenario_command_refuses_unreadable_files(tmp_path: Path, content: str) -> None:
    file = tmp_path / "broken.yaml"
    file.write_text(content, encoding="utf-8")
    run = subprocess.run([*_command(), str(file)], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "error" in run.stderr and run.stdout == ""


def test_scenario_command_refuses_a_missing_file(tmp_path: Path) -> None:
    run = subprocess.run([*_command(), str(tmp_path / "nope.yaml")], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "cannot read" in run.stderr
