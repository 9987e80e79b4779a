// Snippets and Modules: the examples of reference §3.2, and module rendering rules (§3.2.2).

#include "test_util.hpp"

using kjarni::Args;
using kjarni::DefTemplate;
using kjarni::Globals;
using kjarni::Module;
using kjarni::render_with_modules;
using kjarni::Snippet;
using kjarni::Value;
using kjarni::test::normalize;

namespace {

// The reference prints its examples after dedenting the Python strings; compare with all
// whitespace removed.
std::string squeeze(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
    return out;
}

}  // namespace

// Reference §3.2.1.
TEST(Snippets, ReferenceExample) {
    auto add = Snippet::from_callable({"varname"}, [] { return "\n    ${varname} + ${num}\n    "; }, "_snippet",
                                      {{"num", 1}});
    std::string src = R"(
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add('x')};
    }
    )";
    std::string expected = R"(
KERNEL void test(GLOBAL_MEM int *arr)
{
    const SIZE_T idx = get_global_id(0);
    int x = arr[idx];
    arr[idx] = x + 1;
}
)";
    EXPECT_EQ(squeeze(render_with_modules(src, {}, {{"add", add}})), squeeze(expected));
}

TEST(Snippets, WithoutParenthesesIsACallWithoutArguments) {
    auto s = Snippet::from_string("<${n}>", "s", {{"n", 5}});
    EXPECT_EQ(render_with_modules(std::string("${s} ${s()}"), {}, {{"s", s}}), "<5> <5>");
}

TEST(Snippets, AsTheRootSource) {
    auto s = Snippet::from_callable({"a"}, [] { return "${a}${b}${c}"; }, "root", {{"b", 2}, {"c", 3}});
    // The render globals given are added to the snippet's own, and win on a clash.
    EXPECT_EQ(render_with_modules(s, {1}, {{"c", 4}}), "124");
}

// Reference §3.2.2.
TEST(Modules, ReferenceExample) {
    auto add = Module::from_callable({"prefix", "arg"}, [] {
        return R"(
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num} + ${arg};
    }
    )";
    }, "foobar", {{"num", 1}});
    std::string src = R"(
    KERNEL void test(GLOBAL_MEM int *arr)
    {
        const SIZE_T idx = get_global_id(0);
        int x = arr[idx];
        arr[idx] = ${add(2)}(x);
    }
    )";
    std::string expected = R"(

FUNCTION int _mod_foobar_0_(int x)
{
    return x + 1 + 2;
}

KERNEL void test(GLOBAL_MEM int *arr)
{
    const SIZE_T idx = get_global_id(0);
    int x = arr[idx];
    arr[idx] = _mod_foobar_0_(x);
}

)";
    std::string out = render_with_modules(src, {}, {{"add", add}});
    EXPECT_EQ(normalize(out), normalize(expected)) << out;
}

// Reference §3.2.3.
TEST(Modules, OtherConstructors) {
    auto add = Snippet(DefTemplate::from_string("_func", {"varname"}, "${varname} + ${num}"), {{"num", 1}});
    EXPECT_EQ(render_with_modules(std::string("${add('y')}"), {}, {{"add", add}}), "y + 1");

    auto mod = Module::from_string(R"(
    FUNCTION int ${prefix}(int x)
    {
        return x + ${num};
    }
    )", "_module", {{"num", 1}});
    std::string out = render_with_modules(std::string("y = ${add}(x);"), {}, {{"add", mod}});
    EXPECT_EQ(normalize(out), "FUNCTION int _mod__module_0_(int x) { return x + 1; } y = _mod__module_0_(x);");

    // A module's def must take the prefix.
    EXPECT_THROW(Module(DefTemplate::from_string("m", {}, "x")), kjarni::Error);
}

