package kit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// GuardianName is the name of the actor that parents every singleton: a
// singleton named "cw" has the PID id "guardian/cw".
const GuardianName = "guardian"

// DefaultLoadTimeout bounds one Loader.Load.
const DefaultLoadTimeout = 30 * time.Second

// spawnTimeout bounds the guardian's answer to a spawn (it does no I/O).
const spawnTimeout = 10 * time.Second

// Option configures a Kit.
type Option func(*config)

type config struct {
	log         *slog.Logger
	backoff     Backoff
	loadTimeout time.Duration
}

// WithLogger is where failures are logged (default slog.Default).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithBackoff bounds restart storms (default DefaultBackoff).
func WithBackoff(b Backoff) Option { return func(c *config) { c.backoff = b } }

// WithLoadTimeout bounds each Loader.Load (default DefaultLoadTimeout).
func WithLoadTimeout(d time.Duration) Option { return func(c *config) { c.loadTimeout = d } }

// Kit starts, reaches and stops the singleton actors of one actor system,
// all children of one guardian actor supervised by one Supervisor.
type Kit struct {
	root        *actor.RootContext
	guardian    *actor.PID
	sup         *Supervisor
	loadTimeout time.Duration

	mu     sync.Mutex
	refs   []*Ref // in spawn order, for Close
	closed bool
}

// New spawns the guardian under system's root.
func New(system *actor.ActorSystem, opts ...Option) (*Kit, error) {
	c := config{loadTimeout: DefaultLoadTimeout}
	for _, o := range opts {
		o(&c)
	}
	k := &Kit{root: system.Root, sup: NewSupervisor(c.log, c.backoff), loadTimeout: c.loadTimeout}
	pid, err := system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return guardian{} },
		actor.WithSupervisor(k.sup)), GuardianName)
	if err != nil {
		return nil, fmt.Errorf("kit: spawn the guardian: %w", err)
	}
	k.guardian = pid
	return k, nil
}

// Supervisor is the kit's strategy, for actors that are not singletons
// (the handle actors) to be supervised the same way.
func (k *Kit) Supervisor() *Supervisor { return k.sup }

// Spawn starts the singleton name under the guardian and returns once it has
// started (its Load, if it is a Loader, done). produce must return a NEW
// instance on every call: it runs again on every restart. ctx bounds the
// wait for the first start.
func (k *Kit) Spawn(ctx context.Context, name string, produce func() actor.Actor) (*Ref, error) {
	k.mu.Lock()
	closed := k.closed
	k.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("kit: spawn %s: kit closed", name)
	}
	ready := make(chan error, 1)
	var first atomic.Bool
	first.Store(true)
	props := actor.PropsFromProducer(func() actor.Actor {
		c := &cell{inner: produce(), loadTimeout: k.loadTimeout}
		if first.Swap(false) {
			c.ready = ready
		}
		return c
	})
	res, err := Await[*spawned](k.root.RequestFuture(k.guardian, &spawn{name: name, props: props}, spawnTimeout),
		GuardianName, &spawn{})
	if err != nil {
		return nil, fmt.Errorf("kit: spawn %s: %w", name, err)
	}
	if res.err != nil {
		if errors.Is(res.err, actor.ErrNameExists) {
			return nil, fmt.Errorf("kit: spawn %s: a singleton of that name is running", name)
		}
		return nil, fmt.Errorf("kit: spawn %s: %w", name, res.err)
	}
	r := &Ref{k: k, name: name, pid: res.pid}
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		_ = r.Stop()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	k.mu.Lock()
	k.refs = append(k.refs, r)
	k.mu.Unlock()
	return r, nil
}

// Close stops the singletons still running, last spawned first, each after
// it has handled what is in its mailbox, then the guardian.
func (k *Kit) Close() {
	k.mu.Lock()
	k.closed = true
	refs := slices.Clone(k.refs)
	k.mu.Unlock()
	k.sup.Close()
	for i := len(refs) - 1; i >= 0; i-- {
		_ = refs[i].Stop()
	}
	_ = k.root.PoisonFuture(k.guardian).Wait()
}

// Ref is a running singleton.
type Ref struct {
	k    *Kit
	name string
	pid  *actor.PID

	stopOnce sync.Once
	stopErr  error
}

// Name is the singleton's name.
func (r *Ref) Name() string { return r.name }

// PID is the singleton's PID; it stays the same across restarts.
func (r *Ref) PID() *actor.PID { return r.pid }

// Tell sends msg without waiting. It never blocks (mailboxes are unbounded);
// after Stop, msg goes to protoactor's dead letters.
func (r *Ref) Tell(msg any) { r.k.root.Send(r.pid, msg) }

// Stop lets the actor handle what is already in its mailbox, stops it and
// waits for it (protoactor gives it 10 s; ErrTimeout after that). A second
// Stop returns the first one's result.
func (r *Ref) Stop() error {
	r.stopOnce.Do(func() {
		r.k.sup.Hurry(r.pid)
		if err := r.k.root.PoisonFuture(r.pid).Wait(); err != nil {
			r.stopErr = &AskError{Actor: r.pid.Id, Message: "*actor.PoisonPill", Err: ErrTimeout}
		}
	})
	return r.stopErr
}

// Messages of the guardian.
type (
	spawn struct {
		name  string
		props *actor.Props
	}
	spawned struct {
		pid *actor.PID
		err error
	}
)

// guardian parents the singletons; the Supervisor (its props' strategy)
// handles their failures. It holds no state.
type guardian struct{}

func (guardian) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *spawn:
		pid, err := c.SpawnNamed(m.props, m.name)
		c.Respond(&spawned{pid: pid, err: err})
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting, *actor.Terminated:
	default:
		c.Logger().Warn("guardian: unexpected message", "type", typeName(m))
	}
}
