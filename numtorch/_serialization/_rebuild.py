"""The functions a checkpoint's pickle calls to rebuild tensors, and tensor attribute state.

A pickle names torch's rebuild functions (``torch._utils._rebuild_tensor_v2`` and friends);
these are numtorch's versions. Every size, stride and offset comes from the file, so each is
checked with Python integers against the storage before any array is made, and a tensor's
pickled Python attributes are restored as torch restores them: through the public attribute
(with its checks) for the attributes torch lets a pickle set, into the instance ``__dict__``
for plain attributes, and never into numtorch's internal slots.
"""

import threading
import warnings

import numpy as np

from .. import _dtype
from .. import backend
from .._tensor import Tensor, _new_like_class
from ..storage import TypedStorage, UntypedStorage
from ._common import load_error

_INT64_MAX = (1 << 63) - 1

# torch's tensor attributes that cannot be assigned (a pickle setting one fails in torch too)
_TORCH_READ_ONLY = frozenset({
    "T", "H", "mT", "mH", "_cdata", "_version", "grad_fn", "is_leaf", "retains_grad", "_base",
    "output_nr", "name", "shape", "dtype", "layout", "device", "ndim", "nbytes", "itemsize",
    "is_cuda", "is_cpu", "is_mtia", "is_xla", "is_xpu", "is_ipu", "is_sparse", "is_sparse_csr",
    "is_mkldnn", "is_mps", "is_maia", "is_vulkan", "is_quantized", "is_meta", "is_nested",
    "_python_dispatch", "_has_symbolic_sizes_strides", "__weakref__",
    "__cuda_array_interface__",
})


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _set_requires_grad(t, value):
    if type(value) is not bool:
        raise load_error(RuntimeError, "requires_grad must be a bool")
    if value and t.dtype._category < _dtype._FLOAT:
        raise load_error(RuntimeError, "only Tensors of floating point and complex dtype can "
                                       "require gradients")
    t.requires_grad_(value)


def _set_data(t, value):
    if not isinstance(value, Tensor):
        raise load_error(TypeError, f"Variable data has to be a tensor, but got "
                                    f"{type(value).__name__}")
    t.data = value


def _set_grad(t, value):
    if value is not None and not isinstance(value, Tensor):
        raise load_error(TypeError, f"assigned grad expected to be a Tensor or None but got "
                                    f"grad of type {type(value).__name__}")
    try:
        t.grad = value
    except RuntimeError as e:
        raise load_error(RuntimeError, str(e)) from None


def _set_grad_fn(t, value):
    if value is not None:
        raise load_error(RuntimeError, "_grad_fn can be only set to None")


def _set_volatile(t, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=4)


def _set_hooks(name):
    def setter(t, value):
        if value:  # torch keeps them as the tensor's hooks; numtorch keeps them as attributes
            t.__dict__[name] = value
    return setter


def _set_class(t, value):
    if not (isinstance(value, type) and issubclass(value, Tensor)):
        raise load_error(TypeError, f"__class__ must be set to a Tensor subclass, not "
                                    f"{value!r}")
    t.__class__ = value


def _set_dict(t, value):
    if not isinstance(value, dict):
        raise load_error(TypeError, f"__dict__ must be set to a dictionary, not a "
                                    f"'{type(value).__name__}'")
    t.__dict__.clear()
    for k, v in value.items():
        _set_attr(t, k, v)


def _set_part(name):
    def setter(t, value):
        setattr(t, name, value)
    return setter


# the attributes torch lets a pickle assign, each through numtorch's public equivalent
_SETTERS = {
    "requires_grad": _set_requires_grad, "data": _set_data, "grad": _set_grad,
    "_grad": _set_grad, "_grad_fn": _set_grad_fn, "volatile": _set_volatile,
    "_backward_hooks": _set_hooks("_backward_hooks"),
    "_post_accumulate_grad_hooks": _set_hooks("_post_accumulate_grad_hooks"),
    "__class__": _set_class, "__dict__": _set_dict, "real": _set_part("real"),
    "imag": _set_part("imag"),
}


