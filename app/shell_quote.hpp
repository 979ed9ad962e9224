// Command lines that pollscale writes for a person to paste (the study's steps in study.json,
// the predict flags `pollscale cells` lists) must survive a POSIX shell unchanged.
#pragma once

#include <string>
#include <string_view>

namespace pollscale::app {

/// `word` as one shell word: itself when it holds only characters no shell treats
/// specially (letters, digits, - _ . / , : = + @ %), otherwise in single quotes with each
/// ' written '\'' ("n_fds<=1000" -> 'n_fds<=1000', "Gooch's" -> 'Gooch'\''s', "" -> '').
std::string shell_quote(std::string_view word);

}  // namespace pollscale::app
