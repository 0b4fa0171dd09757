"""Dynamically quantized modules."""

from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .rnn import GRU, LSTM, GRUCell, LSTMCell, RNNCell

__all__ = ["Linear", "LSTM", "GRU", "LSTMCell", "RNNCell", "GRUCell", "Conv1d", "Conv2d",
           "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]
