"""More of torch's missing names against torch: SobolEngine, grid_sampler /
affine_grid_generator, Tensor.sparse_mask and Tensor.module_load."""

import numpy as np
import pytest

import numtorch
from tests.oracle import check_op, same

rng = np.random.default_rng(6)


def _arr(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


# -- SobolEngine ----------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [1, 3, 40])
def test_sobol_unscrambled_is_torchs_sequence(dim):
    def fn(t):
        e = t.quasirandom.SobolEngine(dim)
        a = e.draw(5)
        b = e.draw(3, dtype=t.float64)
        c = e.fast_forward(7).draw(4)
        n = e.num_generated
        d = e.reset().draw(2)
        return a, b, c, n, d, repr(e)

    same(fn, rtol=1e-7, atol=1e-7)


def test_sobol_draw_base2_out_errors_and_scramble():
    def base2(t):
        e = t.quasirandom.SobolEngine(2)
        first = e.draw_base2(2)
        e.draw(1)
        return first, e.draw_base2(1)

    same(base2)
    same(lambda t: t.quasirandom.SobolEngine(0))
    same(lambda t: t.quasirandom.SobolEngine(30000))

    def out(t):
        buf = t.empty(2, 2)
        r = t.quasirandom.SobolEngine(2).draw(2, out=buf)
        return r is buf, buf

    same(out)
    same(lambda t: (t.quasirandom.SobolEngine.MAXBIT, t.quasirandom.SobolEngine.MAXDIM))
    same(lambda t: repr(t.quasirandom.SobolEngine(3, scramble=True, seed=3)))
    pts = numtorch.quasirandom.SobolEngine(4, scramble=True, seed=0).draw(1024)
    assert pts.dtype == numtorch.float32 and pts.shape == (1024, 4)
    assert float(pts.min()) >= 0.0 and float(pts.max()) < 1.0
    # a scrambled Sobol set keeps its balance: each half of every axis holds half the points
    assert ((pts < 0.5).sum(0) == 512).all()
    again = numtorch.quasirandom.SobolEngine(4, scramble=True, seed=0).draw(1024)
    assert numtorch.equal(pts, again)


# -- grid sampler forms ---------------------------------------------------------------------

def test_grid_sampler_forms():
    x = _arr(2, 3, 5, 4)
    grid = _arr(2, 3, 2, 2, low=-1.1, high=1.1)
    for interp in (0, 1):
        for pad in (0, 1, 2):
            for align in (False, True):
                check_op(lambda t, x, g: t.grid_sampler(x, g, interp, pad, align), [x, grid],
                         second_order=False)
    check_op(lambda t, x, g: t.grid_sampler_2d(x, g, 0, 0, False), [x, grid],
             second_order=False)
    check_op(lambda t, x, g: t.grid_sampler_3d(x, g, 0, 1, True),
             [_arr(1, 2, 3, 4, 3), _arr(1, 2, 2, 2, 3, low=-1, high=1)], second_order=False)
    theta = _arr(2, 2, 3)
    check_op(lambda t, th: t.affine_grid_generator(th, [2, 3, 4, 5], False), [theta])
    check_op(lambda t, th: t.affine_grid_generator(th, (2, 3, 4, 5), True), [theta])
    same(lambda t: t.cudnn_is_acceptable(t.ones(2)))


# -- sparse_mask, module_load ---------------------------------------------------------------

def test_sparse_mask():
    a = _arr(3, 4)

    def fn(t, coalesced):
        m = t.sparse_coo_tensor(t.tensor([[0, 2, 1], [3, 0, 1]]), t.ones(3), (3, 4))
        m = m.coalesce() if coalesced else m
        out = t.from_numpy(a).sparse_mask(m)
        return out.is_coalesced(), out._indices(), out._values(), out.to_dense()

    same(lambda t: fn(t, True))
    same(lambda t: fn(t, False))

    def grad(t):
        x = t.from_numpy(a).requires_grad_()
        m = t.sparse_coo_tensor(t.tensor([[0, 2], [3, 0]]), t.ones(2), (3, 4)).coalesce()
        x.sparse_mask(m).to_dense().sum().backward()
        return x.grad

    same(grad)
    same(lambda t: t.ones(2, 3).sparse_mask(t.ones(2, 3)), messages=False)


def test_module_load():
    def fn(t, assign):
        p = t.nn.Parameter(t.zeros(2))
        other = t.tensor([1.0, 2.0], requires_grad=True)
        with t.no_grad():
            out = p.module_load(other, assign=assign)
        return out is p, out is other, out.requires_grad, out, p.detach()

    same(lambda t: fn(t, False))
    same(lambda t: fn(t, True))


# -- fork / wait, symbolic number types -----------------------------------------------------

def test_fork_wait():
    def fn(t):
        f = t.jit.fork(lambda a, b=1: a + b, t.ones(2), b=5)
        g = t.fork(len, [1, 2, 3])
        return f.done(), t.jit.wait(f), f.value(), t.wait(g)

    same(fn)

    def raising(t):
        def bad():
            raise ValueError("boom")

        t.jit.fork(bad)

    same(raising)
    same(lambda t: t.wait(3), messages=False)


def test_sym_types():
    same(lambda t: [isinstance(v, (t.SymInt, t.SymFloat, t.SymBool))
                    for v in (3, 2.5, True, t.ones(1))])
    same(lambda t: [c.__name__ for c in (t.SymInt, t.SymFloat, t.SymBool)])


# -- whole recurrent stacks from flat weights -----------------------------------------------

@pytest.mark.parametrize("mode,kw", [
    ("lstm", dict(num_layers=2, bidirectional=True)), ("lstm", dict(proj_size=2)),
    ("gru", dict(num_layers=2)), ("rnn_tanh", dict(bias=False)),
    ("rnn_relu", dict(bidirectional=True))])
@pytest.mark.parametrize("batch_first", [False, True])
def test_recurrent_stacks(mode, kw, batch_first):
    import torch

    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(mode, torch.nn.RNN)
    extra = {"nonlinearity": mode[4:]} if mode.startswith("rnn") else {}
    m = cls(3, 4, batch_first=batch_first, **kw, **extra).double()
    weights = [w.detach().numpy().copy() for w in m._flat_weights]
    layers, dirs = m.num_layers, 2 if m.bidirectional else 1
    hidden = m.proj_size or 4
    x = _arr(2, 5, 3) if batch_first else _arr(5, 2, 3)
    h = _arr(layers * dirs, 2, hidden)
    c = _arr(layers * dirs, 2, 4)

    def fn(t, x, h, c, *ws):
        hx = (h, c) if mode == "lstm" else h
        return getattr(t, mode)(x, hx, list(ws), m.bias, layers, 0.0, False, m.bidirectional,
                                batch_first)

    check_op(fn, [x, h, c] + weights, second_order=False)
