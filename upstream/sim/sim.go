// Package sim is a deterministic synthetic upstream: a world of accounts that
// post, follow, join communities, get engagement and trend, plus a token
// launchpad with creator wallets and callers whose calls run up and down. It
// implements upstream.Source; every line it produces passes
// protocol.DecodeObservation.
//
// The stream starts with one user snapshot for every account, then one
// following and one communities snapshot for each (the directory must know
// them before anything else), then a steady mix (see DefaultMix) at Config.Rate.
// The content is a pure function of Seed and the times Now returns; pacing
// uses the real clock.
package sim

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/upstream"
)

// Defaults of Config.
const (
	DefaultUsers = 300
	DefaultRate  = 200.0 // observations per second
	DefaultBatch = 200
	DefaultQueue = 64
	DefaultTick  = 50 * time.Millisecond
)

// Config of a Simulator. Zero fields take the defaults.
type Config struct {
	// Seed makes the world and the stream reproducible.
	Seed int64
	// Users is the number of accounts of the world (default 300, at least 5).
	Users int
	// Rate is the target of observations per second after the start-up
	// snapshots (default 200). The schedule is open loop: a slow sink does not
	// slow it down; batches that find the queue full are dropped and counted.
	// A negative Rate sends back to back as fast as the sink takes them.
	Rate float64
	// Duration stops Run after this long; 0 runs until ctx is done.
	Duration time.Duration
	// Batch is the most observations per Send (default 200). Each tick sends
	// what is due, so a low rate still sends promptly in small batches.
	Batch int
	// Total stops Run after this many observations, start-up snapshots
	// included; 0 is unlimited.
	Total int
	// Now is the clock of the content (created_at, ids, RFC 3339 times);
	// default time.Now. A fixed Now makes the stream byte-for-byte repeatable.
	Now func() time.Time
	// Queue is how many batches may wait for the sink (default 64).
	Queue int
	// Tick is the pacing interval (default 50 ms).
	Tick time.Duration
	// Mix overrides the share of each kind after the start-up snapshots
	// (weights by kind name, see DefaultMix); nil keeps the default. A kind
	// left out is not generated (market_cap without callout falls back to
	// callouts, engagement without posts to posts).
	Mix map[string]float64
}

func (c Config) withDefaults() Config {
	if c.Users == 0 {
		c.Users = DefaultUsers
	}
	c.Users = max(c.Users, 5)
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.Queue <= 0 {
		c.Queue = DefaultQueue
	}
	if c.Tick <= 0 {
		c.Tick = DefaultTick
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Mix == nil {
		c.Mix = DefaultMix()
	}
	return c
}

// Simulator is the synthetic upstream. Create it with New.
type Simulator struct {
	cfg Config

	mu  sync.Mutex // guards gen
	gen *generator

	generated  [numKinds]atomic.Int64
	total      atomic.Int64
	updates    atomic.Int64
	sent       atomic.Int64
	failed     atomic.Int64
	dropped    atomic.Int64
	sendErrors atomic.Int64
	behind     atomic.Int64
	startedAt  atomic.Int64 // unix ns of the first Run
	reporter   atomic.Pointer[upstream.Reporter]
	errMu      sync.Mutex
	lastErr    string
}

var _ upstream.Source = (*Simulator)(nil)

// New builds the world of cfg. It panics when cfg.Mix gives no kind a
// positive weight.
func New(cfg Config) *Simulator {
	cfg = cfg.withDefaults()
	return &Simulator{cfg: cfg, gen: newGenerator(cfg.Seed, cfg.Users, cfg.Rate, cfg.Now, cfg.Mix)}
}

// Config returns the configuration with defaults applied.
func (s *Simulator) Config() Config { return s.cfg }

// Next returns the next observation line (without newline) and its kind.
func (s *Simulator) Next() (kind string, line []byte) {
	s.mu.Lock()
	k, l, upd := s.nextLocked()
	s.mu.Unlock()
	s.count(k, upd)
	return kindNames[k], l
}

func (s *Simulator) nextLocked() (int, []byte, bool) {
	before := s.gen.updates
	k, l := s.gen.next()
	return k, l, s.gen.updates != before
}

func (s *Simulator) count(k int, update bool) {
	s.generated[k].Add(1)
	s.total.Add(1)
	if update {
		s.updates.Add(1)
	}
}

// Generate returns the next n observation lines.
func (s *Simulator) Generate(n int) [][]byte {
	out := make([][]byte, 0, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		k, l, upd := s.nextLocked()
		s.count(k, upd)
		out = append(out, l)
	}
	return out
}

// Users is the number of accounts; the first 3*Users observations are the
// start-up snapshots.
func (s *Simulator) Users() int { return s.cfg.Users }

// Handles returns the current handles of the world's accounts, in directory
// order (useful to pick demo targets).
func (s *Simulator) Handles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.gen.w.users))
	for i := range s.gen.w.users {
		out[i] = s.gen.w.users[i].handle
	}
	return out
}

