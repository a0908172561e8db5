package analyze_test

import (
	"context"
	"testing"

	"github.com/mirage-hpc/mirage/analyze"
	"github.com/mirage-hpc/mirage/ingest/ls6test"
	"github.com/mirage-hpc/mirage/sim"
	"github.com/mirage-hpc/mirage/trace"
)

// TestReplayChains_LS6: LS6's own chains replay under the ls6 profile;
// the real interruption is what the links' jobs lost; a window of head
// submissions replays a part of them; a profile that cannot queue
// (every node free) gives no more interruption than the ls6 one.
func TestReplayChains_LS6(t *testing.T) {
	tjobs, err := trace.ReadAll(ls6test.Parquet(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	all, err := analyze.ReplayChains(ctx, tjobs, prof, 0, 0, analyze.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if all.Links < 100 || all.RealH <= 0 || all.ReactiveH <= 0 {
		t.Fatalf("ls6: %+v, want hundreds of links with real and simulated interruption", all)
	}
	mid := tjobs[len(tjobs)/2].Submit.Unix()
	part, err := analyze.ReplayChains(ctx, tjobs, prof, mid, 0, analyze.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if part.Links == 0 || part.Links >= all.Links {
		t.Errorf("heads from mid-trace: %d links, want some of %d", part.Links, all.Links)
	}
	big := prof
	big.Config.Nodes, big.InferCapacity = 10_000, nil
	free, err := analyze.ReplayChains(ctx, tjobs, big, 0, 0, analyze.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if free.ReactiveH > all.ReactiveH {
		t.Errorf("10,000 free nodes: %.1f h of reactive interruption, more than ls6's %.1f h", free.ReactiveH, all.ReactiveH)
	}
	t.Logf("ls6: %d links, real %.1f h, reactive %.1f h; 10,000 nodes: %.1f h", all.Links, all.RealH, all.ReactiveH, free.ReactiveH)
}

// TestChains_Replay_LS6: chains detected once replay as ReplayChains
// does; a window's bounds and a background from a warm-up before it
// replay a part of them, with the real interruption of those links.
func TestChains_Replay_LS6(t *testing.T) {
	tjobs, err := trace.ReadAll(ls6test.Parquet(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := sim.LoadProfile("ls6")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := analyze.DetectChains(tjobs, analyze.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	mid := tjobs[len(tjobs)/2].Submit.Unix()
	want, err := analyze.ReplayChains(ctx, tjobs, prof, mid, 0, analyze.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got, err := cs.Replay(ctx, tjobs, prof, analyze.ChainWindow{From: mid})
	if err != nil {
		t.Fatal(err)
	}
	if got != want || cs.Len() == 0 {
		t.Errorf("detected once: %+v, want ReplayChains' %+v (%d chains)", got, want, cs.Len())
	}
	few, err := cs.Replay(ctx, tjobs, prof, analyze.ChainWindow{From: mid, To: mid + 14*86400, BackgroundFrom: mid - 86400, MaxChains: 20})
	if err != nil {
		t.Fatal(err)
	}
	if few.Chains == 0 || few.Chains > 20 || few.Links >= want.Links || few.RealH <= 0 {
		t.Errorf("two weeks, at most 20 chains: %+v (all from mid: %+v)", few, want)
	}
}
