"""Graph node names against torch: ``type(y.grad_fn).__name__``, ``grad_fn.name()``, the
``grad_fn=<...>`` of tensor reprs, and ``next_functions`` of small graphs."""

import numpy as np
import pytest
import torch

import numtorch

# (label, expression): each is evaluated with torch and with numtorch in the same namespace
CASES = [ ("mul_scalar", "x*2"), ("mul", "x*x"), ("add_scalar", "x+1"), ("add", "x+x"),
    ("sub", "x-x"), ("sub_scalar", "x-1"), ("rsub_scalar", "1-x"), ("rsub", "torch.rsub(x,x)"),
    ("div", "x/x"), ("div_scalar", "x/2"), ("rdiv", "2/x"), ("neg", "-x"), ("select", "x[0]"),
    ("select2", "x[:,1]"), ("select3", "x[0,1]"), ("slice", "x[1:3]"), ("slice_bare", "x[:]"),
    ("slice2", "x[0,1:3]"), ("slice3", "x[:, ::2]"), ("slice_neg", "x[-3:]"), ("none", "x[None]"),
    ("none2", "x[0, None]"), ("ellipsis", "x[...]"), ("full_tuple", "x[:, :]"),
    ("ell_sel", "x[..., 0]"), ("index_list", "x[[0,1]]"), ("index_mask", "x[t>0]"),
    ("index_col", "x[:, [0,2]]"), ("index_mixed", "x[0, [0,2]]"), ("index_bool", "x[True]"),
    ("view", "x.view(12)"), ("view_same", "x.view(3,4)"), ("reshape", "x.reshape(12)"),
    ("reshape_copy", "x.t().reshape(12)"), ("flatten", "x.flatten()"),
    ("flatten_copy", "x.t().flatten()"), ("unflatten", "x.unflatten(1,(2,2))"),
    ("view_as", "x.view_as(x)"), ("squeeze", "x[None].squeeze()"),
    ("squeeze_dim", "x[None].squeeze(0)"), ("squeeze_dims", "x[None].squeeze((0,))"),
    ("unsqueeze", "x.unsqueeze(-1)"), ("t", "x.t()"), ("t1d", "v.t()"), ("T", "x.T"),
    ("mT", "x.mT"), ("transpose", "b.transpose(0,1)"), ("swapaxes", "x.swapaxes(0,1)"),
    ("permute", "b.permute(2,0,1)"), ("movedim", "b.movedim(0,2)"), ("expand", "v.expand(3,4)"),
    ("expand_as", "v.expand_as(x)"), ("dot", "v@v"), ("mv", "x@v"), ("vm", "v@x.t()"),
    ("mm", "x@x.t()"), ("bmm_op", "b@b.transpose(1,2)"), ("b_at_m", "b@x.t()"), ("b_at_v", "b@v"),
    ("v_at_b", "v@b.transpose(1,2)"), ("bcast4", "b[None]@b.transpose(1,2)[None]"),
    ("torch_mm", "torch.mm(x,x.t())"), ("torch_bmm", "torch.bmm(b,b.transpose(1,2))"),
    ("torch_mv", "torch.mv(x,v)"), ("torch_dot", "torch.dot(v,v)"),
    ("addmm", "torch.addmm(torch.zeros(3,3),x,x.t())"), ("pow_scalar", "x**2"),
    ("pow_float", "x.pow(2.5)"), ("pow_tensor", "x**x"), ("rpow", "2**x"),
    ("square", "x.square()"), ("sum", "x.sum()"), ("sum_dim", "x.sum(1)"),
    ("sum_dims", "x.sum((0,1))"), ("sum_keep", "x.sum(0, keepdim=True)"), ("mean", "x.mean()"),
    ("mean_dim", "x.mean(1)"), ("mean_dims", "b.mean((0,1))"), ("cat", "torch.cat([x,x])"),
    ("stack", "torch.stack([x,x])"), ("hstack", "torch.hstack([x,x])"),
    ("vstack", "torch.vstack([x,x])"), ("linear", "nn.Linear(4,2)(x)"),
    ("linear_nobias", "nn.Linear(4,2,bias=False)(x)"), ("linear3d", "nn.Linear(4,2)(b)"),
    ("linear3d_nobias", "nn.Linear(4,2,bias=False)(b)"), ("conv2d", "nn.Conv2d(1,2,3)(img)"),
    ("conv1d", "nn.Conv1d(3,2,2)(b)"), ("conv_t", "nn.ConvTranspose2d(1,1,2)(img)"),
    ("layer_norm", "nn.LayerNorm(4)(x)"), ("layer_norm_noaff", "F.layer_norm(x,(4,))"),
    ("batch_norm", "nn.BatchNorm1d(4)(x)"), ("batch_norm2d", "nn.BatchNorm2d(1)(img)"),
    ("log_softmax", "F.log_softmax(x,1)"), ("softmax", "F.softmax(x,1)"),
    ("softmin", "F.softmin(x,1)"), ("nll", "F.nll_loss(F.log_softmax(x,1), lab)"),
    ("nll_none", "F.nll_loss(x, lab, reduction='none')"),
    ("cross_entropy", "F.cross_entropy(x, lab)"),
    ("cross_entropy_sum", "F.cross_entropy(x, lab, reduction='sum')"),
    ("nll2d", "F.nll_loss(img4, lab2d)"), ("ce2d", "F.cross_entropy(img4, lab2d)"),
    ("relu", "x.relu()"), ("F_relu", "F.relu(x)"), ("relu_", "x.clone().relu_()"),
    ("tanh", "x.tanh()"), ("sigmoid", "x.sigmoid()"), ("F_sigmoid", "F.sigmoid(x)"),
    ("embedding", "nn.Embedding(5,3)(lab)"), ("maxpool2d", "F.max_pool2d(img,2)"),
    ("maxpool2d_idx", "F.max_pool2d(img,2,return_indices=True)[0]"),
    ("maxpool1d", "F.max_pool1d(b,2)"), ("maxpool3d", "F.max_pool3d(vol,2)"),
    ("avgpool2d", "F.avg_pool2d(img,2)"), ("avgpool1d", "F.avg_pool1d(b,2)"),
    ("avgpool3d", "F.avg_pool3d(vol,2)"), ("adaptive_avg1", "F.adaptive_avg_pool2d(img,1)"),
    ("mse", "F.mse_loss(x, t)"), ("mse_sum", "F.mse_loss(x, t, reduction='sum')"),
    ("mse_none", "F.mse_loss(x, t, reduction='none')"), ("l1", "F.l1_loss(x, t)"),
    ("l1_sum", "F.l1_loss(x,t,reduction='sum')"), ("l1_none", "F.l1_loss(x,t,reduction='none')"),
    ("smooth_l1", "F.smooth_l1_loss(x,t)"), ("huber", "F.huber_loss(x,t)"),
    ("bce", "F.binary_cross_entropy(x.sigmoid(), t.sigmoid())"),
    ("bce_logits", "F.binary_cross_entropy_with_logits(x, t.sigmoid())"), ("clone", "x.clone()"),
    ("contiguous", "x.t().contiguous()"), ("double", "x.double()"),
    ("to_dtype", "x.to(torch.float64)"),
    ("type_as", "x.type_as(torch.zeros(1,dtype=torch.float64))"), ("half", "x.half()"),
    ("max", "x.max()"), ("min", "x.min()"), ("max_dim", "x.max(1)[0]"), ("min_dim", "x.min(1)[0]"),
    ("max_dim_values", "x.max(dim=1, keepdim=True).values"), ("amax", "x.amax(1)"),
    ("amax_all", "x.amax()"), ("amin", "x.amin()"), ("maximum", "torch.maximum(x, x*2)"),
    ("max_binary", "torch.max(x, x*2)"), ("median", "x.median()"),
    ("median_dim", "x.median(1)[0]"), ("nanmedian", "x.nanmedian()"),
    ("nanmedian_dim", "x.nanmedian(1)[0]"), ("kthvalue", "x.kthvalue(2)[0]"),
    ("mode", "x.mode(1)[0]"), ("sort", "x.sort(1)[0]"), ("sort_stable", "x.sort(stable=True)[0]"),
    ("msort", "x.msort()"), ("topk", "x.topk(2)[0]"), ("cummax", "x.cummax(1)[0]"),
    ("cummin", "x.cummin(1)[0]"), ("abs", "x.abs()"), ("exp", "x.exp()"), ("log", "x.abs().log()"),
    ("sqrt", "x.abs().sqrt()"), ("gelu", "F.gelu(x)"),
    ("gelu_tanh", "F.gelu(x, approximate='tanh')"), ("leaky", "F.leaky_relu(x)"),
    ("elu", "F.elu(x)"), ("selu", "F.selu(x)"), ("celu", "F.celu(x)"),
    ("softplus", "F.softplus(x)"), ("silu", "F.silu(x)"), ("mish", "F.mish(x)"),
    ("hardtanh", "F.hardtanh(x)"), ("relu6", "F.relu6(x)"), ("hardswish", "F.hardswish(x)"),
    ("hardsigmoid", "F.hardsigmoid(x)"), ("logsigmoid", "F.logsigmoid(x)"),
    ("hardshrink", "F.hardshrink(x)"), ("softshrink", "F.softshrink(x)"),
    ("threshold", "F.threshold(x, 0., 0.)"), ("clamp", "x.clamp(0,1)"),
    ("clamp_min_kw", "x.clamp(min=0)"), ("clip", "x.clip(0,1)"),
    ("where", "torch.where(t>0, x, x*2)"), ("where_scalar", "torch.where(t>0, x, 0.)"),
    ("norm", "x.norm()"), ("norm_dim", "x.norm(dim=1)"), ("norm_p1", "x.norm(p=1)"),
    ("vector_norm", "torch.linalg.vector_norm(x)"), ("linalg_norm", "torch.linalg.norm(x)"),
    ("var", "x.var()"), ("var_dim", "x.var(1)"), ("std", "x.std()"), ("std_dim", "x.std(1)"),
    ("prod", "x.prod()"), ("prod_dim", "x.prod(1)"), ("cumsum", "x.cumsum(1)"),
    ("cumprod", "x.cumprod(1)"), ("logsumexp", "x.logsumexp(1)"),
    ("gather", "x.gather(1, lab[:, None])"), ("chunk", "x.chunk(2,1)[0]"),
    ("split", "x.split(2,1)[1]"), ("split_sizes", "x.split([1,3],1)[1]"),
    ("unbind", "x.unbind(0)[1]"), ("narrow", "x.narrow(1,1,2)"),
    ("narrow_full", "x.narrow(1,0,4)"), ("select_fn", "x.select(1,0)"),
    ("repeat", "x.repeat(2,1)"), ("flip", "x.flip(0)"), ("roll", "x.roll(1,0)"),
    ("unfold", "x.unfold(1,2,1)"), ("index_put", "x.index_put((lab[:1],), torch.tensor(1.))"),
    ("scatter_src", "x.scatter(1, lab[:, None], torch.ones(3,1))"),
    ("scatter_value", "x.scatter(1, lab[:, None], 1.)"),
    ("scatter_add", "x.scatter_add(1, lab[:, None], torch.ones(3,1))"),
    ("index_add", "x.index_add(0, lab[:1], torch.ones(1,4))"),
    ("index_fill", "x.index_fill(1, lab[:1], 1.)"),
    ("index_copy", "x.index_copy(0, lab[:1], torch.ones(1,4))"), ("tril", "x.tril()"),
    ("triu", "x.triu(1)"), ("diag_vec", "v.diag()"), ("diagonal", "x.diagonal()"),
    ("pad", "F.pad(x, (1,1))"), ("setitem", "setitem(x.clone())"), ("mul_", "x.clone().mul_(2)"),
    ("add_", "x.clone().add_(1)"), ("abs_", "x.clone().abs_()"), ("sin", "x.sin()"),
    ("rsqrt", "x.abs().rsqrt()"), ("reciprocal", "x.reciprocal()"), ("erf", "x.erf()"),
    ("atan2", "torch.atan2(x,x)"), ("floor", "x.floor()"), ("round", "x.round()"),
    ("round_dec", "x.round(decimals=1)"), ("sign", "x.sign()"), ("log1p", "x.abs().log1p()"),
    ("expm1", "x.expm1()"), ("exp2", "x.exp2()"), ("lgamma", "x.lgamma()"),
    ("lerp", "torch.lerp(x, x*2, 0.5)"), ("addcmul", "torch.addcmul(x,x,x)"),
    ("outer", "torch.outer(v,v)"), ("normalize", "F.normalize(x)"),
    ("cosine", "F.cosine_similarity(x, x*2)"), ("dropout", "F.dropout(x, 0.5)"),
    ("custom", "Sq.apply(x)"),
]

