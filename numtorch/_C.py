"""``torch._C``: the few names of torch's compiled core that Python code reaches for directly.

Tensor subclasses written for torch use ``torch._C._disabled_torch_function_impl`` and the
``DisableTorchFunction*`` context managers; ``_LinAlgError`` is where torch defines
``linalg.LinAlgError``.
"""

from ._torch_function import (  # noqa: F401
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl,
)
from ._function_mode import (  # noqa: F401
    _is_torch_function_mode_enabled, _len_torch_function_stack,
    _pop_mode as _pop_torch_function_stack, _push_mode as _push_on_torch_function_stack,
)
from .linalg import LinAlgError as _LinAlgError  # noqa: F401


def _is_torch_function_enabled():
    """False inside ``DisableTorchFunctionSubclass`` (and ``DisableTorchFunction``)."""
    from ._torch_function import _all_disabled, _sub_disabled

    return not (_sub_disabled() or _all_disabled())


def _are_functorch_transforms_active():
    """True while a ``torch.func`` transform (vmap, grad, vjp, jvp, jacrev, ...) runs the
    function it wraps (libraries skip data-dependent checks then). ``functionalize`` returns
    its function unchanged in numtorch, so it does not count."""
    from .func import _batched, _grad

    return _grad._DEPTH[0] > 0 or len(_batched._ACTIVE) > 0


def _get_tracing_state():
    """The state of the ``torch.jit.trace`` recording in progress, or None. numtorch's
    ``jit.trace`` hands the function back to run eagerly and records nothing, so there is
    never one (``torch.jit.is_tracing()`` is False alike); pyro asks before tracing."""
    return None  # noqa: RET501 - the answer, spelled out


def _set_grad_enabled(enabled):
    """``torch.set_grad_enabled``'s function form: switch gradient recording on or off."""
    if enabled.__class__ is not bool:
        raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {type(enabled).__name__}")
    from .autograd.grad_mode import set_grad_enabled

    set_grad_enabled(enabled)


def _get_cudnn_enabled():
    """``torch.backends.cudnn.enabled``."""
    from .backends import cudnn

    return cudnn.enabled


# TorchScript executor switches (timm's set_jit_fuser/set_jit_legacy flip them). numtorch
# runs scripted code eagerly, so they are recorded, read back, and change nothing.
_JIT_FLAGS = {"profiling_mode": True, "profiling_executor": True, "fuse_cpu": False,
              "fuse_gpu": False, "texpr_fuser": True}


def _jit_flag_arg(name, flag):
    """The flag as a bool: torch's binding takes a bool, None or a number (by its truth)."""
    if not (flag is None or isinstance(flag, (bool, int, float))):
        raise TypeError(f"{name}(): incompatible function arguments; expected a bool, got "
                        f"{type(flag).__name__}")
    return bool(flag)


def _jit_set_profiling_mode(flag):
    """Set the flag; returns its previous value, as torch's does."""
    flag = _jit_flag_arg("_jit_set_profiling_mode", flag)
    old, _JIT_FLAGS["profiling_mode"] = _JIT_FLAGS["profiling_mode"], flag
    return old


def _jit_set_profiling_executor(flag):
    """Set the flag; returns its previous value, as torch's does."""
    flag = _jit_flag_arg("_jit_set_profiling_executor", flag)
    old, _JIT_FLAGS["profiling_executor"] = _JIT_FLAGS["profiling_executor"], flag
    return old


def _jit_override_can_fuse_on_cpu(flag):
    flag = _jit_flag_arg("_jit_override_can_fuse_on_cpu", flag)
    _JIT_FLAGS["fuse_cpu"] = flag


def _jit_override_can_fuse_on_gpu(flag):
    flag = _jit_flag_arg("_jit_override_can_fuse_on_gpu", flag)
    _JIT_FLAGS["fuse_gpu"] = flag


def _jit_can_fuse_on_cpu():
    return _JIT_FLAGS["fuse_cpu"]


def _jit_can_fuse_on_gpu():
    return _JIT_FLAGS["fuse_gpu"]


def _jit_set_texpr_fuser_enabled(flag):
    flag = _jit_flag_arg("_jit_set_texpr_fuser_enabled", flag)
    _JIT_FLAGS["texpr_fuser"] = flag


