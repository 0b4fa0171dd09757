"""Quantized BatchNorm+ReLU."""

import numtorch as torch
from numtorch.ao.nn import intrinsic as nni
from numtorch.ao.nn.quantized.modules import batchnorm as nnq_bn
from numtorch.ops import quantized_pointwise as _qp

__all__ = ["BNReLU2d", "BNReLU3d"]


def _bn_relu(base, nd):
    def forward(self, input):
        self._check_input_dim(input)
        out = _qp.batch_norm(input, self.weight, self.bias, self.running_mean,
                             self.running_var, self.eps, float(self.scale),
                             int(self.zero_point), op=f"batch_norm{nd}d_relu")
        return torch.nn.functional.relu(out)

    def _get_name(self):
        return f"QuantizedBNReLU{nd}d"

    return type(f"BNReLU{nd}d", (base,), {
        "forward": forward, "_get_name": _get_name, "__module__": __name__,
        "_FLOAT_MODULE": getattr(nni, f"BNReLU{nd}d"),
        "__doc__": f"Quantized BatchNorm{nd}d followed by ReLU."})


BNReLU2d = _bn_relu(nnq_bn.BatchNorm2d, 2)
BNReLU3d = _bn_relu(nnq_bn.BatchNorm3d, 3)
