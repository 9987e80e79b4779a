// kjarni's side of bench/cpu_vs_numpy.py: the operations numpy is compared with, one call at a time
// on request, so that the driver can interleave kjarni's repetitions with numpy's in one process
// tree on the same cores. Reads lines "<case> <elements>" on stdin and answers each with the wall
// time of one call in milliseconds (enqueue to completion: numpy's calls are synchronous), or
// "error <message>". Cases (float32 arrays of fresh normal random data, made once per size):
//   copy          y = x (a Buffer copy)               scale   y = 2x (expression)
//   add           y = a + b (expression)              axpb    y = a*x + b (one fused expression)
//   axpb_kernel   the same through ElementwiseKernel
//   sum64         sum(x, dtype=float64) into out      sum32   sum(x) (float32 accumulator) into out
//   cumsum        cumsum(x) into y (float32)
//   copy_step2    y[:n/2] = x[::2] (Array::set from a strided view: the strided-copy kernel)
//   copy_T        y = x.T, both viewed as square C-ordered matrices (n a square: 4^k elements)
//   <copy|scale|add|axpb>_raw      the floor beside kjarni (OpenCL only): the same operation as a
//                 hand-written kernel of kjarni's CPU form (one contiguous run per work item, as many
//                 work items as kjarni's CPU grid) on kjarni's queue and buffers, its arguments set
//                 before the clock starts; timed: clEnqueueNDRangeKernel, then clFinish
//   <...>_rawpoll the same, waited for by polling the kernel's event (yielding) instead of clFinish
// The device: the argument, as KJARNI_TEST names one ("opencl:Portable"), else the first OpenCL
// device. A call's first run (kernel compilation) is made before any answer for that case.
//
//   kjarni_bench_cpu_vs_numpy [device]   (normally started by bench/cpu_vs_numpy.py)

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_OPENCL
#include <CL/cl.h>

#include <thread>

#include "kjarni/opencl.hpp"
#endif

namespace {

struct Arrays {
    kjarni::Array a, b, x, y, sum64, sum32;
};

kjarni::Array random_array(const kjarni::Queue& queue, std::size_t n, std::mt19937& engine) {
    std::normal_distribution<float> normal;
    std::vector<float> values(n);
    for (float& v : values) v = normal(engine);
    return kjarni::Array::from_host(queue, std::span<const float>(values), {n});
}

#ifdef KJARNI_BENCH_RAW_OPENCL
constexpr const char* raw_source = R"(
#define RUN                                                                                  \
    const long items = (long)get_global_size(0), run = ((n + items - 1) / items + 15) / 16 * 16; \
    const long begin = min((long)get_global_id(0) * run, n), end = min(begin + run, n);
kernel void raw_copy(global float* restrict y, global const float* restrict x, long n)
{ RUN for (long i = begin; i < end; ++i) y[i] = x[i]; }
kernel void raw_scale(global float* restrict y, global const float* restrict x, float a, long n)
{ RUN for (long i = begin; i < end; ++i) y[i] = a * x[i]; }
kernel void raw_add(global float* restrict y, global const float* restrict a, global const float* restrict b, long n)
{ RUN for (long i = begin; i < end; ++i) y[i] = a[i] + b[i]; }
kernel void raw_axpb(global float* restrict y, global const float* restrict x, float a, global const float* restrict b,
                     long n)
{ RUN for (long i = begin; i < end; ++i) y[i] = a * x[i] + b[i]; }
)";

/// The raw OpenCL floor: kernels built from raw_source on kjarni's context, launched on its queue.
class RawOpencl {
public:
    explicit RawOpencl(const kjarni::Queue& queue)
        : queue_(kjarni::opencl::command_queue(queue)), units_(queue.device().params().compute_units) {
        cl_device_id device = kjarni::opencl::device(queue.device().device());
        cl_int error = CL_SUCCESS;
        const char* source = raw_source;
        program_ =
            clCreateProgramWithSource(kjarni::opencl::context(queue.device().context()), 1, &source, nullptr, &error);
        if (error == CL_SUCCESS) error = clBuildProgram(program_, 1, &device, "", nullptr, nullptr);
        if (error != CL_SUCCESS) throw kjarni::Error(fmt::format("the raw OpenCL program: error {}", error));
    }
    ~RawOpencl() {
        for (auto& [name, kernel] : kernels_) clReleaseKernel(kernel);
        clReleaseProgram(program_);
    }
    RawOpencl(const RawOpencl&) = delete;
    RawOpencl& operator=(const RawOpencl&) = delete;

