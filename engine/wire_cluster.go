package engine

import (
	"context"
	"encoding/hex"
	"log/slog"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/engine/cluster"
)

// startCluster makes the actor system a member of cfg.Cluster (nothing when
// --cluster-name is empty). It runs before anything spawns in the system:
// starting remote sets the system's address, which every spawn reads.
// Start attaches the handle router once it exists (Node.Attach).
func (e *Engine) startCluster(cfg *Config, hub *delivery.Hub, log *slog.Logger) error {
	if cfg.Cluster.Name == "" {
		return nil
	}
	n, err := cluster.New(e.system, cfg.Cluster, cluster.Deps{Hub: hub, Categories: e.dir.Categories,
		Timings: cfg.Timings, Log: log})
	if err != nil {
		return err
	}
	if err := n.Start(); err != nil {
		return err
	}
	e.cluster = n
	e.feed = e.newFeed(cfg, log)
	e.owners = n.Owners(cfg.DatabaseURL, e.feed)
	return nil
}

// webhookOwners is what the webhook engines ask which endpoints this node
// sends for: nil on one node (every endpoint).
func (e *Engine) webhookOwners() webhook.Owners {
	if e.owners == nil {
		return nil // not a typed nil: the engines test for nil
	}
	return e.owners
}

// newFeed carries the registries' changes between the nodes: a node that
// stores a change announces the accounts it touched, the others reload
// those accounts from the store. The products' registries register as
// they are wired (wire_<product>.go); Start starts it once all are.
func (e *Engine) newFeed(cfg *Config, log *slog.Logger) *cluster.Feed {
	f := cluster.NewFeed(cfg.DatabaseURL, e.system.ID, log)
	// Keys and plans: the account registry reloads in full.
	f.Register(cluster.RegAccounts, func(ctx context.Context, _ []string) error { return e.registry.Reload(ctx) })
	e.registry.OnChange(func() { f.Changed(cluster.RegAccounts) })
	// B2B target lists: the accounts named (sessions here hear the targets
	// that came and went through the registry's listener, as for adds made
	// here).
	f.Register(cluster.RegTargets, e.targets.Reload)
	e.targets.OnChange(func(accounts []string) { f.Changed(cluster.RegTargets, accounts...) })
	shareFailedLogins(f, e.sessions.Blocker)
	// Per-account socket limits count every node's sockets.
	e.stops = append(e.stops, cluster.ShareConns(f, e.sessions.Limits).Stop)
	// REST rate windows count every node's requests (CA Search's quota
	// joins in wireCASearch).
	e.rates = cluster.ShareRates(f, e.registry)
	e.stops = append(e.stops, e.rates.Stop)
	return f
}

// shareFailedLogins counts every node's failed logins on every node, so
// that the IP and key blocks hold across the cluster: each failure is an
// event "<address>,<key's SHA-256 in hex, or ->" (never the key).
func shareFailedLogins(f *cluster.Feed, b *session.Blocker) {
	b.Shared = func(ip, keyID string) {
		k := "-"
		if keyID != "" {
			k = hex.EncodeToString([]byte(keyID))
		}
		f.Publish(cluster.EventFailedLogin, ip+","+k)
	}
	f.HandleEvents(cluster.EventFailedLogin, func(_ string, items []string) {
		now := time.Now()
		for _, it := range items {
			ip, k, ok := strings.Cut(it, ",")
			if !ok {
				continue
			}
			id := ""
			if k != "-" {
				raw, err := hex.DecodeString(k)
				if err != nil {
					continue
				}
				id = string(raw)
			}
			b.FailElsewhere(ip, id, now)
		}
	})
}

// shutdownSystem leaves the cluster, if any, then stops the actor system.
func (e *Engine) shutdownSystem() {
	if e.owners != nil {
		e.owners.Stop() // after the webhook engines: the locks go with the outcomes stored
	}
	if e.feed != nil {
		e.feed.Stop()
	}
	if e.cluster != nil {
		e.cluster.Stop()
	}
	e.system.Shutdown()
}
