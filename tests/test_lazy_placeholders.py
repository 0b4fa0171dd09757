"""Lazy modules' placeholders against torch: the error an operator on an uninitialised
parameter raises (which TensorBase method or function torch names), dtype moves keeping
UninitializedBuffer, and state dicts holding placeholders saved and loaded both ways."""

import gc
import io
import re

import pytest
import torch

import numtorch

OPERATORS = {
    "add": lambda p: p + 1, "radd": lambda p: 1 + p, "rsub": lambda p: 1 - p,
    "truediv": lambda p: p / 2, "rtruediv": lambda p: 2 / p, "floordiv": lambda p: p // 2,
    "mod": lambda p: p % 2, "pow": lambda p: p ** 2, "neg": lambda p: -p, "pos": lambda p: +p,
    "abs": lambda p: abs(p), "invert": lambda p: ~p, "eq": lambda p: p == 1,
    "ne": lambda p: p != 1, "lt": lambda p: p < 1, "getitem": lambda p: p[0],
    "setitem": lambda p: p.__setitem__(0, 1), "rand": lambda p: 1 & p, "iadd": lambda p:
    p.__iadd__(1), "itruediv": lambda p: p.__itruediv__(2), "len": lambda p: len(p),
    "iter": lambda p: iter(p), "bool": lambda p: bool(p), "flatten": lambda p: p.flatten(),
    "sum": lambda p: p.sum(), "view": lambda p: p.view(2), "add_": lambda p: p.add_(1),
}


def _error(call):
    """The exception ``call()`` raises (class, message with addresses masked), or None."""
    try:
        call()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, re.sub(r" at 0x[0-9a-f]+", " at ADDR", str(e))
    return None


@pytest.mark.parametrize("op", list(OPERATORS))
def test_operator_errors_match_torch(op):
    assert _error(lambda: OPERATORS[op](numtorch.nn.UninitializedParameter())) == \
        _error(lambda: OPERATORS[op](torch.nn.UninitializedParameter()))


def _lazy_state(lib):
    m = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d()).double()
    return m, m.state_dict()


def _kinds(sd):
    return [(k, type(v).__name__, v.dtype, v.requires_grad) for k, v in sd.items()]


def test_dtype_moves_keep_the_placeholders():
    (tm, tsd), (nm, nsd) = _lazy_state(torch), _lazy_state(numtorch)
    assert [(k, c, str(d), g) for k, c, d, g in _kinds(nsd)] == \
        [(k, c, str(d), g) for k, c, d, g in _kinds(tsd)]
    for lib, m in ((torch, tm), (numtorch, nm)):
        m(lib.randn(4, 5, dtype=lib.float64))
    assert type(nm[1].running_mean).__name__ == type(tm[1].running_mean).__name__
    assert nm[1].running_mean.shape == tm[1].running_mean.shape


@pytest.mark.parametrize("writer,reader", [(numtorch, torch), (torch, numtorch),
                                           (numtorch, numtorch)])
def test_state_dict_with_placeholders_round_trips(writer, reader):
    _, sd = _lazy_state(writer)
    buf = io.BytesIO()
    writer.save(sd, buf)
    buf.seek(0)
    got = reader.load(buf, weights_only=False)
    want = [(k, c, g) for k, c, _, g in _kinds(sd)]
    assert [(k, c, g) for k, c, _, g in _kinds(got)] == want
    buf.seek(0)
    with pytest.raises(Exception, match="UninitializedParameter was not an allowed global"):
        reader.load(buf)


FUNCTIONS = {
    "torch.sum": lambda L, p: L.sum(p), "torch.mul": lambda L, p: L.mul(p, 2),
    "torch.cat": lambda L, p: L.cat([p, p]), "torch.abs": lambda L, p: L.abs(p),
    "torch.split": lambda L, p: L.split(p, 1), "torch.einsum": lambda L, p: L.einsum("i->", p),
    "F.relu": lambda L, p: L.nn.functional.relu(p),
    "F.linear": lambda L, p: L.nn.functional.linear(L.ones(2, 3), p),
    "F.softmax": lambda L, p: L.nn.functional.softmax(p, 0),
    "linalg.norm": lambda L, p: L.linalg.norm(p), "fft.fft": lambda L, p: L.fft.fft(p),
    "special.erf": lambda L, p: L.special.erf(p),
    "buffer": lambda L, p: L.exp(L.nn.parameter.UninitializedBuffer()),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_public_functions_refuse_placeholders_like_torch(name):
    assert _error(lambda: FUNCTIONS[name](numtorch, numtorch.nn.UninitializedParameter())) == \
        _error(lambda: FUNCTIONS[name](torch, torch.nn.UninitializedParameter()))


def test_function_checks_leave_once_every_placeholder_has_its_shape():
    # the public functions check their arguments only while a placeholder waits for its
    # shape: a lazy model costs nothing per call once its first forward has run
    from numtorch import _torch_function

    gc.collect()  # placeholders other tests left alive are not this test's
    _torch_function._placeholders.clear()
    _torch_function.uninstall()
    total = numtorch.sum
    m = numtorch.nn.Sequential(numtorch.nn.LazyLinear(4), numtorch.nn.LazyLinear(2))
    assert numtorch.sum is not total
    m(numtorch.ones(2, 3))
    assert numtorch.sum is total and not _torch_function._placeholders
    spare = numtorch.nn.LazyConv2d(3, 3)
    assert numtorch.sum is not total
    del spare
    gc.collect()
    assert numtorch.sum is total
    assert float(numtorch.sum(m(numtorch.ones(2, 3)) * 0)) == 0.0
