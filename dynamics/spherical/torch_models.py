"""Torch models of the spherical cross-checks and experiments: networks whose radially invariant groups (Lemma 1 of
Roburin et al. 2022) are exactly invariant, thanks to a batch normalisation with ε = 0.

* :class:`dynamics.spherical.torch_models.BatchNorm`: training-mode batch normalisation that accepts ε = 0 (torch's
  refuses it), with an optional per-channel affine map and no running statistics;
* M1, :func:`dynamics.spherical.torch_models.bn_mlp`: Linear(16 -> 8, no bias) -> BatchNorm1d(8, affine=False, ε = 0)
  -> ReLU -> Linear(8 -> 3); its radially invariant groups are the 8 rows of the first layer;
* M2, :func:`dynamics.spherical.torch_models.conv_bn_net`: Conv(3 -> 16, 3×3, no bias) -> BN2d -> ReLU -> Conv(16 ->
  16, 3×3, no bias) -> BN2d -> ReLU -> global average pool -> Linear(16 -> 10); its groups are the conv filters
  (d = 27 and 144);
* :func:`dynamics.spherical.torch_models.bn_mlp2`: the MLP with two BatchNorm hidden layers of the Adam-variants
  experiment (:mod:`dynamics.spherical.torch_experiments`); every row of both hidden layers is a group;
* :func:`dynamics.spherical.torch_models.bn_cnn2`: the convolutional net of the same experiment on the 8×8
  handwritten digits, Conv(1 -> width, 3×3, no bias) -> BN2d -> ReLU -> max-pool 2 -> Conv(width -> 2·width, 3×3,
  no bias) -> BN2d -> ReLU -> max-pool 2 -> Linear(8·width -> 10), both BatchNorms with ε = 0 and no affine map;
  its groups are the conv filters (d = 9 and 9·width).

Each builder seeds torch's global generator from ``seed``, works in float64 unless told otherwise and takes
``device=`` keyword-only. The cross-checks (:mod:`dynamics.spherical.torch_training`) and the experiments
(:mod:`dynamics.spherical.torch_experiments`) train these models. This module imports torch;
:mod:`dynamics.spherical` does not import it.
"""
from typing import Optional, Union

import numpy as np
import torch

from dynamics.numerics import require_integer, require_positive
from dynamics.numerics.torch_tools import seed_int
from ._docs import fill_doc

__all__ = ["BatchNorm", "bn_cnn2", "bn_mlp", "bn_mlp2", "conv_bn_net"]

Seed = Optional[Union[int, np.random.Generator]]
Device = Union[str, torch.device]


class BatchNorm(torch.nn.Module):
    """Training-mode batch normalisation over the batch (and spatial) dims with the biased variance and ε added
    under the square root, ε = 0 allowed (torch's BatchNorm refuses ε = 0, and any ε > 0 breaks the exact radial
    invariance by O(ε/σ²)); optional per-channel affine map. No running statistics: the theory is about training.

    Examples
    --------
    >>> bn = BatchNorm(2)
    >>> out = bn(torch.tensor([[1.0, 2.0], [3.0, 6.0]], dtype=torch.float64))
    >>> out.tolist()
    [[-1.0, -1.0], [1.0, 1.0]]
    """

    def __init__(self, num_features, eps=0.0, affine=False):
        super().__init__()
        self.num_features, self.eps = num_features, float(require_positive("eps", eps, allow_zero=True))
        self.weight = torch.nn.Parameter(torch.ones(num_features)) if affine else None
        self.bias = torch.nn.Parameter(torch.zeros(num_features)) if affine else None

    def forward(self, x):
        dims = [0] + list(range(2, x.dim()))
        centred = x - x.mean(dim=dims, keepdim=True)
        out = centred / ((centred ** 2).mean(dim=dims, keepdim=True) + self.eps).sqrt()
        if self.weight is not None:
            shape = [1, -1] + [1] * (x.dim() - 2)
            out = out * self.weight.reshape(shape) + self.bias.reshape(shape)
        return out

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, affine={self.weight is not None}"


