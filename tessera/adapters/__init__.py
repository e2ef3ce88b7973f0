"""Adapters from compiled rule sets to the tools RL researchers use (docs/engine.md).

`tessera.adapters.openspiel` (OpenSpiel) and `tessera.adapters.pettingzoo`
(PettingZoo AEC) need the `rl` extra: `pip install -e '.[rl]'`.
"""
