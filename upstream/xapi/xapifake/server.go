// Package xapifake is a local stand-in for the platform's API v2, for the
// connector's tests, `alertd connector-demo x` and the bench. It speaks the
// documented formats (docs.x.com): the filtered stream with its rules
// endpoint, keep-alive newlines and expansions; user lookup by username and
// by id; following lists with pagination; bearer auth; x-rate-limit-*
// headers with 429s once a window's budget is spent. Nothing is invented
// beyond what the documentation shows.
//
// Server state (users, posts, rules, streams, budgets, the call log) is
// guarded by Server.mu, never held while writing to a connection.
package xapifake

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
	"github.com/jonboulle/clockwork"
)

// Endpoint names, as Calls and SetBudget take them.
const (
	EpRules     = "rules"
	EpStream    = "stream"
	EpUsersBy   = "users_by"
	EpUsers     = "users"
	EpFollowing = "following"
)

// DefaultBudgets are the app-auth requests per 15-minute window the API
// reference lists for each endpoint (Pro plan).
var DefaultBudgets = map[string]int{EpRules: 450, EpStream: 50, EpUsersBy: 300, EpUsers: 300, EpFollowing: 15}

// Window is the rate-limit window.
const Window = 15 * time.Minute

// Options configure a Server; zero fields take the defaults.
type Options struct {
	Token      string          // the bearer token it accepts ("test-token")
	Clock      clockwork.Clock // for rate-limit windows and timestamps
	KeepAlive  time.Duration   // keep-alive interval of the stream (20 s); negative: none
	MaxRules   int             // 1000
	MaxRuleLen int             // 1024
	Budgets    map[string]int  // DefaultBudgets
}

// Call is one request the fake answered.
type Call struct {
	Endpoint string
	Path     string // with query
	At       time.Time
	Status   int
}

type budget struct {
	limit, remaining int
	reset            time.Time
}

// Server is the fake API.
type Server struct {
	opts Options
	ts   *httptest.Server

	mu        sync.Mutex
	users     map[string]*User // by id
	byName    map[string]string
	posts     map[string]*Post
	media     map[string]Media
	rules     []Rule
	nextRule  int64
	streams   map[*stream]struct{}
	streamsCh chan struct{} // closed and replaced when streams change
	budgets   map[string]*budget
	calls     []Call
	failures  map[string][]int // endpoint -> statuses the next calls get
}

type stream struct {
	lines chan []byte
	drop  chan struct{}
	once  sync.Once
}

// New returns a server; Start or Handler serve it.
func New(opts Options) *Server {
	if opts.Token == "" {
		opts.Token = "test-token"
	}
	if opts.Clock == nil {
		opts.Clock = clockwork.NewRealClock()
	}
	if opts.KeepAlive == 0 {
		opts.KeepAlive = 20 * time.Second
	}
	if opts.MaxRules <= 0 {
		opts.MaxRules = 1000
	}
	if opts.MaxRuleLen <= 0 {
		opts.MaxRuleLen = 1024
	}
	b := map[string]int{}
	for k, v := range DefaultBudgets {
		b[k] = v
	}
	for k, v := range opts.Budgets {
		b[k] = v
	}
	opts.Budgets = b
	return &Server{opts: opts, users: map[string]*User{}, byName: map[string]string{}, posts: map[string]*Post{},
		media: map[string]Media{}, nextRule: 1860000000000000000, streams: map[*stream]struct{}{},
		streamsCh: make(chan struct{}), budgets: map[string]*budget{}, failures: map[string][]int{}}
}

// Start serves on a loopback port and returns the base URL.
func (s *Server) Start() string {
	s.ts = httptest.NewServer(s.Handler())
	return s.ts.URL
}

// Close drops the streams and stops the listener.
func (s *Server) Close() {
	s.Drop()
	if s.ts != nil {
		s.ts.Close()
	}
}

// Token is the bearer token the server accepts.
func (s *Server) Token() string { return s.opts.Token }

// Handler routes the documented paths.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2/tweets/search/stream", s.serveStream)
	mux.HandleFunc("GET /2/tweets/search/stream/rules", s.getRules)
	mux.HandleFunc("POST /2/tweets/search/stream/rules", s.postRules)
	mux.HandleFunc("GET /2/users/by", s.usersBy)
	mux.HandleFunc("GET /2/users", s.usersByID)
	mux.HandleFunc("GET /2/users/{id}/following", s.following)
	return mux
}

