"""Every deal of a deck on an NVIDIA GPU: consecutive ranks scored by device threads.

The GPU twin of cpu.py's `score_run`, for two seats (docs/gpu.md, "Every
deal of a deck on a GPU"). A launch covers a range of ranks, one contiguous slice per thread:
each thread unranks its slice's first rank once (kernels/ranks.unrank, reading the multinomial
counts from a small table), then plays each deal with the device kernel of
kernels/cuda/two.py and steps to the next with kernels/ranks.next_arrangement, the CPU's own
source compiled as a device function. A thread keeps its longest finished game (score, cards,
tricks, rank; the lowest rank among equals) and writes to a shared buffer, through an atomic
counter, every deal of at least `keep_above` cards and every deal still going at the card cap.
The host replays those with kernels/cpu/two.py's exact loop detection, combines the threads'
bests and returns what the CPU returns for the same ranks: the same deals visited, the same
best deal and the same finds (loops included) in rank order.

A thread that finds the buffer full stops at that deal; the host launches the stopped threads
again from where each stopped, so no deal is lost or scored twice. Once a chunk holds
`max_finds` finds the host stops there and returns the ranks before the first stopped thread's
next one (a prefix, as the CPU's chunk does), dropping what threads past it found.

Under a rule set other than bmn's (kernels/rules/sets.py, two seats) the kernel is a copy compiled
with that rule set's play_fast_at (kernels/cuda/two.for_rules), made on first use, and the host
replays with the CPU kernel's copy for the same rule set: what cpu.py's `score_run` returns
under those rules.

Ranks are int64 on the device: a deck takes the GPU when its arrangements fit in 63 bits (the
40-card Italian deck's 1.9e14 does; the standard deck's 6.5e20 does not: the CPU takes it).
"""

from __future__ import annotations

import time
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from bmn.kernels.config import FINISHED, LOOP, MAX_CARDS, UNDECIDED
from bmn.kernels.cpu import two
from bmn.kernels.cuda import two as cuda_two
from bmn.kernels.cuda.two import (
    CAP,
    DEVICE,
    KERNEL,
    SIMULATED,
    THREADS_PER_BLOCK,
    cuda,
    play_fast_at,
)
from bmn.kernels.deal import DealError
from bmn.kernels.decks import counts_text
from bmn.kernels.ranks import arrangements, next_arrangement, unrank
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy
from bmn.kernels.rules.flags import two_seat_flags
from bmn.kernels.rules.sets import rule_set
from bmn.kernels.rules.targets import compile_for
from bmn.search.enumeration.cpu import Visited

if TYPE_CHECKING:
    from bmn.kernels.rules.sets import RuleSet

VALUES = 5  # penalty values 0-4: numeral, J, Q, K, A
MAX_RANKS = 2**63 - 1  # arrangements a deck may have on the device: ranks are int64
BUFFER = 65_536  # finds one launch may write before threads stop for the host
SIMULATED_THREADS = 8  # the simulator runs every thread as a Python thread: keep them few
# Columns of a find's figures on the device.
F_CARDS, F_TRICKS, F_STATUS, F_RANK = range(4)
# Slots of a thread's best.
T_SCORE, T_CARDS, T_TRICKS, T_RANK = range(4)


def unrank_into(rank, left, strides, table, cards):
    """cards = the sequence of `rank` among the arrangements of the multiset `left` (counts
    per value, used up on the way): kernels/ranks.unrank, reading each multinomial from `table`
    at the mixed-radix index of its counts (`strides`, see rank_table)."""
    index = 0
    for v in range(left.shape[0]):
        index += left[v] * strides[v]
    for at in range(cards.shape[0]):
        for v in range(left.shape[0]):
            if left[v] == 0:
                continue
            block = table[index - strides[v]]  # sequences that put value v here
            if rank < block:
                cards[at] = v
                left[v] -= 1
                index -= strides[v]
                break
            rank -= block


# The two steps as device functions: the unrank above, and the CPU's own next_arrangement.
(_unrank,) = compile_for((unrank_into,), cuda.jit(**DEVICE))
(_next,) = compile_for((next_arrangement.py_func,), cuda.jit(**DEVICE))


