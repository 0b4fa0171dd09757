"""The state dict both libraries checkpoint in tests/distributed/test_dcp.py.

Everything takes the library module (``torch`` or ``numtorch``) as ``lib``, so the same code
builds the state under either; values come from NumPy, not either library's RNG.
"""

import numpy as np


def build(lib):
    """A model's and an Adam optimizer's state after two steps, nested containers, a strided
    int16 view, float64/int64/bool/bfloat16 tensors and plain values."""
    g = np.random.default_rng(7)
    m = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32)))
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    for _ in range(2):
        x = lib.from_numpy(g.standard_normal((5, 4)).astype(np.float32))
        loss = (m(x) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    grid = lib.arange(12, dtype=lib.int16).reshape(3, 4)
    return {
        "model": m.state_dict(),
        "optim": opt.state_dict(),
        "step": 7,
        "name": "run-a",
        "ratio": 0.25,
        "flags": (True, None),
        "lst": [3, "x", lib.ones(2, dtype=lib.float64)],
        "nested": {"a": {"b": lib.arange(6, dtype=lib.int64).reshape(2, 3)}, "empty": {}},
        "view": grid[:, 1:3],
        "mask": lib.tensor([True, False, True]),
        "half": lib.tensor([1.5, -2.25], dtype=lib.bfloat16),
        "scalar": lib.tensor(3.5),
    }


def template(lib):
    """The same structure with zeros and placeholders, for ``load`` to fill."""
    z = lib.zeros
    return {
        "model": {"0.weight": z(3, 4), "0.bias": z(3), "2.weight": z(2, 3), "2.bias": z(2)},
        "optim": {"state": {i: {"step": z(()), "exp_avg": z(s), "exp_avg_sq": z(s)}
                            for i, s in enumerate([(3, 4), (3,), (2, 3), (2,)])},
                  "param_groups": [{"lr": None, "betas": None, "eps": None,
                                    "weight_decay": None, "amsgrad": None, "maximize": None,
                                    "foreach": None, "capturable": None,
                                    "differentiable": None, "fused": None,
                                    "decoupled_weight_decay": None, "params": None}]},
        "step": 0, "name": None, "ratio": None, "flags": None,
        "lst": [0, 0, z(2, dtype=lib.float64)],
        "nested": {"a": {"b": z(2, 3, dtype=lib.int64)}},
        "view": z(3, 2, dtype=lib.int16),
        "mask": z(3, dtype=lib.bool),
        "half": z(2, dtype=lib.bfloat16),
        "scalar": z(()),
    }


def dump(lib, value):
    """A JSON-able picture of ``value``: tensors as dtype name, shape and values."""
    if isinstance(value, lib.Tensor):
        return {"dtype": str(value.dtype), "shape": list(value.shape),
                "values": value.float().tolist() if value.dtype == lib.bfloat16
                else value.tolist()}
    if isinstance(value, dict):
        return {str(k): dump(lib, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [type(value).__name__] + [dump(lib, v) for v in value]
    return value


def close(a, b, tol=1e-6, where=""):
    """Equal dumps, floats within ``tol`` (relative); names the first difference."""
    if isinstance(b, float) and isinstance(a, (float, int)):
        assert abs(a - b) <= tol * (1 + abs(b)), f"{where}: {a} != {b}"
    elif isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), f"{where}: keys {a} vs {b}"
        for k in b:
            close(a[k], b[k], tol, f"{where}.{k}")
    elif isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f"{where}: {a} != {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, tol, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


ERROR_CASES = {
    # name: (template builder, planner kwargs)
    "missing_key": lambda lib: {"model": {"0.weight": lib.zeros(3, 4), "nope": lib.zeros(1)}},
    "missing_top": lambda lib: {"absent": 3},
    "size_mismatch": lambda lib: {"model": {"0.weight": lib.zeros(4, 4)}},
    "rank_mismatch": lambda lib: {"model": {"2.bias": lib.zeros(2, 1)}},
    "tensor_into_bytes": lambda lib: {"model": {"0.bias": 3}},
}


HF_MAPPING = {"embed.weight": 1, "head.weight": 2, "head.bias": 2, "scale": 2}


def hf_state(lib):
    """Tensors for the Hugging Face safetensors storage (two files by HF_MAPPING)."""
    g = np.random.default_rng(5)
    return {"embed.weight": lib.from_numpy(g.standard_normal((6, 4)).astype(np.float32)),
            "head.weight": lib.from_numpy(g.standard_normal((3, 4)).astype(np.float32))
            .to(lib.bfloat16),
            "head.bias": lib.arange(3, dtype=lib.int64),
            "scale": lib.tensor(0.5, dtype=lib.float64)}


def optim_cases(lib):
    """``get_state_dict`` / ``get_optimizer_state_dict`` of fresh and trained optimizers,
    dumped at once (torch's state dicts alias the live state tensors)."""
    from importlib import import_module

    sdm = import_module(lib.__name__ + ".distributed.checkpoint.state_dict")
    g = np.random.default_rng(3)

    def net():
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Linear(2, 1))
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.from_numpy(g.standard_normal(tuple(p.shape)).astype(np.float32)))
        return m

    out = {}
    m = net()
    m[1].weight.requires_grad_(False)
    adam = lib.optim.Adam(m.parameters(), lr=0.1)
    out["fresh_adam"] = dump(lib, sdm.get_state_dict(m, adam))
    out["fresh_adam_params_after"] = dump(lib, [p.detach() for p in m.parameters()])
    out["flat"] = dump(lib, sdm.get_optimizer_state_dict(
        m, adam, options=sdm.StateDictOptions(flatten_optimizer_state_dict=True)))
    m.zero_grad(set_to_none=False)
    out["grads_present"] = dump(lib, sdm.get_optimizer_state_dict(
        m, lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)))
    m2 = net()
    sgd = lib.optim.SGD([{"params": m2[0].parameters(), "lr": 0.5},
                         {"params": m2[1].parameters()}], lr=0.1, momentum=0.9)
    x = lib.from_numpy(g.standard_normal((4, 3)).astype(np.float32))
    m2(x).sum().backward()
    sgd.step()
    out["trained_sgd"] = dump(lib, sdm.get_optimizer_state_dict(m2, sgd))
    # loading one optimizer's FQN state into a fresh one over another model
    m3 = net()
    sgd3 = lib.optim.SGD([{"params": m3[0].parameters(), "lr": 0.5},
                          {"params": m3[1].parameters()}], lr=0.1, momentum=0.9)
    sdm.set_state_dict(m3, sgd3, model_state_dict=m2.state_dict(),
                       optim_state_dict=sdm.get_optimizer_state_dict(m2, sgd))
    m3(x).sum().backward()
    sgd3.step()
    out["resumed_sgd_params"] = dump(lib, [p.detach() for p in m3.parameters()])
    try:
        sdm.set_model_state_dict(m3, {"x": lib.ones(1)})
    except RuntimeError as e:
        out["set_error"] = str(e)
    Options = sdm.StateDictOptions
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["submodules"] = [list(sdm.get_model_state_dict(m3, submodules={m3[1]})), list(
            sdm.get_model_state_dict(m3, submodules={m3[1]},
                                     options=Options(keep_submodule_prefixes=False)))]
    out["submodules_warning"] = [(w.category.__name__, str(w.message)) for w in caught]
    m3[0].weight.requires_grad_(False)
    m3.register_buffer("buf", lib.ones(1))
    out["frozen"] = list(sdm.get_model_state_dict(m3, options=Options(ignore_frozen_params=True)))
    out["not_strict"] = [list(r) for r in sdm.set_model_state_dict(
        m3, {"1.weight": lib.zeros(1, 2)}, options=Options(strict=False))]
    try:
        sdm.set_model_state_dict(m3, {}, options=Options(broadcast_from_rank0=True))
    except ValueError as e:
        out["broadcast_error"] = str(e)
    return out


