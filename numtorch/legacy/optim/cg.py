"""Non-linear conjugate gradients (Polak-Ribiere directions) with C. E. Rasmussen's line
search: quadratic/cubic interpolation and cubic extrapolation until the Wolfe-Powell
conditions hold, restarting along the steepest descent after a failed search."""

import math

__all__ = ["cg"]


def _dot(a, b):
    return float((a.reshape(-1) * b.reshape(-1)).sum())


def cg(opfunc, x, config=None, state=None):
    """Minimise ``opfunc`` from ``x`` (updated in place) by conjugate gradients.

    ``config``: ``maxEval`` (function evaluations, default ``1.25 * maxIter``), ``maxIter``
    (line searches, default 20), ``rho`` (sufficient decrease, 0.01), ``sig`` (curvature,
    0.5), ``int`` (stay this fraction away from bracket ends, 0.1), ``ext`` (largest
    extrapolation factor, 3.0), ``max`` (evaluations per line search, 20), ``ratio``
    (largest slope ratio for the next initial step, 100).

    Returns ``x, fs, nEvals``: ``fs`` holds ``f`` at the start and after each successful
    line search."""
    config = {} if config is None else config
    state = config if state is None else state
    rho, sig = config.get("rho", 0.01), config.get("sig", 0.5)
    interp, ext = config.get("int", 0.1), config.get("ext", 3.0)
    max_iter = config.get("maxIter", 20)
    max_eval = config.get("maxEval", max_iter * 1.25)
    max_ls, ratio = config.get("max", 20), config.get("ratio", 100)
    tiny = 2.2251e-308  # keeps the slope ratio finite

    def evaluate(point):
        f, g = opfunc(point)
        return float(f), g.clone()

    evals = 0
    f1, df1 = evaluate(x)
    evals += 1
    fs = [f1]
    s = -df1
    d1 = -_dot(s, s)
    z1 = 1.0 / (1 - d1)
    failed_before = False
    iters = 0
    while evals < max_eval and iters < max_iter:
        iters += 1
        x0, f0, df0 = x.clone(), f1, df1.clone()
        x.add_(s, alpha=z1)
        f2, df2 = evaluate(x)
        evals += 1
        d2 = _dot(df2, s)
        f3, d3, z3 = f1, d1, -z1
        budget = max_ls
        success, limit = False, -1.0
        while True:
            # shrink the step while it fails either Wolfe-Powell condition
            while (f2 > f1 + z1 * rho * d1 or d2 > -sig * d1) and budget > 0:
                limit = z1
                if f2 > f1:
                    z2 = z3 - (0.5 * d3 * z3 * z3) / (d3 * z3 + f2 - f3)
                else:
                    a = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
                    b = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
                    disc = b * b - a * d2 * z3 * z3
                    z2 = (math.sqrt(disc) - b) / a if disc >= 0 and a != 0 else math.nan
                if not math.isfinite(z2):
                    z2 = z3 / 2
                z2 = max(min(z2, interp * z3), (1 - interp) * z3)
                z1 += z2
                x.add_(s, alpha=z2)
                f2, df2 = evaluate(x)
                evals += 1
                budget -= 1
                d2 = _dot(df2, s)
                z3 -= z2
            if f2 > f1 + z1 * rho * d1 or d2 > -sig * d1:
                break  # the line search failed
            if d2 > sig * d1:
                success = True
                break
            if budget == 0:
                break
            # extrapolate with a cubic through points 2 and 3
            a = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
            b = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
            disc = b * b - a * d2 * z3 * z3
            denom = b + math.sqrt(disc) if disc >= 0 else 0.0
            z2 = -d2 * z3 * z3 / denom if denom != 0 else math.nan
            if not math.isfinite(z2) or z2 < 0:
                z2 = z1 * (ext - 1) if limit < -0.5 else (limit - z1) / 2
            elif limit > -0.5 and z2 + z1 > limit:
                z2 = (limit - z1) / 2
            elif limit < -0.5 and z2 + z1 > z1 * ext:
                z2 = z1 * (ext - 1)
            elif z2 < -z3 * interp:
                z2 = -z3 * interp
            elif limit > -0.5 and z2 < (limit - z1) * (1 - interp):
                z2 = (limit - z1) * (1 - interp)
            f3, d3, z3 = f2, d2, -z2
            z1 += z2
            x.add_(s, alpha=z2)
            f2, df2 = evaluate(x)
            evals += 1
            budget -= 1
            d2 = _dot(df2, s)
        if success:
            f1 = f2
            fs.append(f1)
            beta = (_dot(df2, df2) - _dot(df1, df2)) / _dot(df1, df1)
            s = s * beta - df2
            df1, df2 = df2, df1
            d2 = _dot(df1, s)
            if d2 > 0:  # not a descent direction: restart along the gradient
                s = -df1
                d2 = -_dot(s, s)
            z1 *= min(ratio, d1 / (d2 - tiny))
            d1 = d2
            failed_before = False
        else:
            x.copy_(x0)
            f1, df1 = f0, df0
            if failed_before or evals >= max_eval:
                break  # two failures in a row: give up
            df1, df2 = df2, df1
            s = -df1
            d1 = -_dot(s, s)
            z1 = 1.0 / (1 - d1)
            failed_before = True
    state["evals"] = evals
    return x, fs, evals
