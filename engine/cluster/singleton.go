package cluster

import (
	"context"
	"hash/fnv"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Singleton runs a job on one node of the cluster at a time (the chat bot's
// update poller: Telegram answers 409 to a second getUpdates, and a command
// must be handled once): the node that holds the job's PostgreSQL advisory
// lock, on a connection of its own, runs it; the others try for the lock
// every second. A SIGKILLed leader's connection dies with it, and with it
// the lock: a survivor takes over within a second or two (the server drops
// a peer that vanished without closing, a machine that died, after about
// 20 s of silence at most). A leader whose connection fails stops the job
// before it tries again, so two leaders overlap at most for the second the
// failure takes to notice; the job must bear that (the poller stores each
// update's answers under ids made from the update, with its offset).
//
// The loop goroutine alone uses the connection and starts and stops the
// job; leading is read by anyone (an atomic).
type Singleton struct {
	url   string
	name  string
	class int32 // the advisory lock's keys: the cluster, then the job
	key   int32
	job   func(ctx context.Context)
	log   *slog.Logger
	every time.Duration

	leading atomic.Bool
	rounds  atomic.Int64 // rounds run (tests wait for them)
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewSingleton returns the singleton name of cluster over the database at
// url; job runs while this node leads and must return soon after its ctx
// ends. Start it.
func NewSingleton(url, cluster, name string, job func(ctx context.Context), log *slog.Logger) *Singleton {
	if log == nil {
		log = slog.Default()
	}
	return &Singleton{url: url, name: name, class: hash32("alertd singleton " + cluster), key: hash32(name),
		job: job, log: log, every: time.Second, done: make(chan struct{})}
}

// Singleton is NewSingleton for n's cluster.
func (n *Node) Singleton(url, name string, job func(ctx context.Context)) *Singleton {
	return NewSingleton(url, n.cfg.Name, name, job, n.log)
}

// hash32 is an advisory lock's 32-bit key for s (FNV-1a): Owners' and
// Singleton's lock classes and a singleton's name.
func hash32(s string) int32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int32(h.Sum32())
}

// Leading reports whether this node runs the job now.
func (s *Singleton) Leading() bool { return s.leading.Load() }

// Start runs the loop that takes the lead when it is free.
func (s *Singleton) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.loop(ctx)
}

// Stop stops the job (waiting for it), then closes the connection, which
// frees the lock for another node.
func (s *Singleton) Stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
}

func (s *Singleton) loop(ctx context.Context) {
	defer close(s.done)
	var conn *pgx.Conn
	var stopJob func()
	release := func() {
		if stopJob != nil {
			stopJob()
			stopJob = nil
		}
		s.leading.Store(false)
		if conn != nil {
			conn.Close(context.Background())
			conn = nil
		}
	}
	defer release()
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		if conn == nil {
			var err error
			if conn, err = dialLock(ctx, s.url); err != nil && ctx.Err() == nil {
				s.log.Warn("cluster: singleton cannot reach the database; retrying", "singleton", s.name, "err", err)
			}
		}
		if conn != nil {
			var err error
			if stopJob == nil {
				var got bool
				if err = conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", s.class, s.key).Scan(&got); err == nil && got {
					stopJob = s.runJob()
					s.log.Info("cluster: this node leads", "singleton", s.name)
				}
			} else {
				_, err = conn.Exec(ctx, "SELECT 1") // the lock lives while this connection does
			}
			if err != nil && ctx.Err() == nil {
				s.log.Warn("cluster: singleton lost the database; stopping its job", "singleton", s.name, "err", err)
				release()
			}
		}
		s.rounds.Add(1)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runJob starts the job on a goroutine of its own and returns what stops
// it and waits for it.
func (s *Singleton) runJob() func() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.leading.Store(true)
	go func() {
		defer close(done)
		s.job(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// dialLock opens a connection that holds advisory locks; the server drops
// a dead peer's connection (and its locks) after at most about 20 s of
// silence.
func dialLock(ctx context.Context, url string) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	for _, set := range []string{"SET tcp_keepalives_idle = 10", "SET tcp_keepalives_interval = 3", "SET tcp_keepalives_count = 3"} {
		if _, err := conn.Exec(ctx, set); err != nil {
			conn.Close(context.Background())
			return nil, err
		}
	}
	return conn, nil
}
