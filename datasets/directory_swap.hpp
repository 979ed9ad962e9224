// A directory's contents replaced in one step. Files are each replaced atomically
// (datasets/atomic_file.hpp), but a set of files is not: a run killed between two renames
// leaves some new files beside old ones. So the new contents are written into a fresh hidden
// directory beside the old one (".NAME.XXXXXX", same filesystem), flushed, and the two
// directories are swapped with one renameat2(RENAME_EXCHANGE); the old contents, now under
// the hidden name, are removed afterwards. Whoever reads the directory, and whatever moment
// a kill lands on, sees the whole old contents or the whole new ones. A kill after the swap
// but before the removal leaves the old contents in the hidden directory, which can be
// deleted.
//
// Entries the write does not own (calibrate's lock file, a user's notes) are hard-linked
// into the new directory before the swap, so they stay, with their inodes: a lock held
// through one stays held. Where the swap cannot be made the caller falls back to replacing
// files one by one: a filesystem without RENAME_EXCHANGE or hard links, a parent directory
// that cannot be written, a subdirectory or special file among the entries not owned (it
// cannot be linked), or the directory being the process's working directory.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace pollscale::datasets {

enum class directory_swap {
  exchanged,    ///< an existing directory's contents were swapped for the new ones
  created,      ///< the directory did not exist; the new one was renamed into place
  unavailable,  ///< nothing was changed: the caller replaces its files one by one
};

/// Fills a fresh directory beside `dir` with `fill(new_dir)`, carries over the entries of
/// `dir` for which `owned(name)` is false, and swaps it in. A symlink `dir` is followed:
/// its target's contents are replaced, the link stays. Throws std::system_error naming the
/// path when a step fails for another reason than the swap being unavailable (a full disk,
/// an I/O error), or whatever `fill` throws; either way `dir` is left as it was.
directory_swap replace_directory(const std::filesystem::path& dir,
                                 const std::function<void(const std::filesystem::path& new_dir)>& fill,
                                 const std::function<bool(std::string_view name)>& owned);

}  // namespace pollscale::datasets
