package embedded

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// BenchmarkWriterFlush is one flush of the store writer (actors/writer)
// under ingest, on the embedded store: 2,000 new posts of 900 bytes, 300
// observation records, 100 snapshots and 200 users in one Batch, plus the
// b2b lookups' jobs, 100 community lists and 130 followers lists (joined,
// or each job its own transaction as before Writer.Join). It reports the process's CPU per row (cpu-µs/row), the
// figure that a busy machine disturbs least.
//
//	go test -run '^$' -bench WriterFlush -benchtime 40x ./persistence/embedded/
func BenchmarkWriterFlush(b *testing.B) {
	for _, c := range []struct {
		name   string
		joined bool
	}{
		{"jobs=apart", false},
		{"jobs=joined", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			data := []byte(`{"text":"` + strings.Repeat("x", 880) + `"}`)
			seq, rows := 0, 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				var posts []persistence.Post
				var obs []persistence.ObservationRecord
				var snaps []persistence.Snapshot
				var users []persistence.User
				var lists []persistence.HandleCommunityList
				var followers []persistence.FollowersSeen
				at := time.UnixMilli(int64(1_700_000_000_000 + seq))
				for i := range 2000 {
					seq++
					h := fmt.Sprintf("user%d", i%300)
					posts = append(posts, persistence.Post{ID: fmt.Sprint(9e17 + seq*7919%1_000_003), Handle: h, CreatedAt: at, DetectedAt: at, Data: data})
					if i < 300 {
						obs = append(obs, persistence.ObservationRecord{Kind: "engagement", Key: fmt.Sprint(seq), Data: data, DetectedAt: at})
					}
					if i < 100 {
						snaps = append(snaps, persistence.Snapshot{Handle: h, Kind: "following", Data: append(data, data...), ObservedAt: at})
					}
					if i < 200 {
						users = append(users, persistence.User{ID: fmt.Sprint(i), Handle: h})
					}
					if i < 100 {
						var l []persistence.HandleCommunity
						for k := range 5 {
							l = append(l, persistence.HandleCommunity{CommunityID: fmt.Sprint(k + i), CommunityName: "c", MemberCount: int64(seq)})
						}
						lists = append(lists, persistence.HandleCommunityList{Handle: h, List: l, At: at})
					}
					if i < 130 {
						var accts []persistence.FollowTarget
						for k := range 20 {
							accts = append(accts, persistence.FollowTarget{ID: fmt.Sprint(seq*20 + k), ScreenName: "f"})
						}
						followers = append(followers, persistence.FollowersSeen{Handle: h, Accounts: accts, At: at})
					}
				}
				jobs := func(ctx context.Context) error {
					if err := s.ApplyHandleCommunities(ctx, lists); err != nil {
						return err
					}
					return s.AddFollowers(ctx, followers)
				}
				err := s.Batch(ctx, func(ctx context.Context) error {
					for _, f := range []func() error{
						func() error { return s.UpsertUsers(ctx, users) },
						func() error { return s.SavePosts(ctx, posts) },
						func() error { return s.PutSnapshots(ctx, snaps) },
						func() error { return s.AppendObservations(ctx, obs) },
					} {
						if err := f(); err != nil {
							return err
						}
					}
					if c.joined {
						return jobs(ctx)
					}
					return nil
				})
				if err == nil && !c.joined {
					err = jobs(ctx)
				}
				if err != nil {
					b.Fatal(err)
				}
				rows += len(posts) + len(obs) + len(snaps) + len(users) + len(lists) + len(followers)
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(rows), "cpu-µs/row")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
