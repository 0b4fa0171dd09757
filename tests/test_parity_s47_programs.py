"""Session 47 (programs): gaps found running third-party libraries built on torch (einops,
timm, transformers, peft, accelerate, torchdiffeq, torch-optimizer, ...) under numtorch, each
reduced to a few lines of numtorch vs torch, checked against torch at test time."""

import warnings

import numpy as np
import pytest
import torch

import numtorch


def _both(fn):
    """``fn(lib)`` run with torch and with numtorch."""
    return fn(torch), fn(numtorch)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__
    return r.tolist()


# -- torch's deprecated positional-multiplier overloads (torch-optimizer's Ranger, old code) ---
_DEPRECATED = {
    "add": lambda L, a, b, c, m: a.add(2, b),
    "add_": lambda L, a, b, c, m: a.clone().add_(2, b),
    "add_number": lambda L, a, b, c, m: a.add(2, 3),
    "sub": lambda L, a, b, c, m: a.sub(2, b),
    "sub_": lambda L, a, b, c, m: a.clone().sub_(-0.5, b),
    "torch.add": lambda L, a, b, c, m: L.add(a, 2, b),
    "torch.add_out": lambda L, a, b, c, m: L.add(a, 2, b, out=L.empty(3)),
    "torch.sub": lambda L, a, b, c, m: L.sub(a, 2, b),
    "addcmul": lambda L, a, b, c, m: a.addcmul(2, b, c),
    "addcmul_": lambda L, a, b, c, m: a.clone().addcmul_(0.25, b, c),
    "addcdiv": lambda L, a, b, c, m: a.addcdiv(2, b, c),
    "addcdiv_": lambda L, a, b, c, m: a.clone().addcdiv_(-1, b, c),
    "torch.addcmul": lambda L, a, b, c, m: L.addcmul(a, 2, b, c),
    "torch.addcdiv": lambda L, a, b, c, m: L.addcdiv(a, 2, b, c),
    "addmm": lambda L, a, b, c, m: m.addmm(2, 3, m, m.t()),
    "addmm_": lambda L, a, b, c, m: m.clone().addmm_(2, 3, m, m.t()),
    "torch.addmm5": lambda L, a, b, c, m: L.addmm(2, m, 3, m, m.t()),
    "torch.addmm4": lambda L, a, b, c, m: L.addmm(0.5, m, m, m.t()),
    # the forms torch rejects
    "add_two_tensors": lambda L, a, b, c, m: L.add(a, b, c),
    "add_tensor_then_number": lambda L, a, b, c, m: a.add(b, 2),
    "add_alpha_twice": lambda L, a, b, c, m: L.add(a, 2, b, alpha=3),
    "addcmul_value_twice": lambda L, a, b, c, m: a.addcmul(2, b, c, value=3),
    "addcmul_trailing_number": lambda L, a, b, c, m: a.clone().addcmul_(b, c, 2),
}


@pytest.mark.parametrize("case", list(_DEPRECATED))
def test_deprecated_multiplier_first_overloads(case):
    def run(L):
        a = L.tensor([1.0, -2.0, 3.0])
        b = L.tensor([2.0, 0.5, -1.0])
        c = L.tensor([4.0, 3.0, 0.25])
        m = L.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
        return _outcome(lambda: _DEPRECATED[case](L, a, b, c, m))
    t, n = _both(run)
    if isinstance(t, str):
        assert n == t
    else:
        np.testing.assert_allclose(n, t, rtol=1e-6)


