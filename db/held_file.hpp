// HeldFile: a file a writer verified (a results file's validators), kept open so that "is this
// still that file?" has a true answer.
//
// A device and inode number alone do not say it: once the file is replaced and its inode freed,
// the file system may give the number to the next file created (ext4 does, after two replacements
// by `db convert --force`), and a file of another environment would pass for the verified one. An
// open descriptor keeps the inode alive, so no other file can have its number while it is held.
#pragma once

#include <filesystem>
#include <optional>

namespace gemmtune {

class HeldFile {
 public:
  // The file `path` names now, opened for reading; nullopt where there is none or it cannot be
  // opened (the caller then verifies the file again before each write).
  static std::optional<HeldFile> open(const std::filesystem::path& path);

  HeldFile(HeldFile&& other) noexcept;
  HeldFile& operator=(HeldFile&& other) noexcept;
  HeldFile(const HeldFile&) = delete;
  HeldFile& operator=(const HeldFile&) = delete;
  ~HeldFile();

  // Open for reading: the content of the verified file, whatever its name now holds.
  int fd() const { return fd_; }
  // Whether `other_fd` is open on this very file (device and inode, which no other file can take
  // while this one is held).
  bool is_open_on(int other_fd) const;

 private:
  explicit HeldFile(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace gemmtune
