"""Classes users print show torch 2.13's names (oracle: real torch at test time): layout,
memory_format, qscheme, finfo, iinfo, Generator, Stream, Event, storages and return types,
next to the ones that already did (Tensor, Parameter, Size, dtype, device)."""

import pytest

from tests.oracle import same

CLASSES = {
    "layout": lambda t: t.layout, "memory_format": lambda t: t.memory_format,
    "qscheme": lambda t: t.qscheme, "finfo": lambda t: t.finfo, "iinfo": lambda t: t.iinfo,
    "Generator": lambda t: t.Generator, "Stream": lambda t: t.Stream,
    "Event": lambda t: t.Event, "UntypedStorage": lambda t: t.UntypedStorage,
    "TypedStorage": lambda t: t.TypedStorage, "FloatStorage": lambda t: t.FloatStorage,
    "return_types.max": lambda t: t.return_types.max,
    "max_result": lambda t: type(t.max(t.ones(2, 2), 0)),
    "Tensor": lambda t: t.Tensor, "Size": lambda t: t.Size, "dtype": lambda t: t.dtype,
    "device": lambda t: t.device, "Parameter": lambda t: t.nn.Parameter,
    "strided_type": lambda t: type(t.strided), "finfo_type": lambda t: type(t.finfo()),
    "generator_type": lambda t: type(t.Generator()),
    "Node": lambda t: t.autograd.graph.Node, "SymInt": lambda t: t.SymInt,
    "SymFloat": lambda t: t.SymFloat, "SymBool": lambda t: t.SymBool,
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_class_repr_and_str(name):
    same(lambda t: (repr(CLASSES[name](t)), str(CLASSES[name](t))))


def test_instances_still_behave():
    def run(t):
        g = t.Generator().manual_seed(3)
        return (t.finfo(t.float16).eps, t.iinfo(t.int8).max, isinstance(t.strided, t.layout),
                t.rand(2, generator=g), isinstance(t.UntypedStorage(4), t.UntypedStorage),
                isinstance(t.max(t.ones(2), 0), tuple))

    same(run)


@pytest.mark.parametrize("make", [lambda t, x: x * 2, lambda t, x: x.sum(), lambda t, x: x[0],
                                  lambda t, x: x.t(), lambda t, x: t.relu(x)])
def test_grad_fn_classes_print_as_torchs(make):
    def run(t):
        g = make(t, t.ones(2, 2, requires_grad=True)).grad_fn
        return repr(type(g)), type(g).__module__, type(g).__name__, g.name()

    same(run)


def test_grad_modes_and_custom_function_classes():
    def run(t):
        import re

        class Double(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = Double.apply(t.ones(1, requires_grad=True))
        node = re.sub(" at 0x[0-9a-f]+", "", repr(y.grad_fn))
        return (repr(t.autograd.Function), repr(t.no_grad), repr(t.enable_grad),
                repr(t.inference_mode), repr(t.set_grad_enabled), repr(type(t.no_grad())),
                repr(type(y.grad_fn)), node, y.grad_fn.name(), Double.__name__)

    same(run)