TEST(Modules, UsedWithoutArgumentsIsRenderedOnce) {
    auto m = Module::from_string("struct ${prefix} { int x; };\n", "point");
    auto user1 = Module::from_string("void ${prefix}(${p} a);\n", "user1", {{"p", m}});
    auto user2 = Module::from_string("void ${prefix}(${p} b);\n", "user2", {{"p", m}});
    std::string out = render_with_modules(std::string("${m} ${user1} ${user2} ${m}"), {},
                                          {{"m", m}, {"user1", user1}, {"user2", user2}});
    EXPECT_EQ(out,
              "struct _mod_point_0_ { int x; };\n\n"
              "void _mod_user1_1_(_mod_point_0_ a);\n\n"
              "void _mod_user2_2_(_mod_point_0_ b);\n\n"
              "_mod_point_0_ _mod_user1_1_ _mod_user2_2_ _mod_point_0_");
}

TEST(Modules, WithArgumentsIsRenderedForEachUse) {
    auto c = Module::from_callable({"prefix", "v"}, [] { return "#define ${prefix} ${v}\n"; }, "c");
    std::string out = render_with_modules(std::string("${c(1)} ${c(1)} ${c(v=2)}"), {}, {{"c", c}});
    EXPECT_EQ(out, "#define _mod_c_0_ 1\n\n#define _mod_c_1_ 1\n\n#define _mod_c_2_ 2\n\n_mod_c_0_ _mod_c_1_ _mod_c_2_");
}

TEST(Modules, DependenciesRenderFirstDepthFirst) {
    auto leaf = Module::from_string("leaf ${prefix}\n", "leaf");
    auto mid = Module::from_string("mid ${prefix} uses ${leaf}\n", "mid", {{"leaf", leaf}});
    auto top = Module::from_string("top ${prefix} uses ${mid}\n", "top", {{"mid", mid}});
    std::string out = render_with_modules(std::string("main uses ${top}"), {}, {{"top", top}});
    // Prefixes are numbered in order of use; sources come out dependencies first.
    EXPECT_EQ(out,
              "leaf _mod_leaf_2_\n\n"
              "mid _mod_mid_1_ uses _mod_leaf_2_\n\n"
              "top _mod_top_0_ uses _mod_mid_1_\n\n"
              "main uses _mod_top_0_");
}

TEST(Modules, PrefixIsNotAStringButConvertsWithStr) {
    auto m = Module::from_string("", "m");
    EXPECT_EQ(render_with_modules(std::string("${str(m) + 'abc'} ${m}abc"), {}, {{"m", m}}), "\n_mod_m_0_abc _mod_m_0_abc");
    kjarni::test::expect_render_error([&] { render_with_modules(std::string("${m + 'abc'}"), {}, {{"m", m}}); }, 1, 5,
                                      "unsupported operand types for +: 'Module' and 'str'");
}

TEST(Modules, FoundInsideListsAndDicts) {
    auto m = Module::from_string("M ${prefix}\n", "m");
    Globals g{{"l", Value{1, m}}, {"d", Value(std::map<std::string, Value>{{"k", m}})}};
    EXPECT_EQ(render_with_modules(std::string("${l[1]} ${d['k']} ${l[0]}"), {}, g), "M _mod_m_0_\n\n_mod_m_0_ _mod_m_0_ 1");
}

