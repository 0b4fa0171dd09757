"""``FloatFunctional`` (float ops with an observer slot, for eager-mode quantization of
additions and concatenations) and ``QFunctional``, its quantized counterpart."""

import numtorch as torch
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional"]

_NO_FORWARD = "FloatFunctional is not intended to use the 'forward'. Please use the " \
              "underlying operation"


class FloatFunctional(torch.nn.Module):
    """Use its methods (``add``, ``cat``, ``mul``, ``add_relu``, ``add_scalar``,
    ``mul_scalar``, ``matmul``) instead of the ``torch.`` functions so that ``prepare``
    can observe their outputs (``activation_post_process``) and ``convert`` can swap in
    :class:`QFunctional`."""

    def __init__(self):
        super().__init__()
        self.activation_post_process = torch.nn.Identity()

    def forward(self, x):
        raise RuntimeError(_NO_FORWARD)

    def add(self, x, y):
        return self.activation_post_process(torch.add(x, y))

    def add_scalar(self, x, y):
        return torch.add(x, y)

    def mul(self, x, y):
        return self.activation_post_process(torch.mul(x, y))

    def mul_scalar(self, x, y):
        return torch.mul(x, y)

    def cat(self, x, dim=0):
        return self.activation_post_process(torch.cat(x, dim=dim))

    def add_relu(self, x, y):
        return self.activation_post_process(torch.nn.functional.relu(torch.add(x, y)))

    def matmul(self, x, y):
        return self.activation_post_process(torch.matmul(x, y))


class FXFloatFunctional(torch.nn.Module):
    """:class:`FloatFunctional` without the observer slot (graph mode inserts observers
    itself)."""

    def forward(self, x):
        raise RuntimeError(_NO_FORWARD)

    def add(self, x, y):
        return torch.add(x, y)

    def add_scalar(self, x, y):
        return torch.add(x, y)

    def mul(self, x, y):
        return torch.mul(x, y)

    def mul_scalar(self, x, y):
        return torch.mul(x, y)

    def cat(self, x, dim=0):
        return torch.cat(x, dim=dim)

    def add_relu(self, x, y):
        return torch.nn.functional.relu(torch.add(x, y))

    def matmul(self, x, y):
        return torch.matmul(x, y)


class QFunctional(torch.nn.Module):
    """The quantized ops behind a converted :class:`FloatFunctional`: results are
    requantized to ``scale``/``zero_point`` (from the observer)."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0
        self.activation_post_process = torch.nn.Identity()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _get_name(self):
        return "QFunctional"

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"

    def forward(self, x):
        raise RuntimeError("Functional is not intended to use the 'forward'. Please use the "
                           "underlying operation")

    def add(self, x, y):
        return self.activation_post_process(_qp.add(x, y, self.scale, self.zero_point))

    def add_scalar(self, x, y):
        return _qp.add_scalar(x, y)

    def mul(self, x, y):
        return self.activation_post_process(_qp.mul(x, y, self.scale, self.zero_point))

    def mul_scalar(self, x, y):
        return _qp.mul_scalar(x, y)

    def cat(self, x, dim=0):
        return self.activation_post_process(_qp.cat(x, self.scale, self.zero_point, dim))

    def add_relu(self, x, y):
        return self.activation_post_process(_qp.add_relu(x, y, self.scale, self.zero_point))

    def matmul(self, x, y):
        return _qp.matmul(x, y, self.scale, self.zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized functional of an observed :class:`FloatFunctional`."""
        if type(mod) is not FloatFunctional:
            raise AssertionError(f"QFunctional.from_float expects an instance of "
                                 f"FloatFunctional, got {type(mod).__name__}")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        new = QFunctional()
        new.scale, new.zero_point = float(scale), int(zero_point)
        return new