// ActiveHandles returns the current handles of the n accounts that post the
// most, most active first (good demo targets: they produce events at once).
func (s *Simulator) ActiveHandles(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	us := s.gen.w.users
	idx := make([]int, len(us))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(us[b].activity, us[a].activity) })
	n = min(max(n, 0), len(idx))
	out := make([]string, n)
	for i := range out {
		out[i] = us[idx[i]].handle
	}
	return out
}

// Tickers returns the token symbols launches and posts reuse (copycat names
// repeat), e.g. for ECA watchlist entries that will match.
func (s *Simulator) Tickers() []string {
	out := make([]string, len(tokenNames))
	for i, t := range tokenNames {
		out[i] = t.sym
	}
	return out
}

// CreatorWallets returns the launchpad creator wallets (demo PumpFun and ECA
// targets).
func (s *Simulator) CreatorWallets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.gen.w.wallets))
	for i, w := range s.gen.w.wallets {
		out[i] = w.addr
	}
	return out
}

// Callers returns the usernames of the callers that make callouts.
func (s *Simulator) Callers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.gen.w.callers))
	for i, c := range s.gen.w.callers {
		out[i] = c.username
	}
	return out
}

// take generates up to n lines, stopping early at Total.
func (s *Simulator) take(n int) [][]byte {
	if s.cfg.Total > 0 {
		n = min(n, s.cfg.Total-int(s.total.Load()))
	}
	if n <= 0 {
		return nil
	}
	return s.Generate(n)
}

func (s *Simulator) done() bool {
	return s.cfg.Total > 0 && int(s.total.Load()) >= s.cfg.Total
}

func (s *Simulator) inBootstrap() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen.boot < 3*len(s.gen.w.users)
}

// send hands one batch to the sink and counts the outcome.
func (s *Simulator) send(ctx context.Context, sink upstream.Sink, batch [][]byte) error {
	if err := sink.Send(ctx, batch); err != nil {
		s.failed.Add(int64(len(batch)))
		s.sendErrors.Add(1)
		s.errMu.Lock()
		s.lastErr = err.Error()
		s.errMu.Unlock()
		return err
	}
	s.sent.Add(int64(len(batch)))
	return nil
}

