"""Session 46 (programs): gaps found running public PyTorch programs under numtorch, each
reduced to a few lines and checked against torch at test time."""

import numpy as np
import pytest
import torch

import numtorch


def _both(fn):
    """``fn(lib)`` run with torch and with numtorch."""
    return fn(torch), fn(numtorch)


def _cat_permuted(L):
    # Transformer-XL's relative shift: a permuted einsum result joined to a row-major zero
    # column, then viewed (numtorch's cat kept a channels-last order NumPy picked: view failed)
    g = np.random.default_rng(0)
    q = L.tensor(g.standard_normal((6, 2, 2, 8)).astype(np.float32))
    k = L.tensor(g.standard_normal((9, 2, 8)).astype(np.float32))
    b = L.einsum("ibhd,jhd->ijbh", q, k)
    c = L.cat([b, b.new_zeros(6, 1, 2, 2)], dim=1)
    return c.stride(), c.view(10, 6, 2, 2)[:-1].reshape(-1).numpy()


def test_cat_of_permuted_and_row_major_is_row_major():
    (ts, tv), (ns, nv) = _both(_cat_permuted)
    assert ns == ts
    np.testing.assert_allclose(nv, tv, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["stack_cl_rm", "stack_rm_cl", "stack_cl_cl", "cat_cl_rm",
                                  "cat_cl_cl"])
def test_join_channels_last_only_when_all_inputs_are(case):
    def run(L):
        a = L.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
        b = L.arange(120.).reshape(2, 3, 4, 5)
        fn, first, second = case.split("_")
        args = [a if first == "cl" else b, a if second == "cl" else b]
        r = getattr(L, fn)(args, 1)
        return r.stride(), r.reshape(-1).numpy()
    (ts, tv), (ns, nv) = _both(run)
    assert ns == ts
    np.testing.assert_array_equal(nv, tv)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("bounds", [(-1, 1), (-0.1767767, 0.1767767), (-3.3, 0.7), (2, 5)])
def test_half_uniform_bounds_and_top(dtype, bounds):
    # a bfloat16 Llama (LLMs-from-scratch) got other Linear weights than torch: torch keeps
    # the bounds in float32 and turns a draw that rounds up to `to` into `from`
    def run(L):
        L.manual_seed(0)
        return L.empty(3000, dtype=getattr(L, dtype)).uniform_(*bounds).float().numpy()
    t, n = _both(run)
    np.testing.assert_array_equal(n, t)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_linear_init(dtype):
    def run(L):
        L.manual_seed(0)
        m = L.nn.Linear(32, 24, dtype=getattr(L, dtype))
        return m.weight.float().detach().numpy(), m.bias.float().detach().numpy()
    (tw, tb), (nw, nb) = _both(run)
    np.testing.assert_array_equal(nw, tw)
    np.testing.assert_array_equal(nb, tb)


# PyTorch Lightning / torchmetrics import these at import time or on their first step


def test_c_tensor_meta():
    assert numtorch._C._TensorMeta is type(numtorch.Tensor)
    assert isinstance(numtorch.nn.Parameter, numtorch._C._TensorMeta)
    assert isinstance(torch.nn.Parameter, torch._C._TensorMeta)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        numtorch._C.no_such_name


def test_c_log_api_usage_once():
    assert numtorch._C._log_api_usage_once("x.y") is None
    assert torch._C._log_api_usage_once("x.y") is None


@pytest.mark.parametrize("args,kwargs", [
    (("cpu",), {}), (("float16",), {}), (("cpu", "float64", True), {}),
    ((), {"device": "cpu", "dtype": "float16"}), (("int32 tensor",), {}),
    ((), {"memory_format": "channels_last"}), (("float32",), {"non_blocking": True}),
    ((None,), {}),
])
def test_c_nn_parse_to(args, kwargs):
    def conv(L, v):
        if v == "int32 tensor":
            return L.ones(1, dtype=L.int32)
        return getattr(L, v) if v in ("float16", "float64", "float32", "channels_last") else v

    def run(L):
        r = L._C._nn._parse_to(*[conv(L, a) for a in args],
                               **{k: conv(L, v) for k, v in kwargs.items()})
        return tuple(str(x) for x in r)
    t, n = _both(run)
    assert n == t


