"""Images from and to numpy arrays (PyOpenCL's ``image_from_array``, ``Image`` transfers with
``enqueue_copy``; PyCUDA's ``matrix_to_array`` / ``make_multichannel_2d_array``).

A numpy array of shape (height, width) is a 2D image of one channel, (height, width, 4) with
``num_channels=4`` one of four channels, as in PyOpenCL. Pixels are read in kernels through the prelude's
``KJARNI_IMAGE2D_READ`` / ``KJARNI_READ_IMAGE2D_F`` macros (kjarni/image.hpp).
"""

import numpy

from . import _kjarni
from .errors import ArgumentError

Image = _kjarni.Image
ImageFormat = _kjarni.ImageFormat
ImageShape = _kjarni.ImageShape
ImageRegion = _kjarni.ImageRegion
Sampler = _kjarni.Sampler
SampledImage = _kjarni.SampledImage
ChannelOrder = _kjarni.ChannelOrder
ChannelType = _kjarni.ChannelType
AddressMode = _kjarni.AddressMode
FilterMode = _kjarni.FilterMode
image_limits = _kjarni.image_limits

_CHANNEL_TYPES = {numpy.dtype(name): getattr(ChannelType, name)
                  for name in ("uint8", "uint16", "uint32", "int8", "int16", "int32", "float16", "float32")}
_ORDERS = {1: ChannelOrder.r, 2: ChannelOrder.rg, 4: ChannelOrder.rgba}


def image_format(dtype, channels=1, normalized=False):
    """The ImageFormat of `channels` (1, 2 or 4) channels of `dtype` (PyOpenCL's
    ``ImageFormat(channel_order, channel_type)``; ``normalized`` for integers read as floats in
    [0, 1] / [-1, 1], PyOpenCL's ``UNORM_INT8`` and kin)."""
    dtype = numpy.dtype(dtype)
    if dtype not in _CHANNEL_TYPES:
        raise ArgumentError(f"images hold {', '.join(str(d) for d in _CHANNEL_TYPES)} channels, not {dtype}", "dtype")
    if channels not in _ORDERS:
        raise ArgumentError(f"an image pixel has 1, 2 or 4 channels, not {channels}", "channels")
    return ImageFormat(_ORDERS[channels], _CHANNEL_TYPES[dtype], normalized)


def dtype_of(fmt):
    """The numpy dtype of one channel of an ImageFormat."""
    return numpy.dtype(fmt.type.name)


def _shape_of(array_shape, num_channels):
    # As PyOpenCL: one channel unless told, and then the last axis holds the channels.
    spatial = array_shape if num_channels == 1 else array_shape[:-1]
    if num_channels != 1 and array_shape[-1:] != (num_channels,):
        raise ArgumentError(f"an array of shape {array_shape} has no last axis of {num_channels} channels", "array")
    dimensions = len(spatial)
    if dimensions not in (1, 2, 3):
        raise ArgumentError(f"an image has 1, 2 or 3 dimensions, the array {dimensions} besides channels", "array")
    if dimensions == 1:
        return ImageShape.d1(spatial[0]), num_channels
    if dimensions == 2:
        return ImageShape.d2(spatial[1], spatial[0]), num_channels
    return ImageShape.d3(spatial[2], spatial[1], spatial[0]), num_channels


def image_from_array(queue, array, num_channels=1, normalized=False):
    """An Image on the queue's device holding a numpy array (PyOpenCL's ``image_from_array``):
    shape (width,), (height, width) or (depth, height, width), followed by an axis of
    ``num_channels`` (2 or 4) channels when there are several."""
    array = numpy.ascontiguousarray(array)
    shape, channels = _shape_of(array.shape, 1 if num_channels is None else num_channels)
    image = Image.allocate(queue.device, shape, image_format(array.dtype, channels, normalized))
    image._upload(queue, array)
    return image


def _array_shape(image):
    s, channels = image.shape, image.format.channel_count
    if s.layers:
        spatial = (s.layers, s.width) if s.dimensions == 1 else (s.layers, s.height, s.width)
    else:
        spatial = {1: (s.width,), 2: (s.height, s.width), 3: (s.depth, s.height, s.width)}[s.dimensions]
    return spatial + ((channels,) if channels > 1 else ())


def _image_get(self, queue, out=None):
    """The image's pixels as a numpy array (layers or depth, height, width[, channels]), packed."""
    if out is None:
        out = numpy.empty(_array_shape(self), dtype_of(self.format))
    elif not (out.flags.c_contiguous and out.nbytes == self.size_bytes):
        raise ArgumentError(f"out must be a C-contiguous array of {self.size_bytes} bytes", "out")
    self._download(queue, out)
    return out


def _image_set(self, queue, array):
    """Fills the whole image from a numpy array of its pixels (packed rows)."""
    array = numpy.ascontiguousarray(array, dtype=dtype_of(self.format))
    if array.nbytes != self.size_bytes:
        raise ArgumentError(f"{array.nbytes} bytes for an image of {self.size_bytes}", "array")
    self._upload(queue, array)


def _region(origin, extent):
    origin = tuple(int(v) for v in origin) + (0,) * (3 - len(origin))
    extent = tuple(int(v) for v in extent) + (1,) * (3 - len(extent))
    return ImageRegion(origin, extent)


def _image_get_region(self, queue, origin, extent, out=None):
    """A box of pixels, ``origin`` and ``extent`` as (x, y, z / layer), as a numpy array
    (z, y, x[, channels])."""
    region = _region(origin, extent)
    channels = self.format.channel_count
    shape = tuple(reversed(region.extent)) + ((channels,) if channels > 1 else ())
    out = numpy.empty(shape, dtype_of(self.format)) if out is None else out
    self._download_region(queue, region, out)
    return out


def _image_set_region(self, queue, origin, extent, array):
    """Fills a box of pixels from a numpy array holding them packed."""
    array = numpy.ascontiguousarray(array, dtype=dtype_of(self.format))
    self._upload_region(queue, _region(origin, extent), array)


Image.get = _image_get
Image.set = _image_set
Image.get_region = _image_get_region
Image.set_region = _image_set_region
Image.array_shape = property(_array_shape)
Image.dtype = property(lambda self: dtype_of(self.format))
