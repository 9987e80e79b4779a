#include <kjarni/template.hpp>

#include <gtest/gtest.h>

TEST(Smoke, Substitution) {
    EXPECT_EQ(kjarni::Template::from_string("a ${1 + 2} b").render(), "a 3 b");
}
