"""``torch.serialization.register_package``: user taggers/deserializers of storage locations.

torch keeps one registry of ``(priority, tagger, deserializer)`` entries, its own devices'
among them (cpu 10, cuda 20, mps 21, meta 22, privateuseone 23, hpu 24, xpu 25, mtia 26), and
runs them in priority order until one answers. numtorch's own devices are handled by the
loader itself; this registry holds the user's entries, and each is consulted where torch
would consult it: before the built-in device whose priority it beats, or for a location no
built-in device claims.
"""

import re

__all__ = ["SourceChangeWarning", "check_module_version_greater_or_equal",
           "default_restore_location", "location_tag", "register_package", "user_restore",
           "validate_cuda_device"]

_package_registry = []  # the user's (priority, tagger, deserializer), lowest priority first

# the priority of torch's own entry for each device type, and how it recognises a location
_BUILTIN = {"cpu": 10, "cuda": 20, "mps": 21, "meta": 22, "privateuseone": 23, "hpu": 24,
            "xpu": 25, "mtia": 26}


class SourceChangeWarning(Warning):
    """Warned by torch when a saved module's source differs from the loaded class's."""


def register_package(priority, tagger, deserializer):
    """Register ``tagger(storage) -> str | None`` (where a storage is saved from) and
    ``deserializer(storage, location) -> storage | None`` (where a loaded one goes), tried
    in order of ``priority`` (lower first) among torch's own devices' entries until one
    returns something other than ``None``.

    Note: numtorch consults the deserializers on load (and ``default_restore_location`` /
    ``location_tag`` run the whole chain); ``save`` tags numtorch's own tensors itself.
    """
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


def _builtin_priority(location):
    """The priority of the built-in entry that claims ``location``, or None."""
    if location in ("cpu", "meta"):
        return _BUILTIN[location]
    for kind in ("cuda", "mps", "privateuseone", "hpu", "xpu", "mtia"):
        if kind == "mps":
            if location.startswith("mps"):
                return _BUILTIN[kind]
        elif location == kind or re.match(f"{kind}(:|[0-9]+)", location):
            return _BUILTIN[kind]
    return None


def user_restore(storage, location):
    """The first non-None answer of the user's deserializers that come before the built-in
    one for ``location`` (all of them when no built-in device claims it), or None."""
    if not _package_registry:
        return None
    limit = _builtin_priority(location)
    for priority, _, deserializer in _package_registry[:]:
        if limit is not None and priority >= limit:
            break
        result = deserializer(storage, location)
        if result is not None:
            return result
    return None


def _typename(obj):
    cls = type(obj)
    if cls.__name__ in ("UntypedStorage", "TypedStorage"):
        return f"torch.storage.{cls.__name__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def validate_cuda_device(location):
    """The device index of a ``cuda[:i]`` location, or torch's error when CUDA cannot hold
    it."""
    from .. import cuda
    from .._device import as_device

    dev = as_device(location)
    index = dev.index or 0
    if not cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                           "torch.cuda.is_available() is False. If you are running on a "
                           "CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    count = cuda.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                           f"torch.cuda.device_count() is {count}. Please use torch.load with "
                           f"map_location to map your storages to an existing device.")
    return index


def default_restore_location(storage, location):
    """``storage`` restored at ``location`` by the registered deserializers, torch's default
    restore (the idiom ``map_location=lambda s, loc: default_restore_location(s, "cpu")``)."""
    result = user_restore(storage, location)
    if result is not None:
        return result
    if location == "cpu":
        return storage
    if location == "meta" and hasattr(storage, "to"):
        return storage.to("meta")
    if _builtin_priority(location) == _BUILTIN["cuda"]:
        return storage.cuda(validate_cuda_device(location))
    if _builtin_priority(location) is None:
        for _priority, _, deserializer in _package_registry[:]:  # (those after built-ins)
            result = deserializer(storage, location)
            if result is not None:
                return result
    raise RuntimeError(f"don't know how to restore data location of {_typename(storage)} "
                       f"(tagged with {location})")


def location_tag(storage):
    """The location string a storage is saved with (``"cpu"``, ``"cuda:0"``), asking the
    registered taggers first when they come before the built-in one of its device."""
    dev = storage.device
    kind = dev.type
    builtin = "cpu" if kind == "cpu" else (f"{kind}:{dev.index or 0}" if kind == "cuda"
                                           else kind)
    limit = _BUILTIN.get(kind)
    for priority, tagger, _ in _package_registry[:]:
        if limit is not None and priority >= limit:
            break
        tag = tagger(storage)
        if tag is not None:
            return tag
    if limit is not None:
        return builtin
    raise RuntimeError(f"don't know how to determine data location of {_typename(storage)}")


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether ``module.__version__`` ("x.y.z") is at least ``req_version_tuple`` (each field
    read as the type of the matching required field); a version that cannot be read that
    way raises RuntimeError, or with ``error_if_malformed=False`` warns and counts as met."""
    import warnings

    try:
        fields = module.__version__.split(".")
        have = tuple(type(want)(fields[i]) for i, want in enumerate(req_version_tuple))
        return have >= req_version_tuple
    except Exception as e:
        message = (f"'{module.__name__}' module version string is malformed "
                   f"'{module.__version__}' and cannot be compared with tuple "
                   f"{req_version_tuple!s}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met",
                      stacklevel=2)
        return True
