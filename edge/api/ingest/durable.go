package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/internal/stageclock"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/protocol"
	"github.com/klauspost/compress/s2"
)

// Journal is the durable log in front of routing (ingestlog.Log).
type Journal interface {
	Enqueue(payload []byte) (start, end int64, w ingestlog.Waiter)
	End() int64
	Replay(fn func(end int64, payload []byte) error) error
}

// Durable is the ingest path with the log in front: a batch's lines are one
// record, appended with group commit, and the caller answers once it is
// durable ("accepted means durable"). The lines are routed as soon as the
// log has taken the record, while its fsync runs: delivery does not wait
// for the disk (the fsync was most of a post's time to its first socket,
// bench/results/fanout-regress-2026-11-25-notes.md). If the fsync then
// fails the caller answers 503 for lines already delivered; the sender's
// retry is idempotent where it matters (a post seen again is not new). A
// record the log refused outright (closed or failed) routes nothing, and
// the checkpoint never passes a record still in flight (Routed).
//
// One record per batch (not per line): the framing, the CRC and the
// hand-off to the log's writer are paid once per request, and a batch's
// lines share its detection time, which the record keeps so a replay
// detects them at the same instant.
//
// The record holds the batch as received, invalid lines included, so it can
// be appended before the lines are decoded: the decode runs while the
// group's fsync does, instead of before it. A replay decodes with the same
// detection time and skips the same invalid lines.
//
// Routed tells the checkpoint how far every record has reached the router.
// mu guards inflight (memory only; it is taken around Enqueue, which only
// appends to the log's buffer, never across the fsync).
type Durable struct {
	router Ingester
	log    Journal

	mu       sync.Mutex
	inflight map[int64]struct{} // starts of records appended, not yet routed
}

// NewDurable puts log in front of router.
func NewDurable(router Ingester, log Journal) *Durable {
	return &Durable{router: router, log: log, inflight: map[int64]struct{}{}}
}

// ErrNotDurable is Accept's error when the log did not take the batch or
// could not make it durable: the caller answers 503 (lines of a record the
// log took were routed already; see Durable).
var ErrNotDurable = errors.New("ingest log write failed")

// Accept validates each line as an observation detected at now (epoch ms),
// appends the batch to the log, routes the valid lines in order, waits for
// the fsync and returns how many it routed; reject hears the index and reason
// of each invalid one.
func (d *Durable) Accept(lines [][]byte, now int64, reject func(i int, err error)) (accepted int, err error) {
	size := 0
	for _, l := range lines {
		size += binary.MaxVarintLen32 + len(l)
	}
	raw := make([]byte, 0, size)
	for _, l := range lines {
		raw = binary.AppendUvarint(raw, uint64(len(l)))
		raw = append(raw, l...)
	}
	return d.accept(recordLines, now, raw, lines, reject)
}

// AcceptNDJSON is Accept of an NDJSON body: the record is the body itself
// (compressed), without first copying its lines into the record's framing.
func (d *Durable) AcceptNDJSON(body []byte, now int64, reject func(i int, err error)) (accepted int, err error) {
	return d.accept(recordNDJSON, now, body, protocol.SplitNDJSON(body), reject)
}

func (d *Durable) accept(format byte, now int64, raw []byte, lines [][]byte, reject func(i int, err error)) (int, error) {
	if len(lines) == 0 {
		return 0, nil
	}
	at := latency.Now() // the delivery latency's clock starts here
	rec := encodeRecord(format, now, raw)
	d.mu.Lock()
	start, end, w := d.log.Enqueue(rec) // copies rec
	d.inflight[start] = struct{}{}
	d.mu.Unlock()
	putRecord(rec)
	stageclock.Mark(at, stageclock.Logged)
	obs, _ := decode(lines, now, at, reject) // while the fsync runs
	stageclock.Mark(at, stageclock.Decoded)
	// The log took the record (a refused one has no length): route now,
	// while the fsync runs.
	if end > start {
		for _, o := range obs {
			d.router.Route(o)
			stageclock.Mark(at, stageclock.Routed)
		}
	}
	werr := w.Wait()
	d.mu.Lock()
	delete(d.inflight, start)
	d.mu.Unlock()
	if werr != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotDurable, werr)
	}
	return len(obs), nil
}

