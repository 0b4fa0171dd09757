"""Complex numbers: the parts (``real``, ``imag``, ``angle``), conjugation, building complex
tensors (``complex``, ``polar``) and reinterpreting them (``view_as_real``,
``view_as_complex``).

``real``, ``imag`` and the two ``view_as_*`` functions are views, so writes through them reach
the original tensor, as in torch. Gradients follow torch's convention for complex inputs: the
gradient of a real loss L with respect to z = x + iy is dL/dx + i dL/dy. The backward passes
here are built from real arithmetic and these ops, so they differentiate again.

Note:
    numtorch has no lazy conjugation: ``conj`` returns a conjugated copy of a complex tensor
    (torch returns a view with a conjugate bit). The copy carries torch's bit all the same (in
    ``_extra["conj"]``, read through views of it), so ``is_conj`` reports what torch's does,
    ``view_as_real`` refuses it and ``resolve_conj`` gives a clone without it.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import _make
from ..autograd.graph import Op
from ..backend import _keep_dtype as keep_dtype
from ..backend import helpers_for, xp_of
from ._pointwise import SAME_DTYPE_OUT, _broadcast_error, _check_tensor, _out, _zeros_like
from .comparison import where

__all__ = ["real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj",
           "is_neg", "angle", "polar", "complex", "view_as_real", "view_as_complex"]


_NO_MASK_REPLAY = "{}: expected a complex tensor (real inputs are handled by the function)"


class Real(Op):
    """y = Re z (a view); dL/dz = grad + 0i."""

    is_view = True
    node_name = "SelectBackward0"  # torch reads it as view_as_real(z)[..., 0]

    def forward(self, z):
        if z.dtype.kind != "c":  # real() of a real tensor returns it without this op
            raise RuntimeError(_NO_MASK_REPLAY.format("real"))
        return z.real

    def backward(self, grad):
        return Complex.apply(grad, _zero_like_scalar(grad))


class Imag(Op):
    """y = Im z (a view); dL/dz = 0 + i grad."""

    is_view = True
    node_name = "SelectBackward0"  # torch reads it as view_as_real(z)[..., 1]

    def forward(self, z):
        if z.dtype.kind != "c":
            raise RuntimeError(_NO_MASK_REPLAY.format("imag"))
        return z.imag

    def backward(self, grad):
        return Complex.apply(_zero_like_scalar(grad), grad)


def _zero_like_scalar(t):
    """A 0-d zero of ``t``'s dtype on ``t``'s device (a NumPy scalar would be a CPU tensor)."""
    a = t._array
    return _make(xp_of(a).zeros((), dtype=a.dtype))


class Complex(Op):
    """z = a + ib for real a and b; dL/da = Re grad, dL/db = Im grad."""

    out_layout = "pointwise"

    def forward(self, a, b):
        xp = self.xp
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError as e:
            _broadcast_error(e, a, b)
        z = xp.empty(shape, dtype=np.result_type(a.dtype, np.complex64))
        z.real[...] = a
        z.imag[...] = b
        return z

    def backward(self, grad):
        na, nb = self.needs_input_grad
        return (real(grad) if na else None), (imag(grad) if nb else None)


class Conj(Op):
    """y = conj(z) (a copy); dL/dz = conj(grad). ``physical`` (conj_physical, node
    ConjPhysicalBackward0) lays an expanded input's result out densely."""

    physical = False

    def forward(self, z):
        if type(z) is not np.ndarray or z.flags.c_contiguous and 1 not in z.shape:
            return self.xp.conj(z)
        from .._preserve_layout import copy_preserving, empty_preserving

        if not self.physical and z.size and 0 in z.strides:
            # torch's lazy conjugate of an expanded tensor keeps its stride-0 dims (and, as
            # there, the result cannot be written): the distinct values, conjugated once
            compact = z[tuple(slice(0, 1) if st == 0 else slice(None) for st in z.strides)]
            return np.broadcast_to(np.conjugate(copy_preserving(np, compact)), z.shape)
        # torch keeps a dense input's strides, size-1 dims' included (NumPy re-derives them)
        return np.conjugate(z, out=empty_preserving(np, z, z.dtype))

    def backward(self, grad):
        return conj(grad)


