"""NumPy references of numtorch's fused CUDA kernels (see _kernels.py), written from the math
each kernel computes (``numtorch/backend/_cupy_kernels.py``'s docstrings), in its dtype.

With ``fmad`` (a kernel built without ``--fmad=false``) each product that feeds an addition is
fused with it and rounded once, as NVRTC contracts it: for ``u * v + x * y`` LLVM fuses the
first product (``fma(u, v, x * y)``), and ``p - s * q`` becomes ``fma(-s, q, p)``.
"""

import itertools

import numpy as np

from ._kernels import fma, reference


def _mad(fmad):
    return fma if fmad else (lambda a, b, c: a * b + c)


def _adam(*args, fmad):
    """A GPU kernel needs no work memory: the reference runs in blocks, so that its own
    temporaries stay small (tests measure a step's host allocations on the stand-in)."""
    arrays = [a.reshape(-1) if isinstance(a, np.ndarray) and a.ndim else a for a in args]
    n = arrays[0].size
    for lo in range(0, n, 1024):
        _adam_block(*[a[lo:lo + 1024] if isinstance(a, np.ndarray) and a.ndim else a
                      for a in arrays], mad=_mad(fmad))


def _adam_block(grad, lr, wd, eps, beta1, beta2, sgn, l2, bc2_sqrt, step_size, p, m, v,
                vmax=None, *, mad):
    t = p.dtype.type
    g = grad * sgn
    if wd != 0:
        if l2:
            g = mad(t(wd), p, g)  # g + wd * p
        else:
            p *= t(1 - lr * wd)
    m[...] = mad(g - m, t(1 - beta1), m)  # m + (g - m) * (1 - beta1)
    v[...] = mad(v, t(beta2), t(1 - beta2) * g * g)  # v * beta2 + (1 - beta2) * g * g
    vv = v
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        vv = vmax
    p[...] = mad(-t(step_size), m / (np.sqrt(vv) / t(bc2_sqrt) + t(eps)), p)


@reference("numtorch_adam_update", fmad=True)
def adam_update(*args, fmad):
    _adam(*args, fmad=fmad)


@reference("numtorch_adam_amsgrad_update", fmad=True)
def adam_amsgrad_update(*args, fmad):
    _adam(*args, fmad=fmad)


@reference("numtorch_lstm_cell", fmad=True)
def lstm_cell(z, c, n, h, cn, ig, fg, gg, og, tc, *, fmad):
    with np.errstate(over="ignore"):
        ig[...] = 1 / (1 + np.exp(-z[:, :n]))
        fg[...] = 1 / (1 + np.exp(-z[:, n:2 * n]))
        gg[...] = np.tanh(z[:, 2 * n:3 * n])
        og[...] = 1 / (1 + np.exp(-z[:, 3 * n:]))
    cn[...] = _mad(fmad)(fg, c, ig * gg)
    tc[...] = np.tanh(cn)
    h[...] = og * tc


@reference("numtorch_gelu_erf")
def gelu_erf(x, y, cdf, e):
    from scipy.special import erf

    t = x.dtype.type
    h = t(1) + erf(x * t(0.70710678118654752440))
    y[...] = x * t(0.5) * h
    cdf[...] = t(0.5) * h
    e[...] = np.exp(t(-0.5) * x * x)


@reference("numtorch_gelu_slope", fmad=True)
def gelu_slope(x, e, cdf, g, d, *, fmad):
    d[...] = g * _mad(fmad)(x, e * x.dtype.type(0.39894228040143267794), cdf)


