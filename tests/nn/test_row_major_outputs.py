"""Ops whose torch result is row-major whatever the input's layout: softmax, log_softmax,
softmin, layer_norm and instance_norm of a transposed, permuted or channels-last input (NumPy's
ufuncs follow the input's layout, so numtorch used to return a non-contiguous result, and a
.view() on it raised where torch's works). batch_norm and group_norm keep channels-last, as
torch's do."""

import numpy as np
import torch

import numtorch


def _inputs(lib):
    g = np.random.default_rng(0)
    mat = lib.from_numpy(g.standard_normal((4, 6)).astype(np.float32)).t()
    cube = lib.from_numpy(g.standard_normal((2, 3, 4)).astype(np.float32)).permute(2, 0, 1)
    img = lib.from_numpy(g.standard_normal((2, 3, 4, 5)).astype(np.float32)).contiguous(
        memory_format=lib.channels_last)
    return mat, cube, img


def _layouts(lib):
    F = lib.nn.functional
    mat, cube, img = _inputs(lib)
    outs = [F.softmax(mat, 0), F.softmax(mat, 1), F.log_softmax(mat, 1), F.softmin(mat, 1),
            F.softmax(cube, -1), F.softmax(img, 1), F.log_softmax(img, 1),
            F.softmax(mat.half(), 1), F.log_softmax(mat.to(lib.bfloat16), 0),
            F.layer_norm(mat, (4,)), F.layer_norm(cube, (3,)), F.layer_norm(img, (5,)),
            F.instance_norm(img), F.instance_norm(img, lib.zeros(3), lib.ones(3),
                                                  use_input_stats=False),
            F.group_norm(img, 3), F.batch_norm(img, None, None, training=True),
            lib.nn.LayerNorm(4)(mat)]
    return [(tuple(o.shape), o.stride(), o.is_contiguous()) for o in outs]


def test_output_layouts_as_torch():
    assert _layouts(numtorch) == _layouts(torch)


def test_values_and_gradients_unchanged_by_the_copy():
    res = []
    for lib in (numtorch, torch):
        mat, _, img = _inputs(lib)
        mat.requires_grad_()
        img.requires_grad_()
        y = lib.nn.functional.softmax(mat, 1).sum(0) @ lib.arange(4.0)
        z = (lib.nn.functional.layer_norm(img, (5,)) * lib.arange(5.0)).sum()
        (y + z).backward()
        res.append((mat.grad.numpy(), img.grad.numpy(), img.grad.stride(),
                    lib.nn.functional.softmax(mat, 1).view(-1).detach().numpy()))
    for a, b in zip(res[0], res[1]):
        if isinstance(a, tuple):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
