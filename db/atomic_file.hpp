// Atomic and durable file writes: how every file gemmtune writes survives a crash.
//
// Contract of write_file_atomically: the file at `path` is, at every instant, either entirely
// the old content or entirely the new. The new content goes to a temporary file in the same
// directory (rename is atomic only within one file system), is fsync'ed, renamed over the
// target, and the directory is fsync'ed so the rename itself survives power loss. On any
// failure — including an exception thrown by the producer mid-write — the temporary file is
// removed, the old file is untouched, and the error propagates. The replaced file keeps its
// permission bits.
//
// Contract of rewrite_file_atomically: write_file_atomically's, of content computed from the
// file's own, read and replaced under append_durably's lock, so that no append comes between.
//
// Contract of append_durably: the bytes are appended with O_APPEND (so concurrent appenders do
// not overwrite each other) and fsync'ed before returning, so a tuning run killed with -9 after
// the call loses nothing it was told was saved. Appenders take turns: each holds an exclusive
// flock(2) on the file from before it looks at the file's size until its bytes are fsync'ed, so a
// write that fails part-way is taken back to that size — removing its own bytes and never
// another process's — and the planning form decides from content no one else appends to
// meanwhile; one that waits more than 30 s for the lock gives up with an InputError naming the
// file. The lock is advisory: it orders gemmtune's appenders, not other programs. Where the
// file system has no locks (Lustre mounted without flock), appends go ahead unlocked, and a failed
// one is taken back only when nothing but its own bytes follow the size it saw.
//
// A `path` that is a symbolic link is written through: the file it points to is replaced (its
// temporary file beside it), never the link, so that writers using either name keep sharing one
// file; where it points to no file yet, that file is created, as open(2) with O_CREAT does.
//
// Loops that start over because another writer replaced or created the file meanwhile give up
// after kMaxWriteAttempts turns with an InputError naming the file, so that a path on which no
// turn can succeed never spins forever. Each turn follows another writer's change, and writers
// take turns under the file's lock: a writer sees at most one turn per other writer, so the
// bound is met only where more than kMaxWriteAttempts processes replace one file at once.
//
// Errors name the file the caller gave, with the temporary file in brackets where the call
// failed on that.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "db/held_file.hpp"

namespace gemmtune {

// How many times a loop that starts over where another writer changed the file goes round before
// it gives up (see above).
inline constexpr int kMaxWriteAttempts = 100;

// Receives the content in pieces; a producer may call it any number of times.
using ChunkWriter = std::function<void(std::string_view chunk)>;

void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The producer form: tests use it to throw after a partial write and prove the old file stays.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const ChunkWriter&)>& produce);

// For files that must be built whole under another name first (a SQLite database): a fresh name
// beside `path` (".NAME.tmp.PID.N", so on the same file system), and the rename over `path`,
// made durable as write_file_atomically's is. It first removes what earlier writers of `path`
// killed before their rename left there: temporary files of a process that no longer runs on this
// machine, untouched for an hour (so never a writer's on another machine sharing the directory).
std::filesystem::path temporary_path_for(const std::filesystem::path& path);
// The file a path names once its symbolic links are followed, also where the last one points to
// no file yet (the name a new file is created under); `path` itself when it is no link, or for a
// loop of links (whose open then fails with ELOOP): where a replacement or a new file must go.
std::filesystem::path through_links(const std::filesystem::path& path);
void rename_durably(const std::filesystem::path& from, const std::filesystem::path& to);

// Which file a path names (device and inode), to tell later whether it is still that file;
// nullopt when nothing is there. Only while that file is kept open (a SQLite connection's): once
// it is gone, a new file may get its numbers (HeldFile).
struct FileIdentity {
  std::uint64_t device = 0, inode = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};
std::optional<FileIdentity> identity_of(const std::filesystem::path& path);

// append_durably's, of whole lines, but only to the file `held` is open on: false, writing
// nothing, where `path` now names another file or none (replaced by `db convert --force`, moved
// away), so that the caller checks the new one's header before it adds to it. Where the file's
// last line lacks its newline (another program appended it), one is written first, under the
// lock, so that neither line is lost.
bool append_lines_if_same(const std::filesystem::path& path, std::string_view lines,
                          const HeldFile& held);

