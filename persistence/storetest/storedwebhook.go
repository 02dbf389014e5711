package storetest

import (
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// storedWebhookTests hold the store to persistence.StoredWebhookStore (Trending, PumpFun, ECA and Search Alerts only store their webhook URL).
var storedWebhookTests = []test{
	{"stored webhooks", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		_, err := s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		checkNotFound(t, "GetStoredWebhook before any", err)
		must(t, "PutStoredWebhook", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductPumpFun, URL: ptr("https://hooks.example.com/pf"), UpdatedAt: at(0)}))
		must(t, "PutStoredWebhook sa", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductSA, URL: ptr("https://hooks.example.com/sa"), UpdatedAt: at(time.Second)}))
		w, err := s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		must(t, "GetStoredWebhook", err)
		if w.URL == nil || *w.URL != "https://hooks.example.com/pf" || w.Product != protocol.ProductPumpFun || w.AccountID != "a1" {
			t.Fatalf("webhook %+v", w)
		}
		checkTime(t, "UpdatedAt", w.UpdatedAt, at(0))
		must(t, "PutStoredWebhook clear", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductPumpFun, UpdatedAt: at(time.Minute)}))
		w, err = s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		must(t, "GetStoredWebhook cleared", err)
		if w.URL != nil {
			t.Errorf("cleared webhook URL = %q, want nil", *w.URL)
		}
		checkTime(t, "UpdatedAt after clear", w.UpdatedAt, at(time.Minute))
		w, err = s.GetStoredWebhook(ctx, "a1", protocol.ProductSA)
		must(t, "GetStoredWebhook sa", err)
		if w.URL == nil || *w.URL != "https://hooks.example.com/sa" {
			t.Errorf("sa webhook changed with pf's: %+v", w)
		}
	}},
}
