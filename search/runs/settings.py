"""Every setting a run takes, declared once: its type, its range, its default, what it means.

Both front ends read this one table. `bmn search` makes its options from it (their types, help
and defaults: frontends/cli/search.py) and `bmn.search.search` reads its keyword arguments with it
(search/api.py); which kind of run takes which setting is registry.py's. A value is read the same
way on both (a duration as '10s' or a number of seconds, a whole number as 5 or '5') and a bad
one raises SearchOptionError before a store is opened, named as it was given: `keep_above` in
Python, `--keep-above` on the command line (the message is `Words`, said.py, said by each
front end in its own words). Plain Python: `bmn --help` reads it.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bmn.kernels.cuda.env import THREADS_PER_BLOCK
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.kernels.rules.sets import RuleSet, names, rule_set
from bmn.records.store.values import INT64_MAX
from bmn.search.runs.registry import KINDS
from bmn.search.runs.said import FLAGS, Words, flag, in_python, on_command_line
from bmn.search.strategies.registry import (
    CHOICES,
    DEFAULT_HISTORY,
    DEFAULT_PATIENCE,
    DEFAULT_STRATEGY,
    strategy_help,
)

MAX_WORKERS = 1024  # threads or processes: far above any machine bmn runs on, far below a crash
MAX_SECONDS = 365 * 86400  # a search checkpoints and resumes: longer runs go in parts
MAX_HISTORY = 10_000_000  # lahc keeps this many scores per worker in memory
MAX_DEVICE_THREADS = 1 << 22  # 16 times the threads an H200 keeps resident; 200 bytes each
MAX_RANK_DIGITS = 100  # a rank past any deck the kernels play (64 cards: 90 digits at most)
KEEP_ABOVE = 3000  # --keep-above by default: a few finds a second at most, on any machine
SEED_WORDS = "a seed: a whole number from 0 to 2**63 - 1"  # one seed rule in every command
_WHOLE = re.compile(r"[+-]?\d+(_\d+)*", re.ASCII)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class SearchOptionError(ValueError):
    """A setting of a search that is bad or conflicts with others: `option` names it (as the
    command line's parameter, 'seconds' for --time), `words` say why (said.Words, or plain
    text). Its message is the library's, in Python's words; `why` is the command line's."""

    def __init__(self, option: str, why: str | Words):
        self.option = option
        self.words = why
        super().__init__(f"{option} {in_python(why)}")

    @property
    def why(self) -> str:
        """Why, in the command line's words (the option is named by the command line)."""
        return on_command_line(self.words)


class Refused(ValueError):
    """A value a setting's type or range refuses; the message says why, without its name."""


def limit(n: int) -> str:
    """A bound as bmn writes it: '2**63 - 1' for the largest whole number, else '1,024'."""
    return "2**63 - 1" if n == INT64_MAX else f"{n:,}"


def read_whole(value: Any, low: int = 0, high: int = INT64_MAX, what: str | None = None) -> int:
    """A whole number from `low` to `high` (at most 2**63 - 1, what the store and the kernels
    hold), given as an int or as text ('1_000', '+5'); Refused otherwise."""
    high = min(high, INT64_MAX)
    expected = what or (
        f"a whole number of at least {low:,}"
        if high == INT64_MAX
        else f"a whole number from {low:,} to {limit(high)}"
    )
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        text = value.strip()
        digits = text.lstrip("+-").replace("_", "")
        # Python refuses to read ints of thousands of digits: anything this long is out of range.
        number = (INT64_MAX + 1) if len(digits) > 30 else int(digits)
        number = -number if text.startswith("-") else number
    else:
        raise Refused(f"{_shown(value)} is not {expected}")
    if number < low:
        raise Refused(
            f"{_shown(str(value).strip(), quote=False)} is too small: expected {expected}"
        )
    if number > high:
        raise Refused(
            f"{_shown(str(value).strip(), quote=False)} is too large: expected at most"
            f" {limit(high)}"
        )
    return number


