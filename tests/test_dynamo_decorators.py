"""torch._dynamo's decorators and dimension markers, as programs use them around
torch.compile: functions come back unchanged, markers note dims where torch does."""

import torch

import numtorch


def _marks(lib):
    t = lib.ones(3, 4)
    lib._dynamo.mark_dynamic(t, 0)
    lib._dynamo.maybe_mark_dynamic(t, 1)
    lib._dynamo.mark_static(t, 1)
    u = lib.ones(2, 2, 2)
    lib._dynamo.mark_dynamic(u, [0, 2])
    lib._dynamo.mark_static(u)
    return (t._dynamo_dynamic_indices, t._dynamo_weak_dynamic_indices,
            t._dynamo_static_indices, u._dynamo_dynamic_indices, u._dynamo_static_indices)


def test_markers_note_what_torch_notes():
    assert _marks(numtorch) == _marks(torch)


def test_decorators_return_the_function_and_queries_answer_as_torch():
    def f(x):
        return x + 1

    for name in ("assume_constant_result", "allow_in_graph", "disallow_in_graph",
                 "forbid_in_graph"):
        assert getattr(torch._dynamo, name)(f) is f
        assert getattr(numtorch._dynamo, name)(f) is f
    for lib in (torch, numtorch):  # torch wraps this one; calling it runs f either way
        assert lib._dynamo.nonstrict_trace(f)(lib.ones(1)).item() == 2.0
    assert numtorch._dynamo.is_compiling() is torch._dynamo.is_compiling() is False
    assert numtorch._dynamo.list_backends() == torch._dynamo.list_backends()
    assert numtorch._dynamo.graph_break() is None


def test_set_stance_as_call_context_and_decorator():
    for lib in (torch, numtorch):
        with lib._dynamo.set_stance("force_eager"):
            assert lib.compile(lambda x: x * 2)(lib.ones(1)).item() == 2.0

        @lib._dynamo.set_stance("force_eager")
        def g(x):
            return x - 1

        assert g(lib.ones(1)).item() == 0.0
        lib._dynamo.set_stance("default")


def test_decorated_compiled_function_runs():
    @numtorch._dynamo.assume_constant_result
    def const():
        return 3

    @numtorch.compile
    def h(x):
        numtorch._dynamo.graph_break()
        return x * const()

    assert h(numtorch.ones(2)).tolist() == [3.0, 3.0]
