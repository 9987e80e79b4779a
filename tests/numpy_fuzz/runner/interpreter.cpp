#include "interpreter.hpp"

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

#include "kjarni/array_operations.hpp"
#include "kjarni/blas.hpp"
#include "kjarni/fusion.hpp"
#include "kjarni/reduction.hpp"
#include "kjarni/scan.hpp"
#include "kjarni/selection.hpp"
#include "kjarni/sorting.hpp"

namespace kjarni::numpy_fuzz {

const Array& ProgramState::at(const std::string& name) const {
    auto found = values.find(name);
    if (found == values.end()) throw ProgramError("no array named " + name);
    return found->second;
}

namespace {

using Handler = std::function<std::vector<std::string>(ProgramState&, const Json&)>;

std::string str(const Json& op, const char* key) { return op.at(key).get<std::string>(); }

Order order_of(const Json& op) { return op.value("order", "C") == "F" ? Order::F : Order::C; }

std::optional<DType> optional_dtype(const Json& op, const char* key) {
    if (!op.contains(key) || op[key].is_null()) return std::nullopt;
    return dtype_named(op[key].get<std::string>());
}

std::optional<Array> optional_array(const ProgramState& state, const Json& op, const char* key) {
    if (!op.contains(key) || op[key].is_null()) return std::nullopt;
    return state.at(op[key].get<std::string>());
}

std::vector<std::ptrdiff_t> integers(const Json& list) { return list.get<std::vector<std::ptrdiff_t>>(); }

std::vector<Array> arrays(const ProgramState& state, const Json& names) {
    std::vector<Array> out;
    for (const Json& n : names) out.push_back(state.at(n.get<std::string>()));
    return out;
}

Expr tree(const ProgramState& state, const Json& op) {
    return expression(op.at("expr"), [&](const std::string& name) { return state.at(name); });
}

// Stores `result` under the op's "out" name.
std::vector<std::string> made(ProgramState& state, const Json& op, const Array& result) {
    const std::string name = str(op, "out");
    state.values.insert_or_assign(name, result);
    return {name};
}

std::vector<std::string> made_list(ProgramState& state, const Json& op, const std::vector<Array>& results) {
    const auto names = op.at("outs").get<std::vector<std::string>>();
    if (names.size() != results.size())
        throw ProgramError("" + std::to_string(results.size()) + " parts for " + std::to_string(names.size()) +
                           " names");
    for (std::size_t k = 0; k < names.size(); ++k) state.values.insert_or_assign(names[k], results[k]);
    return names;
}

ReduceOptions reduce_options(const ProgramState& state, const Json& op) {
    ReduceOptions options;
    if (!op.at("axes").is_null()) options.axes = op["axes"].get<std::vector<int>>();
    options.keepdims = op.value("keepdims", false);
    options.out = optional_array(state, op, "out_arg");
    return options;
}

Array reduction(const ProgramState& state, const Json& op) {
    const Queue& q = state.queue;
    const Array& src = state.at(str(op, "src"));
    const ReduceOptions options = reduce_options(state, op);
    const auto dtype = optional_dtype(op, "dtype");
    const std::string fn = str(op, "fn");
    if (fn == "sum") return sum(q, src, options, dtype);
    if (fn == "prod") return prod(q, src, options, dtype);
    if (fn == "mean") return mean(q, src, options, dtype);
    if (dtype) throw ProgramError("dtype= given to " + fn);
    if (fn == "min") return min(q, src, options);
    if (fn == "max") return max(q, src, options);
    if (fn == "argmin") return argmin(q, src, options);
    if (fn == "argmax") return argmax(q, src, options);
    if (fn == "any") return any(q, src, options);
    if (fn == "all") return all(q, src, options);
    throw ProgramError("unknown reduction " + fn);
}

Array nan_reduction(const ProgramState& state, const Json& op) {
    const Queue& q = state.queue;
    const Array& src = state.at(str(op, "src"));
    const ReduceOptions options = reduce_options(state, op);
    const auto dtype = optional_dtype(op, "dtype");
    const std::string fn = str(op, "fn");
    if (fn == "nansum") return nansum(q, src, options, dtype);
    if (fn == "nanprod") return nanprod(q, src, options, dtype);
    if (fn == "nanmean") return nanmean(q, src, options, dtype);
    if (dtype) throw ProgramError("dtype= given to " + fn);
    if (fn == "nanmin") return nanmin(q, src, options);
    if (fn == "nanmax") return nanmax(q, src, options);
    if (fn == "nanargmin") return nanargmin(q, src, options);
    if (fn == "nanargmax") return nanargmax(q, src, options);
    throw ProgramError("unknown NaN reduction " + fn);
}

Array moment(const ProgramState& state, const Json& op) {
    const Queue& q = state.queue;
    const Array& src = state.at(str(op, "src"));
    const ReduceOptions options = reduce_options(state, op);
    const auto dtype = optional_dtype(op, "dtype");
    const double ddof = op.at("ddof").get<double>();
    const std::string fn = str(op, "fn");
    if (fn == "var") return var(q, src, options, ddof, dtype);
    if (fn == "std") return kjarni::std(q, src, options, ddof, dtype);
    if (fn == "nanvar") return nanvar(q, src, options, ddof, dtype);
    if (fn == "nanstd") return nanstd(q, src, options, ddof, dtype);
    throw ProgramError("unknown moment " + fn);
}

// A reduction of an expression in one kernel (kjarni/fusion.hpp), the reduce and moments ops' options.
Array fused_reduction(const ProgramState& state, const Json& op) {
    const Queue& q = state.queue;
    const Expr e = tree(state, op);
    const ReduceOptions options = reduce_options(state, op);
    const auto dtype = optional_dtype(op, "dtype");
    const std::string fn = str(op, "fn");
    if (fn == "sum") return sum(q, e, options, dtype);
    if (fn == "prod") return prod(q, e, options, dtype);
    if (fn == "mean") return mean(q, e, options, dtype);
    if (fn == "var") return var(q, e, options, op.at("ddof").get<double>(), dtype);
    if (fn == "std") return kjarni::std(q, e, options, op.at("ddof").get<double>(), dtype);
    if (dtype) throw ProgramError("dtype= given to " + fn);
    if (fn == "min") return min(q, e, options);
    if (fn == "max") return max(q, e, options);
    if (fn == "argmin") return argmin(q, e, options);
    if (fn == "argmax") return argmax(q, e, options);
    if (fn == "any") return any(q, e, options);
    if (fn == "all") return all(q, e, options);
    throw ProgramError("unknown fused reduction " + fn);
}

// An op's "fusion_rows" ("always", "never"): KJARNI_FUSION_ROWS while it runs (kjarni/fusion.hpp:
// whether expressions with reductions run as one row kernel; a CPU device does not by default), then
// the setting it had before.
class FusionRowsSetting {
public:
    explicit FusionRowsSetting(const Json& op) {
        if (!op.contains("fusion_rows")) return;
        if (const char* before = std::getenv("KJARNI_FUSION_ROWS")) before_ = before;
        set_ = true;
        setenv("KJARNI_FUSION_ROWS", op["fusion_rows"].get<std::string>().c_str(), 1);
    }
    ~FusionRowsSetting() {
        if (!set_) return;
        if (before_) setenv("KJARNI_FUSION_ROWS", before_->c_str(), 1);
        else unsetenv("KJARNI_FUSION_ROWS");
    }
    FusionRowsSetting(const FusionRowsSetting&) = delete;
    FusionRowsSetting& operator=(const FusionRowsSetting&) = delete;

private:
    bool set_ = false;
    std::optional<std::string> before_;
};

std::optional<int> optional_axis(const Json& op) {
    if (op.at("axis").is_null()) return std::nullopt;
    return op["axis"].get<int>();
}

// unique's results in the order numpy returns them: values, then index, inverse, counts as asked.
std::vector<Array> unique_results(const ProgramState& state, const Json& op) {
    UniqueOptions options;
    options.return_index = op.value("return_index", false);
    options.return_inverse = op.value("return_inverse", false);
    options.return_counts = op.value("return_counts", false);
    UniqueResult r = unique(state.queue, state.at(str(op, "src")), options);
    std::vector<Array> out{r.values};
    for (const auto& part : {r.index, r.inverse, r.counts})
        if (part) out.push_back(*part);
    return out;
}

Array scan(const ProgramState& state, const Json& op) {
    const Array& src = state.at(str(op, "src"));
    std::optional<int> axis;
    if (!op.at("axis").is_null()) axis = op["axis"].get<int>();
    const auto dtype = optional_dtype(op, "dtype");
    const auto out = optional_array(state, op, "out_arg");
    const std::string fn = str(op, "fn");
    if (fn == "cumsum") return cumsum(state.queue, src, axis, dtype, out);
    if (fn == "cumprod") return cumprod(state.queue, src, axis, dtype, out);
    throw ProgramError("unknown scan " + fn);
}

blas::Op blas_op(const Json& op, const char* key) {
    const std::string v = op.value(key, "none");
    if (v == "transpose") return blas::Op::transpose;
    if (v == "adjoint") return blas::Op::adjoint;
    return blas::Op::none;
}

CopyMode copy_mode(const Json& op) {
    const std::string v = op.value("copy", "if_needed");
    if (v == "always") return CopyMode::always;
    if (v == "never") return CopyMode::never;
    return CopyMode::if_needed;
}

TakeMode take_mode(const Json& op) {
    const std::string v = op.value("mode", "raise");
    if (v == "wrap") return TakeMode::wrap;
    if (v == "clip") return TakeMode::clip;
    return TakeMode::raise;
}

// One entry per operation (the generator's op table, tests/numpy_fuzz/fuzz/operations.py).
const std::map<std::string, Handler>& handlers() {
    static const std::map<std::string, Handler> table{
        {"view",
         [](ProgramState& s, const Json& op) {
             std::vector<Index> index;
             for (const Json& e : op.at("index")) index.push_back(index_entry(e));
             return made(s, op, s.at(str(op, "src")).index(index));
         }},
        {"transpose",
         [](ProgramState& s, const Json& op) {
             std::vector<std::size_t> axes;
             if (!op.at("axes").is_null()) axes = op["axes"].get<std::vector<std::size_t>>();
             return made(s, op, s.at(str(op, "src")).transpose(axes));
         }},
        {"reshape",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         reshape(s.queue, s.at(str(op, "src")), integers(op.at("shape")), order_of(op), copy_mode(op)));
         }},
        {"expr", [](ProgramState& s, const Json& op) { return made(s, op, evaluate(s.queue, tree(s, op))); }},
        {"assign",
         [](ProgramState& s, const Json& op) {
             assign(s.queue, s.at(str(op, "dst")), tree(s, op));
             return std::vector<std::string>{str(op, "dst")};
         }},
        {"fill",
         [](ProgramState& s, const Json& op) {
             fill(s.queue, s.at(str(op, "dst")), tree(s, op));
             return std::vector<std::string>{str(op, "dst")};
         }},
        {"set",
         [](ProgramState& s, const Json& op) {
             s.at(str(op, "dst")).set(s.queue, s.at(str(op, "src")));
             return std::vector<std::string>{str(op, "dst")};
         }},
        {"astype",
         [](ProgramState& s, const Json& op) {
             return made(s, op, s.at(str(op, "src")).astype(s.queue, dtype_named(str(op, "dtype")), order_of(op)));
         }},
        {"copy",
         [](ProgramState& s, const Json& op) { return made(s, op, s.at(str(op, "src")).copy(s.queue, order_of(op))); }},
        {"reduce", [](ProgramState& s, const Json& op) { return made(s, op, reduction(s, op)); }},
        {"dot",
         [](ProgramState& s, const Json& op) {
             return made(s, op, dot(s.queue, s.at(str(op, "a")), s.at(str(op, "b")), optional_array(s, op, "out_arg")));
         }},
        {"scan", [](ProgramState& s, const Json& op) { return made(s, op, scan(s, op)); }},
        {"fused_reduce", [](ProgramState& s, const Json& op) { return made(s, op, fused_reduction(s, op)); }},
        {"fused_dot",
         [](ProgramState& s, const Json& op) {
             const auto named = [&](const std::string& name) { return s.at(name); };
             return made(s, op,
                         dot(s.queue, expression(op.at("expr"), named), expression(op.at("expr_b"), named),
                             optional_array(s, op, "out_arg")));
         }},
        {"concatenate",
         [](ProgramState& s, const Json& op) {
             return made(s, op, concatenate(s.queue, arrays(s, op.at("srcs")), op.at("axis").get<std::ptrdiff_t>()));
         }},
        {"stack",
         [](ProgramState& s, const Json& op) {
             return made(s, op, stack(s.queue, arrays(s, op.at("srcs")), op.at("axis").get<std::ptrdiff_t>()));
         }},
        {"stack_along",
         [](ProgramState& s, const Json& op) {
             const auto srcs = arrays(s, op.at("srcs"));
             const std::string fn = str(op, "fn");
             if (fn == "hstack") return made(s, op, hstack(s.queue, srcs));
             if (fn == "vstack") return made(s, op, vstack(s.queue, srcs));
             if (fn == "dstack") return made(s, op, dstack(s.queue, srcs));
             throw ProgramError("unknown stacking " + fn);
         }},
        {"atleast",
         [](ProgramState& s, const Json& op) {
             const Array& src = s.at(str(op, "src"));
             const int n = op.at("ndim").get<int>();
             return made(s, op, n == 1 ? atleast_1d(src) : n == 2 ? atleast_2d(src) : atleast_3d(src));
         }},
        {"ascontiguous",
         [](ProgramState& s, const Json& op) {
             const Array& src = s.at(str(op, "src"));
             const auto dtype = optional_dtype(op, "dtype");
             return made(s, op,
                         order_of(op) == Order::F ? asfortranarray(s.queue, src, dtype)
                                                  : ascontiguousarray(s.queue, src, dtype));
         }},
        {"split",
         [](ProgramState& s, const Json& op) {
             const Array& src = s.at(str(op, "src"));
             const auto axis = op.at("axis").get<std::ptrdiff_t>();
             const bool equal = op.value("fn", "split") == "split";
             if (op.contains("sections")) {
                 const auto n = op["sections"].get<std::size_t>();
                 return made_list(s, op, equal ? split(src, n, axis) : array_split(src, n, axis));
             }
             const auto at = integers(op.at("indices"));
             return made_list(s, op, equal ? split(src, at, axis) : array_split(src, at, axis));
         }},
        {"take",
         [](ProgramState& s, const Json& op) {
             std::optional<std::ptrdiff_t> axis;
             if (!op.at("axis").is_null()) axis = op["axis"].get<std::ptrdiff_t>();
             return made(s, op, take(s.queue, s.at(str(op, "src")), s.at(str(op, "indices")), axis, take_mode(op)));
         }},
        {"nanreduce", [](ProgramState& s, const Json& op) { return made(s, op, nan_reduction(s, op)); }},
        {"moments", [](ProgramState& s, const Json& op) { return made(s, op, moment(s, op)); }},
        {"sort", [](ProgramState& s,
                    const Json& op) { return made(s, op, sort(s.queue, s.at(str(op, "src")), optional_axis(op))); }},
        {"argsort",
         [](ProgramState& s, const Json& op) {
             return made(s, op, argsort(s.queue, s.at(str(op, "src")), optional_axis(op)));
         }},
        {"unique", [](ProgramState& s, const Json& op) { return made_list(s, op, unique_results(s, op)); }},
        {"searchsorted",
         [](ProgramState& s, const Json& op) {
             const Side side = op.value("side", "left") == "right" ? Side::right : Side::left;
             return made(s, op, searchsorted(s.queue, s.at(str(op, "sorted")), s.at(str(op, "values")), side));
         }},
        {"nonzero",
         [](ProgramState& s, const Json& op) { return made_list(s, op, nonzero(s.queue, s.at(str(op, "src")))); }},
        {"boolean_index",
         [](ProgramState& s, const Json& op) {
             return made(s, op, boolean_index(s.queue, s.at(str(op, "src")), s.at(str(op, "mask"))));
         }},
        {"boolean_index_assign",
         [](ProgramState& s, const Json& op) {
             boolean_index_assign(s.queue, s.at(str(op, "dst")), s.at(str(op, "mask")), s.at(str(op, "value")));
             return std::vector<std::string>{str(op, "dst")};
         }},
        {"integer_index",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         integer_index(s.queue, s.at(str(op, "src")), s.at(str(op, "indices")),
                                       op.at("axis").get<int>()));
         }},
        {"integer_index_assign",
         [](ProgramState& s, const Json& op) {
             integer_index_assign(s.queue, s.at(str(op, "dst")), s.at(str(op, "indices")), s.at(str(op, "value")),
                                  op.at("axis").get<int>());
             return std::vector<std::string>{str(op, "dst")};
         }},
        {"argwhere",
         [](ProgramState& s, const Json& op) { return made(s, op, argwhere(s.queue, s.at(str(op, "src")))); }},
        {"count_nonzero",
         [](ProgramState& s, const Json& op) {
             std::optional<std::vector<int>> axes;
             if (!op.at("axes").is_null()) axes = op["axes"].get<std::vector<int>>();
             return made(s, op, count_nonzero(s.queue, s.at(str(op, "src")), axes));
         }},
        {"blas_dot",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         blas::dot(s.queue, s.at(str(op, "x")), s.at(str(op, "y")), std::nullopt,
                                   op.value("conjugate_x", false)));
         }},
        {"gemv",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         blas::gemv(s.queue, complex_value(op.at("alpha")), s.at(str(op, "a")), s.at(str(op, "x")),
                                    complex_value(op.at("beta")), optional_array(s, op, "y"), blas_op(op, "op_a")));
         }},
        {"gemm",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         blas::gemm(s.queue, complex_value(op.at("alpha")), s.at(str(op, "a")), s.at(str(op, "b")),
                                    complex_value(op.at("beta")), optional_array(s, op, "c"), blas_op(op, "op_a"),
                                    blas_op(op, "op_b")));
         }},
        {"gemm_batched",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         blas::gemm_batched(s.queue, complex_value(op.at("alpha")), s.at(str(op, "a")),
                                            s.at(str(op, "b")), complex_value(op.at("beta")),
                                            optional_array(s, op, "c"), blas_op(op, "op_a"), blas_op(op, "op_b")));
         }},
        {"ger",
         [](ProgramState& s, const Json& op) {
             return made(s, op,
                         blas::ger(s.queue, complex_value(op.at("alpha")), s.at(str(op, "x")), s.at(str(op, "y")),
                                   optional_array(s, op, "a")));
         }},
    };
    return table;
}

}  // namespace

std::vector<std::string> run_operation(ProgramState& state, const Json& op) {
    const std::string name = str(op, "op");
    auto found = handlers().find(name);
    if (found == handlers().end()) throw ProgramError("unknown operation " + name);
    const FusionRowsSetting rows(op);
    return found->second(state, op);
}

}  // namespace kjarni::numpy_fuzz
