"""Each convolution kernel path against torch (values, gradients, second order), asserting the
path really ran: a shape class that stops reaching its kernel fails here, not just slows down.
"""

import pytest

from numtorch.ops import conv as conv_ops
from numtorch.ops import conv_nhwc, conv_phases
from tests.nn._conv_cases import conv as _conv
from tests.nn._conv_cases import conv_t as _conv_t
from tests.oracle import check_op

# stride-1 input gradients computed as a convolution of the output gradient
INPUT_AS_CONV = [
    (_conv(2, padding=1), [(2, 8, 6, 5), (4, 8, 3, 3), (4,)]),
    (_conv(2, padding=3, dilation=(1, 2)), [(2, 8, 5, 6), (3, 8, 3, 2)]),  # pad > kernel: crop
    (_conv(2, padding="same"), [(2, 8, 5, 6), (3, 8, 4, 2)]),  # asymmetric pads
    (_conv(2, padding=1, groups=8), [(2, 8, 5, 5), (8, 1, 3, 3)]),  # depthwise
    (_conv(2, groups=4), [(2, 8, 6, 5), (12, 2, 3, 2)]),  # grouped, no padding
    (_conv(1, padding=2, dilation=2), [(3, 9, 7), (4, 9, 3)]),
    (_conv(3, padding=(1, 0, 1)), [(2, 8, 3, 4, 3), (2, 8, 2, 3, 2)]),
    # a stride-1 transposed convolution's forward (output padding below the dilation)
    (_conv_t(2, padding=1, dilation=2, output_padding=1), [(2, 3, 4, 5), (3, 8, 3, 3), (8,)]),
    (_conv_t(1, groups=2), [(2, 4, 6), (4, 5, 3)]),
]


@pytest.mark.parametrize("case", range(len(INPUT_AS_CONV)))
def test_stride1_input_gradient_as_conv_matches_torch(paths, case):
    fn, shapes = INPUT_AS_CONV[case]
    check_op(fn, shapes)
    assert "input-as-conv" in paths and "input-col2im" not in paths


def test_float32_stride1_input_gradient_as_conv_matches_torch(paths):
    check_op(_conv(2, padding=1), [(4, 16, 12, 12), (16, 16, 3, 3)], dtype="float32",
             second_order=False)
    assert "input-as-conv" in paths


@pytest.mark.parametrize("fn,shapes", [
    (_conv(2, padding=1), [(2, 3, 6, 5), (4, 3, 3, 3)]),  # few input channels
    (_conv(2, stride=2, padding=1), [(2, 8, 7, 6), (4, 8, 3, 3)]),  # strided
])
def test_input_gradient_by_col2im_matches_torch(paths, fn, shapes):
    check_op(fn, shapes)
    assert "input-col2im" in paths and "input-as-conv" not in paths


# stride-1 transposed convolutions whose output is many times their input (a GAN's first
# layer on a 1x1 input): convolving the padded input would multiply mostly zeros
SMALL_INPUT_TRANSPOSED = [
    (_conv_t(2, padding=1), [(3, 6, 1, 1), (6, 8, 4, 4), (8,)]),  # 1x1 -> 2x2
    (_conv_t(2, padding=(1, 0)), [(2, 5, 2, 2), (5, 9, 5, 3)]),  # 2x2 -> 4x4
    (_conv_t(1, groups=2), [(2, 4, 2), (4, 4, 6)]),  # 2 -> 7
]


@pytest.mark.parametrize("case", range(len(SMALL_INPUT_TRANSPOSED)))
def test_stride1_transposed_conv_of_a_small_input_uses_col2im(paths, case):
    fn, shapes = SMALL_INPUT_TRANSPOSED[case]
    check_op(fn, shapes)
    assert paths[0] == "input-col2im"


def test_float32_transposed_conv_of_a_1x1_input_matches_torch(paths):
    check_op(_conv_t(2, padding=1), [(8, 20, 1, 1), (20, 16, 4, 4), (16,)], dtype="float32",
             second_order=False)
    assert paths[0] == "input-col2im"


