#pragma once
/// Several assignments evaluated together, lazily, fused across statements as they would be inside
/// one expression, with the results of eager evaluation:
///
///     kjarni::Statements block(queue);
///     const kjarni::Expr y = block.let(a * x + b);      // y = a*x + b   (never stored)
///     const kjarni::Expr z = block.let(y * y);          // z = y*y       (never stored)
///     block.assign(s, kjarni::sum(z));                  // s = sum(z)
///     block.run();                                      // one kernel: sum((a*x + b)^2) into s
///
/// Eagerly, the same three statements run three kernels and move y and z through memory twice
/// each; here nothing runs until run() (or the block's destruction), and a lazy value is computed
/// inside the kernels that use it (plan() shows the kernels without running them).
///
/// **Values are eager's.** Every value a block stores is the value the same statements give run one
/// by one with evaluate() and assign() (kjarni/expression.hpp, kjarni/fusion.hpp): a let() value
/// has the dtype evaluate() gives its expression and is used as that array would be (a strong
/// value in promotion, not a weak scalar); it is rounded to its dtype where it is defined (float16
/// to 16 bits, float32 to 32 bits), and no fused multiply-add joins a multiply inside it with an add
/// that uses it, so a chain of elementwise statements gives the bits the eager chain gives. A
/// reduction of a lazy value is the eager reduction of the array that let() stands for: integer,
/// min/max/any/all/arg results are exact; a float sum agrees within the bound of the two
/// summations (kjarni/fusion.hpp), since the fused reduction may combine in another order.
///
/// **Errors are eager's, where eager would raise them.** let() and assign() make every check the
/// eager call makes before it runs anything, with its exception type and message (casting rules,
/// shapes, devices, a weak integer out of range, min/max of an empty axis), so a bad statement
/// throws where it is written and is not recorded; the statements before it stay pending. What
/// only running can show (a device running out of memory, a failed kernel) comes from run().
///
/// **Hazards.** Statements run in the order written, each as eager assign() runs it, so a
/// statement that reads an array an earlier statement writes sees the written value, however the
/// two overlap (the same array, a view of part of it, a view of the output as an input), and
/// writing into a view of an input has numpy's result as in assign(). A let() value stands for the
/// value its expression has where let() is written; when a later statement writes memory the
/// expression reads (partly or wholly), the value is first stored into a temporary (a kernel of its
/// own, before that statement), and later uses read the temporary. A lazy value used several times
/// is computed in every kernel that uses it (within one kernel the compiler computes it once per
/// element); store it with evaluate() to compute it once.
///
/// **Reading results.** Arrays written by a block hold their values once run() has enqueued the
/// work (then read them on the block's queue as any result); reading them before run(), or changing
/// the arrays a pending statement reads by other means (another queue, a host write, an eager call),
/// is the caller's error, as it would be with eager work still in flight. A let() value may be used
/// only by statements of its own block. A block is used by one thread at a time.
///
/// run() stops at the first statement that fails and drops the rest; the block's lazy values are
/// then not to be used (one may have been meant to be stored by a dropped statement). The
/// destructor runs what is pending; errors it meets then are lost (a destructor cannot throw):
/// call run() to see them. \file

#include <cstddef>
#include <memory>
#include <vector>

#include "kjarni/array.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/queue.hpp"

namespace kjarni {

class Statements {
public:
    /// A block whose statements run on `queue`; temporaries (values stored because a later statement
    /// overwrites what they read, and evaluate()'s results) come from `allocator` (a MemoryPool is
    /// one) or Buffer::allocate.
    explicit Statements(const Queue& queue, const Allocator& allocator = {});
    /// Runs what is pending (see the top of the file for errors).
    ~Statements();
    Statements(const Statements&) = delete;
    Statements& operator=(const Statements&) = delete;
    Statements(Statements&&) noexcept;
    Statements& operator=(Statements&&) = delete;

    /// A named lazy value: an expression with the value, dtype and shape evaluate(queue, expression)
    /// would give now, usable in this block's later statements, stored nowhere unless a later
    /// statement overwrites what it reads. Checks as evaluate() does.
    Expr let(const Expr& expression);
    /// out = expression, as assign(queue, out, expression) (numpy's same_kind casting; out may share
    /// memory with the operands in any way). Checks as assign() does, at once.
    void assign(const Array& out, const Expr& expression);
    /// A new C-contiguous array that will hold the expression's value once run() has run (its memory
    /// is allocated now), as evaluate(queue, expression) gives it.
    Array evaluate(const Expr& expression);
    /// Enqueues every pending statement, in order, on the block's queue (it does not wait for them).
    void run();

    /// The kernels run() would run now (nothing runs; kernels may be compiled to learn the device's
    /// limits), each named by its statement ("statement 3: sum over axes (0) ...").
    FusionPlan plan() const;
    /// The statements waiting for run() (stores of lazy values included).
    std::size_t pending() const noexcept;
    const Queue& queue() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace kjarni
