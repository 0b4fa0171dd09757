"""Unpicklers for checkpoints: the weights-only interpreter, the full one, and allow-lists.

``load(weights_only=True)`` must never run code from the file or change anything but the
objects it builds. Python's unpickler cannot promise that even with a restricted
``find_class`` (its BUILD, SETITEMS and APPEND opcodes act on whatever object is on the stack,
a class included), so weights-only loading runs the pickle through :class:`WeightsOnly`, an
interpreter of the pickle opcodes written here that

- resolves a global only from a fixed table (tensors, storages, dtypes, containers) or the
  user's allow-list, compared by torch's names (``torch.nn.modules.linear.Linear`` matches
  ``numtorch.nn.Linear``);
- calls (REDUCE, NEWOBJ) only allowed callables, and reports their failures as load errors;
- applies BUILD only to an *instance* of an allowed type (never a class, module or function),
  with the state that type has: tensor attributes through :func:`restore_state`, an
  OrderedDict's attributes, an allowed class's own ``__setstate__`` or instance ``__dict__``;
- appends only to lists, sets items only in dicts, OrderedDicts and Counters;
- reads no string or bytes longer than what is left of the pickle.

With ``weights_only=False`` Python's unpickler is used, mapping torch's names to numtorch's.
"""

import _codecs
import _compat_pickle
import codecs
import collections
import io
import pickle
import struct
import types

from .. import _dtype
from .._device import device as _device_cls
from .._size import Size
from .._tensor import Tensor
from . import _names
from . import _rebuild
from ._common import _STORAGE_DTYPE, is_load_error, load_error

_SAFE_GLOBALS = []
_BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})
_BIG_READ = 1 << 16  # reads longer than this are checked against the bytes left first
# the opcodes torch's weights-only unpickler runs (found by feeding it each byte): it refuses
# every other one, protocol 4's FRAME included, with "Unsupported operand <byte>"
_TORCH_OPS = frozenset(b"()./GJKMNQRUX]abcehjqrstu}" + bytes([128, 129, 133, 134, 135, 136,
                                                               137, 138, 143]))


class PickleFault(pickle.UnpicklingError):
    """A malformed pickle of a kind torch reports in its own words (``_read`` words it for
    weights-only loading or as Python's pickle does): ``kind`` is "opcode" (``value`` the
    byte), "eof" (no opcode left), "memo" (``value`` the missing index), "underflow",
    "mark" (STOP in an empty MARK) or "truncated" (``value`` the bytes an operand needed)."""

    def __init__(self, message, kind, value=None):
        super().__init__(message)
        self.kind, self.value = kind, value


# -- the allow-lists ----------------------------------------------------------------------
def add_safe_globals(safe_globals):
    """Allow these classes/functions in ``load(..., weights_only=True)``.

    A class is matched by the name a pickle uses for it, numtorch's or torch's: allowing
    ``numtorch.nn.Linear`` admits ``torch.nn.modules.linear.Linear`` written by real torch.

    Args:
        safe_globals (list): objects, or ``(object, "module.name")`` pairs naming the global
            as it appears in the pickle.
    """
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    """The user-added globals allowed in weights-only loading (a list)."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    """Forget every global added with :func:`add_safe_globals`."""
    _SAFE_GLOBALS.clear()


class safe_globals:  # noqa: N801 - torch's name
    """Context manager allowing extra globals in weights-only loading inside a ``with``.

    Args:
        safe_globals (list): as for :func:`add_safe_globals`.
    """

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)
        self._saved = None

    def __enter__(self):
        self._saved = list(_SAFE_GLOBALS)
        _SAFE_GLOBALS.extend(self.safe_globals)
        return self

    def __exit__(self, *exc):
        _SAFE_GLOBALS[:] = self._saved
        return False


def _user_allowed():
    """``{"module.name": object}`` for the user's allow-list, under every name it may have."""
    out = {}
    for entry in _SAFE_GLOBALS:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise load_error(ValueError, f"Expected tuple of length 2 (global, str of "
                                             f"callable full path), but got tuple of length: "
                                             f"{len(entry)}")
            if type(entry[1]) is not str:
                raise load_error(TypeError, f"Expected second item in tuple to be str of "
                                            f"callable full path, but got: {type(entry[1])}")
            out[entry[1]] = entry[0]
            continue
        for name in _names.names_of(entry):
            out.setdefault(name, entry)
    return out


