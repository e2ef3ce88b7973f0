"""The tessera compiler: a rule set becomes a Python engine package."""
