package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestIngest: the ingest API (CONTRACT.md section 3) and the directory it
// feeds.
func TestIngest(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		subtests{
			{"IngestBatches", testIngestBatches},
			{"IngestRefusals", testIngestRefusals},
			{"LookupAndRename", testLookupAndRename},
			{"RenameOrdering", testRenameOrdering},
		}.run(t, s)
	})
}

// userObs is a `user` observation line (CONTRACT.md section 3).
type userObs struct {
	Kind             string   `json:"kind"`
	ID               string   `json:"id"`
	Handle           string   `json:"handle"`
	Name             string   `json:"name"`
	Bio              string   `json:"bio"`
	Avatar           string   `json:"avatar"`
	BannerURL        *string  `json:"banner_url"`
	Location         *string  `json:"location"`
	Website          *string  `json:"website"`
	Followers        int64    `json:"followers"`
	Following        int64    `json:"following"`
	Verified         bool     `json:"verified"`
	VerificationType *string  `json:"verification_type"`
	PinnedPost       []string `json:"pinned_post"`
	Categories       []string `json:"categories"`
	Suspended        bool     `json:"suspended"`
}

var userSeq atomic.Int64

// newUser returns a user observation with a unique id and handle.
func newUser(prefix string) userObs {
	n := userSeq.Add(1)
	blue := "blue"
	return userObs{
		Kind:             "user",
		ID:               fmt.Sprintf("77%d%06d", time.Now().UnixNano()%1e9, n),
		Handle:           fmt.Sprintf("%s_%s%d", prefix, testkit.RandomHex(3), n),
		Name:             "E2E User " + fmt.Sprint(n),
		Bio:              "bio of user " + fmt.Sprint(n) + " \u2728",
		Avatar:           fmt.Sprintf("https://pbs.example.com/u%d.jpg", n),
		Followers:        1000 + n,
		Following:        10 + n,
		Verified:         n%2 == 0,
		VerificationType: &blue,
		PinnedPost:       []string{},
		Categories:       []string{"founders"},
	}
}

