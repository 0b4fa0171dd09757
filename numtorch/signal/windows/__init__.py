"""``torch.signal.windows``: SciPy-style window functions (``sym=True`` gives a symmetric
window, ``sym=False`` a periodic one for spectral analysis)."""

from .windows import (  # noqa: F401
    bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming, hamming,
    hann, kaiser, nuttall,
)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
