#pragma once
// A shared library opened at run time (dlopen). Backends load their drivers through this, so that
// one build of kjarni runs on machines with or without them. Libraries are never closed: drivers
// do not like being unloaded while the process still runs.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace kjarni::backend {

class DynamicLibrary {
public:
    /// Tries each candidate in turn (names for the loader's search, or absolute paths). On failure
    /// returns nullopt and puts every attempt's dlerror() into `error`.
    static std::optional<DynamicLibrary> open(std::initializer_list<std::string_view> candidates, std::string& error);

    /// The symbol's address, or nullptr when the library does not have it.
    void* find(const char* symbol) const noexcept;
    /// The path or name that was loaded.
    const std::string& name() const noexcept { return name_; }

    /// Looks a function up by name and stores it in `fn`; returns false when missing.
    template <class Fn>
    bool load(Fn*& fn, const char* symbol) const noexcept {
        fn = reinterpret_cast<Fn*>(find(symbol));
        return fn != nullptr;
    }

private:
    DynamicLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
    void* handle_;
    std::string name_;
};

}  // namespace kjarni::backend
