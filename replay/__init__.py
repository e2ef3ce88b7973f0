"""Game records and their replay (docs/records.md): the `tessera-game/1` schema and writer
(`records`), a record turn as the engine's moves (`turns`), the tile game's replay (`tiles`), the
card game's records and replay (`cards`), and actions as record turns and numbers (`actions`)."""
