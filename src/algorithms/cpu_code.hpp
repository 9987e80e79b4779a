#pragma once
// Code and launch geometry for CPU devices (an OpenCL device of type CL_DEVICE_TYPE_CPU: PoCL,
// Intel's and AMD's CPU runtimes). A CPU runs a work group as loops on one thread and vectorises
// either across the work items of a group or along a loop inside one; the GPU forms (grid-stride
// loops whose work items take every global-size-th element) give each thread elements a whole
// grid apart: every cache line is fetched for one element and the loops do not vectorise
// (measured on PoCL 3.1, 2 cores, 64 MiB float32: y = a*x + b 91 ms against numpy's 23).
// The CPU forms give each work item one contiguous run of elements (a loop the kernel compiler
// vectorises), work groups of one work item, a few per compute unit.

#include <cstddef>
#include <string>

#include "kjarni/context.hpp"
#include "program/cpu_forms.hpp"  // cpu_code(device), allow_cpu_code(allow)

namespace kjarni::detail {

/// Elements a CPU work item's run starts on a multiple of (64 bytes of float32: a cache line),
/// so that the runs of different work items share no line.
inline constexpr std::size_t cpu_run_granule = 16;

/// Whether the device runs a group's work items together (CUDA devices, OpenCL GPUs), so that a
/// barrier may sit in a branch the whole group takes; a CPU device runs them as loops, and a
/// compiler that does so cannot see that such a branch is the same for the whole group (PoCL hung
/// on one). Not affected by allow_cpu_code: the GPU forms forced on a CPU still run on a CPU.
bool runs_groups_together(const BoundDevice& device);

/// The fewest elements worth a work item of an elementwise CPU loop (64 KiB of float32): below it
/// the launch of another group costs more than the elements.
inline constexpr std::size_t cpu_min_run = 16384;

/// The launch of a CPU loop over `n` units (elements, rows...): `global` work items in groups of
/// one, each a contiguous run of about n / global units, at least `min_run` where n allows, at
/// most 8 work items per compute unit (PoCL hands groups to its threads as they free up: a few per
/// thread even out a thread that other processes slow down).
struct CpuGrid {
    std::size_t global = 1;
    std::size_t local = 1;
};
CpuGrid cpu_grid(const BoundDevice& device, std::size_t n, std::size_t min_run);

/// Statements declaring `kj_begin` and `kj_end` (of type `idx`): this work item's run of the `n`
/// units (`n` a kernel value of type `idx`), split evenly over the global size in multiples of
/// `granule` (cpu_run_granule for elements; 1 for rows or pieces of rows, which share no line
/// anyway); an empty run (kj_begin >= kj_end) for work items past the end.
std::string cpu_run_bounds(const char* idx, const std::string& n, std::size_t granule = cpu_run_granule);

}  // namespace kjarni::detail