// Reference §3.2.4: discovery through a user type (the role of __process_modules__).
namespace {
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

TEST(Modules, FoundInsideUserObjects) {
    auto mul = Module::from_string("mul ${prefix}\n", "mul");
    auto div = Module::from_string("div ${prefix}\n", "div");
    Globals g{{"obj", Value(std::make_shared<MyClass>(Value(3), Value(mul), Value(div)))}};
    std::string out = render_with_modules(std::string("${obj.mul}(${obj.coeff}, ${obj.div}(x)) ${obj}"), {}, g);
    EXPECT_EQ(out, "mul _mod_mul_0_\n\ndiv _mod_div_1_\n\n_mod_mul_0_(3, _mod_div_1_(x)) <MyClass>");
    kjarni::test::expect_render_error([&] { render_with_modules(std::string("\n  ${obj.nope}"), {}, g); }, 2, 8,
                                      "'MyClass' object has no attribute 'nope'");
}

// Reference §3.2.5: snippets holding modules holding snippets, to any depth.
TEST(Modules, NontrivialTreeThroughSnippets) {
    auto base_rng = Module::from_string("uint ${prefix}(State* s);\n", "base_rng");
    auto uniform =
        Snippet::from_callable({"s"}, [] { return "(${rng}(${s}) * ${scale})"; }, "uniform", {{"rng", base_rng}, {"scale", 0.5}});
    auto normal = Module::from_callable({"prefix"}, [] { return "float ${prefix}(State* s) { return ${uniform('s')} + ${uniform('s')}; }\n"; },
                                        "normal", {{"uniform", uniform}});
    auto gamma = Module::from_callable({"prefix"}, [] { return "float ${prefix}(State* s) { return ${normal}(s) * ${uniform('s')}; }\n"; },
                                       "gamma", {{"uniform", uniform}, {"normal", normal}});
    auto main = Snippet::from_callable({}, [] { return "KERNEL void k() { ${base_rng}(&st); ${gamma}(&st); }"; }, "PureParallel",
                                       {{"base_rng", base_rng}, {"gamma", gamma}});
    std::string out = render_with_modules(main);
    EXPECT_EQ(out,
              "uint _mod_base_rng_0_(State* s);\n\n"
              "float _mod_normal_2_(State* s) { return (_mod_base_rng_0_(s) * 0.5) + (_mod_base_rng_0_(s) * 0.5); }\n\n"
              "float _mod_gamma_1_(State* s) { return _mod_normal_2_(s) * (_mod_base_rng_0_(s) * 0.5); }\n\n"
              "KERNEL void k() { _mod_base_rng_0_(&st); _mod_gamma_1_(&st); }");
}

TEST(Modules, RenderArgsOfADefTemplateSource) {
    auto d = DefTemplate::from_string("k", {"n"}, "${n} ${m}");
    auto m = Module::from_string("M\n", "m");
    EXPECT_EQ(render_with_modules(d, {7}, {{"m", m}}), "M\n\n7 _mod_m_0_");
}

TEST(Modules, ErrorsInsideModulesNameTheModule) {
    auto bad = Module::from_string("ok\n  ${undefined_thing}\n", "bad");
    try {
        render_with_modules(std::string("${bad}"), {}, {{"bad", bad}});
        FAIL();
    } catch (const kjarni::RenderError& e) {
        EXPECT_EQ(e.template_name(), "bad");
        EXPECT_EQ(e.line(), 2u);
        EXPECT_EQ(e.column(), 5u);
        EXPECT_EQ(e.global_names(), std::vector<std::string>{});
    }
}

TEST(Modules, UsedOutsideModuleProcessingIsAnError) {
    auto m = Module::from_string("", "m");
    kjarni::test::expect_render_error([&] { kjarni::test::render("${m}", {{"m", m}}); }, 1, 1,
                                      "without module processing");
}

TEST(Modules, CallablesFromCpp) {
    Globals g{{"twice", Value([](const Args& a) { return Value(a[0].as_int() * 2); })},
              {"kw", Value([](const Args& a) {
                   const Value* k = a.find_keyword("k");
                   return Value(k ? k->str() : std::string("none"));
               })},
              {"thrower", Value([](const Args&) -> Value { throw std::runtime_error("boom"); })}};
    EXPECT_EQ(render_with_modules(std::string("${twice(21)} ${kw()} ${kw(k=1.5)}"), {}, g), "42 none 1.5");
    kjarni::test::expect_render_error([&] { render_with_modules(std::string("x ${thrower()}"), {}, g); }, 1, 12, "boom");
}
