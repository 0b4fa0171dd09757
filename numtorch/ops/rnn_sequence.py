"""Whole-sequence primitives for the recurrent layers: one graph node per layer direction.

Why primitives: written with per-step ops (even with a fused LSTM cell), each time step costs
several graph nodes forward and about twice as many backward (recurrent matmul, add, gates,
their gradients and accumulation), and that per-op overhead is most of a small recurrent
layer's time. Here the forward and the backpropagation through time are two NumPy loops over
time; whatever does not depend on the previous step (gate derivatives, the recurrent weight's
gradient) is computed for all steps at once, and each loop step is a few in-place array calls.

The GRU and RNN ops take the input projections ``xs`` (T, B, G) (``x W_ih^T`` plus the biases
that can be folded in), the initial state and the recurrent weight; the LSTM op takes the
input and both weights and does its projection itself (see ``LSTMSequence``, which also keeps
its loop feature-major). ``mask`` (T, B, 1) bool marks the
steps that are real for each sequence of a packed batch: elsewhere the state passes through
unchanged, so the final state is the one at each sequence's true length. ``reverse`` runs from
the last step. The BPTT loop is ``backward_arrays``, which the engine runs when no graph is
being built; ``backward``, for ``create_graph``, recomputes the layer step by step with
differentiable ops (each op's ``steps``) and differentiates that, so double backward works.

The ops: ``rnn_lstm`` (LSTM), ``rnn_gru`` (GRU), ``rnn_elman`` (tanh / relu RNN); what they share
is in ``rnn_sequence_base``. This module is their public entry point.
"""

from .rnn_elman import rnn_sequence
from .rnn_gru import gru_sequence, gru_update
from .rnn_lstm import lstm_sequence
from .rnn_sequence_base import _run_steps  # noqa: F401  (the autocast RNN forms' loop)

__all__ = ["lstm_sequence", "gru_sequence", "rnn_sequence", "gru_update"]
