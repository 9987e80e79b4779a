// The kjarni side of the random differential test against Mako (peer/mako_fuzz.py runs it).
// Reads templates from stdin, each as `<byte count>\n<bytes>`, renders each with the corpus's
// globals (those of corpus_test.cpp and peer/mako_corpus.py) and a lookup on corpus/lib, and writes
// for each `OK <byte count>\n<output>` or `ERR <byte count>\n<message>` to stdout. One process
// renders many templates, so that a fuzz run of thousands costs seconds.

#include <kjarni/template.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

kjarni::Globals corpus_globals() {
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

void reply(const char* tag, const std::string& text) {
    std::cout << tag << ' ' << text.size() << '\n' << text;
    std::cout.flush();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: kjarni_mako_fuzz_runner CORPUS_LIB_DIR < framed templates\n";
        return 2;
    }
    std::ios::sync_with_stdio(false);
    const kjarni::TemplateLookup lookup({std::filesystem::path(argv[1])});
    const kjarni::Globals globals = corpus_globals();
    std::size_t index = 0;
    std::size_t size = 0;
    while (std::cin >> size) {
        std::cin.get();  // the newline after the count
        std::string source(size, '\0');
        std::cin.read(source.data(), static_cast<std::streamsize>(size));
        try {
            reply("OK", lookup.from_string(source, "fuzz" + std::to_string(index++) + ".mako").render(globals));
        } catch (const kjarni::RenderError& e) {
            reply("ERR", e.what());
        } catch (const std::exception& e) {
            // Anything but a RenderError escaping a render is a bug of its own: say so.
            reply("ERR", std::string("NOT-A-RENDER-ERROR ") + e.what());
        }
    }
    return 0;
}
