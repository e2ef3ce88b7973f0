"""Action encodings for learning programs over `tessera.replay.actions.ActionCodec` (docs/engine.md,
"Factored actions and candidates").

- `Factored(codec)`: a spatial policy head.  Every placement number
  `((cell * 4 + rotation / 90) * slots + slot)` becomes a logit of planes
  `(4 rotations, slots, H, W)` over the window's square (H = W = 2 * radius + 1,
  row `y - cy + radius`, column `x - cx + radius` from the codec's centre); the
  numbers after the placements (the pass, captures, ransoms, the outposts'
  moves, the discard) follow as a flat tail of `size - placements` logits.
  Logit `i` and action number `n` map both ways (`to_logit`, `to_number`), and
  `mask(numbers)` gives the legal mask in the head's shape.  The square's
  corners beyond the radius (`|dx| + |dy| > radius`) have no number: always 0
  in the mask.
- `candidates(codec, numbers)`: each legal move as a feature vector, for
  pointer-style policies that score a turn's candidates: read from the number
  alone (a number means the same move in every state where it is legal).
"""
from __future__ import annotations

import numpy as np

from ..replay.actions import PLACES

KINDS = ("place", "pass", "capture", "ransom", "outpost", "catapult", "remove", "discard")


class Factored:
    """The spatial head of one codec: `shape`, `size`, `to_logit`, `to_number`, `mask`, `planes`."""

    def __init__(self, codec):
        self.codec = codec
        r = codec.radius
        self.side = 2 * r + 1
        self.shape = (4, codec.slots, self.side, self.side)  # rotation, slot, row, column
        self.plane_size = int(np.prod(self.shape))
        self.tail = codec.size - codec.placements  # pass, captures, ransoms, outposts, discard
        self.size = self.plane_size + self.tail
        cx, cy = codec.centre
        cells = np.array(codec.cells, dtype=np.int64).reshape(-1, 2)
        pix = (cells[:, 1] - cy + r) * self.side + (cells[:, 0] - cx + r)  # row * W + column of each cell
        n = np.arange(codec.placements, dtype=np.int64)
        rest, slot = np.divmod(n, codec.slots)
        ci, rot = np.divmod(rest, 4)
        hw = self.side * self.side
        logit = np.empty(codec.size, dtype=np.int64)
        logit[:codec.placements] = (rot * codec.slots + slot) * hw + pix[ci]
        logit[codec.placements:] = self.plane_size + np.arange(self.tail)
        self._logit = logit
        self._number = np.full(self.size, -1, dtype=np.int64)  # -1: a corner of the square, no number
        self._number[logit] = np.arange(codec.size)

    def to_logit(self, numbers):
        """The head's index (or indices) of action numbers."""
        return self._logit[np.asarray(numbers, dtype=np.int64)]

    def to_number(self, logits):
        """The action number(s) of head indices; -1 where the square's corner has none."""
        return self._number[np.asarray(logits, dtype=np.int64)]

    def mask(self, numbers) -> np.ndarray:
        """An int8 vector of `size`: 1 at the logit of each legal number."""
        m = np.zeros(self.size, dtype=np.int8)
        m[self.to_logit(list(numbers))] = 1
        return m

    def planes(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A head vector (a mask or logits) as (planes of `shape`, tail): views, not copies."""
        return flat[:self.plane_size].reshape(self.shape), flat[self.plane_size:]


def kind_of(codec, number: int) -> str:
    """Which block of the numbering a number lies in (KINDS)."""
    if number == codec.discard:
        return "discard"
    if number < codec.placements:
        return "place"
    if number == codec.pass_id:
        return "pass"
    for kind, base in (("remove", codec.remove_base), ("catapult", codec.catapult_base),
                       ("outpost", codec.outpost_base), ("ransom", codec.ransom_base)):
        if number >= base:
            return kind
    return "capture"


def candidate_features(codec) -> list[str]:
    """The names of `candidates`' columns."""
    return ([f"kind={k}" for k in KINDS] + ["dx", "dy"] + [f"rotation={90 * q}" for q in range(4)]
            + [f"figure={f}" for f in codec.figures] + [f"on={p}" for p in PLACES] + ["recall", "anywhere"])


def candidates(codec, numbers) -> np.ndarray:
    """A float32 array (len(numbers), len(candidate_features(codec))): per number its kind
    (one-hot), the cell as (x - cx) / radius and (y - cy) / radius, the rotation (one-hot), the
    figure it places or recalls (one-hot), the place it goes on (one-hot, `PLACES`), whether it
    recalls, whether it goes on another placed tile (the Tower's `anywhere`).  Captures, ransoms
    and the outposts' moves carry their kind only."""
    nf = len(codec.figures)
    cols = candidate_features(codec)
    out = np.zeros((len(numbers), len(cols)), dtype=np.float32)
    at_dx, at_rot, at_fig = len(KINDS), len(KINDS) + 2, len(KINDS) + 6
    at_on = at_fig + nf
    cx, cy = codec.centre
    for i, n in enumerate(numbers):
        n = int(n)
        kind = kind_of(codec, n)
        out[i, KINDS.index(kind)] = 1
        if kind != "place":
            continue
        rest, slot = divmod(n, codec.slots)
        ci, rq = divmod(rest, 4)
        x, y = codec.cells[ci]
        out[i, at_dx] = (x - cx) / codec.radius
        out[i, at_dx + 1] = (y - cy) / codec.radius
        out[i, at_rot + rq] = 1
        if slot == 0:
            continue
        if slot >= codec.any_base:  # a figure on another placed tile
            a = (slot - codec.any_base) // (codec.any_tiles * codec.any_feats)
            out[i, at_fig + codec.any_figs[a]] = 1
            out[i, -1] = 1
        elif slot - 1 < nf * len(PLACES):
            f, p = divmod(slot - 1, len(PLACES))
            out[i, at_fig + f] = 1
            out[i, at_on + p] = 1
        else:
            k = slot - 1 - nf * len(PLACES)
            out[i, at_fig + max(j for j, b in enumerate(codec.recall_base) if b <= k)] = 1
            out[i, -2] = 1
    return out
