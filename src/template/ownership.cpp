// Owner tokens of renders, and the checked access to containers a template changes in place.

#include "ownership.hpp"

#include "errors.hpp"
#include "runtime_objects.hpp"

#include <fmt/format.h>

#include <atomic>
#include <unordered_set>

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

// Whether `target` is reachable from `v` through lists, tuples and dicts.
bool reaches(const Value& v, const void* target, std::unordered_set<const void*>& seen) {
    switch (v.kind()) {
    case Value::Kind::List:
    case Value::Kind::Tuple: {
        const auto& p = std::get<std::shared_ptr<const Value::ListData>>(v.storage());
        if (p.get() == target) return true;
        if (!seen.insert(p.get()).second) return false;
        for (const auto& item : p->items)
            if (reaches(item, target, seen)) return true;
        return false;
    }
    case Value::Kind::Dict: {
        const auto& p = std::get<std::shared_ptr<const Value::DictData>>(v.storage());
        if (p.get() == target) return true;
        if (!seen.insert(p.get()).second) return false;
        for (const auto& [k, item] : p->items)
            if (reaches(item, target, seen)) return true;
        return false;
    }
    case Value::Kind::Set: {
        const auto& p = std::get<std::shared_ptr<const Value::SetData>>(v.storage());
        if (!seen.insert(p.get()).second) return false;
        for (const auto& item : p->items)
            if (reaches(item, target, seen)) return true;
        return false;
    }
    case Value::Kind::Object: {
        const auto* it = dynamic_cast<const IteratorObject*>(v.as_object().get());
        return it && reaches(it->source(), target, seen);
    }
    case Value::Kind::Callable: {
        const auto* f = v.as_function().target<CapturingFunction>();
        if (!f || !seen.insert(f).second) return false;
        if (f->captured)
            for (const auto& [name, item] : *f->captured)
                if (reaches(item, target, seen)) return true;
        for (const auto& item : f->defaults)
            if (reaches(item, target, seen)) return true;
        return false;
    }
    default: return false;
    }
}

const void* identity(const Value& v) {
    return std::visit([](const auto& p) -> const void* {
        if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::shared_ptr<const Value::ListData>> ||
                      std::is_same_v<std::decay_t<decltype(p)>, std::shared_ptr<const Value::DictData>>)
            return p.get();
        else
            return nullptr;
    }, v.storage());
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
    std::unordered_set<const void*> seen;
    if (reaches(item, target, seen))
        throw EvalError(fmt::format("a {} cannot contain itself (reference cycles are not supported)", container.type_name()));
}

}  // namespace kjarni::tmpl