def _defined_by_numtorch(cls, name):
    """Whether ``name`` is a data descriptor (a slot or property) of numtorch's or object's."""
    for klass in cls.__mro__:
        if name in vars(klass):
            attr = vars(klass)[name]
            numtorch_owned = klass is object or klass.__module__.startswith("numtorch")
            return numtorch_owned and (hasattr(attr, "__set__") or hasattr(attr, "__delete__"))
    return False


def _set_attr(t, name, value):
    if not isinstance(name, str):
        raise load_error(TypeError, f"attribute name must be string, not "
                                    f"'{type(name).__name__}'")
    setter = _SETTERS.get(name)
    if setter is not None:
        setter(t, value)
    elif name in _TORCH_READ_ONLY:
        raise load_error(AttributeError, f"attribute '{name}' of 'Tensor' objects is not "
                                         f"writable")
    elif _defined_by_numtorch(type(t), name) or type(t).__module__.startswith("numtorch"):
        # a plain Python attribute in torch; numtorch keeps it in __dict__, where it cannot
        # reach numtorch's slots and properties of the same name (and is saved again)
        t.__dict__[name] = value
    else:
        setattr(t, name, value)  # a user subclass: its own properties and __setattr__ run


def _set_type_name(v):
    """How torch's argument parser names the type of a ``set_`` argument."""
    if isinstance(v, (TypedStorage, UntypedStorage)):
        return "torch.storage.TypedStorage"
    if isinstance(v, Tensor):
        return "Tensor"
    kind = type(v)
    return kind.__name__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


def legacy_set(t, state):
    """A weights-only BUILD of a plain tensor, as torch does it: ``t.set_(*state)`` (the
    legacy state: a storage or tensor, then optionally offset, size and stride); a dict of
    attributes or anything else is torch's TypeError."""
    try:
        args = tuple(state)
    except TypeError:
        raise load_error(TypeError, f"Tensor.set_() argument after * must be an iterable, not "
                                    f"{type(state).__name__}") from None
    ok = len(args) in (0, 1, 3, 4) and (not args or isinstance(args[0], (TypedStorage, UntypedStorage, Tensor)))
    if ok and len(args) >= 3:
        offset, size, stride = args[1], args[2], args[3] if len(args) == 4 else None
        ok = _is_int(offset) and _int_sequence(size) and (stride is None
                                                           or _int_sequence(stride))
        if ok and not all(_is_int(v) for v in (*size, *(stride or ()))):
            ok = False
    if not ok:
        got = ", ".join(_set_type_name(v) for v in args)
        raise load_error(TypeError, f"set_() received an invalid combination of arguments - "
                                    f"got ({got}), but expected one of:\n"
                                    + _SET_SIGNATURES.format(why=""))
    if not args:
        t.set_()
        return t
    src = args[0]
    if isinstance(src, Tensor):
        if len(args) == 1:
            t.set_(src)
            return t
        src = src.untyped_storage()
    try:
        if len(args) == 1:
            t.set_(src)
        else:
            _fixed_storage_holds(t, src, args)  # (a storage read from a file cannot grow)
            t.set_(src, int(args[1]), tuple(int(v) for v in args[2]),
                   None if len(args) == 3 else tuple(int(v) for v in args[3]))
    except RuntimeError as e:
        raise load_error(RuntimeError, str(e)) from None
    return t


def _fixed_storage_holds(t, src, args):
    """torch's refusal of a legacy set_ geometry past the end of a loaded storage (set_ grows
    a resizable storage; one read from a file is not)."""
    size = tuple(int(v) for v in args[2])
    offset = int(args[1])
    if len(args) == 3 or args[3] is None:
        stride, acc = [], 1
        for s in reversed(size):
            stride.insert(0, acc)
            acc *= s
    else:
        stride = [int(v) for v in args[3]]
    if len(size) != len(stride) or offset < 0 or not all(size) or min(stride, default=0) < 0:
        return  # (set_ words these refusals)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride))
    if (last + 1) * t.element_size() > src.nbytes():
        raise RuntimeError("Trying to resize storage that is not resizable")


