"""``torch.utils.collect_env``: the facts a bug report needs, as ``python -m
torch.utils.collect_env`` prints them (numtorch's versions, the OS, Python, NumPy and its BLAS,
CuPy, the CPU, the relevant packages)."""

import os
import platform
import subprocess
import sys
from collections import namedtuple

SystemEnv = namedtuple("SystemEnv", [
    "numtorch_version", "torch_compatible_version", "os", "libc_version", "python_version",
    "python_platform", "numpy_version", "blas", "cuda_available", "cupy_version", "cpu_info",
    "pip_packages"])

_PACKAGES = ("numpy", "scipy", "numtorch", "cupy", "mpi4py", "pillow", "onnx", "onnxruntime",
             "ml_dtypes", "torch", "torchvision")


def _run(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def get_os():
    if sys.platform.startswith("linux"):
        try:
            with open("/etc/os-release") as f:
                fields = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
            name = fields.get("PRETTY_NAME", "Linux").strip('"')
        except OSError:
            name = "Linux"
        return f"{name} ({platform.machine()})"
    if sys.platform == "darwin":
        return f"macOS {platform.mac_ver()[0]} ({platform.machine()})"
    return f"{platform.system()} {platform.release()} ({platform.machine()})"


def get_libc_version():
    lib, version = platform.libc_ver()
    return f"{lib}-{version}" if lib else "N/A"


def get_cpu_info():
    return _run(["lscpu"]) or platform.processor() or "Could not collect"


def get_pip_packages():
    from importlib import metadata

    found = []
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name in _PACKAGES or name.startswith(("numtorch", "cupy")):
            found.append(f"[pip3] {dist.metadata['Name']}=={dist.version}")
    return "\n".join(sorted(set(found))) or "Could not collect"


def get_env_info():
    import numpy as np

    import numtorch
    from numtorch import __config__, cuda, version

    blas, _ = __config__._blas()
    try:
        import cupy

        cupy_version = cupy.__version__
    except ImportError:
        cupy_version = "N/A"
    return SystemEnv(
        numtorch_version=numtorch.__version__,
        torch_compatible_version=version.torch_compatible_version(),
        os=get_os(), libc_version=get_libc_version(),
        python_version=f"{sys.version.replace(os.linesep, ' ')} "
                       f"({sys.maxsize.bit_length() + 1}-bit runtime)",
        python_platform=platform.platform(), numpy_version=np.__version__, blas=blas,
        cuda_available=cuda.is_available(), cupy_version=cupy_version,
        cpu_info=get_cpu_info(), pip_packages=get_pip_packages())


def pretty_str(env):
    return "\n".join([
        f"numtorch version: {env.numtorch_version}",
        f"torch-compatible version (torch.__version__ under numtorch.run): "
        f"{env.torch_compatible_version}",
        "",
        f"OS: {env.os}",
        f"Libc version: {env.libc_version}",
        "",
        f"Python version: {env.python_version}",
        f"Python platform: {env.python_platform}",
        f"NumPy version: {env.numpy_version}",
        f"BLAS: {env.blas}",
        f"Is CUDA available: {env.cuda_available}",
        f"CuPy version: {env.cupy_version}",
        "",
        "CPU:",
        env.cpu_info,
        "",
        "Versions of relevant libraries:",
        env.pip_packages,
    ]) + "\n"


def get_pretty_env_info():
    """Everything :func:`get_env_info` gathers, as the text to paste into a bug report."""
    return pretty_str(get_env_info())


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
