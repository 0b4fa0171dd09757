"""Session 50 (programs): what real programs call that numtorch lacked or did differently,
each checked against torch at test time.

- torch.utils.module_tracker.ModuleTracker (missing): the module names in ``parents`` and
  ``is_bw`` seen from inside forward and backward, as torch gives them.
"""

import torch

import numtorch


def _tracker_log(lib):
    """Run a nested model under a ModuleTracker and record, from inside a custom Function,
    the modules it says are running (forward and backward) and ``is_bw``."""
    from importlib import import_module

    ModuleTracker = import_module(lib.__name__ + ".utils.module_tracker").ModuleTracker
    nn = lib.nn
    log = []
    box = {}

    class ProbeFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            log.append(("f", sorted(box["t"].parents), box["t"].is_bw))
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            log.append(("b", sorted(box["t"].parents), box["t"].is_bw))
            return g

    class Probe(nn.Module):
        def forward(self, x):
            return ProbeFn.apply(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.p = Probe()

        def forward(self, x):
            return self.p(self.lin(x)).relu()

    lib.manual_seed(0)
    net = nn.Sequential(Block(), nn.ModuleDict({"a": Block()}), Probe())
    x = lib.randn(2, 4)
    with ModuleTracker() as t:
        box["t"] = t
        y = net[2](net[1]["a"](net[0](x)))
        log.append(("after forward", sorted(t.parents), t.is_bw))
        y.sum().backward()
        log.append(("after backward", sorted(t.parents), t.is_bw))
        # an input that needs grad: the outer module leaves only when its input's grad is done
        y = net[0](x)
        y.sum().backward()
    log.append(("exit", sorted(t.parents), t.is_bw))
    with ModuleTracker() as t2:
        box["t"] = t2
        outer = nn.Sequential(Probe(), nn.Sequential(Probe()))
        outer(lib.ones(1, requires_grad=True)).sum().backward()
    return log


def test_module_tracker_parents_forward_and_backward():
    assert _tracker_log(numtorch) == _tracker_log(torch)
