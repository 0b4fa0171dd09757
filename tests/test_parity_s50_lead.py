"""Lead's oracle tests of session 50: each compares numtorch with real torch at test time."""

import numpy as np
import pytest
import torch as real

import numtorch as nt


def _outcome(lib, expr):
    x = lib.ones(3)
    try:
        r = eval(expr, {"x": x, "t": lib, "np": np})
        return "ok", r.tolist()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", [
    # a tensor method's argument errors count positions after self, as torch's parser does
    "x.add('a')", "x.mul(None)", "x.sub([1])", "x.div('a')",
    "t.add(x, 'a')", "t.mul(x, None)", "x.index_select(0, [0])",
    # alpha must be a Number (the in-place fast path took a list as a repeat count)
    "x.add(1, alpha='a')", "x.sub(1, alpha=None)", "x.add_(1, alpha=[1])",
    "x.sub_(x, alpha='a')", "x.add_(x, alpha=[2])", "t.add(x, x, alpha=[1])",
    "x.add_(1, alpha=np.float32(2))", "x.add_(x, alpha=np.int64(3))", "x.sub_(1, alpha=0.5)",
    "x.add_(1, alpha=True)", "x.add_(1, alpha=1j)",
])
def test_argument_errors_match_torch(expr):
    assert _outcome(nt, expr) == _outcome(real, expr)


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    assert str(a.dtype).replace("torch.", "") == str(b.dtype).replace("torch.", "")
    assert a.shape == b.shape and a.tolist() == b.tolist()


_UNIQUE_DATA = {
    "labels": lambda g: g.integers(0, 10, (6, 50)),
    "negative": lambda g: g.integers(-300, 5, (400,)),
    "uint8": lambda g: g.integers(0, 256, (3, 70)).astype(np.uint8),
    "int8": lambda g: g.integers(-128, 128, (90,)).astype(np.int8),
    "int16": lambda g: g.integers(-30000, 30000, (40,)).astype(np.int16),
    "int32_wide": lambda g: g.integers(-2**31, 2**31 - 1, (300,)).astype(np.int32),
    "int64_wide": lambda g: g.integers(-2**62, 2**62, (5, 60)),
    "int64_extremes": lambda g: np.array([2**63 - 1, -2**63, 0, 2**63 - 1, -2**63]),
    "bool": lambda g: g.integers(0, 2, (7, 9)).astype(bool),
    "all_true": lambda g: np.ones(5, bool),
    "one": lambda g: np.array([7]),
    "constant": lambda g: np.full((4, 4), -3, np.int16),
}


@pytest.mark.parametrize("inverse,counts", [(False, False), (True, False), (False, True),
                                            (True, True)])
@pytest.mark.parametrize("data", sorted(_UNIQUE_DATA))
def test_unique_of_integers_matches_torch(device, data, inverse, counts):
    a = _UNIQUE_DATA[data](np.random.default_rng(len(data)))
    for sort in (True, False):
        got = nt.unique(nt.tensor(a, device=device), sorted=sort, return_inverse=inverse,
                        return_counts=counts)
        got = tuple(t.cpu() for t in got) if isinstance(got, tuple) else got.cpu()
        want = real.unique(real.tensor(a), sorted=sort, return_inverse=inverse,
                           return_counts=counts)
        _same(got, want)


def _library_story(lib, ns):
    """A custom operator with a data-dependent output size, as a user writes one."""
    seen = []

    def show(f):
        try:
            seen.append(("ok", repr(f())))
        except Exception as e:  # noqa: BLE001 - the class and message are what is compared
            seen.append((type(e).__name__, str(e).splitlines()[0]))

    show(lambda: lib.library.get_ctx())

    def pos(x: lib.Tensor) -> lib.Tensor:
        return x[x > 0].clone()

    op = lib.library.custom_op(f"{ns}::pos", mutates_args=())(pos)

    @op.register_fake
    def _(x):
        ctx = lib.library.get_ctx()
        seen.append(type(ctx).__name__)
        show(lambda: ctx.new_dynamic_size(min=-1))
        show(lambda: ctx.new_dynamic_size(min=3, max=2))
        return x.new_empty(ctx.new_dynamic_size())

    x = lib.tensor([1.0, -1.0, 2.0])
    seen.append(op(x).tolist())
    seen.append(lib.library.opcheck(op, (x,), test_utils=("test_schema", "test_faketensor")))
    def times3(x: lib.Tensor) -> lib.Tensor:
        return x * 3

    tri = lib.library.triton_op(f"{ns}::tri", mutates_args=())(times3)
    seen.append(tri(lib.ones(2)).tolist())
    show(lambda: lib.library.fallthrough_kernel())
    show(lambda: lib.library.custom_op(f"{ns}::bad", mutates_args=())(lambda x: x))

    def f(x, y: lib.Tensor) -> lib.Tensor:
        return x

    show(lambda: lib.library.infer_schema(f, mutates_args=()))
    return seen


def test_custom_op_fake_context_and_triton_op_match_torch():
    import uuid

    ns = "s50lead_" + uuid.uuid4().hex[:8]
    assert _library_story(nt, ns) == _library_story(real, ns)


def _pre_hook(module, state_dict, prefix, *rest):
    state_dict[prefix + "bias"] = state_dict[prefix + "bias"] * 0 + 7


def _post_hook(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "extra"] = prefix


@pytest.mark.parametrize("which", ["pre", "post", "both"])
def test_modules_with_state_dict_hooks_pickle_as_in_torch(which):
    """torch.save(model) of a module carrying state_dict hooks (the hooks must pickle: numtorch
    wrapped them in closures, 'Can't pickle local object')."""
    import io

    def story(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 2)
        if which in ("pre", "both"):
            m.register_load_state_dict_pre_hook(_pre_hook)
        if which in ("post", "both"):
            m.register_state_dict_post_hook(_post_hook)
        buf = io.BytesIO()
        lib.save(m, buf)
        buf.seek(0)
        back = lib.load(buf, weights_only=False)
        back.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.zeros(2)}, strict=False)
        sd = back.state_dict()
        return sorted(sd), back.bias.tolist(), len(back._load_state_dict_pre_hooks)

    assert story(nt) == story(real)
