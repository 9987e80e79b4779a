// Telling the code a CUDA module is loaded from apart, and checking it is whole: cubins (ELF),
// fatbins and PTX. cuModuleLoadData takes no size, so a truncated image must never reach it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "backend/cuda/cuda_program.hpp"

namespace kjarni::backend::cuda {

namespace {

template <class T>
T read_image_le(std::span<const std::byte> bytes, std::size_t offset) noexcept {
    // Cubins are little-endian, like every host CUDA runs on.
    T value{};
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

bool image_range_fits(std::uint64_t offset, std::uint64_t length, std::size_t size) noexcept {
    return offset <= size && length <= size - offset;
}

bool is_complete_elf64(std::span<const std::byte> image) noexcept {
    constexpr std::size_t header_size = 64;
    if (image.size() < header_size) return false;
    // e_ident: class ELFCLASS64 (2), data ELFDATA2LSB (1).
    if (std::to_integer<int>(image[4]) != 2 || std::to_integer<int>(image[5]) != 1) return false;
    const auto phoff = read_image_le<std::uint64_t>(image, 32);
    const auto shoff = read_image_le<std::uint64_t>(image, 40);
    const auto phentsize = read_image_le<std::uint16_t>(image, 54);
    const auto phnum = read_image_le<std::uint16_t>(image, 56);
    const auto shentsize = read_image_le<std::uint16_t>(image, 58);
    const auto shnum = read_image_le<std::uint16_t>(image, 60);
    if (phnum > 0 && (phentsize < 40 || !image_range_fits(phoff, std::uint64_t{phentsize} * phnum, image.size())))
        return false;
    if (shnum > 0 && (shentsize < 40 || !image_range_fits(shoff, std::uint64_t{shentsize} * shnum, image.size())))
        return false;
    for (std::size_t i = 0; i < phnum; ++i) {
        const std::size_t entry = static_cast<std::size_t>(phoff) + i * phentsize;
        if (!image_range_fits(read_image_le<std::uint64_t>(image, entry + 8),
                              read_image_le<std::uint64_t>(image, entry + 32), image.size())) {
            return false;
        }
    }
    constexpr std::uint32_t sht_nobits = 8;  // occupies no space in the file (.bss, .nv.shared...)
    for (std::size_t i = 0; i < shnum; ++i) {
        const std::size_t entry = static_cast<std::size_t>(shoff) + i * shentsize;
        if (read_image_le<std::uint32_t>(image, entry + 4) == sht_nobits) continue;
        if (!image_range_fits(read_image_le<std::uint64_t>(image, entry + 24),
                              read_image_le<std::uint64_t>(image, entry + 32), image.size())) {
            return false;
        }
    }
    return true;
}

// A fatbin (several cubins and PTX in one file, as nvcc -fatbin writes): its header says how long
// it is. Layout: u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of what follows.
constexpr std::uint32_t fatbin_magic = 0xBA55ED50;

bool is_complete_fatbin(std::span<const std::byte> image) noexcept {
    constexpr std::size_t header_size = 16;
    if (image.size() < header_size || read_image_le<std::uint32_t>(image, 0) != fatbin_magic) return false;
    const auto declared_header = read_image_le<std::uint16_t>(image, 6);
    const auto body = read_image_le<std::uint64_t>(image, 8);
    return declared_header >= header_size && image_range_fits(declared_header, body, image.size());
}

constexpr std::array<unsigned char, 4> cubin_elf_magic = {0x7f, 'E', 'L', 'F'};

}  // namespace

bool is_elf_image(std::span<const std::byte> image) noexcept {
    return image.size() >= cubin_elf_magic.size() &&
           std::memcmp(image.data(), cubin_elf_magic.data(), cubin_elf_magic.size()) == 0;
}

bool is_fatbin_image(std::span<const std::byte> image) noexcept {
    return image.size() >= 4 && read_image_le<std::uint32_t>(image, 0) == fatbin_magic;
}

bool is_binary_image(std::span<const std::byte> image) noexcept {
    return is_elf_image(image) || is_fatbin_image(image);
}

bool is_loadable_image(std::span<const std::byte> image) noexcept {
    if (is_elf_image(image)) return is_complete_elf64(image);
    if (is_fatbin_image(image)) return is_complete_fatbin(image);
    // PTX: text the driver reads up to its NUL.
    return !image.empty() && std::to_integer<int>(image.back()) == 0;
}

}  // namespace kjarni::backend::cuda