// sendPersistently is send that retries transient failures with backoff
// until the batch goes through, the failure is permanent or stop is done.
func (s *Simulator) sendPersistently(stop, ctx context.Context, sink upstream.Sink, batch [][]byte) error {
	wait := 250 * time.Millisecond
	for {
		err := sink.Send(ctx, batch)
		if err == nil {
			s.sent.Add(int64(len(batch)))
			return nil
		}
		s.sendErrors.Add(1)
		s.errMu.Lock()
		s.lastErr = err.Error()
		s.errMu.Unlock()
		if upstream.IsPermanent(err) {
			s.failed.Add(int64(len(batch)))
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-stop.Done():
			t.Stop()
			s.failed.Add(int64(len(batch)))
			return err
		case <-t.C:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// Run sends the stream to sink until ctx is done, Duration has passed or
// Total observations were generated. Start-up snapshots are sent in order and
// never dropped (a transient send error is retried with backoff); after them
// the schedule is open loop (see Config.Rate).
// Batches reach the sink one at a time, in order. Run returns nil on a normal
// stop and the sink's error when it is permanent (upstream.IsPermanent, e.g.
// a wrong admin token); other send errors are counted and the run goes on.
func (s *Simulator) Run(ctx context.Context, sink upstream.Sink) error {
	if rep, ok := sink.(upstream.Reporter); ok {
		s.reporter.Store(&rep)
	}
	s.startedAt.CompareAndSwap(0, time.Now().UnixNano())
	sendCtx, cancelSend := context.WithCancelCause(ctx)
	defer cancelSend(nil)
	genCtx := sendCtx
	if s.cfg.Duration > 0 {
		var cancel context.CancelFunc
		genCtx, cancel = context.WithTimeout(sendCtx, s.cfg.Duration)
		defer cancel()
	}
	batch := s.cfg.Batch

	// Start-up snapshots, closed loop: the directory must know every account,
	// so a batch that fails for a passing reason (engine not up yet) is sent
	// again until it goes through.
	for s.inBootstrap() && !s.done() && genCtx.Err() == nil {
		s.mu.Lock()
		left := 3*len(s.gen.w.users) - s.gen.boot
		s.mu.Unlock()
		if err := s.sendPersistently(genCtx, sendCtx, sink, s.take(min(batch, left))); err != nil && upstream.IsPermanent(err) {
			return err
		}
	}

	if s.cfg.Rate < 0 {
		for !s.done() && genCtx.Err() == nil {
			if err := s.send(sendCtx, sink, s.take(batch)); err != nil && upstream.IsPermanent(err) {
				return err
			}
		}
		return nil
	}

	queue := make(chan [][]byte, s.cfg.Queue)
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		for b := range queue {
			if sendCtx.Err() != nil {
				s.dropped.Add(int64(len(b)))
				continue
			}
			if err := s.send(sendCtx, sink, b); err != nil && upstream.IsPermanent(err) {
				cancelSend(err)
			}
		}
	}()

	tick := time.NewTicker(s.cfg.Tick)
	defer tick.Stop()
	start := time.Now()
	var emitted int64
	// At most this many per tick, so a generator that cannot keep up still
	// checks ctx; the rest is reported as Behind.
	perTick := max(int64(batch), int64(s.cfg.Rate/4))
loop:
	for !s.done() {
		due := int64(s.cfg.Rate*time.Since(start).Seconds()) - emitted
		n := min(due, perTick)
		for n > 0 && !s.done() {
			b := s.take(int(min(n, int64(batch))))
			if len(b) == 0 {
				break
			}
			n -= int64(len(b))
			emitted += int64(len(b))
			select {
			case queue <- b:
			default:
				s.dropped.Add(int64(len(b)))
			}
		}
		s.behind.Store(max(0, int64(s.cfg.Rate*time.Since(start).Seconds())-emitted))
		if s.done() {
			break
		}
		select {
		case <-genCtx.Done():
			break loop
		case <-tick.C:
		}
	}
	close(queue)
	<-senderDone
	s.behind.Store(0)
	if err := context.Cause(sendCtx); err != nil && upstream.IsPermanent(err) {
		return err
	}
	return nil
}

// Stats is a snapshot of what a Simulator generated and sent.
type Stats struct {
	Elapsed     time.Duration    // since the first Run started
	Generated   map[string]int64 // per observation kind
	Total       int64            // all generated observations
	PostUpdates int64            // posts that are re-observations with fuller context
	Sent        int64            // observations the sink took
	Failed      int64            // observations in batches whose Send failed
	Dropped     int64            // observations dropped because the sink fell behind
	SendErrors  int64            // failed Send calls
	Behind      int64            // observations the schedule is behind right now
	// Accepted and Rejected come from the sink when it reports them
	// (upstream.Reporter, e.g. HTTPSink); SinkCounts says whether it does.
	Accepted, Rejected int64
	SinkCounts         bool
	LastError          string
}

// Stats returns the current counters.
func (s *Simulator) Stats() Stats {
	st := Stats{
		Generated:   make(map[string]int64, numKinds),
		Total:       s.total.Load(),
		PostUpdates: s.updates.Load(),
		Sent:        s.sent.Load(),
		Failed:      s.failed.Load(),
		Dropped:     s.dropped.Load(),
		SendErrors:  s.sendErrors.Load(),
		Behind:      s.behind.Load(),
	}
	for k := range numKinds {
		st.Generated[kindNames[k]] = s.generated[k].Load()
	}
	if t := s.startedAt.Load(); t != 0 {
		st.Elapsed = time.Since(time.Unix(0, t))
	}
	if rep := s.reporter.Load(); rep != nil {
		sn := (*rep).Stats()
		st.Accepted, st.Rejected, st.SinkCounts = sn.Accepted, sn.Rejected, true
	}
	s.errMu.Lock()
	st.LastError = s.lastErr
	s.errMu.Unlock()
	return st
}

// String is the progress line with the average send rate since the start.
func (st Stats) String() string {
	rate := 0.0
	if st.Elapsed > 0 {
		rate = float64(st.Sent) / st.Elapsed.Seconds()
	}
	return st.Line(rate)
}

// Line formats one progress line with the given send rate, e.g.
// "simulate: 12000 sent (400/s), 3 rejected, 0 dropped, 0 failed; post 8000 (31 updates) user 300 ...".
func (st Stats) Line(rate float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulate: %d sent (%.0f/s)", st.Sent, rate)
	if st.SinkCounts {
		fmt.Fprintf(&b, ", %d rejected", st.Rejected)
	}
	fmt.Fprintf(&b, ", %d dropped, %d failed", st.Dropped, st.Failed)
	if st.Behind > 0 {
		fmt.Fprintf(&b, ", %d behind", st.Behind)
	}
	b.WriteString(";")
	for _, k := range kindNames {
		if n := st.Generated[k]; n > 0 {
			fmt.Fprintf(&b, " %s %d", k, n)
			if k == kindNames[kPost] && st.PostUpdates > 0 {
				fmt.Fprintf(&b, " (%d updates)", st.PostUpdates)
			}
		}
	}
	if st.SendErrors > 0 && st.LastError != "" {
		fmt.Fprintf(&b, "; last error: %s", st.LastError)
	}
	return b.String()
}

// Progress writes a progress line to w every interval until ctx is done,
// then one final line. Run it in its own goroutine.
func (s *Simulator) Progress(ctx context.Context, w io.Writer, every time.Duration) {
	if every <= 0 {
		every = 2 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	prev, prevAt := s.Stats().Sent, time.Now()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(w, s.Stats().String())
			return
		case now := <-t.C:
			st := s.Stats()
			rate := float64(st.Sent-prev) / now.Sub(prevAt).Seconds()
			prev, prevAt = st.Sent, now
			fmt.Fprintln(w, st.Line(rate))
		}
	}
}
