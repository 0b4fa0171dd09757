"""Small nn / optim / data / serialization user programs run on numtorch and on torch (see
tests/test_user_programs.py): layers with fixed weights, losses with every reduction,
optimizers and lr schedulers with state_dict round trips, DataLoader with samplers and
collate functions, and state dicts through save/load."""

import io

import numpy as np
import pytest

from tests.oracle import same
from tests.test_user_programs import _err, table

P, program = table()


def _fixed(t, module, seed=0):
    """Give every parameter of ``module`` the same deterministic values in both libraries."""
    rng = np.random.default_rng(seed)
    with t.no_grad():
        for p in module.parameters():
            p.copy_(t.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)), dtype=p.dtype))
    return module


def _data(t, *shape, seed=1, low=-1.0, high=1.0):
    return t.tensor(np.random.default_rng(seed).uniform(low, high, shape), dtype=t.float32)


@program(rtol=1e-5, atol=1e-6)
def mlp_train_steps(t):
    model = _fixed(t, t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 3)))
    opt = t.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = _data(t, 16, 4), t.tensor(np.arange(16) % 3)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = t.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [losses, model[0].weight, model[2].bias.grad]


@program(rtol=1e-5, atol=1e-6)
def losses_all_reductions(t):
    F = t.nn.functional
    x, y = _data(t, 4, 3), _data(t, 4, 3, seed=2)
    p = x.sigmoid()
    tgt = t.tensor([0, 2, 1, 2])
    out = []
    for red in ("mean", "sum", "none"):
        out += [F.mse_loss(x, y, reduction=red), F.l1_loss(x, y, reduction=red),
                F.smooth_l1_loss(x, y, reduction=red, beta=0.5), F.huber_loss(x, y, reduction=red),
                F.cross_entropy(x, tgt, reduction=red),
                F.cross_entropy(x, tgt, reduction=red, label_smoothing=0.1),
                F.cross_entropy(x, y.softmax(1), reduction=red),
                F.nll_loss(x.log_softmax(1), tgt, reduction=red, weight=t.tensor([1., 2, 3])),
                F.binary_cross_entropy(p, y.sigmoid(), reduction=red),
                F.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction=red,
                                                   pos_weight=t.tensor([1., 2, 3])),
                F.kl_div(x.log_softmax(1), y.softmax(1), reduction=red if red != "mean"
                         else "batchmean"),
                F.soft_margin_loss(x, y.sign(), reduction=red),
                F.hinge_embedding_loss(x, y.sign(), reduction=red),
                F.margin_ranking_loss(x[:, 0], x[:, 1], y[:, 0].sign(), reduction=red),
                F.multi_margin_loss(x, tgt, reduction=red),
                F.multilabel_soft_margin_loss(x, (y > 0).float(), reduction=red),
                F.poisson_nll_loss(x, y.abs(), reduction=red),
                F.gaussian_nll_loss(x, y, y.abs() + 0.1, reduction=red),
                F.cosine_embedding_loss(x, y, t.tensor([1, -1, 1, -1]), reduction=red),
                F.triplet_margin_loss(x, y, -y, reduction=red)]
    return out


@program(rtol=1e-5, atol=1e-6)
def loss_ignore_index_and_weights(t):
    F = t.nn.functional
    x = _data(t, 5, 4)
    tgt = t.tensor([0, -100, 3, 3, -100])
    w = t.tensor([1., 0.5, 2, 1])
    return [F.cross_entropy(x, tgt), F.cross_entropy(x, tgt, weight=w),
            F.cross_entropy(x, tgt, reduction="sum", weight=w), F.nll_loss(x, tgt, ignore_index=3),
            F.cross_entropy(x, t.full((5,), -100)), F.cross_entropy(x[None].transpose(1, 2),
                                                                     tgt[None])]


