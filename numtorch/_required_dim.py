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
