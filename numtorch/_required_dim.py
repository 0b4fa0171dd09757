"""The default of a ``dim`` argument torch requires (softmax, cumsum, ...): the function that
receives it raises torch's TypeError, which names the function and the argument in torch's
words (Python's own text would name numtorch's class of a tensor method)."""


class _MissingDim:
    def __repr__(self):
        return "<required>"

    def check(self, dim, fname):
        if dim is self:
            raise TypeError(f'{fname}() missing 1 required positional arguments: "dim"')


missing_dim = _MissingDim()


class _AllDims:
    """The default ``dim`` of the reductions whose ``dim`` may be left out but not passed as
    None (``prod``, ``max``, ``median``, ...): torch's parser refuses an explicit None."""

    def __repr__(self):
        return "<all dims>"


all_dims = _AllDims()


class _MissingArg:
    """The default of a tensor method's required operand (``x.eq()``, ``x.pow()``): the op
    then answers with torch's parser error for the call, which names the method as torch does
    (Python's own text would name numtorch's mixin class)."""

    def __repr__(self):
        return "<required>"


missing_arg = _MissingArg()


def check_missing(fname, **args):
    """Raise torch's parser error for a call that left out required arguments (the
    ``missing_arg`` defaults among ``args``, in signature order): "missing 1 required
    positional arguments: "index"", "missing 2 required positional argument: "dim", "index"".
    Called from a method's ``except`` clause only (the op has already failed on the default),
    so the call that passed everything pays nothing. Returns when nothing is missing."""
    names = list(args)
    first = next((k for k, v in enumerate(args.values()) if v is missing_arg), None)
    if first is None:
        return
    names = names[first:]  # (torch names every later one, even when given by keyword)
    if len(names) == 1:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "{names[0]}"') \
            from None
    listed = ", ".join(f'"{n}"' for n in names)
    raise TypeError(f"{fname}() missing {len(names)} required positional argument: {listed}") \
        from None


def check_missing_call(**args):
    """:func:`check_missing` for a torch function that is also the body of a method
    (``torch.transpose`` and ``x.transpose_``): the message names the function or method the
    program called. Error path only (it reads the call stack)."""
    if not any(v is missing_arg for v in args.values()):
        return
    from .ops._util import _entry_call

    entry = _entry_call()[0]
    check_missing(entry.f_code.co_name if entry is not None else "function", **args)
