import torch


def show(f):
    try:
        out = f()
        print(out, out.dtype if isinstance(out, torch.Tensor) else '')
    except Exception as e:
        print(type(e).__name__, str(e).split('\n')[0][:300])
#%% type strings and conversions
x = torch.tensor([1.5, -2.5])
for f in (lambda: x.type(), lambda: x.type(torch.int32), lambda: x.type('torch.DoubleTensor'), lambda: x.type('torch.cuda.FloatTensor'), lambda: x.type('float'), lambda: x.long().type(), lambda: x.to(torch.int8), lambda: x.to('cpu', torch.float16), lambda: x.to(torch.zeros(1, dtype=torch.int64)), lambda: x.to(dtype=torch.bool), lambda: x.to('meta').shape, lambda: x.to(1), lambda: x.type_as(torch.tensor([1])), lambda: x.new_tensor([1, 2]), lambda: x.new_full((2,), 3), lambda: x.new_ones(2, dtype=torch.int64), lambda: x.new_empty((0,)).shape, lambda: torch.tensor([-1.5, 2.5]).to(torch.uint8)):
    show(f)
#%% item and python conversions
for f in (lambda: torch.tensor([1.5]).item(), lambda: torch.tensor([1, 2]).item(), lambda: torch.tensor([]).item(), lambda: int(torch.tensor([2.7])), lambda: float(torch.tensor([1, 2])), lambda: bool(torch.tensor([0.])), lambda: bool(torch.tensor([1, 2])), lambda: bool(torch.tensor([])), lambda: complex(torch.tensor(1 + 2j)), lambda: int(torch.tensor(1 + 2j)), lambda: [1, 2, 3][torch.tensor(1)], lambda: [1, 2, 3][torch.tensor(1.)], lambda: range(torch.tensor(3)), lambda: len(torch.tensor(3)), lambda: torch.tensor([1, 2]).tolist(), lambda: torch.tensor(3.5).tolist(), lambda: torch.tensor([True]).tolist(), lambda: '%.2f' % torch.tensor(1.234), lambda: f'{torch.tensor(1.234):.1f}', lambda: f'{torch.tensor([1.234]):.1f}', lambda: round(torch.tensor(1.26), 1), lambda: hash(torch.tensor(1)) is not None, lambda: torch.tensor(3) in torch.tensor([1, 3]), lambda: 2.5 in torch.tensor([1, 3]), lambda: divmod(torch.tensor(7), 2), lambda: abs(torch.tensor(-3)), lambda: torch.tensor([1, 2]) == None, lambda: torch.tensor(2) ** torch.tensor(3.)):
    show(f)
