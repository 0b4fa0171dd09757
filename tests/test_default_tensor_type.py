"""``torch.set_default_tensor_type`` (deprecated, still used by 0.x programs) against torch."""

import subprocess
import sys
import warnings

import torch

import numtorch


def _script(lib):
    out = []

    def t(name, f):
        try:
            f()
            out.append((name, str(lib.get_default_dtype()), str(lib.tensor([1.0]).dtype),
                        str(lib.Tensor(2).dtype), lib.ones(1).type(), str(lib.zeros(1).device)))
        except (TypeError, AttributeError, ImportError) as e:
            out.append((name, type(e).__name__, str(e)))

    t("type", lambda: lib.set_default_tensor_type(lib.DoubleTensor))
    t("name", lambda: lib.set_default_tensor_type("torch.FloatTensor"))
    t("double name", lambda: lib.set_default_tensor_type("torch.DoubleTensor"))
    t("half", lambda: lib.set_default_tensor_type(lib.HalfTensor))
    t("bfloat16", lambda: lib.set_default_tensor_type(lib.BFloat16Tensor))
    t("integer type", lambda: lib.set_default_tensor_type(lib.LongTensor))
    t("integer name", lambda: lib.set_default_tensor_type("torch.LongTensor"))
    if not lib.cuda.is_available():
        t("cuda type", lambda: lib.set_default_tensor_type(lib.cuda.FloatTensor))
        t("cuda name", lambda: lib.set_default_tensor_type("torch.cuda.FloatTensor"))
    t("dtype", lambda: lib.set_default_tensor_type(lib.float64))
    t("unknown name", lambda: lib.set_default_tensor_type("torch.Foo"))
    t("unknown module", lambda: lib.set_default_tensor_type("float"))
    t("unknown cuda name", lambda: lib.set_default_tensor_type("torch.cuda.Foo"))
    t("int", lambda: lib.set_default_tensor_type(3))
    t("Tensor", lambda: lib.set_default_tensor_type(lib.Tensor))
    t("back", lambda: lib.set_default_tensor_type(lib.FloatTensor))
    return out


def test_set_default_tensor_type_matches_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _script(numtorch) == _script(torch)


_WARNING = """
import warnings
warnings.simplefilter("always")
import {lib}
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    {lib}.set_default_tensor_type({lib}.DoubleTensor)
    {lib}.set_default_tensor_type({lib}.FloatTensor)
print(repr([(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w]))
"""


def test_deprecation_warning_once_per_process_as_torch():
    got, want = (subprocess.run([sys.executable, "-c", _WARNING.format(lib=lib)], text=True,
                                capture_output=True, check=True).stdout
                 for lib in ("numtorch", "torch"))
    assert got == want and "deprecated" in got
