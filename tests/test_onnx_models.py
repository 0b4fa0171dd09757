"""ONNX export of layers and models: every exported file passes onnx's checker and gives
numtorch's outputs in onnxruntime, at the example sizes and, with dynamic axes, at others."""

import math

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch import nn
from tests.onnx_helpers import op_types, roundtrip

BATCH = {"input": {0: "batch"}}


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


ACTIVATIONS = [nn.ReLU(), nn.GELU(), nn.GELU("tanh"), nn.Tanh(), nn.Sigmoid(), nn.Softmax(1),
               nn.LogSoftmax(1), nn.LeakyReLU(0.2), nn.ELU(0.7), nn.SELU(), nn.CELU(1.3),
               nn.SiLU(), nn.Mish(), nn.Softplus(2.0, 3.0), nn.Hardtanh(-0.5, 0.7), nn.ReLU6(),
               nn.Hardswish(), nn.Hardsigmoid(), nn.PReLU(), nn.LogSigmoid(),
               nn.Hardshrink(0.3), nn.Softshrink(0.3), nn.Threshold(0.1, -2.0), nn.Softsign(),
               nn.Tanhshrink()]


@pytest.mark.parametrize("opset", [13, 17, 20])
def test_mlp_with_every_activation(opset):
    model = nn.Sequential(nn.Linear(6, 8), *[nn.Sequential(a, nn.Linear(8, 8))
                                               for a in ACTIVATIONS])
    x = torch.randn(5, 6) * 3
    roundtrip(model, (x,), (torch.randn(2, 6) * 3,), opset_version=opset,
              dynamic_axes=BATCH)


def test_cnn_layers_with_dynamic_batch():
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
        nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4, bias=False),
        nn.MaxPool2d(3, 2, padding=1, ceil_mode=True), nn.GroupNorm(2, 8),
        nn.AvgPool2d(2, 1, padding=1, count_include_pad=False), nn.InstanceNorm2d(8, affine=True),
        nn.AvgPool2d(2, ceil_mode=True), nn.Dropout2d(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(8, 4))
    proto = roundtrip(model, (torch.randn(2, 3, 17, 15),), (torch.randn(5, 3, 17, 15),),
                      dynamic_axes=BATCH)
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert "Conv" in op_types(proto) and "MaxPool" in op_types(proto)


def test_pooling_and_resampling_variants():
    def fn(x):
        a = F.adaptive_avg_pool2d(x, (3, 2))
        b = F.adaptive_max_pool2d(x, (2, 3))
        c = F.avg_pool2d(x, 3, 2, padding=1, divisor_override=4)
        d = F.interpolate(x, scale_factor=2, mode="nearest")
        e = F.interpolate(x, size=(4, 9), mode="bilinear", align_corners=False)
        g = F.max_pool2d(x, 2, dilation=2)
        return a, b, c, d, e, g, F.pad(x, (1, 2, 0, 1), value=0.5)
    roundtrip(Lambda(fn), (torch.randn(2, 3, 7, 6),))


def test_conv_family():
    model = nn.Sequential(nn.Conv1d(4, 6, 3, stride=2, padding=1), nn.Tanh(),
                          nn.Conv1d(6, 6, 5, padding="same", groups=3), nn.MaxPool1d(2),
                          nn.AvgPool1d(2), nn.Flatten(), nn.Linear(6 * 2, 3))
    roundtrip(model, (torch.randn(2, 4, 17),), (torch.randn(3, 4, 17),), dynamic_axes=BATCH)
    up = nn.Sequential(nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1),
                       nn.ConvTranspose2d(6, 4, 4, stride=2, padding=1, groups=2, bias=False),
                       nn.Conv3d(4, 2, 1) if False else nn.Identity())
    roundtrip(up, (torch.randn(2, 4, 5, 6),), (torch.randn(1, 4, 5, 6),), dynamic_axes=BATCH)


