"""Playing compiled engines: `tessera simulate` (simulate.py, its Dask backend dask_local.py), the players
(agents.py; mcts.py, the search player), the statistics of a run (stats.py) and rule usage (usage.py).
Installed as `tessera.play` (pyproject.toml's package-dir); nothing here compiles anything."""