@program
def loss_errors(t):
    F = t.nn.functional
    x = t.ones(3, 4)
    return [_err(lambda: F.cross_entropy(x, t.tensor([0, 1]))),
            _err(lambda: F.cross_entropy(x, t.tensor([0, 1, 4]))),
            _err(lambda: F.cross_entropy(x, t.tensor([0., 1, 2]))),
            _err(lambda: F.nll_loss(x, t.tensor([0, 1, 2], dtype=t.int32))),
            _err(lambda: F.binary_cross_entropy(x * 2, x)),
            _err(lambda: F.mse_loss(x, t.ones(3, 5))),
            _err(lambda: F.mse_loss(x, x, reduction="avg")),
            _err(lambda: t.nn.CrossEntropyLoss(reduction="bogus"))]


@program(rtol=1e-5, atol=1e-6)
def layers_forward_backward(t):
    x = _data(t, 2, 3, 8, 8)
    layers = [t.nn.Conv2d(3, 4, 3, padding=1), t.nn.Conv2d(3, 2, 3, stride=2, groups=1),
              t.nn.BatchNorm2d(3), t.nn.MaxPool2d(2), t.nn.AvgPool2d(3, stride=2, padding=1),
              t.nn.AdaptiveAvgPool2d((2, 3)), t.nn.Dropout(0.0), t.nn.GroupNorm(3, 3),
              t.nn.InstanceNorm2d(3), t.nn.Upsample(scale_factor=2), t.nn.Flatten(),
              t.nn.ConvTranspose2d(3, 2, 2, stride=2), t.nn.LayerNorm([8, 8]), t.nn.PixelShuffle(1)]
    out = []
    for m in layers:
        _fixed(t, m)
        xi = x.clone().requires_grad_()
        y = m(xi)
        (y * y.detach().cos()).sum().backward()
        out += [y, xi.grad]
    return out


@program(rtol=1e-5, atol=1e-6)
def sequence_layers(t):
    x = _data(t, 5, 2, 4)
    out = []
    for m in (t.nn.LSTM(4, 3), t.nn.GRU(4, 3, num_layers=2), t.nn.RNN(4, 3, bidirectional=True),
              t.nn.LSTM(4, 3, batch_first=True)):
        _fixed(t, m)
        y, h = m(x)
        out += [y, h]
    emb = _fixed(t, t.nn.Embedding(10, 3, padding_idx=0))
    out.append(emb(t.tensor([[0, 3], [9, 0]])))
    enc = _fixed(t, t.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0))
    out.append(enc(x))
    mha = _fixed(t, t.nn.MultiheadAttention(4, 2))
    out += list(mha(x, x, x))
    return out


@program
def module_api(t):
    m = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3), t.nn.ReLU())
    names = [n for n, _ in m.named_parameters()]
    bufs = [n for n, _ in m.named_buffers()]
    sd = m.state_dict()
    m2 = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3), t.nn.ReLU())
    r = m2.load_state_dict(sd)
    bad = _err(lambda: m2.load_state_dict({"0.weight": t.ones(3, 2)}))
    r2 = m2.load_state_dict({"0.weight": t.ones(3, 2)}, strict=False)
    return [names, bufs, list(sd.keys()), str(r), bad, r2.missing_keys, repr(m),
            sum(p.numel() for p in m.parameters()), m.training, m.eval().training,
            [type(c).__name__ for c in m.children()], len(list(m.modules()))]


@program
def module_repr_variants(t):
    return [repr(t.nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, bias=False)),
            repr(t.nn.Linear(3, 4, bias=False)), repr(t.nn.LSTM(3, 4, 2, batch_first=True)),
            repr(t.nn.Dropout(0.3)), repr(t.nn.BatchNorm2d(4, momentum=None)),
            repr(t.nn.ModuleDict({"a": t.nn.ReLU(), "b": t.nn.Tanh()})),
            repr(t.nn.ModuleList([t.nn.Identity()] * 2)), repr(t.nn.Embedding(5, 2)),
            repr(t.nn.LeakyReLU(0.2, inplace=True)), repr(t.nn.MaxPool2d(2)),
            repr(t.nn.Upsample(scale_factor=2.0, mode="nearest")),
            repr(t.nn.ParameterList([t.nn.Parameter(t.ones(2))])),
            repr(t.nn.Parameter(t.ones(2))), repr(t.nn.TransformerEncoderLayer(4, 2))]


