package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestExp2Upper: exp2Upper bounds 2^x from above, by less than one part
// in 10⁹ (and a rounding), over the whole range of fair-share exponents.
func TestExp2Upper(t *testing.T) {
	step := 1 + 1e-9
	check := func(t interface{ Fatalf(string, ...any) }, x float64) {
		got, want := exp2Upper(x), math.Exp2(x)
		if got < want*(1-1e-15) || got > want*step*(1+1e-15) {
			t.Fatalf("exp2Upper(%v) = %v, 2^x = %v: want within [2^x, 2^x * %v]", x, got, want, step)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -1.0 / exp2Steps, -1, -1 - 1e-12, -0.5, -999.999, -1000, -1001, -1e9} {
		check(t, x)
	}
	if got := exp2Upper(math.NaN()); !math.IsNaN(got) {
		t.Fatalf("exp2Upper(NaN) = %v", got)
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, -rapid.Float64Range(0, 1100).Draw(t, "-x"))
	})
}

// TestDriftCoef: for totals T <= T' and every exponent y >= 0, a user's
// fair-share factor rises by at most driftCoef·ln(T'/T):
// 2^(−y·T/T') − 2^(−y) <= driftCoef·ln(T'/T), checked at the maximising
// y and on a grid of y, for ratios from 1e-9 to 1 − 1e-12.
func TestDriftCoef(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, rho, y float64) {
		rise := math.Exp2(-rho*y) - math.Exp2(-y)
		if allowed := driftCoef * math.Log(1/rho); rise > allowed*(1+1e-9)+1e-300 {
			t.Fatalf("ρ = %v, y = %v: fair-share factor rises by %v, drift allows %v", rho, y, rise, allowed)
		}
	}
	for _, d := range []float64{1e-12, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.5, 0.9, 0.99, 1 - 1e-9} {
		rho := 1 - d
		check(t, rho, -math.Log2(rho)/(1-rho)) // the maximum over y
		for y := 0.0; y < 64; y += 0.125 {
			check(t, rho, y)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		rho := rapid.Float64Range(1e-9, 1-1e-12).Draw(t, "rho")
		check(t, rho, rapid.Float64Range(0, 2000).Draw(t, "y"))
		check(t, rho, -math.Log2(rho)/(1-rho))
	})
}

// TestProperty_BoundsHold: at random times of random overloaded
// workloads with fair-share (users that come and go, capped ages,
// several sizes), every active user's bound now (key plus drift, plus the
// age shift for uncapped lists) is at least the exact priority of each
// of its pending jobs: a pass that stops at a bound misses no job.
func TestProperty_BoundsHold(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Nodes = rapid.IntRange(4, 64).Draw(t, "nodes")
		cfg.Priority.MaxAgeSec = rapid.Int64Range(600, 86400).Draw(t, "maxAge")
		cfg.Priority.DecayHalfLifeSec = rapid.Int64Range(600, 4*86400).Draw(t, "halfLife")
		cfg.Priority.FairShareWeight = rapid.Float64Range(0, 1e5).Draw(t, "fsw")
		users := rapid.IntRange(1, 40).Draw(t, "users")
		s := genQueue(t, cfg, users, rapid.IntRange(50, 600).Draw(t, "jobs"), 900, 600, 3*86400)
		now := s.Now()
		for range rapid.IntRange(1, 30).Draw(t, "checks") {
			now += rapid.Int64Range(0, 6*3600).Draw(t, "step")
			if err := s.RunUntil(context.Background(), now); err != nil {
				t.Fatal(err)
			}
			if s.idx == nil || !s.idx.bounded {
				continue
			}
			checkBounds(t, s)
		}
	})
}

