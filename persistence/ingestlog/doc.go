// Package ingestlog is the durable ingest log: an append-only sequence of
// records in segment files under one directory, written with group commit
// (every record appended while an fsync runs shares the next one) and read
// back from a checkpoint at start.
//
// # Files
//
// Segments are named after the log position of their first byte
// (00000000000000000000.seg, zero-padded so names sort by position); a
// segment rolls once it reaches Options.SegmentBytes. A position is a byte
// offset in the whole log, so it orders records across segments. Each record
// is framed as
//
//	uint32 payload length | uint32 CRC-32C of the payload | payload
//
// little-endian. Open scans the last segment and truncates a torn tail (a
// short header, a short payload or a CRC mismatch: what a crash in the
// middle of a write leaves), so the next append starts on a record
// boundary. The checkpoint, the position below which every record's effects
// are in the store, is a small file beside the segments (checkpoint),
// replaced atomically (write, fsync, rename, fsync the directory); whole
// segments below it are deleted.
//
// # Why hand-written
//
// The libraries that fit (tidwall/wal, hashicorp/raft-wal, rosedblabs/wal)
// were compared. tidwall/wal fsyncs per Write or not at all (NoSync) and
// leaves joining concurrent writers into one fsync to the caller, so the
// group commit would be written here anyway, around a lock the library
// takes per write; raft-wal is built around raft's log index and its
// metadata database; rosedblabs/wal has the segments and CRC framing but
// also syncs per write or on a byte threshold, not per group. What is left
// once the group commit is ours is a few hundred lines of framing, rolling
// and truncation that the tests and the fuzz target (FuzzDecode) cover, so
// the log depends on nothing.
//
// # Concurrency
//
// Append may be called from any goroutine; one goroutine owned by the Log
// (started by Open, stopped by Close) writes and fsyncs. mu guards the
// pending group and the closed flag; the writer goroutine alone touches the
// files while running, and never under mu (no lock across I/O).
package ingestlog