def test_norms_embedding_and_tensor_ops():
    emb = nn.Embedding(20, 6, padding_idx=0)
    ln = nn.LayerNorm(6)
    ln2 = nn.LayerNorm([3, 6], elementwise_affine=False)

    def fn(idx, y):
        e = ln(emb(idx))  # (B, T, 6)
        b, t, _ = e.shape
        z = e.view(b * t, 6).reshape(b, t, 2, 3).permute(0, 2, 1, 3).transpose(2, 3)
        z = torch.cat([z, z * 2 + 1], dim=1)[:, 1:3, ..., ::2]
        z = z.flatten(1).unsqueeze(1).squeeze(1)
        w = (e @ y.t()).softmax(-1) / 2 - e.sum(-1, keepdim=True).exp() * 0.1
        w = torch.where(w > 0, w, -w).clamp(max=0.3) ** 2
        m = e.masked_fill(idx.unsqueeze(-1) == 3, float("-inf")).amax(1)
        v = torch.stack([e.mean(1), e.std(1), e.max(1).values, e.logsumexp(1)], 0)
        a = e.argmax(-1) + e[:, :, 0].argmin(1, keepdim=True)
        r = e[:, -1] + e[:, 0, None].expand(b, 4, 6)[:, 1] + e[:, 0].norm(dim=-1, keepdim=True)
        return z, w, m, v, a, r, ln2(e[:, :3]), e.cumsum(1), torch.einsum("btd,ed->bte", e, y)
    idx = torch.randint(0, 20, (2, 5))
    roundtrip(Lambda(fn), (idx, torch.randn(4, 6)))


def test_integer_and_indexing_ops():
    def fn(x, i):
        k = (x * 7).long()
        return (k // 3, k % 4, torch.div(k, 3, rounding_mode="trunc"), x[i], x[:, i],
                x[i, i], x.gather(1, i.view(1, -1).expand(3, -1)), k.float() / 2, x.flip(0),
                x.roll(1, 1), x.repeat(2, 1), ~(x > 0), (x > 0) & (x < 0.5),
                torch.tril(x), torch.triu(x, 1), x.abs().sqrt().rsqrt().log1p())
    roundtrip(Lambda(fn), (torch.randn(3, 4), torch.tensor([2, 0, 1])))


