"""``torch.utils.cpp_extension``: building C++/CUDA extensions against torch's headers and
libraries.

numtorch is pure Python over NumPy: it has no C++ headers, no libtorch to link against and no
dispatcher a compiled operator could register with. So what describes a build works
(extension objects, paths, compiler queries, ``BuildExtension`` as a setuptools command
class), and what would build or load native code (``load``, ``load_inline``, running
``BuildExtension`` on an extension) raises torch's ``RuntimeError`` for a failed build, with
a message saying why. Programs that fall back to Python code when an extension fails to
build (a common pattern) then take that fallback.
"""

import os
import shutil
import subprocess
import sys

from ..torch_version import TorchVersion

__all__ = [  # noqa: F822 (BuildExtension is made on first use, by __getattr__)
    "BuildExtension",
    "CUDAExtension",
    "CppExtension",
    "SyclExtension",
    "check_compiler_is_gcc",
    "check_compiler_ok_for_platform",
    "get_compiler_abi_compatibility_and_version",
    "get_cxx_compiler",
    "get_default_build_root",
    "include_paths",
    "is_ninja_available",
    "library_paths",
    "load",
    "load_inline",
    "remove_extension_h_precompiler_headers",
    "verify_ninja_availability",
]

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")
LIB_EXT = ".pyd" if IS_WINDOWS else ".so"
EXEC_EXT = ".exe" if IS_WINDOWS else ""
CLIB_PREFIX = "" if IS_WINDOWS else "lib"
CLIB_EXT = ".dll" if IS_WINDOWS else ".so"
SHARED_FLAG = "/DLL" if IS_WINDOWS else "-shared"
IS_HIP_EXTENSION = False
# no native toolkits are looked for: nothing could be compiled against them
CUDA_HOME = None
CUDNN_HOME = None
ROCM_HOME = None
ROCM_VERSION = None
SYCL_HOME = None
_HERE = os.path.abspath(__file__)
_TORCH_PATH = os.path.dirname(os.path.dirname(_HERE))
TORCH_LIB_PATH = os.path.join(_TORCH_PATH, "lib")  # (absent: numtorch has no native library)

_NO_NATIVE = ("numtorch is a pure-Python (NumPy) implementation of PyTorch: it has no C++ "
              "headers, no libtorch to link against and no dispatcher for compiled operators, "
              "so C++/CUDA extensions cannot be built or loaded. Use a pure-Python "
              "implementation of the extension's operators instead.")


def _build_error(name):
    return RuntimeError(f"Error building extension '{name}': {_NO_NATIVE}")


def include_paths(device_type="cpu", torch_include_dirs=True):
    """The include directories an extension compiles with: none (numtorch has no C++
    headers; torch's list also names CUDA's include directory for ``"cuda"``)."""
    if device_type == "cuda" and not IS_HIP_EXTENSION:
        _join_cuda_home("include")
    return []


def library_paths(device_type="cpu"):
    """The library directories an extension links with: none (numtorch has no native
    libraries)."""
    if device_type == "cuda" and not IS_HIP_EXTENSION:
        _join_cuda_home("lib64")
    return []


def _join_cuda_home(*paths):
    if CUDA_HOME is None:
        raise OSError("CUDA_HOME environment variable is not set. Please set it to your CUDA "
                      "install root.")
    return os.path.join(CUDA_HOME, *paths)


def _extension(name, sources, device_type, args, kwargs):
    import setuptools

    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + include_paths(device_type)
    kwargs["library_dirs"] = list(kwargs.get("library_dirs", [])) + library_paths(device_type)
    kwargs.setdefault("libraries", [])
    kwargs["language"] = "c++"
    return setuptools.Extension(name, sources, *args, **kwargs)


def CppExtension(name, sources, *args, **kwargs):
    """A ``setuptools.Extension`` for C++ sources with the include/library directories above;
    a setup script can describe it, ``BuildExtension`` refuses to build it."""
    return _extension(name, sources, "cpu", args, kwargs)


def CUDAExtension(name, sources, *args, **kwargs):
    """A ``setuptools.Extension`` for CUDA sources: torch's OSError, as CUDA_HOME is not set
    (numtorch looks for no CUDA toolkit)."""
    return _extension(name, sources, "cuda", args, kwargs)


def SyclExtension(name, sources, *args, **kwargs):
    """A ``setuptools.Extension`` for SYCL sources: torch's error when no SYCL toolkit is
    found (numtorch looks for none)."""
    raise OSError("SYCL runtime is not dected. Please setup the pytorch prerequisites for "
                  "Intel GPU following the instruction in "
                  "https://github.com/pytorch/pytorch?tab=readme-ov-file#intel-gpu-support or "
                  "install intel-sycl-rt via pip.")


_BUILD_EXTENSION = None