// Creates `path` with `content` only if it does not exist yet, atomically (temp file + link(2),
// which fails rather than replaces); returns false, changing nothing, when it already exists.
// Two processes starting on one new results file thus agree on who writes its header. A `path`
// that is a symbolic link to no file yet creates that file (through_links); one whose links lead
// nowhere a file can be created is an InputError naming it. On a file system without hard links
// (vfat, exFAT, FUSE mounts of object stores) renameat2(RENAME_NOREPLACE) places the temp file;
// without that too, `path` is created with O_EXCL and written under the append lock: still never
// replacing another writer's file (one that appended to or replaced the new, empty file first
// keeps it, and this returns false), but seen half written by a reader that comes meanwhile, and
// left so by a writer killed mid-write (a failed write empties the file instead).
bool create_file_atomically(const std::filesystem::path& path, std::string_view content);

// For refusals of a file that exists: " (it is empty: ...)" where `path` is an empty regular file,
// which a creation that failed or was killed on a file system without hard links leaves (see
// create_file_atomically); "" otherwise.
std::string empty_file_hint(const std::filesystem::path& path);

// The lock append_durably takes, on a file open on `fd` (its path for messages), for other files
// read and rewritten under flock(2): waits up to 30 s for the process that holds it (then
// InputError naming the file); false where the file system has no locks.
bool lock_for_append(int fd, const std::filesystem::path& path);
// Whether `path` still names the file open on `fd`: one that was replaced or removed while this
// process waited for its lock must be opened again.
bool still_named(int fd, const std::filesystem::path& path);

// Appends `content` and fsyncs; creates the file (and fsyncs its directory) if it is missing.
void append_durably(const std::filesystem::path& path, std::string_view content);

// What to write, decided by append_durably's planner from the file as it stands.
struct AppendPlan {
  std::string append;                       // bytes to append (none: leave the file as it is)
  std::optional<std::string> replace_with;  // or: the whole new content, written atomically
};

// The planning form: `plan` receives the file's whole content (a missing file is created empty),
// read while this call holds the append lock, so nothing another appender writes can come between
// what it saw and what it writes. An exception from `plan` propagates and writes nothing. A
// replacement goes through write_file_atomically; appenders that were waiting on the replaced file
// find the new one. Two processes that both find a file empty thus write one header between them.
// `plan` must not write to `path` itself: it would wait for the lock its caller holds.
void append_durably(const std::filesystem::path& path,
                    const std::function<AppendPlan(std::string_view content)>& plan);

// Replaces the file at `path` with what `rewrite` makes of its content, so that nothing appended
// to it is lost (db merge into its output, gathering into copies others append to): `rewrite`
// receives the content (nullopt: no file there) read while this call holds the append lock, and
// the file is replaced (write_file_atomically) before the lock is let go, so no appender writes
// between the read and the rename; appenders that were waiting append to the new file. A missing
// file is created only if it is still missing (create_file_atomically); where another writer
// created it meanwhile, `rewrite` is called again with what that one wrote — so it must have no
// effect but its result. It returns nullopt to leave the file as it is (or missing). An exception
// from it propagates and writes nothing. As append_durably's planner, it must not write to `path`.
void rewrite_file_atomically(
    const std::filesystem::path& path,
    const std::function<std::optional<std::string>(std::optional<std::string_view> content)>&
        rewrite);

// Throws InputError naming `path` when no file could be written there: its directory is missing,
// is not a directory or is not writable, or `path` is a directory. For callers that must know
// before they do work whose result they would then fail to save (a tuning run).
void check_can_write(const std::filesystem::path& path);

// Throws InputError "<label>: no such file" (or "is a directory, not a file") unless `path` is a
// regular file: for a results file to be read, which opening as a database would create, empty.
void require_regular_file(std::string_view label, const std::filesystem::path& path);

}  // namespace gemmtune