CASES += [ ("batch_norm_eval", "nn.BatchNorm1d(4).eval()(x)"),
    ("group_norm", "F.group_norm(b.transpose(1,2),2)"),
    ("adaptive_avg3", "F.adaptive_avg_pool2d(img,2)"),
    ("adaptive_avg_1d", "F.adaptive_avg_pool1d(b,2)"),
    ("adaptive_avg_1d_global", "F.adaptive_avg_pool1d(b,1)"),
    ("adaptive_max", "F.adaptive_max_pool2d(img,2)"),
    ("adaptive_max_3d", "F.adaptive_max_pool3d(vol,2)"),
    ("soft_margin", "F.soft_margin_loss(x,t)"),
    ("clamp_tensor", "x.clamp(torch.zeros(3,4), torch.ones(3,4))"),
    ("masked_fill", "x.masked_fill(t>0, 0.)"),
    ("masked_fill_t", "x.masked_fill(t>0, torch.tensor(1.))"),
    ("index_select", "x.index_select(0, lab[:2])"), ("masked_select", "x.masked_select(t>0)"),
    ("diag_embed", "torch.diag_embed(v)"), ("trace", "x[:3,:3].trace()"),
    ("pad_reflect", "F.pad(b, (1,1), mode='reflect')"),
    ("pad_replicate_2d", "F.pad(img, (1,1,1,1), mode='replicate')"),
    ("interp_nearest", "F.interpolate(b, scale_factor=2)"),
    ("interp_bilinear", "F.interpolate(img, scale_factor=2, mode='bilinear')"),
    ("interp_bicubic", "F.interpolate(img, scale_factor=2, mode='bicubic')"),
    ("interp_trilinear", "F.interpolate(vol, scale_factor=2, mode='trilinear')"),
    ("interp_area", "F.interpolate(img, size=(3,3), mode='area')"),
    ("interp_aa", "F.interpolate(img, scale_factor=0.5, mode='bilinear', antialias=True)"),
    ("glu", "F.glu(x)"), ("prelu", "F.prelu(x, torch.tensor([0.25]))"),
]

