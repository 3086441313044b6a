"""One die's face logits, written as the faces a test cares about: the one place the tests of the
looks' training losses (held_loss, steady_loss) build them."""

from __future__ import annotations


def type_index(die: str) -> int:
    from models.train.nets import TYPES

    return TYPES.index(die)


def face_logits(torch, sure: dict[int, float]):
    """One die's 20 face logits: 0 everywhere but the faces (1-based) given."""
    x = torch.zeros(1, 20)
    for face, v in sure.items():
        x[0, face - 1] = v
    return x
