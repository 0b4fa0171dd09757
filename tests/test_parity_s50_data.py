"""Session 50 (Distributed area): checkpoints and data loading, compared with real torch.

Every expectation is real torch's answer for the same input at test time.

Found: ``torch.save`` of a nested tensor (strided or jagged) raised in numtorch, and neither
layout could be read from torch's checkpoints (torch writes the strided layout as
``torch._utils._rebuild_nested_tensor`` over a flat buffer and int64 size/stride/offset tables,
the jagged one as ``_rebuild_njt`` with the values, offsets and seq-length metadata holding
``torch._dynamo.decorators._DimRange`` objects; both load under ``weights_only=True``).
"""

import io
import warnings

import pytest
import torch

import numtorch


def _nested_cases(lib):
    def comps():
        return [lib.arange(6.).reshape(2, 3), lib.arange(3.).reshape(1, 3) + 10]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        strided = lib.nested.nested_tensor(comps())
        jagged = lib.nested.nested_tensor(comps(), layout=lib.jagged)
        from_jagged = lib.nested.nested_tensor_from_jagged(
            lib.arange(10.).reshape(5, 2), lib.tensor([0, 2, 5]), max_seqlen=7)
        return {
            "strided": strided,
            "strided_requires_grad": lib.nested.nested_tensor(
                [lib.ones(2), lib.zeros(3)], requires_grad=True),
            "strided_transposed": strided.transpose(1, 2),
            "strided_empty_component": lib.nested.nested_tensor([lib.ones(2), lib.zeros(0)]),
            "jagged": jagged,
            "jagged_requires_grad": lib.nested.nested_tensor(
                [lib.ones(2, 3), lib.zeros(1, 3)], layout=lib.jagged, requires_grad=True),
            "jagged_shared_offsets": [from_jagged, from_jagged * 2],
            "jagged_transposed": jagged.transpose(1, 2),
            "jagged_int": lib.nested.nested_tensor([lib.tensor([1, 2]), lib.tensor([3])],
                                                   layout=lib.jagged),
        }


def _describe(obj):
    if isinstance(obj, list):  # loaded twice over one offsets tensor: one ragged size
        return [_describe(o) for o in obj] + [str(obj[0].shape) == str(obj[1].shape)]
    return (str(obj.layout), str(obj.dtype), obj.requires_grad, obj.is_leaf, obj.dim(),
            [c.tolist() for c in obj.unbind()])


def _save(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return buf


def _load(lib, buf, weights_only):
    buf.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _describe(lib.load(buf, weights_only=weights_only))
        except Exception as e:  # noqa: BLE001 - class and message are compared
            return type(e).__name__, str(e)


CASES = list(_nested_cases(torch))


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_nested_tensor_checkpoint_from_torch_loads_as_in_torch(case, weights_only):
    buf = _save(torch, _nested_cases(torch)[case])
    assert _load(numtorch, buf, weights_only) == _load(torch, buf, weights_only)


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("case", CASES)
def test_nested_tensor_saved_by_numtorch_loads_in_torch_as_torchs_own(case, weights_only):
    ours = _save(numtorch, _nested_cases(numtorch)[case])
    theirs = _save(torch, _nested_cases(torch)[case])
    expected = _load(torch, theirs, weights_only)
    assert _load(torch, ours, weights_only) == expected
    assert _load(numtorch, ours, weights_only) == expected


class _NestedCall:
    """Pickles as torch's strided nested-tensor rebuild call with the given tables."""

    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return torch._utils._rebuild_nested_tensor, self.args


_CRAFTED = {
    "component_past_buffer": ([[2], [3]], [[1], [1]], [0, 4]),
    "negative_stride": ([[2], [3]], [[-1], [1]], [1, 2]),
    "negative_offset": ([[2], [3]], [[1], [1]], [-1, 2]),
    "overlapping_components": ([[2], [3]], [[1], [1]], [0, 1]),
    "float_sizes": ([[2.0], [3.0]], [[1], [1]], [0, 2]),
    "overflowing_geometry": ([[2 ** 40], [3]], [[2 ** 40], [1]], [0, 2]),
}


@pytest.mark.parametrize("case", list(_CRAFTED))
def test_crafted_nested_tensor_geometry_is_refused_as_in_torch(case):
    sizes, strides, offsets = _CRAFTED[case]
    buf = _save(torch, _NestedCall(torch.arange(5.), torch.tensor(sizes), torch.tensor(strides),
                                   torch.tensor(offsets)))
    assert _load(numtorch, buf, True) == _load(torch, buf, True)