// Routed is the log position below which every record has been routed (or
// failed to be written, and then nothing was routed past it).
func (d *Durable) Routed() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	pos := d.log.End()
	for s := range d.inflight {
		pos = min(pos, s)
	}
	return pos
}

// Replay routes every record above the log's checkpoint through the ingest
// path, as it was accepted (same lines, same detection time). The engine
// runs it before the listener accepts.
func (d *Durable) Replay() (records, observations int, err error) {
	err = d.log.Replay(func(_ int64, payload []byte) error {
		now, lines, err := DecodeRecord(payload)
		if err != nil {
			return err
		}
		// The invalid lines were refused when accepted (and a later
		// version may refuse more): they are skipped.
		obs, _ := decode(lines, now, latency.Now(), func(int, error) {})
		for _, o := range obs {
			o.Replayed = true
			d.router.Route(o)
		}
		observations += len(obs)
		records++
		return nil
	})
	return records, observations, err
}

// A record is a format byte, the detection time (8 bytes, little-endian)
// and the batch, compressed with S2 (klauspost/compress, already in the
// build through fasthttp). Compressed because the fsync'd bandwidth is what
// bounds durable ingest: observations are about 1 KiB of JSON each, and S2
// takes them to a third or less at a small CPU cost
// (bench/results/rest-ingest-durable-2026-11-24.md). The batch is either
// its lines, each a uvarint length and the bytes (recordLines: any source,
// a JSON array's elements may span lines), or an NDJSON body as received
// (recordNDJSON), split again at replay.
const (
	recordLines  = 1
	recordNDJSON = 2
)

// records recycles record buffers: one is about 1.2 MiB for a 500-line
// request, and Enqueue copies it, so it is free again at once.
var records sync.Pool

func encodeRecord(format byte, now int64, batch []byte) []byte {
	need := 9 + s2.MaxEncodedLen(len(batch))
	var rec []byte
	if p, _ := records.Get().(*[]byte); p != nil && cap(*p) >= need {
		rec = (*p)[:9]
	} else {
		rec = make([]byte, 9, need)
	}
	rec[0] = format
	binary.LittleEndian.PutUint64(rec[1:], uint64(now))
	enc := s2.Encode(rec[9:need], batch)
	return rec[:9+len(enc)]
}

func putRecord(rec []byte) {
	if cap(rec) <= 2*(9+s2.MaxEncodedLen(protocol.MaxIngestBodyBytes)) {
		records.Put(&rec)
	}
}

// DecodeRecord splits a log record into its detection time and lines.
func DecodeRecord(b []byte) (now int64, lines [][]byte, err error) {
	if len(b) < 9 || (b[0] != recordLines && b[0] != recordNDJSON) {
		return 0, nil, errors.New("ingest record: short or unknown format")
	}
	now = int64(binary.LittleEndian.Uint64(b[1:]))
	n, err := s2.DecodedLen(b[9:])
	if err != nil || n > protocol.MaxIngestBodyBytes*2 {
		return 0, nil, errors.New("ingest record: bad compressed block")
	}
	raw, err := s2.Decode(nil, b[9:])
	if err != nil {
		return 0, nil, fmt.Errorf("ingest record: %w", err)
	}
	if b[0] == recordNDJSON {
		return now, protocol.SplitNDJSON(raw), nil
	}
	for len(raw) > 0 {
		n, k := binary.Uvarint(raw)
		if k <= 0 || n > uint64(len(raw)-k) {
			return 0, nil, errors.New("ingest record: bad line length")
		}
		lines = append(lines, raw[k:k+int(n)])
		raw = raw[k+int(n):]
	}
	return now, lines, nil
}
