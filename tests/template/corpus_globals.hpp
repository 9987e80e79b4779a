#pragma once
// The render globals of the template corpus: those of peer/mako_corpus.py, value for value (the
// corpus test and the Mako fuzzer's runner render with them).

#include <kjarni/template.hpp>

#include <cstdint>

namespace kjarni::test {

inline kjarni::Globals corpus_globals() {
    using kjarni::Value;
    kjarni::Globals g;
    g["n"] = 4;
    g["names"] = Value{"x", "y", "z"};
    g["ctype"] = "float";
    g["scale"] = 0.5;
    g["flag"] = true;
    g["empty"] = Value::list({});
    g["text"] = "h\xc3\xa9llo w\xc3\xb6rld";
    g["mapping"] = Value::dict({{"b", 2}, {"a", 1}, {"c", 3}});
    g["pairs"] = Value{Value::tuple({"i", 1}), Value::tuple({"j", 2})};
    g["big"] = std::int64_t{1} << 40;
    g["twice"] = Value::function([](const kjarni::Args& a) { return Value(a[0].as_string() + a[0].as_string()); });
    return g;
}

}  // namespace kjarni::test
