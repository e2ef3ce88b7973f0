"""The tessera rules language: grammar, AST, parser, loader and checks."""