    /// y = the operation named (copy, scale, add, axpb) of x, a, b, its kernel and arguments set
    /// here; the call enqueues it and waits with clFinish, or by polling the kernel's event.
    std::function<void()> operation(const std::string& name, const Arrays& s, bool poll) {
        cl_kernel kernel = kernel_of("raw_" + name);
        const auto n = static_cast<cl_long>(s.y.size());
        const float a = name == "scale" ? 2.0f : 2.5f;
        cl_mem y = kjarni::opencl::memory(s.y.base());
        cl_mem x = kjarni::opencl::memory(s.x.base());
        cl_mem in_a = kjarni::opencl::memory(s.a.base());
        cl_mem in_b = kjarni::opencl::memory(s.b.base());
        cl_uint i = 0;
        check(clSetKernelArg(kernel, i++, sizeof(cl_mem), &y));
        if (name == "add") {
            check(clSetKernelArg(kernel, i++, sizeof(cl_mem), &in_a));
            check(clSetKernelArg(kernel, i++, sizeof(cl_mem), &in_b));
        } else {
            check(clSetKernelArg(kernel, i++, sizeof(cl_mem), &x));
            if (name != "copy") check(clSetKernelArg(kernel, i++, sizeof a, &a));
            if (name == "axpb") check(clSetKernelArg(kernel, i++, sizeof(cl_mem), &in_b));
        }
        check(clSetKernelArg(kernel, i, sizeof n, &n));
        // kjarni's CPU grid (algorithms/cpu_code.hpp): runs of at least 16384 elements, at most 8 per unit.
        const std::size_t global = std::clamp<std::size_t>((s.y.size() + 16383) / 16384, 1, 8 * units_);
        return [queue = queue_, kernel, global, poll] {
            const std::size_t local = 1;
            cl_event event = nullptr;
            check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         poll ? &event : nullptr));
            if (!poll) return check(clFinish(queue));
            check(clFlush(queue));
            for (cl_int status = CL_QUEUED; status > CL_COMPLETE;) {
                check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
                std::this_thread::yield();
            }
            clReleaseEvent(event);
        };
    }

private:
    static void check(cl_int error) {
        if (error != CL_SUCCESS) throw kjarni::Error(fmt::format("raw OpenCL: error {}", error));
    }
    cl_kernel kernel_of(const std::string& name) {
        auto found = kernels_.find(name);
        if (found != kernels_.end()) return found->second;
        cl_int error = CL_SUCCESS;
        cl_kernel kernel = clCreateKernel(program_, name.c_str(), &error);
        check(error);
        return kernels_.emplace(name, kernel).first->second;
    }
    cl_command_queue queue_;
    std::size_t units_;
    cl_program program_ = nullptr;
    std::map<std::string, cl_kernel> kernels_;
};
#endif

class Bench {
public:
    explicit Bench(kjarni::Queue queue) : queue_(std::move(queue)) {}

