#include "backend/cuda/kernel_param_counts.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

namespace kjarni::backend::cuda {

namespace {

using Counts = std::map<std::string, std::size_t, std::less<>>;

/// A bounds-checked little-endian view of the image (cubins are little-endian, like every host CUDA
/// runs on): reads outside it give nullopt.
class Bytes {
public:
    explicit Bytes(std::span<const std::byte> bytes) : bytes_(bytes) {}

    template <class T>
    std::optional<T> read(std::uint64_t offset) const noexcept {
        if (offset > bytes_.size() || sizeof(T) > bytes_.size() - offset) return std::nullopt;
        T value{};
        std::memcpy(&value, bytes_.data() + offset, sizeof value);
        return value;
    }

    /// The NUL-terminated string at `offset` inside [begin, end), or nullopt.
    std::optional<std::string_view> string(std::uint64_t begin, std::uint64_t end,
                                           std::uint64_t offset) const noexcept {
        if (end > bytes_.size() || begin > end || offset >= end - begin) return std::nullopt;
        const char* first = reinterpret_cast<const char*>(bytes_.data() + begin + offset);
        const auto length = static_cast<std::size_t>(end - begin - offset);
        const void* nul = std::memchr(first, 0, length);
        if (nul == nullptr) return std::nullopt;
        return std::string_view(first, static_cast<std::size_t>(static_cast<const char*>(nul) - first));
    }

