"""``PrepareCustomConfig``/``ConvertCustomConfig``/``FuseCustomConfig``: extra settings of
the FX quantization entry points. numtorch honours non-traceable module names/classes
(traced as leaves and left in float) and preserved attributes (copied onto the result);
the others (standalone modules, custom module mappings, quantized input/output indexes) make
``prepare_fx``/``convert_fx`` raise ``NotImplementedError``."""

__all__ = ["ConvertCustomConfig", "FuseCustomConfig", "PrepareCustomConfig"]

_NON_TRACEABLE_NAME = "non_traceable_module_name"
_NON_TRACEABLE_CLASS = "non_traceable_module_class"
_PRESERVED = "preserved_attributes"


class PrepareCustomConfig:
    """Settings of ``prepare_fx``/``prepare_qat_fx``; each ``set_*`` returns the config."""

    def __init__(self):
        self.standalone_module_names = {}
        self.standalone_module_classes = {}
        self.float_to_observed_mapping = {}
        self.non_traceable_module_names = []
        self.non_traceable_module_classes = []
        self.input_quantized_indexes = []
        self.output_quantized_indexes = []
        self.preserved_attributes = []

    def __repr__(self):
        parts = {k: v for k, v in self.__dict__.items() if v}
        return f"PrepareCustomConfig({parts})"

    def set_standalone_module_name(self, module_name, qconfig_mapping, example_inputs,
                                   prepare_custom_config, backend_config):
        self.standalone_module_names[module_name] = (qconfig_mapping, example_inputs,
                                                     prepare_custom_config, backend_config)
        return self

    def set_standalone_module_class(self, module_class, qconfig_mapping, example_inputs,
                                    prepare_custom_config, backend_config):
        self.standalone_module_classes[module_class] = (qconfig_mapping, example_inputs,
                                                        prepare_custom_config, backend_config)
        return self

    def set_float_to_observed_mapping(self, float_class, observed_class, quant_type=None):
        self.float_to_observed_mapping.setdefault(quant_type, {})[float_class] = observed_class
        return self

    def set_non_traceable_module_names(self, module_names):
        """Modules (by qualified name) traced as one call and kept in float."""
        self.non_traceable_module_names = list(module_names)
        return self

    def set_non_traceable_module_classes(self, module_classes):
        """Module classes traced as one call and kept in float."""
        self.non_traceable_module_classes = list(module_classes)
        return self

    def set_input_quantized_indexes(self, indexes):
        self.input_quantized_indexes = list(indexes)
        return self

    def set_output_quantized_indexes(self, indexes):
        self.output_quantized_indexes = list(indexes)
        return self

    def set_preserved_attributes(self, attributes):
        """Attributes of the model copied onto the prepared (and converted) GraphModule."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, prepare_custom_config_dict):
        """A config from the dictionary form (``non_traceable_module_name``,
        ``non_traceable_module_class``, ``preserved_attributes``, ...)."""
        conf = cls()
        d = prepare_custom_config_dict
        conf.set_non_traceable_module_names(d.get(_NON_TRACEABLE_NAME, []))
        conf.set_non_traceable_module_classes(d.get(_NON_TRACEABLE_CLASS, []))
        conf.set_preserved_attributes(d.get(_PRESERVED, []))
        conf.set_input_quantized_indexes(d.get("input_quantized_idxs", []))
        conf.set_output_quantized_indexes(d.get("output_quantized_idxs", []))
        for name, *rest in d.get("standalone_module_name", []):
            conf.standalone_module_names[name] = tuple(rest)
        for klass, *rest in d.get("standalone_module_class", []):
            conf.standalone_module_classes[klass] = tuple(rest)
        for quant_type, mapping in d.get("float_to_observed_custom_module_class", {}).items():
            conf.float_to_observed_mapping[quant_type] = dict(mapping)
        return conf

    def to_dict(self):
        """The dictionary form (only the settings that are set)."""
        d = {}
        if self.non_traceable_module_names:
            d[_NON_TRACEABLE_NAME] = self.non_traceable_module_names
        if self.non_traceable_module_classes:
            d[_NON_TRACEABLE_CLASS] = self.non_traceable_module_classes
        if self.input_quantized_indexes:
            d["input_quantized_idxs"] = self.input_quantized_indexes
        if self.output_quantized_indexes:
            d["output_quantized_idxs"] = self.output_quantized_indexes
        if self.preserved_attributes:
            d[_PRESERVED] = self.preserved_attributes
        return d

    def unsupported(self):
        """The set settings numtorch does not implement (names for an error message)."""
        names = ("standalone_module_names", "standalone_module_classes",
                 "float_to_observed_mapping", "input_quantized_indexes",
                 "output_quantized_indexes")
        return [n for n in names if getattr(self, n)]


class ConvertCustomConfig:
    """Settings of ``convert_fx``; each ``set_*`` returns the config."""

    def __init__(self):
        self.observed_to_quantized_mapping = {}
        self.preserved_attributes = []

    def set_observed_to_quantized_mapping(self, observed_class, quantized_class,
                                          quant_type=None):
        self.observed_to_quantized_mapping.setdefault(quant_type, {})[observed_class] = \
            quantized_class
        return self

    def set_preserved_attributes(self, attributes):
        """Attributes of the prepared model copied onto the converted one."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, convert_custom_config_dict):
        conf = cls()
        conf.set_preserved_attributes(convert_custom_config_dict.get(_PRESERVED, []))
        for quant_type, mapping in convert_custom_config_dict.get(
                "observed_to_quantized_custom_module_class", {}).items():
            conf.observed_to_quantized_mapping[quant_type] = dict(mapping)
        return conf

    def to_dict(self):
        return {_PRESERVED: self.preserved_attributes} if self.preserved_attributes else {}

    def unsupported(self):
        return ["observed_to_quantized_mapping"] if self.observed_to_quantized_mapping else []


class FuseCustomConfig:
    """Settings of ``fuse_fx``."""

    def __init__(self):
        self.preserved_attributes = []

    def set_preserved_attributes(self, attributes):
        """Attributes of the model copied onto the fused GraphModule."""
        self.preserved_attributes = list(attributes)
        return self

    @classmethod
    def from_dict(cls, fuse_custom_config_dict):
        return cls().set_preserved_attributes(fuse_custom_config_dict.get(_PRESERVED, []))

    def to_dict(self):
        return {_PRESERVED: self.preserved_attributes} if self.preserved_attributes else {}

    def unsupported(self):
        return []
