"""Operator schemas (``ns::name.overload(Tensor self, *, Scalar alpha=1) -> Tensor``) for the
``torch.ops`` tree: parsing, printing, and binding a Python call to one schema with the
dispatcher's checks and error wording (what tells two overloads of one operator apart).
"""

import re

from ._tensor import Tensor

_SCALARS = (bool, int, float, complex)
_SCALAR_TYPES = {name: i for i, name in enumerate(
    ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex32",
     "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16"))}


class Argument:
    """One schema parameter: ``type_`` as written (``"Tensor(a!)?"``), ``name``, the
    ``default`` text (None when there is none) and whether it is keyword-only."""

    __slots__ = ("type_", "name", "default", "kwarg_only")

    def __init__(self, type_, name, default, kwarg_only):
        self.type_, self.name, self.default, self.kwarg_only = type_, name, default, kwarg_only

    def __str__(self):
        text = f"{self.type_} {self.name}"
        return text if self.default is None else f"{text}={self.default}"

    @property
    def base_type(self):
        """The type without its alias annotation (``Tensor(a!)`` -> ``Tensor``)."""
        return re.sub(r"\([^)]*\)", "", self.type_)


def _split_top(text):
    """Split on commas outside brackets."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


class FunctionSchema:
    """A parsed operator schema.

    Attributes:
        name (str): ``"ns::name"``; overload_name (str): ``""`` for the default overload;
        arguments (list of Argument); returns (str): the text after ``->``.
    """

    def __init__(self, name, overload_name, arguments, returns):
        self.name, self.overload_name = name, overload_name
        self.arguments, self.returns = arguments, returns

    @classmethod
    def parse(cls, text, namespace=None):
        """Parse ``"[ns::]name[.overload](args) -> returns"``; ``namespace`` is used when the
        text has none."""
        open_at, depth = text.index("("), 0
        for close_at in range(open_at, len(text)):  # the parenthesis closing the parameters
            depth += {"(": 1, ")": -1}.get(text[close_at], 0)
            if depth == 0:
                break
        qual, params = text[:open_at].strip(), text[open_at + 1:close_at]
        returns = text[close_at + 1:].strip()[2:]
        if "::" not in qual and namespace is not None:
            qual = f"{namespace}::{qual}"
        name, _, overload = qual.partition(".")
        args, kw_only = [], False
        for part in _split_top(params):
            if part == "*":
                kw_only = True
                continue
            decl, eq, default = part.partition("=")
            type_, _, pname = decl.strip().rpartition(" ")
            default = default.strip() if eq else None
            if type_.strip().startswith("ScalarType") and default in _SCALAR_TYPES:
                default = str(_SCALAR_TYPES[default])  # the C++ schema keeps the enum value
            args.append(Argument(type_.strip(), pname.strip(), default, kw_only))
        return cls(name, overload, args, returns.strip())

    def __str__(self):
        parts, star = [], False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(str(a))
        dotted = f"{self.name}.{self.overload_name}" if self.overload_name else self.name
        return f"{dotted}({', '.join(parts)}) -> {self.returns}"

    def __repr__(self):
        return str(self)

    # -- binding --------------------------------------------------------------------------
    def bind(self, args, kwargs, numbers_as_tensors=False):
        """Check a call against this schema as the dispatcher does.

        Returns:
            (dict, list): the given values by parameter name, and the names in schema order.

        Raises:
            RuntimeError: too many arguments, an unknown keyword, a missing value or a value
            of the wrong type, worded as torch words them.
        """
        decl = f"Declaration: {self}"
        opname = f"{self.name}()"
        positional = [a for a in self.arguments if not a.kwarg_only]
        total = len(args) + len(kwargs)
        if total > len(self.arguments):
            raise RuntimeError(f"{opname} expected at most {len(self.arguments)} argument(s) "
                               f"but received {total} argument(s). {decl}")
        if len(args) > len(positional):
            raise RuntimeError(f"{opname} takes {len(positional)} positional argument(s) but "
                               f"{len(args)} was/were given.  {decl}")
        given, left = {}, dict(kwargs)
        for i, a in enumerate(self.arguments):  # in schema order, as the dispatcher checks
            if i < len(args):
                given[a.name] = self._check(a, args[i], i, opname, decl, numbers_as_tensors)
            elif a.name in left:
                given[a.name] = self._check(a, left.pop(a.name), i, opname, decl,
                                            numbers_as_tensors)
            elif a.default is None:
                raise RuntimeError(f"{opname} is missing value for argument '{a.name}'. {decl}")
        for key in left:
            if key in given:
                raise RuntimeError(f"{opname} got multiple values for argument '{key}'. {decl}")
            raise RuntimeError(f"Unknown keyword argument '{key}' for operator "
                               f"'{self.name}'. Schema: {self}")
        return given

    @staticmethod
    def _check(arg, value, position, opname, decl, numbers_as_tensors):
        expected = _accepts(arg.base_type, value, numbers_as_tensors)
        if expected is None:
            return value
        if value is None and expected == "Tensor":
            raise RuntimeError(f"Expected a proper Tensor but got None (or an undefined Tensor "
                               f"in C++) for argument #{position} '{arg.name}'")
        found = "Tensor" if isinstance(value, Tensor) else type(value).__name__
        detail = (f"Unable to cast {value} to Tensor" if expected == "Tensor"
                  else f"Cannot cast {value} to number" if expected == "number"
                  else f"Unable to cast Python instance of type {type(value)} to C++ type '?' "
                       f"(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode "
                       f"for details)")
        raise RuntimeError(f"{opname} Expected a value of type '{expected}' for argument "
                           f"'{arg.name}' but instead found type '{found}'.\n"
                           f"Position: {position}\nValue: {value!r}\n{decl}\n"
                           f"Cast error details: {detail}")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) or (
        isinstance(v, Tensor) and v.dim() == 0 and not v.is_floating_point())


def _accepts(type_, value, numbers_as_tensors):
    """None when ``value`` fits ``type_``; else the type name the error message gives."""
    if type_.endswith("?"):
        return None if value is None else _accepts(type_[:-1], value, numbers_as_tensors)
    if type_.endswith("]"):
        inner = type_[:type_.index("[")]
        if inner == "int" or inner == "SymInt":
            if _is_int(value):
                return None  # int[1] takes a lone int
        if isinstance(value, (list, tuple)) and all(
                _accepts(inner, v, numbers_as_tensors) is None for v in value):
            return None
        return f"List[{'int' if inner == 'SymInt' else inner}]"
    if type_ == "Tensor":
        if isinstance(value, Tensor) or (numbers_as_tensors and isinstance(value, _SCALARS)):
            return None
        return "Tensor"
    if type_ == "Scalar":
        return None if isinstance(value, _SCALARS) or (
            isinstance(value, Tensor) and value.dim() == 0) else "number"
    if type_ in ("int", "SymInt"):
        return None if _is_int(value) else "int"
    if type_ == "float":
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) or (
            isinstance(value, Tensor) and value.dim() == 0) else "float"
    if type_ == "bool":
        return None if isinstance(value, bool) else "bool"
    if type_ == "str":
        return None if isinstance(value, str) else "str"
    return None  # ScalarType, Device, Layout, MemoryFormat, t, Any: left to the kernel


# -- schemas inferred from annotations (custom_op) ------------------------------------------
def annotation_type(ann):
    """The schema type of a Python annotation (``Optional[Tensor]`` -> ``"Tensor?"``), or
    None when torch would not accept it."""
    import typing
    import collections.abc as abc

    from ._dtype import dtype
    from ._device import device

    base = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
            dtype: "ScalarType", device: "Device"}
    if ann in base:
        return base[ann]
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        rest = [a for a in args if a is not type(None)]
        if set(rest) == {int, float, bool}:
            return "Scalar?" if len(rest) < len(args) else "Scalar"
        if len(rest) == 1 and len(args) == 2:
            inner = annotation_type(rest[0])
            return None if inner is None or inner.endswith("?") else inner + "?"
        return None
    if origin in (list, abc.Sequence) and len(args) == 1:
        inner = annotation_type(args[0])
        if inner in ("Tensor", "Tensor?", "SymInt", "float", "bool"):
            return inner + "[]"
    return None


def default_text(value):
    """A default value as a schema prints it; None when torch rejects its type."""
    from ._dtype import dtype

    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dtype):
        return str(value).replace("torch.", "")
    return None


def returns_text(ann):
    """The returns part of an inferred schema."""
    import typing

    if ann is None or ann is type(None):
        return "()"
    if typing.get_origin(ann) is tuple:
        return "(" + ", ".join(annotation_type(a) or "Tensor" for a in typing.get_args(ann)) + ")"
    return annotation_type(ann) or "Tensor"
