"""``Transform``: the base of the v2 transforms. It flattens whatever structure it is given
(a tensor, a tuple, a dict of lists...), draws the random parameters once for the sample,
transforms every leaf it knows (images, videos, masks, boxes) with them and passes the rest
through, and gives back the same structure.

Plain tensors: when the sample holds no Image, Video or PIL image, the first plain tensor is
taken as the image and the other plain tensors are passed through (labels, ids...).
"""

import enum

import numtorch as torch
from numtorch import nn

from ... import tv_tensors
from ..._pil import is_pil_image
from ..transforms import _rand_below
from ._utils import check_type, has_any, tree_flatten, tree_unflatten
from .functional._utils import _get_kernel, is_pure_tensor


class Transform(nn.Module):
    """Base class of the v2 transforms: override ``make_params`` (random parameters, drawn once
    per call from the flat inputs that will be transformed) and ``transform`` (one input)."""

    # the kinds transformed (types or predicates); other leaves pass through
    _transformed_types = (torch.Tensor, is_pil_image)

    def check_inputs(self, flat_inputs):
        pass

    def make_params(self, flat_inputs):
        return {}

    def _call_kernel(self, functional, inpt, *args, **kwargs):
        kernel = _get_kernel(functional, inpt, allow_passthrough=True)
        return kernel(inpt, *args, **kwargs)

    def transform(self, inpt, params):
        raise NotImplementedError

    def forward(self, *inputs):
        flat_inputs, spec = tree_flatten(inputs if len(inputs) > 1 else inputs[0])
        self.check_inputs(flat_inputs)
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([x for x, n in zip(flat_inputs, needs) if n])
        flat_outputs = [self.transform(x, params) if n else x for x, n in zip(flat_inputs, needs)]
        return tree_unflatten(flat_outputs, spec)

    def _needs_transform_list(self, flat_inputs):
        needs_list = []
        transform_pure_tensor = not has_any(flat_inputs, tv_tensors.Image, tv_tensors.Video,
                                            is_pil_image)
        for inpt in flat_inputs:
            needs = True
            if not check_type(inpt, self._transformed_types):
                needs = False
            elif is_pure_tensor(inpt):
                if transform_pure_tensor:
                    transform_pure_tensor = False
                else:
                    needs = False
            needs_list.append(needs)
        return needs_list

    def extra_repr(self):
        extra = []
        for name, value in self.__dict__.items():
            if name.startswith("_") or name == "training":
                continue
            if not isinstance(value, (bool, int, float, str, tuple, list, enum.Enum)):
                continue
            extra.append(f"{name}={value}")
        return ", ".join(extra)


class _RandomApplyTransform(Transform):
    """A transform applied with probability ``p`` (one draw per call, before the parameters)."""

    def __init__(self, p=0.5):
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        super().__init__()
        self.p = p

    def forward(self, *inputs):
        inputs = inputs if len(inputs) > 1 else inputs[0]
        flat_inputs, spec = tree_flatten(inputs)
        self.check_inputs(flat_inputs)
        if not _rand_below(self.p):  # torch.rand(1) >= p
            return inputs
        needs = self._needs_transform_list(flat_inputs)
        params = self.make_params([x for x, n in zip(flat_inputs, needs) if n])
        flat_outputs = [self.transform(x, params) if n else x for x, n in zip(flat_inputs, needs)]
        return tree_unflatten(flat_outputs, spec)
