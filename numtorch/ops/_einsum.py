"""einsum: parse and check the equation as torch does, then contract with BLAS.

The equation is first normalised: spaces dropped, each ellipsis replaced by fresh letters
(right-aligned, as broadcasting aligns dims) and the implicit output made explicit. After
that every operand is a plain string of letters.

Forward: two operands without repeated letters become one batched ``xp.matmul`` (letters
sorted into batch, left, right and contracted groups, as torch does); other cases use
``xp.einsum``. Backward: the gradient of operand i is another einsum of the output gradient with
the other operands, onto i's letters; letters summed away inside operand i alone are
broadcast back, size-1 (broadcast) dims summed, and repeated letters (diagonals such as 'ii')
restored by multiplying with an identity.
"""

import string

import numpy as np

from .. import _dtype, backend
from .._tensor import Tensor, _make
from ..autograd.graph import Op, rename_node

__all__ = ["einsum"]

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # sublist index k -> _LETTERS[k]


class Einsum(Op):
    """y = einsum(terms -> out, *xs); dx_i = einsum(out, other terms -> term_i)(g, *others)."""

    def forward(self, *xs):
        # operand k's value is read only by the other operands' gradients
        self.save_inputs(*[x for x, keep in zip(xs, self._kept()) if keep])
        terms, out = self.terms, self.out
        if len(xs) == 2 and _no_repeats(terms) and _same_contracted_sizes(terms, out, xs):
            return _contract2(self.xp, xs[0], terms[0], xs[1], terms[1], out)
        eq = ",".join(terms) + "->" + out
        y = self.xp.einsum(eq, *xs, optimize=len(xs) > 2)
        if len(xs) == 1 and self.xp.may_share_memory(y, xs[0]):
            # permutations and diagonals come back as views; the autograd graph does not
            # track them as views, so an in-place change would reach the input unseen
            y = y.copy()
        return y

    def _kept(self):
        needs = self.needs_input_grad
        return [any(n for j, n in enumerate(needs) if j != k) for k in range(len(needs))]

    def backward_arrays(self, g):
        # a two-operand einsum whose gradients are again two-operand contractions of equal
        # sizes (every letter of an operand is in the output or the other operand; nothing
        # broadcasts; real, one dtype): the same ``_contract2`` the composed backward
        # reaches through a recorded Einsum, on the arrays (attention's q@k^T and attn@v)
        terms, out = self.terms, self.out
        if len(terms) != 2 or g.dtype.kind == "c" or not _no_repeats(terms):
            return NotImplemented
        ta, tb = terms
        (sa, da), (sb, db) = self._in_meta
        if da != g.dtype or db != g.dtype:
            return NotImplemented
        size = {}
        for term, shape in ((ta, sa), (tb, sb), (out, g.shape)):
            for c, n in zip(term, shape):
                if size.setdefault(c, n) != n:
                    return NotImplemented
        if not set(ta) <= set(out) | set(tb) or not set(tb) <= set(out) | set(ta):
            return NotImplemented
        na, nb = self.needs_input_grad
        saved = self.saved_input_arrays()
        a, b = saved if na and nb else ((None, saved) if na else (saved, None))
        xp = self.xp
        return (_contract2(xp, g, out, b, tb, ta) if na else None,
                _contract2(xp, g, out, a, ta, tb) if nb else None)

    def backward(self, grad):
        kept = self._kept()
        saved = self.saved_inputs() if any(kept) else ()
        saved = iter(saved if isinstance(saved, tuple) else (saved,))
        xs = [next(saved) if keep else None for keep in kept]
        return tuple(_operand_grad(i, self.terms, self.out, xs, grad, self._in_meta[i])
                     if self.needs_input_grad[i] else None for i in range(len(xs)))


def _no_repeats(terms):
    return all(len(set(t)) == len(t) for t in terms)


