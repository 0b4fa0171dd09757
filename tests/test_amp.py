"""``torch.amp``: CPU autocast casts the ops on torch's lists as torch does (dtypes and values),
its state API and warnings, ``custom_fwd``/``custom_bwd``, and ``GradScaler`` step for step."""

import pickle
import threading
import warnings

import numpy as np
import pytest
import torch

import numtorch
from numtorch.amp import _policy

RNG = np.random.default_rng(0)


def _arr(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _np(t):
    return t.detach().float().numpy() if t.dtype.is_floating_point else t.detach().numpy()


def _same(ours, theirs, tol):
    ours = ours if isinstance(ours, (tuple, list)) else [ours]
    theirs = theirs if isinstance(theirs, (tuple, list)) else [theirs]
    for a, b in zip(ours, theirs):
        assert str(a.dtype) == str(b.dtype)
        if not b.is_complex():
            np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


# name -> (function of (lib, F, lo, *tensors), input arrays); ``lo`` casts a tensor to the
# region's dtype, for the ops whose float32 (or promote) policy is the point.
CASES = {
    # lower precision: to the region's dtype
    "mm": (lambda L, F, lo, a, b: L.mm(a, b), [_arr(3, 4), _arr(4, 5)]),
    "matmul": (lambda L, F, lo, a, b: L.matmul(a, b), [_arr(2, 3, 4), _arr(4, 5)]),
    "@": (lambda L, F, lo, a, b: a @ b, [_arr(3, 4), _arr(4, 5)]),
    "Tensor.matmul": (lambda L, F, lo, a, b: a.matmul(b), [_arr(3, 4), _arr(4, 5)]),
    "bmm": (lambda L, F, lo, a, b: L.bmm(a, b), [_arr(2, 3, 4), _arr(2, 4, 5)]),
    "baddbmm": (lambda L, F, lo, c, a, b: L.baddbmm(c, a, b), [_arr(2, 3, 5), _arr(2, 3, 4),
                                                           _arr(2, 4, 5)]),
    "addmm": (lambda L, F, lo, c, a, b: L.addmm(c, a, b), [_arr(3, 5), _arr(3, 4), _arr(4, 5)]),
    "Tensor.addmm": (lambda L, F, lo, c, a, b: c.addmm(a, b), [_arr(3, 5), _arr(3, 4),
                                                           _arr(4, 5)]),
    "addbmm": (lambda L, F, lo, c, a, b: L.addbmm(c, a, b), [_arr(3, 5), _arr(2, 3, 4),
                                                         _arr(2, 4, 5)]),
    "linear": (lambda L, F, lo, x, w, b: F.linear(x, w, b), [_arr(3, 4), _arr(5, 4), _arr(5)]),
    "conv1d": (lambda L, F, lo, x, w: F.conv1d(x, w), [_arr(1, 2, 7), _arr(3, 2, 3)]),
    "conv2d": (lambda L, F, lo, x, w, b: F.conv2d(x, w, b, padding=1),
               [_arr(2, 2, 5, 5), _arr(3, 2, 3, 3), _arr(3)]),
    "conv_transpose2d": (lambda L, F, lo, x, w: F.conv_transpose2d(x, w, stride=2),
                         [_arr(1, 2, 4, 4), _arr(2, 3, 3, 3)]),
    "prelu": (lambda L, F, lo, x, w: F.prelu(x, w), [_arr(2, 3), _arr(1)]),
    "sdpa": (lambda L, F, lo, q, k, v: F.scaled_dot_product_attention(q, k, v),
             [_arr(1, 2, 3, 4), _arr(1, 2, 3, 4), _arr(1, 2, 3, 4)]),
    "einsum": (lambda L, F, lo, a, b: L.einsum("ij,jk->ik", a, b), [_arr(3, 4), _arr(4, 5)]),
    "tensordot": (lambda L, F, lo, a, b: L.tensordot(a, b, 1), [_arr(3, 4), _arr(4, 5)]),
    "multi_dot": (lambda L, F, lo, a, b: L.linalg.multi_dot([a, b]), [_arr(3, 4), _arr(4, 5)]),
    "vecdot": (lambda L, F, lo, a, b: L.linalg.vecdot(a, b), [_arr(3, 4), _arr(3, 4)]),
    "mm float64 untouched": (lambda L, F, lo, a, b: L.mm(a.double(), b.double()),
                             [_arr(3, 4), _arr(4, 5)]),
    "mm float16 input": (lambda L, F, lo, a, b: L.mm(a.half(), b), [_arr(3, 4), _arr(4, 5)]),
    "mm with out=": (lambda L, F, lo, a, b: L.mm(a, b, out=L.empty(3, 5)), [_arr(3, 4), _arr(4, 5)]),
    # not on the lists: run in the input dtype
    "dot": (lambda L, F, lo, a, b: L.dot(a, b), [_arr(4), _arr(4)]),
    "mv": (lambda L, F, lo, a, b: L.mv(a, b), [_arr(3, 4), _arr(4)]),
    "softmax": (lambda L, F, lo, x: F.softmax(lo(x), -1), [_arr(3, 4)]),
    "log_softmax": (lambda L, F, lo, x: F.log_softmax(lo(x), -1), [_arr(3, 4)]),
    "layer_norm": (lambda L, F, lo, x: F.layer_norm(lo(x), (4,)), [_arr(3, 4)]),
    "gelu": (lambda L, F, lo, x: F.gelu(lo(x)), [_arr(3, 4)]),
    "sum": (lambda L, F, lo, x: L.sum(lo(x)), [_arr(3, 4)]),
    "avg_pool2d": (lambda L, F, lo, x: F.avg_pool2d(lo(x), 2), [_arr(1, 1, 4, 4)]),
    "constant pad": (lambda L, F, lo, x: F.pad(lo(x), (1, 1)), [_arr(1, 2, 4)]),
    "relu float32": (lambda L, F, lo, x: F.relu(x), [_arr(3, 4)]),
    # float32
    "mse_loss": (lambda L, F, lo, a, b: F.mse_loss(lo(a), lo(b)), [_arr(3, 4), _arr(3, 4)]),
    "l1_loss": (lambda L, F, lo, a, b: F.l1_loss(lo(a), lo(b)), [_arr(3, 4), _arr(3, 4)]),
    "smooth_l1_loss": (lambda L, F, lo, a, b: F.smooth_l1_loss(lo(a), lo(b)),
                       [_arr(3, 4), _arr(3, 4)]),
    "cross_entropy": (lambda L, F, lo, x, t: F.cross_entropy(lo(x), t),
                      [_arr(4, 5), np.array([0, 2, 4, 1])]),
    "nll_loss": (lambda L, F, lo, x, t: F.nll_loss(lo(x), t), [_arr(4, 5), np.array([0, 2, 4, 1])]),
    "binary_cross_entropy_with_logits": (
        lambda L, F, lo, x, t: F.binary_cross_entropy_with_logits(lo(x), lo(t.sigmoid())),
        [_arr(3, 4), _arr(3, 4)]),
    "kl_div": (lambda L, F, lo, a, b: F.kl_div(lo(a), lo(b), reduction="batchmean"),
               [_arr(3, 4), _arr(3, 4)]),
    "mse_loss float16": (lambda L, F, lo, a, b: F.mse_loss(a.half(), b.half()),
                         [_arr(3, 4), _arr(3, 4)]),
    "mse_loss float64": (lambda L, F, lo, a, b: F.mse_loss(a.double(), b.double()),
                         [_arr(3, 4), _arr(3, 4)]),
    "max_pool3d": (lambda L, F, lo, x: F.max_pool3d(lo(x), 2), [_arr(1, 1, 2, 4, 4)]),
    "adaptive_avg_pool3d": (lambda L, F, lo, x: F.adaptive_avg_pool3d(lo(x), 1),
                            [_arr(1, 2, 2, 2, 2)]),
    "reflect pad 1d": (lambda L, F, lo, x: F.pad(lo(x), (2, 1), mode="reflect"), [_arr(1, 2, 5)]),
    "replicate pad 2d": (lambda L, F, lo, x: F.pad(lo(x), (1, 1, 1, 1), mode="replicate"),
                         [_arr(1, 2, 4, 4)]),
    "grid_sample": (lambda L, F, lo, x, g: F.grid_sample(lo(x), lo(g.tanh()), align_corners=False),
                    [_arr(1, 1, 4, 4), _arr(1, 3, 3, 2)]),
    "prod": (lambda L, F, lo, x: L.prod(lo(x)), [_arr(2, 3)]),
    "Tensor.prod": (lambda L, F, lo, x: lo(x).prod(1), [_arr(2, 3)]),
    "cdist": (lambda L, F, lo, a, b: L.cdist(lo(a), lo(b)), [_arr(3, 4), _arr(2, 4)]),
    "trace": (lambda L, F, lo, x: L.trace(lo(x)), [_arr(3, 3)]),
    "inverse": (lambda L, F, lo, x: L.inverse(lo(x) + 3 * L.eye(3).bfloat16()), [_arr(3, 3)]),
    "linalg.svdvals": (lambda L, F, lo, x: L.linalg.svdvals(lo(x)), [_arr(3, 3)]),
    # promote: to the widest floating input
    "cat": (lambda L, F, lo, a, b: L.cat([lo(a), b]), [_arr(2), _arr(3)]),
    "stack": (lambda L, F, lo, a, b: L.stack([lo(a), b]), [_arr(2), _arr(2)]),
    "index_copy": (lambda L, F, lo, a, b: lo(a).index_copy(0, L.tensor([1]), b), [_arr(3), _arr(1)]),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(CASES))
def test_op_policy_matches_torch(name, dtype):
    fn, arrays = CASES[name]
    results = []
    for lib in (numtorch, torch):
        tensors = [lib.from_numpy(a.copy()) for a in arrays]
        low = getattr(lib, dtype)
        with lib.autocast("cpu", dtype=low):
            results.append(fn(lib, lib.nn.functional, lambda t: t.to(low), *tensors))
    _same(*results, tol=2e-2)


def test_modules_match_torch_in_dtype_value_and_gradient():
    """Linear, Conv2d, MultiheadAttention and a Transformer layer, forward and backward."""
    torch.manual_seed(0)
    t_model = torch.nn.ModuleDict({
        "fc": torch.nn.Linear(8, 8), "conv": torch.nn.Conv2d(2, 2, 3, padding=1),
        "mha": torch.nn.MultiheadAttention(8, 2), "layer": torch.nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0)})
    n_model = numtorch.nn.ModuleDict({
        "fc": numtorch.nn.Linear(8, 8), "conv": numtorch.nn.Conv2d(2, 2, 3, padding=1),
        "mha": numtorch.nn.MultiheadAttention(8, 2), "layer": numtorch.nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0)})
    n_model.load_state_dict({k: numtorch.from_numpy(v.numpy().copy())
                             for k, v in t_model.state_dict().items()})
    x, img = _arr(3, 1, 8), _arr(1, 2, 4, 4)

    def run(lib, model):
        xs, ims = lib.from_numpy(x.copy()), lib.from_numpy(img.copy())
        with lib.autocast("cpu", dtype=lib.bfloat16):
            a = model["fc"](xs)
            b = model["conv"](ims)
            c, w = model["mha"](a, a, a)
            d = model["layer"](xs)
            loss = lib.nn.functional.mse_loss(c, lib.zeros_like(xs)) + b.float().sum() + d.sum()
        loss.backward()
        return [a, b, c, w, d, loss, model["fc"].weight.grad, model["mha"].in_proj_weight.grad]

    _same(run(numtorch, n_model), run(torch, t_model), tol=5e-2)


