"""legacy.nn criteria against torch's losses (loss value and gradInput), with 1-based class
targets, sizeAverage, and Lua's own formulas where they differ from torch's."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import numtorch
from numtorch.legacy import nn

from ._compare import close, nt, to_torch

R = np.random.default_rng(3)


def rand(*shape):
    return nt(R.standard_normal(shape))


def prob(*shape):
    return nt(R.uniform(0.05, 0.95, shape))


def signs(n):
    return nt(R.choice([-1.0, 1.0], n))


def classes(n, c):
    return numtorch.tensor(R.integers(1, c + 1, n))  # 1-based


def check(criterion, input, target, reference):
    out = criterion.forward(input, target)
    gi = criterion.backward(input, target)
    x_t = to_torch(input)
    t_t = to_torch(target, grad=False)
    loss = reference(x_t, t_t)
    assert isinstance(out, float)
    assert abs(out - loss.item()) <= 1e-9 * max(1.0, abs(loss.item()))
    leaves = x_t if isinstance(x_t, list) else [x_t]
    grads = torch.autograd.grad(loss, leaves)
    for a, b in zip(gi if isinstance(gi, list) else [gi], grads):
        close(a, b)


W3 = np.array([0.2, 1.0, 3.0])

CASES = {
    "ClassNLL": (lambda: nn.ClassNLLCriterion(), lambda: (rand(5, 3), classes(5, 3)),
                 lambda x, t: TF.nll_loss(x, t - 1)),
    "ClassNLL-weights-sum": (lambda: nn.ClassNLLCriterion(nt(W3), False),
                             lambda: (rand(5, 3), classes(5, 3)),
                             lambda x, t: TF.nll_loss(x, t - 1, torch.tensor(W3),
                                                      reduction="sum")),
    "ClassNLL-weights-mean": (lambda: nn.ClassNLLCriterion(nt(W3)),
                              lambda: (rand(5, 3), classes(5, 3)),
                              lambda x, t: TF.nll_loss(x, t - 1, torch.tensor(W3))),
    "ClassNLL-vector-number": (lambda: nn.ClassNLLCriterion(), lambda: (rand(4), 3),
                               lambda x, t: -x[2]),
    "ClassNLL-ignore": (lambda: nn.ClassNLLCriterion(None, True, 2),
                        lambda: (rand(4, 3), numtorch.tensor([1, 2, 3, 2])),
                        lambda x, t: TF.nll_loss(x, torch.tensor([0, -100, 2, -100]))),
    "CrossEntropy": (lambda: nn.CrossEntropyCriterion(), lambda: (rand(5, 4), classes(5, 4)),
                     lambda x, t: TF.cross_entropy(x, t - 1)),
    "CrossEntropy-vector": (lambda: nn.CrossEntropyCriterion(nt(W3)),
                            lambda: (rand(3), numtorch.tensor([2])),
                            lambda x, t: TF.cross_entropy(x[None], t - 1, torch.tensor(W3))),
    "MSE": (lambda: nn.MSECriterion(), lambda: (rand(4, 3), rand(4, 3)), TF.mse_loss),
    "MSE-sum": (lambda: nn.MSECriterion(False), lambda: (rand(4, 3), rand(4, 3)),
                lambda x, t: TF.mse_loss(x, t, reduction="sum")),
    "Abs": (lambda: nn.AbsCriterion(), lambda: (rand(4, 3), rand(4, 3)), TF.l1_loss),
    "SmoothL1": (lambda: nn.SmoothL1Criterion(), lambda: (rand(4, 3) * 2, rand(4, 3)),
                 TF.smooth_l1_loss),
    "BCE": (lambda: nn.BCECriterion(), lambda: (prob(4, 3), prob(4, 3)),
            lambda x, t: -(t * (x + 1e-12).log() + (1 - t) * (1 - x + 1e-12).log()).mean()),
    "BCE-weights-sum": (lambda: nn.BCECriterion(nt(W3), False),
                        lambda: (prob(4, 3), prob(4, 3).round()),
                        lambda x, t: TF.binary_cross_entropy(x, t, torch.tensor(W3),
                                                             reduction="sum")),
    "Margin": (lambda: nn.MarginCriterion(0.7), lambda: (rand(6), signs(6)),
               lambda x, t: (0.7 - x * t).clamp(min=0).mean()),
    "MultiMargin": (lambda: nn.MultiMarginCriterion(), lambda: (rand(5, 4), classes(5, 4)),
                    lambda x, t: TF.multi_margin_loss(x, t - 1)),
    "MultiMargin-p2-weights": (lambda: nn.MultiMarginCriterion(2, nt(W3), 0.5),
                               lambda: (rand(5, 3), classes(5, 3)),
                               lambda x, t: TF.multi_margin_loss(x, t - 1, 2, 0.5,
                                                                 torch.tensor(W3))),
    "HingeEmbedding": (lambda: nn.HingeEmbeddingCriterion(0.5), lambda: (rand(6), signs(6)),
                       lambda x, t: TF.hinge_embedding_loss(x, t, 0.5)),
    "CosineEmbedding": (lambda: nn.CosineEmbeddingCriterion(0.1),
                        lambda: ([rand(5, 3), rand(5, 3)], signs(5)),
                        lambda x, t: TF.cosine_embedding_loss(x[0], x[1], t, 0.1)),
    "CosineEmbedding-pair": (lambda: nn.CosineEmbeddingCriterion(),
                             lambda: ([rand(3), rand(3)], -1),
                             lambda x, t: TF.cosine_embedding_loss(
                                 x[0][None], x[1][None], torch.tensor([-1.0]))),
    "DistKLDiv": (lambda: nn.DistKLDivCriterion(), lambda: (rand(4, 3), prob(4, 3)),
                  lambda x, t: TF.kl_div(x, t, reduction="sum") / x.numel()),
    "MarginRanking": (lambda: nn.MarginRankingCriterion(0.3),
                      lambda: ([rand(5), rand(5)], signs(5)),
                      lambda x, t: TF.margin_ranking_loss(x[0], x[1], t, 0.3)),
    "MarginRanking-one": (lambda: nn.MarginRankingCriterion(0.3),
                          lambda: ([rand(1), rand(1)], -1),
                          lambda x, t: (x[0] - x[1] + 0.3).clamp(min=0).sum()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_criterion_matches_torch(name):
    make, make_args, reference = CASES[name]
    input, target = make_args()
    check(make(), input, target, reference)


def test_parallel_and_multi_criterion():
    x1, x2, t1, t2 = rand(4, 3), rand(4, 3), rand(4, 3), classes(4, 3)
    pc = nn.ParallelCriterion().add(nn.MSECriterion(), 0.5).add(nn.CrossEntropyCriterion())
    out = pc.forward([x1, x2], [t1, t2])
    want = 0.5 * nn.MSECriterion().forward(x1, t1) + nn.CrossEntropyCriterion().forward(x2, t2)
    assert abs(out - want) < 1e-12
    gi = pc.backward([x1, x2], [t1, t2])
    close(gi[0], nn.MSECriterion().backward(x1, t1) * 0.5)
    close(gi[1], nn.CrossEntropyCriterion().backward(x2, t2))
    rep = nn.ParallelCriterion(True).add(nn.MSECriterion()).add(nn.AbsCriterion(), 2)
    assert abs(rep.forward([x1, x2], t1) - (nn.MSECriterion().forward(x1, t1)
                                            + 2 * nn.AbsCriterion().forward(x2, t1))) < 1e-12
    mc = nn.MultiCriterion().add(nn.MSECriterion(), 3).add(nn.AbsCriterion())
    out = mc.forward(x1, t1)
    assert abs(out - (3 * nn.MSECriterion().forward(x1, t1)
                      + nn.AbsCriterion().forward(x1, t1))) < 1e-12
    close(mc.backward(x1, t1), 3 * nn.MSECriterion().backward(x1, t1)
          + nn.AbsCriterion().backward(x1, t1))


def test_class_targets_count_from_one():
    c = nn.ClassNLLCriterion()
    x = rand(2, 3)
    with pytest.raises(IndexError, match="count from 1"):
        c.forward(x, numtorch.tensor([0, 1]))
    with pytest.raises(IndexError, match="count from 1"):
        c.forward(x, numtorch.tensor([4, 1]))
    with pytest.raises(IndexError, match="count from 1"):
        nn.MultiMarginCriterion().forward(x, numtorch.tensor([0, 1]))


def test_backward_follows_the_given_input():
    c = nn.MSECriterion()
    a, b, t = rand(3), rand(3), rand(3)
    c.forward(a, t)
    close(c.backward(b, t), 2 * (b - t) / 3)
    t.add_(1)  # the target changed in place after forward
    close(c.backward(b, t), 2 * (b - t) / 3)
