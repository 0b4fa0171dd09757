"""One optimizer run, the same in torch and numtorch: parameters of several sizes (the
vector kernels' tails), fixed gradients per step; returns every step's parameters and state
as NumPy arrays, for a bitwise comparison."""

import numpy as np

SIZES = (1, 7, 15, 16, 17, 33, 1000, 4099)

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, amsgrad=True)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("Rprop", dict(lr=0.01)),
    ("ASGD", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
]


def run(lib, name, kwargs, dtype, steps=7, sizes=SIZES, seed=0):
    rng = np.random.default_rng(seed)
    ps = [lib.nn.Parameter(lib.from_numpy(rng.standard_normal(n).astype(dtype)))
          for n in sizes]
    grads = [[rng.standard_normal(n).astype(dtype) for n in sizes] for _ in range(steps)]
    opt = getattr(lib.optim, name)(ps, **kwargs)
    out = []
    for gs in grads:
        for p, g in zip(ps, gs):
            p.grad = lib.from_numpy(g.copy())
        opt.step()
        snap = {}
        for i, p in enumerate(ps):
            snap[f"p{i}"] = p.detach().numpy().copy()
            for k, v in opt.state[p].items():
                if hasattr(v, "numpy"):
                    snap[f"p{i}.{k}"] = v.detach().numpy().copy()
        out.append(snap)
    return out


def differing(ours, ref):
    """{step: {key: count of elements not bit-identical}} (NaNs equal)."""
    bad = {}
    for step, (a, b) in enumerate(zip(ours, ref)):
        for k in b:
            x, y = a.get(k), b[k]
            if x is None or x.shape != y.shape or x.dtype != y.dtype:
                bad.setdefault(step, {})[k] = -1
                continue
            u = np.dtype(f"u{x.dtype.itemsize}")
            n = int(np.count_nonzero(x.reshape(-1).view(u) != y.reshape(-1).view(u)))
            if n:
                bad.setdefault(step, {})[k] = n
    return bad
