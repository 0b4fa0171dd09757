import torch


def run(cases):
    for k, f in enumerate(cases):
        try:
            print(k, f())
        except Exception as e:
            print(k, type(e).__name__, str(e).split("\n")[0])
#%% autograd.grad and backward arguments 0
x = torch.tensor([1., 2.], requires_grad=True)
run([
   lambda: torch.autograd.grad((x ** 2).sum(), x, create_graph=True)[0].requires_grad, lambda: torch.autograd.grad((x * 2).sum(), [x, x]),
   lambda: torch.autograd.grad(x.sum(), x, grad_outputs=torch.tensor(2.)), lambda: torch.autograd.grad(x.sum(), x, grad_outputs=torch.ones(2)),
   lambda: torch.autograd.grad([x.sum(), (x * 2).sum()], x), lambda: torch.autograd.grad(x.sum(), torch.ones(2, requires_grad=True)),
   lambda: torch.autograd.grad(x.sum(), torch.ones(2, requires_grad=True), allow_unused=True), lambda: torch.autograd.grad(x.sum(), torch.ones(2, requires_grad=True), materialize_grads=True),
])
#%% autograd.grad and backward arguments 1
x = torch.tensor([1., 2.], requires_grad=True)
run([
   lambda: torch.autograd.grad(x, x), lambda: torch.autograd.grad(x * 2, x), lambda: torch.autograd.grad(x * 2, x, torch.ones(3)),
   lambda: torch.autograd.grad(x.sum(), x, is_grads_batched=True, grad_outputs=torch.ones(3)), lambda: torch.autograd.backward([x.sum()], inputs=[x]) or x.grad,
   lambda: (x * 3).sum().backward(inputs=x) or x.grad, lambda: (x * 3).sum().backward(inputs=[]) , lambda: x.sum().backward(gradient=torch.tensor([1., 1.])),
   lambda: (x.detach() * 2).sum().backward(), lambda: torch.autograd.grad(torch.tensor(1.), x), lambda: x.grad.zero_() if x.grad is not None else None,
])
#%% autograd.grad and backward arguments 2
x = torch.tensor([1., 2.], requires_grad=True)
run([
   lambda: (x * 2).sum().backward(retain_graph=False) or x.grad, lambda: torch.autograd.grad(x.sum(), x, retain_graph=True, create_graph=False)[0].requires_grad,
   lambda: torch.autograd.functional.jacobian(lambda a: a ** 2, x), lambda: torch.autograd.functional.hessian(lambda a: (a ** 3).sum(), x),
   lambda: torch.autograd.functional.vjp(lambda a: a * 2, x, torch.ones(2)), lambda: torch.autograd.functional.jvp(lambda a: a * 2, x, torch.ones(2)),
   lambda: torch.autograd.functional.jacobian(lambda a, b: a * b, (x, x)), lambda: torch.autograd.functional.jacobian(lambda a: a.sum(), x, vectorize=True),
])
