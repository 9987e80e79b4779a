#pragma once
/// The template language, Modules and Snippets (see kjarni/template/template.hpp for the language). \file

#include <kjarni/template/lookup.hpp>
#include <kjarni/template/module.hpp>
#include <kjarni/template/template.hpp>
#include <kjarni/template/value.hpp>
