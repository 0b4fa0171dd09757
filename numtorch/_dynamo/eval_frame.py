"""The module wrapper ``torch.compile`` returns."""

import functools

from ..nn.modules.module import Module

__all__ = ["OptimizeContext", "OptimizedModule"]


class OptimizeContext:
    """``compiled.dynamo_ctx``: applied to a function, returns it "compiled" (numtorch has no
    compiler: the function runs as written). ``callback`` is the backend asked for."""

    def __init__(self, callback=None):
        self.callback = callback

    def __call__(self, fn):
        @functools.wraps(fn)
        def _fn(*args, **kwargs):
            return fn(*args, **kwargs)

        return _fn


class OptimizedModule(Module):
    """What ``torch.compile(module)`` returns: the module as ``_orig_mod``, called unchanged.

    Attributes the wrapper does not have are read from and written to the wrapped module, and
    ``training`` is the wrapped module's, so code written for a plain module keeps working;
    ``state_dict()`` keys start with ``_orig_mod.``, as torch's do.
    """

    def __init__(self, mod, dynamo_ctx=None):
        super().__init__()
        self._orig_mod = mod
        # a plain attribute (not a submodule): Lightning re-wraps hooks with it
        self.__dict__["dynamo_ctx"] = dynamo_ctx if dynamo_ctx is not None else \
            OptimizeContext()

    @property
    def training(self):
        inner = self.__dict__.get("_modules", {}).get("_orig_mod")
        return self.__dict__.get("_own_training", True) if inner is None else inner.training

    @training.setter
    def training(self, mode):
        inner = self.__dict__.get("_modules", {}).get("_orig_mod")
        if inner is None:
            self.__dict__["_own_training"] = mode
        else:
            inner.training = mode

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            inner = self.__dict__.get("_modules", {}).get("_orig_mod")
            if inner is None:
                raise
            return getattr(inner, name)

    def __setattr__(self, name, value):
        inner = self.__dict__.get("_modules", {}).get("_orig_mod")
        if inner is None or name == "_orig_mod" or name in self.__dict__ or \
                isinstance(getattr(type(self), name, None), property):
            super().__setattr__(name, value)
        else:
            setattr(inner, name, value)
