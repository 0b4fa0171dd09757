"""Loss modules against torch: constructor arguments, buffers and state dicts, reprs, the
deprecated size_average/reduce mapping and warnings, and outputs and gradients."""

import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.oracle import check_module

ALL = ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "NLLLoss2d", "CTCLoss", "KLDivLoss",
       "PoissonNLLLoss", "GaussianNLLLoss", "BCELoss", "BCEWithLogitsLoss", "MarginRankingLoss",
       "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SmoothL1Loss", "HuberLoss",
       "SoftMarginLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss", "MultiMarginLoss",
       "TripletMarginLoss", "TripletMarginWithDistanceLoss"]


def rnd(shape, low=-2.0, high=2.0, seed=1, dtype="float32"):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


@pytest.mark.parametrize("name", ALL)
def test_loss_classes_resolve_at_torch_paths(name):
    cls = getattr(numtorch.nn, name)
    assert getattr(numtorch.nn.modules.loss, name) is cls
    assert getattr(numtorch.nn.modules, name) is cls
    assert issubclass(cls, numtorch.nn.Module)


def _silent(make):
    def build(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(lib)
    return build


SIGNS = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
MODULE_CASES = [
    (lambda t: t.nn.L1Loss(), [(4, 3), (4, 3)]),
    (lambda t: t.nn.MSELoss(reduction="sum"), [(4, 3), (4, 3)]),
    (lambda t: t.nn.CrossEntropyLoss(), [(4, 3), np.array([0, 2, 1, 2])]),
    (lambda t: t.nn.CrossEntropyLoss(weight=t.tensor([0.5, 1.0, 2.0]), ignore_index=1,
                                     label_smoothing=0.1), [(4, 3), np.array([0, 2, 1, 2])]),
    (lambda t: t.nn.NLLLoss(weight=t.tensor([0.5, 1.0, 2.0]), reduction="none"),
     [(4, 3), np.array([0, 2, 1, 2])]),
    (lambda t: t.nn.NLLLoss2d(), [(2, 3, 2, 2), np.zeros((2, 2, 2), np.int64)]),
    (lambda t: t.nn.KLDivLoss(reduction="batchmean", log_target=True), [(4, 3), (4, 3)]),
    (lambda t: t.nn.PoissonNLLLoss(full=True), [(4, 3), rnd((4, 3), 0.5, 4.0)]),
    (lambda t: t.nn.GaussianNLLLoss(full=True, eps=1e-3), [(4, 3), (4, 3), rnd((4, 1), 0.1, 1)]),
    (lambda t: t.nn.BCELoss(weight=t.tensor([1.0, 2.0, 0.5])),
     [rnd((4, 3), 0.1, 0.9), rnd((4, 3), 0, 1, seed=3)]),
    (lambda t: t.nn.BCEWithLogitsLoss(weight=t.tensor([1.0, 2.0, 0.5]),
                                      pos_weight=t.tensor([2.0, 1.0, 3.0])),
     [(4, 3), rnd((4, 3), 0, 1, seed=3)]),
    (lambda t: t.nn.MarginRankingLoss(margin=0.5), [(4,), (4,), SIGNS]),
    (lambda t: t.nn.HingeEmbeddingLoss(margin=2.0), [(4,), SIGNS]),
    (lambda t: t.nn.MultiLabelMarginLoss(), [(2, 4), np.array([[3, 0, -1, 1], [1, 2, 0, 3]])]),
    (lambda t: t.nn.SmoothL1Loss(beta=0.5), [(4, 3), (4, 3)]),
    (lambda t: t.nn.HuberLoss(delta=0.5), [(4, 3), (4, 3)]),
    (lambda t: t.nn.MultiLabelSoftMarginLoss(weight=t.tensor([1.0, 2.0, 0.5])),
     [(4, 3), rnd((4, 3), 0, 1, seed=3).round()]),
    (lambda t: t.nn.CosineEmbeddingLoss(margin=0.2), [(4, 3), (4, 3), SIGNS]),
    (lambda t: t.nn.MultiMarginLoss(p=2, margin=0.5, weight=t.tensor([1.0, 2.0, 0.5])),
     [(4, 3), np.array([0, 2, 1, 2])]),
    (lambda t: t.nn.TripletMarginLoss(margin=2.0, p=1, swap=True), [(4, 3)] * 3),
    (lambda t: t.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True), [(4, 3)] * 3),
    (lambda t: t.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: (a - b).abs().sum(-1), reduction="none"), [(4, 3)] * 3),
]