# kernels covering the whole unpadded input (dcgan's last discriminator layer, its
# generator's first layer on 1x1 noise): one GEMM over the flattened samples
WHOLE = [
    (_conv(2), [(3, 6, 4, 4), (1, 6, 4, 4), (1,)]),  # 512 -> 1 on 4x4, scaled down
    (_conv(2, stride=3), [(2, 5, 3, 2), (4, 5, 3, 2)]),  # the stride is never used
    (_conv(1), [(2, 3, 5), (4, 3, 5), (4,)]),
    (_conv(3), [(2, 2, 2, 3, 2), (3, 2, 2, 3, 2)]),
    (_conv_t(2), [(3, 6, 1, 1), (6, 8, 4, 4), (8,)]),  # 1x1 -> 4x4
    (_conv_t(2, stride=2), [(2, 5, 1, 1), (5, 3, 3, 2)]),
]


@pytest.mark.parametrize("case", range(len(WHOLE)))
def test_kernel_over_the_whole_input_is_one_gemm(paths, case):
    fn, shapes = WHOLE[case]
    check_op(fn, shapes)
    assert {"forward-whole", "input-whole", "weight-whole"} <= set(paths)
    assert not any(p.endswith(("im2col", "col2im")) for p in paths)


@pytest.mark.parametrize("fn,shapes", [
    (_conv(2), [(8, 20, 4, 4), (3, 20, 4, 4), (3,)]),
    (_conv_t(2), [(8, 20, 1, 1), (20, 16, 4, 4), (16,)]),
    (_conv(2), [(0, 4, 3, 3), (2, 4, 3, 3), (2,)]),  # an empty batch
])
def test_float32_kernel_over_the_whole_input_matches_torch(paths, fn, shapes):
    check_op(fn, shapes, dtype="float32", second_order=False)
    assert "forward-whole" in paths or "input-whole" in paths


def test_padding_groups_or_dilation_keep_the_general_paths(paths):
    check_op(_conv(2, padding=1), [(2, 4, 4, 4), (3, 4, 4, 4)], second_order=False)
    check_op(_conv(2, groups=2), [(2, 4, 3, 3), (2, 2, 3, 3)], second_order=False)
    check_op(_conv(2, dilation=2), [(2, 4, 3, 3), (2, 4, 2, 2)], second_order=False)
    assert not any(p.endswith("-whole") for p in paths)


# 1x1 convolutions: plain GEMMs, per sample or (maps under 32 positions) over all samples
POINTWISE = [
    (_conv(2), [(2, 6, 12, 12), (4, 6, 1, 1), (4,)]),
    (_conv(2, stride=2, groups=2), [(2, 6, 24, 23), (4, 3, 1, 1)]),  # strided: a subsample
    (_conv(1, stride=3), [(2, 5, 400), (3, 5, 1)]),
    # transposed 1x1: the forward is the input-gradient GEMM scattered into a larger output
    (_conv_t(2, stride=2, output_padding=1), [(2, 4, 12, 12), (4, 3, 1, 1), (3,)]),
    # small maps: one GEMM over every sample's positions (all three passes)
    (_conv(2), [(3, 6, 2, 3), (5, 6, 1, 1), (5,)]),
    (_conv(2, stride=2, groups=3), [(2, 6, 7, 5), (9, 2, 1, 1), (9,)]),
    (_conv(1), [(4, 8, 5), (3, 8, 1)]),
    (_conv(3), [(2, 4, 2, 2, 3), (6, 4, 1, 1, 1), (6,)]),
    (_conv_t(2, stride=2), [(2, 4, 3, 3), (4, 5, 1, 1), (5,)]),
    # the weight gradient's one GEMM: more channel pairs than positions times channels
    (_conv(2), [(2, 24, 2, 2), (40, 24, 1, 1)]),
]


@pytest.mark.parametrize("case", range(len(POINTWISE)))
def test_pointwise_conv_is_a_gemm_and_matches_torch(paths, case):
    fn, shapes = POINTWISE[case]
    check_op(fn, shapes)
    assert {"forward-1x1", "input-1x1", "weight-1x1"} <= set(paths)
    assert not {"forward-im2col", "weight-im2col", "input-col2im"} & set(paths)