@fill_doc
def bn_mlp(n_features: int = 16, n_hidden: int = 8, n_classes: int = 3, bn_eps: float = 0.0, *, seed: Seed = None,
           device: Device = "cpu", dtype: torch.dtype = torch.float64) -> torch.nn.Sequential:
    """M1: Linear(no bias) -> BatchNorm(affine=False, eps=bn_eps) -> ReLU -> Linear.

    With ``bn_eps = 0`` each row of the first layer is exactly radially invariant.

    The layers get torch's default initialisation after ``torch.manual_seed`` (which reseeds torch's global
    generator). The model expects inputs (batch, n_features) with batch >= 2 (batch normalisation over one
    sample is 0/0 at ``bn_eps = 0``) and returns logits (batch, n_classes).

    Parameters
    ----------
    n_features : int, optional
        Input dimension, >= 1. Default 16.
    n_hidden : int, optional
        Width of the hidden layer (the number of radially invariant rows), >= 1. Default 8.
    n_classes : int, optional
        Number of outputs, >= 1. Default 3.
    bn_eps : float, optional
        ε >= 0 added to the batch variance under the square root. Default 0.0 (exact invariance).
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds torch's global generator (through ``numpy.random.default_rng``; a Generator's stream advances
        once). Default None: fresh entropy, not reproducible.
    %(device)s
    %(dtype_torch)s

    Returns
    -------
    torch.nn.Sequential
        ``[0]`` Linear(n_features -> n_hidden, bias=False), ``[1]``
        :class:`dynamics.spherical.torch_models.BatchNorm` (n_hidden, eps=bn_eps, affine=False), ``[2]`` ReLU,
        ``[3]`` Linear(n_hidden -> n_classes).

    Examples
    --------
    >>> bn_mlp(seed=0)[1]
    BatchNorm(8, eps=0.0, affine=False)
    >>> tuple(bn_mlp(seed=0)(torch.randn(4, 16, dtype=torch.float64)).shape)
    (4, 3)
    """
    torch.manual_seed(seed_int(seed))
    model = torch.nn.Sequential(torch.nn.Linear(n_features, n_hidden, bias=False),
                                BatchNorm(n_hidden, eps=bn_eps), torch.nn.ReLU(),
                                torch.nn.Linear(n_hidden, n_classes))
    return model.to(device=device, dtype=dtype)


@fill_doc
def conv_bn_net(width: int = 16, n_classes: int = 10, bn_eps: float = 0.0, *, seed: Seed = None,
                device: Device = "cpu", dtype: torch.dtype = torch.float64) -> torch.nn.Sequential:
    """M2: Conv(3 -> width, 3×3) -> BN2d -> ReLU -> Conv(width -> width, 3×3) -> BN2d -> ReLU -> GAP -> Linear.

    The convolutions have padding 1 and no bias, so each filter (d = 27, then 9·width) is radially invariant
    at ``bn_eps = 0``; the batch normalisations carry a per-channel affine map. The layers get torch's default
    initialisation after ``torch.manual_seed`` (which reseeds torch's global generator). The model maps images
    (batch, 3, H, W), with batch·H·W >= 2, to logits (batch, n_classes).

    Parameters
    ----------
    width : int, optional
        Number of channels (filters) of both convolutions, >= 1. Default 16.
    n_classes : int, optional
        Number of outputs, >= 1. Default 10.
    bn_eps : float, optional
        ε >= 0 added to the batch variance under the square root. Default 0.0 (exact invariance).
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds torch's global generator (through ``numpy.random.default_rng``; a Generator's stream advances
        once). Default None: fresh entropy, not reproducible.
    %(device)s
    %(dtype_torch)s

    Returns
    -------
    torch.nn.Sequential
        ``[0]`` Conv2d(3 -> width, 3×3, padding=1, bias=False), ``[1]``
        :class:`dynamics.spherical.torch_models.BatchNorm` (width, bn_eps, affine=True), ``[2]`` ReLU, ``[3]``
        Conv2d(width -> width, 3×3, padding=1, bias=False), ``[4]``
        :class:`dynamics.spherical.torch_models.BatchNorm` (width, bn_eps, affine=True), ``[5]`` ReLU, ``[6]``
        AdaptiveAvgPool2d(1), ``[7]`` Flatten, ``[8]`` Linear(width -> n_classes).

    Examples
    --------
    >>> [tuple(p.shape) for p in conv_bn_net(seed=0).parameters()][:2]
    [(16, 3, 3, 3), (16,)]
    >>> tuple(conv_bn_net(4, seed=0)(torch.randn(2, 3, 5, 5, dtype=torch.float64)).shape)
    (2, 10)
    """
    torch.manual_seed(seed_int(seed))
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, width, 3, padding=1, bias=False), BatchNorm(width, bn_eps, affine=True), torch.nn.ReLU(),
        torch.nn.Conv2d(width, width, 3, padding=1, bias=False), BatchNorm(width, bn_eps, affine=True),
        torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(width, n_classes))
    return model.to(device=device, dtype=dtype)


