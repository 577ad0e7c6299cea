#ifndef XLA_LAYOUT_TOOLS_BACKGROUND_WRITER_H_
#define XLA_LAYOUT_TOOLS_BACKGROUND_WRITER_H_

// Writes an output's pieces on a thread of its own, so that the printer
// formats the next piece while the last one is written: the time of the
// write system calls overlaps the printing instead of adding to it.

#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "xla_layout/file_io.h"

namespace xla_layout::cli {

class BackgroundWriter {
 public:
  // Each piece goes to `write`, in order, on the writer's thread; after the
  // first error the rest are dropped.
  explicit BackgroundWriter(ChunkWriter write);
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  ~BackgroundWriter();

  // Takes `piece` and gives back an empty string (that keeps the capacity
  // of an earlier piece). Waits while the previous piece is not yet taken,
  // so at most two pieces are in flight.
  void Write(std::string& piece);

  // Waits until every piece is written; the first error of `write`.
  absl::Status Finish();

 private:
  void Run();
  // What the writer thread waits for: a piece, or the end.
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return has_handed_ || finishing_; }

  const ChunkWriter write_;
  absl::Mutex mu_;
  std::string handed_ ABSL_GUARDED_BY(mu_);
  bool has_handed_ ABSL_GUARDED_BY(mu_) = false;
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace xla_layout::cli

#endif  // XLA_LAYOUT_TOOLS_BACKGROUND_WRITER_H_
