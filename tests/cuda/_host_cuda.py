"""Run a numtorch RawKernel's CUDA source on the host: the source compiled as C++ by the system
compiler, CUDA's thread indices emulated (each thread of the launch grid in turn), called
through ctypes. The stand-in runs a kernel's NumPy reference instead of its source, so this is
what checks the source itself (index arithmetic, loop bounds, masks) without a GPU."""

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
    fn, params = _build(seen["code"], seen["name"])
    cargs = []
    for p, a in zip(params, tuple(args) + (count,)):
        if "*" in p:
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous
            cargs.append(ctypes.c_void_p(a.ctypes.data))
        elif p.startswith("double"):
            cargs.append(ctypes.c_double(a))
        elif p.startswith("long long"):
            cargs.append(ctypes.c_longlong(a))
        elif p.startswith("bool"):
            cargs.append(ctypes.c_bool(a))
        else:
            raise TypeError(f"unsupported kernel parameter {p!r}")
    grid = min((count + block - 1) // block, 1 << 16)
    fn(ctypes.c_longlong(grid), ctypes.c_longlong(block), *cargs)
