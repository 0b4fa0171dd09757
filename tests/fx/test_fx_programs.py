"""Programs that use torch.fx run unchanged under ``python -m numtorch.run`` and print what
they print under real torch.

The programs here are our own, in the style of pytorch/examples' fx directory (op
replacement, wrapped leaf functions, custom tracers, proxies appended to a graph by hand,
subgraph rewriting, inverting a traced function, fusing batch norms into convolutions). When a checkout of pytorch/examples is
present (``NUMTORCH_FX_EXAMPLES`` or /work/ext/pytorch+examples/fx), its scripts are run too.
"""

import contextlib
import importlib.util
import io
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

PROGRAMS = {
    "replace_and_wrap.py": '''
import operator
import torch
import torch.fx as fx


def scaled(x):
    return x * 3


fx.wrap(scaled)


class M(torch.nn.Module):
    def forward(self, x, y):
        return scaled(x) + y, torch.add(x, y), x.add(y), torch.exp(torch.tanh(x))


gm = fx.symbolic_trace(M())
print(gm.code)
for n in gm.graph.nodes:
    if n.target in (operator.add, torch.add, "add"):
        with gm.graph.inserting_after(n):
            new = gm.graph.call_function(torch.mul, n.args, n.kwargs)
            n.replace_all_uses_with(new)
        gm.graph.erase_node(n)
gm.recompile()
print(gm.code)
x = torch.arange(4.0) / 4
print([[round(v, 4) for v in t.tolist()] for t in gm(x, x + 1)])
''',
    "tracers_and_proxies.py": '''
import torch
import torch.fx as fx
from torch.fx import Proxy
from torch.fx.node import map_arg


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.lin(x)) + 1.0


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.head = torch.nn.Linear(3, 1)

    def forward(self, x):
        return self.head(self.inner(x)).squeeze(-1)


class PathTracer(fx.Tracer):
    def __init__(self):
        super().__init__()
        self.where = {}
        self.current = ""

    def is_leaf_module(self, m, qualname):
        return not isinstance(m, torch.nn.ReLU) and super().is_leaf_module(m, qualname)

    def call_module(self, m, forward, args, kwargs):
        old, self.current = self.current, self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current = old

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        self.where[proxy.node.name] = self.current
        return proxy


tracer = PathTracer()
graph = tracer.trace(Outer())
print(graph)
print(sorted(tracer.where.items()))

gm = fx.symbolic_trace(Outer())
appender = fx.proxy.GraphAppendingTracer(gm.graph)
for node in list(gm.graph.nodes):
    if (node.op, node.target) == ("call_module", "inner.act"):
        with gm.graph.inserting_before(node):
            args = map_arg(node.args, lambda n: Proxy(n, appender))
            out = gm.inner.act(*args)
            node.replace_all_uses_with(out.node)
            gm.graph.erase_node(node)
gm.recompile()
print(gm.code)

g = fx.Graph()
t = fx.proxy.GraphAppendingTracer(g)
a = Proxy(g.placeholder("a"), t)
b = Proxy(g.placeholder("b"), t)
c = torch.neg(torch.tanh(torch.cat([a, b])))
g.output(c.node)
built = fx.GraphModule(torch.nn.Module(), g)
print(built.code)
print([round(v, 4) for v in built(torch.ones(2), torch.zeros(1)).tolist()])
''',
    "rewrite_and_invert.py": '''
import torch
import torch.fx as fx
from torch.fx import replace_pattern, symbolic_trace


class M(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([torch.neg(w1), w2]).sum()
        m2 = torch.cat([torch.neg(w1), w2]).sum()
        return x + torch.max(m1) + torch.max(m2)


def pattern(a1, a2):
    return torch.cat([torch.neg(a1), a2]).sum()


def replacement(a1, a2):
    return torch.stack([a1, a2])


traced = symbolic_trace(M())
replace_pattern(traced, pattern, replacement)
print(traced.code)

inverse = {torch.sin: torch.arcsin, torch.exp: torch.log}
inverse.update({v: k for k, v in inverse.items()})


def f(x):
    return torch.exp(torch.sin(x))


gm = symbolic_trace(f)
new = fx.Graph()
env = {}
for node in reversed(gm.graph.nodes):
    if node.op == "call_function":
        env[node.args[0].name] = new.call_function(inverse[node.target], (env[node.name],))
    elif node.op == "output":
        env[node.args[0].name] = new.placeholder(node.name)
    else:
        new.output(env[node.name])
new.lint()
inv = fx.GraphModule(gm, new)
print(inv.code)
print([round(v, 4) for v in f(inv(torch.tensor([1.5, 2.0]))).tolist()])
''',
    "profiler_ranges.py": '''
import torch
import torch.fx


class Foo(torch.nn.Module):
    def forward(self, x):
        with torch.profiler.record_function("foo"):
            return torch.relu(x)


class RangeTracer(torch.fx.Tracer):
    def trace(self, root, concrete_args=None):
        cls = torch.autograd.profiler.record_function
        saved = cls.__enter__, cls.__exit__

        def enter(ctx):
            ctx.handle = self.create_proxy("call_function",
                                           torch.ops.profiler._record_function_enter,
                                           (ctx.name,), {})
            return ctx.handle

        def leave(ctx, *exc):
            torch.ops.profiler._record_function_exit(ctx.handle)

        cls.__enter__, cls.__exit__ = enter, leave
        try:
            return super().trace(root, concrete_args)
        finally:
            cls.__enter__, cls.__exit__ = saved


tracer = RangeTracer()
graph = tracer.trace(Foo())
gm = torch.fx.GraphModule(tracer.root, graph)
print(gm.code)
with torch.autograd.profiler.profile() as prof:
    out = gm(torch.tensor([-1.0, 2.0]))
print(out, sorted({e.name for e in prof.function_events} & {"foo", "aten::relu"}))
''',
    "save_load_wrapped.py": '''
import io
import torch
import torch.fx


def helper(x, k):
    return x * k + 1


torch.fx.wrap("helper")


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return helper(self.lin(x), 3).relu()


gm = torch.fx.symbolic_trace(M())
buf = io.BytesIO()
torch.save(gm, buf)
buf.seek(0)
back = torch.load(buf, weights_only=False)
print(back.code)
print(back.graph)
x = torch.ones(1, 2)
print(torch.equal(back(x), gm(x)), sorted(back.state_dict()))
''',
    "fuse_conv_bn.py": '''
import copy
import torch, torch.fx as fx, torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.block = nn.Sequential(nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4), nn.ReLU())
    def forward(self, x):
        return self.block(self.bn(self.conv(x))).mean()

def fuse(model):
    model = copy.deepcopy(model)
    gm = fx.symbolic_trace(model)
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op != "call_module" or type(modules[node.target]) is not nn.BatchNorm2d:
            continue
        prev = node.args[0]
        if prev.op != "call_module" or type(modules[prev.target]) is not nn.Conv2d:
            continue
        fused = fuse_conv_bn_eval(modules[prev.target], modules[node.target])
        parent, _, name = prev.target.rpartition(".")
        setattr(modules[parent] if parent else gm, name, fused)
        node.replace_all_uses_with(prev)
        gm.graph.erase_node(node)
    gm.graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return gm

torch.manual_seed(0)
m = Net().eval()
with torch.no_grad():
    for bn in (m.bn, m.block[1]):
        bn.running_mean.uniform_(-1, 1); bn.running_var.uniform_(0.5, 2)
f = fuse(m)
print(f.code)
print(f)
x = torch.randn(2, 3, 8, 8)
print(torch.allclose(f(x), m(x), atol=1e-5))
''',
}


