"""Verifiers of rule sets: tile topology (networkx) and invariants (z3).

`tessera.verifier.checks` is the registry `tessera verify` runs; each module of this
package registers its checks there when imported.
"""
