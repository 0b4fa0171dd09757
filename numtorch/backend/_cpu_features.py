"""The host CPU's vector features as NumPy detected them (torch's CPU kernels pick their
vector width, and some their library, by the same features; numtorch follows them where a
result's bits depend on it)."""

_FEATURES = {}


def has(*names):
    """Whether the CPU has every feature in ``names`` (NumPy's spelling: "AVX512F", ...)."""
    if not _FEATURES:
        try:  # NumPy 2's module path (NumPy 1's is numpy.core)
            from numpy._core._multiarray_umath import __cpu_features__ as feats
        except ImportError:  # pragma: no cover - NumPy 1
            from numpy.core._multiarray_umath import __cpu_features__ as feats
        _FEATURES.update(feats)
    return all(_FEATURES.get(n, False) for n in names)


def vector_bytes():
    """The width of torch's CPU vectors: 64 bytes on an AVX-512 CPU, else 32 (AVX2)."""
    return 64 if has("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ") else 32
