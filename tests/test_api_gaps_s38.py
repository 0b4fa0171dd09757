"""torch 2.13 names a probe of common one-liners found missing or different: utils.swap_tensors,
torch.__config__, utils.collect_env, the overrides tables, backends.openmp, the matmul
precision and TF32 flag being one setting."""

import inspect
import subprocess
import sys
import warnings
import weakref

import pytest

import numtorch

torch = pytest.importorskip("torch")


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared
        return (type(e).__name__, str(e))


def _swap_story(lib):
    out = []
    a = lib.ones(2, requires_grad=True)
    c = lib.zeros(3)
    lib.utils.swap_tensors(a, c)
    out.append((a.tolist(), c.tolist(), a.requires_grad, c.requires_grad))
    q, r = lib.nn.Parameter(lib.ones(2)), lib.zeros(2)
    lib.utils.swap_tensors(q, r)
    out.append((type(q).__name__, type(r).__name__, q.requires_grad, r.requires_grad))
    s, t = lib.ones(2), lib.zeros(2)
    s.foo = 1
    lib.utils.swap_tensors(s, t)
    out.append((getattr(t, "foo", None), getattr(s, "foo", None)))
    m = lib.nn.Linear(2, 2)
    old = m.weight
    lib.utils.swap_tensors(m.weight, lib.nn.Parameter(lib.zeros(2, 2)))
    out.append((m.weight.tolist(), m.weight is old, type(m.weight).__name__))
    x = lib.ones(2, requires_grad=True)
    (x * 3).sum().backward()
    out.append(x.grad.tolist())
    u = lib.arange(4.0)
    v, z = u[1:3], lib.zeros(2)
    lib.utils.swap_tensors(v, z)
    v.add_(1)
    out.append((u.tolist(), v.tolist(), z.tolist()))
    p = lib.ones(2)
    ref = weakref.ref(p)
    out.append(_outcome(lambda: lib.utils.swap_tensors(p, lib.zeros(2))))
    out.append(_outcome(lambda: lib.utils.swap_tensors(lib.zeros(2), p)))
    out.append(_outcome(lambda: lib.utils.swap_tensors(lib.ones(1), 3)))
    del ref
    return out


def test_swap_tensors():
    assert _swap_story(numtorch) == _swap_story(torch)


def test_matmul_precision_and_tf32_flag():
    def story(lib):
        out = [lib.backends.cuda.matmul.allow_tf32, lib.get_float32_matmul_precision()]
        for p in ("high", "medium", "highest"):
            lib.set_float32_matmul_precision(p)
            out.append((p, lib.backends.cuda.matmul.allow_tf32))
        lib.backends.cuda.matmul.allow_tf32 = True
        out.append(lib.get_float32_matmul_precision())
        lib.backends.cuda.matmul.allow_tf32 = False
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.set_float32_matmul_precision("bogus")
        # torch appends where in its C++ the warning came from
        out.append(([str(x.message).split(" (Triggered")[0] for x in w],
                    lib.backends.cuda.matmul.allow_tf32))
        lib.set_float32_matmul_precision("highest")
        return out

    assert story(numtorch) == story(torch)


def test_openmp_backend_is_an_attribute():
    assert numtorch.backends.openmp.is_available() in (True, False)


def test_config_texts():
    text = numtorch.__config__.show()
    assert "NumPy" in text and "BLAS" in text
    info = numtorch.__config__.parallel_info()
    assert f"get_num_threads() : {numtorch.get_num_threads()}" in info


def test_collect_env_runs_as_torch_module():
    out = subprocess.run([sys.executable, "-m", "numtorch.run", "-m", "torch.utils.collect_env"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert "numtorch version:" in out.stdout and "Python version:" in out.stdout
    env = numtorch.utils.collect_env.get_env_info()
    assert env.numtorch_version == numtorch.__version__


def test_overrides_tables():
    def story(lib):
        o = lib.overrides
        ig, ov, to = o.get_ignored_functions(), o.get_overridable_functions(), \
            o.get_testing_overrides()
        return [type(ig).__name__, lib.manual_seed in ig, lib.is_tensor in ig, lib.add in ig,
                type(ov).__name__, lib.add in ov[lib], lib.Tensor.add in ov[lib.Tensor],
                lib.nn.functional.relu in ov[lib.nn.functional],
                list(inspect.signature(to[lib.add]).parameters)[:2], to[lib.add](1, 2),
                o.resolve_name(lib.add), o.resolve_name(lib.Tensor.add),
                o.resolve_name(lib.nn.functional.relu), o.resolve_name(lib.linalg.norm),
                o.resolve_name(len), o.resolve_name(lib.Tensor.T.__get__),
                o.is_tensor_method_or_property(lib.Tensor.add),
                o.is_tensor_method_or_property(lib.add),
                o.is_tensor_method_or_property(lib.Tensor.T.__get__)]

    assert story(numtorch) == story(torch)


def test_wrap_torch_function():
    def story(lib):
        seen = []

        class S(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return "X"

        @lib.overrides.wrap_torch_function(lambda a, b=None: (a,))
        def myfn(a, b=None):
            return "plain"

        return myfn(lib.ones(1)), myfn(lib.ones(1).as_subclass(S)), seen

    assert story(numtorch) == story(torch)


def test_module_attributes_reachable_without_import():
    """Names code reaches through attributes after a plain ``import torch``."""
    for lib in (torch, numtorch):
        assert lib.nn.modules.utils._pair(3) == (3, 3)
        assert lib.nn.modules.utils._triple((1, 2, 3)) == (1, 2, 3)
        assert callable(lib._utils._rebuild_tensor_v2)
        assert callable(lib.nn.utils.parameters_to_vector)  # nn.utils, not nn.modules.utils


def test_modules_remove_duplicate():
    def story(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        m.add_module("again", m[0])
        return len(list(m.modules())), len(list(m.modules(remove_duplicate=False)))

    assert story(numtorch) == story(torch)


def test_from_dlpack_device_and_copy():
    import numpy as np

    def story(lib):
        out = []
        a = np.arange(3.0)
        t = lib.from_dlpack(a, copy=True)
        t[0] = 7
        out.append(a.tolist())
        t = lib.from_dlpack(a, device="cpu")
        t[0] = 7
        out.append(a.tolist())
        out.append(_outcome(lambda: lib.from_dlpack(a, device="cuda"))[0])
        x = lib.ones(2)
        out.append((lib.from_dlpack(x) is x, lib.from_dlpack(x, copy=True).tolist()))
        return out

    assert story(numtorch) == story(torch)


def test_compile_takes_torch_2_13_keywords():
    f = numtorch.compile(lambda v: v + 1, name="f", recompile_limit=3, isolate_recompiles=True)
    assert f(numtorch.ones(1)).tolist() == [2.0]


def test_types_print_under_torch_names():
    """print(type(x)) in a tutorial shows torch's class names."""
    def story(lib):
        return [repr(type(lib.ones(1))), repr(type(lib.nn.Parameter(lib.ones(1)))),
                repr(type(lib.Size([1]))), repr(type(lib.float32)),
                repr(type(lib.device("cpu"))), str(lib.Tensor), repr(lib.nn.Parameter)]

    assert story(numtorch) == story(torch)
    assert numtorch.Tensor.__module__ == "numtorch"  # pickles still resolve through numtorch
