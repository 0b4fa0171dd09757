"""Run a numtorch RawKernel's CUDA source on the host: the source compiled as C++ by the system
compiler, CUDA's thread indices emulated (each thread of the launch grid in turn), called
through ctypes. The stand-in runs a kernel's NumPy reference instead of its source, so this is
what checks the source itself (index arithmetic, loop bounds, masks) without a GPU."""

import contextlib
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

import numpy as np

_PRELUDE = r"""
#include <cmath>
#include <cstddef>
#include <algorithm>
using std::min; using std::max; using std::isinf; using std::isnan; using std::exp;
using std::sqrt;
struct Dim3_ { long long x, y, z; };
static Dim3_ blockIdx, threadIdx, blockDim, gridDim;
"""
_DIR = os.path.join(tempfile.gettempdir(), "numtorch_host_cuda")


def compiler():
    """The C++ compiler's path, or None."""
    return shutil.which("g++") or shutil.which("c++")


def _build(source, name):
    m = re.search(r"void\s+" + name + r"\s*\(([^)]*)\)", source)
    params = " ".join(m.group(1).split())
    names = [p.strip().split()[-1].lstrip("*") for p in params.split(",")]
    code = _PRELUDE + source.replace('extern "C" __global__', "static")
    code += (f'\nextern "C" void host_{name}(long long grid_, long long block_, {params}) {{\n'
             "  blockDim.x = block_; gridDim.x = grid_;\n"
             "  for (long long b_ = 0; b_ < grid_; ++b_)\n"
             "    for (long long t_ = 0; t_ < block_; ++t_) {\n"
             f"      blockIdx.x = b_; threadIdx.x = t_; {name}({', '.join(names)});\n"
             "    }\n}\n")
    os.makedirs(_DIR, exist_ok=True)
    lib = os.path.join(_DIR, f"{name}_{hashlib.sha256(code.encode()).hexdigest()[:16]}.so")
    if not os.path.exists(lib):
        src = lib[:-3] + ".cpp"
        with open(src, "w") as f:
            f.write(code)
        subprocess.run([compiler(), "-O1", "-shared", "-fPIC", "-o", lib, src], check=True,
                       capture_output=True)
    return getattr(ctypes.CDLL(lib), "host_" + name), [p.strip() for p in params.split(",")]


def launch(kernels, dtype, count, args, block=128):
    """Run ``backend._cupy_rows.launch_rows(kernels, dtype, count, args)`` on the host: the
    same kernel source and grid, NumPy arrays for the device arrays."""
    _, make = kernels[np.dtype(dtype).char]
    seen = {}

    class _Capture:  # the kernel maker's view of CuPy: keep the source it builds
        @staticmethod
        def RawKernel(code, name, options=()):  # CuPy's name
            seen["code"], seen["name"] = code, name

    make(_Capture)
    _call(seen["code"], seen["name"], count, tuple(args) + (count,), block)


def _call(code, name, count, args, block):
    fn, params = _build(code, name)
    cargs = []
    for p, a in zip(params, args):
        if "*" in p:
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous
            cargs.append(ctypes.c_void_p(a.ctypes.data))
        elif p.startswith("double"):
            cargs.append(ctypes.c_double(a))
        elif p.startswith("float"):
            cargs.append(ctypes.c_float(a))
        elif p.startswith("long long"):
            cargs.append(ctypes.c_longlong(a))
        elif p.startswith("int "):
            cargs.append(ctypes.c_int(a))
        elif p.startswith("bool"):
            cargs.append(ctypes.c_bool(a))
        else:
            raise TypeError(f"unsupported kernel parameter {p!r}")
    grid = min((count + block - 1) // block, 1 << 16)
    fn(ctypes.c_longlong(grid), ctypes.c_longlong(block), *cargs)


_CTYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long",
           "bool": "bool"}


