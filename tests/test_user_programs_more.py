"""More small user programs run on numtorch and on torch (see tests/test_user_programs.py):
linear algebra, fft, distributions, special functions, random shapes, tensor attributes, views
with in-place autograd, complex autograd, integer overflow, empty and 0-d tensors, module and
data-loading errors, optimizer misuse, saved-tensor hooks, module hooks, grad modes and double
backward of common functions."""

import pytest

from tests.oracle import same
from tests.test_user_programs import _err, table

P, program = table()


@program
def linalg_basic(t):
    a = t.tensor([[4., 1], [2, 3]])
    return [t.linalg.inv(a), t.linalg.det(a), t.linalg.solve(a, t.tensor([1., 2])), t.linalg.norm(a), t.linalg.matrix_rank(a),
            t.linalg.eigvalsh(a @ a.T), t.linalg.cholesky(a @ a.T), t.inverse(a), t.det(a), t.linalg.pinv(a), t.trace(a),
            _err(lambda: t.linalg.inv(t.zeros(2, 2))), _err(lambda: t.linalg.cholesky(-t.eye(2))), _err(lambda: t.linalg.inv(t.ones(2, 3))),
            _err(lambda: t.linalg.solve(a, t.ones(3))), t.linalg.matrix_norm(a, "fro"), t.linalg.vector_norm(a, 1), t.cross(t.tensor([1., 0, 0]), t.tensor([0., 1, 0]), dim=0)]
@program
def fft_basic(t):
    x = t.arange(8.)
    return [t.fft.fft(x), t.fft.rfft(x), t.fft.irfft(t.fft.rfft(x)), t.fft.fftshift(x), t.fft.fftfreq(4), t.fft.fft2(x.reshape(2, 4)).abs()]
@program
def distributions_basic(t):
    D = t.distributions
    n = D.Normal(t.tensor([0., 1]), t.tensor([1., 2]))
    c = D.Categorical(logits=t.tensor([0., 1, 2]))
    return [n.log_prob(t.tensor([0.5, 0.5])), n.entropy(), n.mean, n.stddev, c.probs, c.log_prob(t.tensor(1)), c.entropy(),
            D.kl_divergence(n, D.Normal(t.zeros(2), t.ones(2))), D.Bernoulli(probs=0.3).log_prob(t.tensor(1.)),
            _err(lambda: D.Normal(t.tensor([0.]), t.tensor([-1.]))), n.batch_shape, n.event_shape, repr(n).replace("numtorch", "torch"),
            D.Uniform(0., 2.).log_prob(t.tensor(3.)) if False else D.Uniform(0., 2.).log_prob(t.tensor(1.))]
@program
def special_funcs(t):
    x = t.tensor([0.5, 1.0, 2.5])
    return [t.special.erf(x), t.special.expit(x), t.special.logit(x / 3), t.special.gammaln(x), t.special.digamma(x), t.special.i0(x),
            t.special.log_softmax(x, 0), t.special.xlog1py(x, x), t.special.entr(x), t.lgamma(x), t.special.bessel_j0(x), t.special.ndtr(x), t.special.sinc(x)]
@program
def random_shapes_dtypes(t):
    t.manual_seed(0)
    return [t.rand(2, 3).shape, t.randn(2, dtype=t.float64).dtype, t.randint(3, (2,)).dtype, t.randint(0, 3, (2,), dtype=t.int32).dtype,
            t.randperm(5).sort().values, t.rand_like(t.ones(2, dtype=t.float16)).dtype, t.randn_like(t.ones(2)).shape, t.bernoulli(t.zeros(3)),
            t.multinomial(t.tensor([0., 1, 0]), 2, replacement=True), t.normal(0., 1., (2,)).shape, t.empty(3).uniform_(1, 1), _err(lambda: t.randint(5, 3, (2,))),
            _err(lambda: t.multinomial(t.tensor([0., 1, 0]), 2)), _err(lambda: t.rand(2, dtype=t.int64)), t.randint(5, (0,)).shape, t.normal(t.zeros(2), 0.).tolist()]
