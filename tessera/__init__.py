"""tessera: a rules language, compiler and verifier for Carcassonne."""
__version__ = "0.1.0"
