"""Everything ``import numtorch`` changes outside numtorch itself, in one place.

Importing numtorch has five process-wide effects, made here (the first, at this module's
import, because it must come before NumPy's), by :func:`apply` from the top of
``numtorch/__init__.py`` and by :func:`freeze_import_objects` from its end, nowhere else:

0. **OpenBLAS's spin-wait** (``OPENBLAS_THREAD_TIMEOUT``, when neither it nor
   ``GOTO_THREAD_TIMEOUT`` is set and NumPy is not imported yet). After each multi-threaded
   GEMM, OpenBLAS's workers spin for 2**28 cycles (~0.1 s) by default before sleeping.
   numtorch runs its own threads between GEMMs (a convolution's batch parts, the LSTM
   backward's second thread, split elementwise passes), and a spinning worker takes the core
   they need. 2**18 cycles (~0.1 ms) keeps back-to-back GEMMs warm; measured on 2 cores
   against the default: the MNIST conv net step 78 -> 53 ms, ResNet-18 ~467 -> ~417 ms, LSTM
   5.96 -> 4.59 ms, MLP unchanged (at 2**20); 2**18 against 2**20 on a quiet machine: nanoGPT's
   iteration 43.0-45.5 -> 41.3-42.5 ms (the split GELU/attention/norm parts get the core
   sooner), LSTM 3.81-3.86 -> 3.88-3.97 ms, conv net, MLP and Transformer within noise. When NumPy was imported first, :func:`shorten_loaded_blas_spin` makes OpenBLAS
   re-read the variable and restarts its idle workers, so the import order does not matter.

1. **glibc's allocator thresholds** (Linux only, :func:`tune_allocator`). NumPy allocates a
   fresh array for every op result; with glibc's defaults each block of 128 KiB or more is
   mmap'd and unmapped again, so every op pays page faults on memory it just freed. Raising the
   mmap and trim thresholds (to 256 MiB and 1 GiB, what ``MALLOC_MMAP_THRESHOLD_`` /
   ``MALLOC_TRIM_THRESHOLD_`` would do) roughly halves the time of elementwise-heavy training
   steps, and freed memory then stays with the process instead of going back to the OS. Opt
   out with ``NUMTORCH_KEEP_MALLOC=1``; setting either glibc variable yourself also leaves the
   allocator alone.
2. **NumPy's floating-point error callback** (``numtorch._fp_errors``): categories NumPy would
   *warn* about become a call to a function that stays silent when the failing NumPy call was
   made by numtorch's code (torch computes ``log(0) = -inf`` without a word) and warns as NumPy
   does otherwise. It is set for the importing thread's context, and for each later thread on
   its first op; a user's own ``np.seterr`` or ``np.errstate`` takes precedence.
3. **A warnings filter** ignoring ``RuntimeWarning`` attributed to ``numtorch.*`` modules, for
   threads where the callback above is not installed (NumPy keeps its error state per context).

4. **The objects that exist once numtorch is imported leave the cyclic garbage collector's
   walks** (``gc.freeze()``, :func:`freeze_import_objects`). A training loop that keeps
   graphs alive across steps (a policy's episode) promotes graph objects to the oldest
   generation and so triggers full collections, and each walked the ~50,000 objects the
   import made (functions, classes, tables, which live as long as the process): 13% of a
   REINFORCE step (bench/small_loop.py) went to the collector, 29 ms per full collection;
   frozen, 6% (full collections ~3 ms). Objects made before the import are frozen with
   them (a reference cycle among those is then not collected); objects made later are
   collected as always. Opt out with ``NUMTORCH_GC_FREEZE=0``.

``backend/`` knows only NumPy from CuPy; nothing here is about devices.
"""

import os
import sys
import warnings

_BLAS_SPIN = "18"  # log2 of the cycles OpenBLAS's idle workers spin (effect 0 above)
_USER_SPIN = "OPENBLAS_THREAD_TIMEOUT" in os.environ or "GOTO_THREAD_TIMEOUT" in os.environ
_SPIN_BEFORE_NUMPY = "numpy" not in sys.modules and not _USER_SPIN
if _SPIN_BEFORE_NUMPY:
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = _BLAS_SPIN

from . import _fp_errors  # noqa: E402  (imports NumPy: after the spin setting)


def apply():
    """Make changes 1-3 of the module docstring, and 0 when NumPy was loaded first (at import)."""
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numtorch\.")
    _fp_errors.install()
    tune_allocator()
    if not _USER_SPIN and not _SPIN_BEFORE_NUMPY:
        shorten_loaded_blas_spin()


def freeze_import_objects():
    """Make change 4 of the module docstring (at the end of numtorch's import); returns
    whether it froze anything."""
    if os.environ.get("NUMTORCH_GC_FREEZE", "1") == "0":
        return False
    import gc

    gc.freeze()
    return True


def _loaded_openblas_libraries():
    """ctypes handles of the OpenBLAS builds already mapped into this process (Linux)."""
    import ctypes

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(None, 5)[-1].strip() for line in maps if "openblas" in line}
    except OSError:  # no procfs: not Linux
        return []
    libs = []
    for path in sorted(p for p in paths if ".so" in p and os.path.isfile(p)):
        try:
            lib = ctypes.CDLL(path)  # already loaded: this only looks its symbols up
        except OSError:
            continue
        if hasattr(lib, "openblas_read_env") and hasattr(lib, "blas_thread_shutdown_"):
            libs.append(lib)
    return libs


def shorten_loaded_blas_spin():
    """Effect 0 for a NumPy imported before numtorch: restart OpenBLAS's idle workers.

    OpenBLAS reads its variables once, when it loads, so setting the variable now is not
    enough: it is set, OpenBLAS re-reads its environment, and its worker threads are stopped;
    the next multi-threaded call starts them again with the short spin (the same stop and
    restart OpenBLAS itself does around every ``fork``). Thread counts stay as they were.

    Returns:
        int: how many OpenBLAS libraries were restarted (0 when none is loaded, or when
        OpenBLAS does not export the two entry points, as in some builds).
    """
    libs = _loaded_openblas_libraries()
    if libs:
        os.environ["OPENBLAS_THREAD_TIMEOUT"] = _BLAS_SPIN
    for lib in libs:
        lib.openblas_read_env()
        lib.blas_thread_shutdown_()
    return len(libs)


def tune_allocator():
    """Keep large freed blocks in glibc's heap instead of returning them to the OS.

    Returns:
        bool: True when the thresholds were changed; False on other platforms, with
        ``NUMTORCH_KEEP_MALLOC`` set, when the user set glibc's own variables, or when the C
        library is not glibc.
    """
    if not sys.platform.startswith("linux") or os.environ.get("NUMTORCH_KEEP_MALLOC"):
        return False
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False  # the user chose already
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        ok = libc.mallopt(m_mmap_threshold, 256 * 2 ** 20)
        ok = libc.mallopt(m_trim_threshold, 2 ** 30) and ok
        return bool(ok)
    except (OSError, AttributeError):  # not glibc (musl, ...): nothing to tune
        return False
