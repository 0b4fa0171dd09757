"""What a custom operator's fake implementation may ask for while it runs
(``torch.library.get_ctx()``): numtorch runs fake implementations only in ``opcheck``'s
fake-tensor check, on meta tensors, so a data-dependent size is a placeholder there and the
check then compares the outputs' ranks and dtypes, not their sizes."""

_CURRENT = [None]


class FakeImplCtx:
    """The context of one fake-implementation call: ``new_dynamic_size`` stands for a size
    the real kernel decides from the data (``x[x > 0]``, ``nonzero``)."""

    def __init__(self):
        self.dynamic = False

    def new_dynamic_size(self, *, min=0, max=None):
        """A size only the data decides, at least ``min`` (and at most ``max``)."""
        if min < 0:
            raise ValueError(f"ctx.new_dynamic_size(min={min}, ...): expected min to be "
                             "greater than or equal to 0: this API can only create "
                             "non-negative sizes.")
        if max is not None and max < min:
            raise ValueError("Maximum value to constrain_as_size can't be less than the "
                             f"specified min value, received min={min} and max={max}")
        self.dynamic = True
        return min


def get_ctx():
    """The running fake implementation's :class:`FakeImplCtx`; None outside one."""
    return _CURRENT[0]


def run_fake(fn, pos, kws):
    """``fn(*pos, **kws)`` as a fake implementation: (its outputs, whether it asked for a
    data-dependent size)."""
    ctx, before = FakeImplCtx(), _CURRENT[0]
    _CURRENT[0] = ctx
    try:
        return fn(*pos, **kws), ctx.dynamic
    finally:
        _CURRENT[0] = before