def test_sizes_read_inside_forward_follow_dynamic_axes():
    def fn(x):
        b, t, d = x.shape
        heads = x.view(b, t, 2, d // 2).transpose(1, 2).reshape(b * 2, t, d // 2)
        pos = torch.arange(t).float().unsqueeze(0).expand(b, t)
        half = x[:, : t // 2] + x[:, t - t // 2:]
        zeros = x.new_zeros(b, t + 1)[:, 1:]
        count = x.sum((1, 2)) / torch.tensor(t * d)
        flat = x.reshape(-1, d)[: b * t - 1]
        return heads, pos + zeros, half, count, flat, x.flatten(0, 1).view(b, t * d)
    roundtrip(Lambda(fn), (torch.randn(2, 6, 4),), (torch.randn(3, 10, 4),),
              (torch.randn(1, 2, 4),), dynamic_axes={"args_0": {0: "b", 1: "t"}})


FUNCTIONS = {
    "topk": lambda x: x.topk(2, -1), "sort": lambda x: x.sort(1).values,
    "normalize": lambda x: F.normalize(x, dim=1),
    "cosine": lambda x: F.cosine_similarity(x, x.flip(0), dim=1),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x[:, :1].repeat(1, 4, 1, 1), 2),
    "stack_split": lambda x: torch.stack(torch.split(x, [1, 2], 1)[1].chunk(2, 1), 1),
    "unbind_split": lambda x: torch.stack(x.unbind(2)[::-1], 1) + x.split(2, 3)[1].sum(),
    "bmm": lambda x: torch.baddbmm(x[0, :, :4, :4], x[0], x[1].transpose(1, 2)[:, :5, :4]),
    "addmm": lambda x: torch.addmm(x[0, 0, :, :4], x[0, 0], x[0, 1].t()[:5, :4]),
    "lrn": nn.LocalResponseNorm(2), "upsample": nn.Upsample(scale_factor=2),
    "bicubic": lambda x: F.interpolate(x, scale_factor=1.5, mode="bicubic"),
    "glu": lambda x: F.glu(x, 2), "var_std": lambda x: torch.std_mean(x, 1)[0] + x.var(),
    "extremes": lambda x: x.min() + x.max() + x.prod(1) + (x > 0).any(1),
    "where_scalars": lambda x: torch.where(x > 0, 1.0, 0.0) + x.square() * x.sign(),
    "nan_to_num": lambda x: torch.nan_to_num(torch.log(x), nan=1.5, posinf=3.0),
    "atan2": lambda x: torch.atan2(x, x.flip(0)), "rrelu": nn.RReLU(),
    "unfold": lambda x: F.unfold(x, (2, 3), padding=1, stride=(1, 2), dilation=(2, 1)),
    "pools_1d_lp": lambda x: (F.adaptive_avg_pool1d(x[0], 2), F.lp_pool2d(x, 2, 2)),
    "one_hot": lambda x: F.one_hot(x.argmax(1), 5), "masked_select": lambda x: x[x > 0.5],
    "nonzero": lambda x: torch.nonzero(x > 0),
    "repeat_interleave": lambda x: x.repeat_interleave(2, 1),
    "index_select": lambda x: x.index_select(1, torch.tensor([0, 2])),
    "scatter_add": lambda x: torch.zeros(2, 3, 4, 5).scatter_add(
        1, (x > 0).long(), x),
    "max_pool_indices": lambda x: F.max_pool2d(x, 2, ceil_mode=True, return_indices=True),
    "logaddexp": lambda x: torch.logaddexp(x, x * 2) + torch.minimum(x, x.flip(0)),
    "powers": lambda x: (x.abs() ** 1.7, (x * 3).long() ** 2, 1 - x),
    "clamp_tensor": lambda x: x.clamp(min=x.flip(0)),
    "products": lambda x: (x[0, 0, 0].dot(x[0, 0, 1]), torch.outer(x[0, 0, 0], x[0, 0, 1]),
                           torch.tensordot(x, x, dims=([3], [3]))),
    "diagonal": lambda x: (torch.diagonal(x, 0, -2, -1), torch.diagonal(x, -1, 1, 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tensor_functions(name):
    fn = FUNCTIONS[name]
    model = fn if isinstance(fn, nn.Module) else Lambda(fn)
    roundtrip(model, (torch.randn(2, 3, 4, 5),), rtol=1e-4, atol=1e-4)


def test_inplace_ops_are_recorded():
    def fn(x):
        y = x * 2
        y += 1
        y.relu_()
        z = y.clone()
        z.mul_(x).sub_(0.5)
        return y, z
    roundtrip(Lambda(fn), (torch.randn(4, 5),))


def test_writes_through_indexing_and_views():
    def fn(x):
        y = x * 2
        y[:, 0] = 0
        y[1] = x[0] + 5
        y[:, [1, 3]] = -1.0
        y[2, 1:].zero_()
        y.view(20)[3:5].fill_(7.0)
        y.view(2, 10).mul_(2)
        y[0].add_(x[3])
        buf = torch.zeros(4, 5)
        buf[1:, ::2] = x[:3, 1:4]
        h = torch.empty(4, 5)
        h.copy_(y)
        return y, buf, h
    roundtrip(Lambda(fn), (torch.randn(4, 5),))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers(mode):
    cls = getattr(nn, mode)
    bi = cls(5, 7, num_layers=2, bidirectional=True)
    x = torch.randn(6, 3, 5)
    h = torch.randn(4, 3, 7)
    state = (h, torch.randn(4, 3, 7)) if mode == "LSTM" else h
    dyn = {"input": {0: "seq", 1: "batch"}}
    dyn.update({"hx_0": {1: "batch"}, "hx_1": {1: "batch"}} if mode == "LSTM" else
               {"hx": {1: "batch"}})
    other_state = (torch.randn(4, 2, 7), torch.randn(4, 2, 7)) if mode == "LSTM" else \
        torch.randn(4, 2, 7)
    proto = roundtrip(bi, (x, state), (torch.randn(9, 2, 5), other_state), dynamic_axes=dyn)
    assert op_types(proto).count(mode) == 2
    first = cls(5, 4, batch_first=True)
    roundtrip(first, (torch.randn(2, 6, 5),), (torch.randn(3, 4, 5),),
              dynamic_axes={"input": {0: "batch", 1: "seq"}})
    roundtrip(cls(5, 4), (torch.randn(6, 5),))  # unbatched, no initial state


def test_recurrent_cells():
    lstm, gru, rnn = nn.LSTMCell(4, 6), nn.GRUCell(4, 6), nn.RNNCell(4, 6, nonlinearity="relu")

    def fn(x, h, c):
        h1, c1 = lstm(x, (h, c))
        return h1, c1, gru(x, h1), rnn(x)
    roundtrip(Lambda(fn), (torch.randn(3, 4), torch.randn(3, 6), torch.randn(3, 6)),
              (torch.randn(5, 4), torch.randn(5, 6), torch.randn(5, 6)),
              dynamic_axes={"args_0": {0: "b"}, "args_1": {0: "b"}, "args_2": {0: "b"}})


def test_multihead_attention():
    mha = nn.MultiheadAttention(8, 2)
    q, k = torch.randn(4, 3, 8), torch.randn(6, 3, 8)
    mask = torch.zeros(4, 6)
    mask[:, -1] = float("-inf")
    model = Lambda(lambda q, k, m: mha(q, k, k, attn_mask=m))
    dyn = {"args_0": {0: "L", 1: "N"}, "args_1": {0: "S", 1: "N"}, "args_2": {0: "L", 1: "S"}}
    other = torch.zeros(2, 5)
    roundtrip(model, (q, k, mask), (torch.randn(2, 5, 8), torch.randn(5, 5, 8), other),
              dynamic_axes=dyn)
    first = nn.MultiheadAttention(8, 4, batch_first=True, kdim=6, vdim=5)
    pad = torch.tensor([[False] * 5 + [True], [False] * 6])
    model = Lambda(lambda q, k, v, p: first(q, k, v, key_padding_mask=p,
                                            average_attn_weights=False))
    roundtrip(model, (torch.randn(2, 4, 8), torch.randn(2, 6, 6), torch.randn(2, 6, 5), pad))


def test_transformer_layers_with_dynamic_sequence():
    enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation="gelu", norm_first=True)
    dec = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)
    x = torch.randn(5, 2, 8)
    roundtrip(enc, (x,), (torch.randn(7, 3, 8),),
              dynamic_axes={"src": {0: "seq", 1: "batch"}})
    tgt, mem = torch.randn(2, 4, 8), torch.randn(2, 6, 8)
    roundtrip(dec, (tgt, mem), (torch.randn(3, 2, 8), torch.randn(3, 7, 8)),
              dynamic_axes={"tgt": {0: "b", 1: "t"}, "memory": {0: "b", 1: "s"}})
    full = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    roundtrip(full, (torch.randn(6, 2, 8), torch.randn(4, 2, 8), {"tgt_mask": mask}))


class RNNModel(nn.Module):
    """pytorch/examples' word_language_model RNNModel, as written there."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.rnn_type, self.nhid, self.nlayers = rnn_type, nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div)
        pe[:, 1::2] = torch.cos(position * div)
        self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.dropout(x + self.pe[:x.size(0), :])


class TransformerModel(nn.Transformer):
    """word_language_model's TransformerModel (causal mask made from the input length)."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                         num_encoder_layers=nlayers)
        self.pos_encoder = PositionalEncoding(ninp)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        mask = torch.log(torch.tril(torch.ones(len(src), len(src))))
        src = self.input_emb(src) * math.sqrt(self.ninp)
        output = self.encoder(self.pos_encoder(src), mask=mask)
        return F.log_softmax(self.decoder(output), dim=-1)


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_word_language_model_rnn(rnn_type):
    model = RNNModel(rnn_type, 30, 8, 10, 2)
    hidden = model.init_hidden(3)
    dyn = {"input": {0: "seq", 1: "batch"}, "output_0": {0: "rows"}}
    dyn.update({"hidden_0": {1: "batch"}, "hidden_1": {1: "batch"}} if rnn_type == "LSTM"
               else {"hidden": {1: "batch"}})
    proto = roundtrip(model, (torch.randint(0, 30, (7, 3)), hidden),
                      (torch.randint(0, 30, (4, 5)), model.init_hidden(5)), dynamic_axes=dyn)
    dims = [d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["seq", "batch"]
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "rows"
    assert [d.dim_param or d.dim_value for d in
            proto.graph.output[1].type.tensor_type.shape.dim] == [2, "batch", 10]


def test_word_language_model_transformer():
    model = TransformerModel(30, 8, 2, 16, 2)
    proto = roundtrip(model, (torch.randint(0, 30, (6, 2)),),
                      (torch.randint(0, 30, (11, 3)),),
                      dynamic_axes={"src": {0: "seq", 1: "batch"}})
    assert "ConstantOfShape" in op_types(proto)  # the mask follows the sequence length


def test_bigger_conv_net_is_fast_enough():
    layers = []
    c = 3
    for width in (16, 32, 64):
        layers += [nn.Conv2d(c, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
                   nn.MaxPool2d(2)]
        c = width
    model = nn.Sequential(*layers, nn.Flatten(), nn.Linear(64 * 4 * 4, 10))
    roundtrip(model, (torch.randn(2, 3, 32, 32),), rtol=1e-3, atol=1e-4)


def test_values_do_not_depend_on_example_inputs():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    x = torch.randn(3, 4)
    proto = roundtrip(model, (x,))
    assert np.all([i.name != "input" for i in proto.graph.initializer])
