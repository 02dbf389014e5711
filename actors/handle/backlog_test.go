package handle

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

func TestBacklogCountsUntilHandled(t *testing.T) {
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := writer.New(st, writer.Options{Logger: log})
	defer w.Stop()
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return log }))
	defer sys.Shutdown()
	release := make(chan struct{})
	r := NewRouter(sys, &Deps{Dir: directory.New(), Writer: w, Log: log, Timings: protocol.DefaultTimings(),
		Subs: onDeleted(func(*protocol.Observation) { <-release })})
	const line = `{"kind":"post_deleted","handle":"whale"}`
	for i := 0; i < 3; i++ {
		r.Route(decode(t, line, 1))
	}
	if got, bytes := r.Backlog(), r.BacklogBytes(); got != 3 || bytes != 3*int64(len(line)) {
		t.Fatalf("backlog %d (%d bytes) while the first is blocked, want 3 (%d bytes)", got, bytes, 3*len(line))
	}
	close(release)
	testkit.WaitFor(t, 5*time.Second, "backlog drained", func() (bool, string) {
		return r.Backlog() == 0 && r.BacklogBytes() == 0, fmt.Sprint(r.Backlog(), r.BacklogBytes())
	})
	r.Stop()
}
