package b2b

import (
	"context"
	"log/slog"
	"testing"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
	"github.com/asynkron/protoactor-go/actor"
)

// BenchmarkRecorderSimStream routes the kinds the recorder keeps, from the
// simulator's steady stream, through the handle actors (which tell the
// recorder what changed) into an embedded store and waits for the writer:
// the cost per observation of keeping them.
func BenchmarkRecorderSimStream(b *testing.B) {
	s := sim.New(sim.Config{Seed: 1, Users: 300})
	var obs []*protocol.Observation
	for len(obs) < 20000 {
		for _, line := range s.Generate(1000) {
			o, err := protocol.DecodeObservation(line, 1)
			if err != nil {
				b.Fatal(err)
			}
			switch o.Kind {
			case protocol.KindUser, protocol.KindFollowing, protocol.KindFollowersNew, protocol.KindCommunities, protocol.KindEngagement:
				obs = append(obs, o)
			}
		}
	}
	st, err := embedded.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	w := writer.New(st, writer.Options{})
	defer w.Stop()
	r, err := Start(testKit(b, sys), st, w, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Stop()
	subs := []handle.Subscriber{r}
	router := handle.NewRouter(sys, &handle.Deps{Dir: directory.New(), Writer: w, Log: slog.New(slog.DiscardHandler),
		Timings: protocol.DefaultTimings(), Subs: &handle.Subscriptions{ProfileChanged: subs, FollowsChanged: subs,
			FollowersAdded: subs, MembershipsChanged: subs, EngagementChanged: subs}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := *obs[i%len(obs)]
		o.DetectedAt = int64(i + 1)
		router.Route(&o)
	}
	router.Stop()
	if err := r.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
}
