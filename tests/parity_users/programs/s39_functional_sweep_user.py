import torch
import torch.nn as nn
import torch.nn.functional as F


def run(cases):
    for i, f in enumerate(cases):
        try:
            print(i, f())
        except Exception as e:
            print(i, type(e).__name__, str(e).split("\n")[0])
#%% interpolate and pad
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.interpolate(x, scale_factor=2, mode="bilinear").shape,
   lambda: F.interpolate(x, size=(3, 5), mode="nearest").shape,
   lambda: F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=False).shape,
   lambda: F.interpolate(x, size=3, mode="linear"),
   lambda: F.interpolate(x, mode="bilinear"),
   lambda: F.interpolate(x, size=3, scale_factor=2),
   lambda: F.interpolate(x, size=(2, 2), mode="area").shape,
   lambda: F.interpolate(x, scale_factor=0.5, mode="nearest-exact").shape,
   lambda: F.interpolate(x[0], scale_factor=2, mode="bilinear"),
   lambda: F.interpolate(x, size=(3, 3), mode="nearest", align_corners=True),
   lambda: F.pad(x, (1, 1), mode="reflect").shape,
   lambda: F.pad(x, (5, 5), mode="reflect"),
   lambda: F.pad(x, (1, 2, 3), mode="constant"),
   lambda: F.pad(x, (1, 1, 1, 1), mode="circular").shape,
   lambda: F.pad(x, (1, 1), mode="wrap"),
   lambda: F.pad(x, (-1, -1)).shape,
   lambda: F.pad(x, (1, 1), value=2.0, mode="replicate"),
])
#%% unfold fold shuffle grid
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.unfold(x, kernel_size=2).shape,
   lambda: F.fold(F.unfold(x, 2), output_size=(4, 4), kernel_size=2).shape,
   lambda: F.fold(torch.ones(1, 8, 9), output_size=(4, 4), kernel_size=2),
   lambda: F.pixel_shuffle(torch.ones(1, 8, 2, 2), 2).shape,
   lambda: F.pixel_shuffle(torch.ones(1, 7, 2, 2), 2),
   lambda: F.pixel_unshuffle(torch.ones(1, 1, 3, 4), 2),
   lambda: F.grid_sample(x, torch.zeros(1, 3, 3, 2)).shape,
   lambda: F.grid_sample(x, torch.zeros(1, 3, 3, 2), align_corners=True, mode="nearest", padding_mode="border").shape,
   lambda: F.affine_grid(torch.eye(2, 3).unsqueeze(0), (1, 1, 2, 2)),
])
#%% similarity dropout activations
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.affine_grid(torch.eye(2, 3).unsqueeze(0), (1, 1, 2, 2), align_corners=False).shape,
   lambda: F.normalize(torch.tensor([[3., 4.]]), dim=1),
   lambda: F.normalize(torch.zeros(2, 2)),
   lambda: F.cosine_similarity(torch.ones(2, 3), torch.ones(3)),
   lambda: F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4)),
   lambda: F.pairwise_distance(torch.ones(2, 3), torch.zeros(2, 3)),
   lambda: torch.cdist(torch.ones(2, 3), torch.zeros(4, 3)),
   lambda: torch.cdist(torch.ones(2, 3), torch.zeros(4, 2)),
   lambda: F.dropout(torch.ones(4), p=1.5),
   lambda: F.dropout(torch.ones(4), p=1.0),
   lambda: F.softmax(torch.tensor([1, 2]), dim=0),
   lambda: F.softmax(torch.tensor([1., 2.]), dim=0, dtype=torch.float64),
   lambda: F.gelu(torch.tensor([1.]), approximate="tanh"),
   lambda: F.gelu(torch.tensor([1.]), approximate="x"),
   lambda: F.leaky_relu(torch.tensor([-1.]), 0.2, inplace=True),
   lambda: F.relu(torch.tensor([-1, 2])),
   lambda: F.relu6(torch.tensor([7.])), 
   lambda: F.hardtanh(torch.tensor([5.]), 2, 1),
   lambda: F.elu(torch.tensor([-1.]), alpha=-1),
   lambda: F.glu(torch.ones(3)),
])
#%% pooling embedding linear conv
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.log_softmax(torch.ones(2, 2)),
   lambda: F.max_pool2d(x, 2, return_indices=True)[1].shape,
   lambda: F.max_pool2d(x, 3, ceil_mode=True, padding=1).shape,
   lambda: F.max_pool2d(x, 2, padding=2),
   lambda: F.avg_pool2d(x, 3, count_include_pad=False, padding=1).shape,
   lambda: F.adaptive_avg_pool2d(x, (None, 2)).shape,
   lambda: F.adaptive_max_pool2d(x, 3, return_indices=True)[1].dtype,
   lambda: F.lp_pool2d(x.abs(), 2, 2).shape,
   lambda: F.embedding(torch.tensor([[0, 2]]), torch.eye(3)),
   lambda: F.one_hot(torch.tensor([0, 3]), num_classes=3),
   lambda: F.one_hot(torch.tensor([0., 1.])),
   lambda: F.one_hot(torch.tensor([-1])),
   lambda: F.linear(torch.ones(2), torch.ones(3, 2), torch.ones(4)),
   lambda: F.bilinear(torch.ones(1, 2), torch.ones(1, 3), torch.ones(4, 2, 3)).shape,
   lambda: F.conv1d(torch.ones(1, 2, 5), torch.ones(3, 2, 2), stride=2, padding="same"),
   lambda: F.conv2d(x, torch.ones(3, 2, 3, 3), padding="same").shape,
   lambda: F.conv2d(x, torch.ones(3, 2, 3, 3), padding="valid").shape,
   lambda: F.conv2d(x, torch.ones(3, 2, 3, 3), padding="full"),
   lambda: F.conv_transpose2d(x, torch.ones(2, 3, 3, 3), stride=2, output_padding=1).shape,
   lambda: F.conv_transpose2d(x, torch.ones(2, 3, 3, 3), stride=2, output_padding=2),
])
#%% norms
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.batch_norm(x, torch.zeros(2), torch.ones(2)).shape,
   lambda: F.batch_norm(x, torch.zeros(3), torch.ones(3)),
   lambda: F.instance_norm(x).shape,
   lambda: F.layer_norm(x, (4,)).shape,
   lambda: F.layer_norm(x, 4),
   lambda: F.group_norm(x, 2).shape,
   lambda: F.local_response_norm(x, 2).shape,
   lambda: F.rms_norm(x, (4,)).shape,
   lambda: F.ctc_loss(torch.randn(5, 1, 3).log_softmax(2), torch.tensor([[1, 2]]), (5,), (2,)).shape,
])
#%% losses
torch.manual_seed(0)
x = torch.randn(1, 2, 4, 4)
run([
   lambda: F.triplet_margin_loss(torch.ones(2, 3), torch.ones(2, 3), torch.zeros(2, 3)),
   lambda: F.margin_ranking_loss(torch.ones(2), torch.zeros(2), torch.tensor([1., -1.])),
   lambda: F.hinge_embedding_loss(torch.ones(2), torch.tensor([1, -1])),
   lambda: F.multilabel_margin_loss(torch.ones(1, 3), torch.tensor([[0, -1, 1]])),
   lambda: F.poisson_nll_loss(torch.ones(2), torch.ones(2)),
   lambda: F.gaussian_nll_loss(torch.ones(2), torch.ones(2), torch.ones(2)),
   lambda: F.gaussian_nll_loss(torch.ones(2), torch.ones(2), -torch.ones(2)),
   lambda: F.smooth_l1_loss(torch.ones(2), torch.zeros(2), beta=0),
   lambda: F.huber_loss(torch.ones(2), torch.zeros(2), delta=-1),
   lambda: F.soft_margin_loss(torch.ones(2), torch.ones(2)),
   lambda: F.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.tensor([1, -1])),
   lambda: F.kl_div(torch.zeros(2), torch.ones(2), reduction="batchmean", log_target=True),
   lambda: F.nll_loss(torch.zeros(2, 3), torch.tensor([0, 1]), reduction="sum", ignore_index=1),
   lambda: F.cross_entropy(torch.zeros(2, 3, 4), torch.zeros(2, 4, dtype=torch.long)).shape,
   lambda: F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 1]), reduction="avg"),
   lambda: F.mse_loss(torch.ones(2), torch.ones(2), size_average=True),
])
