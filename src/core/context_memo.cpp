// The slots of ContextMemo (context_memo.hpp) inside a context: one ContextState service holds
// every memo's table by the memo's number, so the tables die with the context.

#include "kjarni/context_memo.hpp"

#include <atomic>
#include <map>
#include <mutex>

#include "core/context_state.hpp"

namespace kjarni::detail {

namespace {

struct ContextMemoSlots {
    std::mutex mutex;
    std::map<std::uint64_t, std::shared_ptr<void>> slots;
};

}  // namespace

std::uint64_t new_context_memo_id() noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<void> context_memo_slot(const Context& context, std::uint64_t memo_id,
                                        const std::function<std::shared_ptr<void>()>& make) {
    ContextMemoSlots& memos = state_of(context).service<ContextMemoSlots>();
    const std::lock_guard lock(memos.mutex);
    std::shared_ptr<void>& slot = memos.slots[memo_id];
    if (!slot) slot = make();
    return slot;
}

std::shared_ptr<void> find_context_memo_slot(const Context& context, std::uint64_t memo_id) {
    ContextMemoSlots& memos = state_of(context).service<ContextMemoSlots>();
    const std::lock_guard lock(memos.mutex);
    const auto found = memos.slots.find(memo_id);
    return found == memos.slots.end() ? nullptr : found->second;
}

}  // namespace kjarni::detail
