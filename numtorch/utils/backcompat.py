"""``torch.utils.backcompat``: the 0.x switches that warned where broadcasting or a reduction's
``keepdim`` default changed behaviour. The changes are long done; the switches stay settable
(off by default) for code that still flips them."""

__all__ = ["Warning", "broadcast_warning", "keepdim_warning"]


class Warning:  # noqa: A001 - torch's name
    """A switch with an ``enabled`` flag."""

    def __init__(self):
        self.enabled = False

    def set_enabled(self, value):
        self.enabled = bool(value)

    def get_enabled(self):
        return self.enabled


broadcast_warning = Warning()
keepdim_warning = Warning()