def _jit_texpr_fuser_enabled():
    return _JIT_FLAGS["texpr_fuser"]


def _log_api_usage_once(event):
    """Records an API-usage event in torch's telemetry; numtorch keeps none."""


def _get_function_stack_at(i):
    """The ``i``-th active TorchFunctionMode, outermost first."""
    from ._function_mode import stack

    return stack()[i]


def _get_accelerator():
    """The device type programs should use: ``device('cuda')`` when CUDA is usable, else
    ``device('cpu')`` (torch's CPU build answers cpu, unlike ``accelerator.current_accelerator``,
    which answers None)."""
    from . import cuda
    from ._device import device

    return device("cuda") if cuda.is_available() else device("cpu")


def __getattr__(name):
    # ``_TensorMeta``: the metaclass of ``Tensor`` (libraries annotate with it and test
    # ``isinstance(cls, _TensorMeta)``); looked up late, ``Tensor`` imports this module
    if name == "_nn":
        return _nn_namespace()
    if name == "_TensorMeta":
        from ._tensor import Tensor

        return type(Tensor)
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")


class ScriptModule:
    """``torch._C.ScriptModule`` (also ``torch.ScriptModule``): the compiled object behind a
    scripted module. numtorch scripts in Python, so nothing is an instance of it (as in torch,
    ``torch.jit.ScriptModule`` is not its subclass); libraries name it in annotations."""


class PyTorchFileReader:
    """Reads the records of a ``torch.save`` zip archive by name (``data.pkl``,
    ``data/0``, ``byteorder``), without the archive's top-level folder, as torch's reader
    does. ``file`` is a path or a binary file object."""

    def __init__(self, file):
        import zipfile

        self._zip = zipfile.ZipFile(file if not hasattr(file, "__fspath__") else
                                    file.__fspath__())
        names = self._zip.namelist()
        if not names:
            raise RuntimeError("PytorchStreamReader failed locating file in archive: empty "
                               "archive")
        self._prefix = names[0].split("/", 1)[0] + "/"
        self._file = file

    def _info(self, name):
        try:
            return self._zip.getinfo(self._prefix + name)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found. This is an "
                "internal miniz error. If you are seeing this error, there is a high likelihood "
                "that your checkpoint file is corrupted. This can happen if the checkpoint was "
                "not saved properly, was transferred incorrectly, or the file was modified "
                "after saving.") from None

    def has_record(self, name):
        """True when the archive holds record ``name``."""
        return (self._prefix + name) in self._zip.NameToInfo

    def get_all_records(self):
        """The names of every record, without the top-level folder."""
        n = len(self._prefix)
        return [k[n:] for k in self._zip.namelist() if k.startswith(self._prefix)]

    def get_record(self, name):
        """The bytes of record ``name``."""
        return self._zip.read(self._info(name))

    def get_record_size(self, name):
        """The size in bytes of record ``name``."""
        return self._info(name).file_size

    def get_record_offset(self, name):
        """Where record ``name``'s bytes start in the file (records are stored uncompressed)."""
        import struct

        info = self._info(name)
        fp = self._zip.fp
        pos = fp.tell()
        try:
            fp.seek(info.header_offset)
            header = fp.read(30)
        finally:
            fp.seek(pos)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len

    def serialization_id(self):
        """The archive's ``.data/serialization_id`` record as text ("" when absent)."""
        return self.get_record(".data/serialization_id").decode() \
            if self.has_record(".data/serialization_id") else ""


def _parse_to(*args, **kwargs):
    """``torch._C._nn._parse_to``: the ``(device, dtype, non_blocking, memory_format)`` that
    ``Tensor.to`` / ``Module.to`` arguments ask for (None where not given)."""
    from ._tensor import _non_blocking
    from ._tensor import _parse_to as parse

    dtype, dev, _ = parse(args, kwargs)
    return dev, dtype, _non_blocking(args, kwargs), kwargs.get("memory_format")


def _nn_namespace():
    """``torch._C._nn``: the few of its functions Python libraries call directly."""
    import sys
    import types

    mod = sys.modules.get(__name__ + "._nn")
    if mod is None:
        mod = types.ModuleType("torch._C._nn")
        mod._parse_to = _parse_to
        sys.modules[__name__ + "._nn"] = mod
    return mod
