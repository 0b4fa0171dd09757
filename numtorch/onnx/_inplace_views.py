"""In-place shape methods (``transpose_``, ``t_``, ``squeeze_``, ...) while the exporter traces.

They change a tensor's metadata only, so no op records them and the tensor kept the value it
had before: the exported graph skipped the reshape. While tracing, a call on a traced tensor
runs the out-of-place method (recorded), then the in-place one, and the tensor carries the
recorded result from then on.
"""

import threading

NAMES = {"transpose_": "transpose", "t_": "t", "squeeze_": "squeeze",
         "unsqueeze_": "unsqueeze", "swapdims_": "swapdims", "swapaxes_": "swapaxes"}


def _wrapped(original, out_of_place, tr_of):
    def call(self, *args, **kwargs):
        tr = tr_of()
        if tr is None or tr.paused or threading.get_ident() != tr.thread or \
                tr.value_of(self) is None:
            return original(self, *args, **kwargs)
        new = out_of_place(self, *args, **kwargs)
        tr.paused += 1
        try:
            original(self, *args, **kwargs)
        finally:
            tr.paused -= 1
        vid = tr.value_of(new)
        if vid is not None:
            tr._by_tensor[id(self)] = (vid, self._vc, self._vc[0])
            tr._by_array[id(self._array)] = vid
            tr._keep.append(self)
        return self
    return call


def install(tr_of, tensor_cls):
    saved = []
    for name, plain in NAMES.items():
        if not hasattr(tensor_cls, name):
            continue
        saved.append((tensor_cls, name, tensor_cls.__dict__.get(name)))
        setattr(tensor_cls, name, _wrapped(getattr(tensor_cls, name),
                                           getattr(tensor_cls, plain), tr_of))
    return saved
