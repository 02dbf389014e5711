package ws

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gobwas/ws"
)

// logSink records what the parser delivers and checks the limits.
type logSink struct {
	t      testing.TB
	limit  int64
	events []string
}

func (s *logSink) frameStart() bool { return true }

func (s *logSink) message(op ws.OpCode, p []byte) bool {
	if int64(len(p)) > s.limit {
		s.t.Fatalf("message of %d bytes over limit %d", len(p), s.limit)
	}
	s.events = append(s.events, fmt.Sprintf("msg %d %x", op, p))
	return true
}

func (s *logSink) control(op ws.OpCode, p []byte) bool {
	if len(p) > 125 {
		s.t.Fatalf("control payload of %d bytes", len(p))
	}
	s.events = append(s.events, fmt.Sprintf("ctl %d %x", op, p))
	return true
}

func runParser(t testing.TB, data []byte, chunks []int, limit int64) []string {
	s := &logSink{t: t, limit: limit}
	var p parser
	b := append([]byte(nil), data...)
	i := 0
	for k := 0; len(b) > 0; k++ {
		n := len(b)
		if len(chunks) > 0 {
			n = min(max(chunks[k%len(chunks)], 1), len(b))
		}
		err := p.feed(b[:n], s, limit, limit)
		if p.msg != nil && int64(cap(p.msg.b)) > 4*limit+4096 {
			t.Fatalf("assembly buffer cap %d for limit %d", cap(p.msg.b), limit)
		}
		if err != nil {
			if _, ok := err.(*closeError); !ok {
				t.Fatalf("error of type %T", err)
			}
			s.events = append(s.events, "err "+err.Error())
			break
		}
		b = b[n:]
		i += n
	}
	p.reset()
	return s.events
}

// FuzzParser feeds arbitrary inbound bytes. The parser must not panic, must
// stay within its limits, and must decode the same events whatever the read
// boundaries are.
func FuzzParser(f *testing.F) {
	seeds := [][]byte{
		frame(true, 0, 1, []byte("hello"), true),
		append(frame(false, 0, 1, []byte("he"), true), append(frame(true, 0, 9, []byte("p"), true), frame(true, 0, 0, []byte("llo"), true)...)...),
		frame(true, 0, 2, bytes.Repeat([]byte{7}, 300), true),
		frame(true, 0, 2, bytes.Repeat([]byte{7}, 70000), true),
		frame(true, 0, 8, []byte{3, 232, 'o', 'k'}, true),
		frame(true, 0, 1, []byte{0xff}, true),
		frame(true, 4, 1, nil, true),
		frame(true, 0, 1, []byte("x"), false),
		{0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4},
		{0x81, 0xfe, 0xff, 0xff},
	}
	for i, s := range seeds {
		f.Add(s, []byte{1, 3, 7}[:i%3+1])
	}
	f.Fuzz(func(t *testing.T, data []byte, split []byte) {
		const limit = 4096
		chunks := make([]int, len(split))
		for i, b := range split {
			chunks[i] = int(b)
		}
		whole := runParser(t, data, nil, limit)
		pieces := runParser(t, data, chunks, limit)
		ones := runParser(t, data, []int{1}, limit)
		if fmt.Sprint(whole) != fmt.Sprint(pieces) || fmt.Sprint(whole) != fmt.Sprint(ones) {
			t.Fatalf("read boundaries change the result:\nwhole  %v\npieces %v\nbytes  %v", whole, pieces, ones)
		}
	})
}

func TestParserSplitsAgree(t *testing.T) {
	var in []byte
	in = append(in, frame(false, 0, 1, []byte("frag1-"), true)...)
	in = append(in, frame(true, 0, 9, []byte("ping"), true)...)
	in = append(in, frame(true, 0, 0, []byte("frag2"), true)...)
	in = append(in, frame(true, 0, 2, bytes.Repeat([]byte{1, 2, 3}, 30000), true)...)
	in = append(in, frame(true, 0, 1, []byte("ünï"), true)...)
	in = append(in, frame(true, 0, 8, []byte{3, 232}, true)...)
	in = append(in, frame(true, 0, 1, []byte("after close: ignored"), true)...)
	want := runParser(t, in, nil, 1<<20)
	if len(want) != 5 {
		t.Fatalf("events %d: %v", len(want), want)
	}
	for _, chunks := range [][]int{{1}, {2}, {3, 5}, {13}, {4096}, {7, 1, 200}} {
		if got := runParser(t, in, chunks, 1<<20); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("chunks %v: %v", chunks, got)
		}
	}
}
