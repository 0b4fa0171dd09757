"""Array-level special functions behind the gamma family: the regularized incomplete gamma
function and the implicit reparameterisation gradients of gamma and beta samples.

Everything here works on raw xp arrays in float64 (callers cast back), loops over series or
continued-fraction terms (never over elements), and shrinks the set of unconverged elements as
it goes, so the cost follows the slowest element rather than ``elements x terms``.

Implicit reparameterisation: a sample ``x`` with CDF ``F(x; a)`` moves with its parameter as
``dx/da = -(dF/da) / pdf(x; a)``. Both factors share the prefactor ``x^a e^-x / Gamma(a)``
(or the beta analogue), so the ratio is formed without that prefactor and stays finite for
samples deep in either tail. The derivative of each continued fraction is carried alongside
its value (forward-mode differentiation of Lentz's algorithm), so no finite differences enter.
"""

import numpy as np

_EPS = 1e-15
_TINY = 1e-300


def _max_terms(a):
    """A safe number of series/fraction terms: convergence takes O(sqrt(a)) of them."""
    return int(60 + 12 * np.sqrt(float(np.max(a, initial=1.0))))


def _gamma_series(xp, a, x):
    """``S = sum_n x^n / ((a+1)...(a+n))`` and ``dS/da``, for ``x < a + 1``."""
    s = xp.ones_like(x)
    ds = xp.zeros_like(x)
    term = xp.ones_like(x)
    dlog = xp.zeros_like(x)  # d log(term) / da
    idx = xp.arange(x.size)
    a_, x_ = a.ravel(), x.ravel()
    s_, ds_, term_, dlog_ = s.ravel(), ds.ravel(), term.ravel(), dlog.ravel()
    act = idx
    aa, xx = a_, x_
    for n in range(1, _max_terms(a) + 1):
        term_n = term_[act] * xx / (aa + n)
        dlog_n = dlog_[act] - 1.0 / (aa + n)
        term_[act] = term_n
        dlog_[act] = dlog_n
        s_[act] += term_n
        ds_[act] += term_n * dlog_n
        keep = xp.abs(term_n) > _EPS * xp.abs(s_[act])
        if not bool(keep.all()):
            act, aa, xx = act[keep], aa[keep], xx[keep]
            if act.size == 0:
                break
    return s_.reshape(x.shape), ds_.reshape(x.shape)


def _lentz(xp, b0, db0, coef, shape, max_terms):
    """Value and derivative of ``b0 + a1/(b1 + a2/(b2 + ...))`` (modified Lentz).

    ``coef(n, act)`` returns ``(a_n, da_n, b_n, db_n)`` for the still-active flat indices.
    """
    n_el = int(np.prod(shape))
    f = xp.where(b0 == 0, _TINY, b0).ravel().copy()
    df = db0.ravel().copy()
    c, dc = f.copy(), df.copy()
    d, dd = xp.zeros(n_el), xp.zeros(n_el)
    act = xp.arange(n_el)
    for n in range(1, max_terms + 1):
        an, dan, bn, dbn = coef(n, act)
        ca, dca, da_, dda = c[act], dc[act], d[act], dd[act]
        # d_n = 1 / (b_n + a_n d_{n-1}), c_n = b_n + a_n / c_{n-1}
        den = bn + an * da_
        dden = dbn + dan * da_ + an * dda
        den = xp.where(den == 0, _TINY, den)
        dn = 1.0 / den
        ddn = -dden * dn * dn
        cn = bn + an / ca
        dcn = dbn + (dan * ca - an * dca) / (ca * ca)
        cn = xp.where(cn == 0, _TINY, cn)
        delta = cn * dn
        ddelta = dcn * dn + cn * ddn
        fa, dfa = f[act], df[act]
        f[act] = fa * delta
        df[act] = dfa * delta + fa * ddelta
        c[act], dc[act], d[act], dd[act] = cn, dcn, dn, ddn
        keep = (xp.abs(delta - 1.0) > _EPS) | (
            xp.abs(fa * ddelta) > _EPS * (xp.abs(df[act]) + _TINY))
        if not bool(keep.all()):
            act = act[keep]
            if act.size == 0:
                break
    return f.reshape(shape), df.reshape(shape)


def _gamma_fraction(xp, a, x):
    """Legendre's fraction ``C`` with ``Q(a, x) = x^a e^-x C / Gamma(a)``, and ``dC/da``
    (used where ``x >= a + 1``)."""
    a_, x_ = a.ravel(), x.ravel()

    def coef(n, act):
        aa = a_[act]
        an = -n * (n - aa)
        bn = x_[act] + (2 * n + 1) - aa
        return an, xp.full_like(aa, float(n)), bn, -xp.ones_like(aa)

    b0 = x + 1.0 - a
    g, dg = _lentz(xp, b0, -xp.ones_like(b0), coef, x.shape, _max_terms(a))
    # C = 1 / g
    return 1.0 / g, -dg / (g * g)