// genQueue returns a simulation of n random jobs of the given number of
// users on cfg's nodes, submitted up to maxGap seconds apart, with time
// limits from minLimit to maxLimit seconds and run times up to them.
func genQueue(t *rapid.T, cfg Config, users, n int, maxGap, minLimit, maxLimit int64) *Sim {
	jobs := make([]Job, n)
	var at int64
	for i := range jobs {
		at += rapid.Int64Range(0, maxGap).Draw(t, "gap")
		lim := rapid.Int64Range(minLimit, maxLimit).Draw(t, "limit")
		jobs[i] = Job{User: int32(rapid.IntRange(0, users-1).Draw(t, "user")), Nodes: int32(rapid.IntRange(1, cfg.Nodes).Draw(t, "n")),
			Submit: at, LimitSec: lim, RunSec: rapid.Int64Range(1, lim).Draw(t, "run"), After: NoJob}
	}
	s, err := New(cfg, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkBounds fails unless every active user's bounds cover the exact
// priority of each of its indexed jobs now.
func checkBounds(t interface{ Fatalf(string, ...any) }, s *Sim) {
	x := s.idx
	s.settleBounds()
	s.advanceUsage(s.now)
	s.scratch.gen++
	if s.cfg.Priority.FairShareWeight != 0 && len(s.scratch.fs) < s.users {
		s.scratch.fs = make([]float64, s.users+1)
		s.scratch.fsGen = make([]uint64, len(s.scratch.fs))
	}
	d, shift := s.boundDrift(), s.ageShift()
	for k := range x.heaps {
		h := x.heaps[k].nodes
		if len(h) != len(x.active) {
			t.Fatalf("heap %d holds %d users, %d are active", k, len(h), len(x.active))
		}
		for m := range h {
			if x.users[h[m].slot].bpos[k] != int32(m) {
				t.Fatalf("heap %d: node %d is user slot %d, whose position says %d", k, m, h[m].slot, x.users[h[m].slot].bpos[k])
			}
			if p := (m - 1) / 2; m > 0 && higher(&h[m], &h[p]) {
				t.Fatalf("heap %d: node %d is above its parent", k, m)
			}
		}
	}
	for _, i := range x.active {
		u := &x.users[i]
		if u.bpos[0] < 0 || u.bpos[1] < 0 {
			t.Fatalf("active user slot %d is not in the heaps", i)
		}
		for kind := listUncapped; kind < numLists; kind++ {
			for _, e := range u.lists[kind] {
				if e.dead {
					continue
				}
				k := boundKind(kind)
				b := x.heaps[k].nodes[u.bpos[k]].key + d
				if k == 0 {
					b += shift
				}
				if p := s.priorityOf(e.id, s.usageTotal); p > b {
					t.Fatalf("at %d, user slot %d, list %d: job %d has priority %v above the bound %v", s.now, i, kind, e.id, p, b)
				}
			}
		}
	}
}

// TestFirstFit: firstFit finds the first start of a run of slots with
// enough nodes exactly as a scan of every slot does (a full span of d
// slots, or the run that reaches the end of the window).
func TestFirstFit(t *testing.T) {
	scan := func(free []int, nodes, d int) (int, bool) {
		run := 0
		for k, v := range free {
			if v < nodes {
				run = 0
				continue
			}
			if run++; run == d {
				return k + 1 - d, true
			}
		}
		return len(free) - run, run > 0
	}
	rapid.Check(t, func(t *rapid.T) {
		free := rapid.SliceOfN(rapid.IntRange(-2, 8), 0, 300).Draw(t, "free")
		nodes := rapid.IntRange(1, 8).Draw(t, "nodes")
		d := rapid.IntRange(1, max(1, len(free))).Draw(t, "d")
		k, ok := firstFit(free, nodes, d)
		wk, wok := scan(free, nodes, d)
		if ok != wok || ok && k != wk {
			t.Fatalf("firstFit(%v, %d, %d) = %d, %v; a full scan gives %d, %v", free, nodes, d, k, ok, wk, wok)
		}
	})
}

// TestSearchList: searchList answers as a binary search over the whole
// list, probing from either end, for entries in the list and between.
func TestSearchList(t *testing.T) {
	s := &Sim{}
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfN(rapid.IntRange(0, 20), 0, 200).Draw(t, "keys")
		l := make([]entry, len(keys))
		for i, k := range keys {
			l[i] = entry{key: float64(k), submit: int64(i % 3), id: JobID(i)}
		}
		slices.SortFunc(l, s.indexCmp)
		e := entry{key: float64(rapid.IntRange(-1, 21).Draw(t, "key")), submit: int64(rapid.IntRange(0, 2).Draw(t, "submit")), id: JobID(rapid.IntRange(0, 200).Draw(t, "id"))}
		if len(l) > 0 && rapid.Bool().Draw(t, "member") {
			e = l[rapid.IntRange(0, len(l)-1).Draw(t, "at")]
		}
		want, wantFound := slices.BinarySearchFunc(l, e, s.indexCmp)
		for _, fromEnd := range []bool{false, true} {
			if got, found := s.searchList(l, e, fromEnd); got != want || found != wantFound {
				t.Fatalf("searchList(fromEnd %v) = %d, %v; binary search %d, %v", fromEnd, got, found, want, wantFound)
			}
		}
	})
}

// TestBoundSlack_Tight: a year into a trace (an age shift of 365,000 with
// the default weights), a bound exceeds the exact priority it covers by
// less than 0.001 priority points, for capped and uncapped jobs: a slack
// wider than the gaps between users' top jobs makes passes evaluate
// users they could pass over (with 1e-6 it was 0.4 points).
func TestBoundSlack_Tight(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Nodes = 1000
	s := &Sim{cfg: cfg, idx: &prioIndex{base: 0}}
	pc := &cfg.Priority
	s.now = 365 * 86400
	eb := s.entryBounder()
	if shift := s.ageShift(); shift < 3.6e5 {
		t.Fatalf("age shift %v, want a year's (about 365,000)", shift)
	}
	for _, fs := range []float64{0, 1e-3, 0.5, 1} {
		for _, nodes := range []int32{1, 64, 1000} {
			size := pc.SizeWeight * float64(nodes) / float64(cfg.Nodes)
			// An uncapped job 3 days old, and a capped one.
			from := s.now - 3*86400
			key := size - pc.AgeWeight*float64(from-s.idx.base)/float64(pc.MaxAgeSec)
			got := eb.bound(key, listUncapped, fs) + s.ageShift()
			if exact := s.priorityFrom(nodes, from, fs); got < exact || got-exact > 1e-3 {
				t.Errorf("uncapped, fs %v, %d nodes: bound %v, exact priority %v", fs, nodes, got, exact)
			}
			got = eb.bound(size, listCapped, fs)
			if exact := s.priorityCapped(size, fs); got < exact || got-exact > 1e-3 {
				t.Errorf("capped, fs %v, %d nodes: bound %v, exact priority %v", fs, nodes, got, exact)
			}
		}
	}
}

