#include "faults/opencl_faults.hpp"

#include <fmt/format.h>

#include <atomic>
#include <mutex>
#include <type_traits>

#include "backend/opencl/opencl_library.hpp"

namespace kjarni::test::faults {

namespace {

using backend::opencl::OpenClLibrary;

// faultable: may be failed; create: may be failed, and a handle it returns is counted live.
enum class Role { faultable, create, retain, release };
enum Object : std::size_t { memory, program, kernel, queue, context };

struct State {
    std::mutex mutex;
    std::size_t calls = 0;
    std::size_t fail_at = 0;
    bool fired = false;
    CallKind fired_kind = CallKind::count;
    const char* fired_function = "";
    LiveHandles live;
};

State& state() {
    static State s;
    return s;
}

/// True when this call is the one to fail (counts it).
bool should_fail(CallKind kind, const char* function) {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    ++s.calls;
    if (s.fail_at == 0 || s.calls != s.fail_at) return false;
    s.fired = true;
    s.fired_kind = kind;
    s.fired_function = function;
    return true;
}

void count_live(Object object, long delta) {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    s.live.counts[object] += delta;
}

template <class T>
void set_error_code(T argument, cl_int error) {
    // Every cl_int* out-parameter (errcode_ret; clCreateProgramWithBinary's binary_status too).
    if constexpr (std::is_same_v<T, cl_int*>) {
        if (argument != nullptr) *argument = error;
    }
}

template <auto Member, class F = std::remove_reference_t<decltype(std::declval<OpenClLibrary&>().*Member)>>
struct Hook;

template <auto Member, class R, class... A>
struct Hook<Member, R (*)(A...)> {
    static inline R (*original)(A...) = nullptr;
    static inline Role role = Role::faultable;
    static inline CallKind kind = CallKind::count;
    static inline Object object = memory;
    static inline cl_int error = CL_OUT_OF_RESOURCES;
    static inline const char* function = "";