# -- the FSDP2 training both libraries run on 2 ranks (ranks/dcp_case.py, dcp_torch_ranks.py)
def fsdp_model(lib):
    """A 2-layer MLP whose layers split unevenly over 2 ranks (5 and 3 rows)."""
    g = np.random.default_rng(11)
    m = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.Tanh(), lib.nn.Linear(5, 3))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.from_numpy((0.4 * g.standard_normal(tuple(p.shape))).astype(np.float32)))
    return m


def fsdp_shard(lib, m, mesh):
    fsdp = __import__(lib.__name__ + ".distributed.fsdp", fromlist=["fully_shard"])
    for layer in (m[0], m[2]):
        fsdp.fully_shard(layer, mesh=mesh)
    fsdp.fully_shard(m, mesh=mesh)
    return m


def fsdp_optimizer(lib, m):
    return lib.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.1)


def fsdp_batch(lib, step, rank=None, world=2):
    g = np.random.default_rng(100 + step)
    x = lib.from_numpy(g.standard_normal((8, 6)).astype(np.float32))
    y = lib.from_numpy(g.standard_normal((8, 3)).astype(np.float32))
    if rank is None:
        return x, y
    n = 8 // world
    return x[rank * n:(rank + 1) * n], y[rank * n:(rank + 1) * n]


def fsdp_train(lib, m, opt, steps, start, rank=None, world=2):
    losses = []
    for s in range(start, start + steps):
        x, y = fsdp_batch(lib, s, rank, world)
        loss = ((m(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses
