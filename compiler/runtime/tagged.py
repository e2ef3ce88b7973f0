"""Move types with a word first: the one builder of both families' moves.

A move is a named tuple equal to its written form, its kind's word first: the tile game's
`Capture(0, 1, 7, None) == ("capture", 0, 1, 7, None)` (runtime/moves.py), the card game's
`Play("red.city", "red") == ("play", "red.city", "red")` (compiler/cardrt/moves.py), so moves
hash, compare, pickle and serialize as plain tuples do.  The constructor takes the other fields
and checks their number; the type says its kind as `KIND` and carries whatever else its family
declares of it (`attrs`).  Copied into every engine: the tile runtime's own module, lent to the
card runtime (dsl/family.py's `shared`).
"""
from __future__ import annotations

from typing import NamedTuple

_new = tuple.__new__


def tagged(tag: str, fields: tuple, doc: str, module: str, name: str | None = None, **attrs):
    """A named tuple type called `name` (default: `tag` capitalized), whose first item is `tag` and whose constructor
    takes `fields`; `module` is the module that names it (its pickles find it there), `attrs` the
    class attributes its family declares (KIND is `tag`)."""
    base = NamedTuple(f"_{tag}", [("kind", str)] + [(f, object) for f in fields])
    n = len(fields)

    def __new__(cls, *args):
        if len(args) != n:
            raise TypeError(f"{cls.__name__} takes {n} fields ({', '.join(fields) or 'none'}), not {len(args)}")
        return _new(cls, (tag,) + args)

    def __getnewargs__(self):
        return tuple(self)[1:]

    name = name or tag.capitalize()
    return type(name, (base,), {"__slots__": (), "__new__": __new__, "__getnewargs__": __getnewargs__,
                                "__doc__": doc, "KIND": tag, "__module__": module, "__qualname__": name, **attrs})