@pytest.mark.parametrize("make,shapes", MODULE_CASES)
def test_loss_modules_match_torch(make, shapes):
    check_module(_silent(make), shapes)


def test_soft_margin_module_matches_torch():
    # torch refuses a target that requires grad for this loss
    check_module(lambda t: t.nn.SoftMarginLoss(reduction="sum"), [(4,), SIGNS],
                 forward=lambda m, x, y: m(x, y.detach()))


def test_ctc_module_matches_torch():
    lp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), (6, 2))).astype(np.float32)

    def fwd(m, lp, tg, il, tl):
        return m(lp, tg, il, tl)

    check_module(lambda t: t.nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True),
                 [lp, np.array([[1, 2], [0, 0]]), np.array([6, 1]), np.array([2, 2])],
                 forward=fwd)


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss", "BCELoss",
                                  "MultiLabelSoftMarginLoss", "MultiMarginLoss"])
def test_weighted_losses_keep_weight_as_buffer(name):
    for lib in (numtorch, torch):
        w = lib.tensor([1.0, 2.0, 3.0])
        m = getattr(lib.nn, name)(weight=w)
        assert list(m.state_dict()) == ["weight"]
        assert m.weight is w
        assert list(getattr(lib.nn, name)().state_dict()) == []
        assert getattr(lib.nn, name)().weight is None


def test_bce_with_logits_buffers_and_double():
    sd = {}
    for lib in (numtorch, torch):
        m = lib.nn.BCEWithLogitsLoss(pos_weight=lib.tensor([1.0, 2.0]))
        sd[lib.__name__] = list(m.state_dict())
        assert m.weight is None
        m = m.double()
        assert m.pos_weight.dtype == lib.float64
    assert sd["numtorch"] == sd["torch"] == ["pos_weight"]


@pytest.mark.parametrize("name", ALL)
def test_loss_module_reprs_and_attributes_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = getattr(numtorch.nn, name)()
        b = getattr(torch.nn, name)()
    assert repr(a).replace("numtorch", "torch") == repr(b)
    for attr in ("reduction", "ignore_index", "label_smoothing", "blank", "zero_infinity",
                 "log_target", "log_input", "full", "eps", "margin", "p", "swap", "beta",
                 "delta"):
        assert getattr(a, attr, None) == getattr(b, attr, None), attr


@pytest.mark.parametrize("size_average,reduce", [(None, False), (False, None), (True, True),
                                                 (False, True), (True, False), (None, True)])
@pytest.mark.parametrize("name", ["L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
                                  "KLDivLoss", "SmoothL1Loss", "MultiMarginLoss",
                                  "TripletMarginLoss", "CosineEmbeddingLoss"])
def test_legacy_constructor_arguments_map_and_warn_like_torch(name, size_average, reduce):
    got = {}
    for lib in (numtorch, torch):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            m = getattr(lib.nn, name)(size_average=size_average, reduce=reduce)
        got[lib.__name__] = (m.reduction, [(r.category, str(r.message)) for r in rec])
    assert got["numtorch"] == got["torch"]


def test_nll_loss_2d_warns_future_warning_like_torch():
    for lib in (numtorch, torch):
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            m = lib.nn.NLLLoss2d(ignore_index=3)
        assert isinstance(m, lib.nn.NLLLoss) and m.ignore_index == 3


@pytest.mark.parametrize("make", [
    lambda t: t.nn.MultiMarginLoss(p=3),
    lambda t: t.nn.MultiMarginLoss(weight=t.ones(2, 2)),
    lambda t: t.nn.TripletMarginLoss(margin=0.0),
    lambda t: t.nn.TripletMarginWithDistanceLoss(margin=-1.0),
    lambda t: t.nn.CrossEntropyLoss(weight=[1.0, 2.0]),
])
def test_loss_constructors_reject_bad_arguments_like_torch(make):
    errors = []
    for lib in (numtorch, torch):
        with pytest.raises(Exception) as info:
            make(lib)
        errors.append((type(info.value), str(info.value)))
    assert errors[0][0] is errors[1][0]
    assert errors[0][1] == errors[1][1]


def test_invalid_reduction_is_rejected_when_called():
    for lib in (numtorch, torch):
        m = lib.nn.MSELoss(reduction="foo")  # torch checks only at call time
        with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
            m(lib.zeros(2), lib.zeros(2))
