#pragma once
/// Program with everything its template constructors take: program.hpp plus the template
/// language, Modules and Snippets (Value, Globals, DefTemplate, Snippet, Module, TemplateSource).
/// program.hpp alone only declares these types, so that translation units compiling plain sources
/// do not parse the template headers. \file

#include "kjarni/program.hpp"
#include "kjarni/template/module.hpp"
#include "kjarni/template/template.hpp"
#include "kjarni/template/value.hpp"
