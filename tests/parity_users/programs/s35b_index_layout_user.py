import torch


def show(name, t):
    print(name, tuple(t.shape), t.stride(), t.is_contiguous(), t.flatten()[:6].tolist())
    try:
        t.view(-1)
        print('view ok')
    except RuntimeError as e:
        print(type(e).__name__, str(e)[:80])
#%% advanced index of a transposed tensor keeps its layout
x = torch.arange(120.).reshape(2, 3, 4, 5)
xt = x.transpose(0, 2)
show('t_list', xt[:, [1]])
show('t_list2', xt[:, [1, 2]])
show('t_mask', xt[:, torch.tensor([True, False, True])])
show('t_last', xt[..., [0, 3]])
show('perm', x.permute(3, 1, 0, 2)[[0, 2]])
show('perm_mid', x.permute(3, 1, 0, 2)[:, :, [1, 0]])
show('cols', torch.arange(12.).reshape(3, 4).t()[:, [0, 2]])
#%% size-1 result dims get dense strides
show('a', x[:, [1]])
show('c', x[:, :, [1]])
show('d', x[:, [0], [1]])
show('f', x[:, :, :, [2]])
show('g', x[:, [[1]]])
show('i', x[0, :, [1]])
show('k', x[:, torch.tensor([True, False, False])])
show('m', x[None, :, [1]])
#%% values and gradient through the relaid result
w = torch.arange(24.).reshape(2, 3, 4).transpose(0, 2).requires_grad_()
y = w[:, [2, 0]] * torch.arange(8.).reshape(4, 2, 1)
print(y.stride(), y.tolist())
y.sum().backward()
print(w.grad.tolist())
