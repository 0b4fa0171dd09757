"""Compose, RandomApply, RandomChoice, RandomOrder: transforms of transforms, passing the
whole sample (one argument or several) through each."""

from collections.abc import Sequence

import numtorch as torch
from numtorch import nn

from ..transforms import _rand_below
from ._transform import Transform


def _check_transforms(transforms, kinds=(Sequence,), what="a sequence of callables"):
    if not isinstance(transforms, kinds):
        raise TypeError(f"Argument transforms should be {what}")
    if not transforms:
        raise ValueError("Pass at least one transform")


def _run(transforms, inputs):
    needs_unpacking = len(inputs) > 1
    for transform in transforms:
        outputs = transform(*inputs)
        inputs = outputs if needs_unpacking else (outputs,)
    return outputs


def _listing(transforms):
    return "\n".join(f"    {t}" for t in transforms)


class Compose(Transform):
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms):
        super().__init__()
        _check_transforms(transforms)
        self.transforms = transforms

    def forward(self, *inputs):
        return _run(self.transforms, inputs)

    def extra_repr(self):
        return _listing(self.transforms)


class RandomApply(Transform):
    """Apply all of ``transforms`` with probability ``p``, or none of them."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        _check_transforms(transforms, (Sequence, nn.ModuleList),
                          "a sequence of callables or a `nn.ModuleList`")
        self.transforms = transforms
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs):
        if not _rand_below(self.p):
            return inputs if len(inputs) > 1 else inputs[0]
        return _run(self.transforms, inputs)

    def extra_repr(self):
        return _listing(self.transforms)


class RandomChoice(Transform):
    """Apply one of ``transforms``, picked with probabilities ``p`` (normalised; default
    uniform)."""

    def __init__(self, transforms, p=None):
        _check_transforms(transforms)
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != "
                             f"{len(transforms)}")
        super().__init__()
        self.transforms = transforms
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs):
        idx = int(torch.multinomial(torch.tensor(self.p), 1))
        return self.transforms[idx](*inputs)


class RandomOrder(Transform):
    """Apply all of ``transforms`` in a random order."""

    def __init__(self, transforms):
        _check_transforms(transforms)
        super().__init__()
        self.transforms = transforms

    def forward(self, *inputs):
        order = torch.randperm(len(self.transforms)).tolist()
        return _run([self.transforms[i] for i in order], inputs)
