"""Gaps found running timm 1.0 (model zoo, optimizers, schedulers, Mixup, EMA, feature
extraction) under ``numtorch.run``; each case reproduces the gap without timm and compares
with torch."""

import typing
import warnings
from typing import Dict, List, Optional, Tuple, Union

import pytest

import numtorch

torch = pytest.importorskip("torch")


def _generic_params(mod):
    out = {}
    for name in dir(mod):
        obj = getattr(mod, name)
        if isinstance(obj, type) and issubclass(obj, typing.Generic):
            out[name] = [str(p) for p in obj.__parameters__]
    return out


def test_data_classes_are_generic_as_torchs():
    ours = _generic_params(numtorch.utils.data)
    theirs = {k: v for k, v in _generic_params(torch.utils.data).items() if "DataPipe" not in k}
    assert ours == theirs


@pytest.mark.parametrize("lib", [numtorch, torch])
def test_subscripted_data_classes_in_class_statements(lib):
    data = lib.utils.data

    class Batches(data.Sampler[List[int]]):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter([[i, i + 1] for i in range(0, self.n, 2)])

        def __len__(self):
            return self.n // 2

    class Squares(data.Dataset[int]):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 4

    class Stream(data.IterableDataset[int]):
        def __iter__(self):
            return iter(range(3))

    loader = data.DataLoader(Squares(), batch_sampler=Batches(4))
    assert [b.tolist() for b in loader] == [[0, 1], [4, 9]]
    assert list(Stream()) == [0, 1, 2]
    assert data.DataLoader[int] is not None and data.Subset[int] is not None
    assert data.DistributedSampler[int] is not None


def test_hub_reexports_and_torch_home(monkeypatch, tmp_path):
    import numtorch.hub as nh
    import torch.hub as th

    for name in ("urlparse", "urlopen", "Request", "HTTPError", "URLError", "HASH_REGEX"):
        assert getattr(nh, name) is getattr(th, name) or name == "HASH_REGEX"
    assert nh.HASH_REGEX.pattern == th.HASH_REGEX.pattern
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.delenv("NUMTORCH_HOME", raising=False)
    assert nh._get_torch_home() == th._get_torch_home()


_ISINSTANCE_CASES = [
    ([1, 2], List[int]), ([1, "a"], List[int]), ([], List[str]), ({"a": 1}, Dict[str, int]),
    ({"a": "b"}, Dict[str, int]), ((1, "a"), Tuple[int, str]), ((1, 2, 3), Tuple[int, int]),
    (None, Optional[int]), (3, Optional[int]), ("x", Optional[int]), (1, float), (True, int),
    ([[1]], List[List[int]]), ([[1, "a"]], List[List[int]]), (3, Union[int, str]),
    (2.0, Union[int, str]), ([1], list[int]), ({"a": 1}, dict[str, int]), (None, int | None),
    ((1,), tuple[int]), (3, "tensor"), (3, list), (3, tuple), (3, dict), (3, List), (3, Dict),
    (3, Tuple), (3, Optional), ((1, 2), Tuple[int, ...]), (3, typing.Any), (3, 5),
    ({}, Dict[str, int]), ((), Tuple[()]), ([], int), ([[]], List[List[int]]), ((), Tuple[int]),
]


@pytest.mark.parametrize("obj,target", _ISINSTANCE_CASES,
                         ids=[str(i) for i in range(len(_ISINSTANCE_CASES))])
def test_jit_isinstance_as_torch(obj, target):
    def run(lib):
        t = {"tensor": lib.Tensor}.get(target, target) if isinstance(target, str) else target
        o = lib.ones(1) if obj == 3 and target == "tensor" else obj
        return _outcome(lambda: lib.jit.isinstance(o, t))

    assert run(numtorch) == run(torch)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as e:
            value = (type(e).__name__, str(e))
    return value, [(w.category.__name__, str(w.message)) for w in seen
                   if "nvfuser" not in str(w.message)]


@pytest.mark.parametrize("case", [
    lambda J: J.Attribute(3, int),
    lambda J: J._unwrap_optional(3),
    lambda J: J._unwrap_optional(None),
    lambda J: J.interface(5),
    lambda J: J.script_if_tracing(lambda x: x + 1)(2),
    lambda J: J.set_fusion_strategy([("BOGUS", 3)]),
    lambda J: (J.set_fusion_strategy([("DYNAMIC", 3)]),
               J.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)])),
    lambda J: (J.enable_onednn_fusion(False), J.onednn_fusion_enabled()),
    lambda J: J.fuser("bogus").__enter__(),
    lambda J: [J.fuser(n).__enter__() for n in ("fuser0", "fuser1", "none")],
    lambda J: J.optimized_execution(False).__enter__(),
    lambda J: J.strict_fusion().__enter__(),
    lambda J: [c.__name__ for c in J.Error.__mro__],
    lambda J: [c.__name__ for c in J.TracerWarning.__mro__ + J.ScriptWarning.__mro__],
    lambda J: (J.annotations.List, J.annotations.Optional[int],
               J.annotations.BroadcastingList2[int]),
], ids=lambda f: f"line{f.__code__.co_firstlineno}")
def test_jit_eager_names_as_torch(case):
    assert _outcome(lambda: case(numtorch.jit)) == _outcome(lambda: case(torch.jit))


def test_jit_export_opnames_of_a_plain_module():
    assert _outcome(lambda: numtorch.jit.export_opnames(numtorch.nn.Linear(2, 2))) == \
        _outcome(lambda: torch.jit.export_opnames(torch.nn.Linear(2, 2)))


def test_jit_overloads_run_the_last_definition():
    for lib in (numtorch, torch):
        @lib.jit._overload
        def f(x: int) -> int: ...

        @lib.jit._overload
        def f(x: str) -> str: ...

        def f(x):
            return x * 2

        assert f(3) == 6 and f("a") == "aa"


@pytest.mark.parametrize("lib", [numtorch, torch])
def test_script_module_subclass_runs_eagerly(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)

        class Scale(lib.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

            @lib.jit.script_method
            def forward(self, x):
                return x * self.w

        m = Scale()
    out = m(lib.ones(2))
    out.sum().backward()
    assert out.tolist() == [2.0, 3.0] and m.w.grad.tolist() == [1.0, 1.0]
    assert isinstance(m, lib.nn.Module) and list(m.state_dict()) == ["w"]
    assert not isinstance(lib.nn.Linear(1, 1), lib.jit.ScriptModule)
