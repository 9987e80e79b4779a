// Snippets, Modules, and their rendering (reference §3.2.2).
//
// Before the main def is rendered, its globals are "processed": every Module is replaced by a
// RenderableModule and every Snippet by a RenderableSnippet, looking inside lists, tuples, dicts and
// Objects. Rendering is lazy, driven by the template: when a RenderableModule is used (`${mod}` or
// `${mod(args)}`), it takes the next prefix, renders its def with (prefix, args...) and its own
// processed globals -- which renders the modules *it* uses first -- appends the result to the
// collected sources and evaluates to the prefix. So the collected sources come out depth first, in
// order of use, and only modules actually used are rendered (module arguments are only known at
// the use site, so an eager pass could not render them anyway). As in grunnur, a rendering is
// memoized by the module's identity and its arguments (compared with Python's ==): a module used
// with the same arguments in several places is rendered once and its prefix reused.

#include <kjarni/template/module.hpp>

#include "compile.hpp"
#include "errors.hpp"
#include "evaluator.hpp"
#include "template/plain_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace kjarni {

namespace {

// One rendered module: which module, with which arguments, and the prefix it was given.
struct RenderedModule {
    std::shared_ptr<const detail::ModuleImpl> module;
    Args args;
    std::string prefix;
};

bool same_args(const Args& a, const Args& b) {
    if (a.positional != b.positional || a.keyword.size() != b.keyword.size()) return false;
    for (const auto& [name, value] : a.keyword) {
        const Value* other = b.find_keyword(name);
        if (!other || !(*other == value)) return false;
    }
    return true;
}

struct Collector {
    std::vector<RenderedModule> rendered;
    std::vector<std::string> sources;
    std::size_t counter = 0;
};
using CollectorPtr = std::shared_ptr<Collector>;

Value process(const Value& v, const CollectorPtr& c);

Globals process_globals(const Globals& g, const CollectorPtr& c) {
    Globals out;
    for (const auto& [k, v] : g) out.emplace(k, process(v, c));
    return out;
}

class RenderableSnippet final : public Object {
public:
    RenderableSnippet(std::shared_ptr<const detail::SnippetImpl> impl, CollectorPtr c)
        : impl_(std::move(impl)), collector_(std::move(c)) {}
    std::string type_name() const override { return "Snippet"; }
    std::string to_string() const override { return call(Args{}).as_string(); }
    Value call(const Args& args) const override {
        if (!globals_) globals_ = process_globals(impl_->render_globals, collector_);
        return Value(impl_->def.render(args, *globals_));
    }

private:
    std::shared_ptr<const detail::SnippetImpl> impl_;
    CollectorPtr collector_;
    mutable std::optional<Globals> globals_;  // processed on first use, then reused
};

class RenderableModule final : public Object {
public:
    RenderableModule(std::shared_ptr<const detail::ModuleImpl> impl, CollectorPtr c)
        : impl_(std::move(impl)), collector_(std::move(c)) {}
    std::string type_name() const override { return "Module"; }
    std::string to_string() const override { return call(Args{}).as_string(); }
    Value call(const Args& args) const override {
        Collector& c = *collector_;
        for (const RenderedModule& r : c.rendered)
            if (r.module == impl_ && same_args(r.args, args)) return Value(r.prefix);
        std::string prefix = fmt::format("_mod_{}_{}_", impl_->def.name(), c.counter++);
        if (!globals_) globals_ = process_globals(impl_->render_globals, collector_);
        Args full;
        full.positional.reserve(args.positional.size() + 1);
        full.positional.emplace_back(prefix);
        full.positional.insert(full.positional.end(), args.positional.begin(), args.positional.end());
        full.keyword = args.keyword;
        std::string source = impl_->def.render(full, *globals_);
        c.sources.push_back(std::move(source));
        c.rendered.push_back(RenderedModule{impl_, args, prefix});
        return Value(prefix);
    }

private:
    std::shared_ptr<const detail::ModuleImpl> impl_;
    CollectorPtr collector_;
    mutable std::optional<Globals> globals_;
};

Value process(const Value& v, const CollectorPtr& c) {
    switch (v.kind()) {
    case Value::Kind::Module:
        return Value(
            std::make_shared<RenderableModule>(std::get<std::shared_ptr<const detail::ModuleImpl>>(v.storage()), c));
    case Value::Kind::Snippet:
        return Value(
            std::make_shared<RenderableSnippet>(std::get<std::shared_ptr<const detail::SnippetImpl>>(v.storage()), c));
    case Value::Kind::List:
    case Value::Kind::Tuple: {
        std::vector<Value> items;
        items.reserve(v.as_list().size());
        for (const auto& item : v.as_list()) items.push_back(process(item, c));
        return v.kind() == Value::Kind::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
    }
    case Value::Kind::Dict: {
        DictItems items;
        for (const auto& [k, item] : v.as_dict()) items.set(k, process(item, c));
        return Value::dict(std::move(items));
    }
    case Value::Kind::Object: {
        auto processed = v.as_object()->process_modules([&c](const Value& x) { return process(x, c); });
        return processed ? Value(Value::Storage(std::move(processed))) : v;
    }
    default: return v;
    }
}

// The collected modules' sources joined by newlines (grunnur puts a newline and the main code after
// them).
std::string modules_text(const Collector& c) {
    std::string out;
    for (std::size_t i = 0; i < c.sources.size(); ++i) {
        if (i > 0) out += "\n";
        out += c.sources[i];
    }
    return out;
}

}  // namespace

