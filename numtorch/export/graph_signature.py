"""``torch.export.graph_signature``: what each input and output of an exported graph is."""

import enum
from dataclasses import dataclass


class InputKind(enum.Enum):
    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4
    CUSTOM_OBJ = 5
    TOKEN = 6


class OutputKind(enum.Enum):
    USER_OUTPUT = 1
    LOSS_OUTPUT = 2
    BUFFER_MUTATION = 3
    GRADIENT_TO_PARAMETER = 4
    GRADIENT_TO_USER_INPUT = 5
    USER_INPUT_MUTATION = 6
    TOKEN = 7
    PARAMETER_MUTATION = 8


@dataclass
class TensorArgument:
    name: str


@dataclass
class ConstantArgument:
    name: str
    value: object


@dataclass
class InputSpec:
    kind: InputKind
    arg: object
    target: object
    persistent: object = None


@dataclass
class OutputSpec:
    kind: OutputKind
    arg: object
    target: object


class ExportGraphSignature:
    """Which graph inputs are parameters, buffers, constants or user inputs, and the outputs."""

    def __init__(self, input_specs, output_specs):
        self.input_specs, self.output_specs = list(input_specs), list(output_specs)

    def _names(self, kind, field="target"):
        return tuple(getattr(s, field) if field == "target" else s.arg.name
                     for s in self.input_specs if s.kind == kind)

    @property
    def parameters(self):
        return self._names(InputKind.PARAMETER)

    @property
    def buffers(self):
        return self._names(InputKind.BUFFER)

    @property
    def non_persistent_buffers(self):
        return tuple(s.target for s in self.input_specs
                     if s.kind == InputKind.BUFFER and s.persistent is False)

    @property
    def lifted_tensor_constants(self):
        return self._names(InputKind.CONSTANT_TENSOR)

    @property
    def lifted_custom_objs(self):
        return ()

    @property
    def user_inputs(self):
        return tuple(s.arg.value if isinstance(s.arg, ConstantArgument) else s.arg.name
                     for s in self.input_specs if s.kind == InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        return tuple(getattr(s.arg, "name", None) for s in self.output_specs
                     if s.kind == OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.BUFFER}

    @property
    def inputs_to_lifted_tensor_constants(self):
        return {s.arg.name: s.target for s in self.input_specs
                if s.kind == InputKind.CONSTANT_TENSOR}

    @property
    def buffers_to_mutate(self):
        return {}

    @property
    def user_inputs_to_mutate(self):
        return {}

    @property
    def backward_signature(self):
        return None

    @property
    def assertion_dep_token(self):
        return None

    def __str__(self):
        lines = ["", "# inputs"]
        for s in self.input_specs:
            extra = "" if s.target is None else f" target={s.target!r}"
            if s.kind == InputKind.BUFFER:
                extra += f" persistent={s.persistent}"
            lines.append(f"{s.arg.name}: {s.kind.name}{extra}")
        lines += ["", "# outputs"]
        for s in self.output_specs:
            lines.append(f"{getattr(s.arg, 'name', s.arg)}: {s.kind.name}")
        return "\n".join(lines) + "\n"
