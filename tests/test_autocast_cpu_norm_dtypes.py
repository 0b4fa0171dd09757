"""What CPU autocast (bfloat16) hands the norm layers and transposed convolutions: a half
input with float32 parameters (and running statistics) is allowed, every other mix raises
torch's texts; bfloat16 transposed convolutions round once, as torch's; a small conv +
attention net trains under autocast with torch's dtypes and losses."""

import numpy as np
import pytest
import torch

import numtorch as nt

DTYPES = ["bfloat16", "float16", "float32", "float64"]


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - class and text are compared
        return type(e).__name__, str(e)
    return str(r.dtype), np.asarray(r.float().detach().tolist())


def _same(fn, tol):
    a, b = _outcome(nt, fn), _outcome(torch, fn)
    assert a[0] == b[0], (a, b)
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=tol, atol=tol)


X = np.random.default_rng(0).standard_normal((4, 3, 5, 5)).astype(np.float32)


@pytest.mark.parametrize("xd", DTYPES)
@pytest.mark.parametrize("pd", DTYPES)
@pytest.mark.parametrize("which", ["all", "weight_bias", "stats"])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_parameter_dtypes(xd, pd, which, training):
    def run(lib):
        x = lib.tensor(X).to(getattr(lib, xd))
        p, own = getattr(lib, pd), getattr(lib, xd)
        wd = p if which in ("all", "weight_bias") else own
        sd = p if which in ("all", "stats") else own
        return lib.nn.functional.batch_norm(x, lib.zeros(3, dtype=sd), lib.ones(3, dtype=sd),
                                            lib.ones(3, dtype=wd), lib.zeros(3, dtype=wd),
                                            training=training)

    _same(run, 0.05)


@pytest.mark.parametrize("xd", DTYPES)
@pytest.mark.parametrize("wd", DTYPES)
@pytest.mark.parametrize("bias", ["same", "input", "none"])
@pytest.mark.parametrize("name", ["layer_norm", "group_norm", "instance_norm"])
def test_norm_parameter_dtypes(xd, wd, bias, name):
    def run(lib):
        x = lib.tensor(X).to(getattr(lib, xd))
        n = 5 if name == "layer_norm" else 3
        w = lib.ones(n, dtype=getattr(lib, wd))
        b = None if bias == "none" else lib.zeros(n, dtype=getattr(lib, wd if bias == "same"
                                                                   else xd))
        f = lib.nn.functional
        if name == "layer_norm":
            return f.layer_norm(x, (5,), w, b)
        if name == "group_norm":
            return f.group_norm(x, 3, w, b)
        return f.instance_norm(x, None, None, w, b)

    _same(run, 0.05)


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("nd", [1, 2])
def test_bfloat16_conv_transpose_rounds_once(stride, nd):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3) + (8,) * nd).astype(np.float32)
    w = rng.standard_normal((3, 4) + (3,) * nd).astype(np.float32)

    def run(lib):
        f = getattr(lib.nn.functional, f"conv_transpose{nd}d")
        return f(lib.tensor(x).bfloat16(), lib.tensor(w).bfloat16(), stride=stride)

    a, b = _outcome(nt, run), _outcome(torch, run)
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[1], b[1])


def _train(lib, init):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.c2 = nn.Conv2d(8, 16, 3, stride=2)
            self.att = nn.MultiheadAttention(16, 4, batch_first=True)
            self.ln = nn.LayerNorm(16)
            self.up = nn.ConvTranspose2d(16, 4, 2, stride=2)
            self.fc = nn.Linear(4 * 10 * 10, 10)

        def forward(self, x):
            h = self.c2(lib.relu(self.bn(self.c1(x))))
            t = h.flatten(2).transpose(1, 2)
            t = self.ln(t + self.att(t, t, t, need_weights=False)[0])
            h = self.up(t.transpose(1, 2).reshape(h.shape))
            return self.fc(h.flatten(1))

    m = Net()
    m.load_state_dict({k: lib.tensor(v) for k, v in init.items()})
    opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    losses, dtypes = [], []
    for _ in range(3):
        x = lib.tensor(rng.standard_normal((8, 3, 12, 12)).astype(np.float32))
        y = lib.tensor(rng.integers(0, 10, 8))
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = m(x)
            loss = nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        dtypes.append((str(out.dtype), str(loss.dtype)))
    return losses, dtypes


SHAPES = {
    "c1.weight": (8, 3, 3, 3), "c1.bias": (8,), "bn.weight": (8,), "bn.bias": (8,),
    "bn.running_mean": (8,), "bn.running_var": (8,), "c2.weight": (16, 8, 3, 3),
    "c2.bias": (16,), "att.in_proj_weight": (48, 16), "att.in_proj_bias": (48,),
    "att.out_proj.weight": (16, 16), "att.out_proj.bias": (16,), "ln.weight": (16,),
    "ln.bias": (16,), "up.weight": (16, 4, 2, 2), "up.bias": (4,), "fc.weight": (10, 400),
    "fc.bias": (10,),
}


def test_autocast_training_steps_match_torch():
    rng = np.random.default_rng(3)
    init = {}
    for k, s in SHAPES.items():  # both libraries start from the same weights
        v = rng.standard_normal(s).astype(np.float32) * 0.2
        init[k] = np.abs(v) + 0.5 if k in ("bn.running_var", "bn.weight", "ln.weight") else v
    init["bn.num_batches_tracked"] = np.array(0)
    t_losses, t_dtypes = _train(torch, init)
    n_losses, n_dtypes = _train(nt, init)
    assert n_dtypes == t_dtypes
    np.testing.assert_allclose(n_losses, t_losses, rtol=2e-2)
