#include "xla_layout/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace xla_layout {
namespace {

std::atomic<int64_t> max_input_bytes{kDefaultMaxInputBytes};

std::string ErrnoText(int err) { return std::strerror(err); }

// The temporary file being written, for the signal handler. Only
// async-signal-safe calls touch it from the handler. There is one per
// process, so writers take turns (pending_mutex): two at once would each
// save the other's handler as the one to restore, and share the name.
absl::Mutex pending_mutex(absl::kConstInit);
char pending_tmp[4096];
volatile sig_atomic_t pending_active = 0;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void RemovePendingAndReraise(int sig) {
  if (pending_active) unlink(pending_tmp);
  signal(sig, SIG_DFL);
  raise(sig);
}

// Holds the process's one pending temporary: takes the writers' turn and
// installs the cleanup handlers for its lifetime, then restores the old ones.
class PendingFile {
 public:
  PendingFile() : turn_(&pending_mutex) {
    struct sigaction sa = {};
    sa.sa_handler = RemovePendingAndReraise;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kCleanupSignals[i], &sa, &old_[i]);
  }
  ~PendingFile() {
    Clear();
    for (int i = 0; i < 3; ++i) sigaction(kCleanupSignals[i], &old_[i], nullptr);
  }
  // Creates the temporary file from `tmpl` (ending in XXXXXX) with the
  // signals blocked, so that the handler never sees a half-set name.
  int Create(std::string& tmpl) {
    if (tmpl.size() >= sizeof(pending_tmp)) {
      errno = ENAMETOOLONG;
      return -1;
    }
    sigset_t block, old;
    sigemptyset(&block);
    for (int s : kCleanupSignals) sigaddset(&block, s);
    sigprocmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(tmpl.data());
    int err = errno;
    if (fd >= 0) {
      std::memcpy(pending_tmp, tmpl.c_str(), tmpl.size() + 1);
      pending_active = 1;
    }
    sigprocmask(SIG_SETMASK, &old, nullptr);
    errno = err;
    return fd;
  }
  void Clear() { pending_active = 0; }

 private:
  absl::MutexLock turn_;
  struct sigaction old_[3];
};

absl::Status WriteAll(int fd, absl::string_view contents,
                      const std::string& path) {
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cannot write ", path, ": ",
                       ErrnoText(n < 0 ? errno : ENOSPC)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Follows symlinks (up to 40, as the kernel does), so that writing to a link
// replaces its target and the link stays.
absl::StatusOr<std::string> ResolveLinks(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char buffer[4096];
    ssize_t n = readlink(current.c_str(), buffer, sizeof(buffer) - 1);
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read the link ", current, ": ", ErrnoText(errno)));
    }
    std::string target(buffer, static_cast<size_t>(n));
    if (target.empty() || target[0] != '/') {
      size_t slash = current.rfind('/');
      if (slash != std::string::npos) target = current.substr(0, slash + 1) + target;
    }
    current = target;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot write ", path, ": too many levels of symbolic links"));
}

mode_t CurrentUmask() {
  mode_t mask = umask(0);
  umask(mask);
  return mask;
}

// Reads all of `fd` into `text`, refusing to hold more than `cap` bytes. The
// cap is checked before the buffer grows: a string that doubles would ask
// for twice the cap (and, with freed memory kept in the heap, hold every
// smaller buffer too) before the check ever ran. An input of unknown size
// is gathered in blocks and copied once into a string of its exact size.
absl::Status ReadAll(int fd, int64_t size_hint, int64_t cap, absl::string_view what,
                     const std::string& name, std::string& text) {
  constexpr size_t kBlock = size_t{16} << 20;
  const bool known = size_hint > 0 && size_hint <= cap;
  if (known) text.reserve(static_cast<size_t>(size_hint) + 1);
  std::vector<std::string> blocks;
  int64_t total = 0;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read ", what, " ", name, ": ", ErrnoText(errno)));
    }
    if (n == 0) break;
    if (total + n > cap) {
      return absl::ResourceExhaustedError(absl::StrCat(
          what, " ", name, " is larger than the input limit of ", cap,
          " bytes (raise it with --max-input-bytes)"));
    }
    total += n;
    // A file that grew past its size, like a pipe, falls back to blocks.
    std::string* into = known && total <= size_hint ? &text : nullptr;
    if (into == nullptr) {
      if (blocks.empty() || blocks.back().size() + n > kBlock) {
        blocks.emplace_back();
        blocks.back().reserve(kBlock);
      }
      into = &blocks.back();
    }
    into->append(chunk, static_cast<size_t>(n));
  }
  if (blocks.empty()) return absl::OkStatus();
  std::string whole;
  whole.reserve(static_cast<size_t>(total));
  whole += text;
  for (const std::string& block : blocks) whole += block;
  text = std::move(whole);
  return absl::OkStatus();
}

}  // namespace

