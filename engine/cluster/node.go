package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/identitylookup/disthash"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/types/known/emptypb"
)

// DefaultAddr is --cluster-addr's default.
const DefaultAddr = "127.0.0.1:7946"

// remoteStopWait is how long Stop lets remote close its streams gracefully.
const remoteStopWait = time.Second

// Config is a node's part of a cluster (CONTRACT.md section 7).
type Config struct {
	// Name is --cluster-name; empty means one node (no cluster).
	Name string
	// Addr is --cluster-addr: this node's remote listener, host:port;
	// membership uses port + 1.
	Addr string
	// Peers is --cluster-peers: with automanaged, the --cluster-addr of
	// the members to find each other through (this node's own is added);
	// with etcd the etcd endpoints, with consul the agent (host:port).
	Peers []string
	// Provider is --cluster-provider (Providers); empty is automanaged.
	Provider string
	// RefreshEvery is how often membership is polled (0: a second).
	RefreshEvery time.Duration
}

// Validate checks a cluster configuration without starting anything.
func (c *Config) Validate() error {
	if _, _, err := splitAddr(c.Addr); err != nil {
		return fmt.Errorf("--cluster-addr %q: %v", c.Addr, err)
	}
	return c.validateProvider()
}

// splitAddr reads host:port with a port below 65535 (port + 1 must exist).
func splitAddr(a string) (string, int, error) {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return "", 0, errors.New("not host:port")
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port >= 65535 {
		return "", 0, errors.New("the port must be 1 to 65534 (membership uses port + 1)")
	}
	if h == "" {
		return "", 0, errors.New("the host must be given (the address other nodes dial)")
	}
	return h, port, nil
}

// membershipAddr is the automanaged provider's address of a node.
func membershipAddr(a string) string {
	h, p, _ := splitAddr(a)
	return net.JoinHostPort(h, strconv.Itoa(p+1))
}

// Node is this process as a member of the cluster: its remote listener,
// its membership, the handle grains it hosts, its relay, and the
// Placement the handle Router hands handle actors to.
//
// Locks: pidsMu guards pids (grain PIDs by handle, cleared on every
// topology change); membersMu guards members. Neither is held across I/O
// or a blocking call.
type Node struct {
	cfg    Config
	system *actor.ActorSystem
	cl     *cluster.Cluster
	prov   cluster.ClusterProvider
	hub    *delivery.Hub
	cats   func(handle string) protocol.CategorySet
	timing protocol.Timings
	log    *slog.Logger

	// router and relay are set by Attach, which then closes ready: grains
	// that activate before (a member asked early) wait for it.
	router *handle.Router
	relay  *actor.PID
	ready  chan struct{}
	done   chan struct{} // closed by Stop

	pidsMu sync.RWMutex
	pids   map[string]*actor.PID

	membersMu sync.RWMutex
	members   []string

	events   *eventstream.Subscription // topology changes and dead letters
	stopOnce sync.Once

	sent sentCounts // messages sent to other members, by kind (Sent)

	frames *frames // product frames to and from the other members (frames.go)
}

// Deps are what a node needs from the engine.
type Deps struct {
	Hub *delivery.Hub
	// Categories are the categories of a handle on this node (the events
	// of other nodes carry none: category ids are interned per process).
	Categories func(handle string) protocol.CategorySet
	Timings    protocol.Timings
	Log        *slog.Logger
}

// New configures system as a member of the cluster cfg names; Start joins.
func New(system *actor.ActorSystem, cfg Config, d Deps) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RefreshEvery <= 0 {
		cfg.RefreshEvery = time.Second
	}
	host, port, _ := splitAddr(cfg.Addr)
	n := &Node{cfg: cfg, system: system, hub: d.Hub, cats: d.Categories, timing: d.Timings, log: d.Log,
		pids: map[string]*actor.PID{}, ready: make(chan struct{}), done: make(chan struct{})}
	n.frames = newFrames(n)
	// The service first, in a line if it does not answer: etcd's client
	// would wait for it as long as its dial allows, Consul's and
	// Kubernetes' not at all (they would fail later, in the background).
	eps, err := cfg.serviceEndpoints()
	if err == nil {
		err = reachable(context.Background(), cfg.provider(), eps)
	}
	if err == nil {
		n.prov, err = n.newProvider(system, host, port)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot join cluster %q: %v", cfg.Name, err)
	}
	kind := cluster.NewKind(handle.KindHandle, actor.PropsFromProducer(func() actor.Actor { return newGrain(n) }))
	n.cl = cluster.New(system, cluster.Configure(cfg.Name, n.prov, disthash.New(), remote.Configure(host, port),
		cluster.WithKinds(kind), cluster.WithRequestTimeout(5*time.Second)))
	return n, nil
}

