package cluster

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProviderClientConfigs: what each provider's client is given from
// --cluster-peers (Consul and Kubernetes are not tested against a live
// service here; their configuration is).
func TestProviderClientConfigs(t *testing.T) {
	t.Parallel()
	e := etcdClientConfig([]string{"10.0.0.9:2379", "http://etcd-2:2379"})
	if !slices.Equal(e.Endpoints, []string{"10.0.0.9:2379", "etcd-2:2379"}) {
		t.Errorf("etcd endpoints %q", e.Endpoints)
	}
	if e.DialTimeout != JoinTimeout || len(e.DialOptions) != 1 {
		t.Errorf("etcd dial: timeout %v, %d options; want a blocking dial within JoinTimeout", e.DialTimeout, len(e.DialOptions))
	}
	if c := consulClientConfig([]string{"10.0.0.7:8500"}); c.Address != "10.0.0.7:8500" {
		t.Errorf("consul address %q", c.Address)
	}
	if c := consulClientConfig(nil); c.Address == "" {
		t.Error("consul without peers: no address (want the client's default)")
	}
	c := Config{Name: "c", Addr: DefaultAddr, Provider: ProviderConsul, Peers: []string{"10.0.0.7:8500"}}
	if eps, err := c.serviceEndpoints(); err != nil || !slices.Equal(eps, []string{"10.0.0.7:8500"}) {
		t.Errorf("consul endpoints %q, %v", eps, err)
	}
	c = Config{Name: "c", Addr: DefaultAddr}
	if eps, err := c.serviceEndpoints(); err != nil || len(eps) != 0 {
		t.Errorf("automanaged endpoints %q, %v; want none", eps, err)
	}
}

// TestReachable: a closed port fails at once naming the provider and the
// endpoint; one open endpoint among closed ones is enough.
func TestReachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := closed.Addr().String()
	closed.Close()
	err = reachable(context.Background(), ProviderEtcd, []string{dead})
	if err == nil || !strings.Contains(err.Error(), "etcd at "+dead+" unreachable") {
		t.Errorf("closed port: %v", err)
	}
	if err := reachable(context.Background(), ProviderEtcd, []string{dead, ln.Addr().String()}); err != nil {
		t.Errorf("one endpoint open: %v", err)
	}
}

// TestBounded: a call that never returns is abandoned after the bound; a
// panic is an error.
func TestBounded(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	defer close(block)
	if err := bounded(time.Millisecond, func() error { <-block; return nil }); err == nil {
		t.Error("a blocked call returned no error")
	}
	if err := bounded(time.Minute, func() error { panic("cannot listen") }); err == nil || !strings.Contains(err.Error(), "cannot listen") {
		t.Errorf("a panic: %v", err)
	}
}
