"""The meta device against torch: tensors with a shape, dtype and strides but no data.

Each case runs the same snippet under torch and numtorch and compares what a user can see:
repr, shape, strides, dtype, device, autograd attributes, or the exception's class and text.
"""

import copy
import time
import tracemalloc
import warnings

import pytest
import torch

import numtorch


def _seen(x):
    """What a program can observe of ``x`` (tensors described, containers walked)."""
    if isinstance(x, (torch.Tensor, numtorch.Tensor)):
        fn = x.grad_fn
        return ("T", repr(x), tuple(x.shape), x.stride(), str(x.dtype).split(".")[-1],
                str(x.device), x.is_meta, x.requires_grad, x.is_leaf,
                None if fn is None else type(fn).__name__, x.is_contiguous())
    if isinstance(x, (tuple, list)):
        return tuple(_seen(v) for v in x)
    if isinstance(x, dict):
        return {k: _seen(v) for k, v in x.items()}
    if isinstance(x, (torch.device, numtorch.device)):
        return ("device", str(x))
    if isinstance(x, (torch.dtype, numtorch.dtype)):
        return ("dtype", str(x).split(".")[-1])
    if isinstance(x, (torch.Size, numtorch.Size)):
        return tuple(x)
    return x


def _run(lib, code):
    env = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "copy": copy}
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            exec(code, env)
            got = _seen(env.get("out"))
        return got, [(c.category.__name__, str(c.message)) for c in w]
    except Exception as e:  # noqa: BLE001 - the class and text are what is compared
        return ("raised", type(e).__name__, str(e))


def _same(code):
    want = _run(torch, code)
    got = _run(numtorch, code)
    assert got == want, f"\n{code}\ntorch:    {want}\nnumtorch: {got}"


CREATION = [
    "out = torch.empty(3, 4, device='meta')",
    "out = torch.empty((), device='meta')",
    "out = torch.zeros(2, device='meta', dtype=torch.int64)",
    "out = torch.ones(0, 3, device='meta', dtype=torch.int64)",
    "out = torch.randn(0, device='meta')",
    "out = torch.full((2,), 3, device='meta')",
    "out = torch.full((2, 2), True, device='meta')",
    "out = torch.tensor(3., device='meta')",
    "out = torch.tensor([[1, 2]], device='meta')",
    "out = torch.ones(2, 3, device='meta', requires_grad=True)",
    "out = torch.rand(2, 3, device='meta', dtype=torch.float64)",
    "out = torch.randint(0, 5, (3,), device='meta')",
    "out = torch.randperm(4, device='meta')",
    "out = torch.arange(5, device='meta')",
    "out = torch.arange(0, 1, 0.25, device='meta')",
    "out = torch.linspace(0, 1, 5, device='meta')",
    "out = torch.eye(3, 2, device='meta')",
    "out = torch.empty(2, device='meta', dtype=torch.bool)",
    "out = torch.empty(2, device='meta', dtype=torch.complex64)",
    "out = torch.empty(2, device='meta', dtype=torch.float16)",
    "out = torch.empty_like(torch.ones(2, 3), device='meta')",
    "out = torch.zeros_like(torch.empty(2, 3, device='meta'))",
    "out = torch.ones(2, 3).t().to('meta')",
    "out = torch.empty(2, 3, device='meta').new_empty(4)",
    "out = torch.empty(2, 3, device='meta').new_zeros((1, 2))",
    "out = torch.empty_strided((2, 3), (1, 2), device='meta')",
    "with torch.device('meta'):\n    out = [torch.ones(2), torch.randn(3, 3), torch.tensor([1.5])]",
    "torch.set_default_device('meta')\ntry:\n    out = torch.zeros(2, 2)\n"
    "finally:\n    torch.set_default_device(None)",
    "out = torch.empty(3, 4, device='meta'); out = (out.is_meta, out.device, out.nbytes,"
    " out.element_size(), out.numel(), out.dim(), out.data_ptr(), out.get_device())",
    "out = torch.ones(3).to('meta'); out = (out, torch.ones(3).to(device='meta', "
    "dtype=torch.float64))",
    "out = torch.ones(3, requires_grad=True).to('meta')",
    "m = torch.empty(2, 3, device='meta'); out = (m.untyped_storage().device, m.is_shared(),"
    " m.untyped_storage().nbytes(), m[1:].storage_offset(), m.t()[1:].storage_offset())",
]


@pytest.mark.parametrize("code", CREATION)
def test_creation_matches_torch(code):
    _same(code)


