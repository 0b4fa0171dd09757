"""Helpers of the v2 transforms: flattening an arbitrary input structure, finding its images
and sizes, and the argument checks the transforms share."""

import collections.abc
import numbers
from contextlib import suppress

from ... import tv_tensors
from ..._pil import is_pil_image
from ..transforms import _check_sequence_input, _setup_angle, _setup_size  # noqa: F401
from .functional import get_dimensions, get_size
from .functional._utils import is_pure_tensor


# -- structures: tuples, lists, dicts (and named tuples, ordered dicts) are containers, the rest
#    leaves, as torch.utils._pytree sees them
def tree_flatten(tree):
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(node, leaves):
    kind = type(node)
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        return (kind, [_flatten(x, leaves) for x in node])
    if kind in (tuple, list):
        return (kind, [_flatten(x, leaves) for x in node])
    if isinstance(node, dict) and kind in (dict, collections.OrderedDict,
                                          collections.defaultdict):
        keys = list(node.keys())
        return (node, keys, [_flatten(node[k], leaves) for k in keys])
    leaves.append(node)
    return None


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    return _unflatten(spec, it)


def _unflatten(spec, it):
    if spec is None:
        return next(it)
    if len(spec) == 3:
        original, keys, children = spec
        values = [_unflatten(c, it) for c in children]
        if type(original) is collections.defaultdict:
            out = collections.defaultdict(original.default_factory)
        else:
            out = type(original)()
        for k, v in zip(keys, values):
            out[k] = v
        return out
    kind, children = spec
    values = [_unflatten(c, it) for c in children]
    if kind in (tuple, list):
        return kind(values)
    return kind(*values)  # a named tuple


# -- inspecting the flat inputs ---------------------------------------------------------------
def _is_pil(obj):
    return is_pil_image(obj)


def check_type(obj, types_or_checks):
    for t in types_or_checks:
        if isinstance(obj, t) if isinstance(t, type) else t(obj):
            return True
    return False


def has_any(flat_inputs, *types_or_checks):
    return any(check_type(x, types_or_checks) for x in flat_inputs)


def has_all(flat_inputs, *types_or_checks):
    return all(any(isinstance(x, t) if isinstance(t, type) else t(x) for x in flat_inputs)
               for t in types_or_checks)


def sequence_to_str(seq, separate_last=""):
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"
    head = "'" + "', '".join([str(item) for item in seq[:-1]]) + "'"
    tail = f"{'' if separate_last and len(seq) == 2 else ','} {separate_last}'{seq[-1]}'"
    return head + tail


def query_chw(flat_inputs):
    """(channels, height, width) shared by the images and videos of a sample."""
    chws = {tuple(get_dimensions(x)) for x in flat_inputs
            if check_type(x, (is_pure_tensor, tv_tensors.Image, _is_pil, tv_tensors.Video))}
    if not chws:
        raise TypeError("No image or video was found in the sample")
    if len(chws) > 1:
        raise ValueError(f"Found multiple CxHxW dimensions in the sample: "
                         f"{sequence_to_str(sorted(chws))}")
    return chws.pop()


def query_size(flat_inputs):
    """(height, width) shared by everything spatial in a sample."""
    sizes = {tuple(get_size(x)) for x in flat_inputs
             if check_type(x, (is_pure_tensor, tv_tensors.Image, _is_pil, tv_tensors.Video,
                               tv_tensors.Mask, tv_tensors.BoundingBoxes,
                               tv_tensors.KeyPoints))}
    if not sizes:
        raise TypeError("No image, video, mask, bounding box of keypoint was found in the sample")
    if len(sizes) > 1:
        raise ValueError(f"Found multiple HxW dimensions in the sample: "
                         f"{sequence_to_str(sorted(sizes))}")
    return sizes.pop()


