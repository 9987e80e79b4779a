#pragma once
// One compiled Program per shared context for a test suite, dropped when the suite ends
// (call clear() from the fixture's TearDownTestSuite). A Program holds its Context: one kept to
// the process's end would keep the shared context, and what it holds (staging slots, pooled
// blocks), alive past the contexts' release at the end of the run, which compute-sanitizer and
// LeakSanitizer then report as leaks.

#include <functional>
#include <map>

#include "kjarni/context.hpp"
#include "kjarni/program.hpp"

namespace kjarni::test {

class SuitePrograms {
public:
    /// The program of `context` (a shared context: its address is the key), made by `make` the
    /// first time.
    const Program& get(const Context& context, const std::function<Program()>& make) {
        const auto found = programs_.find(&context);
        if (found != programs_.end()) return found->second;
        return programs_.emplace(&context, make()).first->second;
    }
    void clear() { programs_.clear(); }

private:
    std::map<const Context*, Program> programs_;
};

}  // namespace kjarni::test
