// libFuzzer entry point: compiles the input as a template and renders it with a few globals of
// every kind (modules and snippets included), through render_with_modules. kjarni::Error is the
// expected way to fail; any other exception, a crash, a hang or a sanitizer report is a finding.

#include <kjarni/template.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

const kjarni::Globals& globals() {
    static const kjarni::Globals g = [] {
        using kjarni::Value;
        auto mod = kjarni::Module::from_string("int ${prefix}(int x) { return x + ${n}; }\n", "m", {{"n", 3}});
        auto snip = kjarni::Snippet::from_callable({"a"}, [] { return "${a} + ${mod}(1)"; }, "s", {{"mod", mod}});
        auto argmod = kjarni::Module::from_callable({"prefix", "k"}, [] { return "#define ${prefix} ${k}\n"; }, "am");
        return kjarni::Globals{
            {"n", 4},
            {"x", 1.5},
            {"name", "foo"},
            {"flag", true},
            {"none", Value()},
            {"xs", Value{1, 2, 3}},
            {"d", Value(std::map<std::string, Value>{{"a", 1}, {"b", "two"}})},
            {"f", Value([](const kjarni::Args& a) { return Value(static_cast<std::int64_t>(a.size())); })},
            {"mod", mod},
            {"snip", snip},
            {"argmod", argmod},
            {"mods", Value{mod, argmod}},
        };
    }();
    return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // Small bounds keep every input fast; the defaults are for real kernels.
    auto& l = kjarni::template_limits();
    l.max_steps = 100'000;
    l.max_string = 1u << 20;
    l.max_items = 1u << 16;
    l.max_call_depth = 64;
    l.max_nesting = 100;

    std::string source(reinterpret_cast<const char*>(data), size);
    try {
        kjarni::render_with_modules(source, {}, globals());
    } catch (const kjarni::Error&) {
        // Expected: bad templates are reported as errors.
    }
    try {
        // The same text as a def with arguments.
        auto def = kjarni::DefTemplate::from_string("fuzz", {"a", "b"}, source);
        def.render({kjarni::Value(1), kjarni::Value("s")}, globals());
    } catch (const kjarni::Error&) {
    }
    return 0;
}
