package testkit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNotImportedByProduction: the binary depends on no test helper and on
// nothing of the end-to-end suite (DESIGN.md: e2e/ is never imported by
// production code).
func TestNotImportedByProduction(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/alertd/alertd/cmd/alertd").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "github.com/alertd/alertd/internal/testkit", "github.com/alertd/alertd/e2e",
			"github.com/alertd/alertd/persistence/pgtest", "github.com/alertd/alertd/persistence/storetest",
			"github.com/alertd/alertd/edge/httpkit/httpkittest":
			t.Errorf("cmd/alertd depends on the test package %s", dep)
		}
	}
}
