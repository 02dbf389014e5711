//go:build kubernetes

package cluster

import (
	"net"
	"strings"

	"github.com/asynkron/protoactor-go/cluster"
	"github.com/asynkron/protoactor-go/cluster/clusterproviders/k8s"
	"k8s.io/client-go/rest"
)

// The kubernetes provider, in binaries built with -tags kubernetes only
// (see kubernetesProvider).
func init() {
	kubernetesProvider = func() (func() (cluster.ClusterProvider, error), string, error) {
		c, err := rest.InClusterConfig()
		if err != nil {
			return nil, "", err
		}
		return func() (cluster.ClusterProvider, error) { return k8s.NewWithConfig(c) }, kubernetesAddr(c), nil
	}
}

// kubernetesAddr is the API server's host:port in an in-cluster config.
func kubernetesAddr(c *rest.Config) string {
	h := strings.TrimPrefix(strings.TrimPrefix(c.Host, "https://"), "http://")
	if _, _, err := net.SplitHostPort(h); err != nil {
		h = net.JoinHostPort(h, "443")
	}
	return h
}