@program
def tensor_attrs(t):
    x = t.ones(2, 3, requires_grad=True)
    return [x.is_leaf, x.grad_fn, x.device, x.dtype, x.layout, x.is_cuda, x.is_sparse, x.ndim, x.shape, x.T.shape, x.mT.shape, x.H.shape if False else x.mH.shape,
            x.itemsize, x.nbytes, x.data.requires_grad, x.names, x.is_contiguous(), x.storage_offset(), x.requires_grad, x.untyped_storage().nbytes(),
            x.is_shared(), x.is_pinned(), x.get_device(), x.output_nr if False else x._version, type(x.size()).__name__, x.size(), hash(x.dtype) == hash(t.float32)]

@program
def view_inplace_autograd(t):
    x = t.arange(6., requires_grad=True)
    y = x * 1
    v = y.view(2, 3)
    v[0, 1] = 100.
    v.mul_(2)
    y[4:].exp_()
    (y * t.arange(6.)).sum().backward()
    b = t.ones(2, 3, requires_grad=True).clone()
    b.t()[1] *= 3
    b.sum().backward()
    return [y, x.grad, v.grad_fn.name(), y.grad_fn.name(), b]
@program
def int_overflow(t):
    a = t.tensor([100, 100], dtype=t.int8)
    return [a + a, a * 3, a.sum(), a.sum().dtype, a.cumsum(0), a.prod(), t.tensor([2**62]) * 4, t.tensor([255], dtype=t.uint8) + 1, -t.tensor([-128], dtype=t.int8),
            t.tensor([2**31 - 1], dtype=t.int32) + 1, a.float().to(t.int8), t.tensor([300.]).to(t.uint8) if False else t.tensor([3.7, -3.7]).to(t.int8), t.iinfo(t.int16).max]
@program
def complex_autograd(t):
    z = t.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
    y = (z * z.conj()).real.sum() + z.abs().sum() + (z.exp() * 2).imag.sum()
    y.backward()
    w = t.tensor([1., 2.], requires_grad=True)
    c = t.complex(w, w * 2)
    (c.abs() ** 2).sum().backward()
    return [y, z.grad, w.grad, t.view_as_real(z.detach()), z.angle().sum()]
@program
def empty_and_zero_size(t):
    e = t.zeros(0, 3, requires_grad=True)
    y = (e * 2).sum(0)
    y.sum().backward()
    return [y, e.grad, t.zeros(0).max(0) if False else t.zeros(2, 0).max(1) if False else t.zeros(2, 0).sum(1), t.ones(0, 2) @ t.ones(2, 3), t.cat([t.zeros(0), t.ones(2)]),
            t.zeros(0).mean(), t.zeros(0).std(), t.zeros(3, 0).softmax(1), t.zeros(0, dtype=t.int64).bincount(), t.zeros(0).sort(), t.zeros(0).topk(0),
            t.zeros(0).unique(), t.zeros(0).cumsum(0), t.zeros(0).argsort(), t.zeros(0).median() if True else 0, t.nn.functional.cross_entropy(t.zeros(0, 3), t.zeros(0, dtype=t.int64))]
@program
def scalar_tensor_semantics(t):
    s = t.tensor(3.)
    i = t.tensor(2)
    return [s + i, (s + i).dtype, i / i, i * 2.5, s.dim(), s.shape, s.item(), s[None], s.view(1), s.reshape(()), s.expand(2), t.stack([s, s]), s.unsqueeze(0).squeeze(), s.numpy().shape,
            _err(lambda: s[0]), _err(lambda: len(s)), _err(lambda: iter(s)), s.sum(0), s.max(0), s.argmax(), s.flatten(), s.t(), _err(lambda: s.transpose(0, 1)), s.softmax(0), s.topk(1), s.sort(), s.cumsum(0)]