@cache
def rank_table(counts: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(strides, table): table[sum(c[v] * strides[v])] is the multinomial count of sequences
    of a multiset c with c[v] <= counts[v]. DealError if the deck's arrangements pass 63 bits."""
    total = arrangements(counts)
    if total > MAX_RANKS:
        raise DealError(
            f"the deck {counts_text(counts)} has {total:.3g} deals; ranks on the GPU fit in 63"
            f" bits ({MAX_RANKS:.3g} deals at most): enumerate it on the CPU"
        )
    strides = [1] * VALUES
    for v in range(1, VALUES):
        strides[v] = strides[v - 1] * (counts[v - 1] + 1)
    size = strides[-1] * (counts[-1] + 1)
    table = [1] * size  # the empty multiset has one sequence
    for index in range(1, size):
        digits = [index // strides[v] % (counts[v] + 1) for v in range(VALUES)]
        table[index] = sum(table[index - strides[v]] for v in range(VALUES) if digits[v])
    return np.array(strides, dtype=np.int64), np.array(table, dtype=np.int64)


@cuda.jit(**KERNEL)
def _enumerate(
    counts, strides, table, n0, n1, starts, lengths, objective, keep_above, cap,
    tops, done, finds, figures, n_finds,
):  # fmt: skip
    """Thread t scores lengths[t] consecutive ranks from starts[t]: its best into tops[t], the
    deals it scored into done[t], finds (and deals past `cap` cards) into the shared buffer."""
    t = cuda.grid(1)
    if t >= starts.shape[0]:
        return
    row = cuda.local.array(MAX_CARDS, np.uint8)
    left = cuda.local.array(VALUES, np.int64)
    for v in range(VALUES):
        left[v] = counts[v]
    cards = row[: n0 + n1]
    first = starts[t]
    _unrank(first, left, strides, table, cards)
    best, best_cards, best_tricks, best_rank = -1, -1, -1, -1
    length = lengths[t]
    k = 0
    while k < length:
        laid, tricks, code = play_fast_at(cards, 0, n0, n1, cap)
        if code == UNDECIDED or laid >= keep_above:
            slot = cuda.atomic.add(n_finds, 0, 1)
            if slot >= finds.shape[0]:  # no room: the host goes on from this deal
                break
            for i in range(n0 + n1):
                finds[slot, i] = cards[i]
            figures[slot, F_CARDS] = laid
            figures[slot, F_TRICKS] = tricks
            figures[slot, F_STATUS] = UNDECIDED if code == UNDECIDED else FINISHED
            figures[slot, F_RANK] = first + k
        if code != UNDECIDED:  # a game past the cap is the host's, once replayed
            score = laid if objective == 0 else tricks
            if score > best:  # strictly: the lowest rank among equals stays
                best, best_cards, best_tricks, best_rank = score, laid, tricks, first + k
        k += 1
        if k < length:
            _next(cards)
    done[t] = k
    tops[t, T_SCORE] = best
    tops[t, T_CARDS] = best_cards
    tops[t, T_TRICKS] = best_tricks
    tops[t, T_RANK] = best_rank


# Rule sets (kernels/rules/sets.py): a rule set's copy (kernels/rules/copies.py) of the kernel,
# calling kernels/cuda/two.py's copies, made on first use; the host replays with the CPU's.
def _copy(flags: Flags, rules: RuleSet) -> SimpleNamespace:
    ruled = RuleCopy(flags, _jit_like, cuda_two.for_rules(rules).copies)
    return SimpleNamespace(_enumerate=ruled[_enumerate], _replay=two.for_rules(rules).exact_at)


def _jit_like(function):
    """The decorator `function` was compiled with: the kernel's, or a device function's."""
    if function is _enumerate:
        return cuda.jit(**KERNEL)
    return cuda.jit(**DEVICE)


_replay = two.exact_at  # the host's exact replay of a game past the cap, under bmn's rules
_COPIES = RuleCopies(__name__, two_seat_flags, _copy)


def kernel_for(rules: str | None = None) -> tuple:
    """(the enumeration kernel, the host's exact replay) under a rule set (None: bmn's); the
    kernel is a copy compiled with the rule set's play_fast_at where it plays two seats
    otherwise. ValueError for a rule set the GPU kernel cannot play."""
    played = _COPIES.lookup(rules)
    if played is None:
        raise ValueError(f"the GPU enumeration cannot play rule set {rule_set(rules).name!r}")
    return played._enumerate, played._replay


def ruled(attribute: str, rules: str) -> object:
    """The enumeration kernel as compiled for a rule set (lab/cuda_compiled.py)."""
    return getattr(_COPIES.lookup(rules), attribute)


def slices(first: int, n: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, lengths): ranks first to first + n - 1 cut into one contiguous slice per
    thread, the first n % threads slices one longer; no empty slice."""
    threads = max(1, min(threads, n))
    q, r = divmod(n, threads)
    t = np.arange(threads, dtype=np.int64)
    lengths = np.full(threads, q, dtype=np.int64) + (t < r)
    starts = np.int64(first) + t * q + np.minimum(t, r)
    return starts, lengths


def _grid(threads: int, threads_per_block: int) -> tuple[int, int]:
    per_block = max(1, min(threads, threads_per_block))
    return -(-threads // per_block), per_block


def score_range(
    first: int,
    n: int,
    counts: tuple[int, ...],
    sizes: tuple[int, ...],
    objective: int,
    keep_above: int,
    threads: int,
    max_finds: int = 1 << 18,
    cap: int = CAP,
    buffer: int = BUFFER,
    threads_per_block: int = THREADS_PER_BLOCK,
    rules: str | None = None,
) -> Visited:
    """Score ranks first to first + n - 1 of the deck on the GPU, `threads` device threads
    (cpu.score_run's result for the same ranks, objective 0 cards or 1 tricks, under `rules`).
    Stops early, at a prefix of the ranks, once `max_finds` deals are kept."""
    kernel, exact_at = kernel_for(rules)
    counts = tuple(int(c) for c in counts)
    n0, n1 = (int(s) for s in sizes)
    total = arrangements(counts)
    n = max(0, min(int(n), total - int(first)))
    strides, table = rank_table(counts)
    width = n0 + n1
    if n == 0:
        return _visited(first, 0, counts, None, np.zeros((0, width), np.uint8), np.zeros((0, 4)))
    device = [cuda.to_device(a) for a in (np.array(counts, np.int64), strides, table)]
    finds = cuda.device_array((buffer, width), dtype=np.uint8)
    figures = cuda.device_array((buffer, 4), dtype=np.int64)
    starts, lengths = slices(first, n, threads)
    end, kept, tops, decks, metas = first + n, 0, [], [], []
    while True:
        count = cuda.to_device(np.zeros(1, dtype=np.int32))
        top = cuda.device_array((len(starts), 4), dtype=np.int64)
        done = cuda.device_array(len(starts), dtype=np.int64)
        blocks, per_block = _grid(len(starts), threads_per_block)
        kernel[blocks, per_block](
            *device, n0, n1, cuda.to_device(starts), cuda.to_device(lengths), objective,
            keep_above, cap, top, done, finds, figures, count,
        )  # fmt: skip
        found = min(int(count.copy_to_host()[0]), buffer)
        if found:
            decks.append(finds[:found].copy_to_host())
            metas.append(figures[:found].copy_to_host())
        tops.append(top.copy_to_host())
        scored = done.copy_to_host()
        stopped = scored < lengths
        if not stopped.any():
            break
        kept += found
        starts, lengths = starts[stopped] + scored[stopped], lengths[stopped] - scored[stopped]
        if kept >= max_finds:  # the ranks before the first deal not scored: a prefix
            end = int(starts.min())
            break
    decks = np.concatenate(decks) if decks else np.zeros((0, width), np.uint8)
    meta = np.concatenate(metas) if metas else np.zeros((0, 4), np.int64)
    played = (tops, decks, meta, exact_at)
    return _combine(first, end, counts, (n0, n1), objective, keep_above, played)


def _combine(
    first: int, end: int, counts: tuple, sizes: tuple, objective: int, keep_above: int,
    played: tuple,
) -> Visited:  # fmt: skip
    """The threads' results as the CPU's: deals past the cap replayed exactly (by the rule
    set's `exact_at`), the ranks from `end` on dropped, the best of every thread and replay,
    the finds in rank order. `played`: (tops, decks, meta, exact_at)."""
    tops, decks, meta, exact_at = played
    inside = meta[:, F_RANK] < end
    decks, meta = decks[inside], meta[inside].copy()
    best = [b for b in (_best_of(top, end) for top in tops) if b is not None]
    for k in np.flatnonzero(meta[:, F_STATUS] == UNDECIDED):
        status, laid, tricks = exact_at(decks[k], 0, sizes[0], sizes[1])[:3]
        meta[k, F_CARDS], meta[k, F_TRICKS], meta[k, F_STATUS] = laid, tricks, status
        if status == FINISHED:
            best.append((laid if objective == 0 else tricks, -meta[k, F_RANK], laid, tricks))
    keep = (meta[:, F_CARDS] >= keep_above) | (meta[:, F_STATUS] == LOOP)
    decks, meta = decks[keep], meta[keep]
    order = np.argsort(meta[:, F_RANK], kind="stable")
    decks, meta = decks[order], meta[order]
    meta[:, F_RANK] -= first  # the CPU's offset from the chunk's first rank
    return _visited(first, end - first, counts, max(best) if best else None, decks, meta)


def _best_of(top: np.ndarray, end: int) -> tuple | None:
    """The best of one launch's threads before rank `end`, as (score, -rank, cards, tricks):
    the highest score, the lowest rank among equals; None if none finished a game."""
    top = top[(top[:, T_SCORE] >= 0) & (top[:, T_RANK] < end)]
    if not len(top):
        return None
    tied = top[top[:, T_SCORE] == top[:, T_SCORE].max()]
    row = tied[np.argmin(tied[:, T_RANK])]
    return row[T_SCORE], -row[T_RANK], row[T_CARDS], row[T_TRICKS]


def _visited(first, done, counts, top, decks, meta) -> Visited:
    """A Visited from the combined figures (`top`: the best candidate, or None)."""
    if top is None:
        row = np.zeros(sum(counts), np.uint8) if done == 0 else unrank(first, counts)
        return Visited(done, row, -1, -1, -1, -1, decks, meta.astype(np.int64))
    score, rank, cards, tricks = (int(x) for x in top)
    row = unrank(-rank, counts)
    return Visited(done, row, score, cards, tricks, -rank - first, decks, meta.astype(np.int64))


def resident_threads(threads_per_block: int = THREADS_PER_BLOCK, rules: str | None = None) -> int:
    """Device threads for an enumeration: every thread the GPU keeps resident running the
    kernel under `rules` (compiled first), or a few under the simulator."""
    if SIMULATED:
        return SIMULATED_THREADS
    warm(rules)
    kernel = next(iter(kernel_for(rules)[0].overloads.values()))
    return kernel.max_cooperative_grid_blocks(threads_per_block) * threads_per_block


def warm(rules: str | None = None) -> None:
    """Compile (or load from the cache) the kernel under `rules`: one launch of one deal."""
    if not SIMULATED:
        score_range(0, 1, (1, 1, 0, 0, 0), (1, 1), 0, 1 << 40, 1, rules=rules)


def bench(
    counts: tuple[int, ...], sizes: tuple[int, ...], n: int, threads: int, rules: str | None = None
) -> dict:
    """Deals a second: ranks 0 to n - 1 of a deck scored on the GPU under `rules`, after a
    warm-up launch."""
    warm(rules)
    start = time.perf_counter()
    seen = score_range(0, n, counts, sizes, 0, 1 << 40, threads, rules=rules)
    seconds = time.perf_counter() - start
    return {
        "deck": counts_text(counts),
        "hand_sizes": list(sizes),
        "threads": threads,
        "deals": seen.done,
        "seconds": round(seconds, 4),
        "deals_per_s": round(seen.done / seconds) if seconds else None,
        "best_cards": seen.best_cards,
    }
