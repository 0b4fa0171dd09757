"""Classes programs subclass (Module, Dataset, Sampler, DataLoader, Optimizer, LRScheduler,
Distribution and its transforms) have plain ``type`` as their metaclass, as in torch, so a
library's own metaclass on a subclass works (pyro's ``PyroModule(nn.Module,
metaclass=_PyroModuleMeta)``, its distributions' ABCMeta subclass). A metaclass on these bases
(tried once to print torch's class names) made such class statements raise 'metaclass
conflict' under numtorch only."""

import abc

import pytest
import torch

import numtorch as nt


def _bases(lib):
    return [lib.nn.Module, lib.utils.data.Dataset, lib.utils.data.Sampler,
            lib.utils.data.DataLoader, lib.optim.Optimizer, lib.optim.lr_scheduler.LRScheduler,
            lib.distributions.Distribution, lib.distributions.transforms.Transform]


@pytest.mark.parametrize("index", range(8))
@pytest.mark.parametrize("meta_base", [type, abc.ABCMeta])
def test_own_metaclass_on_a_subclass(index, meta_base):
    made = []
    for lib in (torch, nt):
        base = _bases(lib)[index]
        meta = type("Meta", (meta_base,), {})
        cls = meta("Sub", (base,), {})
        made.append((type(base) is type, type(cls) is meta, cls.__mro__[1] is base))
    assert made[0] == made[1]


def test_pyro_style_module_runs():
    class Meta(type):
        def __call__(cls, *args, **kwargs):
            obj = super().__call__(*args, **kwargs)
            obj.tagged = True
            return obj

    def build(lib):
        class Scaled(lib.nn.Module, metaclass=Meta):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 1)

            def forward(self, x):
                return self.lin(x) * 2

        m = Scaled()
        m(lib.ones(3, 2)).sum().backward()
        return m.tagged, [n for n, _ in m.named_parameters()], type(m).__name__

    assert build(torch) == build(nt)
