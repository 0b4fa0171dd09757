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


@pytest.mark.parametrize("planned", [False, True])
def test_einsum_flops_follow_torchs_contraction_order(planned, monkeypatch):
    """Without opt_einsum (absent or turned off) torch contracts three or more operands left
    to right, with it along the planned path: FlopCounterMode counts what torch runs."""
    import torch

    import numtorch

    if planned and not torch.backends.opt_einsum.is_available():
        pytest.skip("opt_einsum is not installed")

    def total(t):
        from importlib import import_module

        monkeypatch.setattr(t.backends.opt_einsum, "enabled", planned)
        counter = import_module(t.__name__ + ".utils.flop_counter")
        a, b, c, d = t.ones(6, 4), t.ones(4, 5), t.ones(5, 3), t.ones(6, 3)
        with counter.FlopCounterMode(display=False) as fc:
            t.einsum("bi,ij,jk,bk->b", a, b, c, d)
            t.einsum("ij,jk,ki->", t.ones(3, 5), t.ones(5, 6), t.ones(6, 3))
        return fc.get_total_flops()

    assert total(numtorch) == total(torch)
