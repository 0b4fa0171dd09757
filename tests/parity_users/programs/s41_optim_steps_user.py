import torch
#%% a few optimizer steps on a quadratic, printed values
for cls, kw in ((torch.optim.SGD, dict(lr=0.1)), (torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.01)), (torch.optim.Adam, dict(lr=0.1)),
                (torch.optim.AdamW, dict(lr=0.1)), (torch.optim.RMSprop, dict(lr=0.01)), (torch.optim.Adagrad, dict(lr=0.5)), (torch.optim.Adadelta, dict()),
                (torch.optim.Adamax, dict(lr=0.1)), (torch.optim.NAdam, dict(lr=0.1)), (torch.optim.RAdam, dict(lr=0.1))):
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = cls([p], **kw)
    for _ in range(3):
        opt.zero_grad()
        (p ** 2).sum().backward()
        opt.step()
    print(cls.__name__, [round(v, 5) for v in p.tolist()], sorted(opt.state[p].keys()))
#%% zero_grad set_to_none and step without grad
p = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([p], lr=1.0)
opt.step()
print(p, p.grad)
(p * 2).sum().backward()
opt.zero_grad(set_to_none=False)
print(p.grad)
opt.zero_grad()
print(p.grad)
