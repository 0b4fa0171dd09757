"""``torch.cuda.jiterator``: elementwise GPU kernels from a C++ function template, compiled at
run time. numtorch hands the template to CuPy's ``ElementwiseKernel`` (NVRTC): the function
named in ``code_string`` is called once per element of the broadcast inputs; the keyword
arguments given at creation are extra scalar parameters with defaults, as in torch.
"""

import re

from .. import backend

__all__ = ["_create_jit_fn", "_create_multi_output_jit_fn"]

_NAME = re.compile(r"template\s*<[^>]*>\s*[\w:<>\s]+?\s+(\w+)\s*\(")


def _function_name(code_string):
    m = _NAME.search(code_string)
    if m is None:
        raise RuntimeError("jiterator: code_string must define one function template, e.g. "
                           "'template <typename T> T my_kernel(T x, T y) { return x + y; }'")
    return m.group(1)


class _JittedFunction:
    """A callable running the template on tensors (see the module docstring)."""

    def __init__(self, code_string, num_outputs, return_by_ref, **kwargs):
        self.code_string = code_string
        self.num_outputs = num_outputs
        self.return_by_ref = return_by_ref
        self.kernel_name = _function_name(code_string)
        self.kwargs_dict = kwargs
        self._kernels = {}

    def _kernel(self, n_inputs):
        k = self._kernels.get(n_inputs)
        if k is None:
            cp = backend.cupy_or_none()
            names = [f"x{i}" for i in range(n_inputs)] + list(self.kwargs_dict)
            outs = [f"out{i}" for i in range(self.num_outputs)]
            if self.num_outputs == 1 and not self.return_by_ref:
                body = f"out0 = {self.kernel_name}({', '.join(names)});"
            else:
                body = f"{self.kernel_name}({', '.join(names + outs)});"
            k = self._kernels[n_inputs] = cp.ElementwiseKernel(
                ", ".join(f"T {n}" for n in names), ", ".join(f"T {o}" for o in outs), body,
                f"jiterator_{self.kernel_name}", preamble=self.code_string)
        return k

    def __call__(self, *tensors, **kwargs):
        if backend.cupy_or_none() is None:
            raise AssertionError("Jiterator is only supported on CUDA and ROCm GPUs, none are "
                                 "available.")
        import numtorch

        if not all(t.is_cuda for t in tensors):
            raise AssertionError("Jiterator only supports CUDA tensors")
        dtype = numtorch.result_type(*tensors) if len(tensors) > 1 else tensors[0].dtype
        arrays = [t.to(dtype)._array for t in tensors]
        scalars = [kwargs.get(k, v) for k, v in self.kwargs_dict.items()]
        cp = backend.cupy_or_none()
        scalars = [cp.asarray(s, dtype=dtype.np) for s in scalars]
        out = self._kernel(len(arrays))(*arrays, *scalars)
        outs = out if isinstance(out, tuple) else (out,)
        made = tuple(numtorch.ops.tensor_from_array(o) for o in outs)
        return made[0] if self.num_outputs == 1 else made


def _create_jit_fn(code_string, **kwargs):
    """An elementwise function running ``code_string``'s template (one output)."""
    return _JittedFunction(code_string, 1, False, **kwargs)


def _create_multi_output_jit_fn(code_string, num_outputs, **kwargs):
    """As :func:`_create_jit_fn`, for a template writing ``num_outputs`` outputs through
    reference parameters after its inputs."""
    return _JittedFunction(code_string, num_outputs, True, **kwargs)