def parameter_setstate(p, state):
    """A weights-only BUILD of a Parameter, as torch does it (Tensor.__setstate__): a legacy
    4-tuple is set_'s arguments, a 5-tuple a legacy Variable's state, else the triple
    (requires_grad, unused, backward hooks)."""
    if not p.is_leaf:
        raise load_error(RuntimeError, "__setstate__ can be only called on leaf Tensors")
    try:
        n = len(state)
    except TypeError:
        raise load_error(TypeError, f"object of type '{type(state).__name__}' has no "
                                    f"len()") from None
    if n == 4:
        return legacy_set(p, state)
    if n == 5:
        _set_data(p, state[0])
        state = (state[3], state[4], state[2])
    items = list(state)
    if len(items) != 3:
        raise load_error(ValueError, f"not enough values to unpack (expected 3, got "
                                     f"{len(items)})" if len(items) < 3 else
                                     "too many values to unpack (expected 3)")
    requires_grad, _, hooks = items
    _set_requires_grad(p, requires_grad)
    _set_hooks("_backward_hooks")(p, hooks)
    return p


def restore_state(t, state):
    """Set a rebuilt tensor's pickled attribute state (a dict, or a ``(dict, slots)`` pair)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise load_error(RuntimeError, f"Invalid serialized state: {state!r:.200}")
        parts = state
    else:
        parts = (state,)
    for part in parts:
        if not part:
            continue
        if not isinstance(part, dict):
            raise load_error(RuntimeError, f"load: a tensor's pickled state must be a dict "
                                           f"of attributes, got {type(part).__name__}")
        for k, v in part.items():
            _set_attr(t, k, v)
    return t


def _int_sequence(v):
    """Whether torch's argument parser takes ``v`` for a ``tuple of ints`` (it looks at the
    first element only; the others fail later, when unpacked)."""
    return isinstance(v, (tuple, list)) and (not v or _is_int(v[0]))


def _contiguous_strides(size):
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= n if _is_int(n) else 1
    return strides[::-1]


_SET_SIGNATURES = (" * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, "
                   "tuple of ints size, tuple of ints stride = None)\n{why} * (Tensor source)\n"
                   " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints "
                   "stride = None)\n{why}")


def _set_arguments_error(size, stride, offset):
    """torch's TypeError for a rebuilt tensor's geometry its ``set_`` cannot take: the
    argument parser's text when no signature matches, else the first element of ``size`` or
    ``stride`` that is no int."""
    if _is_int(offset) and _int_sequence(size) and (stride is None or _int_sequence(stride)):
        for name, seq in (("size", size), ("stride", stride or ())):
            for i, v in enumerate(seq):
                if not _is_int(v):
                    return (f"set_(): argument '{name}' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(v).__name__}\"")
    args = (offset, size, stride)
    got = ", ".join(["torch.storage.UntypedStorage"] + [type(v).__name__ for v in args])
    marked = ", ".join(["!torch.storage.UntypedStorage!"] + [_marked(v) for v in args])
    why = f"      didn't match because some of the arguments have invalid types: ({marked})\n"
    return (f"set_() received an invalid combination of arguments - got ({got}), but expected "
            f"one of:\n" + _SET_SIGNATURES.format(why=why))


def _marked(v):
    """An argument as torch's parser describes it, between ``!`` when it does not fit."""
    if _is_int(v):
        return "int"
    if isinstance(v, (tuple, list)):
        names = ", ".join(type(x).__name__ for x in v)
        if isinstance(v, tuple):
            return f"!tuple of ({names}{',' if len(v) == 1 else ''})!"
        return f"!list of [{names}]!"
    return f"!{type(v).__name__}!"


