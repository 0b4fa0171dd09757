"""einsum: forward by ``xp.einsum``; each operand's gradient is another einsum.

For operand i, the gradient contracts the output gradient with every other operand onto i's
subscripts. Letters that appear only in operand i (summed away inside it) are broadcast back,
and repeated letters (diagonals such as 'ii') are restored by multiplying with identity masks.
"""

from .. import backend
from .._tensor import Tensor, _make
from ..autograd.graph import Op

__all__ = ["einsum"]


def _parse(equation, shapes):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs, out = eq, None
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the "
                           f"equation" if len(shapes) > len(ins) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    for s, shp in zip(ins, shapes):
        n = len(s.replace("...", ""))
        if ("..." not in s and n != len(shp)) or ("..." in s and n > len(shp)):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does "
                               f"not match the number of dimensions ({len(shp)}) for operand "
                               f"{ins.index(s)}" + ("" if "..." in s else
                                                    " and no ellipsis was given"))
    if out is None:
        letters = "".join(ins).replace(".", "")
        out = ("..." if any("..." in s for s in ins) else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    return ins, out


class Einsum(Op):
    """y = einsum(equation, *xs); dx_i = einsum(grad, x_others -> subscripts of x_i)."""

    def forward(self, *xs):
        self.save_inputs(*xs)
        self.shapes = [x.shape for x in xs]
        return self.xp.einsum(self.equation, *xs, optimize=len(xs) > 2)

    def backward(self, grad):
        xs = self.saved_inputs()
        xs = xs if isinstance(xs, tuple) else (xs,)
        ins, out = self.ins, self.out
        grads = []
        for i, (sub, x) in enumerate(zip(ins, xs)):
            if not self.needs_input_grad[i]:
                grads.append(None)
                continue
            grads.append(_operand_grad(i, sub, x, ins, out, xs, grad))
        return tuple(grads)


def _operand_grad(i, sub, x, ins, out, xs, grad):
    others = [(s, t) for k, (s, t) in enumerate(zip(ins, xs)) if k != i]
    available = set(out.replace(".", "")) | set("".join(s for s, _ in others).replace(".", ""))
    letters = []  # i's own letters, first occurrences, in order (ellipsis kept as a unit)
    j = 0
    while j < len(sub):
        if sub.startswith("...", j):
            letters.append("...")
            j += 3
            continue
        if sub[j] not in letters:
            letters.append(sub[j])
        j += 1
    target = "".join(c for c in letters if c == "..." or c in available)
    if "..." in sub and "..." not in out and all("..." not in s for s, _ in others):
        target = target.replace("...", "")
    eq = ",".join([out] + [s for s, _ in others]) + "->" + target
    g = einsum(eq, grad, *[t for _, t in others])
    # dims of x: map each position of ``sub`` to a size
    ell_ndim = x.dim() - len(sub.replace("...", ""))
    sizes = {}
    pos = 0
    for c in _tokens(sub):
        if c == "...":
            pos += ell_ndim
            continue
        sizes[c] = x.shape[pos]
        pos += 1
    # broadcast letters summed away inside x alone
    cur = [c for c in _tokens(target)]
    if "..." in sub and "..." not in cur:
        cur_full = ["..."] + cur
        g = g.reshape(*([1] * ell_ndim), *g.shape)
        cur = cur_full
    for c in letters:
        if c not in cur:
            idx = letters.index(c)
            insert_at = [k for k, d in enumerate(cur) if d in letters and
                         letters.index(d) < idx]
            at = (insert_at[-1] + 1) if insert_at else 0
            dim_at = _dim_index(cur, at, ell_ndim)
            g = g.unsqueeze(dim_at)
            shape = list(g.shape)
            shape[dim_at] = sizes[c]
            g = g.expand(*shape)
            cur.insert(at, c)
    # restore repeated letters (diagonals) with identity masks
    toks = _tokens(sub)
    if len([t for t in toks if t != "..."]) != len(set(t for t in toks if t != "...")):
        seen = []
        for t in toks:
            if t == "..." or t not in seen:
                seen.append(t)
                continue
            first = seen.index(t)
            new_pos = len(seen)
            g = g.unsqueeze(_dim_index(seen, new_pos, ell_ndim))
            n = sizes[t]
            eye = backend.xp_of(x._array).eye(n, dtype=x._array.dtype)
            shape = [1] * g.dim()
            shape[_dim_index(seen, first, ell_ndim)] = n
            shape[_dim_index(seen, new_pos, ell_ndim)] = n
            g = g * _make(eye).reshape(*shape)
            seen.append(t)
    return g


def _tokens(sub):
    out, j = [], 0
    while j < len(sub):
        if sub.startswith("...", j):
            out.append("...")
            j += 3
        else:
            out.append(sub[j])
            j += 1
    return out


def _dim_index(tokens, k, ell_ndim):
    """Tensor dim of token position ``k`` when '...' spans ``ell_ndim`` dims."""
    d = 0
    for t in tokens[:k]:
        d += ell_ndim if t == "..." else 1
    return d


def einsum(equation, *operands):
    """Sum of products over the subscripts of ``equation`` (NumPy/torch einsum notation).

    Example:
        >>> a, b = torch.ones(2, 3), torch.ones(3, 4)
        >>> torch.einsum("ij,jk->ik", a, b).shape
        torch.Size([2, 4])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands:
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operands must be Tensors, got {type(t).__name__}")
    ins, out = _parse(equation, [t.shape for t in operands])
    full = ",".join(ins) + "->" + out
    dts = {t.dtype for t in operands}
    if len(dts) > 1:
        raise RuntimeError(f"expected scalar type {operands[0].dtype} but found "
                           f"{[d for d in dts if d is not operands[0].dtype][0]}")
    return Einsum.apply(*operands, equation=full, ins=ins, out=out)
