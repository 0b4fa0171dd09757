import torch
#%% format specs on tensors
cases = [lambda: f"{torch.tensor(2.5):.2f}", lambda: f"{torch.tensor([2.5]):.2f}", lambda: f"{torch.tensor([2.5, 1]):.2f}", lambda: f"{torch.tensor(3):04d}",
 lambda: f"{torch.tensor(3):.1f}", lambda: f"{torch.tensor(True)}", lambda: f"{torch.tensor(2.5):>10}", lambda: f"{torch.tensor(1e-5):e}", lambda: f"{torch.tensor(0.25):%}",
 lambda: "{:.3}".format(torch.tensor(3.14159)), lambda: "%s" % torch.tensor([1]), lambda: "%.2f" % torch.tensor(1.234), lambda: "%d" % torch.tensor(7), lambda: "%d" % torch.tensor(7.9),
 lambda: f"{torch.tensor(2.5, dtype=torch.float16):.3f}", lambda: f"{torch.tensor(1+2j):.1f}", lambda: f"{torch.tensor([[1.]]):.1f}", lambda: format(torch.tensor(5), "x"),
 lambda: f"{torch.tensor(2.5, requires_grad=True):.1f}", lambda: f"{torch.nn.Parameter(torch.tensor(1.5)):.2f}", lambda: f"{torch.tensor([]):.1f}", lambda: str(torch.tensor(2.5).item()),
 lambda: f"{torch.Size([2, 3])}", lambda: f"{torch.float32}", lambda: f"{torch.device('cpu')}", lambda: f"{torch.tensor(2.5)!r}", lambda: "%r" % torch.tensor(1.5), lambda: f"{torch.tensor(1.5, dtype=torch.bfloat16):.4f}"]
for k, f in enumerate(cases):
    try: print(k, f())
    except Exception as e: print(k, type(e).__name__, str(e).split("\n")[0])
#%% format of parameters, buffers, subclasses, meta
p = torch.nn.Parameter(torch.tensor(1.5))
class T(torch.Tensor): pass
for v in [p, torch.nn.Buffer(torch.tensor(1.5)), torch.tensor(1.5).as_subclass(T), torch.tensor(1.5, device="meta"), torch.tensor(2.5), torch.tensor([1.])]:
  for s in ['', '.2f']:
    try: print(repr(format(v, s)))
    except Exception as e: print(type(e).__name__, e)