    double time_ms(const std::string& name, std::size_t n) {
        const Arrays& s = arrays(n);
        const auto work = operation(name, s);
        if (warm_.insert({name, n}).second) {  // compiles and warms up outside the timing
            work();
            queue_.synchronize();
        }
        const auto start = std::chrono::steady_clock::now();
        work();
        queue_.synchronize();
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

private:
    const Arrays& arrays(std::size_t n) {
        auto found = arrays_.find(n);
        if (found != arrays_.end()) return found->second;
        std::mt19937 engine(static_cast<unsigned>(n));
        Arrays s{random_array(queue_, n, engine),
                 random_array(queue_, n, engine),
                 random_array(queue_, n, engine),
                 kjarni::Array::empty(queue_.device(), {n}, kjarni::dtypes::float32),
                 kjarni::Array::empty(queue_.device(), {}, kjarni::dtypes::float64),
                 kjarni::Array::empty(queue_.device(), {}, kjarni::dtypes::float32)};
        return arrays_.emplace(n, std::move(s)).first->second;
    }

    std::function<void()> operation(const std::string& name, const Arrays& s) {
        const kjarni::Queue& q = queue_;
        if (name == "copy") return [&q, &s] { s.y.base().set(q, s.x.base(), true); };
        if (name == "scale") return [&q, &s] { kjarni::assign(q, s.y, 2.0f * s.x); };
        if (name == "add") return [&q, &s] { kjarni::assign(q, s.y, s.a + s.b); };
        if (name == "axpb") return [&q, &s] { kjarni::assign(q, s.y, 2.5f * s.x + s.b); };
        if (name == "axpb_kernel") return [this, &q, &s] { axpb_(q, s.y, s.x, 2.5f, s.b); };
        if (name == "sum64")
            return [&q, &s] { kjarni::sum(q, s.x, kjarni::ReduceOptions{.out = s.sum64}, kjarni::dtypes::float64); };
        if (name == "sum32") return [&q, &s] { kjarni::sum(q, s.x, kjarni::ReduceOptions{.out = s.sum32}); };
        if (name == "cumsum") return [&q, &s] { kjarni::cumsum(q, s.x, std::nullopt, std::nullopt, s.y); };
        if (name == "copy_step2") {
            const auto n = static_cast<std::ptrdiff_t>(s.x.size());
            return [&q, y = s.y[{kjarni::Slice{0, n / 2}}], x = s.x[{kjarni::Slice{std::nullopt, std::nullopt, 2}}]] {
                y.set(q, x);
            };
        }
#ifdef KJARNI_BENCH_RAW_OPENCL
        for (const std::string form : {"_raw", "_rawpoll"}) {
            if (name.ends_with(form) && q.device().context().api().id() == kjarni::ApiId::opencl()) {
                if (!raw_) raw_ = std::make_unique<RawOpencl>(q);
                return raw_->operation(name.substr(0, name.size() - form.size()), s, form == "_rawpoll");
            }
        }
#endif
        if (name == "copy_T") {
            const auto side = static_cast<std::ptrdiff_t>(std::llround(std::sqrt(static_cast<double>(s.x.size()))));
            if (static_cast<std::size_t>(side * side) != s.x.size())
                throw kjarni::ArgumentError("n", "copy_T needs a square number of elements");
            return [&q, y = s.y.reshape({side, side}), x = s.x.reshape({side, side}).transpose()] { y.set(q, x); };
        }
        throw kjarni::ArgumentError("case", fmt::format("unknown case '{}'", name));
    }

    kjarni::Queue queue_;
    std::map<std::size_t, Arrays> arrays_;
    std::set<std::pair<std::string, std::size_t>> warm_;
#ifdef KJARNI_BENCH_RAW_OPENCL
    std::unique_ptr<RawOpencl> raw_;
#endif
    kjarni::ElementwiseKernel axpb_{"float *y, const float *x, float a, const float *b", "y[i] = a * x[i] + b[i]"};
};

}  // namespace

int main(int argc, char** argv) {
    try {
        const kjarni::Context context = kjarni::context_from_specifier(argc > 1 ? argv[1] : "opencl");
        Bench bench{kjarni::Queue(context.devices()[0])};
        fmt::print("ready {} / {}\n", context.platform().name(), context.devices()[0].name());
        std::fflush(stdout);
        std::string line;
        while (std::getline(std::cin, line)) {
            std::istringstream words(line);
            std::string name;
            std::size_t n = 0;
            if (!(words >> name >> n) || n == 0) {
                fmt::print("error malformed request '{}'\n", line);
            } else {
                try {
                    fmt::print("{:.6f}\n", bench.time_ms(name, n));
                } catch (const kjarni::Error& e) {
                    fmt::print("error {}\n", e.what());
                }
            }
            std::fflush(stdout);
        }
        return 0;
    } catch (const kjarni::Error& e) {
        fmt::print(stderr, "kjarni_bench_cpu_vs_numpy: {}\n", e.what());
        return 1;
    }
}
