import torch
#%% sum/prod/mean on empty
e = torch.zeros(0, 3)
print(e.sum(), e.sum(0), e.sum(1), e.prod(0), e.mean(0), e.mean(), e.sum(0, keepdim=True).shape, e.sum(1, keepdim=True).shape)
print(torch.zeros(0).sum(), torch.zeros(0, dtype=torch.int64).sum(), torch.zeros(0).std(), torch.zeros(0).var(), torch.zeros(1).std())
#%% max/min/argmax on empty raise
for fn in (lambda: e.max(), lambda: e.max(0), lambda: e.argmax(), lambda: e.min(1), lambda: torch.zeros(0).amax(), lambda: e.median()):
    try:
        print(fn())
    except (RuntimeError, IndexError) as err:
        print(type(err).__name__, err)
print(e.max(1), e.amax(1), e.argmax(1))
#%% logsumexp/norm/any/all on empty
print(torch.logsumexp(e, 0), e.norm(), e.any(), e.all(), e.bool().any(0), e.count_nonzero(0), torch.zeros(0).cumsum(0))
print(torch.zeros(2, 0).softmax(1), torch.zeros(0, 2).softmax(0).shape, torch.zeros(0).unique(), torch.zeros(0).sort())
#%% keepdim with dims tuple and negative
t = torch.arange(24.0).reshape(2, 3, 4)
print(t.sum((0, 2)), t.sum((-1, -3), keepdim=True).shape, t.mean(-1, keepdim=True).shape, t.amax((0, 1)), t.std(1, keepdim=True).shape)
print(t.max(-2, keepdim=True).indices.shape, t.var(dim=(0, 1), unbiased=False), t.sum(dim=[]).shape)
try:
    t.sum(3)
except IndexError as e2:
    print(e2)
try:
    t.sum((0, 0))
except RuntimeError as e2:
    print(e2)
