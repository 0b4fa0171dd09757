"""L-BFGS: limited-memory quasi-Newton steps, optionally with a strong-Wolfe line search.

All parameters form one flat vector; the closure re-evaluates the loss and gradients. The
history (``old_dirs``, ``old_stps``, ``ro``, ...) is kept under torch's state keys on the
first parameter, so state dicts exchange with torch.
"""

import numpy as np

from .. import backend
from .._tensor import Tensor
from ..backend._axpy import axpy
from ..autograd.grad_mode import enable_grad, no_grad
from ._checks import check_lr
from .optimizer import Optimizer, _make, hyperparameters

__all__ = ["LBFGS"]


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through two points with slopes, clamped to ``bounds``."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_sq = d1 ** 2 - g1 * g2
    if d2_sq >= 0:
        d2 = d2_sq ** 0.5
        if x1 <= x2:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Bracket then zoom until the strong Wolfe conditions hold; returns
    ``(loss, flat_grad, t, evaluations)``."""
    d_norm = abs(d).max()
    g = g.copy()
    f_new, g_new = obj(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    it = 0
    bracket_gtd = None
    while it < max_ls:
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        lo_step, hi_step = t + 0.01 * (t - t_prev), t * 10
        prev_t = t
        t = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lo_step, hi_step))
        t_prev, f_prev, g_prev, gtd_prev = prev_t, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # zoom inside the bracket
    stalled = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(bracket[0], bracket_f[0], bracket_gtd[0],
                       bracket[1], bracket_f[1], bracket_gtd[1])
        hi_b, lo_b = max(bracket), min(bracket)
        eps = 0.1 * (hi_b - lo_b)
        if min(hi_b - t, t - lo_b) < eps:
            # too close to an end: move away from it unless the last try already made progress
            if stalled or t >= hi_b or t <= lo_b:
                t = hi_b - eps if abs(t - hi_b) < abs(t - lo_b) else lo_b + eps
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = obj(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


def _axpy_into(y, x, alpha):
    """``y += alpha * x`` in place, one rounding for real host arrays (torch's kernel)."""
    if y.dtype.kind == "c":
        y += alpha * x
    else:
        axpy(y, x, alpha)


def _raw(v):
    if isinstance(v, Tensor):
        return v._array
    if isinstance(v, list):
        return [_raw(x) for x in v]
    return v


def _wrap(v):
    if isinstance(v, (np.ndarray, np.generic)) or (
            not isinstance(v, (int, float, list, type(None))) and hasattr(v, "shape")):
        return _make(backend.xp_of(v).asarray(v))
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


class LBFGS(Optimizer):
    """L-BFGS (one parameter group; ``step`` needs a closure).

    Args:
        params (iterable): parameters to optimise.
        lr (float): step length. Default: 1.
        max_iter (int): iterations per ``step``. Default: 20.
        max_eval (int): closure evaluations per ``step``. Default: ``max_iter * 5 // 4``.
        tolerance_grad (float): stop when the largest gradient entry is below it.
        tolerance_change (float): stop when the step or loss change is below it.
        history_size (int): number of correction pairs kept. Default: 100.
        line_search_fn (str): ``None`` or ``'strong_wolfe'``.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self):
        return self.param_groups[0]["params"]

    def _flat_grad(self):
        xp = backend.xp_of(self._params[0]._array)
        parts = []
        for p in self._params:
            g = xp.zeros(p.numel(), dtype=p._array.dtype) if p.grad is None \
                else xp.ascontiguousarray(p.grad._array).reshape(-1)
            if g.dtype.kind == "c":  # a complex entry counts as its (real, imag) pair
                g = g.view(g.real.dtype)
            parts.append(g)
        return xp.concatenate(parts)

    def _add_grad(self, t, update):
        offset = 0
        for p in self._params:
            a = p._array
            n = a.size * (2 if a.dtype.kind == "c" else 1)
            part = update[offset:offset + n]
            if a.dtype.kind == "c":
                part = backend.xp_of(part).ascontiguousarray(part).view(a.dtype)
                a += t * part.reshape(a.shape)
            else:  # torch's add_(d, alpha=t): one rounding (a fused multiply-add)
                axpy(a, part.reshape(a.shape), t)
            p._vc[0] += 1
            offset += n

    def _set_params(self, data):
        for p, a in zip(self._params, data):
            p._array[...] = a
            p._vc[0] += 1

    def _evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        with enable_grad():
            loss = closure()
        loss = float(loss)  # read outside grad mode, as torch (no scalar-of-grad-tensor warning)
        g = self._flat_grad()
        self._set_params(x)
        return loss, g

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the first loss ``closure()`` gave.

        Args:
            closure (callable): zeroes the gradients, computes the loss, calls ``backward``
                and returns the loss.
        """
        with no_grad():
            return self._run(closure)

    def _run(self, closure):
        group = hyperparameters(self.param_groups[0])
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history, line_search = group["history_size"], group["line_search_fn"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if abs(flat_grad).max() <= tol_grad:
            return orig_loss
        d, t = _raw(state.get("d")), _raw(state.get("t"))
        old_dirs, old_stps = _raw(state.get("old_dirs")), _raw(state.get("old_stps"))
        ro, h_diag = _raw(state.get("ro")), _raw(state.get("H_diag"))
        prev_flat_grad, prev_loss = _raw(state.get("prev_flat_grad")), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep only curvature pairs that preserve positive definiteness
                    if len(old_dirs) == history:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history
                al = _raw(state["al"])
                q = -flat_grad
                # the updates as torch's add_(..., alpha=...): rounded once
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    _axpy_into(q, old_dirs[i], -al[i])
                r = q * h_diag
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    _axpy_into(r, old_stps[i], al[i] - be_i)
                d = r
                state["al"] = al
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                # summed in torch's order (NumPy's pairwise sum can differ in the last bit)
                t = min(1.0, 1.0 / _make(abs(flat_grad)).sum()._array[()]) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tol_change:  # not a descent direction
                break
            ls_evals = 0
            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = [p._array.copy() for p in self._params]
                loss, flat_grad, t, ls_evals = _strong_wolfe(
                    lambda x, tt, dd: self._evaluate(closure, x, tt, dd),
                    x0, t, d, loss, flat_grad, gtd, max_ls=max_eval - evals)
                self._add_grad(t, d)
                opt_cond = abs(flat_grad).max() <= tol_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = closure()
                    loss = float(loss)
                    flat_grad = self._flat_grad()
                    opt_cond = abs(flat_grad).max() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state["d"], state["t"] = _wrap(d), t if not isinstance(t, np.generic) else float(t)
        state["old_dirs"], state["old_stps"] = _wrap(old_dirs), _wrap(old_stps)
        state["ro"], state["H_diag"] = _wrap(ro), _wrap(h_diag)
        state["prev_flat_grad"], state["prev_loss"] = _wrap(prev_flat_grad), prev_loss
        if "al" in state:
            state["al"] = _wrap(state["al"])
        return orig_loss
