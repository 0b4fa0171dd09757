"""``torch.nn.factory_kwargs``: the helper modules use to gather their tensor-creation
arguments."""

__all__ = ["factory_kwargs"]

_SIMPLE = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs):
    """The tensor-creation keywords (``device``, ``dtype``, ``memory_format``) in ``kwargs``,
    merged with the dict under its ``"factory_kwargs"`` key.

    Args:
        kwargs (dict or None): a module constructor's keyword arguments.

    Returns:
        dict: the merged keywords (``{}`` for None).

    Raises:
        TypeError: for any other key, or a keyword given both ways.

    Example:
        >>> torch.nn.factory_kwargs({"factory_kwargs": {"device": "cpu"}, "dtype": torch.half})
        {'device': 'cpu', 'dtype': torch.float16}
    """
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - set(_SIMPLE) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    merged = dict(kwargs.get("factory_kwargs", {}))
    for key, value in kwargs.items():
        if key == "factory_kwargs":
            continue
        if key in merged:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        merged[key] = value
    return merged


factory_kwargs.__module__ = "numtorch.nn"  # torch defines it in torch.nn itself
