"""Result strides of ops on non-contiguous and channels-last inputs, against torch: torch
allocates reductions, scans, gather, masked_fill, renorm, logsigmoid and one_hot row-major
whatever the input's layout, and batch/group norm, roll and interpolation in the input's
memory format. What matters to a user is that ``.view`` after such an op works (or fails)
as it does in torch."""
import pytest
import torch

import numtorch

F_CASES = {
    "sum0": lambda L, x: x.sum(0), "sum0k": lambda L, x: x.sum(0, keepdim=True),
    "mean0": lambda L, x: x.mean(0), "amax0": lambda L, x: x.amax(0), "amin0": lambda L, x: x.amin(0),
    "prod0": lambda L, x: x.prod(0), "std0": lambda L, x: x.std(0), "var0": lambda L, x: x.var(0),
    "logsumexp0": lambda L, x: x.logsumexp(0), "nansum0": lambda L, x: x.nansum(0),
    "nanmean0": lambda L, x: x.nanmean(0), "median0": lambda L, x: x.median(0).values,
    "max0": lambda L, x: x.max(0).values, "count_nonzero0": lambda L, x: x.count_nonzero(0),
    "norm0": lambda L, x: x.norm(dim=0), "all0": lambda L, x: (x > 0).all(0), "any0": lambda L, x: (x > 0).any(0),
    "cumsum1": lambda L, x: x.cumsum(1), "cumprod2": lambda L, x: x.cumprod(2),
    "cummax1": lambda L, x: x.cummax(1).values, "logcumsumexp0": lambda L, x: x.logcumsumexp(0),
    "roll1": lambda L, x: x.roll(1, 1), "gather1": lambda L, x: x.gather(1, L.zeros_like(x, dtype=L.long)),
    "renorm1": lambda L, x: x.renorm(2, 1, 1.0), "cosine1": lambda L, x: L.nn.functional.cosine_similarity(x, x, 1),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0), "logsigmoid": lambda L, x: L.nn.functional.logsigmoid(x),
    "batch_norm": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "group_norm": lambda L, x: L.nn.functional.group_norm(x, 1),
    "interp_linear": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2, mode="linear"),
    "one_hot": lambda L, x: L.nn.functional.one_hot((x > 0).long().permute(1, 0, 2)),
    "relu": lambda L, x: L.relu(x), "exp": lambda L, x: x.exp(), "clone": lambda L, x: x.clone(),
    "where": lambda L, x: L.where(x > 0, x, 0.0),
}
CL_CASES = {
    "sum1": lambda L, x: x.sum(1), "mean23k": lambda L, x: x.mean((2, 3), keepdim=True),
    "cumsum1": lambda L, x: x.cumsum(1), "gather1": lambda L, x: x.gather(1, L.zeros_like(x, dtype=L.long)),
    "roll1": lambda L, x: x.roll(1, 1), "batch_norm": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "group_norm": lambda L, x: L.nn.functional.group_norm(x, 1), "logsigmoid": lambda L, x: L.nn.functional.logsigmoid(x),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0), "renorm": lambda L, x: x.renorm(2, 1, 1.0),
    "bilinear": lambda L, x: L.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
    "relu": lambda L, x: L.relu(x),
}


def _permuted(L):
    g = L.Generator().manual_seed(0)
    return L.randn(2, 4, 3, generator=g).permute(0, 2, 1)


def _channels_last(L):
    g = L.Generator().manual_seed(0)
    return L.randn(2, 3, 4, 5, generator=g).contiguous(memory_format=L.channels_last)


def _layout(y):
    return tuple(y.stride()), y.is_contiguous()


@pytest.mark.parametrize("name", sorted(F_CASES))
def test_permuted_input_result_layout(name):
    f = F_CASES[name]
    a, b = f(torch, _permuted(torch)), f(numtorch, _permuted(numtorch))
    assert _layout(b) == _layout(a)
    if a.is_contiguous():  # the user's next line works in both
        assert b.view(-1).cpu().tolist() == pytest.approx(a.view(-1).tolist(), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("name", sorted(CL_CASES))
def test_channels_last_input_result_layout(name):
    f = CL_CASES[name]
    a, b = f(torch, _channels_last(torch)), f(numtorch, _channels_last(numtorch))
    assert _layout(b) == _layout(a)
    if a.dim() == 4:
        assert b.is_contiguous(memory_format=numtorch.channels_last) == \
            a.is_contiguous(memory_format=torch.channels_last)


def test_reduction_of_permuted_then_view_like_torch():
    x = numtorch.arange(24.0).reshape(2, 4, 3).permute(0, 2, 1)
    t = torch.arange(24.0).reshape(2, 4, 3).permute(0, 2, 1)
    assert x.sum(0).view(-1).tolist() == t.sum(0).view(-1).tolist()
    assert x.cumsum(0).view(-1).tolist() == t.cumsum(0).view(-1).tolist()
    with pytest.raises(RuntimeError):
        t.exp().view(-1)
    with pytest.raises(RuntimeError):
        x.exp().view(-1)


def test_layout_fix_keeps_gradients():
    x = _permuted(numtorch).requires_grad_()
    t = _permuted(torch).requires_grad_()
    g = [[float(i % 5) - 2 for i in range(4)] for _ in range(3)]
    (x.cumsum(1).sum(0) * numtorch.tensor(g)).sum().backward()
    (t.cumsum(1).sum(0) * torch.tensor(g)).sum().backward()
    assert x.grad.cpu().flatten().tolist() == pytest.approx(t.grad.flatten().tolist(), rel=1e-6)
    assert _layout(x.grad) == _layout(t.grad)
