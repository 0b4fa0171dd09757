import torch
#%% norms printed at full precision
torch.manual_seed(0)
x = torch.randn(37)
print(x.norm().item(), torch.linalg.vector_norm(x).item(), x.double().norm().item(), torch.norm(x.view(1, 37), dim=1).tolist())
m = torch.randn(5, 13)
print(m.norm(dim=1).tolist(), torch.nn.functional.normalize(m, dim=1)[0].tolist()[:3], m.t().norm().item())
#%% grad norm logging as in training loops
model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3))
for p in model.parameters():
    p.grad = torch.randn_like(p) * 3
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"grad norm {total.item()}", [round(p.grad.norm().item(), 6) for p in model.parameters()])
print(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()]).item(), torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float("inf")).item())
