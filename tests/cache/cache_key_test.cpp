// Cache keys: stable, unambiguous, sensitive to every field.

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "program/cache/cache_key.hpp"

namespace kjarni::detail {
namespace {

CacheKey typical_key(const std::string& source = "KERNEL void f(GLOBAL_MEM float *x) { x[0] = 1; }") {
    return CacheKeyBuilder()
        .add("kjarni", "0.1.0")
        .add("api", "opencl")
        .add("device", "NVIDIA H100 80GB HBM3")
        .add("driver", "550.54.15")
        .add("compiler", "OpenCL C 3.0")
        .add("options", std::vector<std::string>{"-cl-fast-relaxed-math", "-DN=4"})
        .add("address_bits", 64)
        .add("source", source)
        .key();
}

TEST(CacheKey, SameFieldsGiveTheSameKey) {
    EXPECT_EQ(typical_key(), typical_key());
    EXPECT_EQ(typical_key().hex(), typical_key().hex());
}

TEST(CacheKey, KeysAreStableAcrossRunsAndHosts) {
    // Written to disk, so it must never change by accident: a change of the encoding must change
    // kFormat in cache_key.cpp (and then this value).
    EXPECT_EQ(CacheKeyBuilder().add("a", "b").add("n", 1).key().hex(), "41a69d0276f921ba6819418af7749e2d");
}

TEST(CacheKey, HexIs32LowercaseDigitsAndRoundTrips) {
    const CacheKey key = typical_key();
    const std::string hex = key.hex();
    ASSERT_EQ(hex.size(), 32U);
    for (const char c : hex) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << hex;
    EXPECT_EQ(CacheKey::from_hex(hex), key);
    std::string upper = hex;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(CacheKey::from_hex(upper), key);
    EXPECT_EQ(CacheKey::from_bytes(key.bytes()), key);
    EXPECT_FALSE(CacheKey::from_hex(hex.substr(1)));
    EXPECT_FALSE(CacheKey::from_hex(hex.substr(1) + "g"));
    EXPECT_EQ(CacheKey{}.hex(), std::string(32, '0'));
    EXPECT_EQ((CacheKey{0x0123456789abcdefULL, 0xfedcba9876543210ULL}.hex()), "0123456789abcdeffedcba9876543210");
}

TEST(CacheKey, EveryFieldChangesTheKey) {
    const CacheKey base = typical_key();
    const auto with = [](auto mutate) {
        CacheKeyBuilder builder;
        mutate(builder);
        return builder.key();
    };
    std::vector<CacheKey> variants = {
        typical_key("KERNEL void f(GLOBAL_MEM float *x) { x[0] = 2; }"),
        typical_key("KERNEL void f(GLOBAL_MEM float *x) { x[0] = 1; } "),
        typical_key(""),
    };
    // The same fields as typical_key(), one changed at a time.
    const std::vector<std::string> names = {"kjarni", "api", "device", "driver", "compiler"};
    const std::vector<std::string> values = {"0.1.0", "opencl", "NVIDIA H100 80GB HBM3", "550.54.15", "OpenCL C 3.0"};
    for (std::size_t changed = 0; changed < names.size(); ++changed) {
        for (const bool change_name : {false, true}) {
            variants.push_back(with([&](CacheKeyBuilder& b) {
                for (std::size_t i = 0; i < names.size(); ++i) {
                    const bool here = i == changed;
                    b.add(here && change_name ? names[i] + "_" : names[i],
                          here && !change_name ? values[i] + "!" : values[i]);
                }
                b.add("options", std::vector<std::string>{"-cl-fast-relaxed-math", "-DN=4"});
                b.add("address_bits", 64);
                b.add("source", "KERNEL void f(GLOBAL_MEM float *x) { x[0] = 1; }");
            }));
        }
    }
    for (const auto& options : std::vector<std::vector<std::string>>{{"-cl-fast-relaxed-math"},
                                                                     {"-DN=4", "-cl-fast-relaxed-math"},
                                                                     {"-cl-fast-relaxed-math", "-DN=5"},
                                                                     {}}) {
        variants.push_back(with([&](CacheKeyBuilder& b) {
            for (std::size_t i = 0; i < names.size(); ++i) b.add(names[i], values[i]);
            b.add("options", options);
            b.add("address_bits", 64);
            b.add("source", "KERNEL void f(GLOBAL_MEM float *x) { x[0] = 1; }");
        }));
    }
    std::unordered_set<CacheKey> seen = {base};
    for (const auto& key : variants) {
        EXPECT_NE(key, base);
        EXPECT_TRUE(seen.insert(key).second) << "two variants share the key " << key.hex();
    }
}

TEST(CacheKey, FieldBoundariesAreUnambiguous) {
    const auto one = [](std::string_view name, std::string_view value) {
        return CacheKeyBuilder().add(name, value).key();
    };
    const auto two = [](std::string_view a, std::string_view b, std::string_view c, std::string_view d) {
        return CacheKeyBuilder().add(a, b).add(c, d).key();
    };
    EXPECT_NE(one("ab", "c"), one("a", "bc"));
    EXPECT_NE(one("", "abc"), one("abc", ""));
    EXPECT_NE(two("a", "b", "c", "d"), two("a", "bc", "", "d"));
    EXPECT_NE(two("a", "b", "c", "d"), one("a", "bcd"));
    EXPECT_NE(two("a", "b", "c", "d"), two("c", "d", "a", "b"));  // order matters
    EXPECT_NE(CacheKeyBuilder().key(), one("", ""));
    // Lists: element boundaries and counts count.
    const auto list = [](std::initializer_list<std::string_view> values) {
        return CacheKeyBuilder().add("l", values).key();
    };
    EXPECT_NE(list({"a", "b"}), list({"ab"}));
    EXPECT_NE(list({"a", "b"}), list({"a", "b", ""}));
    EXPECT_NE(list({}), list({""}));
    EXPECT_NE(list({"ab"}), one("l", "ab"));
    // Lists of strings and of string views of the same text agree.
    EXPECT_EQ(list({"x", "yz"}), CacheKeyBuilder().add("l", std::vector<std::string>{"x", "yz"}).key());
    // Types are part of the encoding: a string "1", an integer 1 and a boolean true differ.
    EXPECT_NE(one("n", "1"), CacheKeyBuilder().add("n", 1).key());
    EXPECT_NE(CacheKeyBuilder().add("n", 1).key(), CacheKeyBuilder().add("n", true).key());
    EXPECT_NE(CacheKeyBuilder().add("n", 1).key(), CacheKeyBuilder().add("n", 1U).key());
    EXPECT_NE(CacheKeyBuilder().add("n", -1).key(), CacheKeyBuilder().add("n", 1).key());
    // Integers of any width with the same value and signedness agree.
    EXPECT_EQ(CacheKeyBuilder().add("n", 7).key(), CacheKeyBuilder().add("n", std::int64_t{7}).key());
    EXPECT_EQ(CacheKeyBuilder().add("n", std::uint8_t{7}).key(), CacheKeyBuilder().add("n", std::size_t{7}).key());
    // A string literal is a string, not a boolean.
    EXPECT_EQ(one("s", "text"), CacheKeyBuilder().add("s", "text").key());
    EXPECT_EQ(one("s", "text"), CacheKeyBuilder().add("s", std::string("text")).key());
    // Embedded zero bytes are part of the value.
    EXPECT_NE(one("s", std::string_view("a\0b", 3)), one("s", "a"));
}

TEST(CacheKey, KeyCanBeTakenAndMoreFieldsAdded) {
    CacheKeyBuilder builder;
    builder.add("a", "1");
    const CacheKey first = builder.key();
    EXPECT_EQ(builder.key(), first);
    builder.add("b", "2");
    EXPECT_NE(builder.key(), first);
    EXPECT_EQ(builder.key(), CacheKeyBuilder().add("a", "1").add("b", "2").key());
    CacheKeyBuilder moved = std::move(builder);
    EXPECT_EQ(moved.key(), CacheKeyBuilder().add("a", "1").add("b", "2").key());
}

TEST(CacheKey, UsableInUnorderedMap) {
    std::unordered_map<CacheKey, int> map;
    for (int i = 0; i < 1000; ++i) map[CacheKeyBuilder().add("i", i).key()] = i;
    ASSERT_EQ(map.size(), 1000U);
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(map.at(CacheKeyBuilder().add("i", i).key()), i);
}

}  // namespace
}  // namespace kjarni::detail