Snippet::Snippet(DefTemplate def, Globals render_globals)
    : impl_(
          std::make_shared<const detail::SnippetImpl>(detail::SnippetImpl{std::move(def), std::move(render_globals)})) {
}

Snippet Snippet::from_string(const std::string& source, std::string name, Globals render_globals) {
    return Snippet(DefTemplate::from_string(std::move(name), {}, source), std::move(render_globals));
}

Snippet Snippet::from_callable(std::vector<std::string> argnames, const std::function<std::string()>& body,
                               std::string name, Globals render_globals) {
    return Snippet(DefTemplate::from_callable(std::move(name), std::move(argnames), body), std::move(render_globals));
}

Module::Module(DefTemplate def, Globals render_globals) {
    if (def.argnames().empty())
        throw Error(fmt::format("Module '{}': its def must take at least one argument (the prefix)", def.name()));
    impl_ = std::make_shared<const detail::ModuleImpl>(detail::ModuleImpl{std::move(def), std::move(render_globals)});
}

Module Module::from_string(const std::string& source, std::string name, Globals render_globals) {
    return Module(DefTemplate::from_string(std::move(name), {"prefix"}, source), std::move(render_globals));
}

Module Module::from_callable(std::vector<std::string> argnames, const std::function<std::string()>& body,
                             std::string name, Globals render_globals) {
    return Module(DefTemplate::from_callable(std::move(name), std::move(argnames), body), std::move(render_globals));
}

std::string render_with_modules(const TemplateSource& source, const std::vector<Value>& render_args,
                                const Globals& render_globals) {
    // Plain code (no template markup, nothing to pass to it): the engine would give it back as it
    // is between the def's newlines, so skip it (see plain_text.cpp) and return what the rendering
    // below would return: no modules' sources, a newline, the rendered def.
    if (const auto* s = std::get_if<std::string>(&source);
        s && render_args.empty() && render_globals.empty() && detail::renders_as_itself(*s)) {
        std::string out;
        out.reserve(s->size() + 3);
        out += "\n\n";
        out += *s;
        out += '\n';
        return out;
    }
    auto collector = std::make_shared<Collector>();
    std::optional<DefTemplate> def;
    Globals globals;
    if (const auto* s = std::get_if<std::string>(&source)) {
        def = DefTemplate::from_string("_main_", {}, *s);
        globals = render_globals;
    } else if (const auto* d = std::get_if<DefTemplate>(&source)) {
        def = *d;
        globals = render_globals;
    } else {
        const Snippet& snippet = std::get<Snippet>(source);
        def = snippet.template_def();
        globals = snippet.render_globals();
        for (const auto& [k, v] : render_globals) {
            if (!globals.emplace(k, v).second)
                throw Error(fmt::format("render_globals: cannot add the global '{}': the snippet '{}' already "
                                        "has a global of that name",
                                        k, snippet.template_def().name()));
        }
    }
    std::string main = def->render(render_args, process_globals(globals, collector));
    // As grunnur: the modules' sources joined by newlines, a newline, then the main code.
    std::string out = modules_text(*collector);
    out += "\n";
    out += main;
    return out;
}

RenderedParts render_parts_with_modules(const std::vector<std::string>& parts, const Globals& render_globals,
                                        std::string name) {
    if (parts.empty()) throw Error(fmt::format("render_parts_with_modules: template '{}' has no parts", name));
    RenderedParts out;
    // Plain code in every part, and no globals: each part renders as itself (see plain_text.cpp;
    // a part's top level gets no newlines around it, and the check counts a trailing backslash,
    // which here stays as it is, as markup: it errs towards the engine).
    if (render_globals.empty() &&
        std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return detail::renders_as_itself(p); })) {
        out.parts = parts;
        return out;
    }
    const auto compiled = tmpl::compile_parts(std::move(name), parts);
    auto collector = std::make_shared<Collector>();
    const Globals globals = process_globals(render_globals, collector);
    for (std::size_t k = 0; k < parts.size(); ++k)
        out.parts.push_back(tmpl::render_def(compiled, tmpl::part_name(k), Args{}, globals));
    out.modules = modules_text(*collector);
    return out;
}

}  // namespace kjarni