// TestProperty_RunRelMatchesJobs: the backfill plan's copy of each running
// job's release (runRel) is the job's start plus its limit and its nodes,
// in the order of the running list, through starts, ends and clones.
func TestProperty_RunRelMatchesJobs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := DefaultConfig()
		cfg.Nodes = rapid.IntRange(1, 32).Draw(t, "nodes")
		s := genQueue(t, cfg, 6, rapid.IntRange(1, 300).Draw(t, "jobs"), 1800, 60, 86400)
		now := s.Now()
		for range rapid.IntRange(1, 20).Draw(t, "checks") {
			now += rapid.Int64Range(0, 4*3600).Draw(t, "step")
			if err := s.RunUntil(context.Background(), now); err != nil {
				t.Fatal(err)
			}
			if rapid.Bool().Draw(t, "clone") {
				s = s.Clone(nil)
			}
			if len(s.runRel) != len(s.running) {
				t.Fatalf("at %d: %d releases for %d running jobs", s.now, len(s.runRel), len(s.running))
			}
			for i, id := range s.running {
				j := &s.jobs[id]
				if want := (runEnd{at: s.st.get(id).start + j.LimitSec, nodes: int(j.Nodes)}); s.runRel[i] != want {
					t.Fatalf("at %d: running job %d (index %d) has release %+v, want %+v", s.now, id, i, s.runRel[i], want)
				}
			}
		}
	})
}

// TestProperty_EndOfRunRemembered: the run of equal keys a list remembers
// across passes (endOfRun) stays right as entries are inserted anywhere
// their key allows, the head is trimmed and the list rebuilt: every
// answer equals a fresh search (endOfKeyRun).
func TestProperty_EndOfRunRemembered(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var u userLists
		k := listCapped
		var l []entry // keys descending
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0:
				key := float64(rapid.IntRange(0, 4).Draw(t, "key"))
				lo := len(l) - len(slices.DeleteFunc(slices.Clone(l), func(e entry) bool { return e.key > key })) // entries above key
				hi := lo
				for hi < len(l) && l[hi].key == key {
					hi++
				}
				i := rapid.IntRange(lo, hi).Draw(t, "at")
				l = slices.Insert(l, i, entry{key: key})
				u.insertRun(k, i)
			case 1:
				h := rapid.IntRange(0, len(l)).Draw(t, "trim")
				l = l[h:]
				u.trimRun(k, h)
			case 2:
				u.clearRun(k)
			default:
				if len(l) == 0 {
					continue
				}
				m := rapid.IntRange(0, len(l)-1).Draw(t, "m")
				if got, want := u.endOfRun(k, l, m), endOfKeyRun(l, m, l[m].key); got != want {
					t.Fatalf("end of the run from %d of %v: remembered %d, a search gives %d", m, l, got, want)
				}
			}
		}
	})
}

// TestProperty_MergeRecent: merging a user's recent capped entries into
// its capped list, in place from the back, gives the live entries of
// both in list order (as a sort of them does) and marks the moved jobs
// as capped, whether or not the capped list's array has room.
func TestProperty_MergeRecent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := &Sim{idx: &prioIndex{where: make([]uint8, 400)}}
		id := 0
		list := func(name string) []entry {
			n := rapid.IntRange(0, 150).Draw(t, name)
			l := make([]entry, 0, n+rapid.IntRange(0, 100).Draw(t, name+" room"))
			for range n {
				l = append(l, entry{key: float64(rapid.IntRange(0, 5).Draw(t, "key")), submit: int64(rapid.IntRange(0, 9).Draw(t, "submit")),
					id: JobID(id), dead: rapid.IntRange(0, 3).Draw(t, "dead") == 0})
				id++
			}
			slices.SortFunc(l, s.indexCmp)
			return l
		}
		var u userLists
		u.lists[listCapped], u.lists[listRecent] = list("capped"), list("recent")
		var want []entry
		for _, l := range u.lists[listCapped:] {
			for _, e := range l {
				if !e.dead {
					want = append(want, e)
				}
			}
		}
		slices.SortFunc(want, s.indexCmp)
		recent := slices.Clone(u.lists[listRecent])
		s.mergeRecent(&u)
		if got := u.lists[listCapped]; !slices.Equal(got, want) {
			t.Fatalf("merged %v, want %v", got, want)
		}
		if len(u.lists[listRecent]) != 0 {
			t.Fatalf("recent list keeps %d entries", len(u.lists[listRecent]))
		}
		for _, e := range recent {
			if !e.dead && s.idx.where[e.id] != listCapped {
				t.Fatalf("job %d moved without being marked capped", e.id)
			}
		}
	})
}
