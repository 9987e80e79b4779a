"""Images from Python (PyOpenCL's Image / image_from_array, PyCUDA's texture arrays): transfers,
regions, copies to and from buffers, kernels reading through samplers (nearest and linear) and
writing, normalized integer formats. Kernels use the prelude's portable image macros, so the same
tests run on CUDA (texture and surface objects) and OpenCL."""

import numpy
import pytest

import kjarni

KERNELS = """
KERNEL void read_2d(KJARNI_IMAGE2D_READ(img), GLOBAL_MEM const float *coords, GLOBAL_MEM float *out, int n)
{
    const int i = get_global_id(0);
    if (i >= n) return;
    const float4 v = KJARNI_READ_IMAGE2D_F(img, coords[2 * i], coords[2 * i + 1]);
    out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w;
}

KERNEL void write_2d(KJARNI_IMAGE2D_WRITE(img), GLOBAL_MEM const float *values, int width)
{
    const int x = get_global_id(0), y = get_global_id(1);
    GLOBAL_MEM const float *p = values + 4 * (y * width + x);
    KJARNI_WRITE_IMAGE2D_F(img, x, y, KJARNI_MAKE_FLOAT4(p[0], p[1], p[2], p[3]));
}
"""


@pytest.fixture
def image_queue(queue):
    if not kjarni.image_limits(queue.device).supported:
        with pytest.raises(kjarni.UnsupportedError):
            kjarni.Image.allocate(queue.device, kjarni.ImageShape.d2(4, 4), kjarni.image_format(numpy.float32, 4))
        pytest.skip("the device has no images; refused as it should be")
    return queue


def pixel_centres(height, width):
    ys, xs = numpy.meshgrid(numpy.arange(height), numpy.arange(width), indexing="ij")
    return numpy.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1).astype(numpy.float32)


def read_through(queue, program, sampled, coords):
    n = len(coords)
    out = kjarni.Array.empty(queue.device, (n, 4), numpy.float32)
    program.kernel.read_2d(queue, n, None, sampled, kjarni.Array.from_host(queue, coords.ravel()), out,
                           numpy.int32(n))
    return out.get(queue)


def test_image_transfers_and_regions(image_queue, rng):
    queue = image_queue
    data = rng.standard_normal((13, 17, 4)).astype(numpy.float32)
    image = kjarni.image_from_array(queue, data, num_channels=4)
    assert (image.shape.width, image.shape.height) == (17, 13) and image.format.channel_count == 4
    assert image.array_shape == (13, 17, 4) and image.dtype == numpy.float32 and image.size_bytes == data.nbytes
    numpy.testing.assert_array_equal(image.get(queue), data)

    # A box: origin and extent are (x, y[, z]); the array is (z, y, x, channels).
    box = image.get_region(queue, (3, 2), (5, 4))
    numpy.testing.assert_array_equal(box[0], data[2:6, 3:8])
    patch = rng.standard_normal((4, 5, 4)).astype(numpy.float32)
    image.set_region(queue, (10, 7), (5, 4), patch)
    expected = data.copy()
    expected[7:11, 10:15] = patch
    numpy.testing.assert_array_equal(image.get(queue), expected)

    # To a buffer and back into another image, pixels packed.
    buffer = kjarni.Array.empty(queue.device, expected.shape, numpy.float32)
    image.copy_to_buffer(queue, buffer.data)
    numpy.testing.assert_array_equal(buffer.get(queue), expected)
    other = kjarni.Image.allocate(queue.device, image.shape, image.format)
    other.copy_from_buffer(queue, buffer.data)
    third = kjarni.Image.allocate(queue.device, image.shape, image.format)
    third.copy_from_image(queue, other)
    numpy.testing.assert_array_equal(third.get(queue), expected)

    one_channel = kjarni.image_from_array(queue, rng.integers(-1000, 1000, (6, 9), dtype=numpy.int16))
    assert one_channel.format.type == kjarni.ChannelType.int16 and one_channel.array_shape == (6, 9)
    with pytest.raises(kjarni.ArgumentError):
        kjarni.image_from_array(queue, data, num_channels=3)
    with pytest.raises(kjarni.ArgumentError):
        kjarni.image_format(numpy.float64, 1)


def test_kernels_read_and_write_images(image_queue, rng):
    queue = image_queue
    program = kjarni.Program(queue.device, KERNELS)
    height, width = 8, 11
    data = rng.standard_normal((height, width, 4)).astype(numpy.float32)
    image = kjarni.image_from_array(queue, data, num_channels=4)

    nearest = read_through(queue, program, image.sampled(kjarni.Sampler()), pixel_centres(height, width))
    numpy.testing.assert_array_equal(nearest, data.reshape(-1, 4))

    # Linear filtering halfway between two horizontal neighbours: their mean (the weight 1/2 is
    # exact even in CUDA's 9-bit fixed-point weights; the sum rounds once).
    coords = pixel_centres(height, width - 1) + numpy.float32([0.5, 0])
    linear = read_through(queue, program, image.sampled(kjarni.Sampler(filter=kjarni.FilterMode.linear)), coords)
    expected = ((data[:, :-1] + data[:, 1:]) / 2).reshape(-1, 4)
    numpy.testing.assert_allclose(linear, expected, rtol=0, atol=4 * numpy.finfo(numpy.float32).eps * 8)

    # Out of range, clamp_to_edge gives the edge pixel.
    edge = read_through(queue, program, image.sampled(kjarni.Sampler(kjarni.AddressMode.clamp_to_edge)),
                        numpy.float32([[-3.0, 0.5], [width + 5.0, height - 0.5]]))
    numpy.testing.assert_array_equal(edge, numpy.stack([data[0, 0], data[height - 1, width - 1]]))

    # A kernel writes every pixel.
    written = kjarni.Image.allocate(queue.device, kjarni.ImageShape.d2(width, height),
                                    kjarni.image_format(numpy.float32, 4))
    values = rng.standard_normal((height, width, 4)).astype(numpy.float32)
    program.kernel.write_2d(queue, (width, height), None, written, kjarni.Array.from_host(queue, values),
                            numpy.int32(width))
    numpy.testing.assert_array_equal(written.get(queue), values)


def test_normalized_integer_image(image_queue, rng):
    queue = image_queue
    program = kjarni.Program(queue.device, KERNELS)
    height, width = 5, 6
    data = rng.integers(0, 256, (height, width, 4), dtype=numpy.uint8)
    image = kjarni.image_from_array(queue, data, num_channels=4, normalized=True)
    assert image.format.normalized and image.format.itemsize == 4
    values = read_through(queue, program, image.sampled(kjarni.Sampler()), pixel_centres(height, width))
    # unorm8 reads as c / 255, correctly rounded in OpenCL (CUDA: within an ulp).
    numpy.testing.assert_allclose(values, (data.astype(numpy.float64) / 255).reshape(-1, 4), rtol=2e-7, atol=0)
