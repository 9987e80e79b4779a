// The image part of the prelude (kjarni/image.hpp describes the macros). OpenCL has images in the
// language; on CUDA a READ parameter is a texture object and a WRITE parameter a surface object
// with its format and dimensionality (kjarni_image_surface, packed by cuda_image.cpp), because
// surface stores are raw bytes: the prelude converts the float4 / int4 / uint4 a kernel writes to
// the channel type, as OpenCL's write_image* do.

#include "program/prelude.hpp"

namespace kjarni::detail {

namespace {

constexpr const char* cuda_image_prelude = R"(
#define KJARNI_MAKE_FLOAT4(a, b, c, d) make_float4((a), (b), (c), (d))
#define KJARNI_MAKE_INT4(a, b, c, d) make_int4((a), (b), (c), (d))
#define KJARNI_MAKE_UINT4(a, b, c, d) make_uint4((a), (b), (c), (d))

#define KJARNI_IMAGE1D_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGE2D_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGE3D_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGE1D_ARRAY_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGE2D_ARRAY_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGECUBE_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGECUBE_ARRAY_READ(name) cudaTextureObject_t name
#define KJARNI_IMAGE1D_WRITE(name) kjarni_image_surface name
#define KJARNI_IMAGE2D_WRITE(name) kjarni_image_surface name
#define KJARNI_IMAGE3D_WRITE(name) kjarni_image_surface name
#define KJARNI_IMAGE1D_ARRAY_WRITE(name) kjarni_image_surface name
#define KJARNI_IMAGE2D_ARRAY_WRITE(name) kjarni_image_surface name

#define KJARNI_READ_IMAGE1D_F(img, x) tex1D<float4>((img), (float)(x))
#define KJARNI_READ_IMAGE1D_I(img, x) tex1D<int4>((img), (float)(x))
#define KJARNI_READ_IMAGE1D_UI(img, x) tex1D<uint4>((img), (float)(x))
#define KJARNI_READ_IMAGE2D_F(img, x, y) tex2D<float4>((img), (float)(x), (float)(y))
#define KJARNI_READ_IMAGE2D_I(img, x, y) tex2D<int4>((img), (float)(x), (float)(y))
#define KJARNI_READ_IMAGE2D_UI(img, x, y) tex2D<uint4>((img), (float)(x), (float)(y))
#define KJARNI_READ_IMAGE3D_F(img, x, y, z) tex3D<float4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGE3D_I(img, x, y, z) tex3D<int4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGE3D_UI(img, x, y, z) tex3D<uint4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGE1D_ARRAY_F(img, x, layer) tex1DLayered<float4>((img), (float)(x), (int)(layer))
#define KJARNI_READ_IMAGE1D_ARRAY_I(img, x, layer) tex1DLayered<int4>((img), (float)(x), (int)(layer))
#define KJARNI_READ_IMAGE1D_ARRAY_UI(img, x, layer) tex1DLayered<uint4>((img), (float)(x), (int)(layer))
#define KJARNI_READ_IMAGE2D_ARRAY_F(img, x, y, layer) tex2DLayered<float4>((img), (float)(x), (float)(y), (int)(layer))
#define KJARNI_READ_IMAGE2D_ARRAY_I(img, x, y, layer) tex2DLayered<int4>((img), (float)(x), (float)(y), (int)(layer))
#define KJARNI_READ_IMAGE2D_ARRAY_UI(img, x, y, layer) tex2DLayered<uint4>((img), (float)(x), (float)(y), (int)(layer))
#define KJARNI_READ_IMAGECUBE_F(img, x, y, z) texCubemap<float4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGECUBE_I(img, x, y, z) texCubemap<int4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGECUBE_UI(img, x, y, z) texCubemap<uint4>((img), (float)(x), (float)(y), (float)(z))
#define KJARNI_READ_IMAGECUBE_ARRAY_F(img, x, y, z, cube) texCubemapLayered<float4>((img), (float)(x), (float)(y), (float)(z), (int)(cube))
#define KJARNI_READ_IMAGECUBE_ARRAY_I(img, x, y, z, cube) texCubemapLayered<int4>((img), (float)(x), (float)(y), (float)(z), (int)(cube))
#define KJARNI_READ_IMAGECUBE_ARRAY_UI(img, x, y, z, cube) texCubemapLayered<uint4>((img), (float)(x), (float)(y), (float)(z), (int)(cube))
#define KJARNI_READ_IMAGE1D_LOD_F(img, x, lod) tex1DLod<float4>((img), (float)(x), (float)(lod))
#define KJARNI_READ_IMAGE1D_LOD_I(img, x, lod) tex1DLod<int4>((img), (float)(x), (float)(lod))
#define KJARNI_READ_IMAGE1D_LOD_UI(img, x, lod) tex1DLod<uint4>((img), (float)(x), (float)(lod))
#define KJARNI_READ_IMAGE2D_LOD_F(img, x, y, lod) tex2DLod<float4>((img), (float)(x), (float)(y), (float)(lod))
#define KJARNI_READ_IMAGE2D_LOD_I(img, x, y, lod) tex2DLod<int4>((img), (float)(x), (float)(y), (float)(lod))
#define KJARNI_READ_IMAGE2D_LOD_UI(img, x, y, lod) tex2DLod<uint4>((img), (float)(x), (float)(y), (float)(lod))
#define KJARNI_READ_IMAGE3D_LOD_F(img, x, y, z, lod) tex3DLod<float4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))
#define KJARNI_READ_IMAGE3D_LOD_I(img, x, y, z, lod) tex3DLod<int4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))
#define KJARNI_READ_IMAGE3D_LOD_UI(img, x, y, z, lod) tex3DLod<uint4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))
#define KJARNI_READ_IMAGECUBE_LOD_F(img, x, y, z, lod) texCubemapLod<float4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))
#define KJARNI_READ_IMAGECUBE_LOD_I(img, x, y, z, lod) texCubemapLod<int4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))
#define KJARNI_READ_IMAGECUBE_LOD_UI(img, x, y, z, lod) texCubemapLod<uint4>((img), (float)(x), (float)(y), (float)(z), (float)(lod))

// The layer of a 1-D array travels as y, of a 2-D array (or a cube map's face) as z (kjarni_surface_put).
#define KJARNI_WRITE_IMAGE1D_F(img, x, v) kjarni_write_image_f((img), (v), (int)(x), 0, 0)
#define KJARNI_WRITE_IMAGE1D_I(img, x, v) kjarni_write_image_i((img), (v), (int)(x), 0, 0)
#define KJARNI_WRITE_IMAGE1D_UI(img, x, v) kjarni_write_image_ui((img), (v), (int)(x), 0, 0)
#define KJARNI_WRITE_IMAGE2D_F(img, x, y, v) kjarni_write_image_f((img), (v), (int)(x), (int)(y), 0)
#define KJARNI_WRITE_IMAGE2D_I(img, x, y, v) kjarni_write_image_i((img), (v), (int)(x), (int)(y), 0)
#define KJARNI_WRITE_IMAGE2D_UI(img, x, y, v) kjarni_write_image_ui((img), (v), (int)(x), (int)(y), 0)
#define KJARNI_WRITE_IMAGE3D_F(img, x, y, z, v) kjarni_write_image_f((img), (v), (int)(x), (int)(y), (int)(z))
#define KJARNI_WRITE_IMAGE3D_I(img, x, y, z, v) kjarni_write_image_i((img), (v), (int)(x), (int)(y), (int)(z))
#define KJARNI_WRITE_IMAGE3D_UI(img, x, y, z, v) kjarni_write_image_ui((img), (v), (int)(x), (int)(y), (int)(z))
#define KJARNI_WRITE_IMAGE1D_ARRAY_F(img, x, layer, v) kjarni_write_image_f((img), (v), (int)(x), (int)(layer), 0)
#define KJARNI_WRITE_IMAGE1D_ARRAY_I(img, x, layer, v) kjarni_write_image_i((img), (v), (int)(x), (int)(layer), 0)
#define KJARNI_WRITE_IMAGE1D_ARRAY_UI(img, x, layer, v) kjarni_write_image_ui((img), (v), (int)(x), (int)(layer), 0)
#define KJARNI_WRITE_IMAGE2D_ARRAY_F(img, x, y, layer, v) kjarni_write_image_f((img), (v), (int)(x), (int)(y), (int)(layer))
#define KJARNI_WRITE_IMAGE2D_ARRAY_I(img, x, y, layer, v) kjarni_write_image_i((img), (v), (int)(x), (int)(y), (int)(layer))
#define KJARNI_WRITE_IMAGE2D_ARRAY_UI(img, x, y, layer, v) kjarni_write_image_ui((img), (v), (int)(x), (int)(y), (int)(layer))

// format: channels in bits 0-3, kjarni::ChannelType in bits 4-7, normalised in bit 8.
// dims: 1, 2, 3; 4 a 1-D array, 5 a 2-D array, 6 a cube map, 7 an array of cube maps.
struct kjarni_image_surface {
    unsigned long long surface;
    unsigned int format;
    unsigned int dims;
};

template <class T>
__device__ __forceinline__ void kjarni_surface_put(const kjarni_image_surface& s, T v, int x, int y, int z)
{
    const int bx = x * (int)sizeof(T);  // surface x coordinates are in bytes
    switch (s.dims) {
        case 1: surf1Dwrite(v, s.surface, bx); break;
        case 2: surf2Dwrite(v, s.surface, bx, y); break;
        case 3: surf3Dwrite(v, s.surface, bx, y, z); break;
        case 4: surf1DLayeredwrite(v, s.surface, bx, y); break;
        case 6: surfCubemapwrite(v, s.surface, bx, y, z); break;
        case 7: surfCubemapLayeredwrite(v, s.surface, bx, y, z); break;
        default: surf2DLayeredwrite(v, s.surface, bx, y, z); break;
    }
}

template <class S, class S2, class S4>
__device__ __forceinline__ void kjarni_surface_put_channels(const kjarni_image_surface& s, S a, S b, S c, S d,
                                                            int x, int y, int z)
{
    const unsigned int channels = s.format & 15u;
    if (channels == 1) {
        kjarni_surface_put(s, a, x, y, z);
    } else if (channels == 2) {
        S2 v; v.x = a; v.y = b;
        kjarni_surface_put(s, v, x, y, z);
    } else {
        S4 v; v.x = a; v.y = b; v.z = c; v.w = d;
        kjarni_surface_put(s, v, x, y, z);
    }
}

__device__ __forceinline__ unsigned short kjarni_float_to_half_bits(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

__device__ __forceinline__ float kjarni_unorm(float f, float scale) { return rintf(fminf(fmaxf(f, 0.0f), 1.0f) * scale); }
__device__ __forceinline__ float kjarni_snorm(float f, float scale) { return rintf(fminf(fmaxf(f, -1.0f), 1.0f) * scale); }

// Float and normalised formats (OpenCL's write_imagef); integer formats are left alone, as
// write_imagef to them is undefined.
__device__ __forceinline__ void kjarni_write_image_f(const kjarni_image_surface& s, float4 v, int x, int y, int z)
{
    const unsigned int type = (s.format >> 4) & 15u;
    const bool normalized = (s.format >> 8) & 1u;
    if (type == 7u) {
        kjarni_surface_put_channels<float, float2, float4>(s, v.x, v.y, v.z, v.w, x, y, z);
    } else if (type == 6u) {
        kjarni_surface_put_channels<unsigned short, ushort2, ushort4>(s, kjarni_float_to_half_bits(v.x),
            kjarni_float_to_half_bits(v.y), kjarni_float_to_half_bits(v.z), kjarni_float_to_half_bits(v.w), x, y, z);
    } else if (normalized && type == 0u) {
        kjarni_surface_put_channels<unsigned char, uchar2, uchar4>(s, (unsigned char)kjarni_unorm(v.x, 255.0f),
            (unsigned char)kjarni_unorm(v.y, 255.0f), (unsigned char)kjarni_unorm(v.z, 255.0f),
            (unsigned char)kjarni_unorm(v.w, 255.0f), x, y, z);
    } else if (normalized && type == 1u) {
        kjarni_surface_put_channels<unsigned short, ushort2, ushort4>(s, (unsigned short)kjarni_unorm(v.x, 65535.0f),
            (unsigned short)kjarni_unorm(v.y, 65535.0f), (unsigned short)kjarni_unorm(v.z, 65535.0f),
            (unsigned short)kjarni_unorm(v.w, 65535.0f), x, y, z);
    } else if (normalized && type == 3u) {
        kjarni_surface_put_channels<signed char, char2, char4>(s, (signed char)kjarni_snorm(v.x, 127.0f),
            (signed char)kjarni_snorm(v.y, 127.0f), (signed char)kjarni_snorm(v.z, 127.0f),
            (signed char)kjarni_snorm(v.w, 127.0f), x, y, z);
    } else if (normalized && type == 4u) {
        kjarni_surface_put_channels<short, short2, short4>(s, (short)kjarni_snorm(v.x, 32767.0f),
            (short)kjarni_snorm(v.y, 32767.0f), (short)kjarni_snorm(v.z, 32767.0f),
            (short)kjarni_snorm(v.w, 32767.0f), x, y, z);
    }
}

__device__ __forceinline__ int kjarni_clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Signed integer formats (write_imagei: saturated to the channel type).
__device__ __forceinline__ void kjarni_write_image_i(const kjarni_image_surface& s, int4 v, int x, int y, int z)
{
    const unsigned int type = (s.format >> 4) & 15u;
    if (type == 3u) {
        kjarni_surface_put_channels<signed char, char2, char4>(s, (signed char)kjarni_clamp_int(v.x, -128, 127),
            (signed char)kjarni_clamp_int(v.y, -128, 127), (signed char)kjarni_clamp_int(v.z, -128, 127),
            (signed char)kjarni_clamp_int(v.w, -128, 127), x, y, z);
    } else if (type == 4u) {
        kjarni_surface_put_channels<short, short2, short4>(s, (short)kjarni_clamp_int(v.x, -32768, 32767),
            (short)kjarni_clamp_int(v.y, -32768, 32767), (short)kjarni_clamp_int(v.z, -32768, 32767),
            (short)kjarni_clamp_int(v.w, -32768, 32767), x, y, z);
    } else if (type == 5u) {
        kjarni_surface_put_channels<int, int2, int4>(s, v.x, v.y, v.z, v.w, x, y, z);
    }
}

// Unsigned integer formats (write_imageui: saturated to the channel type).
__device__ __forceinline__ void kjarni_write_image_ui(const kjarni_image_surface& s, uint4 v, int x, int y, int z)
{
    const unsigned int type = (s.format >> 4) & 15u;
    if (type == 0u) {
        kjarni_surface_put_channels<unsigned char, uchar2, uchar4>(s, (unsigned char)min(v.x, 255u),
            (unsigned char)min(v.y, 255u), (unsigned char)min(v.z, 255u), (unsigned char)min(v.w, 255u), x, y, z);
    } else if (type == 1u) {
        kjarni_surface_put_channels<unsigned short, ushort2, ushort4>(s, (unsigned short)min(v.x, 65535u),
            (unsigned short)min(v.y, 65535u), (unsigned short)min(v.z, 65535u), (unsigned short)min(v.w, 65535u),
            x, y, z);
    } else if (type == 2u) {
        kjarni_surface_put_channels<unsigned int, uint2, uint4>(s, v.x, v.y, v.z, v.w, x, y, z);
    }
}

)";

constexpr const char* opencl_image_prelude = R"(
#if defined(cl_khr_3d_image_writes)
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable
#endif
#define KJARNI_MAKE_FLOAT4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define KJARNI_MAKE_INT4(a, b, c, d) ((int4)((a), (b), (c), (d)))
#define KJARNI_MAKE_UINT4(a, b, c, d) ((uint4)((a), (b), (c), (d)))

// A READ parameter is the image and its sampler (kjarni::SampledImage fills both).
#define KJARNI_IMAGE1D_READ(name) read_only image1d_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGE2D_READ(name) read_only image2d_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGE3D_READ(name) read_only image3d_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGE1D_ARRAY_READ(name) read_only image1d_array_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGE2D_ARRAY_READ(name) read_only image2d_array_t name, sampler_t name##_kjarni_sampler
// A cube map is a 2-D image array of its faces (OpenCL has no cube maps).
#define KJARNI_IMAGECUBE_READ(name) read_only image2d_array_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGECUBE_ARRAY_READ(name) read_only image2d_array_t name, sampler_t name##_kjarni_sampler
#define KJARNI_IMAGE1D_WRITE(name) write_only image1d_t name
#define KJARNI_IMAGE2D_WRITE(name) write_only image2d_t name
#define KJARNI_IMAGE3D_WRITE(name) write_only image3d_t name
#define KJARNI_IMAGE1D_ARRAY_WRITE(name) write_only image1d_array_t name
#define KJARNI_IMAGE2D_ARRAY_WRITE(name) write_only image2d_array_t name

#define KJARNI_COORD1_(x) ((float)(x))
#define KJARNI_COORD2_(x, y) ((float2)((float)(x), (float)(y)))
#define KJARNI_COORD4_(x, y, z) ((float4)((float)(x), (float)(y), (float)(z), 0.0f))
#define KJARNI_READ_IMAGE1D_F(img, x) read_imagef((img), img##_kjarni_sampler, KJARNI_COORD1_(x))
#define KJARNI_READ_IMAGE1D_I(img, x) read_imagei((img), img##_kjarni_sampler, KJARNI_COORD1_(x))
#define KJARNI_READ_IMAGE1D_UI(img, x) read_imageui((img), img##_kjarni_sampler, KJARNI_COORD1_(x))
#define KJARNI_READ_IMAGE2D_F(img, x, y) read_imagef((img), img##_kjarni_sampler, KJARNI_COORD2_(x, y))
#define KJARNI_READ_IMAGE2D_I(img, x, y) read_imagei((img), img##_kjarni_sampler, KJARNI_COORD2_(x, y))
#define KJARNI_READ_IMAGE2D_UI(img, x, y) read_imageui((img), img##_kjarni_sampler, KJARNI_COORD2_(x, y))
#define KJARNI_READ_IMAGE3D_F(img, x, y, z) read_imagef((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, z))
#define KJARNI_READ_IMAGE3D_I(img, x, y, z) read_imagei((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, z))
#define KJARNI_READ_IMAGE3D_UI(img, x, y, z) read_imageui((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, z))
#define KJARNI_READ_IMAGE1D_ARRAY_F(img, x, layer) read_imagef((img), img##_kjarni_sampler, KJARNI_COORD2_(x, layer))
#define KJARNI_READ_IMAGE1D_ARRAY_I(img, x, layer) read_imagei((img), img##_kjarni_sampler, KJARNI_COORD2_(x, layer))
#define KJARNI_READ_IMAGE1D_ARRAY_UI(img, x, layer) read_imageui((img), img##_kjarni_sampler, KJARNI_COORD2_(x, layer))
#define KJARNI_READ_IMAGE2D_ARRAY_F(img, x, y, layer) read_imagef((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, layer))
#define KJARNI_READ_IMAGE2D_ARRAY_I(img, x, y, layer) read_imagei((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, layer))
#define KJARNI_READ_IMAGE2D_ARRAY_UI(img, x, y, layer) read_imageui((img), img##_kjarni_sampler, KJARNI_COORD4_(x, y, layer))

// The face a direction points at and the normalised coordinates within it, as CUDA's and OpenGL's
// cube map tables give them: the axis of the largest magnitude (x before y before z on a tie)
// picks the face (+x 0, -x 1, +y 2, -y 3, +z 4, -z 5); two other components, signed per face,
// divided by that magnitude and mapped from [-1, 1] to [0, 1], are its s and t, scaled to pixels
// (the backend reads cube maps with unnormalised coordinates). The layer is 6 * cube + face.
// INLINE (static inline from OpenCL C 1.2): every unit of a linked program holds the prelude, and
// a plain inline definition in each makes PoCL's clLinkProgram fail; OpenCL C 1.1 has no static
// (nor clLinkProgram).
INLINE float4 kjarni_cube_coordinates(float x, float y, float z, int cube, float size)
{
    const float ax = fabs(x), ay = fabs(y), az = fabs(z);
    float sc, tc, ma;
    int face;
    if (ax >= ay && ax >= az) {
        ma = ax; face = x >= 0.0f ? 0 : 1; sc = x >= 0.0f ? -z : z; tc = -y;
    } else if (ay >= az) {
        ma = ay; face = y >= 0.0f ? 2 : 3; sc = x; tc = y >= 0.0f ? z : -z;
    } else {
        ma = az; face = z >= 0.0f ? 4 : 5; sc = z >= 0.0f ? x : -x; tc = -y;
    }
    return (float4)(0.5f * (sc / ma + 1.0f) * size, 0.5f * (tc / ma + 1.0f) * size, (float)(6 * cube + face), 0.0f);
}
#define KJARNI_READ_IMAGECUBE_F(img, x, y, z) read_imagef((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), 0, (float)get_image_width(img)))
#define KJARNI_READ_IMAGECUBE_I(img, x, y, z) read_imagei((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), 0, (float)get_image_width(img)))
#define KJARNI_READ_IMAGECUBE_UI(img, x, y, z) read_imageui((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), 0, (float)get_image_width(img)))
#define KJARNI_READ_IMAGECUBE_ARRAY_F(img, x, y, z, cube) read_imagef((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), (cube), (float)get_image_width(img)))
#define KJARNI_READ_IMAGECUBE_ARRAY_I(img, x, y, z, cube) read_imagei((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), (cube), (float)get_image_width(img)))
#define KJARNI_READ_IMAGECUBE_ARRAY_UI(img, x, y, z, cube) read_imageui((img), img##_kjarni_sampler, kjarni_cube_coordinates((x), (y), (z), (cube), (float)get_image_width(img)))

// kjarni's OpenCL images have one mipmap level (ImageLimits::mipmaps is false there), which a
// read at any level of detail reads, as CUDA's clamp to the last level does.
#define KJARNI_READ_IMAGE1D_LOD_F(img, x, lod) ((void)(lod), KJARNI_READ_IMAGE1D_F(img, x))
#define KJARNI_READ_IMAGE1D_LOD_I(img, x, lod) ((void)(lod), KJARNI_READ_IMAGE1D_I(img, x))
#define KJARNI_READ_IMAGE1D_LOD_UI(img, x, lod) ((void)(lod), KJARNI_READ_IMAGE1D_UI(img, x))
#define KJARNI_READ_IMAGE2D_LOD_F(img, x, y, lod) ((void)(lod), KJARNI_READ_IMAGE2D_F(img, x, y))
#define KJARNI_READ_IMAGE2D_LOD_I(img, x, y, lod) ((void)(lod), KJARNI_READ_IMAGE2D_I(img, x, y))
#define KJARNI_READ_IMAGE2D_LOD_UI(img, x, y, lod) ((void)(lod), KJARNI_READ_IMAGE2D_UI(img, x, y))
#define KJARNI_READ_IMAGE3D_LOD_F(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGE3D_F(img, x, y, z))
#define KJARNI_READ_IMAGE3D_LOD_I(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGE3D_I(img, x, y, z))
#define KJARNI_READ_IMAGE3D_LOD_UI(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGE3D_UI(img, x, y, z))
#define KJARNI_READ_IMAGECUBE_LOD_F(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGECUBE_F(img, x, y, z))
#define KJARNI_READ_IMAGECUBE_LOD_I(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGECUBE_I(img, x, y, z))
#define KJARNI_READ_IMAGECUBE_LOD_UI(img, x, y, z, lod) ((void)(lod), KJARNI_READ_IMAGECUBE_UI(img, x, y, z))

#define KJARNI_WRITE_IMAGE1D_F(img, x, v) write_imagef((img), (int)(x), (v))
#define KJARNI_WRITE_IMAGE1D_I(img, x, v) write_imagei((img), (int)(x), (v))
#define KJARNI_WRITE_IMAGE1D_UI(img, x, v) write_imageui((img), (int)(x), (v))
#define KJARNI_WRITE_IMAGE2D_F(img, x, y, v) write_imagef((img), (int2)((int)(x), (int)(y)), (v))
#define KJARNI_WRITE_IMAGE2D_I(img, x, y, v) write_imagei((img), (int2)((int)(x), (int)(y)), (v))
#define KJARNI_WRITE_IMAGE2D_UI(img, x, y, v) write_imageui((img), (int2)((int)(x), (int)(y)), (v))
#define KJARNI_WRITE_IMAGE3D_F(img, x, y, z, v) write_imagef((img), (int4)((int)(x), (int)(y), (int)(z), 0), (v))
#define KJARNI_WRITE_IMAGE3D_I(img, x, y, z, v) write_imagei((img), (int4)((int)(x), (int)(y), (int)(z), 0), (v))
#define KJARNI_WRITE_IMAGE3D_UI(img, x, y, z, v) write_imageui((img), (int4)((int)(x), (int)(y), (int)(z), 0), (v))
#define KJARNI_WRITE_IMAGE1D_ARRAY_F(img, x, layer, v) write_imagef((img), (int2)((int)(x), (int)(layer)), (v))
#define KJARNI_WRITE_IMAGE1D_ARRAY_I(img, x, layer, v) write_imagei((img), (int2)((int)(x), (int)(layer)), (v))
#define KJARNI_WRITE_IMAGE1D_ARRAY_UI(img, x, layer, v) write_imageui((img), (int2)((int)(x), (int)(layer)), (v))
#define KJARNI_WRITE_IMAGE2D_ARRAY_F(img, x, y, layer, v) write_imagef((img), (int4)((int)(x), (int)(y), (int)(layer), 0), (v))
#define KJARNI_WRITE_IMAGE2D_ARRAY_I(img, x, y, layer, v) write_imagei((img), (int4)((int)(x), (int)(y), (int)(layer), 0), (v))
#define KJARNI_WRITE_IMAGE2D_ARRAY_UI(img, x, y, layer, v) write_imageui((img), (int4)((int)(x), (int)(y), (int)(layer), 0), (v))

)";

}  // namespace

const char* image_prelude(const ApiId& api) { return api == ApiId::cuda() ? cuda_image_prelude : opencl_image_prelude; }

}  // namespace kjarni::detail
