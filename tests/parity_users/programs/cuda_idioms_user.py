import torch
import torch.nn as nn
import torch.nn.functional as F
use_cuda = torch.cuda.is_available()
dev = torch.device("cuda:0" if use_cuda else "cpu")
r = lambda t, d=4: [round(v, d) for v in t.detach().cpu().flatten().tolist()]
#%% cuda() methods and legacy tensor types
torch.manual_seed(0)
m = nn.Linear(3, 2)
x = torch.randn(4, 3)
if use_cuda:
    m = m.cuda()
    x = x.cuda(0)
print(r(m(x)), m.weight.is_cuda == use_cuda, x.get_device() if use_cuda else -1)
T = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor
t = T([1.0, 2.0])
print(r(t), t.type(), t.long().type(), t.is_cuda == use_cuda)
print(x.to("cuda:0" if use_cuda else "cpu").device == dev, torch.device("cuda", 0) == torch.device("cuda:0"), str(dev))
#%% Variable era training loop
from torch.autograd import Variable
torch.manual_seed(0)
w = Variable(torch.randn(3, 1).to(dev), requires_grad=True)
for i in range(3):
    xb = Variable(torch.ones(5, 3).to(dev) * (i + 1))
    loss = ((xb.mm(w) - 2.0) ** 2).mean()
    loss.backward()
    w.data -= 0.01 * w.grad.data
    w.grad.data.zero_()
    print(i, round(loss.data.item(), 4))
print(r(w))
#%% old amp spelling
torch.manual_seed(0)
m = nn.Linear(4, 4).to(dev)
x = torch.randn(2, 4).to(dev)
if use_cuda:
    with torch.cuda.amp.autocast():
        y = m(x)
    print(y.dtype, r(y.float(), 2))
else:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = m(x)
    print(torch.float16, r(m(x), 2))
#%% gan step on the device
torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 6), nn.Tanh()).to(dev)
D = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)).to(dev)
og = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
od = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
crit = nn.BCEWithLogitsLoss()
real = torch.rand(8, 6).to(dev) * 2 - 1
for step in range(3):
    z = torch.randn(8, 4).to(dev)
    fake = G(z)
    od.zero_grad()
    ld = crit(D(real), torch.ones(8, 1, device=dev)) + crit(D(fake.detach()), torch.zeros(8, 1, device=dev))
    ld.backward()
    od.step()
    og.zero_grad()
    lg = crit(D(fake), torch.ones(8, 1, device=dev))
    lg.backward()
    og.step()
    print(step, round(ld.item(), 4), round(lg.item(), 4))
#%% vae step on the device
torch.manual_seed(0)
enc, dec = nn.Linear(10, 4).to(dev), nn.Linear(2, 10).to(dev)
x = torch.rand(5, 10).to(dev)
h = enc(x)
mu, logvar = h[:, :2], h[:, 2:]
eps = torch.randn(5, 2).to(dev)
zz = mu + eps * torch.exp(0.5 * logvar)
recon = torch.sigmoid(dec(zz))
bce = F.binary_cross_entropy(recon, x, reduction="sum")
kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
(bce + kld).backward()
print(round(bce.item(), 3), round(kld.item(), 3), r(enc.weight.grad.sum(), 3), r(dec.bias.grad, 3))
#%% attention with masks on the device
torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dev)
q = torch.randn(2, 4, 8).to(dev)
pad = torch.tensor([[False, False, True, True], [False, False, False, False]]).to(dev)
out, wts = mha(q, q, q, key_padding_mask=pad)
print(tuple(out.shape), r(out.sum(), 3), r(wts[0, 0], 3))
att = F.scaled_dot_product_attention(q.view(2, 4, 2, 4).transpose(1, 2), q.view(2, 4, 2, 4).transpose(1, 2), q.view(2, 4, 2, 4).transpose(1, 2), is_causal=True)
print(tuple(att.shape), r(att.sum(), 3))
#%% cuda events and streams
if use_cuda:
    s = torch.cuda.Stream()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    with torch.cuda.stream(s):
        a = torch.ones(1000, 1000, device="cuda") @ torch.ones(1000, 1000, device="cuda")
    torch.cuda.current_stream().wait_stream(s)
    e1.record()
    torch.cuda.synchronize()
    print(e0.elapsed_time(e1) >= 0, a[0, 0].item(), torch.cuda.current_stream() == torch.cuda.default_stream())
    torch.cuda.empty_cache()
else:
    print(True, 1000.0, True)
#%% embedding bag on the device
torch.manual_seed(0)
bag = nn.EmbeddingBag(10, 3, mode="mean").to(dev)
inp = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]).to(dev)
offsets = torch.tensor([0, 4]).to(dev)
o = bag(inp, offsets)
o.sum().backward()
print(r(o, 4), r(bag.weight.grad.sum(1), 4))
#%% deterministic settings and seeds
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.manual_seed(5)
if use_cuda:
    torch.cuda.manual_seed(5)
a = torch.randn(3).to(dev)
torch.manual_seed(5)
b = torch.randn(3).to(dev)
print(torch.equal(a, b), r(a))
#%% half model on the device
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2)).to(dev)
low = torch.float16 if use_cuda else torch.bfloat16
m = m.to(low)
y = m(torch.ones(3, 4, device=dev, dtype=low))
print(y.dtype == low, r(y.float(), 1), next(m.parameters()).dtype == low)
#%% padding and packing sequences on the device
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
torch.manual_seed(0)
seqs = [torch.randn(n, 3).to(dev) for n in (2, 4, 3)]
lengths = torch.tensor([2, 4, 3])
padded = pad_sequence(seqs, batch_first=True)
packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
gru = nn.GRU(3, 5, batch_first=True).to(dev)
out, h = gru(packed)
unpacked, lens = pad_packed_sequence(out, batch_first=True)
print(tuple(padded.shape), padded.device.type, packed.batch_sizes.tolist(), packed.sorted_indices.tolist())
print(tuple(unpacked.shape), unpacked.device.type, lens.tolist(), lens.device.type, r(h.sum(), 3), r(unpacked[0, -1]))
