// The kjarni side of the random differential test against Mako (peer/mako_fuzz.py runs it).
// Reads templates from stdin, each as `<byte count>\n<bytes>`, renders each with the corpus's
// globals (corpus_globals.hpp) and a lookup on corpus/lib, and writes
// for each `OK <byte count>\n<output>` or `ERR <byte count>\n<message>` to stdout. One process
// renders many templates, so that a fuzz run of thousands costs seconds.

#include <kjarni/template.hpp>

#include "../corpus_globals.hpp"

#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

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
    const kjarni::Globals globals = kjarni::test::corpus_globals();
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
