"""L-BFGS (limited-memory quasi-Newton) and the strong-Wolfe line search ``lswolfe`` it can
use, in Lua's functional form."""

import math

__all__ = ["lbfgs", "lswolfe"]


def _dot(a, b):
    return float((a.reshape(-1) * b.reshape(-1)).sum())


def _abs_sum(t):
    return float(t.abs().sum())


def lbfgs(opfunc, x, config=None, state=None):
    """Minimise ``opfunc`` from ``x`` (updated in place) with L-BFGS.

    ``config``: ``maxIter`` (20), ``maxEval`` (``1.25 * maxIter``), ``tolFun`` (stop when the
    summed absolute gradient is at most this, 1e-5), ``tolX`` (stop on smaller steps or
    changes of ``f``, 1e-9), ``nCorrection`` (history length, 100), ``learningRate`` (1),
    ``lineSearch`` (e.g. ``lswolfe``; fixed steps when absent) with ``lineSearchOptions``.
    The directions, history and step persist in ``state`` across calls.

    Returns ``x, f_hist, nEvals``."""
    config = {} if config is None else config
    state = config if state is None else state
    max_iter = config.get("maxIter", 20)
    max_eval = config.get("maxEval", max_iter * 1.25)
    tol_fun = config.get("tolFun", 1e-5)
    tol_x = config.get("tolX", 1e-9)
    n_correction = config.get("nCorrection", 100)
    line_search = config.get("lineSearch")
    ls_options = config.get("lineSearchOptions")
    lr = config.get("learningRate", 1)
    state.setdefault("funcEval", 0)
    state.setdefault("nIter", 0)

    f, g = opfunc(x)
    f, g = float(f), g.clone()
    f_hist = [f]
    evals = 1
    state["funcEval"] += 1
    if _abs_sum(g) <= tol_fun:
        return x, f_hist, evals

    d, t = state.get("d"), state.get("t")
    dirs, steps = state.get("old_dirs"), state.get("old_stps")
    h_diag, g_old, f_old = state.get("Hdiag", 1), state.get("g_old"), state.get("f_old")
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        state["nIter"] += 1
        if state["nIter"] == 1:
            d = -g
            dirs, steps, h_diag = [], [], 1
        else:
            y = g - g_old
            s = d * t
            ys = _dot(y, s)
            if ys > 1e-10:  # keep only pairs with positive curvature
                if len(dirs) == n_correction:
                    dirs.pop(0)
                    steps.pop(0)
                dirs.append(s)
                steps.append(y)
                h_diag = ys / _dot(y, y)
            # two-loop recursion: d = -H g with H the implicit inverse Hessian
            ro = [1.0 / _dot(yi, si) for si, yi in zip(dirs, steps)]
            al = [0.0] * len(dirs)
            q = -g
            for i in range(len(dirs) - 1, -1, -1):
                al[i] = _dot(dirs[i], q) * ro[i]
                q = q.add(steps[i], alpha=-al[i])
            d = q * h_diag
            for i in range(len(dirs)):
                be = _dot(steps[i], d) * ro[i]
                d = d.add(dirs[i], alpha=al[i] - be)
        g_old, f_old = g.clone(), f
        gtd = _dot(g, d)
        if gtd > -tol_x:
            break  # not a descent direction any more
        t = min(1.0, 1.0 / _abs_sum(g)) * lr if state["nIter"] == 1 else lr
        ls_evals = 0
        if line_search is not None:
            f, g, x, t, ls_evals = line_search(opfunc, x, t, d, f, g, gtd, ls_options)
            f, g = float(f), g.clone()
            f_hist.append(f)
        else:
            x.add_(d, alpha=t)
            if n_iter != max_iter:
                f, g = opfunc(x)
                f, g = float(f), g.clone()
                ls_evals = 1
                f_hist.append(f)
        evals += ls_evals
        state["funcEval"] += ls_evals
        if n_iter == max_iter or evals >= max_eval:
            break
        if _abs_sum(g) <= tol_fun:
            break
        if _abs_sum(d) * abs(t) <= tol_x:
            break
        if abs(f - f_old) < tol_x:
            break
    state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, Hdiag=h_diag, g_old=g_old,
                 f_old=f_old)
    return x, f_hist, evals


