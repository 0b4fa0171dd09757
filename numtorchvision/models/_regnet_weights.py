"""The pretrained weights of the RegNet models (kept apart from the architecture for size)."""

from ._api import WeightsEnum
from ._utils import _imagenet

__all__ = ["RegNet_Y_400MF_Weights", "RegNet_Y_800MF_Weights", "RegNet_Y_1_6GF_Weights",
           "RegNet_Y_3_2GF_Weights", "RegNet_Y_8GF_Weights", "RegNet_Y_16GF_Weights",
           "RegNet_Y_32GF_Weights", "RegNet_Y_128GF_Weights", "RegNet_X_400MF_Weights",
           "RegNet_X_800MF_Weights", "RegNet_X_1_6GF_Weights", "RegNet_X_3_2GF_Weights",
           "RegNet_X_8GF_Weights", "RegNet_X_16GF_Weights", "RegNet_X_32GF_Weights"]

_R_SMALL = "https://github.com/pytorch/vision/tree/main/references/classification#small-models"
_R_MEDIUM = "https://github.com/pytorch/vision/tree/main/references/classification#medium-models"
_R_LARGE = "https://github.com/pytorch/vision/tree/main/references/classification#large-models"
_R_NEW = "https://github.com/pytorch/vision/issues/3995#new-recipe"
_R_FIXRES = "https://github.com/pytorch/vision/issues/3995#new-recipe-with-fixres"
_R_SWAG = "https://github.com/facebookresearch/SWAG"
_R_LINEAR = "https://github.com/pytorch/vision/pull/5793"
_SWAG_LICENSE = "https://github.com/facebookresearch/SWAG/blob/main/LICENSE"


class RegNet_Y_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_400mf-c65dace8.pth", 4344144, 74.046, 91.716, 0.402,
        16.806, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_y_400mf-e6988f5f.pth", 4344144, 75.804, 92.742, 0.402,
        16.806, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_800mf-1b27b58c.pth", 6432512, 76.42, 93.136, 0.834,
        24.774, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_y_800mf-58fc7688.pth", 6432512, 78.828, 94.502, 0.834,
        24.774, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_1_6gf-b11a554e.pth", 11202430, 77.95, 93.966, 1.612,
        43.152, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_y_1_6gf-0d7bc02a.pth", 11202430, 80.876, 95.444, 1.612,
        43.152, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_3_2gf-b5a9779c.pth", 19436338, 78.948, 94.576, 3.176,
        74.567, _R_MEDIUM)
    IMAGENET1K_V2 = _imagenet("regnet_y_3_2gf-9180c971.pth", 19436338, 81.982, 95.972, 3.176,
        74.567, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_8gf-d0d0e4a8.pth", 39381472, 80.032, 95.048, 8.473,
        150.701, _R_MEDIUM)
    IMAGENET1K_V2 = _imagenet("regnet_y_8gf-dc2b1b54.pth", 39381472, 82.828, 96.33, 8.473,
        150.701, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_16gf-9e6ed7dd.pth", 83590140, 80.424, 95.24, 15.912,
        319.49, _R_LARGE)
    IMAGENET1K_V2 = _imagenet("regnet_y_16gf-3e4a00f9.pth", 83590140, 82.886, 96.328, 15.912,
        319.49, _R_NEW, resize_size=232)
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_16gf_swag-43afe44d.pth", 83590140, 86.012,
        98.054, 46.735, 319.49, _R_SWAG, crop_size=384,
        resize_size=384, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_16gf_lc_swag-f3ec0043.pth", 83590140,
        83.976, 97.244, 15.912, 319.49, _R_LINEAR, resize_size=224, interpolation="BICUBIC",
        license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_y_32gf-4dee3f7a.pth", 145046770, 80.878, 95.34, 32.28,
        554.076, _R_LARGE)
    IMAGENET1K_V2 = _imagenet("regnet_y_32gf-8db6d4b5.pth", 145046770, 83.368, 96.498, 32.28,
        554.076, _R_NEW, resize_size=232)
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_32gf_swag-04fdfa75.pth", 145046770, 86.838,
        98.362, 94.826, 554.076, _R_SWAG, crop_size=384,
        resize_size=384, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_32gf_lc_swag-e1583746.pth", 145046770,
        84.622, 97.48, 32.28, 554.076, _R_LINEAR, resize_size=224, interpolation="BICUBIC",
        license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_V2


class RegNet_Y_128GF_Weights(WeightsEnum):
    IMAGENET1K_SWAG_E2E_V1 = _imagenet("regnet_y_128gf_swag-c8ce3e52.pth", 644812894, 88.228,
        98.682, 374.57, 2461.564, _R_SWAG, crop_size=384,
        resize_size=384, interpolation="BICUBIC", license=_SWAG_LICENSE)
    IMAGENET1K_SWAG_LINEAR_V1 = _imagenet("regnet_y_128gf_lc_swag-cbe8ce12.pth", 644812894,
        86.068, 97.844, 127.518, 2461.564, _R_LINEAR, resize_size=224, interpolation="BICUBIC",
        license=_SWAG_LICENSE)
    DEFAULT = IMAGENET1K_SWAG_E2E_V1


class RegNet_X_400MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_400mf-adf1edd5.pth", 5495976, 72.834, 90.95, 0.414,
        21.258, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_x_400mf-62229a5f.pth", 5495976, 74.864, 92.322, 0.414,
        21.257, _R_FIXRES, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_800MF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_800mf-ad17e45c.pth", 7259656, 75.212, 92.348, 0.8,
        27.945, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_x_800mf-94a99ebd.pth", 7259656, 77.522, 93.826, 0.8,
        27.945, _R_FIXRES, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_1_6GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_1_6gf-e3633e7f.pth", 9190136, 77.04, 93.44, 1.603,
        35.339, _R_SMALL)
    IMAGENET1K_V2 = _imagenet("regnet_x_1_6gf-a12f2b72.pth", 9190136, 79.668, 94.922, 1.603,
        35.339, _R_FIXRES, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_3_2GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_3_2gf-f342aeae.pth", 15296552, 78.364, 93.992, 3.177,
        58.756, _R_MEDIUM)
    IMAGENET1K_V2 = _imagenet("regnet_x_3_2gf-7071aa85.pth", 15296552, 81.196, 95.43, 3.177,
        58.756, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_8GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_8gf-03ceed89.pth", 39572648, 79.344, 94.686, 7.995,
        151.456, _R_MEDIUM)
    IMAGENET1K_V2 = _imagenet("regnet_x_8gf-2b70d774.pth", 39572648, 81.682, 95.678, 7.995,
        151.456, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_16GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_16gf-2007eb11.pth", 54278536, 80.058, 94.944, 15.941,
        207.627, _R_MEDIUM)
    IMAGENET1K_V2 = _imagenet("regnet_x_16gf-ba3796d7.pth", 54278536, 82.716, 96.196, 15.941,
        207.627, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2


class RegNet_X_32GF_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet("regnet_x_32gf-9d47f8d0.pth", 107811560, 80.622, 95.248, 31.736,
        412.039, _R_LARGE)
    IMAGENET1K_V2 = _imagenet("regnet_x_32gf-6eb8fdc6.pth", 107811560, 83.014, 96.288, 31.736,
        412.039, _R_NEW, resize_size=232)
    DEFAULT = IMAGENET1K_V2
