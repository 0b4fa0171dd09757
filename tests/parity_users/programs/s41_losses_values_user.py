import torch
import torch.nn.functional as F
#%% loss values with reductions and weights
torch.manual_seed(0)
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
tgt = torch.tensor([0, 2])
print(F.cross_entropy(logits, tgt), F.cross_entropy(logits, tgt, reduction="sum"), F.cross_entropy(logits, tgt, weight=torch.tensor([1.0, 2.0, 3.0])), F.cross_entropy(logits, tgt, ignore_index=2))
print(F.cross_entropy(logits, torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]])), F.nll_loss(F.log_softmax(logits, 1), tgt), F.cross_entropy(logits, tgt, label_smoothing=0.2))
#%% regression and binary losses
p, y = torch.tensor([0.2, 0.8, 1.5]), torch.tensor([0.0, 1.0, 1.0])
print(F.mse_loss(p, y), F.l1_loss(p, y), F.smooth_l1_loss(p, y), F.huber_loss(p, y, delta=0.5), F.binary_cross_entropy(p.clamp(0, 1), y), F.binary_cross_entropy_with_logits(p, y, pos_weight=torch.tensor(2.0)))
print(F.kl_div(F.log_softmax(logits, 1), F.softmax(logits.flip(1), 1), reduction="batchmean"), F.cosine_similarity(logits[0], logits[1], dim=0), F.margin_ranking_loss(p, y, torch.ones(3)), F.hinge_embedding_loss(p, torch.tensor([1.0, -1.0, 1.0])))
#%% kl_div default reduction warning
print(F.kl_div(torch.log(torch.tensor([0.5, 0.5])), torch.tensor([0.9, 0.1])))
