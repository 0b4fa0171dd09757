"""Module, optimizer, scheduler, data and distribution classes print torch's names
(``print(type(model[0]))``), compared with torch at test time; user classes mixing in
``abc.ABC`` behave as under torch."""

import abc
import inspect
import pickle

import pytest
import torch

import numtorch

NAMESPACES = ["nn", "optim", "optim.lr_scheduler", "utils.data", "distributions"]


def _classes(lib, ns):
    mod = lib
    for part in ns.split("."):
        mod = getattr(mod, part)
    return {n: getattr(mod, n) for n in dir(mod)
            if not n.startswith("_") and inspect.isclass(getattr(mod, n))}


@pytest.mark.parametrize("ns", NAMESPACES)
def test_base_class_families_print_torch_names(ns):
    want, got = _classes(torch, ns), _classes(numtorch, ns)
    families = (torch.nn.Module, torch.optim.Optimizer, torch.optim.lr_scheduler.LRScheduler,
                torch.utils.data.Dataset, torch.utils.data.Sampler, torch.utils.data.DataLoader,
                torch.distributions.Distribution, torch.distributions.transforms.Transform)
    checked = 0
    for name, cls in want.items():
        if name in got and issubclass(cls, families) and cls.__module__.startswith("torch."):
            assert repr(got[name]) == repr(cls), name
            checked += 1
    assert checked > 0


def test_objects_print_their_types_like_torch():
    def program(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())
        opt = lib.optim.Adam(m.parameters())
        sch = lib.optim.lr_scheduler.StepLR(opt, 2)
        dl = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.ones(2)))
        d = lib.distributions.Normal(0.0, 1.0)
        return [repr(type(o)) for o in (m, m[0], opt, sch, dl, dl.dataset, dl.sampler, d)] + \
            [repr(type(mod)) for mod in m.modules()]
    assert program(numtorch) == program(torch)


def test_abc_mixins_and_abstract_methods_as_torch():
    def program(lib):
        out = []

        class Base(lib.nn.Module, abc.ABC):
            @abc.abstractmethod
            def f(self): ...

        try:
            Base()
        except TypeError as e:
            out.append(type(e).__name__)

        class Impl(Base):
            def f(self):
                return 1

        impl = Impl()
        out += [impl.f(), isinstance(impl, lib.nn.Module), isinstance(impl, Base),
                issubclass(Impl, abc.ABC), repr(type(impl)).split(".")[-1]]

        class NoAbc(lib.nn.Module):  # abstractmethod without ABC: still instantiable
            @abc.abstractmethod
            def g(self): ...

        out.append(repr(NoAbc()))

        class DS(lib.utils.data.Dataset, abc.ABC):
            def __len__(self):
                return 1

            def __getitem__(self, i):
                return i

        out.append(len(DS()))

        class Opt(lib.optim.SGD):
            pass

        out.append(repr(type(Opt([lib.nn.Parameter(lib.ones(1))], lr=0.1))).split(".")[-1])
        return out
    assert program(numtorch) == program(torch)


def test_pickles_still_resolve_numtorch_classes():
    m = numtorch.nn.Sequential(numtorch.nn.Linear(2, 2))
    back = pickle.loads(pickle.dumps(m))
    assert type(back[0]) is numtorch.nn.Linear
    assert type(numtorch.nn.Linear).__mro__[-1] is object
