"""A full disk, for real: a small tmpfs mounted in a child's own mount namespace (`unshare
-rm`: no root needed where user namespaces are allowed, and nothing mounted outside the
child), with bmn run in it as a user runs it. A first search the disk cuts short says the disk
is full and leaves nothing behind (no file the next command would refuse as no store); a read
on a full disk says so, with "nothing stored was lost", and leaves no -wal or -shm beside the
store; once there is room the same store reads and searches again."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a child per case, each starting bmn several times

BMN = f"{shlex.quote(sys.executable)} -m bmn.frontends.cli"
SEARCH = "search --iterations 100 --workers 1 --quiet"
FULL = "the disk is full"
KEPT = "nothing stored was lost"
# `say`: a line for the test; `run`: bmn, then its status and last line of stderr (kept beside
# the disk, not on it).
HELPERS = """say() { echo "@ $*"; }
run() { $BMN "$@" >/dev/null 2>"$D.err"; say "exit $? $(tail -1 "$D.err")"; }
"""


def on_a_small_disk(disk: Path, script: str) -> list[str]:
    """Run `script` (bash, `$D` the disk, `$BMN` bmn) in a child whose `disk` is a tmpfs
    mounted there; each `say` line of it, in order."""
    disk.mkdir()
    body = f"set -u\nD={shlex.quote(str(disk))}\nBMN='{BMN}'\n" + HELPERS
    done = subprocess.run(
        ["unshare", "-rm", "bash", "-c", body + script],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [line[2:] for line in done.stdout.splitlines() if line.startswith("@ ")]


@pytest.mark.parametrize("size", ["16k", "48k"])  # 16k: SQLite's "disk I/O error" (no -shm)
def test_a_first_search_on_a_full_disk_leaves_nothing(tmp_path, size):
    said = on_a_small_disk(
        tmp_path / "disk",
        f"""mount -t tmpfs -o size={size} tmpfs "$D"
run {SEARCH} --store "$D/s.sqlite"
say "left: $(ls -A "$D")"
mount -o remount,size=10m "$D"
run {SEARCH} --store "$D/s.sqlite"
run records runs --store "$D/s.sqlite"
""",
    )
    first, left, again, runs = said
    assert first.startswith("exit 1 Error: record store ") and FULL in first and KEPT in first
    assert left == "left: "
    assert again == "exit 0 " and runs == "exit 0 "


def test_a_read_on_a_full_disk_says_so_and_leaves_nothing_beside_the_store(tmp_path):
    said = on_a_small_disk(
        tmp_path / "disk",
        f"""mount -t tmpfs -o size=2m tmpfs "$D"
run {SEARCH} --store "$D/s.sqlite"
dd if=/dev/zero of="$D/fill" bs=4k 2>/dev/null
for command in "records runs" "records top" "records export" "records loops"; do
    run $command --store "$D/s.sqlite"
done
say "left: $(ls -A "$D" | tr '\\n' ' ')"
rm "$D/fill"
run records runs --store "$D/s.sqlite"
""",
    )
    made, *reads, left, after = said
    assert made == "exit 0 "
    for read in reads:
        assert read.startswith("exit 1 Error: record store ") and FULL in read and KEPT in read
    assert left == "left: fill s.sqlite "
    assert after == "exit 0 "