def _same_contracted_sizes(terms, out, xs):
    """True unless a letter summed between the two operands has broadcast (size-1) sizes."""
    ta, tb = terms
    sa = dict(zip(ta, xs[0].shape))
    sb = dict(zip(tb, xs[1].shape))
    return all(sa[c] == sb[c] for c in ta if c in sb and c not in out)


def _contract2(xp, a, ta, b, tb, out):
    """einsum of two operands as one (batched) matmul; letters in one operand only are summed
    first, batch letters may broadcast."""
    keep_a = [c for c in ta if c in tb or c in out]
    if len(keep_a) != len(ta):
        a = a.sum(axis=tuple(i for i, c in enumerate(ta) if c not in keep_a))
        ta = "".join(keep_a)
    keep_b = [c for c in tb if c in ta or c in out]
    if len(keep_b) != len(tb):
        b = b.sum(axis=tuple(i for i, c in enumerate(tb) if c not in keep_b))
        tb = "".join(keep_b)
    size_a = dict(zip(ta, a.shape))
    size_b = dict(zip(tb, b.shape))
    batch = [c for c in out if c in ta and c in tb]
    left = [c for c in out if c in ta and c not in tb]
    right = [c for c in out if c in tb and c not in ta]
    summed = [c for c in ta if c in tb and c not in out]
    n_left = int(np.prod([size_a[c] for c in left], dtype=np.int64))
    n_right = int(np.prod([size_b[c] for c in right], dtype=np.int64))
    n_sum = int(np.prod([size_a[c] for c in summed], dtype=np.int64))
    am = a.transpose([ta.index(c) for c in batch + left + summed]).reshape(
        tuple(size_a[c] for c in batch) + (n_left, n_sum))
    bm = b.transpose([tb.index(c) for c in batch + summed + right]).reshape(
        tuple(size_b[c] for c in batch) + (n_sum, n_right))
    y = _dtype.opmath_matmul(xp, am, bm)
    nb = len(batch)
    y = y.reshape(y.shape[:nb] + tuple(size_a[c] for c in left) +
                  tuple(size_b[c] for c in right))
    order = batch + left + right
    perm = [order.index(c) for c in out]
    return y if perm == sorted(perm) else y.transpose(perm)


def _operand_grad(i, terms, out, xs, grad, meta):
    """Gradient of the einsum with respect to operand ``i`` (composed of numtorch ops);
    ``meta``: its (shape, dtype), its value being needed only by the other operands."""
    term, (shape, dtype) = terms[i], meta
    # torch's complex convention: the other operands enter conjugated
    others = [(t, xs[k].conj() if xs[k].is_complex() else xs[k])
              for k, t in enumerate(terms) if k != i]
    avail = set(out).union(*[set(t) for t, _ in others])
    uniq = list(dict.fromkeys(term))  # first occurrences, in order
    target = "".join(c for c in uniq if c in avail)
    g = _apply([out] + [t for t, _ in others], target, [grad] + [o for _, o in others])
    size = dict(zip(term, shape))
    for k, c in enumerate(uniq):  # letters summed inside this operand alone: broadcast back
        if c not in avail:
            g = g.unsqueeze(k)
    for k, c in enumerate(uniq):  # broadcast (size-1) dims: sum or expand to this operand
        if g.shape[k] != size[c]:
            if size[c] == 1:
                g = g.sum(k, keepdim=True)
            else:
                g = g.expand(*g.shape[:k], size[c], *g.shape[k + 1:])
    if len(uniq) != len(term):
        g = _embed_diagonals(g, term, size, dtype)
    return g


def _embed_diagonals(g, term, size, dtype):
    """Turn the gradient over the unique letters into one over ``term`` (zeros off-diagonal)."""
    xp = backend.xp_of(g._array)
    for p, c in enumerate(term):
        first = term.index(c)
        if first == p:
            continue
        n = size[c]
        g = g.unsqueeze(p)
        shape = [1] * g.dim()
        shape[first] = shape[p] = n
        g = g * _make(xp.eye(n, dtype=dtype).reshape(shape))
    return g


