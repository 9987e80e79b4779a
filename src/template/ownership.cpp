// Owner tokens of renders, and the checked access to containers a template changes in place.

#include "ownership.hpp"

#include "errors.hpp"
#include "runtime_objects.hpp"

#include <fmt/format.h>

#include <atomic>
#include <unordered_set>
#include <vector>

namespace kjarni::tmpl {

namespace {

thread_local std::uint64_t owner_token = 0;
// Tokens are never reused (a 64-bit counter), so a container that outlived its render is owned by
// no later render.
std::atomic<std::uint64_t> next_token{1};

[[noreturn]] void shared(const char* type) {
    throw SharedMutationError(fmt::format(
        "this {0} was not made by the template (it comes from the render globals or from C++) and is shared "
        "between renders, so it cannot be changed in place: copy it first, e.g. with {0}(...)",
        type));
}

// Whether `target` is reachable from `v` through lists, tuples, dicts (keys and values), sets, the
// values template functions hold and iterators. Iterative: a list nested a hundred thousand deep
// must not exhaust the stack.
bool reaches(const Value& start, const void* target) {
    std::unordered_set<const void*> seen;
    std::vector<const Value*> todo{&start};
    auto visit = [&](const void* p) { return seen.insert(p).second; };
    while (!todo.empty()) {
        const Value& v = *todo.back();
        todo.pop_back();
        switch (v.kind()) {
        case Value::Kind::List:
        case Value::Kind::Tuple: {
            const auto& p = std::get<std::shared_ptr<const Value::ListData>>(v.storage());
            if (p.get() == target) return true;
            if (visit(p.get()))
                for (const auto& item : p->items) todo.push_back(&item);
            break;
        }
        case Value::Kind::Dict: {
            const auto& p = std::get<std::shared_ptr<const Value::DictData>>(v.storage());
            if (p.get() == target) return true;
            if (visit(p.get()))
                for (const auto& [k, item] : p->items) {
                    todo.push_back(&k);
                    todo.push_back(&item);
                }
            break;
        }
        case Value::Kind::Set: {
            const auto& p = std::get<std::shared_ptr<const Value::SetData>>(v.storage());
            if (p.get() == target) return true;
            if (visit(p.get()))
                for (const auto& item : p->items) todo.push_back(&item);
            break;
        }
        case Value::Kind::Object: {
            const auto* it = dynamic_cast<const IteratorObject*>(v.as_object().get());
            if (it && visit(it)) todo.push_back(&it->source());
            break;
        }
        case Value::Kind::Callable: {
            const auto* f = v.as_function().target<CapturingFunction>();
            if (!f || !visit(f)) break;
            if (f->captured)
                for (const auto& [name, item] : *f->captured) todo.push_back(&item);
            for (const auto& item : f->defaults) todo.push_back(&item);
            break;
        }
        default: break;
        }
    }
    return false;
}

const void* identity(const Value& v) {
    return std::visit(
        [](const auto& p) -> const void* {
            if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::shared_ptr<const Value::ListData>> ||
                          std::is_same_v<std::decay_t<decltype(p)>, std::shared_ptr<const Value::DictData>> ||
                          std::is_same_v<std::decay_t<decltype(p)>, std::shared_ptr<const Value::SetData>>)
                return p.get();
            else return nullptr;
        },
        v.storage());
}

}  // namespace

std::uint64_t current_owner() noexcept { return owner_token; }

OwnerScope::OwnerScope() : outermost_(owner_token == 0) {
    if (outermost_) owner_token = next_token.fetch_add(1, std::memory_order_relaxed);
}

OwnerScope::~OwnerScope() {
    if (outermost_) owner_token = 0;
}

std::vector<Value>& mutable_list(const Value& v) {
    if (v.kind() != Value::Kind::List) throw EvalError(fmt::format("expected list, got {}", v.type_name()));
    const auto& p = std::get<std::shared_ptr<const Value::ListData>>(v.storage());
    if (p->owner == 0 || p->owner != owner_token) shared("list");
    // Made non-const by Value::list (value.cpp), so changing it is defined.
    return const_cast<Value::ListData&>(*p).items;
}

DictItems& mutable_dict(const Value& v) {
    if (v.kind() != Value::Kind::Dict) throw EvalError(fmt::format("expected dict, got {}", v.type_name()));
    const auto& p = std::get<std::shared_ptr<const Value::DictData>>(v.storage());
    if (p->owner == 0 || p->owner != owner_token) shared("dict");
    return const_cast<Value::DictData&>(*p).items;
}

void check_no_cycle(const Value& container, const Value& item) {
    const void* target = identity(container);
    if (!target) return;
    if (reaches(item, target))
        throw EvalError(
            fmt::format("a {} cannot contain itself (reference cycles are not supported)", container.type_name()));
}

}  // namespace kjarni::tmpl
