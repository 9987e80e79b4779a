#include "render_command.hpp"

#include "common.hpp"
#include "kjarni/error.hpp"
#include "kjarni/template/template.hpp"

namespace kjarni::tool {

std::string render_file(const RenderRequest& request) {
    const Template compiled = Template::from_file(request.file);
    const Globals globals = parse_globals(request.globals);
    if (!request.def) return compiled.render(globals);
    std::vector<Value> args;
    for (const std::string& text : request.def_args) {
        const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        args.push_back(parsed.is_discarded() ? Value(text) : to_value(parsed));
    }
    return compiled.get_def(*request.def).render(args, globals);
}

nlohmann::json error_json(const std::exception& error) {
    nlohmann::json body = {{"message", error.what()}};
    if (const auto* render = dynamic_cast<const RenderError*>(&error)) {
        body["message"] = render->message();
        body["file"] = render->template_name();
        body["line"] = render->line();
        body["column"] = render->column();
        body["source_line"] = render->source_line();
    } else if (const auto* compile = dynamic_cast<const CompileError*>(&error)) {
        body["device"] = compile->device();
        body["log"] = compile->log();
    }
    return {{"error", body}};
}

}  // namespace kjarni::tool
