package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestHTTPSinkPostsNDJSON(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost {
			t.Errorf("method %s", r.Method)
		}
		if r.URL.Path != IngestPath {
			t.Errorf("path %s", r.URL.Path)
		}
		if got := r.Header.Get("Content-Type"); got != "application/x-ndjson" {
			t.Errorf("content type %q", got)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer tok123" {
			t.Errorf("authorization %q", got)
		}
		body, _ := io.ReadAll(r.Body)
		want := "{\"kind\":\"a\"}\n{\"kind\":\"b\"}\n{\"kind\":\"c\"}\n"
		if string(body) != want {
			t.Errorf("body %q, want %q", body, want)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true,"data":{"accepted":2,"rejected":[{"index":1,"error":"unknown kind \"b\""}]}}`)
	}))
	defer srv.Close()

	s := NewHTTPSink(srv.URL+"/", "tok123")
	var rejected []string
	s.OnReject = func(line []byte, index int, reason string) {
		rejected = append(rejected, string(line)+"|"+reason)
		if index != 1 {
			t.Errorf("reject index %d", index)
		}
	}
	lines := [][]byte{[]byte(`{"kind":"a"}`), []byte(`{"kind":"b"}`), []byte(`{"kind":"c"}`)}
	if err := s.Send(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Requests != 2 || st.Lines != 6 || st.Accepted != 4 || st.Rejected != 2 || st.Errors != 0 {
		t.Errorf("stats %+v", st)
	}
	if len(rejected) != 2 || rejected[0] != `{"kind":"b"}|unknown kind "b"` {
		t.Errorf("rejected %q", rejected)
	}
	if calls.Load() != 2 {
		t.Errorf("calls %d", calls.Load())
	}
}

func TestHTTPSinkErrorOn500(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"ok":false,"error":"store unavailable","code":"server_error"}`)
	}))
	defer srv.Close()
	s := NewHTTPSink(srv.URL, "t")
	err := s.Send(context.Background(), [][]byte{[]byte(`{"kind":"user"}`)})
	if err == nil {
		t.Fatal("no error on 500")
	}
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 {
		t.Fatalf("error %v is not a 500 StatusError", err)
	}
	for _, want := range []string{"500", "store unavailable"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if IsPermanent(err) {
		t.Error("500 reported permanent")
	}
	if calls.Load() != 1 {
		t.Errorf("500 was retried: %d calls", calls.Load())
	}
	if st := s.Stats(); st.Errors != 1 || st.Accepted != 0 || st.LastError == "" {
		t.Errorf("stats %+v", st)
	}
}

func TestHTTPSinkPermanentAndRetry(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer bad":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"ok":false,"error":"bad token","code":"unauthorized"}`)
			return
		}
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, `{"ok":true,"data":{"accepted":1,"rejected":[]}}`)
	}))
	defer srv.Close()

	bad := NewHTTPSink(srv.URL, "bad")
	err := bad.Send(context.Background(), [][]byte{[]byte(`{}`)})
	if !IsPermanent(err) || !strings.Contains(err.Error(), "401") {
		t.Errorf("401 error %v, permanent %v", err, IsPermanent(err))
	}

	good := NewHTTPSink(srv.URL, "good")
	good.RetryWait = time.Millisecond
	if err := good.Send(context.Background(), [][]byte{[]byte(`{}`)}); err != nil {
		t.Fatalf("503 then 200: %v", err)
	}
	if calls.Load() != 2 {
		t.Errorf("calls %d, want 2", calls.Load())
	}
}

func TestHTTPSinkSplitsLargeBatches(t *testing.T) {
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, b)
		n := bytes.Count(b, []byte{'\n'})
		_, _ = io.WriteString(w, `{"ok":true,"data":{"accepted":`+string(rune('0'+n))+`,"rejected":[{"index":0,"error":"x"}]}}`)
	}))
	defer srv.Close()
	s := NewHTTPSink(srv.URL, "t")
	s.MaxBody = 25 // two 11-byte lines (+newline) per request
	var idx []int
	s.OnReject = func(_ []byte, i int, _ string) { idx = append(idx, i) }
	lines := make([][]byte, 5)
	for i := range lines {
		lines[i] = []byte(`{"n":"` + string(rune('0'+i)) + `"}  `)
	}
	if err := s.Send(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	if got := bytes.Join(bodies, nil); !bytes.Equal(got, joinNDJSON(nil, lines)) {
		t.Errorf("bodies %q", got)
	}
	if len(idx) != 3 || idx[0] != 0 || idx[1] != 2 || idx[2] != 4 {
		t.Errorf("reject indices %v, want batch offsets [0 2 4]", idx)
	}
	if st := s.Stats(); st.Lines != 5 || st.Accepted != 5 || st.Rejected != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestWriterSink(t *testing.T) {
	var buf bytes.Buffer
	w := &WriterSink{W: &buf}
	if err := w.Send(context.Background(), [][]byte{[]byte("a"), []byte("b")}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "a\nb\n" || w.Stats().Lines != 2 {
		t.Errorf("wrote %q, stats %+v", buf.String(), w.Stats())
	}
}
