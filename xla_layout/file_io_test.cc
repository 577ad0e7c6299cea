#include "xla_layout/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla_layout {
namespace {

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/file_io.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  std::string Path(const std::string& name) { return dir_ + "/" + name; }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<std::string> Entries() {
    std::vector<std::string> names;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
    return names;
  }
  std::string dir_;
};

TEST_F(FileIoTest, NewFileGetsUmaskModeAndNoTemporaryRemains) {
  mode_t old = umask(022);
  ASSERT_TRUE(WriteFileSafely(Path("out"), "hello").ok());
  umask(old);
  EXPECT_EQ(Read(Path("out")), "hello");
  struct stat st;
  ASSERT_EQ(stat(Path("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(Entries(), std::vector<std::string>{"out"});
}

// Output made in pieces lands whole; a piece that fails leaves the old file
// as it was and no temporary behind.
TEST_F(FileIoTest, ChunkedOutputIsAllOrNothing) {
  const std::string out = Path("out.hlo");
  ASSERT_TRUE(WriteFileSafely(out, "old\n").ok());
  absl::Status s = WriteFileSafely(out, [](const ChunkWriter& write) {
    for (const char* piece : {"one ", "two ", "three\n"}) {
      absl::Status w = write(piece);
      if (!w.ok()) return w;
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(Read(out), "one two three\n");
  s = WriteFileSafely(out, [](const ChunkWriter& write) {
    absl::Status w = write("half of it");
    if (!w.ok()) return w;
    return absl::DataLossError("the producer failed");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Read(out), "one two three\n");
  EXPECT_EQ(Entries(), std::vector<std::string>{"out.hlo"});
}

TEST_F(FileIoTest, ExistingFileKeepsItsMode) {
  { std::ofstream(Path("secret")) << "old"; }
  ASSERT_EQ(chmod(Path("secret").c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileSafely(Path("secret"), "new").ok());
  struct stat st;
  ASSERT_EQ(stat(Path("secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(Read(Path("secret")), "new");
}

TEST_F(FileIoTest, SymlinkIsWrittenThroughAndStaysALink) {
  { std::ofstream(Path("real")) << "old"; }
  ASSERT_EQ(symlink("real", Path("link").c_str()), 0);
  ASSERT_TRUE(WriteFileSafely(Path("link"), "new").ok());
  struct stat st;
  ASSERT_EQ(lstat(Path("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Read(Path("real")), "new");
}

TEST_F(FileIoTest, DanglingSymlinkCreatesItsTarget) {
  ASSERT_EQ(symlink("made", Path("link").c_str()), 0);
  ASSERT_TRUE(WriteFileSafely(Path("link"), "x").ok());
  EXPECT_EQ(Read(Path("made")), "x");
}

TEST_F(FileIoTest, PlantedLinkAtTheOldTemporaryNameIsNotFollowed) {
  // Earlier versions wrote OUT.tmp.<pid> without O_EXCL.
  { std::ofstream(Path("victim")) << "keep"; }
  std::string planted = Path("out.tmp." + std::to_string(getpid()));
  ASSERT_EQ(symlink(Path("victim").c_str(), planted.c_str()), 0);
  ASSERT_TRUE(WriteFileSafely(Path("out"), "data").ok());
  EXPECT_EQ(Read(Path("victim")), "keep");
  EXPECT_EQ(Read(Path("out")), "data");
}

TEST_F(FileIoTest, FifoIsWrittenInPlace) {
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(Path("fifo"));
    std::stringstream s;
    s << in.rdbuf();
    got = s.str();
  });
  absl::Status s = WriteFileSafely(Path("fifo"), "through the pipe");
  reader.join();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(got, "through the pipe");
  struct stat st;
  ASSERT_EQ(lstat(Path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(FileIoTest, DeviceIsWrittenInPlaceAndWriteErrorsAreErrors) {
  EXPECT_TRUE(WriteFileSafely("/dev/null", "x").ok());
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  if (access("/dev/full", W_OK) == 0) {
    absl::Status s = WriteFileSafely("/dev/full", "x");
    EXPECT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("No space left"), std::string::npos) << s;
  }
}

TEST_F(FileIoTest, RefusesEmptyNamesDirectoriesAndMissingFolders) {
  EXPECT_FALSE(WriteFileSafely("", "x").ok());
  absl::Status dir = WriteFileSafely(dir_, "x");
  EXPECT_NE(std::string(dir.message()).find("is a directory"), std::string::npos) << dir;
  EXPECT_FALSE(WriteFileSafely(Path("no/such/out"), "x").ok());
  EXPECT_TRUE(Entries().empty());
}

TEST_F(FileIoTest, ReadIsBoundedAndNamesDirectories) {
  { std::ofstream(Path("in")) << std::string(1000, 'a'); }
  SetMaxInputBytes(999);
  absl::StatusOr<std::string> big = ReadFileBounded(Path("in"), "HLO file");
  SetMaxInputBytes(kDefaultMaxInputBytes);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(std::string(big.status().message()).find("input limit of 999 bytes"),
            std::string::npos) << big.status();
  absl::StatusOr<std::string> ok = ReadFileBounded(Path("in"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 1000u);
  absl::StatusOr<std::string> dir = ReadFileBounded(dir_, "target file");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(std::string(dir.status().message()).find("is a directory"), std::string::npos);
}

TEST_F(FileIoTest, EndlessInputStopsAtTheCap) {
  SetMaxInputBytes(1 << 20);
  absl::StatusOr<std::string> zero = ReadFileBounded("/dev/zero");
  SetMaxInputBytes(kDefaultMaxInputBytes);
  EXPECT_FALSE(zero.ok());
}

// Two threads writing at once: each file lands whole, no temporary is left,
// and the signal dispositions are the ones from before (a writer never
// restores the other's cleanup handler as the process's own).
TEST_F(FileIoTest, ConcurrentWritersTakeTurns) {
  struct sigaction before;
  ASSERT_EQ(sigaction(SIGINT, nullptr, &before), 0);
  auto writer = [this](const std::string& name) {
    for (int k = 0; k < 300; ++k) {
      ASSERT_TRUE(WriteFileSafely(Path(name), [&](const ChunkWriter& write) {
                    std::this_thread::yield();
                    return write(name + std::to_string(k));
                  }).ok());
    }
  };
  std::thread a(writer, "a"), b(writer, "b");
  a.join();
  b.join();
  EXPECT_EQ(Read(Path("a")), "a299");
  EXPECT_EQ(Read(Path("b")), "b299");
  std::vector<std::string> names = Entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
  struct sigaction after;
  ASSERT_EQ(sigaction(SIGINT, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace xla_layout
