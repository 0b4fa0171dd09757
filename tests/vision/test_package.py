"""The numtorchvision package: version, backends, and tensor-only use without Pillow."""

import subprocess
import sys

import pytest

import numtorchvision


def test_version_and_backends(tv):
    assert numtorchvision.__version__ == tv.__version__.split("+")[0]
    assert numtorchvision.get_image_backend() == tv.get_image_backend() == "PIL"
    assert numtorchvision.get_video_backend() == tv.get_video_backend()
    with pytest.raises(ValueError) as want:
        tv.set_image_backend("nope")
    with pytest.raises(ValueError) as got:
        numtorchvision.set_image_backend("nope")
    assert str(got.value) == str(want.value)
    assert numtorchvision.set_video_backend("video_reader") is tv.set_video_backend("x") is None
    assert numtorchvision.get_video_backend() == "pyav"
    numtorchvision.set_image_backend("PIL")
    for name in ("datasets", "transforms", "models", "ops", "io", "utils"):
        assert hasattr(numtorchvision, name)


def test_import_and_tensor_transforms_without_pillow():
    code = ("import sys; sys.modules['PIL'] = None\n"
            "import numtorch, numtorchvision as tv\n"
            "x = numtorch.rand(3, 20, 24)\n"
            "y = tv.transforms.Compose([tv.transforms.Resize(10), tv.transforms.Normalize("
            "[0.5] * 3, [0.2] * 3)])(x)\n"
            "assert tuple(y.shape) == (3, 10, 12)\n"
            "try:\n    tv.transforms.ToPILImage()(x)\nexcept ImportError as e:\n"
            "    assert 'vision' in str(e)\nelse:\n    raise SystemExit('no ImportError')\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
