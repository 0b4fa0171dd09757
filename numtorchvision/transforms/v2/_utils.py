"""Helpers of the v2 transforms: flattening an arbitrary input structure and putting it back,
and finding the images, sizes, boxes and key points of a flattened sample."""

import collections

from ... import tv_tensors
from ..._pil import is_pil_image
from .functional import get_dimensions, get_size
from .functional._utils import is_pure_tensor

# -- structures: tuples, lists, dicts (and named tuples, ordered and default dicts) are
#    containers, everything else a leaf, as torch.utils._pytree sees them.  A layout is None
#    for a leaf, ("seq", type, children) or ("map", original mapping, keys, children).
_MAPPINGS = (dict, collections.OrderedDict, collections.defaultdict)


def tree_flatten(tree):
    leaves = []
    return leaves, _layout(tree, leaves)


def _layout(node, leaves):
    kind = type(node)
    if kind in (tuple, list) or (isinstance(node, tuple) and hasattr(node, "_fields")):
        return ("seq", kind, [_layout(item, leaves) for item in node])
    if kind in _MAPPINGS:
        keys = list(node)
        return ("map", node, keys, [_layout(node[k], leaves) for k in keys])
    leaves.append(node)
    return None


def tree_unflatten(leaves, layout):
    return _rebuild(layout, iter(leaves))


def _rebuild(layout, leaves):
    if layout is None:
        return next(leaves)
    if layout[0] == "seq":
        _, kind, children = layout
        items = [_rebuild(c, leaves) for c in children]
        return kind(items) if kind in (tuple, list) else kind(*items)
    _, original, keys, children = layout
    if type(original) is collections.defaultdict:
        out = collections.defaultdict(original.default_factory)
    else:
        out = type(original)()
    out.update(zip(keys, [_rebuild(c, leaves) for c in children]))
    return out


# -- inspecting the flat inputs ---------------------------------------------------------------
def _matches(obj, kind):
    return isinstance(obj, kind) if isinstance(kind, type) else kind(obj)


def check_type(obj, types_or_checks):
    return any(_matches(obj, kind) for kind in types_or_checks)


def has_any(flat_inputs, *types_or_checks):
    return any(check_type(x, types_or_checks) for x in flat_inputs)


def has_all(flat_inputs, *types_or_checks):
    return all(any(_matches(x, kind) for x in flat_inputs) for kind in types_or_checks)


_PIXEL_KINDS = (is_pure_tensor, tv_tensors.Image, is_pil_image, tv_tensors.Video)
_SPATIAL_KINDS = _PIXEL_KINDS + (tv_tensors.Mask, tv_tensors.BoundingBoxes,
                                 tv_tensors.KeyPoints)


def _the_one(flat_inputs, kinds, measure, missing, several):
    found = {tuple(measure(x)) for x in flat_inputs if check_type(x, kinds)}
    if len(found) == 1:
        return found.pop()
    if not found:
        raise TypeError(missing)
    listed = ", ".join(f"'{v}'" for v in sorted(found))
    raise ValueError(f"Found multiple {several} dimensions in the sample: {listed}")


def query_chw(flat_inputs):
    """(channels, height, width) shared by the images and videos of a sample."""
    return _the_one(flat_inputs, _PIXEL_KINDS, get_dimensions,
                    "No image or video was found in the sample", "CxHxW")


def query_size(flat_inputs):
    """(height, width) shared by everything spatial in a sample."""
    return _the_one(flat_inputs, _SPATIAL_KINDS, get_size,
                    "No image, video, mask, bounding box of keypoint was found in the sample",
                    "HxW")


def _first_of(flat_inputs, kind, missing):
    for x in flat_inputs:
        if isinstance(x, kind):
            return x
    raise ValueError(missing)


def get_bounding_boxes(flat_inputs):
    """The (first) BoundingBoxes of a sample."""
    return _first_of(flat_inputs, tv_tensors.BoundingBoxes,
                     "No bounding boxes were found in the sample")


def get_keypoints(flat_inputs):
    """The (first) KeyPoints of a sample."""
    return _first_of(flat_inputs, tv_tensors.KeyPoints, "No keypoints were found in the sample")
