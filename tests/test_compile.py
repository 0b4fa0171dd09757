"""torch.compile without a compiler: a module comes back as torch's OptimizedModule wrapper
(``_orig_mod``, prefixed state-dict keys, attributes read and written through), a function
unchanged; torch._dynamo's config/reset/disable are accepted. Compared with real torch."""

import pytest
import torch

from tests.oracle import same


@pytest.fixture(autouse=True)
def _keep_torch_validation():
    # compiling in torch (dynamo, even with backend='eager') turns off distribution argument
    # validation for the whole process; later tests compare torch's validation errors
    flag = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(flag)


def _model(t):
    class Net(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = t.nn.Linear(3, 2)
            self.scale = 5

        def forward(self, x):
            return self.fc(x) * self.scale

        def describe(self):
            return f"scale {self.scale}"

    net = Net()
    with t.no_grad():  # the same weights in both libraries
        net.fc.weight.copy_(t.linspace(-0.5, 0.5, 6).reshape(2, 3))
        net.fc.bias.fill_(0.1)
    return net


def test_module_is_wrapped_with_prefixed_state_dict():
    def run(t):
        m = _model(t)
        c = t.compile(m)
        return (type(c).__name__, c._orig_mod is m, c.fc is m.fc, list(c.state_dict()),
                [n for n, _ in c.named_modules()], len(list(c.parameters())), repr(c),
                isinstance(c, t.nn.Module), isinstance(c, t._dynamo.eval_frame.OptimizedModule))
    same(run)


def test_attributes_go_through_to_the_wrapped_module():
    def run(t):
        m = _model(t)
        c = t.compile(m)
        c.scale = 7
        out = [m.scale, "scale" in vars(c), c.describe()]
        c.eval()
        out += [m.training, c.training]
        m.train()
        out.append(c.training)
        try:
            c.missing_attribute
        except AttributeError as e:
            out.append(str(e))
        return out
    same(run)


def test_calls_and_training_through_the_wrapper():
    def run(t):
        m = _model(t)
        c = t.compile(m, backend="eager")  # torch: trace only, no code generation
        x = t.arange(6.0).reshape(2, 3) / 10
        opt = t.optim.SGD(c.parameters(), lr=0.01)
        losses = []
        for _ in range(3):
            loss = c(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(round(loss.item(), 4))
        plain = _model(t)
        plain.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in c.state_dict().items()})
        return losses, t.equal(plain(x), m(x))
    same(run)


@pytest.mark.parametrize("decorate", ["bare", "with_args"])
def test_functions_and_dynamo_knobs(decorate):
    def run(t):
        t._dynamo.config.suppress_errors = True
        t._dynamo.reset()

        def f(x):
            return x * 2 + 1
        g = t.compile(f) if decorate == "bare" else t.compile(fullgraph=True)(f)
        m = _model(t)
        return g(t.ones(2)), type(t.compile(m, disable=True)).__name__
    same(run)