def test_pytorch_file_reader(tmp_path):
    def run(L):
        p = tmp_path / f"{L.__name__}.pt"
        L.save({"a": L.arange(6.).reshape(2, 3), "b": [1, 2]}, str(p))
        r = L.PyTorchFileReader(str(p))
        assert L._C.PyTorchFileReader is L.PyTorchFileReader
        off = r.get_record_offset("data/0")
        with pytest.raises(RuntimeError) as e:
            r.get_record("nope")
        return (sorted(k for k in r.get_all_records() if k != ".data/serialization_id"),
                r.has_record("data.pkl"), r.has_record("nope"), r.get_record("byteorder"),
                r.get_record_size("data/0"), p.read_bytes()[off:off + 24],
                str(e.value).split(".")[0])
    t, n = _both(run)
    assert n == t


def test_script_module_names():
    assert isinstance(numtorch.ScriptModule, type)
    assert not issubclass(numtorch.jit.ScriptModule, numtorch.ScriptModule)
    assert not issubclass(torch.jit.ScriptModule, torch.ScriptModule)
    assert numtorch.ScriptFunction is numtorch.jit.ScriptFunction
    assert torch.ScriptFunction is torch.jit.ScriptFunction
    assert numtorch.DisableTorchFunction is numtorch._C.DisableTorchFunction


def test_pytree_private_helpers():
    import collections

    P = collections.namedtuple("P", "a b")

    def run(L):
        p = L.utils._pytree
        out = []
        for x in ([1], P(1, 2), 3, {"a": 1}, (1,), "s", collections.OrderedDict(a=1)):
            nt = p._get_node_type(x)
            out.append((nt if nt is collections.namedtuple else nt.__name__,
                        nt in p.SUPPORTED_NODES))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append((p._is_leaf(3), p._is_leaf([1]),
                        p._is_leaf([1], is_leaf=lambda x: isinstance(x, list))))
            spec = p.TreeSpec(p._get_node_type(P(1, 2)), P, [p.LeafSpec(), p.LeafSpec()])
        out.append(p.tree_unflatten([5, 6], spec))
        return out
    import torch.utils._pytree  # noqa: F401
    import numtorch.utils._pytree  # noqa: F401
    t, n = _both(run)
    assert n == t


def test_profiler_emit_itt_and_nvtx_off():
    def run(L):
        with L.autograd.profiler.emit_itt():
            a = (L.ones(2) + 1).tolist()
        with L.autograd.profiler.emit_nvtx(enabled=False, record_shapes=True):
            b = (L.ones(2) * 3).tolist()
        return a, b
    t, n = _both(run)
    assert n == t


