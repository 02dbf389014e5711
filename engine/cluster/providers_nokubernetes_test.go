//go:build !kubernetes

package cluster

import (
	"strings"
	"testing"
)

// TestKubernetesNotBuiltIn: without -tags kubernetes the provider is
// refused with the way to get it (--check-config says so too).
func TestKubernetesNotBuiltIn(t *testing.T) {
	t.Parallel()
	c := Config{Name: "c", Addr: DefaultAddr, Provider: ProviderKubernetes}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "-tags kubernetes") {
		t.Errorf("kubernetes without the tag: %v", err)
	}
}
