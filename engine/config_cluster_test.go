package engine

import (
	"errors"
	"testing"
)

// TestCheckCluster: no cluster flag is one node; any cluster flag needs
// PostgreSQL and a name.
func TestCheckCluster(t *testing.T) {
	pg := "postgres://127.0.0.1/x"
	for _, c := range []struct {
		name    string
		change  func(*Config)
		wantErr error // nil: ok; errAny: some error
	}{
		{"one node, embedded", func(*Config) {}, nil},
		{"one node, empty address", func(c *Config) { c.Cluster.Addr = "" }, nil},
		{"name, embedded", func(c *Config) { c.Cluster.Name = "c" }, ErrClusterEmbedded},
		{"peers, embedded", func(c *Config) { c.Cluster.Peers = []string{"10.0.0.2:7946"} }, ErrClusterEmbedded},
		{"address, embedded", func(c *Config) { c.Cluster.Addr = "10.0.0.1:7946" }, ErrClusterEmbedded},
		{"name, postgres", func(c *Config) { c.DatabaseURL, c.Cluster.Name = pg, "c" }, nil},
		{"peers without a name", func(c *Config) { c.DatabaseURL, c.Cluster.Peers = pg, []string{"10.0.0.2:7946"} }, errAny},
		{"etcd without endpoints", func(c *Config) { c.DatabaseURL, c.Cluster.Name, c.Cluster.Provider = pg, "c", "etcd" }, errAny},
		{"etcd", func(c *Config) {
			c.DatabaseURL, c.Cluster.Name, c.Cluster.Provider, c.Cluster.Peers = pg, "c", "etcd", []string{"127.0.0.1:2379"}
		}, nil},
		{"an unknown provider", func(c *Config) { c.DatabaseURL, c.Cluster.Name, c.Cluster.Provider = pg, "c", "zk" }, errAny},
	} {
		cfg := DefaultConfig()
		c.change(&cfg)
		err := cfg.CheckCluster()
		switch {
		case c.wantErr == nil && err != nil, c.wantErr != nil && err == nil:
			t.Errorf("%s: %v, want %v", c.name, err, c.wantErr)
		case c.wantErr != nil && c.wantErr != errAny && !errors.Is(err, c.wantErr):
			t.Errorf("%s: %v, want %v", c.name, err, c.wantErr)
		}
	}
}

var errAny = errors.New("any error")
