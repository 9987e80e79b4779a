/* The host path of an OpenCL launch alone: preloaded, this makes kjarni's clEnqueueNDRangeKernel a
 * no-op (kjarni finds the OpenCL functions with dlsym, which this answers for that one name), so a
 * launch loop times Python, the binding and kjarni's checks without the driver's enqueue, whose
 * cost and noise on PoCL (mutexes, allocations, thread wake-ups) hide differences of 10 ns.
 * Launches with an event are not supported (the event stays null); nothing runs on the device.
 *
 *   gcc -O2 -shared -fPIC -o /tmp/noop_enqueue.so bench/python/noop_enqueue.c -ldl
 *   LD_PRELOAD=/tmp/noop_enqueue.so python bench/python/launch_bench.py --api opencl
 *   LD_PRELOAD=/tmp/noop_enqueue.so build/bench/kjarni_bench_launch --benchmark_filter=kjarni_enqueue
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

typedef void* (*dlsym_function)(void*, const char*);

static int no_enqueue(void* queue, void* kernel, unsigned dims, const void* offset, const void* global,
                      const void* local, unsigned waits, const void* wait_list, void** event) {
    (void)queue, (void)kernel, (void)dims, (void)offset, (void)global, (void)local, (void)waits, (void)wait_list;
    if (event) *event = 0;
    return 0; /* CL_SUCCESS */
}

void* dlsym(void* handle, const char* name) {
    static dlsym_function real;
    if (!real) real = (dlsym_function)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real) real = (dlsym_function)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (strcmp(name, "clEnqueueNDRangeKernel") == 0) return (void*)no_enqueue;
    return real(handle, name);
}