@program
def load_state_dict_errors(t):
    m = t.nn.Linear(2, 3)
    return [_err(lambda: m.load_state_dict({"weight": t.ones(3, 3), "bias": t.ones(3)})),
            _err(lambda: m.load_state_dict({"weight": t.ones(3, 2)})),
            _err(lambda: m.load_state_dict({"weight": t.ones(3, 2), "bias": t.ones(3), "extra": t.ones(1)})),
            str(m.load_state_dict({"weight": t.ones(3, 2), "bias": t.ones(3), "extra": t.ones(1)}, strict=False)),
            _err(lambda: t.nn.Sequential(t.nn.Linear(2, 2)).load_state_dict({"1.weight": t.ones(1)})),
            _err(lambda: m.load_state_dict([1, 2]))]
@program
def module_attr_errors(t):
    m = t.nn.Linear(2, 3)
    return [_err(lambda: m.foo), _err(lambda: setattr(m, "weight", 3)), _err(lambda: m.register_buffer("weight", t.ones(1))),
            _err(lambda: m.register_parameter("b2", t.ones(1))), _err(lambda: m.add_module("a.b", t.nn.ReLU())),
            _err(lambda: t.nn.Sequential(1)), _err(lambda: t.nn.ModuleList([1])), _err(lambda: t.nn.Sequential()[3]),
            _err(lambda: t.nn.ModuleDict({"a": t.nn.ReLU()})["b"]), _err(lambda: m.get_submodule("x")),
            _err(lambda: t.nn.Parameter([1.0])), _err(lambda: t.nn.Conv2d(3, 4, 0)), _err(lambda: t.nn.Dropout(1.5)),
            _err(lambda: t.nn.LSTM(3, 4)(t.ones(5, 2, 2))), _err(lambda: t.nn.BatchNorm2d(3)(t.ones(2, 3))),
            _err(lambda: t.nn.LayerNorm(4)(t.ones(2, 3))), _err(lambda: t.nn.MultiheadAttention(5, 2)),
            _err(lambda: t.nn.functional.interpolate(t.ones(1, 1, 4), scale_factor=2, mode="bilinear")),
            _err(lambda: t.nn.MaxPool2d(2)(t.ones(4))), _err(lambda: t.nn.Embedding(3, 2, padding_idx=5)),
            _err(lambda: t.nn.CrossEntropyLoss()(t.ones(2, 3), t.ones(2, 3, dtype=t.int64)))]
@program
def dataloader_errors(t):
    D = t.utils.data
    return [_err(lambda: D.DataLoader(range(4), batch_size=2, shuffle=True, sampler=[0, 1])),
            _err(lambda: D.DataLoader(range(4), batch_sampler=[[0]], batch_size=2)),
            _err(lambda: D.DataLoader(range(4), drop_last=True, batch_sampler=[[0]])),
            _err(lambda: D.DataLoader(range(4), num_workers=-1)),
            _err(lambda: list(D.DataLoader([{"a": 1}, {"b": 2}], batch_size=2))),
            _err(lambda: list(D.DataLoader([object(), object()], batch_size=2))),
            _err(lambda: D.random_split(range(4), [0.5, 0.6])), _err(lambda: D.Subset(range(3), [5])[0]),
            _err(lambda: len(D.DataLoader(D.IterableDataset(), batch_size=2))),
            _err(lambda: D.RandomSampler(range(3), num_samples=0)), _err(lambda: D.BatchSampler(range(3), 0, False)),
            _err(lambda: len(list(D.WeightedRandomSampler([1., -1.], 2))))]
@program
def optim_misc(t):
    w = t.nn.Parameter(t.ones(2))
    opt = t.optim.Adam([w], lr=0.1)
    out = [_err(lambda: opt.step(lambda: 1.0)), opt.state_dict()["param_groups"][0]["params"],
           _err(lambda: t.optim.lr_scheduler.StepLR(opt, 1).get_lr()),
           _err(lambda: t.optim.SGD([{"params": w}, {"params": w}])), _err(lambda: t.optim.Adam([w], lr="a")),
           _err(lambda: t.optim.lr_scheduler.MultiStepLR(opt, [3, 1]).milestones), _err(lambda: len(t.optim.Adam([t.ones(2)]).param_groups)),
           _err(lambda: t.optim.AdamW([w], weight_decay=-1))]
    w.grad = t.ones(2)
    out.append(opt.step(lambda: t.tensor(3.0)))
    return out

