"""PyTorch as the oracle: run one lambda on numtorch and on torch, compare everything.

``check_op(fn, shapes)`` compares values, dtypes and shapes, gradients for a random cotangent
(computed twice: as training does, with no graph built, and under ``create_graph``, so both
backward paths of an op with ``backward_arrays`` are compared), second-order gradients for a
random direction, and checks the inputs were not changed.
``check_raises(fn, arrays)`` checks both libraries raise the same kind of exception.
``same(fn)`` runs ``fn(numtorch)`` and ``fn(torch)`` and compares whatever comes out (tensors,
containers, numbers, sizes, dtypes, devices, modules, exceptions, optionally warnings): the one
place the tests compare the two libraries.
"""

import warnings

import numpy as np
import torch

import numtorch

TOL = {"float64": (1e-7, 1e-9), "float32": (2e-4, 2e-5), "float16": (2e-2, 2e-3)}

# The device numtorch's side of a comparison runs on, when a helper is given none: set by the
# ``device`` fixture (tests/conftest.py) for the test it runs; torch always stays on the CPU.
DEVICE = ["cpu"]


def _device(device):
    return DEVICE[0] if device is None else str(device)


def to_libs(arrays, requires_grad, device=None):
    """The same arrays as numtorch tensors (on ``device``) and as torch tensors (CPU)."""
    device = _device(device)
    nt, th = [], []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            nt.append(a)
            th.append(a)
            continue
        rg = requires_grad and a.dtype.kind in "fc"
        x = numtorch.from_numpy(a.copy(order="K"))
        if device != "cpu":
            x = x.to(device)
        y = torch.from_numpy(a.copy(order="K"))
        if rg:
            x.requires_grad_(True)
            y.requires_grad_(True)
        nt.append(x)
        th.append(y)
    return nt, th


