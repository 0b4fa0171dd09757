"""``nn.Module``'s mode switches and whole-model conversions: ``train``/``eval``,
``requires_grad_``, ``zero_grad``, and ``_apply`` with the methods built on it (``to``,
``cpu``, ``cuda``, ``float``/``double``/``half``, ``type``, ``to_empty``, ``share_memory``).

A base class of ``Module`` (module.py). ``_apply`` keeps the parameter objects and swaps
their arrays, so optimizers holding the parameters see the moved or cast values.
"""

from ... import _dtype
from ..._device import as_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy


class _ConversionMixin:
    """Modes and device/dtype conversion of ``nn.Module``."""

    def train(self, mode=True):
        """Set training mode (dropout, batch norm...) here and below; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Set evaluation mode; the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (default) or to zeros in place."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def _apply(self, fn, recurse=True):
        """Apply ``fn`` to every parameter, gradient and buffer, keeping parameter objects
        (optimizers hold them)."""
        from ... import __future__ as _future
        from ..parameter import Parameter

        if recurse:
            for m in self.children():
                m._apply(fn)
        overwrite = _future.get_overwrite_module_params_on_conversion() and \
            not _future.get_swap_module_params_on_conversion()
        for key, p in self._parameters.items():
            if p is None:
                continue
            with no_grad():
                if overwrite and not is_lazy(p):  # new parameter objects (torch.__future__)
                    new = Parameter(fn(p), p.requires_grad)
                    if p._grad is not None:
                        new.grad = fn(p._grad).requires_grad_(p._grad.requires_grad)
                    self._parameters[key] = new
                    continue
                p._array = fn(p)._array
                if p._grad is not None:
                    p._grad._array = fn(p._grad)._array
        for key, b in self._buffers.items():
            if b is None:
                continue
            if is_lazy(b):  # a placeholder stays one, in the new dtype or device (as torch)
                with no_grad():
                    b._array = fn(b)._array
            else:
                self._buffers[key] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers; returns self.

        Accepts ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` and the
        keywords ``device``, ``dtype``, ``non_blocking``, ``memory_format``. Only floating
        point and complex tensors change dtype, as in torch.

        Example:
            >>> torch.nn.Linear(2, 2).to(torch.float64).weight.dtype
            torch.float64
        """
        from ..._C import _parse_to  # Tensor.to's parser: its forms and its errors, as torch

        device, dtype, _, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        if dtype is not None and dtype.is_complex:
            import warnings

            warnings.warn("Complex modules are a new feature under active development whose "
                          "design may change, and some modules might not work as expected when "
                          "using complex tensors as parameters or buffers. Please file an issue "
                          "at https://github.com/pytorch/pytorch/issues/new?template=bug-report"
                          ".yml if a complex module does not work as expected.", stacklevel=2)
        device = as_device(device) if device is not None else None

        def convert(t):
            # as torch: a memory format reaches the 4-d and 5-d tensors only
            fmt = {} if memory_format is None or t.dim() not in (4, 5) else \
                {"memory_format": memory_format}
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(device=device, dtype=dtype, **fmt)
            return t.to(device=device, **fmt) if device is not None or fmt else t

        return self._apply(convert)

    def cpu(self):
        """Move every parameter and buffer to the CPU; returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Move every parameter and buffer to a CUDA device (needs CuPy and a GPU)."""
        return self._apply(lambda t: t.cuda(device))

    def float(self):
        """Cast floating point parameters and buffers to float32; returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating point parameters and buffers to float64; returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating point parameters and buffers to float16; returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating point parameters and buffers to bfloat16; returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def xpu(self, device=None):
        """Move to an Intel XPU: numtorch has none, so the tensors' error is raised."""
        return self._apply(lambda t: t.xpu(device))

    def ipu(self, device=None):
        """Move to a Graphcore IPU: numtorch has none, so the tensors' error is raised."""
        return self._apply(lambda t: t.ipu(device))

    def mtia(self, device=None):
        """Move to a Meta MTIA device: numtorch has none, so the tensors' error is raised."""
        return self._apply(lambda t: t.mtia(device))

    def compile(self, *args, **kwargs):
        """Compile this module's forward in place (torch's ``Module.compile``): numtorch has no
        compiler, so after the arguments are checked as ``torch.compile`` checks them the
        module keeps running as written (its state-dict keys unchanged, as in torch)."""
        from ..._compat import compile as _compile

        _compile(lambda: None, *args, **kwargs)

    def type(self, dst_type):
        """Cast every parameter and buffer (integers too) to ``dst_type``; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse=True):
        """Move to ``device`` with fresh uninitialised storage of the same shapes."""
        from ..._creation import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        """Move the storage of parameters and buffers to shared memory; returns self."""
        # Tensor.share_memory_ comes with numtorch.multiprocessing; without it a tensor is only
        # ever used by this process, where its memory is already shared by all threads
        return self._apply(lambda t: t.share_memory_() if hasattr(t, "share_memory_") else t)
