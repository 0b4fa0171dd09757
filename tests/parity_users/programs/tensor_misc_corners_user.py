import torch
#%% legacy constructors
print(torch.Tensor(2, 0).shape, torch.Tensor([1, 2]), torch.FloatTensor([[1, 2]]), torch.LongTensor(3).shape, torch.IntTensor([1.7, -1.7]), torch.BoolTensor([0, 2]))
print(torch.Tensor().shape, torch.DoubleTensor(2).dtype, torch.ByteTensor([255, 1]), torch.Tensor(torch.Size([2, 1])).shape)
for f in (lambda: torch.Tensor([1], dtype=torch.int64), lambda: torch.LongTensor([1.5], device="cpu").dtype, lambda: torch.FloatTensor("ab")):
    try:
        print(f())
    except (TypeError, RuntimeError) as e:
        # the class only for torch's argument-parser listing of every signature
        print(type(e).__name__, str(e).split(" - ")[0])
#%% type strings and conversions
x = torch.arange(3)
print(x.type(), x.type(torch.float64).type(), x.type("torch.IntTensor").dtype, x.float().type(), torch.ones(1, dtype=torch.bool).type(), x.is_floating_point(), x.is_signed())
print(x.to(torch.float16).type(), torch.zeros(1, dtype=torch.complex64).type(), torch.zeros(1, dtype=torch.bfloat16).type(), torch.zeros(1, dtype=torch.uint8).type())
#%% new_* methods
x = torch.ones(2, dtype=torch.float64)
print(x.new_tensor([1, 2]), x.new_zeros(3), x.new_ones((1, 2), dtype=torch.int32), x.new_full((2,), 7), x.new_empty(0).dtype, x.new_tensor(5).dtype, x.new(2).shape, x.new([1, 2]))
#%% as_strided and strides
x = torch.arange(10.0)
y = x.as_strided((3, 3), (2, 1))
print(y, y.stride(), y.is_contiguous(), x.as_strided((2, 2), (1, 2), 3))
t = torch.arange(24).view(2, 3, 4)
print(t.stride(), t.transpose(0, 2).stride(), t.permute(2, 0, 1).contiguous().stride(), t[:, ::2].stride(), t.unsqueeze(1).stride(), t.expand(3, 2, 3, 4).stride(), t.storage_offset(), t[1, 1:].storage_offset())
#%% unfold roll tile repeat
x = torch.arange(7)
print(x.unfold(0, 3, 2), x.roll(2), x.view(7, 1).roll(-1, 0).flatten(), torch.roll(torch.arange(6).view(2, 3), (1, 1), (0, 1)), x[:3].repeat(2, 2), x[:2].tile((3,)), x[:3].repeat_interleave(2), torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([3, 1])))
#%% chunk split tensor_split
x = torch.arange(10)
print(x.chunk(3), x.chunk(4), x.split(4), x.split([2, 3, 5]), x.tensor_split(3), x.tensor_split([1, 6]), torch.arange(5).chunk(6))
try:
    x.split([2, 3])
except RuntimeError as e:
    print(type(e).__name__, e)
#%% squeeze unsqueeze corners
x = torch.zeros(1, 3, 1, 2)
print(x.squeeze().shape, x.squeeze(0).shape, x.squeeze(1).shape, x.squeeze((0, 2)).shape, x.unsqueeze(-1).shape, x.unsqueeze(-5).shape, torch.zeros(()).unsqueeze(0).shape, torch.zeros(()).squeeze().shape)
try:
    x.unsqueeze(5)
except IndexError as e:
    print(type(e).__name__, e)
#%% view vs reshape vs contiguous
x = torch.arange(6).view(2, 3).t()
print(x.reshape(6), x.contiguous().view(6), x.view(3, 2).shape, x.flatten(), x.reshape(-1, 1).shape, x.view(torch.int32).shape if False else None)
try:
    x.view(6)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    x.reshape(4, -1)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.arange(6).view(-1, -1)
except RuntimeError as e:
    print(type(e).__name__, e)
#%% view dtype reinterpretation
x = torch.tensor([1.0, -2.0])
print(x.view(torch.int32), x.view(torch.uint8).shape, torch.tensor([1, 2], dtype=torch.int16).view(torch.int8), x.view(torch.float16).shape)
#%% movedim swapaxes flatten unflatten
x = torch.zeros(2, 3, 4, 5)
print(x.movedim(0, -1).shape, x.movedim((0, 1), (2, 3)).shape, x.swapaxes(1, 3).shape, x.flatten(1, 2).shape, x.flatten(-2).shape, x.unflatten(2, (2, 2)).shape, x.unflatten(-1, (5, -1)).shape, x.mT.shape, x.permute(3, 2, 1, 0).shape)
#%% clone memory format and contiguous checks
x = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
print(x.is_contiguous(), x.is_contiguous(memory_format=torch.channels_last), x.stride(), x.clone().stride(), x.clone(memory_format=torch.contiguous_format).stride(), (x + 1).stride(), x.contiguous().stride(), torch.empty_like(x).stride())
#%% fill diagonal tril triu
x = torch.zeros(3, 4)
print(x.fill_diagonal_(5), torch.ones(3, 3).tril(-1), torch.ones(2, 4).triu(1), torch.tril_indices(3, 3), torch.triu_indices(3, 4, 1), torch.diag(torch.tensor([1, 2])), torch.diag(torch.arange(9).view(3, 3), 1), torch.diagonal(torch.arange(8).view(2, 2, 2), 0, 1, 2), torch.diag_embed(torch.tensor([[1, 2]])))
#%% cat stack edge cases
a = torch.ones(2, 3)
print(torch.cat([a, torch.empty(0)]).shape, torch.cat([a, a], -1).shape, torch.stack([a, a], 2).shape, torch.hstack([torch.ones(2), torch.zeros(3)]), torch.vstack([torch.ones(2), torch.zeros(2)]).shape, torch.dstack([a, a]).shape, torch.column_stack([torch.ones(2), torch.zeros(2)]), torch.row_stack([torch.ones(2)]).shape)
print(torch.cat([torch.ones(1, dtype=torch.int32), torch.ones(1, dtype=torch.float16)]).dtype, torch.cat((a,)).shape, torch.cat([a, a.t().t()], dim=0).shape)
for f in (lambda: torch.cat([a, torch.ones(2, 2)]), lambda: torch.stack([a, torch.ones(2, 2)]), lambda: torch.cat([]), lambda: torch.cat([a, a], 2), lambda: torch.cat(a)):
    try:
        print(f())
    except (RuntimeError, IndexError, TypeError, ValueError) as e:
        print(type(e).__name__, e)
