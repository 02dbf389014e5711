package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Bench measures the batch writes, batchSize rows a call, on a store from
// open (a new, empty one). Report numbers; never assert on them.
func Bench(b *testing.B, open func(b *testing.B) persistence.Store) {
	const batchSize = 1000
	b.Run("SavePosts", func(b *testing.B) {
		s := open(b)
		data := []byte(fmt.Sprintf(`{"text":"%0300d"}`, 0))
		n := 0
		for b.Loop() {
			batch := make([]persistence.Post, batchSize)
			for i := range batch {
				n++
				batch[i] = persistence.Post{ID: fmt.Sprint(n), Handle: fmt.Sprintf("h%d", n%100),
					CreatedAt: at(time.Duration(n) * time.Millisecond), DetectedAt: at(0), Data: data}
			}
			if err := s.SavePosts(b.Context(), batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*batchSize)/b.Elapsed().Seconds(), "rows/s")
	})
	// WriteTargets in the batches the target registry's group commit makes:
	// new targets of many accounts, so index inserts land all over; 4096:
	// what a round costs per row once it is large enough that rows share
	// the index's leaf pages (a log-structured write applying in bulk).
	for _, size := range []int{16, 256, 4096} {
		b.Run(fmt.Sprintf("WriteTargets/%d", size), func(b *testing.B) {
			s := open(b)
			const accounts = 500
			for a := range accounts {
				if _, err := s.CreateAccount(b.Context(), fmt.Sprintf("a%d", a), base); err != nil {
					b.Fatal(err)
				}
			}
			id := "42"
			n := 0
			for b.Loop() {
				batch := make([]persistence.Target, size)
				for i := range batch {
					n++
					batch[i] = persistence.Target{AccountID: fmt.Sprintf("a%d", n*7919%accounts), Handle: fmt.Sprintf("h%d", n),
						SocialUserID: &id, IsActive: true, CreatedAt: base}
				}
				if _, err := s.WriteTargets(b.Context(), batch, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "rows/s")
		})
	}
	b.Run("UpsertUsers", func(b *testing.B) {
		s := open(b)
		for b.Loop() {
			batch := make([]persistence.User, batchSize)
			for i := range batch {
				batch[i] = persistence.User{ID: fmt.Sprint(i), Handle: fmt.Sprintf("u%d", i),
					Categories: []string{"kol"}, Snapshot: []byte(`{"followers":1}`), UpdatedAt: at(0)}
			}
			if err := s.UpsertUsers(b.Context(), batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*batchSize)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("AppendObservations", func(b *testing.B) {
		s := open(b)
		data := []byte(`{"kind":"engagement","likes":12}`)
		for b.Loop() {
			batch := make([]persistence.ObservationRecord, batchSize)
			for i := range batch {
				batch[i] = persistence.ObservationRecord{Kind: protocol.KindEngagement, Key: fmt.Sprint(i), DetectedAt: at(0), Data: data}
			}
			if err := s.AppendObservations(b.Context(), batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*batchSize)/b.Elapsed().Seconds(), "rows/s")
	})
}