@program
def saved_tensor_hooks_and_graph(t):
    x = t.tensor([1., 2.], requires_grad=True)
    packed = []
    with t.autograd.graph.saved_tensors_hooks(lambda a: packed.append(1) or a * 1, lambda a: a):
        y = (x * x).sum()
    y.backward()
    g = t.autograd.grad((x ** 2).sum(), x, create_graph=True)[0]
    return [len(packed), x.grad, g.grad_fn.name(), y.grad_fn.next_functions[0][0].name(),
            _err(lambda: t.autograd.grad(g.sum(), x, retain_graph=False) and t.autograd.grad(g.sum(), x)),
            t.autograd.grad(g.sum(), x, None)[0]]
@program
def module_backward_hooks_grads(t):
    m = t.nn.Sequential(t.nn.Linear(2, 2), t.nn.ReLU())
    with t.no_grad():
        m[0].weight.copy_(t.tensor([[1., -1.], [0.5, 2.]])); m[0].bias.zero_()
    seen = []
    m[0].register_full_backward_pre_hook(lambda mod, go: seen.append(go[0].clone()))
    m.register_forward_hook(lambda mod, i, o: o * 2)
    out = m(t.tensor([[1., 2.]], requires_grad=True))
    out.sum().backward()
    return [out, seen, m[0].weight.grad, m[0].bias.grad]
@program
def detect_anomaly_nan(t):
    x = t.tensor([0., 1.], requires_grad=True)
    with t.autograd.detect_anomaly():
        y = (x.sqrt() * 0).sum()
        r = _err(lambda: y.backward())
    return [type(r).__name__ if isinstance(r, Exception) else r, str(r).split("\n")[0][:80] if isinstance(r, Exception) else None]
@program
def grad_mode_decorators(t):
    @t.enable_grad()
    def f(a): return a * 2
    @t.inference_mode()
    def g(a): return a * 2
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        r1 = f(x)
    r2 = g(x)
    return [r1.requires_grad, r2.requires_grad, r2.is_inference(), t.is_grad_enabled(), _err(lambda: r2.requires_grad_()),
            _err(lambda: (r2 * x).sum().backward())]
@program
def retain_grad_views_hooks(t):
    x = t.ones(2, 3, requires_grad=True)
    v = x[0]
    v.retain_grad()
    y = x * 2
    y.retain_grad()
    z = y.sum(1)
    z.register_hook(lambda g: g * 3)
    (z * t.tensor([1., 2.])).sum().backward()
    return [x.grad, v.grad, y.grad, z.grad]
@program(rtol=1e-5, atol=1e-6)
def double_backward_common(t):
    x = t.tensor([0.3, -0.7, 1.2], requires_grad=True)
    outs = []
    for f in (lambda a: a.softmax(0), lambda a: a.log_softmax(0), lambda a: t.nn.functional.gelu(a), lambda a: a.sigmoid(), lambda a: a.tanh(),
              lambda a: t.nn.functional.softplus(a), lambda a: a.norm(), lambda a: a.abs(), lambda a: t.nn.functional.elu(a), lambda a: a.pow(3),
              lambda a: t.nn.functional.silu(a), lambda a: a.logsumexp(0), lambda a: a.cumprod(0), lambda a: t.nn.functional.mse_loss(a, a.flip(0).detach()),
              lambda a: t.nn.functional.layer_norm(a, (3,)), lambda a: a.std(), lambda a: t.nn.functional.normalize(a, dim=0)):
        g, = t.autograd.grad((f(x) * t.tensor([1., 2., 3.])).sum(), x, create_graph=True)
        gg, = t.autograd.grad((g * t.tensor([0.5, -1., 2.])).sum(), x, allow_unused=True, materialize_grads=True)
        outs += [g, gg]
    return outs


PROGRAMS = sorted(P.items())


@pytest.mark.parametrize("name", [n for n, _ in PROGRAMS])
def test_user_program(name):
    fn, opts = P[name]
    same(fn, **opts)
