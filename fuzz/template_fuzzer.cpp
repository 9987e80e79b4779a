// libFuzzer entry point: compiles the input as a template and renders it with a few globals of
// every kind (modules and snippets included), through render_with_modules. kjarni::Error is the
// expected way to fail; any other exception, a crash, a hang or a sanitizer report is a finding.
// A third pass renders it through a TemplateLookup of a few files (made once in a temporary
// directory) that include, inherit and import each other, themselves included, so that the
// loader's tags are fuzzed too.

#include <kjarni/template.hpp>

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

const kjarni::Globals& globals() {
    static const kjarni::Globals g = [] {
        using kjarni::Value;
        auto mod = kjarni::Module::from_string("int ${prefix}(int x) { return x + ${n}; }\n", "m", {{"n", 3}});
        auto snip = kjarni::Snippet::from_callable({"a"}, [] { return "${a} + ${mod}(1)"; }, "s", {{"mod", mod}});
        auto argmod = kjarni::Module::from_callable(
            {"prefix", "k"}, [] { return "#define ${prefix} ${k}\n"; }, "am");
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

const kjarni::TemplateLookup& lookup() {
    static const kjarni::TemplateLookup l = [] {
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / ("kjarni-fuzz-lookup-" + std::to_string(::getpid()));
        fs::create_directories(dir / "sub");
        const std::pair<const char*, const char*> files[] = {
            {"base.mako",
             "[${self.who() if hasattr(self, 'who') else ''}${next.body()}]<%def name=\"f(a=1)\">f${a}</%def>"},
            {"page.mako", "<%page args=\"n, k=2\"/>${n}${k}"},
            {"lib.mako", "<%namespace name=\"b\" file=\"base.mako\"/><%def name=\"g(x)\">g${x}${b.f(x)}</%def>"},
            {"self.mako", "<%include file=\"self.mako\"/>"},
            {"chain.mako", "<%inherit file=\"base.mako\"/>c${parent.f(2)}<%def name=\"who()\">chain</%def>"},
            {"cycle.mako", "<%inherit file=\"cycle.mako\"/>"},
            {"sub/rel.mako", "<%include file=\"../page.mako\" args=\"n=1\"/><%include file=\"/lib.mako\"/>"},
        };
        for (const auto& [name, text] : files) std::ofstream(dir / name, std::ios::binary) << text;
        return kjarni::TemplateLookup({dir});
    }();
    return l;
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
    try {
        lookup().from_string(source, "fuzz").render(globals());
    } catch (const kjarni::Error&) {
    }
    return 0;
}
