"""Where a run's chunks run: the chunk and backend interface (base.py), the registry that picks a
backend by name (registry.py), threads on this machine (threads.py) and a Dask cluster
(dask_cluster.py)."""