OPS = [
    "a = torch.empty(4, 5, device='meta'); out = [a + 1, a * torch.tensor(2.), a - a[0], "
    "a.exp(), a > 0, a / 2, a // 2, -a, a.abs(), a.to(torch.int32) + 1.5]",
    "a = torch.empty(4, 5, device='meta'); out = [a * torch.tensor(2, dtype=torch.float64),"
    " a + torch.tensor(2, dtype=torch.int64), a.to(torch.int32) * 2, a.half() + a]",
    "a = torch.empty(4, 5, device='meta'); b = torch.empty(5, 6, device='meta');"
    " out = [a @ b, a.t(), a[1:, ::2], a[0], a[:, 1], a[None, ..., 2], a.T.contiguous()]",
    "a = torch.empty(3, 4, 5, device='meta'); out = [a @ torch.empty(5, device='meta'),"
    " torch.empty(5, device='meta') @ torch.empty(5, 2, device='meta'),"
    " torch.empty(2, 1, 4, 5, device='meta') @ torch.empty(3, 5, 7, device='meta'),"
    " torch.bmm(a, a.transpose(1, 2)), torch.mm(a[0], a[0].t()), torch.dot(a[0, 0], a[0, 1]),"
    " torch.einsum('bij,bjk->bik', a, a.transpose(1, 2)), torch.outer(a[0, 0], a[0, 0])]",
    "a = torch.empty(4, 5, device='meta'); out = [a.sum(), a.sum(0), a.sum(1, keepdim=True),"
    " a.mean(0), a.argmax(1), a.max(1), a.var(), a.norm(), a.cumsum(0), a.softmax(-1),"
    " a.log_softmax(0), a.std(1), a.prod(0), a.all(), a.amax((0, 1))]",
    "a = torch.empty(2, 3, 4, device='meta'); out = [a.reshape(6, 4), a.view(-1), a.permute(2, 0,"
    " 1), a.transpose(0, 2), a.expand(5, 2, 3, 4), a.unsqueeze(1), a.flatten(1), a.squeeze(),"
    " a.chunk(2, 2), a.split(1), a.unbind(0), a.narrow(2, 1, 2), a.movedim(0, -1), a.flip(0),"
    " a.repeat(2, 1, 1), a.roll(1, 0)]",
    "a = torch.empty(2, 3, device='meta'); out = [a.t() * 2, a.t() + a.t(), a.t().clone(),"
    " a.t().contiguous(), a.t().exp()]",
    "a = torch.empty(2, 3, device='meta'); out = [torch.cat([a, a]), torch.stack([a, a], 1),"
    " torch.where(a > 0, a, 0.), a.clamp(0, 1), a.masked_fill(a > 0, 1.),"
    " torch.gather(a, 1, torch.zeros(2, 2, dtype=torch.long, device='meta')),"
    " a[torch.zeros(4, dtype=torch.long, device='meta')], a.index_select(1,"
    " torch.zeros(2, dtype=torch.long, device='meta')), a.topk(2), a.sort(1)]",
    "x = torch.empty(2, 3, 8, 8, device='meta'); out = [F.conv2d(x, torch.empty(4, 3, 3, 3,"
    " device='meta'), padding=1), F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.relu(x),"
    " F.gelu(x), F.layer_norm(x, (8,)), F.batch_norm(x, None, None, training=True),"
    " F.linear(x, torch.empty(5, 8, device='meta')), F.dropout(x, 0.5),"
    " F.interpolate(x, scale_factor=2), F.adaptive_avg_pool2d(x, 1), x.flatten(1)]",
    "x = torch.empty(2, 3, device='meta'); out = [F.cross_entropy(x, torch.zeros(2,"
    " dtype=torch.long, device='meta')), F.mse_loss(x, x), F.embedding(torch.zeros(4,"
    " dtype=torch.long, device='meta'), torch.empty(10, 3, device='meta'))]",
    "a = torch.empty(4, 5, device='meta'); v = a._version; b = a.add_(1); a.mul_(2);"
    " a.uniform_(); a.normal_(); a.zero_(); a.fill_(3); a[0] = 1; a.copy_(a);"
    " out = [b is a, a, a._version - v]",
    "a = torch.empty(4, 5, device='meta'); out = [nn.init.kaiming_uniform_(a),"
    " nn.init.xavier_normal_(a), nn.init.zeros_(a), nn.init.orthogonal_(a) if False else a]",
    "a = torch.empty(3, device='meta'); out = [a[a > 0]]",
    "a = torch.empty(3, device='meta'); out = [a.nonzero()]",
    "out = torch.ones((), dtype=torch.float64) + torch.ones(3, device='meta')",
]