def _check_geometry(size, stride, offset, numel_available, itemsize):
    """Check a tensor's size/stride/offset from the file against its storage (Python ints)."""
    if stride is None:  # torch's set_ takes no stride as the contiguous one
        stride = _contiguous_strides(size) if _int_sequence(size) else None
    values = (*size, *stride, offset) if _int_sequence(size) and _int_sequence(stride) else ()
    if not values or not all(type(v) is int for v in values) and \
            not all(_is_int(v) for v in values):
        raise load_error(TypeError, _set_arguments_error(size, stride, offset))
    shape, strides, offset = [int(s) for s in size], [int(s) for s in stride], int(offset)
    if len(shape) != len(strides):
        raise load_error(RuntimeError, f"load: tensor size {shape} and stride {strides} "
                                       f"differ in length (corrupt checkpoint)")
    # torch's own refusals of these geometries (its texts, as a storage's set_ words them)
    numel = 1
    for s in shape:
        numel *= s
    if any(s < 0 for s in shape) or numel > _INT64_MAX:
        raise load_error(RuntimeError, "numel: integer multiplication overflow")
    if any(s < 0 for s in strides):
        raise load_error(RuntimeError, f"Storage size calculation overflowed with sizes="
                                       f"{shape} and strides={strides}")
    if offset < 0:
        raise load_error(RuntimeError, f"Tensor: invalid storage offset {offset}")
    if numel:
        last = offset
        for n, s in zip(shape, strides):
            last += (n - 1) * s
        if (last + 1) * itemsize > _INT64_MAX:  # the bytes the view spans, as torch counts
            raise load_error(RuntimeError, f"Storage size calculation overflowed with sizes="
                                           f"{shape} and strides={strides}")
        if last >= numel_available:  # the storage would have to grow: files' cannot
            raise load_error(RuntimeError, "Trying to resize storage that is not resizable")
    if numel * itemsize > _INT64_MAX:  # overlapping strides: more bytes than NumPy can view
        raise load_error(RuntimeError, f"Storage size calculation overflowed with sizes="
                                       f"{shape} and strides={strides}")
    return tuple(shape), tuple(strides), offset, numel


class FileStorage(TypedStorage):
    """A storage read from a checkpoint, as its pickle hands it on: to the rebuild functions
    (which place their tensors on its ``placed`` device), or as a value of its own when a
    storage itself was saved (torch gives back a TypedStorage then, too)."""

    def __init__(self, *args, wrap=None, dtype=None, device=None, placed=None):
        if wrap is None or args:  # (made as a plain storage, by clone() and the like)
            super().__init__(*args, wrap=wrap, dtype=dtype)
        else:  # quantized storages are tagged structured arrays: a byte storage then
            self._array = wrap
            self._dtype = _dtype._FROM_NP.get(wrap.dtype, _dtype.uint8)
        self._placed = placed


FileStorage.__name__ = FileStorage.__qualname__ = "TypedStorage"  # torch's, as shown


def _storage_parts(storage, caller):
    if isinstance(storage, FileStorage) and storage._placed is not None:
        return storage._array, storage._placed
    if not (isinstance(storage, tuple) and len(storage) == 2
            and isinstance(storage[0], np.ndarray)):
        raise load_error(RuntimeError, f"load: {caller} expects a storage from the checkpoint "
                                       f"as its first argument, got {type(storage).__name__}")
    return storage


def _tensor_from(array, dev, size, stride, offset, caller):
    dt = array.dtype
    shape, strides, offset, numel = _check_geometry(size, stride, offset, array.size,
                                                    dt.itemsize)
    # an empty tensor keeps the file's strides and offset too (torch reports them), on its
    # storage when the offset lies within it
    buffer = array if numel or offset <= array.size else np.empty(0, dtype=dt)
    try:
        arr = np.ndarray(shape, dtype=dt, buffer=buffer,
                         offset=offset * dt.itemsize if buffer is array else 0,
                         strides=tuple(s * dt.itemsize for s in strides))
    except (ValueError, OverflowError):  # an empty tensor's stride past NumPy's range
        arr = np.empty(shape, dtype=dt)
    if dev.type != "cpu":
        arr = backend.to_device(arr, dev)
    return _new_like_class(Tensor, arr)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    array, dev = _storage_parts(storage, "_rebuild_tensor_v2")
    t = _tensor_from(array, dev, size, stride, storage_offset, "_rebuild_tensor_v2")
    if metadata:
        t = _apply_lazy_bits(t, metadata)
    if requires_grad:
        _set_requires_grad(t, requires_grad)
    if backward_hooks:
        _set_hooks("_backward_hooks")(t, backward_hooks)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    array, dev = _storage_parts(storage, "_rebuild_tensor_v3")
    if not isinstance(dtype, _dtype.dtype):
        raise load_error(RuntimeError, f"load: _rebuild_tensor_v3 expects a dtype, got "
                                       f"{type(dtype).__name__}")
    want = np.dtype(dtype.np)
    if array.dtype != want:  # the storage's bytes read as ``dtype`` (any storage, as torch)
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        array = raw[:raw.size - raw.size % want.itemsize].view(want)
    return _rebuild_tensor_v2((array, dev), storage_offset, size, stride, requires_grad,
                              backward_hooks, metadata)