@fill_doc
def bn_mlp2(n_features: int = 16, width: int = 32, n_classes: int = 3, *, seed: Seed = None,
            device: Device = "cpu", dtype: torch.dtype = torch.float64) -> torch.nn.Sequential:
    """The network of the Adam-variants experiment (:func:`dynamics.spherical.torch_experiments.train_adam_variants`):
    Linear(no bias) -> BatchNorm -> ReLU -> Linear(no bias) -> BatchNorm -> ReLU -> Linear, with
    :class:`dynamics.spherical.torch_models.BatchNorm` (ε = 0, no affine map), so that every row of the two hidden
    layers is exactly radially invariant.

    The layers get torch's default initialisation after ``torch.manual_seed`` (which reseeds torch's global
    generator). The model maps inputs (batch, n_features), batch >= 2, to logits (batch, n_classes).

    Parameters
    ----------
    n_features : int, optional
        Input dimension, in [1, 4096]. Default 16.
    width : int, optional
        Width of both hidden layers (the number of radially invariant rows of each), in [1, 4096]. Default 32.
    n_classes : int, optional
        Number of outputs, in [2, 1000]. Default 3.
    %(seed_torch_global)s
    %(device)s
    %(dtype_torch)s

    Returns
    -------
    torch.nn.Sequential
        ``[0]`` Linear(n_features -> width, bias=False), ``[1]`` BatchNorm, ``[2]`` ReLU, ``[3]`` Linear(width ->
        width, bias=False), ``[4]`` BatchNorm, ``[5]`` ReLU, ``[6]`` Linear(width -> n_classes).

    Examples
    --------
    >>> model = bn_mlp2(seed=0)
    >>> [tuple(p.shape) for p in model.parameters()]
    [(32, 16), (32, 32), (3, 32), (3,)]
    """
    n_features = require_integer("n_features", n_features, 1, 4096)
    width = require_integer("width", width, 1, 4096)
    n_classes = require_integer("n_classes", n_classes, 2, 1000)
    torch.manual_seed(seed_int(seed))
    model = torch.nn.Sequential(torch.nn.Linear(n_features, width, bias=False), BatchNorm(width), torch.nn.ReLU(),
                                torch.nn.Linear(width, width, bias=False), BatchNorm(width), torch.nn.ReLU(),
                                torch.nn.Linear(width, n_classes))
    return model.to(device=device, dtype=dtype)


@fill_doc
def bn_cnn2(width: int = 16, n_classes: int = 10, image_size: int = 8, in_channels: int = 1, *, seed: Seed = None,
            device: Device = "cpu", dtype: torch.dtype = torch.float64) -> torch.nn.Sequential:
    """The convolutional network of the Adam-variants experiment on small images
    (:func:`dynamics.spherical.torch_experiments.train_adam_variants` with ``model="conv"``): two convolutions without
    bias, each followed by :class:`dynamics.spherical.torch_models.BatchNorm` (ε = 0, no affine map), a ReLU and a 2×2
    max-pool, then a linear readout; every filter of both convolutions is exactly radially invariant.

    The layers get torch's default initialisation after ``torch.manual_seed`` (which reseeds torch's global
    generator). The model maps images (batch, in_channels, image_size, image_size), batch >= 2, to logits (batch,
    n_classes). It is :func:`dynamics.spherical.torch_models.conv_bn_net` made for 8×8 grey images: one input
    channel, no affine map (as :func:`dynamics.spherical.torch_models.bn_mlp2`, so that the readout is the only
    parameter outside the spherical groups), twice as many filters in the second convolution, and pooling that keeps a
    2×2 map for the readout instead of a global average.

    Parameters
    ----------
    width : int, optional
        Filters of the first convolution (the second has 2·width), in [1, 4096]. Default 16.
    n_classes : int, optional
        Number of outputs, in [2, 1000]. Default 10.
    image_size : int, optional
        Side of the square images in pixels, a multiple of 4 in [4, 4096]. Default 8.
    in_channels : int, optional
        Channels of the images, in [1, 64]. Default 1.
    %(seed_torch_global)s
    %(device)s
    %(dtype_torch)s

    Returns
    -------
    torch.nn.Sequential
        ``[0]`` Conv2d(in_channels -> width, 3×3, padding=1, bias=False), ``[1]`` BatchNorm, ``[2]`` ReLU, ``[3]``
        MaxPool2d(2), ``[4]`` Conv2d(width -> 2·width, 3×3, padding=1, bias=False), ``[5]`` BatchNorm, ``[6]`` ReLU,
        ``[7]`` MaxPool2d(2), ``[8]`` Flatten, ``[9]`` Linear(2·width·(image_size/4)² -> n_classes).

    Examples
    --------
    >>> model = bn_cnn2(4, seed=0)
    >>> [tuple(p.shape) for p in model.parameters()]
    [(4, 1, 3, 3), (8, 4, 3, 3), (10, 32), (10,)]
    >>> tuple(model(torch.randn(5, 1, 8, 8, dtype=torch.float64)).shape)
    (5, 10)
    """
    width = require_integer("width", width, 1, 4096)
    n_classes = require_integer("n_classes", n_classes, 2, 1000)
    image_size = require_integer("image_size", image_size, 4, 4096)
    if image_size % 4:
        raise ValueError(f"image_size must be a multiple of 4 (two 2×2 poolings), got {image_size}")
    in_channels = require_integer("in_channels", in_channels, 1, 64)
    torch.manual_seed(seed_int(seed))
    model = torch.nn.Sequential(
        torch.nn.Conv2d(in_channels, width, 3, padding=1, bias=False), BatchNorm(width), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(width, 2 * width, 3, padding=1, bias=False), BatchNorm(2 * width), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(2 * width * (image_size // 4) ** 2, n_classes))
    return model.to(device=device, dtype=dtype)
