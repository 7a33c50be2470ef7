"""The plain words bmn's output and runs share: counts with their noun, durations and clock
times, ordinals. A leaf: it imports nothing of bmn, so any floor of search/ may use it."""

from __future__ import annotations


def duration(seconds: float | None) -> str:
    """A running clock, to the second: 4m05s, 1h02m03s; '-' when unknown."""
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def format_duration(seconds: float) -> str:
    """A stored length of time, short: 42.0s, 7m05s, 8h02m, 3d04h."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d{hours:02d}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s"


def short_time(stamp: str) -> str:
    """An ISO-8601 UTC stamp to the minute: 2026-11-29 16:11."""
    return stamp[:16].replace("T", " ")


def counted(n: int, thing: str, things: str | None = None) -> str:
    """'1 thread', '2 threads', '1,024 deals': a count and its noun, singular for one."""
    return f"{n:,} {thing if n == 1 else things or thing + 's'}"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"