class Angle(Op):
    """y = atan2(Im z, Re z) (0 or pi for real z); dL/dz = grad i z / |z|^2 (0 at 0, and 0 for
    real z)."""

    out_layout = "elementwise"

    promote = "float"
    complex_input = False

    def forward(self, z):
        xp = self.xp
        if z.dtype.kind == "c":
            self.complex_input = True
            self.save_inputs(z)
            return xp.angle(z)
        # torch: pi for negative numbers, 0 for zeros of either sign, NaN for NaN
        y = keep_dtype.where(xp, z < 0, z.dtype.type(math.pi), z.dtype.type(0))
        return keep_dtype.where(xp, xp.isnan(z), z, y)

    def backward(self, grad):
        if not self.complex_input:  # the angle of a real number is piecewise constant
            return _zeros_like(grad)
        z = self.saved_inputs()
        x, y = real(z), imag(z)
        r2 = x * x + y * y
        zero = r2 == 0
        g = grad / where(zero, 1.0, r2)  # a safe denominator keeps the masked branch finite
        return where(zero, 0.0, Complex.apply(-g * y, g * x))


class ViewAsReal(Op):
    """y[..., 0] = Re z, y[..., 1] = Im z (a view); dL/dz = view_as_complex(grad)."""

    is_view = True

    def forward(self, z):
        if z.dtype.kind != "c":  # a strided view of a mask would reach past its end
            raise RuntimeError(_NO_MASK_REPLAY.format("view_as_real"))
        part = z.real  # a float view of z's memory with z's strides
        return helpers_for(self.xp).as_strided(part, z.shape + (2,),
                                               part.strides + (part.itemsize,))

    def backward(self, grad):
        return view_as_complex(grad.contiguous())


class ViewAsComplex(Op):
    """z = x[..., 0] + i x[..., 1] (a view); dL/dx = view_as_real(grad)."""

    is_view = True

    def forward(self, x):
        if x.dtype.kind != "f":
            raise RuntimeError(_NO_MASK_REPLAY.format("view_as_complex"))
        return x.view(np.result_type(x.dtype, np.complex64))[..., 0]

    def backward(self, grad):
        return view_as_real(resolve_conj(grad))  # (a conj() result's bit is no obstacle here)


# ---------------------------------------------------------------------------------------------
# public functions


def real(input):
    """Return the real part of ``input`` as a view (``input`` itself if it is not complex).

    Example:
        >>> z = torch.tensor([1 + 2j, 3 - 1j])
        >>> torch.real(z)
        tensor([1., 3.])
    """
    _check_tensor("real", input)
    if input._array.dtype.kind != "c":
        return input
    return Real.apply(input)


def imag(input):
    """Return the imaginary part of a complex tensor as a view.

    Example:
        >>> torch.imag(torch.tensor([1 + 2j, 3 - 1j]))
        tensor([ 2., -1.])
    """
    _check_tensor("imag", input)
    if input._array.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return Imag.apply(input)


def conj(input):
    """Return the complex conjugate (``input`` itself if it is not complex).

    Note:
        The result is a new tensor, not torch's lazily conjugated view (see the module note).

    Example:
        >>> torch.conj(torch.tensor([1 + 2j]))
        tensor([1.-2.j])
    """
    _check_tensor("conj", input)
    if input._array.dtype.kind != "c":
        return input
    bit = not _conj_bit(input)
    y = Conj.apply(input)
    if bit:  # torch's result is a view with the conjugate bit set
        if y._extra is None:
            y._extra = {}
        y._extra["conj"] = True
    return y


def _conj_bit(t):
    """Whether torch's counterpart of ``t`` has its conjugate bit set: ``t`` is a ``conj()``
    result or a (complex) view of one."""
    ex = t._extra
    if ex is not None and ex.get("conj"):
        return True
    b = t._base
    return b is not None and b._extra is not None and bool(b._extra.get("conj")) and \
        t._array.dtype.kind == "c"


def conj_physical(input, *, out=None):
    """Return the complex conjugate as a new tensor (``input`` itself if it is not complex)."""
    _check_tensor("conj_physical", input)
    if input._array.dtype.kind != "c":
        return _out(input, out, "conj_physical", SAME_DTYPE_OUT)
    y = Conj.apply(input, physical=True, node_name="ConjPhysicalBackward0")
    return _out(y, out, "conj_physical", SAME_DTYPE_OUT)


