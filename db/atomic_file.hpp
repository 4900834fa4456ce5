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
// Contract of append_durably: the bytes are appended with O_APPEND (so concurrent appenders do
// not overwrite each other) and fsync'ed before returning, so a tuning run killed with -9 after
// the call loses nothing it was told was saved.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace gemmtune {

// Receives the content in pieces; a producer may call it any number of times.
using ChunkWriter = std::function<void(std::string_view chunk)>;

void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The producer form: tests use it to throw after a partial write and prove the old file stays.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const ChunkWriter&)>& produce);

// Creates `path` with `content` only if it does not exist yet, atomically (temp file + link(2),
// which fails rather than replaces); returns false, changing nothing, when it already exists.
// Two processes starting on one new results file thus agree on who writes its header.
bool create_file_atomically(const std::filesystem::path& path, std::string_view content);

// Appends `content` and fsyncs; creates the file (and fsyncs its directory) if it is missing.
void append_durably(const std::filesystem::path& path, std::string_view content);

// Throws InputError naming `path` when no file could be written there: its directory is missing,
// is not a directory or is not writable, or `path` is a directory. For callers that must know
// before they do work whose result they would then fail to save (a tuning run).
void check_can_write(const std::filesystem::path& path);

}  // namespace gemmtune
