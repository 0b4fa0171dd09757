"""Shared fixtures: the device list, seeding, and a clean default dtype for every test."""

import os
import re
import sys

import numpy as np
import pytest

import numtorch


def _device_params():
    """'cpu', then 'cuda' on a machine with CuPy and a GPU, else 'cuda-standin' (numtorch's
    CUDA path on the CPU stand-in for CuPy, tests/cuda/standin). ``NUMTORCH_TEST_DEVICES``
    (comma-separated, e.g. ``cuda`` or ``cpu,cuda-standin``) overrides the list."""
    env = os.environ.get("NUMTORCH_TEST_DEVICES")
    if env:
        return [d.strip() for d in env.split(",") if d.strip()]
    if _UNDER_GPU_PLUGIN or _GPU_CHECK_BASELINE:
        return ["cpu"]
    return ["cpu", "cuda" if numtorch.backend.cupy_or_none() is not None else "cuda-standin"]


# ../shared/gpu/run_on_gpu.sh runs the suite twice on a GPU machine and compares the failing
# node ids: once under its plugin (cuda_plugin: everything on cuda) and once plainly as the
# CPU baseline (its folder .gpu/ on PYTHONPATH). Under the plugin the tests' one "cpu" param
# runs on cuda, and the baseline runs only "cpu": both runs then carry the same ids, so only
# CUDA-path failures differ between them.
_UNDER_GPU_PLUGIN = "cuda_plugin" in sys.modules
_GPU_CHECK_BASELINE = not _UNDER_GPU_PLUGIN and any(
    p.rstrip("/").endswith("/.gpu") for p in os.environ.get("PYTHONPATH", "").split(os.pathsep))
DEVICE_PARAMS = _device_params()
if _UNDER_GPU_PLUGIN:  # the oracle helpers then expect numtorch's results on cuda
    from tests import oracle as _oracle

    _oracle.DEVICE[0] = "cuda"


@pytest.fixture(params=DEVICE_PARAMS)
def device(request):
    """The device numtorch's side of an oracle test runs on: 'cpu', or 'cuda' (a real GPU, or
    the CuPy stand-in for the 'cuda-standin' param). On cuda, numtorch's factories default to
    cuda and the oracle helpers (tests/oracle.py) move numtorch's inputs and modules there;
    torch stays on the CPU as the oracle."""
    from tests import oracle

    param = request.param
    if param == "cuda" and numtorch.backend.cupy_or_none() is None:
        pytest.skip("no CUDA device (CuPy with a GPU) available")
    name = "cpu" if param == "cpu" and not _UNDER_GPU_PLUGIN else "cuda"
    standin = None
    if param == "cuda-standin":
        from tests.cuda import standin

        standin.install()
    oracle.DEVICE[0] = name
    restore, default = None, numtorch.get_default_device()
    if name != "cpu":
        numtorch.set_default_device(name)
        restore = _test_code_conveniences(name)
    try:
        yield name
    finally:
        oracle.DEVICE[0] = "cuda" if _UNDER_GPU_PLUGIN else "cpu"
        if name != "cpu":
            numtorch.set_default_device(None if default.type == "cpu" else default)
            restore()
        if standin is not None:
            standin.uninstall()


@pytest.fixture
def conv_paths(monkeypatch, device):
    """The CPU convolution kernel paths taken in a test (``ops/conv.py``'s ``_note`` names,
    in order), with the batch never split across cores so a path is the same on any machine;
    skipped on a device."""
    from numtorch.ops import conv as conv_ops
    from numtorch.ops import conv_samples

    if device != "cpu":
        pytest.skip("CPU kernel paths")
    taken = []
    monkeypatch.setattr(conv_ops, "_PATHS", taken)
    monkeypatch.setattr(conv_samples, "_free_cores", lambda: 1)
    return taken


def _called_from_tests(depth):
    """True when the code ``depth`` frames up (past ``Tensor.__array__``) is not numtorch's:
    a test, or NumPy/pytest code a test called."""
    frame = sys._getframe(depth + 1)
    if frame.f_code.co_name == "__array__" and \
            frame.f_globals.get("__name__") == "numtorch._tensor":
        frame = frame.f_back
    return not frame.f_globals.get("__name__", "").startswith("numtorch")