def test_pointwise_conv_on_a_small_map_float32(paths):
    check_op(_conv(2, stride=2), [(2, 6, 8, 8), (4, 6, 1, 1), (4,)], dtype="float32",
             second_order=False)  # 16 positions
    assert "forward-1x1" in paths and "forward-im2col" not in paths


def test_pointwise_conv_empty_batch_and_float32(paths):
    check_op(_conv(2), [(0, 6, 12, 12), (4, 6, 1, 1)])
    check_op(_conv(2, stride=2), [(3, 8, 24, 24), (16, 8, 1, 1), (16,)], dtype="float32",
             second_order=False)
    assert "forward-1x1" in paths


# depthwise (one filter per channel) stride-1 convolutions on flat padded planes
DEPTHWISE = [
    (_conv(2, padding=1, groups=4), [(2, 4, 6, 5), (4, 1, 3, 3), (4,)]),
    (_conv(2, padding="same", dilation=(2, 1), groups=3), [(2, 3, 7, 6), (3, 1, 2, 4)]),
    (_conv(2, groups=3), [(2, 3, 5, 6), (3, 1, 2, 3)]),  # no padding
    (_conv(2, padding=(0, 3), groups=2), [(1, 2, 4, 3), (2, 1, 3, 2)]),  # pad > kernel
    (_conv(1, padding=2, dilation=2, groups=5), [(3, 5, 9), (5, 1, 3)]),
    (_conv(3, padding=1, groups=2), [(2, 2, 3, 4, 3), (2, 1, 3, 3, 2)]),
]


@pytest.mark.parametrize("case", range(len(DEPTHWISE)))
def test_depthwise_conv_on_flat_planes_matches_torch(monkeypatch, paths, case):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)  # s41: small maps take the GEMV kernel
    fn, shapes = DEPTHWISE[case]
    check_op(fn, shapes)
    assert {"forward-depthwise", "weight-depthwise", "input-as-conv"} <= set(paths)
    assert not {"forward-im2col", "weight-im2col"} & set(paths)


def test_float32_depthwise_conv_matches_torch(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)  # s41: small maps take the GEMV kernel
    check_op(_conv(2, padding=1, groups=16), [(4, 16, 20, 20), (16, 1, 3, 3), (16,)],
             dtype="float32", second_order=False)
    assert "forward-depthwise" in paths and "weight-depthwise" in paths


@pytest.mark.parametrize("fn,shapes", [
    (_conv(2, padding=1, groups=4), [(2, 4, 6, 5), (8, 1, 3, 3)]),  # two filters per channel
    (_conv(2, stride=2, padding=1, groups=4), [(2, 4, 7, 6), (4, 1, 3, 3)]),  # strided
])
def test_other_grouped_convs_use_im2col(monkeypatch, paths, fn, shapes):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)  # s41: small maps take the GEMV kernel
    check_op(fn, shapes)
    assert "forward-im2col" in paths and "forward-depthwise" not in paths


@pytest.mark.parametrize("direct", [1, 1 << 40])
def test_weight_gradient_in_blocks_either_orientation_matches_torch(monkeypatch, paths, direct):
    # gy @ cols^T straight into the weight's layout, or cols @ gy^T and one final transpose
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    monkeypatch.setattr(conv_ops, "_DIRECT_WEIGHT_ELEMENTS", direct)
    check_op(_conv(2, stride=2, padding=1, groups=2), [(3, 4, 7, 6), (6, 2, 3, 3), (6,)])
    # one sample per block (with one BLAS thread gy is read as a transposed view, no copy)
    check_op(_conv(2, stride=2, padding=3), [(3, 3, 12, 11), (4, 3, 7, 7), (4,)],
             dtype="float32", second_order=False, non_contiguous=True)
    assert "weight-im2col" in paths