#%% where with one arg broadcast and masked ops
x = torch.arange(6.0).view(2, 3)
print(torch.where(x > 2, x, torch.tensor(0.0)), torch.where(x > 2, 1.0, x), x.masked_fill(x > 3, float("-inf")).softmax(-1), x.masked_scatter(x > 3, torch.tensor([10.0, 20.0])))
#%% tolist item numpy conversions
x = torch.tensor([[1.5, 2.25]], dtype=torch.float16)
print(x.tolist(), torch.tensor(3.7).item(), torch.tensor([True]).item(), torch.tensor(2, dtype=torch.uint8).item(), type(torch.tensor(1.5, dtype=torch.bfloat16).item()).__name__, torch.tensor([1 + 2j]).tolist())
print(x.numpy().dtype, torch.tensor([1, 2]).numpy().dtype, torch.tensor(2.0).numpy().shape, int(torch.tensor([7])), float(torch.tensor([[2.5]])), bool(torch.tensor([0.0])), complex(torch.tensor(1.0)))
for f in (lambda: torch.tensor([1, 2]).item(), lambda: int(torch.tensor([1, 2])), lambda: bool(torch.tensor([1, 2])), lambda: torch.ones(2, requires_grad=True).numpy()):
    try:
        print(f())
    except (RuntimeError, ValueError, TypeError) as e:
        print(type(e).__name__, e)
#%% len iteration and contains
x = torch.arange(6).view(3, 2)
print(len(x), [r.tolist() for r in x], 3 in x, 10 in x, torch.tensor([0, 1]) in x, list(torch.arange(3)), x.size(), x.size(-1), x.numel(), x.dim(), x.nelement(), x.ndimension())
try:
    len(torch.tensor(1))
except TypeError as e:
    print(type(e).__name__, e)
#%% equal allclose isclose
a = torch.tensor([1.0, float("nan"), 3.0])
print(torch.equal(a, a), torch.allclose(a, a), torch.allclose(a, a, equal_nan=True), torch.isclose(a, a + 1e-9), torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])), torch.isclose(torch.tensor([1.0]), torch.tensor([1.1]), atol=0.2))
print(torch.equal(torch.ones(2), torch.ones(3)), torch.allclose(torch.ones(1), torch.ones(1, dtype=torch.float64)) if False else None, torch.eq(torch.ones(2), torch.ones(2)).all().item())
#%% inplace ops return self and chaining
x = torch.zeros(3)
r = x.add_(1).mul_(2).clamp_(max=1.5).sub_(torch.tensor([0.0, 1.0, 2.0]))
print(r is x, x, x.abs_(), x.neg_().exp_().log_(), x.fill_(2).pow_(3), x.zero_(), x.uniform_(0, 0).sum())
#%% arange linspace logspace precision
print(torch.arange(0, 1, 0.1), torch.arange(0, 1, 0.1).shape, torch.arange(1, 4, dtype=torch.float32), torch.arange(-1.5, 1.5), torch.linspace(0, 1, 5), torch.linspace(-1, 1, 1), torch.logspace(0, 2, 3), torch.logspace(0, 3, 4, base=2))
print(torch.arange(0.0, 0.3, 0.1).tolist(), torch.linspace(0, 1, 7, dtype=torch.float64).tolist(), torch.arange(10, 0, -3))
#%% full zeros ones with sizes
print(torch.zeros((2,)), torch.ones([1, 2]), torch.full((2,), True), torch.full((1,), 3).dtype, torch.full((1,), 3.0).dtype, torch.zeros(torch.Size([2])), torch.empty(2, 3).shape, torch.zeros(2, 3, dtype=torch.int8).dtype, torch.ones(size=(2,)))
for f in (lambda: torch.zeros(-1), lambda: torch.ones(2, 2.5), lambda: torch.full((2,), [1, 2])):
    try:
        print(f())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
#%% eye and like functions
print(torch.eye(2, 3), torch.eye(3, dtype=torch.int64)[0], torch.zeros_like(torch.ones(2, dtype=torch.int32)), torch.ones_like(torch.zeros(2), dtype=torch.bool), torch.full_like(torch.zeros(2), 1.5), torch.full_like(torch.zeros(2, dtype=torch.long), 2.7), torch.rand_like(torch.zeros(2)).shape, torch.randint_like(torch.zeros(2), 5).dtype)
