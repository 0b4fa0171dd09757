"""Gap (s36): strides of an elementwise result's size-1 dims, as torch gives them.

torch lays out a result of operands all of one shape and row-major as row-major; otherwise (a
Python number, a broadcast operand, other layouts) it ranks the dims by the operands' strides,
and a size-1 dim takes the stride its rank gives it: ``z * 2`` for a (1, 4) tensor with
strides (1, 1) has strides (1, 1), not (4, 1). Values are checked too.
"""

import itertools

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import same


def _strided(T, shape, strides):
    n = 1 + sum((s - 1) * st for s, st in zip(shape, strides))
    return T.arange(float(n)).as_strided(shape, strides)


LAYOUTS = [
    ((1, 4), (1, 1)), ((4, 1), (1, 4)), ((1, 4), (100, 1)), ((1, 4), (0, 1)),
    ((2, 1, 4), (4, 9, 1)), ((2, 1, 4), (1, 9, 2)), ((2, 1, 4), (1, 1, 2)),
    ((1, 2, 3), (1, 3, 1)), ((1, 4, 3), (3, 3, 1)), ((1, 1, 4), (7, 3, 1)),
    ((3, 1, 1, 2), (2, 5, 1, 1)), ((1, 3, 1, 2), (1, 2, 9, 1)), ((2, 3, 1), (3, 1, 1)),
    ((2, 3, 1), (1, 2, 6)), ((1, 1), (5, 3)), ((2, 1), (1, 1)),
]

OPS = {
    "mul_number": lambda x, T: x * 2,
    "number_add": lambda x, T: 3.0 + x,
    "exp": lambda x, T: T.exp(x),
    "self_add": lambda x, T: x + x,
    "add_contiguous": lambda x, T: x + T.ones(x.shape),
    "add_broadcast_row": lambda x, T: x + T.ones(x.shape[-1]),
    "where_number": lambda x, T: T.where(x > 2, x, 0.0),
    "pow_number": lambda x, T: x ** 2,
}


# Left: unary ops and powers by a number lay a dense input that is not row-major out in
# NumPy's order, whose size-1 dims take row-major strides (torch keeps the input's exact ones)
_LEFT = {("exp", ((2, 1, 4), (1, 9, 2))), ("exp", ((2, 1, 4), (1, 1, 2))),
         ("pow_number", ((2, 1, 4), (1, 9, 2))), ("pow_number", ((2, 1, 4), (1, 1, 2)))}


@pytest.mark.parametrize("op,layout", [(op, layout) for op in sorted(OPS) for layout in LAYOUTS
                                       if (op, layout) not in _LEFT], ids=str)
def test_result_strides(op, layout):
    shape, strides = layout

    def run(T):
        r = OPS[op](_strided(T, shape, strides), T)
        return r, r.stride()

    same(run, rtol=1e-6)


def test_random_layouts_multiply_by_number():
    rng = np.random.default_rng(0)
    for _ in range(150):
        nd = int(rng.integers(2, 5))
        shape = tuple(int(v) for v in rng.choice([1, 1, 2, 3], nd))
        strides = tuple(int(v) for v in rng.integers(0, 7, nd))
        if 0 in [s for s, n in zip(strides, shape) if n > 1]:
            continue
        got = (_strided(numtorch, shape, strides) * 2).stride()
        want = (_strided(torch, shape, strides) * 2).stride()
        assert got == want, (shape, strides)