def test_small_maps_are_not_cut_into_skinny_blocks(monkeypatch):
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    # 16 positions per sample: a block takes enough samples for 512 GEMM columns
    assert conv_ops._chunk(64, conv_ops._BLOCK_BYTES, 16) == 512 // 16
    assert conv_ops._chunk(64, conv_ops._BLOCK_BYTES // 4, 3136) == 4  # cache-sized


# strided depthwise input gradients (and strided depthwise transposed convolutions)
DEPTHWISE_STRIDED = [
    (_conv(2, stride=2, padding=1, groups=4), [(2, 4, 7, 6), (4, 1, 3, 3), (4,)]),
    (_conv(2, stride=(3, 2), dilation=(1, 2), groups=3), [(2, 3, 8, 9), (3, 1, 2, 3)]),
    (_conv(1, stride=2, padding=2, groups=5), [(3, 5, 9), (5, 1, 4)]),
    (_conv(3, stride=2, padding=1, groups=2), [(1, 2, 5, 4, 5), (2, 1, 3, 2, 3)]),
    (_conv_t(2, stride=2, padding=1, output_padding=1, groups=3), [(2, 3, 4, 5), (3, 1, 3, 3)]),
]


@pytest.mark.parametrize("case", range(len(DEPTHWISE_STRIDED)))
def test_strided_depthwise_input_gradient_matches_torch(monkeypatch, paths, case):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)  # s41: 2-d ones take the GEMV kernel
    fn, shapes = DEPTHWISE_STRIDED[case]
    check_op(fn, shapes)
    assert "input-depthwise" in paths and "input-col2im" not in paths


def test_depthwise_conv_empty_batch_matches_torch(paths):
    check_op(_conv(2, padding=1, groups=4), [(0, 4, 5, 5), (4, 1, 3, 3)])
    check_op(_conv(2, stride=2, padding=1, groups=4), [(0, 4, 5, 5), (4, 1, 3, 3)])
    # an empty batch's weight gradient is zeros before any kernel is chosen (s49)
    assert {"forward-depthwise", "input-depthwise"} <= set(paths)