def test_wrappers_exist_only_while_autocast_is_on():
    linear = numtorch.nn.functional.linear
    matmul = numtorch.Tensor.__matmul__
    assert not _policy.is_installed()
    with numtorch.autocast("cpu"):
        assert numtorch.nn.functional.linear is not linear and _policy.is_installed()
        with numtorch.autocast("cpu", enabled=False):
            assert numtorch.mm(numtorch.ones(2, 2), numtorch.ones(2, 2)).dtype == numtorch.float32
    assert numtorch.nn.functional.linear is linear and numtorch.Tensor.__matmul__ is matmul
    assert "__matmul__" not in vars(numtorch.Tensor) or vars(numtorch.Tensor)["__matmul__"] \
        is matmul
    assert not _policy.is_installed()


def test_autocast_is_per_thread():
    seen = []
    with numtorch.autocast("cpu"):
        worker = threading.Thread(target=lambda: seen.append(
            (numtorch.is_autocast_enabled("cpu"),
             numtorch.mm(numtorch.ones(2, 2), numtorch.ones(2, 2)).dtype)))
        worker.start()
        worker.join()
        assert numtorch.mm(numtorch.ones(2, 2), numtorch.ones(2, 2)).dtype == numtorch.bfloat16
    assert seen == [(False, numtorch.float32)]


