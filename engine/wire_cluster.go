package engine

import (
	"log/slog"

	"github.com/alertd/alertd/actors/delivery"
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
	// Key and plan changes made on any node reach every node's registry.
	e.accountFeed = cluster.StartAccountFeed(cfg.DatabaseURL, e.system.ID, e.registry, log)
	e.registry.OnChange(e.accountFeed.Changed)
	return nil
}

// shutdownSystem leaves the cluster, if any, then stops the actor system.
func (e *Engine) shutdownSystem() {
	if e.accountFeed != nil {
		e.accountFeed.Stop()
	}
	if e.cluster != nil {
		e.cluster.Stop()
	}
	e.system.Shutdown()
}