def _test_code_conveniences(name):
    """Let tests written for the CPU run on ``name``: their own ``Tensor.numpy()`` calls (and
    ``np.asarray(tensor)``) copy device data to the host, and their ``from_numpy`` hands back a
    copy on the device. numtorch's own code calling either still gets torch's behaviour (an
    error for device data, a CPU tensor), so a host round trip inside an op still fails.
    Returns the function undoing the change."""
    numpy_method, from_numpy = numtorch.Tensor.numpy, numtorch.from_numpy

    def numpy(self, *, force=False):
        if self.device.type != "cpu" and _called_from_tests(1):
            return numpy_method(self.detach().cpu(), force=force)
        return numpy_method(self, force=force)

    def from_numpy_on_device(ndarray):
        t = from_numpy(ndarray)
        return t.to(name) if _called_from_tests(1) else t

    numtorch.Tensor.numpy, numtorch.from_numpy = numpy, from_numpy_on_device

    def restore():
        numtorch.Tensor.numpy, numtorch.from_numpy = numpy_method, from_numpy

    return restore


# -- which tests run on the CuPy stand-in ------------------------------------------------------
# tests/ops, tests/nn and tests/optim run every test on each device of the fixture. On a real
# GPU all of them run; on the stand-in (CI, no GPU) a representative subset keeps CI's time in
# budget: each test function once per op/module/case, at its first dtype and shape set (the
# parameters named below are the ones that vary only those). NUMTORCH_STANDIN_FULL=1 runs all
# of them but the exclusions below.
_VARIANT_PARAMS = {"dtype", "dt", "dtypes", "shapes", "shape", "sizes", "size", "sid", "seed",
                   "layout", "contiguous", "non_contiguous", "keepdim", "batch", "memory_format",
                   "dim", "p", "reduction", "bias", "unbiased", "correction", "align_corners",
                   "padding_mode", "requires_grad", "weight", "inplace", "mode_args"}

# Tests (a file, a function, or one parametrisation) that the stand-in does not run, with the
# reason: each is about the CPU itself or compares CPU-only text. (A GPU-path bug still open
# would be listed here with its failing stand-in test, and the entry removed with the fix.)
STANDIN_EXCLUDED = {
    "tests/ops/test_fp_warnings.py": "NumPy floating-point warnings are a CPU matter",
    "tests/ops/test_elementwise.py::test_integer_division_by_zero_raises":
        "torch's CUDA kernels do not check integer division by zero",
    "tests/nn/test_module.py::test_cuda_without_cuda_raises_clearly": "about a CUDA-less machine",
    "tests/nn/test_module.py::test_docstring_examples_run": "docstrings print CPU tensors",
    "tests/nn/test_init.py::test_seeding_and_generator_determinism":
        "passes a CPU Generator, which torch refuses for CUDA tensors too",
    "tests/ops/test_special.py::test_fallbacks_without_scipy_keep_values_and_name_scipy":
        "the CPU's fallbacks without SciPy",
    "tests/nn/test_sparse.py::test_embedding_backward_uses_the_sort_and_reduce_helper":
        "spies on the NumPy helper",
    "tests/ops/test_reduction.py::test_return_types_behave_like_torch_structseqs":
        "compares repr text with the CPU's",
    "tests/ops/test_reduction.py::test_named_tuple_repr_matches_torch_text":
        "compares repr text with the CPU's",
    "tests/nn/test_loss_classification.py::test_target_out_of_bounds_raises_index_error":
        "torch's CUDA kernels assert on the device instead of checking targets on the host",
    "tests/nn/test_sparse.py::test_bad_input_raises_like_torch[cuda-standin-32]":
        "one_hot's class range: torch's CUDA path asserts on the device, no host check",
    "tests/nn/test_sparse.py::test_bad_input_raises_like_torch[cuda-standin-33]":
        "one_hot's class range: as above",
    "tests/ops/test_api_extra.py::test_frombuffer_shares_memory_like_torch":
        "frombuffer makes CPU tensors (and its warning is given once per process)",
    "tests/ops/test_special.py::test_adjoints_of_0d_tensors_warn_like_torch":
        "a warning given once per process, spent by the CPU run",
    "tests/nn/test_rnn.py::test_packed_input": "PackedSequence.batch_sizes stays on the CPU "
                                               "(as torch's), the oracle expects cuda outputs",
    "tests/nn/test_rnn.py::test_packed_input_with_state": "as test_packed_input",
    "tests/nn/test_rnn.py::test_lstm_projection_packed": "as test_packed_input",
    "tests/nn/test_rnn.py::test_packed_sequence_methods": "asserts a CPU PackedSequence",
    "tests/nn/test_conv_paths.py": "the CPU's choice of convolution kernels; device arrays take "
                                   "conv_device's paths (tests/nn/test_conv_device.py)",
    "tests/nn/test_conv_winograd.py": "the CPU's Winograd kernel, as test_conv_paths.py",
    "tests/nn/test_conv_batch_split.py": "splits a batch across CPU cores, as test_conv_paths.py",
    "tests/nn/test_conv_col2im.py::test_channels_last_col2im_matches_torch":
        "the CPU's col2im kernel, as test_conv_paths.py",
    "tests/nn/test_conv_col2im.py::test_channels_last_col2im_float32_in_blocks":
        "the CPU's col2im kernel, as test_conv_paths.py",
}