SETUP = """
x = R(3, 4); v = R(4); b = R(2, 3, 4); img = R(1, 1, 6, 6); vol = R(1, 1, 4, 4, 4)
img4 = R(2, 3, 4, 4); t = torch.randn(3, 4); lab = torch.tensor([0, 1, 2])
lab2d = torch.zeros(2, 4, 4, dtype=torch.long)


def setitem(y):
    y[0] = 1.0
    return y


class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g
"""


def _namespace(lib):
    lib.manual_seed(0)
    env = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional,
           "R": lambda *s: lib.randn(*s, requires_grad=True)}
    exec(SETUP, env)
    return env


_ENVS = {}


def _node(lib, expr):
    if lib not in _ENVS:
        _ENVS[lib] = _namespace(lib)
    with np.errstate(all="ignore"):
        y = eval(expr, _ENVS[lib])
    return y, y.grad_fn


@pytest.mark.parametrize("label, expr", CASES, ids=[c[0] for c in CASES])
def test_node_names_match_torch(label, expr):
    y_t, fn_t = _node(torch, expr)
    y_n, fn_n = _node(numtorch, expr)
    assert type(fn_n).__name__ == type(fn_t).__name__
    assert fn_n.name() == fn_t.name()
    assert repr(y_n).split("grad_fn=")[-1] == repr(y_t).split("grad_fn=")[-1]


