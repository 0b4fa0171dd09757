"""``conj()`` of a complex tensor: torch returns a lazily conjugated view (``is_conj()`` True,
sharing the base's memory); numtorch computes the conjugate (a new tensor, as
``conj_physical()``) because every op reads a tensor's NumPy array directly and NumPy has no
conjugated view. The values agree with torch's resolved ones wherever they are read; the
lazy-bit queries answer consistently with numtorch's model (no tensor carries a bit, so
``resolve_*`` return their input). Where torch agrees (non-conjugated tensors), ``same``
compares; the rest pins numtorch's documented model against torch's resolved values."""

import pytest
import torch

import numtorch
from tests.oracle import same


def _z(t):
    return t.tensor([[1 + 2j, 3 - 4j], [-0.5j, 2.0 + 0j]])


def _resolved(x):
    return x.resolve_conj().resolve_neg() if isinstance(x, torch.Tensor) else x


@pytest.mark.parametrize("read", [
    ("conj", lambda z: z.conj()),
    ("conj-of-conj", lambda z: z.conj().conj()),
    ("imag-of-conj", lambda z: z.conj().imag),
    ("real-of-conj", lambda z: z.conj().real),
    ("mH", lambda z: z.mH),
    ("adjoint", lambda z: z.adjoint()),
    ("conj-then-matmul", lambda z: z.conj() @ z),
    ("conj-sum", lambda z: z.conj().sum(0)),
    ("conj-clone", lambda z: z.conj().clone()),
    ("conj_physical", lambda z: z.conj_physical()),
    ("conj-slice", lambda z: z.conj()[:, 1]),
    ("neg-of-imag-of-conj", lambda z: -z.conj().imag),
])
def test_values_read_through_conj_match_torch_resolved(read):
    got = read[1](_z(numtorch))
    want = _resolved(read[1](_z(torch)))
    assert got.dtype.__repr__().replace("numtorch", "torch") == repr(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.detach().resolve_conj().numpy().tolist() == want.detach().numpy().tolist()


def _conj_is_self(t, r):
    return r.conj() is r, t.conj(r) is r, r.conj_physical() is r


@pytest.mark.parametrize("q", [
    ("is_conj", lambda t, x: (x.is_conj(), t.is_conj(x))),
    ("is_neg", lambda t, x: (x.is_neg(), t.is_neg(x))),
    ("resolve_conj-is-self", lambda t, x: (x.resolve_conj() is x, t.resolve_conj(x) is x)),
    ("resolve_neg-is-self", lambda t, x: (x.resolve_neg() is x, t.resolve_neg(x) is x)),
    ("real-conj-is-self", lambda t, x: _conj_is_self(t, x.real if x.is_complex() else x)),
    ("conj_physical-not-conj", lambda t, x: x.conj_physical().is_conj()),
    ("conj_physical_", lambda t, x: x.clone().conj_physical_()),
    ("type-error", lambda t, x: t.is_conj([1])),
])
@pytest.mark.parametrize("make", [_z, lambda t: t.tensor([1.0, -2.0]),
                                  lambda t: t.tensor([1, 2])], ids=["complex", "real", "int"])
def test_queries_on_tensors_without_a_lazy_bit_match_torch(make, q):
    same(lambda t: q[1](t, make(t)))


def test_gradients_through_conj_match_torch():
    def f(t):
        z = _z(t).requires_grad_()
        w = t.tensor([[0.5 - 1j, 2j], [1.0 + 0j, -1 + 1j]])
        y = (z.conj() * w).sum() + (z.conj_physical() * w.conj()).sum()
        (g,) = t.autograd.grad(y.real, z)
        return z.conj().grad_fn.name(), g

    same(f)


def test_numtorch_conj_is_a_new_tensor_not_a_view():
    """The documented difference: numtorch's conj does not share memory with its input, so
    writes on either side stay there; it reports torch's conjugate bit all the same (and
    resolve_conj gives a clone without it)."""
    z = _z(numtorch)
    c = z.conj()
    assert c.is_conj() and numtorch.is_conj(c)
    r = c.resolve_conj()
    assert r is not c and not r.is_conj() and c.resolve_neg() is c
    assert not c._is_view() and c._base is None
    z.mul_(2)
    assert c.tolist() == _z(numtorch).conj().tolist()
    c[0, 0] = 5 + 5j
    assert z[0, 0].item() == 2 + 4j
    assert c.tolist()[0][0] == 5 + 5j
    if c.device.type == "cpu":
        with pytest.raises(RuntimeError, match="conjugate bit set"):
            c.numpy()  # torch's refusal: resolve_conj() first
