#pragma once
// The text of a number as Python's int() and float() read it: every character Unicode calls a
// decimal digit stands for its ASCII digit ("٣" is 3, "１２" is 12) and every Unicode white space for
// a blank, around and inside the ASCII syntax the parsers then check.

#include <string>
#include <string_view>

namespace kjarni::tmpl {

/// `text` with each decimal digit beyond ASCII made its ASCII digit, each white space beyond ASCII
/// a space and any other character beyond ASCII '?' (which no number's syntax takes), and then the
/// ASCII white space Python strips around a number (" \t\n\v\f\r") removed from both ends.
std::string number_text(std::string_view text);

}  // namespace kjarni::tmpl
