import torch
#%% arange linspace
print(torch.arange(0, 1, 0.1), torch.arange(0, 1, 0.1).shape, torch.arange(1, 2.5, 0.5, dtype=torch.int32), torch.arange(5, 0, -2), torch.arange(0.0, 1.0, 1/3))
print(torch.linspace(0, 1, 5), torch.linspace(0, 10, 5, dtype=torch.int64), torch.logspace(0, 2, 3), torch.logspace(0, 2, 3, base=2), torch.linspace(-1, 1, 1), torch.linspace(3, 3, 0))
#%% arange errors
for f in [lambda: torch.arange(0, 1, 0), lambda: torch.arange(1, 0, 1), lambda: torch.arange(0, float("inf")), lambda: torch.linspace(0, 1, -1), lambda: torch.arange(0, 10, dtype=torch.bool)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% full inference
print(torch.full((2,), 3).dtype, torch.full((2,), 3.0).dtype, torch.full((2,), True).dtype, torch.full((2,), 1 + 2j).dtype, torch.full((1,), 7, dtype=torch.float16))
print(torch.zeros(2, 3).new_full((2,), 5), torch.ones(2, dtype=torch.int8).new_tensor([1.5, 2.5]), torch.ones(1).new_empty((0, 3)).shape)
#%% eye tri
print(torch.eye(2, 3), torch.eye(3, dtype=torch.bool), torch.tril_indices(3, 3), torch.triu_indices(3, 4, offset=1), torch.tril(torch.ones(3, 3), diagonal=-1))
#%% like functions
x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
for f in [torch.zeros_like, torch.ones_like, torch.empty_like, torch.rand_like, torch.randn_like]:
    y = f(x)
    print(f.__name__, y.dtype, y.shape, y.requires_grad)
print(torch.full_like(x, 7, dtype=torch.int32), torch.randint_like(x, 10).dtype, torch.zeros_like(x, requires_grad=True).requires_grad)
#%% randint variants
torch.manual_seed(0)
print(torch.randint(10, (3,)), torch.randint(5, 10, (2, 2)), torch.randint(0, 2, (3,), dtype=torch.bool), torch.randint(-5, 5, (4,), dtype=torch.int8), torch.randint(3, (2,)).dtype)
print(torch.randperm(6), torch.randperm(4, dtype=torch.int32), torch.rand(2, dtype=torch.float64), torch.randn(2, 2, dtype=torch.complex64))
#%% randint errors
for f in [lambda: torch.randint(5, 2, (3,)), lambda: torch.randint(0, 300, (2,), dtype=torch.uint8), lambda: torch.rand(2, dtype=torch.int64), lambda: torch.randn(2, dtype=torch.int32), lambda: torch.randperm(-1)]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
#%% finfo iinfo
print(torch.finfo(torch.float32), torch.finfo(torch.bfloat16).eps, torch.finfo(torch.float16).max, torch.finfo().tiny, torch.iinfo(torch.int16), torch.iinfo(torch.uint8).max)
print(torch.finfo(torch.float64).resolution, torch.finfo(torch.float32).smallest_normal, torch.finfo(torch.float32).dtype, torch.iinfo(torch.int32).bits)
#%% conversions
x = torch.tensor([1.7, -2.5, 300.0, float("nan")])
print(x.to(torch.int32), x.to(torch.uint8), x.to(torch.bool), x.half(), x.bfloat16(), x.long(), x.to(torch.int8))
print(torch.tensor([True, False]).float(), torch.tensor([1, 2]).double(), torch.tensor([3 + 4j]).real, torch.tensor([1.5]).to(torch.complex64))
print(torch.tensor([1.0]).type(), torch.tensor([1]).type(torch.float32), torch.tensor([1.0]).type("torch.DoubleTensor"), torch.tensor([1]).type_as(torch.tensor([1.0], dtype=torch.float16)))
#%% complex ops
z = torch.tensor([1 + 2j, -3 - 1j])
print(z.abs(), z.angle(), z.conj(), torch.view_as_real(z), z * 1j, z.real.dtype, torch.polar(torch.tensor([2.0]), torch.tensor([0.5])), torch.complex(torch.tensor([1.0]), torch.tensor([2.0])))
try:
    z < 0
except Exception as e:
    print(type(e).__name__, e)
try:
    z.max()
except Exception as e:
    print(type(e).__name__, e)
#%% dtype properties
for dt in [torch.float32, torch.int64, torch.bool, torch.complex128, torch.bfloat16, torch.uint8]:
    print(dt, dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize, dt.to_complex() if dt.is_floating_point else None, torch.empty(0, dtype=dt).element_size())
print(torch.float32.to_real(), torch.complex64.to_real(), torch.promote_types(torch.int8, torch.uint8), torch.result_type(torch.tensor([1]), 1.5), torch.can_cast(torch.float32, torch.int32))