// Start joins the cluster: the remote listener and membership. Call it
// before anything spawns in the actor system (remote sets its address),
// then Attach once the handle router exists.
func (n *Node) Start() error {
	addrs := []string{n.cfg.Addr}
	if n.cfg.provider() == ProviderAutomanaged {
		addrs = append(addrs, membershipAddr(n.cfg.Addr))
	}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("cannot join cluster %q: %v", n.cfg.Name, err)
		}
		ln.Close()
	}
	n.events = n.system.EventStream.Subscribe(func(ev any) {
		switch ev := ev.(type) {
		case *cluster.ClusterTopology:
			n.onTopology(ev)
		case *actor.DeadLetterEvent:
			n.onDeadLetter(ev)
		}
	})
	// Bounded: the provider's first calls carry no deadline (a service that
	// went away since New would hang the start). StartMember itself waits
	// a second for the first topology.
	if err := bounded(JoinTimeout+time.Second, func() error { n.cl.StartMember(); return nil }); err != nil {
		n.system.EventStream.Unsubscribe(n.events)
		return fmt.Errorf("cannot join cluster %q on %s through %s: %v", n.cfg.Name, n.cfg.Addr, n.cfg.provider(), err)
	}
	return nil
}

// Attach gives the node the handle router whose Deps serve the grains, and
// starts the relay. Grains activated before it waited for it.
func (n *Node) Attach(router *handle.Router) {
	n.router = router
	var err error
	n.relay, err = n.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return newRelay(n) }), relayName)
	if err != nil { // the name is this package's alone
		panic(err)
	}
	close(n.ready)
	n.hub.SetRemote(n.frames)
	n.hub.SetWatcher(func(t delivery.Topic) {
		if t.Kind == delivery.TopicHandle {
			n.system.Root.Send(n.relay, &topicChanged{handle: t.Key})
		} else {
			n.system.Root.Send(n.relay, &productTopicChanged{t: t})
		}
	})
}

// onTopology runs on the event stream: grains may have moved, so the cached
// PIDs are dropped and the relay subscribes again where they live now.
func (n *Node) onTopology(t *cluster.ClusterTopology) {
	addrs := make([]string, 0, len(t.Members))
	for _, m := range t.Members {
		addrs = append(addrs, m.Address())
	}
	slices.Sort(addrs)
	n.membersMu.Lock()
	n.members = addrs
	n.membersMu.Unlock()
	n.frames.members(addrs)
	n.pidsMu.Lock()
	clear(n.pids)
	n.pidsMu.Unlock()
	select {
	case <-n.ready:
		n.system.Root.Send(n.relay, &resubscribe{})
	default: // no relay yet, and nothing subscribed
	}
}

// leaveGrace is how long a leaving node keeps its grains after it
// deregistered: automanaged's peers notice at their next poll, the
// watching providers (etcd, consul, kubernetes) within moments.
func (n *Node) leaveGrace() time.Duration {
	if n.cfg.provider() == ProviderAutomanaged {
		return n.cfg.RefreshEvery + 250*time.Millisecond
	}
	return 500 * time.Millisecond
}

// Name is the cluster's name.
func (n *Node) Name() string { return n.cfg.Name }

// Members are the --cluster-addr of the live members, sorted.
func (n *Node) Members() []string {
	n.membersMu.RLock()
	defer n.membersMu.RUnlock()
	return slices.Clone(n.members)
}

// Stop leaves the cluster: membership first, then, once the others had
// time to see it leave (leaveGrace), the grains hosted here drain and
// stop, then the remote listener. The actor system stays up (the
// engine shuts it down).
func (n *Node) Stop() {
	n.stopOnce.Do(func() {
		n.cl.Gossip.SetState(cluster.GracefullyLeftKey, &emptypb.Empty{})
		// Deregistering tells the others at once (etcd and Consul watch,
		// automanaged polls); bounded, as the service may be gone.
		if err := bounded(leaveTimeout, func() error { return n.prov.Shutdown(true) }); err != nil {
			n.log.Warn("cluster: leaving the provider's membership", "provider", n.cfg.provider(), "err", err)
		}
		// Until the others have seen it leave they still send observations
		// here: the grains stay (and activate) for that long, and dead
		// letters are still sent on, rather than stopped grains dropping
		// what arrives.
		time.Sleep(n.leaveGrace())
		close(n.done)
		n.system.EventStream.Unsubscribe(n.events)
		n.cl.IdentityLookup.Shutdown() // its placement actor poisons and awaits the grains
		n.cl.Gossip.Shutdown()
		select {
		case <-n.ready:
			_ = n.system.Root.PoisonFuture(n.relay).Wait()
		default:
		}
		// Remote's graceful stop first waits for its endpoint writers,
		// which keep redialling a member that stopped first (up to 10 s),
		// then for every peer's stream to end: give it a moment, then cut
		// the server off. The graceful half then ends by itself, in the
		// background, within those 10 s (or with the process).
		stopped := make(chan struct{})
		go func() {
			n.cl.Remote.Shutdown(true)
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(remoteStopWait):
			n.cl.Remote.Shutdown(false)
		}
	})
}
