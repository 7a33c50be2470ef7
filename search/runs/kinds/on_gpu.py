"""What the kinds of run on a GPU share (longest_cuda.py, every_cuda.py): their one stream is
the GPU, fed by a thread of this process; a new run takes every thread the GPU keeps resident
for its kernel unless --device-threads says how many; its kernels warm for its rule set."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bmn.records.store import Store
    from bmn.search.backends.base import Backend


class OnGpu:
    """A mixin before a kind's base (`class EveryCudaJob(OnGpu, EveryBase)`); the kind says how
    many threads its kernel keeps resident (`resident`)."""

    device = "cuda"
    options: Any
    warm: Callable[..., object]

    @staticmethod
    def resident(options: Any) -> int:
        """The threads the GPU keeps resident for this run's kernel (compiling it)."""
        raise NotImplementedError

    @classmethod
    def prepare(
        cls, options: Any, given: Collection[str], store: Store, backend: Backend | None
    ) -> None:
        """Its threads: every one the GPU keeps resident, unless --device-threads."""
        if "device_threads" not in given:
            options.device_threads = cls.resident(options)

    def warm_call(self) -> Callable[[], object]:
        return functools.partial(self.warm, self.options.rules)
