"""How torch ranks a new tensor's dimensions in memory from its operands' strides.

Used by the elementwise results (``autograd/_pointwise_layout.py``), the preserve_format copies
(``_preserve_layout.py``) and the meta device, which has no NumPy to lay its results out.

The rule, as observed in torch: dimensions are ranked innermost first. Two dimensions are
compared operand by operand, skipping an operand that broadcasts along either of them; the
first operand whose strides for the two differ ranks the smaller stride inner. Equal non-zero
strides put the larger dimension outer when it comes first, else leave the question to the
next operand. Dimensions no operand ranks keep row-major order. The ranking is an insertion
pass over row-major order that steps past unranked pairs.
"""

__all__ = ["broadcast_strides", "dense_strides", "strides_in_order", "torch_order"]


def dense_strides(shape, strides, unit=1):
    """Whether ``strides`` (in units of ``unit``: 1 for element strides, the item size for
    byte strides) lay ``shape`` out densely without gaps or overlap. Dims of size 0 or 1
    never move through memory, so their strides are not looked at."""
    extent = unit
    for st, n in sorted((st, n) for st, n in zip(strides, shape) if n > 1):
        if st != extent:
            return False
        extent *= n
    return True


def broadcast_strides(a, shape):
    """Array ``a``'s strides against the result ``shape``, 0 along broadcast dimensions."""
    lead = len(shape) - a.ndim
    out = [0] * lead
    for n, s, size in zip(a.shape, a.strides, shape[lead:]):
        out.append(0 if n == 1 and size != 1 else s)
    return out


def _ranks_outer(shape, operands, d0, d1):
    """1 when ``d0`` (now inner) belongs outside ``d1``, -1 when inside, 0 when no operand
    says."""
    for st in operands:
        s0, s1 = st[d0], st[d1]
        if s0 == 0 or s1 == 0:
            continue
        if s0 != s1:
            return 1 if s0 > s1 else -1
        if shape[d0] > shape[d1]:
            return 1
    return 0


def torch_order(shape, operands):
    """The result's dimensions innermost first, given each operand's broadcast strides."""
    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        moving = i
        for j in range(i - 1, -1, -1):
            c = _ranks_outer(shape, operands, perm[j], perm[moving])
            if c > 0:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif c < 0:
                break
    return perm


def strides_in_order(shape, inner_first, unit=1):
    """Dense strides (in units of ``unit``) for ``shape`` with its dims innermost first."""
    out = [0] * len(shape)
    step = unit
    for d in inner_first:
        out[d] = step
        step *= shape[d]
    return out