_PATTERNS = [k for k in STANDIN_EXCLUDED if "*" in k]


def _excluded(nodeid):
    """True when ``nodeid``, its function or its file is in STANDIN_EXCLUDED (in keys holding
    ``*``, it stands for any text)."""
    if nodeid in STANDIN_EXCLUDED or nodeid.split("[")[0] in STANDIN_EXCLUDED or \
            nodeid.split("::")[0] in STANDIN_EXCLUDED:
        return True
    return any(re.fullmatch(".*".join(map(re.escape, p.split("*"))), nodeid) for p in _PATTERNS)


def _variant_free_key(item):
    params = item.callspec.params
    return (item.module.__name__, item.originalname,
            tuple((k, repr(v)[:200]) for k, v in sorted(params.items())
                  if k != "device" and k not in _VARIANT_PARAMS))


def pytest_collection_modifyitems(config, items):
    """On cuda, leave out STANDIN_EXCLUDED (its CPU-only tests also on a real GPU, where its
    entries are matched with ``cuda`` for ``cuda-standin``); on the CuPy stand-in keep the
    representative subset described above unless NUMTORCH_STANDIN_FULL is set."""
    full = bool(os.environ.get("NUMTORCH_STANDIN_FULL"))
    keep, drop, seen = [], [], set()
    for item in items:
        callspec = getattr(item, "callspec", None)
        param = None if callspec is None else callspec.params.get("device")
        if param not in ("cuda", "cuda-standin") and not (param == "cpu" and _UNDER_GPU_PLUGIN):
            keep.append(item)
            continue
        nodeid = item.nodeid.replace(f"[{param}", "[cuda-standin", 1) \
            if param != "cuda-standin" else item.nodeid
        key = _variant_free_key(item)
        if _excluded(nodeid) or (param == "cuda-standin" and not full and key in seen):
            drop.append(item)
        else:
            seen.add(key)
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _reset_state():
    numtorch.manual_seed(0)
    np.random.seed(0)
    dt = numtorch.get_default_dtype()
    # torch's dynamo (torch.compile, torch.cond, while_loop, ...) turns off torch.distributions
    # argument validation for the whole process; later tests compare torch's validation errors
    tdist = sys.modules.get("torch.distributions")
    validate = tdist.Distribution._validate_args if tdist is not None else None
    yield
    numtorch.set_default_dtype(dt)
    # a test's Tensor subclass installs __torch_function__ dispatch on the public functions
    # (numtorch/_torch_function.py); the next test starts without it
    numtorch._torch_function.uninstall()
    if tdist is not None and tdist.Distribution._validate_args != validate:
        tdist.Distribution.set_default_validate_args(validate)
