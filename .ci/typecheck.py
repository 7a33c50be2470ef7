"""Type-check bmn's public API (the library of docs/library.md) with mypy.

The source folders are mapped into the `bmn` namespace by pyproject.toml's package-dir, and an
editable install reaches them through an import hook mypy cannot follow; so a temporary folder
holds bmn/kernels, bmn/records, bmn/search and bmn/frontends as links to them, and mypy reads
that. Only the API modules are checked (imports followed silently). Exit status: mypy's.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = [
    "bmn.kernels",
    "bmn.kernels.api",
    "bmn.kernels.exports",
    "bmn.records",
    "bmn.records.api",
    "bmn.search",
    "bmn.search.api",
    "bmn.search.runs.start",
]

with tempfile.TemporaryDirectory() as folder:
    tree = Path(folder) / "src" / "bmn"
    tree.mkdir(parents=True)
    for package in ("kernels", "records", "search", "frontends"):
        (tree / package).symlink_to(ROOT / package, target_is_directory=True)
    command = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental"]
    command += [arg for module in MODULES for arg in ("-m", module)]
    env = {**os.environ, "MYPYPATH": str(tree.parent)}
    sys.exit(subprocess.run(command, cwd=folder, env=env).returncode)