    static R call(A... args) {
        if ((role == Role::faultable || role == Role::create) && should_fail(kind, function)) {
            (set_error_code(args, error), ...);
            if constexpr (std::is_pointer_v<R>) {
                return nullptr;
            } else {
                return error;
            }
        }
        R result = original(args...);
        if constexpr (std::is_pointer_v<R>) {
            if (role == Role::create && result != nullptr) count_live(object, +1);
        } else {
            if (result == CL_SUCCESS && role == Role::retain) count_live(object, +1);
            if (result == CL_SUCCESS && role == Role::release) count_live(object, -1);
        }
        return result;
    }
};

/// Replaces the entry point (when the loader has it) with the hook.
template <auto Member>
void hook(OpenClLibrary& table, const char* function, Role role, CallKind kind, Object object, cl_int error) {
    using H = Hook<Member>;
    if (table.*Member == nullptr) return;
    H::original = table.*Member;
    H::role = role;
    H::kind = kind;
    H::object = object;
    H::error = error;
    H::function = function;
    table.*Member = &H::call;
}

}  // namespace

const char* name(CallKind kind) {
    switch (kind) {
    case CallKind::allocation: return "allocation";
    case CallKind::compilation: return "compilation";
    case CallKind::module_load: return "module load";
    case CallKind::launch: return "launch";
    case CallKind::copy: return "copy";
    case CallKind::event: return "event";
    case CallKind::queue: return "queue creation";
    case CallKind::context: return "context creation";
    case CallKind::count: break;
    }
    return "none";
}

std::string LiveHandles::describe() const {
    return fmt::format("{} memory objects, {} programs, {} kernels, {} queues, {} contexts", counts[memory],
                       counts[program], counts[kernel], counts[queue], counts[context]);
}

void install() {
    static std::once_flag once;
    std::call_once(once, [] {
        // The table is the library's own (heap, not const): kjarni calls through it from now on.
        auto& table = const_cast<OpenClLibrary&>(backend::opencl::cl());
        using K = CallKind;
        using L = OpenClLibrary;
        constexpr cl_int oom = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        constexpr cl_int res = CL_OUT_OF_RESOURCES;
#define KJARNI_FAULT(fn, kind, object, error) hook<&L::fn>(table, #fn, Role::faultable, kind, object, error)
#define KJARNI_CREATE(fn, kind, object, error) hook<&L::fn>(table, #fn, Role::create, kind, object, error)
        KJARNI_CREATE(clCreateBuffer, K::allocation, memory, oom);
        KJARNI_CREATE(clCreateSubBuffer, K::allocation, memory, res);
        KJARNI_FAULT(clSVMAlloc, K::allocation, memory, oom);
        KJARNI_CREATE(clCreateProgramWithSource, K::compilation, program, res);
        KJARNI_CREATE(clCreateProgramWithIL, K::compilation, program, res);
        KJARNI_FAULT(clBuildProgram, K::compilation, program, CL_BUILD_PROGRAM_FAILURE);
        KJARNI_CREATE(clCreateProgramWithBinary, K::module_load, program, CL_INVALID_BINARY);
        KJARNI_CREATE(clCreateKernel, K::module_load, kernel, res);
        KJARNI_FAULT(clSetKernelArg, K::launch, memory, res);
        KJARNI_FAULT(clSetKernelArgSVMPointer, K::launch, memory, res);
        KJARNI_FAULT(clEnqueueNDRangeKernel, K::launch, memory, res);
        KJARNI_FAULT(clEnqueueWriteBuffer, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueReadBuffer, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueCopyBuffer, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueFillBuffer, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueMapBuffer, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueUnmapMemObject, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueReadBufferRect, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueWriteBufferRect, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueCopyBufferRect, K::copy, memory, res);
        KJARNI_FAULT(clEnqueueMarkerWithWaitList, K::event, memory, res);
        KJARNI_FAULT(clEnqueueBarrierWithWaitList, K::event, memory, res);
        KJARNI_FAULT(clWaitForEvents, K::event, memory, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        KJARNI_CREATE(clCreateCommandQueue, K::queue, queue, res);
        KJARNI_CREATE(clCreateCommandQueueWithProperties, K::queue, queue, res);
        KJARNI_CREATE(clCreateContext, K::context, context, res);
#undef KJARNI_FAULT
#undef KJARNI_CREATE
#define KJARNI_TRACK(fn, role, object) hook<&L::fn>(table, #fn, role, K::count, object, CL_SUCCESS)
        KJARNI_TRACK(clRetainMemObject, Role::retain, memory);
        KJARNI_TRACK(clReleaseMemObject, Role::release, memory);
        KJARNI_TRACK(clRetainProgram, Role::retain, program);
        KJARNI_TRACK(clReleaseProgram, Role::release, program);
        KJARNI_TRACK(clRetainKernel, Role::retain, kernel);
        KJARNI_TRACK(clReleaseKernel, Role::release, kernel);
        KJARNI_TRACK(clRetainCommandQueue, Role::retain, queue);
        KJARNI_TRACK(clReleaseCommandQueue, Role::release, queue);
        KJARNI_TRACK(clRetainContext, Role::retain, context);
        KJARNI_TRACK(clReleaseContext, Role::release, context);
#undef KJARNI_TRACK
    });
}

void reset(std::size_t fail_at) {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    s.calls = 0;
    s.fail_at = fail_at;
    s.fired = false;
    s.fired_kind = CallKind::count;
    s.fired_function = "";
}

std::size_t calls() {
    const std::lock_guard lock(state().mutex);
    return state().calls;
}

bool fired() {
    const std::lock_guard lock(state().mutex);
    return state().fired;
}

CallKind fired_kind() {
    const std::lock_guard lock(state().mutex);
    return state().fired_kind;
}

const char* fired_function() {
    const std::lock_guard lock(state().mutex);
    return state().fired_function;
}

LiveHandles live_handles() {
    const std::lock_guard lock(state().mutex);
    return state().live;
}

}  // namespace kjarni::test::faults