def igamma_pq(xp, helpers, a, x):
    """The regularized incomplete gamma functions ``P(a, x)`` and ``Q(a, x) = 1 - P``."""
    a, x = xp.broadcast_arrays(xp.asarray(a, dtype=np.float64), xp.asarray(x, dtype=np.float64))
    p = xp.zeros(x.shape)
    q = xp.ones(x.shape)
    ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    ser = ok & (x < a + 1)
    frac = ok & ~ser
    if bool(ser.any()):
        aa, xx = a[ser], x[ser]
        s, _ = _gamma_series(xp, aa, xx)
        pv = xp.exp(aa * xp.log(xx) - xx - helpers.gammaln(aa + 1)) * s
        p[ser], q[ser] = pv, 1.0 - pv
    if bool(frac.any()):
        aa, xx = a[frac], x[frac]
        c, _ = _gamma_fraction(xp, aa, xx)
        qv = xp.exp(aa * xp.log(xx) - xx - helpers.gammaln(aa)) * c
        p[frac], q[frac] = 1.0 - qv, qv
    # edges as torch: x = inf gives P = 1; a = 0 with x > 0 gives P = 1; NaN/negatives NaN
    p = xp.where((x == np.inf) & (a > 0) & (a < np.inf), 1.0, p)
    q = xp.where((x == np.inf) & (a > 0) & (a < np.inf), 0.0, q)
    p = xp.where((a == 0) & (x > 0), 1.0, p)
    q = xp.where((a == 0) & (x > 0), 0.0, q)
    p = xp.where((a == np.inf) & (x < np.inf), 0.0, p)
    q = xp.where((a == np.inf) & (x < np.inf), 1.0, q)
    bad = xp.isnan(a) | xp.isnan(x) | (a < 0) | (x < 0) | ((a == 0) & (x == 0)) | (
        (a == np.inf) & (x == np.inf))
    p = xp.where(bad, np.nan, p)
    q = xp.where(bad, np.nan, q)
    return p, q


def standard_gamma_grad(xp, helpers, a, x):
    """``dx/da`` for a sample ``x`` of Gamma(a, 1), with ``x`` held at its quantile."""
    a, x = xp.broadcast_arrays(xp.asarray(a, dtype=np.float64), xp.asarray(x, dtype=np.float64))
    out = xp.zeros(x.shape)
    ok = (x > 0) & (a > 0) & xp.isfinite(x)
    ser = ok & (x < a + 1)
    frac = ok & ~ser
    if bool(ser.any()):
        aa, xx = a[ser], x[ser]
        s, ds = _gamma_series(xp, aa, xx)
        # P / pdf = x S / a, and d log P / da = log x - psi(a + 1) + S'/S
        out[ser] = -(xx / aa) * (s * (xp.log(xx) - helpers.digamma(aa + 1)) + ds)
    if bool(frac.any()):
        aa, xx = a[frac], x[frac]
        c, dc = _gamma_fraction(xp, aa, xx)
        # Q / pdf = x C, and dx/da = (dQ/da) / pdf
        out[frac] = xx * (c * (xp.log(xx) - helpers.digamma(aa)) + dc)
    return xp.where(xp.isnan(a) | xp.isnan(x), np.nan, out)


def _beta_fraction(xp, a, b, x, wrt):
    """The fraction ``K`` of ``I_x(a, b) = x^a (1-x)^b K / (a B(a, b))`` and its derivative
    with respect to ``a`` (``wrt == 0``) or ``b`` (``wrt == 1``)."""
    a_, b_, x_ = a.ravel(), b.ravel(), x.ravel()

    def coef(n, act):
        aa, bb, xx = a_[act], b_[act], x_[act]
        m = n // 2
        if n % 2:  # a_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
            num = -(aa + m) * (aa + bb + m)
            den = (aa + 2 * m) * (aa + 2 * m + 1)
            if wrt == 0:
                dnum = -(aa + bb + m) - (aa + m)
            else:
                dnum = -(aa + m)
        else:  # a_{2m} = m (b - m) x / ((a+2m-1)(a+2m))
            num = m * (bb - m)
            den = (aa + 2 * m - 1) * (aa + 2 * m)
            dnum = xp.zeros_like(aa) if wrt == 0 else xp.full_like(aa, float(m))
        dden = (2 * aa + 4 * m + 1 if n % 2 else 2 * aa + 4 * m - 1) if wrt == 0 else 0.0
        an = num * xx / den
        dan = xx * (dnum * den - num * dden) / (den * den)
        return an, dan, xp.ones_like(aa), xp.zeros_like(aa)

    one = xp.ones(x.shape)
    # K = 1 / (1 + a1/(1 + a2/(1 + ...)))
    g, dg = _lentz(xp, one, xp.zeros(x.shape), coef, x.shape,
                   _max_terms(xp.maximum(a, b)) * 2)
    return 1.0 / g, -dg / (g * g)


def beta_grad(xp, helpers, x, a, b):
    """``dx/da`` for a sample ``x`` of Beta(a, b) with ``b`` held fixed."""
    x, a, b = xp.broadcast_arrays(*(xp.asarray(v, dtype=np.float64) for v in (x, a, b)))
    out = xp.zeros(x.shape)
    ok = (x > 0) & (x < 1) & (a > 0) & (b > 0)
    direct = ok & (x < (a + 1) / (a + b + 2))
    swap = ok & ~direct
    if bool(direct.any()):
        xx, aa, bb = x[direct], a[direct], b[direct]
        k, dk = _beta_fraction(xp, aa, bb, xx, 0)
        dlog = xp.log(xx) - 1.0 / aa - helpers.digamma(aa) + helpers.digamma(aa + bb)
        out[direct] = -(xx * (1 - xx) / aa) * (k * dlog + dk)
    if bool(swap.any()):
        xx, aa, bb = x[swap], a[swap], b[swap]
        # I_x(a, b) = 1 - I_{1-x}(b, a); differentiate the second form in its second parameter
        k, dk = _beta_fraction(xp, bb, aa, 1 - xx, 1)
        dlog = xp.log(xx) - helpers.digamma(aa) + helpers.digamma(aa + bb)
        out[swap] = (xx * (1 - xx) / bb) * (k * dlog + dk)
    return xp.where(xp.isnan(x) | xp.isnan(a) | xp.isnan(b), np.nan, out)
