"""``Transform``: the base of the v2 transforms. It flattens whatever structure it is given
(a tensor, a tuple, a dict of lists...), draws the random parameters once for the sample,
transforms every leaf it knows (images, videos, masks, boxes) with them and passes the rest
through, and gives back the same structure.

Plain tensors: when the sample holds no Image, Video or PIL image, the first plain tensor is
taken as the image and the other plain tensors are passed through (labels, ids...).

Transforms applied only with a probability set ``_coin = True`` and keep ``p`` as an attribute:
the coin is tossed after ``check_inputs`` and before ``make_params``, and a sample that loses
the toss comes back as the very object that was passed in.
"""

import enum

import numtorch as torch
from numtorch import nn

from ... import tv_tensors
from ..._pil import is_pil_image
from ..transforms import _rand_below
from ._utils import check_type, tree_flatten, tree_unflatten
from .functional._utils import _kernel_for, is_pure_tensor

_IMAGE_LIKE = (tv_tensors.Image, tv_tensors.Video)
_REPR_VALUE_TYPES = (bool, int, float, str, tuple, list, enum.Enum)
_P_MESSAGE = "`p` should be a floating point value in the interval [0.0, 1.0]."


def checked_probability(p):
    """``p`` when it is a probability, torchvision's ValueError otherwise."""
    if 0.0 <= p <= 1.0:
        return p
    raise ValueError(_P_MESSAGE)


def _selection(leaves, wanted):
    """One flag per leaf: does the transform touch it?  Plain tensors count as images only
    when nothing else in the sample is one, and then only the first of them."""
    plain_is_image = not any(isinstance(x, _IMAGE_LIKE) or is_pil_image(x) for x in leaves)
    flags = []
    for leaf in leaves:
        take = check_type(leaf, wanted)
        if take and is_pure_tensor(leaf):
            take, plain_is_image = plain_is_image, False
        flags.append(take)
    return flags


class Transform(nn.Module):
    """Base class of the v2 transforms: override ``make_params`` (random parameters, drawn once
    per call from the flat inputs that will be transformed) and ``transform`` (one input)."""

    # the kinds transformed (types or predicates); other leaves pass through
    _transformed_types = (torch.Tensor, is_pil_image)
    _coin = False
    # the v1 transform this one extends (its static ``get_params`` is shared); set in
    # ``transforms.v2.__init__`` once both families are importable
    _v1_transform_cls = None

    def __init__(self, **settings):
        if settings and type(self).__init__ is Transform.__init__:
            # a transform without settings of its own (Identity, ToImage, ...): torchvision's
            # base takes none, so a stray argument is refused rather than kept
            raise TypeError("Transform.__init__() got an unexpected keyword argument "
                            f"'{next(iter(settings))}'")
        super().__init__()
        # a subclass's public settings, given in the order its repr lists them
        for key, value in settings.items():
            setattr(self, key, value)

    def check_inputs(self, flat_inputs):
        pass

    def make_params(self, flat_inputs):
        return {}

    def _call_kernel(self, functional, inpt, *args, **kwargs):
        return _kernel_for(functional, inpt, allow_passthrough=True)(inpt, *args, **kwargs)

    def transform(self, inpt, params):
        raise NotImplementedError

    def forward(self, *inputs):
        sample = inputs[0] if len(inputs) == 1 else inputs
        leaves, layout = tree_flatten(sample)
        self.check_inputs(leaves)
        if self._coin and not _rand_below(self.p):
            return sample
        flags = _selection(leaves, self._transformed_types)
        params = self.make_params([leaf for leaf, f in zip(leaves, flags) if f])
        out = [self.transform(leaf, params) if f else leaf for leaf, f in zip(leaves, flags)]
        return tree_unflatten(out, layout)

    def extra_repr(self):
        shown = [f"{k}={v}" for k, v in self.__dict__.items()
                 if not k.startswith("_") and k != "training"
                 and isinstance(v, _REPR_VALUE_TYPES)]
        return ", ".join(shown)