def get_bounding_boxes(flat_inputs):
    """The (one) BoundingBoxes of a sample."""
    try:
        return next(x for x in flat_inputs if isinstance(x, tv_tensors.BoundingBoxes))
    except StopIteration:
        raise ValueError("No bounding boxes were found in the sample") from None


def get_keypoints(flat_inputs):
    """The (one) KeyPoints of a sample."""
    try:
        return next(x for x in flat_inputs if isinstance(x, tv_tensors.KeyPoints))
    except StopIteration:
        raise ValueError("No keypoints were found in the sample") from None


# -- argument checks --------------------------------------------------------------------------
def _setup_number_or_seq(arg, name):
    if not isinstance(arg, (int, float, collections.abc.Sequence)):
        raise TypeError(f"{name} should be a number or a sequence of numbers. Got {type(arg)}")
    if isinstance(arg, collections.abc.Sequence) and len(arg) not in (1, 2):
        raise ValueError(f"If {name} is a sequence its length should be 1 or 2. Got {len(arg)}")
    if isinstance(arg, collections.abc.Sequence):
        for element in arg:
            if not isinstance(element, (int, float)):
                raise ValueError(f"{name} should be a sequence of numbers. Got {type(element)}")
    if isinstance(arg, (int, float)):
        return [float(arg), float(arg)]
    if len(arg) == 1:
        return [float(arg[0]), float(arg[0])]
    return [float(arg[0]), float(arg[1])]


def _check_fill_arg(fill):
    if isinstance(fill, dict):
        for value in fill.values():
            _check_fill_arg(value)
    elif fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg, only Numbers, tuples, lists and dicts are "
                        "allowed.")


def _convert_fill_arg(fill):
    if fill is None or isinstance(fill, (int, float)):
        return fill
    return [float(v) for v in list(fill)]


def _setup_fill_arg(fill):
    """``fill`` as a dict from input kind to fill value (``"others"``: every other kind)."""
    _check_fill_arg(fill)
    if isinstance(fill, dict):
        for k, v in fill.items():
            fill[k] = _convert_fill_arg(v)
        return fill
    return {"others": _convert_fill_arg(fill)}


def _get_fill(fill_dict, inpt_type):
    if inpt_type in fill_dict:
        return fill_dict[inpt_type]
    return fill_dict.get("others")


def _check_padding_arg(padding):
    err_msg = f"Padding must be an int or a 1, 2, or 4 element of tuple or list, got {padding}."
    if isinstance(padding, (tuple, list)):
        if len(padding) not in [1, 2, 4] or not all(isinstance(p, int) for p in padding):
            raise ValueError(err_msg)
    elif not isinstance(padding, int):
        raise ValueError(err_msg)


def _check_padding_mode_arg(padding_mode):
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


def _find_labels_default_heuristic(inputs):
    """The labels of a sample: the second item of a pair when it is a tensor, else the
    ``labels``-like key of the dict (the pair's second item, or the input itself)."""
    if isinstance(inputs, (tuple, list)):
        inputs = inputs[1]
    if is_pure_tensor(inputs):
        return inputs
    if not isinstance(inputs, collections.abc.Mapping):
        raise ValueError("When using the default labels_getter, the input passed to forward "
                         "must be a dictionary or a two-tuple whose second item is a dictionary "
                         f"or a tensor, but got {inputs} instead.")
    candidate = None
    with suppress(StopIteration):
        candidate = next(k for k in inputs if k.lower() == "labels")
    if candidate is None:
        with suppress(StopIteration):
            candidate = next(k for k in inputs if "label" in k.lower())
    if candidate is None:
        raise ValueError("Could not infer where the labels are in the sample. Try passing a "
                         "callable as the labels_getter parameter?If there are no labels in the "
                         "sample by design, pass labels_getter=None.")
    return inputs[candidate]


def _parse_labels_getter(labels_getter):
    if labels_getter == "default":
        return _find_labels_default_heuristic
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return lambda _: None
    raise ValueError("labels_getter should either be 'default', a callable, or None, but got "
                     f"{labels_getter}.")