def _apply(terms, out, operands):
    return Einsum.apply(*operands, terms=list(terms), out=out, node_name=_node_name(terms, out))


def _node_name(terms, out):
    """The grad_fn name of torch's einsum result: the last op its decomposition runs (a
    permute or a sum for one operand, a view after the contraction or a broadcast product
    for several)."""
    summed = any(c not in out for t in terms for c in t)
    if len(terms) == 1:
        return "SumBackward1" if summed else "PermuteBackward0"
    return "ViewBackward0" if summed else "MulBackward0"


# ---------------------------------------------------------------------------------------------
# parsing and checking


def _err(msg):
    return RuntimeError(f"einsum(): {msg}")


def _parse(eq):
    """Split ``eq`` into operand token lists and an output token list (None if implicit).

    Tokens are letters and '...'; errors name the offending index or operand as torch does.
    """
    arrow = eq.find("->")
    lhs_end = arrow if arrow >= 0 else len(eq)
    terms = [[]]
    out = None

    def scan(start, end, where, cur):
        k = start
        while k < end:
            c = eq[k]
            if c == " ":
                k += 1
            elif c == "," and where != "output":
                terms.append([])
                cur = terms[-1]
                where = f"operand {len(terms) - 1}"
                k += 1
            elif c == ".":
                if "..." in cur:
                    raise _err(f"found '.' for {where} "
                               + ("but an ellipsis (...) was already found" if where == "output"
                                  else "for which an ellipsis was already found"))
                if not eq.startswith("...", k) or k + 3 > end:
                    raise _err(f"found '.' for {where} that is not part of any ellipsis")
                cur.append("...")
                k += 3
            elif c in _LETTERS:
                cur.append(c)
                k += 1
            else:
                raise _err(f"invalid subscript given at index {k} in the equation string, "
                           f"subscripts must be in [a-zA-Z]")

    scan(0, lhs_end, "operand 0", terms[0])
    if arrow >= 0:
        out = []
        scan(arrow + 2, len(eq), "output", out)
    return terms, out