func (u userObs) line(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// send ingests observations (each marshalled to one NDJSON line) and
// asserts that all were accepted.
func (s *server) send(t *testing.T, obs ...any) {
	t.Helper()
	wantIngest(t, s.ingest(t, "application/x-ndjson", testkit.NDJSON(t, obs...)), len(obs))
}

// ingest posts a body to the ingest API with the admin token.
func (s *server) ingest(t *testing.T, contentType string, body any) resp {
	t.Helper()
	h := bearer(s.admin)
	if contentType != "" {
		h["Content-Type"] = contentType
	}
	return s.do(t, "POST", "/ingest/v1/observations", h, body)
}

type rejected struct {
	Index int    `json:"index"`
	Error string `json:"error"`
}

// wantIngest asserts the ingest answer: accepted count and rejected indices.
func wantIngest(t *testing.T, r resp, accepted int, rejectedIdx ...int) {
	t.Helper()
	d := r.wantOK(t, 200)
	d.wantKeys(t, "ingest data", "accepted", "rejected")
	if got := d.num(t, "accepted"); got != float64(accepted) {
		t.Errorf("accepted %v, want %d (%s)", got, accepted, r)
	}
	items := d.array(t, "rejected") // an array, never null
	var got []int
	for _, raw := range items {
		o := decodeObj(t, raw, "rejected item")
		o.wantKeys(t, "rejected item", "index", "error")
		if o.str(t, "error") == "" {
			t.Errorf("rejected item %s: empty error", raw)
		}
		var it rejected
		if err := json.Unmarshal(raw, &it); err != nil {
			t.Fatalf("rejected item %s: %v", raw, err)
		}
		got = append(got, it.Index)
	}
	if fmt.Sprint(got) != fmt.Sprint(nilIfEmpty(rejectedIdx)) {
		t.Errorf("rejected indices %v, want %v (%s)", got, rejectedIdx, r)
	}
}

func nilIfEmpty(a []int) []int {
	if len(a) == 0 {
		return nil
	}
	return a
}

// lookup is GET /social/user/{name} with a dt key.
func (s *server) lookup(t *testing.T, key, name string) resp {
	t.Helper()
	return s.do(t, "GET", "/social/user/"+name, bearer(key), nil)
}

// userNow looks a user up once the engine has handled what it accepted
// (Sync): it must be known by then.
func (s *server) userNow(t *testing.T, key, name string) obj {
	t.Helper()
	s.sync(t)
	r := s.lookup(t, key, name)
	if r.status != 200 {
		t.Fatalf("user @%s after Sync: %s", name, r)
	}
	return decodeObj(t, r.body, r.String())
}

// wantUser asserts the spec 2 lookup shape and values of u.
func wantUser(t *testing.T, got obj, u userObs) {
	t.Helper()
	got.wantKeys(t, "user lookup", "userName", "name", "id", "profilePicture", "followers", "following", "isVerified", "description")
	for _, c := range [][2]string{
		{"userName", u.Handle}, {"name", u.Name}, {"id", u.ID}, // the platform's spelling
		{"profilePicture", u.Avatar}, {"description", u.Bio},
	} {
		if v := got.str(t, c[0]); v != c[1] {
			t.Errorf("lookup %s = %q, want %q", c[0], v, c[1])
		}
	}
	if v := got.num(t, "followers"); v != float64(u.Followers) {
		t.Errorf("lookup followers %v, want %d", v, u.Followers)
	}
	if v := got.num(t, "following"); v != float64(u.Following) {
		t.Errorf("lookup following %v, want %d", v, u.Following)
	}
	if v := got.boolean(t, "isVerified"); v != u.Verified {
		t.Errorf("lookup isVerified %v, want %v", v, u.Verified)
	}
}

func testIngestBatches(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	a, b, c, d := newUser("E2E_Ing"), newUser("e2e_ing"), newUser("e2e_ing"), newUser("e2e_ing")
	badID := newUser("e2e_ing")
	badID.ID = "not-a-number"
	noKind := newUser("e2e_ing")
	noKind.Kind = ""

	// NDJSON: indices count non-blank lines only.
	nd := strings.Join([]string{
		a.line(t),                      // 0
		"",                             // blank: no index
		"this is not json",             // 1
		`{"kind":"no_such_kind"}`,      // 2
		"   \t",                        // blank: no index
		b.line(t),                      // 3
		`{"id":"1","handle":"nokind"}`, // 4
		badID.line(t),                  // 5
		`{"kind":"user","handle":"x"}`, // 6: no id
		c.line(t),                      // 7, no trailing newline
	}, "\n")
	wantIngest(t, s.ingest(t, "application/x-ndjson", nd), 3, 1, 2, 4, 5, 6)
	// CRLF line ends and a charset parameter are fine.
	e := newUser("e2e_ing")
	wantIngest(t, s.ingest(t, "application/x-ndjson; charset=utf-8", "\r\n"+e.line(t)+"\r\n\r\n{\r\n"), 1, 1)

	// A JSON array: indices are array positions.
	arr := "[" + strings.Join([]string{
		d.line(t),                  // 0
		`{"kind":"user"}`,          // 1
		`42`,                       // 2
		`{"kind":"post","id":"1"}`, // 3
		`{"kind":"user","id":"5","handle":"bad handle!"}`, // 4
		newUser("e2e_ing").line(t),                        // 5
	}, ",") + "]"
	wantIngest(t, s.ingest(t, "application/json", arr), 2, 1, 2, 3, 4)
	wantIngest(t, s.ingest(t, "application/json", "[]"), 0)
	wantIngest(t, s.ingest(t, "application/x-ndjson", "\n\n"), 0)

	// The ingest limit is 16 MiB, not the public 64 KB.
	f := newUser("e2e_big")
	wantIngest(t, s.ingest(t, "application/x-ndjson", f.line(t)+strings.Repeat("\n", 200*1024)+"bad\n"), 1, 1)

	for _, u := range []userObs{a, b, c, d, e, f} {
		wantUser(t, s.userNow(t, dt.key, strings.ToLower(u.Handle)), u)
	}
	// Lookups are case-insensitive and take an @.
	wantUser(t, s.userNow(t, dt.key, strings.ToUpper(a.Handle)), a)
	wantUser(t, s.userNow(t, dt.key, "@"+a.Handle), a)
	// The rejected lines made no users.
	for _, h := range []string{"nokind", strings.ToLower(badID.Handle), "x"} {
		s.lookup(t, dt.key, h).wantSocialErr(t, 404)
	}
}

func testIngestRefusals(t *testing.T, s *server) {
	u := newUser("e2e_ref").line(t)
	s.ingest(t, "text/plain", u).wantPlain(t, 415)
	s.ingest(t, "", u).wantPlain(t, 415)
	s.ingest(t, "application/x-www-form-urlencoded", u).wantPlain(t, 415)
	s.ingest(t, "application/json", u).wantPlain(t, 400) // an object, not an array
	s.ingest(t, "application/json", `[`+u).wantPlain(t, 400)
	s.ingest(t, "application/json", `"text"`).wantPlain(t, 400)

	// Exactly 16 MiB is taken.
	line := newUser("e2e_16m").line(t) + "\n"
	wantIngest(t, s.ingest(t, "application/x-ndjson", line+strings.Repeat("\n", 16<<20-len(line))), 1)

	// One byte more is refused with 413 on its declared length, before the
	// body is read. The body stalls until the answer is in, so the client
	// is not still writing when the server closes the connection.
	const size = 16<<20 + 1
	release := make(chan struct{})
	req, err := http.NewRequest("POST", s.base+"/ingest/v1/observations", &stallingBody{release: release})
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("Authorization", "Bearer "+s.admin)
	req.Header.Set("Content-Type", "application/x-ndjson")
	hr, err := httpClient.Do(req)
	close(release)
	if err != nil {
		t.Fatalf("POST 16 MiB + 1: %v", err)
	}
	b, _ := io.ReadAll(hr.Body)
	hr.Body.Close()
	resp{method: "POST", path: "/ingest/v1/observations (16 MiB + 1)", status: hr.StatusCode, header: hr.Header, body: b}.wantPlain(t, 413)

	// The server is fine afterwards.
	wantIngest(t, s.ingest(t, "application/x-ndjson", newUser("e2e_ref").line(t)), 1)
}

// stallingBody sends nothing until release is closed, then fails. net/http
// flushes the request headers before it reads a streamed body.
type stallingBody struct{ release chan struct{} }

func (b *stallingBody) Read([]byte) (int, error) {
	select {
	case <-b.release:
		return 0, errors.New("stopped")
	case <-time.After(30 * time.Second):
		return 0, errors.New("no answer to the declared length within 30 s")
	}
}

func testLookupAndRename(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	u := newUser("e2e_ren")
	wantIngest(t, s.ingest(t, "application/x-ndjson", u.line(t)+"\n"), 1)
	wantUser(t, s.userNow(t, dt.key, u.Handle), u)
	s.lookup(t, dt.key, "e2e_never_seen_"+testkit.RandomHex(4)).wantSocialErr(t, 404)
	// Works with X-API-Key too.
	r := s.do(t, "GET", "/social/user/"+u.Handle, hdr{"X-API-Key": dt.key}, nil)
	if r.status != 200 {
		t.Fatalf("%s", r)
	}

	// A profile change of the same handle shows up.
	u2 := u
	u2.Name, u2.Followers, u2.Verified = "Renamed Display", u.Followers+5, !u.Verified
	wantIngest(t, s.ingest(t, "application/json", "["+u2.line(t)+"]"), 1)
	s.afterSync(t, "profile update visible", func() (bool, string) {
		r := s.lookup(t, dt.key, u.Handle)
		return r.status == 200 && decodeObj(t, r.body, "lookup").str(t, "name") == u2.Name, r.String()
	})
	wantUser(t, decodeObj(t, s.lookup(t, dt.key, u.Handle).body, "lookup"), u2)

	// Rename: same id, new handle. The lookup moves.
	u3 := u2
	u3.Handle = "e2e_new_" + testkit.RandomHex(4)
	wantIngest(t, s.ingest(t, "application/x-ndjson", u3.line(t)), 1)
	wantUser(t, s.userNow(t, dt.key, u3.Handle), u3)
	s.lookup(t, dt.key, u.Handle).wantSocialErr(t, 404)
}

// testRenameOrdering: a user renamed twice in quick succession ends under
// the handle of the last observation. Each rename crosses from one handle to
// another, so the two observations are not for the same handle; the later
// one must still win, in the lookup and in the store (see TestAdminRestart).
func testRenameOrdering(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	const n = 40
	type pair struct{ before, after userObs }
	pairs := make([]pair, n)
	var body strings.Builder
	for i := range pairs {
		u := newUser("e2e_ord")
		v := u
		v.Handle, v.Name = "e2e_ord_new_"+testkit.RandomHex(4), "Renamed "+fmt.Sprint(i)
		pairs[i] = pair{u, v}
		body.WriteString(u.line(t) + "\n" + v.line(t) + "\n")
	}
	wantIngest(t, s.ingest(t, "application/x-ndjson", body.String()), 2*n)
	s.sync(t)
	for _, p := range pairs {
		if r := s.lookup(t, dt.key, p.after.Handle); r.status != 200 {
			t.Errorf("user %s renamed @%s -> @%s in one batch: the new handle is not found after Sync (%d): the earlier observation overwrote the later one",
				p.before.ID, p.before.Handle, p.after.Handle, r.status)
		}
	}
	for _, p := range pairs {
		if r := s.lookup(t, dt.key, p.before.Handle); r.status != 404 {
			t.Errorf("old handle @%s after the rename: %s, want 404", p.before.Handle, r)
		}
	}
}
