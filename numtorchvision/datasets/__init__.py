"""``numtorchvision.datasets``: the classic vision datasets, read from their real on-disk
formats (and downloaded from their usual URLs with ``download=True``)."""

from .cifar import CIFAR10, CIFAR100
from .coco import CocoCaptions, CocoDetection
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .lsun import LSUN, LSUNClass
from .mnist import EMNIST, KMNIST, MNIST, QMNIST, FashionMNIST
from .stl10 import STL10
from .svhn import SVHN
from .vision import VisionDataset

__all__ = ["LSUN", "LSUNClass", "ImageFolder", "DatasetFolder", "FakeData", "CocoCaptions",
           "CocoDetection", "CIFAR10", "CIFAR100", "EMNIST", "FashionMNIST", "QMNIST", "MNIST",
           "KMNIST", "STL10", "SVHN", "VisionDataset"]


# image classification and captioning (DatasetsA)
from .caltech import Caltech101, Caltech256  # noqa: E402
from .celeba import CelebA  # noqa: E402
from .clevr import CLEVRClassification  # noqa: E402
from .country211 import Country211  # noqa: E402
from .dtd import DTD  # noqa: E402
from .eurosat import EuroSAT  # noqa: E402
from .fer2013 import FER2013  # noqa: E402
from .fgvc_aircraft import FGVCAircraft  # noqa: E402
from .flickr import Flickr8k, Flickr30k  # noqa: E402
from .flowers102 import Flowers102  # noqa: E402
from .food101 import Food101  # noqa: E402
from .gtsrb import GTSRB  # noqa: E402
from .imagenet import ImageNet  # noqa: E402
from .inaturalist import INaturalist  # noqa: E402
from .imagenette import Imagenette  # noqa: E402
from .lfw import LFWPairs, LFWPeople  # noqa: E402
from .moving_mnist import MovingMNIST  # noqa: E402
from .omniglot import Omniglot  # noqa: E402
from .oxford_iiit_pet import OxfordIIITPet  # noqa: E402
from .pcam import PCAM  # noqa: E402
from .phototour import PhotoTour  # noqa: E402
from .places365 import Places365  # noqa: E402
from .rendered_sst2 import RenderedSST2  # noqa: E402
from .sbu import SBU  # noqa: E402
from .semeion import SEMEION  # noqa: E402
from .stanford_cars import StanfordCars  # noqa: E402
from .sun397 import SUN397  # noqa: E402
from .usps import USPS  # noqa: E402

__all__ += ["Caltech101", "Caltech256", "CelebA", "CLEVRClassification", "Country211", "DTD",
            "EuroSAT", "FER2013", "FGVCAircraft", "Flickr8k", "Flickr30k", "Flowers102",
            "Food101", "GTSRB", "ImageNet", "Imagenette", "INaturalist", "LFWPairs",
            "LFWPeople", "MovingMNIST", "Omniglot", "OxfordIIITPet", "PCAM", "PhotoTour",
            "Places365", "RenderedSST2", "SBU", "SEMEION", "StanfordCars", "SUN397", "USPS"]


def __getattr__(name):
    # as torchvision: the v2 wrapper lives with tv_tensors and is imported on first use
    if name == "wrap_dataset_for_transforms_v2":
        from ..tv_tensors._dataset_wrapper import wrap_dataset_for_transforms_v2

        return wrap_dataset_for_transforms_v2
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# dense prediction, detection, optical flow and stereo (DatasetsB)
from .cityscapes import Cityscapes  # noqa: E402
from .kitti import Kitti  # noqa: E402
from .sbd import SBDataset  # noqa: E402
from .voc import VOCDetection, VOCSegmentation  # noqa: E402
from .widerface import WIDERFace  # noqa: E402

__all__ += ["Cityscapes", "Kitti", "SBDataset", "VOCDetection", "VOCSegmentation", "WIDERFace"]
from ._optical_flow import HD1K, FlyingChairs, FlyingThings3D, KittiFlow, Sintel  # noqa: E402

__all__ += ["FlyingChairs", "FlyingThings3D", "HD1K", "KittiFlow", "Sintel"]
from ._stereo_matching import (  # noqa: E402
    CarlaStereo,
    CREStereo,
    ETH3DStereo,
    FallingThingsStereo,
    InStereo2k,
    Kitti2012Stereo,
    Kitti2015Stereo,
    Middlebury2014Stereo,
    SceneFlowStereo,
    SintelStereo,
)

__all__ += ["CarlaStereo", "CREStereo", "ETH3DStereo", "FallingThingsStereo", "InStereo2k",
            "Kitti2012Stereo", "Kitti2015Stereo", "Middlebury2014Stereo", "SceneFlowStereo",
            "SintelStereo"]
from .hmdb51 import HMDB51  # noqa: E402
from .kinetics import Kinetics  # noqa: E402
from .ucf101 import UCF101  # noqa: E402

__all__ += ["HMDB51", "Kinetics", "UCF101"]
# as in torchvision, listed though it is imported on first use (module __getattr__ above)
__all__ += ["wrap_dataset_for_transforms_v2"]