def _apply_lazy_bits(t, metadata):
    """torch saves a lazily conjugated or negated view as its unresolved storage plus a
    ``conj``/``neg`` flag; numtorch resolves the flag into the values (a copy: the loaded
    tensor no longer shares memory with the file's other views of that storage)."""
    if not isinstance(metadata, dict):
        return t
    arr = t._array
    # (np.asarray: NumPy's ufuncs give a 0-d array back as a scalar)
    if metadata.get("neg"):
        arr = np.asarray(-arr)
    conj = bool(metadata.get("conj")) and arr.dtype.kind == "c"
    if conj:
        arr = np.asarray(arr.conj())
    if arr is t._array:
        return t
    out = _new_like_class(Tensor, arr)
    if conj:  # torch's loaded tensor reports its conjugate bit
        out._extra = {"conj": True}
    return out


_LOADING = threading.local()  # the map_location of the load running in this thread


def _restore_location(device):
    """Where a tensor saved on ``device`` goes under the running load's map_location (for
    the rebuild functions that name a device rather than a storage, as torch's
    ``_get_restore_location``)."""
    ml = getattr(_LOADING, "map_location", None)
    if ml is None:
        return device
    if isinstance(ml, dict):
        return ml.get(device, device)
    if isinstance(ml, str) or type(ml).__name__ == "device":
        return ml
    raise load_error(RuntimeError, "Callable map_location not supported with "
                                   "_rebuild_wrapper_subclass or "
                                   "_rebuild_device_tensor_from_numpy")


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    """A tensor of a device with no storage of its own (xla, maia, mtia: torch saves its
    values as a CPU tensor), placed where map_location says."""
    if not isinstance(data, Tensor):
        raise load_error(AttributeError, f"'{type(data).__name__}' object has no attribute "
                                         f"'to'")
    t = data.to(dtype=dtype, device=_restore_location(device))
    _set_requires_grad(t, requires_grad)
    return t


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    """A meta tensor (shape, strides and dtype, no data), as torch saves them."""
    import numtorch

    if isinstance(size, (tuple, list)) and all(_is_int(s) and s >= 0 for s in size):
        numel = 1
        for s in size:
            numel *= s
        if numel > _INT64_MAX:  # torch's words
            raise load_error(RuntimeError, "numel: integer multiplication overflow")
    try:
        return numtorch.empty_strided(size, stride, dtype=dtype, device="meta",
                                      requires_grad=requires_grad)
    except (OverflowError, ValueError, MemoryError) as e:
        raise load_error(RuntimeError, f"load: cannot build a meta tensor of size "
                                       f"{size!r:.80} and stride {stride!r:.80} "
                                       f"({type(e).__name__})") from None


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    from ..nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise load_error(RuntimeError, f"load: _rebuild_parameter expects a tensor, got "
                                       f"{type(data).__name__}")
    if type(requires_grad) is not bool:
        raise load_error(RuntimeError, "requires_grad must be a bool")
    if requires_grad and data.dtype._category < _dtype._FLOAT:
        raise load_error(RuntimeError, "Only Tensors of floating point and complex dtype can "
                                       "require gradients")
    p = Parameter(data, requires_grad)
    if backward_hooks:
        _set_hooks("_backward_hooks")(p, backward_hooks)
    return p


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return restore_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    if not isinstance(args, tuple):
        raise load_error(RuntimeError, f"load: _rebuild_from_type_v2 expects an argument "
                                       f"tuple, got {type(args).__name__}")
    if func is _rebuild_njt or new_type is NJT_CLASS:
        if func is not _rebuild_njt or new_type is not NJT_CLASS:
            raise load_error(RuntimeError, "load: torch's NestedTensor class is rebuilt only "
                                           "by _rebuild_njt")
        t = func(*args)
        # torch's own NestedTensor fields (already given to the constructor) are not state
        if isinstance(state, dict):
            state = {k: v for k, v in state.items() if k not in _NJT_FIELDS}
        return restore_state(t, state)
    t = func(*args)
    if not isinstance(t, Tensor):
        raise load_error(RuntimeError, f"load: _rebuild_from_type_v2 expects its function to "
                                       f"make a tensor, got {type(t).__name__}")
    if type(t) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise load_error(RuntimeError, f"load: cannot rebuild a tensor as {new_type!r:.100}"
                                           f", which is not a Tensor subclass")
        sub = _new_like_class(new_type, t._array)
        sub._requires_grad, sub._vc = t._requires_grad, t._vc
        t = sub
    own = getattr(type(t), "__setstate__", None)
    if own is not None and not type(t).__module__.startswith("numtorch"):
        t.__setstate__(state)  # a user subclass restores its own state
        return t
    return restore_state(t, state)


