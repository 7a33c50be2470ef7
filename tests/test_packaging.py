"""The built wheel holds every module and the package data: an editable install (which the
suite runs under) imports straight from the folders, so it would hide a package missing from
pyproject.toml's list."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from bmn.records.published import FILES

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "kernels": "bmn/kernels",
    "search": "bmn/search",
    "records": "bmn/records",
    "frontends": "bmn/frontends",
}
PACKAGE_DATA = [f"bmn/records/{name}" for name in FILES.values()]
PACKAGE_DATA += [  # bmn records serve's pages
    f"bmn/frontends/serve/templates/{page.name}"
    for page in (ROOT / "frontends" / "serve" / "templates").glob("*.html")
]
PACKAGE_DATA.append("bmn/search/measure/length_tail.json")  # the odds' fitted tail
PACKAGE_DATA += [
    f"bmn/{package}/py.typed" for package in ("kernels", "records", "search", "frontends")
]


@pytest.mark.slow
def test_wheel_holds_every_module_and_the_package_data(tmp_path):
    # Build from a copy, so the build leaves no build/ or egg-info in the working tree.
    source = tmp_path / "source"
    for folder in [*FOLDERS, "lab"]:  # the lab beside them, as in a clone: not installed
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*build, "--no-index", "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("bmn-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())

    modules = {
        f"{package}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder, package in FOLDERS.items()
        for path in (ROOT / folder).rglob("*.py")
    }
    assert len(modules) > 30
    assert modules - names == set()
    assert set(PACKAGE_DATA) - names == set()
    stray = {n for n in names if n.startswith("bmn/") and n not in modules | set(PACKAGE_DATA)}
    assert stray == set()  # no caches, no tests
    assert [n for n in names if n.split("/")[0] == "lab"] == []  # the lab is not installed
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "bmn = bmn.frontends.cli.entry:main" in scripts
