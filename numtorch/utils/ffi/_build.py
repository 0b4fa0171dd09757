"""``create_extension``: configuring and compiling a C extension with cffi."""

import glob
import os
import shutil
import sys
import tempfile

from . import _bridge

__all__ = ["create_extension"]

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")

_WRAPPER = '''"""C extension {name!r}, built by numtorch.utils.ffi.create_extension."""

from numtorch.utils.ffi import _wrap_library
from .{module} import ffi as _ffi, lib as _lib

__all__ = _wrap_library(_ffi, _lib, globals())
'''


def _import_cffi():
    try:
        import cffi
    except ImportError:
        raise ImportError("numtorch.utils.ffi needs the cffi package: install it with "
                          "pip install 'numtorch[ffi]'") from None
    return cffi


def create_extension(name, headers, sources, verbose=True, with_cuda=False, package=False,
                     relative_to=".", **kwargs):
    """Configure a cffi build of C ``sources`` whose ``headers`` declare the functions to
    export; call ``build()`` on the result to compile it.

    Functions may take ``THFloatTensor *`` (and Double, Long, Int, Short, Char, Byte)
    parameters: they receive numtorch tensors, seen through the ``<TH/TH.h>`` header that
    numtorch ships (sizes, strides, data and the TH helpers such as ``_resizeAs``,
    ``_cadd``, ``_fill`` and ``_copy``). The built package ``name`` (dots make nested
    packages, e.g. ``_ext.my_lib``) lands under the directory of ``relative_to``, where
    header and source paths are looked up too.

    Args:
        name: the package to create.
        headers: header file (or list of them) holding only the exported declarations.
        sources: C files to compile.
        verbose: print the compiler's output.
        with_cuda: build against CUDA tensors; not available (numtorch's C bridge passes
            CPU tensors only).
        package: build as part of a pip package (the returned object also serves as
            ``cffi_modules`` entry of a setup.py).
        relative_to: a file (usually ``__file__``) whose directory the paths are relative
            to, or that directory.
        **kwargs: passed to cffi's ``set_source`` (``include_dirs``, ``libraries``,
            ``extra_compile_args``, ``define_macros``...).

    Returns:
        a ``cffi.FFI`` with a ``build()`` method.

    Raises:
        ImportError: cffi is not installed (the ``ffi`` extra).
        cffi.CDefError: a header cannot be parsed.
    """
    cffi = _import_cffi()
    if with_cuda:
        raise RuntimeError("create_extension(with_cuda=True): numtorch's C bridge passes CPU "
                           "tensors only; there are no THC/CUDA tensors to compile against")
    base = os.path.abspath(relative_to if os.path.isdir(relative_to)
                           else os.path.dirname(relative_to))
    parts = name.split(".")
    if not name or not all(p.isidentifier() for p in parts):
        raise ValueError(f"create_extension: {name!r} is not a dotted Python module name")
    target_dir = os.path.join(base, *parts)
    module = "_" + parts[-1]
    full_module = ".".join(parts + [module]) if package else module
    headers = [headers] if isinstance(headers, str) else list(headers)
    header_text = "".join(_read(os.path.join(base, h), "header") + "\n" for h in headers)
    source_paths = [os.path.join(base, s) for s in sources]
    for path in source_paths:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"create_extension: source file not found: {path}")

    ffi = cffi.FFI()
    try:
        ffi.cdef(_bridge.CDEF)
        ffi.cdef(header_text)
    except cffi.CDefError as e:
        raise cffi.CDefError(f"create_extension({name!r}): cannot parse the headers "
                             f"{headers}: {e}") from e
    include_dirs = [INCLUDE_DIR] + list(kwargs.pop("include_dirs", []))
    ffi.set_source(full_module, "#include <TH/TH.h>\n" + header_text, sources=source_paths,
                   include_dirs=include_dirs, **kwargs)
    os.makedirs(target_dir, exist_ok=True)
    with open(os.path.join(target_dir, "__init__.py"), "w") as f:
        f.write(_WRAPPER.format(name=name, module=module))

    def build():
        """Compile the extension into its package directory; returns the library path."""
        return _compile(cffi, ffi, name, target_dir, verbose)

    ffi.build = build
    return ffi


def _read(path, what):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"create_extension: {what} file not found: {path}")
    with open(path) as f:
        return f.read()


def _compile(cffi, ffi, name, target_dir, verbose):
    with tempfile.TemporaryDirectory(prefix="numtorch_ffi_") as tmp:
        log_path = os.path.join(tmp, "compiler.log")
        try:
            with _captured_output(log_path):
                ffi.compile(tmpdir=tmp, verbose=verbose)
        except (cffi.VerificationError, OSError) as e:
            log = _tail(log_path)
            raise cffi.VerificationError(f"building C extension {name!r} failed: {e}\n"
                                         f"compiler output:\n{log}") from e
        if verbose:
            sys.stderr.write(_tail(log_path, limit=None))
        built = [p for p in glob.glob(os.path.join(tmp, "**", "*"), recursive=True)
                 if p.endswith((".so", ".pyd", ".dylib")) and os.path.isfile(p)]
        if not built:
            raise cffi.VerificationError(f"building C extension {name!r} produced no library")
        dest = os.path.join(target_dir, os.path.basename(built[0]))
        shutil.move(built[0], dest)
    return dest


class _captured_output:
    """Send file descriptors 1 and 2 (the compiler subprocess's output) to a file."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.log = open(self.path, "wb")
        self.saved = [os.dup(1), os.dup(2)]
        os.dup2(self.log.fileno(), 1)
        os.dup2(self.log.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        self.log.close()
        return False


def _tail(path, limit=8000):
    with open(path, "rb") as f:
        text = f.read().decode(errors="replace")
    return text if limit is None or len(text) <= limit else "...\n" + text[-limit:]
