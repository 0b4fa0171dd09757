"""GPU-path bugs found by running the whole op and module tables on the CuPy stand-in
(``NUMTORCH_STANDIN_FULL=1``), which CI's representative subset does not reach: each case
against torch, on the stand-in."""

import numpy as np
import pytest

import numtorch
from tests.cuda import standin
from tests.oracle import check_op


@pytest.fixture
def cuda():
    with standin.active():
        numtorch.set_default_device("cuda")
        try:
            yield
        finally:
            numtorch.set_default_device(None)


@pytest.mark.parametrize("dtype", ["uint8", "int16"])
def test_out_of_range_int_scalars_wrap_on_cuda(cuda, dtype):
    # the wrapped scalar was a 0-d host array, which CuPy's ufuncs refuse
    x = np.array([1, 2, 200, 7], dtype=dtype)
    check_op(lambda t, a: a % -4, [x], grad=False, device="cuda", atol=0, rtol=0)
    check_op(lambda t, a: a + (-3 if dtype == "uint8" else 70000), [x], atol=0, rtol=0,
             grad=False, device="cuda")


def test_logsigmoid_second_order_on_cuda(cuda):
    # its gradient kernel used ufunc(where=), which CuPy's ufuncs do not take
    check_op(lambda t, a: t.nn.functional.logsigmoid(a), [(2, 3)], device="cuda")
