# One place for the warning flags every kjarni target uses.
add_library(kjarni_warnings INTERFACE)
target_compile_options(kjarni_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference -Wimplicit-fallthrough
  $<$<BOOL:${KJARNI_WERROR}>:-Werror>)
