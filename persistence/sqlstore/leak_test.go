package sqlstore_test

import (
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }
