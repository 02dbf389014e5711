//go:build kubernetes

package cluster

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestKubernetesConfig: the provider takes the in-cluster config and
// nothing else; outside a pod the start fails with the reason, and the API
// server's address is what New dials first.
func TestKubernetesConfig(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	c := Config{Name: "c", Addr: DefaultAddr, Provider: ProviderKubernetes}
	if err := c.Validate(); err != nil {
		t.Fatalf("built with -tags kubernetes: %v", err)
	}
	_, err := c.serviceEndpoints()
	if err == nil || !strings.Contains(err.Error(), "kubernetes") || !strings.Contains(err.Error(), "KUBERNETES_SERVICE_HOST") {
		t.Errorf("outside a pod: %v", err)
	}
	for host, want := range map[string]string{
		"https://10.96.0.1:443":  "10.96.0.1:443",
		"https://10.96.0.1":      "10.96.0.1:443",
		"https://[fd00::1]:6443": "[fd00::1]:6443",
	} {
		if got := kubernetesAddr(&rest.Config{Host: host}); got != want {
			t.Errorf("kubernetes API %s: %s, want %s", host, got, want)
		}
	}
}