_DEFAULT = None


def _get_layout(name):
    """``torch.serialization._get_layout``: a layout from its printed name ("torch.sparse_coo")."""
    from .. import _layout

    layouts = {repr(v): v for v in vars(_layout).values() if isinstance(v, _layout.layout)}
    if name not in layouts:
        raise RuntimeError(f"Unknown layout {name}")
    return layouts[name]


def _default_allowed():
    """The globals every checkpoint may use, by torch's names (built on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        from ..nn.parameter import Parameter

        table = {
            "collections.OrderedDict": collections.OrderedDict,
            "collections.Counter": collections.Counter,
            "torch.nn.parameter.Parameter": Parameter,
            "torch.Size": Size, "torch.Tensor": Tensor, "torch.device": _device_cls,
            "_codecs.encode": _codecs.encode, "builtins.bytearray": bytearray,
            "builtins.set": set, "builtins.complex": complex,
            "torch._tensor._rebuild_from_type_v2": _rebuild._rebuild_from_type_v2,
        }
        for fn in (_rebuild._rebuild_tensor, _rebuild._rebuild_tensor_v2,
                   _rebuild._rebuild_tensor_v3, _rebuild._rebuild_parameter,
                   _rebuild._rebuild_parameter_with_state,
                   _rebuild._rebuild_meta_tensor_no_storage,
                   _rebuild._rebuild_device_tensor_from_cpu_tensor):
            table[f"torch._utils.{fn.__name__}"] = fn
        from .. import _quantized_scheme as _qs
        from .._quantized_serial import _rebuild_qtensor

        table["torch._utils._rebuild_qtensor"] = _rebuild_qtensor
        from ..ops.sparse_ops import _rebuild_sparse_tensor

        table["torch._utils._rebuild_sparse_tensor"] = _rebuild_sparse_tensor
        table["torch.nested._internal.nested_tensor._rebuild_njt"] = _rebuild._rebuild_njt
        table["torch.nested._internal.nested_tensor.NestedTensor"] = _rebuild.NJT_CLASS
        table["torch._utils._rebuild_nested_tensor"] = _rebuild._rebuild_nested_tensor
        from .._dynamo.decorators import _DimRange

        table["torch._dynamo.decorators._DimRange"] = _DimRange  # in NJTs' seqlen metadata
        table["torch.serialization._get_layout"] = _get_layout
        for name in _qs.__all__[1:]:  # the qschemes (torch.per_tensor_affine, ...)
            table[f"torch.{name}"] = getattr(_qs, name)
        for name, dt in _dtype._BY_NAME.items():
            if dt.name == name or str(dt) == f"torch.{name}":
                table[f"torch.{name}"] = dt
        for name, cls in STORAGE_CLASSES.items():
            table[f"torch.{name}"] = cls
            table[f"torch.storage.{name}"] = cls
            if name in _CUDA_STORAGES:  # checkpoints of CUDA tensors from torch < 1.6
                table[f"torch.cuda.{name}"] = cls
        table.update(_legacy_tensor_classes())
        _DEFAULT = table
    return _DEFAULT


def _dim_range():
    """The one allowed class of torch's defaults that BUILD sets the state of (the frozen
    dataclass ``torch._dynamo.decorators._DimRange``)."""
    return _default_allowed()["torch._dynamo.decorators._DimRange"]


def _legacy_tensor_classes():
    """``torch.FloatTensor`` and the other legacy tensor types numtorch has."""
    import numtorch

    return {f"torch.{n}": getattr(numtorch, n) for n in dir(numtorch)
            if n.endswith("Tensor") and n != "Tensor" and n[0].isupper()}


STORAGE_CLASSES = {name: _rebuild._storage_class(name) for name in _STORAGE_DTYPE}
_CUDA_STORAGES = frozenset({"BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage",
                            "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage",
                            "FloatStorage", "HalfStorage", "IntStorage", "LongStorage",
                            "ShortStorage"})


def _py3_name(module, name):
    """Python 2 names in protocol-2 pickles (``__builtin__ set``) mapped to Python 3's."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _names_torch(cls):
    """A numtorch class's qualified name as torch's (``torch.dtype``)."""
    module = cls.__module__
    if module.startswith("numtorch"):
        module = "torch"
    return cls.__name__ if module == "builtins" else f"{module}.{cls.__name__}"


