"""Gap (s36): a checkpoint whose tensor size, stride or offset is not made of ints.

torch rebuilds each tensor through ``set_``; its argument parser refuses such a geometry with
a TypeError (the "invalid combination of arguments" text when the first element of a size or
stride, or the offset, is no int; "failed to unpack the object at pos N" for a later
element). numtorch raised its own RuntimeError. The files are written by torch with the
geometry replaced.
"""

import collections
import warnings

import numpy as np
import pytest
import torch

import numtorch

CASES = {
    "float_size": ((2.0, 3.0), (3, 1), 0),
    "float_stride": ((2, 3), (3.0, 1), 0),
    "float_later_in_size": ((2, 3.5), (3, 1), 0),
    "float_third_in_size": ((1, 2, 3.5), (6, 3, 1), 0),
    "float_later_in_stride": ((2, 3), (3, 1.5), 0),
    "none_later_in_size": ((2, None), (3, 1), 0),
    "str_first_in_size": (("2", 3), (3, 1), 0),
    "str_later_in_size": ((2, "3"), (3, 1), 0),
    "bool_in_size": ((True, 3), (3, 1), 0),
    "one_float": ((6.0,), (1,), 0),
    "float_offset": ((2, 3), (3, 1), 1.0),
    "float_offset_0d": ((), (), 0.0),
    "list_geometry_float": ([2.0, 3], [3, 1], 0),
    "list_geometry_ints": ([2, 3], [3, 1], 0),
    "stride_list_float": ((2, 3), [3.0, 1], 0),
    "no_stride": ((2, 3), None, 0),
    "no_stride_float_size": ((2.0, 3), None, 0),
    "negative_size": ((-2, 3), (3, 1), 0),
}


class _Geometry:
    """Pickles as torch's tensor rebuild call with the given geometry."""

    def __init__(self, storage, size, stride, offset):
        self.args = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self):
        return torch._utils._rebuild_tensor_v2, self.args


def _outcome(lib, path, weights_only):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            w = lib.load(path, weights_only=weights_only)["w"]
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            return type(e).__name__, str(e).replace("numtorch", "torch")
    return "ok", tuple(w.shape), w.stride(), np.asarray(w.detach().numpy()).tolist()


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("name", sorted(CASES))
def test_load_geometry_types(tmp_path, name, weights_only):
    size, stride, offset = CASES[name]
    storage = torch.arange(6, dtype=torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage is deprecated
        obj = _Geometry(storage.storage(), size, stride, offset)
    path = tmp_path / "ck.pt"
    torch.save({"w": obj}, path)
    assert _outcome(numtorch, path, weights_only) == _outcome(torch, path, weights_only)
