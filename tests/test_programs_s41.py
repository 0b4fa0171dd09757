"""Session 41's program findings (timm's train.py, karpathy/makemore), each against real torch:
torchvision's per-image uniform parameters (ColorJitter factors, RandomRotation angles,
GaussianBlur sigmas, RandomErasing areas) are torch's float32 ``uniform_`` to the bit, and
``torch.save`` leaves Python's global ``random`` stream alone (timm's prefetcher erases with
``random`` in the main process: a checkpoint saved between epochs moved every later batch)."""
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import numtorch
import numtorchvision.transforms as T


def _torch_uniform(lo, hi):
    return float(torch.empty(1).uniform_(lo, hi))


@pytest.mark.parametrize("ranges", [((0.6, 1.4), (0.6, 1.4), (0.6, 1.4), None),
                                    ((0.5, 1.5), None, (0.9, 1.1), (-0.1, 0.1)),
                                    (None, (0.0, 2.0), None, (-0.5, 0.5))])
def test_color_jitter_factors_are_torchs_uniform(ranges):
    for seed in range(300):
        numtorch.manual_seed(seed)
        order, *factors = T.ColorJitter.get_params(*ranges)
        torch.manual_seed(seed)
        want_order = torch.randperm(4).tolist()
        want = [None if r is None else _torch_uniform(*r) for r in ranges]
        assert order.tolist() == want_order
        assert factors == want, seed  # exact: a factor 1 ulp off moves a pixel across .5


def test_rotation_blur_erasing_draws_are_torchs_uniform():
    img = numtorch.zeros(3, 40, 50)
    for seed in range(200):
        numtorch.manual_seed(seed)
        got = [T.RandomRotation.get_params([-37.3, 12.1]), T.GaussianBlur.get_params(0.1, 2.0),
               T.RandomErasing.get_params(img, (0.02, 0.33), (0.3, 3.3), value=[0.0])[:4]]
        torch.manual_seed(seed)
        angle = _torch_uniform(-37.3, 12.1)
        sigma = _torch_uniform(0.1, 2.0)
        assert got[0] == angle and got[1] == sigma, seed
        # RandomErasing: area from uniform_(scale), log-ratio from uniform_(log bounds)
        area = 40 * 50 * _torch_uniform(0.02, 0.33)
        log_ratio = torch.log(torch.tensor((0.3, 3.3)))
        aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
        h = round((area * aspect) ** 0.5)
        w = round((area / aspect) ** 0.5)
        if h < 40 and w < 50:
            assert got[2][2:] == (h, w), seed


def _save_then_draw(lib, path):
    random.seed(5)
    np.random.seed(5)
    lib.save({"w": lib.ones(3), "step": 2}, path)
    return random.random(), np.random.random()


def test_save_leaves_the_global_random_streams(tmp_path):
    want = _save_then_draw(torch, tmp_path / "t.pt")
    got = _save_then_draw(numtorch, tmp_path / "n.pt")
    assert got == want
    # the archive still carries a serialization id of torch's form (40 digits)
    import zipfile
    with zipfile.ZipFile(tmp_path / "n.pt") as z:
        ident = z.read(next(n for n in z.namelist() if n.endswith(".data/serialization_id")))
    assert len(ident) == 40 and ident.isdigit()
    assert numtorch.load(tmp_path / "n.pt")["step"] == 2
    assert torch.load(tmp_path / "n.pt")["w"].tolist() == [1.0, 1.0, 1.0]
