// Resolving the loader tags' URIs at render time (the tags are compiled without loading anything,
// so a template that is never rendered needs no files).

#include "loader_runtime.hpp"

#include "errors.hpp"
#include "evaluator.hpp"
#include "limits.hpp"
#include "lookup_state.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kjarni::tmpl {

TemplatePtr load_related(const detail::CompiledTemplate& from, const std::string& uri) {
    const auto lookup = from.lookup.lock();
    if (!lookup) {
        if (from.has_lookup)
            throw EvalError(
                fmt::format("cannot load '{}': the TemplateLookup of template '{}' no longer exists", uri, from.name));
        throw EvalError(fmt::format("cannot load '{}': template '{}' has no TemplateLookup (make it through a "
                                    "kjarni::TemplateLookup or with Template::from_associated_file)",
                                    uri, from.name));
    }
    // A TemplateNotFound goes up as it is: the tag's evaluator reports it at the tag (a RenderError
    // with the lookup's own message), keeping it as the RenderError's exception().
    return lookup->get(detail::normalize_uri(uri, from.uri, lookup->directories));
}

std::shared_ptr<const Chain> inheritance_chain(const TemplatePtr& t, const Globals* globals) {
    if (t->inherit_uri.empty()) return nullptr;
    auto chain = std::make_shared<Chain>();
    chain->push_back(t);
    while (!chain->back()->inherit_uri.empty()) {
        const detail::CompiledTemplate& from = *chain->back();
        TemplatePtr next;
        try {
            next = load_related(from, from.inherit_uri);
            // Mako recurses forever on a cycle; kjarni names it.
            if (std::find(chain->begin(), chain->end(), next) != chain->end())
                throw EvalError(fmt::format("'<%inherit file=\"{}\">' makes a cycle of inheritance", from.inherit_uri));
            if (chain->size() >= limits().max_call_depth) throw EvalError("inheritance chain too long");
        } catch (const EvalError& e) {
            throw make_render_error(from, from.inherit_pos, e.what(), globals, std::current_exception());
        } catch (const TemplateNotFound& e) {
            throw make_render_error(from, from.inherit_pos, e.what(), globals, std::current_exception());
        }
        chain->push_back(std::move(next));
    }
    return chain;
}

}  // namespace kjarni::tmpl
