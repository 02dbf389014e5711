package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/valyala/fasthttp"
)

// The HTTP ingest with the log in front: the batch is in the log when the
// answer comes, a second start replays its accepted lines (not the rejected
// one) in order with their detection time, and a checkpoint at the routed
// position replays nothing.
func TestDurableIngestAndReplay(t *testing.T) {
	dir := t.TempDir()
	log := openLog(t, dir)
	rt, d, h := durableRoute(t, log)
	// A JSON array whose elements span lines: records keep lines by length.
	body := "[{\"kind\":\"user\",\n \"id\":\"1\",\"handle\":\"whale\"}, {\"kind\":\"nope\"}, {\"kind\":\"user\",\"id\":\"2\",\"handle\":\"orca\"}]"
	r := postObservations(h, "application/json", body)
	if r.StatusCode() != 200 || !strings.Contains(string(r.Body()), `"accepted":2`) || len(rt.routed) != 2 {
		t.Fatalf("ingest: %d %s, %d routed", r.StatusCode(), r.Body(), len(rt.routed))
	}
	if d.Routed() != log.End() {
		t.Fatalf("routed %d, log end %d", d.Routed(), log.End())
	}
	first := rt.routed
	log.Close()

	log = openLog(t, dir)
	again := &router{}
	d = NewDurable(again, log)
	recs, obs, err := d.Replay()
	if err != nil || recs != 1 || obs != 2 {
		t.Fatalf("replay: %d records, %d observations, %v", recs, obs, err)
	}
	for i, o := range again.routed {
		if o.Key != first[i].Key || o.DetectedAt != first[i].DetectedAt || string(o.Raw) != string(first[i].Raw) {
			t.Fatalf("replayed %d: %s at %d, want %s at %d", i, o.Key, o.DetectedAt, first[i].Key, first[i].DetectedAt)
		}
	}
	if err := log.SetCheckpoint(d.Routed()); err != nil {
		t.Fatal(err)
	}
	log.Close()
	log = openLog(t, dir)
	defer log.Close()
	if recs, _, err := NewDurable(&router{}, log).Replay(); err != nil || recs != 0 {
		t.Fatalf("replay after the checkpoint: %d records, %v", recs, err)
	}
}

// An NDJSON body is its own record: it is logged before its lines are
// decoded, so its invalid line is in the log too, and a replay skips it the
// way the answer rejected it: the same observations, in order, at the same
// detection time.
func TestDurableNDJSONReplaysWhatWasAccepted(t *testing.T) {
	dir := t.TempDir()
	log := openLog(t, dir)
	rt, d, h := durableRoute(t, log)
	body := "{\"kind\":\"user\",\"id\":\"1\",\"handle\":\"whale\"}\r\n\n{\"kind\":\"nope\"}\n{\"kind\":\"user\",\"id\":\"2\",\"handle\":\"orca\"}"
	r := postObservations(h, "application/x-ndjson", body)
	if r.StatusCode() != 200 || !strings.Contains(string(r.Body()), `"accepted":2,"rejected":[{"index":1,`) || len(rt.routed) != 2 {
		t.Fatalf("ingest: %d %s, %d routed", r.StatusCode(), r.Body(), len(rt.routed))
	}
	// A batch of invalid lines alone routes nothing.
	r = postObservations(h, "application/x-ndjson", "{\"kind\":\"nope\"}")
	if r.StatusCode() != 200 || !strings.Contains(string(r.Body()), `"accepted":0`) || len(rt.routed) != 2 {
		t.Fatalf("invalid batch: %d %s, %d routed", r.StatusCode(), r.Body(), len(rt.routed))
	}
	if d.Routed() != log.End() {
		t.Fatalf("routed %d, log end %d", d.Routed(), log.End())
	}
	first := rt.routed
	log.Close()

	log = openLog(t, dir)
	defer log.Close()
	again := &router{}
	recs, obs, err := NewDurable(again, log).Replay()
	if err != nil || recs != 2 || obs != 2 {
		t.Fatalf("replay: %d records, %d observations, %v", recs, obs, err)
	}
	for i, o := range again.routed {
		if !o.Replayed || o.Key != first[i].Key || o.DetectedAt != first[i].DetectedAt || string(o.Raw) != string(first[i].Raw) {
			t.Fatalf("replayed %d: %s at %d, want %s at %d", i, o.Key, o.DetectedAt, first[i].Key, first[i].DetectedAt)
		}
	}
}

// A log that does not take the batch: 503, nothing routed.
func TestDurableWriteFailureAnswers503(t *testing.T) {
	log := openLog(t, t.TempDir())
	log.Close() // appends now fail with ErrClosed
	rt := &router{}
	d := NewDurable(rt, log)
	if _, err := d.Accept([][]byte{[]byte(`{"kind":"user","id":"1","handle":"whale"}`)}, 1, func(int, error) {}); !errors.Is(err, ErrNotDurable) {
		t.Fatalf("accept on a closed log: %v", err)
	}
	e := httpkittest.New(t, nil)
	h := httpkittest.Router(Routes(e.Kit, Deps{Router: rt, Durable: d}))
	r := postObservations(h, "application/x-ndjson", `{"kind":"user","id":"1","handle":"whale"}`)
	if r.StatusCode() != 503 || len(rt.routed) != 0 {
		t.Fatalf("closed log: %d %s, %d routed", r.StatusCode(), r.Body(), len(rt.routed))
	}
}

// FuzzDecodeRecord: a record's payload (CRC-checked, but written by an
// older or newer version) decodes or errs, never panics, and lines stay
// within it.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(recordLines, 1, []byte("\x03abc")))
	f.Add(encodeRecord(recordLines, 1, []byte("\xff\xff\xff\xff\x0f")))
	f.Add(encodeRecord(recordNDJSON, 1, []byte("{}\n \n{\"a\":1}\r\n")))
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x0f"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, lines, err := DecodeRecord(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to the same lines.
		var raw []byte
		for _, l := range lines {
			raw = binary.AppendUvarint(raw, uint64(len(l)))
			raw = append(raw, l...)
		}
		_, again, err := DecodeRecord(encodeRecord(recordLines, 1, raw))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(lines) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// openLog opens the ingest log in dir with small segments.
func openLog(t *testing.T, dir string) *ingestlog.Log {
	t.Helper()
	log, err := ingestlog.Open(dir, ingestlog.Options{SegmentBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// durableRoute is the ingest route on a Durable over log that routes into
// the returned router.
func durableRoute(t *testing.T, log *ingestlog.Log) (*router, *Durable, fasthttp.RequestHandler) {
	t.Helper()
	rt := &router{}
	d := NewDurable(rt, log)
	e := httpkittest.New(t, nil)
	return rt, d, httpkittest.Router(Routes(e.Kit, Deps{Router: rt, Durable: d}))
}

// postObservations sends body to the ingest route as the admin.
func postObservations(h fasthttp.RequestHandler, contentType, body string) *fasthttp.Response {
	return httpkittest.Do(h, httpkittest.Request{Method: "POST", URI: "/ingest/v1/observations",
		Headers: map[string]string{"Authorization": "Bearer adm", "Content-Type": contentType}, Body: body})
}