def _zero_run(L):
    # ignite imports torch.distributed.optim.ZeroRedundancyOptimizer at import time
    from importlib import import_module

    dist = import_module(L.__name__ + ".distributed")
    Z = import_module(L.__name__ + ".distributed.optim").ZeroRedundancyOptimizer
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        L.manual_seed(0)
        m = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.ReLU(), L.nn.Linear(8, 2))
        opt = Z(m.parameters(), L.optim.Adam, lr=0.01, betas=(0.8, 0.9))
        out = [sorted(opt.param_groups[0]), opt.param_groups[0]["betas"]]
        sch = L.optim.lr_scheduler.StepLR(opt, 1, 0.5)
        x, y = L.randn(16, 4), L.randn(16, 2)
        for _ in range(3):
            loss = ((m(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sch.step()
            out.append((round(loss.item(), 5), opt.param_groups[0]["lr"],
                        opt.optim.param_groups[0]["lr"]))
        with pytest.raises(RuntimeError) as e:
            opt.state_dict()
        out.append(str(e.value))
        opt.consolidate_state_dict(to=0)
        sd = opt.state_dict()
        out.append((sorted(sd), sorted(sd["state"]), sorted(sd["state"][0]),
                    sd["param_groups"][0]["params"], sorted(sd["param_groups"][0]),
                    float(sd["state"][0]["step"]),
                    round(sd["state"][3]["exp_avg"].sum().item(), 5)))
        opt2 = Z(m.parameters(), L.optim.Adam, lr=0.5)
        opt2.load_state_dict(sd)
        out.append((opt2.param_groups[0]["lr"], opt2.optim.param_groups[0]["lr"],
                    float(opt2.optim.state[m[0].weight]["step"])))
        opt.add_param_group({"params": [L.nn.Parameter(L.ones(3))], "lr": 0.3})
        out.append((len(opt.param_groups), len(opt.optim.param_groups),
                    opt.param_groups[1]["lr"], opt.world_size, opt.rank))
        return out
    finally:
        dist.destroy_process_group()


def test_zero_redundancy_optimizer_one_rank():
    t, n = _both(_zero_run)
    assert n == t


def test_zero_redundancy_optimizer_needs_a_group():
    from numtorch.distributed.optim import ZeroRedundancyOptimizer as NZ
    from torch.distributed.optim import ZeroRedundancyOptimizer as TZ

    with pytest.raises(ValueError) as te:
        TZ(torch.nn.Linear(2, 2).parameters(), torch.optim.SGD, lr=0.1)
    with pytest.raises(ValueError) as ne:
        NZ(numtorch.nn.Linear(2, 2).parameters(), numtorch.optim.SGD, lr=0.1)
    assert str(ne.value) == str(te.value)


# PyTorch Geometric 2.8 imports these at import time


def test_aten_overloads_pyg_registers():
    def run(L):
        a = L.ops.aten
        x = L.arange(12.).reshape(3, 4)
        s = L.eye(3).to_sparse()
        return [a._to_copy.default(x, dtype=L.float64).dtype is L.float64,
                a.flip.default(x, [0])[0].tolist(),
                a.index.Tensor(x, [None, L.tensor([1, 3])]).tolist(),
                [t.tolist() for t in a.sort.stable(L.tensor([3, 1, 2, 1]), stable=True,
                                                   descending=True)],
                type(a.sort.stable(L.tensor([3, 1]), stable=True)).__name__,
                [t.tolist() for t in a.unbind.int(x, 1)],
                a.add_.Tensor(x.clone(), x, alpha=2)[0].tolist(),
                a.sub_.Tensor(x.clone(), 1)[0].tolist(),
                str(a._to_copy.default), str(a.index.Tensor._schema),
                a._sparse_addmm.default(L.ones(3, 2), s, L.ones(3, 2), beta=2).tolist(),
                {a.add_.Tensor: 1, a.sub_.Tensor: 2}[a.sub_.Tensor]]
    t, n = _both(run)
    assert n == t
    for L in (torch, numtorch):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
            L.ops.aten._pin_memory.default(L.ones(2))


def test_tensor_str_print_opts_and_body():
    def run(L):
        from importlib import import_module

        ts = import_module(L.__name__ + "._tensor_str")
        out = [ts.PRINT_OPTS.threshold, ts.PRINT_OPTS.precision, ts.PRINT_OPTS.linewidth,
               ts.PRINT_OPTS.edgeitems, ts.PRINT_OPTS.sci_mode]
        try:
            L.set_printoptions(threshold=float("inf"))
            out.append(ts.PRINT_OPTS.threshold)
            for t in (L.arange(6.).reshape(2, 3), L.tensor([[1, 22], [3, 4]]), L.tensor(3.5),
                      L.zeros(0), L.tensor([1e-8, 1.0])):
                out.append((ts._tensor_str(t, indent=0), ts._tensor_str(t, indent=4)))
        finally:
            L.set_printoptions(profile="default")
        out.append(ts._tensor_str(L.arange(2000), 0))
        return out
    t, n = _both(run)
    assert n == t


def test_rpc_require_initialized():
    from numtorch.distributed.rpc import api as napi
    from torch.distributed.rpc import api as tapi

    msgs = []
    for api in (tapi, napi):
        @api._require_initialized
        def f():
            return 1
        with pytest.raises(RuntimeError) as e:
            f()
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0]


def test_compiled_module_dynamo_ctx():
    # Lightning's from_compiled re-wraps the module's hooks with compiled.dynamo_ctx
    t = torch.compile(torch.nn.Linear(2, 2))
    n = numtorch.compile(numtorch.nn.Linear(2, 2))
    assert type(n.dynamo_ctx).__name__ == type(t.dynamo_ctx).__name__
    assert ("dynamo_ctx" in vars(n)) == ("dynamo_ctx" in vars(t))
    assert "dynamo_ctx" not in dict(n.named_modules())

    def hook(x, k=1):
        return x * 2 + k
    wrapped = n.dynamo_ctx(hook)
    assert wrapped.__name__ == "hook" and wrapped(3, k=2) == 8
    assert n(numtorch.ones(1, 2)).shape == (1, 2)
    assert list(n.state_dict()) == list(t.state_dict())


def test_pytree_leafspec_and_is_leaf_warn():
    import warnings

    def run(L):
        p = L.utils._pytree
        out = []
        for fn in (p.LeafSpec, p.treespec_leaf, lambda: p._is_leaf(3),
                   lambda: p.tree_flatten([1, (2, 3)])):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                fn()
            out.append([(c.category.__name__, str(c.message)) for c in w])
        out.append(repr(p.treespec_leaf()))
        return out
    import torch.utils._pytree  # noqa: F401
    import numtorch.utils._pytree  # noqa: F401
    t, n = _both(run)
    assert n == t


def test_run_aliases_torch_in_child_pythons(tmp_path):
    # Lightning's DDP launcher starts `sys.executable script.py` itself: under numtorch.run
    # that child imported real torch (and mixed libraries across ranks)
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    script = repo / "tests" / "run_programs" / "child_python.py"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(repo))
    env.pop("NUMTORCH_RUN_CHILD", None)
    n = subprocess.run([sys.executable, "-m", "numtorch.run", str(script)], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=120)
    assert n.returncode == 0, n.stderr
    lines = n.stdout.split("\n")
    assert lines[0] == "parent numtorch"
    expected = round(float(torch.arange(6.).reshape(2, 3).softmax(-1)[0, 2]), 6)
    assert lines[1] == f"child numtorch {expected} 0"
    # a child of a plain interpreter is left alone
    plain = subprocess.run([sys.executable, "-c", "import sys, numtorch.run; "
                            "print('NUMTORCH_RUN_CHILD' in __import__('os').environ)"],
                           capture_output=True, text=True, env=env, timeout=60)
    assert plain.stdout.strip() == "False"


def _one_rank(L, body):
    from importlib import import_module

    dist = import_module(L.__name__ + ".distributed")
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        return body(L, dist)
    finally:
        dist.destroy_process_group()


def test_ddp_logging_data_and_post_local_sgd_hook():
    # Lightning's DDP strategy reads _get_ddp_logging_data() and imports post_localSGD_hook
    from importlib import import_module

    def body(L, dist):
        P = import_module(L.__name__ + ".distributed.algorithms.ddp_comm_hooks."
                          "post_localSGD_hook")
        L.manual_seed(0)
        m = L.nn.parallel.DistributedDataParallel(
            L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Linear(4, 1)))
        d = m._get_ddp_logging_data()
        keys = ["backend_name", "broadcast_buffers", "bucket_cap_bytes", "device_ids", "dtypes",
                "find_unused_parameters", "gradient_as_bucket_view", "is_multi_device_module",
                "module_name", "num_parameter_tensors", "output_device", "rank", "world_size",
                "total_parameter_size_bytes"]
        out = [[d[k] for k in keys], d.get("can_set_static_graph")]
        st = P.PostLocalSGDState(process_group=None, subgroup=dist.group.WORLD,
                                 start_localSGD_iter=2)
        m.register_comm_hook(st, P.post_localSGD_hook)
        opt = L.optim.SGD(m.parameters(), lr=0.1)
        x = L.randn(4, 3)
        for _ in range(4):
            loss = m(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append((st.iter, round(loss.item(), 6)))
        out.append(sorted(P.PostLocalSGDState.__slots__))
        return out
    t, n = _both(lambda L: _one_rank(L, body))
    assert n == t
