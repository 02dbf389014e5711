package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
	"github.com/alertd/alertd/upstream/sim"
)

// demoRun is the in-process synthetic upstream of --demo.
type demoRun struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startDemo issues the demo keys, prints them, and feeds the engine its own
// ingest API over loopback, so the demo exercises the real path.
func startDemo(ctx context.Context, cfg *Config, e *Engine, log *slog.Logger) (*demoRun, error) {
	keys, err := issueDemoKeys(ctx, e.registry)
	if err != nil {
		return nil, err
	}
	base := "http://" + e.server.Addr().String()
	src := sim.New(sim.Config{Seed: time.Now().UnixNano(), Users: 300, Rate: cfg.DemoRate})
	sample := "<handle>"
	if hs := src.ActiveHandles(1); len(hs) > 0 {
		sample = hs[0]
	}
	// The demo B2B key monitors the busiest synthetic accounts, so the
	// realtime socket shows events as soon as it logs in.
	for _, h := range src.ActiveHandles(100) {
		_, _ = e.targets.Add(ctx, demoAccount, h, "", nil, protocol.MaxB2BHandles) // kept from an earlier run, or full: fine
	}
	// The demo Tweet Alerts key tracks the 50 busiest ones, so the
	// dashboard's live feed moves as soon as one signs in with it.
	if e.tweetAlerts != nil {
		if _, _, _, err := e.tweetAlerts.Track(ctx, demoAccount, src.ActiveHandles(50), 1000, func(string) bool { return true }); err != nil &&
			!errors.Is(err, tweetalerts.ErrPlanFull) {
			log.Warn("demo: track accounts", "err", err)
		}
	}
	watched := len(e.targets.ActiveHandles(demoAccount))
	printDemoKeys(os.Stdout, base, keys, sample)
	fmt.Fprintf(os.Stdout, "The dt key monitors %d busy synthetic accounts: log in on ws://%s/v1/dt/realtime/ws with {\"op\":2,\"d\":\"%s\"}\n\n",
		watched, e.server.Addr().String(), keys[protocol.ProductB2B])
	fmt.Fprintf(os.Stdout, "Dashboard: %s/ (sign in with the xg or dt key above); operator console: %s/admin/ (the admin token)\n\n", base, base)
	dctx, cancel := context.WithCancel(ctx)
	d := &demoRun{cancel: cancel}
	sink := upstream.NewHTTPSink(base, e.admin)
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		if err := src.Run(dctx, sink); err != nil && dctx.Err() == nil {
			log.Error("demo upstream stopped", "err", err)
		}
	}()
	go func() {
		defer d.wg.Done()
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-dctx.Done():
				return
			case <-t.C:
				s := sink.Stats()
				log.Info("demo upstream", "sent", s.Lines, "accepted", s.Accepted, "rejected", s.Rejected, "failed_requests", s.Errors)
			}
		}
	}()
	return d, nil
}

func (d *demoRun) stop() {
	d.cancel()
	d.wg.Wait()
}
