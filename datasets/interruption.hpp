// Long work a user may stop. Reading a dataset of 10^6 rows takes seconds and fitting its
// cells tens of seconds; such loops call interruption_point() every few thousand rows or
// at each refit, and the app installs a check that throws when Ctrl-C or SIGTERM arrived
// (app/main.cpp), so that the command stops within a fraction of a second, writing
// nothing, instead of finishing work nobody wants. Without a check installed (the
// libraries alone, the tests) it does nothing.
#pragma once

#include <functional>

namespace pollscale::datasets {

/// Installs the check (empty: none). Set once, before any work starts; not thread-safe.
void set_interruption_check(std::function<void()> check);

/// Calls the installed check, if any; whatever it throws propagates.
void interruption_point();

}  // namespace pollscale::datasets
