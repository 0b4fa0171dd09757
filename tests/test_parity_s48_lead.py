"""Session 48 (lead): oracle tests of fixes made while reviewing the helpers' work."""

import pytest

from tests.oracle import same


@pytest.mark.parametrize("fn", ["mv", "matmul"])
@pytest.mark.parametrize("out_shape", [(0,), (2,), (3,), (), (1,)])
def test_matrix_vector_out_dtype_message_follows_out_shape(fn, out_shape):
    """torch checks a wrong-dtype out of a matrix-vector product as addmv's input when it
    broadcasts to the result, and with the generic out check when it must be resized."""
    def run(t):
        a, v = t.ones(2, 2), t.ones(2)
        return getattr(t, fn)(a, v, out=t.empty(out_shape, dtype=t.float64))
    same(run)


def test_captured_gradient_checked_after_data_swap():
    """autograd.grad captures y's gradient without running y's node; after ``y.data`` got
    another shape the gradient is still checked against the output it belongs to."""
    def run(t):
        w = t.ones(2, 3, requires_grad=True)
        y = w * 2.0
        y.data = t.ones(3)
        z = y * t.tensor([1.0, 2.0, 3.0])
        return t.autograd.grad(z.sum(), y)
    same(run)


def test_qconfig_repr_names_torch_classes():
    """A printed QConfig names its observer classes as torch does (``same`` reads numtorch as
    torch in strings, so the texts are compared directly)."""
    import torch.ao.quantization as tq

    import numtorch.ao.quantization as nq

    for name in ("get_default_qconfig", "get_default_qat_qconfig"):
        assert repr(getattr(nq, name)("fbgemm")) == repr(getattr(tq, name)("fbgemm"))
    assert repr(nq.MinMaxObserver) == repr(tq.MinMaxObserver)
    assert repr(nq.FakeQuantize) == repr(tq.FakeQuantize)
