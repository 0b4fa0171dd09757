"""torch's refusals of a ``generator=`` that is not a ``torch.Generator``.

Torch's argument parser words them two ways. A function with one overload, or a call only one
overload can take by its number of arguments, says "<fn>(): argument 'generator' must be
torch.Generator, not <type>". Otherwise it says "<fn>() received an invalid combination of
arguments - got (<the call's argument types>), but expected one of:" and lists every overload
(those the call has too many arguments for carry a note naming the call's keywords).

The samplers call ``check`` first thing, only when ``generator`` is not None, so good calls pay
one comparison. They know their arguments after Python bound them, not the call as written:
keyword arguments are recognised by differing from their defaults, and torch's listing of
several keywords (for the calls tried, the reverse of the order written) is taken to be the
reverse of the signature's order with ``generator`` written last.
"""

_FACTORY = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_LIKE = ("torch.memory_format memory_format = None, torch.dtype dtype = None, "
         "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
         "bool requires_grad = False")
_GEN = "torch.Generator generator"
_OPT_GEN = "torch.Generator generator = None"


def _with_and_without(lead, rest):
    """A factory's two overloads: with a (required) generator, and without one."""
    return (f"({lead}*, {_GEN}, {rest})", f"({lead}*, {rest})")


# torch's overload listings, in its order (None: one overload, the short message)
_OVERLOADS = {
    "rand": _with_and_without("tuple of ints size, ", _FACTORY),
    "randn": _with_and_without("tuple of ints size, ", _FACTORY),
    "randperm": _with_and_without("int n, ", _FACTORY),
    "randint": (_with_and_without("int high, tuple of ints size, ", _FACTORY)
                + _with_and_without("int low, int high, tuple of ints size, ", _FACTORY)),
    "rand_like": _with_and_without("Tensor input, ", _LIKE),
    "randn_like": _with_and_without("Tensor input, ", _LIKE),
    "randint_like": (_with_and_without("Tensor input, int low, int high, ", _LIKE)
                     + _with_and_without("Tensor input, Tensor high, ", _LIKE)
                     + _with_and_without("Tensor input, int high, ", _LIKE)),
    "normal": (f"(Tensor mean, Tensor std, *, {_OPT_GEN}, Tensor out = None)",
               f"(Tensor mean, float std = 1, *, {_OPT_GEN}, Tensor out = None)",
               f"(float mean, Tensor std, *, {_OPT_GEN}, Tensor out = None)",
               f"(float mean, float std, tuple of ints size, *, {_OPT_GEN}, {_FACTORY})"),
    "bernoulli": (f"(Tensor input, *, {_OPT_GEN}, Tensor out = None)",
                  f"(Tensor input, float p, *, {_OPT_GEN})"),
    # Tensor methods (self is not listed)
    "Tensor.bernoulli": (f"(*, {_OPT_GEN})", f"(float p, *, {_OPT_GEN})"),
    "Tensor.bernoulli_": (f"(Tensor p, *, {_OPT_GEN})", f"(float p = 0.5, *, {_OPT_GEN})"),
    "Tensor.random_": (f"(*, {_OPT_GEN})", f"(int from, int to, *, {_OPT_GEN})",
                       f"(int to, *, {_OPT_GEN})"),
}

_TORCH_TYPES = frozenset({"Size", "dtype", "device", "layout", "memory_format", "Generator",
                          "finfo", "iinfo", "Stream", "Event"})


def type_name(value):
    """The name torch's parser gives ``value``'s type (CPython's: builtins bare, C types of
    other modules qualified; numtorch's own classes as torch's)."""
    t = type(value)
    mod = t.__module__
    if mod == "builtins":
        return t.__name__
    if mod.startswith("numtorch"):
        if t.__name__ in _TORCH_TYPES:
            return "torch." + t.__name__
        if t.__name__ == "function":
            return "builtin_function_or_method"
        return t.__name__
    if mod.startswith("numpy"):
        return "numpy." + t.__name__
    if t.__name__ == "function" and getattr(value, "__module__", "").startswith("numtorch"):
        return "builtin_function_or_method"  # torch's functions are C builtins
    return t.__name__


def _params(overload):
    """How many arguments an overload listing takes (positional and keyword)."""
    return sum(1 for p in overload[1:-1].split(", ") if p != "*")


def _got(positional, keywords):
    pos = [type_name(v) for v in positional]
    kw = [f"{k}={type_name(v)}" for k, v in keywords]
    if pos:
        return "(" + ", ".join(pos + kw) + ")"
    return "(" + "".join(p + ", " for p in kw) + ")"  # torch's text ends "..., )" then


def error(fn, generator, positional=(), keywords=()):
    """torch's TypeError for ``fn`` (a key of the table above, or any name with one
    overload) called with ``positional`` values and ``keywords`` ((name, value) pairs in the
    order written, ``generator`` among them)."""
    name = fn.rsplit(".", 1)[-1]
    overloads = _OVERLOADS.get(fn)
    if overloads is not None:
        keywords = list(reversed(keywords))
        given = len(positional) + len(keywords)
        fits = [_params(o) >= given for o in overloads]
        if fits.count(True) != 1:
            lines = []
            for o, fit in zip(overloads, fits):
                lines.append(f" * {o}")
                if not fit:
                    lines.append("      didn't match because some of the keywords were "
                                 "incorrect: " + ", ".join(k for k, _ in keywords))
            return TypeError(f"{name}() received an invalid combination of arguments - got "
                             f"{_got(positional, keywords)}, but expected one of:\n"
                             + "\n".join(lines) + "\n")
    return TypeError(f"{name}(): argument 'generator' must be torch.Generator, not "
                     f"{type_name(generator)}")


def keywords(generator, **given):
    """(name, value) pairs as the call is taken to have written them: each keyword argument
    given a value other than its default (``given`` maps name -> (value, default)), in
    signature order, then ``generator``."""
    out = []
    for k, (v, default) in given.items():
        if v is not default and not (type(v) is type(default) and v == default):
            out.append((k, v))
    out.append(("generator", generator))
    return out


def check(generator, fn, positional=(), keywords=None):
    """Raise torch's error when ``generator`` (not None) is no ``torch.Generator``."""
    from ._random import Generator

    if not isinstance(generator, Generator):
        raise error(fn, generator, positional,
                    [("generator", generator)] if keywords is None else keywords)