def _flat(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            r.extend(_flat(o))
        return r
    return [out]


def _np(x):
    if isinstance(x, numtorch.Tensor):
        return x.detach().cpu().resolve_conj().numpy()  # as torch's numpy(force=True)
    if isinstance(x, torch.Tensor):
        return x.detach().numpy(force=True)  # force: torch may hand back ZeroTensors
    return np.asarray(x)


def assert_same(a, b, rtol, atol, what="output", device=None):
    """numtorch value ``a`` equals torch value ``b``: type, shape, dtype and values (and a
    tensor ``a`` is on ``device``'s type when one is given)."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, numtorch.Tensor), f"{what}: expected a Tensor, got {type(a)}"
        if device is not None:
            want = numtorch.device(device).type
            assert a.device.type == want, f"{what}: on {a.device}, expected {want}"
        assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} != " \
                                                 f"{tuple(b.shape)}"
        assert str(a.dtype) == str(b.dtype), f"{what}: dtype {a.dtype} != {b.dtype}"
        an, bn = _np(a), _np(b)
        if an.dtype.kind in "fc":
            np.testing.assert_allclose(an, bn, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=what)
        else:
            np.testing.assert_array_equal(an, bn, err_msg=what)
    elif isinstance(b, (int, float, bool)):
        assert type(a) is type(b) or isinstance(a, type(b)), f"{what}: {type(a)} != {type(b)}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)
    else:
        assert a == b, f"{what}: {a!r} != {b!r}"


def _tol(dtype, atol, rtol):
    r, a = TOL[str(dtype)]
    return (rtol if rtol is not None else r), (atol if atol is not None else a)


def make_inputs(shapes, dtype="float64", low=-2.0, high=2.0, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        if isinstance(s, np.ndarray) or not isinstance(s, tuple):
            out.append(s)
        else:
            out.append(rng.uniform(low, high, s).astype(dtype))
    return out


def check_op(fn, shapes, *, low=-2.0, high=2.0, dtype="float64", atol=None, rtol=None,
             grad=True, second_order=True, seed=0, non_contiguous=False, device=None):
    """Compare ``fn(numtorch, *xs)`` with ``fn(torch, *xs)`` (see module docstring).

    ``shapes`` holds shape tuples (random inputs in ``[low, high)``) or ready arrays/values.
    ``device`` is where numtorch's inputs, outputs and gradients live (default: the ``device``
    fixture's, else the CPU); torch computes on the CPU.
    """
    rtol, atol = _tol(dtype, atol, rtol)
    device = _device(device)
    arrays = make_inputs(shapes, dtype, low, high, seed)
    _check_once(fn, arrays, rtol, atol, grad, second_order, seed, device)
    if non_contiguous:
        nc = [np.asfortranarray(a) if isinstance(a, np.ndarray) and a.ndim >= 2 else a
              for a in arrays]
        _check_once(fn, nc, rtol, atol, grad, False, seed, device)


def _on(arr, device):
    """A numtorch tensor of host array ``arr`` on ``device``."""
    t = numtorch.from_numpy(arr)
    return t if device == "cpu" else t.to(device)


def _check_once(fn, arrays, rtol, atol, grad, second_order, seed, device="cpu"):
    rng = np.random.default_rng(seed + 1000)
    nt_in, th_in = to_libs(arrays, grad, device)
    before = [a.copy() for a in arrays if isinstance(a, np.ndarray)]
    nt_out = _flat(fn(numtorch, *nt_in))
    th_out = _flat(fn(torch, *th_in))
    assert len(nt_out) == len(th_out), f"{len(nt_out)} outputs != {len(th_out)}"
    for i, (a, b) in enumerate(zip(nt_out, th_out)):
        assert_same(a, b, rtol, atol, f"output {i}", device)
    after = [_np(x) for x in nt_in if isinstance(x, numtorch.Tensor)]
    for k, (b0, a1) in enumerate(zip(before, after)):
        np.testing.assert_array_equal(b0, a1, err_msg=f"input {k} was modified")
    if not grad:
        return
    diff_idx = [i for i, x in enumerate(th_in) if isinstance(x, torch.Tensor) and
                x.requires_grad]
    outs = [(a, b) for a, b in zip(nt_out, th_out)
            if isinstance(b, torch.Tensor) and b.requires_grad]
    if not diff_idx or not outs:
        for a, b in zip(nt_out, th_out):
            if isinstance(b, torch.Tensor):
                assert not a.requires_grad, "numtorch output requires grad, torch's does not"
        return
    for a, b in outs:
        assert a.requires_grad, "torch output requires grad, numtorch's does not"
    us = [rng.standard_normal(tuple(b.shape)).astype(_np(b).dtype) for _, b in outs]
    nt_x = [nt_in[i] for i in diff_idx]
    th_x = [th_in[i] for i in diff_idx]
    nt_u = [_on(u.copy(), device) for u in us]
    th_u = [torch.from_numpy(u.copy()) for u in us]
    g_th = torch.autograd.grad([b for _, b in outs], th_x, th_u, create_graph=second_order,
                               allow_unused=True)
    # first order as training computes it (no graph built: an op's raw-array backward_arrays
    # runs where it has one), then again under create_graph (its composed backward)
    nt_outs = [a for a, _ in outs]
    g_nt = numtorch.autograd.grad(nt_outs, nt_x, nt_u, retain_graph=second_order,
                                  allow_unused=True)
    _compare_grads(g_nt, g_th, nt_x, th_x, diff_idx, rtol, atol, "grad")
    if not second_order:
        return
    g_nt = numtorch.autograd.grad(nt_outs, nt_x, nt_u, create_graph=True, allow_unused=True)
    _compare_grads(g_nt, g_th, nt_x, th_x, diff_idx, rtol, atol, "grad (create_graph)")
    pairs = [(ga, gb, k) for k, (ga, gb) in enumerate(zip(g_nt, g_th))
             if gb is not None and gb.requires_grad]
    if not pairs:
        return
    vs = [rng.standard_normal(tuple(gb.shape)).astype(_np(gb).dtype) for _, gb, _ in pairs]
    s_nt = sum((ga * _on(v.copy(), device)).sum() for (ga, _, _), v in zip(pairs, vs))
    s_th = sum((gb * torch.from_numpy(v.copy())).sum() for (_, gb, _), v in zip(pairs, vs))
    gg_nt = numtorch.autograd.grad(s_nt, nt_x, allow_unused=True) if s_nt.requires_grad \
        else [None] * len(nt_x)
    gg_th = torch.autograd.grad(s_th, th_x, allow_unused=True) if s_th.requires_grad \
        else [None] * len(th_x)
    for k, (ga, gb) in enumerate(zip(gg_nt, gg_th)):
        if gb is None:
            gb = torch.zeros_like(th_x[k])
        if ga is None:
            ga = numtorch.zeros_like(nt_x[k])
        assert_same(ga, gb, rtol * 100, atol * 100, f"second-order grad of input {k}",
                    nt_x[k].device.type)


def _compare_grads(g_nt, g_th, nt_x, th_x, idx, rtol, atol, what):
    for k, (ga, gb) in enumerate(zip(g_nt, g_th)):
        if gb is None:
            gb = torch.zeros_like(th_x[k])
        if ga is None:
            ga = numtorch.zeros_like(nt_x[k])
        assert_same(ga, gb, rtol * 10, atol * 10, f"{what} of input {idx[k]}",
                    nt_x[k].device.type)


def _builtin_base(exc_type):
    for c in exc_type.__mro__:
        if c.__module__ == "builtins":
            return c
    return Exception


def check_raises(fn, arrays=(), match=None, device=None):
    """Both libraries raise for ``fn(lib, *tensors)``; numtorch's exception is of torch's
    (builtin) class, and its message contains ``match`` if given. numtorch's tensors are on
    ``device`` (default: the ``device`` fixture's, else the CPU)."""
    nt_in, th_in = to_libs(list(arrays), False, device)
    th_exc = nt_exc = None
    try:
        fn(torch, *th_in)
    except Exception as e:  # noqa: BLE001 - any exception is the oracle's answer
        th_exc = e
    assert th_exc is not None, "torch did not raise; the test case is wrong"
    try:
        fn(numtorch, *nt_in)
    except Exception as e:  # noqa: BLE001
        nt_exc = e
    assert nt_exc is not None, f"numtorch did not raise; torch raised {th_exc!r}"
    base = _builtin_base(type(th_exc))
    assert isinstance(nt_exc, base), f"numtorch raised {type(nt_exc).__name__}: {nt_exc}; " \
                                     f"torch raised {type(th_exc).__name__}: {th_exc}"
    if match is not None:
        assert match in str(nt_exc), f"{match!r} not in {str(nt_exc)!r}"
    return nt_exc, th_exc


# -- same(fn): one call, both libraries, any kind of result -----------------------------------

class _Values:
    """Array values that compare equal within ``rtol``/``atol`` (exactly for non-floats)."""

    def __init__(self, arr, rtol, atol):
        self.arr, self.rtol, self.atol = np.asarray(arr), rtol, atol

    def __eq__(self, other):
        a, b = self.arr, other.arr
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=True))
        return bool(np.array_equal(a, b))

    def __repr__(self):
        return repr(self.arr.tolist())


