"""Models pickled whole by tests/test_serialization_whole.py.

The same class path must name a torch module in one process and a numtorch module in the
other, so the library is chosen by the environment variable ``SERIALIZATION_MODELS_LIB``
(``numtorch`` by default, ``torch`` in the child processes that run real torch).
"""

import importlib
import math
import os

import numpy as np

torch = importlib.import_module(os.environ.get("SERIALIZATION_MODELS_LIB", "numtorch"))
nn = torch.nn
F = torch.nn.functional


class LSTMLanguageModel(nn.Module):
    """An embedding, a two-layer LSTM and a decoder (as in word_language_model)."""

    def __init__(self, ntoken=23, ninp=8, nhid=12, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, tokens):
        weight = next(self.parameters())
        hidden = (weight.new_zeros(self.nlayers, tokens.shape[1], self.nhid),
                  weight.new_zeros(self.nlayers, tokens.shape[1], self.nhid))
        output, _ = self.rnn(self.encoder(tokens), hidden)
        return F.log_softmax(self.decoder(output), dim=-1)


class TransformerModel(nn.Module):
    """A causal TransformerEncoder language model with a GELU layer and a mask buffer."""

    def __init__(self, ntoken=23, d_model=8, nhead=2, nlayers=2, seq=5):
        super().__init__()
        self.embedding = nn.Embedding(ntoken, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, 16, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.gelu_layer = nn.TransformerEncoderLayer(d_model, nhead, 16, dropout=0.0,
                                                     activation="gelu")
        self.decoder = nn.Linear(d_model, ntoken)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))
        self.scale = math.sqrt(d_model)

    def forward(self, tokens):
        x = self.embedding(tokens) * self.scale
        x = self.gelu_layer(self.encoder(x, mask=self.mask))
        return F.log_softmax(self.decoder(x), dim=-1)


# -- the checkpoint both sides save, and what loading it must reproduce --------------------
def build(lib, M, path):
    """Save models, an optimizer and its scheduler (``lib`` is numtorch or torch) to ``path``
    and return what :func:`use` gives on them."""
    lib.manual_seed(0)
    lin = lib.nn.Linear(4, 3)
    lstm, tr = M.LSTMLanguageModel(), M.TransformerModel()
    tr.eval()
    opt = lib.optim.Adam(lin.parameters(), lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = lib.from_numpy(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    for _ in range(2):
        opt.zero_grad()
        (lin(x) ** 2).sum().backward()
        opt.step()
        sched.step()
    lib.save({"linear": lin, "lstm": lstm, "transformer": tr, "opt": opt, "sched": sched},
             path)
    lib.save(lin, path + ".linear")
    lib.save({"linear": lin, "lstm": lstm, "transformer": tr}, path + ".models")
    return use({"linear": lin, "lstm": lstm, "transformer": tr, "opt": opt, "sched": sched},
               lib)


def use(obj, lib):
    """Outputs of the models, then of one more optimizer and scheduler step (JSON-able)."""
    tokens = lib.from_numpy((np.arange(10).reshape(5, 2) * 7) % 23)
    x = lib.from_numpy(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    out = {"linear": obj["linear"](x), "lstm": obj["lstm"](tokens),
           "transformer": obj["transformer"](tokens)}
    if "opt" not in obj:  # (weights-only loads: torch cannot load optimizers so)
        return {k: v.detach().numpy().tolist() for k, v in out.items()}
    opt, sched, lin = obj["opt"], obj["sched"], obj["linear"]
    assert opt.param_groups[0]["params"][0] is lin.weight  # one object graph
    opt.zero_grad()
    (lin(x) ** 2).sum().backward()
    opt.step()
    sched.step()
    out["stepped"] = lin.weight
    out = {k: v.detach().numpy().tolist() for k, v in out.items()}
    out["lr"] = sched.get_last_lr()
    return out