def _build_extension_class():
    """``BuildExtension``, made on first use (it subclasses setuptools' ``build_ext``, which is
    slow to import)."""
    global _BUILD_EXTENSION
    if _BUILD_EXTENSION is not None:
        return _BUILD_EXTENSION
    from setuptools.command.build_ext import build_ext

    class BuildExtension(build_ext):
        """setuptools' ``build_ext`` command for torch extensions; building one raises
        torch's build error (numtorch cannot build native extensions).

        Args:
            use_ninja (bool), no_python_abi_suffix (bool): torch's options, kept.
        """

        @classmethod
        def with_options(cls, **options):
            """This class with ``options`` as default keyword arguments of ``__init__``."""

            class cls_with_options(cls):
                def __init__(self, *args, **kwargs):
                    kwargs.update(options)
                    super().__init__(*args, **kwargs)

            return cls_with_options

        def __init__(self, *args, **kwargs):
            self.no_python_abi_suffix = kwargs.pop("no_python_abi_suffix", False)
            self.use_ninja = kwargs.pop("use_ninja", True)
            super().__init__(*args, **kwargs)

        def build_extensions(self):
            names = ", ".join(e.name for e in self.extensions) or "(none)"
            raise _build_error(names)

    BuildExtension.__module__ = __name__
    _BUILD_EXTENSION = BuildExtension
    return BuildExtension


def __getattr__(name):
    if name == "BuildExtension":
        return _build_extension_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
         extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False,
         with_cuda=None, with_sycl=None, is_python_module=True, is_standalone=False,
         keep_intermediates=True):
    """Compile and load an extension from source files: torch's build error (numtorch
    cannot build or load native code)."""
    raise _build_error(name)


def load_inline(name, cpp_sources, cuda_sources=None, sycl_sources=None, functions=None,
                extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
                extra_ldflags=None, extra_include_paths=None, build_directory=None,
                verbose=False, with_cuda=None, with_sycl=None, is_python_module=True,
                with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
                no_implicit_headers=False):
    """Compile and load an extension from source strings: torch's build error (numtorch
    cannot build or load native code)."""
    raise _build_error(name)


def get_default_build_root():
    """Where torch keeps JIT-built extensions: ``torch_extensions`` in the user's cache
    directory (numtorch builds none there)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.realpath(os.path.join(cache, "torch_extensions"))


def _get_build_directory(name, verbose):
    root = os.environ.get("TORCH_EXTENSIONS_DIR") or get_default_build_root()
    return os.path.join(root, name)


def is_ninja_available():
    """Whether the ``ninja`` build tool runs."""
    try:
        subprocess.check_output(["ninja", "--version"], stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def verify_ninja_availability():
    """Raise torch's error when ``ninja`` is not available."""
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions (pip install ninja to get "
                           "it)")


def get_cxx_compiler():
    """The C++ compiler a build would use: ``$CXX``, else the platform's default."""
    return os.environ.get("CXX", "cl" if IS_WINDOWS else "c++")


def _compiler_output(compiler, *flags):
    try:
        return subprocess.check_output([compiler, *flags], stderr=subprocess.STDOUT,
                                       text=True)
    except (OSError, subprocess.CalledProcessError):
        return None


def check_compiler_is_gcc(compiler):
    """Whether ``compiler`` is GCC (its ``-v`` output names a gcc version)."""
    if not IS_LINUX:
        return False
    out = _compiler_output(compiler, "-v")
    return out is not None and "gcc version" in out


def check_compiler_ok_for_platform(compiler):
    """Whether ``compiler`` is one this platform's builds accept (GCC or clang on Linux,
    clang on macOS, MSVC on Windows)."""
    if IS_WINDOWS:
        return os.path.basename(compiler).lower().startswith("cl")
    path = shutil.which(compiler)
    if path is None:
        return False
    if IS_LINUX and check_compiler_is_gcc(compiler):
        return True
    out = _compiler_output(compiler, "-v") or ""
    return "clang version" in out or "Apple clang" in out


def get_compiler_abi_compatibility_and_version(compiler):
    """``(compatible, version)`` of ``compiler``: whether it is one the platform accepts, and
    its version (``0.0.0`` when it cannot be asked)."""
    if os.environ.get("TORCH_DONT_CHECK_COMPILER_ABI", "").upper() in ("ON", "1", "YES",
                                                                        "TRUE", "Y"):
        return True, TorchVersion("0.0.0")
    if not check_compiler_ok_for_platform(compiler):
        return False, TorchVersion("0.0.0")
    out = _compiler_output(compiler, "-dumpfullversion", "-dumpversion")
    if out is None:
        return False, TorchVersion("0.0.0")
    return True, TorchVersion(out.strip().splitlines()[0])


def remove_extension_h_precompiler_headers():
    """Remove the precompiled ``torch/extension.h`` header ``load_inline(use_pch=True)``
    makes: numtorch makes none, so there is nothing to remove."""
