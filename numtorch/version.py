"""``torch.version``: numtorch's release, the torch release its API follows, and build facts.

``__version__`` is numtorch's own version, except under ``python -m numtorch.run``, where
``torch.__version__`` and this ``__version__`` read ``2.13.0+numtorch<release>`` so that
programs gating features on torch's version take the 2.x paths (see ``numtorch.run``).
"""

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

numtorch_version = "0.1.0"
torch_api_version = "2.13.0"
__version__ = numtorch_version

debug = False
git_version = "unknown"
hip = None
rocm = None
xpu = None


def torch_compatible_version():
    """The version string numtorch reports as torch: torch's release plus a local label.

    The local label keeps it an exact PEP 440 version (``packaging.version`` parses it) that
    compares equal to no real torch build, as ``2.13.0+cpu`` does not equal ``2.13.0``.
    """
    from .torch_version import TorchVersion

    return TorchVersion(f"{torch_api_version}+numtorch{numtorch_version}")


def __getattr__(name):
    # torch.version.cuda is the CUDA release torch was built for; numtorch's is CuPy's
    # runtime's, looked up only when asked so that importing numtorch never loads CuPy.
    if name == "cuda":
        from . import backend

        cp = backend.cupy_or_none()
        if cp is None:
            return None
        major, minor = divmod(int(cp.cuda.runtime.runtimeGetVersion()) // 10, 100)
        return f"{major}.{minor}"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