def resolve_conj(input):
    """``input`` itself, or a clone (without the bit) of one whose conjugate bit is set: its
    values are conjugated already (see the module note)."""
    _check_tensor("resolve_conj", input)
    return input.clone() if _conj_bit(input) else input


def resolve_neg(input):
    """Return ``input``: numtorch never negates lazily, so there is nothing to resolve."""
    _check_tensor("resolve_neg", input)
    return input


def is_conj(input):
    """Whether torch's tensor would have its conjugate bit set (``conj()`` results of complex
    tensors and their views; see the module note)."""
    _check_tensor("is_conj", input)
    return _conj_bit(input)


def is_neg(input):
    """Return False: numtorch tensors never carry torch's lazy-negation bit."""
    _check_tensor("is_neg", input)
    return False


def angle(input, *, out=None):
    """Return the argument of each element in radians (0 or pi for real tensors).

    Example:
        >>> torch.angle(torch.tensor([1j, -1.0 + 0j]))
        tensor([1.5708, 3.1416])
    """
    _check_tensor("angle", input)
    return _out(Angle.apply(input), out, "angle")


def _check_parts(fn, a, b, names):
    _check_tensor(fn, a, names[0], 1)
    _check_tensor(fn, b, names[1], 2)
    da, db = a.dtype, b.dtype
    parts = (_dtype.float16, _dtype.float32, _dtype.float64)  # (no bfloat16 either)
    if da not in parts or db not in parts:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype._TYPE_DISPLAY[da.name]} and "
                           f"{_dtype._TYPE_DISPLAY[db.name]}")
    if da is not db:
        raise RuntimeError(f"Expected object of scalar type {_dtype._TYPE_DISPLAY[da.name]} but "
                           f"got scalar type {_dtype._TYPE_DISPLAY[db.name]} for second "
                           f"argument")
    if da is _dtype.float16 and fn == "polar":
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")  # torch's too
    if da is _dtype.float16:
        raise RuntimeError(f"{fn}: numtorch has no complex32 (ComplexHalf) dtype for float16 "
                           f"parts; convert them to float32 first")


def complex(real, imag, *, out=None):  # noqa: A001 - torch's name
    """Build a complex tensor from its real and imaginary parts (broadcast together).

    Args:
        real (Tensor): the real parts (float32 or float64).
        imag (Tensor): the imaginary parts, of the same dtype.
        out (Tensor, optional): tensor to write the result into.

    Example:
        >>> torch.complex(torch.tensor([1., 2.]), torch.tensor([3., -4.]))
        tensor([1.+3.j, 2.-4.j])
    """
    _check_parts("complex", real, imag, ("real", "imag"))
    return _out(Complex.apply(real, imag), out, "complex")


def polar(abs, angle, *, out=None):  # noqa: A002 - torch's names
    """Build a complex tensor ``abs * (cos(angle) + i sin(angle))`` from polar coordinates.

    Example:
        >>> torch.polar(torch.tensor([2.]), torch.tensor([0.]))
        tensor([2.+0.j])
    """
    _check_parts("polar", abs, angle, ("abs", "angle"))
    z = Complex.apply(abs * angle.cos(), abs * angle.sin(), node_name="PolarBackward0")
    return _out(z, out, "polar")


def view_as_real(input):
    """View a complex tensor as a real one with a trailing dimension of size 2 (real, imag).

    Example:
        >>> torch.view_as_real(torch.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    _check_tensor("view_as_real", input)
    if input._array.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if _conj_bit(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To "
                           "resolve the conjugate tensor so you can view it as real, use "
                           "self.resolve_conj(); however, be warned that the resulting tensor "
                           "will NOT alias the original.")
    return ViewAsReal.apply(input)


def view_as_complex(input):
    """View a real tensor whose last dimension holds (real, imag) pairs as a complex tensor.

    The last dimension must have size 2 and stride 1, the other strides and the storage offset
    must be even, as in torch.

    Example:
        >>> torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([1.+2.j, 3.+4.j])
    """
    _check_tensor("view_as_complex", input)
    dt = input.dtype
    if dt is not _dtype.float32 and dt is not _dtype.float64:
        if dt is _dtype.float16:
            raise RuntimeError("view_as_complex: numtorch has no complex32 (ComplexHalf) dtype "
                               "to view a float16 tensor as")
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: "
                           f"{_dtype._TYPE_DISPLAY[dt.name]}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return ViewAsComplex.apply(input)