def test_deprecated_overload_gradients_and_warning():
    def run(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = L.tensor([3.0, -1.0], requires_grad=True)
        z = L.tensor([0.5, 4.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = x.addcmul(3, y, z) + L.add(x, -2, y) + x.addcdiv(0.5, y, z)
        r.sum().backward()
        return (r.tolist(), x.grad.tolist(), y.grad.tolist(), z.grad.tolist(),
                {type(m.message).__name__ for m in w})
    t, n = _both(run)
    np.testing.assert_allclose(n[0], t[0], rtol=1e-6)
    for i in (1, 2, 3):
        np.testing.assert_allclose(n[i], t[i], rtol=1e-6)
    # torch warns once per process (whichever deprecated overload comes first); the other
    # tests may have used it up, so only the category is compared when a warning shows
    assert n[4] <= {"UserWarning"}


def test_deprecated_addcmul_warning_names_user_line():
    import numtorch.ops.elementwise as ew
    from numtorch import _warn_once

    _warn_once._DONE.discard("deprecated_overload")
    a = numtorch.ones(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a.addcmul_(0.5, a, a)
        a.add_(1, a)
    assert len(w) == 1
    assert w[0].filename == __file__
    assert "This overload of addcmul" in str(w[0].message)
    assert ew.add is numtorch.add


def test_addmm_keyword_operands_still_work():
    def run(L):
        m = L.tensor([[1.0, 2.0], [3.0, 4.0]])
        return (m.addmm(mat1=m, mat2=m, beta=0.5).tolist(),
                L.addmm(input=m, mat1=m, mat2=m.t(), alpha=2).tolist())
    t, n = _both(run)
    assert n == t


# -- names kornia reaches for at import and in its losses/enhance code ---------------------------
def test_torch_dot_torch_is_the_module():
    # kornia annotates with ``torch.torch.Tensor``
    assert numtorch.torch is numtorch
    assert numtorch.torch.Tensor is numtorch.Tensor
    assert torch.torch is torch


def test_fake_tensor_queries():
    from torch._subclasses.fake_tensor import is_fake as t_is_fake
    from torch.fx.experimental.proxy_tensor import get_proxy_mode as t_get_proxy_mode

    from numtorch._subclasses import FakeTensor
    from numtorch._subclasses.fake_tensor import is_fake
    from numtorch.fx.experimental.proxy_tensor import get_proxy_mode

    for L, fake in ((torch, t_is_fake), (numtorch, is_fake)):
        for x in (L.ones(2), L.nn.Parameter(L.ones(2)), L.ones(2)[0], 1, None):
            assert fake(x) is t_is_fake(torch.ones(2) if x is not None else None)
    assert get_proxy_mode() is t_get_proxy_mode() is None
    assert issubclass(FakeTensor, numtorch.Tensor)
    with pytest.raises(RuntimeError):
        FakeTensor()


_ASSERT_ASYNC = {
    "true": lambda L: L._assert_async(L.tensor(True)),
    "one_float_msg": lambda L: L._assert_async(L.tensor(1.5), "m"),
    "nan": lambda L: L._assert_async(L.tensor(float("nan"))),
    "false": lambda L: L._assert_async(L.tensor(False)),
    "zero_msg": lambda L: L._assert_async(L.tensor(0), "boom"),
    "zero_msg_kw": lambda L: L._assert_async(L.tensor([0.0]), assert_msg="kw"),
    "two_values": lambda L: L._assert_async(L.tensor([1, 1])),
    "empty": lambda L: L._assert_async(L.tensor([])),
    "not_tensor": lambda L: L._assert_async(True),
}


@pytest.mark.parametrize("case", list(_ASSERT_ASYNC))
def test_assert_async(case):
    def run(L):
        try:
            return ("ok", _ASSERT_ASYNC[case](L))
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            return (type(e).__name__, str(e))
    t, n = _both(run)
    assert n == t


def test_are_functorch_transforms_active():
    def run(L):
        seen = []
        f = L._C._are_functorch_transforms_active

        def probe(x):
            seen.append(f())
            return x.sin().sum()

        seen.append(f())
        L.func.vmap(probe)(L.ones(3, 2))
        L.func.grad(probe)(L.ones(2))
        L.func.jvp(probe, (L.ones(2),), (L.ones(2),))
        L.func.vjp(probe, L.ones(2))
        L.func.jacrev(probe)(L.ones(2))
        L.autograd.functional.jacobian(probe, L.ones(2))
        seen.append(f())
        return seen
    t, n = _both(run)
    assert n == t


# -- torch.export: the output's containers (transformers' ModelOutput is a registered dict) -----
class _Out(dict):
    """A dict subclass registered as a pytree node, as transformers registers ModelOutput."""


def _register_out(L):
    from importlib import import_module

    pytree = import_module(f"{L.__name__}.utils._pytree")
    if _Out not in pytree.SUPPORTED_NODES:
        pytree.register_pytree_node(
            _Out, lambda d: (list(d.values()), list(d.keys())),
            lambda values, keys: _Out(zip(keys, values)))


def _describe(o):
    if isinstance(o, (tuple, list)):
        return [type(o).__name__, [_describe(v) for v in o]]
    if isinstance(o, dict):
        return [type(o).__name__, {k: _describe(v) for k, v in o.items()}]
    return o.tolist() if hasattr(o, "tolist") else o


@pytest.mark.parametrize("kind", ["ordereddict", "registered", "plain", "nested"])
def test_export_module_keeps_output_containers(kind):
    import collections

    def run(L):
        _register_out(L)

        class M(L.nn.Module):
            def forward(self, x):
                if kind == "ordereddict":
                    return collections.OrderedDict(a=x.sin(), b=(x.cos(), [x + 1]))
                if kind == "registered":
                    return _Out(last=x * 2, pooled=x.sum(0))
                if kind == "plain":
                    return {"a": x + 1, "b": [x, (x * 3,)]}
                return (x, _Out(h=collections.OrderedDict(z=x - 1)), [x.exp()])
        x = L.tensor([[0.5, -1.0], [2.0, 0.25]])
        m = L.export.export(M(), (x,)).module()
        return _describe(m(x)), _describe(m(x * 2))
    t, n = _both(run)
    assert _close(n, t)


def _close(a, b):
    if isinstance(a, list) and a and isinstance(a[0], str) and a[0] in (
            "tuple", "list", "dict", "OrderedDict", "_Out"):
        assert a[0] == b[0]
        if isinstance(a[1], dict):
            assert list(a[1]) == list(b[1])
            return all(_close(a[1][k], b[1][k]) for k in a[1])
        assert len(a[1]) == len(b[1])
        return all(_close(x, y) for x, y in zip(a[1], b[1]))
    if isinstance(a, tuple):
        return all(_close(x, y) for x, y in zip(a, b))
    np.testing.assert_allclose(a, b, rtol=1e-6)
    return True


# -- pyro: torch.__name__ under the alias, torch.serialization's type aliases, tracing state ---
_NAME_PROGRAM = """
import torch, torch.distributions
print(torch.__name__, torch.torch.__name__, torch.distributions.Normal.__name__)
# pyro's patch_dependency: walk "torch.a.b.C.meth" from the module named by its first part
target = "torch.distributions.transforms.Transform.__getstate__"
parts = target.split(".")
assert parts[0] == torch.__name__
obj = torch
for p in parts[1:-1]:
    obj = getattr(obj, p)
print(type(obj).__name__, obj.__name__)
print(torch.fx.symbolic_trace.__name__, torch.distributions.__name__.split(".")[-1])
try:
    torch.no_such_name
except AttributeError as e:
    print(e)
"""


def test_torch_name_under_the_alias(tmp_path):
    import subprocess
    import sys

    prog = tmp_path / "prog.py"
    prog.write_text(_NAME_PROGRAM)
    env_out = {}
    for lib, cmd in (("torch", [sys.executable, str(prog)]),
                     ("numtorch", [sys.executable, "-m", "numtorch.run", str(prog)])):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert r.returncode == 0, r.stderr
        env_out[lib] = r.stdout
    assert env_out["numtorch"] == env_out["torch"]


def test_import_hook_name_restored_on_uninstall():
    import subprocess
    import sys

    code = ("import numtorch\nfrom numtorch import _import_hook\n_import_hook.install()\n"
            "a = numtorch.__name__\nimport numtorch.fx\n_import_hook.uninstall()\n"
            "print(a, numtorch.__name__, numtorch.fft.__name__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["torch", "numtorch", "numtorch.fft"]


def test_serialization_type_aliases():
    import typing

    for name in ("MAP_LOCATION", "STORAGE", "IO"):
        assert hasattr(numtorch.serialization, name) == hasattr(torch.serialization, name)
    # Optional[Union[callable, device, str, dict]]: the same shape of alias as torch's
    t_args = typing.get_args(torch.serialization.MAP_LOCATION)
    n_args = typing.get_args(numtorch.serialization.MAP_LOCATION)
    assert [getattr(a, "__name__", str(a)) for a in n_args[1:]] == \
        [getattr(a, "__name__", str(a)) for a in t_args[1:]]
    assert numtorch.device in n_args and type(None) in n_args


def test_get_tracing_state_outside_trace():
    assert numtorch._C._get_tracing_state() is torch._C._get_tracing_state() is None
    assert numtorch.jit.is_tracing() is torch.jit.is_tracing()


def test_storage_sizeof_counts_the_elements():
    # torchinfo's "Input size (MB)" is sys.getsizeof(t.untyped_storage()) summed over inputs
    import sys

    def run(L):
        out = []
        for t in (L.ones(1, 3, 32, 32), L.ones(0), L.ones(5, dtype=L.float16), L.ones(10)[2:5]):
            s = t.untyped_storage()
            out.append((sys.getsizeof(s), s.nbytes()))
        return out
    t, n = _both(run)
    assert [b for _, b in n] == [b for _, b in t]
    # the object's own part may differ by a few bytes (torch's is a C struct); the elements
    # are what counts
    assert all(abs(ns - ts) <= 16 for (ns, _), (ts, _) in zip(n, t))
    assert n[0][0] - n[1][0] == t[0][0] - t[1][0] == 12288


# -- torch._check family, fx/export tracing flags, utils._contextlib, small _C/_dynamo names ----
_CHECKS = {
    "true": lambda L: L._check(True),
    "false": lambda L: L._check(False),
    "false_msg": lambda L: L._check(False, lambda: "my msg"),
    "str_msg": lambda L: L._check(False, "str msg"),
    "tensor_cond": lambda L: L._check(L.tensor(True)),
    "int_cond": lambda L: L._check(1),
    "index": lambda L: L._check_index(False, lambda: "idx"),
    "value": lambda L: L._check_value(False),
    "type": lambda L: L._check_type(False, lambda: "ty"),
    "not_impl": lambda L: L._check_not_implemented(False, lambda: "ni"),
    "with_keyerror": lambda L: L._check_with(KeyError, False, lambda: "kw"),
    "with_int": lambda L: L._check_with(int, False, lambda: "kw"),
    "with_warning": lambda L: L._check_with(UserWarning, False, lambda: "w"),
    "with_true": lambda L: L._check_with(ValueError, True, None),
    "with_none_message": lambda L: L._check_with(ValueError, False, None),
    "with_no_message": lambda L: L._check_with(ValueError, False),
    "size_ok": lambda L: L._check_is_size(3),
    "size_neg": lambda L: L._check_is_size(-1, lambda: "neg"),
    "size_max": lambda L: L._check_is_size(5, max=4),
    "tensor_all_false": lambda L: L._check_tensor_all(L.tensor([True, False])),
    "tensor_all_true": lambda L: L._check_tensor_all(L.tensor([[True], [True]])),
    "tensor_all_empty": lambda L: L._check_tensor_all(L.tensor([], dtype=L.bool)),
    "tensor_all_bool": lambda L: L._check_tensor_all(True),
    "tensor_all_int": lambda L: L._check_tensor_all(L.tensor([1])),
    "tensor_all_with": lambda L: L._check_tensor_all_with(IndexError, L.tensor([False]),
                                                          lambda: "m"),
}


@pytest.mark.parametrize("case", list(_CHECKS))
def test_check_family(case):
    def run(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = ("ok", _CHECKS[case](L))
            except Exception as e:  # noqa: BLE001 - the class and message are compared
                r = (type(e).__name__, str(e))
        return r, [(x.category.__name__, str(x.message)) for x in w]
    t, n = _both(run)
    assert n == t


def test_fx_tracing_and_export_flags():
    def run(L):
        from importlib import import_module

        st = import_module(f"{L.__name__}.fx._symbolic_trace")
        seen = []

        class M(L.nn.Module):
            def forward(self, x):
                seen.append((st.is_fx_tracing(), st.is_fx_symbolic_tracing(),
                             L.compiler.is_compiling(), L.compiler.is_exporting(),
                             L.compiler.is_dynamo_compiling(), L._dynamo.is_compiling()))
                return x + 1
        seen.append(st.is_fx_tracing())
        L.fx.symbolic_trace(M())
        L.export.export(M(), (L.ones(2),))
        M()(L.ones(2))
        seen.append((st.is_fx_tracing(), L.compiler.is_compiling()))
        return seen
    import logging

    logging.getLogger("torch.fx._symbolic_trace").setLevel(logging.ERROR)
    t, n = _both(run)
    assert n == t


def test_decorator_context_managers():
    def run(L):
        from importlib import import_module

        cl = import_module(f"{L.__name__}.utils._contextlib")
        log = []

        class Tag(cl._DecoratorContextManager):
            def __enter__(self):
                log.append("in")

            def __exit__(self, *a):
                log.append("out")

        class NoGrad(cl._NoParamDecoratorContextManager):
            def __enter__(self):
                self.prev = L.is_grad_enabled()
                L.set_grad_enabled(False)

            def __exit__(self, *a):
                L.set_grad_enabled(self.prev)

        @Tag()
        def f(x):
            log.append("f")
            return x * 2

        @NoGrad
        def g(x):
            return (x * 2).requires_grad

        @NoGrad()
        def h(x):
            return (x * 2).requires_grad

        @Tag()
        def gen(n):
            for i in range(n):
                log.append(f"y{i}")
                r = yield i
                log.append(f"got{r}")
            return "done"

        x = L.ones(1, requires_grad=True)
        out = [f(3), g(x), h(x), f.__name__, g.__name__, (x * 2).requires_grad]
        it = gen(2)
        out.append(next(it))
        log.append("caller")
        out.append(it.send("a"))
        try:
            it.send("b")
        except StopIteration as e:
            out.append(e.value)
        out.append(cl.context_decorator(lambda: Tag(), lambda: 5)())
        with pytest.raises(AssertionError):
            cl.context_decorator(Tag, lambda: 5)
        return out, log
    t, n = _both(run)
    assert n == t


def test_decorated_generator_throw_and_close_run_inside_the_manager():
    def run(L):
        from importlib import import_module

        cl = import_module(f"{L.__name__}.utils._contextlib")
        log = []

        class Tag(cl._DecoratorContextManager):
            def __enter__(self):
                log.append("in")

            def __exit__(self, *a):
                log.append("out")

        @Tag()
        def gen():
            try:
                yield 1
            except ValueError as e:
                log.append(f"caught {e}")
                yield 2
            try:
                yield 3
            finally:
                log.append("cleanup")

        it = gen()
        out = [next(it), it.throw(ValueError("v")), next(it)]
        it.close()
        it2 = gen()
        next(it2)
        try:
            it2.throw(KeyError("k"))
        except KeyError as e:
            out.append(repr(e))
        return out, log
    t, n = _both(run)
    assert n == t


def test_small_c_and_dynamo_names():
    for L in (torch, numtorch):
        assert L._C._set_grad_enabled(False) is None
        assert L.is_grad_enabled() is False
        L._C._set_grad_enabled(True)
        assert L.is_grad_enabled() is True
        with pytest.raises(TypeError, match="must be bool, not int"):
            L._C._set_grad_enabled(1)
        assert L._C._get_cudnn_enabled() is L.backends.cudnn.enabled
        assert L._dynamo.config.recompile_limit == 8
        from importlib import import_module

        counters = import_module(f"{L.__name__}._dynamo.utils").counters
        assert type(counters).__name__ == "defaultdict"
        assert type(counters["stats"]).__name__ == "Counter"


def test_jit_executor_switches_read_back():
    # timm's set_jit_fuser / set_jit_legacy flip these; each library keeps its own state
    def run(L):
        C = L._C
        out = [C._jit_set_profiling_mode(False), C._jit_set_profiling_mode(True),
               C._jit_set_profiling_executor(False), C._jit_set_profiling_executor(True),
               C._jit_can_fuse_on_cpu(), C._jit_can_fuse_on_gpu(),
               C._jit_override_can_fuse_on_cpu(True), C._jit_can_fuse_on_cpu(),
               C._jit_override_can_fuse_on_cpu(False), C._jit_can_fuse_on_cpu(),
               C._jit_override_can_fuse_on_gpu(False), C._jit_texpr_fuser_enabled(),
               C._jit_set_texpr_fuser_enabled(False), C._jit_texpr_fuser_enabled(),
               C._jit_set_texpr_fuser_enabled(True), C._jit_texpr_fuser_enabled()]
        out += [C._jit_set_profiling_mode(0), C._jit_set_profiling_mode(None),
                C._jit_set_profiling_mode(2.0), C._jit_set_profiling_mode(True)]
        with pytest.raises(TypeError):
            C._jit_set_profiling_mode("x")
        return out
    t, n = _both(run)
    assert n == t


_SYM = ["guard_or_false", "guard_or_true", "statically_known_true", "statically_known_false",
        "guard_size_oblivious", "is_concrete_int", "is_concrete_bool", "free_symbols",
        "free_unbacked_symbols", "has_free_symbols", "has_free_unbacked_symbols",
        "is_nested_int", "sym_eq"]


@pytest.mark.parametrize("name", _SYM)
def test_symbolic_shapes_guards_on_concrete_values(name):
    def run(L):
        from importlib import import_module

        fn = getattr(import_module(f"{L.__name__}.fx.experimental.symbolic_shapes"), name)
        out = []
        for v in (True, False, 3, 0, L.tensor(1), (2, 3)):
            try:
                r = fn(v, v) if name == "sym_eq" else fn(v)
                out.append(sorted(r) if name.startswith("free") else r)
            except Exception as e:  # noqa: BLE001 - the class is compared
                out.append(type(e).__name__)
        return out
    t, n = _both(run)
    assert n == t


def test_symbolic_shapes_error_class():
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode as T

    from numtorch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode as N

    assert issubclass(N, RuntimeError) and issubclass(T, RuntimeError)


# -- whole third-party programs (skipped where the library is not installed) -------------------
_PYRO_PROGRAM = """
import torch, pyro
import pyro.distributions as dist
from pyro.infer import SVI, Trace_ELBO, Predictive
from pyro.infer.autoguide import AutoNormal
from pyro.optim import ClippedAdam
pyro.set_rng_seed(0)
X = torch.randn(30, 3); y = X @ torch.tensor([1.0, -2.0, 0.5]) + 0.3 * torch.randn(30)
def model(X, y=None):
    w = pyro.sample('w', dist.Normal(torch.zeros(3), torch.ones(3)).to_event(1))
    s = pyro.sample('s', dist.HalfCauchy(1.))
    with pyro.plate('data', X.shape[0]):
        pyro.sample('obs', dist.Normal(X @ w, s), obs=y)
guide = AutoNormal(model)
svi = SVI(model, guide, ClippedAdam({'lr': 0.05}), Trace_ELBO())
for i in range(30):
    loss = svi.step(X, y)
print(round(loss, 3), [round(v, 3) for v in guide.median()['w'].tolist()])
print({k: tuple(v.shape) for k, v in Predictive(model, guide=guide, num_samples=4)(X).items()})
"""


def test_pyro_svi_program(tmp_path):
    # pyro stopped at import (torch.serialization.MAP_LOCATION, torch.__name__) and in
    # pyro.plate (torch._C._get_tracing_state)
    import subprocess
    import sys

    pytest.importorskip("pyro")
    prog = tmp_path / "svi.py"
    prog.write_text(_PYRO_PROGRAM)
    outs = []
    for cmd in ([sys.executable, str(prog)], [sys.executable, "-m", "numtorch.run", str(prog)]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(r.stdout)
    assert outs[1] == outs[0]


def test_inductor_config_flags():
    # gpt-fast style programs set inductor flags before torch.compile
    def run(L):
        c = L._inductor.config
        out = [c.coordinate_descent_tuning, c.fx_graph_cache, c.max_autotune, c.compile_threads,
               c.triton.cudagraphs, c.triton.unique_kernel_names, c.cpp.threads]
        errors = []
        for f in (lambda: setattr(c, "no_such", 1), lambda: c.no_such,
                  lambda: setattr(c.triton, "no_such", 1), lambda: c.triton.no_such):
            try:
                f()
            except AttributeError as e:
                errors.append(str(e))
        with c.patch(max_autotune=True):
            out.append(c.max_autotune)
        with c.patch({"triton.cudagraphs": True}):
            out.append(c.triton.cudagraphs)
        out += [c.max_autotune, c.triton.cudagraphs]

        @c.patch("freezing", True)
        def frozen():
            return c.freezing
        out += [frozen(), c.freezing]
        c.coordinate_descent_tuning = True
        out.append(c.coordinate_descent_tuning)
        c.coordinate_descent_tuning = False
        return out, errors
    t, n = _both(run)
    assert n == t