@program
def module_errors(t):
    lin = t.nn.Linear(3, 2)
    return [_err(lambda: lin(t.ones(4, 5))), _err(lambda: lin(t.ones(4, 3, dtype=t.float64))),
            _err(lambda: t.nn.Conv2d(3, 4, 3)(t.ones(1, 2, 5, 5))),
            _err(lambda: t.nn.Conv2d(3, 4, 3)(t.ones(1, 3, 2, 2))),
            _err(lambda: t.nn.BatchNorm1d(3)(t.ones(1, 3))),
            _err(lambda: lin.nonexistent), _err(lambda: t.nn.Linear(3, -1)),
            _err(lambda: t.nn.Embedding(3, 2)(t.tensor([3]))),
            _err(lambda: t.nn.Embedding(3, 2)(t.tensor([1.0]))),
            _err(lambda: setattr(lin, "weight", t.ones(2, 3))),
            _err(lambda: t.nn.Conv2d(4, 4, 3, groups=3))]


@program(rtol=1e-5, atol=1e-7)
def optimizers_trajectories(t):
    out = []
    for make in (lambda p: t.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
                 lambda p: t.optim.Adam(p, lr=0.01, amsgrad=True),
                 lambda p: t.optim.AdamW(p, lr=0.01, weight_decay=0.1),
                 lambda p: t.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
                 lambda p: t.optim.Adagrad(p, lr=0.1), lambda p: t.optim.Adadelta(p),
                 lambda p: t.optim.Adamax(p), lambda p: t.optim.NAdam(p),
                 lambda p: t.optim.RAdam(p), lambda p: t.optim.Rprop(p)):
        w = t.tensor([1.0, -2.0, 3.0], requires_grad=True)
        opt = make([w])
        for _ in range(4):
            opt.zero_grad()
            ((w - 0.5) ** 2 * t.tensor([1., 2, 3])).sum().backward()
            opt.step()
        out += [w.detach().clone()]
    return out


@program
def optimizer_state_dict_roundtrip(t):
    w = t.nn.Parameter(t.tensor([1.0, 2.0]))
    b = t.nn.Parameter(t.tensor([0.5]))
    opt = t.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.1}], lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        (w.sum() * b).sum().backward()
        opt.step()
    sd = opt.state_dict()
    opt2 = t.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.3)
    opt2.load_state_dict(sd)
    buf = io.BytesIO()
    t.save(sd, buf)
    buf.seek(0)
    sd3 = t.load(buf)
    return [sd["param_groups"], sorted(sd["state"][0].keys()), sd["state"][0]["exp_avg"],
            sd["state"][1]["step"], opt2.param_groups[1]["lr"], sd3["state"][0]["exp_avg_sq"],
            repr(opt).replace("\n", "|"), _err(lambda: opt2.load_state_dict({"state": {},
                                                                          "param_groups": []}))]


@program
def optimizer_errors(t):
    w = t.nn.Parameter(t.ones(2))
    return [_err(lambda: t.optim.SGD([w], lr=-1)), _err(lambda: t.optim.Adam([w], betas=(1.5, 0.9))),
            _err(lambda: t.optim.SGD([], lr=0.1)), _err(lambda: t.optim.SGD(w, lr=0.1)),
            _err(lambda: repr(t.optim.SGD([w, w], lr=0.1))),
            _err(lambda: t.optim.SGD([w], lr=0.1, nesterov=True))]