def read_duration(value: Any) -> float:
    """Seconds from a number or from text (90s, 10m, 8h, 1h30m, 2d, or plain seconds):
    positive, at most a year; Refused otherwise."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if re.fullmatch(r"\d+(\.\d+)?", text, re.ASCII):
            seconds = float(text)
        elif re.fullmatch(r"(\d+(\.\d+)?[smhd])+", text, re.ASCII):
            parts = re.findall(r"(\d+(?:\.\d+)?)([smhd])", text, re.ASCII)
            seconds = sum(float(n) * _UNITS[u] for n, u in parts)
        else:
            raise Refused(f"{_shown(value)} is not a duration; use e.g. 90s, 10m, 8h or 1h30m")
    else:
        raise Refused(f"{_shown(value)} is not a duration; use e.g. 90s, 10m, 8h or 1h30m")
    if not seconds > 0:  # NaN too
        raise Refused(f"{_shown(value)}: a duration must be positive")
    if seconds > MAX_SECONDS:
        raise Refused(
            f"{_shown(value)} is more than a year (365d), the longest bmn takes; a search"
            " resumes where it stopped, so run a longer one in parts"
        )
    return seconds


def _shown(value: Any, quote: bool = True) -> str:
    """A value as an error line quotes it: text in quotes, at most 60 characters of it."""
    text = repr(value) if isinstance(value, str) and quote else str(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text):,} characters)"


def _choice(setting: Setting, value: Any) -> str:
    if not isinstance(value, str) or value not in setting.choices:
        choices = ", ".join(map(repr, setting.choices))
        raise Refused(f"{_shown(value)} is not one of {choices}")
    return value


def _rules(setting: Setting, value: Any) -> str:
    """A rule set's name, any case, as stored: an alias is the set it names ('acinnes' is
    'bmn': kernels/rules/sets.py)."""
    if isinstance(value, RuleSet):
        return value.name
    if isinstance(value, str) and value.strip().lower() in names():
        return rule_set(value.strip().lower()).name
    raise Refused(f"{_shown(value)} is not a rule set; choose one of: {', '.join(names())}")


def _deck(setting: Setting, value: Any) -> str:
    """'standard', 'mixed' (the loop hunt's) or counts N,J,Q,K,A written plainly, as the run
    stores it (' 36, 4,4,4,4 ' is '36,4,4,4,4'); the counts may be given as a list or tuple
    of whole numbers too, read by the same rule ([36, 4, 4, 4, 4])."""
    from bmn.kernels.deal import DealError
    from bmn.kernels.decks import counts_text, parse_counts

    if isinstance(value, (list, tuple)) and all(
        isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in value
    ):
        value = counts_text(value)
    if not isinstance(value, str):
        raise Refused(f"{_shown(value)} is not a deck: 'standard' or counts N,J,Q,K,A")
    text = "".join(value.split())
    if text.lower() in ("standard", "mixed"):
        return text.lower()
    try:
        return counts_text(parse_counts(text))
    except DealError as err:
        raise Refused(f"{err}, or 'standard' (36,4,4,4,4)") from None


def _sizes(setting: Setting, value: Any) -> tuple[int, ...]:
    """Hand sizes, seat 0's first, as many as seats: (10, 10) or '10,10'."""
    parts = value.replace(" ", "").split(",") if isinstance(value, str) else value
    expected = f"{_shown(value)}: expected 2 to 4 hand sizes >= 0, like 10,10"
    if not isinstance(parts, (list, tuple)) or not 2 <= len(parts) <= 4:
        raise Refused(expected)
    try:
        return tuple(read_whole(part, 0) for part in parts)
    except Refused:
        raise Refused(expected) from None


def _rank(setting: Setting, value: Any) -> int:
    """A rank of a deck's deals: a whole number >= 0, as large as the deck's (past 64 bits)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
    else:
        text = value.strip().replace("_", "").replace(",", "") if isinstance(value, str) else ""
        digits = re.fullmatch(r"\d+", text, re.ASCII) and len(text) <= MAX_RANK_DIGITS
        number = int(text) if digits else -1
    if number < 0 or number >= 10**MAX_RANK_DIGITS:
        raise Refused(f"{_shown(value)} is not a rank: a whole number of at least 0")
    return number


def _whole(setting: Setting, value: Any) -> int:
    number = read_whole(value, setting.low, setting.high, setting.what)
    if setting.rule is not None:
        setting.rule(number)
    return number


def _duration(setting: Setting, value: Any) -> float:
    return read_duration(value)


def _whole_blocks(threads: int) -> None:
    """GPU threads come in whole blocks: 1 to a block's threads, or a multiple of them."""
    if threads > THREADS_PER_BLOCK and threads % THREADS_PER_BLOCK:
        raise Refused(
            f"must be 1 to {THREADS_PER_BLOCK} or a multiple of {THREADS_PER_BLOCK}"
            f" (whole blocks of {THREADS_PER_BLOCK} threads); got {threads:,}"
        )


READERS: dict[str, Callable[[Setting, Any], Any]] = {
    "whole": _whole,
    "duration": _duration,
    "choice": _choice,
    "rules": _rules,
    "deck": _deck,
    "sizes": _sizes,
    "rank": _rank,
}


@dataclass(frozen=True)
class Setting:
    """One setting of a run: its Python name (a keyword of `bmn.search.search`), its type
    (a key of READERS) and range, its default (None: the run's kind chooses), each kind's
    own default where kinds differ (`defaults`: the kinds' options read them from here) and
    its meaning (the command line's help: `means`, each {name} in it one of `defaults`)."""

    name: str
    type: str
    means: str
    default: Any = None
    low: int = 0
    high: int = INT64_MAX
    choices: tuple[str, ...] = ()
    rule: Callable[[int], None] | None = None  # a further check of a whole number
    what: str | None = None  # what a whole number is, in words, where not its range
    defaults: dict[str, Any] = field(default_factory=dict, hash=False)  # where -> its default

    @property
    def help(self) -> str:
        """What it means, with the defaults it names."""
        return self.means.format(**self.defaults)

    @property
    def option(self) -> str:
        """Its command-line option: '--keep-above', '--time'."""
        return flag(self.name)

    @property
    def flag(self) -> str:
        """Its option where that is not --name with dashes ('--time'), else ''."""
        return FLAGS.get(self.name, "")

    def read(self, value: Any) -> Any:
        """The value, read and checked; Refused saying why (without the setting's name)."""
        return READERS[self.type](self, value)

    def check(self, value: Any) -> Any:
        """The value read and checked, as Python gave it; SearchOptionError naming it."""
        try:
            return self.read(value)
        except Refused as err:
            raise SearchOptionError(self.name, str(err)) from None


# The --objective values: those some kind of run plays (registry.py), in the registry's order.
OBJECTIVES = tuple(dict.fromkeys(o for kind in KINDS.values() for o in kind.objectives))
DEVICES = ("cpu", "cuda")
GROW_FROM = ("known", "descent")

DECLARED = (
    Setting("strategy", "choice", strategy_help(), DEFAULT_STRATEGY, choices=tuple(CHOICES)),
    Setting(
        "objective",
        "choice",
        "What makes a deal better; loop: hunt non-terminating deals instead (random even deals"
        " of --deck; every cycle found is stored once under its canonical key, with its"
        " period and whether a balanced deal reaches it, by backward play; see `bmn records"
        " loops`); grow: build standard-deck cycles from closed pieces (see --grow-from) and"
        " store each with its most balanced starting deal (see `bmn records loops --standard`).",
        "cards",
        choices=OBJECTIVES,
    ),
    Setting(
        "seconds",
        "duration",
        "How long to search: 90s, 10m, 8h, 1h30m, at most 365d [default: {timed}, unless"
        " --iterations is given]. With --iterations too, the run stops at whichever comes first.",
        defaults={"timed": "1m"},  # a run of a kind that is timed (registry.RunKind.timed)
    ),
    Setting(
        "iterations",
        "whole",
        "Score this many deals (reproducible with --seed); with --time too, the run stops at"
        " whichever comes first. grow: this many rounds (each: 200,000 random descents for"
        " closed pieces, then 8 standard deals assembled from them and judged).",
        low=1,
    ),
    Setting(
        "workers",
        "whole",
        f"Search streams, at most {MAX_WORKERS:,}: threads, or tasks at once on a Dask cluster"
        " [default: every core, or every worker thread of the cluster]. grow: independent piece"
        " hunts, one per thread [default: {grow}; its work is mostly Python, so more threads"
        " gain little].",
        low=1,
        high=MAX_WORKERS,
        defaults={"grow": 1},
    ),
    Setting(
        "players",
        "whole",
        "Seats at the table, 2 to 4: the deck dealt one card at a time from seat 0 (the"
        " standard deck: 26/26, 18/17/17, 13 each); stored with the run.",
        2,
        low=2,
        high=4,
    ),
    Setting(
        "seed",
        "whole",
        "Seed, 0 to 2**63 - 1; drawn at random and stored with the run if omitted.",
        what=SEED_WORDS,
    ),
    Setting(
        "keep_above",
        "whole",
        "Store every deal of at least this many cards, not only the best (a threshold that"
        " keeps more than 20 a second, on two cores about 2,000 or less, is warned of).",
        KEEP_ABOVE,
    ),
    Setting(
        "patience",
        "whole",
        "climb only: deals without improvement before a restart.",
        DEFAULT_PATIENCE,
        low=1,
    ),
    Setting(
        "history",
        "whole",
        f"lahc only: length of the late-acceptance history (at most {MAX_HISTORY:,}).",
        DEFAULT_HISTORY,
        low=1,
        high=MAX_HISTORY,
    ),
    Setting(
        "deck",
        "deck",
        "The deck, 'standard' or counts N,J,Q,K,A of numerals and court cards like 14,2,2,2,0"
        " (two card values at least). walk, random, climb, lahc: the deck searched, on the CPU"
        " [default: standard]; every: the deck enumerated [default: standard]; grow: the deck"
        " whose cycles are built [default: standard]; loop: '{loop}' [default] (a random"
        " sub-deck of the standard deck per batch: measured to find the most cycles; full"
        " random deals almost never loop), 'standard' or counts like 36,1,1,0,0.",
        defaults={"loop": "mixed"},
    ),
    Setting("loop_deck", "deck", "The same option as --deck (its older name, kept working)."),
    Setting(
        "hand_sizes",
        "sizes",
        "walk, random, climb, lahc, every: the hands, seat 0's first, adding up to the deck,"
        " like 10,10 or 7,7,6 [default: as even as possible, seat 0 first, over --players"
        " seats]; stored with the run. grow: the two hand sizes each cycle's stored starting"
        " deal comes nearest to [default: even].",
    ),
    Setting(
        "from_rank",
        "rank",
        "every: the first rank visited [default: 0]. A deal's rank is its place in"
        " lexicographic order of its cards, seat 0's hand first, top card first, numeral < J < Q"
        " < K < A, from 0 (docs/searching.md).",
    ),
    Setting(
        "to_rank",
        "rank",
        "every: the first rank not visited [default: the deck's number of deals]; ranks"
        " --from-rank to --to-rank - 1 are visited, so ranges split a deck by hand.",
    ),
    Setting(
        "basin_states",
        "whole",
        "loop, grow, every --objective loop: backward-play states to visit per new cycle, in"
        " search of its most balanced starting deal [default: {loop:,}; loop with 3 or 4"
        " players: {loop_seats:,}; grow: {grow:,}, with 3 or 4 players {grow_seats:,}].",
        low=1,
        # With 3 or 4 seats backward play costs 0.1 ms a state on a 12-card deck to over 1 ms
        # on a 39-card one (kernels/cycles/backward_seats.py), and a hunt of the mixed deck
        # meets a new cycle every million deals or so: 20,000 states a cycle would cost it
        # most of its time.
        defaults={"loop": 20_000, "loop_seats": 1_000, "grow": 100_000, "grow_seats": 20_000},
    ),
    Setting(
        "grow_from",
        "choice",
        "grow: 'known': start from the pieces of the known standard-deck cycles (the published"
        " one and the store's), recombined and mixed with new pieces; 'descent': from nothing"
        " but random descents [default: {grow}].",
        choices=GROW_FROM,
        defaults={"grow": "known"},
    ),
    Setting(
        "rules",
        "rules",
        "The rule set the games are played under, where published engines differ (docs/rules.md,"
        " 'Rule sets'); any case, an alias for the set it names. Stored with the run, and with"
        " every cycle a loop hunt, a grow run or an enumeration stores (bmn records loops"
        " --rules NAME lists them). Growing true 3- and 4-seat cycles plays bmn's rules only.",
        DEFAULT_RULES,
        choices=names(),
    ),
    Setting(
        "device",
        "choice",
        "Where to play the games: cpu, or cuda (an NVIDIA GPU, with the bmn[cuda] extra).",
        "cpu",
        choices=DEVICES,
    ),
    Setting(
        "device_threads",
        "whole",
        f"cuda only: GPU threads, each a stream of its own; 1 to {THREADS_PER_BLOCK} or a"
        f" multiple of {THREADS_PER_BLOCK} [default: every thread the GPU keeps resident].",
        low=1,
        high=MAX_DEVICE_THREADS,
        rule=_whole_blocks,
    ),
)
SETTINGS: dict[str, Setting] = {s.name: s for s in DECLARED}


def default_of(name: str, where: str) -> Any:
    """The default of setting `name` where a kind has its own (a key of its `defaults`)."""
    return SETTINGS[name].defaults[where]


# What a run's --resume reads back: --time and --iterations of an enumeration grow with each
# sitting, so a stored one is held to its type and its least value only.
GROWS = ("seconds", "iterations")


def check_settings(given: dict[str, Any]) -> dict[str, Any]:
    """The settings Python gave (None: the default), each read by its declaration; an unknown
    name or a bad value raises SearchOptionError naming it."""
    checked = {}
    for name, value in given.items():
        if name not in SETTINGS:
            known = ", ".join(sorted(SETTINGS))
            raise SearchOptionError(name, f"is not a setting of a search; the settings: {known}")
        if value is not None:
            checked[name] = SETTINGS[name].check(value)
    return checked


def check_stored(name: str, value: Any) -> None:
    """A setting read back from a stored run (None: its default); Refused if it is not one
    this bmn could have written."""
    setting = SETTINGS[name]
    if value is None:
        return
    if name in GROWS and isinstance(value, (int, float)) and not isinstance(value, bool):
        if not (value > 0 and math.isfinite(value)):
            raise Refused(f"{value!r} is not positive")
        return
    setting.read(value)