@pytest.mark.parametrize("code", OPS)
def test_ops_on_meta_match_torch(code):
    _same(code)


HEAVY = [
    # shapes of convolutions and pools come from their parameters: nothing is scanned, so a
    # 53-terabyte input (pytorch/tutorials' reasoning_about_shapes recipe) takes no time
    "out = nn.Conv2d(3, 5, 2, device='meta')(torch.rand(2**10, 3, 2**16, 2**16, device='meta'))"
    "\nout = (repr(out), out.shape, out.dtype)",  # (too large to map: zero strides here)
    "x = torch.empty(2, 3, 9, 9, device='meta'); out = [F.conv2d(x, torch.empty(6, 1, 3, 3,"
    " device='meta'), stride=2, padding=1, dilation=2, groups=3), F.conv_transpose2d(x,"
    " torch.empty(3, 4, 3, 3, device='meta'), stride=2, output_padding=1),"
    " F.max_pool2d(x, 3, 2, 1, return_indices=True), F.max_pool2d(x, 2, ceil_mode=True),"
    " F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), F.conv1d(x[:, :, 0], torch.empty(2,"
    " 3, 4, device='meta')), F.max_pool1d(x[:, :, 0], 2), F.conv3d(x[:, :, None],"
    " torch.empty(2, 3, 1, 2, 2, device='meta'))]",
    "m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.MaxPool2d(2), nn.Conv2d(8, 4, 3),"
    " nn.AvgPool2d(2), nn.ConvTranspose2d(4, 2, 2, stride=2)).to('meta');"
    " x = torch.empty(2, 3, 32, 32, device='meta', requires_grad=True); y = m(x);"
    " y.sum().backward(); out = [y, x.grad, [p.grad for p in m.parameters()]]",
]


@pytest.mark.parametrize("code", HEAVY)
def test_convolutions_and_pools_on_meta_match_torch(code):
    _same(code)


AUTOGRAD = [
    # nanoGPT's GPT built under torch.device('meta') trains a step there: embedding backward
    # (its own index bookkeeping runs on the absent data) and cross_entropy with targets
    "e = nn.Embedding(10, 4, device='meta'); y = e(torch.zeros(3, 5, dtype=torch.long,"
    " device='meta')); l = F.cross_entropy(y.view(-1, 4), torch.zeros(15, dtype=torch.long,"
    " device='meta'), ignore_index=-1); l.backward(); out = [l, e.weight.grad]",
    "x = torch.ones(2, 3, device='meta', requires_grad=True); y = (x * 2).sum(); y.backward();"
    " out = [y, x.grad]",
    "x = torch.ones(2, 3, device='meta', requires_grad=True); y = x.exp().mean(1);"
    " out = [y, torch.autograd.grad(y.sum(), x, create_graph=True)]",
    "m = nn.Linear(3, 4, device='meta'); y = m(torch.randn(5, 3, device='meta')).relu().mean();"
    " y.backward(); out = [y, m.weight.grad, m.bias.grad]",
    "m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),"
    " nn.LazyLinear(2)).to('meta') if False else nn.Sequential(nn.Conv2d(3, 4, 3),"
    " nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(144, 2)).to('meta');"
    " y = m(torch.empty(2, 3, 8, 8, device='meta')); y.sum().backward();"
    " out = [y, [p.grad for p in m.parameters()], m[1].running_mean]",
]


@pytest.mark.parametrize("code", AUTOGRAD)
def test_autograd_on_meta_matches_torch(code):
    _same(code)


