#include "tools/background_writer.h"

#include <utility>

namespace xla_layout::cli {

BackgroundWriter::BackgroundWriter(ChunkWriter write)
    : write_(std::move(write)), thread_([this] { Run(); }) {}

BackgroundWriter::~BackgroundWriter() { (void)Finish(); }

void BackgroundWriter::Write(std::string& piece) {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](bool* has_handed) { return !*has_handed; }, &has_handed_));
  handed_.swap(piece);
  has_handed_ = true;
  piece.clear();
}

absl::Status BackgroundWriter::Finish() {
  {
    absl::MutexLock lock(&mu_);
    finishing_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  return status_;
}

void BackgroundWriter::Run() {
  std::string piece;
  while (true) {
    bool write;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &BackgroundWriter::HasWork));
      if (!has_handed_) return;
      // The writer's empty string goes back, to be the producer's next.
      piece.swap(handed_);
      has_handed_ = false;
      write = status_.ok();
    }
    if (write) {
      absl::Status s = write_(piece);
      if (!s.ok()) {
        absl::MutexLock lock(&mu_);
        status_ = std::move(s);
      }
    }
    piece.clear();
  }
}

}  // namespace xla_layout::cli
