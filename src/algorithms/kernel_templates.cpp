// The embedded kernel templates (kernel_templates.hpp), held by one lookup that compiles each once.

#include "algorithms/kernel_templates.hpp"

namespace kjarni::detail {
namespace {

const TemplateLookup& kernel_template_lookup() {
    static const TemplateLookup lookup = [] {
        TemplateLookup made = TemplateLookup::without_directories();
        for (const auto& [name, text] : embedded_kernel_templates())
            made.put_string(std::string(name), std::string(text));
        return made;
    }();
    return lookup;
}

}  // namespace

std::string render_kernel_template(const std::string& name, const Globals& globals) {
    return kernel_template_lookup().get_template(name).render(globals);
}

}  // namespace kjarni::detail