def _storage_class(name):
    def _unused(*args):
        raise load_error(RuntimeError, f"load: constructing torch.{name} directly is not "
                                       f"supported")

    _unused.storage_name = name
    _unused.__qualname__ = _unused.__name__ = name
    return _unused


# -- nested tensors ---------------------------------------------------------------------------
class _NJTClass:
    """Stands for ``torch.nested._internal.nested_tensor.NestedTensor`` in a checkpoint: the
    class ``_rebuild_from_type_v2`` is given beside ``_rebuild_njt`` (whose result is already
    numtorch's jagged nested tensor)."""

    __slots__ = ()

    def __repr__(self):
        return "torch.nested._internal.nested_tensor.NestedTensor"


NJT_CLASS = _NJTClass()
_NJT_FIELDS = frozenset({"_ragged_idx", "_values", "_offsets", "_lengths", "_metadata_cache",
                         "_dynamo_propagated_dynamic_indices", "_size", "_strides"})


def _int64_table(t, name, ndim):
    if not isinstance(t, Tensor) or t.dim() != ndim:
        raise load_error(RuntimeError, f"load: a nested tensor's {name} must be a {ndim}-d "
                                       f"int64 tensor")
    if t.dtype != _dtype.int64:
        found = _dtype._TYPE_DISPLAY.get(t.dtype.name, t.dtype.name)
        raise load_error(RuntimeError, f"expected scalar type Long but found {found}")
    return [[int(v) for v in row] for row in t.detach().numpy().reshape(len(t), -1)]


def _rebuild_nested_tensor(buffer, sizes, strides, storage_offsets):
    """``torch._utils._rebuild_nested_tensor``: a strided nested tensor whose component ``i``
    is ``buffer.as_strided(sizes[i], strides[i], storage_offsets[i])`` (copied into numtorch's
    component-after-component buffer). Each component's geometry is checked against the
    buffer first, with torch's messages."""
    from .. import nested

    if not isinstance(buffer, Tensor) or buffer.dim() != 1:
        raise load_error(RuntimeError, "load: a nested tensor's buffer must be a 1-d tensor")
    size = _int64_table(sizes, "sizes", 2)
    stride = _int64_table(strides, "strides", 2)
    start = [row[0] for row in _int64_table(storage_offsets, "storage offsets", 1)]
    if len(stride) != len(size) or len(start) != len(size) or \
            any(len(a) != len(b) for a, b in zip(size, stride)):
        raise load_error(RuntimeError, "load: a nested tensor's sizes, strides and storage "
                                       "offsets do not match in shape")
    comps = []
    for sz, st, off in zip(size, stride, start):
        if off >= 0 and all(d >= 0 for d in sz + st) and 0 not in sz:
            last = off + sum((n - 1) * s for n, s in zip(sz, st))
            if last >= buffer.numel() and (last + 1) * buffer.element_size() <= _INT64_MAX:
                item = buffer.element_size()
                raise load_error(RuntimeError, f"setStorage: sizes {sz}, strides {st}, storage "
                                               f"offset {off}, and itemsize {item} requiring a "
                                               f"storage size of {(last + 1) * item} are out "
                                               f"of bounds for storage of size "
                                               f"{buffer.numel() * item}")
        _check_geometry(sz, st, off, buffer.numel(), buffer.element_size())
        comps.append(buffer.as_strided(tuple(sz), tuple(st), off))
    with warnings.catch_warnings():  # (torch's load does not warn the prototype warning)
        warnings.simplefilter("ignore", UserWarning)
        if buffer.requires_grad:  # as in torch, a view of the buffer: no leaf, grads flow
            return nested.as_nested_tensor(comps)
        return nested.nested_tensor(comps, dtype=buffer.dtype)


