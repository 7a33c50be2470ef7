"""The kinds of run, on one run loop.

loop.py is the run loop: leases, heartbeat, lanes, in-order commits and the clock, for every
kind. It holds a job (job.py: the small protocol each kind implements, and what the loop lends
it). Each kind of run is one Job in a module of its own, registered by name in kinds.py: the
longest game on the CPU (longest.py) or a GPU (longest_cuda.py), the loop hunt (loop_hunt.py),
cycle growing (grow.py), and every deal of a deck in rank order on the CPU (every.py) or a GPU
(every_cuda.py). No module here imports a kind: what kinds share lives in rooms named for it,
chunking and quotas (chunks.py), the book of cycles a hunt keeps (cycle_book.py), a kind's CPU
and GPU twins' common part (longest_base.py, every_base.py), the display's common part
(progress.py) and the clock (clock.py). settings.py declares every setting once; start.py
starts, resumes and stops runs for the command line and the library alike."""
