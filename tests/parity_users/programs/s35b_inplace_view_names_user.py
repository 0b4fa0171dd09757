import torch


def show(f):
    y = torch.arange(4.).reshape(2, 1, 2).requires_grad_() * 1
    try:
        out = f(y)
        print(out, out.shape, out.stride())
        out.backward(torch.arange(float(out.numel())).reshape(out.shape))
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:200])
#%% in-place view ops print their own node names
show(lambda y: y.transpose_(0, 2))
show(lambda y: y.swapdims_(0, 1))
show(lambda y: y.swapaxes_(1, 2))
show(lambda y: y.squeeze_())
show(lambda y: y.squeeze_(1))
show(lambda y: y.squeeze_((1,)))
show(lambda y: y.unsqueeze_(0))
show(lambda y: y[:, 0].t_())
show(lambda y: y.view(4).t_())
show(lambda y: y.as_strided_((2,), (1,)))
show(lambda y: y.t_())
#%% gradients flow through them
x = torch.arange(6.).reshape(2, 3).requires_grad_()
z = x * 2
z.t_()
z.unsqueeze_(1)
print(z.grad_fn)  if False else print(z.grad_fn.name(), z.grad_fn.next_functions[0][0].name())
(z * torch.arange(6.).reshape(3, 1, 2)).sum().backward()
print(x.grad)