@program(rtol=1e-6, atol=1e-9)
def lr_schedulers(t):
    out = []
    for make in (lambda o: t.optim.lr_scheduler.StepLR(o, 2, gamma=0.5),
                 lambda o: t.optim.lr_scheduler.MultiStepLR(o, [1, 3], 0.1),
                 lambda o: t.optim.lr_scheduler.ExponentialLR(o, 0.9),
                 lambda o: t.optim.lr_scheduler.CosineAnnealingLR(o, 4, eta_min=0.01),
                 lambda o: t.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1)),
                 lambda o: t.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=8),
                 lambda o: t.optim.lr_scheduler.LinearLR(o, 0.5, total_iters=3),
                 lambda o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2, 2),
                 lambda o: t.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2),
                 lambda o: t.optim.lr_scheduler.PolynomialLR(o, 4, 2.0),
                 lambda o: t.optim.lr_scheduler.SequentialLR(
                     o, [t.optim.lr_scheduler.ConstantLR(o, 0.5, 2),
                         t.optim.lr_scheduler.ExponentialLR(o, 0.5)], [2])):
        w = t.nn.Parameter(t.ones(1))
        opt = t.optim.SGD([w], lr=0.1, momentum=0.9)
        s = make(opt)
        lrs = []
        for _ in range(6):
            opt.step()
            s.step()
            lrs.append(s.get_last_lr()[0])
        sd = {k: v for k, v in s.state_dict().items() if k not in ("lr_lambdas", "_schedulers")}
        out += [lrs, sorted(sd)]
    return out


@program
def reduce_lr_on_plateau(t):
    w = t.nn.Parameter(t.ones(1))
    opt = t.optim.SGD([w], lr=1.0)
    s = t.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    lrs = []
    for v in (1.0, 0.9, 0.95, 0.97, 0.99, 0.5, 0.6, 0.7):
        s.step(v)
        lrs.append(opt.param_groups[0]["lr"])
    sd = s.state_dict()
    return [lrs, sd["best"], sd["num_bad_epochs"], s.get_last_lr()]


@program
def dataloader_batches(t):
    data = t.utils.data
    ds = data.TensorDataset(t.arange(10.).reshape(5, 2), t.arange(5))
    out = [len(ds), ds[1], [b for b in data.DataLoader(ds, batch_size=2)],
           [b for b in data.DataLoader(ds, batch_size=2, drop_last=True)],
           len(data.DataLoader(ds, batch_size=2)),
           [b for b in data.DataLoader(ds, batch_size=None)][:2],
           list(data.BatchSampler(data.SequentialSampler(range(5)), 2, False)),
           [b for b in data.DataLoader(ds, sampler=[4, 0, 2], batch_size=2)],
           [b for b in data.DataLoader(ds, batch_sampler=[[0, 1], [4]])]]
    return out


