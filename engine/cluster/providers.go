package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/consul"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/etcd"
	consulapi "github.com/hashicorp/consul/api"
	"github.com/labstack/echo"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// The --cluster-provider values: how members find each other.
const (
	// ProviderAutomanaged: each node serves its membership on
	// --cluster-addr's port + 1 and polls the peers' (no extra service;
	// works on loopback). The default.
	ProviderAutomanaged = "automanaged"
	// ProviderEtcd: members register under /alertd/<cluster-name>/ in etcd
	// (--cluster-peers: the etcd endpoints) with a 3 s lease.
	ProviderEtcd = "etcd"
	// ProviderConsul: members are instances of the Consul service
	// <cluster-name> with a 3 s TTL check (--cluster-peers: the agent).
	ProviderConsul = "consul"
	// ProviderKubernetes: members are the pods labelled with the cluster's
	// name (the in-cluster config; --cluster-addr: the pod's IP). Only in a
	// binary built with -tags kubernetes (providers_kubernetes.go).
	ProviderKubernetes = "kubernetes"
)

// kubernetesProvider is set by providers_kubernetes.go, built with -tags
// kubernetes only: Kubernetes' client adds 26 MB to a 42 MB binary that
// every other deployment would carry. It returns the provider and the API
// server's host:port from the in-cluster config.
var kubernetesProvider func() (prov func() (cluster.ClusterProvider, error), apiAddr string, err error)

// Providers are the --cluster-provider values.
var Providers = []string{ProviderAutomanaged, ProviderEtcd, ProviderConsul, ProviderKubernetes}

// JoinTimeout bounds reaching the provider's service when a node starts:
// an unreachable etcd, Consul agent or Kubernetes API fails the start
// instead of hanging it (their clients wait without a deadline).
const JoinTimeout = 10 * time.Second

// leaveTimeout bounds the provider's deregistration when a node stops: a
// service gone by then must not hold SIGTERM up.
const leaveTimeout = 3 * time.Second

// etcdBaseKey is the etcd prefix the members register under.
const etcdBaseKey = "/alertd"

// provider returns the configured provider, automanaged when unset.
func (c *Config) provider() string {
	if c.Provider == "" {
		return ProviderAutomanaged
	}
	return c.Provider
}

// validateProvider checks the provider and what --cluster-peers means for it.
func (c *Config) validateProvider() error {
	p := c.provider()
	if !slices.Contains(Providers, p) {
		return fmt.Errorf("--cluster-provider %q is unknown; use %s", c.Provider, strings.Join(Providers, ", "))
	}
	for _, e := range c.Peers {
		if p == ProviderAutomanaged {
			if _, _, err := splitAddr(e); err != nil {
				return fmt.Errorf("--cluster-peers: %q: %v", e, err)
			}
		} else if _, err := endpointAddr(e); err != nil {
			return fmt.Errorf("--cluster-peers (the %s endpoints): %q: %v", p, e, err)
		}
	}
	switch {
	case p == ProviderEtcd && len(c.Peers) == 0:
		return errors.New("--cluster-provider etcd needs --cluster-peers: the etcd endpoints, host:port")
	case p == ProviderConsul && len(c.Peers) > 1:
		return errors.New("--cluster-provider consul takes one --cluster-peers: the Consul agent's host:port (empty: CONSUL_HTTP_ADDR or 127.0.0.1:8500)")
	case p == ProviderKubernetes && kubernetesProvider == nil:
		return errors.New("--cluster-provider kubernetes: this alertd was built without it (build with -tags kubernetes)")
	case p == ProviderKubernetes && len(c.Peers) > 0:
		return errors.New("--cluster-provider kubernetes takes no --cluster-peers: members are the pods labelled with the cluster's name")
	}
	return nil
}

// endpointAddr reads an etcd or Consul endpoint: host:port, or an http://
// URL of one (the clients' own forms).
func endpointAddr(e string) (string, error) {
	hp := strings.TrimPrefix(e, "http://")
	if strings.Contains(hp, "://") {
		return "", errors.New("not host:port (TLS endpoints are not supported)")
	}
	h, p, err := net.SplitHostPort(hp)
	if err != nil || h == "" {
		return "", errors.New("not host:port")
	}
	if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
		return "", errors.New("the port must be 1 to 65535")
	}
	return hp, nil
}

