"""models.feature_extraction against torchvision's: the same node names, the same selected
outputs (values and keys, in graph order), train/eval graphs, errors and warnings."""

import warnings

import numpy as np
import pytest
import torch
import torchvision.models as TM
import torchvision.models.feature_extraction as TFE

import numtorch
import numtorchvision.models as NM
import numtorchvision.models.feature_extraction as NFE

from ._model_helpers import assert_outputs_close, image, skipped_random_init, to_numtorch, \
    torch_init_skipped, tv_build


def _bare_pair(name, **kwargs):
    """The same architecture from both libraries, values left as they are built."""
    with skipped_random_init():
        ours = getattr(NM, name)(**kwargs)
    with torch_init_skipped(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(TM, name)(**kwargs)
    return ours, theirs


@pytest.mark.parametrize("name", ["resnet18", "efficientnet_b0", "vit_b_16", "swin_t",
                                  "convnext_tiny", "inception_v3", "googlenet",
                                  "mobilenet_v3_small"])
def test_node_names_match(name):
    ours, theirs = _bare_pair(name, **({"init_weights": False} if name in
                                       ("inception_v3", "googlenet") else {}))
    with warnings.catch_warnings(record=True) as ours_w:
        warnings.simplefilter("always")
        got = NFE.get_graph_node_names(ours)
    with warnings.catch_warnings(record=True) as theirs_w:
        warnings.simplefilter("always")
        expected = TFE.get_graph_node_names(theirs)
    assert got == expected
    # models whose two modes trace differently (auxiliary heads) warn, as torchvision does
    note = [str(w.message) for w in ours_w if "NOTE" in str(w.message)]
    assert note == [str(w.message) for w in theirs_w if "NOTE" in str(w.message)]
    assert ours.training  # the mode is restored


_RESNETS = []


def _resnet_pair():
    """resnet18 from both libraries with the same random values (built once)."""
    if not _RESNETS:
        theirs = tv_build(TM.resnet18).eval()
        with skipped_random_init():
            ours = NM.resnet18().eval()
        ours.load_state_dict(to_numtorch(theirs.state_dict()))
        _RESNETS.extend([ours, theirs])
    return _RESNETS


@pytest.mark.parametrize("return_nodes", [
    {"layer1": "f1", "layer3.1": "f3", "fc": "out"},
    ["layer2.0.add", "x"],
    {"layer4.1.relu_1": "last", "maxpool": "pool"},
])
def test_extractor_outputs_match(return_nodes):
    ours, theirs = _resnet_pair()
    fe, tfe = (NFE.create_feature_extractor(ours, return_nodes=return_nodes),
               TFE.create_feature_extractor(theirs, return_nodes=return_nodes))
    assert not fe.training and not ours.training
    x = image((2, 3, 32, 32), seed=2)
    with numtorch.no_grad():
        got = fe(numtorch.from_numpy(x))
    with torch.no_grad():
        expected = tfe(torch.from_numpy(x))
    assert list(got) == list(expected)
    for key in expected:
        assert_outputs_close(got[key], expected[key], rel=1e-4)
    # nodes after the last one asked for are gone, as in torchvision
    assert [n.op for n in fe.graph.nodes] == [n.op for n in tfe.graph.nodes]
    assert fe.code.count("self.") == tfe.code.count("self.")


def test_train_and_eval_graphs():
    ours, theirs = _bare_pair("googlenet", init_weights=False, aux_logits=True)
    kw = dict(train_return_nodes=["aux1.fc2", "fc"], eval_return_nodes=["fc"],
              suppress_diff_warning=True)
    fe, tfe = NFE.create_feature_extractor(ours, **kw), TFE.create_feature_extractor(theirs, **kw)
    assert fe.training == tfe.training is True
    assert [n.name for n in fe.graph.nodes] == [n.name for n in tfe.graph.nodes]
    fe.eval()
    tfe.eval()
    assert [n.name for n in fe.graph.nodes] == [n.name for n in tfe.graph.nodes]
    assert [n.name for n in fe.eval_graph.nodes] == [n.name for n in tfe.eval_graph.nodes]
    fe.train()
    assert fe.graph is fe.train_graph
    assert isinstance(fe, NFE.DualGraphModule) and type(fe).__name__ == "GoogLeNet"


def test_errors_match():
    ours, theirs = _bare_pair("resnet18")
    cases = [dict(), dict(train_return_nodes=["fc"]),
             dict(return_nodes=["fc"], train_return_nodes=["fc"], eval_return_nodes=["fc"]),
             dict(return_nodes=["layer9"]), dict(return_nodes={"layer1.0.conv": "a"})]
    for kw in cases:
        with pytest.raises(ValueError) as expected:
            TFE.create_feature_extractor(theirs, **kw)
        with pytest.raises(ValueError) as got:
            NFE.create_feature_extractor(ours, **kw)
        assert str(got.value) == str(expected.value)


def test_leaf_modules_and_autowrap_from_tracer_kwargs():
    ours, theirs = _bare_pair("resnet18")
    kw = dict(tracer_kwargs={"leaf_modules": [NM.resnet.BasicBlock]})
    tkw = dict(tracer_kwargs={"leaf_modules": [TM.resnet.BasicBlock]})
    assert NFE.get_graph_node_names(ours, **kw) == TFE.get_graph_node_names(theirs, **tkw)
    names = NFE.get_graph_node_names(ours, **kw)[1]
    assert "layer1.0" in names and "layer1.0.conv1" not in names
    np.testing.assert_equal(len(names), len(TFE.get_graph_node_names(theirs, **tkw)[1]))
