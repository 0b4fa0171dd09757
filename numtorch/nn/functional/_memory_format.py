"""Torch's output layout for channels-last inputs of convolution, pooling and resampling.

Given a 4-d input laid out channels-last (``torch.channels_last``; 5-d: ``channels_last_3d``),
torch's CPU kernels for these ops write a channels-last output and a channels-last input
gradient. numtorch's kernels work in row-major NCHW (measured faster with NumPy), so the
functional layer relays the output out (one copy, and the gradient passes back as it is) and
puts the input's gradient back in the input's layout. Row-major inputs pay one stride check.
"""

from ... import _dtype
from ..._layout import _ORDER as _FORMAT_ORDER
from ..._layout import channels_last, channels_last_3d, contiguous_format
from ...autograd.grad_mode import _state as _grad_state
from ...autograd.graph import Op, rename_node
from ...ops._util import restride

__all__ = []

# dims from innermost to outermost in each format, by rank
_ORDER = {4: _FORMAT_ORDER[channels_last], 5: _FORMAT_ORDER[channels_last_3d]}
_FORMAT = {4: channels_last, 5: channels_last_3d}


def _strides_like(shape, strides, order):
    """torch's test of whether ``strides`` look channels-last: increasing along ``order``
    (channels first), a zero channel stride or an empty dim never, and a tensor whose batch
    stride equals its channel stride (an ``N x 1 x 1 x 1`` ambiguity) counts as row-major."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return True


def suggest(*tensors):
    """The channels-last format of the first 4-d/5-d tensor of ``tensors`` whose strides look
    channels-last (torch's ``suggest_memory_format``), else None."""
    for t in tensors:
        st = t._array.strides
        # a channel stride above the innermost dim's rules channels-last out at once (the
        # row-major case: one comparison)
        if len(st) in (4, 5) and st[1] <= st[-1] and \
                _strides_like(t._array.shape, st, _ORDER[len(st)]):
            return _FORMAT[len(st)]
    return None


def _format_strides(shape, order, itemsize):
    """Byte strides of a fresh tensor of ``shape`` laid out along ``order`` (as torch sets
    them: a size-1 dim takes the stride it would have if it were larger)."""
    strides = [0] * len(shape)
    acc = itemsize
    for d in order:
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def array_as(xp, a, fmt):
    """A copy of array ``a`` laid out in ``fmt``, with torch's strides."""
    if hasattr(a, "quantizer"):  # a quantized array: its stored integers move
        return a._like(array_as(xp, a.ints, fmt))
    order = _ORDER[a.ndim]
    want = _format_strides(a.shape, order, a.itemsize)
    outer = order[::-1]
    out = xp.ascontiguousarray(a.transpose(outer)).transpose(
        tuple(outer.index(d) for d in range(a.ndim)))
    return restride(xp, out, want)


class ToFormat(Op):
    """y = x laid out in ``fmt``; dx = grad (values are unchanged, only memory order moves).
    Why an op: one copy and one node instead of a permute/contiguous/permute chain."""

    def forward(self, x):
        return array_as(self.xp, x, self.fmt)

    def backward(self, grad):
        return grad


class GradToFormat(Op):
    """y = x; dx = grad laid out in ``fmt`` (an input's gradient in the input's layout).
    A view of x, so in-place writes to x still invalidate what the next op saved."""

    is_view = True

    def forward(self, x):
        return x.view()

    def backward(self, grad):
        return ToFormat.apply(grad, fmt=self.fmt)

    def backward_arrays(self, g):
        return array_as(self.xp, g, self.fmt)  # ToFormat's forward, without its node


def conv_format(input, weight):
    """The layout torch's CPU convolution (plain or transposed) writes for these operands:
    channels-last if either looks so, except 3-d convolutions outside float32/bfloat16 (its
    slow 3-d kernel writes row-major, channels-last or not)."""
    fmt = suggest(input, weight)
    if fmt is channels_last_3d and input.dtype not in (_dtype.float32, _dtype.bfloat16):
        return contiguous_format
    return fmt


def output(out, fmt):
    """``out`` laid out in ``fmt`` (None: row-major, as torch's kernels write for an input that
    is not channels-last, whatever its strides; ``contiguous_format``: row-major)."""
    if fmt is contiguous_format:
        return out.contiguous()
    if fmt is None:
        if out._array.flags.c_contiguous:
            return out
        y = out.contiguous()  # (a permuted input's pooling kept its layout)
        if out.grad_fn is not None:  # the output's node keeps the kernel's name, as in torch
            rename_node(y, out.grad_fn.name())
        return y
    if out.dim() != len(_ORDER.get(out.dim(), ())):
        return out
    a = out._array
    if a.strides == _format_strides(a.shape, _ORDER[a.ndim], a.itemsize):
        return out  # the kernel already wrote this layout
    y = ToFormat.apply(out, fmt=fmt)
    if out.grad_fn is not None:  # the output's node keeps the kernel's name, as in torch
        rename_node(y, out.grad_fn.name())
    return y


def outputs(result, fmt):
    """:func:`output` of one tensor or of each tensor of a tuple (values and indices)."""
    if isinstance(result, tuple):
        return type(result)(output(r, fmt) for r in result)
    return output(result, fmt)


def grad_input(input, fmt):
    """``input``, whose gradient comes back laid out in ``fmt`` (None: ``input`` itself)."""
    if fmt is None or fmt is contiguous_format or not input.requires_grad or \
            not _grad_state.enabled:
        return input
    return GradToFormat.apply(input, fmt=fmt)


def grad_weight(weight, fmt):
    """``weight``, whose gradient comes back in ``fmt`` when ``weight`` is laid out so itself
    (torch's weight gradient of a channels-last convolution is channels-last; a row-major
    weight gets its own layout back from the leaf's layout rule anyway)."""
    if fmt is None or fmt is contiguous_format or not weight.requires_grad or \
            not _grad_state.enabled or suggest(weight) is not fmt:
        return weight
    return GradToFormat.apply(weight, fmt=fmt)


def batched_format(x, added):
    """The channels-last format of a batched pooling/resampling input ``x`` (None when the
    batch dim was added to an unbatched input: torch keeps those row-major)."""
    return None if added else suggest(x)


def pool1d_layout(input, result):
    """``result`` of a 1-d pooling of ``input`` as torch lays it out: torch pools 1-d as 2-d
    over ``(N, C, 1, L)``, where an input whose channels are its innermost dim looks
    channels-last, and the result keeps that layout (else row-major)."""
    if input.dim() != 3 or suggest(input.unsqueeze(2)) is None:
        return outputs(result, None)

    def relay(r):
        name = r.grad_fn.name() if r.grad_fn is not None else None
        n, c, length = tuple(r.shape)
        y = r.transpose(1, 2).contiguous()
        # (a size-1 dim gets its full-size stride, as torch's)
        y = y.as_strided((n, length, c), (length * c, c, 1)).transpose(1, 2)
        return rename_node(y, name) if name is not None else y

    return tuple(relay(r) for r in result) if isinstance(result, tuple) else relay(result)