def launch_elementwise(make, args, size=None, block=128):
    """Run the ``cupy.ElementwiseKernel`` that ``make(cp)`` builds on host arrays and scalars
    ``args`` (inputs then outputs, as CuPy takes them) over ``size`` indices (default: the
    size of the first array argument that is not ``raw``), from its CUDA source: ``raw``
    parameters become pointers indexed by the body itself, the others the ``i``-th element
    of their array (or the scalar passed), ``T`` the dtype of the first array bound to it.
    For kernels without warp-level primitives (threads run one at a time here)."""
    seen = {}

    class _Capture:
        @staticmethod
        def ElementwiseKernel(in_params, out_params, operation, name, **kwargs):  # CuPy's
            seen.update(ins=in_params, outs=out_params, body=operation, name=name)

    make(_Capture)
    decls = [(d.split(), False) for d in seen["ins"].split(",")] + \
        [(d.split(), True) for d in seen["outs"].split(",")]
    ctype = None
    for (words, _), a in zip(decls, args):
        if words[-2] == "T" and isinstance(a, np.ndarray):
            ctype = _CTYPES[a.dtype.name]
            break
    params, prologue = [], []
    for (words, out), a in zip(decls, args):
        raw = words[0] == "raw"
        t, pname = words[-2], words[-1]
        ct = ctype if t == "T" else _CTYPES[t]
        if isinstance(a, np.ndarray):
            if raw:
                params.append(f"{'' if out else 'const '}{ct}* {pname}")
            else:
                params.append(f"{ct}* {pname}_p")
                prologue.append(f"{ct}& {pname} = {pname}_p[i];")
                if size is None:
                    size = a.size
        else:
            params.append(f"{ct} {pname}")
    name = seen["name"]
    code = (f"typedef {ctype} T;\n"
            f'extern "C" __global__ void {name}({", ".join(params)}, long long n_index_) {{\n'
            "for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_index_;"
            " i += (long long)gridDim.x * blockDim.x) {\n" + " ".join(prologue) + "\n" +
            seen["body"] + "\n}\n}\n")
    _call(code, name, size, tuple(args) + (size,), block)


_CARGS = (("double", ctypes.c_double), ("float", ctypes.c_float),
          ("long long", ctypes.c_longlong), ("int", ctypes.c_int), ("bool", ctypes.c_bool))


@contextlib.contextmanager
def sources_beside_references(rtol=1e-5, atol=1e-6):
    """Inside the block every stand-in ``RawKernel`` launch also runs its CUDA source on the
    host, on copies of its pointers' memory as the GPU addresses it, and each written array is
    compared with what the NumPy reference wrote. Yields the list of mismatches
    ``(kernel, argument, largest difference)``; launches are counted per kernel in
    ``checked``. Checks a kernel's source at a real program's shapes and arguments."""
    from tests.cuda.standin import _raw

    call = _raw.RawKernel.__call__
    found, checked = [], {}

    def both(self, grid, block, args, *, shared_mem=0):
        if self._params is None:
            self._params = _raw._signature(self.code, self.name)
        before = [np.array(_raw.raw_view(a, self.name, k), copy=True) if p[0] else a
                  for k, (p, a) in enumerate(zip(self._params, args))]
        call(self, grid, block, args, shared_mem=shared_mem)
        fn, params = _build(self.code, self.name)
        cargs = []
        for p, a in zip(params, before):
            if "*" in p:
                cargs.append(ctypes.c_void_p(a.ctypes.data))
                continue
            cargs.append(next(c for prefix, c in _CARGS if p.startswith(prefix))(a))
        fn(ctypes.c_longlong(grid[0]), ctypes.c_longlong(block[0]), *cargs)
        checked[self.name] = checked.get(self.name, 0) + 1
        for k, ((pointer, const, _), a) in enumerate(zip(self._params, args)):
            if not pointer or const:
                continue
            want, got = _raw.raw_view(a, self.name, k), before[k]
            same = np.allclose(want, got, rtol=rtol, atol=atol, equal_nan=True) \
                if want.dtype.kind == "f" else np.array_equal(want, got)
            if not same:
                diff = np.abs(want.astype(np.float64) - got.astype(np.float64))
                found.append((self.name, k, float(np.nanmax(diff, initial=0))))

    _raw.RawKernel.__call__ = both
    try:
        yield found, checked
    finally:
        _raw.RawKernel.__call__ = call
