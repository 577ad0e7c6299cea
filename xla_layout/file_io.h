// Bounded reads and safe writes of the files the tools take and produce.
// Reads never allocate more than a cap; writes never leave a partial file,
// never follow a planted temporary name, and never turn a device, FIFO or
// symlink into a regular file.
#ifndef XLA_LAYOUT_FILE_IO_H_
#define XLA_LAYOUT_FILE_IO_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla_layout {

// Default cap on any input file (HLO text, target tables): 2 GiB.
inline constexpr int64_t kDefaultMaxInputBytes = int64_t{2} << 30;

// The process-wide input cap (the CLI's --max-input-bytes sets it).
int64_t MaxInputBytes();
void SetMaxInputBytes(int64_t bytes);

// Reads `path` ("-" is standard input) up to MaxInputBytes(); a longer input,
// a directory or an unreadable file is an error that names the path.
// `what` names the file's role in messages ("target file").
absl::StatusOr<std::string> ReadFileBounded(const std::string& path,
                                            absl::string_view what = "file");

// Writes `contents` to `path`:
//  - a regular file (or a new name) is replaced atomically: the bytes go to a
//    mkstemp file in the same folder, which is renamed into place; an existing
//    file keeps its mode, a new one gets 0666 minus the umask; SIGINT, SIGTERM
//    and SIGHUP during the write remove the temporary file;
//  - a symlink is written through and stays a symlink;
//  - a character device or FIFO is opened and written in place;
//  - a directory, socket or empty path is refused.
// Any write error (full disk, closed device) is an error.
//
// Process-wide effects, since a signal handler can only reach globals: while
// a temporary file is pending, this library's handler replaces the
// process's handlers for SIGINT, SIGTERM and SIGHUP (it removes the
// temporary, restores the default action and re-raises the signal, so a
// program's own handler for them does not run during that window); the old
// handlers are restored after. The process has one pending temporary at a
// time: writers to regular files in several threads take turns, each
// waiting for the other's whole write. So `produce` (below) must not itself
// call WriteFileSafely for a regular file: it would wait for itself.
absl::Status WriteFileSafely(const std::string& path,
                             absl::string_view contents);

// Writes the next piece of an output; an error stops the output.
using ChunkWriter = std::function<absl::Status(absl::string_view)>;

// The same, for output produced in pieces (a large module prints without
// holding its whole text): `produce` hands each piece to the writer it is
// given, in order, and returns its first error. Nothing is renamed into
// place unless `produce` and every write succeed.
absl::Status WriteFileSafely(const std::string& path,
                             const std::function<absl::Status(const ChunkWriter&)>& produce);

}  // namespace xla_layout

#endif  // XLA_LAYOUT_FILE_IO_H_