def _tree(fn):
    if fn is None:
        return None
    return (type(fn).__name__, fn.name(),
            tuple((_tree(f), nr) for f, nr in fn.next_functions))


GRAPHS = {
    "mlp": lambda t, x, w, b, c: ((x @ w.t() + b).relu() ** 2).mean(),
    "select": lambda t, x, w, b, c: x[0] * x[1:].sum(),
    "cat": lambda t, x, w, b, c: t.cat([x, c]).sum(0),
    "constant": lambda t, x, w, b, c: (x * c + 1).tanh().sigmoid(),
    "view": lambda t, x, w, b, c: x.view(12).exp()[2:].sum(),
    "inplace": lambda t, x, w, b, c: (x * 1).mul_(2).add_(1),
    "mse": lambda t, x, w, b, c: t.nn.functional.mse_loss(x, c),
    "custom": lambda t, x, w, b, c: _ENVS.setdefault(t, _namespace(t))["Sq"].apply(x).sum(),
}


@pytest.mark.parametrize("name", list(GRAPHS))
def test_next_functions_match_torch(name):
    trees = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        x, w, b = (lib.randn(*s, requires_grad=True) for s in ((3, 4), (2, 4), (2,)))
        trees.append(_tree(GRAPHS[name](lib, x, w, b, lib.randn(3, 4)).grad_fn))
    assert trees[1] == trees[0]