def _run_torch_with_torchvision(path):
    # torchvision's compiled ops do not load with the CPU torch wheel: its fake-kernel
    # registrations are skipped while it is imported (the models are pure Python)
    saved = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision  # noqa: F401
    finally:
        torch.library.register_fake = saved
    return _run_torch(path)


def _run_torch(path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(path), run_name="__main__")
    return out.getvalue()


_DRIVER = """
import runpy, sys, traceback
for path in sys.argv[1:]:
    print("=== " + path, flush=True)
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException:
        traceback.print_exc(file=sys.stdout)
        print("=== FAILED", flush=True)
"""


def _run_numtorch(paths, tmp_path):
    """Run the programs one after another in one launcher process (one numtorch import)."""
    driver = tmp_path / "fx_driver.py"
    driver.write_text(_DRIVER)
    proc = subprocess.run([sys.executable, "-m", "numtorch.run", str(driver),
                           *map(str, paths)], cwd=paths[0].parent, env=ENV,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    outputs = proc.stdout.split("=== ")[1:]
    return {Path(chunk.split("\n", 1)[0]).name: chunk.split("\n", 1)[1] for chunk in outputs}


def test_fx_programs_print_what_torch_prints(tmp_path):
    paths = []
    for name, source in PROGRAMS.items():
        path = tmp_path / name
        path.write_text(source)
        paths.append(path)
    results = _run_numtorch(paths, tmp_path)
    for path in paths:
        assert results[path.name] == _run_torch(path), path.name


def _examples_dir():
    candidates = [os.environ.get("NUMTORCH_FX_EXAMPLES"), "/work/ext/pytorch+examples/fx"]
    for c in candidates:
        if c and Path(c, "replace_op.py").is_file():
            return Path(c)
    return None


@pytest.mark.skipif(_examples_dir() is None, reason="no pytorch/examples checkout here")
def test_pytorch_examples_fx_scripts_run_unchanged(tmp_path):
    folder = _examples_dir()
    names = ["invert.py", "primitive_library.py", "subgraph_rewriter_basic_use.py",
             "wrap_output_dynamically.py", "inline_function.py", "replace_op.py",
             "proxy_based_graph_creation.py", "module_tracer.py"]
    if importlib.util.find_spec("tabulate") is not None:
        names.append("custom_tracer.py")  # print_tabular needs the optional tabulate
    results = _run_numtorch([folder / n for n in names], tmp_path)
    for name in names:
        out = results[name]
        if name == "module_tracer.py":
            expected = _run_torch_with_torchvision(folder / name)
        else:
            expected = _run_torch(folder / name)
        out, expected = (re.sub(r"0x[0-9a-f]+", "0x", t) for t in (out, expected))
        if name == "invert.py":
            # the last line prints values that differ from torch's in the last float bit
            out, expected = out.rsplit("tensor", 1)[0], expected.rsplit("tensor", 1)[0]
        assert out == expected, name
