package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/protocol"
)

// Journal is the durable log in front of routing (ingestlog.Log).
type Journal interface {
	Enqueue(payload []byte) (start, end int64, w ingestlog.Waiter)
	End() int64
	Replay(fn func(end int64, payload []byte) error) error
}

// Durable is the ingest path with the log in front: the accepted lines of a
// batch are one record, appended with group commit; they are routed only
// once the record is durable, and the caller answers after that. One record
// per batch (not per line): the framing, the CRC and the hand-off to the
// log's writer are paid once per request, and a batch's lines share its
// detection time, which the record keeps so a replay detects them at the
// same instant.
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

// ErrNotDurable is Accept's error when the log did not take the batch:
// nothing of it was routed, and the caller answers 503.
var ErrNotDurable = errors.New("ingest log write failed")

// Accept validates each line as an observation detected at now (epoch ms),
// appends the valid ones to the log, waits for the fsync and routes them in
// order; reject hears the index and reason of each invalid one.
func (d *Durable) Accept(lines [][]byte, now int64, reject func(i int, err error)) (accepted int, err error) {
	at := latency.Now()
	obs := make([]*protocol.Observation, 0, len(lines))
	keep := make([]int, 0, len(lines)) // indices of the valid lines
	size := 8
	for i, line := range lines {
		o, err := protocol.DecodeObservation(line, now) // copies the line
		if err != nil {
			reject(i, err)
			continue
		}
		o.IngestedAt = at
		obs, keep = append(obs, o), append(keep, i)
		size += binary.MaxVarintLen32 + len(line)
	}
	if len(obs) == 0 {
		return 0, nil
	}
	rec := make([]byte, 8, size)
	binary.LittleEndian.PutUint64(rec, uint64(now))
	for _, i := range keep {
		rec = binary.AppendUvarint(rec, uint64(len(lines[i])))
		rec = append(rec, lines[i]...)
	}
	d.mu.Lock()
	start, _, w := d.log.Enqueue(rec)
	d.inflight[start] = struct{}{}
	d.mu.Unlock()
	werr := w.Wait()
	if werr == nil {
		for _, o := range obs {
			d.router.Route(o)
		}
	}
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
		at := latency.Now()
		for _, line := range lines {
			o, err := protocol.DecodeObservation(line, now)
			if err != nil {
				continue // valid when accepted; a later version may refuse it
			}
			o.IngestedAt, o.Replayed = at, true
			d.router.Route(o)
			observations++
		}
		records++
		return nil
	})
	return records, observations, err
}

// DecodeRecord splits a log record into its detection time and lines.
func DecodeRecord(b []byte) (now int64, lines [][]byte, err error) {
	if len(b) < 8 {
		return 0, nil, errors.New("ingest record: short")
	}
	now = int64(binary.LittleEndian.Uint64(b))
	b = b[8:]
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return 0, nil, errors.New("ingest record: bad line length")
		}
		lines = append(lines, b[k:k+int(n)])
		b = b[k+int(n):]
	}
	return now, lines, nil
}
