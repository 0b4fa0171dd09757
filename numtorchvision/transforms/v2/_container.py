"""Compose, RandomApply, RandomChoice, RandomOrder: transforms of transforms, passing the
whole sample (one argument or several) through each."""

from collections.abc import Sequence

import numtorch as torch
from numtorch import nn

from ..transforms import _rand_below
from ._transform import Transform, checked_probability


def _chain(steps, args):
    """Each step on the previous one's output; several arguments stay a tuple throughout."""
    spread = len(args) > 1
    result = args if spread else args[0]
    for step in steps:
        result = step(*result) if spread else step(result)
    return result


class _Group(Transform):
    """Holds a non-empty list of transforms and lists them in its repr."""

    _accepted = (Sequence,)
    _accepted_text = "a sequence of callables"

    def _hold(self, transforms):
        if not isinstance(transforms, self._accepted):
            raise TypeError(f"Argument transforms should be {self._accepted_text}")
        if not transforms:
            raise ValueError("Pass at least one transform")
        return transforms

    def extra_repr(self):
        return "\n".join("    " + str(t) for t in self.transforms)


class Compose(_Group):
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms):
        super().__init__(transforms=self._hold(transforms))

    def forward(self, *inputs):
        return _chain(self.transforms, inputs)


class RandomApply(_Group):
    """Apply all of ``transforms`` with probability ``p``, or none of them."""

    _accepted = (Sequence, nn.ModuleList)
    _accepted_text = "a sequence of callables or a `nn.ModuleList`"

    def __init__(self, transforms, p=0.5):
        super().__init__(transforms=self._hold(transforms))
        self.p = checked_probability(p)

    def forward(self, *inputs):
        return _chain(self.transforms if _rand_below(self.p) else (), inputs)


class RandomChoice(_Group):
    """Apply one of ``transforms``, picked with probabilities ``p`` (normalised; default
    uniform)."""

    def __init__(self, transforms, p=None):
        self._hold(transforms)
        weights = [1] * len(transforms) if p is None else p
        if len(weights) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: "
                             f"{len(weights)} != {len(transforms)}")
        super().__init__(transforms=transforms, p=[w / sum(weights) for w in weights])

    def forward(self, *inputs):
        return self.transforms[int(torch.multinomial(torch.tensor(self.p), 1))](*inputs)

    extra_repr = Transform.extra_repr


class RandomOrder(_Group):
    """Apply all of ``transforms`` in a random order."""

    def __init__(self, transforms):
        super().__init__(transforms=self._hold(transforms))

    def forward(self, *inputs):
        shuffled = torch.randperm(len(self.transforms)).tolist()
        return _chain([self.transforms[i] for i in shuffled], inputs)

    extra_repr = Transform.extra_repr
