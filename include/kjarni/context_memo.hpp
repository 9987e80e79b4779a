#pragma once
/// Caches of the user's that live as long as a context (PyOpenCL's first_arg_dependent_memoize and
/// clear_first_arg_caches): a value computed once per context and key, kept by the context itself,
/// and dropped when the context dies.
///
///     static const kjarni::ContextMemo<int, kjarni::DeviceReport> reports;
///     const auto& report = reports.get(context, n, [&] { return analyse(context, n); });
///
/// or, for a whole function whose first argument is the context:
///
///     static const auto table_for = kjarni::first_arg_dependent_memoize<Table, int>(
///         [](const kjarni::Context& context, int n) { return make_table(context, n); });
///     const Table& t = table_for(context, 16);
///
/// Lifetime. The entries of one context live inside that context (beside kjarni's own per-context
/// caches) and are destroyed with it, when the last handle to it (Context, Queue, Buffer, Array,
/// Program...) goes, or before, by erase(context) or clear() (or when the last copy of the memo
/// goes). A value that itself holds the context, such as a Program, Kernel, Buffer, Queue or Array
/// made in it, keeps the context alive as long as its entry: such an entry and its context go
/// only with erase(context), clear() or the memo's end, exactly as PyOpenCL's caches of kernels
/// keep their contexts until clear_first_arg_caches(). Values that hold no handle (numbers, host
/// data, C++ objects of the user's) need none of that.
///
/// Thread safety. Every member may be called from any thread at once. `make` runs without any lock
/// held, so it may use the memo itself (another key) or other memos; when two threads miss the same
/// key at once, both may run `make`, one result is kept and both get that one. \file

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kjarni/context.hpp"

namespace kjarni {

namespace detail {

/// A process-wide number never given twice: the identity of one memo's entries in a context.
std::uint64_t new_context_memo_id() noexcept;
/// The slot of memo `memo_id` in `context`, made by `make` (run under the context's lock: it must
/// not call back into kjarni) when there is none yet. The slot is destroyed with the context.
std::shared_ptr<void> context_memo_slot(const Context& context, std::uint64_t memo_id,
                                        const std::function<std::shared_ptr<void>()>& make);
/// The slot of memo `memo_id` in `context`, or null when it has none.
std::shared_ptr<void> find_context_memo_slot(const Context& context, std::uint64_t memo_id);

}  // namespace detail

/// Values of type Value by key of type Key (ordered by Compare), one set per context. Copies share
/// the entries.
template <class Key, class Value, class Compare = std::less<Key>>
class ContextMemo {
public:
    ContextMemo() : shared_(std::make_shared<Shared>()) {}

    /// The value of `key` in `context`: the one kept, else `make()` (a Value), kept from now on.
    /// An exception from make() goes to the caller and nothing is kept.
    template <class Make>
    Value get(const Context& context, const Key& key, Make&& make) const {
        const std::shared_ptr<Table> table = table_for(context);
        {
            const std::lock_guard lock(table->mutex);
            if (auto found = table->entries.find(key); found != table->entries.end()) return found->second;
        }
        Value made = std::forward<Make>(make)();
        const std::lock_guard lock(table->mutex);
        return table->entries.try_emplace(key, std::move(made)).first->second;
    }
    /// The value kept for `key` in `context`, if any.
    std::optional<Value> find(const Context& context, const Key& key) const {
        const auto table = existing_table(context);
        if (!table) return std::nullopt;
        const std::lock_guard lock(table->mutex);
        if (auto found = table->entries.find(key); found != table->entries.end()) return found->second;
        return std::nullopt;
    }
    /// How many values are kept for `context`.
    std::size_t size(const Context& context) const {
        const auto table = existing_table(context);
        if (!table) return 0;
        const std::lock_guard lock(table->mutex);
        return table->entries.size();
    }
    /// Drops the values kept for `context`.
    void erase(const Context& context) const {
        if (const auto table = existing_table(context)) drop(*table);
    }
    /// Drops the values kept for every context (PyOpenCL's clear_first_arg_caches).
    void clear() const { shared_->clear(); }

private:
    struct Table {
        std::mutex mutex;
        std::map<Key, Value, Compare> entries;
    };
    // Values are destroyed after the lock is released: a value's destructor may do anything.
    static void drop(Table& table) {
        std::map<Key, Value, Compare> dropped;
        const std::lock_guard lock(table.mutex);
        dropped.swap(table.entries);
    }
    // What copies of the memo share: its identity in the contexts, and its tables there (weakly:
    // the contexts own them), so that clear() reaches them.
    struct Shared {
        const std::uint64_t id = detail::new_context_memo_id();
        std::mutex mutex;
        std::vector<std::weak_ptr<Table>> tables;

        ~Shared() { clear(); }
        void clear() {
            std::vector<std::shared_ptr<Table>> live;
            {
                const std::lock_guard lock(mutex);
                for (const auto& weak : tables)
                    if (auto table = weak.lock()) live.push_back(std::move(table));
            }
            for (const auto& table : live) drop(*table);
        }
    };

    std::shared_ptr<Table> table_for(const Context& context) const {
        bool made = false;
        auto slot = detail::context_memo_slot(context, shared_->id, [&made] {
            made = true;
            return std::static_pointer_cast<void>(std::make_shared<Table>());
        });
        auto table = std::static_pointer_cast<Table>(std::move(slot));
        if (made) {
            const std::lock_guard lock(shared_->mutex);
            std::erase_if(shared_->tables, [](const std::weak_ptr<Table>& t) { return t.expired(); });
            shared_->tables.push_back(table);
        }
        return table;
    }
    std::shared_ptr<Table> existing_table(const Context& context) const {
        return std::static_pointer_cast<Table>(detail::find_context_memo_slot(context, shared_->id));
    }

    std::shared_ptr<Shared> shared_;
};

/// PyOpenCL's first_arg_dependent_memoize: `function(context, args...)` (returning Result) wrapped
/// so that it runs once per context and distinct arguments; the results live as ContextMemo's
/// entries do (see the file's comment). The arguments are the key: they are copied (as their
/// decayed types) and compared with operator<.
template <class Result, class... Args, class Function>
auto first_arg_dependent_memoize(Function function) {
    using Key = std::tuple<std::decay_t<Args>...>;
    return [memo = ContextMemo<Key, Result>(), function = std::move(function)](const Context& context,
                                                                               const Args&... args) {
        return memo.get(context, Key(args...), [&] { return Result(function(context, args...)); });
    };
}

}  // namespace kjarni
