import torch
#%% random values at every scale and float dtype
torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
for scale in [1e-12, 1e-6, 1e-4, 1e-2, 1, 10, 999, 1e4, 1e5, 1e8, 1e16]:
    for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
        x = (torch.randn(3, 3, generator=g) * scale).to(dt)
        if dt in (torch.float16, torch.bfloat16) and scale > 1e4: continue
        print(x)
        print(x[0].round() if scale >= 1 else x[0])
        print(torch.cat([x.flatten()[:2].float(), torch.tensor([float("nan"), float("inf")])]))
#%% value lists
for v in [[0.0, -0.0], [1e-320, 1.0], [5e-324], [1.0, 1e-20], [123.0, 0.001], [1e15, 1], [-1e-5, 1e5], [0.5, 100.25, 3.125]]:
    print(torch.tensor(v), torch.tensor(v, dtype=torch.float64))
print(torch.tensor([1 + 1j, 1e-8 + 1e8j]), torch.tensor([[0.5j]]), torch.tensor([float("nan") * 1j]))
print(torch.arange(30).reshape(5, 6) * 1000000)
print(torch.tensor([2 ** 62, -3]))
print(torch.tensor([[[1.5]]]).expand(2, 2, 2))

