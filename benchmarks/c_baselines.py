"""What the benchmarks that measure against ../shared/baseline's C simulators share: the rate a
simulator prints, and the machine's CPU model to print beside it. Imported by the scripts beside
it (a script's own folder is first on sys.path when it is run)."""

from __future__ import annotations

import re
import subprocess


def games_per_s(command: list[str]) -> float:
    """The games a second a C simulator run as `command` prints (its `games/s=` figure)."""
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    found = re.search(r"games/s=([0-9.]+)", text)
    if found is None:
        raise RuntimeError(f"unexpected output from {command[0]}: {text!r}")
    return float(found.group(1))


def model_name() -> str:
    """The CPU's model name, as lscpu gives it."""
    text = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    found = re.search(r"Model name:\s*(.+)", text)
    return found.group(1).strip() if found else "unknown"
