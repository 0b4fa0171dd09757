"""torch's refusals of a ``generator=`` that is not a ``torch.Generator``.

Torch's argument parser words them two ways. A function with one overload, or a call only one
overload can take by its number of arguments, says "<fn>(): argument 'generator' must be
torch.Generator, not <type>". Otherwise it says "<fn>() received an invalid combination of
arguments - got (<the call's argument types>), but expected one of:" and lists every overload
(those the call has too many arguments for carry a note naming the call's keywords).

The samplers check first thing, only when ``generator`` is not None, so good calls pay one
comparison. The listing describes the call as written (which arguments were positional, which
keywords, in what order; torch lists several keywords in the reverse of the order written for
the calls tried): on this error path the caller's bytecode says how many arguments were
positional and which keywords it named. Where it cannot (a call through ``*args``/``**kwargs``,
another interpreter), the bound arguments stand in: keywords are those differing from their
defaults, written in signature order with ``generator`` last.
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


def program_frame(frame):
    """The first frame from ``frame`` outward that is not numtorch's: the program's call
    (how many of numtorch's frames lie between varies: a Tensor subclass anywhere in the
    program routes calls through __torch_function__ handling)."""
    while frame is not None and \
            (frame.f_globals.get("__name__") or "").partition(".")[0] == "numtorch":
        frame = frame.f_back
    return frame


def _written_call(frame):
    """(number of positional arguments, keyword names in the order written) of the call
    ``frame`` is making, read from its bytecode; None where that cannot be read (a call
    through ``*args``/``**kwargs``, an interpreter without these instructions)."""
    import dis

    lasti = frame.f_lasti
    before = [i for i in dis.get_instructions(frame.f_code) if i.offset <= lasti]
    if not before or before[-1].opname not in ("CALL", "CALL_KW"):
        return None
    call = before[-1]
    names = ()
    for ins in reversed(before[-4:-1]):
        if ins.opname == "KW_NAMES":  # CPython 3.11 / 3.12
            names = frame.f_code.co_consts[ins.arg]
            break
        if call.opname == "CALL_KW" and ins.opname == "LOAD_CONST":  # 3.13
            names = ins.argval
            break
    if type(names) is not tuple:
        return None
    return call.arg - len(names), names


def _from_call(fn, error_frame):
    """(positional values, (name, value) keywords) of the call of numtorch's ``fn`` as the
    program wrote it, from that function's frame and its caller's; None when unknown."""
    import inspect

    name = fn.rsplit(".", 1)[-1]
    frame = error_frame
    for _ in range(4):  # the function itself, a helper or two below it
        frame = frame.f_back
        if frame is None:
            return None
        if frame.f_code.co_name == name:
            break
    else:
        return None
    try:
        site = _written_call(frame.f_back)
    except Exception:  # an unfamiliar bytecode layout: the caller keeps its approximation
        return None
    if site is None:
        return None
    npos, names = site
    code, local = frame.f_code, frame.f_locals
    params = list(code.co_varnames[:code.co_argcount])
    values = [local[p] for p in params if p != "self"]
    extra = {}
    at = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & inspect.CO_VARARGS:
        values += list(local[code.co_varnames[at]])
        at += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        extra = local[code.co_varnames[at]]
    if npos > len(values):
        return None
    keywords = [(k, local[k] if k in local else extra.get(k)) for k in names]
    return values[:npos], keywords


def error(fn, generator, positional=(), keywords=(), from_call=False):
    """torch's TypeError for ``fn`` (a key of the table above, or any name with one
    overload) called with ``positional`` values and ``keywords`` ((name, value) pairs in the
    order written, ``generator`` among them). With ``from_call``, the call of the numtorch
    function named like ``fn`` is read as written where possible (an error path only), and
    ``positional``/``keywords`` are the fallback."""
    name = fn.rsplit(".", 1)[-1]
    overloads = _OVERLOADS.get(fn)
    if overloads is not None and from_call:
        import sys

        written = _from_call(fn, sys._getframe())
        if written is not None:
            positional, keywords = written
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


def check(generator, fn, positional=(), keywords=None, from_call=False):
    """Raise torch's error when ``generator`` (not None) is no ``torch.Generator``."""
    from ._random import Generator

    if not isinstance(generator, Generator):
        raise error(fn, generator, positional,
                    [("generator", generator)] if keywords is None else keywords, from_call)