def _short(obj):
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        # named, not repr'd: a function's repr holds its address, which differs per run
        return f"{obj.__module__}.{obj.__qualname__}".replace("numtorch", "torch", 1)
    text = repr(obj)
    return text if len(text) <= 120 else text[:117] + "..."


class _Inert:
    """Stands for every global while a legacy checkpoint is skimmed for its storages."""

    __slots__ = ()

    def __repr__(self):
        return "<inert>"


_INERT = _Inert()


# -- the weights-only interpreter ------------------------------------------------------------
class WeightsOnly:
    """Unpickle ``file`` building only data, tensors and allowed objects (see the module doc).

    Args:
        file: a binary file object positioned at the pickle.
        record (str): the pickle's name in messages (``data.pkl``).
        persistent_load (callable, optional): ``pid -> storage`` for ``('storage', ...)`` ids.
        skim (bool): build nothing but containers: every global is inert and only the
            persistent ids are reported (the legacy format's first pass).
    """

    only = _TORCH_OPS  # opcodes run (None: all it knows); _read widens it for weights_only=False
    skim_calls = None  # (skim) the weights_only of the load to come, to refuse calls as it will

    def __init__(self, file, record="data.pkl", persistent_load=None, skim=False):
        self._file = file
        self._read = file.read
        self._readline = file.readline
        self._record = record
        self._persistent_load = persistent_load
        self._skim = skim
        self._end = None
        try:
            here = file.tell()
            self._end = file.seek(0, io.SEEK_END)
            file.seek(here)
        except (AttributeError, OSError, ValueError):
            pass
        self._allowed = {} if skim else _user_allowed()
        self._allowed_ids = {id(v) for v in self._allowed.values()}
        self._allowed_ids.update(id(v) for v in _default_allowed().values())
        self._default_ids = {id(v) for v in _default_allowed().values()}
        self.globals_seen = {}  # (skim) every global named, in order
        self.memo = {}
        self.stack = []
        self.metastack = []
        self.proto = 0

    # reading -------------------------------------------------------------------------------
    def _corrupt(self, what):
        return pickle.UnpicklingError(f"load: {self._record} is corrupt: {what}")

    def _take(self, n):
        if 0 <= n <= _BIG_READ:
            data = self._read(n)
            if len(data) == n:
                return data
            raise PickleFault(f"load: {self._record} is corrupt: it ends in the middle of a "
                              f"value (truncated file)", "truncated", n)
        if n < 0:
            raise self._corrupt(f"negative length {n}")
        if self._end is not None and n > self._end - self._file.tell():
            raise PickleFault(f"load: {self._record} is corrupt: a {n}-byte value runs past "
                              f"its end (truncated file)", "truncated", n)
        data = self._read(n)
        if len(data) < n:
            raise PickleFault(f"load: {self._record} is corrupt: it ends in the middle of a "
                              f"value (truncated file)", "truncated", n)
        return data

    def _line(self):
        line = self._readline()
        if not line.endswith(b"\n"):
            raise PickleFault(f"load: {self._record} is corrupt: it ends in the middle of a "
                              f"text value (truncated file)", "truncated", 0)
        return line[:-1]

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    # policy --------------------------------------------------------------------------------
    def _global(self, module, name):
        module, name = _py3_name(module, name)
        if self._skim:
            self.globals_seen.setdefault(f"{module}.{name}")
            if self.skim_calls:  # refused here, where the weights-only load proper will
                self._lookup(module, name, _user_allowed())
            if name in STORAGE_CLASSES and (module in ("torch", "torch.storage") or (
                    self.skim_calls is False and name != "UntypedStorage")):
                return STORAGE_CLASSES[name]  # (Full's rule for weights_only=False)
            return _INERT
        return self._lookup(module, name, self._allowed)

    @staticmethod
    def _lookup(module, name, user_allowed):
        full = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose "
                                         f"module {module} is blocked.")
        obj = _default_allowed().get(full)
        if obj is None:
            obj = user_allowed.get(full)
        if obj is None:
            short = full[len("builtins."):] if module == "builtins" else full
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {short} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{short}])` or the "
                f"`torch.serialization.safe_globals([{short}])` context manager to allowlist "
                f"this global if you trust this class/function.")
        return obj

    def unsafe_globals(self):
        """(skim) The globals the pickle names that weights-only loading would refuse."""
        allowed, user = _default_allowed(), _user_allowed()
        return [g for g in self.globals_seen if g not in allowed and g not in user]

    def _is_allowed(self, obj):
        return id(obj) in self._allowed_ids

    def _call(self, func, args, kwargs=None, what="call"):
        if self._skim:
            # a value that is no global can never be called: the skim of a legacy file stops
            # where the load proper would (skim_calls: the weights_only of that load)
            if self.skim_calls is None or func is _INERT or callable(func):
                return _INERT
            if not self.skim_calls:
                raise TypeError(f"'{type(func).__name__}' object is not callable")
        if not self._is_allowed(func):
            # torch's words for each opcode
            if what == "create":
                raise pickle.UnpicklingError(f"Can only create new object for nn.Parameter or "
                                             f"classes allowlisted via `add_safe_globals` but "
                                             f"got {_short(func)}")
            owner = (f" which belongs to {_short(func.__self__)}"
                     if hasattr(func, "__self__") else "")
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function "
                                         f"{_short(func)}{owner}")
        if self._skim:
            return _INERT
        if type(args) is not tuple:  # torch unpacks them with *, as Python does
            if isinstance(args, (list, dict, set, frozenset, str, bytes, bytearray)):
                args = tuple(args)
            elif what == "create":
                raise load_error(TypeError, f"Value after * must be an iterable, not "
                                            f"{type(args).__name__}")
            else:
                name = next((k for k, v in _default_allowed().items() if v is func),
                            f"{getattr(func, '__module__', '')}."
                            f"{getattr(func, '__qualname__', '')}")
                raise load_error(TypeError, f"{name}() argument after * must be an "
                                            f"iterable, not {type(args).__name__}")
        if what == "create" and not isinstance(func, type):
            kind = type(func)
            raise load_error(TypeError, f"object.__new__(X): X is not a type object "
                                        f"({_names_torch(kind)})")
        try:
            if what == "create":
                from ..nn.parameter import Parameter

                if func is Parameter:
                    return Parameter(*args, **(kwargs or {}))
                return func.__new__(func, *args, **(kwargs or {}))
            return func(*args, **(kwargs or {}))
        except (pickle.UnpicklingError, RuntimeError):
            raise
        except TypeError as e:
            if is_load_error(e):
                raise
            if "positional argument" in str(e) or "keyword argument" in str(e):
                # a call with the wrong arguments: torch's TypeError, in Python's words
                raise load_error(TypeError, str(e)) from None
            raise load_error(RuntimeError, f"load: {self._record}: {_short(func)} cannot be "
                                           f"built from the arguments stored in the "
                                           f"checkpoint (TypeError: {e})") from None
        except MemoryError:
            raise load_error(RuntimeError, f"load: {self._record}: not enough memory for the "
                                           f"{_short(func)} it builds") from None
        except (TypeError, ValueError, OverflowError, IndexError, KeyError,
                AttributeError) as e:
            if is_load_error(e):
                raise
            detail = f": {e}" if isinstance(e, TypeError) else ""
            raise load_error(RuntimeError, f"load: {self._record}: {_short(func)} cannot be "
                                           f"built from the arguments stored in the "
                                           f"checkpoint ({type(e).__name__}{detail})") from None

    def _build(self, inst, state):
        if self._skim or inst is _INERT:
            return
        kind = type(inst)
        if isinstance(inst, (type, types.ModuleType, types.FunctionType,
                             types.BuiltinFunctionType, types.MethodType)):
            raise pickle.UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or "
                                         f"types allowlisted via add_safe_globals, but got "
                                         f"{kind}")
        if kind is Tensor:  # torch's legacy unpickling: set_(*state)
            _rebuild.legacy_set(inst, state)
        elif kind is _parameter_class():  # torch runs Tensor.__setstate__ on a Parameter
            _rebuild.parameter_setstate(inst, state)
        elif isinstance(inst, Tensor):
            own = getattr(kind, "__setstate__", None)
            if own is not None and not kind.__module__.startswith("numtorch"):
                inst.__setstate__(state)  # an allowed subclass restores its own state
            else:
                _rebuild.restore_state(inst, state)
        elif kind in (collections.OrderedDict, collections.Counter):
            if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
                raise pickle.UnpicklingError(f"Can only set string-named attributes on "
                                             f"{kind.__name__}, got {_short(state)}")
            inst.__dict__.update(state)
        elif self._is_allowed(kind) and (id(kind) not in self._default_ids
                                          or kind is _dim_range()):
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                try:
                    setstate(state)
                except Exception as e:  # noqa: BLE001 - the user's own code: passed on as raised
                    raise _UserCodeError(e) from None
                return
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                inst.__dict__.update(state)
            if slots:
                for k, v in slots.items():
                    setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or "
                                         f"types allowlisted via add_safe_globals, but got "
                                         f"{kind}")

    def _persistent(self, pid):
        if isinstance(pid, tuple) and pid and pid[0] in ("module", b"module"):
            if len(pid) < 2:
                raise self._corrupt("a module persistent id without its class")
            return pid[1]  # old whole-module saves: (``module``, class, source file, source)
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but "
                                         f"got {_short(pid)}")
        if self._persistent_load is None:
            raise self._corrupt("a storage reference where none may be")
        found = self._persistent_load(pid)
        return _INERT if self._skim else found

    # the interpreter -------------------------------------------------------------------------
    def load(self):
        """Run the pickle to its STOP opcode and return the object it built."""
        dispatch = _DISPATCH
        read = self._read
        try:
            while True:
                key = read(1)
                if not key:
                    raise PickleFault(f"load: {self._record} is corrupt: it ends before its "
                                      f"STOP opcode (truncated file)", "eof")
                op = dispatch.get(key[0])
                if op is None or (self.only is not None and key[0] not in self.only):
                    raise PickleFault(f"load: {self._record} uses the pickle opcode {key!r}, "
                                      f"which weights-only loading does not support",
                                      "opcode", key[0])
                if op(self):
                    return self.stack.pop()
        except _UserCodeError as e:
            try:  # passed on as it is by the loader too
                e.error._numtorch_load_error = True
            except AttributeError:
                pass
            raise e.error from None
        except IndexError:
            raise PickleFault(f"load: {self._record} is corrupt: an opcode lacks its operands "
                              f"or finds too few values on the stack (truncated or malformed)",
                              "underflow") from None
        except KeyError as e:
            raise PickleFault(f"load: {self._record} is corrupt: it refers to a missing memo "
                              f"entry {e}", "memo", e.args[0] if e.args else None) from None
        except RecursionError:
            raise self._corrupt("it nests objects too deeply") from None
        except (UnicodeDecodeError, struct.error, ValueError) as e:
            if is_load_error(e):
                raise
            raise self._corrupt(f"{type(e).__name__}") from None


class _UserCodeError(Exception):
    """Carries an exception raised by the ``__setstate__`` of a class the user allowed, so
    that it reaches the caller as raised (as in torch) instead of reading as a corrupt
    pickle."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _op(*codes):
    def register(fn):
        for c in codes:
            _DISPATCH[c[0]] = fn
        return fn
    return register


_DISPATCH = {}
_unpack = struct.unpack


@_op(pickle.PROTO)
def _proto(u):
    u.proto = u._take(1)[0]
    # torch's weights-only unpickler only warns about an unknown protocol (below); pickle,
    # which a full load uses, refuses it
    if u.proto > pickle.HIGHEST_PROTOCOL and (u.only is None or u.skim_calls is False):
        raise load_error(ValueError, f"unsupported pickle protocol: {u.proto}")
    if u.proto != 2 and u.only is not None and not u._skim:
        import warnings

        # torch's weights-only unpickler says so for every protocol but its own default
        warnings.warn(f"Detected pickle protocol {u.proto} in the checkpoint, which was not "
                      "the default pickle protocol used by `torch.load` (2). The weights_only "
                      "Unpickler might not support all instructions implemented by this "
                      "protocol, please file an issue for adding support if you encounter "
                      "this.", UserWarning, stacklevel=2)


@_op(pickle.FRAME)
def _frame(u):
    u._take(8)  # frames only group opcodes for buffered reading


@_op(pickle.STOP)
def _stop(u):
    # the top of the stack is the result, whatever lies under it or an open MARK holds,
    # as in pickle and torch's weights-only unpickler
    if not u.stack:
        if u.metastack:
            raise PickleFault(f"load: {u._record} is corrupt: STOP inside an unclosed MARK",
                              "mark")
        raise IndexError  # (an underflow)
    return True


@_op(pickle.MARK)
def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


@_op(pickle.POP)
def _pop(u):
    if u.stack:
        u.stack.pop()
    else:
        u._pop_mark()


@_op(pickle.POP_MARK)
def _pop_mark(u):
    u._pop_mark()


@_op(pickle.DUP)
def _dup(u):
    u.stack.append(u.stack[-1])


@_op(pickle.NONE)
def _none(u):
    u.stack.append(None)


@_op(pickle.NEWTRUE)
def _true(u):
    u.stack.append(True)


@_op(pickle.NEWFALSE)
def _false(u):
    u.stack.append(False)


@_op(pickle.INT)
def _int(u):
    data = u._line()
    u.stack.append(False if data == b"00" else True if data == b"01" else int(data))


@_op(pickle.BININT)
def _binint(u):
    u.stack.append(_unpack("<i", u._read(4))[0])


@_op(pickle.BININT1)
def _binint1(u):
    u.stack.append(u._take(1)[0])


@_op(pickle.BININT2)
def _binint2(u):
    u.stack.append(_unpack("<H", u._read(2))[0])


@_op(pickle.LONG)
def _long(u):
    data = u._line()
    u.stack.append(int(data[:-1] if data.endswith(b"L") else data))


@_op(pickle.LONG1)
def _long1(u):
    u.stack.append(pickle.decode_long(u._take(u._take(1)[0])))


@_op(pickle.LONG4)
def _long4(u):
    n = _unpack("<i", u._take(4))[0]
    u.stack.append(pickle.decode_long(u._take(n)))


@_op(pickle.FLOAT)
def _float(u):
    u.stack.append(float(u._line()))


@_op(pickle.BINFLOAT)
def _binfloat(u):
    u.stack.append(_unpack(">d", u._take(8))[0])


def _text(u, data):
    return data.decode("utf-8", "surrogatepass")


@_op(pickle.STRING)
def _string(u):
    data = u._line()
    if len(data) >= 2 and data[0] == data[-1] and data[:1] in (b'"', b"'"):
        data = data[1:-1]
    else:
        raise u._corrupt("an unquoted STRING value")
    u.stack.append(codecs.escape_decode(data)[0].decode("utf-8"))


@_op(pickle.BINSTRING)
def _binstring(u):
    n = _unpack("<i", u._take(4))[0]
    u.stack.append(u._take(n).decode("utf-8"))


@_op(pickle.SHORT_BINSTRING)
def _short_binstring(u):
    u.stack.append(u._take(u._take(1)[0]).decode("utf-8"))


@_op(pickle.UNICODE)
def _unicode(u):
    u.stack.append(str(u._line(), "raw-unicode-escape"))


@_op(pickle.BINUNICODE)
def _binunicode(u):
    u.stack.append(_text(u, u._take(_unpack("<I", u._read(4))[0])))


@_op(pickle.SHORT_BINUNICODE)
def _short_binunicode(u):
    u.stack.append(_text(u, u._take(u._take(1)[0])))


@_op(pickle.BINUNICODE8)
def _binunicode8(u):
    u.stack.append(_text(u, u._take(_unpack("<Q", u._take(8))[0])))


@_op(pickle.BINBYTES)
def _binbytes(u):
    u.stack.append(u._take(_unpack("<I", u._take(4))[0]))


@_op(pickle.SHORT_BINBYTES)
def _short_binbytes(u):
    u.stack.append(u._take(u._take(1)[0]))


@_op(pickle.BINBYTES8)
def _binbytes8(u):
    u.stack.append(u._take(_unpack("<Q", u._take(8))[0]))


@_op(pickle.BYTEARRAY8)
def _bytearray8(u):
    u.stack.append(bytearray(u._take(_unpack("<Q", u._take(8))[0])))


@_op(pickle.EMPTY_TUPLE)
def _empty_tuple(u):
    u.stack.append(())


@_op(pickle.TUPLE)
def _tuple(u):
    items = u._pop_mark()
    u.stack.append(tuple(items))


@_op(pickle.TUPLE1)
def _tuple1(u):
    u.stack[-1] = (u.stack[-1],)


@_op(pickle.TUPLE2)
def _tuple2(u):
    if len(u.stack) < 2:
        raise IndexError
    u.stack[-2:] = [(u.stack[-2], u.stack[-1])]


@_op(pickle.TUPLE3)
def _tuple3(u):
    if len(u.stack) < 3:
        raise IndexError
    u.stack[-3:] = [(u.stack[-3], u.stack[-2], u.stack[-1])]


@_op(pickle.EMPTY_LIST)
def _empty_list(u):
    u.stack.append([])


@_op(pickle.LIST)
def _list(u):
    items = u._pop_mark()
    u.stack.append(items)


@_op(pickle.EMPTY_DICT)
def _empty_dict(u):
    u.stack.append({})


def _pairs(u, items):
    if len(items) % 2:
        raise u._corrupt("a dict built from an odd number of items")
    return zip(items[0::2], items[1::2])


@_op(pickle.DICT)
def _dict(u):
    items = u._pop_mark()
    u.stack.append(dict(_pairs(u, items)))


@_op(pickle.EMPTY_SET)
def _empty_set(u):
    u.stack.append(set())


@_op(pickle.FROZENSET)
def _frozenset(u):
    items = u._pop_mark()
    u.stack.append(frozenset(items))


_DICT_TYPES = (dict, collections.OrderedDict, collections.Counter)


def _list_target(u, opname):
    target = u.stack[-1]
    if target is _INERT:
        return None
    if type(target) is not list:
        raise pickle.UnpicklingError(f"Can only {opname} to lists, but got {type(target)}")
    return target


@_op(pickle.APPEND)
def _append(u):
    item = u.stack.pop()
    target = _list_target(u, "append")
    if target is not None:
        target.append(item)


@_op(pickle.APPENDS)
def _appends(u):
    items = u._pop_mark()
    target = _list_target(u, "extend")
    if target is not None:
        target.extend(items)


def _dict_target(u, opname):
    target = u.stack[-1]
    if target is _INERT:
        return None
    if type(target) not in _DICT_TYPES:
        raise pickle.UnpicklingError(f"Can only {opname} for dict, collections.OrderedDict, "
                                     f"collections.Counter, but got {type(target)}")
    return target


@_op(pickle.SETITEM)
def _setitem(u):
    value = u.stack.pop()
    key = u.stack.pop()
    target = _dict_target(u, "SETITEM")
    if target is not None:
        target[key] = value


@_op(pickle.SETITEMS)
def _setitems(u):
    items = u._pop_mark()
    target = _dict_target(u, "SETITEMS")
    if target is not None:
        for k, v in _pairs(u, items):
            target[k] = v


@_op(pickle.ADDITEMS)
def _additems(u):
    items = u._pop_mark()
    target = u.stack[-1]
    if target is _INERT:
        return
    if type(target) is not set:
        raise pickle.UnpicklingError(f"Can only add items to sets, but got {type(target)}")
    target.update(items)


@_op(pickle.GET)
def _get(u):
    u.stack.append(u.memo[int(u._line())])


@_op(pickle.BINGET)
def _binget(u):
    u.stack.append(u.memo[u._take(1)[0]])


@_op(pickle.LONG_BINGET)
def _long_binget(u):
    u.stack.append(u.memo[_unpack("<I", u._read(4))[0]])


@_op(pickle.PUT)
def _put(u):
    u.memo[int(u._line())] = u.stack[-1]


@_op(pickle.BINPUT)
def _binput(u):
    u.memo[u._take(1)[0]] = u.stack[-1]


@_op(pickle.LONG_BINPUT)
def _long_binput(u):
    u.memo[_unpack("<I", u._read(4))[0]] = u.stack[-1]


@_op(pickle.MEMOIZE)
def _memoize(u):
    u.memo[len(u.memo)] = u.stack[-1]


@_op(pickle.GLOBAL)
def _global(u):
    if u.only is _TORCH_OPS:
        # torch's weights-only reader drops each line's last byte unchecked, so a file cut
        # short here is refused as the (shortened) global it names
        module = u._readline()[:-1].decode("utf-8")
        name = u._readline()[:-1].decode("utf-8")
    else:
        module = u._line().decode("utf-8")
        name = u._line().decode("utf-8")
    u.stack.append(u._global(module, name))


@_op(pickle.STACK_GLOBAL)
def _stack_global(u):
    name = u.stack.pop()
    module = u.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise u._corrupt("STACK_GLOBAL needs two strings")
    u.stack.append(u._global(module, name))


@_op(pickle.REDUCE)
def _reduce(u):
    args = u.stack.pop()
    u.stack[-1] = u._call(u.stack[-1], args)


@_op(pickle.NEWOBJ)
def _newobj(u):
    args = u.stack.pop()
    u.stack[-1] = u._call(u.stack[-1], args, what="create")


@_op(pickle.NEWOBJ_EX)
def _newobj_ex(u):
    kwargs = u.stack.pop()
    args = u.stack.pop()
    if type(kwargs) is not dict:
        raise u._corrupt("NEWOBJ_EX keyword arguments are not a dict")
    u.stack[-1] = u._call(u.stack[-1], args, kwargs, what="create")


@_op(pickle.BUILD)
def _build(u):
    state = u.stack.pop()
    u._build(u.stack[-1], state)


@_op(pickle.BINPERSID)
def _binpersid(u):
    u.stack[-1] = u._persistent(u.stack[-1])


@_op(pickle.PERSID)
def _persid(u):
    u.stack.append(u._persistent(u._line().decode("ascii")))


# -- full unpickling (weights_only=False) ---------------------------------------------------
class Full(pickle.Unpickler):
    """Python's unpickler with torch's names resolved to numtorch's objects."""

    def __init__(self, file, record="data.pkl", persistent_load=None):
        super().__init__(file, encoding="utf-8")
        self._record = record
        self._storage = persistent_load
        self._proto = 0  # pickle resolves dotted names only from protocol 4 on
        try:
            here = file.tell()
            head = file.read(2)
            file.seek(here)
            if head[:1] == pickle.PROTO and len(head) == 2:
                self._proto = head[1]
        except (AttributeError, OSError, ValueError):
            pass

    def find_class(self, module, name):
        module, name = _py3_name(module, name)
        if "." in name and self._proto < 4:  # what pickle's own lookup raises
            raise AttributeError(f"Can't get attribute {name!r} on <module {module!r}>")
        if name in STORAGE_CLASSES and name != "UntypedStorage":
            return STORAGE_CLASSES[name]  # torch's full unpickler takes these from any module
        obj = _default_allowed().get(f"{module}.{name}")
        if obj is not None:
            return obj
        if _names.is_torch_module(module):
            obj = _names.numtorch_object(module, name)
            if obj is _names._MISSING:
                raise load_error(pickle.UnpicklingError,
                                 f"load: the checkpoint refers to {module}.{name}, which has "
                                 f"no numtorch counterpart")
            return obj
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and pid and pid[0] in ("module", b"module") and len(pid) > 1:
            return pid[1]
        if not isinstance(pid, tuple) or not pid or pid[0] not in ("storage", b"storage"):
            raise pickle.UnpicklingError(f"load: unknown persistent id {_short(pid)} in "
                                         f"{self._record}")
        if self._storage is None:
            raise pickle.UnpicklingError(f"load: {self._record} refers to a storage where "
                                         f"none may be")
        return self._storage(pid)


def _parameter_class():
    from ..nn.parameter import Parameter

    return Parameter