def test_a_thread_that_ends_inside_a_region_does_not_keep_the_wrappers():
    worker = threading.Thread(target=lambda: numtorch.autocast("cpu").__enter__())
    worker.start()
    worker.join()
    with numtorch.autocast("cpu"):
        assert _policy.is_installed()
    assert not _policy.is_installed()


def test_weight_cast_cache_as_torch():
    """Within a region a weight is cast once: an in-place change to it is not seen until the
    region ends (torch's documented cache behaviour)."""
    outs = []
    for lib in (numtorch, torch):
        fc = lib.nn.Linear(2, 2)
        x = lib.ones(1, 2)
        with lib.autocast("cpu"):
            y1 = fc(x)
            with lib.no_grad():
                fc.weight.add_(1.0)
            y2 = fc(x)
        y3 = fc(x)
        outs.append([lib.equal(y1, y2), str(y3.dtype), lib.is_autocast_cache_enabled()])
    assert outs[0] == outs[1]


def _state_trace(lib):
    """The autocast state API's answers along a sequence of regions."""
    out = [lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu"),
           str(lib.get_autocast_dtype("cpu")), str(lib.get_autocast_dtype("cuda")),
           str(lib.get_autocast_dtype("xpu")), lib.amp.is_autocast_available("cpu")]
    with lib.autocast("cpu", dtype=lib.float16, cache_enabled=False):
        out += [lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu"),
                str(lib.get_autocast_dtype("cpu")), lib.is_autocast_cache_enabled()]
        with lib.autocast("cpu", enabled=False):
            out += [lib.is_autocast_enabled("cpu"), str(lib.get_autocast_dtype("cpu"))]
        out.append(lib.is_autocast_enabled("cpu"))
    out += [lib.is_autocast_enabled("cpu"), lib.is_autocast_cache_enabled(),
            str(lib.get_autocast_dtype("cpu"))]
    lib.set_autocast_enabled("cpu", True)
    out.append(lib.is_autocast_enabled("cpu"))
    lib.set_autocast_enabled("cpu", False)
    out += [lib.autocast_increment_nesting(), lib.autocast_decrement_nesting()]

    @lib.autocast("cpu")
    def decorated(a):
        return str((a @ a).dtype), lib.is_autocast_enabled("cpu")

    out.append(decorated(lib.ones(2, 2)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out.append(lib.is_autocast_cpu_enabled())
        out.append(str(lib.get_autocast_gpu_dtype()))
        lib.autocast("cpu", dtype=lib.float32)
        lib.autocast("cuda")
        lib.cuda.amp.autocast()
        lib.cpu.amp.autocast()
    out.append([(w.category.__name__, str(w.message).split(" (Triggered")[0]) for w in caught])
    for bad in (lambda: lib.autocast(lib.device("cpu")), lambda: lib.autocast("xyz"),
                lambda: lib.get_autocast_dtype("meta")):
        with pytest.raises(Exception) as info:
            bad()
        out.append((type(info.value).__name__, str(info.value).replace("numtorch.", "torch.")))
    return out


def test_state_api_and_warnings_match_torch():
    assert _state_trace(numtorch) == _state_trace(torch)


def _custom_function_trace(lib):
    trace = []

    class CastsToFloat32(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, x, y):
            trace.append(("fwd32", str(x.dtype), str(y.dtype), lib.is_autocast_enabled("cpu")))
            return x @ y

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            trace.append(("bwd32", str(g.dtype), lib.is_autocast_enabled("cpu")))
            return g, g

    class KeepsRegion(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu")
        def forward(ctx, x):
            trace.append(("fwd", str(x.dtype), lib.is_autocast_enabled("cpu")))
            return x @ x

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            trace.append(("bwd", str(g.dtype), lib.is_autocast_enabled("cpu"),
                          str(lib.get_autocast_dtype("cpu"))))
            return g

    x = lib.ones(2, 2, dtype=lib.bfloat16, requires_grad=True)
    w = lib.ones(2, 2, requires_grad=True)
    with lib.autocast("cpu", dtype=lib.float16):
        a = CastsToFloat32.apply(x, lib.ones(2, 2))
        b = KeepsRegion.apply(w)
    trace.append((str(a.dtype), str(b.dtype)))
    (a.float().sum() + b.float().sum()).backward()
    trace.append((str(x.grad.dtype), str(w.grad.dtype)))
    return trace


def test_custom_fwd_and_bwd_match_torch():
    assert _custom_function_trace(numtorch) == _custom_function_trace(torch)


# -- GradScaler ---------------------------------------------------------------------------------
def _scaler_trace(lib, scaler):
    """Five steps with an overflow at step 2; every observable of the scaler after each."""
    p = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([p], lr=0.1)
    out = []
    for i in range(5):
        opt.zero_grad()
        loss = (p * lib.tensor([1.0, 2.0, float("inf") if i == 2 else 3.0])).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)
        out.append([_np(p.grad).tolist(), scaler.step(opt), scaler.get_scale(),
                    scaler._get_growth_tracker() if scaler.is_enabled() else None,
                    np.round(_np(p), 6).tolist(), scaled.item()])
        scaler.update()
    out.append(scaler.state_dict())
    out.append(scaler.scale([lib.ones(1), (lib.ones(2),)])[1][0].tolist())
    return out


@pytest.mark.parametrize("args", [dict(init_scale=4.0, growth_interval=2),
                                  dict(init_scale=3e38, growth_interval=1),
                                  dict(enabled=False)])
def test_grad_scaler_steps_as_torch(args):
    ours = _scaler_trace(numtorch, numtorch.amp.GradScaler("cpu", **args))
    theirs = _scaler_trace(torch, torch.amp.GradScaler("cpu", **args))
    assert ours == theirs


def _misuse_trace(lib):
    out = []
    p = lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    fresh = lib.amp.GradScaler("cpu")
    calls = [lambda s: s.update(), lambda s: s.unscale_(opt), lambda s: s.step(opt),
             lambda s: s.scale(3.0)]
    used = lib.amp.GradScaler("cpu")
    used.scale(p.sum()).backward()
    calls_used = [lambda s: s.update(), lambda s: s.step(opt, closure=lambda: 0),
                  lambda s: (s.unscale_(opt), s.unscale_(opt)),
                  lambda s: (s.step(opt), s.unscale_(opt)), lambda s: s.step(opt),
                  lambda s: s.update(lib.tensor([1.0, 2.0])), lambda s: s.update(5)]
    for scaler, group in ((fresh, calls), (used, calls_used)):
        for call in group:
            try:
                call(scaler)
                out.append("ok")
            except (AssertionError, RuntimeError, ValueError, AttributeError) as exc:
                out.append((type(exc).__name__, str(exc)))
    used.update(16.0)
    out.append(used.get_scale())
    with pytest.raises(RuntimeError) as info:
        lib.amp.GradScaler("cpu").load_state_dict({})
    out.append(str(info.value))
    loaded = lib.amp.GradScaler("cpu")
    loaded.load_state_dict({"scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25,
                            "growth_interval": 7, "_growth_tracker": 2})
    out.append(loaded.state_dict())
    out.append(pickle.loads(pickle.dumps(loaded)).state_dict())
    p16 = lib.nn.Parameter(lib.ones(2).half())
    half = lib.amp.GradScaler("cpu")
    half.scale((p16 * 2).sum()).backward()
    with pytest.raises(ValueError) as info:
        half.unscale_(lib.optim.SGD([p16], lr=0.1))
    out.append(str(info.value))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cuda_scaler = lib.cuda.amp.GradScaler(enabled=True)
        default = lib.amp.GradScaler()
        cpu_scaler = lib.cpu.amp.GradScaler()
    out.append([(w.category.__name__, str(w.message)) for w in caught])
    out.append([cuda_scaler.is_enabled(), cuda_scaler.state_dict(), cuda_scaler.get_scale(),
                default.is_enabled(), cpu_scaler.is_enabled(), cpu_scaler.state_dict()])
    loss = (p * 3).sum()
    out.append([cuda_scaler.scale(loss) is loss, cuda_scaler.unscale_(opt),
                cuda_scaler.step(opt), cuda_scaler.update(), _np(p).tolist()])
    return out


def test_grad_scaler_errors_and_cuda_scaler_without_gpu_as_torch():
    assert _misuse_trace(numtorch) == _misuse_trace(torch)
