"""torch.func transforms free their batched arrays when they return: a BatchedTensor and its
stand-in array no longer hold each other (that cycle kept every vmap's physical arrays alive
until the garbage collector ran). Values are compared with torch at test time."""

import gc
import weakref

import pytest
import torch

import numtorch


def _calls(lib):
    f = lib.func
    x = lib.arange(1.0, 4.0)
    return [
        lambda: f.jacrev(lambda t: t ** 3 + 2 * t)(x),
        lambda: f.jacfwd(lambda t: t * t.sum())(x),
        lambda: f.hessian(lambda t: (t ** 3).sum())(x),
        lambda: f.vmap(lambda t: t * 2)(lib.ones(2, 3)),
        lambda: f.vmap(f.grad(lambda t: (t ** 2).sum()))(lib.arange(6.0).view(3, 2)),
        lambda: f.vmap(f.vmap(lib.dot))(lib.ones(2, 3, 4), lib.ones(2, 3, 4)),
    ]


@pytest.mark.parametrize("i", range(6))
def test_transforms_leave_no_cycles(i):
    want = _calls(torch)[i]()
    call = _calls(numtorch)[i]
    call()  # first use builds rule tables once
    # until nothing is left: classes of custom Functions made by earlier tests die in two
    # collections (the Function first, then its node class, released by a weakref callback)
    while gc.collect():
        pass
    was = gc.isenabled()
    gc.disable()
    try:
        got = call()
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()
    assert got.tolist() == want.tolist()


def test_batched_physical_array_freed_on_return():
    seen = []

    def f(t):
        seen.append(weakref.ref(numtorch.func._batched.physical(t)[0]))
        return t * 2

    gc.disable()
    try:
        numtorch.func.vmap(f)(numtorch.ones(4, 3) * 5)
        assert seen and seen[0]() is None
    finally:
        gc.enable()


def test_escaped_batched_tensor_still_refuses_like_torch():
    for lib in (torch, numtorch):
        box = []
        lib.func.vmap(lambda t: box.append(t) or t * 2)(lib.ones(2, 3))
        with pytest.raises(RuntimeError):
            box[0] + 1
        assert box[0].shape == (3,)
