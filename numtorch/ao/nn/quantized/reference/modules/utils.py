"""The weight-quantization state reference modules share: parameters kept as buffers
(``weight_scale``, ``weight_zero_point``, ``weight_axis``) plus ``weight_qscheme`` and
``weight_dtype``, all saved in the state dict."""

import numtorch as torch

__all__ = ["ReferenceQuantizedModule"]

_SCHEMES = (None, torch.per_tensor_affine, torch.per_channel_affine,
            torch.per_channel_affine_float_qparams)


class ReferenceQuantizedModule(torch.nn.Module):
    """Mixin: stores weight quantization parameters; ``get_weight()`` is the weight after a
    quantize/dequantize round trip, ``get_quantized_weight()`` the quantized weight."""

    def _init_weight_qparams(self, weight_qparams, device):
        if weight_qparams is None:
            weight_qparams = {"qscheme": torch.per_tensor_affine, "dtype": torch.quint8,
                              "scale": 1.0, "zero_point": 0}
        self.weight_qscheme = weight_qparams["qscheme"]
        self.weight_dtype = weight_qparams["dtype"]
        if self.weight_qscheme not in _SCHEMES:
            raise AssertionError(f"qscheme: {self.weight_qscheme} is not supported in "
                                 f"reference quantized {self._get_name()}")
        if self.weight_dtype in (torch.quint8, torch.qint8, torch.quint4x2, torch.qint32):
            zp = weight_qparams["zero_point"]
            zp_dtype = zp.dtype if isinstance(zp, torch.Tensor) else torch.int
            scale = weight_qparams["scale"]
            self.register_buffer("weight_scale", scale.detach().clone() if isinstance(
                scale, torch.Tensor) else torch.tensor(scale, dtype=torch.float, device=device))
            self.register_buffer("weight_zero_point", zp.detach().clone() if isinstance(
                zp, torch.Tensor) else torch.tensor(zp, dtype=zp_dtype, device=device))
            if self.weight_qscheme in (torch.per_channel_affine,
                                       torch.per_channel_affine_float_qparams):
                axis = weight_qparams["axis"]
                self.register_buffer("weight_axis", axis.detach().clone() if isinstance(
                    axis, torch.Tensor) else torch.tensor(axis, dtype=torch.int, device=device))
            else:
                self.register_buffer("weight_axis", torch.tensor(0, dtype=torch.int,
                                                                 device=device))
        else:
            self.register_buffer("weight_scale", torch.tensor(1.0, dtype=torch.float,
                                                              device=device))
            self.register_buffer("weight_zero_point", torch.tensor(0, dtype=torch.int,
                                                                   device=device))
            self.register_buffer("weight_axis", torch.tensor(0, dtype=torch.int, device=device))
        self.is_decomposed = weight_qparams.get("is_decomposed", False)
        self.weight_axis_int = int(self.weight_axis.item())
        self.weight_quant_min = weight_qparams.get("quant_min")
        self.weight_quant_max = weight_qparams.get("quant_max")

    def get_quantized_weight(self):
        """The weight quantized with the stored parameters."""
        return _quantize_weight(self.weight, self.weight_qscheme, self.weight_dtype,
                                self.weight_scale, self.weight_zero_point,
                                self.weight_axis_int)

    def get_weight(self):
        """The weight after quantize and dequantize (the float weight when not quantized)."""
        if self.weight_qscheme in (torch.per_tensor_affine, torch.per_channel_affine,
                                   torch.per_channel_affine_float_qparams):
            return self.get_quantized_weight().dequantize()
        return self.weight

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight_qscheme"] = self.weight_qscheme
        destination[prefix + "weight_dtype"] = self.weight_dtype
        if self.weight_qscheme is not None:
            destination[prefix + "weight_scale"] = self.weight_scale
            destination[prefix + "weight_zero_point"] = self.weight_zero_point
            if self.weight_qscheme == torch.per_channel_affine:
                destination[prefix + "weight_axis"] = self.weight_axis

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        keys = ["weight_qscheme", "weight_dtype"]
        if state_dict[prefix + "weight_qscheme"] is not None:
            keys += ["weight_scale", "weight_zero_point"]
        for key in keys:
            setattr(self, key, state_dict.pop(prefix + key))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)


def _quantize_weight(weight, qscheme, dtype, scale, zero_point, axis):
    if dtype == torch.float16:
        return weight.to(dtype)
    if qscheme == torch.per_tensor_affine and dtype in (torch.quint8, torch.qint8,
                                                        torch.qint32):
        return torch.quantize_per_tensor(weight, scale, zero_point, dtype)
    if qscheme in (torch.per_channel_affine, torch.per_channel_affine_float_qparams) and \
            dtype in (torch.quint8, torch.qint8, torch.quint4x2, torch.qint32):
        return torch.quantize_per_channel(weight, scale, zero_point, axis, dtype)
    raise ValueError(f"Unsupported dtype and qscheme: {dtype}, {qscheme}")