@reference("numtorch_lstm_seq_step")
def lstm_seq_step(xq, xrow, has_xq, step, n, bsz, hrow, a, cs, tcs, hs):
    """Step ``step`` of the whole-sequence arrays: gates ``a`` (T, 4H, B), cells ``cs``
    (T + 1, H, B), ``tcs`` (T, H, B), states in the first H rows of ``hs`` (T + 1, R, B)."""
    nb = n * bsz
    z = a.reshape(-1)[step * 4 * nb:(step + 1) * 4 * nb].reshape(4, n, bsz)
    if has_xq:
        z += xq.reshape(4, n, xrow // bsz, bsz)[:, :, step]
    np.tanh(z, out=z)
    s = z[:3]
    s *= 0.5
    s += 0.5
    c_all = cs.reshape(-1)
    cn = z[1] * c_all[step * nb:(step + 1) * nb].reshape(n, bsz)
    cn += z[0] * z[3]
    c_all[(step + 1) * nb:(step + 2) * nb] = cn.reshape(-1)
    tc = tcs.reshape(-1)[step * nb:(step + 1) * nb].reshape(n, bsz)
    tc[...] = np.tanh(cn)
    h0 = (step + 1) * hrow
    hs.reshape(-1)[h0:h0 + nb] = (z[2] * tc).reshape(-1)


@reference("numtorch_lstm_seq_grad")
def lstm_seq_grad(go, acts, cs, tcs, step, n, bsz, dh, dc, dz):
    """Step ``step`` of the whole-sequence arrays: ``go``, ``tcs`` (T, H, B), ``cs``
    (T + 1, H, B), ``acts`` (gates [i f o g]) and ``dz`` (torch's order [i f g o]) (T, 4H, B);
    the gate-local factors made from the forward's values as ``LSTMSequence._factors`` makes
    them; the state gradients ``dh``, ``dc`` (H, B) in place."""
    nb = n * bsz

    def at(x, k):
        return x.reshape(-1)[step * k * nb:(step + 1) * k * nb].reshape(k, n, bsz)

    ai, af, ao, ag = at(acts, 4)
    tc, c_prev = at(tcs, 1)[0], at(cs, 1)[0]
    dtc = (1 - tc * tc) * ao
    fac = [(1 - ai) * ai * ag, (1 - af) * af * c_prev, (1 - ag * ag) * ai, (1 - ao) * ao * tc]
    dh += at(go, 1)[0]
    g = dc + dh * dtc
    z4 = at(dz, 4)
    for k in range(3):
        np.multiply(fac[k], g, out=z4[k])
    np.multiply(fac[3], dh, out=z4[3])
    dc[...] = g * af


@reference("numtorch_lstm_gate_rows")
def lstm_gate_rows(src, k, n, dst, ld):
    """``dst`` (4n, k) at row stride ``ld`` = ``src``'s gate blocks [i f g o] as [i f o g], the
    sigmoid gates' halved (``src`` the whole C-ordered (4n, k) matrix)."""
    w = src.reshape(4, n, k)
    item = dst.itemsize
    out = np.lib.stride_tricks.as_strided(dst, (4, n, k), (n * ld * item, ld * item, item))
    for to, frm in ((0, 0), (1, 1), (2, 3)):
        np.multiply(w[frm], dst.dtype.type(0.5), out=out[to])
    out[3] = w[2]


@reference("numtorch_rnn_tanh_step")
def rnn_tanh_step(xs, step, nb, hs):
    """Step ``step``: the state ``hs[step + 1]`` (holding its GEMM) plus ``xs[step]``, tanh."""
    h = hs.reshape(-1)[(step + 1) * nb:(step + 2) * nb]
    h += xs.reshape(-1)[step * nb:(step + 1) * nb]
    np.tanh(h, out=h)


@reference("numtorch_rnn_seq_grad")
def rnn_seq_grad(go, fac, step, nb, dh, da):
    """Step ``step``: ``dh += go[step]``; ``da[step] = dh * fac[step]``."""
    at = slice(step * nb, (step + 1) * nb)
    d = dh.reshape(-1)
    d += go.reshape(-1)[at]
    np.multiply(d, fac.reshape(-1)[at], out=da.reshape(-1)[at])


@reference("numtorch_gru_step")
def gru_step(xs, gh, bias, has_bias, step, n, bsz, rz, nn, ghn, hs):
    """Step ``step`` after its GEMM ``gh`` (B, 3H): the xp loop's gate math, in its order."""
    g = gh + bias if has_bias else gh.copy()
    x = xs[step]
    a = rz[step]
    np.add(x[:, :2 * n], g[:, :2 * n], out=a)
    a *= 0.5
    np.tanh(a, out=a)
    a *= 0.5
    a += 0.5
    ghn[step] = g[:, 2 * n:]
    nt = nn[step]
    np.multiply(a[:, :n], g[:, 2 * n:], out=nt)
    nt += x[:, 2 * n:]
    np.tanh(nt, out=nt)
    h = hs[step + 1]
    np.subtract(hs[step], nt, out=h)
    h *= a[:, n:]
    h += nt


@reference("numtorch_gru_grad")
def gru_grad(go, fac, facn, rz, step, last, n, bsz, dcur, dold, dgh, dxn):
    """Step ``step`` of the GRU backward: the previous step's tail (``dcur + dold * z``), then
    ``+ go``, the gate gradients and ``dxn``, as the xp loop's operations."""
    if step == last:
        d = dold.copy()
    else:
        d = dcur + dold * rz[step + 1, :, n:]
    d += go[step]
    dold[...] = d
    np.multiply(fac[step].reshape(bsz, 3, n), d[:, None, :], out=dgh[step].reshape(bsz, 3, n))
    np.multiply(facn[step], d, out=dxn[step])


@reference("numtorch_norm_invstd")
def norm_invstd(s2, count, eps, var, invstd):
    var[...] = s2 / count
    invstd[...] = 1 / np.sqrt(var + eps)


@reference("numtorch_norm_apply")
def norm_apply(xc, invstd, w, b, y):
    y[...] = xc * (invstd * w)
    y += b


@reference("numtorch_norm_grad_stats")
def norm_grad_stats(sum_h, invstd, w, count, sum_hx, kk, m, scale):
    sum_hx *= invstd
    kk[...] = sum_hx / count * invstd
    m[...] = sum_h / count
    scale[...] = invstd * w


@reference("numtorch_norm_grad_input")
def norm_grad_input(h, data, kk, m, scale, gx):
    t = data * kk
    np.subtract(h, t, out=t)
    t -= m
    t *= scale
    gx[...] = t


def _multi(args, n_scalars):
    """Split a multi-tensor kernel's arguments: per tensor ``(grad, end)`` inputs, the shared
    scalars, then each tensor's outputs; returns (grads, scalars, per-tensor output lists)."""
    k = 0
    while isinstance(args[2 * k], np.ndarray):
        k += 1
    grads = [args[2 * t] for t in range(k)]
    scalars = args[2 * k:2 * k + n_scalars]
    outs = args[2 * k + n_scalars:]
    w = len(outs) // k
    return grads, scalars, [outs[t * w:(t + 1) * w] for t in range(k)]


def _blocks(*arrays):
    """Parts of 1024 elements of equally long flat arrays (a GPU kernel needs no work memory:
    the references keep their own temporaries small, see ``_adam``)."""
    n = arrays[0].size
    for lo in range(0, n, 1024):
        yield [a[lo:lo + 1024] for a in arrays]


def _sgd_block(g, p, b, lr, wd, mom, damp, nesterov, n):
    t = p.dtype.type
    d = g
    if wd != 0:
        w = p * t(wd)
        d, n = (w - d if n else w + d), 0
    if b is not None:
        b *= t(mom)
        if damp != 0:
            x = d * t(1 - damp)
            b[...] = b - x if n else b + x
        else:
            b[...] = b - d if n else b + d
        if nesterov:
            x = b * t(mom)
            d = x - d if n else x + d
        else:
            d = b.copy()
        n = 0
    x = d * t(lr)
    p[...] = p + x if n else p - x


@reference("numtorch_multi_sgd")
def multi_sgd(*args):
    grads, (lr, wd, mom, damp, nesterov, neg), outs = _multi(args, 6)
    for g, arrays in zip(grads, outs):
        for part in _blocks(g, *arrays):
            g_, p_, *b_ = part
            _sgd_block(g_, p_, b_[0] if b_ else None, lr, wd, mom, damp, nesterov, neg)


@reference("numtorch_multi_adam")
def multi_adam(*args):
    grads, scalars, outs = _multi(args, 9)
    for g, arrays in zip(grads, outs):
        *moments, step = arrays
        for part in _blocks(g, *moments):
            _adam_block(part[0], *scalars, *part[1:], mad=_mad(False))
        if g.size:
            step += np.float32(1)


def _im2col(x, kernel, stride, padding, dilation, out):
    """The columns (C * K, N * L) of x (N, C, *S): window view of the zero-padded input in
    GEMM order (rows: channel, then taps; columns: sample, then output position)."""
    nd = len(kernel)
    n, c = x.shape[:2]
    xp = np.zeros((n, c) + tuple(si + 2 * p + (ki - 1) * di for si, p, ki, di in
                                 zip(x.shape[2:], padding, kernel, dilation)), dtype=x.dtype)
    xp[(slice(None),) * 2 + tuple(slice(p, p + si) for si, p in zip(x.shape[2:], padding))] = x
    sn, sc, *sp = xp.strides
    win = np.lib.stride_tricks.as_strided(
        xp, (n, c) + tuple(out) + tuple(kernel),
        (sn, sc) + tuple(a * b for a, b in zip(sp, stride))
        + tuple(a * b for a, b in zip(sp, dilation)))
    axes = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    return win.transpose(axes).reshape(c * int(np.prod(kernel)), -1)


def _im2col_kernel(x, c, nl, length, kk, *args):
    """(x, C, N * L, L, K, then per dim S, K, O (not for the first dim), stride, pad, dilation;
    the output col)."""
    *dims, col = args
    dims = dims[:2] + [None] + dims[2:]  # the first dim's O: L over the others'
    s, k, o, st, pd, dl = (list(dims[j::6]) for j in range(6))
    o[0] = length // int(np.prod(o[1:]))
    s, k, o, st, pd, dl = map(tuple, (s, k, o, st, pd, dl))
    n = nl // length
    col.reshape(-1)[...] = _im2col(x.reshape((n, c) + s), k, st, pd, dl, o).reshape(-1)


for _nd in (1, 2, 3):
    reference(f"numtorch_im2col{_nd}")(_im2col_kernel)


def _row_of(a, n, size):
    """Per-row values ``a`` (one per ``n`` elements) spread over ``size`` elements."""
    return np.repeat(a.reshape(-1), n)[:size]


@reference("numtorch_rows_center")
def rows_center(x, s, count, n, xc):
    xc[...] = (x.reshape(-1) - _row_of(s / count, n, x.size)).reshape(x.shape)


@reference("numtorch_rows_affine")
def rows_affine(xc, s2, count, eps, w, b, n, has_b, data, y, invstd):
    iv = 1 / np.sqrt(s2.reshape(-1) / count + eps)
    invstd.reshape(-1)[...] = iv
    d = xc.reshape(-1, n) * iv.reshape(-1, 1)
    data.reshape(-1, n)[...] = d
    t = d * w.reshape(-1)
    if has_b:
        t += b.reshape(-1)
    y.reshape(-1, n)[...] = t


@reference("numtorch_rows_grad")
def rows_grad(h, data, sum_h, sum_hx, invstd, count, n, gx):
    rows = (-1, 1)
    t = data.reshape(-1, n) * (sum_hx.reshape(rows) / count)
    t = h.reshape(-1, n) - t
    t -= sum_h.reshape(rows) / count
    t *= invstd.reshape(rows)
    gx.reshape(-1, n)[...] = t


@reference("numtorch_col2im")
def col2im(cols, n, c, *args):
    """Tap by tap strided adds into a zero-filled padded buffer, then the crop."""
    import itertools

    *dims, dx = args
    s, k, o, st, pd, dl = (dims[j::6] for j in range(6))
    nd = len(s)
    full = tuple(si + 2 * p + (ki - 1) * di + 1 for si, p, ki, di in zip(s, pd, k, dl))
    buf = np.zeros((n, c) + full, dtype=dx.dtype)
    cols = np.moveaxis(cols.reshape((c,) + tuple(k) + (n,) + tuple(o)), 1 + nd, 0)
    for kidx in itertools.product(*(range(ki) for ki in k)):
        dst = tuple(slice(ki * di, ki * di + t * (oi - 1) + 1, t)
                    for ki, di, t, oi in zip(kidx, dl, st, o))
        buf[(slice(None),) * 2 + dst] += cols[(slice(None),) * 2 + kidx]
    dx[...] = buf[(slice(None),) * 2 + tuple(slice(p, p + si) for si, p in zip(s, pd))]


def _rmsprop_block(g, lr, alpha, eps, wd, mom, centered, neg, p, sq, *more):
    t = p.dtype.type
    ga = more[0] if centered else None
    buf = more[-1] if mom > 0 else None
    g = -g if neg else g
    if wd != 0:
        g = g + t(wd) * p
    sq *= t(alpha)
    sq += t(1 - alpha) * g * g
    if centered:
        ga += (g - ga) * t(1 - alpha)
        avg = np.sqrt(sq - ga * ga)
    else:
        avg = np.sqrt(sq)
    avg += t(eps)
    if buf is not None:
        buf *= t(mom)
        buf += g / avg
        p -= t(lr) * buf
    else:
        p -= t(lr) * (g / avg)


def _adagrad_block(g, clr, wd, eps, neg, p, s):
    t = p.dtype.type
    g = -g if neg else g
    if wd != 0:
        g = g + t(wd) * p
    s += g * g
    p -= t(clr) * (g / (np.sqrt(s) + t(eps)))


def _stepped(args, n_scalars, block):
    grads, scalars, outs = _multi(args, n_scalars)
    for g, arrays in zip(grads, outs):
        *states, step = arrays
        for part in _blocks(g, *states):
            block(part[0], *scalars, *part[1:])
        if g.size:
            step += np.float32(1)


@reference("numtorch_multi_rmsprop")
def multi_rmsprop(*args):
    _stepped(args, 7, _rmsprop_block)


@reference("numtorch_multi_adagrad")
def multi_adagrad(*args):
    _stepped(args, 4, _adagrad_block)


# -- cross-entropy (backend/_cupy_loss.py) -----------------------------------------------------
@reference("numtorch_ce_exp")
def ce_exp(x, m, n_classes, e):
    e[...] = np.exp(x - m.reshape(-1, 1))


@reference("numtorch_ce_rows")
def ce_rows(x, m, s, t, w, n_classes, ignore, has_w, loss, wt, ts):
    valid = t != ignore
    ts[...] = np.where(valid, t, 0)
    k = ts % n_classes  # CuPy's fancy indexing wraps an index into range
    one = loss.dtype.type(1)
    v = np.where(valid, w.reshape(-1)[k] if has_w else one, loss.dtype.type(0))
    p = x.reshape(-1)[np.arange(t.size) * n_classes + k] - m.reshape(-1)
    loss[...] = np.log(s) * v - p * v
    wt[...] = v


@reference("numtorch_loss_mean")
def loss_mean(total, denom, out, factor):
    with np.errstate(divide="ignore", invalid="ignore"):
        factor[...] = np.where(denom != 0, 1 / np.where(denom != 0, denom, 1), 1)
        out[...] = total / denom


@reference("numtorch_ce_grad")
def ce_grad(e, g, f, s, a, b, ts, n_classes, g_rows, has_f, dx):
    n = s.shape[0]
    sc = g.reshape(-1) if g_rows else np.full(n, g.reshape(-1)[0], dtype=g.dtype)
    if has_f:
        sc = sc * f.reshape(-1)[0]
    o = e * ((sc * a) / s)[:, None]
    o[np.arange(n), ts % n_classes] -= sc * b
    dx[...] = o


# -- max pooling (backend/_cupy_pool.py) -------------------------------------------------------
def _pool_geometry(geo):
    nd = len(geo) // 6
    return nd, [geo[6 * k:6 * k + 6] for k in range(nd)]  # per dim: S, K, O, st, pd, dl


@reference("numtorch_max_pool")
def max_pool(x, *rest):
    *geo, y, idx = rest
    nd, dims = _pool_geometry(geo)
    planes = x.reshape(-1, int(np.prod([d[0] for d in dims])))
    out = tuple(d[2] for d in dims)
    best = np.full((planes.shape[0],) + out, -np.inf, dtype=x.dtype)
    arg = np.full(best.shape, -1, dtype=np.int64)
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    for ks in itertools.product(*[range(d[1]) for d in dims]):
        s = [g * d[3] - d[4] + k * d[5] for g, d, k in zip(grids, dims, ks)]
        valid = np.logical_and.reduce([(v >= 0) & (v < d[0]) for v, d in zip(s, dims)])
        pos = np.zeros(out, dtype=np.int64)
        for v, d in zip(s, dims):
            pos = pos * d[0] + np.where(valid, v, 0)
        v = planes[:, pos.reshape(-1)].reshape(best.shape)
        arg = np.where(valid & (arg < 0), pos, arg)
        with np.errstate(invalid="ignore"):
            upd = valid & ((v > best) | np.isnan(v))
        best = np.where(upd, v, best)
        arg = np.where(upd, pos, arg)
    y[...] = best.reshape(y.shape)
    idx[...] = arg.reshape(idx.shape)


@reference("numtorch_max_pool_grad")
def max_pool_grad(g, idx, overlap, *rest):
    *geo, dx = rest
    nd, dims = _pool_geometry(geo)
    plane = int(np.prod([d[0] for d in dims]))
    rows = dx.size // plane
    ip = idx.reshape(rows, -1)
    if overlap:  # sums in float64 in the outputs' order, rounded once
        full = ip + np.arange(rows)[:, None] * plane
        dx[...] = np.bincount(full.reshape(-1), weights=g.reshape(-1).astype(np.float64),
                              minlength=rows * plane).reshape(dx.shape)
        return
    flat = np.zeros((rows, plane), dtype=dx.dtype)
    flat[np.arange(rows)[:, None], ip] = g.reshape(rows, -1)
    dx[...] = flat.reshape(dx.shape)


@reference("numtorch_running_stats")
def running_stats(mean, var, unbias, keep, take, rm, rv):
    t = rm.dtype.type
    rm *= t(keep)
    rm += mean * t(take)
    u = var * t(unbias)
    rv *= t(keep)
    rv += u * t(take)


def _chunk_sums(a, b, mean, mode, p, c, length, s, chunk, xc):
    """Per (chunk of ``chunk`` samples, channel, position) float64 sums of a (P, C, L) view:
    the planes (a; a * b; both; or (a - mean)^2, writing xc = a - mean in a's dtype) as
    (planes, S, C, L), each term formed in float64 as the kernels do."""
    a3 = a.reshape(p, c, length)
    if mode == 3:
        d = a3 - mean.reshape(1, c, 1)
        xc.reshape(-1)[:d.size] = d.reshape(-1)
        d = d.astype(np.float64)
        terms = [d * d]
    else:
        a64 = a3.astype(np.float64)
        ab = a64 * b.reshape(a3.shape) if mode else None
        terms = {0: [a64], 1: [ab], 2: [a64, ab]}[mode]
    pad = s * chunk - p
    out = []
    for t in terms:
        t = np.concatenate([t, np.zeros((pad, c, length), dtype=t.dtype)]) if pad else t
        out.append(t.reshape(s, chunk, c, length).sum(axis=1))
    return np.stack(out)


@reference("numtorch_sums_warp")
def sums_warp(a, b, mean, mode, p, c, length, s, chunk, part, xc):
    """Partial sums per (channel, chunk of samples) over the chunk's rows, laid out
    (plane, C, S)."""
    sums = _chunk_sums(a, b, mean, mode, p, c, length, s, chunk, xc).sum(axis=3)
    part[:sums.size] = sums.transpose(0, 2, 1).reshape(-1)


@reference("numtorch_sums_cols")
def sums_cols(a, b, mean, mode, p, c, length, s, chunk, part, xc):
    """Partial sums per (chunk of samples, channel, position), laid out (plane, S, C, L)."""
    sums = _chunk_sums(a, b, mean, mode, p, c, length, s, chunk, xc)
    part[:sums.size] = sums.reshape(-1)


def _finish(part, c, s, lf, s_s, s_c, base, dtype):
    """Per channel: the float64 sum of its S x Lf partials from ``base`` in the kernel's
    order, rounded to ``dtype`` once."""
    idx = (base + np.arange(c)[:, None] * s_c + (np.arange(s)[:, None] * s_s
                                                 + np.arange(lf)[None, :]).reshape(1, -1))
    acc = np.zeros(c, dtype=np.float64)
    for j in range(s * lf):
        acc += part[idx[:, j]]
    return acc.astype(dtype)


@reference("numtorch_sums_finish")
def sums_finish(part, s, lf, s_s, s_c, c, plane, div, y):
    flat = y.reshape(-1)
    for pl in range(flat.size // c):
        flat[pl * c:(pl + 1) * c] = _finish(part, c, s, lf, s_s, s_c, pl * plane,
                                            y.dtype) / div


@reference("numtorch_sums_invstd")
def sums_invstd(part, s, lf, s_s, s_c, count, eps, var, invstd):
    var[...] = _finish(part, var.size, s, lf, s_s, s_c, 0, var.dtype) / count
    invstd[...] = 1 / np.sqrt(var + eps)


@reference("numtorch_sums_grad_stats")
def sums_grad_stats(part, s, lf, s_s, s_c, plane, invstd, w, count, sum_h, sum_hx, kk, m,
                    scale):
    c = sum_h.size
    sum_h[...] = _finish(part, c, s, lf, s_s, s_c, 0, sum_h.dtype)
    shx = _finish(part, c, s, lf, s_s, s_c, plane, sum_h.dtype)
    norm_grad_stats(sum_h, invstd, w, count, shx, kk, m, scale)  # scales shx by invstd
    sum_hx[...] = shx
