"""torch.autocast("cuda") applies torch's CUDA op lists (on the CuPy stand-in): matrix
products in the low dtype, range-sensitive math and reductions in float32, a few binary ops
at the widest input type, binary_cross_entropy refused."""

import pytest

import numtorch
from tests.cuda import standin

F = numtorch.nn.functional


@pytest.fixture
def cuda():
    with standin.active():
        yield


def _x(*shape, dtype=None):
    return numtorch.rand(*shape, device="cuda", dtype=dtype or numtorch.float32) + 0.5


LOW = {
    "mm": lambda a, b: numtorch.mm(a, b), "matmul_op": lambda a, b: a @ b,
    "mv": lambda a, b: numtorch.mv(a, b[:, 0]), "addmm": lambda a, b: numtorch.addmm(a, a, b),
    "linear": lambda a, b: F.linear(a, b), "method_mm": lambda a, b: a.mm(b),
}
FP32 = {  # float16 inputs, float32 results
    "exp": lambda h: numtorch.exp(h), "log": lambda h: h.log(), "pow": lambda h: h ** 2,
    "sum": lambda h: h.sum(), "cumsum": lambda h: numtorch.cumsum(h, 0),
    "softmax": lambda h: F.softmax(h, -1), "layer_norm": lambda h: F.layer_norm(h, (4,)),
    "mse_loss": lambda h: F.mse_loss(h, h), "norm": lambda h: numtorch.norm(h),
    "rsqrt": lambda h: h.rsqrt(),
}
PROMOTE = {
    "addcmul": lambda h, f: numtorch.addcmul(h, h, f), "atan2": lambda h, f: numtorch.atan2(h, f),
    "dot": lambda h, f: numtorch.dot(h[0], f[0]),
}


@pytest.mark.parametrize("name", LOW)
def test_matrix_products_run_in_float16(cuda, name):
    a, b = _x(4, 4), _x(4, 4)
    with numtorch.autocast("cuda", dtype=numtorch.float16):
        out = LOW[name](a, b)
    assert out.dtype is numtorch.float16 and out.device.type == "cuda"
    assert LOW[name](a, b).dtype is numtorch.float32  # outside the region: unchanged


@pytest.mark.parametrize("name", FP32)
def test_range_sensitive_ops_run_in_float32(cuda, name):
    h = _x(3, 4, dtype=numtorch.float16)
    with numtorch.autocast("cuda", dtype=numtorch.float16):
        out = FP32[name](h)
    assert out.dtype is numtorch.float32
    assert FP32[name](h).dtype is numtorch.float16


@pytest.mark.parametrize("name", PROMOTE)
def test_binary_ops_promote_to_the_widest_input(cuda, name):
    h, f = _x(3, 4, dtype=numtorch.float16), _x(3, 4)
    with numtorch.autocast("cuda", dtype=numtorch.float16):
        assert PROMOTE[name](h, f).dtype is numtorch.float32


def test_cpu_lists_stay_the_cpus(cuda):
    h = _x(3, 4, dtype=numtorch.float16)
    with numtorch.autocast("cuda", dtype=numtorch.float16):
        assert numtorch.exp(h.cpu()).dtype is numtorch.float16  # CPU tensors: not this region
    with numtorch.autocast("cpu", dtype=numtorch.bfloat16):
        assert numtorch.exp(h).dtype is numtorch.float16  # cuda tensors: not this region
        assert numtorch.mm(_x(2, 2).cpu(), _x(2, 2).cpu()).dtype is numtorch.bfloat16


def test_binary_cross_entropy_is_refused(cuda):
    p = _x(4).clamp(0, 1) * 0.5
    with numtorch.autocast("cuda", dtype=numtorch.float16):
        with pytest.raises(RuntimeError, match="unsafe to autocast"):
            F.binary_cross_entropy(p, p)
        assert F.binary_cross_entropy_with_logits(p.half(), p).dtype is numtorch.float32
    assert F.binary_cross_entropy(p, p).dtype is numtorch.float32
