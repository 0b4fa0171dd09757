"""Python operators between tensors and other objects, against torch.

torch's binary operators give way (NotImplemented) when the other operand is not a tensor or a
number, so Python asks the other operand: ``tensor * ndarray`` is computed by NumPy and comes
back as a tensor of NumPy's result dtype, ``ndarray * tensor`` and ``tensor + [1]`` fail with
Python's own messages, ``tensor * [1, 2]`` repeats the list when the tensor is an index.
"""

import copy
import fractions
import operator as op
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import same

_ARITH = {"add": op.add, "sub": op.sub, "mul": op.mul, "truediv": op.truediv,
          "floordiv": op.floordiv, "mod": op.mod, "pow": op.pow, "matmul": op.matmul}
_BITS = {"and": op.and_, "or": op.or_, "xor": op.xor, "lshift": op.lshift, "rshift": op.rshift}
_CMP = {"eq": op.eq, "ne": op.ne, "lt": op.lt, "ge": op.ge}
_ARRAYS = {"f64": np.array([1., 2., 3.]), "f32": np.array([1., 2., 3.], dtype=np.float32),
           "i64": np.array([1, 2, 3]), "0d": np.array(2.), "bool": np.array([True, False, True]),
           "2d": np.ones((2, 3))}


def _quiet(fn):
    def run(t):
        with warnings.catch_warnings():
            # torch's __array_wrap__ draws a DeprecationWarning from NumPy; not compared
            warnings.simplefilter("ignore", DeprecationWarning)
            return fn(t)
    return run


def _cases():
    out = []
    for name, f in {**_ARITH, **_CMP}.items():
        for an, a in _ARRAYS.items():
            out.append((f"tensor-{name}-{an}", lambda t, f=f, a=a: f(t.ones(3), a)))
            out.append((f"{an}-{name}-tensor", lambda t, f=f, a=a: f(a, t.ones(3))))
    for name, f in _BITS.items():
        a = np.array([1, 2, 3])
        out.append((f"tensor-{name}-array", lambda t, f=f, a=a: f(t.ones(3, dtype=t.long), a)))
        out.append((f"array-{name}-tensor", lambda t, f=f, a=a: f(a, t.ones(3, dtype=t.long))))
    others = {"list": [1., 2., 3.], "tuple": (1., 2.), "str": "a", "none": None,
              "object": object(), "fraction": fractions.Fraction(1, 2)}
    for name, f in {"add": op.add, "mul": op.mul, "sub": op.sub, "pow": op.pow, "lt": op.lt,
                    "eq": op.eq, "and": op.and_, "iadd": op.iadd, "imul": op.imul}.items():
        for vn, v in others.items():
            if vn == "fraction" and name in ("pow",):
                continue  # torch reads a Fraction exponent as a number
            out.append((f"tensor-{name}-{vn}", lambda t, f=f, v=v: f(t.ones(3), v)))
            out.append((f"{vn}-{name}-tensor", lambda t, f=f, v=v: f(copy.copy(v), t.ones(3))))
    out += [
        ("iadd-array-rebinds", lambda t: op.iadd(t.ones(3), np.array([1., 2., 3.]))),
        ("imul-int-array", lambda t: op.imul(t.ones(3), np.array([1, 2, 3]))),
        ("array-iadd-tensor", lambda t: op.iadd(np.ones(3), t.ones(3))),
        ("half-times-f64-array", lambda t: t.ones(3, dtype=t.float16) * np.ones(3)),
        ("long-times-f32-array", lambda t: t.ones(3, dtype=t.long) * np.ones(3, np.float32)),
        ("array-div-long", lambda t: np.array([1., 2.]) / t.tensor([2, 4])),
        ("array-div-requires-grad", lambda t: np.array([1.]) / t.ones(1, requires_grad=True)),
        ("requires-grad-times-array", lambda t: t.ones(1, requires_grad=True) * np.ones(1)),
        ("eq-requires-grad", lambda t: np.array([1., 2.]) == t.ones(2, requires_grad=True)),
        ("eq-half-f64", lambda t: t.tensor([0.1], dtype=t.float16) == np.array([0.1])),
        ("eq-str-array", lambda t: t.tensor([1, 2]) == np.array(["a", "b"])),
        ("index-tensor-repeats-list", lambda t: t.tensor(2) * [1, 2]),
        ("list-repeated-by-index-tensor", lambda t: [1, 2] * t.tensor(2)),
        ("function-add-array", lambda t: t.add(t.ones(3), np.ones(3))),
        ("function-maximum-array", lambda t: t.maximum(t.ones(3), np.ones(3))),
        ("function-mul-list", lambda t: t.mul(t.ones(3), [1.])),
    ]
    return out


CASES = _cases()


@pytest.mark.parametrize("fn", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_operators_with_other_objects_match_torch(fn):
    same(_quiet(fn), warns=True)


def test_tensor_times_array_keeps_numtorch_tensors():
    out = numtorch.ones(3) * np.array([1., 2., 3.])
    assert isinstance(out, numtorch.Tensor) and out.dtype is numtorch.float64
    assert not isinstance(out, torch.Tensor)
