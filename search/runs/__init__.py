"""The kinds of run, on one run loop.

loop.py is the run loop: leases, heartbeat, lanes, in-order commits and the clock, for every
kind. It holds a job (job.py: the small protocol each kind implements, and what the loop lends
it). Each kind of run is one Job in a module of its own under kinds/, registered by name in
registry.py. No module here imports a kind: what every kind shares lives in rooms named for it,
chunking and quotas (chunks.py), the display's common part (progress.py) and the clock
(clock.py). settings.py declares every setting once; start.py starts, resumes and stops runs for
the command line and the library alike."""