def _cubic_min(x1, f1, g1, x2, f2, g2, lo, hi):
    """Minimiser of the cubic through two points with slopes, kept in ``[lo, hi]``
    (the middle of the interval when the cubic has no minimum)."""
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2
    d2 = math.sqrt(disc)
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    if not math.isfinite(pos):
        return (lo + hi) / 2
    return min(max(pos, lo), hi)


def lswolfe(opfunc, x, t, d, f, g, gtd, options=None):
    """Line search along ``d`` from ``x`` for a step ``t`` meeting the strong Wolfe
    conditions (sufficient decrease ``c1``, curvature ``c2``): a bracketing phase that
    extrapolates by cubic fits, then a zoom that interpolates inside the bracket.

    ``options``: ``c1`` (1e-4), ``c2`` (0.9), ``tolX`` (1e-9), ``maxIter`` (20).
    Returns ``f_new, g_new, x, t, nEvals`` with ``x`` moved in place to ``x + t d``."""
    options = options or {}
    c1, c2 = options.get("c1", 1e-4), options.get("c2", 0.9)
    tol_x, max_iter = options.get("tolX", 1e-9), options.get("maxIter", 20)
    x0 = x.clone()
    d_norm = float(d.abs().max())
    f, g = float(f), g.clone()
    evals = 0

    def probe(step):
        x.copy_(x0).add_(d, alpha=step)
        fn, gn = opfunc(x)
        gn = gn.clone()
        return float(fn), gn, _dot(gn, d)

    # (step, f, g, slope) of the previous and the current trial
    prev = (0.0, f, g, gtd)
    cur = (t,) + probe(t)
    evals += 1
    bracket, done = None, False
    while evals < max_iter:
        step, fn, gn, slope = cur
        if fn > f + c1 * step * gtd or (evals > 1 and fn >= prev[1]):
            bracket = [prev, cur]
            break
        if abs(slope) <= -c2 * gtd:
            bracket, done = [cur], True
            break
        if slope >= 0:
            bracket = [prev, cur]
            break
        lo = step + 0.01 * (step - prev[0])
        hi = step * 10
        nxt = _cubic_min(prev[0], prev[1], prev[3], step, fn, slope, lo, hi)
        prev, cur = cur, (nxt,) + probe(nxt)
        evals += 1
    if bracket is None:
        bracket = [(0.0, f, g, gtd), cur]
    # zoom: keep the lower point first
    while not done and evals < max_iter and len(bracket) == 2:
        low, high = sorted(bracket, key=lambda p: p[1])
        if abs(high[0] - low[0]) * d_norm < tol_x:
            break
        a, b = sorted((low[0], high[0]))
        first, second = bracket
        nxt = _cubic_min(first[0], first[1], first[3], second[0], second[1], second[3], a, b)
        margin = 0.1 * (b - a)
        if min(b - nxt, nxt - a) < margin:  # too near an end: move into the bracket
            nxt = b - margin if abs(nxt - b) < abs(nxt - a) else a + margin
        trial = (nxt,) + probe(nxt)
        evals += 1
        step, fn, _, slope = trial
        if fn > f + c1 * step * gtd or fn >= low[1]:
            bracket = [low, trial]
        else:
            if abs(slope) <= -c2 * gtd:
                bracket, done = [trial], True
                break
            if slope * (high[0] - low[0]) >= 0:
                high = low
            bracket = [trial, high]
    best = min(bracket, key=lambda p: p[1])
    x.copy_(x0).add_(d, alpha=best[0])
    return best[1], best[2], x, best[0], evals
