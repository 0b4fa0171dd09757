"""``torch.func.rearrange``: einops-style reordering (``"b (h w) c -> b c h w"``) as one
reshape, one permute and one reshape."""

import math
import re

from .._tensor import Tensor

__all__ = ["rearrange"]

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+")


def _parse(side):
    """A side of the pattern as a list of groups, each a list of axis names (``"..."`` is the
    ellipsis, a group of none is a unit axis)."""
    groups, cur = [], None
    for tok in _TOKEN.findall(side):
        if tok == "(":
            if cur is not None:
                raise ValueError(f"Unbalanced parentheses in pattern side: {side.strip()}")
            cur = []
        elif tok == ")":
            if cur is None:
                raise ValueError(f"Unbalanced parentheses in pattern side: {side.strip()}")
            groups.append(cur)
            cur = None
        else:
            if tok.isdigit():
                if tok != "1":
                    raise ValueError(f"Non-unitary anonymous axes are not supported in "
                                     f"rearrange, got {tok}")
                item = []
            else:
                item = [tok]
            if cur is None:
                groups.append(item)
            else:
                cur.extend(item)
    if cur is not None:
        raise ValueError(f"Unbalanced parentheses in pattern side: {side.strip()}")
    stripped = re.sub(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\s", "", side)
    if stripped:
        raise ValueError(f"Unexpected character(s) {stripped!r} in pattern")
    return groups


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, merge and split dims by an einops pattern.

    Args:
        tensor (Tensor or sequence of Tensors): the input (a sequence is stacked first).
        pattern (str): ``"<input axes> -> <output axes>"``; names in parentheses are merged
            into (or split from) one dim, ``...`` stands for the remaining dims.
        **axes_lengths (int): the sizes of split axes that cannot be inferred.

    Example:
        >>> torch.func.rearrange(torch.zeros(2, 3, 4), "b h w -> b (h w)").shape
        torch.Size([2, 12])
    """
    if isinstance(tensor, (list, tuple)):
        from ..ops import stack

        tensor = stack(list(tensor))
    if not isinstance(tensor, Tensor):
        raise TypeError(f"rearrange: expected a Tensor, got {type(tensor)}")
    if "->" not in pattern:
        raise ValueError(f"Pattern must contain '->': {pattern}")
    left, right = (_parse(s) for s in pattern.split("->"))
    lnames = [n for g in left for n in g]
    rnames = [n for g in right for n in g]
    for names, side in ((lnames, "left"), (rnames, "right")):
        dup = [n for n in names if names.count(n) > 1 and n != "..."]
        if dup:
            raise ValueError(f"Indexing expression contains duplicate dimension '{dup[0]}'")
    if set(lnames) != set(rnames):
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on "
                         f"both): {set(lnames) ^ set(rnames)}")
    shape = list(tensor.shape)
    has_dots = any("..." in g for g in left)
    n_fixed = len(left) - has_dots
    if has_dots:
        if len(shape) < n_fixed:
            raise ValueError(f"Number of dimensions in pattern ({n_fixed}) must be at most the "
                             f"number of dimensions in the tensor ({len(shape)})")
    elif len(shape) != len(left):
        raise ValueError(f"Number of dimensions in pattern ({len(left)}) must be equal to the "
                         f"number of dimensions in the tensor ({len(shape)})")
    n_dots = len(shape) - n_fixed
    sizes, elementary, it = {}, [], iter(shape)
    dots = [f"...{i}" for i in range(n_dots)]
    for g in left:
        if g == ["..."]:
            for d in dots:
                sizes[d] = next(it)
                elementary.append(d)
            continue
        if "..." in g:
            raise ValueError("Ellipsis inside parentheses on the left side is not supported")
        n = next(it)
        unknown = [a for a in g if a not in axes_lengths]
        known = math.prod(axes_lengths[a] for a in g if a in axes_lengths)
        if len(unknown) > 1:
            raise ValueError(f"Could not infer sizes for {unknown}")
        if unknown:
            if known == 0 or n % known:
                raise ValueError(f"Shape mismatch, can't divide axis of length {n} in chunks of "
                                 f"{known}")
            sizes[unknown[0]] = n // known
        elif known != n:
            raise ValueError(f"Shape mismatch, {known} != {n}")
        for a in g:
            sizes.setdefault(a, axes_lengths.get(a))
            elementary.append(a)
    out_order = []
    for g in right:
        for a in g:
            out_order.extend(dots if a == "..." else [a])
    x = tensor.reshape([sizes[a] for a in elementary])
    perm = [elementary.index(a) for a in out_order]
    if perm != list(range(len(perm))):
        x = x.permute(perm)
    final = []
    for g in right:
        if g == ["..."]:
            final.extend(sizes[d] for d in dots)
        else:
            final.append(math.prod(sizes[d] for a in g for d in (dots if a == "..." else [a])))
    return x.reshape(final)