@program
def dataloader_collate(t):
    data = t.utils.data

    class DS(data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return {"x": t.ones(2) * i, "y": i, "f": float(i), "s": f"s{i}",
                    "n": np.array([i, i]), "tup": (i, t.tensor(i))}

    dl = data.DataLoader(DS(), batch_size=2, collate_fn=None)
    custom = data.DataLoader(DS(), batch_size=3, collate_fn=lambda b: len(b))
    return [list(dl), list(custom), data.default_collate([(1, 2.0), (3, 4.0)]),
            data.default_collate([[t.ones(1), t.zeros(1)]]),
            _err(lambda: data.default_collate([t.ones(2), t.ones(3)]))]


@program
def dataloader_seeded_shuffle(t):
    data = t.utils.data
    g1, g2 = t.Generator().manual_seed(0), t.Generator().manual_seed(0)
    a = [b.tolist() for b in data.DataLoader(range(10), batch_size=3, shuffle=True, generator=g1)]
    b = [b.tolist() for b in data.DataLoader(range(10), batch_size=3, shuffle=True, generator=g2)]
    rs = list(data.RandomSampler(range(6), generator=t.Generator().manual_seed(1)))
    parts = data.random_split(range(10), [0.3, 0.7], generator=t.Generator().manual_seed(2))
    return [a == b, sorted(v for batch in a for v in batch), sorted(rs), [len(p) for p in parts],
            sorted(list(parts[0]) + list(parts[1])), _err(lambda: data.random_split(range(10), [3, 3])),
            len(list(data.WeightedRandomSampler([0.1, 0.9], 5)))]


@program
def dataset_utilities(t):
    data = t.utils.data
    a = data.TensorDataset(t.arange(3))
    b = data.TensorDataset(t.arange(3, 5))
    c = data.ConcatDataset([a, b])
    s = data.Subset(c, [4, 0])
    return [len(c), c[3], s[0], len(s), c.cumulative_sizes, _err(lambda: c[5]),
            _err(lambda: data.TensorDataset(t.ones(3), t.ones(4))),
            data.Subset(range(10), [2, 3])[1]]


@program
def dataset_and_parameter_construction(t):
    data = t.utils.data

    class NoIter(data.IterableDataset):
        pass

    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    empty = data.TensorDataset()
    return [_err(NoIter), list(Stream()), list(data.DataLoader(Stream(), batch_size=2)),
            _err(lambda: len(empty)), empty[0], _err(lambda: t.nn.Parameter([1.0])),
            isinstance(Stream(), data.Dataset)]


@program
def state_dict_serialization(t):
    m = _fixed(t, t.nn.Sequential(t.nn.Linear(2, 2), t.nn.BatchNorm1d(2)))
    buf = io.BytesIO()
    t.save(m.state_dict(), buf)
    buf.seek(0)
    sd = t.load(buf, weights_only=True)
    buf2 = io.BytesIO()
    t.save({"epoch": 3, "w": t.arange(4).view(2, 2)[:, 1], "lst": [t.ones(1), 2.5],
            "h": t.ones(2, dtype=t.float16)}, buf2)
    buf2.seek(0)
    obj = t.load(buf2)
    return [list(sd.keys()), sd["0.weight"], sd["1.num_batches_tracked"], obj,
            obj["w"].is_contiguous(), type(sd).__name__]


@program
def functional_misc(t):
    F = t.nn.functional
    x = _data(t, 2, 5)
    return [F.one_hot(t.tensor([0, 2, 1])), F.one_hot(t.tensor([1]), 4).dtype,
            F.pad(x, (1, 2)), F.pad(x, (1, 1), value=9.), F.pad(x[None], (2, 2), mode="reflect"),
            F.normalize(x), F.normalize(x, p=1, dim=0), F.cosine_similarity(x, x.flip(0)),
            F.pairwise_distance(x, x.flip(0)), F.softmax(x, dim=-1), F.gumbel_softmax if False
            else F.log_softmax(x, 1), F.softmin(x, 1), F.glu(x[:, :4]), F.relu6(x * 10),
            F.hardswish(x), F.elu(x), F.selu(x), F.gelu(x), F.gelu(x, approximate="tanh"),
            F.silu(x), F.mish(x), F.softplus(x, beta=2), F.leaky_relu(x, 0.1), F.logsigmoid(x),
            F.hardsigmoid(x), F.threshold(x, 0.1, 20.), F.interpolate(x[None], size=7),
            F.interpolate(x[None], scale_factor=2, mode="linear", align_corners=False),
            F.dropout(x, 0.5, training=False), F.linear(x, t.ones(3, 5)), F.embedding(
                t.tensor([1]), t.eye(3)), F.unfold(x[None, None], (2, 2)).shape]


@program
def softmax_integer_and_dtype(t):
    F = t.nn.functional
    i = t.tensor([1, 2, 3])
    return [_err(lambda: F.softmax(i, 0)), _err(lambda: F.log_softmax(i, 0)),
            _err(lambda: i.softmax(0)), _err(lambda: t.softmax(i, 0)),
            F.softmax(i, 0, dtype=t.float64), _err(lambda: F.softmin(i, 0)),
            F.softmax(t.tensor([1., 2], dtype=t.float16), 0),
            _err(lambda: t.log_softmax(t.tensor([True, False]), 0)),
            _err(lambda: F.cross_entropy(t.tensor([[1, 2]]), t.tensor([0]))),
            _err(lambda: i.logsumexp(0)), _err(lambda: i.mean()),
            _err(lambda: t.ones(2, 3, dtype=t.long).softmax(0)),
            _err(lambda: t.ones(2, 3, dtype=t.complex64).log_softmax(1)),
            t.zeros(0, dtype=t.long).softmax(0), _err(lambda: F.softmin(i[None], 0))]


@program
def init_functions_shapes(t):
    w = t.empty(3, 4)
    out = []
    for f in (t.nn.init.zeros_, t.nn.init.ones_, lambda a: t.nn.init.constant_(a, 0.3),
              t.nn.init.eye_, t.nn.init.dirac_ if False else (lambda a: a)):
        out.append(f(w).clone())
    out += [t.nn.init.calculate_gain("relu"), t.nn.init.calculate_gain("leaky_relu", 0.2),
            t.nn.init.calculate_gain("tanh"), t.nn.init._calculate_fan_in_and_fan_out(
                t.empty(8, 4, 3, 3)), _err(lambda: t.nn.init.eye_(t.empty(2, 2, 2)))]
    return out


@program
def parameter_semantics(t):
    p = t.nn.Parameter(t.ones(2))
    q = t.nn.Parameter(t.ones(2), requires_grad=False)
    m = t.nn.Linear(2, 2)
    m.register_buffer("steps", t.zeros(()))
    m.extra = t.nn.Parameter(t.zeros(1))
    return [p.requires_grad, q.requires_grad, type(p * 2).__name__, type(p.data).__name__,
            isinstance(p, t.Tensor), [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_buffers()], list(m.state_dict().keys()),
            type(p.detach()).__name__, type(p.clone()).__name__]


@program(rtol=1e-5, atol=1e-6)
def train_eval_modes(t):
    m = _fixed(t, t.nn.Sequential(t.nn.Linear(3, 4), t.nn.BatchNorm1d(4), t.nn.Dropout(0.5),
                                  t.nn.Linear(4, 2)))
    x = _data(t, 6, 3)
    m.train()
    m[2].p = 0.0
    y_train = m(x)
    rm = m[1].running_mean.clone()
    m.eval()
    with t.no_grad():
        y_eval = m(x)
    m[2].p = 0.5
    y_eval2 = m(x)
    return [y_train, rm, m[1].running_var, m[1].num_batches_tracked, y_eval,
            (y_eval2 - y_eval).abs().max() < 1e-6, y_eval.requires_grad, m.training,
            m[1].training]


@program(rtol=1e-5, atol=1e-6)
def grad_clipping_and_zero_grad(t):
    m = _fixed(t, t.nn.Linear(4, 3))
    x = _data(t, 5, 4)
    (m(x) ** 2).sum().backward()
    total = t.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
    g = m.weight.grad.clone()
    t.nn.utils.clip_grad_value_(m.parameters(), 0.01)
    gv = m.bias.grad.clone()
    opt = t.optim.SGD(m.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=False)
    z = m.weight.grad.clone()
    opt.zero_grad()
    return [total, g, gv, z, m.weight.grad, t.nn.utils.parameters_to_vector(m.parameters())
            .shape, t.nn.utils.clip_grad_norm_([], 1.0)]


@program(rtol=1e-5, atol=1e-6)
def optimizer_param_groups(t):
    a = t.nn.Parameter(t.tensor([1., 2.]))
    b = t.nn.Parameter(t.tensor([3.]))
    opt = t.optim.SGD([a], lr=0.1)
    opt.add_param_group({"params": [b], "lr": 0.01, "momentum": 0.9})
    for _ in range(3):
        opt.zero_grad()
        (a.sum() * b.sum()).backward()
        opt.step()
    sched = t.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    opt.step()
    sched.step()
    err = _err(lambda: opt.add_param_group({"params": [a]}))
    return [a, b, [g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups],
            err, sched.last_epoch, sched.state_dict()["base_lrs"]]


@program(rtol=1e-5, atol=1e-6)
def embedding_padding_and_bag(t):
    emb = _fixed(t, t.nn.Embedding(5, 3, padding_idx=1))
    idx = t.tensor([[1, 2, 1], [4, 3, 1]])
    out = emb(idx)
    out.sum().backward()
    bag = _fixed(t, t.nn.EmbeddingBag(5, 2, mode="mean"))
    return [out, emb.weight.grad, bag(t.tensor([0, 2, 4, 1]), t.tensor([0, 1])),
            bag(t.tensor([[0, 2], [4, 1]])), t.nn.functional.embedding(t.tensor([0]), t.eye(3),
                                                                      max_norm=0.5)]


@program(rtol=1e-5, atol=1e-6)
def packed_sequences(t):
    rnn = t.nn.utils.rnn
    seqs = [t.arange(6.).reshape(3, 2), t.arange(4.).reshape(2, 2) + 10, t.ones(1, 2)]
    padded = rnn.pad_sequence(seqs, batch_first=True)
    packed = rnn.pack_padded_sequence(padded, t.tensor([3, 2, 1]), batch_first=True)
    lstm = _fixed(t, t.nn.LSTM(2, 3, batch_first=True))
    out, (h, c) = lstm(packed)
    unpacked, lens = rnn.pad_packed_sequence(out, batch_first=True)
    unsorted = rnn.pack_sequence([seqs[2], seqs[0]], enforce_sorted=False)
    return [padded, packed.data, packed.batch_sizes, unpacked, lens, h, c,
            unsorted.sorted_indices, rnn.pad_sequence(seqs, padding_value=-1).shape,
            _err(lambda: rnn.pack_padded_sequence(padded, t.tensor([1, 2, 3]), batch_first=True))]


@program
def module_hooks_and_state(t):
    m = _fixed(t, t.nn.Linear(2, 2))
    log = []
    h1 = m.register_forward_hook(lambda mod, i, o: log.append(("fwd", tuple(o.shape))))
    h2 = m.register_forward_pre_hook(lambda mod, i: log.append(("pre", len(i))))
    h3 = m.register_full_backward_hook(lambda mod, gi, go: log.append(("bwd", len(gi),
                                                                        tuple(go[0].shape))))
    x = t.ones(3, 2, requires_grad=True)
    m(x).sum().backward()
    for h in (h1, h2, h3):
        h.remove()
    m(x)
    sd = m.state_dict(prefix="net.")
    m.requires_grad_(False)
    return [log, list(sd.keys()), m.weight.requires_grad, [n for n, _ in m.named_modules()],
            m.get_parameter("bias").shape, isinstance(m, t.nn.Module),
            m.half().weight.dtype, m.double().bias.dtype, m.to(t.float32).weight.dtype]


@program(rtol=1e-5, atol=1e-6)
def conv_variants(t):
    F = t.nn.functional
    x = _data(t, 1, 2, 7, 7)
    w = _data(t, 4, 2, 3, 3, seed=5)
    x1 = _data(t, 2, 3, 9)
    w1 = _data(t, 6, 1, 3, seed=6)
    return [F.conv2d(x, w, padding="same"), F.conv2d(x, w, stride=2, dilation=2),
            F.conv2d(x, w[:, :1].repeat(1, 1, 1, 1)[:2], groups=2),
            F.conv1d(x1, w1, groups=3, padding=2), F.conv_transpose2d(x, w.transpose(0, 1),
                                                                      stride=2, output_padding=1),
            F.max_pool2d(x, 3, stride=2, return_indices=True),
            F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False),
            F.adaptive_max_pool2d(x, 3), F.max_pool1d(x1, 2), F.lp_pool2d(x.abs(), 2, 2),
            F.pixel_shuffle(t.arange(16.).reshape(1, 4, 2, 2), 2),
            _err(lambda: F.conv2d(x, w, padding="same", stride=2)),
            _err(lambda: F.max_pool2d(x, 9))]


@program(rtol=1e-5, atol=1e-6)
def normalization_functional(t):
    F = t.nn.functional
    x = _data(t, 3, 4, 5)
    return [F.layer_norm(x, (5,)), F.layer_norm(x, (4, 5), t.ones(4, 5) * 2, t.zeros(4, 5)),
            F.group_norm(x, 2), F.instance_norm(x), F.batch_norm(x, t.zeros(4), t.ones(4)),
            F.batch_norm(x, None, None, training=True), F.local_response_norm(x, 2),
            F.rms_norm(x, (5,)), _err(lambda: F.layer_norm(x, (4,))),
            _err(lambda: F.group_norm(x, 3))]


PROGRAMS = sorted(P.items())


@pytest.mark.parametrize("name", [n for n, _ in PROGRAMS])
def test_user_program(name):
    fn, opts = P[name]
    same(fn, **opts)
