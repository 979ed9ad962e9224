// Files are replaced, never half-written: content goes to a temporary file in the same
// directory, is flushed to disk, and renamed over the target in one step. What is replaced
// is the regular file a path names: a symlink stays a symlink (the file it points to is
// replaced), and a device, FIFO or socket (/dev/null, /dev/stdout on a pipe) is written to,
// never turned into a regular file.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace pollscale::datasets {

/// Writes `content` to `path` atomically (to a device or FIFO: in order, checked). Throws
/// std::system_error naming the path; a directory is refused the same way.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// For tests: called before each step of a write — "create" (the temporary file), "write"
/// (each write call), "flush" (fsync and close), "rename", and a directory swap's "stage"
/// (its fresh directory), "link" (each entry carried over), "exchange" and "remove" (each
/// old entry) — with the path being written; a nonzero errno it returns makes that step fail
/// with it, as the kernel would (ENOSPC, EIO, EINTR: a write retries after EINTR). A test
/// may also end the process there, as a kill would. Per thread; empty by default.
using write_fault_hook = std::function<int(std::string_view step, const std::filesystem::path& path)>;
void set_write_fault_hook(write_fault_hook hook);

/// For this library's writers: asks the hook about `step` on `path`; true, with errno set to
/// what it returned, when the step is to fail.
bool injected_write_fault(std::string_view step, const std::filesystem::path& path);

}  // namespace pollscale::datasets