def test_fast_paths_take_non_contiguous_inputs(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_DW_GEMV", False)  # s41: small maps take the GEMV kernel
    check_op(_conv(2, padding=1, groups=4), [(2, 4, 6, 5), (4, 1, 3, 3)], non_contiguous=True)
    check_op(_conv(2, stride=2), [(2, 6, 24, 24), (4, 6, 1, 1)], non_contiguous=True)
    check_op(lambda t, x, w: _conv(2, padding=1, groups=4)(t, x, w).sum(), [(2, 4, 6, 5),
                                                                          (4, 1, 3, 3)])
    assert {"forward-depthwise", "forward-1x1"} <= set(paths)


# 2-d stride-1 convolutions with few channels over wide rows: im2col from flat padded planes
FLAT = [
    (_conv(2, padding=1), [(2, 3, 4, 34), (4, 3, 3, 3), (4,)]),
    (_conv(2, padding="same", dilation=(2, 1), groups=2), [(2, 4, 5, 33), (6, 2, 2, 4)]),
    (_conv(2), [(2, 2, 4, 36), (3, 2, 3, 5)]),  # no padding
    (_conv(2, padding=(0, 4)), [(1, 2, 3, 30), (2, 2, 2, 3)]),  # padding wider than the kernel
    # the stride-1 input gradient (a convolution of gy) lands here too
    (_conv_t(2, padding=1, groups=2), [(2, 4, 3, 32), (4, 5, 3, 3)]),
]


@pytest.mark.parametrize("case", range(len(FLAT)))
def test_flat_plane_im2col_matches_torch(paths, case):
    fn, shapes = FLAT[case]
    check_op(fn, shapes)
    assert "forward-flat" in paths and "forward-im2col" not in paths


def test_flat_plane_im2col_float32_in_blocks(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    check_op(_conv(2, padding=1), [(3, 8, 6, 32), (8, 8, 3, 3), (8,)], dtype="float32",
             second_order=False)
    assert "forward-flat" in paths


def test_many_channels_or_narrow_rows_use_im2col(paths):
    # forward only: the input gradient of the first is a 2-channel convolution, which is flat
    check_op(_conv(2, padding=1), [(1, 64, 3, 32), (2, 64, 3, 3)], grad=False)
    check_op(_conv(2, padding=1), [(2, 3, 5, 16), (4, 3, 3, 3)], grad=False)
    assert "forward-im2col" in paths and "forward-flat" not in paths

# strided 2-d convolutions whose im2col columns come from phase planes (ops/conv_phases.py)
PHASES = [
    (_conv(2, stride=2, padding=3), [(2, 3, 13, 12), (4, 3, 7, 7), (4,)]),  # a ResNet stem
    (_conv(2, stride=2, padding=1), [(2, 4, 9, 8), (5, 4, 3, 3)]),
    (_conv(2, stride=2), [(2, 4, 10, 9), (3, 4, 3, 3)]),  # no padding, odd width
    (_conv(2, stride=3, padding=1), [(1, 3, 11, 10), (2, 3, 3, 3), (2,)]),  # 3x3 phases
    (_conv(2, stride=(2, 3), padding=(1, 2)), [(2, 3, 9, 12), (4, 3, 3, 5)]),
    (_conv(2, stride=2, padding=(2, 0)), [(2, 2, 7, 9), (3, 2, 5, 2)]),  # even kernel width
    (_conv(2, stride=4), [(2, 3, 9, 9), (2, 3, 5, 5)]),  # kernel past two strides
    (_conv(2, stride=2, padding=1, groups=2), [(2, 4, 8, 8), (6, 2, 3, 3)]),
    (_conv(2, stride=(1, 2), padding=1), [(2, 3, 6, 9), (4, 3, 3, 3)]),  # strided in one dim
    # a strided transposed convolution's input gradient is this convolution of its gradient
    (_conv_t(2, stride=2, padding=1), [(2, 4, 4, 5), (4, 3, 3, 3)]),
]


@pytest.mark.parametrize("case", range(len(PHASES)))
def test_phase_plane_columns_match_torch(monkeypatch, paths, case):
    monkeypatch.setattr(conv_phases, "MIN_WIDTH", 1)
    monkeypatch.setattr(conv_ops, "_PER_SAMPLE_MAX_DEPTH", 0)  # few channels: im2col here
    fn, shapes = PHASES[case]
    check_op(fn, shapes)
    assert "columns-phases" in paths


def test_phase_plane_columns_float32_in_blocks(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    check_op(_conv(2, stride=2, padding=3), [(3, 3, 70, 68), (8, 3, 7, 7), (8,)],
             dtype="float32", second_order=False)
    assert paths.count("columns-phases") >= 2  # forward and weight gradient


def test_narrow_strided_outputs_keep_the_strided_view(paths):
    # output rows shorter than MIN_WIDTH: the 3x3 stride-2 convs of a ResNet's later stages
    check_op(_conv(2, stride=2, padding=1), [(2, 8, 14, 14), (8, 8, 3, 3)], grad=False)
    check_op(_conv(2, stride=2), [(2, 8, 14, 14), (8, 8, 1, 1)], grad=False)  # 1x1: one phase
    assert "columns-phases" not in paths


# forwards and weight gradients of few input channels times taps: one GEMM per sample
PER_SAMPLE = [
    (_conv(2), [(3, 1, 14, 13), (4, 1, 3, 3), (4,)]),  # an MNIST first layer
    (_conv(2, padding=1, stride=2), [(2, 3, 24, 22), (5, 3, 3, 3)]),
    (_conv(2, padding=(2, 1), dilation=(2, 1)), [(2, 2, 14, 12), (3, 2, 3, 2)]),
    (_conv(1, padding=1), [(3, 4, 140), (5, 4, 5)]),
    (_conv(3, padding=1), [(2, 1, 6, 6, 5), (2, 1, 3, 3, 3)]),
    (_conv(2, padding=3, stride=2), [(2, 1, 16, 40), (3, 1, 5, 5)]),  # wide strided rows
    (_conv(2, padding=1, stride=2), [(2, 3, 24, 26), (4, 3, 4, 4)]),  # dcgan's first layer
]


@pytest.mark.parametrize("case", range(len(PER_SAMPLE)))
def test_forward_and_weight_gradient_per_sample_match_torch(paths, case):
    fn, shapes = PER_SAMPLE[case]
    check_op(fn, shapes)
    assert "weight-per-sample" in paths and "weight-im2col" not in paths
    assert "forward-per-sample" in paths and "forward-im2col" not in paths


def test_per_sample_float32_in_blocks(monkeypatch, paths):
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)  # one sample per block
    check_op(_conv(2, padding=1), [(5, 3, 12, 11), (8, 3, 3, 3), (8,)], dtype="float32",
             second_order=False)
    assert "weight-per-sample" in paths and "forward-per-sample" in paths


def test_per_sample_bias_folded_into_a_partial_last_block(monkeypatch, paths):
    # blocks of two samples over a batch of five: the last block is a partial view of the
    # buffer whose row of ones carries the bias (float32 columns: 3 * 9 * 132 * 4 bytes)
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 2 * 3 * 9 * 132 * 4)
    check_op(_conv(2, padding=1), [(5, 3, 12, 11), (8, 3, 3, 3), (8,)], dtype="float32",
             second_order=False)
    assert "forward-per-sample" in paths


def test_many_channels_small_maps_or_groups_keep_the_blocked_gemm(paths):
    check_op(_conv(2, padding=1), [(2, 8, 12, 11), (9, 8, 3, 3)], second_order=False)  # 72 rows
    check_op(_conv(2, padding=1, groups=2), [(2, 4, 12, 11), (4, 2, 3, 3)], second_order=False)
    check_op(_conv(2), [(2, 1, 8, 7), (3, 1, 3, 3)], second_order=False)  # 30 positions
    assert "weight-im2col" in paths and "weight-per-sample" not in paths
    assert "forward-per-sample" not in paths


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nhwc_blocks_turned_channels_last_one_at_a_time(monkeypatch, paths, dtype):
    # blocks of two samples over five (the last one partial), rows padded and columns not:
    # each block's input is written into the inside of one reused channels-last buffer
    monkeypatch.setattr(conv_nhwc, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_nhwc, "_MIN_ROWS", 16)  # 8 positions per sample: 2 samples
    check_op(_conv(2, stride=2, padding=(1, 0)), [(5, 4, 7, 6), (3, 4, 3, 3), (3,)],
             dtype=dtype, second_order=False)
    assert {"forward-nhwc", "weight-nhwc"} <= set(paths)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("stride, shapes, columns", [
    (1, [(5, 8, 7, 6), (4, 8, 3, 3), (4,)], "forward-im2col"),
    (2, [(5, 8, 9, 66), (4, 8, 3, 3), (4,)], "columns-phases"),  # 33-wide output rows
])
def test_im2col_bias_folded_into_blocks_of_two(monkeypatch, paths, dtype, stride, shapes,
                                               columns):
    # blocks of two samples over five (the last one partial): the bias rides on a row of
    # ones under the columns of each block, several samples per GEMM
    h, w = shapes[0][2:]
    out = ((h + 2 - 3) // stride + 1) * ((w + 2 - 3) // stride + 1)
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 2 * out)
    check_op(_conv(2, stride=stride, padding=1), shapes, dtype=dtype, second_order=False)
    assert "forward-im2col" in paths and columns in paths


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_flat_bias_folded_into_blocks_of_two(monkeypatch, paths, dtype):
    # flat planes (34-wide padded rows), blocks of two samples over five, the last partial
    monkeypatch.setattr(conv_ops, "_THREADED", False)
    monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(conv_ops, "_MIN_BLOCK_COLUMNS", 2 * 4 * 34)
    check_op(_conv(2, padding=1), [(5, 3, 4, 32), (4, 3, 3, 3), (4,)], dtype=dtype,
             second_order=False)
    assert "forward-flat" in paths