// AddUser adds or replaces an account.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.users[u.ID]; old != nil {
		delete(s.byName, strings.ToLower(old.Username))
	}
	cp := u
	s.users[u.ID] = &cp
	s.byName[strings.ToLower(u.Username)] = u.ID
}

// AddMedia adds a media object that posts name by key.
func (s *Server) AddMedia(m Media) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.media[m.MediaKey] = m
}

// AddPost stores a post without streaming it (a parent, a quoted post).
func (s *Server) AddPost(p Post) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := p
	s.posts[p.ID] = &cp
}

// Rules returns the rules, oldest first.
func (s *Server) Rules() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rules)
}

// Calls returns the requests answered on endpoint, oldest first.
func (s *Server) Calls(endpoint string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if c.Endpoint == endpoint {
			out = append(out, c)
		}
	}
	return out
}

// SpendBudget empties endpoint's budget until reset from now, so its next
// call gets a 429 (or waits, if the client heeds the headers).
func (s *Server) SpendBudget(endpoint string, reset time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.budgets[endpoint] = &budget{limit: s.opts.Budgets[endpoint], remaining: 0, reset: s.opts.Clock.Now().Add(reset)}
}

// take spends one request of endpoint's budget and writes the rate-limit
// headers; false (after writing a 429) when the window is spent.
func (s *Server) take(w http.ResponseWriter, endpoint string) bool {
	now := s.opts.Clock.Now()
	s.mu.Lock()
	b := s.budgets[endpoint]
	if b == nil || !now.Before(b.reset) {
		b = &budget{limit: s.opts.Budgets[endpoint], remaining: s.opts.Budgets[endpoint], reset: now.Add(Window)}
		s.budgets[endpoint] = b
	}
	ok := b.remaining > 0
	if ok {
		b.remaining--
	}
	h := w.Header()
	h.Set("x-rate-limit-limit", itoa(int64(b.limit)))
	h.Set("x-rate-limit-remaining", itoa(int64(b.remaining)))
	h.Set("x-rate-limit-reset", itoa(ceilUnix(b.reset)))
	s.mu.Unlock()
	if !ok {
		writeProblem(w, http.StatusTooManyRequests, Problem{Title: "Too Many Requests", Detail: "Too Many Requests", Type: "about:blank", Status: 429})
	}
	return ok
}

func ceilUnix(t time.Time) int64 {
	u := t.Unix()
	if t.Nanosecond() > 0 {
		u++
	}
	return u
}

// authorized checks the bearer token.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") == "Bearer "+s.opts.Token {
		return true
	}
	writeProblem(w, http.StatusUnauthorized, Problem{Title: "Unauthorized", Type: "about:blank", Status: 401, Detail: "Unauthorized"})
	return false
}

// begin authenticates, spends the budget and logs the call.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, endpoint string) bool {
	status := http.StatusOK
	defer func() {
		s.mu.Lock()
		s.calls = append(s.calls, Call{Endpoint: endpoint, Path: r.URL.RequestURI(), At: s.opts.Clock.Now(), Status: status})
		s.mu.Unlock()
	}()
	if !s.authorized(w, r) {
		status = http.StatusUnauthorized
		return false
	}
	if !s.take(w, endpoint) {
		status = http.StatusTooManyRequests
		return false
	}
	s.mu.Lock()
	if f := s.failures[endpoint]; len(f) > 0 {
		status, s.failures[endpoint] = f[0], f[1:]
	}
	s.mu.Unlock()
	if status != http.StatusOK {
		writeProblem(w, status, Problem{Title: http.StatusText(status), Type: "about:blank", Status: status, Detail: http.StatusText(status)})
		return false
	}
	return true
}

// FailNext makes the next calls of endpoint answer these statuses (503,
// 500, ...) with a problem body, after spending their budget.
func (s *Server) FailNext(endpoint string, statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[endpoint] = append(s.failures[endpoint], statuses...)
}

func (s *Server) sent() string { return s.opts.Clock.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeProblem(w http.ResponseWriter, status int, p Problem) {
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WaitStreams blocks until n streams are connected or ctx ends.
func (s *Server) WaitStreams(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		cur, ch := len(s.streams), s.streamsCh
		s.mu.Unlock()
		if cur == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *Server) streamsChangedLocked() {
	close(s.streamsCh)
	s.streamsCh = make(chan struct{})
}
