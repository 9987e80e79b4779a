// In-place changes of lists, dicts and sets (src/template/ownership.hpp): Python's aliasing inside a
// render, immutable globals shared between renders and threads, and the errors that name what a
// template may not change. The byte-for-byte comparison with Mako is in the corpus (mut_*, set_*,
// dict_mixed_keys, num_big_*); these cover what the corpus cannot (errors, threads, C++ values).

#include "test_util.hpp"

#include <atomic>
#include <thread>
#include <vector>

namespace {

using kjarni::Globals;
using kjarni::Template;
using kjarni::Value;
using kjarni::test::expect_render_error;
using kjarni::test::render;

TEST(Mutation, GlobalsAreNotChangedAndTheErrorNamesThem) {
    Globals g;
    g["names"] = Value{"x", "y"};
    g["cfg"] = Value::dict({{"a", 1}});
    expect_render_error([&] { render("<% names.append('z') %>", g); }, 1, 0, "cannot change 'names' in place");
    expect_render_error([&] { render("<%\n  cfg['b'] = 2\n%>", g); }, 2, 0, "cannot change 'cfg' in place");
    expect_render_error([&] { render("<% del cfg['a'] %>", g); }, 1, 0, "cannot change 'cfg' in place");
    expect_render_error([&] { render("<%\nxs = names\nxs += ['w']\n%>", g); }, 3, 0, "cannot change 'xs' in place");
    expect_render_error([&] { render("<% names.sort() %>", g); }, 1, 0, "copy it first");
    // Nothing changed, and a copy is the template's own.
    EXPECT_EQ(g["names"].repr(), "['x', 'y']");
    EXPECT_EQ(g["cfg"].repr(), "{'a': 1}");
    EXPECT_EQ(render("<% xs = list(names); xs.append('z') %>${xs} ${names}", g), "['x', 'y', 'z'] ['x', 'y']");
    EXPECT_EQ(render("<% d = dict(cfg); d['b'] = 2 %>${d} ${cfg}", g), "{'a': 1, 'b': 2} {'a': 1}");
}

TEST(Mutation, ContainersMadeByARenderAreFreshEachRender) {
    // A list literal is made anew by each render, as Mako's body runs anew. (A <%def>'s default is
    // made anew by each call in kjarni; Mako makes it once per loaded module: not compared here.)
    const Template t = Template::from_string("<% xs = [] %><% xs.append(len(xs)) %>${xs}");
    EXPECT_EQ(t.render({}), "[0]");
    EXPECT_EQ(t.render({}), "[0]");
}

TEST(Mutation, ThreadsRenderingOneTemplateDoNotSeeEachOthersChanges) {
    const Template t = Template::from_string("<%\nacc = list(base)\n"
                                             "for i in range(200):\n"
                                             "    acc.append(i * k)\n"
                                             "d = {}\n"
                                             "for v in acc:\n"
                                             "    d[v % 7] = d.get(v % 7, 0) + 1\n"
                                             "%>${sum(acc)} ${sorted(d.items())}");
    Globals shared;
    shared["base"] = Value{1, 2, 3};
    std::vector<std::string> expected;
    for (int k = 0; k < 4; ++k) {
        Globals g = shared;
        g["k"] = k;
        expected.push_back(t.render(g));
    }
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k) {
        threads.emplace_back([&, k] {
            Globals g = shared;
            g["k"] = k;
            for (int r = 0; r < 50; ++r)
                if (t.render(g) != expected[static_cast<std::size_t>(k)]) ++mismatches;
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    EXPECT_EQ(shared["base"].repr(), "[1, 2, 3]");
}

TEST(Mutation, ValuesMadeInCppAreImmutableEvenInsideARender) {
    // A C++ function's result made outside the render (kept by the function) stays shared.
    const Value kept = Value{1, 2};
    Globals g;
    g["get"] = Value::function([kept](const kjarni::Args&) { return kept; });
    expect_render_error([&] { render("<%\nxs = get()\nxs.append(3)\n%>", g); }, 3, 0, "cannot change 'xs' in place");
    EXPECT_EQ(kept.repr(), "[1, 2]");
}

TEST(Mutation, ReferenceCyclesAreRefused) {
    expect_render_error([] { render("<%\nxs = []\nxs.append(xs)\n%>"); }, 3, 0, "cannot contain itself");
    expect_render_error([] { render("<%\na = []; b = [a]\na.append(b)\n%>"); }, 3, 0, "cannot contain itself");
    expect_render_error([] { render("<%\nd = {}\nd['me'] = [d]\n%>"); }, 3, 0, "cannot contain itself");
    // Through functions, their defaults, dict keys, sets and iterators too.
    expect_render_error([] { render("<%\nfs = []\nfs.append(lambda: fs)\n%>"); }, 3, 0, "cannot contain itself");
    expect_render_error([] { render("<%\nd = {}\nd[lambda: d] = 1\n%>"); }, 3, 0, "cannot contain itself");
    expect_render_error([] { render("<%\ns = set()\ns.add(lambda: s)\n%>"); }, 3, 0, "cannot contain itself");
    expect_render_error([] { render("<%\nxs = [1]\nit = iter(xs)\nxs.append(it)\n%>"); }, 4, 0,
                        "cannot contain itself");
    expect_render_error([] { render("<%\nacc = []\ndef f(x=acc):\n    pass\nacc.append(f)\n%>"); }, 5, 0,
                        "cannot contain itself");
    // Deeply nested lists are walked without recursion.
    EXPECT_EQ(render("<%\na = []\nfor i in range(300000):\n    a = [a]\nb = []\nb.append(a)\n%>${len(b)}"), "1");
    // Printing or comparing it stops at Python's recursion limit, as Python does.
    expect_render_error([] { render("<%\na = []\nfor i in range(5000):\n    a = [a]\n%>${a}"); }, 5, 0,
                        "maximum recursion depth exceeded");
    expect_render_error(
        [] { render("<%\na = []\nb = []\nfor i in range(5000):\n    a = [a]\n    b = [b]\n%>${a == b}"); }, 7, 0,
        "maximum recursion depth exceeded");
    EXPECT_EQ(render("<%\na = []\nfor i in range(3):\n    a = [a]\n%>${a}"), "[[[[]]]]");
    // A list holding another list twice is no cycle.
    EXPECT_EQ(render("<% a = [1]; b = []; b.append(a); b.append(a); b += [a] %>${b}"), "[[1], [1], [1]]");
}

TEST(Mutation, SetsRefuseWhatDependsOnPythonsHashOrder) {
    expect_render_error([] { render("${ {1, 2} }"); }, 1, 0, "printing a set of more than one member");
    expect_render_error([] { render("% for x in {1, 2}:\n${x}\n% endfor"); }, 1, 0, "iterate over sorted(...) instead");
    expect_render_error([] { render("${list({'a', 'b'})}"); }, 1, 0, "hash order");
    expect_render_error([] { render("${sorted({'a', 'b'}, key=len)}"); }, 1, 0, "hash order");
    expect_render_error([] { render("${ {[1]} }"); }, 1, 0, "unhashable type: 'list'");
    expect_render_error([] { render("<% d = {} %>${d.get([1])}"); }, 1, 0, "unhashable type: 'list'");
    // Members are found by hash: large sets stay fast, and 1, 1.0 and True are one member.
    EXPECT_EQ(render("${len(set(range(200000)))} ${len(set(range(100000)) & set(range(50000, 150000)))} ${len({1, 1.0, "
                     "True, 2 ** 64, 2.0 ** 64})}"),
              "200000 50000 2");
    EXPECT_EQ(render("${sorted({'b', 'a'})} ${len({1, 2, 2})} ${ {7} } ${set()} ${sum({1, 2})} ${min({3, 1})}"),
              "['a', 'b'] 2 {7} set() 3 1");
}

TEST(Mutation, DictKeysOfAnyHashableType) {
    Globals g;
    kjarni::DictItems items;
    items.set(Value(1), "one");
    items.set(Value::tuple({0, 1}), "pair");
    g["d"] = Value::dict(items);
    EXPECT_EQ(render("${d[1]} ${d[1.0]} ${d[(0, 1)]} ${d}", g), "one one pair {1: 'one', (0, 1): 'pair'}");
    EXPECT_EQ(g["d"].as_dict().find(Value(true))->str(), "one");
}

TEST(BigIntegers, FromCppAndBack) {
    Globals g;
    g["u"] = std::uint64_t{18446744073709551615u};
    EXPECT_EQ(render("${u} ${u + 1} ${hex(u)} ${u // 2 == 2 ** 63 - 1}", g),
              "18446744073709551615 18446744073709551616 0xffffffffffffffff True");
    EXPECT_THROW(g["u"].as_int(), kjarni::Error);
    EXPECT_DOUBLE_EQ(g["u"].as_float(), 18446744073709551615.0);
    EXPECT_FALSE(g["u"] == Value(18446744073709551616.0));  // exact, as Python compares
    EXPECT_TRUE(Value(std::uint64_t{1} << 63) == Value(9223372036854775808.0));
}

TEST(BigIntegers, LimitsAndErrors) {
    expect_render_error([] { render("${2 ** 10 ** 7}"); }, 1, 0, "integer too large");
    expect_render_error([] { render("${1 << 10 ** 7}"); }, 1, 0, "integer too large");
    expect_render_error([] { render("${str(10 ** 5000)}"); }, 1, 0, "4300 digits");
    expect_render_error([] { render("${float(10 ** 400)}"); }, 1, 0, "int too large to convert to float");
    expect_render_error([] { render("${[1][2 ** 70]}"); }, 1, 0, "does not fit in 64 bits");
    expect_render_error([] { render("${(2 ** 70) // 0}"); }, 1, 0, "integer division by zero");
    EXPECT_EQ(render("${len(hex(10 ** 5000))} ${(10 ** 5000) // 10 ** 4999}"), "4155 10");
}

}  // namespace