def _check_and_normalise(terms, out, shapes):
    """Check subscripts against the operand shapes; return letter-only terms and output."""
    if len(terms) > len(shapes):
        raise _err("fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise _err("more operands were provided than specified in the equation")
    used = {c for t in terms for c in t if c != "..."} | {c for c in (out or ()) if c != "..."}
    ell_ndim = 0
    ell_shape = []
    sizes = {}
    for k, (t, shape) in enumerate(zip(terms, shapes)):
        n = len([c for c in t if c != "..."])
        if "..." not in t and n != len(shape):
            raise _err(f"the number of subscripts in the equation ({n}) does not match the "
                       f"number of dimensions ({len(shape)}) for operand {k} and no ellipsis "
                       f"was given")
        if n > len(shape):
            raise _err(f"the number of subscripts in the equation ({n}) is more than the "
                       f"number of dimensions ({len(shape)}) for operand {k}")
        e = len(shape) - n if "..." in t else 0
        ell_ndim = max(ell_ndim, e)
        dims = _expand_tokens(t, e)
        seen_here = {}
        for pos, tok in enumerate(dims):
            s = shape[pos]
            if tok is None:  # an ellipsis dim
                _merge_ellipsis(ell_shape, e, pos - dims.index(None), s, k)
                continue
            if tok in seen_here:
                if seen_here[tok] != s:
                    raise _err(f"subscript {tok} is repeated for operand {k} but the sizes "
                               f"don't match, {s} != {seen_here[tok]}")
                continue
            seen_here[tok] = s
            prev = sizes.get(tok)
            if prev is not None and prev != s and prev != 1 and s != 1:
                raise _err(f"subscript {tok} has size {s} for operand {k} which does not "
                           f"broadcast with previously seen size {prev}")
            if prev is None or prev == 1:
                sizes[tok] = s
    if out is not None:
        seen = set()
        for c in out:
            if c == "...":
                continue
            if c not in sizes:
                raise _err(f"output subscript {c} does not appear in the equation for any "
                           f"input operand")
            if c in seen:
                raise _err(f"output subscript {c} appears more than once in the output")
            seen.add(c)
    free = [c for c in _LETTERS if c not in used]
    if ell_ndim > len(free):
        raise _err("too many subscripts: the ellipsis dims need more unused letters than remain")
    ell_letters = "".join(free[:ell_ndim])
    norm_terms = []
    for t, shape in zip(terms, shapes):
        e = len(shape) - len([c for c in t if c != "..."]) if "..." in t else 0
        norm_terms.append("".join(ell_letters[ell_ndim - e:] if c == "..." else c for c in t))
    if out is None:
        flat = [c for t in terms for c in t if c != "..."]
        single = sorted(c for c in set(flat) if flat.count(c) == 1)
        norm_out = ell_letters + "".join(single)
    else:
        norm_out = "".join(ell_letters if c == "..." else c for c in out)
    return norm_terms, norm_out


def _expand_tokens(t, e):
    """Tokens of one operand with '...' spread over its ``e`` dims (each shown as None)."""
    out = []
    for c in t:
        if c == "...":
            out.extend([None] * e)
        else:
            out.append(c)
    return out


def _merge_ellipsis(ell_shape, e, j, s, k):
    """Broadcast ellipsis dim ``j`` (of ``e``, right-aligned) of operand ``k`` into the shape
    seen so far, or raise torch's error."""
    # index from the right so operands with fewer ellipsis dims line up
    r = e - 1 - j
    while len(ell_shape) <= r:
        ell_shape.append(1)
    prev = ell_shape[r]
    if prev != s and prev != 1 and s != 1:
        raise _err(f"dimension {j} covered by ellipsis in operand {k} has size {s} which does "
                   f"not broadcast with previously seen ellipsis with size {prev} for the "
                   f"respective dimension")
    if prev == 1:
        ell_shape[r] = s


def _from_sublists(args):
    """einsum(op0, sub0, op1, sub1, ..., [out]) -> (equation, operands)."""
    n = len(args) - len(args) % 2  # an odd count means the last list is the output
    ops, subs = list(args[0:n:2]), list(args[1:n:2])
    out = args[-1] if len(args) % 2 else None

    def letters(sub):
        s = []
        for v in sub:
            if v is Ellipsis:
                s.append("...")
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                if not 0 <= v < len(_LETTERS):
                    raise ValueError(f"einsum(): subscript in subscript list is not within the "
                                     f"valid range [0, {len(_LETTERS)})")
                s.append(_LETTERS[v])
            else:
                raise TypeError(f"einsum(): expected an int or Ellipsis in a subscript list, "
                                f"got {type(v).__name__}")
        return "".join(s)

    eq = ",".join(letters(s) for s in subs)
    if out is not None:
        eq += "->" + letters(out)
    return eq, ops


def einsum(*args):
    """Sum of products over the subscripts of an equation (Einstein summation).

    Args:
        equation (str): subscripts such as ``'ij,jk->ik'``; ``...`` stands for broadcast
            dims and without ``->`` the output holds the letters seen once, sorted.
        *operands (Tensor): one tensor per comma-separated term (a single list also works).
            The sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is accepted too.

    Example:
        >>> a, b = torch.ones(2, 3), torch.ones(3, 4)
        >>> torch.einsum("ij,jk->ik", a, b).shape
        torch.Size([2, 4])
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
            if not operands:  # an empty operand list is no operand at all (torch's error)
                raise ValueError("einsum(): must specify the equation string and at least one "
                                 "operand, or at least one operand and its subscripts list")
    else:
        equation, operands = _from_sublists(args)
    for k, t in enumerate(operands):
        if not isinstance(t, Tensor):
            mod = type(t).__module__
            name = type(t).__name__ if mod == "builtins" else f"{mod}.{type(t).__name__}"
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got {name}")
    terms, out = _parse(equation)
    if len(operands) >= 3 and len(terms) != len(operands):
        from ..backends import opt_einsum

        if opt_einsum.enabled and opt_einsum.is_available():
            # torch plans three or more operands with opt_einsum, which words this first
            raise ValueError(f"Number of einsum subscripts, {len(terms)}, must be equal to the "
                             f"number of operands, {len(operands)}.")
    norm_terms, norm_out = _check_and_normalise(terms, out, [t._array.shape for t in operands])
    if len(operands) == 1 and set(norm_terms[0]) <= set(norm_out):
        return _one_operand_view(operands[0], norm_terms[0], norm_out)
    first = operands[0]
    mixed = any(t.dtype is not first.dtype for t in operands)
    if mixed or first.dtype._category in (_dtype._INT, _dtype._BOOL):
        # torch pairs the operands left to right: a pair with nothing to sum over is a mul
        # (dtypes promote), one with letters to contract a bmm (dtypes must agree; an int
        # operand summed alone first became int64)
        want = _pairwise_dtype(norm_terms, norm_out, [t.dtype for t in operands])
        if mixed or first.dtype is _dtype.bool:
            return _apply(norm_terms, norm_out, [t.to(want) for t in operands]).to(want)
    y = _apply(norm_terms, norm_out, operands)
    if first.dtype.name in ("int8", "int16", "int32", "uint8"):
        # torch sums a letter found in one operand only (and not in the output) with sum(),
        # which returns int64 for integer inputs
        counts = {}
        for t in norm_terms:
            for c in set(t):
                counts[c] = counts.get(c, 0) + 1
        if any(n == 1 and c not in norm_out for c, n in counts.items()):
            y = y.to(_dtype.int64)
    return y


def _one_operand_view(x, term, out):
    """One operand and nothing summed: torch's einsum is a view of it (diagonals for repeated
    letters, then a permute), so writing into the result writes into the operand."""
    letters = list(term)
    while len(set(letters)) < len(letters):
        c = next(c for k, c in enumerate(letters) if c in letters[:k])
        i = letters.index(c)
        j = letters.index(c, i + 1)
        x = x.diagonal(0, i, j)  # (the diagonal goes last)
        letters = [c2 for k, c2 in enumerate(letters) if k not in (i, j)] + [c]
    return rename_node(x.permute([letters.index(c) for c in out]), "PermuteBackward0")


def _pairwise_dtype(terms, out, dtypes):
    """The result dtype of torch's left-to-right pairing, or its error for a contraction of
    two dtypes (or of bools). A letter only one operand has is summed first (ints -> int64)."""
    counts = {}
    for t in terms:
        for c in set(t):
            counts[c] = counts.get(c, 0) + 1
    kept, types = [], []
    for t, dt in zip(terms, dtypes):
        alone = {c for c in t if counts[c] == 1 and c not in out}
        if alone and dt._category in (_dtype._INT, _dtype._BOOL):
            dt = _dtype.int64
        kept.append(set(t) - alone)
        types.append(dt)
    have, dt = kept[0], types[0]
    for k in range(1, len(kept)):
        later = set().union(*kept[k + 1:])
        summed = {c for c in have & kept[k] if c not in out and c not in later}
        if not summed:
            dt = _dtype.promote_types(dt, types[k])
        elif types[k] is not dt:
            raise RuntimeError(f"expected scalar type {_dtype._TYPE_DISPLAY[dt.name]} but "
                               f"found {_dtype._TYPE_DISPLAY[types[k].name]}")
        elif dt is _dtype.bool:
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        have = (have | kept[k]) - summed
    return dt
