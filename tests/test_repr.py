"""``repr``/``str`` of tensors: byte for byte what torch prints."""

import warnings

import numpy as np
import pytest
import torch

import numtorch


@pytest.fixture(autouse=True)
def _default_printoptions():
    yield
    numtorch.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def same_text(fn):
    """``repr`` and ``str`` of ``fn(numtorch)`` equal those of ``fn(torch)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, got = fn(torch), fn(numtorch)
    assert repr(got) == repr(expected), f"\n{got!r}\n!=\n{expected!r}"
    assert str(got) == str(expected)


CASES = [
    # floats: integer valued, fixed point, scientific, small, negative, non-finite, alignment
    "t.tensor([1., 2.])", "t.tensor([1.5, 2.25, -3.0])", "t.tensor([1e-5, 1.0])",
    "t.tensor([1e10, 1.0])", "t.tensor([0.1, 1000.5])", "t.tensor([1e8, 1.])",
    "t.tensor([1e9, 1.])", "t.tensor([1e3, 1.5])", "t.tensor([999.5, 1.5])", "t.tensor([1e3, 1.])",
    "t.tensor([1.5, 1e-3])", "t.tensor([1e-4, 1.])", "t.tensor([0.00012, 1.])",
    "t.tensor([100000.5, 1.])", "t.tensor([1e20])", "t.tensor([1e-20])",
    "t.tensor([1e-10, 1e-12])", "t.tensor([123456789.0, 1.0])", "t.tensor([12345.678, 0.5])",
    "t.tensor([0.001, 0.0001])", "t.tensor([-1.5, 2.])", "t.tensor([0., 0.])",
    "t.tensor([-0., 1.])", "t.tensor([1., float('nan'), float('inf')])",
    "t.tensor([float('nan')])", "t.tensor(float('nan'))", "t.tensor([float('-inf'), 2.5])",
    "t.tensor([[1.5, float('inf')], [float('-inf'), 2.]])", "t.linspace(0, 1, 7)",
    "t.tensor([[1., -22.5], [333.25, 4.]])", "t.tensor([1e-5, float('nan'), 1e5])",
    "t.ones(2, 3, dtype=t.float64) * 1e-7", "t.tensor([1.123456789, -0.5])",
    # integers and bools
    "t.tensor([[1, 22, 333], [4, 5, 6]])", "t.tensor([-5, 100], dtype=t.int8)",
    "t.tensor([True, False])", "t.tensor([[True], [False]])", "t.tensor(3)", "t.tensor(True)",
    "t.tensor([2 ** 40, -7])",
    # dtype suffixes
    "t.tensor([1., 2.], dtype=t.float64)", "t.tensor([1., 2.5], dtype=t.float16)",
    "t.tensor([1, 2], dtype=t.int32)", "t.tensor([1, 2], dtype=t.uint8)",
    "t.tensor([1, 2], dtype=t.int16)", "t.tensor(1.0, dtype=t.float64)",
    "t.tensor(2, dtype=t.int32)", "t.tensor([1e-5, 3.], dtype=t.float16)",
    # 0-d
    "t.tensor(3.5)", "t.tensor(-0.25)", "t.tensor(1e-9)", "t.tensor(123456789.)",
    # empty tensors
    "t.tensor([])", "t.zeros(0, 3)", "t.zeros(0, dtype=t.int64)", "t.zeros(2, 0, dtype=t.float64)",
    "t.zeros(0, dtype=t.bool)", "t.tensor([[[]]])", "t.zeros(0, dtype=t.complex64)",
    "t.zeros(0, 2, dtype=t.int32)", "t.tensor([], requires_grad=True)",
    # layout and wrapping
    "t.arange(100.).reshape(4, 25)", "t.arange(24.).reshape(2, 3, 4)", "t.ones(3, 100)",
    "t.arange(40).reshape(2, 20)", "t.arange(60.).reshape(3, 4, 5) / 7",
    "t.arange(16.).reshape(2, 2, 2, 2)", "t.arange(30) * 1000003",
    # summarised
    "t.arange(2000.)", "t.arange(2000)", "t.arange(1001)", "t.arange(1000)",
    "t.arange(3000.).reshape(30, 100)", "t.arange(8000.).reshape(20, 20, 20)",
    "t.arange(1e6).reshape(1000, 1000)", "(t.arange(5000) % 7 == 0)",
    "t.arange(2000.).reshape(2, 1000) / 3", "t.arange(1200).reshape(1200, 1)",
    # complex
    "t.tensor([1 + 2j, 3 - 4j])", "t.tensor([1.5 + 2j, 3 - 4.25j])",
    "t.tensor([1 + 0j, -0.0 - 1j])",
    "t.tensor(1 - 2j)", "t.tensor([1e-5 + 1j])", "t.tensor([[1 + 1j, 2], [3j, -4]])",
    "t.tensor([1 + 2j], dtype=t.complex128)", "t.arange(1500.).reshape(3, 500) * (1 + 1j)",
    # autograd suffixes
    "t.tensor([1., 2.]).requires_grad_()", "t.tensor([1., 2.], requires_grad=True) * 2",
    "t.tensor([1., 2.], requires_grad=True) + 2", "t.tensor([1., 2.], requires_grad=True).sum()",
    "t.tensor([1., 2.], requires_grad=True).tanh()",
    "t.tensor([1., 2.], dtype=t.float64, requires_grad=True)",
    "t.ones(20, dtype=t.float64, requires_grad=True) * 2",
    "t.ones(18, dtype=t.float64, requires_grad=True) * 2",
    "t.ones(3, 25, requires_grad=True) * 0.5",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_torch(expr):
    same_text(lambda t: eval(expr, {"t": t}))


@pytest.mark.parametrize("precision", [0, 1, 2, 6, 8])
@pytest.mark.parametrize("expr", ["t.tensor([1.123456789, -22.5])", "t.tensor([1e-6, 1.])",
                                  "t.tensor([3.0, 4.0])", "t.tensor(0.5)",
                                  "t.tensor([1.5 + 2.25j])"])
def test_precision_option(precision, expr):
    for t in (numtorch, torch):
        t.set_printoptions(precision=precision)
    same_text(lambda t: eval(expr, {"t": t}))


@pytest.mark.parametrize("options", [{"sci_mode": True}, {"sci_mode": False},
                                     {"threshold": 5}, {"edgeitems": 1, "threshold": 5},
                                     {"edgeitems": 0, "threshold": 5}, {"linewidth": 40},
                                     {"profile": "short"}, {"profile": "full"},
                                     {"linewidth": 200, "threshold": 50}])
@pytest.mark.parametrize("expr", ["t.arange(10.)", "t.arange(12.).reshape(3, 4)",
                                  "t.tensor([1., 2., float('nan')])", "t.tensor([1e-8, 1e9])",
                                  "t.arange(60).reshape(3, 20)", "t.tensor([1.5, 2])",
                                  "t.arange(2000.).reshape(40, 50) / 3"])
def test_printoptions(options, expr):
    for t in (numtorch, torch):
        t.set_printoptions(**options)
    same_text(lambda t: eval(expr, {"t": t}))


def test_get_printoptions_and_context_manager():
    from numtorch import _tensor_str

    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    with _tensor_str.printoptions(precision=1), torch._tensor_str.printoptions(precision=1):
        assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
        same_text(lambda t: t.tensor([0.25, 1.5]))
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()


def test_profile_default_resets_everything():
    numtorch.set_printoptions(precision=2, threshold=5, edgeitems=1, linewidth=40)
    numtorch.set_printoptions(profile="default")
    assert repr(numtorch.tensor([1.23456])) == "tensor([1.2346])"
    same_text(lambda t: t.arange(100))


def test_default_dtype_changes_which_dtypes_are_shown():
    numtorch.set_default_dtype(numtorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        for expr in ("t.tensor([1., 2.])", "t.tensor([1., 2.], dtype=t.float32)",
                     "t.tensor([1j])", "t.tensor([1j], dtype=t.complex64)", "t.zeros(0)",
                     "t.zeros(0, dtype=t.float32)"):
            same_text(lambda t: eval(expr, {"t": t}))
    finally:
        torch.set_default_dtype(torch.float32)


def test_views_and_non_contiguous_tensors_print_their_values():
    same_text(lambda t: t.arange(12.).reshape(3, 4).t())
    same_text(lambda t: t.arange(12.).reshape(3, 4)[:, 1])
    same_text(lambda t: t.arange(20.)[::3])


def test_str_format_and_print_agree():
    x = numtorch.tensor([1.0, 2.5])
    assert str(x) == repr(x) == f"{x}" == "%s" % (x,)
    assert f"{numtorch.tensor(2.5):.2f}" == "2.50"


def test_repr_is_fast_for_huge_tensors():
    x = numtorch.zeros(2000, 2000)
    text = repr(x)
    assert text.count("...") >= 2 and len(text) < 1000


def test_subclass_and_tensor_contents():
    class MyTensor(numtorch.Tensor):
        pass

    class TorchSub(torch.Tensor):
        pass

    a = numtorch.ones(2).as_subclass(MyTensor) if hasattr(numtorch.Tensor, "as_subclass") \
        else MyTensor(np.ones(2, dtype=np.float32))
    assert repr(a) == repr(torch.ones(2).as_subclass(TorchSub)).replace("TorchSub", "MyTensor")
    assert numtorch.ones(2).__repr__(tensor_contents="[...]") == \
        torch.ones(2).__repr__(tensor_contents="[...]")
