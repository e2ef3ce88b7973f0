"""Pictures of rule sets and games: tile sheets, boards, the game viewer, plots (drawsvg, matplotlib)."""