def _message(exc):
    """An exception's message as both libraries can share it (torch's internal suffixes and
    the library name dropped)."""
    return _on_cpu_terms(str(exc).split(" (Triggered internally")[0].replace("numtorch",
                                                                             "torch"))


def _on_cpu_terms(text):
    """``text`` as the CPU would word it, while numtorch runs on cuda and torch (the oracle)
    on the CPU: legacy type names and device arguments of CUDA tensors read as the CPU's."""
    if DEVICE[0] == "cpu":
        return text
    return text.replace("torch.cuda.", "torch.").replace(", device='cuda:0'", "").replace(
        " (cuda:0)]", "]")


def describe(x, rtol=0.0, atol=0.0, messages=True):
    """A library-independent description of ``x``, comparable with ``==`` (see :func:`same`)."""
    def d(v):
        return describe(v, rtol, atol, messages)

    if isinstance(x, (numtorch.Tensor, torch.Tensor)):
        kind = "Parameter" if isinstance(x, (numtorch.nn.Parameter, torch.nn.Parameter)) \
            else "Tensor"
        return (kind, tuple(x.shape), str(x.dtype), _Values(_np(x), rtol, atol),
                bool(x.requires_grad))
    if isinstance(x, BaseException):
        return ("raise", _builtin_base(type(x)).__name__) + ((_message(x),) if messages else ())
    if isinstance(x, (numtorch.nn.Module, torch.nn.Module)):
        return ("module", _on_cpu_terms(repr(x).replace("numtorch", "torch")))
    if isinstance(x, (numtorch.Size, torch.Size)):
        return ("Size", tuple(x))
    if isinstance(x, (numtorch.dtype, torch.dtype, numtorch.device, torch.device)):
        return (type(x).__name__, str(x), repr(x).replace("numtorch", "torch"))
    if isinstance(x, str):
        return _on_cpu_terms(x.replace("numtorch", "torch"))
    if isinstance(x, dict):
        return ("dict", [(d(k), d(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [d(v) for v in x])
    if isinstance(x, type):
        return ("type", x.__name__)
    if isinstance(x, np.ndarray):
        return ("ndarray", x.shape, str(x.dtype), _Values(x, rtol, atol))
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return (type(x).__name__, _Values(x, rtol, atol))
    return x


def run(fn, lib, warns=False):
    """``(fn(lib) or the exception it raised, [(warning category, message), ...])``; the
    warnings are recorded only with ``warns`` (else silenced)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always" if warns else "ignore")
        try:
            result = fn(lib)
        except Exception as e:  # noqa: BLE001 - the exception is the result being compared
            result = e
    return result, [(w.category.__name__, _message(w.message)) for w in rec]


def same(fn, rtol=0.0, atol=0.0, messages=True, warns=False):
    """Assert ``fn(numtorch)`` and ``fn(torch)`` agree, whatever they return or raise.

    Tensors agree in kind, shape, dtype, values (within ``rtol``/``atol``; exactly by default)
    and ``requires_grad``; containers element by element; Python numbers in type and value;
    sizes, dtypes and devices in type, ``str`` and ``repr``; modules in ``repr``; exceptions in
    their builtin class and (with ``messages``) their message; with ``warns`` also the warnings
    each call emits. ``numtorch`` reads as ``torch`` in every string. Returns numtorch's
    description.
    """
    (a, wa), (b, wb) = run(fn, numtorch, warns), run(fn, torch, warns)
    da, db = describe(a, rtol, atol, messages), describe(b, rtol, atol, messages)
    assert da == db, f"\nnumtorch: {da}\ntorch:    {db}"
    if warns:
        assert wa == wb, f"\nnumtorch warned: {wa}\ntorch warned:    {wb}"
    return da


def load_torch_state(nt_module, th_module):
    """Copy a torch module's state into the numtorch module (checks names and shapes)."""
    th_sd = th_module.state_dict()
    nt_keys = list(nt_module.state_dict().keys())
    assert nt_keys == list(th_sd.keys()), f"state_dict keys {nt_keys} != {list(th_sd.keys())}"
    for k, v in th_sd.items():
        assert tuple(nt_module.state_dict()[k].shape) == tuple(v.shape), f"shape of {k}"
    res = nt_module.load_state_dict({k: numtorch.from_numpy(v.detach().numpy().copy())
                                     for k, v in th_sd.items()})
    assert not res.missing_keys and not res.unexpected_keys


def check_module(make, shapes, *, dtype="float32", train=True, low=-2.0, high=2.0,
                 atol=None, rtol=None, grad=True, seed=0, forward=None, check_buffers=True,
                 device=None):
    """Build the module with ``make(lib)`` in both libraries, load torch's state into
    numtorch's, and compare outputs, input and parameter gradients, and buffers.

    ``shapes`` are input shapes (random floats) or ready arrays (e.g. integer targets);
    ``forward(module, *inputs)`` defaults to ``module(*inputs)``. numtorch's module and inputs
    are moved to ``device`` (default: the ``device`` fixture's, else the CPU) after torch's
    state is loaded.
    """
    rtol, atol = _tol(dtype, atol, rtol)
    device = _device(device)
    th_m = make(torch)
    nt_m = make(numtorch)
    if dtype == "float64":
        th_m = th_m.double()
        nt_m = nt_m.double()
    load_torch_state(nt_m, th_m)
    if device != "cpu":
        nt_m.to(device)
    th_m.train(train)
    nt_m.train(train)
    arrays = make_inputs(shapes, dtype, low, high, seed)
    nt_in, th_in = to_libs(arrays, grad, device)
    call = forward or (lambda m, *xs: m(*xs))
    nt_out = _flat(call(nt_m, *nt_in))
    th_out = _flat(call(th_m, *th_in))
    assert len(nt_out) == len(th_out)
    for i, (a, b) in enumerate(zip(nt_out, th_out)):
        assert_same(a, b, rtol, atol, f"module output {i}", device)
    if check_buffers:
        th_b = dict(th_m.named_buffers())
        for name, b in nt_m.named_buffers():
            assert_same(b, th_b[name], rtol, atol, f"buffer {name}", device)
    if not grad:
        return nt_m, th_m
    rng = np.random.default_rng(seed + 7)
    outs = [(a, b) for a, b in zip(nt_out, th_out)
            if isinstance(b, torch.Tensor) and b.requires_grad]
    if not outs:
        return nt_m, th_m
    us = [rng.standard_normal(tuple(b.shape)).astype(_np(b).dtype) for _, b in outs]
    nt_params = dict(nt_m.named_parameters())
    th_params = dict(th_m.named_parameters())
    nt_x = [x for x in nt_in if isinstance(x, numtorch.Tensor) and x.requires_grad]
    th_x = [x for x in th_in if isinstance(x, torch.Tensor) and x.requires_grad]
    names = [n for n, p in th_params.items() if p.requires_grad]
    g_nt = numtorch.autograd.grad([a for a, _ in outs], nt_x + [nt_params[n] for n in names],
                                  [_on(u.copy(), device) for u in us],
                                  allow_unused=True)
    g_th = torch.autograd.grad([b for _, b in outs], th_x + [th_params[n] for n in names],
                               [torch.from_numpy(u.copy()) for u in us], allow_unused=True)
    labels = [f"input {i}" for i in range(len(nt_x))] + [f"parameter {n}" for n in names]
    for label, ga, gb, ref in zip(labels, g_nt, g_th, th_x + [th_params[n] for n in names]):
        if gb is None:
            gb = torch.zeros_like(ref)
        if ga is None:
            ga = numtorch.zeros(tuple(ref.shape), dtype=getattr(numtorch, str(ref.dtype)[6:]),
                                device=device)
        assert_same(ga, gb, rtol * 10, atol * 10, f"grad of {label}", device)
    return nt_m, th_m
