"""``torch.quasirandom``: the Sobol low-discrepancy sequence (``SobolEngine``).

The points come from SciPy's Sobol generator (``scipy.stats.qmc``), which uses the same
Joe-Kuo direction numbers and 30-bit resolution as torch, so an unscrambled engine yields
exactly torch's points. Scrambled engines use SciPy's scrambling, seeded from ``seed`` or
numtorch's generator: a valid scrambled Sobol sequence, not torch's random stream.
"""

import warnings

__all__ = ["SobolEngine"]


def _qmc():
    try:
        from ._quiet_import import import_module

        qmc = import_module("scipy.stats.qmc")
    except ImportError:  # pragma: no cover - SciPy is installed with the test extra
        raise RuntimeError("SobolEngine needs SciPy (pip install scipy)") from None
    return qmc


class SobolEngine:
    """A generator of Sobol points in the unit cube ``[0, 1)^dimension``.

    Args:
        dimension (int): the dimension of the points, 1 to 21201.
        scramble (bool): scramble the sequence (randomised QMC). Default: False.
        seed (int, optional): the seed of the scrambling.

    Example:
        >>> engine = torch.quasirandom.SobolEngine(2)
        >>> engine.draw(4)
        tensor([[0.0000, 0.0000],
                [0.5000, 0.5000],
                [0.7500, 0.2500],
                [0.2500, 0.7500]])
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        self.dimension, self.scramble, self.seed = dimension, scramble, seed
        self._engine = self._make()
        self.num_generated = 0

    def _make(self):
        rng = None
        if self.scramble:
            import numpy as np

            if self.seed is None:
                import numtorch

                rng = np.random.default_rng(int(numtorch.randint(0, 2 ** 62, ()).item()))
            else:
                rng = np.random.default_rng(self.seed)
        return _qmc().Sobol(self.dimension, scramble=self.scramble, bits=self.MAXBIT, seed=rng)

    def draw(self, n=1, out=None, dtype=None):
        """The next ``n`` points, ``(n, dimension)``, in ``dtype`` (the default dtype if
        None); written into ``out`` if given."""
        import numtorch

        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                               f"[{n}, {self.dimension}]")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SciPy asks for powers of two; torch does not
            points = self._engine.random(n)
        self.num_generated += n
        d = numtorch.get_default_dtype() if dtype is None else dtype
        result = numtorch.from_numpy(points).to(d)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        """The next ``2 ** m`` points; the total drawn must stay a power of two (what keeps
        the sequence balanced)."""
        n = 2 ** m
        total = self.num_generated + n
        if total & (total - 1):
            raise ValueError(f"The balance properties of Sobol' points require n to be a "
                             f"power of 2. {self.num_generated} points have been previously "
                             f"generated, then: n={self.num_generated}+2**{m}={total}. If you "
                             f"still want to do this, please use 'SobolEngine.draw()' instead.")
        return self.draw(n, out=out, dtype=dtype)

    def reset(self):
        """Start the sequence again from its first point; returns the engine."""
        self._engine.reset()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip the next ``n`` points; returns the engine."""
        self._engine.fast_forward(n)
        self.num_generated += n
        return self

    def __repr__(self):
        extra = [f"dimension={self.dimension}"]
        if self.scramble:
            extra.append("scramble=True")
        if self.seed is not None:
            extra.append(f"seed={self.seed}")
        return f"SobolEngine({', '.join(extra)})"
