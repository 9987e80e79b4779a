// grunnur's tutorial (reference 000, 3.1 and 3.2) and the rules of module rendering, rendered by
// kjarni and compared byte for byte with what grunnur itself renders for the same templates and
// globals (grunnur/*.txt, made by peer/grunnur_cases.py; the ctest `template_peers` re-makes them).

#include "test_util.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using kjarni::Args;
using kjarni::DefTemplate;
using kjarni::Globals;
using kjarni::Module;
using kjarni::render_with_modules;
using kjarni::Snippet;
using kjarni::Value;

std::string grunnur_renders(const std::string& name) {
    const auto path = std::filesystem::path(KJARNI_TEST_DATA_DIR).parent_path() / "grunnur" / (name + ".txt");
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "missing " << path;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The kernel source of the 3.1 examples, as the Python strings hold it.
const char* const multiply_them = R"(
    KERNEL void multiply_them(
        GLOBAL_MEM ${ctype} *dest,
        GLOBAL_MEM ${ctype} *a,
        GLOBAL_MEM ${ctype} *b)
    {
        const SIZE_T i = get_global_id(0);
        dest[i] = ${mul}(a[i], b[i]);
    }
    )";

}  // namespace

TEST(GrunnurTutorial, PlainSourceIsATemplate) {
    std::string plain = multiply_them;
    plain.replace(plain.find("${mul}(a[i], b[i])"), 18, "a[i] * b[i]");
    for (std::size_t at; (at = plain.find("${ctype}")) != std::string::npos;) plain.replace(at, 8, "float");
    EXPECT_EQ(render_with_modules(plain), grunnur_renders("intro_plain"));
}

TEST(GrunnurTutorial, ComplexMultiplicationThroughAModule) {
    // kjarni's function modules have code of their own (the runtime suite compiles and checks them):
    // here a module standing in for grunnur's functions.mul, with grunnur's rendered body, shows that
    // the main code and its use of the prefix come out as grunnur's.
    const std::string expected = grunnur_renders("intro_complex");
    // The module renders as "\n" + body + "\n" (grunnur's def adds the newlines), then a newline
    // joins it to the main code.
    const std::size_t body_end = expected.find("}\n\n\n\n    KERNEL") + 1;
    auto mul = Module::from_callable(
        {"prefix"},
        [&] {
            std::string body = expected.substr(1, body_end - 1);
            body.replace(body.find("_mod_add_or_mul_0_"), 18, "${prefix}");
            return body;
        },
        "add_or_mul");
    EXPECT_EQ(render_with_modules(std::string(multiply_them), {}, {{"ctype", "float2"}, {"mul", mul}}), expected);
}

TEST(GrunnurTutorial, Snippet) {
    auto add =
        Snippet::from_callable({"varname"}, [] { return "\n    ${varname} + ${num}\n    "; }, "_snippet", {{"num", 1}});
    const std::string src = R"(
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add('x')};
    }
    )";
    EXPECT_EQ(render_with_modules(src, {}, {{"add", add}}), grunnur_renders("snippet"));
}

TEST(GrunnurTutorial, Module) {
    auto add = Module::from_callable({"prefix", "arg"},
                                     [] {
                                         return R"(
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num} + ${arg};
    }
    )";
                                     },
                                     "foobar", {{"num", 1}});
    const std::string src = R"(
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add(2)}(x);
    }
    )";
    EXPECT_EQ(render_with_modules(src, {}, {{"add", add}}), grunnur_renders("module"));
}

TEST(GrunnurTutorial, OtherConstructors) {
    auto add = Snippet(DefTemplate::from_string("_func", {"varname"}, "${varname} + ${num}"), {{"num", 1}});
    EXPECT_EQ(render_with_modules(std::string("y = ${add('x')};"), {}, {{"add", add}}),
              grunnur_renders("other_snippet"));
    auto mod = Module::from_string(R"(
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num};
    }
    )",
                                   "_module", {{"num", 1}});
    EXPECT_EQ(render_with_modules(std::string("y = ${add}(x);"), {}, {{"add", mod}}), grunnur_renders("other_module"));
}

TEST(GrunnurTutorial, NontrivialTree) {
    auto base_rng = Module::from_string("uint ${prefix}(State* s);\n", "base_rng");
    auto uniform = Snippet::from_callable({"s"}, [] { return "(${rng}(${s}) * ${scale})"; }, "uniform",
                                          {{"rng", base_rng}, {"scale", 0.5}});
    auto normal =
        Module::from_callable({"prefix"},
                              [] {
                                  return "float ${prefix}(State* s) { return ${uniform('s')} + ${uniform('s')}; }\n";
                              },
                              "normal", {{"uniform", uniform}});
    auto gamma =
        Module::from_callable({"prefix"},
                              [] { return "float ${prefix}(State* s) { return ${normal}(s) * ${uniform('s')}; }\n"; },
                              "gamma", {{"uniform", uniform}, {"normal", normal}});
    auto main = Snippet::from_callable({}, [] { return "KERNEL void k() { ${base_rng}(&st); ${gamma}(&st); }"; },
                                       "PureParallel", {{"base_rng", base_rng}, {"gamma", gamma}});
    EXPECT_EQ(render_with_modules(main), grunnur_renders("nontrivial"));
}