// serviceEndpoints are the addresses of the service the provider needs
// (none for automanaged): New checks that one answers before joining.
func (c *Config) serviceEndpoints() ([]string, error) {
	switch c.provider() {
	case ProviderEtcd:
		return etcdClientConfig(c.Peers).Endpoints, nil
	case ProviderConsul:
		return []string{consulClientConfig(c.Peers).Address}, nil
	case ProviderKubernetes:
		_, api, err := kubernetesProvider()
		if err != nil {
			return nil, fmt.Errorf("kubernetes: %v", err)
		}
		return []string{api}, nil
	}
	return nil, nil
}

// newProvider builds the configured provider. etcd's client connects here
// (within JoinTimeout); Consul's and Kubernetes' connect lazily.
func (n *Node) newProvider(system *actor.ActorSystem, host string, port int) (cluster.ClusterProvider, error) {
	cfg := n.cfg
	switch cfg.provider() {
	case ProviderEtcd:
		p, err := etcd.NewWithConfig(etcdBaseKey, etcdClientConfig(cfg.Peers))
		if err != nil {
			return nil, fmt.Errorf("etcd at %s: %v", strings.Join(cfg.Peers, ","), err)
		}
		return p, nil
	case ProviderConsul:
		return consul.NewWithConfig(consulClientConfig(cfg.Peers))
	case ProviderKubernetes:
		prov, _, err := kubernetesProvider()
		if err != nil {
			return nil, fmt.Errorf("kubernetes: %v", err)
		}
		return prov()
	}
	hosts := []string{membershipAddr(cfg.Addr)}
	for _, p := range cfg.Peers {
		if m := membershipAddr(p); !slices.Contains(hosts, m) {
			hosts = append(hosts, m)
		}
	}
	// Our own membership listener: the provider's default prints a banner
	// on stdout.
	web := echo.New()
	web.HideBanner, web.HidePort = true, true
	web.GET("/_health", func(c echo.Context) error {
		return c.JSON(http.StatusOK, automanaged.NewNode(cfg.Name, system.ID, host, port, port+1, n.cl.GetClusterKinds()))
	})
	return automanaged.NewWithTesting(cfg.RefreshEvery, port+1, web, hosts...), nil
}

// etcdClientConfig is the etcd client's configuration: the endpoints of
// --cluster-peers, a dial bounded by JoinTimeout and only the client's
// errors logged (as JSON lines on stderr, like ours).
func etcdClientConfig(peers []string) clientv3.Config {
	eps := make([]string, 0, len(peers))
	for _, p := range peers {
		a, _ := endpointAddr(p)
		eps = append(eps, a)
	}
	lc := zap.NewProductionConfig()
	lc.Level = zap.NewAtomicLevelAt(zap.ErrorLevel)
	lc.Sampling = nil
	return clientv3.Config{
		Endpoints:   eps,
		DialTimeout: JoinTimeout,
		// Block the dial (up to DialTimeout): the provider's own calls
		// carry no deadline, so the client must be connected first.
		DialOptions:          []grpc.DialOption{grpc.WithBlock()},
		DialKeepAliveTime:    5 * time.Second,
		DialKeepAliveTimeout: 3 * time.Second,
		LogConfig:            &lc,
	}
}

// consulClientConfig is the Consul client's: the agent of --cluster-peers,
// or the client's defaults (CONSUL_HTTP_ADDR, else 127.0.0.1:8500).
func consulClientConfig(peers []string) *consulapi.Config {
	c := consulapi.DefaultConfig()
	if len(peers) > 0 {
		c.Address, _ = endpointAddr(peers[0])
	}
	return c
}

// reachable returns nil once a TCP connection to one of the endpoints
// opens within JoinTimeout, else an error naming the provider and every
// endpoint: a wrong address fails the start in a line, not in a hang.
func reachable(ctx context.Context, provider string, endpoints []string) error {
	if len(endpoints) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, JoinTimeout)
	defer cancel()
	errs := make(chan error, len(endpoints))
	for _, e := range endpoints {
		go func() {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", e)
			if err == nil {
				c.Close()
			}
			errs <- err
		}()
	}
	var why []string
	for range endpoints {
		err := <-errs
		if err == nil {
			return nil
		}
		why = append(why, err.Error())
	}
	return fmt.Errorf("%s at %s unreachable: %s", provider, strings.Join(endpoints, ","), strings.Join(why, "; "))
}

// bounded runs f and waits for it at most d: the providers' clients may
// block without a deadline (etcd's calls, Consul's HTTP), and neither a
// start nor a stop may hang on them. On a timeout f goes on in the
// background (the process is failing or stopping).
func bounded(d time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil { // protoactor panics where it cannot start
				done <- fmt.Errorf("%v", r)
			}
		}()
		done <- f()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("no answer within %v", d)
	}
}
