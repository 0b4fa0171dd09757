"""The main job (python -m numtorch.demo): the CNN on the bundled digits learns, and its
checkpoint loads in real PyTorch into the same architecture with the same predictions."""

import numpy as np
import torch

import numtorch
from numtorch.demo import digits


def test_bundled_digits_are_complete():
    x, y = digits.load_digits()
    assert tuple(x.shape) == (1797, 1, 8, 8) and x.dtype is numtorch.float32
    assert float(x.max()) == 1.0 and float(x.min()) == 0.0
    assert sorted(set(y.tolist())) == list(range(10))


def test_short_training_run_learns():
    model, losses, acc = digits.train(epochs=3, progress=False, log=lambda *_: None)
    assert losses[-1] < losses[0] * 0.5
    assert acc > 0.8


def _torch_net():
    tnn = torch.nn
    net = tnn.Module()
    net.features = tnn.Sequential(tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(),
                                  tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(),
                                  tnn.MaxPool2d(2))
    net.classifier = tnn.Sequential(tnn.Flatten(), tnn.Linear(512, 64), tnn.ReLU(),
                                    tnn.Linear(64, 10))
    return net


def test_checkpoint_loads_in_real_torch(tmp_path):
    model, _, _ = digits.train(epochs=1, progress=False, log=lambda *_: None)
    path = tmp_path / "digits.pt"
    numtorch.save(model.state_dict(), path)
    sd = torch.load(path, weights_only=True)
    net = _torch_net()
    net.load_state_dict(sd)
    x, _ = digits.load_digits()
    ours = model.eval()(x[:32]).detach().numpy()
    theirs = (net.features(torch.from_numpy(x[:32].numpy())))
    theirs = net.classifier(theirs).detach().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