def test_accumulate_grad_and_custom_function_nodes():
    for lib in (torch, numtorch):
        x = lib.ones(2, requires_grad=True)
        acc = (x * 2).grad_fn.next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
        assert repr(acc).startswith("<AccumulateGrad object at 0x")
    y = _node(numtorch, "Sq.apply(x)")[1]
    assert repr(y).startswith("<torch.autograd.function.SqBackward object at 0x")  # torch's name


def test_renamed_nodes_backpropagate_and_replay_views():
    grads = []
    for lib in (torch, numtorch):
        x = lib.arange(6.0, requires_grad=True)
        base = x * 1
        v = base.view(2, 3).t()  # a view of a view: rebuilt from its base after the write
        w = base.view(2, 3)[0]
        w.mul_(2)
        (v * lib.arange(6.0).view(3, 2)).sum().backward()
        grads.append(x.grad.tolist())
        assert type(w.grad_fn).__name__ == type(v.grad_fn).__name__ == "AsStridedBackward0"
        assert type(base.grad_fn).__name__ == "CopySlices"
    assert grads[1] == grads[0]


def test_node_metadata_and_sequence_numbers_as_torch():
    for lib in (torch, numtorch):
        x = lib.ones(2, requires_grad=True)
        y, z = x * 2, x * 3
        assert y.grad_fn.metadata == {}
        y.grad_fn.metadata["tag"] = 1
        assert y.grad_fn.metadata == {"tag": 1} and z.grad_fn.metadata == {}
        assert y.grad_fn._sequence_nr() < z.grad_fn._sequence_nr()