int64_t MaxInputBytes() { return max_input_bytes.load(); }
void SetMaxInputBytes(int64_t bytes) { max_input_bytes.store(bytes); }

absl::StatusOr<std::string> ReadFileBounded(const std::string& path,
                                            absl::string_view what) {
  int fd = STDIN_FILENO;
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "<stdin>" : path;
  int64_t size_hint = 0;
  if (!is_stdin) {
    if (path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("the ", what, " name is empty"));
    }
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::NotFoundError(absl::StrCat("cannot open ", what, " ", path,
                                              ": ", ErrnoText(errno)));
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      close(fd);
      return absl::InvalidArgumentError(
          absl::StrCat(what, " ", path, " is a directory"));
    }
    size_hint = S_ISREG(st.st_mode) ? st.st_size : 0;
  }
  std::string text;
  absl::Status status = ReadAll(fd, size_hint, MaxInputBytes(), what, name, text);
  if (!is_stdin) close(fd);
  if (!status.ok()) return status;
  return text;
}

absl::Status WriteFileSafely(const std::string& path,
                             absl::string_view contents) {
  return WriteFileSafely(path, [contents](const ChunkWriter& write) { return write(contents); });
}

absl::Status WriteFileSafely(const std::string& path,
                             const std::function<absl::Status(const ChunkWriter&)>& produce) {
  if (path.empty()) return absl::InvalidArgumentError("the output file name is empty");
  absl::StatusOr<std::string> resolved = ResolveLinks(path);
  if (!resolved.ok()) return resolved.status();
  const std::string& target = *resolved;
  struct stat st;
  const bool exists = stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": it is a directory"));
  }
  if (exists && S_ISSOCK(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": it is a socket"));
  }
  if (exists && !S_ISREG(st.st_mode)) {
    // Devices and FIFOs are written in place: replacing /dev/null with a
    // regular file would break every other user of it.
    int fd = open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot open ", path, ": ", ErrnoText(errno)));
    }
    absl::Status s =
        produce([fd, &path](absl::string_view chunk) { return WriteAll(fd, chunk, path); });
    if (close(fd) != 0 && s.ok()) {
      s = absl::ResourceExhaustedError(
          absl::StrCat("cannot write ", path, ": ", ErrnoText(errno)));
    }
    return s;
  }
  size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "." : target.substr(0, slash);
  if (dir.empty()) dir = "/";
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp = absl::StrCat(dir, "/.", base, ".tmp.XXXXXX");
  PendingFile pending;
  int fd = pending.Create(tmp);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write ", path, ": ", ErrnoText(errno)));
  }
  auto fail = [&](absl::Status s) {
    close(fd);
    unlink(tmp.c_str());
    pending.Clear();
    return s;
  };
  mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~CurrentUmask());
  if (fchmod(fd, mode) != 0) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("cannot set the mode of ", path, ": ", ErrnoText(errno))));
  }
  if (exists && (st.st_uid != geteuid() || st.st_gid != getegid())) {
    (void)!fchown(fd, st.st_uid, st.st_gid);  // Best effort, as editors do.
  }
  absl::Status written =
      produce([fd, &path](absl::string_view chunk) { return WriteAll(fd, chunk, path); });
  if (!written.ok()) return fail(written);
  if (close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    pending.Clear();
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot write ", path, ": ", ErrnoText(err)));
  }
  if (rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    pending.Clear();
    return absl::InvalidArgumentError(
        absl::StrCat("cannot rename into ", path, ": ", ErrnoText(err)));
  }
  pending.Clear();
  return absl::OkStatus();
}

}  // namespace xla_layout