def _rebuild_njt(constructor_kwargs):
    """``torch.nested._internal.nested_tensor._rebuild_njt``: a jagged nested tensor from its
    values, offsets and ragged dimension (1, or 2 after a transpose)."""
    from .. import nested

    kw = constructor_kwargs
    if not isinstance(kw, dict) or not isinstance(kw.get("values"), Tensor):
        raise load_error(RuntimeError, "load: _rebuild_njt expects a dict with the values "
                                       "tensor")
    values = kw["values"]
    off = np.array([row[0] for row in _int64_table(kw.get("offsets"), "offsets", 1)],
                   dtype=np.int64)
    ridx = kw.get("_ragged_idx", 1)
    if kw.get("lengths") is not None:
        raise load_error(RuntimeError, "numtorch cannot load a jagged nested tensor with "
                                       "lengths (a non-contiguous one)")
    if ridx not in (1, 2) or values.dim() < ridx:
        raise load_error(RuntimeError, f"load: numtorch loads jagged nested tensors whose "
                                       f"ragged dimension is 1 or 2, not {ridx!r:.40}")
    if ridx == 2:
        values = values.movedim(1, 0)
    if len(off) < 1 or off[0] != 0 or (np.diff(off) < 0).any() or off[-1] != values.shape[0]:
        raise load_error(RuntimeError, f"load: a jagged nested tensor's offsets must rise from "
                                       f"0 to the {values.shape[0]} rows of its values")
    cache = kw.get("_metadata_cache") or {}
    top = cache.get("max_seqlen") if isinstance(cache, dict) else None
    max_seqlen = top.shape[0] if isinstance(top, Tensor) and top.dim() == 2 else None
    nt = nested.nested_tensor_from_jagged(values.detach(), kw["offsets"],
                                          max_seqlen=max_seqlen)
    if kw.get("requires_grad"):
        nt.requires_grad_(True)
    return nt.transpose(1, 2) if ridx == 2 else nt


def nested_parts(nt):
    """What torch pickles a nested tensor as: ``("strided", (buffer, sizes, strides,
    offsets))`` for ``_rebuild_nested_tensor`` (numtorch's buffer is component after
    component, so the strides are contiguous ones) or ``("jagged", constructor_kwargs)`` for
    ``_rebuild_njt``."""
    from .._tensor import _make
    from ..nested._nested_tensor import starts_of

    sizes = np.asarray(nt._nsizes, dtype=np.int64)
    if nt.layout is not _layout_strided():
        if nt._ridx not in (1, 2):
            raise RuntimeError(f"numtorch cannot save a jagged nested tensor whose ragged "
                               f"dimension is {nt._ridx} (only 1, or 2 after a transpose)")
        return "jagged", {"values": nt.values().detach(), "offsets": nt._noffsets,
                          "lengths": None, "_ragged_idx": int(nt._ridx),
                          "_metadata_cache": {}, "requires_grad": bool(nt.requires_grad)}
    strides = np.ones_like(sizes)
    if sizes.shape[1] > 1:  # row-major strides of each component
        strides[:, :-1] = np.cumprod(sizes[:, :0:-1], axis=1)[:, ::-1]
    buffer = _make(nt._array.reshape(-1))
    buffer._requires_grad = bool(nt.requires_grad)
    return "strided", (buffer, _make(sizes), _make(strides), _make(starts_of(sizes)[:-1]))


def nested_reduce(nt):
    """``NestedTensor.__reduce_ex__``: the rebuild call plain pickling (multiprocessing,
    ``copy``) uses, as torch's."""
    kind, parts = nested_parts(nt)
    if kind == "strided":
        return _rebuild_nested_tensor, parts
    return _rebuild_njt, (parts,)


def _layout_strided():
    from .._layout import strided

    return strided
