#include "core/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace sonde {
namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("sonde-atomic-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
               "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::filesystem::path folder_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWholeFiles) {
  const auto path = folder_ / "deep" / "result.json";
  write_file_atomically(path, "first");
  EXPECT_EQ(read_file(path), "first");
  write_file_atomically(path, "second, longer content");
  EXPECT_EQ(read_file(path), "second, longer content");
  // No temporary file is left beside it.
  int files = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator(path.parent_path())) {
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST_F(AtomicFileTest, FailureKeepsThePreviousContent) {
  const auto path = folder_ / "result.json";
  write_file_atomically(path, "kept");
  // A folder in the way of the rename: the write must fail and leave the old file alone.
  const auto blocked = folder_ / "blocked";
  std::filesystem::create_directories(blocked / "child");
  EXPECT_THROW(write_file_atomically(blocked, "lost"), Error);
  EXPECT_EQ(read_file(path), "kept");
  EXPECT_TRUE(std::filesystem::is_directory(blocked / "child"));
}

TEST_F(AtomicFileTest, UnwritableFolderIsAClearError) {
  std::filesystem::create_directories(folder_);
  const auto file = folder_ / "a-file";
  write_file_atomically(file, "x");
  // A path below a regular file can never be created, even by root.
  try {
    ensure_writable_folder(file / "results");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a-file"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(ensure_writable_folder(folder_ / "fine"));
  EXPECT_TRUE(std::filesystem::is_empty(folder_ / "fine"));
}

TEST_F(AtomicFileTest, ReadingAMissingFileNamesIt) {
  try {
    read_file(folder_ / "missing.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("missing.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace sonde
