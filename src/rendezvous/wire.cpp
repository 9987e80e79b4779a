#include "rendezvous/wire.hpp"

#include <cstring>

namespace kjarni::rendezvous {

std::string_view kind_name(Kind kind) {
    switch (kind) {
    case Kind::hello: return "hello";
    case Kind::table: return "table";
    case Kind::refusal: return "refusal";
    case Kind::mesh: return "mesh";
    case Kind::message: return "send";
    case Kind::broadcast: return "broadcast";
    case Kind::all_gather: return "all_gather";
    case Kind::barrier: return "barrier";
    case Kind::greeting: return "greeting";
    case Kind::challenge: return "challenge";
    case Kind::proof: return "proof";
    }
    return "unknown";
}

std::array<std::byte, Header::bytes> Header::encode() const {
    Writer writer;
    writer.u32(magic);
    writer.u16(version);
    writer.u16(static_cast<std::uint16_t>(kind));
    writer.u64(nonce);
    writer.u64(size);
    std::array<std::byte, bytes> out{};
    std::memcpy(out.data(), writer.bytes().data(), bytes);
    return out;
}

Header Header::decode(std::span<const std::byte, bytes> raw) {
    Reader reader(raw);
    Header header;
    header.magic = reader.u32();
    header.version = reader.u16();
    header.kind = static_cast<Kind>(reader.u16());
    header.nonce = reader.u64();
    header.size = reader.u64();
    return header;
}

void Writer::put(std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) out_.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
}

void Writer::text(std::string_view value) {
    u32(static_cast<std::uint32_t>(value.size()));
    raw(std::as_bytes(std::span(value.data(), value.size())));
}

std::uint64_t Reader::get(int size) {
    if (!ok_ || in_.size() - at_ < static_cast<std::size_t>(size)) {
        ok_ = false;
        return 0;
    }
    std::uint64_t value = 0;
    for (int i = 0; i < size; ++i)
        value |= static_cast<std::uint64_t>(in_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
    at_ += static_cast<std::size_t>(size);
    return value;
}

std::span<const std::byte> Reader::raw(std::size_t size) {
    if (!ok_ || in_.size() - at_ < size) {
        ok_ = false;
        return {};
    }
    auto out = in_.subspan(at_, size);
    at_ += size;
    return out;
}

std::string Reader::text() {
    const std::uint32_t size = u32();
    auto bytes = raw(size);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace kjarni::rendezvous