ERRORS = [
    "out = torch.empty(1, device='meta').item()",
    "out = torch.empty(3, device='meta').item()",
    "out = torch.empty(2, device='meta').tolist()",
    "out = torch.empty((), device='meta').tolist()",
    "out = torch.empty(2, device='meta').numpy()",
    "out = torch.empty(2, device='meta', requires_grad=True).numpy()",
    "out = torch.empty(2, device='meta').cpu()",
    "out = torch.empty(2, device='meta').to('cpu', torch.float64)",
    "out = float(torch.empty(1, device='meta'))",
    "out = int(torch.empty(1, device='meta'))",
    "out = bool(torch.empty(1, device='meta'))",
    "out = bool(torch.empty(3, device='meta'))",
    "out = torch.empty(2, device='meta').__array__()",
    "out = torch.empty(1, device='meta'); out = torch.ones(1).copy_(out)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_reading_meta_data_raises_as_torch(code):
    _same(code)


MODULES = [
    "m = nn.Linear(3, 2).to('meta'); out = [m.weight, m.bias, m.state_dict(), str(m)]",
    "with torch.device('meta'):\n    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))\n"
    "out = [dict(m.named_parameters()), dict(m.named_buffers())]",
    "m = nn.Linear(3, 2, device='meta'); r = m.to_empty(device='cpu');"
    " out = [r is m, m.weight.device, m.weight.shape, m.bias.dtype]",
    "m = nn.Linear(3, 2, device='meta'); m.load_state_dict(nn.Linear(3, 2).state_dict());"
    " out = [m.weight]",
    "m = nn.Sequential(nn.Linear(3, 2, device='meta'));"
    " m.load_state_dict(nn.Sequential(nn.Linear(3, 2)).state_dict()); out = [m[0].bias]",
    "m = nn.Linear(3, 2, device='meta'); torch.manual_seed(0);"
    " r = m.load_state_dict(nn.Linear(3, 2).state_dict(),"
    " assign=True); out = [str(r), m.weight, type(m.weight).__name__]",
    "m = nn.Linear(3, 2); out = copy.deepcopy(m).to('meta'); out = [out.weight, m.weight.device]",
    "out = copy.deepcopy(nn.Parameter(torch.empty(2, 3, device='meta')))",
    "import pickle\nout = pickle.loads(pickle.dumps(torch.empty(2, 3, device='meta',"
    " dtype=torch.float64)))",
    "out = torch.tensor(torch.empty(2, 3, device='meta'))",
    "p = nn.Parameter(torch.empty(3, device='meta')); p.sum().backward();"
    " torch.optim.Adam([p]).step(); torch.optim.SGD([p], lr=0.1, momentum=0.9).step();"
    " out = [p, p.grad, nn.utils.clip_grad_norm_([p], 1.0)]",
    "m = nn.Linear(3, 2).to('meta'); out = [torch.func.functional_call(m, {'weight':"
    " torch.ones(2, 3), 'bias': torch.ones(2)}, (torch.ones(1, 3),)),"
    " torch.vmap(lambda a: a * 2)(torch.empty(4, 3, device='meta'))]",
    "m = nn.Linear(3, 2).to('meta'); out = m(torch.empty(4, 3, device='meta'))",
    "m = nn.LSTM(4, 8, batch_first=True).to('meta'); out = m(torch.empty(2, 5, 4,"
    " device='meta'))",
    "m = nn.LSTM(4, 8, num_layers=2, bidirectional=True).to('meta');"
    " y = m(torch.empty(5, 2, 4, device='meta'))[0]; y.sum().backward();"
    " out = [y, [p.grad for p in m.parameters()]]",
    "x = torch.ones(2, 3, device='meta', requires_grad=True); y = (x * x).sum(); y.backward()\n"
    "y.backward()",
    "m = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0).to('meta');"
    " out = m(torch.empty(2, 5, 8, device='meta'))",
]


@pytest.mark.parametrize("code", MODULES)
def test_modules_on_meta_match_torch(code):
    _same(code)


def test_meta_draws_leave_the_cpu_stream_alone():
    got = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        lib.randn(5, device="meta")
        lib.empty(3, 3, device="meta").uniform_()
        lib.nn.Linear(4, 4, device="meta")
        got.append(lib.randn(4).tolist())
    assert got[0] == got[1]


def test_a_huge_model_on_meta_allocates_nothing():
    """nn.Linear(50000, 50000) on meta (10 GB of float32 weights) is instant and takes no
    memory, as in torch. Its forward and backward on a meta batch allocate nothing of the
    weights' size either (an op without a shape rule may hold an activation-sized scratch
    array for a moment: 8 x 50000 floats here, 1.6 MB)."""
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        with numtorch.device("meta"):
            m = numtorch.nn.Linear(50000, 50000)
        built = time.perf_counter() - t0
        build_peak = tracemalloc.get_traced_memory()[1]
        y = m(numtorch.empty(8, 50000, device="meta", requires_grad=True))
        y.sum().backward()
        spent = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert m.weight.is_meta and m.weight.grad.is_meta and y.shape == (8, 50000)
    assert m.weight.stride() == (50000, 1) and m.weight.grad.stride() == (50000, 1)
    assert build_peak < 1 << 20, build_peak
    assert peak < 4 << 20, peak
    assert built < 0.5 and spent < 2.0, (built, spent)
