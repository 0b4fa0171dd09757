"""Acceptance: small training programs in the style of pytorch/examples, minGPT and nanoGPT run
unchanged through ``python -m numtorch.run`` and follow real torch's loss trajectory.

The programs below are our own compact re-writes of the patterns those projects use (not their
code): a word-level RNN language model trained with manual SGD and gradient clipping, saved as a
whole module and reloaded under ``torch.serialization.safe_globals``; a minGPT-style GPT (plain
masked-softmax attention, tanh GELU, AdamW with weight-decay groups, a DataLoader with worker
processes, greedy generation with ``topk``); a nanoGPT-style GPT (``scaled_dot_product_attention``,
tied weights, a disabled GradScaler, data read from a ``np.memmap``, checkpoint and resume).
Weights are set from a seeded NumPy generator and batches are chosen by NumPy, so both libraries
see the same numbers and their losses agree to float32 rounding; each program also checks that
its loss falls. Each program runs under torch and under the launcher at the same time.
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

# Sets every parameter from NumPy in name order, so torch and numtorch start from one model.
_SHARED = '''
import numpy as np


def numpy_init(model, seed, scale=0.1):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            p.copy_(torch.from_numpy(rng.uniform(-scale, scale, tuple(p.shape)).astype(np.float32)))


def markov_tokens(n, vocab, seed):
    """A token stream where each token has three likely successors: learnable structure."""
    rng = np.random.default_rng(seed)
    succ = rng.integers(0, vocab, (vocab, 3))
    out = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        out[i] = succ[out[i - 1], rng.integers(3)]
    return out
'''

WORD_LM = '''
import argparse
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.onnx  # imported at the top of word_language_model
''' + _SHARED + '''

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="LSTM")
parser.add_argument("--steps", type=int, default=10)
parser.add_argument("--lr", type=float, default=2.0)
args = parser.parse_args()
torch.manual_seed(1111)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ("LSTM", "GRU"):
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity="tanh", dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.rnn_type, self.nhid, self.nlayers, self.ntoken = rnn_type, nhid, nlayers, ntoken

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


def repackage_hidden(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


V, bptt = 40, 12
train_data = batchify(torch.from_numpy(markov_tokens(2400, V, 0)), 8)
model = RNNModel(args.model, V, 24, 32, 2)
numpy_init(model, 1)
criterion = nn.NLLLoss()
hidden = model.init_hidden(8)
model.train()
for step, i in enumerate(range(0, bptt * args.steps, bptt)):
    data, targets = train_data[i:i + bptt], train_data[i + 1:i + 1 + bptt].view(-1)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-args.lr)
    print(f"step {step} loss: {loss.item():.6f}")

with open("model.pt", "wb") as f:
    torch.save(model, f)
with open("model.pt", "rb") as f:
    with torch.serialization.safe_globals([
            RNNModel, torch.nn.modules.dropout.Dropout, torch.nn.modules.linear.Linear,
            torch.nn.modules.rnn.GRU, torch.nn.modules.rnn.LSTM, torch.nn.modules.rnn.RNN,
            torch.nn.modules.sparse.Embedding]):
        model = torch.load(f)
model.rnn.flatten_parameters()
model.eval()
with torch.no_grad():
    data = train_data[-bptt - 1:-1]
    out, _ = model(data, model.init_hidden(8))
    print(f"reloaded loss: {criterion(out, train_data[-bptt:].view(-1)).item():.6f}")
    # generate.py's sampling loop (the draws differ between libraries; only the count matters)
    hidden = model.init_hidden(1)
    inp = torch.randint(V, (1, 1), dtype=torch.long)
    words = []
    for _ in range(20):
        output, hidden = model(inp, hidden)
        word_weights = output.squeeze().div(0.8).exp().cpu()
        word_idx = torch.multinomial(word_weights, 1)[0]
        inp.fill_(word_idx)
        words.append(int(word_idx))
    print("generated:", len(words), all(0 <= w < V for w in words))
'''

MINGPT = '''
import math
import sys
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset
''' + _SHARED + '''


class NewGELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(0.0)
        self.resid_dropout = nn.Dropout(0.0)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size))
                             .view(1, 1, block_size, block_size))
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(n_embd, 4 * n_embd), c_proj=nn.Linear(4 * n_embd, n_embd),
                                      act=NewGELU(), dropout=nn.Dropout(0.0)))
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlpf(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=2, n_head=2, n_embd=32):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd), drop=nn.Dropout(0.0),
            h=nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)]), ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def configure_optimizers(self, lr, weight_decay):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                fpn = "%s.%s" % (mn, pn) if mn else pn
                if pn.endswith("bias"):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, (torch.nn.Linear,)):
                    decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, (torch.nn.LayerNorm, torch.nn.Embedding)):
                    no_decay.add(fpn)
        params = {pn: p for pn, p in self.named_parameters()}
        assert not decay & no_decay and not params.keys() - (decay | no_decay)
        groups = [{"params": [params[pn] for pn in sorted(decay)], "weight_decay": weight_decay},
                  {"params": [params[pn] for pn in sorted(no_decay)], "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device).unsqueeze(0)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            _, idx_next = torch.topk(probs, k=1, dim=-1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


class Chars(Dataset):
    def __init__(self, tokens, block_size):
        self.data, self.block_size = tokens, block_size

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        chunk = self.data[idx:idx + self.block_size + 1]
        x = torch.tensor(chunk[:-1], dtype=torch.long)
        y = torch.tensor(chunk[1:], dtype=torch.long)
        y[:2] = -1  # masked out of the loss, as minGPT's adder does
        return x, y


if __name__ == "__main__":
    V, T = 30, 16
    torch.manual_seed(3407)
    dataset = Chars(markov_tokens(3000, V, 0).tolist(), T)
    # minGPT's trainer loader: endless sampling with replacement, worker processes
    sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
    loader = DataLoader(dataset, sampler=sampler, shuffle=False, pin_memory=False, batch_size=16,
                        num_workers=2)
    x, y = next(iter(loader))
    print("sampled batch:", tuple(x.shape), x.dtype, tuple(y.shape), int(y.min()))
    # training reads a fixed order so both libraries see the same batches
    loader = DataLoader(dataset, batch_size=16, shuffle=False, num_workers=2)
    model = GPT(V, T)
    numpy_init(model, 2, scale=0.2)
    optimizer = model.configure_optimizers(3e-3, 0.1)
    model.train()
    for it, (x, y) in enumerate(loader):
        logits, loss = model(x, y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(f"iter {it} loss: {loss.item():.6f}")
        if it == int(sys.argv[1]) - 1:
            break
    model.eval()
    out = model.generate(torch.tensor([dataset.data[:4]], dtype=torch.long), 12, top_k=5)
    print("greedy:", out[0].tolist())
'''

NANOGPT = '''
import math
import os
import pickle
import sys
from contextlib import nullcontext
import torch
import torch.nn as nn
from torch.nn import functional as F
''' + _SHARED + '''

init_from = sys.argv[1]
max_iters = int(sys.argv[2])
out_dir, block_size, batch_size, device = "out", 16, 8, "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
dtype = "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float16"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.manual_seed(1337)

if not os.path.exists("train.bin"):
    markov_tokens(4000, 50, 0).astype(np.uint16).tofile("train.bin")
    with open("meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": 50}, f)
batch_rng = np.random.default_rng(0)


def get_batch():
    data = np.memmap("train.bin", dtype=np.uint16, mode="r")
    ix = batch_rng.integers(0, len(data) - block_size, batch_size)
    x = torch.stack([torch.from_numpy((data[i:i + block_size]).astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy((data[i + 1:i + 1 + block_size]).astype(np.int64)) for i in ix])
    return x, y


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)
        self.n_head, self.n_embd = n_head, n_embd
        self.flash = hasattr(torch.nn.functional, "scaled_dot_product_attention")

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, bias=False)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd, bias=False)
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=False)
        self.gelu = nn.GELU()
        self.proj = nn.Linear(4 * n_embd, n_embd, bias=False)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.proj(self.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab_size, n_embd=32, n_head=4, n_layer=2):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd, bias=False)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is None:
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        groups = [{"params": [p for p in params.values() if p.dim() >= 2], "weight_decay": weight_decay},
                  {"params": [p for p in params.values() if p.dim() < 2], "weight_decay": 0.0}]
        import inspect
        fused = "fused" in inspect.signature(torch.optim.AdamW).parameters and device_type == "cuda"
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas, **(dict(fused=True) if fused else dict()))


def get_lr(it, warmup=2, lr=2e-2, min_lr=2e-3, decay=12):
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    ratio = (it - warmup) / (decay - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * min(ratio, 1.0))) * (lr - min_lr)


with open("meta.pkl", "rb") as f:
    vocab_size = pickle.load(f)["vocab_size"]
model_args = dict(vocab_size=vocab_size)
iter_num, best_val_loss = 0, 1e9
model = GPT(**model_args)
if init_from == "scratch":
    numpy_init(model, 3, scale=0.2)
else:
    checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location=device)
    state_dict = checkpoint["model"]
    for k in list(state_dict):
        if k.startswith("_orig_mod."):
            state_dict[k[len("_orig_mod."):]] = state_dict.pop(k)
    model.load_state_dict(state_dict)
    iter_num, best_val_loss = checkpoint["iter_num"], checkpoint["best_val_loss"]
    batch_rng = np.random.default_rng(checkpoint["config"]["seed_after"])
    for _ in range(iter_num):
        get_batch()
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == "float16" and device_type == "cuda"))
optimizer = model.configure_optimizers(0.1, 6e-3, (0.9, 0.99))
if init_from == "resume":
    optimizer.load_state_dict(checkpoint["optimizer"])
    checkpoint = None


@torch.no_grad()
def estimate_loss():
    model.eval()
    losses = torch.zeros(4)
    for k in range(4):
        X, Y = get_batch()
        with ctx:
            _, loss = model(X, Y)
        losses[k] = loss.item()
    model.train()
    return losses.mean()


X, Y = get_batch()
while True:
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    if iter_num == 4 and init_from == "scratch":
        val = estimate_loss()
        best_val_loss = min(best_val_loss, val)
        os.makedirs(out_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "model_args": model_args, "iter_num": iter_num, "best_val_loss": best_val_loss,
                    "config": {"seed_after": 0}}, os.path.join(out_dir, "ckpt.pt"))
        print(f"saved at {iter_num}, val loss: {val:.6f}")
        batch_rng = np.random.default_rng(0)
        for _ in range(iter_num + 1):
            X, Y = get_batch()
    with ctx:
        logits, loss = model(X, Y)
    X, Y = get_batch()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num} loss: {loss.item():.6f}")
    iter_num += 1
    if iter_num > max_iters:
        break
model.eval()
x = torch.zeros((1, 1), dtype=torch.long)
with torch.no_grad():
    for _ in range(8):
        logits, _ = model(x)
        x = torch.cat((x, logits[:, -1, :].argmax(-1, keepdim=True)), dim=1)
print("greedy:", x[0].tolist())
'''


def _run_both(source, args, tmp_path):
    """Run ``source`` under torch and under the launcher, concurrently, each in its own dir."""
    procs = []
    for name, prefix in (("torch", [sys.executable]),
                         ("numtorch", [sys.executable, "-m", "numtorch.run"])):
        workdir = tmp_path / name
        workdir.mkdir(exist_ok=True)
        (workdir / "prog.py").write_text(textwrap.dedent(source))
        procs.append(subprocess.Popen([*prefix, "prog.py", *args], cwd=workdir, env=ENV,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    for (out, err, rc), name in zip(results, ("torch", "numtorch")):
        assert rc == 0, f"{name} failed:\n{err}"
    return results[0][0], results[1][0]


def _losses(out, training_only=True):
    """The numbers after 'loss:' (only on 'step N'/'iter N' lines when ``training_only``)."""
    pattern = r"^(?:step|iter) \d+ loss: (\S+)$" if training_only else r"loss: ([-0-9.]+)"
    return [float(m) for m in re.findall(pattern, out, flags=re.M)]


def _same_trajectory(torch_out, ours, rtol, learns=True):
    want, got = _losses(torch_out, False), _losses(ours, False)
    assert len(want) == len(got) >= 4, (torch_out, ours)
    for w, g in zip(want, got):
        assert abs(w - g) <= rtol * abs(w), (want, got)
    train = _losses(ours)
    assert not learns or train[-1] < train[0] - 0.1, train
    other = [l for l in ours.splitlines() if "loss" not in l]
    assert other == [l for l in torch_out.splitlines() if "loss" not in l]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_word_language_model(tmp_path, kind):
    torch_out, ours = _run_both(WORD_LM, ["--model", kind, "--steps", "10"], tmp_path)
    _same_trajectory(torch_out, ours, 2e-4)
    assert "generated: 20 True" in ours


def test_mingpt_style_with_dataloader_workers(tmp_path):
    torch_out, ours = _run_both(MINGPT, ["12"], tmp_path)
    _same_trajectory(torch_out, ours, 1e-3)
    assert "sampled batch: (16, 16) torch.int64 (16, 16) -1" in ours


def test_nanogpt_style_train_and_resume(tmp_path):
    torch_out, ours = _run_both(NANOGPT, ["scratch", "8"], tmp_path)
    _same_trajectory(torch_out, ours, 1e-3)
    # resume from the checkpoint each library wrote: the same iterations 4..8 again
    torch_resumed, ours_resumed = _run_both(NANOGPT, ["resume", "8"], tmp_path)
    _same_trajectory(torch_resumed, ours_resumed, 1e-3, learns=False)
    assert _losses(ours_resumed) == pytest.approx(_losses(ours)[4:], rel=1e-5)