    std::size_t size() const noexcept { return bytes_.size(); }

private:
    std::span<const std::byte> bytes_;
};

// The records of a `.nv.info.<kernel>` section: a format byte, an attribute byte, then a value whose
// size the format gives (these formats are the ones ptxas writes; another one stops the reading).
// The first three take 4 bytes in all (ptxas for sm_80 writes no-value records as 01 xx 00 00).
constexpr std::uint8_t format_none = 0x01;   // no value (2 bytes of padding)
constexpr std::uint8_t format_byte = 0x02;   // a 1-byte value (and a byte of padding)
constexpr std::uint8_t format_half = 0x03;   // a 2-byte value
constexpr std::uint8_t format_sized = 0x04;  // a 2-byte size, then that many bytes
constexpr std::uint8_t attribute_kparam_info = 0x17;
// EIATTR_KPARAM_INFO's value: u32 index, u16 ordinal, u16 offset, u32 flags (size in bits 18-31).
constexpr std::size_t kparam_info_size = 12;

/// The parameter count one `.nv.info.<kernel>` section declares, or nullopt when it cannot be told.
std::optional<std::size_t> count_in_info_section(const Bytes& image, std::uint64_t begin, std::uint64_t size) {
    std::set<std::uint16_t> ordinals;
    std::uint64_t at = begin;
    const std::uint64_t end = begin + size;
    while (at < end) {
        const auto format = image.read<std::uint8_t>(at);
        const auto attribute = image.read<std::uint8_t>(at + 1);
        if (!format || !attribute) return std::nullopt;
        if (*format == format_none || *format == format_byte || *format == format_half) {
            at += 4;
        } else if (*format == format_sized) {
            const auto length = image.read<std::uint16_t>(at + 2);
            if (!length) return std::nullopt;
            if (*attribute == attribute_kparam_info) {
                if (*length != kparam_info_size) return std::nullopt;
                const auto ordinal = image.read<std::uint16_t>(at + 8);
                if (!ordinal || !ordinals.insert(*ordinal).second) return std::nullopt;
            }
            at += 4 + std::uint64_t{*length};
        } else {
            return std::nullopt;
        }
    }
    if (at != end) return std::nullopt;
    // The ordinals must be exactly 0..n-1: anything else is a layout this reader does not know.
    if (!ordinals.empty() && *ordinals.rbegin() != ordinals.size() - 1) return std::nullopt;
    return ordinals.size();
}

Counts counts_in_cubin(const Bytes& image) {
    Counts counts;
    // ELF64 little-endian header: e_shoff at 40, e_shentsize at 58, e_shnum at 60, e_shstrndx at 62.
    const auto shoff = image.read<std::uint64_t>(40);
    const auto shentsize = image.read<std::uint16_t>(58);
    const auto shnum = image.read<std::uint16_t>(60);
    const auto shstrndx = image.read<std::uint16_t>(62);
    if (!shoff || !shentsize || !shnum || !shstrndx || *shentsize < 64 || *shstrndx >= *shnum) return counts;
    // A section header: sh_name at 0, sh_offset at 24, sh_size at 32.
    const auto header = [&](std::uint16_t index) { return *shoff + std::uint64_t{index} * *shentsize; };
    const auto names_offset = image.read<std::uint64_t>(header(*shstrndx) + 24);
    const auto names_size = image.read<std::uint64_t>(header(*shstrndx) + 32);
    if (!names_offset || !names_size || *names_offset > image.size() || *names_size > image.size() - *names_offset) {
        return counts;
    }
    constexpr std::string_view prefix = ".nv.info.";
    for (std::uint16_t i = 0; i < *shnum; ++i) {
        const auto name_index = image.read<std::uint32_t>(header(i));
        const auto offset = image.read<std::uint64_t>(header(i) + 24);
        const auto size = image.read<std::uint64_t>(header(i) + 32);
        if (!name_index || !offset || !size) return {};
        const auto name = image.string(*names_offset, *names_offset + *names_size, *name_index);
        if (!name || !name->starts_with(prefix) || name->size() == prefix.size()) continue;
        if (*offset > image.size() || *size > image.size() - *offset) continue;
        if (const auto count = count_in_info_section(image, *offset, *size)) {
            counts.emplace(std::string(name->substr(prefix.size())), *count);
        }
    }
    return counts;
}

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

Counts counts_in_ptx(std::string_view ptx) {
    // `.entry name(\n\t.param .u64 name_param_0,\n\t.param .f32 name_param_1\n)` (the parentheses are
    // absent for a kernel without parameters). Parameter declarations hold no parentheses.
    Counts counts;
    constexpr std::string_view entry = ".entry";
    for (std::size_t at = ptx.find(entry); at != std::string_view::npos; at = ptx.find(entry, at + 1)) {
        std::size_t pos = at + entry.size();
        if (pos >= ptx.size() || (ptx[pos] != ' ' && ptx[pos] != '\t')) continue;
        while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t')) ++pos;
        const std::size_t name_begin = pos;
        while (pos < ptx.size() && is_identifier_char(ptx[pos])) ++pos;
        if (pos == name_begin) continue;
        const std::string name(ptx.substr(name_begin, pos - name_begin));
        while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t' || ptx[pos] == '\n' || ptx[pos] == '\r')) ++pos;
        if (pos >= ptx.size() || ptx[pos] != '(') {
            counts.emplace(name, 0);
            continue;
        }
        const std::size_t close = ptx.find(')', pos);
        if (close == std::string_view::npos) continue;
        const std::string_view list = ptx.substr(pos + 1, close - pos - 1);
        std::size_t params = 0;
        constexpr std::string_view param = ".param";
        for (std::size_t p = list.find(param); p != std::string_view::npos; p = list.find(param, p + 1)) ++params;
        counts.emplace(name, params);
    }
    return counts;
}

}  // namespace

std::map<std::string, std::size_t, std::less<>> kernel_param_counts(std::span<const std::byte> image) noexcept {
    try {
        static constexpr unsigned char elf_magic[4] = {0x7f, 'E', 'L', 'F'};
        if (image.size() >= 64 && std::memcmp(image.data(), elf_magic, sizeof elf_magic) == 0) {
            // ELFCLASS64, ELFDATA2LSB: the only cubins there are.
            if (std::to_integer<int>(image[4]) != 2 || std::to_integer<int>(image[5]) != 1) return {};
            return counts_in_cubin(Bytes(image));
        }
        if (!image.empty() && std::to_integer<int>(image.back()) == 0) {
            return counts_in_ptx(std::string_view(reinterpret_cast<const char*>(image.data()), image.size() - 1));
        }
    } catch (...) {
        // Out of memory while recording names: knowing nothing is always safe.
    }
    return {};
}

}  // namespace kjarni::backend::cuda