TEST(GrunnurModules, SameArgumentsRenderOnceOtherArgumentsAgain) {
    auto point = Module::from_string("typedef struct { float x, y; } ${prefix};\n", "point");
    auto norm2 =
        Module::from_callable({"prefix", "t"},
                              [] { return "FUNCTION ${t} ${prefix}(${point} p) { return p.x * p.x + p.y * p.y; }\n"; },
                              "norm2", {{"point", point}});
    const std::string src = R"(
    KERNEL void k(GLOBAL_MEM ${point} *p, GLOBAL_MEM float *out, GLOBAL_MEM double *out2)
    {
        const SIZE_T i = get_global_id(0);
        out[i] = ${norm2('float')}(p[i]) + ${norm2('float')}(p[i]);
        out2[i] = ${norm2('double')}(p[i]);
    }
    )";
    EXPECT_EQ(render_with_modules(src, {}, {{"point", point}, {"norm2", norm2}}), grunnur_renders("module_reuse"));
}

TEST(GrunnurModules, GlobalClashingWithASnippetsOwnIsAnError) {
    EXPECT_EQ(grunnur_renders("snippet_clash"), "ValueError: Cannot add a global 'a' - it already exists\n");
    auto s = Snippet::from_string("${a}", "_snippet", {{"a", 1}});
    EXPECT_THROW(render_with_modules(s, {}, {{"a", 2}}), kjarni::Error);
}

TEST(GrunnurModules, Rules) {
    auto s = Snippet::from_string("<${n}>", "s", {{"n", 5}});
    EXPECT_EQ(render_with_modules(std::string("${s} ${s()}"), {}, {{"s", s}}),
              grunnur_renders("rule_snippet_without_parens"));

    auto root = Snippet::from_callable({"a"}, [] { return "${a}${b}${c}"; }, "root", {{"b", 2}, {"c", 3}});
    EXPECT_EQ(render_with_modules(root, {1}, {{"d", 4}}), grunnur_renders("rule_snippet_as_root"));

    auto m = Module::from_string("struct ${prefix} { int x; };\n", "point");
    auto user1 = Module::from_string("void ${prefix}(${p} a);\n", "user1", {{"p", m}});
    auto user2 = Module::from_string("void ${prefix}(${p} b);\n", "user2", {{"p", m}});
    EXPECT_EQ(render_with_modules(std::string("${m} ${user1} ${user2} ${m}"), {},
                                  {{"m", m}, {"user1", user1}, {"user2", user2}}),
              grunnur_renders("rule_module_without_args_once"));

    auto c = Module::from_callable(
        {"prefix", "v"}, [] { return "#define ${prefix} ${v}\n"; }, "c");
    EXPECT_EQ(render_with_modules(std::string("${c(1)} ${c(1)} ${c(2)} ${c(1.0)} ${c(True)} ${c('1')}"), {},
                                  {{"c", c}}),
              grunnur_renders("rule_module_once_per_arguments"));

    auto leaf = Module::from_string("leaf ${prefix}\n", "leaf");
    auto mid = Module::from_string("mid ${prefix} uses ${leaf}\n", "mid", {{"leaf", leaf}});
    auto top = Module::from_string("top ${prefix} uses ${mid}\n", "top", {{"mid", mid}});
    EXPECT_EQ(render_with_modules(std::string("main uses ${top}"), {}, {{"top", top}}),
              grunnur_renders("rule_dependencies_depth_first"));

    auto empty = Module::from_string("", "m");
    EXPECT_EQ(render_with_modules(std::string("${str(m) + 'abc'} ${m}abc"), {}, {{"m", empty}}),
              grunnur_renders("rule_prefix_str"));

    auto mm = Module::from_string("M ${prefix}\n", "m");
    Globals g{{"l", Value{1, mm}}, {"d", Value(std::map<std::string, Value>{{"k", mm}})}};
    EXPECT_EQ(render_with_modules(std::string("${l[1]} ${d['k']} ${l[0]}"), {}, g),
              grunnur_renders("rule_inside_lists_and_dicts"));

    auto d = DefTemplate::from_string("k", {"n"}, "${n} ${m}");
    auto md = Module::from_string("M\n", "m");
    EXPECT_EQ(render_with_modules(d, {7}, {{"m", md}}), grunnur_renders("rule_def_template_source"));
}

namespace {
// The role of grunnur's attribute access on a user object: discovery through process_modules.
class MyClass : public kjarni::Object {
public:
    MyClass(Value coeff, Value mul, Value div) : coeff_(std::move(coeff)), mul_(std::move(mul)), div_(std::move(div)) {}
    std::string type_name() const override { return "MyClass"; }
    std::string to_string() const override { return "<MyClass>"; }
    Value attribute(const std::string& name) const override {
        if (name == "coeff") return coeff_;
        if (name == "mul") return mul_;
        if (name == "div") return div_;
        return Object::attribute(name);
    }
    std::shared_ptr<const Object> process_modules(const std::function<Value(const Value&)>& process) const override {
        return std::make_shared<MyClass>(coeff_, process(mul_), process(div_));
    }

private:
    Value coeff_, mul_, div_;
};
}  // namespace

TEST(GrunnurModules, InsideUserObjects) {
    auto mul = Module::from_string("mul ${prefix}\n", "mul");
    auto div = Module::from_string("div ${prefix}\n", "div");
    Globals g{{"obj", Value(std::make_shared<MyClass>(Value(3), Value(mul), Value(div)))}};
    EXPECT_EQ(render_with_modules(std::string("${obj.mul}(${obj.coeff}, ${obj.div}(x)) ${obj}"), {}, g),
              grunnur_renders("rule_inside_user_objects"));
    kjarni::test::expect_render_error([&] { render_with_modules(std::string("\n  ${obj.nope}"), {}, g); }, 2, 8,
                                      "'MyClass' object has no attribute 'nope'");
}
